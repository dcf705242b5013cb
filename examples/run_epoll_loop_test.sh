#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end check of examples/epoll_loop over real loopback UDP (IPv4 and
# IPv6) against `rl-testbed serve` (the reference server model).
# usage: run_epoll_loop_test.sh EPOLL_LOOP_BINARY RL_TESTBED
set -u
bin=$1
testbed=$2
# A key with dedup_ttl_ms_max 2000 (key_id 4242, as in tools/rl-testbed/testdata): room for
# U = 500 ms (-u; horizon 1500 ms), far above a loaded host's scheduling delays, where the
# default U = 20 ms (horizon 60 ms) is not (project).
key="rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cm"
unit=500
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
"$testbed" serve --tenant "$key" --server port=0 --server port=0,steer=change --server port=0,deny=1 >"$tmp/out" 2>&1 &
pid=$!
# Wait for the readiness line (a hang guard of a minute, not a measurement).
for _ in $(seq 1200); do grep -q '^serve: ready' "$tmp/out" && break; sleep 0.05; done
port() { sed -n "s/^server $1: server_id [0-9]* port \([0-9]*\) .*/\1/p" "$tmp/out"; }
sid() { sed -n "s/^server $1: server_id \([0-9]*\) port .*/\1/p" "$tmp/out"; }
failed=0
expect() { # NAME WANT -- ARGS
    name=$1 want=$2
    shift 3
    got=$("$bin" -u "$unit" "$@" | tr '\n' ';')
    if [ "$got" = "$want" ]; then echo "ok   $name"; else echo "FAIL $name: got '$got' want '$want'"; failed=$((failed + 1)); fi
}
s0=$(sid 0) s1=$(sid 1) s2=$(sid 2)
expect "three requests in flight over IPv4" "request 0: allowed by server $s0;request 1: allowed by server $s0;request 2: allowed by server $s0;rebinds: 0;" -- "$key" "$s0@127.0.0.1:$(port 0)"
expect "one request over IPv6" "request 0: allowed by server $s0;rebinds: 0;" -- -n 1 "$key" "$s0@[::1]:$(port 0)"
expect "steering_feedback 0 makes the host rebind" "request 0: allowed by server $s1;rebinds: 1;" -- -n 1 "$key" "$s1@127.0.0.1:$(port 1)"
expect "a forced deny" "request 0: denied by server $s2;rebinds: 0;" -- -n 1 "$key" "$s2@[::1]:$(port 2)"
expect "a silent server times out" "request 0: failed: RCLIENT_ERR_TIMEOUT;rebinds: 0;" -- -n 1 "$key" "5@127.0.0.1:9"
# project: a unit of 0 is no policy; a usage error (exit 64) naming -u, nothing sent.
"$bin" -u 0 "$key" "1@127.0.0.1:9" >/dev/null 2>"$tmp/usage"
rc=$?
if [ "$rc" -eq 64 ] && grep -qF -- '[-u UNIT_MS]' "$tmp/usage"; then echo "ok   -u 0 is a usage error"
else echo "FAIL -u 0: exit status $rc"; failed=$((failed + 1)); fi
kill -TERM "$pid"
wait "$pid" || { echo "FAIL serve exit status"; failed=$((failed + 1)); }
pid=""
echo "epoll_loop example: $((6 - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
