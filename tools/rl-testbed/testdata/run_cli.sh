#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_cli.sh RL_TESTBED TESTDATA_DIR
#
# The command line of rl-testbed: help and usage errors (exit 2, usage on
# stderr), passing files (exit 0), --quiet, default file discovery, and
# --junit (well-formed XML, escaped failure messages, named on stderr).
set -u
bin=$1
dir=$(cd "$2" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

expect "--help" 0 out "usage: rl-testbed <command>" -- --help
expect "vectors --help" 0 out "usage: rl-testbed vectors [FILE...] [--client CMD [--timeout MS]] [--junit FILE] [--json FILE]" -- vectors --help
expect "no command" 2 err "usage: rl-testbed <command>" --
expect "unknown command" 2 err "rl-testbed: unknown command 'frobnicate'" -- frobnicate
expect "unknown command shows usage" 2 err "usage: rl-testbed <command>" -- frobnicate
expect "unknown top-level option" 2 err "rl-testbed: unknown option '--frobnicate'" -- --frobnicate
expect "unknown vectors option" 2 err "rl-testbed: unknown option '--frobnicate'" -- vectors --frobnicate
expect "unknown vectors option shows usage" 2 err "usage: rl-testbed vectors" -- vectors --frobnicate
expect "--junit without FILE" 2 err "rl-testbed: missing FILE after '--junit'" -- vectors --junit

checks=$((checks + 1))
if [ -s "$tmp/out" ]; then fail "usage error writes nothing to stdout"; else echo "ok   usage error writes nothing to stdout"; fi

expect "passing files" 0 out "  2        invalid  PASS" -- vectors "$dir/good/ids.json" "$dir/good/server_id.json" \
    "$dir/good/srv_target.json"
last_line "passing files: closing line" "vectors: 6 passed, 0 failed"

expect "--quiet" 0 out "vectors: 6 passed, 0 failed" -- vectors --quiet "$dir/good/ids.json" "$dir/good/server_id.json" \
    "$dir/good/srv_target.json"
checks=$((checks + 1))
if [ "$(wc -l <"$tmp/out")" -ne 1 ]; then fail "--quiet prints only the closing line"; else echo "ok   --quiet prints only the closing line"; fi

expect "one failing file fails the run" 1 out "tests[0].expected.id_hex: want 00cf" -- vectors "$dir/good/ids.json" \
    "$dir/bad/expected_wrong_value.json"
last_line "one failing file: closing line" \
    "vectors: 2 passed, 1 failed; failed by severity: security 0, decision 0, interop 1, convention 0"

expect "-- ends options" 1 out "(file): unable to open" -- vectors -- --quiet
last_line "-- ends options: closing line" "vectors: 0 passed, 1 failed"

# Default discovery: ./vectors/*.json then ../shared/external/*.json, each sorted.
mkdir -p "$tmp/tree/vectors" "$tmp/shared/external"
cp "$dir/good/srv_target.json" "$tmp/tree/vectors/b.json"
cp "$dir/good/ids.json" "$tmp/tree/vectors/a.json"
cp "$dir/good/server_id.json" "$tmp/shared/external/c.json"
checks=$((checks + 1))
(cd "$tmp/tree" && "$bin" vectors >"$tmp/out" 2>"$tmp/err")
order=$(grep -E '^[^ ].*\.json \[' "$tmp/out" | cut -d' ' -f1 | tr '\n' ' ')
if [ "$order" != "vectors/a.json vectors/b.json ../shared/external/c.json " ]; then
    fail "default discovery order: got '$order'"
else
    echo "ok   default discovery order"
fi
last_line "default discovery: closing line" "vectors: 6 passed, 0 failed"
rm "$tmp/tree/vectors/a.json" "$tmp/tree/vectors/b.json"
checks=$((checks + 1))
(cd "$tmp/tree" && "$bin" vectors >"$tmp/out" 2>"$tmp/err")
if [ $? -ne 1 ] || ! grep -qF "vectors/*.json: (files): no file matches this pattern" "$tmp/out"; then
    fail "empty vectors/ is a failure"
else
    echo "ok   empty vectors/ is a failure"
fi

# JUnit XML.
expect "--junit names the file on stderr" 1 err "rl-testbed: JUnit XML written to $tmp/junit.xml" -- vectors \
    --junit "$tmp/junit.xml" "$dir/good/srv_target.json" "$dir/bad/control_char_field.json" "$dir/bad/not_json.json"
# A file that cannot run has no severity: one of the two failures counts (conformance/ADAPTER.md).
last_line "--junit: closing line still last on stdout" \
    "vectors: 2 passed, 2 failed; failed by severity: security 0, decision 0, interop 1, convention 0"
# Names relative to the data directory (the current one here), every testcase timed.
for text in '<testsuite name="tools/rl-testbed/testdata/good/srv_target.json" tests="2" failures="0" errors="0" skipped="0" time="' \
    '<testcase classname="srv_target" name="tcId 1" time="' \
    '<testcase classname="bucket_id" name="tcId 1" time="' \
    '<failure message="tests[0].expected.a?b&lt;&amp;&gt;&quot;?: unknown field for a valid bucket_id test"/>' \
    '<testcase classname="vectors" name="envelope" time="'; do
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
expect "--junit=FILE form" 0 err "JUnit XML written to $tmp/j2.xml" -- vectors --junit="$tmp/j2.xml" \
    "$dir/good/ids.json"
expect "--junit to an unwritable path" 2 err "rl-testbed: cannot create JUnit file $tmp/no/such/dir.xml" -- \
    vectors --junit "$tmp/no/such/dir.xml" "$dir/good/ids.json"

# --opt=value is --opt value, for every command (issue 26; project).
expect "--junit=FILE" 0 err "rl-testbed: JUnit XML written to $tmp/eq.xml" -- vectors --quiet --junit="$tmp/eq.xml" \
    "$dir/good/ids.json"
expect "--min-pass=N (a gate option)" 1 out "gate: 2 passed, --min-pass wants 99" -- vectors --quiet --min-pass=99 "$dir/good/ids.json"
expect "an unknown --opt=value: one wording, the name alone" 2 err "rl-testbed: unknown option '--frob'" -- vectors --frob=1
if "$bin" --help | grep -q "^  sim "; then
    trace=$dir/../../../sim/traces/ha_healthy.json
    "$bin" sim --quiet --seed 7 "$trace" >"$tmp/s1" 2>&1
    "$bin" sim --quiet --seed=7 "$trace" >"$tmp/s2" 2>&1
    checks=$((checks + 1))
    if [ -s "$tmp/s1" ] && cmp -s "$tmp/s1" "$tmp/s2"; then echo "ok   sim --seed=7 = sim --seed 7"; else
        fail "sim --seed=7 differs from --seed 7"; fi
fi

echo "run_cli: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
