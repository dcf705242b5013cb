/* SPDX-License-Identifier: MIT */
/* Unit tests for rl_response_match (the block-by-block answer to a request:
 * wire_protocol.md "rate_response PDU", the request modified in place with
 * the counts copied; "Response Semantics"; r-client.md 5.2, 6.2.1) and for
 * rl_response_authenticate (framing and authentication without a request,
 * api.md "Datagrams and Timers"). Responses come from rr_builder.h, whose
 * guard i has ID bytes 0x10 + 16 i + k, ttl 60000, max_samples 100,
 * buffer 32, min samples 5, and resource i ID bytes 0x60 + 16 i + k, window 1000. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rr_builder.h"

/* The request guard that rr_builder's guard block `id_index` answers. */
static r_latency_guard_t req_guard(size_t id_index, uint32_t threshold) {
    r_latency_guard_t g;
    memset(&g, 0, sizeof g);
    for (size_t k = 0; k < 16; k++) g.latency_tracker_id[k] = (uint8_t)(0x10 + 16 * id_index + k);
    g.threshold_ms = threshold;
    g.ttl_ms = 60000;
    g.max_samples = 100;
    g.buffer_size = 32;
    g.min_sample_threshold = 5;
    return g;
}

static r_resource_request_t req_resource(size_t id_index) {
    r_resource_request_t r;
    memset(&r, 0, sizeof r);
    for (size_t k = 0; k < 16; k++) r.bucket_id[k] = (uint8_t)(0x60 + 16 * id_index + k);
    r.window_size_ms = 1000;
    r.rate_limit = 100;
    r.tokens_requested = 1;
    return r;
}

/* Parse buf (none mode) into *out; the views point into buf. */
static void parse_none(uint8_t *buf, size_t len, rl_rate_response_t *out) {
    rl_auth_t key;
    init_key(&key, R_AUTH_NONE);
    assert_int_equal(rl_parse_rate_response(&key, buf, len, REQ_UID, TRUSTED, 3, out, NULL), RL_VERDICT_OK);
    rl_auth_release(&key);
}

/* A response with guard blocks 0, 1 (echoed threshold 250) and resource blocks 0, 1. */
static size_t two_and_two(uint8_t *buf, uint32_t current0, uint32_t current1) {
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.n_guards = 2;
    s.threshold[0] = s.threshold[1] = 250;
    s.current[0] = current0;
    s.current[1] = current1;
    s.n_resources = 2;
    return build_rr(buf, &s);
}

static void test_positional_match_decides_with_requested_thresholds(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t resp;
    parse_none(buf, two_and_two(buf, 50, 50), &resp);
    assert_true(resp.success); /* alone: 50 < the echoed 250 */
    r_latency_guard_t g[2] = {req_guard(0, 100), req_guard(1, 10)};
    r_resource_request_t r[2] = {req_resource(0), req_resource(1)};
    rl_verdict_t v;
    assert_int_equal(rl_response_match(&resp, g, 2, r, 2, &v), RL_VERDICT_OK);
    assert_int_equal(v.code, RCLIENT_OK);
    assert_false(resp.success); /* guard 1: 50 >= 10 */
    g[1].threshold_ms = 51;
    assert_int_equal(rl_response_match(&resp, g, 2, r, 2, NULL), RL_VERDICT_OK);
    assert_true(resp.success);
}

static void test_deficit_denies_after_match(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.deficit[0] = 1;
    rl_rate_response_t resp;
    parse_none(buf, build_rr(buf, &s), &resp);
    r_latency_guard_t g = req_guard(0, 1000);
    r_resource_request_t r = req_resource(0);
    assert_int_equal(rl_response_match(&resp, &g, 1, &r, 1, NULL), RL_VERDICT_OK);
    assert_false(resp.success);
}

