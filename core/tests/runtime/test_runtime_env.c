/* SPDX-License-Identifier: MIT */
/* The runtime's pure parts: environment options (api.md "Public runtime":
 * the unit is a nonzero decimal integer, the replay count a decimal integer
 * from 0 through R_CLIENT_HA_MAX_REPLAY_COUNT, invalid or out-of-range values
 * fail with RCLIENT_ERR_CONFIG; RATELIMITLY_AUTH_KEY is required) and the
 * relative deadline helpers. Variables come from a table, never the process
 * environment, except for the one r_runtime_options_from_env test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "r_client_runtime.h"
#include "test_keys.h"

typedef struct {
    const char *key, *tenant, *unit, *replays, *profile;
} env_t;

static const char *lookup(void *ctx, const char *name) {
    const env_t *e = ctx;
    if (strcmp(name, "RATELIMITLY_AUTH_KEY") == 0) return e->key;
    if (strcmp(name, "RATELIMITLY_TENANT") == 0) return e->tenant;
    if (strcmp(name, "RATELIMITLY_REQUEST_UNIT_MS") == 0) return e->unit;
    if (strcmp(name, "RATELIMITLY_REQUEST_REPLAY_COUNT") == 0) return e->replays;
    if (strcmp(name, "RATELIMITLY_REQUEST_PROFILE") == 0) return e->profile;
    return NULL;
}

static char key[160];

static int setup(void **state) {
    (void)state;
    return test_make_key(R_AUTH_COOKIE, 42, key, sizeof key);
}

/* Parse e; on failure the output must stay untouched. */
static int parse(env_t e, r_runtime_options_t *o, const char **why) {
    memset(o, 0xA5, sizeof *o);
    return r_runtime_options_from_lookup(o, lookup, &e, why);
}

static void test_key_only_gives_defaults(void **state) {
    (void)state;
    r_runtime_options_t o;
    const char *why = "x";
    assert_int_equal(parse((env_t){.key = key}, &o, &why), RCLIENT_OK);
    assert_null(why);
    assert_string_equal(o.auth_key, key);
    assert_null(o.tenant_dns_name);
    assert_false(o.has_request_policy);
    assert_false(o.profile_requests);
    assert_null(o.servers);
    assert_null(o.dns_server);
    assert_false(o.single_send);
}

static void test_all_variables(void **state) {
    (void)state;
    r_runtime_options_t o;
    assert_int_equal(parse((env_t){.key = key, .tenant = "rl.example.test", .unit = "25", .replays = "3",
                                   .profile = "1"}, &o, NULL),
                     RCLIENT_OK);
    assert_string_equal(o.tenant_dns_name, "rl.example.test");
    assert_true(o.has_request_policy);
    assert_int_equal(o.request_policy.unit_ms, 25);
    assert_int_equal(o.request_policy.replay_count, 3);
    assert_true(o.profile_requests);
    /* The other policy fields keep r-client.md 9.3.5's defaults. */
    r_request_policy_t d;
    r_client_default_request_policy(&d);
    assert_int_equal(o.request_policy.final_receive_units, d.final_receive_units);
    assert_int_equal(o.request_policy.replay_gap.initial_units, d.replay_gap.initial_units);
    assert_true(o.request_policy.completion_delivery);
}

static void test_unit_alone_keeps_default_replays(void **state) {
    (void)state;
    r_runtime_options_t o;
    assert_int_equal(parse((env_t){.key = key, .unit = "10"}, &o, NULL), RCLIENT_OK);
    assert_int_equal(o.request_policy.unit_ms, 10);
    assert_int_equal(o.request_policy.replay_count, 1);
}

static void test_replays_alone_keep_default_unit(void **state) {
    (void)state;
    r_runtime_options_t o;
    assert_int_equal(parse((env_t){.key = key, .replays = "0"}, &o, NULL), RCLIENT_OK);
    assert_int_equal(o.request_policy.unit_ms, 20);
    assert_int_equal(o.request_policy.replay_count, 0);
}

static void test_replays_upper_bound_accepted(void **state) {
    (void)state;
    r_runtime_options_t o;
    /* N = 16 with U = 1: H = 1 * (17 + 1) = 18 ms, within the key's 300 ms. */
    assert_int_equal(parse((env_t){.key = key, .unit = "1", .replays = "16"}, &o, NULL), RCLIENT_OK);
    assert_int_equal(o.request_policy.replay_count, R_CLIENT_HA_MAX_REPLAY_COUNT);
}

