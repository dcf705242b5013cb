#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input to `rl-testbed sim --explore` and `--seeds` (docs/explore.md: "2 on
# a usage error"; project: a clear, specific message, and no option silently
# ignored, since an ignored --seed would run other seeds than asked).
set -u
exe=$1
trace=$2
fail() { echo "FAIL: $*"; exit 1; }
# usage ARGS... : exit status 2, a message on stderr naming the problem, nothing on stdout
usage() {
    want=$1
    shift
    out=$("$exe" sim "$@" 2>/dev/null)
    rc=$?
    err=$("$exe" sim "$@" 2>&1 >/dev/null)
    [ "$rc" -eq 2 ] || fail "'$*' exited $rc, not 2"
    [ -z "$out" ] || fail "'$*' printed on stdout: $out"
    echo "$err" | grep -q -- "$want" || fail "'$*': no '$want' in: $err"
}
usage "got '5..1'" --explore --seeds 5..1
usage "got 'x'" --explore --seeds x
usage "got '-1..5'" --explore --seeds -1..5
usage "got '1..18446744073709551616'" --explore --seeds 1..18446744073709551616
usage "got '0'" --explore --seconds 0
usage "got '-1'" --explore --seconds -1
usage "got 'nan'" --explore --seconds nan
usage "incomplete option '--seeds'" --explore --seeds
usage "incomplete option '--out'" --explore --out
usage "takes no TRACE" --explore "$trace"
usage "--seed N goes with --explore --check" --explore --seed 5
usage "--seed N goes with --explore --check" "$trace" --seeds 1..2 --seed 5
usage "takes one TRACE and only --seed" --explore --check "$trace" --seeds 1..5
usage "takes one TRACE and only --seed" --explore --check "$trace" "$trace"
usage "takes one TRACE and only --seed" --explore --check "$trace" --first
usage "need --explore" "$trace" --seeds 1..2 --seconds 1
usage "need --explore" "$trace" --seeds 1..2 --first
usage "need --explore" "$trace" --seeds 1..2 --out .
usage "--out" --explore --seeds 1..2 --out /nonexistent-dir-of-rl-testbed/x
# --out DIR that does not exist yet is made (docs/explore.md's long run: --out /tmp/explore)
tmp=$(mktemp -d) || fail "mktemp"
"$exe" sim --explore --seeds 1..1 --quiet --out "$tmp/new" >/dev/null || fail "--out to a new directory exited $?"
[ -d "$tmp/new" ] || fail "--out did not make $tmp/new"
rmdir "$tmp/new" "$tmp"
# The closing line names the seeds that ran (docs/explore.md): the last seed
# of the uint64 range, and no wrapped range when the time limit ran none.
max=18446744073709551615
out=$("$exe" sim --explore --seeds $max..$max --quiet --no-shrink | tail -1)
echo "$out" | grep -q "^explore: seeds $max..$max, 1 worlds run" || fail "last seed of the range: $out"
out=$("$exe" sim --explore --seeds 0..5 --seconds 1e-9 --quiet | tail -1)
echo "$out" | grep -q "^explore: no seed of 0..5 run, 0 worlds run" || fail "none run: $out"
# docs/explore.md "Worlds": the coverage counts worlds per server count: 1..8, summing to the worlds run.
out=$("$exe" sim --explore --seeds 1..40 --quiet)
sum=$(echo "$out" | sed -n 's/^worlds with 1\.\.8 servers://p' | tr ' ' '\n' | awk '{s += $1} END {print s + 0}')
[ "$sum" -eq 40 ] || fail "worlds per server count sum to $sum, not 40: $out"
echo "explore CLI: every bad input a usage error (2) with its message"
