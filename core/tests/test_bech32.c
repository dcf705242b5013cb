/* SPDX-License-Identifier: MIT */
/* Unit tests for bech32.c: BIP-173 published vectors (valid and invalid),
 * each rejection reason, padding rules, long payloads and exact encodings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rl_bech32.h"

/* wire_protocol.md external vector: rl-none, key_id 0x0102030405060708, quota 0xf8f2b150. */
static const char EXTERNAL_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys";
static const uint8_t EXTERNAL_NONE_PAYLOAD[13] = {0x01, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03,
                                                  0x02, 0x01, 0x50, 0xb1, 0xf2, 0xf8};

static const char *decode_why(const char *text, size_t len) {
    rl_bech32_t dec;
    const char *why = NULL;
    int rc = rl_bech32_decode(text, len, &dec, &why);
    assert_int_equal(rc, -1);
    assert_non_null(why);
    return why;
}

static void test_bip173_valid_empty_payloads(void **state) {
    (void)state;
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode("A12UEL5L", 8, &dec, &why), 0);
    assert_string_equal(dec.hrp, "a");
    assert_int_equal(dec.payload_len, 0);
    assert_int_equal(rl_bech32_decode("a12uel5l", 8, &dec, &why), 0);
    assert_string_equal(dec.hrp, "a");
    assert_int_equal(rl_bech32_decode("?1ezyfcl", 8, &dec, &why), 0);
    assert_string_equal(dec.hrp, "?");
    assert_int_equal(dec.payload_len, 0);
}

static void test_bip173_valid_with_payload(void **state) {
    (void)state;
    static const uint8_t expected[20] = {0x00, 0x44, 0x32, 0x14, 0xc7, 0x42, 0x54, 0xb6, 0x35, 0xcf,
                                         0x84, 0x65, 0x3a, 0x56, 0xd7, 0xc6, 0x75, 0xbe, 0x77, 0xdf};
    const char *text = "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw";
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(text, strlen(text), &dec, &why), 0);
    assert_string_equal(dec.hrp, "abcdef");
    assert_int_equal(dec.payload_len, 20);
    assert_memory_equal(dec.payload, expected, 20);
}

static void test_bip173_valid_90_chars_hrp_is_1(void **state) {
    (void)state;
    char text[91];
    memcpy(text, "11", 2);
    memset(text + 2, 'q', 82);
    memcpy(text + 84, "c8247j", 7);
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(text, 90, &dec, &why), 0);
    assert_string_equal(dec.hrp, "1");
    assert_int_equal(dec.payload_len, 51); /* 82 * 5 = 410 bits: 51 bytes + 2 zero padding bits */
    uint8_t zero[51] = {0};
    assert_memory_equal(dec.payload, zero, 51);
}

static void test_external_rl_none_decodes(void **state) {
    (void)state;
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(EXTERNAL_NONE, strlen(EXTERNAL_NONE), &dec, &why), 0);
    assert_string_equal(dec.hrp, "rl-none");
    assert_int_equal(dec.payload_len, 13);
    assert_memory_equal(dec.payload, EXTERNAL_NONE_PAYLOAD, 13);
}

static void test_uppercase_is_lowercased(void **state) {
    (void)state;
    const char *text = "RL-NONE1QYYQWPS9QSPSYQ2SK8E0SFDP3YS";
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(text, strlen(text), &dec, &why), 0);
    assert_string_equal(dec.hrp, "rl-none");
    assert_memory_equal(dec.payload, EXTERNAL_NONE_PAYLOAD, 13);
}

static void test_len_bounds_the_text(void **state) {
    (void)state;
    char text[64];
    snprintf(text, sizeof(text), "%sqqqq", EXTERNAL_NONE); /* trailing bytes outside len */
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(text, strlen(EXTERNAL_NONE), &dec, &why), 0);
    assert_int_equal(dec.payload_len, 13);
}

static void test_reject_no_separator(void **state) {
    (void)state;
    assert_string_equal(decode_why("pzry9x0s0muk", 12), "bech32: no '1' separator");
    assert_string_equal(decode_why("", 0), "bech32: no '1' separator");
}

static void test_reject_empty_hrp(void **state) {
    (void)state;
    assert_string_equal(decode_why("1pzry9x0s0muk", 13), "bech32: empty human-readable part");
    assert_string_equal(decode_why("10a06t8", 7), "bech32: empty human-readable part");
    assert_string_equal(decode_why("1qzzfhee", 8), "bech32: empty human-readable part");
}

static void test_reject_hrp_over_83(void **state) {
    (void)state;
    const char *text = "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx";
    assert_string_equal(decode_why(text, strlen(text)), "bech32: human-readable part longer than 83 characters");
}

