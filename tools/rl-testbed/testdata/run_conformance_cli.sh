#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_conformance_cli.sh RL_TESTBED TESTDATA_DIR CASES_DIR
#
# The `rl-testbed conformance` command line: help and usage errors (exit 2),
# file and directory arguments classified by schema, --vectors-only and
# --cases-only, default discovery, --junit, and the closing line.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(cd "$2" && pwd)
cases=$(cd "$3" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

# A case with "auth": "any" runs once per auth mode (conformance/README.md "Auth modes").
n_any=$(grep -l '"auth": "any"' "$cases"/*.json | wc -l | tr -d ' ')
n_files=$(ls "$cases"/*.json | wc -l | tr -d ' ')
n_cases=$((n_files + 2 * n_any))
good_case="$cases/rule2_wrong_auth_type_ignored_none.json"  # pinned to one mode: one run
any_case="$cases/rule4_oldest_selected_immediately.json"

expect "--help lists conformance" 0 out "conformance" -- --help
expect "conformance --help" 0 out "usage: rl-testbed conformance [CASE_OR_DIR...] [--client CMD [--timeout MS]] [--junit FILE]" -- conformance --help
expect "--help names the simulator traces" 0 out "Simulator traces (schema ratelimitly-trace/v1" -- conformance --help
expect "unknown option" 2 err "rl-testbed: unknown option '--frobnicate'" -- conformance --frobnicate
expect "unknown option shows usage" 2 err "usage: rl-testbed conformance" -- conformance --frobnicate
expect "--junit without FILE" 2 err "rl-testbed: missing FILE after '--junit'" -- conformance --junit
expect "both filters" 2 err "--vectors-only and --cases-only exclude each other" -- conformance --vectors-only --cases-only

expect "cases directory" 0 out "conformance: $n_cases passed, 0 failed" -- conformance "$cases"
last_line "cases directory: closing line" "conformance: $n_cases passed, 0 failed"
expect "a case table has check rows" 0 out "  sends        PASS" -- conformance "$good_case"
expect "area summary" 0 out "HA cases by area: datagram 1" -- conformance "$good_case"

# "auth": "any": three runs with the fixed keys, each its own table and verdict.
expect "any: one run per mode" 0 out "conformance: 3 passed, 0 failed" -- conformance "$any_case"
for mode in none cookie aes; do
    expect "any: table for $mode" 0 out "rule4_oldest_selected_immediately.json[$mode] [ha_case 9.3.3]" -- \
        conformance "$any_case"
done
expect "any: area counts runs" 0 out "HA cases by area: 9.3.3 3" -- conformance "$any_case"
sed 's/"outcome": "allowed"/"outcome": "denied"/' "$any_case" >"$tmp/any_wrong.json"
expect "any: a wrong expectation fails in every mode" 1 out "conformance: 0 passed, 3 failed" -- \
    conformance "$tmp/any_wrong.json"
expect "any: the failing mode is named" 1 out "any_wrong.json[aes] [ha_case 9.3.3]" -- conformance --quiet \
    "$tmp/any_wrong.json"
expect "a simulator trace is a case" 0 out "conformance: 1 passed, 0 failed" -- \
    conformance "$dir/../../../sim/traces/ha_healthy.json"

# A vector file and a case: 2 vector tests + 1 case.
expect "vector file and case" 0 out "conformance: 3 passed, 0 failed" -- conformance "$dir/good/ids.json" "$good_case"
expect "--vectors-only skips cases" 0 out "conformance: 2 passed, 0 failed" -- conformance --vectors-only \
    "$dir/good/ids.json" "$good_case"
expect "--vectors-only says so" 0 err "skipped 1 file(s) (--vectors-only)" -- conformance --vectors-only \
    "$dir/good/ids.json" "$good_case"
expect "--cases-only skips vectors" 0 out "conformance: 1 passed, 0 failed" -- conformance --cases-only \
    "$dir/good/ids.json" "$good_case"

echo '{"schema": "something-else/v1"}' >"$tmp/other.json"
expect "unknown schema" 1 out 'other.json: schema: expected "ratelimitly-vectors/v1", "ratelimitly-ha-case/v1" or "ratelimitly-trace/v1", got string "something-else/v1"' -- \
    conformance "$tmp/other.json"
mkdir "$tmp/empty_dir"
expect "empty directory fails" 1 out "empty_dir/*.json: (files): no file matches this pattern" -- conformance "$tmp/empty_dir"
expect "one failing case fails the run" 1 out "decision_at  FAIL   want 4 got 3" -- conformance "$good_case" \
    "$dir/bad_cases/wrong_decision_time.json"
last_line "one failing case: closing line" \
    "conformance: 1 passed, 1 failed; failed by severity: security 0, decision 0, interop 0, convention 1"

# Default discovery: vectors/, ../shared/external/, conformance/cases/ of the current directory.
mkdir -p "$tmp/tree/vectors" "$tmp/tree/conformance/cases" "$tmp/shared/external"
cp "$dir/good/ids.json" "$tmp/tree/vectors/a.json"
cp "$dir/good/server_id.json" "$tmp/shared/external/b.json"
cp "$good_case" "$tmp/tree/conformance/cases/c.json"
checks=$((checks + 1))
(cd "$tmp/tree" && "$bin" conformance >"$tmp/out" 2>"$tmp/err")
order=$(grep -E '^[^ ].*\.json \[' "$tmp/out" | cut -d' ' -f1 | tr '\n' ' ')
if [ "$order" != "vectors/a.json ../shared/external/b.json conformance/cases/c.json " ]; then
    fail "default discovery order: got '$order'"
else
    echo "ok   default discovery order"
fi
last_line "default discovery: closing line" "conformance: 5 passed, 0 failed"
rm "$tmp/tree/conformance/cases/c.json"
(cd "$tmp/tree" && "$bin" conformance >"$tmp/out" 2>"$tmp/err")
checks=$((checks + 1))
if grep -qF "conformance/cases/*.json: (files): no file matches this pattern" "$tmp/out"; then
    echo "ok   default discovery: empty conformance/cases/ is a failure"
else
    fail "default discovery: empty conformance/cases/ is a failure"
fi

# JUnit XML.
expect "--junit names the file" 1 err "rl-testbed: JUnit XML written to $tmp/junit.xml" -- conformance \
    --junit "$tmp/junit.xml" "$good_case" "$dir/bad_cases/wrong_outcome.json" "$dir/good/ids.json" "$any_case"
last_line "--junit: closing line last" \
    "conformance: 6 passed, 1 failed; failed by severity: security 0, decision 0, interop 0, convention 1"
for text in '<testsuites name="rl-testbed conformance">' \
    '<testcase classname="ha_case datagram" name="rule2_wrong_auth_type_ignored_none" time="' \
    '<testcase classname="ha_case 9.3.3" name="rule4_oldest_selected_immediately[cookie]" time="' \
    '<failure message="outcome: want denied got allowed"/>' \
    '<testcase classname="bucket_id" name="tcId 1: name_utf8" time="'; do
    checks=$((checks + 1))
    if grep -qF -- "$text" "$tmp/junit.xml"; then echo "ok   junit has $text"; else
        failures=$((failures + 1))
        echo "FAIL junit lacks $text"
        sed 's/^/    | /' "$tmp/junit.xml"
    fi
done
if command -v python3 >/dev/null 2>&1; then
    checks=$((checks + 1))
    if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/junit.xml"; then
        echo "ok   junit is well-formed XML"
    else
        failures=$((failures + 1))
        echo "FAIL junit is not well-formed XML"
    fi
fi

echo "run_conformance_cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
