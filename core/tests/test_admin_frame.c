/* SPDX-License-Identifier: MIT */
/* Unit tests for the administrative frame (wire_protocol.md "Tenant Header",
 * "Administrative Authentication", "AES-256-GCM Normative Framing"): sealing
 * against an independent known answer (kat_admin_seal.py), opening, and each
 * framing rejection. */
#include <openssl/crypto.h>

#include "admin_test_util.h"

/* A Tenant Ack of an ADD from server_id 0x0123456789ABCDEF, unique_id a0..af,
 * time_stamp 1767225600123, steering 1, tenant_mgmt_flag 1, sealed under key
 * 40..5f with nonce c0..cb (pyca/cryptography, core/tests/kat_admin_seal.py). */
static const uint8_t KAT[84] = {
    0x52, 0x4c, 0x28, 0x00, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
    0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab,
    0xac, 0xad, 0xae, 0xaf, 0x7b, 0xa8, 0xda, 0x76, 0x9b, 0x01, 0x00, 0x00,
    0x01, 0x01, 0x00, 0x00, 0x41, 0x45, 0x20, 0x00, 0xc0, 0xc1, 0xc2, 0xc3,
    0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb, 0x8d, 0x95, 0x93, 0xfa,
    0xb5, 0x09, 0x25, 0x8c, 0xd0, 0xa9, 0xf6, 0x9a, 0x5c, 0x90, 0xdd, 0xfd,
    0x1e, 0x10, 0x3c, 0xce, 0x79, 0x9a, 0x3d, 0xeb, 0x74, 0xb9, 0x24, 0x36,
};
static const uint8_t ACK[12] = {0x41, 0x54, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0};

static r_admin_key_t *g_key;

static int setup(void **state) {
    (void)state;
    uint8_t k[32];
    for (int i = 0; i < 32; i++) k[i] = (uint8_t)(0x40 + i);
    return r_admin_key_create_raw(k, &g_key) == RCLIENT_OK ? 0 : -1;
}
static int teardown(void **state) {
    (void)state;
    r_admin_key_destroy(g_key);
    g_key = NULL;
    return 0;
}

static r_admin_header_t kat_header(void) {
    r_admin_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = 0x0123456789ABCDEFull;
    for (int i = 0; i < 16; i++) h.unique_id[i] = (uint8_t)(0xA0 + i);
    h.time_stamp_ms = 1767225600123ull;
    h.steering_feedback = 1;
    return h;
}
static const uint8_t NONCE[12] = {0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xcb};

static void test_seal_matches_known_answer(void **state) {
    (void)state;
    r_admin_header_t h = kat_header();
    uint8_t out[100];
    size_t n = 0;
    ASSERT_OK(r_admin_seal(g_key, &h, NONCE, ACK, sizeof ACK, out, sizeof out, &n, diag));
    assert_int_equal(n, 84);
    assert_memory_equal(out, KAT, 84);
}

static void test_open_known_answer(void **state) {
    (void)state;
    uint8_t d[84];
    memcpy(d, KAT, sizeof d);
    r_admin_header_t h;
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    ASSERT_OK(r_admin_open(g_key, d, sizeof d, &h, &pdu, &pdu_len, diag));
    assert_int_equal(pdu_len, 12);
    assert_ptr_equal(pdu, d + 72);
    assert_memory_equal(pdu, ACK, 12);
    assert_true(h.key_id == 0x0123456789ABCDEFull);
    assert_int_equal(h.unique_id[0], 0xA0);
    assert_true(h.time_stamp_ms == 1767225600123ull);
    assert_int_equal(h.steering_feedback, 1);
}

