#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: run_check.sh RL_TESTBED
#
# `rl-testbed check` (tools/rl-testbed/README.md "check"): bad arguments and
# bad environment values exit 2 and name the argument or variable; against
# `rl-testbed serve` (3 servers on loopback) a decision is allowed (exit 0)
# with the oldest server selected, a tight limit denies (exit 1), a report is
# sent, an unreachable oldest server fails over, a silent server gives no
# decision (exit 3) and --load prints its summary. run_check_serve.sh has the
# integration cases (auth modes, IPv6, kills, rebind, restart, DNS).
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
. "$here/cli_lib.sh"
. "$here/../../../serve/tests/serve_lib.sh"
trap 'cleanup_serve; wait 2>/dev/null; rm -rf "$tmp"' EXIT
# U = 250 ms (H = 750 ms; the key allows 2000): a loaded host still answers in time.
RATELIMITLY_REQUEST_UNIT_MS=250
export RATELIMITLY_REQUEST_UNIT_MS
unset RATELIMITLY_AUTH_KEY RATELIMITLY_TENANT RATELIMITLY_REQUEST_REPLAY_COUNT RATELIMITLY_REQUEST_PROFILE
# dedup_ttl_ms_max 2000, key_id 4242 (the same key as run_check_serve.sh).
key=rl-cookie1qxfpqqqqqqqqqqzpgfp5g32xgayyjjjtf3x5un6s29f9x4z42et4sk26tdw96hjlvpgtzsh7l2qhn2
start_serve trio --tenant "$key" --server port=0,start=1767225600 --server port=0,start=1767229200 \
    --server port=0,start=1767232800
ep() { echo "$(server_id trio "$1")@127.0.0.1:$(server_port trio "$1")"; }
s1=$(ep 0)
s2=$(ep 1)
s3=$(ep 2)
oldest=${s1%%@*}

expect "check --help" 0 out "usage: rl-testbed check" -- check --help
expect "listed in the commands" 0 out "check" -- --help
expect "unknown option" 2 err "unknown option '--frob'" -- check --frob
expect "missing value" 2 err "--bucket: missing value" -- check --bucket
expect "bucket shape" 2 err "--bucket 'api:1000': want NAME:WINDOW_MS:LIMIT[:TOKENS]" -- check --key "$key" \
    --server "$s1" --bucket api:1000
expect "bucket window" 2 err "--bucket 'api:0:5': WINDOW_MS must be" -- check --key "$key" --server "$s1" \
    --bucket api:0:5
expect "bucket tokens" 2 err "--bucket 'api:1000:5:70000': TOKENS must be" -- check --key "$key" --server "$s1" \
    --bucket api:1000:5:70000
expect "guard shape" 2 err "--guard 'db:1:2': want NAME:THRESHOLD_MS" -- check --key "$key" --server "$s1" \
    --guard db:1:2
expect "server shape" 2 err "--server 'localhost:53': want ID@HOST:PORT" -- check --key "$key" \
    --server localhost:53 --bucket a:1000:1
expect "server port" 2 err "--server '7@127.0.0.1:70000'" -- check --key "$key" --server 7@127.0.0.1:70000 \
    --bucket a:1000:1
expect "server ipv6 needs brackets" 2 err "--server '7@::1:53'" -- check --key "$key" --server 7@::1:53 \
    --bucket a:1000:1
expect "server twice" 2 err "server_id given twice" -- check --key "$key" --server "$s1" --server "$s1" \
    --bucket a:1000:1
expect "nothing to decide" 2 err "give at least one --bucket or --guard" -- check --key "$key" --server "$s1"
expect "report needs a guard" 2 err "--report needs a --guard" -- check --key "$key" --server "$s1" \
    --bucket a:1000:1 --report 5
expect "load needs rate" 2 err "--load or --duration go with --rate R or --concurrency K" -- check --key "$key" --server "$s1" \
    --bucket a:1000:1 --load 10
expect "bad rate" 2 err "--rate 'fast'" -- check --key "$key" --server "$s1" --bucket a:1000:1 --load 10 --rate fast
# project: R >= 0.001 (request i due i/R s after the start must fit the us clock; 1e-300 was
# undefined behaviour, a float-to-integer overflow); a plain decimal (strtod took hex, inf, spaces).
for r in 1e-300 0.0005 -1 0x10 " 5" nan inf 1e12; do
    expect "bad rate '$r'" 2 err "--rate '$r': want requests per second, a decimal 0.001..10000000, or 0" -- check \
        --key "$key" --server "$s1" --bucket a:1000:1 --load 10 --rate "$r"
done
for d in 0 0x1 " 1" 1e5 nan; do
    expect "bad duration '$d'" 2 err "--duration '$d': want seconds, 0.001..86400" -- check \
        --key "$key" --server "$s1" --bucket a:1000:1 --duration "$d" --rate 10
done
expect "bad key" 2 err "--key: not a valid API key" -- check --key rl-cookie1xyz --server "$s1" --bucket a:1000:1
# ... naming the rule it breaks (the checksum: the last character of a valid key changed).
expect "bad key: the rule named" 2 err "--key: not a valid API key (rl-none, rl-cookie or rl-aes, version 1): bech32: invalid checksum" \
    -- check --key "${key%?}3" --server "$s1" --bucket a:1000:1
expect "dns server shape" 2 err "--dns-server '127.0.0.1': want IPv4:PORT or [IPv6]:PORT" -- check --key "$key" \
    --dns rl.test --dns-server 127.0.0.1 --bucket a:1000:1
