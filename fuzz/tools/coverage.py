#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Corpus coverage per harness (fuzz/campaign.sh --coverage; fuzz/README.md "Coverage").

Usage: fuzz/campaign.sh --coverage [--out DIR] [--no-build] [harness...]

Builds the fuzz-coverage preset (clang -fprofile-instr-generate
-fcoverage-mapping, the replay driver), replays fuzz/corpus/<h>/ and
fuzz/regressions/<h>/ through each harness, and writes with llvm-profdata and
llvm-cov, for the sources under core/ and sim/ (and tools/rl-testbed/, the
code of the vector_file and conf_case harnesses):
  DIR/<h>.txt       lines, branches and functions per file reached by that
                    harness's corpus, and every function of core/ or sim/
                    linked into the harness that no input reaches
  DIR/all.txt       the same for all harnesses together (the union)
  DIR/summary.md    one row per harness and the union: lines and branches of
                    core/ and of sim/, functions never reached
  DIR/summary.json  the same numbers
DIR defaults to reports/fuzz/coverage. Default harnesses: every harness of
build/fuzz-coverage/fuzz/harnesses.txt. Exit status 1 when a replay failed
(an input crashed, so its profile is missing), 2 on a build or usage error.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "fuzz-coverage", "fuzz")
AREAS = ("core", "sim", "tools/rl-testbed")  # the last: what vector_file and conf_case test


def tool(name):
    for cand in (name, name + "-14", name + "-15", name + "-16"):
        if subprocess.run(["sh", "-c", f"command -v {cand}"], stdout=subprocess.DEVNULL).returncode == 0:
            return cand
    print(f"coverage: {name} not found (Debian package llvm; scripts/install-deps.sh installs it)", file=sys.stderr)
    sys.exit(2)


def rel(path):
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def area_of(path):
    r = rel(path)
    return next((a for a in AREAS if r.startswith(a + "/")), None)


def export(cov, objects, profdata):
    cmd = [cov, "export", "-instr-profile", profdata, objects[0]]
    for o in objects[1:]:
        cmd += ["-object", o]
    cmd += [os.path.join(ROOT, a) for a in AREAS]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=True).stdout
    return json.loads(out)["data"][0]


def summarize(data):
    """Totals per area, per-file rows, unreached functions."""
    totals = {a: {"lines": [0, 0], "branches": [0, 0], "functions": [0, 0]} for a in AREAS}
    files = []
    for f in data["files"]:
        a = area_of(f["filename"])
        if a is None or f["summary"]["lines"]["count"] == 0:
            continue  # other code, or a header without code
        s = f["summary"]
        row = {"file": rel(f["filename"])}
        for k in ("lines", "branches", "functions"):
            covered, count = s[k]["covered"], s[k]["count"]
            totals[a][k][0] += covered
            totals[a][k][1] += count
            row[k] = [covered, count]
        files.append(row)
    unreached = {}
    for fn in data["functions"]:
        if fn["count"] != 0:
            continue
        path = fn["filenames"][0]
        if area_of(path) is None:
            continue
        line = fn["regions"][0][0] if fn["regions"] else 0
        name = fn["name"].split(":")[-1]  # static functions are named "file.c:name"
        unreached[(rel(path), line, name)] = True
    # A function is reached when any instance of it (one per binary) is.
    reached = {(rel(fn["filenames"][0]), fn["name"].split(":")[-1]) for fn in data["functions"] if fn["count"] != 0}
    names = sorted(k for k in unreached if (k[0], k[2]) not in reached)
    return totals, sorted(files, key=lambda r: r["file"]), names


def pct(pair):
    return f"{100.0 * pair[0] / pair[1]:.1f} %" if pair[1] else "-"


