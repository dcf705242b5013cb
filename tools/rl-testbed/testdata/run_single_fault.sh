#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_single_fault.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# One fault per test (issue "verdicts other clients can trust"): a deliberately
# broken copy of the C reference adapter (adapters/broken_adapter.py in front of
# it) that ignores one field rule of a response fails exactly the tests of that
# rule, nothing else and nothing less:
#   steering2  steering_feedback 2 accepted (wire_protocol.md "Tenant Header"):
#              the three single-fault vectors (none, cookie, aes), the split HA
#              case in every mode (the runner alters the tenant header before
#              sealing, so under AES the tag holds and the value alone is
#              judged), and the integration cases that chain it;
#   tenant44   a self-consistent 44-byte tenant TLV accepted: the three
#              single-fault vectors; no HA case has this variant;
#   none_ok    a response authenticated with none accepted under a cookie or
#              AES key: the two vectors and the auth_none case per mode.
# The failing tcIds are checked to be the vectors whose comment names the rule,
# so a regenerated file that moves them is a clear failure, not a silent pass.
set -u
. "$(dirname "$0")/adapter_lib.sh"
broken="/usr/bin/python3 $src/tools/rl-testbed/testdata/adapters/broken_adapter.py"

# failing: the failing vector tests (file#tcId) and cases (file[mode]) of the last --quiet run, sorted.
failing() {
    awk '/^(vectors|conformance)\// { cur = $1; seen = 0; next }
         /^  / && / FAIL / && cur != "" {
             if (cur ~ /^vectors\//) print cur "#" $1; else if (!seen) { print cur; seen = 1 } }' "$tmp/out" | sort
}

# exactly NAME RULE WANT: the broken copy for RULE fails exactly the lines of WANT.
exactly() {
    checks=$((checks + 1))
    "$bin" conformance --quiet --client "$broken $2 $cadapter" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    failing >"$tmp/got"
    printf '%s\n' $3 | sort >"$tmp/want"
    if [ "$rc" -ne 1 ]; then
        fail "$1: exit status $rc, want 1"
    elif ! cmp -s "$tmp/got" "$tmp/want"; then
        fail "$1: failing tests differ (want, got):"
        diff "$tmp/want" "$tmp/got" | sed 's/^/    /'
    else
        echo "ok   $1"
    fi
}

exactly "steering_feedback 2 accepted: exactly its single-fault tests" steering2 "
vectors/rate_response.json#149 vectors/rate_response.json#167 vectors/rate_response.json#185
conformance/cases/rule2_malformed_steering_value_ignored.json[none]
conformance/cases/rule2_malformed_steering_value_ignored.json[cookie]
conformance/cases/rule2_malformed_steering_value_ignored.json[aes]
conformance/cases/rule2_malformed_steering_value_ignored_aes.json
conformance/cases/integration_rule2_malformed_datagrams_ignored.json[none]
conformance/cases/integration_rule2_malformed_datagrams_ignored.json[cookie]
conformance/cases/integration_rule2_malformed_datagrams_ignored.json[aes]
conformance/cases/integration_rule2_malformed_datagrams_ignored_aes.json"
exactly "44-byte tenant TLV accepted: exactly its single-fault tests" tenant44 "
vectors/rate_response.json#162 vectors/rate_response.json#180 vectors/rate_response.json#198"
# A response authenticated with none taken under a cookie or AES key: the two vectors and the
# auth_none case per mode, each a wrong acceptance, so each keeps its severity: security
# (ADAPTER.md "Norms and severities").
exactly "auth none accepted under a cookie or AES key: exactly its tests" none_ok "
vectors/rate_response.json#67 vectors/rate_response.json#109
conformance/cases/rule2_auth_none_ignored_cookie.json conformance/cases/rule2_auth_none_ignored_aes.json"
last_line "auth none accepted: every failure security" \
    "conformance: 1205 passed, 4 failed; failed by severity: security 4, decision 0, interop 0, convention 0"
checks=$((checks + 1))
if grep -q "^  67 .*\[test: cookie: none auth TLV for a cookie key\]" "$tmp/out" &&
    grep -q "^  109 .*\[test: aes: none auth TLV for an aes key\]" "$tmp/out"; then
    echo "ok   auth none accepted: the vectors are the none-auth ones"
else
    fail "auth none accepted: the vectors are the none-auth ones"
fi

# Those tcIds are the single-fault vectors of the rule, one per mode.
checks=$((checks + 1))
if python3 - vectors/rate_response.json >"$tmp/out" 2>"$tmp/err" <<'PY'
import json, sys
tests = {t["tcId"]: t for t in json.load(open(sys.argv[1]))["tests"]}
want = {"steering_feedback 2 (": [149, 167, 185], "a 44-byte tenant TLV": [162, 180, 198]}
for text, ids in want.items():
    found = sorted(i for i, t in tests.items() if text in t["comment"] and "SingleFault" in t["flags"])
    if found != ids:
        sys.exit(f"vectors whose comment has {text!r}: {found}, the script expects {ids}")
    modes = [tests[i]["comment"].split(":")[0] for i in ids]
    if modes != ["none", "cookie", "aes"] or any(tests[i]["expected"] != {"error": "malformed"} for i in ids):
        sys.exit(f"{ids}: not one malformed vector per mode")
PY
then
    echo "ok   the tcIds are the rule's single-fault vectors"
else
    fail "the tcIds are the rule's single-fault vectors"
fi

# The reference adapter itself passes every one of them (run_adapter.sh checks the whole set).
expect "reference C adapter: no failure" 0 out "conformance:" -- conformance --quiet --client "$cadapter"

echo "single-fault tests: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
