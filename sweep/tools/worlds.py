#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HA tuning report's recommendations checked across worlds (issue 23 item 3).

Reads the results.csv of the worlds sweep (reports/ha-tuning/worlds.json: every configuration on
every world, paired on seeds) and writes a Markdown section: per recommendation, the worlds in
which it holds (the paired 95 % interval of the difference lies on the claimed side), flips (the
interval lies on the other side) or is unresolved (the interval contains 0), with the intervals of
every flip, the means over world groups with their own intervals, and the number of comparisons.

    python3 sweep/tools/worlds.py RESULTS.csv OUT.md [OUT.csv]

Statistics as docs/sweep.md "Statistics": d_i = value(a, seed i) - value(b, seed i), interval
mean +- t(0.975, n - 1) s / sqrt(n); the t quantile is computed (regularized incomplete beta,
bisection), not looked up. A group mean over worlds is the per-seed mean of the differences over
the group's worlds, then the same interval over seeds. Standard library only."""
import csv
import math
import re
import sys


# ---- Student t -------------------------------------------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _ibeta(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1.0 - x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t, df):
    x = df / (df + t * t)
    p = 0.5 * _ibeta(df / 2.0, 0.5, x)
    return 1.0 - p if t >= 0 else p


def t_quantile(q, df):
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def interval(d, q=0.975):
    n = len(d)
    m = sum(d) / n
    if n < 2:
        return m, float("nan"), float("nan")
    s = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    h = t_quantile(q, n - 1) * s / math.sqrt(n)
    return m, m - h, m + h


# ---- worlds ----------------------------------------------------------------------------------

REQ_PER_S = 500.0  # two clients at 250 requests/s (sim/traces/sweep/worlds)


def world_of(name):
    """(base trace, window ms, load) from a variant name base-wX-wMS-dMS-limL."""
    parts = name.split("-")
    base = parts[0]
    vals = {}
    for p in parts[1:]:
        for key in ("lim", "w", "d"):
            if p.startswith(key) and p[len(key):].isdigit():
                vals[key] = int(p[len(key):])
                break
    w, lim = vals.get("w"), vals.get("lim")
    load = REQ_PER_S * w / 1000.0 / lim if w and lim else float("nan")
    return base, w, load


def load_label(x):
    return "below" if x < 0.95 else "over" if x > 1.05 else "at"


def window_label(w):
    return {100: "100 ms", 1000: "1 s", 10000: "10 s"}.get(w, "%d ms" % w)


def servers_of(base):
    """The server count of a base trace: a name ending in _<N>srv has N servers, the others three."""
    m = re.search(r"_(\d+)srv$", base)
    return int(m.group(1)) if m else 3


def family_of(base):
    """The base trace without its server-count suffix (lan_loss_5srv -> lan_loss)."""
    return re.sub(r"_\d+srv$", "", base)

# (id, text, configuration a, against b, metric, claimed sign of a - b: -1 lower, +1 higher, 0 equal)
CLAIMS = [
    ("C1", "`b_fixed-U5-N3` has fewer false allows than the default", "b_fixed-U5-N3", "default",
     "false_allow_rate", -1),
    ("C2", "`b_fixed-U5-N3` has a lower p99 decision latency than the default", "b_fixed-U5-N3", "default",
     "latency_p99_ms", -1),
    ("C3", "`b_fixed-U5-N3` keeps availability at least as high as the default", "b_fixed-U5-N3", "default",
     "availability", +1),
    ("C4", "`fv-U5-N3` has fewer false allows than the default", "fv-U5-N3", "default", "false_allow_rate", -1),
    ("C5", "`fastest_valid` has fewer false allows than the default", "fastest_valid", "default",
     "false_allow_rate", -1),
    ("C6", "`fastest_valid` has a lower p99 than the default", "fastest_valid", "default", "latency_p99_ms", -1),
    ("C7", "completion delivery off (`noC-default`) has more false allows (keep C = 1)", "noC-default", "default",
     "false_allow_rate", +1),
    ("C8", "N = 3 (`n-N3-F1`) keeps availability at least as high as N = 1", "n-N3-F1", "default",
     "availability", +1),
    ("C9", "P_final makes no difference (`pf-P1-Pf2` against `pf-P1-Pf0`, false allows)", "pf-P1-Pf2", "pf-P1-Pf0",
     "false_allow_rate", 0),
    ("C10", "P_final makes no difference (`pf-P1-Pf2` against `pf-P1-Pf0`, p99)", "pf-P1-Pf2", "pf-P1-Pf0",
     "latency_p99_ms", 0),
    ("C11", "`strict_oldest` behaves like the default (false allows)", "strict_oldest", "default",
     "false_allow_rate", 0),
    ("C12", "`strict_oldest` behaves like the default (p99)", "strict_oldest", "default", "latency_p99_ms", 0),
]

