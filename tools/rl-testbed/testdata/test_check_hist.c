/* SPDX-License-Identifier: MIT */
/* test_check_hist.c - the load histogram of `rl-testbed check --load`
 * (check_hist.h). project: HDR layout, values below 256 exact, above them 128
 * buckets per power of two, so a reported value v' of a recorded v obeys
 * v <= v' <= v + v/128; quantiles by nearest rank, capped at the exact max. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "check_hist.h"

static check_hist_t *fresh(void) {
    check_hist_t *h = calloc(1, sizeof *h);
    assert_non_null(h);
    return h;
}

/* Below 256 every value is its own bucket. */
static void test_small_values_exact(void **state) {
    (void)state;
    for (uint64_t v = 0; v < 256; v++) {
        assert_int_equal(check_hist_index(v), v);
        assert_int_equal(check_hist_upper(check_hist_index(v)), v);
    }
}

/* 256..511: buckets of width 2; 512..1023 width 4; the edges named exactly. */
static void test_bucket_edges(void **state) {
    (void)state;
    assert_int_equal(check_hist_index(256), 256);
    assert_int_equal(check_hist_index(257), 256);
    assert_int_equal(check_hist_upper(256), 257);
    assert_int_equal(check_hist_index(511), 383);
    assert_int_equal(check_hist_index(512), 384);
    assert_int_equal(check_hist_upper(384), 515);
    assert_int_equal(check_hist_index(UINT64_MAX), CHECK_HIST_BUCKETS - 1);
    assert_true(check_hist_upper(CHECK_HIST_BUCKETS - 1) == UINT64_MAX);
}

/* The stated precision: v <= upper(index(v)) <= v + v/128, over many magnitudes. */
static void test_precision(void **state) {
    (void)state;
    for (uint64_t v = 1; v < (UINT64_C(1) << 62); v = v * 3 + 1) {
        uint64_t u = check_hist_upper(check_hist_index(v));
        assert_true(u >= v);
        assert_true(u - v <= v / 128);
    }
}

/* 1..1000 recorded once each: nearest-rank p50 = 500, p90 = 900, p99 = 990,
 * each reported as its bucket's upper bound (500..501, 900..903, 988..991);
 * p100 is the exact max, not the bound of 1000..1003. */
static void test_quantiles(void **state) {
    (void)state;
    check_hist_t *h = fresh();
    for (uint64_t v = 1; v <= 1000; v++) {
        check_hist_record(h, v);
    }
    assert_int_equal(h->total, 1000);
    assert_int_equal(check_hist_quantile(h, 0.50), 501);
    assert_int_equal(check_hist_quantile(h, 0.90), 903);
    assert_int_equal(check_hist_quantile(h, 0.99), 991);
    assert_int_equal(check_hist_quantile(h, 1.0), 1000);
    assert_int_equal(h->max, 1000);
    free(h);
}

/* project (check_hist.h): nearest rank at the first bucket edges, by hand.
 * 255 | 256 257 | 258 | 510 511 | 512: buckets [255], [256,257], [258,259],
 * [510,511], [512,515]. Rank ceil(q * 7): q 0.25 -> 2 -> 257; 0.5 -> 4 -> 259;
 * 0.6 -> 5 and 0.8 -> 6 -> 511; 0.9 -> 7 -> 515, capped at the max 512. */
static void test_quantiles_at_bucket_edges(void **state) {
    (void)state;
    check_hist_t *h = fresh();
    static const uint64_t vs[] = {255, 256, 257, 258, 510, 511, 512};
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        check_hist_record(h, vs[i]);
    }
    assert_int_equal(check_hist_quantile(h, 0.25), 257);
    assert_int_equal(check_hist_quantile(h, 0.50), 259);
    assert_int_equal(check_hist_quantile(h, 0.60), 511);
    assert_int_equal(check_hist_quantile(h, 0.80), 511);
    assert_int_equal(check_hist_quantile(h, 0.90), 512);
    assert_int_equal(check_hist_quantile(h, 0.0), 255); /* rank at least 1 */
    free(h);
}

/* The top bucket's bound never exceeds the exact maximum; empty reads 0. */
static void test_capped_and_empty(void **state) {
    (void)state;
    check_hist_t *h = fresh();
    assert_int_equal(check_hist_quantile(h, 0.5), 0);
    check_hist_record(h, 20000);
    assert_int_equal(check_hist_quantile(h, 0.5), 20000);
    assert_int_equal(check_hist_quantile(h, 0.999), 20000);
    free(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_values_exact), cmocka_unit_test(test_bucket_edges),
        cmocka_unit_test(test_precision),          cmocka_unit_test(test_quantiles),
        cmocka_unit_test(test_capped_and_empty),   cmocka_unit_test(test_quantiles_at_bucket_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
