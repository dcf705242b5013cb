#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_adapter.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# The adapter protocol (conformance/ADAPTER.md) end to end: the C reference
# adapter passes exactly what the built-in runner passes, vectors and HA
# cases; the Python template passes every vector kind; a misbehaving adapter
# (hung, crashed, wrong hello, wrong id, wrong field, not JSON) is a named
# failure within the timeout, never a hang; unsupported tests are SKIP with
# the closing line "N passed, N failed, N skipped"; a client without error
# classes is judged on its behaviour.
set -u
. "$(dirname "$0")/adapter_lib.sh"
py="python3 $src/conformance/adapters/python/rl_adapter.py"
fake="python3 $src/tools/rl-testbed/testdata/adapters/fake_adapter.py"
one="$src/vectors/bucket_id.json"

# same_count NAME: the closing line of the last run equals $want.
same_count() {
    checks=$((checks + 1))
    got=$(tail -n 1 "$tmp/out")
    if [ "$got" != "$want" ]; then fail "$1: closing line '$got', want '$want'"; else echo "ok   $1"; fi
}

# --- the reference adapters pass what the built-in runner passes -------------
"$bin" vectors --quiet >"$tmp/out" 2>"$tmp/err"
want=$(tail -n 1 "$tmp/out")
expect "C adapter: vectors" 0 out "vectors:" -- vectors --quiet --client "$cadapter"
same_count "C adapter: every vector the built-in runner passes"
expect "Python adapter: vectors" 0 out "vectors:" -- vectors --quiet --client "$py"
same_count "Python adapter: every vector kind it declares"

"$bin" conformance --cases-only --quiet conformance/cases >"$tmp/out" 2>"$tmp/err"
want=$(tail -n 1 "$tmp/out")
expect "C adapter: HA cases" 0 out "conformance:" -- conformance --cases-only --quiet --client "$cadapter" conformance/cases
same_count "C adapter: every HA case the built-in runner passes"
expect "C adapter: hello named on stderr" 0 err "rl-testbed: client rclient (C reference adapter) 0.1" -- \
    conformance --cases-only --quiet --client "$cadapter" conformance/cases/rule4_oldest_selected_immediately.json
# Case runs, not files: a case with "auth": "any" runs once per auth mode (conformance/README.md
# "Auth modes"), so the built-in runner's count of passed runs is the number to skip.
n_cases=$(printf '%s\n' "$want" | sed -n 's/^conformance: \([0-9]*\) passed, 0 failed$/\1/p')
# Nothing ran: the run fails (ADAPTER.md "Gates"), and one line names the skip reason.
expect "Python adapter: HA cases skipped, declared" 1 out "skipped $n_cases: unsupported: HA cases not declared in hello (capabilities.ha.cases)" -- \
    conformance --cases-only --quiet --client "$py" conformance/cases
last_line "Python adapter: HA cases skipped, closing line" "conformance: 0 passed, 0 failed, $n_cases skipped"
expect "skipped case says why (--verbose)" 1 out "SKIP   unsupported: HA cases not declared in hello" -- \
    conformance --verbose --client "$py" conformance/cases/rule4_oldest_selected_immediately.json

# --- three verdicts -------------------------------------------------------------
expect "only_bucket: others skipped" 0 out "skipped 14: unsupported: kind tracker_id not declared in hello" -- \
    vectors --client "$fake only_bucket $cadapter" vectors/bucket_id.json vectors/tracker_id.json
last_line "only_bucket: closing line" "vectors: 16 passed, 0 failed, 14 skipped"
expect "answered unsupported" 1 out "skipped 14: unsupported: the client says: no latency trackers in this client" -- \
    vectors --client "$fake answer_unsupported $cadapter" vectors/tracker_id.json
expect "skipped in JUnit" 1 err "JUnit XML written" -- vectors --client "$fake only_bucket" --junit "$tmp/j.xml" \
    vectors/tracker_id.json
checks=$((checks + 1))
if grep -q '<skipped message="unsupported: kind tracker_id not declared in hello"/>' "$tmp/j.xml" &&
    grep -q 'skipped="14"' "$tmp/j.xml"; then echo "ok   JUnit <skipped>"; else fail "JUnit <skipped>"; cat "$tmp/j.xml"; fi
expect "no error classes: behaviour judged" 0 out "PASS   rejected; no error class reported (want \"quota\")" -- \
    vectors --client "$fake no_classes $cadapter" vectors/quota_word.json
