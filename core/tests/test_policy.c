/* SPDX-License-Identifier: MIT */
/* Unit tests for policy.c: HA request-policy defaults, presets and schedule
 * derivation (r-client.md 9.3.1, 9.3.5; api.md "Resource-Request HA Policy"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "r_client.h"

#define CANONICAL_DEDUP_MAX 300u /* dedup_ttl_ms_max of the canonical test key */

static r_request_policy_t default_policy(void) {
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    return p;
}

static r_ha_schedule_t sched(r_ha_schedule_kind_t kind, uint32_t initial, uint32_t max, uint32_t growth) {
    r_ha_schedule_t s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.initial_units = initial;
    s.max_units = max;
    if (kind == R_HA_SCHEDULE_LINEAR) {
        s.growth.linear_step_units = growth;
    } else {
        s.growth.exponential_factor = growth;
    }
    return s;
}

/* Derives and asserts success; returns the schedule. */
static r_policy_schedule_t accept(const r_request_policy_t *p, uint32_t dedup_ttl_ms_max) {
    r_policy_schedule_t s;
    memset(&s, 0xA5, sizeof s);
    const char *why = "unset";
    assert_int_equal(r_client_policy_schedule(p, dedup_ttl_ms_max, &s, &why), RCLIENT_OK);
    assert_null(why);
    return s;
}

/* Asserts RCLIENT_ERR_CONFIG for the rule whose message contains rule, with
 * out left untouched. */
static void reject(const r_request_policy_t *p, uint32_t dedup_ttl_ms_max, const char *rule) {
    r_policy_schedule_t s;
    r_policy_schedule_t before;
    memset(&s, 0xA5, sizeof s);
    memcpy(&before, &s, sizeof s);
    const char *why = NULL;
    assert_int_equal(r_client_policy_schedule(p, dedup_ttl_ms_max, &s, &why), RCLIENT_ERR_CONFIG);
    assert_non_null(why);
    assert_non_null(strstr(why, rule));
    assert_memory_equal(&s, &before, sizeof s);
}

static void assert_u32_array(const uint32_t *got, const uint32_t *want, size_t n) {
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i], want[i]);
    }
}

/* ---- defaults and presets --------------------------------------------------- */

static void test_default_fields(void **state) {
    (void)state;
    r_request_policy_t p;
    memset(&p, 0xFF, sizeof p);
    r_client_default_request_policy(&p);
    assert_int_equal(p.unit_ms, 20);
    assert_int_equal(p.replay_count, 1);
    assert_int_equal(p.replay_gap.kind, R_HA_SCHEDULE_FIXED);
    assert_int_equal(p.replay_gap.initial_units, 1);
    assert_int_equal(p.replay_gap.max_units, 1);
    assert_int_equal(p.replay_gap.growth.linear_step_units, 0);
    assert_int_equal(p.preference.kind, R_HA_SCHEDULE_FIXED);
    assert_int_equal(p.preference.initial_units, 1);
    assert_int_equal(p.preference.max_units, 1);
    assert_int_equal(p.preference.growth.linear_step_units, 0);
    assert_int_equal(p.final_receive_units, 1);
    assert_int_equal(p.final_preference_units, 0);
    assert_true(p.completion_delivery);
}

static void test_default_schedule(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {20, 20, 0};
    static const uint32_t preference_ms[] = {20, 20, 0};
    assert_int_equal(s.ttl_ms, 60);
    assert_int_equal(s.rounds, 2);
    assert_u32_array(s.round_ms, round_ms, 3);
    assert_u32_array(s.preference_ms, preference_ms, 3);
    assert_int_equal(s.final_receive_ms, 20);
    assert_int_equal(s.final_preference_ms, 0);
}

static void test_default_null_is_ignored(void **state) {
    (void)state;
    r_client_default_request_policy(NULL);
    r_request_policy_t p = default_policy();
    assert_int_equal(p.unit_ms, 20);
}

static void test_preset_default_equals_default(void **state) {
    (void)state;
    r_request_policy_t want = default_policy();
    r_request_policy_t got;
    memset(&got, 0xFF, sizeof got);
    assert_int_equal(r_client_request_policy_preset(&got, R_POLICY_DEFAULT), RCLIENT_OK);
    assert_memory_equal(&got, &want, sizeof got);
}

