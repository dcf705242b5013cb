/* SPDX-License-Identifier: MIT */
/* Unit tests for response.c, step 1 (malformed): every framing check of
 * rl_response.h on a datagram built by rr_builder.h, every truncation, and
 * the AES case where PDU checks run after decryption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rr_builder.h"

/* ---- malformed ------------------------------------------------------------------------- */

static void test_wrong_tenant_type(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(0, 0x53), "first TLV is not the tenant TLV");
}

static void test_wrong_tenant_size(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(2, 36), "tenant tlv_size is not 40");
    EXPECT_MALFORMED(cookie_patched(3, 1), "tenant tlv_size is not 40");
}

static void test_nonzero_tenant_padding(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(OFF_PAD, 1), "tenant padding is not zero");
    EXPECT_MALFORMED(cookie_patched(OFF_PAD + 1, 0x80), "tenant padding is not zero");
}

static void test_steering_feedback_2(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(OFF_STEER, 2), "steering_feedback is not 0 or 1");
}

static void test_tenant_mgmt_flag_2(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(OFF_MGMT, 2), "tenant_mgmt_flag is not 0 or 1");
}

static void test_auth_size_wrong_for_type(void **state) {
    (void)state;
    EXPECT_MALFORMED(cookie_patched(OFF_AUTH + 2, 32), "auth tlv_size wrong for its type");
    EXPECT_MALFORMED(cookie_patched(OFF_AUTH + 2, 3), "auth tlv_size out of range");
    EXPECT_MALFORMED(cookie_patched(OFF_AUTH + 3, 1), "auth tlv_size out of range"); /* > remaining */
}

static void test_pdu_size_one_short_or_long(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    size_t at = pdu_off(R_AUTH_COOKIE) + PDU_SIZE;
    buf[at] = (uint8_t)(buf[at] - 1);
    EXPECT_MALFORMED(parse_plain(R_AUTH_COOKIE, buf, len), "pdu_size does not match the remaining bytes");
    buf[at] = (uint8_t)(buf[at] + 2);
    EXPECT_MALFORMED(parse_plain(R_AUTH_COOKIE, buf, len), "pdu_size does not match the remaining bytes");
}

static void test_pdu_size_below_minimums(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    build_rr(buf, &s);
    buf[44 + PDU_SIZE] = 4;
    EXPECT_MALFORMED(parse_plain(R_AUTH_NONE, buf, 44 + 8), "pdu_size below 8");
    buf[44 + PDU_SIZE] = 8; /* an 8-byte RR PDU has no room for its counts */
    EXPECT_MALFORMED(parse_plain(R_AUTH_NONE, buf, 44 + 8), "rate_response pdu_size below 12");
}

static void test_reserved_nonzero(void **state) {
    (void)state;
    size_t at = pdu_off(R_AUTH_COOKIE);
    EXPECT_MALFORMED(cookie_patched(at + PDU_RES1, 1), "rate_response reserved field is not zero");
    EXPECT_MALFORMED(cookie_patched(at + PDU_RES2 + 1, 1), "rate_response reserved field is not zero");
}

static void test_counts_exceeding_pdu(void **state) {
    (void)state;
    size_t at = pdu_off(R_AUTH_COOKIE);
    EXPECT_MALFORMED(cookie_patched(at + PDU_GC, 2), "guard and resource counts exceed pdu_size");
    EXPECT_MALFORMED(cookie_patched(at + PDU_RC, 2), "guard and resource counts exceed pdu_size");
    EXPECT_MALFORMED(cookie_patched(at + PDU_GC + 1, 0xFF), "guard and resource counts exceed pdu_size");
}

static rl_verdict_t with_tlvs(const uint8_t *tlvs, size_t n) {
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_NONE);
    s.tlvs = tlvs;
    s.tlvs_len = n;
    size_t len = build_rr(buf, &s);
    return parse_plain(R_AUTH_NONE, buf, len);
}

