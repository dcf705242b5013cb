/* SPDX-License-Identifier: MIT */
/* Unit tests for wire_encode.c: byte-exact request and report datagrams
 * (expected bytes written by hand from wire_protocol.md "Tenant Header",
 * "Auth Header", "Rate Request", "Guard Blocks", "Resource Blocks", "Metrics
 * Label TLV Parameter", "Latency Report PDU"), size arithmetic, the 1200-byte
 * limit per auth mode (api.md "Capacity limits"), and quota checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_wire.h"

#define FILL 0xEEu /* buffers start dirty so every written byte is checked */

/* ---- fixture: one guard, one resource, label "api" --------------------------- */

static rl_tenant_header_t fixture_hdr(void) {
    rl_tenant_header_t h = {.key_id = 0x0102030405060708ull,
                            .time_stamp_ms = 0x0000018F12345678ull,
                            .steering_feedback = 1,
                            .tenant_mgmt_flag = 0};
    for (unsigned i = 0; i < 16; i++) {
        h.unique_id[i] = (uint8_t)(0xA0 + i);
    }
    return h;
}

static r_latency_guard_t fixture_guard(void) {
    r_latency_guard_t g = {.threshold_ms = 250, .ttl_ms = 60000, .max_samples = 100, .buffer_size = 32,
                           .min_sample_threshold = 5};
    for (unsigned i = 0; i < 16; i++) {
        g.latency_tracker_id[i] = (uint8_t)(0x10 + i);
    }
    return g;
}

static r_resource_request_t fixture_resource(void) {
    r_resource_request_t r = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 3};
    for (unsigned i = 0; i < 16; i++) {
        r.bucket_id[i] = (uint8_t)(0x20 + i);
    }
    return r;
}

static const uint8_t TENANT_BYTES[40] = {
    0x52, 0x4C, 0x28, 0x00,                         /* type "RL", tlv_size 40 */
    0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* key_id */
    0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, /* unique_id */
    0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF,
    0x78, 0x56, 0x34, 0x12, 0x8F, 0x01, 0x00, 0x00, /* time_stamp ms */
    0x01, 0x00, 0x00, 0x00,                         /* steering 1, mgmt 0, padding */
};

static const uint8_t RATE_PDU_BYTES[92] = {
    0x52, 0x54, 0x5C, 0x00,                         /* type "RT", pdu_size 92 */
    0x2C, 0x01, 0x00, 0x00,                         /* dedup_ttl_ms 300 */
    0x01, 0x00, 0x01, 0x00,                         /* guard_count 1, resource_count 1 */
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, /* latency_tracker_id */
    0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
    0x60, 0xEA, 0x00, 0x00,                         /* ttl_ms 60000 */
    0x64, 0x00, 0x00, 0x00,                         /* max_samples 100 */
    0x20, 0x00, 0x00, 0x00,                         /* buffer_size 32 */
    0x05, 0x00, 0x00, 0x00,                         /* min_sample_threshold 5 */
    0xFA, 0x00, 0x00, 0x00,                         /* latency_threshold 250 */
    0x00, 0x00, 0x00, 0x00,                         /* current_latency 0 */
    0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, /* bucket_id */
    0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F,
    0xE8, 0x03, 0x00, 0x00,                         /* window_size_ms 1000 */
    0x64, 0x00, 0x00, 0x00,                         /* rate_limit 100 */
    0x03, 0x00, 0x00, 0x00,                         /* tokens_requested 3, padding */
    0x4D, 0x4C, 0x0C, 0x00,                         /* type "ML", tlv_size 12 */
    0x03, 0x00, 0x61, 0x70, 0x69, 0x00, 0x00, 0x00, /* str_length 3, "api", padding */
};

static const uint8_t AUTH_NONE_BYTES[4] = {0x4E, 0x41, 0x04, 0x00};
static const uint8_t AUTH_COOKIE_HDR[4] = {0x43, 0x41, 0x24, 0x00};
static const uint8_t AUTH_AES_HDR[4] = {0x41, 0x45, 0x20, 0x00};

