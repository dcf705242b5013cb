/* SPDX-License-Identifier: MIT */
/* Unit tests for auth.c: key setup and release, cookie sealing, AES-256-GCM
 * sealing against an independent known answer (wire_protocol.md "AES-256-GCM
 * Normative Framing"), and opening: round trip, tamper, cookie and type
 * mismatch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>

#include <openssl/crypto.h>

#include "rl_auth.h"
#include "rl_wire.h"

/* A rate request in AES framing: tenant TLV (key_id 0x0102030405060708,
 * unique_id a0..af, time_stamp 0x18F12345678, steering 1), auth TLV "AE"/32
 * with a zero body, then the 92-byte PDU of test_wire_encode.c (one guard,
 * one resource, label "api"). */
static const uint8_t PLAIN_AES[164] = {
    0x52, 0x4C, 0x28, 0x00, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xAB,
    0xAC, 0xAD, 0xAE, 0xAF, 0x78, 0x56, 0x34, 0x12, 0x8F, 0x01, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00,
    0x41, 0x45, 0x20, 0x00, /* auth "AE", 32; nonce and tag zero */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0x52, 0x54, 0x5C, 0x00, 0x2C, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B,
    0x1C, 0x1D, 0x1E, 0x1F, 0x60, 0xEA, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00,
    0x20, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0xFA, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
    0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x2F, 0xE8, 0x03, 0x00, 0x00,
    0x64, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x4D, 0x4C, 0x0C, 0x00,
    0x03, 0x00, 0x61, 0x70, 0x69, 0x00, 0x00, 0x00,
};

/* Known answer computed independently with pyca/cryptography AESGCM
 * (core/tests/kat_aes_seal.py): key 40..5f, nonce c0..cb, AAD = first 56
 * bytes (tenant TLV || "AE" || 32 || nonce). */
static const uint8_t KAT_TAG[16] = {
    0x09, 0x3a, 0x6f, 0x69, 0xfc, 0x21, 0xe5, 0xc0, 0x3e, 0x05, 0xdf, 0xdd, 0xc1, 0x2e, 0xbd, 0xf9,
};
static const uint8_t KAT_CIPHERTEXT[92] = {
    0x0d, 0x10, 0x6c, 0xce, 0x56, 0x9b, 0x3d, 0xeb, 0x75, 0xb9, 0x25, 0x36,
    0xbb, 0xb2, 0xb0, 0xde, 0x8b, 0xe0, 0x48, 0x46, 0xc6, 0x37, 0x34, 0x13,
    0xe0, 0xae, 0x2d, 0x73, 0x48, 0x90, 0x7a, 0x46, 0xe0, 0x36, 0x53, 0x87,
    0xd1, 0xa6, 0x16, 0xbc, 0xef, 0x30, 0x72, 0x12, 0xb1, 0x3d, 0x44, 0x33,
    0x6d, 0x84, 0x48, 0x35, 0x21, 0x5d, 0x03, 0x6b, 0x93, 0x96, 0x59, 0x56,
    0xc1, 0x21, 0xcb, 0x7a, 0x23, 0x81, 0xf1, 0x7a, 0x78, 0x57, 0x76, 0x20,
    0xc4, 0x09, 0xe4, 0x7e, 0x97, 0x23, 0xc2, 0x24, 0x93, 0xd3, 0x9d, 0xaf,
    0x9c, 0x2d, 0x4a, 0x22, 0x0e, 0x83, 0xda, 0x24,
};

static void fill_seq(uint8_t *p, size_t n, uint8_t first) {
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(first + i);
    }
}

static void aes_key(uint8_t key[32]) { fill_seq(key, 32, 0x40); }
static void aes_nonce(uint8_t nonce[12]) { fill_seq(nonce, 12, 0xC0); }

static void init_aes(rl_auth_t *auth) {
    uint8_t key[32];
    aes_key(key);
    assert_int_equal(rl_auth_init(auth, R_AUTH_AES, key), RCLIENT_OK);
}

/* Cookie framing: tenant TLV, "CA"/36 with zero body, an 8-byte "LR" PDU. */
static size_t build_cookie_dgram(uint8_t *d) {
    memset(d, 0, 84);
    memcpy(d, PLAIN_AES, 40);
    d[40] = 0x43, d[41] = 0x41, d[42] = 36, d[43] = 0;
    d[76] = 0x4C, d[77] = 0x52, d[78] = 8, d[79] = 0;
    return 84;
}

/* ---- init / release ------------------------------------------------------------- */

