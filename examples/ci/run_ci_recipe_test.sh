#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_ci_recipe_test.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# The client CI recipes (examples/ci/README.md; project): client-conformance.sh,
# run as the recipes run it, with the C reference adapter as the client, passes
# the default gate and writes a well-formed JUnit file carrying the testbed's
# build info; a broken adapter fails the job; both YAML files run the script
# and publish rl-conformance/junit.xml.
set -u
bin=$1
adapter=$2
src=$(cd "$3" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
checks=0
failures=0
ok() { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -15; }
script=$src/examples/ci/client-conformance.sh

(cd "$tmp" && RL_ADAPTER="$adapter" RL_TESTBED="$bin" bash "$script") >"$tmp/out" 2>&1
rc=$?
last=$(tail -n 1 "$tmp/rl-conformance/conformance.txt" 2>/dev/null)
case "$last" in "conformance: "*" passed, 0 failed") good=1 ;; *) good=0 ;; esac
if [ "$rc" -eq 0 ] && [ "$good" -eq 1 ]; then ok "C adapter through client-conformance.sh: $last"; else
    fail "C adapter through client-conformance.sh (exit $rc): $last"; fi
if python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/rl-conformance/junit.xml" 2>/dev/null &&
    grep -q '<property name="suite_data_version" value="' "$tmp/rl-conformance/junit.xml"; then
    ok "rl-conformance/junit.xml: well-formed, with the suite-data version"; else fail "rl-conformance/junit.xml"; fi
for f in results.json version.txt; do
    if [ -s "$tmp/rl-conformance/$f" ]; then ok "rl-conformance/$f written"; else fail "rl-conformance/$f missing"; fi
done
# A client that fails a spec test fails the job (the Python template speaking the guard_le
# variant: a guard passes at current == threshold).
(cd "$tmp" && RL_ADAPTER="env RL_ADAPTER_DIALECT=guard_le python3 $src/conformance/adapters/python/rl_adapter.py" \
    RL_TESTBED="$bin" RL_OUT=bad bash "$script") >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then ok "a client off the spec fails the job (exit 1)"; else fail "a client off the spec: exit $rc, want 1"; fi
(cd "$tmp" && env -u RL_ADAPTER RL_TESTBED="$bin" bash "$script") >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -ne 0 ] && grep -q "set RL_ADAPTER" "$tmp/out"; then ok "no RL_ADAPTER: refused, named"; else fail "no RL_ADAPTER (exit $rc)"; fi
for y in github-actions.yml gitlab-ci.yml; do
    if grep -q "bash ci/client-conformance.sh" "$src/examples/ci/$y" && grep -q "rl-conformance/junit.xml" "$src/examples/ci/$y"; then
        ok "$y runs client-conformance.sh and publishes rl-conformance/junit.xml"; else fail "$y"; fi
    if python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$src/examples/ci/$y" 2>"$tmp/out"; then
        ok "$y parses as YAML"; else
        if grep -q "No module named 'yaml'" "$tmp/out"; then ok "$y: (python3-yaml absent, not parsed)"; else fail "$y is not YAML"; fi
    fi
done
echo "run_ci_recipe_test: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
