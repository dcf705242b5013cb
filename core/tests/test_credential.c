/* SPDX-License-Identifier: MIT */
/* Unit tests for credential.c: wire_protocol.md "Bech32 Credential Formats",
 * "Credential Validation Rules"; api.md "Credentials", "Configuration".
 * Accepted keys give exact fields; each rejection class is reported first-
 * applicable in the order bech32, hrp, length, version, quota, with an exact
 * message; failures leave the output untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_bech32.h"
#include "rl_credential.h"
#include "rl_le.h"

#define DEFAULT_WORD 0xf8f2b150u

/* Published by other clients (../shared/external/public_api_key.json). */
static const char EXTERNAL_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys";
static const char EXTERNAL_LEGACY_AES[] =
    "rl-aes1qvqqqqqqqqqqqqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqqqqzqqqqsqqqqqsqqqyqqqqqquzv6tw";
/* Computed with an independent script: key_id 0x1122334455667788, secret 00..1f, default quota. */
static const char COOKIE_TEXT[] =
    "rl-cookie1qxy8wej4gsejyygqqypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7ragtruhclsczcx";
/* key_id 42, secret a5 x 32, default quota. */
static const char AES_TEXT[] = "rl-aes1qy4qqqqqqqqqqq995kj6tfd95kj6tfd95kj6tfd95kj6tfd95kj6tfd95kj6tfd954gtruhcvmxy98";
/* rl-secret of bytes 20..3f. */
static const char SECRET_TEXT[] = "rl-secret1yqsjygeyy5nzw2pf9g4jctfw9ucrzv3nxs6nvdec8yark0pa8clsc676u9";

/* Build an API-key payload of any length: version, key_id, optional secret, quota word. */
static size_t api_payload(uint8_t *buf, uint8_t version, uint64_t key_id, int with_secret, uint32_t quota) {
    buf[0] = version;
    rl_store_u64(buf + 1, key_id);
    size_t n = 9;
    if (with_secret) {
        for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
            buf[n + i] = (uint8_t)(0xc0 + i);
        }
        n += R_CLIENT_SECRET_LEN;
    }
    rl_store_u32(buf + n, quota);
    return n + 4;
}

static void make_key(char *text, size_t cap, const char *hrp, const uint8_t *payload, size_t len) {
    assert_true(rl_bech32_encode(hrp, payload, len, text, cap) > 0);
}

static void make_none_key(char *text, size_t cap, uint8_t version, uint32_t quota) {
    uint8_t p[16];
    size_t n = api_payload(p, version, 7, 0, quota);
    make_key(text, cap, "rl-none", p, n);
}

/* Expect rejection with the given class and message, and out_info untouched. */
static void expect_reject(const char *key, size_t key_len, r_key_error_t reason, const char *message) {
    r_auth_key_info_t info;
    memset(&info, 0x77, sizeof(info));
    r_auth_key_info_t before = info;
    r_key_diag_t diag;
    memset(&diag, 0, sizeof(diag));
    assert_int_equal(r_client_parse_auth_key_diag(key, key_len, &info, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, reason);
    if (message != NULL) {
        assert_string_equal(diag.message, message);
    }
    assert_memory_equal(&info, &before, sizeof(info));
    assert_int_equal(r_client_parse_auth_key(key, key_len, &info), RCLIENT_ERR_CONFIG);
    assert_memory_equal(&info, &before, sizeof(info));
}

static void test_external_rl_none(void **state) {
    (void)state;
    r_auth_key_info_t info;
    r_key_diag_t diag;
    assert_int_equal(r_client_parse_auth_key_diag(EXTERNAL_NONE, 0, &info, &diag), RCLIENT_OK);
    assert_int_equal(diag.reason, R_KEY_OK);
    assert_int_equal(info.type, R_AUTH_NONE);
    assert_true(info.key_id == 72623859790382856ull);
    assert_false(info.has_secret);
    uint8_t zero[R_CLIENT_SECRET_LEN] = {0};
    assert_memory_equal(info.secret, zero, sizeof(zero));
    assert_int_equal(info.quota_word, DEFAULT_WORD);
    assert_int_equal(info.quotas.rate_buckets_max, 65536);
    assert_int_equal(info.quotas.latency_services_max, 1024);
    assert_int_equal(info.quotas.metrics_labels_max, 4096);
    assert_int_equal(info.quotas.latency_buffer_size_max, 32);
    assert_int_equal(info.quotas.dedup_ttl_ms_max, 300);
    assert_int_equal(info.quotas.rate_window_size_ms_max, 4294967295u);
}

static void test_external_legacy_aes_is_length(void **state) {
    (void)state;
    expect_reject(EXTERNAL_LEGACY_AES, 0, R_KEY_ERR_LENGTH, "length: rl-aes payload is 56 bytes, expected 45");
}

static void test_hard_coded_cookie(void **state) {
    (void)state;
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key(COOKIE_TEXT, 0, &info), RCLIENT_OK);
    assert_int_equal(info.type, R_AUTH_COOKIE);
    assert_true(info.key_id == 0x1122334455667788ull);
    assert_true(info.has_secret);
    for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
        assert_int_equal(info.secret[i], i);
    }
    assert_int_equal(info.quota_word, DEFAULT_WORD);
}

