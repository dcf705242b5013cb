#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Independent recomputation of the simulator's metrics from its event log.

Written from docs/traces.md ALONE ("Event log", "Metrics", "Oracle",
"Over-consumption", "Server model"): no file under sim/src/, no
tools/rl-testbed/sim_cmd.c and no other simulator C code was read to write it.
The point is that the documentation is enough to rebuild the figures.

Usage:
  recompute.py TRACE.json EVENTS.txt RESULTS.json      compare one run
  recompute.py --run RL_TESTBED SEED TRACE.json...     run each trace, compare

Reads the run's `--events` log and the trace (for the clients' key_id and mix
and the servers' clocks), recomputes every metric the doc defines exactly from
them, and compares with the tool's `--json` figures. Prints a table
`metric | tool | recomputed | ok` per trace; exits 1 on any disagreement,
2 on a usage or input error. Standard library only.

Rates are compared as the tool prints them (6 significant digits, %g);
counts exactly. Limits of this check: the oracle here models the fixed-window
rate buckets, not the latency trackers or the key's quotas, so for a trace
whose mix has guards the oracle metrics (false allows/denies and their rates)
are not compared; and it reads one trace's results per --json file. Metrics the log cannot rebuild (see the doc's "From the log
and the trace alone" paragraph) are not compared and are listed at the end.
"""
import json
import os
import subprocess
import sys
import tempfile

SIM_RUN_EPOCH_MS = 1767225600000
U64 = 1 << 64
NO_SEQ = U64 - 1

def fail_input(msg):
    sys.stderr.write("recompute: %s\n" % msg)
    sys.exit(2)


def u64(v):
    if isinstance(v, str) and v.lower().startswith("0x"):
        return int(v, 16)
    return int(v)


def layered(trace, kind):
    """Entries of `servers` or `clients` over the defaults template."""
    tmpl = trace.get("defaults", {}).get(kind[:-1], {})
    out = []
    for e in trace[kind]:
        m = dict(tmpl)
        m.update(e)
        out.append(m)
    return out


class Trace:
    def __init__(self, path):
        try:
            with open(path) as f:
                t = json.load(f)
        except (OSError, ValueError) as e:
            fail_input("%s: %s" % (path, e))
        self.clients = layered(t, "clients")
        self.servers = layered(t, "servers")
        self.faults = t.get("faults", [])
        self.C = len(self.clients)
        names = [c["name"] for c in self.clients] + [s["name"] for s in self.servers]
        self.node = {n: i for i, n in enumerate(names)}
        self.key_id = [u64(c.get("key_id", 1)) for c in self.clients]
        default_mix = [{"resources": [{"bucket": "default", "rate_limit": 1000}]}]
        self.mix = [c.get("mix", default_mix) for c in self.clients]
        self.has_guards = any(e.get("guards") for m in self.mix for e in m)
        self.drift = [int(s.get("clock_drift_ppm", 0)) for s in self.servers]
        self.skew0 = [int(s.get("clock_skew_ms", 0)) for s in self.servers]
        S = len(self.servers)
        self.start_s = []
        self.low_id = []
        for j, s in enumerate(self.servers):
            if "start_s" in s:
                st = int(s["start_s"])
            else:
                st = SIM_RUN_EPOCH_MS // 1000 - int(s.get("start_age_s", 3600 * (S - j)))
            self.start_s.append(st)
            self.low_id.append(int(s.get("listener_id", 0)) << 15 | int(s.get("node_id", j + 1)))
        # restarts: (at_us, server, new start_s), in time order
        self.restarts = []
        for f in self.faults:
            if f["kind"] == "restart":
                up_ms = int(f["at_ms"]) + int(f.get("duration_ms", 0))
                self.restarts.append((int(f["at_ms"]) * 1000, self.node[f["target"]] - self.C,
                                      SIM_RUN_EPOCH_MS // 1000 + up_ms // 1000))
        self.use_dns = [c.get("use_dns", True) for c in self.clients]
        dns = t.get("dns", {})
        self.dns_latency_us = int(dns.get("latency_us", 1000))
        self.dns_timeout_us = int(dns.get("timeout_us", 500000))
        self.epochs = dns.get("epochs", [{"at_ms": 0, "members": [s["name"] for s in self.servers]}])

    def server_id(self, j, t_us):
        st = self.start_s[j]
        for at, jj, new in self.restarts:
            if jj == j and at <= t_us:
                st = new
        return (st - 1735689600) << 23 | self.low_id[j]

    def epoch_trust(self, e):
        """Server index -> server_id for the conforming members of epoch e."""
        out = {}
        for mb in e.get("members", []):
            name = mb if isinstance(mb, str) else mb.get("server")
            if name is None:
                continue
            j = self.node[name] - self.C
            out[j] = self.server_id(j, int(e["at_ms"]) * 1000)
        return out

    def epoch_at(self, t_us):
        cur = self.epochs[0]
        for e in self.epochs:
            if int(e["at_ms"]) * 1000 <= t_us:
                cur = e
        return cur


def blocks(trace, client, mix_index):
    """(bucket key, window_size_ms, rate_limit, tokens) of a request's resources."""
    out = []
    for r in trace.mix[client][mix_index].get("resources", []):
        w = int(r.get("window_size_ms", 1000))
        lim = int(r["rate_limit"])
        # bucket_id derives from (name, window, limit): the tuple names it.
        out.append(((trace.key_id[client], r["bucket"], w, lim), w, lim,
                    int(r.get("tokens", 1))))
    return out


