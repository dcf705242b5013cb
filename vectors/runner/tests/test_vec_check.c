/* SPDX-License-Identifier: MIT */
/* test_vec_check.c - the comparison of expected and actual: every
 * difference of a valid test, wrong values before absent fields; and the
 * subset match of the dialect report (vec_check_fields): only the expected
 * fields are compared, a difference and a missing field are named by path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vec_check.h"

static json_t *parse(const char *s)
{
    json_t *v = json_loads(s, 0, NULL);
    assert_non_null(v);
    return v;
}

static void test_subset_ignores_fields_expected_leaves_out(void **state)
{
    (void)state;
    json_t *want = parse("{\"ttl_ms\": 60}");
    json_t *got = parse("{\"ttl_ms\": 60, \"round_ms\": [20, 20], \"preference_ms\": [20, 0]}");
    vj_path_t p = vj_path("tests[0].expected");
    vj_err_t e;
    assert_true(vec_check_fields(want, got, &p, &e));
    json_decref(want);
    json_decref(got);
}

static void test_subset_names_a_difference(void **state)
{
    (void)state;
    json_t *want = parse("{\"success\": false}");
    json_t *got = parse("{\"success\": true, \"keep_port\": true}");
    vj_path_t p = vj_path("tests[3].expected");
    vj_err_t e;
    assert_false(vec_check_fields(want, got, &p, &e));
    assert_string_equal(e.msg, "tests[3].expected.success: want false got true");
    json_decref(want);
    json_decref(got);
}

static void test_subset_names_a_missing_field(void **state)
{
    (void)state;
    json_t *want = parse("{\"key_id\": \"12\"}");
    json_t *got = parse("{\"auth\": \"aes\"}");
    vj_path_t p = vj_path("tests[1].expected");
    vj_err_t e;
    assert_false(vec_check_fields(want, got, &p, &e));
    assert_string_equal(e.msg, "tests[1].expected.key_id: not produced by the client");
    json_decref(want);
    json_decref(got);
}

/* null: an unknown value (admin_status_response "known"): equal to null only. */
static void test_null_matches_null_only(void **state)
{
    (void)state;
    const char *const known[] = {"known", NULL};
    json_t *want = parse("{\"known\": {\"ifindex\": null}}");
    json_t *got = parse("{\"known\": {\"ifindex\": null}}");
    json_t *want_value = parse("{\"known\": {\"ifindex\": \"2\"}}");
    vj_path_t p = vj_path("tests[0].expected");
    vj_err_t e;
    assert_true(vec_check_expected(want, got, known, "admin_status_response", &p, &e));
    assert_false(vec_check_expected(want_value, got, known, "admin_status_response", &p, &e));
    assert_string_equal(e.msg, "tests[0].expected.known.ifindex: expected null, got string \"2\"");
    json_decref(want);
    json_decref(got);
    json_decref(want_value);
}

/* Every difference, wrong values before absent fields (issue 21: a missing
 * quota_word must not hide a wrong key_id), 64-bit ids in decimal and hex. */
static void test_every_difference_wrong_values_first(void **state)
{
    (void)state;
    const char *const known[] = {"auth", "key_id", "quota_word", NULL};
    json_t *want = parse("{\"quota_word\": \"0x00000001\", \"key_id\": \"8388608000\", \"auth\": \"aes\"}");
    json_t *got = parse("{\"key_id\": \"8388608001\", \"auth\": \"cookie\"}");
    vj_path_t p = vj_path("tests[2].expected");
    vj_err_t e;
    assert_false(vec_check_output(want, got, known, "api_key", &p, true, &e));
    assert_string_equal(e.msg, "tests[2].expected.key_id: want 8388608000 (0x1f4000000) got 8388608001 (0x1f4000001); "
                               "tests[2].expected.auth: want aes got cookie; "
                               "tests[2].expected.quota_word: absent from the client's output");
    json_decref(want);
    json_decref(got);
}

static void test_every_difference_inside_arrays(void **state)
{
    (void)state;
    const char *const known[] = {"round_ms", NULL};
    json_t *want = parse("{\"round_ms\": [20, 40, 80]}");
    json_t *got = parse("{\"round_ms\": [20, 41, 81]}");
    vj_path_t p = vj_path("tests[0].expected");
    vj_err_t e;
    assert_false(vec_check_expected(want, got, known, "ha_schedule", &p, &e));
    assert_string_equal(e.msg, "tests[0].expected.round_ms[1]: want 40 got 41; tests[0].expected.round_ms[2]: want 80 got 81");
    json_decref(want);
    json_decref(got);
}

/* A field the client's output has and the test's expected does not (ADAPTER.md
 * "Vector requests": the output has exactly the shape of expected): named as
 * the client's, at the top level and inside an object (project). */
static void test_extra_client_field_named_as_the_clients(void **state)
{
    (void)state;
    const char *const known[] = {"quotas", NULL};
    json_t *want = parse("{\"quotas\": {\"a\": \"1\"}}");
    json_t *got = parse("{\"quotas\": {\"a\": \"1\", \"b\": \"2\"}, \"bogus\": 1}");
    vj_path_t p = vj_path("tests[0].expected");
    vj_err_t e;
    assert_false(vec_check_output(want, got, known, "quota_word", &p, true, &e));
    assert_string_equal(e.msg, "tests[0].expected.quotas.b: not in the test, but in the client's output (string \"2\"); "
                               "tests[0].expected.bogus: not in the test, but in the client's output (integer 1)");
    /* the built-in runner: the vector file leaves out a value the runner produces */
    assert_false(vec_check_output(want, got, known, "quota_word", &p, false, &e));
    assert_string_equal(e.msg, "tests[0].expected.quotas.b: missing (the runner gives string \"2\"); "
                               "tests[0].expected.bogus: missing (the runner gives integer 1)");
    json_decref(want);
    json_decref(got);
}

/* A field inside an object of expected that the client's output lacks: named
 * as absent, like a top-level one, not as an unknown field (project). */
static void test_nested_field_absent_from_the_clients_output(void **state)
{
    (void)state;
    const char *const known[] = {"quotas", NULL};
    json_t *want = parse("{\"quotas\": {\"a\": \"1\", \"b\": \"2\"}}");
    json_t *got = parse("{\"quotas\": {\"a\": \"1\"}}");
    vj_path_t p = vj_path("tests[0].expected");
    vj_err_t e;
    assert_false(vec_check_output(want, got, known, "quota_word", &p, true, &e));
    assert_string_equal(e.msg, "tests[0].expected.quotas.b: absent from the client's output");
    assert_false(vec_check_output(want, got, known, "quota_word", &p, false, &e));
    /* the built-in runner: a field of the file no kind produces there */
    assert_string_equal(e.msg, "tests[0].expected.quotas.b: unknown field");
    json_decref(want);
    json_decref(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_difference_wrong_values_first),
        cmocka_unit_test(test_every_difference_inside_arrays),
        cmocka_unit_test(test_subset_ignores_fields_expected_leaves_out),
        cmocka_unit_test(test_subset_names_a_difference),
        cmocka_unit_test(test_subset_names_a_missing_field),
        cmocka_unit_test(test_null_matches_null_only),
        cmocka_unit_test(test_extra_client_field_named_as_the_clients),
        cmocka_unit_test(test_nested_field_absent_from_the_clients_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
