#!/bin/sh
# SPDX-License-Identifier: MIT
# `rl-testbed sim TRACE --seeds A..B` (docs/explore.md "Seed search"): the
# seeds whose expectations fail are listed, each with its failed expectation,
# and counted; a trace every seed passes lists none and exits 0. project.
set -u
exe=$1
dir=$2
fail() { echo "FAIL: $*"; exit 1; }
out=$("$exe" sim "$dir/seed_search_none.json" --seeds 1..20) || fail "a passing trace exited $?"
echo "$out" | grep -qx "$dir/seed_search_none.json: 0 of 20 seeds fail" || fail "no count line: $out"
out=$("$exe" sim "$dir/seed_search_half.json" --seeds 1..40)
rc=$?
[ "$rc" -eq 1 ] || fail "a failing trace exited $rc"
listed=$(echo "$out" | grep -c "seed_search_half.json seed [0-9]*: FAIL submitted <= 50: got ")
count=$(echo "$out" | sed -n "s|^$dir/seed_search_half.json: \([0-9]*\) of 40 seeds fail$|\1|p")
[ -n "$count" ] && [ "$count" -gt 0 ] && [ "$count" -lt 40 ] || fail "count '$count' not in 1..39: $out"
[ "$listed" -eq "$count" ] || fail "$listed seeds listed, $count counted"
"$exe" sim "$dir/seed_search_none.json" --seeds 5..1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "--seeds 5..1 is not a usage error"
# --explore --check TRACE: one trace under the explore observer (docs/explore.md)
out=$("$exe" sim --explore --check "$dir/seed_search_half.json" --seed 3) || fail "--check exited $?: $out"
echo "$out" | grep -q "^PASS $dir/seed_search_half.json seed 3: [1-9][0-9]* property checks held$" || fail "--check: $out"
echo "seed search: $count of 40 seeds fail, each listed; --check passes"
