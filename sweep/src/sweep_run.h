/* SPDX-License-Identifier: MIT */
/* sweep_run.h - running a sweep (docs/sweep.md "Units", "Output directory",
 * "Resume", "Sharding and merge"): worker processes run units and the parent
 * appends each finished unit to the results log; a complete sweep gets its
 * results and summary files. Also the merge of shard directories. */
#ifndef SWEEP_RUN_H
#define SWEEP_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sweep.h"

#define SWEEP_MANIFEST_SCHEMA "ratelimitly-sweep-manifest/v1"
#define SWEEP_RESULTS_SCHEMA "ratelimitly-sweep-results/v1"
#define SWEEP_SUMMARY_SCHEMA "ratelimitly-sweep-summary/v1"
#define SWEEP_BUILD_ID_MAX 96u
#define SWEEP_MAX_SHARDS 65536u

/* The result of one unit, as the results log records it. */
typedef struct {
    bool done;
    bool ok;
    char digest[65];
    uint64_t events;
    char *error;                    /* status error: the message (owned) */
    double *values;                 /* status ok: one per metric column, NaN = not finite (owned) */
} sweep_unit_result_t;

/* The metric columns of results.csv: the simulator's metrics, then the
 * derived ones (docs/sweep.md "results.csv"). NULL-terminated. */
extern const char *const sweep_derived_metrics[];
size_t sweep_metric_columns(const char ***names_out); /* names_out: a static NULL-terminated list */
bool sweep_metric_is_key(const char *name);
bool sweep_metric_is_count(const char *name);

/* The build id (docs/sweep.md "Sweep hash and build id"):
 * "<version>+<16 hex of SHA-256 of /proc/self/exe>" ("+unknown" when the
 * executable cannot be read). */
void sweep_build_id(char out[SWEEP_BUILD_ID_MAX]);

/* The manifest of a sweep (a JSON object, owned by the caller) for a shard. */
json_t *sweep_manifest_new(const sweep_t *sw, const char *build_id, size_t shard_index, size_t shard_count);

/* One unit's log line (with '\n') for a finished run: ok with the metrics, or
 * an error message. Returns a malloc'd string or NULL. */
char *sweep_log_line(const sweep_t *sw, size_t u, const double *values, const char *digest, uint64_t events,
                     const char *error);

/* The expanded sweep as a manifest records it (what merge needs). */
typedef struct {
    json_t *root;                   /* the manifest (owned) */
    const char *hash, *build_id;
    size_t shard_index, shard_count;
    size_t n_configs, n_traces, n_seeds, n_units, baseline;
    const char **configs, **traces, **seeds; /* borrowed from root */
    const char **metrics;
    size_t n_metrics;
} sweep_manifest_t;

/* Read DIR/manifest.json. 0, or -1 with err. */
int sweep_manifest_read(const char *dir, sweep_manifest_t *m, char *err, size_t err_cap);
void sweep_manifest_free(sweep_manifest_t *m);

/* Parse one log line into res[u] (checked against the manifest: u in range,
 * the names matching). Returns u, -1 when malformed (err), -2 for a
 * duplicate unit. */
long sweep_log_parse_line(const sweep_manifest_t *m, const char *line, sweep_unit_result_t *res, char *err,
                          size_t err_cap);
/* Read DIR/units.log into res (n_units entries, zeroed by the caller); a
 * torn last line is dropped (and cut from the file when truncate_torn).
 * Returns the number of units read, or -1 with err. */
long sweep_log_read(const char *dir, const sweep_manifest_t *m, sweep_unit_result_t *res, bool truncate_torn,
                    char *err, size_t err_cap);
void sweep_results_free(sweep_unit_result_t *res, size_t n);

/* Write the final files of a complete sweep into dir: units.log (sorted),
 * results.csv, results.json, summary.csv, summary.json. 0 or -1 with err. */
int sweep_write_outputs(const char *dir, const sweep_manifest_t *m, const sweep_unit_result_t *res, char *err,
                        size_t err_cap);
/* The same files, to streams (any may be NULL); used by the writer and tests. */
void sweep_write_results_csv(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res);
void sweep_write_results_json(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res);
void sweep_write_summary_csv(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res);
void sweep_write_summary_json(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res);

/* A number in the results format (docs/sweep.md "Number format"). */
void sweep_format_number(char *buf, size_t cap, double v, bool count);

/* Shards: unit u belongs to shard i of n when u mod n = i. */
static inline bool sweep_in_shard(size_t u, size_t index, size_t count) {
    return count <= 1 || u % count == index;
}
/* Parse "i/N", "auto/N" or "/N" (the index from JOB_COMPLETION_INDEX, else
 * SLURM_ARRAY_TASK_ID, read through getenv_fn so tests can supply them).
 * 0, or -1 with err. */
int sweep_parse_shard(const char *text, const char *(*getenv_fn)(const char *), size_t *index, size_t *count,
                      char *err, size_t err_cap);

typedef struct {
    const char *out_dir;
    unsigned jobs;                  /* worker processes (>= 1) */
    size_t shard_index, shard_count;/* count 1 = the whole sweep */
    size_t stop_after;              /* stop after this many units recorded in this run (0 = no limit) */
    FILE *progress;                 /* progress lines, or NULL */
    bool progress_tty;              /* one updating line instead of plain lines */
    volatile sig_atomic_t *stop;    /* set (by a signal handler) to stop early, or NULL */
} sweep_run_opts_t;

typedef struct {
    size_t units;                   /* in this shard */
    size_t already_done;            /* found in the results log */
    size_t ran;                     /* run now */
    size_t failed;                  /* units with status error, in the whole log */
    bool complete;                  /* every unit of the shard is done */
    bool outputs_written;
    double wall_seconds;
} sweep_run_report_t;

/* Run (or resume) sw (prepared) into o->out_dir. Failed units are listed on
 * o->progress as they finish. Returns 0 (report filled; see complete), or -1
 * with err: a refused resume (another sweep hash, build id or shard), an
 * unreadable output directory, a corrupt log. */
int sweep_run(sweep_t *sw, const sweep_run_opts_t *o, sweep_run_report_t *rep, char *err, size_t err_cap);

/* Merge shard directories into out_dir (docs/sweep.md "Sharding and merge").
 * Returns 0, or -1 with err naming the directory or unit that is refused. */
int sweep_merge(const char *const *dirs, size_t n_dirs, const char *out_dir, size_t *failed, char *err,
                size_t err_cap);

#endif /* SWEEP_RUN_H */
