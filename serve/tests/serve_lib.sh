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
# (stdout in $tmp/NAME.out) and wait until it prints "serve: ready".
start_serve() {
    name=$1
    shift
    "$bin" serve "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
    srv_pid=$!
    serve_pids="$serve_pids $srv_pid"
    for _ in $(seq 200); do
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

# wait_line NAME TEXT: wait (5 s) until $tmp/NAME.out has a line containing TEXT.
wait_line() {
    for _ in $(seq 100); do
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
