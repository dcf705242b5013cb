#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_verdicts.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# Verdicts other clients can trust (conformance/ADAPTER.md "Steps", "Norms
# and severities", "Gates"): a refusal passes only a test about the step it
# was refused at; a hello that declares nothing or an unknown kind stops the
# run (exit 2); every gate flag fails the run when it is not met; a run in
# which nothing ran fails; JUnit and --json name files relative to the data
# directory. Expected lines are written from ADAPTER.md, not from a run.
set -u
. "$(dirname "$0")/adapter_lib.sh"
rej="python3 $src/tools/rl-testbed/testdata/adapters/reject_all.py"
fake="python3 $src/tools/rl-testbed/testdata/adapters/fake_adapter.py"
three="vectors/rate_request_packet.json vectors/rate_response.json vectors/latency_report_packet.json"

# has_line NAME LINE: the last run's stdout has exactly the line LINE.
has_line() {
    checks=$((checks + 1))
    if grep -qxF -- "$2" "$tmp/out"; then echo "ok   $1"; else fail "$1: no line '$2'"; fi
}

# no_row NAME STATUS: the last run's stdout has no row with STATUS.
no_row() {
    checks=$((checks + 1))
    if grep -q "^  [0-9]* *[a-z]* *$2 " "$tmp/out"; then fail "$1: a $2 row"; else echo "ok   $1"; fi
}

# --- steps: a refusal is judged at the step it names ------------------------------
# A client that refuses everything, without a stage: no test of the three packet
# kinds passes; the invalid ones are inconclusive (a refusal at the key looks the same).
expect "reject-all: the three packet kinds" 1 out \
    "  28       invalid  INCONCLUSIVE inconclusive: rejected without a stage; the test is about the response (a refusal at the key looks the same): refused [test: none: cookie auth TLV for a none key]" -- \
    vectors --client "$rej" $three
no_row "reject-all: no PASS row" PASS
# A refusal is fail-safe (ADAPTER.md "Norms and severities", project): a valid
# test refused fails as interop, never decision; a convention test stays convention.
last_line "reject-all: closing line" \
    "vectors: 0 passed, 140 failed, 194 inconclusive; failed by severity: security 0, decision 0, interop 134, convention 6"
# The same client saying it refused at the key: the tests about the response fail.
expect "refused at the key: FAIL" 1 out \
    "  28       invalid  FAIL   refused at the key; the test is about the response (refused) [test: none: cookie auth TLV for a none key]" -- \
    vectors --client "$rej at_key" vectors/rate_response.json
no_row "refused at the key: no PASS row" PASS
# ... and a client that refuses every key (it accepts none of the file's valid
# keys) shows nothing by refusing the invalid ones: inconclusive, not passed
# (project: a refusal shows a rule only where the client can accept).
expect "refused at the key: refusing every key proves nothing" 1 out \
    "inconclusive: refused, but the client passed none of the 25 valid tests of this file, so a refusal shows nothing about the rule" -- \
    vectors --client "$rej at_key" vectors/api_key.json
last_line "refused at the key: api_key closing line" \
    "vectors: 0 passed, 25 failed, 140 inconclusive; failed by severity: security 0, decision 0, interop 25, convention 0"
expect "a stage that is no step is named" 1 out \
    "adapter message 29 (vector): stage: expected \"key\", \"ids\", \"discovery\", \"request\", \"report\", \"response\", \"policy\", \"admin\" or null, got string \"parsing\"" -- \
    vectors --client "$rej bad_stage" vectors/rate_response.json
expect "a class that is no class is named, with the classes" 1 out \
    "adapter message 2 (vector): error: expected a schema error class (bech32, hrp, length, version, quota, range, malformed, auth, correlation) or null, got string \"checksum\"" -- \
    vectors --client "$rej bad_class" vectors/api_key.json
expect "a truncated oversized request is named" 1 out \
    "  40       invalid  FAIL   expected invalid, accepted (expected error \"range\"); the oversized request was truncated to a 1200-byte datagram instead of refused [test: none: 41 resources (1204 bytes)]" -- \
    vectors --client "$rej truncate" vectors/rate_request_packet.json
