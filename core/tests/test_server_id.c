/* SPDX-License-Identifier: MIT */
/* Unit tests for server_id.c: structured server_id and SRV target parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "r_client.h"

static void test_decode_zero_is_epoch(void **state) {
    (void)state;
    r_server_id_parts_t p = r_client_decode_server_id(0);
    assert_int_equal(p.server_start_s, 1735689600u);
    assert_int_equal(p.listener_id, 0);
    assert_int_equal(p.node_id, 0);
}

static void test_decode_fields(void **state) {
    (void)state;
    /* 2026-01-01T00:00:00Z, listener 7, node 12345 */
    r_server_id_parts_t p = r_client_decode_server_id(264543142129721ull);
    assert_int_equal(p.server_start_s, 1767225600u);
    assert_int_equal(p.listener_id, 7);
    assert_int_equal(p.node_id, 12345);
}

static void test_decode_max(void **state) {
    (void)state;
    r_server_id_parts_t p = r_client_decode_server_id(UINT64_MAX);
    assert_int_equal(p.server_start_s, 1735689600ull + ((1ull << 41) - 1));
    assert_int_equal(p.listener_id, 255);
    assert_int_equal(p.node_id, 32767);
}

static void test_encode_round_trip(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_encode_server_id(1767225600u, 7, 12345, &id), RCLIENT_OK);
    assert_int_equal(id, 264543142129721ull);
    assert_int_equal(r_client_encode_server_id(1735689600ull + ((1ull << 41) - 1), 255, 32767, &id), RCLIENT_OK);
    assert_int_equal(id, UINT64_MAX);
}

static void test_encode_rejects_out_of_range(void **state) {
    (void)state;
    uint64_t id = 42;
    assert_int_equal(r_client_encode_server_id(1735689599u, 0, 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_encode_server_id(1735689600ull + (1ull << 41), 0, 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_encode_server_id(1735689600u, 0, 32768, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_encode_server_id(1735689600u, 0, 0, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(id, 42);
}

static void test_srv_target_spec_example(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_parse_srv_target("s-1015809.rl1.example.com.", 0, &id), RCLIENT_OK);
    assert_int_equal(id, 1015809u);
}

static void test_srv_target_without_trailing_dot_and_single_label(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_parse_srv_target("s-1048578.rl2.example.com", 0, &id), RCLIENT_OK);
    assert_int_equal(id, 1048578u);
    assert_int_equal(r_client_parse_srv_target("s-0", 0, &id), RCLIENT_OK);
    assert_int_equal(id, 0u);
}

static void test_srv_target_upper_case_prefix(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_parse_srv_target("S-77.example.com.", 0, &id), RCLIENT_OK);
    assert_int_equal(id, 77u);
}

static void test_srv_target_max_and_overflow(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_parse_srv_target("s-18446744073709551615.x", 0, &id), RCLIENT_OK);
    assert_int_equal(id, UINT64_MAX);
    id = 5;
    assert_int_equal(r_client_parse_srv_target("s-18446744073709551616.x", 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_parse_srv_target("s-99999999999999999999.x", 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(id, 5u);
}

static void test_srv_target_explicit_length(void **state) {
    (void)state;
    uint64_t id = 0;
    /* Only the first 5 bytes count: "s-123". */
    assert_int_equal(r_client_parse_srv_target("s-1234.example", 5, &id), RCLIENT_OK);
    assert_int_equal(id, 123u);
}

static void test_srv_target_rejects_non_members(void **state) {
    (void)state;
    static const char *bad[] = {
        "rl.us1.com", "", "s-", "s-.example.com", "s-12a.example.com", "s-01.example.com",
        "s--1.example.com", "s-+1.example.com", "x.s-1.example.com", "s1.example.com",
        "s_1.example.com", "s-1..example.com", "s-1 .example.com", ".", "s- 1.example",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t id = 99;
        if (r_client_parse_srv_target(bad[i], 0, &id) != RCLIENT_ERR_CONFIG) {
            fail_msg("accepted non-member target \"%s\"", bad[i]);
        }
        assert_int_equal(id, 99u);
    }
}

static void test_srv_target_later_labels_are_host_labels(void **state) {
    (void)state;
    char name[300];
    uint64_t id = 0;
    memset(name, 0, sizeof name);
    strcpy(name, "s-5.");
    memset(name + 4, 'a', 63);
    strcpy(name + 67, ".example.");
    assert_int_equal(r_client_parse_srv_target(name, 0, &id), RCLIENT_OK); /* 63-byte label */
    assert_int_equal(id, 5u);
    memset(name + 4, 'a', 64);
    strcpy(name + 68, ".example.");
    assert_int_equal(r_client_parse_srv_target(name, 0, &id), RCLIENT_ERR_CONFIG); /* 64-byte label */
    assert_int_equal(r_client_parse_srv_target("s-5.*.example.", 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_parse_srv_target("s-5.under_score-ok.example", 0, &id), RCLIENT_OK);
}

static void test_srv_target_name_length_limit(void **state) {
    (void)state;
    /* "s-7" + 25 x ".bbbbbbbbb" = 253 bytes */
    static const char seg[] = ".bbbbbbbbb";
    char name[300] = "s-7";
    for (int i = 0; i < 25; i++) strcat(name, seg);
    uint64_t id = 0;
    assert_int_equal(strlen(name), 253);
    assert_int_equal(r_client_parse_srv_target(name, 0, &id), RCLIENT_OK);
    assert_int_equal(id, 7u);
    strcat(name, ".");
    assert_int_equal(r_client_parse_srv_target(name, 0, &id), RCLIENT_OK); /* trailing dot not counted */
    name[253] = 'c';
    assert_int_equal(r_client_parse_srv_target(name, 0, &id), RCLIENT_ERR_CONFIG); /* 254 bytes */
}

static void test_srv_target_rejects_null(void **state) {
    (void)state;
    uint64_t id;
    assert_int_equal(r_client_parse_srv_target(NULL, 0, &id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_parse_srv_target("s-1", 0, NULL), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_zero_is_epoch),
        cmocka_unit_test(test_decode_fields),
        cmocka_unit_test(test_decode_max),
        cmocka_unit_test(test_encode_round_trip),
        cmocka_unit_test(test_encode_rejects_out_of_range),
        cmocka_unit_test(test_srv_target_spec_example),
        cmocka_unit_test(test_srv_target_without_trailing_dot_and_single_label),
        cmocka_unit_test(test_srv_target_upper_case_prefix),
        cmocka_unit_test(test_srv_target_max_and_overflow),
        cmocka_unit_test(test_srv_target_explicit_length),
        cmocka_unit_test(test_srv_target_rejects_non_members),
        cmocka_unit_test(test_srv_target_later_labels_are_host_labels),
        cmocka_unit_test(test_srv_target_name_length_limit),
        cmocka_unit_test(test_srv_target_rejects_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