static void test_hard_coded_aes(void **state) {
    (void)state;
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key(AES_TEXT, 0, &info), RCLIENT_OK);
    assert_int_equal(info.type, R_AUTH_AES);
    assert_true(info.key_id == 42);
    assert_true(info.has_secret);
    uint8_t a5[R_CLIENT_SECRET_LEN];
    memset(a5, 0xa5, sizeof(a5));
    assert_memory_equal(info.secret, a5, sizeof(a5));
    assert_int_equal(info.quotas.dedup_ttl_ms_max, 300);
}

static void test_encode_matches_hard_coded(void **state) {
    (void)state;
    r_auth_key_info_t info;
    memset(&info, 0, sizeof(info));
    info.type = R_AUTH_COOKIE;
    info.key_id = 0x1122334455667788ull;
    for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
        info.secret[i] = (uint8_t)i;
    }
    info.quota_word = DEFAULT_WORD;
    char out[128];
    assert_int_equal(rl_credential_encode(&info, out, sizeof(out)), (int)strlen(COOKIE_TEXT));
    assert_string_equal(out, COOKIE_TEXT);
    info.type = R_AUTH_NONE;
    info.key_id = 72623859790382856ull;
    assert_int_equal(rl_credential_encode(&info, out, sizeof(out)), 35);
    assert_string_equal(out, EXTERNAL_NONE);
}

static void test_encode_parse_round_trip_aes(void **state) {
    (void)state;
    r_auth_key_info_t in;
    memset(&in, 0, sizeof(in));
    in.type = R_AUTH_AES;
    in.key_id = UINT64_MAX;
    in.has_secret = true;
    for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
        in.secret[i] = (uint8_t)(0xff - i);
    }
    in.quota_word = 0x06400000u | (24u << 5) | 24u; /* dedup 200, window 0, rate/latency 24 */
    assert_int_equal(r_client_decode_quota_word(in.quota_word, &in.quotas, NULL), RCLIENT_OK);
    char text[128];
    assert_true(rl_credential_encode(&in, text, sizeof(text)) > 0);
    r_auth_key_info_t out;
    assert_int_equal(r_client_parse_auth_key(text, 0, &out), RCLIENT_OK);
    assert_memory_equal(&out, &in, sizeof(in));
}

static void test_uppercase_accepted(void **state) {
    (void)state;
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key("RL-NONE1QYYQWPS9QSPSYQ2SK8E0SFDP3YS", 0, &info), RCLIENT_OK);
    assert_int_equal(info.type, R_AUTH_NONE);
    assert_true(info.key_id == 72623859790382856ull);
}

