#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every cmocka unit-test executable (core, simulator, serve, vector and
# case runner engines, interop engine) under valgrind memcheck; any error or definite/indirect
# leak fails the run.
# usage: scripts/valgrind.sh [BUILD_DIR]   (default build/default, already built)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/default}"
# The oracle property tests run 200 seeds per configuration in ctest; under
# valgrind 20 seeds check the same code paths for memory errors.
export SIM_PROPERTY_SEEDS="${SIM_PROPERTY_SEEDS:-20}"
passed=0
failed=0
for t in "$build"/core/tests/test_* "$build"/core/tests/runtime/test_* "$build"/sim/sim_test_* \
    "$build"/serve/tests/serve_test_* "$build"/vectors/runner/tests/test_* \
    "$build"/conformance/runner/tests/test_* "$build"/conformance/interop/test_*; do
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