/* Expected datagram: tenant || auth header || zeroed auth body || PDU. */
static size_t expected_request(uint8_t *out, const uint8_t auth_hdr[4], size_t auth_size) {
    memcpy(out, TENANT_BYTES, 40);
    memcpy(out + 40, auth_hdr, 4);
    memset(out + 44, 0, auth_size - 4);
    memcpy(out + 40 + auth_size, RATE_PDU_BYTES, sizeof RATE_PDU_BYTES);
    return 40 + auth_size + sizeof RATE_PDU_BYTES;
}

static int encode_fixture(r_auth_type_t type, uint8_t *buf, size_t cap, size_t *len) {
    rl_tenant_header_t h = fixture_hdr();
    r_latency_guard_t g = fixture_guard();
    r_resource_request_t r = fixture_resource();
    memset(buf, FILL, cap);
    return rl_encode_rate_request(buf, cap, type, &h, 300, &g, 1, &r, 1, (const uint8_t *)"api", 3, len);
}

static void check_fixture_mode(r_auth_type_t type, const uint8_t auth_hdr[4], size_t auth_size) {
    uint8_t buf[1200];
    uint8_t want[1200];
    size_t len = 0;
    size_t want_len = expected_request(want, auth_hdr, auth_size);
    assert_int_equal(encode_fixture(type, buf, sizeof buf, &len), RCLIENT_OK);
    assert_int_equal(len, want_len);
    assert_memory_equal(buf, want, want_len);
    assert_int_equal(buf[want_len], FILL); /* nothing written past the datagram */
}

static void test_rate_request_none_bytes(void **state) {
    (void)state;
    check_fixture_mode(R_AUTH_NONE, AUTH_NONE_BYTES, 4);
}

static void test_rate_request_cookie_bytes(void **state) {
    (void)state;
    check_fixture_mode(R_AUTH_COOKIE, AUTH_COOKIE_HDR, 36);
}

static void test_rate_request_aes_bytes(void **state) {
    (void)state;
    check_fixture_mode(R_AUTH_AES, AUTH_AES_HDR, 32);
}

/* ---- metrics label TLV ---------------------------------------------------------- */

static void check_label(const char *label, const uint8_t *want_tlv, size_t want_tlv_len) {
    rl_tenant_header_t h = fixture_hdr();
    uint8_t buf[256];
    size_t len = 0;
    memset(buf, FILL, sizeof buf);
    size_t label_len = strlen(label);
    assert_int_equal(rl_encode_rate_request(buf, sizeof buf, R_AUTH_NONE, &h, 300, NULL, 0, NULL, 0,
                                            (const uint8_t *)label, label_len, &len),
                     RCLIENT_OK);
    assert_int_equal(len, 44 + 12 + want_tlv_len);
    assert_int_equal(buf[46] | (buf[47] << 8), 12 + want_tlv_len); /* pdu_size counts the TLV */
    assert_memory_equal(buf + 56, want_tlv, want_tlv_len);
}

static void test_label_len1_pads_to_8(void **state) {
    (void)state;
    static const uint8_t tlv[] = {0x4D, 0x4C, 0x08, 0x00, 0x01, 0x00, 'a', 0x00};
    check_label("a", tlv, sizeof tlv);
}

static void test_label_len2_needs_no_padding(void **state) {
    (void)state;
    static const uint8_t tlv[] = {0x4D, 0x4C, 0x08, 0x00, 0x02, 0x00, 'a', 'b'};
    check_label("ab", tlv, sizeof tlv);
}

static void test_label_len3_pads_to_12(void **state) {
    (void)state;
    static const uint8_t tlv[] = {0x4D, 0x4C, 0x0C, 0x00, 0x03, 0x00, 'a', 'b', 'c', 0x00, 0x00, 0x00};
    check_label("abc", tlv, sizeof tlv);
}