static void test_preset_api_md(void **state) {
    (void)state;
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_API_MD), RCLIENT_OK);
    assert_int_equal(p.preference.kind, R_HA_SCHEDULE_EXPONENTIAL);
    assert_int_equal(p.preference.growth.exponential_factor, 0);
    assert_int_equal(p.final_preference_units, 0);
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {20, 20};
    static const uint32_t preference_ms[] = {20, 0};
    assert_int_equal(s.ttl_ms, 60);
    assert_u32_array(s.round_ms, round_ms, 2);
    assert_u32_array(s.preference_ms, preference_ms, 2);
    assert_int_equal(s.final_receive_ms, 20);
    assert_int_equal(s.final_preference_ms, 0);
}

static void test_preset_strict_oldest(void **state) {
    (void)state;
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_STRICT_OLDEST), RCLIENT_OK);
    assert_int_equal(p.final_preference_units, 1);
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t ms[] = {20, 20};
    assert_int_equal(s.ttl_ms, 60);
    assert_u32_array(s.round_ms, ms, 2);
    assert_u32_array(s.preference_ms, ms, 2);
    assert_int_equal(s.final_receive_ms, 20);
    assert_int_equal(s.final_preference_ms, 20);
}

static void test_preset_oldest_preferred(void **state) {
    (void)state;
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_OLDEST_PREFERRED), RCLIENT_OK);
    assert_int_equal(p.unit_ms, 10);
    assert_int_equal(p.replay_gap.initial_units, 2);
    assert_int_equal(p.replay_gap.max_units, 2);
    assert_int_equal(p.preference.initial_units, 1);
    assert_int_equal(p.final_receive_units, 2);
    assert_int_equal(p.final_preference_units, 1);
    assert_true(p.completion_delivery);
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {20, 20};
    static const uint32_t preference_ms[] = {10, 10};
    assert_int_equal(s.ttl_ms, 60);
    assert_u32_array(s.round_ms, round_ms, 2);
    assert_u32_array(s.preference_ms, preference_ms, 2);
    assert_int_equal(s.final_receive_ms, 20);
    assert_int_equal(s.final_preference_ms, 10);
}

static void test_preset_fastest_valid(void **state) {
    (void)state;
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_FASTEST_VALID), RCLIENT_OK);
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {20, 20};
    static const uint32_t preference_ms[] = {0, 0};
    assert_int_equal(s.ttl_ms, 60);
    assert_u32_array(s.round_ms, round_ms, 2);
    assert_u32_array(s.preference_ms, preference_ms, 2);
    assert_int_equal(s.final_preference_ms, 0);
}

static void test_preset_rejects_unknown_and_null(void **state) {
    (void)state;
    r_request_policy_t p;
    memset(&p, 0x5A, sizeof p);
    r_request_policy_t before = p;
    assert_int_equal(r_client_request_policy_preset(&p, (r_policy_preset_t)5), RCLIENT_ERR_CONFIG);
    assert_memory_equal(&p, &before, sizeof p);
    assert_int_equal(r_client_request_policy_preset(NULL, R_POLICY_DEFAULT), RCLIENT_ERR_CONFIG);
}

/* ---- growth --------------------------------------------------------------- */

static void test_linear_growth_capped(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 10;
    p.replay_count = 4;
    p.replay_gap = sched(R_HA_SCHEDULE_LINEAR, 1, 6, 2);  /* 1 3 5 6 6 */
    p.preference = sched(R_HA_SCHEDULE_LINEAR, 0, 2, 1);  /* 0 1 2 2 2 */
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {10, 30, 50, 60, 60, 0};
    static const uint32_t preference_ms[] = {0, 10, 20, 20, 20, 0};
    assert_int_equal(s.ttl_ms, 220); /* 10 * (21 + 1) */
    assert_int_equal(s.rounds, 5);
    assert_u32_array(s.round_ms, round_ms, 6);
    assert_u32_array(s.preference_ms, preference_ms, 6);
}

static void test_linear_huge_step_saturates(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 16;
    p.replay_gap = sched(R_HA_SCHEDULE_LINEAR, 1, 100, UINT32_MAX);
    p.preference = sched(R_HA_SCHEDULE_FIXED, 0, 0, 0);
    p.final_receive_units = 0;
    r_policy_schedule_t s = accept(&p, 2000);
    assert_int_equal(s.ttl_ms, 1601); /* 1 + 16 * 100 */
    assert_int_equal(s.round_ms[0], 1);
    assert_int_equal(s.round_ms[16], 100);
}