# A shorter datagram may be the whole request in another layout: not called truncated
# (wire_protocol.md: only a 1200-byte datagram built from a larger request was cut short).
expect "an oversized request sent shorter is not called truncated" 1 out \
    "  40       invalid  FAIL   expected invalid, accepted (expected error \"range\"); the oversized request was accepted and sent as a 1100-byte datagram (in another layout, or cut short) instead of refused [test: none: 41 resources (1204 bytes)]" -- \
    vectors --client "$rej shorter" vectors/rate_request_packet.json
expect "failures grouped by severity" 1 out \
    "    vectors/rate_response.json 28: refused at the key; the test is about the response (refused) [test: none: cookie auth TLV for a none key]" -- \
    vectors --quiet --client "$rej at_key" vectors/rate_response.json
# ... and a security test refused at the key is no security failure: the client
# took no unauthenticated response (project: a wrong refusal is interop).
has_line "refusals: interop heading" "  interop: 200"
no_heading() {
    checks=$((checks + 1))
    if grep -qE "^  $2: [0-9]+$" "$tmp/out"; then fail "$1: a '$2' heading"; else echo "ok   $1"; fi
}
no_heading "refusals: no security heading" security
no_heading "refusals: no decision heading" decision
# A client that refuses every response as "malformed" at the response step: the AES
# tag tests (where api.md's "malformed" is taken for "auth") pass no more than the
# rest, since it passed none of the file's valid tests (project: vacuous refusals).
expect "refuse-all as malformed: an AES tag test is inconclusive" 1 out \
    "  102      invalid  INCONCLUSIVE inconclusive: refused, but the client passed none of the 50 valid tests of this file, so a refusal shows nothing about the rule" -- \
    vectors --client "$rej malformed_at_response" vectors/rate_response.json
no_row "refuse-all as malformed: no PASS row" PASS
last_line "refuse-all as malformed: closing line" \
    "vectors: 0 passed, 85 failed, 125 inconclusive; failed by severity: security 0, decision 0, interop 85, convention 0"

# A report call that never sends: its {"sent": false} tests (every report over
# quota) prove nothing when it sent no datagram in any test expecting one
# (project: vacuous silences, ADAPTER.md "Steps"; the same reasoning as refusals).
expect "never sends: sending nothing for an over-quota report proves nothing" 1 out \
    "  14       valid    INCONCLUSIVE inconclusive: sent nothing, but the client sent no datagram in any of the 23 tests of this file that expect one, so not sending shows nothing about the rule" -- \
    vectors --client "$rej silent" vectors/latency_report_packet.json
no_row "never sends: no PASS row" PASS

# An HA case about the policy refused at submit: judged at the policy step too.
ttl=conformance/cases/ttl_above_key_limit_rejected.json
expect "HA submit refused at the policy" 0 out "conformance: 1 passed, 0 failed" -- \
    conformance --client "$fake ha_no_presets $cadapter" $ttl
expect "HA submit refused without a stage" 1 out \
    "  stage        INCONCLUSIVE inconclusive: submit rejected without a stage; the case is about the policy (a refusal at the key looks the same)" -- \
    conformance --client "$fake ha_submit_no_stage $cadapter" $ttl
last_line "HA submit without a stage: closing line" "conformance: 0 passed, 0 failed, 1 inconclusive"
expect "HA submit refused at the key" 1 out "  stage        FAIL   refused at the key; the case is about the policy" -- \
    conformance --client "$fake ha_submit_at_key $cadapter" $ttl
last_line "HA submit at the key: closing line, a wrong refusal is interop" \
    "conformance: 0 passed, 1 failed; failed by severity: security 0, decision 0, interop 1, convention 0"

# --- key material on the wire: severity security -----------------------------------
expect "AES key bytes in a built request" 1 out \
    "  61       valid    FAIL   key material on the wire: the datagram carries 31 bytes of the AES key at offset 1164; and: tests[60].expected.packet_hex: want ..3a3a98a8 got ..3a3a98a8585cad2fdca8e0ac424fb63d.. (first difference at byte 1164; lengths 1164/1195 bytes) [test: aes: 27 guards, no label (1164 bytes, most that fit)]" -- \
    vectors --quiet --client "$fake leak_key $cadapter" vectors/rate_request_packet.json
last_line "leaked keys counted as security" \
    "vectors: 54 passed, 40 failed; failed by severity: security 40, decision 0, interop 0, convention 0"