static void test_explicit_key_len(void **state) {
    (void)state;
    char buf[64];
    memcpy(buf, EXTERNAL_NONE, sizeof(EXTERNAL_NONE) - 1);
    memcpy(buf + sizeof(EXTERNAL_NONE) - 1, "zzzz", 5); /* bytes past key_len are ignored */
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key(buf, sizeof(EXTERNAL_NONE) - 1, &info), RCLIENT_OK);
    assert_true(info.key_id == 72623859790382856ull);
}

static void test_reject_bech32_reasons(void **state) {
    (void)state;
    expect_reject("rl-none1QYYQWPS9QSPSYQ2SK8E0SFDP3YS", 0, R_KEY_ERR_BECH32, "bech32: mixed upper and lower case");
    expect_reject("rl-noneqyyqwps9qspsyq2sk8e0sfdp3ys", 0, R_KEY_ERR_BECH32, "bech32: no '1' separator");
    expect_reject("rl-none1qyyqwps9qspsyq2sk8e0sfdp3yb", 0, R_KEY_ERR_BECH32,
                  "bech32: character not in the bech32 charset");
    expect_reject("rl-none1qyyqwps9qspsyq2sk8e0sfdp3yq", 0, R_KEY_ERR_BECH32, "bech32: invalid checksum");
    expect_reject("rl-none1qyyqwps9qspsyq2sk8e035m4yez", 0, R_KEY_ERR_BECH32, "bech32: non-zero padding bits");
    expect_reject("rl-none1qyyqwps9qspsyq2sk8e0sqwrpajw", 0, R_KEY_ERR_BECH32, "bech32: more than 4 padding bits");
    expect_reject("", 0, R_KEY_ERR_BECH32, "bech32: no '1' separator");
    expect_reject("rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys ", 36, R_KEY_ERR_BECH32,
                  "bech32: character outside printable ASCII 33..126");
}

static void test_reject_unknown_hrp(void **state) {
    (void)state;
    uint8_t p[16];
    size_t n = api_payload(p, 1, 7, 0, DEFAULT_WORD);
    char text[128];
    make_key(text, sizeof(text), "rl-nope", p, n);
    expect_reject(text, 0, R_KEY_ERR_HRP, "hrp: unknown, expected rl-none, rl-cookie or rl-aes");
}

static void test_reject_rl_secret_as_api_key(void **state) {
    (void)state;
    expect_reject(SECRET_TEXT, 0, R_KEY_ERR_HRP, "hrp: rl-secret is not an API key");
}

static void test_reject_each_wrong_length(void **state) {
    (void)state;
    uint8_t p[80];
    memset(p, 0, sizeof(p));
    p[0] = 1;
    char text[256];
    static const struct { const char *hrp; size_t len; const char *msg; } cases[] = {
        {"rl-none", 12, "length: rl-none payload is 12 bytes, expected 13"},
        {"rl-none", 14, "length: rl-none payload is 14 bytes, expected 13"},
        {"rl-none", 45, "length: rl-none payload is 45 bytes, expected 13"},
        {"rl-cookie", 13, "length: rl-cookie payload is 13 bytes, expected 45"},
        {"rl-cookie", 44, "length: rl-cookie payload is 44 bytes, expected 45"},
        {"rl-cookie", 46, "length: rl-cookie payload is 46 bytes, expected 45"},
        {"rl-cookie", 56, "length: rl-cookie payload is 56 bytes, expected 45"},
        {"rl-aes", 60, "length: rl-aes payload is 60 bytes, expected 45"},
        {"rl-aes", 0, "length: rl-aes payload is 0 bytes, expected 45"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        make_key(text, sizeof(text), cases[i].hrp, p, cases[i].len);
        expect_reject(text, 0, R_KEY_ERR_LENGTH, cases[i].msg);
    }
}

static void test_reject_payload_past_bech32_max(void **state) {
    (void)state;
    uint8_t p[200];
    memset(p, 1, sizeof(p));
    char text[512];
    make_key(text, sizeof(text), "rl-aes", p, sizeof(p));
    expect_reject(text, 0, R_KEY_ERR_LENGTH, "length: rl-aes payload is 200 bytes, expected 45");
}

static void test_reject_version_0_and_2(void **state) {
    (void)state;
    char text[128];
    make_none_key(text, sizeof(text), 0, DEFAULT_WORD);
    expect_reject(text, 0, R_KEY_ERR_VERSION, "version: format_version 0, expected 1");
    make_none_key(text, sizeof(text), 2, DEFAULT_WORD);
    expect_reject(text, 0, R_KEY_ERR_VERSION, "version: format_version 2, expected 1");
    uint8_t p[48];
    size_t n = api_payload(p, 2, 9, 1, DEFAULT_WORD);
    make_key(text, sizeof(text), "rl-aes", p, n);
    expect_reject(text, 0, R_KEY_ERR_VERSION, "version: format_version 2, expected 1");
}

static uint32_t quota_word(uint32_t rate_exp, uint32_t dedup_units, uint32_t window_exp) {
    return rate_exp | (10u << 5) | (12u << 10) | (5u << 15) | (dedup_units << 19) | (window_exp << 27);
}

static void expect_none_quota_ok(uint32_t quota, uint32_t rate_max, uint32_t dedup_max, uint32_t window_max) {
    char text[128];
    make_none_key(text, sizeof(text), 1, quota);
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key(text, 0, &info), RCLIENT_OK);
    assert_int_equal(info.quota_word, quota);
    assert_int_equal(info.quotas.rate_buckets_max, rate_max);
    assert_int_equal(info.quotas.dedup_ttl_ms_max, dedup_max);
    assert_int_equal(info.quotas.rate_window_size_ms_max, window_max);
}