static void test_exponential_growth_capped(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 5;
    p.replay_count = 5;
    p.replay_gap = sched(R_HA_SCHEDULE_EXPONENTIAL, 1, 10, 2); /* 1 2 4 8 10 10 */
    p.preference = sched(R_HA_SCHEDULE_EXPONENTIAL, 1, 4, 2); /* 1 2 4 4 4 4 */
    p.final_receive_units = 2;
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t round_ms[] = {5, 10, 20, 40, 50, 50};
    static const uint32_t preference_ms[] = {5, 10, 20, 20, 20, 20};
    assert_int_equal(s.ttl_ms, 185); /* 5 * (35 + 2) */
    assert_u32_array(s.round_ms, round_ms, 6);
    assert_u32_array(s.preference_ms, preference_ms, 6);
    assert_int_equal(s.final_receive_ms, 10);
}

static void test_exponential_huge_factor_saturates(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 16;
    p.replay_gap = sched(R_HA_SCHEDULE_EXPONENTIAL, 1, 100, UINT32_MAX);
    p.preference = sched(R_HA_SCHEDULE_EXPONENTIAL, 1, 50, UINT32_MAX);
    p.final_receive_units = 0;
    p.final_preference_units = 0;
    r_policy_schedule_t s = accept(&p, 2000);
    assert_int_equal(s.ttl_ms, 1601);
    assert_int_equal(s.rounds, 17);
    assert_int_equal(s.round_ms[0], 1);
    assert_int_equal(s.preference_ms[0], 1);
    for (size_t k = 1; k <= 16; k++) {
        assert_int_equal(s.round_ms[k], 100);
        assert_int_equal(s.preference_ms[k], 50);
    }
}

/* Products that are 0 modulo 2^32 must still saturate, not wrap to 0. */
static void test_linear_step_product_does_not_wrap(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 2;
    p.replay_gap = sched(R_HA_SCHEDULE_LINEAR, 1, 100, 2147483648u); /* 2 * 2^31 = 2^32 */
    static const uint32_t round_ms[] = {1, 100, 100};
    assert_u32_array(accept(&p, CANONICAL_DEDUP_MAX).round_ms, round_ms, 3);
}

static void test_exponential_product_does_not_wrap(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_gap = sched(R_HA_SCHEDULE_EXPONENTIAL, 2, 100, 2147483648u); /* 2 * 2^31 = 2^32 */
    static const uint32_t round_ms[] = {2, 100};
    assert_u32_array(accept(&p, CANONICAL_DEDUP_MAX).round_ms, round_ms, 2);
}

static void test_exponential_max_values_no_overflow(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 0;
    p.replay_gap = sched(R_HA_SCHEDULE_EXPONENTIAL, UINT32_MAX, UINT32_MAX, UINT32_MAX);
    p.preference = sched(R_HA_SCHEDULE_EXPONENTIAL, UINT32_MAX, UINT32_MAX, UINT32_MAX);
    p.final_receive_units = 0;
    r_policy_schedule_t s = accept(&p, UINT32_MAX);
    assert_int_equal(s.ttl_ms, UINT32_MAX);
    assert_int_equal(s.preference_ms[0], UINT32_MAX);
}

static void test_exponential_factor_zero_preference(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_count = 3;
    p.unit_ms = 10;
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, 2, 2, 0);
    p.preference = sched(R_HA_SCHEDULE_EXPONENTIAL, 2, 2, 0); /* 2 0 0 0 */
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    static const uint32_t preference_ms[] = {20, 0, 0, 0};
    assert_int_equal(s.ttl_ms, 90);
    assert_u32_array(s.preference_ms, preference_ms, 4);
}

static void test_exponential_factor_zero_gap(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_count = 0;
    p.replay_gap = sched(R_HA_SCHEDULE_EXPONENTIAL, 1, 1, 0);
    assert_int_equal(accept(&p, CANONICAL_DEDUP_MAX).ttl_ms, 40); /* B(0) = 1 only */
    p.replay_count = 1; /* B(1) = 0 */
    reject(&p, CANONICAL_DEDUP_MAX, "replay gaps must be positive");
}

