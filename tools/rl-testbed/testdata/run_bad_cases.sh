#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_bad_cases.sh RL_TESTBED TESTDATA_DIR
#
# Runs `rl-testbed conformance` on every broken or wrong HA case listed in
# bad_cases.tsv. Each run must fail cleanly: exit status 1 (not a crash: < 128,
# no sanitizer report), the named field and problem in the output, and
# "conformance: 0 passed, 1 failed" as the last line of stdout.
set -u
bin=$1
dir=$2
tab=$(printf '\t')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

while IFS="$tab" read -r file want; do
    case "$file" in '' | '#'*) continue ;; esac
    expect_rejected "$file" "$want" "conformance: 0 passed, 1 failed" -- conformance "$dir/bad_cases/$file"
done <"$dir/bad_cases.tsv"

# Every file in bad_cases/ must be listed, so none is silently left out.
for f in "$dir"/bad_cases/*.json; do
    name=$(basename "$f")
    if ! grep -q "^$name$tab" "$dir/bad_cases.tsv"; then
        failures=$((failures + 1))
        echo "FAIL $name: not listed in bad_cases.tsv"
    fi
done

echo "run_bad_cases: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