def window_of(ms, w):
    return ms - ms % w


def oracle_allows(buckets, blks, now_ms):
    """Server model decision on fixed windows (docs/traces.md "Rate buckets")."""
    state = []
    earlier = {}
    ok = True
    for key, w, lim, tok in blks:
        win = window_of(now_ms, w)
        b = buckets.get(key)
        if b is None or b[0] != win:
            b = [win, 0]
            buckets[key] = b
        left = max(0, lim - b[1] - earlier.get(key, 0))
        if tok > left:
            ok = False
        earlier[key] = earlier.get(key, 0) + tok
        state.append((b, tok))
    if ok:
        for b, tok in state:
            b[1] += tok
    return ok


def nearest_rank(sorted_vals, pct):
    """Rank ceil(pct/100 * n), 1-based, in exact integer arithmetic."""
    if not sorted_vals:
        return 0
    k = max(1, (pct * len(sorted_vals) + 99) // 100)
    return sorted_vals[k - 1]


def recompute(trace, lines):
    C = trace.C
    submit = {}          # (client, seq) -> time_us
    submit_err = set()
    shape = {}           # (client, seq) -> mix index
    decision = {}        # (client, seq) -> (time_us, status, allowed, server index or None)
    fresh = {}           # (client, seq, server) -> log position of first fresh decision
    fresh_time = {}
    answers = {}         # (client, seq) -> {server: set(allow)}
    xmit_class = [0, 0, 0, 0]
    xmit0 = set()
    drops = {}
    verdicts = {}
    reprocessed = 0
    dns_q = dns_f = reports = injected = steering = 0
    skew_events = []     # (log position, server, skew_ms)
    trust = [trace.epoch_trust(trace.epochs[0]) if not trace.use_dns[i] else {}
             for i in range(C)]
    oldest = {}          # (client, seq) -> server index of its snapshot's oldest member
    last = None
    for pos, ln in enumerate(lines):
        f = ln.split()
        if len(f) != 5:
            fail_input("event log line %d: expected 5 fields" % (pos + 1))
        t, kind = int(f[0]), f[1]
        a, b, c = int(f[2]), int(f[3]), int(f[4])
        if kind == "submit":
            submit[(a, b)] = t
            if 1 <= c <= 7:
                submit_err.add((a, b))   # resolved against xmit class 0 below
        elif kind == "shape":
            shape[(a, b)] = c
        elif kind == "xmit":
            cls = c >> 32
            xmit_class[cls] += 1
            if cls == 0:
                xmit0.add((a, b))
                j = (c & 0xFFFFFFFF) - C
                sid = trust[a].get(j, trace.server_id(j, t))
                o = oldest.get((a, b))
                if o is None or sid < o[1]:
                    oldest[(a, b)] = (j, sid)
        elif kind == "decision":
            st = c >> 32
            allowed = (c >> 16) & 1
            sel = (c & 0xFFFF) - 1
            decision[(a, b)] = (t, st, allowed, sel if sel >= 0 else None)
        elif kind == "server":
            verdicts[b] = verdicts.get(b, 0) + 1
        elif kind == "sreq":
            lf = last.split()
            verdict, allow = int(lf[3]), int(lf[4])
            key = (b, c)
            answers.setdefault(key, {}).setdefault(a, set()).add(allow)
            if verdict == 0:
                if (b, c, a) not in fresh:
                    fresh[(b, c, a)] = pos
                    fresh_time[(b, c, a)] = t
                else:
                    reprocessed += 1
        elif kind == "drop":
            drops[c] = drops.get(c, 0) + 1
        elif kind == "dns":
            dns_q += 1
            if c == NO_SEQ:
                dns_f += 1
            elif b == 1:
                # the answer of the epoch in force when the query was made
                trust[a] = trace.epoch_trust(trace.epoch_at(t - trace.dns_latency_us))
        elif kind == "report":
            if c == 1:
                reports += 1
        elif kind == "fault":
            if a == 7:
                tgt = trace.faults[b]["target"]
                node = trace.node[tgt]
                val = c - U64 if c >= 1 << 63 else c
                if node >= C:
                    skew_events.append((pos, node - C, val))
            if a == 9:
                injected += c     # the deliver records just before it, c of them
        elif kind == "steering":
            steering += 1
        last = ln
    # A submit with a small c is an error only if it sent no initial fan-out.
    submit_err = {k for k in submit_err if k not in xmit0}
    m = {}
    m["submitted"] = len(submit)
    m["submit_errors"] = len(submit_err)
    ok_dec = {k: v for k, v in decision.items() if v[1] == 0}
    m["decided"] = len(ok_dec)
    m["allowed"] = sum(1 for v in ok_dec.values() if v[2])
    m["denied"] = m["decided"] - m["allowed"]
    m["timeouts"] = sum(1 for v in decision.values() if v[1] == 1)
    m["io_failures"] = sum(1 for v in decision.values() if v[1] > 1)
    m["availability"] = m["decided"] / m["submitted"] if m["submitted"] else 0
    lat = sorted(v[0] - submit[k] for k, v in ok_dec.items())
    for p, name in ((50, "p50"), (90, "p90"), (99, "p99")):
        m["latency_%s_ms" % name] = nearest_rank(lat, p) / 1000.0
    m["latency_max_ms"] = (lat[-1] if lat else 0) / 1000.0

    # Oracle: each decided request once at its grant instant, in log order.
    def server_skew(j, pos):
        s = trace.skew0[j]
        for p, jj, v in skew_events:
            if jj == j and p <= pos:
                s = v
        return s

    entries = []
    for k, v in ok_dec.items():
        sel = v[3]
        pos = fresh.get((k[0], k[1], sel))
        if pos is None:
            entries.append((None, k, v[0]))   # no fresh decision: decision time
        else:
            entries.append((pos, k, fresh_time[(k[0], k[1], sel)]))
    entries.sort(key=lambda e: (e[2], e[0] if e[0] is not None else len(lines)))
    buckets = {}
    granted = {}
    fa = fd = 0
    fa_dis = fd_dis = n_dis = 0
    for pos, k, t in entries:
        blks = blocks(trace, k[0], shape[k])
        truth = oracle_allows(buckets, blks, SIM_RUN_EPOCH_MS + t // 1000)
        allowed = ok_dec[k][2]
        wrong_a = allowed and not truth
        wrong_d = (not allowed) and truth
        fa += wrong_a
        fd += wrong_d
        ans = answers.get(k, {})
        vals = set()
        for s in ans.values():
            vals |= s
        if len(ans) >= 2 and len(vals) == 2:
            n_dis += 1
            fa_dis += wrong_a
            fd_dis += wrong_d
        if allowed:
            sel = ok_dec[k][3]
            p = pos if pos is not None else len(lines)
            drift_ms = (t * trace.drift[sel]) // 10**9
            skewed = SIM_RUN_EPOCH_MS + t // 1000 + server_skew(sel, p) + drift_ms
            for key, w, lim, tok in blks:
                wk = (key, window_of(skewed, w))
                granted[wk] = granted.get(wk, 0) + tok
    d = m["decided"]
    m["false_allows"] = fa
    m["false_denies"] = fd
    m["false_allow_rate"] = fa / d if d else 0
    m["false_deny_rate"] = fd / d if d else 0
    m["disagreed"] = n_dis
    m["false_allow_rate_disagree"] = fa_dis / n_dis if n_dis else 0
    m["false_deny_rate_disagree"] = fd_dis / n_dis if n_dis else 0
    over = [(g - wk[0][3]) for wk, g in granted.items() if g > wk[0][3]]
    m["overconsumed_tokens"] = sum(over)
    m["overconsumed_windows"] = len(over)
    m["oldest_selected_rate"] = (sum(1 for k, v in ok_dec.items()
                                     if k in oldest and oldest[k][0] == v[3]) / d) if d else 0
    m["datagrams_sent"] = sum(xmit_class)
    m["datagrams_lost"] = sum(n for r, n in drops.items() if r <= 4)
    m["queue_drops"] = drops.get(5, 0)
    m["down_drops"] = drops.get(6, 0)
    m["replays_sent"] = xmit_class[1]
    m["completion_sends"] = xmit_class[2]
    m["duplicate_deliveries"] = verdicts.get(1, 0)
    m["reprocessed"] = reprocessed
    m["injected_datagrams"] = injected
    m["steering_requests"] = steering
    m["dns_queries"] = dns_q
    m["dns_failures"] = dns_f
    m["reports_sent"] = reports
    if trace.has_guards:
        for k in ("false_allows", "false_denies", "false_allow_rate",
                  "false_deny_rate", "false_allow_rate_disagree",
                  "false_deny_rate_disagree"):
            del m[k]   # the tracker model is not rebuilt here
    return m


def fmt(v):
    if isinstance(v, float):
        return "%.6g" % v
    return str(v)


def compare(trace_path, events_path, json_path):
    trace = Trace(trace_path)
    try:
        with open(events_path) as f:
            lines = f.read().splitlines()
        with open(json_path) as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        fail_input(str(e))
    if len(res) != 1:
        fail_input("%s: expected one trace's results" % json_path)
    tool = res[0]["metrics"]
    mine = recompute(trace, lines)
    print("## %s (seed %s)" % (res[0]["name"], res[0]["seed"]))
    print("%-26s | %14s | %14s | ok" % ("metric", "tool", "recomputed"))
    bad = 0
    for k, v in mine.items():
        if k not in tool:
            print("%-26s | %14s | %14s | NO (not in --json)" % (k, "-", fmt(v)))
            bad += 1
            continue
        tv = tool[k]
        same = fmt(float(v)) == fmt(float(tv)) if isinstance(tv, float) or isinstance(v, float) else tv == v
        if not same:
            bad += 1
        print("%-26s | %14s | %14s | %s" % (k, fmt(tv), fmt(v), "yes" if same else "NO"))
    skipped = [k for k in tool if k not in mine]
    print("not recomputed (the log lacks what they need): %s\n" % ", ".join(skipped))
    return bad


def main(argv):
    if len(argv) >= 4 and argv[1] == "--run":
        tool, seed, traces = argv[2], argv[3], argv[4:]
        if not traces:
            fail_input("--run needs at least one trace")
        bad = 0
        with tempfile.TemporaryDirectory() as tmp:
            for tr in traces:
                ev = os.path.join(tmp, "events.txt")
                js = os.path.join(tmp, "results.json")
                r = subprocess.run([tool, "sim", tr, "--seed", seed, "--events", ev,
                                    "--json", js], stdout=subprocess.DEVNULL)
                if r.returncode != 0:
                    print("%s: rl-testbed sim exited %d" % (tr, r.returncode))
                    bad += 1
                    continue
                bad += compare(tr, ev, js)
    elif len(argv) == 4:
        bad = compare(argv[1], argv[2], argv[3])
    else:
        sys.stderr.write(__doc__)
        return 2
    print("recompute: %d disagreement(s)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
