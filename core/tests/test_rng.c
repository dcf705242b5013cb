/* Unit tests for rng.c: injectable source, UUIDv4 bits, fail-closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_rng.h"

static int fill_ff(void *ctx, uint8_t *buf, size_t len) {
    (*(int *)ctx)++;
    memset(buf, 0xFF, len);
    return 0;
}

static int fill_00(void *ctx, uint8_t *buf, size_t len) {
    (void)ctx;
    memset(buf, 0x00, len);
    return 0;
}

static int fail_after_partial(void *ctx, uint8_t *buf, size_t len) {
    (void)ctx;
    memset(buf, 0xAB, len / 2);
    return -1;
}

static void test_injected_source_is_used(void **state) {
    (void)state;
    int calls = 0;
    rl_rng_t rng = {fill_ff, &calls};
    uint8_t buf[12];
    assert_int_equal(rl_rng_bytes(&rng, buf, sizeof buf), 0);
    assert_int_equal(calls, 1);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0xFF);
}

static void test_unique_id_sets_v4_bits_from_ones(void **state) {
    (void)state;
    int calls = 0;
    rl_rng_t rng = {fill_ff, &calls};
    uint8_t id[16];
    assert_int_equal(rl_rng_unique_id(&rng, id), 0);
    assert_int_equal(id[6], 0x4F);
    assert_int_equal(id[8], 0xBF);
    assert_int_equal(id[0], 0xFF);
    assert_int_equal(id[15], 0xFF);
}

static void test_unique_id_sets_v4_bits_from_zeros(void **state) {
    (void)state;
    rl_rng_t rng = {fill_00, NULL};
    uint8_t id[16];
    assert_int_equal(rl_rng_unique_id(&rng, id), 0);
    assert_int_equal(id[6], 0x40);
    assert_int_equal(id[8], 0x80);
    assert_int_equal(id[7], 0x00);
}

static void test_failure_fails_closed_and_zeroes(void **state) {
    (void)state;
    rl_rng_t rng = {fail_after_partial, NULL};
    uint8_t id[16];
    memset(id, 0x11, sizeof id);
    assert_int_equal(rl_rng_unique_id(&rng, id), -1);
    for (size_t i = 0; i < sizeof id; i++) assert_int_equal(id[i], 0);
}

static void test_default_source_gives_distinct_ids(void **state) {
    (void)state;
    uint8_t a[16], b[16];
    assert_int_equal(rl_rng_unique_id(NULL, a), 0);
    assert_int_equal(rl_rng_unique_id(NULL, b), 0);
    assert_memory_not_equal(a, b, 16);
    assert_int_equal(a[6] & 0xF0, 0x40);
    assert_int_equal(a[8] & 0xC0, 0x80);
}

static void test_null_buffer_rejected(void **state) {
    (void)state;
    assert_int_equal(rl_rng_bytes(NULL, NULL, 4), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_injected_source_is_used),
        cmocka_unit_test(test_unique_id_sets_v4_bits_from_ones),
        cmocka_unit_test(test_unique_id_sets_v4_bits_from_zeros),
        cmocka_unit_test(test_failure_fails_closed_and_zeroes),
        cmocka_unit_test(test_default_source_gives_distinct_ids),
        cmocka_unit_test(test_null_buffer_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
