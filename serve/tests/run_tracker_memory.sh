#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tracker memory of `rl-testbed serve` under a flood of latency reports
# (docs/serve.md "Memory"): one rl-none tenant with the default quota word
# (1,024 latency services, latency_buffer_size_max 32) receives 500,000
# reports over 1,024 trackers that ask for the largest storage a datagram can
# name (buffer_size 32, max_samples and min_sample_threshold 65,536). The
# resident size may grow by at most the tenant's tracker bound,
# latency_services_max x (800 + 24 x latency_buffer_size_max) bytes =
# 1,605,632 B, plus 1 MiB for the allocator and page rounding (the virtual
# size plus 4 MiB: the allocator maps large tables apart); Status
# rl_memory_allocated_bytes already holds that bound (the dedup cache and the
# tenant's estimate) and does not move. Before the bound, the same flood grew
# the virtual size by 529 MB (a 512 KiB ring a tracker, filled as samples
# arrive) and the resident size by 5.1 MB.
# usage: run_tracker_memory.sh RL_TESTBED REPORT_FLOOD
set -u
bin=$1
flood=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
trap 'cleanup_serve; rm -rf "$tmp"' EXIT

key=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
secret=rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusq7akkmu
# dedup cache 65,536 x 1400 B + the default key's estimate (docs/serve.md
# "Administrative channel": 128 B x 65,536 + 800 B x 1,024 + 24 B x 1,024 x 32
# + 1264 B x 4,096 + 1,024 B).
allocated_want=$((65536 * 1400 + 128 * 65536 + 800 * 1024 + 24 * 1024 * 32 + 1264 * 4096 + 1024))
bound=$((1024 * (800 + 24 * 32)))
slack=$((1024 * 1024))

rss() { awk '/^VmRSS:/ {print $2 * 1024}' "/proc/$1/status"; }
vsz() { awk '/^VmSize:/ {print $2 * 1024}' "/proc/$1/status"; }
status_field() { # status_field PORT NAME
    RATELIMITLY_ADMIN_SECRET=$secret "$bin" admin --server "127.0.0.1:$1" --timeout 5000 --json status |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["fields"][sys.argv[1]])' "$2"
}

start_serve run --tenant "$key" --admin-secret "$secret"
pid=$srv_pid
port=$(server_port run 0)
id=$(server_id run 0)
check "allocated before the flood is the dedup cache and the key's estimate" \
    [ "$(status_field "$port" rl_memory_allocated_bytes)" = "$allocated_want" ]
rss0=$(rss "$pid")
vsz0=$(vsz "$pid")
out=$("$flood" --reports 500000 --trackers 1024 --ttl 600000 --max-samples 65536 --buffer 32 \
    --min-samples 65536 "$key" "$id@127.0.0.1:$port")
check "the flood sent 500,000 reports" [ "$out" = "sent 31250 datagrams, 500000 reports" ]
# Wait until the server has read what reached it (latency_reports_total stops moving).
last=-1
for _ in $(seq 1 100); do
    now=$(status_field "$port" latency_reports_total)
    [ "$now" = "$last" ] && break
    last=$now
    sleep 0.2
done
rss1=$(rss "$pid")
vsz1=$(vsz "$pid")
echo "latency reports applied: $last; RSS $rss0 -> $rss1 bytes (bound $bound + $slack); virtual $vsz0 -> $vsz1"
check "reports were applied" [ "$last" -gt 100000 ]
check "RSS grew by at most the tracker bound" [ $((rss1 - rss0)) -le $((bound + slack)) ]
check "the virtual size grew by at most the tracker bound" [ $((vsz1 - vsz0)) -le $((bound + 4 * slack)) ]
check "allocated did not move: the bound was reserved at admission" \
    [ "$(status_field "$port" rl_memory_allocated_bytes)" = "$allocated_want" ]
stop_serve run

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
