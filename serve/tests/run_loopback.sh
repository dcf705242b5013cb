#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Loopback tests of `rl-testbed serve` against the project's client core
# (serve_host: r_client.h over real sockets), in each auth mode over IPv4 and
# IPv6: an allow, a deny on a tight limit, dedup of a replayed unique_id,
# the scripted faults, and a restart mid-run (new server_id, state lost).
# usage: run_loopback.sh RL_TESTBED SERVE_HOST
set -u
bin=$1
host=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
trap 'cleanup_serve; rm -rf "$tmp"' EXIT

# Public test keys of the project's vectors (default quota word: dedup_ttl_ms_max
# 300, every window size allowed).
none_key=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
cookie_key=rl-cookie1q8hsxqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92ag0muhcz44sjh
aes_key=rl-aes1q8ksxqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhcpg9uk4
hour=3600000
# The tight-limit checks rely on one fixed window of an hour (aligned to whole
# hours on the server clock): start well clear of a boundary.
ms=$(date +%s%3N)
left=$((hour - ms % hour))
[ "$left" -lt 60000 ] && sleep $((left / 1000 + 1))

for mode in none cookie aes; do
    key_var=${mode}_key
    key=${!key_var}
    run=$mode
    start_serve "$run" --tenant "$key" --log "$tmp/$run.log"
    port=$(server_port "$run" 0)
    id=$(server_id "$run" 0)
    for fam in v4 v6; do
        addr=127.0.0.1
        [ "$fam" = v6 ] && addr='[::1]'
        t="$mode/$fam"
        out=$("$host" "$key" "$id@$addr:$port")
        check "$t: allowed" [ "$out" = "allowed by server $id" ]
        out=$("$host" --bucket "tight-$fam" --window $hour --limit 1 --count 2 "$key" "$id@$addr:$port" | tr '\n' ';')
        check "$t: tight limit allows once, then denies" [ "$out" = "allowed by server $id;denied by server $id;" ]
        out=$("$host" --dup --bucket "dup-$fam" "$key" "$id@$addr:$port")
        check "$t: allowed with every datagram sent twice" [ "$out" = "allowed by server $id" ]
    done
    # Both families, dup runs: each repeated unique_id was answered once and replayed once.
    answered_dup=$(count_log "$tmp/$run.log" "e['dir']=='in' and e['verdict']=='answered'")
    replayed=$(count_log "$tmp/$run.log" "e['dir']=='in' and e['verdict']=='replayed'")
    # At least the two repeated datagrams; the client's own replay round adds one
    # when a reply takes longer than its 100 ms gap on a loaded machine.
    check "$mode: the repeated unique_ids replayed" [ "$replayed" -ge 2 ]
    check "$mode: eight fresh decisions in the log" [ "$answered_dup" = 8 ]
    same=$(python3 - "$tmp/$run.log" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
ans = {e["unique_id"] for e in lines if e["dir"] == "in" and e["verdict"] == "answered"}
rep = [e["unique_id"] for e in lines if e["dir"] == "in" and e["verdict"] == "replayed"]
print("yes" if rep and all(u in ans for u in rep) else "no")
PY
)
    check "$mode: each replayed unique_id was answered before" [ "$same" = yes ]
    check "$mode: log names the auth mode" [ "$(count_log "$tmp/$run.log" "e.get('auth')=='$mode'")" -ge 6 ]
    stop_serve "$run"
    check "$mode: summary counts" grep -q "^total: received $((8 + replayed)), answered 8, replayed $replayed, .*sent $((8 + replayed))," "$tmp/$run.out"
done

# Scripted behaviour, one server each.
key=$none_key
start_serve script --tenant "$key" --log "$tmp/script.log" \
    --server port=0,deny=1 --server port=0,drop=1 --server port=0,inject=1 --server port=0,delay=fixed:10 \
    --server port=0,drop_reply=1 --server port=0,steer=change
for i in 0 1 2 3 4 5; do
    eval "p$i=\$(server_port script $i) s$i=\$(server_id script $i)"
