#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Test of sweep/tools/worlds.py's server-count section (issue 23 item 3, project): on a hand-made
results.csv where `b_fixed-U5-N3` has fewer false allows than the default with 3 servers and more
with 5 (every seed, so both intervals exclude 0), the section counts one hold at 3 servers, one flip
at 5, the exact mean differences, and names the family where the claim flips over the server counts.

    python3 sweep/tools/test_worlds.py"""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import worlds  # noqa: E402

FIELDS = ["config", "trace", "seed", "status", "false_allow_rate", "latency_p99_ms", "availability"]


def main():
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)

    check(worlds.servers_of("lan_x") == 3, "a name without _Nsrv has 3 servers")
    check(worlds.servers_of("lan_x_5srv") == 5, "lan_x_5srv has 5 servers")
    check(worlds.servers_of("reg_loss_2srv") == 2, "reg_loss_2srv has 2 servers")
    check(worlds.family_of("lan_x_5srv") == "lan_x", "the family drops _5srv")
    with tempfile.TemporaryDirectory() as tmp:
        res = os.path.join(tmp, "results.csv")
        with open(res, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(FIELDS)
            for seed in range(1, 5):
                j = seed * 0.0001  # the same per-seed offset in both configurations: the difference is exact
                for trace, fa_b in (("lan_x-w100ms-w100-d2000-lim40", 0.010), ("lan_x_5srv-w100ms-w100-d2000-lim40", 0.030)):
                    wr.writerow(["default", trace, seed, "ok", 0.020 + j, 5.0, 1.0])
                    wr.writerow(["b_fixed-U5-N3", trace, seed, "ok", fa_b + j, 5.0, 1.0])
        md = os.path.join(tmp, "worlds.md")
        subprocess.run([sys.executable, os.path.join(HERE, "worlds.py"), res, md], check=True)
        text = open(md).read()
    check("### <a id=\"worlds-servers\"></a>By server count" in text, "the section is written")
    section = text.split("By server count", 1)[-1].split("###", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("| C1 |")]
    check(len(rows) == 1, "C1 has one row in the server table: %d" % len(rows))
    row = rows[0] if rows else ""
    cells = [c.strip() for c in row.strip("|").split("|")]
    check(len(cells) == 4, "claim, 3 servers, 5 servers, flips column: %r" % cells)
    if len(cells) == 4:
        check(cells[1] == "1/0/0/0; -1.000% [-1.000%, -1.000%]", "3 servers: one hold, -1 point: %r" % cells[1])
        check(cells[2] == "0/1/0/0; +1.000% [+1.000%, +1.000%]", "5 servers: one flip, +1 point: %r" % cells[2])
        check(cells[3] == "lan_x: flips at 5, holds at 3", "where it flips: %r" % cells[3])
    check("| lan_x, 3 servers | lan_x, 5 servers |" in text, "the columns name family and server count")
    for f in fails:
        print("FAIL:", f)
    print("test_worlds: %d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