static void test_init_none_ignores_secret(void **state) {
    (void)state;
    rl_auth_t a;
    assert_int_equal(rl_auth_init(&a, R_AUTH_NONE, NULL), RCLIENT_OK);
    assert_int_equal(a.type, R_AUTH_NONE);
    assert_null(a.enc);
    assert_null(a.dec);
    rl_auth_release(&a);
}

static void test_init_aes_creates_both_contexts(void **state) {
    (void)state;
    rl_auth_t a;
    init_aes(&a);
    assert_non_null(a.enc);
    assert_non_null(a.dec);
    rl_auth_release(&a);
}

static void test_init_rejects_bad_mode_and_missing_secret(void **state) {
    (void)state;
    rl_auth_t a;
    uint8_t key[32];
    aes_key(key);
    assert_int_equal(rl_auth_init(&a, R_AUTH_UNSPECIFIED, key), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_init(&a, (r_auth_type_t)7, key), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_init(&a, R_AUTH_COOKIE, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_init(&a, R_AUTH_AES, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_init(NULL, R_AUTH_NONE, NULL), RCLIENT_ERR_CONFIG);
}

static void test_release_cleanses_and_is_idempotent(void **state) {
    (void)state;
    static const uint8_t zero[32] = {0};
    rl_auth_t a;
    init_aes(&a);
    rl_auth_release(&a);
    assert_null(a.enc);
    assert_null(a.dec);
    assert_memory_equal(a.secret, zero, 32);
    assert_int_equal(a.type, R_AUTH_UNSPECIFIED);
    rl_auth_release(&a);
    rl_auth_t zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    rl_auth_release(&zeroed);
    rl_auth_release(NULL);
    assert_null(zeroed.enc);
}

/* ---- seal ----------------------------------------------------------------------- */

static void test_seal_cookie_copies_cookie(void **state) {
    (void)state;
    uint8_t cookie[32];
    uint8_t d[84];
    uint8_t before[84];
    rl_auth_t a;
    fill_seq(cookie, 32, 0x90);
    size_t len = build_cookie_dgram(d);
    memcpy(before, d, len);
    assert_int_equal(rl_auth_init(&a, R_AUTH_COOKIE, cookie), RCLIENT_OK);
    assert_int_equal(rl_auth_seal(&a, d, len, NULL), RCLIENT_OK);
    assert_memory_equal(d, before, 44);
    assert_memory_equal(d + 44, cookie, 32);
    assert_memory_equal(d + 76, before + 76, 8);
    rl_auth_release(&a);
}

static void test_seal_none_changes_nothing(void **state) {
    (void)state;
    uint8_t d[52] = {0};
    uint8_t before[52];
    rl_auth_t a;
    memcpy(d, PLAIN_AES, 40);
    d[40] = 0x4E, d[41] = 0x41, d[42] = 4;
    d[44] = 0x4C, d[45] = 0x52, d[46] = 8;
    memcpy(before, d, sizeof d);
    assert_int_equal(rl_auth_init(&a, R_AUTH_NONE, NULL), RCLIENT_OK);
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, NULL), RCLIENT_OK);
    assert_memory_equal(d, before, sizeof d);
}

static void test_seal_aes_matches_known_answer(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t nonce[12];
    rl_auth_t a;
    memcpy(d, PLAIN_AES, sizeof d);
    aes_nonce(nonce);
    init_aes(&a);
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_OK);
    assert_memory_equal(d, PLAIN_AES, 44);       /* tenant TLV and auth header stay plaintext */
    assert_memory_equal(d + 44, nonce, 12);
    assert_memory_equal(d + 56, KAT_TAG, 16);
    assert_memory_equal(d + 72, KAT_CIPHERTEXT, 92);
    rl_auth_release(&a);
}

/* The reused context takes a fresh IV per message: a second seal with the same
 * nonce gives the same answer, one with another nonce a different one. */
static void test_seal_aes_resets_iv_per_message(void **state) {
    (void)state;
    uint8_t d1[164];
    uint8_t d2[164];
    uint8_t nonce[12];
    rl_auth_t a;
    init_aes(&a);
    aes_nonce(nonce);
    memcpy(d1, PLAIN_AES, sizeof d1);
    nonce[11] ^= 1;
    assert_int_equal(rl_auth_seal(&a, d1, sizeof d1, nonce), RCLIENT_OK);
    nonce[11] ^= 1;
    memcpy(d2, PLAIN_AES, sizeof d2);
    assert_int_equal(rl_auth_seal(&a, d2, sizeof d2, nonce), RCLIENT_OK);
    assert_memory_equal(d2 + 56, KAT_TAG, 16);
    assert_memory_equal(d2 + 72, KAT_CIPHERTEXT, 92);
    assert_memory_not_equal(d1 + 72, KAT_CIPHERTEXT, 92);
    rl_auth_release(&a);
}