static void test_profile_zero_is_off(void **state) {
    (void)state;
    r_runtime_options_t o;
    assert_int_equal(parse((env_t){.key = key, .profile = "0"}, &o, NULL), RCLIENT_OK);
    assert_false(o.profile_requests);
}

/* Every bad value: RCLIENT_ERR_CONFIG, *out untouched, the variable named. */
static void expect_bad(env_t e, const char *variable) {
    r_runtime_options_t o, before;
    const char *why = NULL;
    memset(&before, 0xA5, sizeof before);
    assert_int_equal(parse(e, &o, &why), RCLIENT_ERR_CONFIG);
    assert_memory_equal(&o, &before, sizeof o);
    assert_non_null(why);
    assert_non_null(strstr(why, variable));
}

static void test_missing_or_bad_key(void **state) {
    (void)state;
    expect_bad((env_t){0}, "RATELIMITLY_AUTH_KEY");
    expect_bad((env_t){.key = ""}, "RATELIMITLY_AUTH_KEY");
    expect_bad((env_t){.key = "rl-cookie1qqqq"}, "RATELIMITLY_AUTH_KEY");
}

static void test_empty_tenant(void **state) {
    (void)state;
    expect_bad((env_t){.key = key, .tenant = ""}, "RATELIMITLY_TENANT");
}

static void test_bad_units(void **state) {
    (void)state;
    static const char *bad[] = {"", "0", "00", "-1", "+5", " 5", "5 ", "5ms", "0x10", "1.5", "4294967296",
                                "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_bad((env_t){.key = key, .unit = bad[i]}, "RATELIMITLY_REQUEST_UNIT_MS");
    }
}

static void test_unit_too_large_for_the_key(void **state) {
    (void)state;
    /* U = 101: H = 101 * (1 + 1 + 1) = 303 ms > the key's dedup_ttl_ms_max 300. */
    expect_bad((env_t){.key = key, .unit = "101"}, "RATELIMITLY_REQUEST_UNIT_MS");
    r_runtime_options_t o;
    const char *why = NULL; /* project: the message says what H is and what to change */
    assert_int_equal(parse((env_t){.key = key, .unit = "101"}, &o, &why), RCLIENT_ERR_CONFIG);
    assert_string_equal(why, "RATELIMITLY_REQUEST_UNIT_MS/RATELIMITLY_REQUEST_REPLAY_COUNT: the horizon H = U x (N + 2) "
                             "ms (N + 1 rounds of one unit, then a final unit) exceeds the key's "
                             "dedup_ttl_ms_max; lower the unit or the replay count");
    /* N = 2 with U = 100: H = 400 ms > 300 */
    expect_bad((env_t){.key = key, .unit = "100", .replays = "2"}, "RATELIMITLY_REQUEST_REPLAY_COUNT");
    assert_int_equal(parse((env_t){.key = key, .unit = "100"}, &o, NULL), RCLIENT_OK); /* H = 300 */
}

/* The default policy (r-client.md 9.3.5: U = 20 ms, N = 1, B = 1, F = 1, so
 * H = 60 ms) does not fit a key whose dedup_ttl_ms_max is 50 ms (r-client.md
 * 9.3.1: H must not exceed the key's limit; api.md "Public runtime":
 * out-of-range values make r_runtime_options_from_env fail), so the options
 * are refused even when no scheduler variable is set; *out stays untouched. */
static void test_default_policy_too_large_for_the_key(void **state) {
    (void)state;
    char small[160];
    assert_int_equal(test_make_key_quota(R_AUTH_COOKIE, 42, TEST_QUOTA_50, small, sizeof small), 0);
    r_runtime_options_t o;
    const char *why = NULL;
    assert_int_equal(parse((env_t){.key = small}, &o, &why), RCLIENT_ERR_CONFIG);
    assert_non_null(why);
    assert_non_null(strstr(why, "dedup_ttl_ms_max"));
    assert_int_equal(((const unsigned char *)&o)[0], 0xA5); /* untouched */
    /* U = 16: H = 48 ms fits the same key (accept path). */
    assert_int_equal(parse((env_t){.key = small, .unit = "16"}, &o, &why), RCLIENT_OK);
    assert_null(why);
    assert_true(o.has_request_policy);
    assert_int_equal(o.request_policy.unit_ms, 16);
}

