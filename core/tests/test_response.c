/* SPDX-License-Identifier: MIT */
/* Unit tests for response.c: accepted Rate Responses and their zero-copy
 * views, the success rule (wire_protocol.md "Response Semantics"), the auth
 * and correlation classes, check precedence (malformed, auth, correlation;
 * rl_response.h, vectors-schema.md), peek and argument handling.
 * Framing (malformed) checks are in test_response_malformed.c. Responses are
 * assembled by rr_builder.h; AES responses are sealed with rl_auth_seal, whose
 * output test_auth.c pins to an independent known answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rr_builder.h"

/* ---- accepted responses ----------------------------------------------------------- */

static void test_none_response_parses_all_fields(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rl_guard_view_t g;
    rl_resource_view_t r;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    size_t len = build_rr(buf, &s);
    rl_auth_t key;
    rl_verdict_t v;
    init_key(&key, R_AUTH_NONE);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, &out, &v), RL_VERDICT_OK);
    expect(v, RL_VERDICT_OK, RCLIENT_OK, "ok");
    assert_true(out.server_id == SERVER_ID);
    assert_true(out.time_stamp_ms == 0x0000018F12345678ull);
    assert_true(out.keep_port);
    assert_ptr_equal(out.unique_id, buf + OFF_UID);
    assert_int_equal(out.server_index, 2);
    assert_int_equal(out.guard_count, 1);
    assert_int_equal(out.resource_count, 1);
    assert_ptr_equal(out.guards, buf + 44 + 12);
    assert_ptr_equal(out.resources, buf + 44 + 12 + 40);
    assert_true(out.success);
    rl_response_guard_at(&out, 0, &g);
    assert_ptr_equal(g.latency_tracker_id, buf + 56);
    assert_int_equal(g.latency_tracker_id[15], 0x1F);
    assert_int_equal(g.ttl_ms, 60000);
    assert_int_equal(g.max_samples, 100);
    assert_int_equal(g.buffer_size, 32);
    assert_int_equal(g.min_sample_threshold, 5);
    assert_int_equal(g.latency_threshold, 250);
    assert_int_equal(g.current_latency, 100);
    assert_true(g.passed);
    rl_response_resource_at(&out, 0, &r);
    assert_int_equal(r.bucket_id[0], 0x60);
    assert_int_equal(r.window_size_ms, 1000);
    assert_int_equal(r.actual_rate, 7);
    assert_int_equal(r.tokens_deficit, 0);
}

static void test_cookie_response_accepted(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    s.steering = 0;
    size_t len = build_rr(buf, &s);
    expect(parse_with(R_AUTH_COOKIE, buf, len, &out, NULL), RL_VERDICT_OK, RCLIENT_OK, "ok");
    assert_false(out.keep_port);
    assert_true(out.success);
}

static void test_aes_response_decrypted_and_accepted(void **state) {
    (void)state;
    uint8_t buf[256];
    uint8_t plain[256];
    uint8_t after[256];
    rl_rate_response_t out;
    rr_spec_t s = default_spec(R_AUTH_AES);
    size_t len = build_rr(buf, &s);
    memcpy(plain, buf, len);
    seal_aes(buf, len);
    assert_memory_not_equal(buf + 72, plain + 72, len - 72);
    expect(parse_with(R_AUTH_AES, buf, len, &out, after), RL_VERDICT_OK, RCLIENT_OK, "ok");
    assert_memory_equal(after + 72, plain + 72, len - 72); /* decrypted in place */
    assert_int_equal(out.guard_count, 1);
    assert_int_equal(out.resource_count, 1);
    assert_true(out.server_id == SERVER_ID);
}

static void test_trailing_server_tlvs_accepted(void **state) {
    (void)state;
    static const uint8_t tlvs[] = {0x53, 0x4D, 0x08, 0x00, 1, 2, 3, 4, /* 8-byte server TLV */
                                   0x58, 0x58, 0x04, 0x00};            /* header-only TLV */
    uint8_t buf[256];
    rl_rate_response_t out;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.tlvs = tlvs;
    s.tlvs_len = sizeof tlvs;
    size_t len = build_rr(buf, &s);
    expect(parse_with(R_AUTH_NONE, buf, len, &out, NULL), RL_VERDICT_OK, RCLIENT_OK, "ok");
    assert_int_equal(out.resource_count, 1);
}

static void test_no_blocks_is_vacuous_success(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.n_guards = 0;
    s.n_resources = 0;
    size_t len = build_rr(buf, &s);
    expect(parse_with(R_AUTH_NONE, buf, len, &out, NULL), RL_VERDICT_OK, RCLIENT_OK, "ok");
    assert_true(out.success);
}

