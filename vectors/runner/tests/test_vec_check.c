/* test_vec_check.c - the subset match of the dialect report
 * (vec_check_fields): only the expected fields are compared, a difference
 * and a missing field are named by path. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_subset_ignores_fields_expected_leaves_out),
        cmocka_unit_test(test_subset_names_a_difference),
        cmocka_unit_test(test_subset_names_a_missing_field),
        cmocka_unit_test(test_null_matches_null_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
