# SPDX-License-Identifier: MIT
# serve_lib.sh - shared by the loopback test scripts of rl-testbed serve.
# Source it after setting $bin (the rl-testbed binary) and $tmp (a scratch
# directory). Provides check, start_serve, server_port, server_id,
# stop_serve and the counters checks / failures. Every serve started here is
# stopped by the EXIT trap (by its process id).
checks=0
failures=0
serve_pids=""

check() { # check NAME COMMAND...: COMMAND must succeed
    name=$1
    shift
    checks=$((checks + 1))
    if "$@"; then
        echo "ok   $name"
    else
        failures=$((failures + 1))
        echo "FAIL $name"
        echo "    | $*"
    fi
}

# start_serve NAME ARGS...: run `rl-testbed serve ARGS` in the background
# (stdout in $tmp/NAME.out) and wait until it prints "serve: ready". The wait
# is a hang guard (a minute), never a measurement: a loaded host may take
# seconds to start a process.
start_serve() {
    name=$1
    shift
    "$bin" serve "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    srv_pid=$!
    serve_pids="$serve_pids $srv_pid"
    for _ in $(seq 1200); do
        grep -q '^serve: ready' "$tmp/$name.out" 2>/dev/null && return 0
        kill -0 "$srv_pid" 2>/dev/null || break
        sleep 0.05
    done
    echo "FAIL $name: serve did not get ready"
    sed 's/^/    | /' "$tmp/$name.out" "$tmp/$name.err"
    exit 1
}

server_port() { sed -n "s/^server $2: server_id [0-9]* port \([0-9]*\) .*/\1/p" "$tmp/$1.out"; }
dedup_capacity() { sed -n "s/^server $2: .* dedup_capacity \([0-9]*\) .*/\1/p" "$tmp/$1.out"; }
server_id() { sed -n "s/^server $2: server_id \([0-9]*\) port .*/\1/p" "$tmp/$1.out"; }

# wait_line NAME TEXT: wait (a hang guard of 30 s) until $tmp/NAME.out has a
# line containing TEXT.
wait_line() {
    for _ in $(seq 600); do
        grep -qF -- "$2" "$tmp/$1.out" && return 0
        sleep 0.05
    done
    return 1
}

# stop_serve NAME: SIGTERM; the exit status must be 0 and the summary printed.
stop_serve() {
    kill -TERM "$srv_pid"
    wait "$srv_pid"
    rc=$?
    serve_pids=$(echo "$serve_pids" | sed "s/ $srv_pid\b//")
    check "$1: SIGTERM exits 0" [ "$rc" -eq 0 ]
    check "$1: summary printed" grep -q '^serve: stopped (SIGTERM) after' "$tmp/$1.out"
}

cleanup_serve() {
    for p in $serve_pids; do
        kill -TERM "$p" 2>/dev/null || true
    done
}

summary_line() { grep '^total: ' "$tmp/$1.out"; }

# count_log FILE FILTER: number of log lines matching a python expression on `e`.
count_log() {
    python3 - "$1" "$2" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if eval(sys.argv[2], {}, {"e": e}):
        n += 1
print(n)
PY
}

# start_dnsmasq CONF: dnsmasq on a free loopback port answering only from the
# conf file CONF (serve --dnsmasq output); sets dport and dns_pid ("" when it
# could not start). The caller stops it (kill "$dns_pid").
start_dnsmasq() {
    for _ in $(seq 20); do
        dport=$((20000 + RANDOM % 20000))
        dnsmasq --keep-in-foreground --no-resolv --no-hosts --no-poll --conf-file="$1" \
            --listen-address=127.0.0.1 --bind-interfaces --port="$dport" --pid-file= --user="$(id -un)" \
            --log-facility=- 2>"$tmp/dnsmasq.err" &
        dns_pid=$!
        sleep 0.3
        kill -0 "$dns_pid" 2>/dev/null && return 0
        dns_pid=""
    done
    return 1
}

# send_garbage PORT SEED N MAXLEN: N random datagrams (0..MAXLEN bytes) to
# 127.0.0.1 and ::1 at PORT; every other one starts with a valid tenant TLV
# header so it gets past the first check, every fifth is cut below the
# smallest request (44 bytes).
send_garbage() {
    python3 - "$@" <<'PY'
import random, socket, sys
port, seed, count, maxlen = (int(a) for a in sys.argv[1:5])
rng = random.Random(seed)
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(count):
    n = rng.randrange(0, maxlen + 1)
    d = bytearray(rng.getrandbits(8) for _ in range(n))
    if i % 2 and n >= 4:
        d[0:4] = b"\x52\x4c\x28\x00"   # tenant TLV type 0x4C52, tlv_size 40
    if i % 5 == 0:
        d = d[: rng.randrange(0, 45)]
    sock, dst = (s4, ("127.0.0.1", port)) if i % 3 else (s6, ("::1", port))
    sock.sendto(bytes(d), dst)
PY
}
