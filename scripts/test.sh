#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The test command (README; .ci/run runs it). Every quality gate, in order:
#   1. gcc build with -Wall -Wextra -Werror; every test (ctest); the conformance
#      gate (vectors, HA decision cases, simulator traces); the interop matrix
#      (the project's runtime over real loopback UDP: every playable case in
#      auth none/cookie/aes over IPv4 and IPv6, the families side by side,
#      docs/interop.md)
#   2. clang build with -Werror; every test
#   3. Release builds (-O3 -DNDEBUG) with gcc and clang, -Werror; every test
#      (optimisation enables warnings the other builds do not see)
#   4. clang ASan+UBSan build; every test, including the fuzz-corpus replay
#   5. every fuzz harness builds and starts under libFuzzer, AFL++ and the
#      ClusterFuzzLite build; crash triage of planted crashes (scripts/fuzz-smoke.sh)
#   6. valgrind memcheck over every unit-test executable (gcc build)
#   7. coverage gate on core/: lines >= 90 %, branches >= 75 % (gcovr)
#   8. mutation gate: the CI share of mutation/mutants.toml must be killed
#      (scripts/mutation.py; the full list: scripts/mutation.py --all)
#   9. the Debian package: built with CPack, installed with apt, run from an empty
#      directory (conformance, dialect, sim, serve + check), removed (scripts/check-deb.sh)
#  10. docs/sweep.md's Slurm array job on a real single-node Slurm, merged, equal to one
#      process byte for byte (scripts/check-slurm.sh; run right after stage 1)
# Stage 1 also checks the spec traceability matrix (scripts/traceability.py) and the SPDX
# license identifier of every source (scripts/spdx.py).
# usage: scripts/test.sh [--quick]   (--quick: stage 1 only)
# Installs missing system packages first. Exit status 0 only when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
--quick) quick=1 ;;
"") ;;
*) echo "usage: scripts/test.sh [--quick]" >&2; exit 2 ;;
esac

bash scripts/install-deps.sh || exit 1
passed=0
failed=0
failed_names=""
stage() {
    local name="$1"
    shift
    local t0=$SECONDS
    echo
    echo "==== $name"
    if "$@"; then
        passed=$((passed + 1))
        echo "==== $name: passed ($((SECONDS - t0)) s)"
    else
        failed=$((failed + 1))
        failed_names="$failed_names $name"
        echo "==== $name: FAILED ($((SECONDS - t0)) s)"
    fi
}
build_and_test() {
    local preset="$1"
    cmake --preset "$preset" >/dev/null && cmake --build --preset "$preset" && ctest --preset "$preset"
}
gcc_stage() {
    python3 scripts/traceability.py && python3 scripts/spdx.py --check &&
        build_and_test default && ./build/default/tools/rl-testbed/rl-testbed conformance --quiet &&
        interop_matrix
}
# The interop matrix, IPv4 and IPv6 side by side: two testbeds with their own
# servers on their own ephemeral ports and their own drivers share nothing; a
# run mostly waits on timers (U = 100 ms), so two at once halve the wall time.
interop_matrix() {
    local out4 out6 s4 s6
    out4="$(mktemp)" out6="$(mktemp)"
    ./build/default/tools/rl-testbed/rl-testbed interop --quiet --family 4 >"$out4" 2>&1 &
    local pid4=$!
    ./build/default/tools/rl-testbed/rl-testbed interop --quiet --family 6 >"$out6" 2>&1
    s6=$?
    wait "$pid4"
    s4=$?
    cat "$out4" "$out6"
    rm -f "$out4" "$out6"
    [ "$s4" -eq 0 ] && [ "$s6" -eq 0 ]
}

release_stage() {
    build_and_test release && build_and_test release-clang
}

stage gcc-werror-tests-conformance gcc_stage
if [ "$quick" -eq 0 ]; then
    # docs/sweep.md's Slurm array job on a single-node Slurm on loopback (issue 26).
    stage slurm-sweep bash scripts/check-slurm.sh build/default/tools/rl-testbed/rl-testbed
    stage clang-werror-tests build_and_test clang
    stage release-gcc-clang-tests release_stage
    stage asan-ubsan-tests build_and_test asan
    stage fuzz-engines bash scripts/fuzz-smoke.sh
    stage valgrind bash scripts/valgrind.sh build/default
    stage coverage-gate bash scripts/coverage.sh --gate --out build/coverage-report
    stage mutation-gate python3 scripts/mutation.py
    # The .deb built, installed with apt, run from an empty directory, removed (issue 26).
    stage debian-package bash scripts/check-deb.sh
fi
echo
[ -n "$failed_names" ] && echo "failed stages:$failed_names"
echo "ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
