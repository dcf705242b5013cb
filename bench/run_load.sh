#!/usr/bin/env bash
# usage: bench/run_load.sh RL_TESTBED BENCH_FLOOR [ROUNDS [SECONDS [K]]]
#   e.g. bench/run_load.sh build/default/tools/rl-testbed/rl-testbed build/default/bench/bench_floor 3 2 1
#
# The runtime against its floor, on loopback, in one interleaved run: each
# round runs, for 1 and then 3 servers, `rl-testbed check --duration SECONDS
# --concurrency K` (the public runtime, closed loop, K requests in flight,
# against `rl-testbed serve`, cookie auth) and bench_floor with the same
# servers count and K (sendmmsg/recvmmsg echo servers, no protocol). It times
# completed requests over SECONDS after a warm-up; syscalls per request are
# counted by each program itself (check: the runtime's sendmmsg/sendto/
# recvmmsg/recvfrom plus its ppoll; the floor: sendmmsg and recvmmsg), and
# so is the client's own CPU time per request (getrusage: user + system of
# the client process; the servers' time is not in it). The runtime's server
# is `serve` (decoding, cookie check, tables), the floor's an echo, so on
# shared cores requests/s compares whole systems while CPU per request
# compares the clients. Every
# run prints its own line with the 1-minute load average before it; the
# summary gives per configuration the median requests/s, the median syscalls
# per request and the runtime's share of the floor's requests/s. Defaults:
# 3 rounds, 2 s, K = 1.
set -eu
rl=$1
floor=$2
rounds=${3:-3}
secs=${4:-2}
k=${5:-1}
tmp=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
key=rl-cookie1qxfpqqqqqqqqqqzpgfp5g32xgayyjjjtf3x5un6s29f9x4z42et4sk26tdw96hjlvpgtzsh7l2qhn2
"$rl" serve --tenant "$key" --server port=0,start=1767225600 --server port=0,start=1767229200 \
    --server port=0,start=1767232800 >"$tmp/serve.out" 2>"$tmp/serve.err" &
serve_pid=$!
for _ in $(seq 600); do
    grep -q '^serve: ready' "$tmp/serve.out" 2>/dev/null && break
    sleep 0.05
done
ep() { sed -n "s/^server $1: server_id \([0-9]*\) port \([0-9]*\) .*/--server \1@127.0.0.1:\2/p" "$tmp/serve.out"; }
one="$(ep 0)"
three="$(ep 0) $(ep 1) $(ep 2)"
load() { cut -d' ' -f1 /proc/loadavg; }

echo "# round servers program load1 requests/s syscalls/request client-cpu-us/request"
for r in $(seq "$rounds"); do
    for s in 1 3; do
        servers=$one
        [ "$s" = 3 ] && servers=$three
        l=$(load)
        # shellcheck disable=SC2086 # $servers: several words on purpose
        RATELIMITLY_REQUEST_UNIT_MS=250 "$rl" check --key "$key" $servers --bucket bench:1000:1000000000 \
            --duration "$secs" --concurrency "$k" --warmup 1000 --json >"$tmp/rt.json"
        python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], "runtime", sys.argv[4], "%.0f" % j["requests_per_s"], "%.2f" % j["syscalls_per_request"]["total"], "%.2f" % j["cpu_us_per_request"])' \
            "$tmp/rt.json" "$r" "$s" "$l" | tee -a "$tmp/runs"
        l=$(load)
        "$floor" --servers "$s" --concurrency "$k" --duration "$secs" --json >"$tmp/fl.json"
        python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], "floor", sys.argv[4], "%.0f" % j["requests_per_s"], "%.2f" % j["syscalls_per_request"], "%.2f" % j["cpu_us_per_request"])' \
            "$tmp/fl.json" "$r" "$s" "$l" | tee -a "$tmp/runs"
    done
done
python3 - "$tmp/runs" "$k" <<'PY'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
med = lambda s, p, i: statistics.median(float(x[i]) for x in runs if x[1] == s and x[2] == p)
loads = [float(x[3]) for x in runs]
print(f"# K = {sys.argv[2]} in flight, load average (1 min) {min(loads):.2f} to {max(loads):.2f}")
print("servers | runtime requests/s | floor requests/s | runtime / floor | syscalls/request runtime, floor"
      " | client CPU us/request runtime, floor")
for s in ("1", "3"):
    rt, fl = med(s, "runtime", 4), med(s, "floor", 4)
    print(f"{s} | {rt:.0f} | {fl:.0f} | {rt / fl:.2f} | {med(s, 'runtime', 5):.2f}, {med(s, 'floor', 5):.2f}"
          f" | {med(s, 'runtime', 6):.2f}, {med(s, 'floor', 6):.2f}")
PY