static void test_reject_non_printable(void **state) {
    (void)state;
    assert_string_equal(decode_why("\x20" "1nwldj5", 8), "bech32: character outside printable ASCII 33..126");
    assert_string_equal(decode_why("\x7f" "1axkwrx", 8), "bech32: character outside printable ASCII 33..126");
    assert_string_equal(decode_why("\x80" "1eym55h", 8), "bech32: character outside printable ASCII 33..126");
    assert_string_equal(decode_why("de1lg7wt\xff", 9), "bech32: character outside printable ASCII 33..126");
    assert_string_equal(decode_why("a12u\0el5l", 9), "bech32: character outside printable ASCII 33..126");
}

static void test_reject_mixed_case(void **state) {
    (void)state;
    assert_string_equal(decode_why("A12uel5l", 8), "bech32: mixed upper and lower case");
    /* mixed case is checked before the separator */
    assert_string_equal(decode_why("Abc", 3), "bech32: mixed upper and lower case");
}

static void test_reject_short_data_part(void **state) {
    (void)state;
    assert_string_equal(decode_why("li1dgmt3", 8), "bech32: fewer than 6 data characters");
}

static void test_reject_charset(void **state) {
    (void)state;
    assert_string_equal(decode_why("x1b4n0q5v", 9), "bech32: character not in the bech32 charset");
}

static void test_reject_checksum(void **state) {
    (void)state;
    /* BIP-173: checksum computed over the upper-case HRP */
    assert_string_equal(decode_why("A1G7SGD8", 8), "bech32: invalid checksum");
    char text[64];
    strcpy(text, EXTERNAL_NONE);
    text[10] = (text[10] == 'q') ? 'p' : 'q'; /* one substituted data character */
    assert_string_equal(decode_why(text, strlen(text)), "bech32: invalid checksum");
}

static void test_reject_nonzero_padding(void **state) {
    (void)state;
    /* 21 groups = 105 bits: 13 bytes + 1 padding bit, set to 1 (valid checksum) */
    const char *text = "rl-none1qyyqwps9qspsyq2sk8e035m4yez";
    assert_string_equal(decode_why(text, strlen(text)), "bech32: non-zero padding bits");
}

static void test_reject_more_than_4_padding_bits(void **state) {
    (void)state;
    /* 22 groups = 110 bits: 13 bytes + 6 zero padding bits (valid checksum) */
    const char *text = "rl-none1qyyqwps9qspsyq2sk8e0sqwrpajw";
    assert_string_equal(decode_why(text, strlen(text)), "bech32: more than 4 padding bits");
}

static void test_padding_bit_counts(void **state) {
    (void)state;
    /* All-zero groups with valid checksums: 1, 3 and 9 groups leave 5, 7 and
     * 5 padding bits; 2 groups leave 2 and decode to one zero byte. */
    assert_string_equal(decode_why("a1q3g6mn3", 9), "bech32: more than 4 padding bits");
    assert_string_equal(decode_why("a1qqqd87cpp", 11), "bech32: more than 4 padding bits");
    assert_string_equal(decode_why("a1qqqqqqqqqvgade4", 17), "bech32: more than 4 padding bits");
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode("a1qqqd87cq", 10, &dec, &why), 0);
    assert_int_equal(dec.payload_len, 1);
    assert_int_equal(dec.payload[0], 0);
}

static void test_failure_cleanses_out(void **state) {
    (void)state;
    rl_bech32_t dec;
    memset(&dec, 0xaa, sizeof(dec));
    const char *why = NULL;
    const char *text = "rl-none1qyyqwps9qspsyq2sk8e035m4yez";
    assert_int_equal(rl_bech32_decode(text, strlen(text), &dec, &why), -1);
    uint8_t zero[RL_BECH32_PAYLOAD_MAX] = {0};
    assert_memory_equal(dec.payload, zero, sizeof(zero));
    assert_int_equal(dec.payload_len, 0);
}

static void test_reject_null_arguments(void **state) {
    (void)state;
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(NULL, 3, &dec, &why), -1);
    assert_string_equal(why, "bech32: NULL argument");
    assert_int_equal(rl_bech32_decode(EXTERNAL_NONE, 10, NULL, NULL), -1);
}

static void test_encode_exact_external(void **state) {
    (void)state;
    char out[64];
    int n = rl_bech32_encode("rl-none", EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out));
    assert_int_equal(n, 35);
    assert_string_equal(out, EXTERNAL_NONE);
}

static void test_encode_empty_payload(void **state) {
    (void)state;
    char out[16];
    assert_int_equal(rl_bech32_encode("a", NULL, 0, out, sizeof(out)), 8);
    assert_string_equal(out, "a12uel5l");
}

