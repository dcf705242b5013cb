/* SPDX-License-Identifier: MIT */
/* Unit tests for rng.c: injectable source, UUIDv4 bits, fail-closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/wait.h>
#include <unistd.h>

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
    rl_rng_t rng = {.fn = fill_ff, .ctx = &calls};
    uint8_t buf[12];
    assert_int_equal(rl_rng_bytes(&rng, buf, sizeof buf), 0);
    assert_int_equal(calls, 1);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0xFF);
}

static void test_unique_id_sets_v4_bits_from_ones(void **state) {
    (void)state;
    int calls = 0;
    rl_rng_t rng = {.fn = fill_ff, .ctx = &calls};
    uint8_t id[16];
    assert_int_equal(rl_rng_unique_id(&rng, id), 0);
    assert_int_equal(id[6], 0x4F);
    assert_int_equal(id[8], 0xBF);
    assert_int_equal(id[0], 0xFF);
    assert_int_equal(id[15], 0xFF);
}

static void test_unique_id_sets_v4_bits_from_zeros(void **state) {
    (void)state;
    rl_rng_t rng = {.fn = fill_00, .ctx = NULL};
    uint8_t id[16];
    assert_int_equal(rl_rng_unique_id(&rng, id), 0);
    assert_int_equal(id[6], 0x40);
    assert_int_equal(id[8], 0x80);
    assert_int_equal(id[7], 0x00);
}

static void test_failure_fails_closed_and_zeroes(void **state) {
    (void)state;
    rl_rng_t rng = {.fn = fail_after_partial, .ctx = NULL};
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

static void test_default_pool_hands_out_distinct_bytes(void **state) {
    (void)state;
    rl_rng_t rng;
    memset(&rng, 0, sizeof rng);
    uint8_t a[16], b[16];
    assert_int_equal(rl_rng_bytes(&rng, a, 16), 0);
    assert_int_equal(rng.avail, RL_RNG_POOL - 16);
    assert_int_equal(rl_rng_bytes(&rng, b, 16), 0);
    assert_int_equal(rng.avail, RL_RNG_POOL - 32);
    assert_memory_not_equal(a, b, 16);
    /* handed-out bytes are wiped from the pool */
    uint8_t zero[32] = {0};
    assert_memory_equal(rng.pool + rng.avail, zero, 32);
    rl_rng_release(&rng);
    assert_int_equal(rng.avail, 0);
}

static void test_default_pool_refills_when_exhausted(void **state) {
    (void)state;
    rl_rng_t rng;
    memset(&rng, 0, sizeof rng);
    uint8_t buf[12];
    for (size_t i = 0; i < RL_RNG_POOL / 12; i++) {
        assert_int_equal(rl_rng_bytes(&rng, buf, 12), 0);
    }
    assert_int_equal(rng.avail, RL_RNG_POOL % 12);
    assert_int_equal(rl_rng_bytes(&rng, buf, 12), 0);
    assert_int_equal(rng.avail, RL_RNG_POOL - 12);
    rl_rng_release(&rng);
}

static void test_large_request_bypasses_pool(void **state) {
    (void)state;
    rl_rng_t rng;
    memset(&rng, 0, sizeof rng);
    uint8_t big[RL_RNG_POOL];
    assert_int_equal(rl_rng_bytes(&rng, big, sizeof big), 0);
    assert_int_equal(rng.avail, 0);
}

/* A child after fork() must not reuse bytes its parent's pool still holds. */
static void test_fork_discards_pool(void **state) {
    (void)state;
    rl_rng_t rng;
    memset(&rng, 0, sizeof rng);
    uint8_t warm[16], parent[16], child[16];
    assert_int_equal(rl_rng_bytes(&rng, warm, 16), 0);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        uint8_t c[16];
        int ok = rl_rng_bytes(&rng, c, 16) == 0 && write(fds[1], c, 16) == 16;
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], child, 16), 16);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(rl_rng_bytes(&rng, parent, 16), 0);
    assert_memory_not_equal(parent, child, 16);
    rl_rng_release(&rng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_injected_source_is_used),
        cmocka_unit_test(test_unique_id_sets_v4_bits_from_ones),
        cmocka_unit_test(test_unique_id_sets_v4_bits_from_zeros),
        cmocka_unit_test(test_failure_fails_closed_and_zeroes),
        cmocka_unit_test(test_default_source_gives_distinct_ids),
        cmocka_unit_test(test_null_buffer_rejected),
        cmocka_unit_test(test_default_pool_hands_out_distinct_bytes),
        cmocka_unit_test(test_default_pool_refills_when_exhausted),
        cmocka_unit_test(test_large_request_bypasses_pool),
        cmocka_unit_test(test_fork_discards_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