/* ---- success / deny ------------------------------------------------------------------- */

static bool success_of(rr_spec_t s) {
    uint8_t buf[512];
    rl_rate_response_t out;
    size_t len = build_rr(buf, &s);
    expect(parse_with(s.mode, buf, len, &out, NULL), RL_VERDICT_OK, RCLIENT_OK, "ok");
    return out.success;
}

static void test_current_below_threshold_passes(void **state) {
    (void)state;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.current[0] = 249;
    assert_true(success_of(s));
}

static void test_current_equal_threshold_denies(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rl_guard_view_t g;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    rl_auth_t key;
    s.current[0] = 250;
    size_t len = build_rr(buf, &s);
    init_key(&key, R_AUTH_NONE);
    /* Parsed in place: the views point into buf. */
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, &out, NULL), RL_VERDICT_OK);
    assert_false(out.success);
    rl_response_guard_at(&out, 0, &g);
    assert_int_equal(g.current_latency, 250);
    assert_false(g.passed);
}

static void test_current_above_threshold_denies(void **state) {
    (void)state;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.current[0] = 251;
    assert_false(success_of(s));
}

static void test_nonzero_deficit_denies(void **state) {
    (void)state;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.n_resources = 2;
    s.deficit[1] = 1;
    assert_false(success_of(s));
}

static void test_one_failing_guard_of_three_denies(void **state) {
    (void)state;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.n_guards = 3;
    s.threshold[1] = s.threshold[2] = 10;
    s.current[1] = 9;
    s.current[2] = 10;
    assert_false(success_of(s));
    s.current[2] = 0;
    assert_true(success_of(s));
}

/* ---- auth --------------------------------------------------------------------------------- */

static void test_aes_tag_tamper_is_auth_protocol(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_AES);
    size_t len = build_rr(buf, &s);
    seal_aes(buf, len);
    buf[56] ^= 0x01;
    expect(parse_plain(R_AUTH_AES, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_PROTOCOL, "AES-GCM tag does not verify");
}

static void test_cookie_mismatch_is_auth(void **state) {
    (void)state;
    expect(cookie_patched(44 + 31, 0x00), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, "cookie mismatch");
}

