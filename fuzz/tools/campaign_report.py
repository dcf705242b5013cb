#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write reports/fuzz/<date>-campaign.md and .json from a fuzz/campaign.sh work
directory (one <harness>/result.env per harness).

Usage: campaign_report.py --work build/fuzz-campaign/<stamp> --seconds N --jobs J [--engine libfuzzer|afl]
                          --out reports/fuzz [--commit C]
The AFL++ report is <date>-campaign-afl.md; its cov/edges are afl-fuzz's edges_found/total_edges.
"""

import argparse
import datetime
import glob
import json
import os
import subprocess
import sys


def read_env(path):
    out = {"crashes": []}
    for line in open(path):
        key, _, value = line.rstrip("\n").partition("=")
        if key == "crash":
            name, _, why = value.partition("|")
            out["crashes"].append({"regression": name, "reason": why.strip()})
        elif key in ("harness", "corp", "engine"):
            out[key] = value
        else:
            out[key] = int(value or 0)
    return out


def command(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def source_state(args):
    """The commit the harnesses were built from: --commit, else <work>/source.txt
    (written by campaign.sh when it built them), else the current HEAD."""
    if args.commit:
        return args.commit, False
    path = os.path.join(args.work, "source.txt")
    if os.path.exists(path):
        commit, _, dirty = open(path).read().strip().partition(" ")
        return commit, dirty == "dirty"
    return (command(["git", "rev-parse", "--short", "HEAD"]),
            bool(command(["git", "status", "--porcelain", "--untracked-files=no"])))


def environment(args):
    preset = json.load(open("CMakePresets.json"))
    name = "afl" if args.engine == "afl" else "fuzz"
    flags = next((p["cacheVariables"].get("CMAKE_C_FLAGS", "") for p in preset["configurePresets"]
                  if p["name"] == name), "")
    commit, dirty = source_state(args)
    return {
        "git_commit": commit,
        "git_dirty": dirty,
        "compiler": command(["clang", "--version"]).splitlines()[0] if command(["clang", "--version"]) else "",
        "cflags": flags,
        "cpus": os.cpu_count(),
        "seconds_per_harness": args.seconds,
        "jobs": args.jobs,
        "work_dir": args.work,
        "engine": args.engine,
    }


def markdown(date, env, rows, notes=()):
    afl = env["engine"] == "afl"
    lines = [
        f"# Fuzz campaign {date}{' (AFL++)' if afl else ''}",
        "",
        f"{'AFL++ (afl-clang-fast, persistent mode)' if afl else 'libFuzzer'} with ASan+UBSan (`{env['cflags']}`), {env['compiler']}, "
        f"{env['seconds_per_harness']} s per harness, {env['jobs']} at a time on {env['cpus']} CPUs, "
        f"commit {env['git_commit']}{' (with local changes)' if env['git_dirty'] else ''}. "
        "Made by `fuzz/campaign.sh`; the table is `fuzz/tools/campaign_report.py` over its work directory.",
        "",
    ]
    if afl:
        lines += [
            "`cov` is afl-fuzz's `edges_found` (of `edges` = `total_edges` instrumented in the binary); `ft` does",
            "not apply (0); `corpus` is the queue size at the end (seeds included); `new` the queue entries",
            "this campaign found.",
            "",
        ]
    else:
        lines += [
            "`cov` is libFuzzer's covered edges (of `edges` instrumented in the linked binary: core, harness and,",
            "for vector_file, the rl-testbed runner); `ft` its features (edge and hit-count buckets, comparisons).",
            "`corpus` is libFuzzer's in-memory corpus at the end (inputs/bytes, seeds included); `new` the inputs",
            "this campaign added to its working corpus.",
            "",
        ]
    for note in notes:
        lines += [note, ""]
    lines += [
        "| harness | time s | runs | execs | execs/s | cov | edges | cov % | ft | corpus | new | peak RSS MB | crashes |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        pct = f"{100.0 * r['cov'] / r['edges']:.1f}" if r["edges"] else "-"
        lines.append(f"| {r['harness']} | {r['seconds']} | {r['runs']} | {r['execs']} | {r['execs_per_s']} | "
                     f"{r['cov']} | {r['edges']} | {pct} | {r['ft']} | {r['corp']} | {r['new_files']} | "
                     f"{r['peak_rss_mb']} | {len(r['crashes'])} |")
    crashes = [(r["harness"], c) for r in rows for c in r["crashes"]]
    lines += ["", "## Crashes", ""]
    if not crashes:
        lines.append("None: no sanitizer report, invariant violation, leak or timeout in any harness.")
    for harness, c in crashes:
        lines.append(f"- `{harness}`: `fuzz/regressions/{harness}/{c['regression']}` - {c['reason'] or 'see run log'}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--seconds", type=int, required=True)
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--engine", choices=("libfuzzer", "afl"), default="libfuzzer")
    ap.add_argument("--commit", help="commit the harnesses were built from (default: <work>/source.txt or HEAD)")
    ap.add_argument("--note", action="append", default=[], help="a paragraph to add under the header")
    args = ap.parse_args()
    rows = []
    for path in sorted(glob.glob(os.path.join(args.work, "*", "result.env"))):
        r = read_env(path)
        r["execs_per_s"] = r["execs"] // r["seconds"] if r["seconds"] else 0
        rows.append(r)
    if not rows:
        print("campaign_report: no results in " + args.work, file=sys.stderr)
        return 1
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    stem = f"{date}-campaign" + ("-afl" if args.engine == "afl" else "")
    base = os.path.join(args.out, stem)
    n = 2
    while os.path.exists(base + ".json"):
        base = os.path.join(args.out, f"{stem}-{n}")
        n += 1
    env = environment(args)
    doc = {"date": date, "environment": env, "notes": args.note, "harnesses": rows}
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(base + ".md", "w") as f:
        f.write(markdown(date, env, rows, args.note))
    print(f"campaign: report {base}.md and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