# One difference does not hide another (project): a leak is named first and
# the answer is still judged, so an oversized request accepted and sent short is named too.
expect "a leak and an accepted oversized request, both named" 1 out \
    "  60       invalid  FAIL   key material on the wire: the datagram carries 31 bytes of the AES key at offset 169; and: expected invalid, accepted (expected error \"range\"); the oversized request was accepted and sent as a 200-byte datagram (in another layout, or cut short) instead of refused [test: aes: 40 resources (1204 bytes)]" -- \
    vectors --quiet --client "$fake leak_oversize $cadapter" vectors/rate_request_packet.json
expect "cookie bytes outside the cookie TLV in an HA send" 1 out \
    "  secrets      FAIL   key material on the wire: adapter message 6: sends[0]: the datagram carries 31 bytes of the cookie at offset 156 outside the cookie TLV" -- \
    conformance --client "$fake ha_leak_key $cadapter" conformance/cases/rule4_oldest_selected_immediately.json
last_line "HA leaks: closing line" "conformance: 1 passed, 2 failed; failed by severity: security 2, decision 0, interop 0, convention 0"
expect "one AES nonce sealing two datagrams" 1 out \
    "  secrets      FAIL   nonce reuse: sends 1 and 2 of the case seal different datagrams under one AES nonce" -- \
    conformance --client "$fake ha_nonce_reuse $cadapter" conformance/cases/rule4_oldest_selected_immediately.json
last_line "nonce reuse: closing line" \
    "conformance: 2 passed, 1 failed; failed by severity: security 1, decision 0, interop 0, convention 0"

# --- hello that declares nothing runnable: exit 2 --------------------------------
expect "no kinds: exit 2" 2 err \
    "adapter message 1 (hello): capabilities: no vector kind and no HA cases: nothing to test" -- \
    vectors --client "$rej no_kinds" vectors/bucket_id.json
expect "misspelled kind: exit 2" 2 err \
    "adapter message 1 (hello): capabilities.vector_kinds[0]: unknown kind string \"bucketid\"" -- \
    conformance --client "$rej misspelled" vectors/bucket_id.json

# --- declarations the testbed cannot use: exit 2, the field named (project) ------------
# A misspelt mode, format, kind or feature would otherwise skip what the client does run,
# or run what it declared it cannot, silently (ADAPTER.md "What a client declares").
decl="python3 $src/tools/rl-testbed/testdata/adapters/declare.py"
expect "auth_modes: unknown mode" 2 err \
    "adapter message 1 (hello): capabilities.auth_modes[0]: unknown auth mode string \"None\" (none, cookie or aes)" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"rate_response\"],\"auth_modes\":[\"None\"]}'" vectors/bucket_id.json
expect "key_formats: unknown HRP" 2 err \
    "adapter message 1 (hello): capabilities.key_formats[1]: unknown key format string \"rl-nope\" (rl-none, rl-cookie, rl-aes or rl-secret)" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"api_key\"],\"key_formats\":[\"rl-none\",\"rl-nope\"]}'" vectors/bucket_id.json
expect "unsupported_fields: unknown kind" 2 err \
    "adapter message 1 (hello): capabilities.unsupported_fields.bucketid: unknown kind" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"bucket_id\"],\"unsupported_fields\":{\"bucketid\":[\"name_hex\"]}}'" vectors/bucket_id.json
expect "unproduced_fields: not a list of names" 2 err \
    "adapter message 1 (hello): capabilities.unproduced_fields.rate_response: expected array of strings, got string \"keep_port\"" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"rate_response\"],\"unproduced_fields\":{\"rate_response\":\"keep_port\"}}'" vectors/bucket_id.json
expect "unproduced_fields: no such output field" 2 err \
    "adapter message 1 (hello): capabilities.unproduced_fields.rate_response[0]: unknown output field string \"keep-port\" (rate_response outputs server_id, keep_port, success, resources, guards)" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"rate_response\"],\"unproduced_fields\":{\"rate_response\":[\"keep-port\"]}}'" vectors/bucket_id.json
expect "ha: a feature that is no boolean" 2 err \
    "adapter message 1 (hello): capabilities.ha.cases: expected true or false, got string \"yes\"" -- \
    conformance --client "$decl '{\"vector_kinds\":[\"bucket_id\"],\"ha\":{\"cases\":\"yes\"}}'" vectors/bucket_id.json
