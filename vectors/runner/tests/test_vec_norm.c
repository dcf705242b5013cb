/* SPDX-License-Identifier: MIT */
/* test_vec_norm.c - steps, norms and severities of vector tests (vec_norm.h,
 * conformance/ADAPTER.md "Steps", "Norms and severities"). The project
 * choices issue 21 names (replay_count 16, linear step 0 and exponential
 * factor 0 or 1 valid, srv_target leading zeros and hostname syntax,
 * positional block matching, {"sent": false} filtering) are tagged project /
 * convention, never spec; response authentication is security; the HA policy
 * is a recommendation (r-client.md 9.3). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vec_norm.h"

static void tag(const char *kind, const char *test_json, vec_tag_t *t)
{
    json_t *test = json_loads(test_json, 0, NULL);
    assert_non_null(test);
    vec_tag_test(kind, test, t);
    json_decref(test);
}

static void test_steps_per_kind(void **state)
{
    (void)state;
    assert_string_equal(vec_kind_final_step("rate_request_packet"), "request");
    assert_string_equal(vec_kind_final_step("rate_response"), "response");
    assert_string_equal(vec_kind_final_step("latency_report_packet"), "report");
    assert_string_equal(vec_kind_final_step("api_key"), "key");
    assert_string_equal(vec_kind_final_step("admin_tenant_ack"), "admin");
    assert_int_equal(vec_step_rank("rate_response", "key"), 0);
    assert_int_equal(vec_step_rank("rate_response", "response"), 1);
    assert_int_equal(vec_step_rank("rate_response", "request"), -1);
    assert_null(vec_kind_steps("bucketid"));
}

static void test_response_authentication_is_security(void **state)
{
    (void)state;
    vec_tag_t t;
    tag("rate_response", "{\"result\": \"invalid\", \"flags\": [\"Auth\"], \"expected\": {\"error\": \"auth\"}}", &t);
    assert_string_equal(t.step, "response");
    assert_string_equal(t.norm, "wire_protocol.md \"Auth Header\" MUST");
    assert_true(t.spec);
    assert_int_equal(t.severity, VEC_SEV_SECURITY);
    tag("rate_response", "{\"result\": \"valid\", \"flags\": [\"Deny\"], \"expected\": {}}", &t);
    assert_int_equal(t.severity, VEC_SEV_DECISION);
}

static void test_positional_matching_is_project(void **state)
{
    (void)state;
    vec_tag_t t;
    tag("rate_response",
        "{\"result\": \"invalid\", \"flags\": [\"Malformed\", \"Request\"], \"expected\": {\"error\": \"malformed\"}}", &t);
    assert_false(t.spec);
    assert_int_equal(t.severity, VEC_SEV_CONVENTION);
    assert_int_equal(strncmp(t.norm, "project: ", 9), 0);
}

static void test_policy_choices_are_project(void **state)
{
    (void)state;
    vec_tag_t t;
    tag("ha_schedule", "{\"result\": \"invalid\", \"flags\": [\"ReplayCountAboveCap\"], \"input\": {\"policy\": "
                       "{\"replay_count\": 17}}}", &t);
    assert_false(t.spec);
    tag("ha_schedule", "{\"result\": \"valid\", \"input\": {\"policy\": {\"replay_count\": 16}}}", &t);
    assert_false(t.spec);
    tag("ha_schedule", "{\"result\": \"valid\", \"input\": {\"policy\": {\"replay_count\": 2, \"replay_gap\": "
                       "{\"kind\": \"linear\", \"linear_step_units\": 0}}}}", &t);
    assert_false(t.spec);
    tag("ha_schedule", "{\"result\": \"valid\", \"input\": {\"policy\": {\"replay_count\": 2, \"preference\": "
                       "{\"kind\": \"exponential\", \"exponential_factor\": 1}}}}", &t);
    assert_false(t.spec);
    assert_int_equal(t.severity, VEC_SEV_CONVENTION);
    /* the rest of the policy: the spec's recommendation, not a requirement */
    tag("ha_schedule", "{\"result\": \"valid\", \"input\": {\"policy\": {\"replay_count\": 2, \"replay_gap\": "
                       "{\"kind\": \"linear\", \"linear_step_units\": 2}}}}", &t);
    assert_true(t.spec);
    assert_string_equal(t.norm, "r-client.md 9.3.1 SHOULD (recommended, not required: r-client.md 9.3)");
    assert_int_equal(t.severity, VEC_SEV_CONVENTION);
    assert_string_equal(t.step, "policy");
}

static void test_srv_target_choices_are_project(void **state)
{
    (void)state;
    vec_tag_t t;
    tag("srv_target", "{\"result\": \"invalid\", \"flags\": [\"Canonical\"], \"input\": {\"target\": \"s-01.x.\"}}", &t);
    assert_false(t.spec);
    tag("srv_target", "{\"result\": \"invalid\", \"flags\": [\"Host\"], \"input\": {\"target\": \"s-1.*.x.\"}}", &t);
    assert_false(t.spec);
    tag("srv_target", "{\"result\": \"invalid\", \"flags\": [\"Label\"], \"input\": {\"target\": \"x-1.x.\"}}", &t);
    assert_true(t.spec);
    assert_int_equal(t.severity, VEC_SEV_INTEROP);
    assert_string_equal(t.step, "discovery");
}

static void test_filtered_reports_are_project(void **state)
{
    (void)state;
    vec_tag_t t;
    tag("latency_report_packet", "{\"result\": \"valid\", \"flags\": [\"Filtered\"]}", &t);
    assert_false(t.spec);
    tag("latency_report_packet", "{\"result\": \"valid\", \"flags\": []}", &t);
    assert_true(t.spec);
    assert_string_equal(t.step, "report");
}

/* Optional test fields "step" and "norm" (a compatible extension) win. */
static void test_test_may_name_its_step_and_norm(void **state)
{
    (void)state;
    vec_tag_t t;
    json_t *test = json_loads("{\"result\": \"invalid\", \"step\": \"key\", \"norm\": \"project: x\"}", 0, NULL);
    assert_non_null(test);
    vec_tag_test("rate_response", test, &t); /* t.norm points into test */
    assert_string_equal(t.step, "key");
    assert_string_equal(t.norm, "project: x");
    assert_false(t.spec);
    json_decref(test);
    tag("rate_response", "{\"result\": \"invalid\", \"step\": \"policy\"}", &t); /* not a step of the kind */
    assert_string_equal(t.step, "response");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_steps_per_kind),
        cmocka_unit_test(test_response_authentication_is_security),
        cmocka_unit_test(test_positional_matching_is_project),
        cmocka_unit_test(test_policy_choices_are_project),
        cmocka_unit_test(test_srv_target_choices_are_project),
        cmocka_unit_test(test_filtered_reports_are_project),
        cmocka_unit_test(test_test_may_name_its_step_and_norm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
