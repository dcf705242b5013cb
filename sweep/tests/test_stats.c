/* SPDX-License-Identifier: MIT */
/* test_stats.c - the summary statistics (docs/sweep.md "Statistics"): the
 * Student t quantile against closed forms of the t distribution (df 1, 2, 3)
 * and the normal limit, quantile interpolation, and the paired interval on a
 * dataset worked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sweep_stats.h"

#define PI 3.14159265358979323846

/* df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi, so Q(p) = tan(pi (p - 1/2)). */
static void t_quantile_df1_is_cauchy(void **state) {
    (void)state;
    double want = tan(PI * (0.975 - 0.5));
    assert_true(fabs(sweep_t_quantile(0.975, 1.0) - want) < 1e-9 * want);
    assert_true(fabs(want - 12.706204736) < 1e-8);
}

/* df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)), so Q(p) = (2p - 1) / sqrt(2 p (1 - p)). */
static void t_quantile_df2_closed_form(void **state) {
    (void)state;
    double p = 0.975, want = (2 * p - 1) / sqrt(2 * p * (1 - p));
    assert_true(fabs(sweep_t_quantile(p, 2.0) - want) < 1e-9 * want);
    double p2 = 0.9;
    double want2 = (2 * p2 - 1) / sqrt(2 * p2 * (1 - p2));
    assert_true(fabs(sweep_t_quantile(p2, 2.0) - want2) < 1e-9 * want2);
}

/* df = 3: F(t) = 1/2 + (t / (sqrt(3) (1 + t^2/3)) + atan(t / sqrt(3))) / pi. */
static double cdf3(double t) {
    return 0.5 + (t / (sqrt(3.0) * (1.0 + t * t / 3.0)) + atan(t / sqrt(3.0))) / PI;
}

static double q3(double p) { /* bisection on the closed form, independent of the code under test */
    double lo = 0, hi = 100;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (cdf3(mid) < p) lo = mid;
        else hi = mid;
    }
    return (lo + hi) / 2;
}

static void t_cdf_df3_closed_form(void **state) {
    (void)state;
    for (double t = -6; t <= 6; t += 0.5) assert_true(fabs(sweep_t_cdf(t, 3.0) - cdf3(t)) < 1e-12);
    assert_true(fabs(sweep_t_quantile(0.975, 3.0) - q3(0.975)) < 1e-9);
    assert_true(fabs(q3(0.975) - 3.182446305) < 1e-8);
}

/* Large df tends to the standard normal: Q(0.975) = 1.959963985. */
static void t_quantile_normal_limit(void **state) {
    (void)state;
    assert_true(fabs(sweep_t_quantile(0.975, 1e8) - 1.959963985) < 1e-6);
}

static void t_quantile_symmetric_and_rejects(void **state) {
    (void)state;
    assert_true(sweep_t_quantile(0.5, 7.0) == 0.0);
    assert_true(fabs(sweep_t_quantile(0.025, 7.0) + sweep_t_quantile(0.975, 7.0)) < 1e-12);
    assert_true(isnan(sweep_t_quantile(0.0, 3.0)));
    assert_true(isnan(sweep_t_quantile(1.0, 3.0)));
    assert_true(isnan(sweep_t_quantile(0.9, 0.0)));
}

/* h = (n - 1) q, linear between order statistics. */
static void quantile_interpolates(void **state) {
    (void)state;
    const double v[] = {1, 2, 3, 4};
    assert_true(sweep_quantile(v, 4, 0.0) == 1.0);
    assert_true(sweep_quantile(v, 4, 0.5) == 2.5);
    assert_true(fabs(sweep_quantile(v, 4, 0.9) - 3.7) < 1e-12);
    assert_true(sweep_quantile(v, 4, 1.0) == 4.0);
    const double one[] = {7};
    assert_true(sweep_quantile(one, 1, 0.99) == 7.0);
}

/* By hand: d = a - b = {2, 3, 1, 4}; mean 2.5; sum of squared deviations 0.25 + 0.25 + 2.25 + 2.25 = 5,
 * sd = sqrt(5 / 3); half width = t(0.975, 3) sd / sqrt(4). */
static void paired_interval_known_answer(void **state) {
    (void)state;
    const double a[] = {3, 5, 4, 8}, b[] = {1, 2, 3, 4};
    sweep_paired_t p;
    sweep_paired(a, b, 4, 0.95, &p);
    double sd = sqrt(5.0 / 3.0), half = q3(0.975) * sd / 2.0;
    assert_int_equal(p.n, 4);
    assert_true(fabs(p.mean - 2.5) < 1e-15);
    assert_true(fabs(p.sd - sd) < 1e-12);
    assert_true(fabs(p.ci_low - (2.5 - half)) < 1e-9);
    assert_true(fabs(p.ci_high - (2.5 + half)) < 1e-9);
    assert_true(fabs(p.ci_low - 0.445739) < 1e-6); /* 2.5 - 3.182446 * 1.290994 / 2 */
}

/* A configuration against itself: zero difference, zero-width interval. */
static void paired_self_is_zero(void **state) {
    (void)state;
    const double a[] = {0.25, 17, 3.5, 1e-3, 42};
    sweep_paired_t p;
    sweep_paired(a, a, 5, 0.95, &p);
    assert_true(p.mean == 0.0 && p.sd == 0.0 && p.ci_low == 0.0 && p.ci_high == 0.0);
}

/* One pair: a mean, no spread or interval; none: nothing. */
static void paired_small_n(void **state) {
    (void)state;
    const double a[] = {5}, b[] = {2};
    sweep_paired_t p;
    sweep_paired(a, b, 1, 0.95, &p);
    assert_int_equal(p.n, 1);
    assert_true(p.mean == 3.0 && p.sd == 0.0);
    sweep_paired(a, b, 0, 0.95, &p);
    assert_int_equal(p.n, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_quantile_df1_is_cauchy),   cmocka_unit_test(t_quantile_df2_closed_form),
        cmocka_unit_test(t_cdf_df3_closed_form),      cmocka_unit_test(t_quantile_normal_limit),
        cmocka_unit_test(t_quantile_symmetric_and_rejects), cmocka_unit_test(quantile_interpolates),
        cmocka_unit_test(paired_interval_known_answer), cmocka_unit_test(paired_self_is_zero),
        cmocka_unit_test(paired_small_n),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
