/* SPDX-License-Identifier: MIT */
/* report_int.h - the report's internal interfaces (sweep_report.h is the public one). */
#ifndef REPORT_INT_H
#define REPORT_INT_H

#include <stdio.h>

#include "sweep_report.h"

/* Write the printf-style message into err (cap bytes, NUL-terminated, truncated
 * if longer) and return -1: the one error path of every report reader and
 * writer. */
__attribute__((format(printf, 3, 4))) int rep_fail(char *err, size_t cap, const char *fmt, ...);

/* Index of a configuration or trace by name, or n_configs / n_traces. */
size_t rep_find_config(const rep_data_t *d, const char *name);
size_t rep_find_trace(const rep_data_t *d, const char *name);

/* Apply the policies and variant settings of a manifest.json text (len
 * bytes; NULL: no manifest) to d; path names it in errors. Also sets every
 * trace's loss rate from its name first (the manifest's "set" wins).
 * Returns 0 or -1 with err. */
int rep_manifest_apply(const char *text, size_t len, const char *path, rep_data_t *d, char *err, size_t cap);

/* A trace's Bernoulli loss probability from its name: a part "loss_p<number>"
 * after a '-' (the variant name of a `vary` axis labelled loss_p, docs/sweep.md
 * "traces"). Returns true with *p in [0, 1]. */
bool rep_loss_from_name(const char *name, double *p);

/* Means over traces of configuration c's per-trace means of metric m (traces
 * without a value skipped); NaN when none has one. */
double rep_mean_over_traces(const rep_data_t *d, size_t c, rep_metric_t m);

/* Two configurations whose policies differ at most in U (unit_ms). */
bool rep_same_but_unit(const rep_config_t *a, const rep_config_t *b);
/* Traces with a known loss_p, ascending (ties in summary order), into idx
 * (n_traces entries); returns the count. */
size_t rep_loss_traces(const rep_data_t *d, size_t *idx);
/* Traces where some configuration has a convergence time above 0 in some seed. */
size_t rep_fault_traces(const rep_data_t *d, size_t *idx);
/* Traces whose name contains "empirical" (latency drawn from round-trip samples). */
size_t rep_empirical_traces(const rep_data_t *d, size_t *idx);
/* The configurations equal to c but for U, one per U value (the first in
 * summary order), ascending U, c included; idx has n_configs entries. */
size_t rep_u_family(const rep_data_t *d, size_t c, size_t *idx);
/* The first member of each family of at least 3 configurations that differ
 * only in U, in summary order, at most max. */
size_t rep_u_families(const rep_data_t *d, size_t *first, size_t max);

/* The mean over the traces idx[0..n) of configuration c's per-trace means
 * of m (traces without a value skipped); NaN when none has one. */
double rep_mean_over(const rep_data_t *d, size_t c, rep_metric_t m, const size_t *idx, size_t n);

/* The mean over the traces idx[0..n_idx) (idx NULL: every trace) of configuration c's paired difference
 * from the baseline in m (traces without a value skipped), into *mean, and the half-width of its 95 %
 * interval into *half: the mean of the traces' half-widths (ci_high - ci_low) / 2. Each half-width is
 * t(0.975, n - 1) sd_t / sqrt(n); the standard deviation of a mean over traces is at most the mean of
 * the traces' standard deviations whatever their correlation (the seeds are shared), so the interval
 * is conservative. *half is NaN when a trace has no interval (one seed). Returns false (both NaN) when
 * no trace has a value or one has no difference. */
bool rep_diff_over(const rep_data_t *d, size_t c, rep_metric_t m, const size_t *idx, size_t n_idx, double *mean,
                   double *half);

/* The selection used by the writers. */
typedef struct {
    size_t hl[REP_MAX_HIGHLIGHT];
    size_t n_hl;
    bool *front_all;              /* [n_configs]: Pareto front over the trace means */
    bool *front_trace;            /* [n_configs * n_traces]: per-trace front */
    size_t group_traces[REP_MAX_GROUPS][64]; /* opt->groups as trace indexes */
    bool *front_group;            /* [g * n_configs + c]: front over the group's means */
} rep_sel_t;

int rep_md_write(const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel, const rep_result_t *res,
                 char *err, size_t cap);

/* Write the plots' data and scripts into opt->out_dir; *names gets the plot
 * base names written (static strings), *n their count. */
int rep_plots_write(const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel, const char **names,
                    size_t *n, char *err, size_t cap);
int rep_plots_run(const rep_options_t *opt, const char *const *names, size_t n, rep_result_t *res, char *err,
                  size_t cap);

/* Markdown/HTML anchor text of a name (names are A-Z a-z 0-9 _ . - =: kept). */
#define REP_PLOT_MAX 8u

#endif /* REPORT_INT_H */
