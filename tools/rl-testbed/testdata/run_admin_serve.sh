#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# usage: run_admin_serve.sh RL_TESTBED
#
# The administrative channel end to end, real processes on loopback:
# `rl-testbed serve --admin-secret` with no tenant, `rl-testbed admin tenant
# add` a tenant, `rl-testbed check` uses it (allowed, then denied on its
# limit), `admin metrics summary` / `labels` give the exact counts,
# `admin status` the listener's counters, `admin tenant remove` removes it and
# check then times out (and the metrics say METRICS_NOT_FOUND). A second serve
# with a small --memory-budget refuses the ADD (no ack: admin exits 3) and its
# log gives the reason, as it does for a datagram sealed under another key.
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
. "$here/cli_lib.sh"
. "$here/../../../serve/tests/serve_lib.sh"
trap 'cleanup_serve; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# Key with dedup_ttl_ms_max 2000 (key_id 4242) as in run_check_serve.sh.
key=rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cm
# Admin keys: bytes 1..32, and bytes 1..32 with the last one 33.
secret=rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusq7akkmu
other=rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7russtu7ww0
RATELIMITLY_REQUEST_UNIT_MS=250
export RATELIMITLY_REQUEST_UNIT_MS
# Every admin call that expects an answer waits up to 20 s (a hang guard, not a
# measurement; the default 1000 ms is short on a loaded host). The calls that
# expect no answer keep their short --timeout.
wait_ms=20000
unset RATELIMITLY_AUTH_KEY RATELIMITLY_TENANT RATELIMITLY_REQUEST_REPLAY_COUNT RATELIMITLY_REQUEST_PROFILE \
    RATELIMITLY_ADMIN_SERVER RATELIMITLY_ADMIN_SECRET

# json_field FILE EXPR: a python expression on the JSON object `j` of FILE.
json_field() {
    python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"j": j}))
PY
}

# The tight limit uses one 1-hour window (fixed windows on the server clock):
# start a minute clear of an hour boundary, more than the tight checks take on a loaded host.
left=$((3600000 - $(date +%s%3N) % 3600000))
[ "$left" -lt 60000 ] && sleep $((left / 1000 + 1))

start_serve admin --admin-secret "$secret" --listen 127.0.0.1 --log "$tmp/admin.log"
check "serve: ready with the admin channel and no tenant" grep -q '^serve: ready, 1 server(s), 0 tenant(s), admin channel on$' "$tmp/admin.out"
port=$(server_port admin 0)
sid=$(server_id admin 0)
srv=127.0.0.1:$port
ep=$sid@127.0.0.1:$port

expect "before the add: no decision" 3 out "decision: none: RCLIENT_ERR_TIMEOUT" -- check --key "$key" \
    --server "$ep" --bucket api:1000:100
expect "tenant add: acknowledged" 0 out "tenant add: tenant 4242 acknowledged by server_id $sid" -- admin \
    --timeout "$wait_ms" --server "$srv" --secret "$secret" tenant add acme "$key"
expect "check: allowed (api)" 0 out "decision: allowed" -- check --key "$key" --server "$ep" \
    --bucket tight:3600000:2 --label api
expect "check: allowed again (api)" 0 out "decision: allowed" -- check --key "$key" --server "$ep" \
    --bucket tight:3600000:2 --label api
expect "check: denied on the limit (web)" 1 out "bucket tight: short, deficit 1" -- check --key "$key" \
    --server "$ep" --bucket tight:3600000:2 --label web

expect "metrics summary: table" 0 out "requests_success               2" -- admin \
    --timeout "$wait_ms" --server "$srv" --secret "$secret" metrics summary 4242
RATELIMITLY_ADMIN_SERVER=$srv RATELIMITLY_ADMIN_SECRET=$secret "$bin" admin --timeout "$wait_ms" --json \
    metrics summary "$key" >"$tmp/sum.json"
check "metrics summary: exit 0 with the key and server from the environment" [ $? -eq 0 ]
check "metrics summary: exact counts" [ "$(json_field "$tmp/sum.json" "[j['summary'][k] for k in ('requests_success','requests_rate_limited','requests_guard_failed','requests_auth_failed','service_latency_reports_total')]")" = "[2, 1, 0, 0, 0]" ]
"$bin" admin --timeout "$wait_ms" --server "$srv" --secret "$secret" --json metrics labels 4242 >"$tmp/labels.json"
check "metrics labels: exit 0" [ $? -eq 0 ]
check "metrics labels: api 2 allowed, web 1 rate-limited, nothing else" [ "$(json_field "$tmp/labels.json" "[(r['label'], r['requests_success'], r['requests_rate_limited'], r['requests_guard_failed'], r['requests_auth_failed']) for r in j['records']]")" = "[('api', 2, 0, 0, 0), ('web', 0, 1, 0, 0)]" ]
check "metrics labels: one page, LABELS_PAGE_LAST" [ "$(json_field "$tmp/labels.json" "(j['pages'], j['final_page_kind'])")" = "(1, 'LABELS_PAGE_LAST')" ]
expect "metrics services: empty" 0 out "0 record(s)" -- admin --timeout "$wait_ms" --server "$srv" \
    --secret "$secret" metrics services 4242

