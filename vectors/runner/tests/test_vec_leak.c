/* SPDX-License-Identifier: MIT */
/* test_vec_leak.c - key material on the wire (vec_leak.h): a run of 8 or more
 * bytes of the AES key anywhere, or of the cookie outside the cookie TLV body,
 * is found and named with its length and offset; the cookie in its place
 * (wire_protocol.md "Auth Header": tlv_type 0x4143 at the auth TLV, the 32-byte
 * cookie as its body) and a run of 7 bytes are not; an rl-none key has no secret.
 * One AES nonce sealing two different datagrams is a reuse; the same bytes sent
 * again are not (the Security standard: a nonce never seals two plaintexts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "r_client.h"
#include "vec_leak.h"

/* The fixed keys of conformance/README.md "Auth modes". */
static const char *const aes_key =
    "rl-aes1qyyqqqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhch7sxr7";
static const char *const cookie_key =
    "rl-cookie1qyrsqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtruhc9ag94n";
static const char *const none_key = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys";

static void secret_of(const char *key, uint8_t out[R_CLIENT_SECRET_LEN])
{
    r_auth_key_info_t info;
    assert_int_equal(r_client_parse_auth_key(key, 0, &info), RCLIENT_OK);
    memcpy(out, info.secret, R_CLIENT_SECRET_LEN);
}

static void test_aes_key_31_bytes_found(void **state)
{
    (void)state;
    uint8_t pkt[200] = {0}, secret[R_CLIENT_SECRET_LEN];
    char msg[160];
    secret_of(aes_key, secret);
    memcpy(pkt + 40, secret + 1, 31);
    assert_true(vec_datagram_leaks(aes_key, pkt, sizeof pkt, msg, sizeof msg));
    assert_string_equal(msg, "the datagram carries 31 bytes of the AES key at offset 40");
}

static void test_aes_key_8_bytes_found_7_not(void **state)
{
    (void)state;
    uint8_t pkt[100] = {0}, secret[R_CLIENT_SECRET_LEN];
    char msg[160];
    secret_of(aes_key, secret);
    memcpy(pkt + 90, secret + 5, 7);
    assert_false(vec_datagram_leaks(aes_key, pkt, sizeof pkt, msg, sizeof msg));
    memset(pkt, 0, sizeof pkt);
    memcpy(pkt + 92, secret + 7, 8);
    assert_true(vec_datagram_leaks(aes_key, pkt, sizeof pkt, msg, sizeof msg));
    assert_string_equal(msg, "the datagram carries 8 bytes of the AES key at offset 92");
}

static void test_cookie_in_its_tlv_is_not_a_leak(void **state)
{
    (void)state;
    uint8_t pkt[120] = {0}, secret[R_CLIENT_SECRET_LEN];
    char msg[160];
    secret_of(cookie_key, secret);
    pkt[40] = 0x43; /* tlv_type 0x4143 little-endian */
    pkt[41] = 0x41;
    pkt[42] = 36;
    memcpy(pkt + 44, secret, R_CLIENT_SECRET_LEN);
    assert_false(vec_datagram_leaks(cookie_key, pkt, sizeof pkt, msg, sizeof msg));
    memcpy(pkt + 80, secret, 12); /* and once more, elsewhere */
    assert_true(vec_datagram_leaks(cookie_key, pkt, sizeof pkt, msg, sizeof msg));
    assert_string_equal(msg, "the datagram carries 12 bytes of the cookie at offset 80 outside the cookie TLV");
}

static void test_cookie_without_its_tlv_header_is_a_leak(void **state)
{
    (void)state;
    uint8_t pkt[120] = {0}, secret[R_CLIENT_SECRET_LEN];
    char msg[160];
    secret_of(cookie_key, secret);
    memcpy(pkt + 44, secret, R_CLIENT_SECRET_LEN);
    assert_true(vec_datagram_leaks(cookie_key, pkt, sizeof pkt, msg, sizeof msg));
    assert_string_equal(msg, "the datagram carries 32 bytes of the cookie at offset 44 outside the cookie TLV");
}

static void test_none_key_has_no_secret(void **state)
{
    (void)state;
    uint8_t pkt[64] = {0};
    char msg[160] = "";
    assert_false(vec_datagram_leaks(none_key, pkt, sizeof pkt, msg, sizeof msg));
    assert_false(vec_datagram_leaks("not a key", pkt, sizeof pkt, msg, sizeof msg));
}

/* An AES auth TLV (0x4541, little-endian) at 40 and a nonce at 44. */
static void aes_datagram(uint8_t *p, size_t len, uint8_t nonce_byte, uint8_t body_byte)
{
    memset(p, body_byte, len);
    p[40] = 0x41;
    p[41] = 0x45;
    memset(p + 44, nonce_byte, 12);
}

static void test_nonce_sealing_two_datagrams_is_reuse(void **state)
{
    (void)state;
    uint8_t a[80], b[80];
    aes_datagram(a, sizeof a, 7, 1);
    aes_datagram(b, sizeof b, 7, 2);
    assert_true(vec_nonce_reused(a, sizeof a, b, sizeof b));
    assert_true(vec_nonce_reused(a, sizeof a, b, sizeof b - 1)); /* different lengths differ too */
}

static void test_same_datagram_again_or_other_nonce_is_not_reuse(void **state)
{
    (void)state;
    uint8_t a[80], b[80];
    aes_datagram(a, sizeof a, 7, 1);
    aes_datagram(b, sizeof b, 7, 1);
    assert_false(vec_nonce_reused(a, sizeof a, b, sizeof b)); /* a replay of the same bytes */
    aes_datagram(b, sizeof b, 8, 2);
    assert_false(vec_nonce_reused(a, sizeof a, b, sizeof b));
    b[40] = 0x43; /* a cookie TLV: no nonce */
    b[41] = 0x41;
    aes_datagram(a, sizeof a, 0x41, 1);
    assert_false(vec_nonce_reused(a, sizeof a, b, sizeof b));
    assert_false(vec_nonce_reused(a, 50, a, 50)); /* too short to hold a nonce */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aes_key_31_bytes_found),
        cmocka_unit_test(test_aes_key_8_bytes_found_7_not),
        cmocka_unit_test(test_cookie_in_its_tlv_is_not_a_leak),
        cmocka_unit_test(test_cookie_without_its_tlv_header_is_a_leak),
        cmocka_unit_test(test_none_key_has_no_secret),
        cmocka_unit_test(test_nonce_sealing_two_datagrams_is_reuse),
        cmocka_unit_test(test_same_datagram_again_or_other_nonce_is_not_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
