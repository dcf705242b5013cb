#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: run_check_load.sh RL_TESTBED
#
# `rl-testbed check --load` accounting (tools/rl-testbed/README.md "check
# --load"; project) against `rl-testbed serve` servers whose replies are held
# a scripted 40 ms, so the right latencies are known from the schedule alone:
# - open loop at 2,000 requests/s with at most 8 in flight: 8 requests per
#   40 ms is all the cap lets through (200/s), a rate the run cannot keep.
#   Request i is intended at i * 0.5 ms and sent no earlier than
#   floor(i / 8) * 40 ms, so it completes no earlier than (floor(i/8) + 1) * 40 ms:
#   from its intended send at least (floor(i/8) + 1) * 40 - i / 2 ms, which
#   grows with i (p50, rank 100 of 200, i = 99: >= 470.5 ms; max, i = 199:
#   >= 900.5 ms), while from its actual send it stays 40 ms plus the host's
#   time; 192 of the 200 come due with the cap full (all but the first 8);
# - closed loop with 4 in flight: 40 requests take at least 10 * 40 ms;
# - --duration 0.5 at 100/s submits exactly 50 (intended at 0..490 ms);
# - --warmup runs requests that are not counted;
# - --compare-server: A (--server) and B in alternating rounds; B the 40 ms
#   server and A the undelayed one gives a paired p50 difference of the
#   scripted 40 ms (and its negative when swapped), A against itself none;
# - the bad combinations exit 2 naming them.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
. "$here/cli_lib.sh"
. "$here/../../../serve/tests/serve_lib.sh"
trap 'cleanup_serve; wait 2>/dev/null; rm -rf "$tmp"' EXIT
# U = 250 ms: a 40 ms reply is answered in round 0 (no replay), even on a loaded host.
RATELIMITLY_REQUEST_UNIT_MS=250
export RATELIMITLY_REQUEST_UNIT_MS
unset RATELIMITLY_AUTH_KEY RATELIMITLY_TENANT RATELIMITLY_REQUEST_REPLAY_COUNT RATELIMITLY_REQUEST_PROFILE
key=rl-cookie1qxfpqqqqqqqqqqzpgfp5g32xgayyjjjtf3x5un6s29f9x4z42et4sk26tdw96hjlvpgtzsh7l2qhn2
start_serve load --tenant "$key" --server port=0,start=1767225600,delay=fixed:40 --server port=0,start=1767229200
slow="$(server_id load 0)@127.0.0.1:$(server_port load 0)"
fast="$(server_id load 1)@127.0.0.1:$(server_port load 1)"

# json_check NAME PYTHON-EXPRESSION: the previous run's JSON summary (as j) satisfies it.
json_check() {
    checks=$((checks + 1))
    if python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' \
        "$tmp/out" "$2" 2>>"$tmp/err"; then
        echo "ok   $1"
    else
        fail "$1: want $2"
    fi
}

expect "open loop past the cap: decided" 0 out '"failed":0' -- check --key "$key" --server "$slow" \
    --bucket load:1000:1000000 --load 200 --rate 2000 --max-inflight 8 --json
json_check "open loop: 192 submissions waited for the cap" 'j["cap_delayed"] == 192 and j["most_inflight"] == 8'
json_check "open loop: from the intended send, p50 >= 470.5 ms and max >= 900.5 ms" \
    'j["latency_us"]["from_intended"]["p50"] >= 470500 and j["latency_us"]["from_intended"]["max"] >= 900500'
json_check "open loop: from the actual send, the scripted 40 ms (p50 in [40, 120) ms)" \
    '40000 <= j["latency_us"]["from_sent"]["p50"] < 120000'
json_check "open loop: from the actual send it does not grow (max < max from intended / 4)" \
    'j["latency_us"]["from_sent"]["max"] * 4 < j["latency_us"]["from_intended"]["max"]'
json_check "open loop: every request answered in round 0, one datagram each way" \
    'j["datagrams_per_request"] == {"sent": 1.0, "received": 1.0}'

expect "closed loop: decided" 0 out '"requests":40,' -- check --key "$key" --server "$slow" \
    --bucket load:1000:1000000 --load 40 --concurrency 4 --json
json_check "closed loop: 4 in flight, 10 turns of 40 ms" \
    'j["mode"] == "closed" and j["most_inflight"] == 4 and j["seconds"] >= 0.4 and j["cap_delayed"] == 0'
json_check "closed loop: from the actual send >= 40 ms" 'j["latency_us"]["from_sent"]["p50"] >= 40000'

expect "duration: 0.5 s at 100/s is 50 requests" 0 out "load: 50 requests (1 server(s), sendmmsg)" -- check \
    --key "$key" --server "$fast" --bucket load:1000:1000000 --duration 0.5 --rate 100
expect "warm-up: not counted" 0 out "decisions: allowed 30, denied 0, failed 0" -- check --key "$key" \
    --server "$fast" --bucket load:1000:1000000 --load 30 --warmup 10 --concurrency 2
expect "text: both latencies and the precision" 0 out "latency from intended send (us): p50 " -- check \
    --key "$key" --server "$fast" --bucket load:1000:1000000 --load 20 --rate 1000
expect "text: the cap line" 0 out "in-flight cap: reached by 0 submissions" -- check \
    --key "$key" --server "$fast" --bucket load:1000:1000000 --load 20 --rate 1000