static void test_seal_rejects_bad_framing(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t nonce[12];
    rl_auth_t a;
    aes_nonce(nonce);
    init_aes(&a);
    memcpy(d, PLAIN_AES, sizeof d);
    assert_int_equal(rl_auth_seal(&a, d, 79, nonce), RCLIENT_ERR_CONFIG); /* no room for a PDU header */
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_seal(&a, NULL, sizeof d, nonce), RCLIENT_ERR_CONFIG);
    d[40] = 0x43; /* "CA": another mode's auth TLV */
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_ERR_CONFIG);
    d[40] = 0x41;
    d[42] = 36; /* right type, wrong size */
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_ERR_CONFIG);
    rl_auth_release(&a);
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_ERR_CONFIG); /* released key */
}

/* ---- open ----------------------------------------------------------------------- */

static void sealed_kat(uint8_t d[164]) {
    memcpy(d, PLAIN_AES, 56);
    fill_seq(d + 44, 12, 0xC0);
    memcpy(d + 56, KAT_TAG, 16);
    memcpy(d + 72, KAT_CIPHERTEXT, 92);
}

static void test_open_aes_known_answer_decrypts(void **state) {
    (void)state;
    uint8_t d[164];
    rl_auth_t a;
    const char *why = NULL;
    sealed_kat(d);
    init_aes(&a);
    assert_int_equal(rl_auth_open(&a, d, sizeof d, &why), RCLIENT_OK);
    assert_string_equal(why, "ok");
    assert_memory_equal(d + 72, PLAIN_AES + 72, 92);
    rl_auth_release(&a);
}

static void test_aes_seal_open_round_trip(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t nonce[12];
    rl_auth_t a;
    fill_seq(nonce, 12, 0x01);
    memcpy(d, PLAIN_AES, sizeof d);
    init_aes(&a);
    assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_OK);
    assert_memory_not_equal(d + 72, PLAIN_AES + 72, 92);
    assert_int_equal(rl_auth_open(&a, d, sizeof d, NULL), RCLIENT_OK);
    assert_memory_equal(d + 72, PLAIN_AES + 72, 92);
    rl_auth_release(&a);
}

static void check_tamper(size_t offset) {
    static const uint8_t zero[92] = {0};
    uint8_t d[164];
    rl_auth_t a;
    const char *why = NULL;
    sealed_kat(d);
    d[offset] ^= 0x01;
    init_aes(&a);
    assert_int_equal(rl_auth_open(&a, d, sizeof d, &why), RCLIENT_ERR_PROTOCOL);
    assert_string_equal(why, "AES-GCM tag does not verify");
    assert_memory_equal(d + 72, zero, 92); /* no unauthenticated plaintext is left */
    rl_auth_release(&a);
}

static void test_open_aes_tampered_tag_fails(void **state) {
    (void)state;
    check_tamper(56);
    check_tamper(71);
}

static void test_open_aes_tampered_ciphertext_fails(void **state) {
    (void)state;
    check_tamper(72);
    check_tamper(163);
}

static void test_open_aes_tampered_aad_fails(void **state) {
    (void)state;
    check_tamper(4);  /* key_id in the tenant TLV */
    check_tamper(36); /* steering_feedback */
    check_tamper(44); /* nonce */
}

static void test_open_aes_wrong_key_fails(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t key[32];
    rl_auth_t a;
    sealed_kat(d);
    aes_key(key);
    key[0] ^= 0x80;
    assert_int_equal(rl_auth_init(&a, R_AUTH_AES, key), RCLIENT_OK);
    assert_int_equal(rl_auth_open(&a, d, sizeof d, NULL), RCLIENT_ERR_PROTOCOL);
    rl_auth_release(&a);
}

static void test_open_cookie_match_and_mismatch(void **state) {
    (void)state;
    uint8_t cookie[32];
    uint8_t d[84];
    rl_auth_t a;
    const char *why = NULL;
    fill_seq(cookie, 32, 0x90);
    size_t len = build_cookie_dgram(d);
    memcpy(d + 44, cookie, 32);
    assert_int_equal(rl_auth_init(&a, R_AUTH_COOKIE, cookie), RCLIENT_OK);
    assert_int_equal(rl_auth_open(&a, d, len, &why), RCLIENT_OK);
    d[75] ^= 0x01; /* last cookie byte */
    assert_int_equal(rl_auth_open(&a, d, len, &why), RCLIENT_ERR_AUTH);
    assert_string_equal(why, "cookie mismatch");
    rl_auth_release(&a);
}

