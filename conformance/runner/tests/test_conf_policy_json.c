/* SPDX-License-Identifier: MIT */
/* test_conf_policy_json.c - the policy object handed to adapters and interop
 * drivers (conf_policy_json.h). Expected texts: the field names and values of
 * conformance/README.md "Policy" (project), each schedule kind of r-client.md
 * 9.3.1 with only its own growth field non-zero. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf_policy_json.h"

static void assert_json(json_t *v, const char *want)
{
    assert_non_null(v);
    char *got = json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT);
    assert_string_equal(got, want);
    free(got);
    json_decref(v);
}

/* project: a linear gap and a fixed preference, every policy field by name. */
static void policy_linear_gap_fixed_preference(void **state)
{
    (void)state;
    r_request_policy_t p = {.unit_ms = 100, .replay_count = 2,
                            .replay_gap = {.kind = R_HA_SCHEDULE_LINEAR, .initial_units = 1, .max_units = 3,
                                           .growth.linear_step_units = 2},
                            .preference = {.kind = R_HA_SCHEDULE_FIXED, .initial_units = 1, .max_units = 1},
                            .final_receive_units = 4, .final_preference_units = 1, .completion_delivery = true};
    assert_json(conf_policy_json(&p),
                "{\"completion_delivery\":true,\"final_preference_units\":1,\"final_receive_units\":4,"
                "\"preference\":{\"exponential_factor\":0,\"initial_units\":1,\"kind\":\"fixed\","
                "\"linear_step_units\":0,\"max_units\":1},\"replay_count\":2,"
                "\"replay_gap\":{\"exponential_factor\":0,\"initial_units\":1,\"kind\":\"linear\","
                "\"linear_step_units\":2,\"max_units\":3},\"unit_ms\":100}");
}

/* r-client.md 9.3.1: an exponential schedule carries its factor, not a step. */
static void schedule_exponential_factor_only(void **state)
{
    (void)state;
    r_ha_schedule_t s = {.kind = R_HA_SCHEDULE_EXPONENTIAL, .initial_units = 1, .max_units = 8,
                         .growth.exponential_factor = 2};
    assert_json(conf_schedule_json(&s), "{\"exponential_factor\":2,\"initial_units\":1,\"kind\":\"exponential\","
                                        "\"linear_step_units\":0,\"max_units\":8}");
}

/* project: a kind no schedule has is named "unknown" (the client under test refuses it). */
static void schedule_unknown_kind_named(void **state)
{
    (void)state;
    r_ha_schedule_t s = {.kind = (r_ha_schedule_kind_t)7, .initial_units = 1, .max_units = 1};
    assert_json(conf_schedule_json(&s), "{\"exponential_factor\":0,\"initial_units\":1,\"kind\":\"unknown\","
                                        "\"linear_step_units\":0,\"max_units\":1}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(policy_linear_gap_fixed_preference),
        cmocka_unit_test(schedule_exponential_factor_only),
        cmocka_unit_test(schedule_unknown_kind_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