"$bin" admin --timeout "$wait_ms" --server "$srv" --secret "$secret" --json status >"$tmp/status.json"
check "status: exit 0" [ $? -eq 0 ]
check "status: healthy, this listener" [ "$(json_field "$tmp/status.json" "(j['healthy'], j['server_id'], j['fields']['udp_port'])")" = "(True, '$sid', '$port')" ]
check "status: one key, 3 rate requests (2 allowed, 1 limited), 1 mutation" [ "$(json_field "$tmp/status.json" "[j['fields'][k] for k in ('api_keys_loaded','rate_requests_total','rate_success_total','rate_limited_total','tenant_mutations_total','tenant_mutation_failures_total')]")" = "['1', '3', '2', '1', '1', '0']" ]
check "status: system memory read from the host (validity bits 0, 1, 3 set)" [ "$(json_field "$tmp/status.json" "all(j['fields'][k] not in (None, '0') for k in ('system_memory_total_bytes','system_memory_available_bytes','process_rss_bytes'))")" = "True" ]
expect "status: table" 0 out "status of server_id $sid (127.0.0.1:$port): healthy" -- admin \
    --timeout "$wait_ms" --server "$srv" --secret "$secret" status

expect "tenant remove: acknowledged" 0 out "tenant remove: tenant 4242 acknowledged by server_id $sid" -- admin \
    --timeout "$wait_ms" --server "$srv" --secret "$secret" tenant remove 4242
expect "after the remove: check times out" 3 out "decision: none: RCLIENT_ERR_TIMEOUT" -- check --key "$key" \
    --server "$ep" --bucket api:1000:100
expect "after the remove: METRICS_NOT_FOUND" 1 err "the server answered METRICS_NOT_FOUND" -- admin \
    --timeout "$wait_ms" --server "$srv" --secret "$secret" metrics summary 4242
expect "another admin key: no answer" 3 err "status: no answer before the timeout" -- admin --server "$srv" \
    --secret "$other" --timeout 300 status
check "log: the other key's datagrams dropped with a reason" [ "$(count_log "$tmp/admin.log" "e['dir']=='in' and e['verdict']=='drop_auth' and e['what']=='admin' and 'admin key' in e.get('reason','')")" -ge 1 ]
check "log: tenant mutations named with their operation" [ "$(count_log "$tmp/admin.log" "e['dir']=='in' and e['what']=='tenant_mutation' and e.get('operation') in ('add','remove') and e['verdict']=='admin_answered'")" -eq 2 ]
check "log: every admin answer logged as sent" [ "$(count_log "$tmp/admin.log" "e['dir']=='out' and e['what'] in ('tenant_ack','status_response','metrics_response')")" -ge 8 ]
stop_serve admin

# ---- memory admission: a budget too small for the default quotas
start_serve small --admin-secret "$secret" --listen 127.0.0.1 --memory-budget 4 --server port=0,dedup_capacity=16 \
    --log "$tmp/small.log"
srv=127.0.0.1:$(server_port small 0)
expect "small budget: ADD refused, no ack" 3 err "no acknowledgment before the timeout" -- admin --server "$srv" \
    --secret "$secret" --timeout 300 --resend 1000 tenant add acme "$key"
check "small budget: the log gives the reason" [ "$(count_log "$tmp/small.log" "e['dir']=='in' and e['verdict']=='drop_admin' and 'memory budget' in e.get('reason','')")" -ge 1 ]
expect "small budget: fitting quotas admitted" 0 out "acknowledged" -- admin --timeout "$wait_ms" \
    --server "$srv" --secret "$secret" tenant add small "$key" \
    --quota rate_buckets=1024,latency_services=16,metrics_labels=64
"$bin" admin --timeout "$wait_ms" --server "$srv" --secret "$secret" --json status >"$tmp/small.json"
check "small budget: one allocation failure counted" [ "$(json_field "$tmp/small.json" "(j['fields']['allocation_failures_total'], j['fields']['api_keys_loaded'], j['fields']['rl_memory_budget_bytes'])")" = "('1', '1', '4194304')" ]
stop_serve small

echo "admin against serve: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
