#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: run_admin_usage.sh RL_TESTBED
#
# `rl-testbed admin` usage errors, no server needed: each names what is wrong
# (the argument, the command and what it wants, the source of a bad key or
# address) and exits 2 (tools/rl-testbed/README.md "admin"); a server that is
# not there is a timeout with a hint, exit 3.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
. "$here/cli_lib.sh"
trap 'rm -rf "$tmp"' EXIT
unset RATELIMITLY_ADMIN_SERVER RATELIMITLY_ADMIN_SECRET

key=rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cm
secret=rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusq7akkmu
srv=127.0.0.1:9
a=(admin --server "$srv" --secret "$secret")

expect "tenant typo: names the word" 2 err "tenant 'ad': want 'tenant add NAME CREDENTIAL' or 'tenant remove TENANT'" \
    -- "${a[@]}" tenant ad acme "$key"
expect "tenant alone: wants add or remove" 2 err "tenant: want 'add NAME CREDENTIAL' or 'remove TENANT', got 0 argument(s)" \
    -- "${a[@]}" tenant
expect "tenant add without CREDENTIAL" 2 err "tenant add: want NAME CREDENTIAL, got 1 argument(s)" \
    -- "${a[@]}" tenant add acme
expect "tenant remove without TENANT" 2 err "tenant remove: want TENANT, got 0 argument(s)" \
    -- "${a[@]}" tenant remove
expect "metrics alone" 2 err "metrics: want 'summary|labels|services TENANT', got 0 argument(s)" \
    -- "${a[@]}" metrics
expect "metrics summary without TENANT" 2 err "metrics summary: want TENANT, got 0 argument(s)" \
    -- "${a[@]}" metrics summary
expect "status with an argument" 2 err "status: want no argument, got 1 argument(s)" -- "${a[@]}" status extra
expect "TENANT: a bad credential gives its rule, not its text" 2 err \
    "TENANT '...': want a key_id or an rl-none/rl-cookie/rl-aes credential (as a credential: bech32: invalid checksum)" \
    -- "${a[@]}" tenant remove rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cn
expect "--quota: names the field not representable" 2 err \
    "--quota 'rate_buckets=4,metrics_labels=3': metrics_labels=3 is not representable in the quota word" \
    -- "${a[@]}" tenant add acme "$key" --quota rate_buckets=4,metrics_labels=3
expect "--quota: empty is refused" 2 err "--quota '': empty: want a quota word or FIELD=NUMBER,..." \
    -- "${a[@]}" tenant add acme "$key" --quota ""
expect "--timeout 0: gives the range" 2 err "--timeout '0': want milliseconds, a decimal number 1..3600000" \
    -- "${a[@]}" --timeout 0 status
expect "--secret: an API key is not an admin key (usage, exit 2)" 2 err \
    "rl-testbed admin: --secret: not a valid rl-secret credential: hrp: expected rl-secret" \
    -- admin --server "$srv" --secret "$key" status
RATELIMITLY_ADMIN_SECRET=rl-secret1abc expect "RATELIMITLY_ADMIN_SECRET: named as the source" 2 err \
    "rl-testbed admin: RATELIMITLY_ADMIN_SECRET: not a valid rl-secret credential: bech32:" -- admin --server "$srv" status
if grep -qF "$key" "$tmp/err"; then failures=$((failures + 1)); echo "FAIL a key echoed"; fi
RATELIMITLY_ADMIN_SERVER=localhost:1 expect "RATELIMITLY_ADMIN_SERVER: named as the source" 2 err \
    "rl-testbed admin: RATELIMITLY_ADMIN_SERVER 'localhost:1': want IPv4:PORT or [IPv6]:PORT" -- admin --secret "$secret" status
expect "no server listening: timeout with a hint" 3 err \
    "status: no answer before the timeout (no server with --admin-secret listens at that address" \
    -- "${a[@]}" --timeout 100 status

# docs/serve.md "Administrative channel": a key made with the project's Bech32 encoder is accepted
# (the request is sent and times out: no server there).
made=$(cd "$here/../../.." && python3 -c 'import os, sys; sys.path.insert(0, "vectors/tools"); import gen_vectors as g; print(g.bech32_encode("rl-secret", os.urandom(32)))')
RATELIMITLY_ADMIN_SECRET=$made RATELIMITLY_ADMIN_SERVER=$srv expect "a key made as docs/serve.md says is accepted" 3 \
    err "status: no answer before the timeout" -- admin --timeout 100 status

echo "admin usage: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