/* ---- rejection rules, both sides of each boundary ------------------------ */

static void test_null_arguments(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    r_policy_schedule_t s;
    const char *why = NULL;
    assert_int_equal(r_client_policy_schedule(NULL, 300, &s, &why), RCLIENT_ERR_CONFIG);
    assert_non_null(why);
    assert_int_equal(r_client_policy_schedule(&p, 300, NULL, NULL), RCLIENT_OK); /* validate only */
    p.unit_ms = 0;
    assert_int_equal(r_client_policy_schedule(&p, 300, NULL, NULL), RCLIENT_ERR_CONFIG);
    p.unit_ms = 20;
    assert_int_equal(r_client_policy_schedule(&p, 300, &s, NULL), RCLIENT_OK); /* why may be NULL */
    assert_int_equal(s.ttl_ms, 60);
}

static void test_unit_ms_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    assert_int_equal(accept(&p, CANONICAL_DEDUP_MAX).ttl_ms, 3);
    p.unit_ms = 0;
    reject(&p, CANONICAL_DEDUP_MAX, "unit_ms");
}

static void test_replay_count_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 16;
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    assert_int_equal(s.rounds, 17);
    assert_int_equal(s.ttl_ms, 18);
    p.replay_count = 17;
    reject(&p, CANONICAL_DEDUP_MAX, "replay_count");
}

static void test_unknown_kind_rejected(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_gap.kind = (r_ha_schedule_kind_t)3;
    reject(&p, CANONICAL_DEDUP_MAX, "replay_gap.kind");
    p = default_policy();
    p.preference.kind = (r_ha_schedule_kind_t)3;
    reject(&p, CANONICAL_DEDUP_MAX, "preference.kind");
}

static void test_gap_initial_above_max(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, 2, 2, 0);
    assert_int_equal(accept(&p, CANONICAL_DEDUP_MAX).round_ms[0], 40);
    p.replay_gap.max_units = 1; /* api.md: a validity error, not a cap */
    reject(&p, CANONICAL_DEDUP_MAX, "replay_gap.initial_units exceeds");
}

static void test_preference_initial_above_max(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.preference = sched(R_HA_SCHEDULE_LINEAR, 1, 1, 0);
    assert_int_equal(accept(&p, CANONICAL_DEDUP_MAX).preference_ms[0], 20);
    p.preference.max_units = 0;
    reject(&p, CANONICAL_DEDUP_MAX, "preference.initial_units exceeds");
}

static void test_gap_zero_rejected(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, 0, 0, 0);
    p.preference = sched(R_HA_SCHEDULE_FIXED, 0, 0, 0);
    reject(&p, CANONICAL_DEDUP_MAX, "replay gaps must be positive");
}

static void test_preference_vs_gap_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, 2, 2, 0);
    p.preference = sched(R_HA_SCHEDULE_LINEAR, 1, 3, 1); /* 1 2: P(1) == B(1) */
    assert_int_equal(accept(&p, CANONICAL_DEDUP_MAX).preference_ms[1], 40);
    p.preference.growth.linear_step_units = 2; /* 1 3: P(1) == B(1) + 1 */
    reject(&p, CANONICAL_DEDUP_MAX, "P(k) exceeds");
}

static void test_final_preference_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.final_receive_units = 2;
    p.final_preference_units = 2;
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    assert_int_equal(s.final_preference_ms, 40);
    assert_int_equal(s.ttl_ms, 80);
    p.final_preference_units = 3;
    reject(&p, CANONICAL_DEDUP_MAX, "final_preference_units exceeds");
}

static void test_final_receive_zero(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.final_receive_units = 0;
    r_policy_schedule_t s = accept(&p, CANONICAL_DEDUP_MAX);
    assert_int_equal(s.ttl_ms, 40);
    assert_int_equal(s.final_receive_ms, 0);
    p.final_preference_units = 1;
    reject(&p, CANONICAL_DEDUP_MAX, "final_preference_units exceeds");
}

static void test_round_product_overflow(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = UINT32_MAX;
    p.replay_count = 0;
    p.final_receive_units = 0;
    assert_int_equal(accept(&p, UINT32_MAX).round_ms[0], UINT32_MAX);
    p.unit_ms = 2147483648u; /* 2^31 * 2 = 2^32, the first value that does not fit */
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, 2, 2, 0);
    reject(&p, UINT32_MAX, "B(k) * unit_ms overflows");
}