static void test_auth_type_mismatch_is_auth(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    size_t len = build_rr(buf, &s);
    const char *reason = "auth TLV type is not the key's mode";
    expect(parse_plain(R_AUTH_COOKIE, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, reason);
    expect(parse_plain(R_AUTH_AES, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, reason);
    s = default_spec(R_AUTH_AES);
    len = build_rr(buf, &s);
    seal_aes(buf, len);
    expect(parse_plain(R_AUTH_NONE, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, reason);
    buf[OFF_AUTH] = 0x5A; /* unknown auth type "ZE", size 32 */
    expect(parse_plain(R_AUTH_AES, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, reason);
}

/* ---- correlation --------------------------------------------------------------------------- */

static void test_wrong_pdu_kind(void **state) {
    (void)state;
    EXPECT_CORRELATION(cookie_patched(76, 0x4C), "PDU is not a rate_response"); /* "LR" */
}

static void test_tenant_mgmt_flag_1(void **state) {
    (void)state;
    EXPECT_CORRELATION(cookie_patched(OFF_MGMT, 1), "tenant_mgmt_flag is not 0");
}

static void test_wrong_unique_id(void **state) {
    (void)state;
    EXPECT_CORRELATION(cookie_patched(OFF_UID + 15, 0x00), "unique_id does not match the request");
}

static void test_untrusted_server_id(void **state) {
    (void)state;
    EXPECT_CORRELATION(cookie_patched(OFF_KEY_ID, 0x06), "server_id is not trusted");
}

static void test_empty_trusted_set(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rl_verdict_t v;
    rl_auth_t key;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    size_t len = build_rr(buf, &s);
    init_key(&key, R_AUTH_NONE);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, NULL, 0, &out, &v), RL_VERDICT_CORRELATION);
    assert_string_equal(v.reason, "server_id is not trusted");
}

/* ---- precedence ------------------------------------------------------------------------------ */

static void test_malformed_beats_bad_cookie(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    buf[44] ^= 0xFF;      /* cookie */
    buf[OFF_PAD] = 1;     /* tenant padding */
    EXPECT_MALFORMED(parse_plain(R_AUTH_COOKIE, buf, len), "tenant padding is not zero");
}

static void test_bad_cookie_beats_wrong_unique_id(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    buf[44] ^= 0xFF;
    buf[OFF_UID] ^= 0xFF;
    expect(parse_plain(R_AUTH_COOKIE, buf, len), RL_VERDICT_AUTH, RCLIENT_ERR_AUTH, "cookie mismatch");
}

static void test_malformed_beats_untrusted(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    size_t len = build_rr(buf, &s);
    buf[OFF_KEY_ID] ^= 0xFF;
    buf[44 + PDU_RES2] = 1;
    EXPECT_MALFORMED(parse_plain(R_AUTH_NONE, buf, len), "rate_response reserved field is not zero");
}

/* ---- peek, views, arguments --------------------------------------------------------------------- */

static void test_peek_returns_unique_id_without_key(void **state) {
    (void)state;
    uint8_t buf[256];
    const uint8_t *uid = NULL;
    rl_verdict_t v;
    rr_spec_t s = default_spec(R_AUTH_AES);
    size_t len = build_rr(buf, &s);
    seal_aes(buf, len);
    assert_int_equal(rl_response_peek(buf, len, &uid, &v), RL_VERDICT_OK);
    assert_ptr_equal(uid, buf + OFF_UID);
    assert_memory_equal(uid, REQ_UID, 16);
}

static void test_peek_rejects_bad_framing(void **state) {
    (void)state;
    uint8_t buf[256];
    const uint8_t *uid = NULL;
    rl_verdict_t v;
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    assert_int_equal(rl_response_peek(buf, 42, &uid, &v), RL_VERDICT_MALFORMED);
    assert_string_equal(v.reason, "truncated auth TLV header");
    buf[OFF_STEER] = 7;
    assert_int_equal(rl_response_peek(buf, len, &uid, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_PROTOCOL);
    assert_null(uid);
}

static void test_views_out_of_range_are_zeroed(void **state) {
    (void)state;
    rl_rate_response_t resp;
    rl_guard_view_t g;
    rl_resource_view_t r;
    memset(&resp, 0, sizeof resp);
    memset(&g, 0xFF, sizeof g);
    memset(&r, 0xFF, sizeof r);
    rl_response_guard_at(&resp, 0, &g);
    rl_response_resource_at(&resp, 0, &r);
    assert_null(g.latency_tracker_id);
    assert_int_equal(g.current_latency, 0);
    assert_null(r.bucket_id);
    assert_int_equal(r.tokens_deficit, 0);
}

static void test_invalid_arguments(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t out;
    rl_verdict_t v;
    rl_auth_t key;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    size_t len = build_rr(buf, &s);
    init_key(&key, R_AUTH_NONE);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, NULL, 2, &out, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_parse_rate_response(NULL, buf, len, REQ_UID, TRUSTED, 3, &out, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, NULL, TRUSTED, 3, &out, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, NULL, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, &out, NULL), RL_VERDICT_OK);
    rl_auth_release(&key);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, &out, &v), RL_VERDICT_MALFORMED);
    assert_string_equal(v.reason, "invalid argument");
}
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_none_response_parses_all_fields),
        cmocka_unit_test(test_cookie_response_accepted),
        cmocka_unit_test(test_aes_response_decrypted_and_accepted),
        cmocka_unit_test(test_trailing_server_tlvs_accepted),
        cmocka_unit_test(test_no_blocks_is_vacuous_success),
        cmocka_unit_test(test_current_below_threshold_passes),
        cmocka_unit_test(test_current_equal_threshold_denies),
        cmocka_unit_test(test_current_above_threshold_denies),
        cmocka_unit_test(test_nonzero_deficit_denies),
        cmocka_unit_test(test_one_failing_guard_of_three_denies),
        cmocka_unit_test(test_aes_tag_tamper_is_auth_protocol),
        cmocka_unit_test(test_cookie_mismatch_is_auth),
        cmocka_unit_test(test_auth_type_mismatch_is_auth),
        cmocka_unit_test(test_wrong_pdu_kind),
        cmocka_unit_test(test_tenant_mgmt_flag_1),
        cmocka_unit_test(test_wrong_unique_id),
        cmocka_unit_test(test_untrusted_server_id),
        cmocka_unit_test(test_empty_trusted_set),
        cmocka_unit_test(test_malformed_beats_bad_cookie),
        cmocka_unit_test(test_bad_cookie_beats_wrong_unique_id),
        cmocka_unit_test(test_malformed_beats_untrusted),
        cmocka_unit_test(test_peek_returns_unique_id_without_key),
        cmocka_unit_test(test_peek_rejects_bad_framing),
        cmocka_unit_test(test_views_out_of_range_are_zeroed),
        cmocka_unit_test(test_invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

