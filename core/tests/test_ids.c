/* SPDX-License-Identifier: MIT */
/* Unit tests for ids.c. Expected IDs computed independently with Python's
 * hashlib.blake2s (32-byte digest, first 16 bytes kept). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "r_client.h"
#include "test_util.h"

static void assert_id(const uint8_t *got, const char *want_hex) {
    uint8_t want[16];
    assert_int_equal(tu_hex(want_hex, want, sizeof want), 16);
    assert_memory_equal(got, want, 16);
}

static void test_bucket_id_checkout(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_bucket_id("checkout", 8, 1000, 100, id), RCLIENT_OK);
    assert_id(id, "f5cf3ad8b8406854b596ba3614f16eff");
}

static void test_bucket_id_empty_name(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_bucket_id(NULL, 0, 0, 0, id), RCLIENT_OK);
    assert_id(id, "e6e4b7275c627091a9cc8f6d02d71132");
}

static void test_bucket_id_embedded_nul_and_max_settings(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_bucket_id("a\0b", 3, UINT32_MAX, UINT32_MAX, id), RCLIENT_OK);
    assert_id(id, "d0844336868551245694af028257fb4d");
}

static void test_bucket_id_is_not_16_byte_digest_variant(void **state) {
    (void)state;
    uint8_t id[16], variant[16];
    assert_int_equal(r_client_derive_bucket_id("checkout", 8, 1000, 100, id), RCLIENT_OK);
    assert_int_equal(tu_hex("23d34e8c3a1a745dba5c461d177768bd", variant, 16), 16);
    assert_memory_not_equal(id, variant, 16);
}

static void test_bucket_id_rejects_bad_arguments(void **state) {
    (void)state;
    uint8_t id[16] = {0};
    uint8_t zero[16] = {0};
    assert_int_equal(r_client_derive_bucket_id(NULL, 1, 1, 1, id), RCLIENT_ERR_CONFIG);
    assert_memory_equal(id, zero, 16);
    assert_int_equal(r_client_derive_bucket_id("x", 1, 1, 1, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_derive_bucket_id("x", (size_t)UINT32_MAX + 1u, 1, 1, id), RCLIENT_ERR_CONFIG);
}

static void test_tracker_id_inventory_backend(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5, id), RCLIENT_OK);
    assert_id(id, "0320bf15b884bda367a17e5ffb650441");
}

static void test_tracker_id_empty_name_zero_settings(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_latency_tracker_id("", 0, 0, 0, 0, 0, id), RCLIENT_OK);
    assert_id(id, "d6ced7703220a87a1821e70e64965fe6");
}

static void test_tracker_id_trailing_nul_counts(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_latency_tracker_id("x\0", 2, 1, 2, 3, 4, id), RCLIENT_OK);
    assert_id(id, "e75256a9ddfa2a5423908e0a91165ac7");
}

static void test_tracker_id_rejects_bad_arguments(void **state) {
    (void)state;
    uint8_t id[16];
    assert_int_equal(r_client_derive_latency_tracker_id(NULL, 2, 1, 2, 3, 4, id), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_derive_latency_tracker_id("x", 1, 1, 2, 3, 4, NULL), RCLIENT_ERR_CONFIG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_id_checkout),
        cmocka_unit_test(test_bucket_id_empty_name),
        cmocka_unit_test(test_bucket_id_embedded_nul_and_max_settings),
        cmocka_unit_test(test_bucket_id_is_not_16_byte_digest_variant),
        cmocka_unit_test(test_bucket_id_rejects_bad_arguments),
        cmocka_unit_test(test_tracker_id_inventory_backend),
        cmocka_unit_test(test_tracker_id_empty_name_zero_settings),
        cmocka_unit_test(test_tracker_id_trailing_nul_counts),
        cmocka_unit_test(test_tracker_id_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