expect "ha.policy_shape: unknown shape" 2 err \
    "adapter message 1 (hello): capabilities.ha.policy_shape: expected \"api_md\" (absent: the r-client.md 9.3 shape), got string \"apimd\"" -- \
    conformance --client "$decl '{\"vector_kinds\":[\"bucket_id\"],\"ha\":{\"policy_shape\":\"apimd\"}}'" vectors/bucket_id.json
# Every field of a valid test's expected declared unproduced: nothing is compared, so the
# test is SKIP, never a pass (here: a client that produces nothing at all).
expect "unproduced_fields: nothing left to compare" 1 out \
    "skipped 16: unsupported: every field of expected is declared unproduced (capabilities.unproduced_fields)" -- \
    vectors --client "$decl '{\"vector_kinds\":[\"bucket_id\"],\"unproduced_fields\":{\"bucket_id\":[\"id_hex\"]}}'" vectors/bucket_id.json
last_line "unproduced_fields: nothing left: closing line" "vectors: 0 passed, 0 failed, 16 skipped"

# --- gates ------------------------------------------------------------------------
expect "--require met" 0 out "vectors: 16 passed, 0 failed" -- vectors --require bucket_id vectors/bucket_id.json
expect "--require not met" 1 out "gate: --require rate_response: no test of this kind ran" -- \
    vectors --require bucket_id,rate_response vectors/bucket_id.json
expect "--require skipped kind not met" 1 out "gate: --require tracker_id: no test of this kind ran" -- \
    vectors --require tracker_id --client "$fake only_bucket $cadapter" vectors/bucket_id.json vectors/tracker_id.json
expect "--require unknown kind" 2 err "--require: unknown kind 'bucketid' (a vector kind, ha_case or sim_trace)" -- \
    vectors --require bucketid vectors/bucket_id.json
expect "--require ha_case met" 0 out "conformance: 3 passed, 0 failed" -- \
    conformance --require ha_case conformance/cases/rule4_oldest_selected_immediately.json
