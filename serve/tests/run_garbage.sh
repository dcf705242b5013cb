#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `rl-testbed serve` fed random, oversized and truncated datagrams keeps
# serving: afterwards a valid request still gets its answer, the process is
# alive, and the log names why each bad datagram was dropped.
# usage: run_garbage.sh RL_TESTBED SERVE_HOST
set -u
bin=$1
host=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
trap 'cleanup_serve; rm -rf "$tmp"' EXIT

aes_key=rl-aes1q8ksxqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhcpg9uk4
start_serve garbage --tenant "$aes_key" --log "$tmp/garbage.log"
port=$(server_port garbage 0)
id=$(server_id garbage 0)

# 2000 random datagrams (0..1500 bytes, serve_lib.sh send_garbage) over both
# families, then one of 1500 bytes.
send_garbage "$port" 7 2000 1500
python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"\0" * 1500, ("127.0.0.1", '"$port"'))'
# Every proper prefix of the host's real request, then the request itself.
out=$("$host" --truncations "$aes_key" "$id@127.0.0.1:$port")
check "after garbage and truncations a valid request is allowed" [ "$out" = "allowed by server $id" ]
check "serve is still running" kill -0 "$srv_pid"
check "oversized datagram named" [ "$(count_log "$tmp/garbage.log" "e.get('reason')=='datagram: length 1500, max 1200'")" -ge 1 ]
check "a 30-byte prefix named" [ "$(count_log "$tmp/garbage.log" "e['len']==30 and e.get('reason')=='datagram: length 30, min 44 (tenant TLV 40 + auth TLV header 4)'")" -ge 1 ]
check "every dropped datagram has a reason" [ "$(count_log "$tmp/garbage.log" "e['dir']=='in' and e['verdict'].startswith('drop_') and not e.get('reason')")" = 0 ]
stop_serve garbage
check "answered once" grep -q '^total: received [0-9]*, answered 1, ' "$tmp/garbage.out"

echo "serve garbage: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
