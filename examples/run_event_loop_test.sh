#!/usr/bin/env bash
# End-to-end check of examples/event_loop over real loopback UDP sockets
# against examples/toy_rserver.py. usage: run_event_loop_test.sh EVENT_LOOP_BINARY
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
key="rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys"   # outside vector: key_id 72623859790382856, default quotas
sid=264543142129721                          # 2026-01-01T00:00:00Z, listener 7, node 12345
fifo="$(mktemp -u)"; mkfifo "$fifo"
python3 "$here/toy_rserver.py" --server-id "$sid" --max 5 >"$fifo" &
srv=$!
trap 'kill $srv 2>/dev/null || true; rm -f "$fifo"' EXIT
read -r port <"$fifo"
out="$("$bin" "$key" "$sid@127.0.0.1:$port")"
echo "$out"
[ "$out" = "allowed by server $sid" ] || { echo "FAIL: unexpected output"; exit 1; }
# A silent server: the request must time out after the default 60 ms horizon.
out="$("$bin" "$key" "5@127.0.0.1:9" || true)"
echo "$out"
[ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ] || { echo "FAIL: expected a timeout"; exit 1; }
echo "event_loop example: 2 passed, 0 failed"