static void test_label_len4_pads_to_12(void **state) {
    (void)state;
    static const uint8_t tlv[] = {0x4D, 0x4C, 0x0C, 0x00, 0x04, 0x00, 'a', 'b', 'c', 'd', 0x00, 0x00};
    check_label("abcd", tlv, sizeof tlv);
}

static void test_label_len5_pads_to_12(void **state) {
    (void)state;
    static const uint8_t tlv[] = {0x4D, 0x4C, 0x0C, 0x00, 0x05, 0x00, 'a', 'b', 'c', 'd', 'e', 0x00};
    check_label("abcde", tlv, sizeof tlv);
}

static void test_empty_label_sends_no_tlv(void **state) {
    (void)state;
    rl_tenant_header_t h = fixture_hdr();
    uint8_t buf[128];
    size_t len = 0;
    memset(buf, FILL, sizeof buf);
    assert_int_equal(rl_encode_rate_request(buf, sizeof buf, R_AUTH_NONE, &h, 300, NULL, 0, NULL, 0,
                                            (const uint8_t *)"x", 0, &len),
                     RCLIENT_OK);
    assert_int_equal(len, 56);
    assert_int_equal(buf[46], 12);
    assert_int_equal(buf[56], FILL);
}

/* ---- size functions ----------------------------------------------------------- */

static void test_auth_tlv_size_per_mode(void **state) {
    (void)state;
    assert_int_equal(rl_auth_tlv_size(R_AUTH_NONE), 4);
    assert_int_equal(rl_auth_tlv_size(R_AUTH_COOKIE), 36);
    assert_int_equal(rl_auth_tlv_size(R_AUTH_AES), 32);
    assert_int_equal(rl_auth_tlv_size(R_AUTH_UNSPECIFIED), 0);
    assert_int_equal(rl_auth_tlv_size((r_auth_type_t)9), 0);
}

static void test_metrics_label_tlv_size(void **state) {
    (void)state;
    assert_int_equal(rl_metrics_label_tlv_size(0), 0);
    assert_int_equal(rl_metrics_label_tlv_size(1), 8);
    assert_int_equal(rl_metrics_label_tlv_size(2), 8);
    assert_int_equal(rl_metrics_label_tlv_size(3), 12);
    assert_int_equal(rl_metrics_label_tlv_size(6), 12);
    assert_int_equal(rl_metrics_label_tlv_size(7), 16);
    assert_true(rl_metrics_label_tlv_size(SIZE_MAX) == SIZE_MAX);
    assert_true(rl_metrics_label_tlv_size(SIZE_MAX - 8) == SIZE_MAX);
}

static void test_rate_request_size(void **state) {
    (void)state;
    assert_int_equal(rl_rate_request_size(R_AUTH_NONE, 1, 1, 3), 136);
    assert_int_equal(rl_rate_request_size(R_AUTH_COOKIE, 1, 1, 3), 168);
    assert_int_equal(rl_rate_request_size(R_AUTH_AES, 1, 1, 3), 164);
    assert_int_equal(rl_rate_request_size(R_AUTH_COOKIE, 0, 0, 0), 88);
    assert_int_equal(rl_rate_request_size(R_AUTH_UNSPECIFIED, 1, 1, 0), 0);
    assert_true(rl_rate_request_size(R_AUTH_AES, SIZE_MAX / 2, 0, 0) == SIZE_MAX);
    assert_true(rl_rate_request_size(R_AUTH_AES, 0, SIZE_MAX, 0) == SIZE_MAX);
}

static void test_latency_report_size(void **state) {
    (void)state;
    assert_int_equal(rl_latency_report_size(R_AUTH_NONE, 1), 92);
    assert_int_equal(rl_latency_report_size(R_AUTH_COOKIE, 30), 1168);
    assert_int_equal(rl_latency_report_size(R_AUTH_AES, 31), 1200);
    assert_int_equal(rl_latency_report_size((r_auth_type_t)9, 1), 0);
    assert_true(rl_latency_report_size(R_AUTH_NONE, SIZE_MAX) == SIZE_MAX);
}

/* ---- latency report --------------------------------------------------------------- */

