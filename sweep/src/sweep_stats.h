/* SPDX-License-Identifier: MIT */
/* sweep_stats.h - the statistics of a sweep summary (docs/sweep.md
 * "Statistics"): quantiles across seeds and the paired Student t interval of
 * the difference from the baseline. The t quantile is computed from the
 * distribution (regularized incomplete beta function), not looked up. */
#ifndef SWEEP_STATS_H
#define SWEEP_STATS_H

#include <stddef.h>

/* Regularized incomplete beta function I_x(a, b) for a, b > 0 and x in
 * [0, 1] (continued fraction); NaN outside. */
double sweep_betainc(double x, double a, double b);

/* Student t distribution with nu > 0 degrees of freedom: CDF at t, and the
 * quantile at p in (0, 1) (bisection on the CDF to 1e-12 relative). NaN for
 * arguments out of range. */
double sweep_t_cdf(double t, double nu);
double sweep_t_quantile(double p, double nu);

/* The q-quantile (q in [0, 1]) of n >= 1 ascending values, linear
 * interpolation between order statistics: h = (n - 1) q. */
double sweep_quantile(const double *sorted, size_t n, double q);

/* The paired difference a[i] - b[i] over n pairs. */
typedef struct {
    size_t n;
    double mean;
    double sd;       /* sample standard deviation (n - 1); valid when n >= 2 */
    double ci_low;   /* mean -/+ t(0.975, n - 1) sd / sqrt(n); valid when n >= 2 */
    double ci_high;
} sweep_paired_t;

/* Fill *out from the n pairs (n may be 0: only out->n is then meaningful). */
void sweep_paired(const double *a, const double *b, size_t n, double confidence, sweep_paired_t *out);

#endif /* SWEEP_STATS_H */
