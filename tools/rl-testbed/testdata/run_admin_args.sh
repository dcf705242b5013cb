#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_admin_args.sh RL_TESTBED
#
# `rl-testbed admin` on bad arguments: each run must exit 2 (usage), name the
# argument and what is wrong on stderr, and send nothing (no server listens at
# the address given; a run that sent would time out with exit 3 instead).
set -u
bin=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"
unset RATELIMITLY_ADMIN_SERVER RATELIMITLY_ADMIN_SECRET

secret=rl-secret1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq3teav5
set -- --server 127.0.0.1:9 --secret "$secret" --timeout 50

# TENANT is a u64 key_id: 2^64 and beyond do not fit, a sign is not a number.
expect "TENANT 2^64" 2 err "TENANT '18446744073709551616'" -- admin "$@" metrics summary 18446744073709551616
expect "TENANT far past u64" 2 err "TENANT '99999999999999999999999'" -- admin "$@" tenant remove 99999999999999999999999
expect "TENANT hex past u64" 2 err "TENANT '0x10000000000000000'" -- admin "$@" metrics labels 0x10000000000000000
expect "TENANT hex with a sign" 2 err "TENANT '0x-1'" -- admin "$@" metrics summary 0x-1
expect "TENANT hex with a space" 2 err "TENANT '0x 1'" -- admin "$@" metrics summary "0x 1"
expect "TENANT empty" 2 err "TENANT ''" -- admin "$@" metrics summary ""
expect "TENANT rl-secret" 2 err "TENANT '" -- admin "$@" tenant remove "$secret"
# the limits themselves are accepted (they reach the network: no answer, exit 3)
expect "TENANT 2^64-1 accepted" 3 err "no answer before the timeout" -- admin "$@" metrics summary 18446744073709551615
expect "TENANT hex max accepted" 3 err "no answer before the timeout" -- admin "$@" metrics summary 0xffffffffffffffff
# numbers of the options
expect "--timeout 0" 2 err "--timeout '0'" -- admin "$@" --timeout 0 status
expect "--timeout huge" 2 err "--timeout '99999999999999999999999'" -- admin "$@" --timeout 99999999999999999999999 status
expect "--dedup-ttl sign" 2 err "--dedup-ttl '-5'" -- admin "$@" --dedup-ttl -5 tenant remove 1
expect "--quota huge word" 2 err "--quota '99999999999999999999999'" -- admin "$@" --quota 99999999999999999999999 \
    tenant add acme rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cm
# words
expect "no command" 2 err "no command" -- admin "$@"
expect "unknown command" 2 err "command 'stats'" -- admin "$@" stats
expect "metrics family" 2 err "metrics 'latency'" -- admin "$@" metrics latency 1
expect "unknown option" 2 err "option '--bogus'" -- admin "$@" --bogus status
expect "option without value" 2 err "option '--secret': needs a value" -- admin --server 127.0.0.1:9 status --secret
expect "--server port 0" 2 err "--server '127.0.0.1:0'" -- admin --server 127.0.0.1:0 --secret "$secret" status
expect "no server" 2 err "no server" -- admin --secret "$secret" status
expect "no secret" 2 err "no admin key" -- admin --server 127.0.0.1:9 status
expect "credential rl-secret" 2 err "CREDENTIAL '...': hrp: rl-secret is not an API key" -- admin "$@" \
    tenant add acme "$secret"

# wire_protocol.md "For V1, CP may consider a queue healthy": udp_port must
# match the probed endpoint. A one-shot responder answers with the bound port
# (healthy) or another one (not healthy); skipped without python3-cryptography.
if python3 -c 'import cryptography' 2>/dev/null; then
    # fake_status DELTA CODE: start the responder; sets $pid and $port
    fake_status() {
        rm -f "$tmp/port"
        python3 "$(dirname "$0")/fake_status_server.py" "$tmp/port" "$1" "$2" &
        pid=$!
        i=0
        # readiness: the port it printed (a hang guard of a minute, not a measurement)
        while [ ! -s "$tmp/port" ] && [ "$i" -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
        port=$(cat "$tmp/port")
    }
    for delta in 0 1; do
        fake_status "$delta" 0
        if [ "$delta" -eq 0 ]; then want="(127.0.0.1:$port): healthy"; else want="(127.0.0.1:$port): not healthy"; fi
        expect "status: udp_port delta $delta" 0 out "$want" -- admin --server "127.0.0.1:$port" --secret "$secret" \
            --timeout 20000 status
        wait "$pid"
    done
    # wire_protocol.md "Degraded-State Behavior" (the server exposes unhealthy
    # dedup state via health status): a queue healthy by the V1 rule whose
    # degraded_reason_code is not 0 stays healthy, and the headline says it is
    # degraded and why (project: code 1 = live dedup entries evicted).
    for code in 1 7; do
        fake_status 0 "$code"
        if [ "$code" -eq 1 ]; then
            why="live dedup entries evicted for capacity inside their window: replay of duplicates not guaranteed"
        else
            why="a reason this tool does not know"
        fi
        expect "status: degraded $code" 0 out "(127.0.0.1:$port): healthy, degraded (degraded_reason_code $code: $why)" \
            -- admin --server "127.0.0.1:$port" --secret "$secret" --timeout 2000 status
        wait "$pid"
    done
    fake_status 0 1
    expect "status --json: degraded" 0 out '"healthy":true,"degraded":true,' \
        -- admin --server "127.0.0.1:$port" --secret "$secret" --timeout 2000 --json status
    wait "$pid"
else
    echo "skip status udp_port cases: python3 cryptography not installed"
fi

echo "run_admin_args: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