expect "compare: fast against slow, decided" 0 out '"compare":{"rounds":4,' -- check --key "$key" \
    --server "$fast" --compare-server "$slow" --bucket load:1000:1000000 --load 40 --concurrency 1 --rounds 4 --json
json_check "compare: 40 requests of each configuration" 'j["compare"]["a"]["requests"] == 40 and j["compare"]["b"]["requests"] == 40'
json_check "compare: B's p50 is the scripted 40 ms (in [40, 120) ms)" '40000 <= j["compare"]["b"]["sent_p50"] < 120000'
json_check "compare: paired B - A p50 is the scripted 40 ms (in [30, 120) ms)" \
    '30000 <= j["compare"]["difference"]["sent_p50"]["mean"] < 120000'
expect "compare: slow against fast, decided" 0 out '"compare":{"rounds":4,' -- check --key "$key" \
    --server "$slow" --compare-server "$fast" --bucket load:1000:1000000 --load 40 --concurrency 1 --rounds 4 --json
json_check "compare: swapped, the paired difference is negative (in (-120, -30] ms)" \
    '-120000 < j["compare"]["difference"]["intended_p50"]["mean"] <= -30000'
expect "compare: a server against itself, decided" 0 out '"compare":{"rounds":3,' -- check --key "$key" \
    --server "$fast" --compare-server "$fast" --bucket load:1000:1000000 --load 30 --concurrency 1 --rounds 3 --json
json_check "compare: against itself, no difference of the 40 ms order (|p50 B - A| < 30 ms)" \
    'abs(j["compare"]["difference"]["sent_p50"]["mean"]) < 30000'
expect "compare: text, side by side" 0 out "sent_p50" -- check --key "$key" --server "$fast" \
    --compare-server "$slow" --bucket load:1000:1000000 --load 4 --concurrency 1 --rounds 2
expect "compare without load" 2 err "--compare-server compares two --server sets under --load or --duration" -- \
    check --key "$key" --server "$fast" --compare-server "$slow" --bucket a:1000:1
expect "rounds without compare" 2 err "--rounds is for --compare-server" -- check --key "$key" --server "$fast" \
    --bucket a:1000:1 --load 10 --concurrency 1 --rounds 2
expect "fewer requests than rounds" 2 err "N (per configuration) at least --rounds" -- check --key "$key" \
    --server "$fast" --compare-server "$slow" --bucket a:1000:1 --load 3 --concurrency 1 --rounds 4
expect "bad rounds" 2 err "--rounds '1': want rounds of each configuration, 2..1000" -- check --key "$key" \
    --server "$fast" --compare-server "$slow" --bucket a:1000:1 --load 3 --concurrency 1 --rounds 1
expect "bad compare server" 2 err "--compare-server 'x': want ID@HOST:PORT" -- check --key "$key" \
    --server "$fast" --compare-server x --bucket a:1000:1 --load 3 --concurrency 1

expect "load and duration" 2 err "--load N and --duration S exclude each other" -- check --key "$key" \
    --server "$fast" --bucket a:1000:1 --load 10 --duration 1 --rate 10
expect "rate and concurrency" 2 err "--rate (open loop) and --concurrency (closed loop) exclude each other" -- \
    check --key "$key" --server "$fast" --bucket a:1000:1 --load 10 --rate 10 --concurrency 2
expect "cap without open loop" 2 err "--max-inflight caps the open loop" -- check --key "$key" \
    --server "$fast" --bucket a:1000:1 --load 10 --concurrency 2 --max-inflight 4
expect "json without load" 2 err "--warmup, --json and --max-inflight are for --load or --duration" -- check \
    --key "$key" --server "$fast" --bucket a:1000:1 --json
expect "bad duration" 2 err "--duration '0': want seconds" -- check --key "$key" --server "$fast" \
    --bucket a:1000:1 --duration 0 --rate 10
expect "bad concurrency" 2 err "--concurrency '0': want requests in flight" -- check --key "$key" \
    --server "$fast" --bucket a:1000:1 --load 1 --concurrency 0

# project: a loop behind its schedule reads the replies between its sends. An
# rl-none key (its 60 ms dedup horizon: the default unit) at 50,000/s, more than
# this client sends: before, the loop sent for as long as it was behind and read
# nothing, the replies overflowed the socket buffer and 49,600 of 50,000 requests
# failed (under 1 % decided) against a server that answered every one; reading
# between every 32 sends, 60 to 78 % are decided at load 7. The bar (10 %) is the
# starved loop's failure, not the machine's speed.
none_key=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
start_serve burst --tenant "$none_key" --server port=0,start=1767225600
burst="$(server_id burst 0)@127.0.0.1:$(server_port burst 0)"
(unset RATELIMITLY_REQUEST_UNIT_MS; "$bin" check --key "$none_key" --server "$burst" --bucket load:1000:1000000 \
    --load 20000 --rate 50000 --json >"$tmp/out" 2>"$tmp/err")
json_check "behind schedule: 20,000 requests" 'j["requests"] == 20000'
json_check "behind schedule: replies read between sends (>= 10 % allowed)" 'j["allowed"] >= 2000'
json_check "behind schedule: every request counted" \
    'j["allowed"] + j["denied"] + j["failed"] + j["submit_errors"] == 20000'

echo "check load: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
