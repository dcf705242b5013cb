#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Coverage of the client core (core/src/, core/include/) by every CTest test:
# unit tests, vectors, the conformance gate and the example.
#
# usage: scripts/coverage.sh [--gate] [--no-build] [--out DIR]
#   Writes DIR/index.html (with one page per source file) and DIR/summary.json
#   (gcovr JSON summary: totals and per file); DIR defaults to reports/coverage
#   (the committed report).
#   --gate      exit 1 when line coverage < 90 % or branch coverage < 75 %
#   --no-build  reuse build/coverage as it is (tests are still rerun)
#
# Uses the `coverage` CMake preset (gcc --coverage -O0). Counters are reset
# before the tests run, so the numbers describe this run only. A failing test
# fails the script: coverage of a broken build means nothing.
#
# Exclusions: only in the source, with gcovr's markers (GCOVR_EXCL_LINE, or a
# GCOVR_EXCL_START ... GCOVR_EXCL_STOP pair, or their LCOV_EXCL_ forms), and
# each marker must state its reason on the same line after a colon, e.g.
#     abort(); /* GCOVR_EXCL_LINE: unreachable, every enum value returns above */
# The script lists every exclusion in reports/coverage/exclusions.txt and
# fails when a marker has no reason. No command-line exclusion is used.
set -euo pipefail
cd "$(dirname "$0")/.."

LINE_MIN=90
BRANCH_MIN=75
OUT=reports/coverage
BUILD=build/coverage

gate=0
build=1
while [ $# -gt 0 ]; do
    arg="$1"
    shift
    case "$arg" in
    --gate) gate=1 ;;
    --no-build) build=0 ;;
    --out)
        [ $# -gt 0 ] || { echo "coverage.sh: --out needs a directory" >&2; exit 2; }
        OUT="$1"
        shift
        ;;
    -h | --help)
        sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *)
        echo "coverage.sh: unknown option '$arg' (try --help)" >&2
        exit 2
        ;;
    esac
done

if ! command -v gcovr >/dev/null 2>&1; then
    echo "coverage.sh: gcovr is not installed (scripts/install-deps.sh installs it)" >&2
    exit 2
fi

# Exclusion markers: each must give its reason ("MARKER: reason").
markers=$(grep -rnE '(GCOVR|LCOV)_EXCL_(LINE|START|STOP|BR_LINE|BR_START|BR_STOP)' core/src core/include || true)
unexplained=$(printf '%s\n' "$markers" | grep -vE '(GCOVR|LCOV)_EXCL_[A-Z_]+: *[^ *]' | grep -v '^$' || true)
if [ -n "$unexplained" ]; then
    echo "coverage.sh: exclusion markers without a stated reason ('MARKER: reason'):" >&2
    printf '%s\n' "$unexplained" >&2
    exit 1
fi

if [ "$build" -eq 1 ]; then
    cmake --preset coverage >/dev/null
    cmake --build --preset coverage
fi
find "$BUILD" -name '*.gcda' -delete
ctest --preset coverage --output-on-failure

rm -rf "$OUT"
mkdir -p "$OUT"
if [ -n "$markers" ]; then
    printf '%s\n' "$markers" >"$OUT/exclusions.txt"
else
    echo "none" >"$OUT/exclusions.txt"
fi
gcovr --root . --object-directory "$BUILD" \
    --filter 'core/src/' --filter 'core/include/' \
    --html-details "$OUT/index.html" --html-title "rclient core coverage" \
    --json-summary-pretty --json-summary "$OUT/summary.json" \
    --print-summary

python3 - "$OUT/summary.json" "$LINE_MIN" "$BRANCH_MIN" "$gate" <<'EOF'
import json
import sys

path, line_min, branch_min, gate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
s = json.load(open(path))
line, branch = s["line_percent"], s["branch_percent"]
print("coverage of core/: lines %.1f %% (%d of %d), branches %.1f %% (%d of %d)"
      % (line, s["line_covered"], s["line_total"], branch, s["branch_covered"], s["branch_total"]))
low = sorted((f for f in s["files"] if f["line_total"] and f["line_percent"] < line_min),
             key=lambda f: f["line_percent"])
for f in low:
    print("  below %d %% lines: %-28s lines %5.1f %%  branches %5.1f %%"
          % (line_min, f["filename"], f["line_percent"], f["branch_percent"]))
ok = line >= line_min and branch >= branch_min
print("gate (lines >= %g %%, branches >= %g %%): %s" % (line_min, branch_min, "pass" if ok else "FAIL"))
sys.exit(1 if gate and not ok else 0)
EOF