# Under --client the simulator traces are not run (they drive the built-in core, not the
# client): never a skip, so --fail-on-skip can be met by a client that passes everything.
trace=$(ls sim/traces/*.json | head -n 1)
expect "--client: traces not run" 0 out "not run: 1 simulator trace: traces drive the built-in core, not a client (--client)" -- \
    conformance --fail-on-skip --client "$cadapter" conformance/cases/rule4_oldest_selected_immediately.json "$trace"
last_line "--client: traces not run: closing line" "conformance: 3 passed, 0 failed"
expect "--require sim_trace under --client" 1 out "gate: --require sim_trace: no test of this kind ran" -- \
    conformance --require sim_trace --client "$cadapter" conformance/cases/rule4_oldest_selected_immediately.json "$trace"
expect "--min-pass met" 0 out "vectors: 16 passed, 0 failed" -- vectors --min-pass 16 vectors/bucket_id.json
expect "--min-pass not met" 1 out "gate: 16 passed, --min-pass wants 17" -- vectors --min-pass 17 vectors/bucket_id.json
expect "--min-pass not a count" 2 err "--min-pass wants a count, got 'x'" -- vectors --min-pass x vectors/bucket_id.json
expect "--fail-on-skip" 1 out "gate: 14 skipped (--fail-on-skip)" -- \
    vectors --fail-on-skip --client "$fake only_bucket $cadapter" vectors/bucket_id.json vectors/tracker_id.json
expect "without --fail-on-skip" 0 out "vectors: 16 passed, 0 failed, 14 skipped" -- \
    vectors --client "$fake only_bucket $cadapter" vectors/bucket_id.json vectors/tracker_id.json
expect "nothing ran" 1 out "gate: no test ran" -- vectors --client "$fake only_bucket $cadapter" vectors/tracker_id.json
last_line "nothing ran: closing line" "vectors: 0 passed, 0 failed, 14 skipped"
expect "one line per skip reason" 1 out "skipped 14: unsupported: kind tracker_id not declared in hello" -- \
    vectors --client "$fake only_bucket $cadapter" vectors/tracker_id.json
no_row "no SKIP rows without --verbose" SKIP
expect "--verbose prints SKIP rows" 1 out "  1        valid    SKIP   unsupported: kind tracker_id not declared in hello" -- \
    vectors --verbose --client "$fake only_bucket $cadapter" vectors/tracker_id.json
expect "--norm spec leaves project tests out" 0 out "not run: 6 tests whose norm is a project choice (--norm spec)" -- \
    vectors --norm spec vectors/srv_target.json
last_line "--norm spec: closing line" "vectors: 25 passed, 0 failed"
expect "--norm other" 2 err "--norm wants spec or all, got 'must'" -- vectors --norm must vectors/srv_target.json
expect "--quiet prints failures only" 1 out "vectors: 0 passed, 210 failed" -- \
    vectors --quiet --client "$rej at_key" vectors/rate_response.json
no_row "--quiet: no PASS row" PASS

# --- declarations: every skip follows from the whole case ----------------------------
cases=conformance/cases
# The default policy (r-client.md 9.3.5) relies on P(1) = 1 U, which a client with the
# api.md policy shape (P(k) = 0 for k >= 1) does not have: skipped, never judged.
expect "no P(k): a case that relies on P(1) is skipped" 1 out \
    "skipped 3: unsupported: the case needs P(k) (capabilities.ha.preference, policy_shape): P(1) = 1 U, the api.md policy has 0 U" -- \
    conformance --client "$fake ha_no_preference $cadapter" $cases/default_phase2_fallback_at_2u.json
expect "no P(k): an api.md-shaped case runs and passes" 0 out "conformance: 3 passed, 0 failed" -- \
    conformance --client "$fake ha_no_preference $cadapter" $cases/preset_api_md_round1_completes_at_once.json
# A case whose policy is refused at submit reaches no round: it runs whatever P(k) says.
expect "no P(k): a case refused at submit runs" 0 out "conformance: 1 passed, 0 failed" -- \
    conformance --client "$fake ha_no_preference $cadapter" $cases/ttl_above_key_limit_rejected.json
expect "no P(k): no case fails" 0 out "conformance: 145 passed, 0 failed, 169 skipped" -- \
    conformance --quiet --cases-only --client "$fake ha_no_preference $cadapter" $cases
expect "profile false: the profile row is not checked" 0 out \
    "  profile      SKIP   not checked: the client reports no profile (capabilities.ha.profile false)" -- \
    conformance --verbose --client "$fake ha_no_profile $cadapter" $cases/rule4_oldest_selected_immediately.json
last_line "profile false: the cases pass" "conformance: 3 passed, 0 failed"
expect "c_api false: c_api cases skipped" 1 out \
    "skipped 3: unsupported: the case follows api.md's C API where r-client.md leaves the choice (flag c_api; capabilities.ha.c_api false)" -- \
    conformance --client "$fake ha_no_c_api $cadapter" $cases/send_failure_on_initial_send.json
expect "cancel false: cancelling cases skipped" 1 out "skipped 3: unsupported: the case cancels (capabilities.ha.cancel false)" -- \
    conformance --client "$fake ha_no_cancel $cadapter" $cases/cancel_in_final_phase.json
expect "auth_modes: other modes' runs skipped" 0 out "skipped 1: unsupported: auth mode cookie not declared (capabilities.auth_modes)" -- \
    conformance --client "$fake ha_aes_only $cadapter" $cases/rule4_oldest_selected_immediately.json
last_line "auth_modes: the aes run passes" "conformance: 1 passed, 0 failed, 2 skipped"
# Vector tests with another mode's key are skipped, valid api_key tests too (the 9 rl-none and 8
# rl-cookie keys, upper case included: the client cannot accept them); invalid keys are still
# judged in api_key.
expect "auth_modes: vector tests" 0 out "skipped 45: unsupported: auth mode none not declared (capabilities.auth_modes)" -- \
    vectors --client "$fake aes_only $cadapter" vectors/rate_request_packet.json vectors/api_key.json
last_line "auth_modes: vectors closing line" "vectors: 183 passed, 0 failed, 76 skipped"
expect "unproduced_fields: the others still compared" 0 out "vectors: 210 passed, 0 failed" -- \
    vectors --client "$fake no_keep_port $cadapter" vectors/rate_response.json
# api.md r_client_on_datagram: an AES response that fails tag verification is
# RCLIENT_ERR_PROTOCOL, so "malformed" passes a tag failure as the HA judge takes it;
# a wrong auth TLV type stays "auth" (RCLIENT_ERR_AUTH).
expect "AES tag failure refused as malformed" 0 out \
    "  102      invalid  PASS   rejected as \"malformed\": an AES tag failure is a protocol error in api.md's C API (want \"auth\")" -- \
    vectors --verbose --client "$fake tag_as_malformed $cadapter" vectors/rate_response.json
last_line "AES tag failure as malformed: closing line" "vectors: 210 passed, 0 failed"

# --- report files -------------------------------------------------------------------
# Run from elsewhere: the default files come from the data directory (the source
# tree here) and are named relative to it, never by an absolute path.
(cd "$tmp" && "$bin" vectors --quiet --junit "$tmp/j.xml" --json "$tmp/r.json" >"$tmp/out" 2>"$tmp/err")
checks=$((checks + 1))
if grep -q '<testsuite name="vectors/bucket_id.json" tests="16" failures="0" errors="0" skipped="0" time="' "$tmp/j.xml" &&
    grep -q '<testcase classname="bucket_id" name="tcId 1: ' "$tmp/j.xml" &&
    grep -q '<property name="testbed_version" value="' "$tmp/j.xml" && ! grep -q "name=\"$src" "$tmp/j.xml"; then
    echo "ok   JUnit: relative names, tcId with comment, time, version"
else
    fail "JUnit: relative names, tcId with comment, time, version"
fi
checks=$((checks + 1))
if python3 - "$tmp/r.json" <<'PY'; then echo "ok   --json results"; else fail "--json results"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "rl-testbed-results/1" and d["testbed"]["name"] == "rl-testbed", d["testbed"]
assert d["summary"]["failed"] == 0 and d["summary"]["passed"] == len(d["tests"])
t = [t for t in d["tests"] if t["file"] == "vectors/rate_response.json" and t["id"] == "28"][0]
assert (t["step"], t["severity"], t["norm"], t["spec"], t["status"]) == \
    ("response", "security", 'wire_protocol.md "Auth Header" MUST', True, "pass"), t
assert not any(x["file"].startswith("/") for x in d["tests"])
PY

# --- severity of the HA datagram cases (ADAPTER.md "Norms and severities", project) ---
# By what the worst datagram of the case would do if taken: an unauthenticated or
# other-mode response selected is security; a datagram that must be ignored but would
# be selected for a request it does not answer is decision; a malformed one interop.
c=conformance/cases
"$bin" conformance --quiet --json "$tmp/ha.json" $c/rule2_correlation_mgmt_flag_ignored.json \
    $c/rule1_foreign_unique_id_ignored.json $c/datagram_resource_omitted_ignored_cookie.json \
    $c/late_responses_after_selection_ignored.json $c/rule2_malformed_steering_value_ignored_aes.json \
    $c/datagram_unmatched_pdu_size_late_aes.json $c/datagram_unmatched_bad_tag_late_aes.json \
    $c/rule2_auth_none_ignored_cookie.json $c/rule2_auth_none_ignored_aes.json >"$tmp/out" 2>"$tmp/err"
checks=$((checks + 1))
if python3 - "$tmp/ha.json" <<'PY'; then echo "ok   HA datagram severities"; else fail "HA datagram severities"; fi
import json, sys
d = json.load(open(sys.argv[1]))
got = {t["file"].split("/")[-1].split(".json")[0]: t["severity"] for t in d["tests"]}
want = {"rule2_correlation_mgmt_flag_ignored": "decision", "rule1_foreign_unique_id_ignored": "decision",
        "datagram_resource_omitted_ignored_cookie": "decision", "late_responses_after_selection_ignored": "decision",
        "rule2_malformed_steering_value_ignored_aes": "interop", "datagram_unmatched_pdu_size_late_aes": "interop",
        "datagram_unmatched_bad_tag_late_aes": "security", "rule2_auth_none_ignored_cookie": "security",
        "rule2_auth_none_ignored_aes": "security"}
assert got == want, {k: got.get(k) for k in want if got.get(k) != want[k]}
assert d["summary"]["failed"] == 0, d["summary"]
PY

echo "verdict tests: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
