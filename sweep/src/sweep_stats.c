/* SPDX-License-Identifier: MIT */
/* sweep_stats.c - quantiles and the paired t interval (docs/sweep.md
 * "Statistics"). The Student t CDF is 1 - I_{nu/(nu+t^2)}(nu/2, 1/2) / 2 for
 * t >= 0 (symmetric below), with I the regularized incomplete beta function
 * evaluated by its continued fraction (modified Lentz). */
#include "sweep_stats.h"

#include <math.h>

/* The continued fraction of I_x(a, b) (converges fast for x < (a+1)/(a+b+2)). */
static double beta_cf(double x, double a, double b) {
    const double tiny = 1e-300, eps = 1e-16;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 10000; m++) {
        double m2 = 2.0 * m;
        /* even step: d_{2m} = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
        double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        f *= d * c;
        /* odd step: d_{2m+1} = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + num * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1.0 + num / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        double delta = d * c;
        f *= delta;
        if (fabs(delta - 1.0) < eps) break;
    }
    return f;
}

double sweep_betainc(double x, double a, double b) {
    if (!(a > 0.0) || !(b > 0.0) || !(x >= 0.0) || !(x <= 1.0)) return NAN;
    if (x == 0.0 || x == 1.0) return x;
    /* x^a (1-x)^b / (a B(a, b)) times the continued fraction */
    double lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1.0) / (a + b + 2.0)) return exp(lfront) * beta_cf(x, a, b) / a;
    return 1.0 - exp(lfront) * beta_cf(1.0 - x, b, a) / b; /* I_x(a,b) = 1 - I_{1-x}(b,a) */
}

double sweep_t_cdf(double t, double nu) {
    if (!(nu > 0.0) || isnan(t)) return NAN;
    if (isinf(t)) return t > 0 ? 1.0 : 0.0;
    double tail = 0.5 * sweep_betainc(nu / (nu + t * t), 0.5 * nu, 0.5); /* P(T > |t|) */
    return t >= 0.0 ? 1.0 - tail : tail;
}

double sweep_t_quantile(double p, double nu) {
    if (!(p > 0.0) || !(p < 1.0) || !(nu > 0.0)) return NAN;
    if (p == 0.5) return 0.0;
    if (p < 0.5) return -sweep_t_quantile(1.0 - p, nu);
    double lo = 0.0, hi = 1.0;
    while (sweep_t_cdf(hi, nu) < p && hi < 1e300) hi *= 2.0;
    for (int i = 0; i < 2000 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (sweep_t_cdf(mid, nu) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

double sweep_quantile(const double *sorted, size_t n, double q) {
    if (n == 0) return NAN;
    double h = (double)(n - 1) * q;
    size_t i = (size_t)floor(h);
    if (i + 1 >= n) return sorted[n - 1];
    return sorted[i] + (h - (double)i) * (sorted[i + 1] - sorted[i]);
}

void sweep_paired(const double *a, const double *b, size_t n, double confidence, sweep_paired_t *out) {
    out->n = n;
    out->mean = out->sd = out->ci_low = out->ci_high = 0.0;
    if (n == 0) return;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) sum += a[i] - b[i];
    out->mean = sum / (double)n;
    if (n < 2) return;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = (a[i] - b[i]) - out->mean;
        ss += d * d;
    }
    out->sd = sqrt(ss / (double)(n - 1));
    double t = sweep_t_quantile(0.5 + 0.5 * confidence, (double)(n - 1));
    double half = t * out->sd / sqrt((double)n);
    out->ci_low = out->mean - half;
    out->ci_high = out->mean + half;
}