static void test_bad_replay_counts(void **state) {
    (void)state;
    static const char *bad[] = {"", "17", "-1", "1e1", "one", " 1", "4294967297"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_bad((env_t){.key = key, .replays = bad[i]}, "RATELIMITLY_REQUEST_REPLAY_COUNT");
    }
}

static void test_bad_profile(void **state) {
    (void)state;
    static const char *bad[] = {"", "2", "yes", "true", "01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_bad((env_t){.key = key, .profile = bad[i]}, "RATELIMITLY_REQUEST_PROFILE");
    }
}

static void test_null_arguments(void **state) {
    (void)state;
    r_runtime_options_t o;
    env_t e = {.key = key};
    assert_int_equal(r_runtime_options_from_lookup(NULL, lookup, &e, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_options_from_lookup(&o, NULL, &e, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_options_from_env(NULL), RCLIENT_ERR_CONFIG);
}

static void test_from_env_reads_the_process_environment(void **state) {
    (void)state;
    r_runtime_options_t o;
    assert_int_equal(setenv("RATELIMITLY_AUTH_KEY", key, 1), 0);
    assert_int_equal(setenv("RATELIMITLY_REQUEST_REPLAY_COUNT", "2", 1), 0);
    assert_int_equal(r_runtime_options_from_env(&o), RCLIENT_OK);
    assert_int_equal(o.request_policy.replay_count, 2);
    assert_int_equal(setenv("RATELIMITLY_REQUEST_REPLAY_COUNT", "x", 1), 0);
    assert_int_equal(r_runtime_options_from_env(&o), RCLIENT_ERR_CONFIG);
    unsetenv("RATELIMITLY_REQUEST_REPLAY_COUNT");
    unsetenv("RATELIMITLY_AUTH_KEY");
    assert_int_equal(r_runtime_options_from_env(&o), RCLIENT_ERR_CONFIG);
}

static void test_delay_ms(void **state) {
    (void)state;
    assert_int_equal(r_runtime_delay_ms(1000, 990), 10);
    assert_int_equal(r_runtime_delay_ms(1000, 999), 1);
    assert_int_equal(r_runtime_delay_ms(1000, 1000), 0);
    assert_int_equal(r_runtime_delay_ms(1000, 5000), 0);
    assert_int_equal(r_runtime_delay_ms(0, 5000), 0);
    assert_true(r_runtime_delay_ms(UINT64_MAX, 0) == UINT64_MAX);
}

static void test_delay_helpers_reject_null_and_idle(void **state) {
    (void)state;
    uint64_t d = 7;
    r_admission_request_t adm;
    memset(&adm, 0, sizeof adm); /* IDLE */
    assert_int_equal(r_runtime_admission_delay_ms(&adm, &d), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_admission_delay_ms(NULL, &d), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_request_delay_ms(NULL, NULL, &d), RCLIENT_ERR_CONFIG);
    assert_int_equal(d, 7);
}

static void test_clocks(void **state) {
    (void)state;
    uint64_t wall = 0, mono_ms = 0, mono_us = 0;
    assert_int_equal(r_runtime_wall_time_ms(&wall), RCLIENT_OK);
    assert_true(wall > 1735689600000ull); /* after 2025-01-01 */
    assert_int_equal(r_runtime_monotonic_time_ms(&mono_ms), RCLIENT_OK);
    assert_int_equal(r_runtime_monotonic_time_us(&mono_us), RCLIENT_OK);
    assert_true(mono_us / 1000u >= mono_ms);
    assert_int_equal(r_runtime_wall_time_ms(NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_monotonic_time_ms(NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_monotonic_time_us(NULL), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_only_gives_defaults),
        cmocka_unit_test(test_all_variables),
        cmocka_unit_test(test_unit_alone_keeps_default_replays),
        cmocka_unit_test(test_replays_alone_keep_default_unit),
        cmocka_unit_test(test_replays_upper_bound_accepted),
        cmocka_unit_test(test_profile_zero_is_off),
        cmocka_unit_test(test_missing_or_bad_key),
        cmocka_unit_test(test_empty_tenant),
        cmocka_unit_test(test_bad_units),
        cmocka_unit_test(test_unit_too_large_for_the_key),
        cmocka_unit_test(test_default_policy_too_large_for_the_key),
        cmocka_unit_test(test_bad_replay_counts),
        cmocka_unit_test(test_bad_profile),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_from_env_reads_the_process_environment),
        cmocka_unit_test(test_delay_ms),
        cmocka_unit_test(test_delay_helpers_reject_null_and_idle),
        cmocka_unit_test(test_clocks),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