static void test_key_from_rl_secret(void **state) {
    (void)state;
    /* vectors/secret_key.json: secret 142e0d0e... */
    r_admin_key_t *k = NULL;
    r_key_diag_t kd;
    assert_int_equal(r_admin_key_create("rl-secret1zshq6r4z485qmssacaezgh9h9tz8h6cplqa7vkln8dlh9nvzavnsz55d6u", 0, &k,
                                        &kd),
                     RCLIENT_OK);
    assert_int_equal(kd.reason, R_KEY_OK);
    const uint8_t raw[32] = {0x14, 0x2e, 0x0d, 0x0e, 0xa2, 0xa9, 0xe8, 0x0d, 0xc2, 0x1d, 0xc7, 0x72, 0x24, 0x5c, 0xb7, 0x2a,
                             0xc4, 0x7b, 0xeb, 0x01, 0xf8, 0x3b, 0xe6, 0x5b, 0xf3, 0x3b, 0x7f, 0x72, 0xcd, 0x82, 0xeb, 0x27};
    r_admin_key_t *k2 = NULL;
    assert_int_equal(r_admin_key_create_raw(raw, &k2), RCLIENT_OK);
    r_admin_header_t h = kat_header();
    uint8_t a[84], b[84];
    size_t n = 0;
    assert_int_equal(r_admin_seal(k, &h, NONCE, ACK, 12, a, sizeof a, &n, NULL), RCLIENT_OK);
    assert_int_equal(r_admin_seal(k2, &h, NONCE, ACK, 12, b, sizeof b, &n, NULL), RCLIENT_OK);
    assert_memory_equal(a, b, 84);
    assert_memory_not_equal(a, KAT, 84);
    r_admin_key_destroy(k);
    r_admin_key_destroy(k2);
}

static void test_key_rejects_api_key(void **state) {
    (void)state;
    r_admin_key_t *k = NULL;
    r_key_diag_t kd;
    assert_int_equal(r_admin_key_create("rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys", 0, &k, &kd), RCLIENT_ERR_CONFIG);
    assert_int_equal(kd.reason, R_KEY_ERR_HRP);
    assert_null(k);
}

static void open_reject(uint8_t *d, size_t len, r_admin_reason_t reason) {
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    ASSERT_REJECT(r_admin_open(g_key, d, len, NULL, &pdu, &pdu_len, diag), RCLIENT_ERR_PROTOCOL, reason);
    assert_null(pdu);
}

static void kat_with(size_t off, uint8_t value, r_admin_reason_t reason) {
    uint8_t d[84];
    memcpy(d, KAT, sizeof d);
    d[off] = value;
    open_reject(d, sizeof d, reason);
}