done
check "servers get distinct server_ids (listener = index)" [ "$(printf '%s\n' "$s0" "$s1" "$s2" "$s3" "$s4" "$s5" | sort -u | wc -l)" -eq 6 ]
out=$("$host" "$key" "$s0@127.0.0.1:$p0")
check "deny=1: denied" [ "$out" = "denied by server $s0" ]
out=$("$host" "$key" "$s1@127.0.0.1:$p1")
check "drop=1: the client times out" [ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ]
check "drop=1: logged as script_drop" [ "$(count_log "$tmp/script.log" "e['server']==1 and e['verdict']=='script_drop'")" -ge 1 ]
out=$("$host" "$key" "$s2@127.0.0.1:$p2")
check "inject=1: allowed despite the invalid datagrams" [ "$out" = "allowed by server $s2" ]
check "inject=1: injected datagrams logged" [ "$(count_log "$tmp/script.log" "e['dir']=='out' and e['what']=='injected'")" -ge 1 ]
out=$("$host" "$key" "$s3@[::1]:$p3")
check "delay=fixed:10: allowed" [ "$out" = "allowed by server $s3" ]
check "delay=fixed:10: replies logged with delay_ms 10" [ "$(count_log "$tmp/script.log" "e['dir']=='out' and e['server']==3 and e['delay_ms']==10")" -ge 1 ]
out=$("$host" "$key" "$s4@127.0.0.1:$p4")
check "drop_reply=1: the client times out" [ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ]
check "drop_reply=1: lost replies logged" [ "$(count_log "$tmp/script.log" "e['dir']=='out' and e.get('lost')==True")" -ge 1 ]
out=$("$host" "$key" "$s5@127.0.0.1:$p5")
check "steer=change: still allowed" [ "$out" = "allowed by server $s5" ]
stop_serve script

# Restart mid-run: after the first rate request the server restarts with a new
# server_id and loses its buckets.
start_serve restart --tenant "$key" --log "$tmp/restart.log" --server port=0,restart_after=1
port=$(server_port restart 0)
old=$(server_id restart 0)
out=$("$host" --bucket once --window $hour --limit 1 "$key" "$old@127.0.0.1:$port")
check "restart: first request allowed by the old server_id" [ "$out" = "allowed by server $old" ]
check "restart: announced" wait_line restart "server 0: restarted (restart_after), server_id"
new=$(sed -n 's/^server 0: restarted (restart_after), server_id \([0-9]*\) .*/\1/p' "$tmp/restart.out")
check "restart: a new server_id" [ -n "$new" -a "$new" != "$old" ]
out=$("$host" "$key" "$old@127.0.0.1:$port")
check "restart: a client trusting the old server_id rejects the answers" [ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ]
out=$("$host" --bucket once --window $hour --limit 1 "$key" "$new@127.0.0.1:$port")
check "restart: state lost, the spent bucket allows again" [ "$out" = "allowed by server $new" ]
check "restart: logged as an event" [ "$(count_log "$tmp/restart.log" "e['dir']=='event' and e['old_server_id']==$old and e['server_id']==$new")" = 1 ]
kill -HUP "$srv_pid"
check "SIGHUP: restart announced" wait_line restart "server 0: restarted (SIGHUP), server_id"
hup=$(sed -n 's/^server 0: restarted (SIGHUP), server_id \([0-9]*\) .*/\1/p' "$tmp/restart.out")
check "SIGHUP: another server_id" [ -n "$hup" -a "$hup" != "$new" ]
out=$("$host" "$key" "$hup@[::1]:$port")
check "SIGHUP: allowed by the new server_id" [ "$out" = "allowed by server $hup" ]
stop_serve restart

# Failover: the oldest server goes down after one request; the next request
# is answered by another server (r-client.md 9.3: the oldest is preferred).
start_serve failover --tenant "$key" --log "$tmp/failover.log" \
    --server port=0,start=1767225600,down_after=1 --server port=0 --server port=0,down_at=0.2
for i in 0 1 2; do
    eval "p$i=\$(server_port failover $i) s$i=\$(server_id failover $i)"