static r_service_latency_report_t fixture_report(void) {
    r_service_latency_report_t s = {.ttl_ms = 60000, .max_samples = 100, .buffer_size = 32,
                                    .min_sample_threshold = 5, .observed_latency = 0x01020304};
    for (unsigned i = 0; i < 16; i++) {
        s.latency_tracker_id[i] = (uint8_t)(0x10 + i);
    }
    return s;
}

static void test_latency_report_cookie_bytes(void **state) {
    (void)state;
    static const uint8_t pdu[48] = {
        0x4C, 0x52, 0x30, 0x00,                         /* type "LR", pdu_size 48 */
        0x00, 0x00, 0x00, 0x00,                         /* reserved, reserved */
        0x01, 0x00, 0x00, 0x00,                         /* service_count 1, padding */
        0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, /* latency_tracker_id */
        0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
        0x60, 0xEA, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, /* ttl_ms, max_samples */
        0x20, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, /* buffer_size, min_sample_threshold */
        0x04, 0x03, 0x02, 0x01,                         /* observed_latency */
    };
    uint8_t want[124];
    memcpy(want, TENANT_BYTES, 40);
    memcpy(want + 40, AUTH_COOKIE_HDR, 4);
    memset(want + 44, 0, 32);
    memcpy(want + 76, pdu, sizeof pdu);
    rl_tenant_header_t h = fixture_hdr();
    r_service_latency_report_t s = fixture_report();
    uint8_t buf[200];
    size_t len = 0;
    memset(buf, FILL, sizeof buf);
    assert_int_equal(rl_encode_latency_report(buf, sizeof buf, R_AUTH_COOKIE, &h, &s, 1, &len), RCLIENT_OK);
    assert_int_equal(len, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
}

static void test_latency_report_pdu_size_is_12_plus_36n(void **state) {
    (void)state;
    rl_tenant_header_t h = fixture_hdr();
    r_service_latency_report_t s[3] = {fixture_report(), fixture_report(), fixture_report()};
    uint8_t buf[300];
    size_t len = 0;
    assert_int_equal(rl_encode_latency_report(buf, sizeof buf, R_AUTH_NONE, &h, s, 3, &len), RCLIENT_OK);
    assert_int_equal(len, 44 + 120);
    assert_int_equal(buf[46] | (buf[47] << 8), 120);
    assert_int_equal(buf[52], 3); /* service_count */
}

static void test_latency_report_rejects_zero_reports(void **state) {
    (void)state;
    rl_tenant_header_t h = fixture_hdr();
    r_service_latency_report_t s = fixture_report();
    uint8_t buf[200];
    size_t len = 7;
    assert_int_equal(rl_encode_latency_report(buf, sizeof buf, R_AUTH_NONE, &h, &s, 0, &len), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_latency_report(buf, sizeof buf, R_AUTH_NONE, &h, NULL, 1, &len), RCLIENT_ERR_CONFIG);
    assert_int_equal(len, 7);
}

/* ---- 1200-byte boundaries per auth mode ------------------------------------------------ */

static r_latency_guard_t many_guards[64];
static r_resource_request_t many_resources[64];
static r_service_latency_report_t many_reports[64];

static int encode_counts(r_auth_type_t type, size_t n_guards, size_t n_resources, size_t label_len) {
    static const uint8_t label[32] = "abcdefghijklmnopqrstuvwxyz01234";
    rl_tenant_header_t h = fixture_hdr();
    uint8_t buf[1500];
    size_t len = 0;
    int rc = rl_encode_rate_request(buf, sizeof buf, type, &h, 300, many_guards, n_guards, many_resources,
                                    n_resources, label, label_len, &len);
    if (rc == RCLIENT_OK) {
        assert_int_equal(len, rl_rate_request_size(type, n_guards, n_resources, label_len));
        assert_true(len <= 1200);
    }
    return rc;
}

static int encode_reports(r_auth_type_t type, size_t n) {
    rl_tenant_header_t h = fixture_hdr();
    uint8_t buf[1500];
    size_t len = 0;
    return rl_encode_latency_report(buf, sizeof buf, type, &h, many_reports, n, &len);
}

static void test_resource_limit_per_mode(void **state) {
    (void)state;
    assert_int_equal(encode_counts(R_AUTH_NONE, 0, 40, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_NONE, 0, 41, 0), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 0, 39, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 0, 40, 0), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_counts(R_AUTH_AES, 0, 39, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_AES, 0, 40, 0), RCLIENT_ERR_PROTOCOL);
}

