/* SPDX-License-Identifier: MIT */
/* report_pareto.c - the Pareto front of (x, y) points, both minimised:
 * the configurations no other configuration beats on both p99 decision
 * latency and false-allow rate (r-client-ha-design.md 7). */
#include <math.h>

#include "sweep_report.h"

/* j dominates i: no worse on both axes and strictly better on one. */
static bool dominates(const double *x, const double *y, size_t j, size_t i)
{
    return x[j] <= x[i] && y[j] <= y[i] && (x[j] < x[i] || y[j] < y[i]);
}

size_t rep_pareto_front(const double *x, const double *y, size_t n, bool *on_front)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        bool front = !isnan(x[i]) && !isnan(y[i]);
        for (size_t j = 0; j < n && front; j++) {
            if (j != i && !isnan(x[j]) && !isnan(y[j]) && dominates(x, y, j, i))
                front = false;
        }
        on_front[i] = front;
        count += front ? 1u : 0u;
    }
    return count;
}