last_line "no error classes: all pass" "vectors: 27 passed, 0 failed"

expect "unsupported_fields: that input skipped" 0 out "skipped 38: unsupported: input field metrics_label_utf8 declared unsupported in hello" -- \
    vectors --client "$fake no_label $cadapter" vectors/rate_request_packet.json
cases=conformance/cases
expect "HA feature not declared: skipped" 1 out "skipped 3: unsupported: the case needs capabilities.ha.send_failures" -- \
    conformance --client "$fake ha_no_send_failures $cadapter" $cases/send_failure_on_initial_send.json
expect "HA feature not declared: other cases run" 0 out "conformance: 3 passed, 0 failed" -- \
    conformance --client "$fake ha_no_send_failures $cadapter" $cases/rule4_oldest_selected_immediately.json
expect "ha_create answered unsupported" 1 out "skipped 3: unsupported: the client says: no HA strategy in this client" -- \
    conformance --client "$fake ha_unsupported $cadapter" $cases/rule4_oldest_selected_immediately.json
expect "no presets: the policy runs" 0 out "preset       PASS   no presets: the client runs the api_md policy as given" -- \
    conformance --client "$fake ha_no_presets $cadapter" $cases/preset_api_md_round1_completes_at_once.json
expect "wrong report field named" 1 out "adapter      FAIL   adapter message 3: deadline_ms: expected a decimal string (absolute ms) or null, got integer 5" -- \
    conformance --client "$fake ha_bad_report $cadapter" $cases/rule4_oldest_selected_immediately.json

# --- a misbehaving adapter is a named failure, never a hang ----------------------
expect "hung adapter times out" 1 out "adapter message 2 (vector): no answer within 2000 ms (--timeout)" -- \
    vectors --timeout 2000 --client "$fake hang" "$one"
expect "crashed adapter: status and stderr" 1 out "the adapter exited with status 3 before answering; its stderr: boom: the client library aborted" -- \
    vectors --client "$fake crash" "$one"
expect "wrong hello named" 1 err "adapter message 1 (hello): protocol: expected \"ratelimitly-adapter/1\", got \"ratelimitly-adapter/0\"" -- \
    vectors --client "$fake bad_hello" "$one"
expect "silent adapter" 1 err "adapter message 1 (hello): the adapter exited with status 0 before" -- \
    vectors --client "$fake no_hello" "$one"
expect "missing program" 1 err "exited with status 127" -- vectors --client "/nonexistent/adapter" "$one"
expect "wrong id named" 1 out "adapter message 2 (vector): id: expected 2, got integer 7" -- \
    vectors --client "$fake wrong_id $cadapter" "$one"
expect "wrong field named" 1 out "adapter message 2 (vector): status: expected \"accepted\", \"rejected\", \"unsupported\" or \"bad_input\", got string \"acepted\"" -- \
    vectors --client "$fake bad_status $cadapter" "$one"
expect "not JSON named" 1 out "adapter message 2 (vector): answer is not a JSON object" -- \
    vectors --client "$fake garbage $cadapter" "$one"
expect "protocol_error: that test fails, the run goes on" 1 out "adapter message 2 (vector): the adapter reports an error: op not understood" -- \
    vectors --client "$fake proto_error $cadapter" "$one"
last_line "protocol_error: one failure" "vectors: 15 passed, 1 failed; failed by severity: security 0, decision 0, interop 1, convention 0"
# An answer line over 1 MiB (ADAPTER.md "Framing"): named; the adapter is stopped, so every
# later test fails with the same reason.
expect "answer line over 1 MiB" 1 out "adapter message 2 (vector): answer line longer than 1048576 bytes" -- \
    vectors --client "$fake long_line $cadapter" "$one"
last_line "answer line over 1 MiB: closing line" \
    "vectors: 0 passed, 16 failed; failed by severity: security 0, decision 0, interop 16, convention 0"
expect "good fake passes" 0 out "vectors: 16 passed, 0 failed" -- vectors --client "$fake good $cadapter" "$one"

# --- usage ----------------------------------------------------------------------
expect "--timeout 0" 2 err "--timeout wants milliseconds 1..3600000, got '0'" -- vectors --timeout 0 --client x
expect "--client without CMD" 2 err "missing value after '--client'" -- vectors --client
expect "dialect without --client" 2 err "--client CMD is required" -- dialect

echo "adapter tests: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
