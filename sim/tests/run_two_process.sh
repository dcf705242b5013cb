#!/bin/sh
# SPDX-License-Identifier: MIT
# run_two_process.sh RL_TESTBED TRACE... - run the traces in two separate
# processes (same arguments, default seeds) and require stdout and --json to
# be byte-identical: the output depends only on the traces and seeds, never on
# wall time, addresses or the process (docs/traces.md "Running traces").
bin=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for run in 1 2; do
    "$bin" sim "$@" --json "$tmp/run$run.json" --events "$tmp/run$run.events" >"$tmp/run$run.out" 2>"$tmp/run$run.err"
    echo "run $run: exit status $?"
done
status=0
for f in out json events; do
    if [ ! -s "$tmp/run1.$f" ]; then
        echo "FAIL: run 1 wrote no $f"
        status=1
    elif cmp -s "$tmp/run1.$f" "$tmp/run2.$f"; then
        echo "ok   $f byte-identical ($(wc -c <"$tmp/run1.$f") bytes)"
    else
        echo "FAIL: $f differs between the two processes"
        diff "$tmp/run1.$f" "$tmp/run2.$f" | head -20
        status=1
    fi
done
exit $status
