/* SPDX-License-Identifier: MIT */
/* Unit tests for reqtable.c: unique_id -> entry map with growth and deletion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_reqtable.h"

typedef struct {
    uint8_t id[16];
    int tag;
} entry_t;

static const uint8_t *key_of(const void *e) {
    return ((const entry_t *)e)->id;
}

static void make(entry_t *e, uint32_t n) {
    memset(e, 0, sizeof *e);
    memcpy(e->id, &n, sizeof n);
    e->id[15] = (uint8_t)(n * 7);
    e->tag = (int)n;
}

static void test_empty_table_finds_nothing(void **state) {
    (void)state;
    rl_reqtable_t t;
    rl_reqtable_init(&t, key_of);
    uint8_t id[16] = {1};
    assert_null(rl_reqtable_get(&t, id));
    assert_int_equal(t.count, 0);
    rl_reqtable_free(&t);
}

static void test_put_get_remove(void **state) {
    (void)state;
    rl_reqtable_t t;
    rl_reqtable_init(&t, key_of);
    entry_t a, b;
    make(&a, 1);
    make(&b, 2);
    assert_int_equal(rl_reqtable_put(&t, &a), 0);
    assert_int_equal(rl_reqtable_put(&t, &b), 0);
    assert_ptr_equal(rl_reqtable_get(&t, a.id), &a);
    assert_ptr_equal(rl_reqtable_get(&t, b.id), &b);
    assert_int_equal(t.count, 2);
    assert_int_equal(rl_reqtable_remove(&t, &a), 0);
    assert_null(rl_reqtable_get(&t, a.id));
    assert_ptr_equal(rl_reqtable_get(&t, b.id), &b);
    assert_int_equal(rl_reqtable_remove(&t, &a), -1);
    assert_int_equal(t.count, 1);
    rl_reqtable_free(&t);
}

static void test_growth_keeps_every_entry(void **state) {
    (void)state;
    enum { N = 1000 };
    static entry_t e[N];
    rl_reqtable_t t;
    rl_reqtable_init(&t, key_of);
    for (uint32_t i = 0; i < N; i++) {
        make(&e[i], i);
        assert_int_equal(rl_reqtable_put(&t, &e[i]), 0);
    }
    assert_int_equal(t.count, N);
    assert_true(t.cap >= 2 * N);
    for (uint32_t i = 0; i < N; i++) {
        assert_ptr_equal(rl_reqtable_get(&t, e[i].id), &e[i]);
    }
    for (uint32_t i = 0; i < N; i += 2) {
        assert_int_equal(rl_reqtable_remove(&t, &e[i]), 0);
    }
    for (uint32_t i = 0; i < N; i++) {
        if (i % 2) assert_ptr_equal(rl_reqtable_get(&t, e[i].id), &e[i]);
        else assert_null(rl_reqtable_get(&t, e[i].id));
    }
    size_t live = 0;
    for (size_t i = 0; i < t.cap; i++) live += rl_reqtable_slot(&t, i) != NULL;
    assert_int_equal(live, N / 2);
    rl_reqtable_free(&t);
}

/* Submit/cancel churn at low load must not keep rehashing (no allocation). */
static void test_churn_does_not_grow_or_accumulate_tombstones(void **state) {
    (void)state;
    rl_reqtable_t t;
    rl_reqtable_init(&t, key_of);
    entry_t e;
    make(&e, 0);
    assert_int_equal(rl_reqtable_put(&t, &e), 0);
    void **slots = t.slots;
    size_t cap = t.cap;
    assert_int_equal(rl_reqtable_remove(&t, &e), 0);
    for (uint32_t i = 1; i < 10000; i++) {
        make(&e, i);
        assert_int_equal(rl_reqtable_put(&t, &e), 0);
        assert_int_equal(rl_reqtable_remove(&t, &e), 0);
    }
    assert_ptr_equal(t.slots, slots);
    assert_int_equal(t.cap, cap);
    assert_int_equal(t.used, 0);
    rl_reqtable_free(&t);
}

static void test_colliding_probe_chain_survives_middle_removal(void **state) {
    (void)state;
    rl_reqtable_t t;
    rl_reqtable_init(&t, key_of);
    enum { N = 7 };
    entry_t e[N];
    for (uint32_t i = 0; i < N; i++) {
        make(&e[i], 100 + i);
        assert_int_equal(rl_reqtable_put(&t, &e[i]), 0);
    }
    assert_int_equal(rl_reqtable_remove(&t, &e[3]), 0);
    for (uint32_t i = 0; i < N; i++) {
        if (i == 3) assert_null(rl_reqtable_get(&t, e[i].id));
        else assert_ptr_equal(rl_reqtable_get(&t, e[i].id), &e[i]);
    }
    rl_reqtable_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_table_finds_nothing),
        cmocka_unit_test(test_put_get_remove),
        cmocka_unit_test(test_growth_keeps_every_entry),
        cmocka_unit_test(test_churn_does_not_grow_or_accumulate_tombstones),
        cmocka_unit_test(test_colliding_probe_chain_survives_middle_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
