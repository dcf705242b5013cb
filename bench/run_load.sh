#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: bench/run_load.sh RL_TESTBED BENCH_FLOOR [ROUNDS [SECONDS [K]]]
#   e.g. bench/run_load.sh build/default/tools/rl-testbed/rl-testbed build/default/bench/bench_floor 3 2 1
#   (bench_serve_floor is taken from BENCH_FLOOR's directory)
#
# The runtime against two floors, on loopback, in one interleaved run: each
# round runs, for 1 and then 3 servers,
#   runtime:      `rl-testbed check --duration SECONDS --concurrency K` (the
#                 public runtime, closed loop, K in flight) against `rl-testbed
#                 serve`, cookie auth;
#   serve-floor:  bench_serve_floor against the SAME serve servers: requests
#                 sealed by the client core before the timed loop, then a
#                 sendmmsg/recvmmsg ping-pong (oldest server's reply completes,
#                 completion delivery to the others): the least any client
#                 does against serve, so requests/s compares like with like;
#   echo-floor:   bench_floor (sendmmsg/recvmmsg echo servers, no protocol, all
#                 replies awaited): the syscall floor of the transport alone.
# Each program counts its own syscalls (check: sendmmsg/sendto/recvmmsg/
# recvfrom plus its ppoll) and its own CPU time per request (getrusage: user +
# system of the client process; the servers' time is not in it). It times
# completed requests over SECONDS after a warm-up. Every run prints its own
# line with the 1-minute load average before it; the summary gives per
# configuration the medians and the runtime's share of each floor's
# requests/s. Defaults: 3 rounds, 2 s, K = 1.
set -eu
rl=$1
floor=$2
sfloor=$(dirname "$floor")/bench_serve_floor
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
        # shellcheck disable=SC2086
        "$sfloor" --key "$key" $servers --concurrency "$k" --duration "$secs" --json >"$tmp/sf.json"
        python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], "serve-floor", sys.argv[4], "%.0f" % j["requests_per_s"], "%.2f" % j["syscalls_per_request"], "%.2f" % j["cpu_us_per_request"])' \
            "$tmp/sf.json" "$r" "$s" "$l" | tee -a "$tmp/runs"
        l=$(load)
        "$floor" --servers "$s" --concurrency "$k" --duration "$secs" --json >"$tmp/fl.json"
        python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], "echo-floor", sys.argv[4], "%.0f" % j["requests_per_s"], "%.2f" % j["syscalls_per_request"], "%.2f" % j["cpu_us_per_request"])' \
            "$tmp/fl.json" "$r" "$s" "$l" | tee -a "$tmp/runs"
    done
done
python3 - "$tmp/runs" "$k" <<'PY'
import statistics, sys
runs = [l.split() for l in open(sys.argv[1])]
med = lambda s, p, i: statistics.median(float(x[i]) for x in runs if x[1] == s and x[2] == p)
loads = [float(x[3]) for x in runs]
print(f"# K = {sys.argv[2]} in flight, load average (1 min) {min(loads):.2f} to {max(loads):.2f}")
progs = ("runtime", "serve-floor", "echo-floor")
print("servers | requests/s runtime, serve-floor, echo-floor | runtime / serve-floor | runtime / echo-floor"
      " | syscalls/request runtime, serve-floor, echo-floor | client CPU us/request runtime, serve-floor, echo-floor")
for s in ("1", "3"):
    rps = [med(s, p, 4) for p in progs]
    sc = ", ".join(f"{med(s, p, 5):.2f}" for p in progs)
    cpu = ", ".join(f"{med(s, p, 6):.2f}" for p in progs)
    print(f"{s} | {rps[0]:.0f}, {rps[1]:.0f}, {rps[2]:.0f} | {rps[0] / rps[1]:.2f} | {rps[0] / rps[2]:.2f} | {sc} | {cpu}")
PY
