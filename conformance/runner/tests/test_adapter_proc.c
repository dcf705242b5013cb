/* SPDX-License-Identifier: MIT */
/* test_adapter_proc.c - the testbed's side of the adapter protocol
 * (conformance/ADAPTER.md "Framing", "hello"): hello and capabilities, and
 * every way an adapter can fail named by message number, never a hang.
 * The adapters are one-line shell programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapter_proc.h"

#define HELLO                                                                                                      \
    "read l; echo '{\"id\":1,\"protocol\":\"ratelimitly-adapter/1\",\"client\":{\"name\":\"t\",\"version\":\"9\"}," \
    "\"capabilities\":{\"vector_kinds\":[\"bucket_id\"],\"ha\":{\"cases\":true}}}'; "

/* Where the test measures no timing: a hang guard far above a loaded host's
 * scheduling delays (project). */
#define ANSWER_MS 20000

static json_t *vector_req(void)
{
    return json_pack("{s:s, s:s, s:{}}", "op", "vector", "kind", "bucket_id", "input");
}

static void test_hello_reads_client_and_capabilities(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    assert_true(rl_adapter_start(&a, HELLO "cat >/dev/null", ANSWER_MS, err, sizeof err));
    assert_string_equal(a.name, "t");
    assert_string_equal(a.version, "9");
    assert_true(rl_adapter_has_kind(&a, "bucket_id"));
    assert_false(rl_adapter_has_kind(&a, "tracker_id"));
    assert_true(rl_adapter_has_ha(&a, "cases"));
    assert_false(rl_adapter_has_ha(&a, "presets"));
    assert_true(rl_adapter_reports_classes(&a));
    rl_adapter_stop(&a);
}

static void test_wrong_protocol_named(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    assert_false(rl_adapter_start(&a,
                                  "read l; echo '{\"id\":1,\"protocol\":\"x/2\",\"client\":{\"name\":\"t\","
                                  "\"version\":\"1\"},\"capabilities\":{\"vector_kinds\":[]}}'",
                                  ANSWER_MS, err, sizeof err));
    assert_string_equal(err, "adapter message 1 (hello): protocol: expected \"ratelimitly-adapter/1\", got \"x/2\"");
}

static void test_missing_capability_field_named(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    assert_false(rl_adapter_start(&a,
                                  "read l; echo '{\"id\":1,\"protocol\":\"ratelimitly-adapter/1\",\"client\":{\"name\":"
                                  "\"t\",\"version\":\"1\"},\"capabilities\":{}}'",
                                  ANSWER_MS, err, sizeof err));
    assert_non_null(strstr(err, "adapter message 1 (hello): capabilities.vector_kinds: expected array"));
}

static void test_answer_is_returned(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, HELLO "read l; echo '{\"id\":2,\"status\":\"accepted\",\"output\":{}}'; cat",
                                 ANSWER_MS, err, sizeof err));
    assert_true(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(json_string_value(json_object_get(ans, "status")), "accepted");
    assert_int_equal(json_integer_value(json_object_get(req, "id")), 2);
    json_decref(ans);
    json_decref(req);
    rl_adapter_stop(&a);
}

static void test_silence_times_out_then_every_call_fails_at_once(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, HELLO "sleep 30", 200, err, sizeof err));
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): no answer within 200 ms (--timeout)");
    assert_true(a.dead);
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): no answer within 200 ms (--timeout)");
    assert_null(ans);
    json_decref(req);
    rl_adapter_stop(&a);
}

/* project (conformance/ADAPTER.md "Failures of the adapter itself"): hello
 * includes the adapter's start-up, so it gets the larger of --timeout and
 * RL_ADAPTER_HELLO_TIMEOUT_MS; a slow start is not a failure, and --timeout
 * still bounds every later answer. */
static void test_slow_start_within_the_hello_bound(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, "sleep 1; " HELLO "sleep 30", 200, err, sizeof err));
    assert_int_equal(a.timeout_ms, 200);
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): no answer within 200 ms (--timeout)");
    json_decref(req);
    rl_adapter_stop(&a);
}

static void test_exit_reported_with_status_and_stderr(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, HELLO "read l; echo 'assertion failed' >&2; echo 'at line 3' >&2; exit 3", ANSWER_MS,
                                 err, sizeof err));
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): the adapter exited with status 3 before answering; "
                             "its stderr: assertion failed|at line 3");
    json_decref(req);
    rl_adapter_stop(&a);
}

static void test_exit_before_the_request_named_with_status(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, HELLO "exit 4", ANSWER_MS, err, sizeof err));
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    /* gone before the write (EPIPE) or before the answer: the exit is named either way */
    assert_non_null(strstr(err, "adapter message 2 (vector): the adapter exited with status 4 before "));
    json_decref(req);
    rl_adapter_stop(&a);
}

static void test_wrong_id_named(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req();
    assert_true(rl_adapter_start(&a, HELLO "read l; echo '{\"id\":9}'; cat", ANSWER_MS, err, sizeof err));
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): id: expected 2, got integer 9");
    json_decref(req);
    rl_adapter_stop(&a);
}

static void test_protocol_error_fails_one_call_only(void **state)
{
    (void)state;
    rl_adapter_t a;
    char err[VEC_MSG_MAX];
    json_t *ans = NULL, *req = vector_req(), *req2 = vector_req();
    assert_true(rl_adapter_start(&a,
                                 HELLO "read l; echo '{\"id\":2,\"protocol_error\":\"what?\"}'; "
                                       "read l; echo '{\"id\":3,\"status\":\"unsupported\"}'; cat",
                                 ANSWER_MS, err, sizeof err));
    assert_false(rl_adapter_call(&a, req, &ans, err, sizeof err));
    assert_string_equal(err, "adapter message 2 (vector): the adapter reports an error: what?");
    assert_false(a.dead);
    assert_true(rl_adapter_call(&a, req2, &ans, err, sizeof err));
    json_decref(ans);
    json_decref(req);
    json_decref(req2);
    rl_adapter_stop(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_reads_client_and_capabilities),
        cmocka_unit_test(test_wrong_protocol_named),
        cmocka_unit_test(test_missing_capability_field_named),
        cmocka_unit_test(test_answer_is_returned),
        cmocka_unit_test(test_silence_times_out_then_every_call_fails_at_once),
        cmocka_unit_test(test_slow_start_within_the_hello_bound),
        cmocka_unit_test(test_exit_reported_with_status_and_stderr),
        cmocka_unit_test(test_exit_before_the_request_named_with_status),
        cmocka_unit_test(test_wrong_id_named),
        cmocka_unit_test(test_protocol_error_fails_one_call_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