static void test_guard_limit_per_mode(void **state) {
    (void)state;
    assert_int_equal(encode_counts(R_AUTH_NONE, 28, 0, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_NONE, 29, 0, 0), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 27, 0, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 28, 0, 0), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_counts(R_AUTH_AES, 27, 0, 0), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_AES, 28, 0, 0), RCLIENT_ERR_PROTOCOL);
}

static void test_report_limit_per_mode(void **state) {
    (void)state;
    assert_int_equal(encode_reports(R_AUTH_NONE, 31), RCLIENT_OK);
    assert_int_equal(encode_reports(R_AUTH_NONE, 32), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_reports(R_AUTH_COOKIE, 30), RCLIENT_OK);
    assert_int_equal(encode_reports(R_AUTH_COOKIE, 31), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_reports(R_AUTH_AES, 31), RCLIENT_OK); /* exactly 1200 bytes */
    assert_int_equal(encode_reports(R_AUTH_AES, 32), RCLIENT_ERR_PROTOCOL);
}

/* cookie, 39 resources = 1180 bytes; a 14-byte label (TLV 20) fills exactly
 * 1200, a 15-byte label (TLV 24) overflows. */
static void test_label_counts_toward_limit(void **state) {
    (void)state;
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 0, 39, 14), RCLIENT_OK);
    assert_int_equal(encode_counts(R_AUTH_COOKIE, 0, 39, 15), RCLIENT_ERR_PROTOCOL);
}

