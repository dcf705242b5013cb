#!/bin/sh
# usage: run_check.sh RL_TESTBED RT_RESPONDER
#
# `rl-testbed check` (tools/rl-testbed/README.md "check"): bad arguments exit 2
# and name the argument; against the loopback responder (the reference server
# model on real UDP, 3 servers) a decision is allowed (exit 0) with the
# oldest server selected, a tight limit denies (exit 1), a report is sent, a
# down oldest server fails over, a silent server gives no decision (exit 3),
# --load prints its summary and SRV discovery works through dnsmasq.
set -u
bin=$1
responder=$2
tmp=$(mktemp -d) || exit 1
: >"$tmp/servers" # exists before the background job's redirection runs
"$responder" --servers 3 >"$tmp/servers" &
rpid=$!
trap 'kill $rpid 2>/dev/null; wait $rpid 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"
# U = 250 ms (H = 750 ms; the responder key allows 2000): a loaded host still answers in time.
RATELIMITLY_REQUEST_UNIT_MS=250
export RATELIMITLY_REQUEST_UNIT_MS
i=0
while [ "$(grep -c -- --server "$tmp/servers")" -lt 3 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if [ -z "$(awk '/^key/{print $2}' "$tmp/servers")" ]; then
    echo "FAIL the loopback responder did not start"
    exit 1
fi
key=$(awk '/^key/{print $2}' "$tmp/servers")
s1=$(sed -n 2p "$tmp/servers" | cut -d' ' -f2)
s2=$(sed -n 3p "$tmp/servers" | cut -d' ' -f2)
s3=$(sed -n 4p "$tmp/servers" | cut -d' ' -f2)
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
expect "load needs rate" 2 err "--load and --rate go together" -- check --key "$key" --server "$s1" \
    --bucket a:1000:1 --load 10
expect "bad rate" 2 err "--rate 'fast'" -- check --key "$key" --server "$s1" --bucket a:1000:1 --load 10 --rate fast
expect "bad key" 2 err "--key: not a valid API key" -- check --key rl-cookie1xyz --server "$s1" --bucket a:1000:1
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
checks=$((checks + 1))
if RATELIMITLY_REQUEST_UNIT_MS=0 "$bin" check --key "$key" --server "$s1" --bucket a:1000:1 >"$tmp/out" 2>"$tmp/err" ||
    ! grep -qF "RATELIMITLY_REQUEST_UNIT_MS" "$tmp/err"; then
    fail "bad unit in the environment: want exit 2 naming RATELIMITLY_REQUEST_UNIT_MS"
else
    echo "ok   bad environment value names its variable"
fi

expect "allowed" 0 out "decision: allowed" -- check --key "$key" --server "$s1" --server "$s2" --server "$s3" \
    --bucket cli-allow:1000:100 --guard db:100 --label cli
expect "oldest selected" 0 out "server: $oldest " -- check --key "$key" --server "$s3" --server "$s2" --server "$s1" \
    --bucket cli-allow:1000:100
expect "profile printed" 0 out "profile: round 0, phase round" -- check --key "$key" --server "$s1" \
    --bucket cli-allow:1000:100
expect "report" 0 out "report: 12 ms to 1 tracker(s)" -- check --key "$key" --server "$s1" \
    --bucket cli-allow:1000:100 --guard db:100 --report 12
expect "tight limit: first allowed" 0 out "decision: allowed" -- check --key "$key" --server "$s1" \
    --bucket cli-tight:60000:1
expect "tight limit: then denied" 1 out "bucket cli-tight: short, deficit 1" -- check --key "$key" --server "$s1" \
    --bucket cli-tight:60000:1
expect "failover: the oldest (server_id 1) is down" 0 out "server: $oldest " -- check --key "$key" \
    --server 1@127.0.0.1:9 --server "$s1" --bucket cli-allow:1000:100
expect "no server answers" 3 out "decision: none: RCLIENT_ERR_TIMEOUT" -- check --key "$key" \
    --server 7@127.0.0.1:9 --bucket a:1000:1
expect "load" 0 out "syscalls per request:" -- check --key "$key" --server "$s1" --server "$s2" --server "$s3" \
    --bucket cli-load:1000:1000000 --load 200 --rate 2000
expect "load quantiles" 0 out "latency (us): p50 " -- check --key "$key" --server "$s1" \
    --bucket cli-load:1000:1000000 --load 50 --rate 0 --no-sendmmsg

# SRV discovery through the command line: a dnsmasq on a loopback port serves the three servers.
dnsmasq=/usr/sbin/dnsmasq
[ -x "$dnsmasq" ] || dnsmasq=$(command -v dnsmasq)
dport=$(( 20000 + $$ % 20000 ))
set --
for s in "$s1" "$s2" "$s3"; do
    id=${s%%@*}
    port=${s##*:}
    set -- "$@" "--srv-host=_ratelimitly._udp.rl.test,s-$id.rl.test,$port,0,0" "--host-record=s-$id.rl.test,127.0.0.1"
done
user=""
[ "$(id -u)" -eq 0 ] && user="--user=root"
"$dnsmasq" --keep-in-foreground --conf-file=/dev/null --no-resolv --no-hosts --bind-interfaces \
    --listen-address=127.0.0.1 --pid-file= --log-facility=/dev/null --port="$dport" $user "$@" &
dpid=$!
trap 'kill $rpid $dpid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
i=0 # ready when a discovery succeeds (exit 3 while nothing answers yet)
while [ $i -lt 50 ] && ! "$bin" check --key "$key" --dns rl.test --dns-server "127.0.0.1:$dport" \
    --bucket cli-dns-ready:1000:1000 >/dev/null 2>&1; do sleep 0.1; i=$((i + 1)); done
expect "dns discovery: oldest selected" 0 out "server: $oldest " -- check --key "$key" --dns rl.test \
    --dns-server "127.0.0.1:$dport" --bucket cli-dns:1000:100
expect "dns: no SRV record" 3 out "RCLIENT_ERR_DNS" -- check --key "$key" --dns absent.test \
    --dns-server "127.0.0.1:$dport" --bucket cli-dns:1000:100

echo "check cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