static void test_bad_trailing_tlv(void **state) {
    (void)state;
    static const uint8_t size3[] = {0x58, 0x58, 0x03, 0x00};
    static const uint8_t overrun[] = {0x58, 0x58, 0x0C, 0x00, 1, 2, 3, 4};
    static const uint8_t stray[] = {0x58, 0x58, 0x04, 0x00, 0x00, 0x00};
    EXPECT_MALFORMED(with_tlvs(size3, sizeof size3), "trailing tlv_size below 4");
    EXPECT_MALFORMED(with_tlvs(overrun, sizeof overrun), "trailing TLV overruns the PDU");
    EXPECT_MALFORMED(with_tlvs(stray, sizeof stray), "truncated trailing TLV header");
}

static void check_every_truncation_malformed(r_auth_type_t mode) {
    static const uint8_t tlvs[] = {0x53, 0x4D, 0x08, 0x00, 1, 2, 3, 4};
    uint8_t buf[256];
    rr_spec_t s = default_spec(mode);
    s.tlvs = tlvs;
    s.tlvs_len = sizeof tlvs;
    size_t len = build_rr(buf, &s);
    for (size_t n = 0; n < len; n++) {
        assert_int_equal(parse_plain(mode, buf, n).cls, RL_VERDICT_MALFORMED);
    }
    assert_int_equal(parse_plain(mode, buf, len).cls, RL_VERDICT_OK);
}

static void test_every_truncation_malformed_none(void **state) {
    (void)state;
    check_every_truncation_malformed(R_AUTH_NONE);
}

static void test_every_truncation_malformed_cookie(void **state) {
    (void)state;
    check_every_truncation_malformed(R_AUTH_COOKIE);
}

/* AES hides pdu_size: a cut shorter than a PDU header is malformed, a longer
 * one fails the tag (auth class, code RCLIENT_ERR_PROTOCOL); never OK. */
static void test_every_truncation_rejected_aes(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_AES);
    size_t len = build_rr(buf, &s);
    seal_aes(buf, len);
    for (size_t n = 0; n < len; n++) {
        rl_verdict_t v = parse_plain(R_AUTH_AES, buf, n);
        if (n < 72 + 8) {
            assert_int_equal(v.cls, RL_VERDICT_MALFORMED);
        } else {
            expect(v, RL_VERDICT_AUTH, RCLIENT_ERR_PROTOCOL, "AES-GCM tag does not verify");
        }
    }
}

static void test_aes_pdu_longer_than_u16_malformed(void **state) {
    (void)state;
    size_t len = 72 + 0x10000;
    uint8_t *buf = calloc(1, len);
    assert_non_null(buf);
    rr_spec_t s = default_spec(R_AUTH_AES);
    build_rr(buf, &s);
    EXPECT_MALFORMED(parse_plain(R_AUTH_AES, buf, len), "PDU longer than any pdu_size");
    free(buf);
}

static void test_aes_malformed_plaintext_after_decrypt(void **state) {
    (void)state;
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_AES);
    size_t len = build_rr(buf, &s);
    buf[72 + PDU_RES1] = 1;
    seal_aes(buf, len);
    EXPECT_MALFORMED(parse_plain(R_AUTH_AES, buf, len), "rate_response reserved field is not zero");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wrong_tenant_type),
        cmocka_unit_test(test_wrong_tenant_size),
        cmocka_unit_test(test_nonzero_tenant_padding),
        cmocka_unit_test(test_steering_feedback_2),
        cmocka_unit_test(test_tenant_mgmt_flag_2),
        cmocka_unit_test(test_auth_size_wrong_for_type),
        cmocka_unit_test(test_pdu_size_one_short_or_long),
        cmocka_unit_test(test_pdu_size_below_minimums),
        cmocka_unit_test(test_reserved_nonzero),
        cmocka_unit_test(test_counts_exceeding_pdu),
        cmocka_unit_test(test_bad_trailing_tlv),
        cmocka_unit_test(test_every_truncation_malformed_none),
        cmocka_unit_test(test_every_truncation_malformed_cookie),
        cmocka_unit_test(test_every_truncation_rejected_aes),
        cmocka_unit_test(test_aes_pdu_longer_than_u16_malformed),
        cmocka_unit_test(test_aes_malformed_plaintext_after_decrypt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