static void test_encode_needs_room_for_nul(void **state) {
    (void)state;
    char out[36];
    memset(out, '#', sizeof(out));
    assert_int_equal(rl_bech32_encode("rl-none", EXTERNAL_NONE_PAYLOAD, 13, out, 35), -1);
    assert_int_equal(rl_bech32_encode("rl-none", EXTERNAL_NONE_PAYLOAD, 13, out, 36), 35);
    assert_string_equal(out, EXTERNAL_NONE);
}

static void test_encode_rejects_bad_hrp(void **state) {
    (void)state;
    char out[256];
    char long_hrp[85];
    memset(long_hrp, 'a', 84);
    long_hrp[84] = '\0';
    assert_int_equal(rl_bech32_encode("RL-NONE", EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out)), -1);
    assert_int_equal(rl_bech32_encode("", EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out)), -1);
    assert_int_equal(rl_bech32_encode("a b", EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out)), -1);
    assert_int_equal(rl_bech32_encode(long_hrp, EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out)), -1);
    long_hrp[83] = '\0'; /* 83 characters is the maximum */
    assert_int_equal(rl_bech32_encode(long_hrp, NULL, 0, out, sizeof(out)), 90);
}

static void test_encode_rejects_null(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(rl_bech32_encode(NULL, EXTERNAL_NONE_PAYLOAD, 13, out, sizeof(out)), -1);
    assert_int_equal(rl_bech32_encode("rl-none", NULL, 13, out, sizeof(out)), -1);
    assert_int_equal(rl_bech32_encode("rl-none", EXTERNAL_NONE_PAYLOAD, 13, NULL, 64), -1);
}

static void test_long_payload_is_counted_past_max(void **state) {
    (void)state;
    uint8_t payload[200];
    for (size_t i = 0; i < sizeof(payload); i++) {
        payload[i] = (uint8_t)(i * 7u + 3u);
    }
    char text[512];
    int n = rl_bech32_encode("rl-aes", payload, sizeof(payload), text, sizeof(text));
    assert_int_equal(n, 6 + 1 + 320 + 6); /* 1600 bits = 320 groups */
    rl_bech32_t dec;
    const char *why = NULL;
    assert_int_equal(rl_bech32_decode(text, (size_t)n, &dec, &why), 0);
    assert_int_equal(dec.payload_len, 200);
    assert_memory_equal(dec.payload, payload, RL_BECH32_PAYLOAD_MAX);
}

static void test_round_trip_every_length_to_60(void **state) {
    (void)state;
    uint8_t payload[60];
    for (size_t i = 0; i < sizeof(payload); i++) {
        payload[i] = (uint8_t)(0xff - i * 13u);
    }
    for (size_t len = 0; len <= sizeof(payload); len++) {
        char text[160];
        int n = rl_bech32_encode("rl-x", payload, len, text, sizeof(text));
        assert_int_equal(n, (int)(4 + 1 + (len * 8 + 4) / 5 + 6));
        rl_bech32_t dec;
        const char *why = NULL;
        assert_int_equal(rl_bech32_decode(text, (size_t)n, &dec, &why), 0);
        assert_int_equal(dec.payload_len, len);
        if (len > 0) {
            assert_memory_equal(dec.payload, payload, len);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bip173_valid_empty_payloads),
        cmocka_unit_test(test_bip173_valid_with_payload),
        cmocka_unit_test(test_bip173_valid_90_chars_hrp_is_1),
        cmocka_unit_test(test_external_rl_none_decodes),
        cmocka_unit_test(test_uppercase_is_lowercased),
        cmocka_unit_test(test_len_bounds_the_text),
        cmocka_unit_test(test_reject_no_separator),
        cmocka_unit_test(test_reject_empty_hrp),
        cmocka_unit_test(test_reject_hrp_over_83),
        cmocka_unit_test(test_reject_non_printable),
        cmocka_unit_test(test_reject_mixed_case),
        cmocka_unit_test(test_reject_short_data_part),
        cmocka_unit_test(test_reject_charset),
        cmocka_unit_test(test_reject_checksum),
        cmocka_unit_test(test_reject_nonzero_padding),
        cmocka_unit_test(test_reject_more_than_4_padding_bits),
        cmocka_unit_test(test_padding_bit_counts),
        cmocka_unit_test(test_failure_cleanses_out),
        cmocka_unit_test(test_reject_null_arguments),
        cmocka_unit_test(test_encode_exact_external),
        cmocka_unit_test(test_encode_empty_payload),
        cmocka_unit_test(test_encode_needs_room_for_nul),
        cmocka_unit_test(test_encode_rejects_bad_hrp),
        cmocka_unit_test(test_encode_rejects_null),
        cmocka_unit_test(test_long_payload_is_counted_past_max),
        cmocka_unit_test(test_round_trip_every_length_to_60),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
