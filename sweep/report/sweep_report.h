/* SPDX-License-Identifier: MIT */
/* sweep_report.h - the HA policy sweep report (docs/sweep.md "Report"):
 * reads a finished sweep's output directory (summary.json, manifest.json),
 * writes report.md and tables.md (per configuration x trace summaries and
 * paired differences from the baseline with their 95 % intervals), and the
 * plots as gnuplot data files and scripts, which it runs through gnuplot to
 * SVG and PNG (r-client-ha-design.md 7 "Correctness and efficiency metrics",
 * 8 "Tune U and schedule defaults from measured client/server round trips"). */
#ifndef SWEEP_REPORT_H
#define SWEEP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

#define REP_NAME_MAX 64u
#define REP_MAX_HIGHLIGHT 16u

/* One summary statistic of a (configuration, trace, metric): docs/sweep.md
 * "summary.json". has = false when the summary has no such row or n = 0. */
typedef struct {
    bool has;
    uint64_t n, errors;
    double mean, min, p50, p90, p99, max;
    bool has_diff;           /* diff.n >= 1 */
    uint64_t diff_n;
    double diff_mean;
    bool has_ci;             /* diff.n >= 2 */
    double diff_sd, ci_low, ci_high;
} rep_stat_t;

typedef struct {
    char name[REP_NAME_MAX];
    bool has_policy;              /* the manifest gave the policy fields */
    r_request_policy_t policy;
    uint32_t horizon_ms;          /* H = U * (sum B(k) + F), r-client.md 9.3.1; 0 without policy */
} rep_config_t;

typedef struct {
    char name[REP_NAME_MAX];
    bool has_loss;                /* a Bernoulli loss variant: loss_p known */
    double loss_p;
} rep_trace_t;

/* The metrics the report reads (columns of docs/sweep.md "summary.csv"). */
typedef enum {
    REP_M_AVAILABILITY = 0,
    REP_M_P50,
    REP_M_P99,
    REP_M_FALSE_ALLOW,
    REP_M_FALSE_DENY,
    REP_M_OVERCONSUMED,
    REP_M_EXTRA,
    REP_M_CONVERGENCE,
    REP_M_OLDEST,
    REP_M_REPLAYS,
    REP_M_COUNT
} rep_metric_t;

/* Summary metric name of m ("availability", "latency_p99_ms", ...). */
const char *rep_metric_name(rep_metric_t m);

typedef struct {
    char sweep[REP_NAME_MAX];
    char hash[72];
    char build_id[128];
    char baseline[REP_NAME_MAX];
    char description[256];        /* the manifest's, "" without one */
    size_t baseline_idx;
    uint64_t n_seeds;             /* max n + errors over the rows */
    uint64_t n_errors;            /* sum of errors over the (configuration, trace) pairs */
    rep_config_t *configs;        /* summary order */
    size_t n_configs;
    rep_trace_t *traces;          /* summary order */
    size_t n_traces;
    rep_stat_t *stats;            /* [(c * n_traces + t) * REP_M_COUNT + m] */
} rep_data_t;

/* The stat of configuration c, trace t, metric m (never NULL for valid indexes). */
const rep_stat_t *rep_stat(const rep_data_t *d, size_t c, size_t t, rep_metric_t m);

/* Load DIR/summary.json (required) and DIR/manifest.json (optional: the
 * configurations' policies and the traces' variant settings). Configurations
 * and traces keep the summary's order. Returns 0, or -1 with err as
 * "<file>: <field>: <problem>" and *out zeroed. Free with rep_data_free. */
int rep_data_load(const char *dir, rep_data_t *out, char *err, size_t err_cap);

#define REP_MAX_CELLS 1048576u                       /* configurations x traces */
#define REP_MAX_FILE_BYTES (1024u * 1024u * 1024u)   /* summary.json, manifest.json */

/* The same from the texts: summary (summary_len bytes, required) and
 * manifest (manifest_len bytes, NULL when there is none); dir only names
 * the files in errors ("<dir>/summary.json: ..."). Same results and errors
 * as rep_data_load, plus "rows: more than 1048576 (configuration, trace)
 * pairs". */
int rep_data_parse(const char *summary, size_t summary_len, const char *manifest, size_t manifest_len,
                   const char *dir, rep_data_t *out, char *err, size_t err_cap);
void rep_data_free(rep_data_t *d);

/* The Pareto front of n points (x[i], y[i]), both minimised: on_front[i] is
 * set true exactly when no point j has x[j] <= x[i] and y[j] <= y[i] with
 * one of them strictly smaller (equal points are all on the front). Points
 * with a NaN coordinate are never on the front and dominate nothing.
 * Returns the number of points on the front. n = 0 returns 0. */
size_t rep_pareto_front(const double *x, const double *y, size_t n, bool *on_front);

#define REP_MAX_GROUPS 8u

/* A named group of traces (a deployment): its own table of means over its
 * traces and Pareto front in report.md. */
typedef struct {
    const char *name;             /* a name (A-Z a-z 0-9 _ . - =) */
    const char *traces[64];       /* trace names of the summary */
    size_t n_traces;
} rep_group_t;

typedef struct {
    const char *out_dir;          /* created if missing (one level) */
    const char *notes_path;       /* NULL: none; else its Markdown is copied after the header */
    const char *gnuplot;          /* the program to run; NULL: "gnuplot" (PATH) */
    const char *highlight[REP_MAX_HIGHLIGHT]; /* configurations drawn in colour and named in legends */
    size_t n_highlight;           /* 0: the baseline and the first five other configurations */
    rep_group_t groups[REP_MAX_GROUPS];
    size_t n_groups;
} rep_options_t;

typedef struct {
    size_t plots;                 /* gnuplot scripts written */
    size_t plots_drawn;           /* scripts gnuplot ran successfully (each gives .svg and .png) */
    bool gnuplot_missing;         /* the program could not be started */
} rep_result_t;

/* The highlighted configurations of opt as indexes into d->configs (at most
 * REP_MAX_HIGHLIGHT, baseline first). Returns the count, or -1 with err naming
 * an unknown configuration. */
int rep_highlight(const rep_data_t *d, const rep_options_t *opt, size_t *idx, char *err, size_t err_cap);

/* Write OUT/report.md, OUT/tables.md, the plot data (OUT/NAME.dat) and scripts
 * (OUT/NAME.gp), then run each script with gnuplot in OUT (OUT/NAME.svg and
 * OUT/NAME.png). A missing gnuplot is not an error: res->gnuplot_missing is set
 * and the Markdown and scripts are still written. Returns 0, or -1 with err
 * (an I/O error naming the file, an unknown highlighted configuration, or a
 * gnuplot script that failed, naming it). */
int rep_write(const rep_data_t *d, const rep_options_t *opt, rep_result_t *res, char *err, size_t err_cap);

#endif /* SWEEP_REPORT_H */
