#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Compare a libFuzzer and an AFL++ campaign of the same harnesses (fuzz/README.md "Latest results").

Usage: engines_report.py --libfuzzer WORK --afl WORK [--coverage reports/fuzz/coverage/summary.json]
                         --out reports/fuzz/<date>-engines.md [--note TEXT]...

WORK is a fuzz/campaign.sh work directory (build/fuzz-campaign/<stamp>, one
<harness>/result.env each), the first made with --engine libfuzzer, the second
with --engine afl. The table gives per harness and engine the execs/s, the
edges covered of those instrumented (each engine counts its own build's
edges), the inputs added and the crashes, and, from the coverage summary, the
lines and branches of core/ (and lines of sim/ and tools/rl-testbed/) the
committed corpus reaches, of the files linked into the harness.
"""

import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from campaign_report import read_env  # noqa: E402


def results(work):
    out = {}
    for path in glob.glob(os.path.join(work, "*", "result.env")):
        r = read_env(path)
        r["execs_per_s"] = r["execs"] // r["seconds"] if r["seconds"] else 0
        out[r["harness"]] = r
    return out


def edges(r):
    if r is None:
        return "-"
    pct = f" ({100.0 * r['cov'] / r['edges']:.0f} %)" if r["edges"] else ""
    return f"{r['cov']}/{r['edges']}{pct}"


def cell(pair):
    return f"{100.0 * pair[0] / pair[1]:.1f} %" if pair[1] else "-"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--libfuzzer", required=True)
    ap.add_argument("--afl", required=True)
    ap.add_argument("--coverage")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="Fuzz engines compared")
    ap.add_argument("--note", action="append", default=[])
    args = ap.parse_args()
    lf, afl = results(args.libfuzzer), results(args.afl)
    cov = {}
    if args.coverage:
        for r in json.load(open(args.coverage))["harnesses"]:
            cov[r["harness"]] = r
    names = sorted(set(lf) | set(afl))
    lines = [f"# {args.title}", ""]
    for note in args.note:
        lines += [note, ""]
    lines += [
        "| harness | libFuzzer execs/s | AFL++ execs/s | libFuzzer edges | AFL++ edges | libFuzzer new inputs | "
        "AFL++ new inputs | crashes (libFuzzer / AFL++) | corpus: core/ lines | corpus: core/ branches | "
        "corpus: sim/ lines | corpus: tools/rl-testbed/ lines |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for h in names:
        a, b = lf.get(h), afl.get(h)
        t = cov.get(h, {}).get("totals", {})
        c, sim, tb = t.get("core"), t.get("sim"), t.get("tools/rl-testbed")
        lines.append(
            f"| {h} | {a['execs_per_s'] if a else '-'} | {b['execs_per_s'] if b else '-'} | {edges(a)} | {edges(b)} | "
            f"{a['new_files'] if a else '-'} | {b['new_files'] if b else '-'} | "
            f"{len(a['crashes']) if a else '-'} / {len(b['crashes']) if b else '-'} | "
            f"{cell(c['lines']) if c else '-'} | {cell(c['branches']) if c else '-'} | "
            f"{cell(sim['lines']) if sim else '-'} | {cell(tb['lines']) if tb else '-'} |")
    if "all" in cov:
        c, s = cov["all"]["totals"]["core"], cov["all"]["totals"]["sim"]
        lines += ["", f"All corpora together reach {c['lines'][0]} of {c['lines'][1]} lines ({cell(c['lines'])}) and "
                  f"{c['branches'][0]} of {c['branches'][1]} branches ({cell(c['branches'])}) of core/, "
                  f"{s['lines'][0]} of {s['lines'][1]} lines ({cell(s['lines'])}) and {s['branches'][0]} of "
                  f"{s['branches'][1]} branches ({cell(s['branches'])}) of sim/; "
                  f"{cov['all']['unreached']} functions of core/ and sim/ are reached by no input "
                  "(`coverage/all.txt`)."]
    crashes = [(h, e, c) for e, res in (("libFuzzer", lf), ("AFL++", afl)) for h in names if h in res
               for c in res[h]["crashes"]]
    lines += ["", "## Crashes", ""]
    if not crashes:
        lines.append("None under either engine: no sanitizer report, invariant violation, leak or timeout.")
    for h, e, c in crashes:
        lines.append(f"- `{h}` ({e}): `fuzz/regressions/{h}/{c['regression']}` - {c['reason']}")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"engines_report: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