static void test_quota_rate_exp_bounds(void **state) {
    (void)state;
    char text[128];
    expect_none_quota_ok(quota_word(24, 30, 31), 16777216, 300, 4294967295u);
    make_none_key(text, sizeof(text), 1, quota_word(25, 30, 31));
    expect_reject(text, 0, R_KEY_ERR_QUOTA, "quota: rate_exp 25 above 24");
}

static void test_quota_latency_exp_25(void **state) {
    (void)state;
    char text[128];
    make_none_key(text, sizeof(text), 1, quota_word(16, 30, 31) | (31u << 5));
    expect_reject(text, 0, R_KEY_ERR_QUOTA, "quota: latency_exp 31 above 24");
}

static void test_quota_dedup_bounds(void **state) {
    (void)state;
    char text[128];
    make_none_key(text, sizeof(text), 1, quota_word(16, 0, 31));
    expect_reject(text, 0, R_KEY_ERR_QUOTA, "quota: dedup_units 0 outside 1..200");
    expect_none_quota_ok(quota_word(16, 1, 31), 65536, 10, 4294967295u);
    expect_none_quota_ok(quota_word(16, 200, 31), 65536, 2000, 4294967295u);
    make_none_key(text, sizeof(text), 1, quota_word(16, 201, 31));
    expect_reject(text, 0, R_KEY_ERR_QUOTA, "quota: dedup_units 201 outside 1..200");
}

static void test_quota_window_30_and_31(void **state) {
    (void)state;
    expect_none_quota_ok(quota_word(16, 30, 30), 65536, 300, 1073741824);
    expect_none_quota_ok(quota_word(16, 30, 31), 65536, 300, 4294967295u);
}

static void test_quota_rejected_in_aes_key(void **state) {
    (void)state;
    uint8_t p[48];
    size_t n = api_payload(p, 1, 9, 1, quota_word(16, 0, 31));
    char text[128];
    make_key(text, sizeof(text), "rl-aes", p, n);
    expect_reject(text, 0, R_KEY_ERR_QUOTA, "quota: dedup_units 0 outside 1..200");
}