static void test_open_wrong_auth_type_fails(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t cookie_dgram[84];
    uint8_t cookie[32];
    rl_auth_t aes;
    rl_auth_t ck;
    const char *why = NULL;
    fill_seq(cookie, 32, 0x90);
    init_aes(&aes);
    assert_int_equal(rl_auth_init(&ck, R_AUTH_COOKIE, cookie), RCLIENT_OK);
    size_t len = build_cookie_dgram(cookie_dgram);
    assert_int_equal(rl_auth_open(&aes, cookie_dgram, len, &why), RCLIENT_ERR_AUTH);
    assert_string_equal(why, "auth TLV type is not the key's mode");
    sealed_kat(d);
    assert_int_equal(rl_auth_open(&ck, d, sizeof d, &why), RCLIENT_ERR_AUTH);
    rl_auth_release(&aes);
    rl_auth_release(&ck);
}

static void test_open_rejects_short_or_invalid_input(void **state) {
    (void)state;
    uint8_t d[164];
    rl_auth_t a;
    sealed_kat(d);
    init_aes(&a);
    assert_int_equal(rl_auth_open(&a, d, 43, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_open(&a, d, 71, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_auth_open(&a, NULL, 164, NULL), RCLIENT_ERR_CONFIG);
    d[42] = 36; /* "AE" with a wrong size */
    assert_int_equal(rl_auth_open(&a, d, sizeof d, NULL), RCLIENT_ERR_CONFIG);
    rl_auth_release(&a);
}

/* ---- no allocation per message ------------------------------------------------ */

/* Counts OpenSSL's heap allocations (installed before OpenSSL allocates). */
static size_t ossl_allocs;

static void *count_malloc(size_t n, const char *file, int line) {
    (void)file, (void)line;
    ossl_allocs++;
    return malloc(n);
}
static void *count_realloc(void *p, size_t n, const char *file, int line) {
    (void)file, (void)line;
    ossl_allocs++;
    return realloc(p, n);
}
static void count_free(void *p, const char *file, int line) {
    (void)file, (void)line;
    free(p);
}

static void test_aes_seal_and_open_allocate_nothing(void **state) {
    (void)state;
    uint8_t d[164];
    uint8_t nonce[12];
    rl_auth_t a;
    aes_nonce(nonce);
    init_aes(&a);
    size_t before = ossl_allocs;
    for (int i = 0; i < 3; i++) {
        memcpy(d, PLAIN_AES, sizeof d);
        nonce[0] = (uint8_t)i;
        assert_int_equal(rl_auth_seal(&a, d, sizeof d, nonce), RCLIENT_OK);
        assert_int_equal(rl_auth_open(&a, d, sizeof d, NULL), RCLIENT_OK);
        d[100] ^= 1;
        assert_int_equal(rl_auth_open(&a, d, sizeof d, NULL), RCLIENT_ERR_PROTOCOL);
    }
    assert_int_equal(ossl_allocs, before);
    rl_auth_release(&a);
    assert_true(ossl_allocs > 0); /* the counter is live: init allocated */
}

int main(void) {
    if (CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free) != 1) {
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_none_ignores_secret),
        cmocka_unit_test(test_init_aes_creates_both_contexts),
        cmocka_unit_test(test_init_rejects_bad_mode_and_missing_secret),
        cmocka_unit_test(test_release_cleanses_and_is_idempotent),
        cmocka_unit_test(test_seal_cookie_copies_cookie),
        cmocka_unit_test(test_seal_none_changes_nothing),
        cmocka_unit_test(test_seal_aes_matches_known_answer),
        cmocka_unit_test(test_seal_aes_resets_iv_per_message),
        cmocka_unit_test(test_seal_rejects_bad_framing),
        cmocka_unit_test(test_open_aes_known_answer_decrypts),
        cmocka_unit_test(test_aes_seal_open_round_trip),
        cmocka_unit_test(test_open_aes_tampered_tag_fails),
        cmocka_unit_test(test_open_aes_tampered_ciphertext_fails),
        cmocka_unit_test(test_open_aes_tampered_aad_fails),
        cmocka_unit_test(test_open_aes_wrong_key_fails),
        cmocka_unit_test(test_open_cookie_match_and_mismatch),
        cmocka_unit_test(test_open_wrong_auth_type_fails),
        cmocka_unit_test(test_open_rejects_short_or_invalid_input),
        cmocka_unit_test(test_aes_seal_and_open_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