SCALE = {"false_allow_rate": (100.0, "%"), "availability": (100.0, " pp"), "latency_p99_ms": (1.0, " ms"),
         "false_deny_rate": (100.0, "%")}


def verdict(sign, m, lo, hi, d):
    if sign == 0:
        if all(x == 0 for x in d):
            return "holds"
        return "holds" if lo <= 0 <= hi else "flips"
    if all(x == 0 for x in d):
        return "equal"
    if sign > 0:
        return "holds" if lo > 0 else "flips" if hi < 0 else "unresolved"
    return "holds" if hi < 0 else "flips" if lo > 0 else "unresolved"


def fmt(v, metric):
    k, unit = SCALE[metric]
    return "%+.3f%s" % (v * k, unit) if not math.isnan(v) else "n/a"


def server_section(p, worlds, seeds, results, diffs):
    """Per claim and per trace family that has 2- or 5-server variants: the verdict counts and the mean
    difference with its interval at 2, 3 and 5 servers, over the windows and loads that every server
    count of the family has (so the columns compare the same worlds but for the servers)."""
    fams = {}
    for w in worlds:
        base, win, load = world_of(w)
        fams.setdefault(family_of(base), {}).setdefault(servers_of(base), set()).add((win, round(load, 3)))
    fams = {f: c for f, c in fams.items() if len(c) > 1}
    if not fams:
        return
    cols = []  # (family, servers, [worlds])
    for f in sorted(fams):
        common = set.intersection(*fams[f].values())
        for n in sorted(fams[f]):
            ws = [w for w in worlds if family_of(world_of(w)[0]) == f and servers_of(world_of(w)[0]) == n
                  and (world_of(w)[1], round(world_of(w)[2], 3)) in common]
            cols.append((f, n, ws))
    p("### <a id=\"worlds-servers\"></a>By server count\n")
    p("For each trace family with 2- or 5-server variants, over the windows and loads every server count of "
      "the family has (%s): the verdicts (holds / flips / unresolved / equal) and the mean difference over "
      "those worlds with its paired 95 %% interval over the seeds. A claim **flips over the server counts** "
      "where one count has a flip and another a hold.\n"
      % "; ".join("%s: %d worlds" % (f, len(ws)) for f, n, ws in cols if n == 3))
    p("| claim | " + " | ".join("%s, %d servers" % (f, n) for f, n, _ in cols) + " | flips over the server counts |")
    p("|---|" + "---|" * (len(cols) + 1))
    for cid, text, a, b, metric, sign in CLAIMS:
        cells, changes = [], []
        for f, n, ws in cols:
            mine = [r for r in results if r[0] == cid and r[1] in ws]
            cnt = [sum(1 for r in mine if r[5] == k) for k in ("holds", "flips", "unresolved", "equal")]
            ws2 = [w for w in ws if (cid, w) in diffs]
            if not ws2:
                cells.append("")
                continue
            per_seed = [sum(diffs[(cid, w)][s] for w in ws2) / len(ws2) for s in seeds
                        if all(s in diffs[(cid, w)] for w in ws2)]
            m, lo, hi = interval(per_seed)
            cells.append("%d/%d/%d/%d; %s [%s, %s]" % (cnt[0], cnt[1], cnt[2], cnt[3], fmt(m, metric),
                                                       fmt(lo, metric), fmt(hi, metric)))
        for f in sorted({c[0] for c in cols}):
            fc = [(n, [r for r in results if r[0] == cid and r[1] in ws]) for ff, n, ws in cols if ff == f]
            flips = [n for n, rs in fc if any(r[5] == "flips" for r in rs)]
            holds = [n for n, rs in fc if any(r[5] == "holds" for r in rs)]
            if flips and holds:
                changes.append("%s: flips at %s, holds at %s" % (f, ",".join(map(str, flips)),
                                                                 ",".join(map(str, holds))))
        p("| %s | %s | %s |" % (cid, " | ".join(cells), "; ".join(changes) or "no"))
    p("")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    rows = {}
    seeds = set()
    worlds = []
    with open(argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            rows[(r["config"], r["trace"], r["seed"])] = r
            seeds.add(r["seed"])
            if r["trace"] not in worlds:
                worlds.append(r["trace"])
    seeds = sorted(seeds, key=lambda s: int(s))
    results = []  # (claim, world, m, lo, hi, verdict, n)
    diffs = {}
    for cid, text, a, b, metric, sign in CLAIMS:
        for w in worlds:
            d = [float(rows[(a, w, s)][metric]) - float(rows[(b, w, s)][metric])
                 for s in seeds if (a, w, s) in rows and (b, w, s) in rows]
            if len(d) < 2:
                continue
            diffs[(cid, w)] = dict(zip(seeds, d))
            m, lo, hi = interval(d)
            results.append((cid, w, m, lo, hi, verdict(sign, m, lo, hi, d), len(d)))
    n_cmp = len(results)
    out = []
    p = out.append
    p("## <a id=\"worlds\"></a>The recommendations across worlds\n")
    p("Generated by `python3 sweep/tools/worlds.py` from the worlds sweep [`worlds.json`](worlds.json) "
      "(run by `bash scripts/ha-tuning.sh`): %d worlds (%s), %d seeds each, every configuration paired on "
      "the seeds. A world is a base trace of `sim/traces/sweep/worlds/` (LAN: 200-500 us one way; "
      "cross-region: 10-45 ms one way or the regions samples) with a bucket window of 100 ms, 1 s or 10 s "
      "and a limit that puts the two clients' 500 requests/s at 0.8 (below), 1.0 (at) or 1.25 (over) the "
      "limit.\n" % (len(worlds), ", ".join(sorted({world_of(w)[0] for w in worlds})), len(seeds)))
    p("A claim **holds** in a world when the paired 95 %% interval of the difference lies on the claimed "
      "side (for \"no difference\": the interval contains 0 or every difference is 0), **flips** when it "
      "lies on the other side, and is **unresolved** when it contains 0 (**equal**: every seed gave the "
      "same value). %d comparisons (claims x worlds) were made: at 95 %% each, about %.0f intervals are "
      "expected to miss the true difference by chance alone, so a single flip among many holds is weak "
      "evidence; the column *Bonferroni* counts the flips whose interval at 1 - 0.05/%d (the same "
      "family-wise error over all comparisons) still excludes 0 on the other side.\n"
      % (n_cmp, 0.05 * n_cmp, n_cmp))
    p("| claim | holds | flips | unresolved | equal | flips (Bonferroni) | where it flips |")
    p("|---|---:|---:|---:|---:|---:|---|")
    qb = 1 - 0.025 / max(n_cmp, 1)
    for cid, text, a, b, metric, sign in CLAIMS:
        mine = [r for r in results if r[0] == cid]
        cnt = {k: sum(1 for r in mine if r[5] == k) for k in ("holds", "flips", "unresolved", "equal")}
        bonf = 0
        where = []
        for r in mine:
            if r[5] != "flips":
                continue
            d = list(diffs[(cid, r[1])].values())
            m, lo, hi = interval(d, qb)
            if (sign != 0 and ((sign < 0 and lo > 0) or (sign > 0 and hi < 0))) or (sign == 0 and not lo <= 0 <= hi):
                bonf += 1
            where.append(r[1])
        bases = sorted({world_of(w)[0] for w in where})
        where_txt = "; ".join("%s (%d)" % (bb, sum(1 for w in where if world_of(w)[0] == bb)) for bb in bases)
        p("| %s %s | %d | %d | %d | %d | %d | %s |" % (cid, text, cnt["holds"], cnt["flips"], cnt["unresolved"],
                                                       cnt["equal"], bonf, where_txt or "nowhere"))
    p("")
    # group means with intervals
    groups = [("all worlds", lambda w: True),
              ("LAN", lambda w: world_of(w)[0].startswith("lan")),
              ("cross-region", lambda w: world_of(w)[0].startswith("reg")),
              ("window 100 ms", lambda w: world_of(w)[1] == 100),
              ("window 1 s", lambda w: world_of(w)[1] == 1000),
              ("window 10 s", lambda w: world_of(w)[1] == 10000),
              ("below the limit", lambda w: load_label(world_of(w)[2]) == "below"),
              ("at the limit", lambda w: load_label(world_of(w)[2]) == "at"),
              ("over the limit", lambda w: load_label(world_of(w)[2]) == "over"),
              ("2 servers", lambda w: servers_of(world_of(w)[0]) == 2),
              ("5 servers", lambda w: servers_of(world_of(w)[0]) == 5),
              ("final interval decides (reg_final)", lambda w: world_of(w)[0] == "reg_final")]
    p("### <a id=\"worlds-means\"></a>Means over world groups, with intervals\n")
    p("The per-seed mean of the difference over the group's worlds, then its paired 95 % interval over the "
      "seeds (the worlds of a group share the seeds).\n")
    p("| claim | " + " | ".join(g for g, _ in groups) + " |")
    p("|---|" + "---|" * len(groups))
    for cid, text, a, b, metric, sign in CLAIMS:
        cells = []
        for g, pred in groups:
            ws = [w for w in worlds if pred(w) and (cid, w) in diffs]
            if not ws:
                cells.append("")
                continue
            per_seed = [sum(diffs[(cid, w)][s] for w in ws) / len(ws) for s in seeds
                        if all(s in diffs[(cid, w)] for w in ws)]
            m, lo, hi = interval(per_seed)
            cells.append("%s [%s, %s]" % (fmt(m, metric), fmt(lo, metric), fmt(hi, metric)))
        p("| %s | %s |" % (cid, " | ".join(cells)))
    p("")
    server_section(p, worlds, seeds, results, diffs)
    p("### <a id=\"worlds-flips\"></a>Every flip, with its interval\n")
    p("| claim | world | window | load | difference [95 % interval] |")
    p("|---|---|---|---|---|")
    any_flip = False
    for cid, w, m, lo, hi, v, n in results:
        if v != "flips":
            continue
        any_flip = True
        metric = [c for c in CLAIMS if c[0] == cid][0][4]
        base, win, load = world_of(w)
        p("| %s | %s | %s | %s (%.2f) | %s [%s, %s] |" % (cid, base, window_label(win), load_label(load), load,
                                                           fmt(m, metric), fmt(lo, metric), fmt(hi, metric)))
    if not any_flip:
        p("| none | | | | |")
    p("")
    with open(argv[2], "w") as f:
        f.write("\n".join(out) + "\n")
    if len(argv) > 3:
        with open(argv[3], "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["claim", "world", "base", "window_ms", "load", "n", "diff_mean", "ci_low", "ci_high",
                         "verdict"])
            for cid, w, m, lo, hi, v, n in results:
                base, win, load = world_of(w)
                wr.writerow([cid, w, base, win, "%.3g" % load, n, "%.9g" % m, "%.9g" % lo, "%.9g" % hi, v])


if __name__ == "__main__":
    main(sys.argv)
