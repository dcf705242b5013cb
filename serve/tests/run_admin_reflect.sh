#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A captured administrative query, resent from another address, is not
# answered (issue 20 item 7; project rule, docs/serve.md "Administrative
# channel": a query is answered once). A relay between `rl-testbed admin`
# and serve keeps a copy of each query; after the real answer, the copy is
# sent three times from a fresh socket: no reply comes, and the log says
# drop_admin with the reason. Bytes in and out are printed (before the fix:
# 80 bytes in, the three copies answered with 1560 bytes).
# usage: run_admin_reflect.sh RL_TESTBED
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
relay_pid=""
trap 'cleanup_serve; [ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

secret=rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusq7akkmu
key=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
start_serve reflect --admin-secret "$secret" --tenant "$key" --listen 127.0.0.1 --log "$tmp/reflect.log"
port=$(server_port reflect 0)

# A relay on a free port (written to relay.port): forwards one query to serve
# and its answer back, and keeps the query's bytes in query.bin.
python3 - "$port" "$tmp/relay.port" "$tmp/query.bin" <<'PY' &
import socket, sys
serve_port, port_file, capture = int(sys.argv[1]), sys.argv[2], sys.argv[3]
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind(("127.0.0.1", 0))
back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
back.settimeout(30)
import os
open(port_file + ".tmp", "w").write(str(front.getsockname()[1]))
os.rename(port_file + ".tmp", port_file)
front.settimeout(60)
query, client = front.recvfrom(2048)
open(capture, "wb").write(query)
back.sendto(query, ("127.0.0.1", serve_port))
answer, _ = back.recvfrom(2048)
front.sendto(answer, client)
PY
relay_pid=$!
for _ in $(seq 200); do [ -s "$tmp/relay.port" ] && break; sleep 0.05; done
rport=$(cat "$tmp/relay.port")

"$bin" admin --server "127.0.0.1:$rport" --secret "$secret" --json status >"$tmp/status.json"
check "status through the relay: answered" grep -q '"ok":true' "$tmp/status.json"
wait "$relay_pid"
relay_pid=""

# The capture resent three times from a new socket; count what comes back.
got=$(python3 - "$port" "$tmp/query.bin" <<'PY'
import socket, sys
q = open(sys.argv[2], "rb").read()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1.0)
back = 0
for _ in range(3):
    s.sendto(q, ("127.0.0.1", int(sys.argv[1])))
    try:
        back += len(s.recvfrom(2048)[0])
    except socket.timeout:
        pass
print(len(q), back)
PY
)
echo "     status query: $(echo "$got" | cut -d' ' -f1) bytes in, three copies answered with $(echo "$got" | cut -d' ' -f2) bytes"
check "resent status query: no bytes back" [ "$(echo "$got" | cut -d' ' -f2)" = 0 ]
check "resent status query: drop_admin, a copy" [ "$(count_log "$tmp/reflect.log" "e['dir']=='in' and e.get('what')=='status_query' and e['verdict']=='drop_admin' and 'a copy of a query answered already' in e.get('reason','')")" = 3 ]
check "one status response sent" [ "$(count_log "$tmp/reflect.log" "e['dir']=='out' and e.get('what')=='status_response'")" = 1 ]
stop_serve reflect

echo "serve admin reflect: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
