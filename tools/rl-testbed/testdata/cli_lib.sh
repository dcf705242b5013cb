# SPDX-License-Identifier: MIT
# cli_lib.sh - shared by the command-line test scripts (run_cli.sh,
# run_conformance_cli.sh). Source it after setting $bin (the rl-testbed
# binary) and $tmp (a scratch directory). Provides fail, expect, last_line
# and the counters checks / failures.
checks=0
failures=0

fail() {
    failures=$((failures + 1))
    echo "FAIL $1"
    sed 's/^/    | /' "$tmp/out" "$tmp/err"
}

# expect NAME STATUS STREAM TEXT -- ARGS...: run, then check the exit status
# and that TEXT appears in STREAM (out or err).
expect() {
    name=$1 status=$2 stream=$3 text=$4
    shift 5
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$status" ]; then
        fail "$name: exit status $rc, want $status"
    elif ! grep -qF -- "$text" "$tmp/$stream"; then
        fail "$name: $stream lacks: $text"
    else
        echo "ok   $name"
    fi
}

# last_line NAME TEXT: the last line of the previous run's stdout is TEXT.
last_line() {
    checks=$((checks + 1))
    last=$(tail -n 1 "$tmp/out")
    if [ "$last" != "$2" ]; then
        fail "$1: last line '$last', want '$2'"
    else
        echo "ok   $1"
    fi
}

# expect_rejected NAME WANT CLOSING -- ARGS...: run on a bad input; it must not
# crash or trip a sanitizer, must exit 1, name WANT on stdout and end with the
# line CLOSING (before any "; failed by severity: ..." of a case that ran).
expect_rejected() {
    name=$1 want=$2 closing=$3
    shift 4
    checks=$((checks + 1))
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    last=$(tail -n 1 "$tmp/out")
    last=${last%%; failed by severity: *}
    problem=""
    if [ "$rc" -ge 128 ]; then
        problem="crashed (exit status $rc)"
    elif grep -q -e 'Sanitizer' -e 'runtime error' "$tmp/err"; then
        problem="sanitizer report"
    elif [ "$rc" -ne 1 ]; then
        problem="exit status $rc, want 1"
    elif ! grep -qF -- "$want" "$tmp/out"; then
        problem="output lacks: $want"
    elif [ "$last" != "$closing" ]; then
        problem="last line '$last', want '$closing'"
    fi
    if [ -n "$problem" ]; then
        failures=$((failures + 1))
        echo "FAIL $name: $problem"
        sed 's/^/    | /' "$tmp/out" "$tmp/err"
    else
        echo "ok   $name"
    fi
}
