#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Paired against unpaired 95 % interval width of a configuration's difference from the baseline
(docs/sweep.md "Statistics"): reads a sweep's results.csv and prints, per trace and metric, the
half-width of the paired interval (d_i = config - baseline on seed i, t * s_d / sqrt(n)) and of the
unpaired one (Welch: the two columns taken as independent samples), and their ratio.

    python3 sweep/tools/pairing_width.py RESULTS.csv BASELINE CONFIG [METRIC ...]

Common random numbers pay off when the paired width is much smaller than the unpaired one."""
import csv
import math
import statistics
import sys


def t975(df):
    """0.975 quantile of Student's t (Cornish-Fisher expansion, enough for widths)."""
    z = 1.959963984540054
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    path, base, cfg = argv[1:4]
    metrics = argv[4:] or ["false_allow_rate", "false_deny_rate", "availability"]
    rows = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                rows[(r["config"], r["trace"], r["seed"])] = r
    traces = sorted({t for (_, t, _) in rows})
    print("trace,metric,n,paired_halfwidth,unpaired_halfwidth,ratio,correlation")
    for t in traces:
        seeds = sorted({s for (c, tt, s) in rows if tt == t and c == base and (cfg, t, s) in rows})
        n = len(seeds)
        if n < 3:
            continue
        for m in metrics:
            a = [float(rows[(base, t, s)][m]) for s in seeds]
            b = [float(rows[(cfg, t, s)][m]) for s in seeds]
            d = [y - x for x, y in zip(a, b)]
            paired = t975(n - 1) * statistics.stdev(d) / math.sqrt(n)
            va, vb = statistics.variance(a) / n, statistics.variance(b) / n
            se = math.sqrt(va + vb)
            df = (va + vb) ** 2 / ((va ** 2 + vb ** 2) / (n - 1)) if va + vb > 0 else n - 1
            unpaired = t975(df) * se
            sa, sb = statistics.pstdev(a), statistics.pstdev(b)
            corr = (sum((x - statistics.fmean(a)) * (y - statistics.fmean(b)) for x, y in zip(a, b)) / n
                    / (sa * sb)) if sa > 0 and sb > 0 else float("nan")
            ratio = paired / unpaired if unpaired > 0 else float("nan")
            print(f"{t},{m},{n},{paired:.6g},{unpaired:.6g},{ratio:.3f},{corr:.3f}")


if __name__ == "__main__":
    main(sys.argv)
