/* SPDX-License-Identifier: MIT */
/* Unit tests for quota.c: wire_protocol.md "API-key quota word, format
 * version 1" - the canonical default, every field at both ends of its range,
 * each rejection with its exact message, and the encoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_credential.h"

#define DEFAULT_WORD 0xf8f2b150u

/* Pack the six codes (bits 0..4, 5..9, 10..14, 15..18, 19..26, 27..31). */
static uint32_t word(uint32_t rate_exp, uint32_t latency_exp, uint32_t labels_exp, uint32_t buffer_exp,
                     uint32_t dedup_units, uint32_t window_exp) {
    return rate_exp | (latency_exp << 5) | (labels_exp << 10) | (buffer_exp << 15) | (dedup_units << 19) |
           (window_exp << 27);
}

static r_api_key_quotas_t decode_ok(uint32_t w) {
    r_api_key_quotas_t q;
    memset(&q, 0, sizeof(q));
    r_key_diag_t diag;
    assert_int_equal(r_client_decode_quota_word(w, &q, &diag), RCLIENT_OK);
    assert_int_equal(diag.reason, R_KEY_OK);
    return q;
}

static void decode_bad(uint32_t w, const char *message) {
    r_api_key_quotas_t q;
    memset(&q, 0x5a, sizeof(q));
    r_api_key_quotas_t before = q;
    r_key_diag_t diag;
    assert_int_equal(r_client_decode_quota_word(w, &q, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, R_KEY_ERR_QUOTA);
    assert_string_equal(diag.message, message);
    assert_memory_equal(&q, &before, sizeof(q)); /* failure leaves the output untouched */
}

static void test_word_helper_matches_default_layout(void **state) {
    (void)state;
    assert_int_equal(word(16, 10, 12, 5, 30, 31), DEFAULT_WORD);
}

static void test_default_word(void **state) {
    (void)state;
    r_api_key_quotas_t q = decode_ok(DEFAULT_WORD);
    assert_int_equal(q.rate_buckets_max, 65536);
    assert_int_equal(q.latency_services_max, 1024);
    assert_int_equal(q.metrics_labels_max, 4096);
    assert_int_equal(q.latency_buffer_size_max, 32);
    assert_int_equal(q.dedup_ttl_ms_max, 300);
    assert_int_equal(q.rate_window_size_ms_max, 4294967295u);
}

static void test_all_minimum_codes(void **state) {
    (void)state;
    r_api_key_quotas_t q = decode_ok(word(0, 0, 0, 0, 1, 0));
    assert_int_equal(q.rate_buckets_max, 1);
    assert_int_equal(q.latency_services_max, 1);
    assert_int_equal(q.metrics_labels_max, 1);
    assert_int_equal(q.latency_buffer_size_max, 1);
    assert_int_equal(q.dedup_ttl_ms_max, 10);
    assert_int_equal(q.rate_window_size_ms_max, 1);
}

static void test_all_maximum_valid_codes(void **state) {
    (void)state;
    r_api_key_quotas_t q = decode_ok(word(24, 24, 31, 15, 200, 30));
    assert_int_equal(q.rate_buckets_max, 16777216);
    assert_int_equal(q.latency_services_max, 16777216);
    assert_int_equal(q.metrics_labels_max, 2147483648u);
    assert_int_equal(q.latency_buffer_size_max, 32768);
    assert_int_equal(q.dedup_ttl_ms_max, 2000);
    assert_int_equal(q.rate_window_size_ms_max, 1073741824);
}

static void test_window_exp_31_is_full_range(void **state) {
    (void)state;
    assert_int_equal(decode_ok(word(0, 0, 0, 0, 1, 31)).rate_window_size_ms_max, 4294967295u);
}

static void test_rate_exp_25_rejected(void **state) {
    (void)state;
    decode_bad(word(25, 10, 12, 5, 30, 31), "quota: rate_exp 25 above 24");
    decode_bad(word(31, 10, 12, 5, 30, 31), "quota: rate_exp 31 above 24");
}

static void test_latency_exp_25_rejected(void **state) {
    (void)state;
    decode_bad(word(16, 25, 12, 5, 30, 31), "quota: latency_exp 25 above 24");
    decode_bad(word(16, 31, 12, 5, 30, 31), "quota: latency_exp 31 above 24");
}

static void test_dedup_units_0_rejected(void **state) {
    (void)state;
    decode_bad(word(16, 10, 12, 5, 0, 31), "quota: dedup_units 0 outside 1..200");
}

static void test_dedup_units_201_rejected(void **state) {
    (void)state;
    decode_bad(word(16, 10, 12, 5, 201, 31), "quota: dedup_units 201 outside 1..200");
    decode_bad(word(16, 10, 12, 5, 255, 31), "quota: dedup_units 255 outside 1..200");
}

static void test_first_broken_rule_is_reported(void **state) {
    (void)state;
    decode_bad(word(25, 25, 0, 0, 0, 0), "quota: rate_exp 25 above 24");
    decode_bad(word(0, 25, 0, 0, 0, 0), "quota: latency_exp 25 above 24");
}

static void test_decode_diag_may_be_null(void **state) {
    (void)state;
    r_api_key_quotas_t q;
    assert_int_equal(r_client_decode_quota_word(DEFAULT_WORD, &q, NULL), RCLIENT_OK);
    assert_int_equal(q.dedup_ttl_ms_max, 300);
    assert_int_equal(r_client_decode_quota_word(0, &q, NULL), RCLIENT_ERR_CONFIG);
}

static void test_decode_null_out(void **state) {
    (void)state;
    r_key_diag_t diag;
    assert_int_equal(r_client_decode_quota_word(DEFAULT_WORD, NULL, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, R_KEY_ERR_ARGUMENT);
    assert_string_equal(diag.message, "argument: out_quotas is NULL");
}

static r_api_key_quotas_t default_quotas(void) {
    r_api_key_quotas_t q = {65536, 1024, 4096, 32, 300, 4294967295u};
    return q;
}

static void encode_bad(r_api_key_quotas_t q) {
    uint32_t w = 0x12345678u;
    assert_int_equal(rl_quota_encode(&q, &w), RCLIENT_ERR_CONFIG);
    assert_int_equal(w, 0x12345678u);
}

static void test_encode_default(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    uint32_t w = 0;
    assert_int_equal(rl_quota_encode(&q, &w), RCLIENT_OK);
    assert_int_equal(w, DEFAULT_WORD);
}

static void test_encode_extremes_round_trip(void **state) {
    (void)state;
    r_api_key_quotas_t lo = {1, 1, 1, 1, 10, 1};
    r_api_key_quotas_t hi = {1u << 24, 1u << 24, 1u << 31, 1u << 15, 2000, 1u << 30};
    uint32_t w = 0;
    assert_int_equal(rl_quota_encode(&lo, &w), RCLIENT_OK);
    assert_int_equal(w, word(0, 0, 0, 0, 1, 0));
    assert_int_equal(rl_quota_encode(&hi, &w), RCLIENT_OK);
    assert_int_equal(w, word(24, 24, 31, 15, 200, 30));
    r_api_key_quotas_t back = decode_ok(w);
    assert_memory_equal(&back, &hi, sizeof(hi));
}

static void test_encode_rejects_non_power_of_two(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    q.rate_buckets_max = 3;
    encode_bad(q);
    q = default_quotas();
    q.latency_services_max = 0;
    encode_bad(q);
    q = default_quotas();
    q.metrics_labels_max = 4095;
    encode_bad(q);
    q = default_quotas();
    q.latency_buffer_size_max = 33;
    encode_bad(q);
}

static void test_encode_rejects_out_of_range_exponents(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    q.rate_buckets_max = 1u << 25;
    encode_bad(q);
    q = default_quotas();
    q.latency_services_max = 1u << 25;
    encode_bad(q);
    q = default_quotas();
    q.latency_buffer_size_max = 1u << 16;
    encode_bad(q);
}

static void test_encode_rejects_bad_dedup(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    q.dedup_ttl_ms_max = 0;
    encode_bad(q);
    q.dedup_ttl_ms_max = 15;
    encode_bad(q);
    q.dedup_ttl_ms_max = 2010;
    encode_bad(q);
}

static void test_encode_rejects_bad_window(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    q.rate_window_size_ms_max = 1u << 31;
    encode_bad(q);
    q.rate_window_size_ms_max = 3000;
    encode_bad(q);
    q.rate_window_size_ms_max = 4294967294u;
    encode_bad(q);
}

static void test_encode_rejects_null(void **state) {
    (void)state;
    r_api_key_quotas_t q = default_quotas();
    uint32_t w = 0;
    assert_int_equal(rl_quota_encode(NULL, &w), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_quota_encode(&q, NULL), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_word_helper_matches_default_layout),
        cmocka_unit_test(test_default_word),
        cmocka_unit_test(test_all_minimum_codes),
        cmocka_unit_test(test_all_maximum_valid_codes),
        cmocka_unit_test(test_window_exp_31_is_full_range),
        cmocka_unit_test(test_rate_exp_25_rejected),
        cmocka_unit_test(test_latency_exp_25_rejected),
        cmocka_unit_test(test_dedup_units_0_rejected),
        cmocka_unit_test(test_dedup_units_201_rejected),
        cmocka_unit_test(test_first_broken_rule_is_reported),
        cmocka_unit_test(test_decode_diag_may_be_null),
        cmocka_unit_test(test_decode_null_out),
        cmocka_unit_test(test_encode_default),
        cmocka_unit_test(test_encode_extremes_round_trip),
        cmocka_unit_test(test_encode_rejects_non_power_of_two),
        cmocka_unit_test(test_encode_rejects_out_of_range_exponents),
        cmocka_unit_test(test_encode_rejects_bad_dedup),
        cmocka_unit_test(test_encode_rejects_bad_window),
        cmocka_unit_test(test_encode_rejects_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
