#!/usr/bin/env bash
# Runs every cmocka unit-test executable (core and simulator) under valgrind
# memcheck; any error or definite/indirect leak fails the run.
# usage: scripts/valgrind.sh [BUILD_DIR]   (default build/default, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
passed=0
failed=0
for t in "$build"/core/tests/test_* "$build"/core/tests/runtime/test_* "$build"/sim/sim_test_*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    log="$(mktemp)"
    if valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --show-leak-kinds=definite,indirect "$t" >"$log" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "valgrind: FAIL $t"
        grep -E '==[0-9]+==' "$log" | head -40 || true
    fi
    rm -f "$log"
done
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
