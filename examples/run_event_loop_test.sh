#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End-to-end check of examples/event_loop over real loopback UDP sockets
# against examples/toy_rserver.py. usage: run_event_loop_test.sh EVENT_LOOP_BINARY
set -euo pipefail
bin="$1"
here="$(cd "$(dirname "$0")" && pwd)"
# A key with dedup_ttl_ms_max 2000 (key_id 4242, as in tools/rl-testbed/testdata): room for
# U = 500 ms (-u; horizon 1500 ms), far above a loaded host's scheduling delays, where the
# default U = 20 ms (horizon 60 ms) is not (project).
key="rl-none1qxfpqqqqqqqqqqzsk9p0uyhh6cm"
unit=500
sid=264543142129721                          # 2026-01-01T00:00:00Z, listener 7, node 12345
fifo="$(mktemp -u)"; mkfifo "$fifo"
python3 "$here/toy_rserver.py" --server-id "$sid" --max 5 >"$fifo" &
srv=$!
trap 'kill $srv 2>/dev/null || true; rm -f "$fifo"' EXIT
read -r port <"$fifo"
out="$("$bin" -u "$unit" "$key" "$sid@127.0.0.1:$port")"
echo "$out"
[ "$out" = "allowed by server $sid" ] || { echo "FAIL: unexpected output"; exit 1; }
# A silent server: the request must time out at the end of the horizon (3 U).
out="$("$bin" -u "$unit" "$key" "5@127.0.0.1:9" || true)"
echo "$out"
[ "$out" = "failed: RCLIENT_ERR_TIMEOUT" ] || { echo "FAIL: expected a timeout"; exit 1; }
echo "event_loop example: 2 passed, 0 failed"