/* A mismatch is malformed / RCLIENT_ERR_PROTOCOL and leaves success as parsed. */
static void expect_mismatch(rl_rate_response_t *resp, const r_latency_guard_t *g, size_t ng,
                            const r_resource_request_t *r, size_t nr, const char *reason) {
    bool before = resp->success;
    rl_verdict_t v;
    assert_int_equal(rl_response_match(resp, g, ng, r, nr, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_PROTOCOL);
    assert_string_equal(v.reason, reason);
    assert_int_equal(resp->success, before);
}

static void test_counts_must_equal_the_request(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t resp;
    parse_none(buf, two_and_two(buf, 1, 1), &resp);
    r_latency_guard_t g[2] = {req_guard(0, 100), req_guard(1, 100)};
    r_resource_request_t r[3] = {req_resource(0), req_resource(1), req_resource(2)};
    expect_mismatch(&resp, g, 1, r, 2, "guard_count differs from the request's");
    expect_mismatch(&resp, g, 2, r, 3, "resource_count differs from the request's");
}

static void test_reordered_or_repeated_blocks_do_not_answer(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t resp;
    parse_none(buf, two_and_two(buf, 1, 1), &resp);
    r_latency_guard_t g[2] = {req_guard(1, 100), req_guard(0, 100)};
    r_resource_request_t r[2] = {req_resource(0), req_resource(1)};
    expect_mismatch(&resp, g, 2, r, 2, "a guard block does not answer the request's guard at its position");
    g[0] = req_guard(0, 100);
    g[1] = req_guard(1, 100);
    r[1] = req_resource(0); /* the request {0, 0} against the response {0, 1} */
    expect_mismatch(&resp, g, 2, r, 2, "a resource block does not answer the request's resource at its position");
}

/* Each identity-defining field of a guard and a resource, one at a time. */
static void test_every_identity_field_is_compared(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t resp;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    parse_none(buf, build_rr(buf, &s), &resp);
    r_resource_request_t r = req_resource(0);
    const char *guard_reason = "a guard block does not answer the request's guard at its position";
    for (int field = 0; field < 5; field++) {
        r_latency_guard_t g = req_guard(0, 1000);
        switch (field) {
        case 0: g.latency_tracker_id[15] ^= 1; break;
        case 1: g.ttl_ms++; break;
        case 2: g.max_samples++; break;
        case 3: g.buffer_size++; break;
        default: g.min_sample_threshold++; break;
        }
        expect_mismatch(&resp, &g, 1, &r, 1, guard_reason);
    }
    r_latency_guard_t g = req_guard(0, 1000);
    r.window_size_ms++;
    expect_mismatch(&resp, &g, 1, &r, 1, "a resource block does not answer the request's resource at its position");
    r = req_resource(0);
    r.bucket_id[0] ^= 1;
    expect_mismatch(&resp, &g, 1, &r, 1, "a resource block does not answer the request's resource at its position");
    r = req_resource(0);
    r.rate_limit = 5; /* reused as actual_rate in the response: not compared */
    r.tokens_requested = 9;
    assert_int_equal(rl_response_match(&resp, &g, 1, &r, 1, NULL), RL_VERDICT_OK);
}

static void test_empty_request_matches_empty_response(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.n_guards = 0;
    s.n_resources = 0;
    rl_rate_response_t resp;
    parse_none(buf, build_rr(buf, &s), &resp);
    assert_int_equal(rl_response_match(&resp, NULL, 0, NULL, 0, NULL), RL_VERDICT_OK);
    assert_true(resp.success);
}

static void test_match_invalid_arguments(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_rate_response_t resp;
    rr_spec_t s = default_spec(R_AUTH_NONE);
    parse_none(buf, build_rr(buf, &s), &resp);
    r_latency_guard_t g = req_guard(0, 100);
    r_resource_request_t r = req_resource(0);
    rl_verdict_t v;
    assert_int_equal(rl_response_match(NULL, &g, 1, &r, 1, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_response_match(&resp, NULL, 1, &r, 1, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_response_match(&resp, &g, 1, NULL, 1, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
}

/* ---- rl_response_authenticate: no request, no unique_id, no trust set ---------- */

static rl_verdict_t authenticate_with(r_auth_type_t key_mode, uint8_t *buf, size_t len) {
    rl_auth_t key;
    rl_verdict_t v = {.cls = 99, .code = 99, .reason = NULL};
    init_key(&key, key_mode);
    rl_verdict_class_t cls = rl_response_authenticate(&key, buf, len, &v);
    assert_int_equal(cls, v.cls);
    rl_auth_release(&key);
    return v;
}

static void test_authenticate_accepts_valid_looking(void **state) {
    (void)state;
    r_auth_type_t modes[3] = {R_AUTH_NONE, R_AUTH_COOKIE, R_AUTH_AES};
    for (int i = 0; i < 3; i++) {
        uint8_t buf[256];
        rr_spec_t s = default_spec(modes[i]);
        size_t len = build_rr(buf, &s);
        buf[OFF_UID] ^= 0xFF;           /* no request to correlate with */
        put64(buf + OFF_KEY_ID, 12345); /* no trust set to check */
        if (modes[i] == R_AUTH_AES) seal_aes(buf, len);
        rl_verdict_t v = authenticate_with(modes[i], buf, len);
        assert_int_equal(v.cls, RL_VERDICT_OK);
        assert_int_equal(v.code, RCLIENT_OK);
    }
}

static void test_authenticate_reports_framing_and_auth(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    put16(buf + pdu_off(R_AUTH_COOKIE) + PDU_SIZE, (uint32_t)(len - pdu_off(R_AUTH_COOKIE) + 1));
    rl_verdict_t v = authenticate_with(R_AUTH_COOKIE, buf, len);
    assert_int_equal(v.cls, RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_PROTOCOL);
    len = build_rr(buf, &s);
    buf[OFF_AUTH + 4] ^= 1;
    v = authenticate_with(R_AUTH_COOKIE, buf, len);
    assert_int_equal(v.cls, RL_VERDICT_AUTH);
    assert_int_equal(v.code, RCLIENT_ERR_AUTH);
    v = authenticate_with(R_AUTH_NONE, buf, len); /* cookie TLV under a none key */
    assert_int_equal(v.code, RCLIENT_ERR_AUTH);
    rr_spec_t a = default_spec(R_AUTH_AES);
    len = build_rr(buf, &a);
    seal_aes(buf, len);
    buf[len - 1] ^= 1;
    v = authenticate_with(R_AUTH_AES, buf, len);
    assert_int_equal(v.cls, RL_VERDICT_AUTH);
    assert_int_equal(v.code, RCLIENT_ERR_PROTOCOL);
}

static void test_authenticate_invalid_arguments(void **state) {
    (void)state;
    uint8_t buf[256];
    rl_auth_t key;
    memset(&key, 0, sizeof key); /* uninitialised key */
    rl_verdict_t v;
    assert_int_equal(rl_response_authenticate(&key, buf, sizeof buf, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_response_authenticate(NULL, buf, sizeof buf, NULL), RL_VERDICT_MALFORMED);
    init_key(&key, R_AUTH_NONE);
    assert_int_equal(rl_response_authenticate(&key, NULL, 0, &v), RL_VERDICT_MALFORMED);
    assert_int_equal(v.code, RCLIENT_ERR_CONFIG);
    rl_auth_release(&key);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_positional_match_decides_with_requested_thresholds),
        cmocka_unit_test(test_deficit_denies_after_match),
        cmocka_unit_test(test_counts_must_equal_the_request),
        cmocka_unit_test(test_reordered_or_repeated_blocks_do_not_answer),
        cmocka_unit_test(test_every_identity_field_is_compared),
        cmocka_unit_test(test_empty_request_matches_empty_response),
        cmocka_unit_test(test_match_invalid_arguments),
        cmocka_unit_test(test_authenticate_accepts_valid_looking),
        cmocka_unit_test(test_authenticate_reports_framing_and_auth),
        cmocka_unit_test(test_authenticate_invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
