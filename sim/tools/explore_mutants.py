#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Explore mode against mutants (docs/explore.md "Finding mutants").

Copies the committed tree (git archive HEAD) to a scratch directory, builds
rl-testbed there once, then for each mutant applies it to the scratch copy
only, rebuilds, runs `rl-testbed sim --explore --first --seeds 1..N`, records
the first failing seed, the property, the shrink time and the shrunk trace's
size, and restores the file. The worktree is never modified.

Mutants: the HA-policy mutants of mutation/mutants.toml (require = ["traces"])
and the planted server-model bugs of sim/tools/explore_planted.toml.

  python3 sim/tools/explore_mutants.py [--seeds N] [--only NAME...] [--scratch DIR] [--table FILE]
"""
import argparse, os, re, shutil, subprocess, sys, time, tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_mutants():
    with open(os.path.join(ROOT, "mutation/mutants.toml"), "rb") as f:
        ha = [m for m in tomllib.load(f)["mutant"] if "traces" in m.get("require", [])]
    with open(os.path.join(ROOT, "sim/tools/explore_planted.toml"), "rb") as f:
        planted = tomllib.load(f)["mutant"]
    return ha + planted


def sh(cmd, cwd, **kw):
    return subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), text=True, capture_output=True, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=2000)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--table", default=None)
    a = ap.parse_args()
    scratch = a.scratch or os.path.join(os.environ.get("TMPDIR", "/tmp"), "rl-explore-mutants")
    if os.path.exists(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch)
    r = subprocess.run(f"git archive HEAD | tar -x -C '{scratch}'", shell=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit("git archive failed")
    # Assertions off: the table measures the properties (the dedup assertion alone catches the eviction bug);
    # warnings not fatal: a mutant may leave a variable unused, as in the mutation gate.
    for cmd in ("cmake --preset default -DRCLIENT_ASSERTIONS=OFF -DRCLIENT_WERROR=OFF", "cmake --build --preset default -j2 --target rl-testbed"):
        r = sh(cmd, scratch)
        if r.returncode != 0:
            sys.exit(f"{cmd} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    exe = os.path.join(scratch, "build/default/tools/rl-testbed/rl-testbed")
    out = os.path.join(scratch, "shrunk")
    os.makedirs(out)
    rows = []
    for m in load_mutants():
        if a.only and m["name"] not in a.only:
            continue
        path = os.path.join(scratch, m["file"])
        orig = open(path).read()
        if orig.count(m["find"]) != 1:
            rows.append((m["name"], "fragment not found once", "", "", "", ""))
            continue
        open(path, "w").write(orig.replace(m["find"], m["replace"]))
        try:
            r = sh("cmake --build --preset default -j2 --target rl-testbed", scratch)
            if r.returncode != 0:
                rows.append((m["name"], "does not build", "", "", "", ""))
                continue
            t0 = time.monotonic()
            r = sh([exe, "sim", "--explore", "--first", "--quiet", "--seeds", f"1..{a.seeds}", "--out", out],
                   scratch, timeout=3600)
            wall = time.monotonic() - t0
            fail = re.search(r"^FAIL seed (\d+): (\w+)", r.stdout, re.M)
            shrunk = re.search(r"shrunk in ([\d.]+) s \((\d+) runs\) to (\S+): (\d+) servers, (\d+) clients, "
                               r"(\d+) faults, duration_ms (\d+)", r.stdout)
            if not fail:
                rows.append((m["name"], f"not found in {a.seeds} seeds", "", "", f"{wall:.1f}", ""))
                continue
            reqs = ""
            if shrunk:
                ev = sh([exe, "sim", shrunk.group(3), "--seed", fail.group(1), "--events", "/dev/stdout", "--quiet"],
                        scratch)
                reqs = str(sum(1 for l in ev.stdout.splitlines() if " submit " in l))
            size = (f"{shrunk.group(4)} servers, {shrunk.group(5)} clients, {shrunk.group(6)} faults, "
                    f"{shrunk.group(7)} ms, {reqs} requests") if shrunk else "(not shrunk)"
            rows.append((m["name"], fail.group(2), fail.group(1), shrunk.group(1) if shrunk else "", f"{wall:.1f}",
                         size))
        finally:
            open(path, "w").write(orig)
        print(" | ".join(rows[-1]), flush=True)
    table = ["| mutant | property that failed | first seed | shrink s | wall s | shrunk trace |",
             "| --- | --- | --- | --- | --- | --- |"] + ["| " + " | ".join(r) + " |" for r in rows]
    print("\n".join(table))
    if a.table:
        open(a.table, "w").write("\n".join(table) + "\n")
    missed = [r for r in rows if not r[2]]
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