static void test_open_rejects_mgmt_flag_0(void **state) {
    (void)state;
    kat_with(37, 0, R_ADMIN_ERR_MGMT_FLAG);
}
static void test_open_rejects_mgmt_flag_2(void **state) {
    (void)state;
    kat_with(37, 2, R_ADMIN_ERR_MGMT_FLAG);
}
static void test_open_rejects_tenant_type(void **state) {
    (void)state;
    kat_with(0, 0x53, R_ADMIN_ERR_TENANT_TLV_TYPE);
}
static void test_open_rejects_tenant_size(void **state) {
    (void)state;
    kat_with(2, 0x24, R_ADMIN_ERR_TENANT_TLV_SIZE);
}
static void test_open_rejects_tenant_padding(void **state) {
    (void)state;
    kat_with(39, 1, R_ADMIN_ERR_TENANT_PADDING);
}
static void test_open_rejects_steering_2(void **state) {
    (void)state;
    kat_with(36, 2, R_ADMIN_ERR_STEERING);
}
static void test_open_rejects_auth_none(void **state) {
    (void)state;
    kat_with(40, 0x4E, R_ADMIN_ERR_AUTH_TLV_TYPE); /* 0x414E "NA" */
}
static void test_open_rejects_auth_size(void **state) {
    (void)state;
    kat_with(42, 36, R_ADMIN_ERR_AUTH_TLV_SIZE);
}
static void test_open_rejects_tag(void **state) {
    (void)state;
    kat_with(83, (uint8_t)(KAT[83] ^ 1), R_ADMIN_ERR_TAG); /* one ciphertext bit */
}
static void test_open_rejects_tag_on_aad_change(void **state) {
    (void)state;
    kat_with(12, 0x00, R_ADMIN_ERR_TAG); /* unique_id is AAD */
}
static void test_open_rejects_wrong_key(void **state) {
    (void)state;
    uint8_t k[32] = {0};
    r_admin_key_t *other = NULL;
    assert_int_equal(r_admin_key_create_raw(k, &other), RCLIENT_OK);
    uint8_t d[84];
    memcpy(d, KAT, sizeof d);
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    ASSERT_REJECT(r_admin_open(other, d, sizeof d, NULL, &pdu, &pdu_len, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TAG);
    r_admin_key_destroy(other);
}
static void test_open_rejects_truncated(void **state) {
    (void)state;
    uint8_t d[84];
    memcpy(d, KAT, sizeof d);
    open_reject(d, 79, R_ADMIN_ERR_TRUNCATED);
    open_reject(d, 39, R_ADMIN_ERR_TRUNCATED);
}
static void test_open_rejects_oversize(void **state) {
    (void)state;
    static uint8_t d[1201];
    memcpy(d, KAT, sizeof KAT);
    open_reject(d, sizeof d, R_ADMIN_ERR_TOO_LARGE);
}

static void test_open_rejects_inner_pdu_size(void **state) {
    (void)state;
    /* A 12-byte PDU claiming pdu_size 16, sealed properly: the tag verifies, the size does not. */
    uint8_t pdu[12];
    memcpy(pdu, ACK, 12);
    pdu[2] = 16;
    r_admin_header_t h = kat_header();
    uint8_t d[84];
    size_t n = 0;
    assert_int_equal(r_admin_seal(g_key, &h, NONCE, pdu, 12, d, sizeof d, &n, NULL), RCLIENT_OK);
    open_reject(d, n, R_ADMIN_ERR_PDU_SIZE);
}

static void test_seal_rejects(void **state) {
    (void)state;
    r_admin_header_t h = kat_header();
    uint8_t out[1300];
    size_t n = 0;
    h.steering_feedback = 2;
    ASSERT_REJECT(r_admin_seal(g_key, &h, NONCE, ACK, 12, out, sizeof out, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_STEERING);
    h.steering_feedback = 0;
    ASSERT_REJECT(r_admin_seal(g_key, &h, NONCE, ACK, 7, out, sizeof out, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_TRUNCATED);
    ASSERT_REJECT(r_admin_seal(g_key, &h, NONCE, ACK, 12, out, 83, &n, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_BUFFER);
    static uint8_t big[1129];
    ASSERT_REJECT(r_admin_seal(g_key, &h, NONCE, big, sizeof big, out, sizeof out, &n, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_TOO_LARGE);
    ASSERT_REJECT(r_admin_seal(NULL, &h, NONCE, ACK, 12, out, sizeof out, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
}

static void test_peek_unique_id(void **state) {
    (void)state;
    uint8_t uid[16];
    ASSERT_OK(r_admin_peek_unique_id(KAT, sizeof KAT, uid, diag));
    assert_memory_equal(uid, KAT + 12, 16);
    uint8_t d[84];
    memcpy(d, KAT, sizeof d);
    d[37] = 0;
    ASSERT_REJECT(r_admin_peek_unique_id(d, sizeof d, uid, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_MGMT_FLAG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seal_matches_known_answer),
        cmocka_unit_test(test_open_known_answer),
        cmocka_unit_test(test_key_from_rl_secret),
        cmocka_unit_test(test_key_rejects_api_key),
        cmocka_unit_test(test_open_rejects_mgmt_flag_0),
        cmocka_unit_test(test_open_rejects_mgmt_flag_2),
        cmocka_unit_test(test_open_rejects_tenant_type),
        cmocka_unit_test(test_open_rejects_tenant_size),
        cmocka_unit_test(test_open_rejects_tenant_padding),
        cmocka_unit_test(test_open_rejects_steering_2),
        cmocka_unit_test(test_open_rejects_auth_none),
        cmocka_unit_test(test_open_rejects_auth_size),
        cmocka_unit_test(test_open_rejects_tag),
        cmocka_unit_test(test_open_rejects_tag_on_aad_change),
        cmocka_unit_test(test_open_rejects_wrong_key),
        cmocka_unit_test(test_open_rejects_truncated),
        cmocka_unit_test(test_open_rejects_oversize),
        cmocka_unit_test(test_open_rejects_inner_pdu_size),
        cmocka_unit_test(test_seal_rejects),
        cmocka_unit_test(test_peek_unique_id),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