done
"$host" --count 2 "$key" "$s0@127.0.0.1:$p0" "$s1@127.0.0.1:$p1" "$s2@[::1]:$p2" >"$tmp/failover.host"
check "failover: the oldest server answers first" [ "$(sed -n 1p "$tmp/failover.host")" = "allowed by server $s0" ]
check "failover: down after one request" wait_line failover "server 0: down (down_after), server_id $s0"
second=$(sed -n 2p "$tmp/failover.host")
check "failover: the next request is allowed by another server" [ "$second" = "allowed by server $s1" -o "$second" = "allowed by server $s2" ]
check "down_at=0.2: down on time" wait_line failover "server 2: down (down_at), server_id $s2"
out=$("$host" "$key" "$s0@127.0.0.1:$p0" "$s1@127.0.0.1:$p1" "$s2@[::1]:$p2")
check "failover: with two servers down the third answers" [ "$out" = "allowed by server $s1" ]
check "failover: ignored datagrams logged as down" [ "$(count_log "$tmp/failover.log" "e.get('verdict')=='down' and e['server']==0")" -ge 1 ]
stop_serve failover
check "failover: down counted in the summary" grep -q '^server 0 .* down [1-9]' "$tmp/failover.out"

# Timed restart, a skewed clock, and the work bounds.
start_serve timed --tenant "$key" --log "$tmp/timed.log" --server port=0,restart_at=0.3 --server port=0,skew=-10000
check "restart_at=0.3: restarted on time" wait_line timed "server 0: restarted (restart_at), server_id"
out=$("$host" "$key" "$(server_id timed 1)@127.0.0.1:$(server_port timed 1)")
check "skew=-10000: the request is stale for this server" [ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ]
check "skew=-10000: logged as drop_stale with the time_stamp named" [ "$(count_log "$tmp/timed.log" "e.get('verdict')=='drop_stale' and e['reason'].startswith('tenant TLV: time_stamp ') and 'freshness_ms' in e['reason']")" -ge 1 ]
stop_serve timed

# Server 1 delays its replies by 250 ms: the client's replay (about 1 U = 100 ms after the
# request) meets the first reply still queued, whatever the machine's load.
start_serve capped --tenant "$key" --log - --rate-cap 2 --memory-cap 4 --max-pending 1 \
    --server port=0 --server port=0,delay=fixed:250
check "--memory-cap 4: dedup capacity lowered to 3 MiB / 2 servers / 1400 bytes" [ "$(dedup_capacity capped 0)" = 1123 ]
"$host" --count 3 "$key" "$(server_id capped 0)@127.0.0.1:$(server_port capped 0)" >"$tmp/capped.host"
out=$(sed -n 1p "$tmp/capped.host")
check "--rate-cap 2: the first request answered" [ "$out" = "allowed by server $(server_id capped 0)" ]
sleep 1.1 # refill the bucket
"$host" "$key" "$(server_id capped 1)@127.0.0.1:$(server_port capped 1)" >/dev/null
stop_serve capped
check "--rate-cap 2: later datagrams rate_capped" grep -q '^total: .* rate_capped [1-9]' "$tmp/capped.out"
check "--max-pending 1: a second delayed reply finds the queue full" grep -q '^total: .* queue_full [1-9]' "$tmp/capped.out"
check "--log -: JSON lines on stdout" grep -q '^{"ts_ms":[0-9]*,"dir":"in",.*"verdict":"rate_capped"' "$tmp/capped.out"

# Dedup health (wire_protocol.md Degraded-State Behavior; docs/serve.md "Dedup health"): with room
# for one entry, 50 requests at 5000/s (10 ms in all, inside one another's 60 ms window) evict
# live entries: one ERROR line on stderr, the count in the summary.
start_serve dd --tenant "$key" --server port=0,dedup_capacity=1
"$bin" check --key "$key" --server "$(server_id dd 0)@127.0.0.1:$(server_port dd 0)" --bucket api:1000:1000 \
    --load 50 --rate 5000 --quiet >"$tmp/dd.check" 2>&1
check "dedup_capacity=1: an ERROR line when the cache degrades" \
    [ "$(grep -c '^serve: ERROR server 0: dedup cache full (capacity 1): live entries evicted' "$tmp/dd.err")" -ge 1 ]
stop_serve dd
check "dedup_capacity=1: evictions counted in the summary" grep -q '^server 0 .* dedup_evicted [1-9]' "$tmp/dd.out"
check "no eviction elsewhere: dedup_evicted 0 in a healthy run's summary" grep -q '^total: .* dedup_evicted 0$' "$tmp/capped.out"

echo "serve loopback: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