def text_report(title, totals, files, unreached):
    lines = [title, ""]
    lines.append(f"{'file':34} {'lines':>16} {'branches':>16} {'functions':>14}")
    for r in files:
        lines.append(f"{r['file']:34} {r['lines'][0]:>5}/{r['lines'][1]:<5} {pct(r['lines']):>7} "
                     f"{r['branches'][0]:>5}/{r['branches'][1]:<5} {pct(r['branches']):>7} "
                     f"{r['functions'][0]:>4}/{r['functions'][1]:<4} {pct(r['functions']):>7}")
    for a in AREAS:
        t = totals[a]
        if t["lines"][1]:
            lines.append(f"{a + '/ total':34} {t['lines'][0]:>5}/{t['lines'][1]:<5} {pct(t['lines']):>7} "
                         f"{t['branches'][0]:>5}/{t['branches'][1]:<5} {pct(t['branches']):>7} "
                         f"{t['functions'][0]:>4}/{t['functions'][1]:<4} {pct(t['functions']):>7}")
    lines += ["", f"Functions never reached ({len(unreached)}):"]
    lines += [f"  {path}:{line} {name}" for path, line, name in unreached] or ["  none"]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(prog="campaign.sh --coverage", description=__doc__.splitlines()[0])
    ap.add_argument("harness", nargs="*")
    ap.add_argument("--out", default=os.path.join(ROOT, "reports", "fuzz", "coverage"))
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    profdata_tool, cov = tool("llvm-profdata"), tool("llvm-cov")
    if not args.no_build:
        for cmd in (["cmake", "--preset", "fuzz-coverage"], ["cmake", "--build", "--preset", "fuzz-coverage"]):
            if subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL).returncode != 0:
                print(f"coverage: {' '.join(cmd)} failed", file=sys.stderr)
                return 2
    if not os.path.isfile(os.path.join(BIN, "harnesses.txt")):
        print(f"coverage: no {rel(BIN)}/harnesses.txt: build the fuzz-coverage preset (drop --no-build)", file=sys.stderr)
        return 2
    known = open(os.path.join(BIN, "harnesses.txt")).read().split()
    unknown = [h for h in args.harness if h not in known]
    if unknown:
        print(f"coverage: no harness {', '.join(unknown)} (harnesses: {' '.join(known)})", file=sys.stderr)
        return 2
    harnesses = args.harness or known
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fuzz-coverage-")
    rows, objects, raws, failed = [], [], [], []
    for h in harnesses:
        binary = os.path.join(BIN, f"fuzz_{h}")
        raw, prof = os.path.join(work, f"{h}.profraw"), os.path.join(work, f"{h}.profdata")
        env = dict(os.environ, LLVM_PROFILE_FILE=raw)
        inputs = [os.path.join(ROOT, "fuzz", d, h) for d in ("corpus", "regressions")]
        inputs = [d for d in inputs if os.path.isdir(d)]
        p = subprocess.run([binary] + inputs, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0 or not os.path.exists(raw):
            failed.append(h)
            print(f"coverage: [{h}] replay failed:\n{p.stderr.decode('utf-8', 'replace')[-2000:]}", file=sys.stderr)
            continue
        subprocess.run([profdata_tool, "merge", "-sparse", raw, "-o", prof], check=True)
        totals, files, unreached = summarize(export(cov, [binary], prof))
        n_inputs = sum(len(fs) for d in inputs for _, _, fs in os.walk(d))
        with open(os.path.join(args.out, f"{h}.txt"), "w") as f:
            f.write(text_report(f"Coverage of core/, sim/ and tools/rl-testbed/ by fuzz/corpus/{h} and fuzz/regressions/{h} "
                                f"({n_inputs} inputs, replay build, llvm-cov)", totals, files, unreached))
        rows.append({"harness": h, "inputs": n_inputs, "totals": totals, "unreached": len(unreached)})
        objects.append(binary)
        raws.append(raw)
        t = totals["core"]
        print(f"coverage: [{h}] core/ lines {pct(t['lines'])}, branches {pct(t['branches'])}; "
              f"{len(unreached)} functions never reached")
    if objects:
        prof = os.path.join(work, "all.profdata")
        subprocess.run([profdata_tool, "merge", "-sparse"] + raws + ["-o", prof], check=True)
        totals, files, unreached = summarize(export(cov, objects, prof))
        linked = {r["file"] for r in files}
        unlinked = sorted(rel(p) for a in AREAS for p in glob.glob(os.path.join(ROOT, a, "**", "*.c"), recursive=True)
                          if rel(p) not in linked and "/tests/" not in rel(p) and "/bench" not in rel(p))
        with open(os.path.join(args.out, "all.txt"), "w") as f:
            f.write(text_report("Coverage of core/, sim/ and tools/rl-testbed/ by every harness's corpus and regressions together",
                                totals, files, unreached))
            f.write(f"\nSource files in no harness (not counted above; {len(unlinked)}):\n")
            f.write("".join(f"  {u}\n" for u in unlinked) or "  none\n")
        rows.append({"harness": "all", "inputs": sum(r["inputs"] for r in rows), "totals": totals,
                     "unreached": len(unreached)})
        t = totals["core"]
        print(f"coverage: all harnesses: core/ lines {pct(t['lines'])}, branches {pct(t['branches'])}")
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"harnesses": rows, "failed": failed}, f, indent=1)
        f.write("\n")
    md = ["# Corpus coverage of core/, sim/ and tools/rl-testbed/", "",
          "Replay of `fuzz/corpus/<h>/` and `fuzz/regressions/<h>/` through each harness built with clang",
          "source-based coverage (preset `fuzz-coverage`), measured by llvm-cov over the files of core/ and sim/",
          "linked into that harness (covered/total), and of tools/rl-testbed/ (the runner code the vector_file",
          "and conf_case harnesses test). `all` is the union over every harness. Per-file numbers",
          "and the functions never reached: `<h>.txt`, `all.txt`. Made by `fuzz/campaign.sh --coverage`.", "",
          "| harness | inputs | core/ lines | core/ branches | sim/ lines | sim/ branches | tools/rl-testbed/ lines "
          "| tools/rl-testbed/ branches | functions never reached |",
          "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        c, s, t = (r["totals"][a] for a in AREAS)
        cell = lambda p: f"{p[0]}/{p[1]} ({pct(p)})" if p[1] else "-"  # noqa: E731
        md.append(f"| {r['harness']} | {r['inputs']} | {cell(c['lines'])} | {cell(c['branches'])} | "
                  f"{cell(s['lines'])} | {cell(s['branches'])} | {cell(t['lines'])} | {cell(t['branches'])} | "
                  f"{r['unreached']} |")
    if objects:
        md += ["", "Source files linked into no harness, so counted nowhere above: " +
               (", ".join(f"`{u}`" for u in unlinked) or "none") + "."]
    if failed:
        md += ["", "Replay failed (no profile): " + ", ".join(failed)]
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"coverage: report {rel(os.path.join(args.out, 'summary.md'))}")
    subprocess.run(["rm", "-rf", work])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