expect "server and dns exclude" 2 err "--server excludes --dns" -- check --key "$key" --server "$s1" --dns x.test \
    --bucket a:1000:1
checks=$((checks + 1))
if env -u RATELIMITLY_AUTH_KEY "$bin" check --server "$s1" --bucket a:1000:1 >"$tmp/out" 2>"$tmp/err"; then
    fail "no key: want exit 2"
elif ! grep -qF "RATELIMITLY_AUTH_KEY: not set" "$tmp/err"; then
    fail "no key: stderr lacks the variable"
else
    echo "ok   no key names RATELIMITLY_AUTH_KEY"
fi
# Bad environment values (api.md "Public runtime" environment options): exit 2,
# the variable and the accepted values named, nothing sent.
bad_env() { # bad_env NAME VALUE TEXT [ARGS...]: check with NAME=VALUE must exit 2 naming TEXT
    name=$1 value=$2 text=$3
    shift 3
    checks=$((checks + 1))
    env "$name=$value" "$bin" check --server "$s1" --bucket a:1000:1 "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 2 ]; then
        fail "$name='$value': exit status $rc, want 2"
    elif ! grep -qF -- "$text" "$tmp/err"; then
        fail "$name='$value': stderr lacks: $text"
    else
        echo "ok   $name='$value' refused"
    fi
}
bad_env RATELIMITLY_REQUEST_UNIT_MS 0 "RATELIMITLY_REQUEST_UNIT_MS: not a nonzero decimal integer" --key "$key"
bad_env RATELIMITLY_REQUEST_UNIT_MS 20ms "RATELIMITLY_REQUEST_UNIT_MS: not a nonzero decimal integer" --key "$key"
bad_env RATELIMITLY_REQUEST_UNIT_MS 4294967296 "RATELIMITLY_REQUEST_UNIT_MS: not a nonzero decimal integer" --key "$key"
bad_env RATELIMITLY_REQUEST_UNIT_MS 1000 "the horizon H = U x (N + 2) ms (N + 1 rounds of one unit, then a final unit) exceeds the key's dedup_ttl_ms_max" --key "$key"
bad_env RATELIMITLY_REQUEST_REPLAY_COUNT 17 "RATELIMITLY_REQUEST_REPLAY_COUNT: not a decimal integer from 0 through 16" --key "$key"
bad_env RATELIMITLY_REQUEST_REPLAY_COUNT -1 "RATELIMITLY_REQUEST_REPLAY_COUNT: not a decimal integer from 0 through 16" --key "$key"
bad_env RATELIMITLY_REQUEST_PROFILE yes "RATELIMITLY_REQUEST_PROFILE: not 0 or 1" --key "$key"
bad_env RATELIMITLY_TENANT "" "RATELIMITLY_TENANT: empty" --key "$key"
bad_env RATELIMITLY_AUTH_KEY rl-cookie1xyz "RATELIMITLY_AUTH_KEY: not a valid API key"
bad_env RATELIMITLY_AUTH_KEY "" "RATELIMITLY_AUTH_KEY: not set"
checks=$((checks + 1))
if env RATELIMITLY_AUTH_KEY="$key" RATELIMITLY_REQUEST_PROFILE=0 RATELIMITLY_REQUEST_REPLAY_COUNT=2 \
    "$bin" check --server "$s1" --bucket cli-env:1000:100 >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   key from RATELIMITLY_AUTH_KEY, good environment values accepted"
else
    fail "good environment values: want exit 0"
fi

expect "allowed" 0 out "decision: allowed" -- check --key "$key" --server "$s1" --server "$s2" --server "$s3" \
    --bucket cli-allow:1000:100 --guard db:100 --label cli
expect "oldest selected" 0 out "server: $oldest " -- check --key "$key" --server "$s3" --server "$s2" --server "$s1" \
    --bucket cli-allow:1000:100
expect "profile printed" 0 out "profile: round 0, phase round" -- check --key "$key" --server "$s1" \
    --bucket cli-allow:1000:100
expect "report" 0 out "report: 12 ms to 1 tracker(s)" -- check --key "$key" --server "$s1" \
    --bucket cli-allow:1000:100 --guard db:100 --report 12
# One 1-hour window (fixed windows on the server clock) for both: start clear of its boundary.
left=$((3600000 - $(date +%s%3N) % 3600000))
[ "$left" -lt 15000 ] && sleep $((left / 1000 + 1))
expect "tight limit: first allowed" 0 out "decision: allowed" -- check --key "$key" --server "$s1" \
    --bucket cli-tight:3600000:1
expect "tight limit: then denied" 1 out "bucket cli-tight: short, deficit 1" -- check --key "$key" --server "$s1" \
    --bucket cli-tight:3600000:1
expect "failover: the oldest (server_id 1) is down" 0 out "server: $oldest " -- check --key "$key" \
    --server 1@127.0.0.1:9 --server "$s1" --bucket cli-allow:1000:100
expect "no server answers" 3 out "decision: none: RCLIENT_ERR_TIMEOUT" -- check --key "$key" \
    --server 7@127.0.0.1:9 --bucket a:1000:1
expect "load" 0 out "syscalls per request:" -- check --key "$key" --server "$s1" --server "$s2" --server "$s3" \
    --bucket cli-load:1000:1000000 --load 200 --rate 2000
expect "load quantiles" 0 out "latency from actual send (us): p50 " -- check --key "$key" --server "$s1" \
    --bucket cli-load:1000:1000000 --load 50 --rate 0 --no-sendmmsg

echo "check cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