static void test_first_applicable_class_wins(void **state) {
    (void)state;
    uint8_t p[64] = {0};
    char text[160];
    /* rl-secret HRP with an API-key payload length: hrp before length */
    size_t n = api_payload(p, 1, 7, 0, DEFAULT_WORD);
    make_key(text, sizeof(text), "rl-secret", p, n);
    expect_reject(text, 0, R_KEY_ERR_HRP, "hrp: rl-secret is not an API key");
    /* wrong length and version 0: length before version */
    n = api_payload(p, 0, 7, 1, DEFAULT_WORD);
    make_key(text, sizeof(text), "rl-aes", p, n + 1);
    expect_reject(text, 0, R_KEY_ERR_LENGTH, "length: rl-aes payload is 46 bytes, expected 45");
    /* version 2 and an invalid quota: version before quota */
    make_none_key(text, sizeof(text), 2, 0);
    expect_reject(text, 0, R_KEY_ERR_VERSION, "version: format_version 2, expected 1");
    /* unknown HRP with a broken checksum: bech32 before hrp */
    expect_reject("zz1qyyqwps9qspsyq2sk8e0sfdp3ys", 0, R_KEY_ERR_BECH32, "bech32: invalid checksum");
}

static void test_null_arguments(void **state) {
    (void)state;
    r_auth_key_info_t info;
    r_key_diag_t diag;
    assert_int_equal(r_client_parse_auth_key(NULL, 0, &info), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_parse_auth_key(EXTERNAL_NONE, 0, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_parse_auth_key_diag(NULL, 0, &info, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, R_KEY_ERR_ARGUMENT);
    assert_string_equal(diag.message, "argument: key is NULL");
    assert_int_equal(r_client_parse_auth_key_diag(EXTERNAL_NONE, 0, NULL, &diag), RCLIENT_ERR_CONFIG);
    assert_string_equal(diag.message, "argument: out_info is NULL");
}

static void test_parse_secret_hard_coded(void **state) {
    (void)state;
    uint8_t secret[R_CLIENT_SECRET_LEN];
    r_key_diag_t diag;
    assert_int_equal(rl_credential_parse_secret(SECRET_TEXT, 0, secret, &diag), RCLIENT_OK);
    assert_int_equal(diag.reason, R_KEY_OK);
    for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
        assert_int_equal(secret[i], 0x20 + i);
    }
}

static void expect_secret_reject(const char *key, r_key_error_t reason, const char *message) {
    uint8_t secret[R_CLIENT_SECRET_LEN];
    memset(secret, 0x3c, sizeof(secret));
    uint8_t before[R_CLIENT_SECRET_LEN];
    memcpy(before, secret, sizeof(before));
    r_key_diag_t diag;
    assert_int_equal(rl_credential_parse_secret(key, 0, secret, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, reason);
    assert_string_equal(diag.message, message);
    assert_memory_equal(secret, before, sizeof(before));
}

static void test_parse_secret_rejects(void **state) {
    (void)state;
    expect_secret_reject(EXTERNAL_NONE, R_KEY_ERR_HRP, "hrp: expected rl-secret");
    expect_secret_reject(AES_TEXT, R_KEY_ERR_HRP, "hrp: expected rl-secret");
    expect_secret_reject("rl-secret1qqqqqq", R_KEY_ERR_BECH32, "bech32: invalid checksum");
    uint8_t p[33] = {0};
    char text[128];
    make_key(text, sizeof(text), "rl-secret", p, 31);
    expect_secret_reject(text, R_KEY_ERR_LENGTH, "length: rl-secret payload is 31 bytes, expected 32");
    make_key(text, sizeof(text), "rl-secret", p, 33);
    expect_secret_reject(text, R_KEY_ERR_LENGTH, "length: rl-secret payload is 33 bytes, expected 32");
}

static void test_parse_secret_null(void **state) {
    (void)state;
    uint8_t secret[R_CLIENT_SECRET_LEN];
    r_key_diag_t diag;
    assert_int_equal(rl_credential_parse_secret(NULL, 0, secret, &diag), RCLIENT_ERR_CONFIG);
    assert_int_equal(diag.reason, R_KEY_ERR_ARGUMENT);
    assert_int_equal(rl_credential_parse_secret(SECRET_TEXT, 0, NULL, NULL), RCLIENT_ERR_CONFIG);
}

static void test_credential_encode_rejects(void **state) {
    (void)state;
    r_auth_key_info_t info;
    memset(&info, 0, sizeof(info));
    info.type = R_AUTH_UNSPECIFIED;
    char out[128];
    assert_int_equal(rl_credential_encode(&info, out, sizeof(out)), -1);
    info.type = (r_auth_type_t)4;
    assert_int_equal(rl_credential_encode(&info, out, sizeof(out)), -1);
    info.type = R_AUTH_NONE;
    assert_int_equal(rl_credential_encode(NULL, out, sizeof(out)), -1);
    assert_int_equal(rl_credential_encode(&info, NULL, sizeof(out)), -1);
    assert_int_equal(rl_credential_encode(&info, out, 35), -1); /* 35 characters need 36 bytes */
    assert_int_equal(rl_credential_encode(&info, out, 36), 35);
}

static void test_default_tenant_dns_exact(void **state) {
    (void)state;
    char buf[64];
    assert_int_equal(r_client_format_default_tenant_dns(72623859790382856ull, buf, sizeof(buf)), RCLIENT_OK);
    assert_string_equal(buf, "c-72623859790382856.p0.ratelimitly.com");
    assert_int_equal(r_client_format_default_tenant_dns(0, buf, sizeof(buf)), RCLIENT_OK);
    assert_string_equal(buf, "c-0.p0.ratelimitly.com");
}

static void test_default_tenant_dns_longest_needs_42(void **state) {
    (void)state;
    char buf[42];
    assert_int_equal(r_client_format_default_tenant_dns(UINT64_MAX, buf, 42), RCLIENT_OK);
    assert_string_equal(buf, "c-18446744073709551615.p0.ratelimitly.com");
}

static void test_default_tenant_dns_too_small(void **state) {
    (void)state;
    char buf[42];
    memset(buf, '#', sizeof(buf));
    char before[42];
    memcpy(before, buf, sizeof(buf));
    assert_int_equal(r_client_format_default_tenant_dns(UINT64_MAX, buf, 41), RCLIENT_ERR_CONFIG);
    assert_memory_equal(buf, before, sizeof(buf));
    assert_int_equal(r_client_format_default_tenant_dns(0, buf, 22), RCLIENT_ERR_CONFIG); /* needs 23 */
    assert_int_equal(r_client_format_default_tenant_dns(0, buf, 0), RCLIENT_ERR_CONFIG);
    assert_memory_equal(buf, before, sizeof(buf));
    assert_int_equal(r_client_format_default_tenant_dns(0, NULL, 64), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_rl_none),
        cmocka_unit_test(test_external_legacy_aes_is_length),
        cmocka_unit_test(test_hard_coded_cookie),
        cmocka_unit_test(test_hard_coded_aes),
        cmocka_unit_test(test_encode_matches_hard_coded),
        cmocka_unit_test(test_encode_parse_round_trip_aes),
        cmocka_unit_test(test_uppercase_accepted),
        cmocka_unit_test(test_explicit_key_len),
        cmocka_unit_test(test_reject_bech32_reasons),
        cmocka_unit_test(test_reject_unknown_hrp),
        cmocka_unit_test(test_reject_rl_secret_as_api_key),
        cmocka_unit_test(test_reject_each_wrong_length),
        cmocka_unit_test(test_reject_payload_past_bech32_max),
        cmocka_unit_test(test_reject_version_0_and_2),
        cmocka_unit_test(test_quota_rate_exp_bounds),
        cmocka_unit_test(test_quota_latency_exp_25),
        cmocka_unit_test(test_quota_dedup_bounds),
        cmocka_unit_test(test_quota_window_30_and_31),
        cmocka_unit_test(test_quota_rejected_in_aes_key),
        cmocka_unit_test(test_first_applicable_class_wins),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_parse_secret_hard_coded),
        cmocka_unit_test(test_parse_secret_rejects),
        cmocka_unit_test(test_parse_secret_null),
        cmocka_unit_test(test_credential_encode_rejects),
        cmocka_unit_test(test_default_tenant_dns_exact),
        cmocka_unit_test(test_default_tenant_dns_longest_needs_42),
        cmocka_unit_test(test_default_tenant_dns_too_small),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