static void test_final_product_overflow(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 2147483648u; /* 2^31 */
    p.replay_count = 0;
    p.final_receive_units = 2;
    reject(&p, UINT32_MAX, "final_receive_units * unit_ms overflows");
}

static void test_horizon_sum_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 1;
    p.replay_count = 0;
    p.replay_gap = sched(R_HA_SCHEDULE_FIXED, UINT32_MAX - 1u, UINT32_MAX - 1u, 0);
    assert_int_equal(accept(&p, UINT32_MAX).ttl_ms, UINT32_MAX); /* (2^32 - 2) + F 1 */
    p.final_receive_units = 2;
    reject(&p, UINT32_MAX, "horizon H = U * (sum B(k) + F) overflows");
}

static void test_horizon_sum_of_rounds_overflow(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 2147483648u; /* each round 2^31 fits; two rounds do not */
    p.final_receive_units = 0;
    reject(&p, UINT32_MAX, "horizon H = U * (sum B(k) + F) overflows");
}

static void test_dedup_ttl_max_boundary(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    assert_int_equal(accept(&p, 60).ttl_ms, 60);
    reject(&p, 59, "dedup_ttl_ms_max");
    reject(&p, 0, "dedup_ttl_ms_max");
}

static void test_message_texts(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    r_policy_schedule_t s;
    const char *why = NULL;
    assert_int_equal(r_client_policy_schedule(&p, 50, &s, &why), RCLIENT_ERR_CONFIG);
    assert_string_equal(why, "policy: horizon H exceeds the key's dedup_ttl_ms_max");
    p.replay_count = 17;
    assert_int_equal(r_client_policy_schedule(&p, 50, &s, &why), RCLIENT_ERR_CONFIG);
    assert_string_equal(why, "policy: replay_count exceeds R_CLIENT_HA_MAX_REPLAY_COUNT (16)");
}

static void test_first_broken_rule_reported(void **state) {
    (void)state;
    r_request_policy_t p = default_policy();
    p.unit_ms = 0;       /* checked first */
    p.replay_count = 17; /* checked second */
    reject(&p, 0, "unit_ms");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_fields),
        cmocka_unit_test(test_default_schedule),
        cmocka_unit_test(test_default_null_is_ignored),
        cmocka_unit_test(test_preset_default_equals_default),
        cmocka_unit_test(test_preset_api_md),
        cmocka_unit_test(test_preset_strict_oldest),
        cmocka_unit_test(test_preset_oldest_preferred),
        cmocka_unit_test(test_preset_fastest_valid),
        cmocka_unit_test(test_preset_rejects_unknown_and_null),
        cmocka_unit_test(test_linear_growth_capped),
        cmocka_unit_test(test_linear_huge_step_saturates),
        cmocka_unit_test(test_exponential_growth_capped),
        cmocka_unit_test(test_exponential_huge_factor_saturates),
        cmocka_unit_test(test_linear_step_product_does_not_wrap),
        cmocka_unit_test(test_exponential_product_does_not_wrap),
        cmocka_unit_test(test_exponential_max_values_no_overflow),
        cmocka_unit_test(test_exponential_factor_zero_preference),
        cmocka_unit_test(test_exponential_factor_zero_gap),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_unit_ms_boundary),
        cmocka_unit_test(test_replay_count_boundary),
        cmocka_unit_test(test_unknown_kind_rejected),
        cmocka_unit_test(test_gap_initial_above_max),
        cmocka_unit_test(test_preference_initial_above_max),
        cmocka_unit_test(test_gap_zero_rejected),
        cmocka_unit_test(test_preference_vs_gap_boundary),
        cmocka_unit_test(test_final_preference_boundary),
        cmocka_unit_test(test_final_receive_zero),
        cmocka_unit_test(test_round_product_overflow),
        cmocka_unit_test(test_final_product_overflow),
        cmocka_unit_test(test_horizon_sum_boundary),
        cmocka_unit_test(test_horizon_sum_of_rounds_overflow),
        cmocka_unit_test(test_dedup_ttl_max_boundary),
        cmocka_unit_test(test_message_texts),
        cmocka_unit_test(test_first_broken_rule_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