static void test_capacity_below_size_is_protocol(void **state) {
    (void)state;
    uint8_t buf[200];
    size_t len = 0;
    assert_int_equal(encode_fixture(R_AUTH_NONE, buf, 135, &len), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(encode_fixture(R_AUTH_NONE, buf, 136, &len), RCLIENT_OK);
    assert_int_equal(len, 136);
}

static void test_invalid_arguments_are_config(void **state) {
    (void)state;
    rl_tenant_header_t h = fixture_hdr();
    r_resource_request_t r = fixture_resource();
    uint8_t buf[200];
    size_t len = 0;
    assert_int_equal(rl_encode_rate_request(NULL, 200, R_AUTH_NONE, &h, 0, NULL, 0, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, NULL, 0, NULL, 0, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 1, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 0, NULL, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 0, &r, 1, NULL, 2, &len),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 0, &r, 1, NULL, 0, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_UNSPECIFIED, &h, 0, NULL, 0, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
}

static void test_reserved_boolean_values_are_config(void **state) {
    (void)state;
    rl_tenant_header_t h = fixture_hdr();
    r_resource_request_t r = fixture_resource();
    uint8_t buf[200];
    size_t len = 0;
    h.steering_feedback = 2;
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 0, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
    h.steering_feedback = 0;
    h.tenant_mgmt_flag = 2;
    assert_int_equal(rl_encode_rate_request(buf, 200, R_AUTH_NONE, &h, 0, NULL, 0, &r, 1, NULL, 0, &len),
                     RCLIENT_ERR_CONFIG);
}

/* ---- quota checks ---------------------------------------------------------------------- */

static const r_api_key_quotas_t QUOTAS = {.latency_buffer_size_max = 32, .rate_window_size_ms_max = 65536};

static void test_quota_buffer_size_at_max_ok(void **state) {
    (void)state;
    r_latency_guard_t g = fixture_guard();
    const char *why = NULL;
    g.buffer_size = 32;
    assert_int_equal(rl_check_request_quotas(&QUOTAS, &g, 1, NULL, 0, &why), RCLIENT_OK);
    assert_string_equal(why, "ok");
}

static void test_quota_buffer_size_above_max_rejected(void **state) {
    (void)state;
    r_latency_guard_t g[2] = {fixture_guard(), fixture_guard()};
    const char *why = NULL;
    g[1].buffer_size = 33;
    assert_int_equal(rl_check_request_quotas(&QUOTAS, g, 2, NULL, 0, &why), RCLIENT_ERR_PROTOCOL);
    assert_string_equal(why, "guard buffer_size exceeds latency_buffer_size_max");
}

static void test_quota_window_at_max_ok(void **state) {
    (void)state;
    r_resource_request_t r = fixture_resource();
    r.window_size_ms = 65536;
    assert_int_equal(rl_check_request_quotas(&QUOTAS, NULL, 0, &r, 1, NULL), RCLIENT_OK);
}

static void test_quota_window_above_max_rejected(void **state) {
    (void)state;
    r_resource_request_t r = fixture_resource();
    const char *why = NULL;
    r.window_size_ms = 65537;
    assert_int_equal(rl_check_request_quotas(&QUOTAS, NULL, 0, &r, 1, &why), RCLIENT_ERR_PROTOCOL);
    assert_string_equal(why, "resource window_size_ms exceeds rate_window_size_ms_max");
}

static void test_quota_full_u32_window_range(void **state) {
    (void)state;
    r_api_key_quotas_t q = QUOTAS;
    r_resource_request_t r = fixture_resource();
    q.rate_window_size_ms_max = 4294967295u;
    r.window_size_ms = 4294967295u;
    assert_int_equal(rl_check_request_quotas(&q, NULL, 0, &r, 1, NULL), RCLIENT_OK);
}

static void test_quota_invalid_arguments(void **state) {
    (void)state;
    r_resource_request_t r = fixture_resource();
    assert_int_equal(rl_check_request_quotas(NULL, NULL, 0, &r, 1, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_check_request_quotas(&QUOTAS, NULL, 1, NULL, 0, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_check_request_quotas(&QUOTAS, NULL, 0, NULL, 1, NULL), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_request_none_bytes),
        cmocka_unit_test(test_rate_request_cookie_bytes),
        cmocka_unit_test(test_rate_request_aes_bytes),
        cmocka_unit_test(test_label_len1_pads_to_8),
        cmocka_unit_test(test_label_len2_needs_no_padding),
        cmocka_unit_test(test_label_len3_pads_to_12),
        cmocka_unit_test(test_label_len4_pads_to_12),
        cmocka_unit_test(test_label_len5_pads_to_12),
        cmocka_unit_test(test_empty_label_sends_no_tlv),
        cmocka_unit_test(test_auth_tlv_size_per_mode),
        cmocka_unit_test(test_metrics_label_tlv_size),
        cmocka_unit_test(test_rate_request_size),
        cmocka_unit_test(test_latency_report_size),
        cmocka_unit_test(test_latency_report_cookie_bytes),
        cmocka_unit_test(test_latency_report_pdu_size_is_12_plus_36n),
        cmocka_unit_test(test_latency_report_rejects_zero_reports),
        cmocka_unit_test(test_resource_limit_per_mode),
        cmocka_unit_test(test_guard_limit_per_mode),
        cmocka_unit_test(test_report_limit_per_mode),
        cmocka_unit_test(test_label_counts_toward_limit),
        cmocka_unit_test(test_capacity_below_size_is_protocol),
        cmocka_unit_test(test_invalid_arguments_are_config),
        cmocka_unit_test(test_reserved_boolean_values_are_config),
        cmocka_unit_test(test_quota_buffer_size_at_max_ok),
        cmocka_unit_test(test_quota_buffer_size_above_max_rejected),
        cmocka_unit_test(test_quota_window_at_max_ok),
        cmocka_unit_test(test_quota_window_above_max_rejected),
        cmocka_unit_test(test_quota_full_u32_window_range),
        cmocka_unit_test(test_quota_invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
