/* SPDX-License-Identifier: MIT */
/* sweep_output.c - results.csv/json and summary.csv/json of a complete
 * sweep (docs/sweep.md "results.csv" .. "Number format"), written from the
 * results log alone, so a resumed or merged sweep writes the same bytes as an
 * uninterrupted one. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep_run.h"
#include "sweep_stats.h"

#define ERR(...) (snprintf(err, err_cap, __VA_ARGS__), -1)
#define CONFIDENCE 0.95

void sweep_format_number(char *buf, size_t cap, double v, bool count) {
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    if (v == 0.0) v = 0.0; /* -0 -> 0 */
    if (count) snprintf(buf, cap, "%.0f", v);
    else snprintf(buf, cap, "%.9g", v);
}

static void csv_quoted(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void json_escape(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* A number as JSON: the results format, or null when not finite. */
static void json_num(FILE *f, double v, bool count) {
    char b[64];
    sweep_format_number(b, sizeof b, v, count);
    fputs(b[0] ? b : "null", f);
}

static void unit_names(const sweep_manifest_t *m, size_t u, const char **c, const char **t, const char **s) {
    *s = m->seeds[u % m->n_seeds];
    *t = m->traces[(u / m->n_seeds) % m->n_traces];
    *c = m->configs[u / m->n_seeds / m->n_traces];
}

void sweep_write_results_csv(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res) {
    fputs("config,trace,seed,status,error,digest,events", f);
    for (size_t i = 0; i < m->n_metrics; i++) fprintf(f, ",%s", m->metrics[i]);
    fputc('\n', f);
    for (size_t u = 0; u < m->n_units; u++) {
        const char *c, *t, *s;
        unit_names(m, u, &c, &t, &s);
        const sweep_unit_result_t *r = &res[u];
        fprintf(f, "%s,%s,%s,%s,", c, t, s, r->ok ? "ok" : "error");
        if (!r->ok) {
            csv_quoted(f, r->error != NULL ? r->error : "");
            fputs(",,", f);
            for (size_t i = 0; i < m->n_metrics; i++) fputc(',', f);
            fputc('\n', f);
            continue;
        }
        fprintf(f, ",%s,%llu", r->digest, (unsigned long long)r->events);
        for (size_t i = 0; i < m->n_metrics; i++) {
            char b[64];
            sweep_format_number(b, sizeof b, r->values[i], sweep_metric_is_count(m->metrics[i]));
            fprintf(f, ",%s", b);
        }
        fputc('\n', f);
    }
}

static void json_header(FILE *f, const sweep_manifest_t *m, const char *schema) {
    fprintf(f, "{\"schema\": \"%s\", \"sweep\": ", schema);
    json_escape(f, json_string_value(json_object_get(m->root, "sweep")));
    fprintf(f, ", \"sweep_hash\": \"%s\", \"build_id\": ", m->hash);
    json_escape(f, m->build_id);
    fprintf(f, ", \"baseline\": \"%s\"", m->configs[m->baseline]);
}

void sweep_write_results_json(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res) {
    json_header(f, m, SWEEP_RESULTS_SCHEMA);
    fputs(", \"metrics\": [", f);
    for (size_t i = 0; i < m->n_metrics; i++) fprintf(f, "%s\"%s\"", i ? ", " : "", m->metrics[i]);
    fputs("],\n \"rows\": [", f);
    for (size_t u = 0; u < m->n_units; u++) {
        const char *c, *t, *s;
        unit_names(m, u, &c, &t, &s);
        const sweep_unit_result_t *r = &res[u];
        fprintf(f, "%s\n  {\"config\": \"%s\", \"trace\": \"%s\", \"seed\": %s, ", u ? "," : "", c, t, s);
        if (!r->ok) {
            fputs("\"status\": \"error\", \"error\": ", f);
            json_escape(f, r->error != NULL ? r->error : "");
            fputc('}', f);
            continue;
        }
        fprintf(f, "\"status\": \"ok\", \"digest\": \"%s\", \"events\": %llu, \"metrics\": {", r->digest,
                (unsigned long long)r->events);
        for (size_t i = 0; i < m->n_metrics; i++) {
            fprintf(f, "%s\"%s\": ", i ? ", " : "", m->metrics[i]);
            json_num(f, r->values[i], sweep_metric_is_count(m->metrics[i]));
        }
        fputs("}}", f);
    }
    fputs("\n ]}\n", f);
}

/* The statistics of one (configuration, trace, metric). */
typedef struct {
    size_t n, errors;
    double mean, min, p50, p90, p99, max;
    sweep_paired_t diff;
} row_stats_t;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void row_stats(const sweep_manifest_t *m, const sweep_unit_result_t *res, size_t c, size_t t, size_t k,
                      double *xs, double *a, double *b, row_stats_t *out) {
    memset(out, 0, sizeof *out);
    size_t n = 0, np = 0;
    double sum = 0.0;
    for (size_t s = 0; s < m->n_seeds; s++) {
        const sweep_unit_result_t *r = &res[(c * m->n_traces + t) * m->n_seeds + s];
        const sweep_unit_result_t *rb = &res[(m->baseline * m->n_traces + t) * m->n_seeds + s];
        if (!r->ok) {
            out->errors++;
            continue;
        }
        if (!isfinite(r->values[k])) continue;
        xs[n++] = r->values[k];
        sum += r->values[k];
        if (rb->ok && isfinite(rb->values[k])) {
            a[np] = r->values[k];
            b[np] = rb->values[k];
            np++;
        }
    }
    out->n = n;
    sweep_paired(a, b, np, CONFIDENCE, &out->diff);
    if (n == 0) return;
    out->mean = sum / (double)n;
    qsort(xs, n, sizeof *xs, cmp_double);
    out->min = xs[0];
    out->max = xs[n - 1];
    out->p50 = sweep_quantile(xs, n, 0.50);
    out->p90 = sweep_quantile(xs, n, 0.90);
    out->p99 = sweep_quantile(xs, n, 0.99);
}

/* The fields after the key columns, in CSV; "" where not defined. */
static void stats_fields(const row_stats_t *st, bool count, char f[13][64]) {
    snprintf(f[0], 64, "%zu", st->n);
    snprintf(f[1], 64, "%zu", st->errors);
    double v[6] = {st->mean, st->min, st->p50, st->p90, st->p99, st->max};
    for (int i = 0; i < 6; i++) {
        /* min and max of a counter are counters; mean and quantiles need not be */
        bool cnt = count && (i == 1 || i == 5);
        if (st->n == 0) f[2 + i][0] = '\0';
        else sweep_format_number(f[2 + i], 64, v[i], cnt);
    }
    snprintf(f[8], 64, "%zu", st->diff.n);
    if (st->diff.n == 0) f[9][0] = '\0';
    else sweep_format_number(f[9], 64, st->diff.mean, false);
    for (int i = 0; i < 3; i++) {
        double d[3] = {st->diff.sd, st->diff.ci_low, st->diff.ci_high};
        if (st->diff.n < 2) f[10 + i][0] = '\0';
        else sweep_format_number(f[10 + i], 64, d[i], false);
    }
}

typedef void (*row_fn)(FILE *f, const sweep_manifest_t *m, size_t c, size_t t, size_t k, char fields[13][64],
                       bool first);

static void each_row(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res, row_fn fn) {
    double *xs = malloc((m->n_seeds + 1) * sizeof *xs), *a = malloc((m->n_seeds + 1) * sizeof *a),
           *b = malloc((m->n_seeds + 1) * sizeof *b);
    if (xs == NULL || a == NULL || b == NULL) {
        free(xs);
        free(a);
        free(b);
        return;
    }
    bool first = true;
    for (size_t c = 0; c < m->n_configs; c++) {
        for (size_t t = 0; t < m->n_traces; t++) {
            for (size_t k = 0; k < m->n_metrics; k++) {
                row_stats_t st;
                row_stats(m, res, c, t, k, xs, a, b, &st);
                char fields[13][64];
                stats_fields(&st, sweep_metric_is_count(m->metrics[k]), fields);
                fn(f, m, c, t, k, fields, first);
                first = false;
            }
        }
    }
    free(xs);
    free(a);
    free(b);
}

static void csv_row(FILE *f, const sweep_manifest_t *m, size_t c, size_t t, size_t k, char fields[13][64],
                    bool first) {
    (void)first;
    fprintf(f, "%s,%s,%s,%d", m->configs[c], m->traces[t], m->metrics[k], sweep_metric_is_key(m->metrics[k]) ? 1 : 0);
    for (int i = 0; i < 8; i++) fprintf(f, ",%s", fields[i]);
    fprintf(f, ",%s", m->configs[m->baseline]);
    for (int i = 8; i < 13; i++) fprintf(f, ",%s", fields[i]);
    fputc('\n', f);
}

void sweep_write_summary_csv(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res) {
    fputs("config,trace,metric,key,n,errors,mean,min,p50,p90,p99,max,baseline,diff_n,diff_mean,diff_sd,"
          "diff_ci_low,diff_ci_high\n",
          f);
    each_row(f, m, res, csv_row);
}

static void json_field(FILE *f, const char *name, const char *v, bool comma) {
    fprintf(f, "%s\"%s\": %s", comma ? ", " : "", name, v[0] ? v : "null");
}

static void json_row(FILE *f, const sweep_manifest_t *m, size_t c, size_t t, size_t k, char fields[13][64],
                     bool first) {
    fprintf(f, "%s\n  {\"config\": \"%s\", \"trace\": \"%s\", \"metric\": \"%s\", \"key\": %s", first ? "" : ",",
            m->configs[c], m->traces[t], m->metrics[k], sweep_metric_is_key(m->metrics[k]) ? "true" : "false");
    static const char *const names[] = {"n", "errors", "mean", "min", "p50", "p90", "p99", "max"};
    for (int i = 0; i < 8; i++) json_field(f, names[i], fields[i], true);
    fputs(", \"diff\": {", f);
    static const char *const dnames[] = {"n", "mean", "sd", "ci_low", "ci_high"};
    for (int i = 0; i < 5; i++) json_field(f, dnames[i], fields[8 + i], i > 0);
    fputs("}}", f);
}

void sweep_write_summary_json(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res) {
    json_header(f, m, SWEEP_SUMMARY_SCHEMA);
    fputs(", \"confidence\": 0.95, \"key_metrics\": [", f);
    bool first = true;
    for (size_t i = 0; i < m->n_metrics; i++) {
        if (!sweep_metric_is_key(m->metrics[i])) continue;
        fprintf(f, "%s\"%s\"", first ? "" : ", ", m->metrics[i]);
        first = false;
    }
    fputs("],\n \"rows\": [", f);
    each_row(f, m, res, json_row);
    fputs("\n ]}\n", f);
}

/* Write dir/name via dir/name.tmp and rename. */
static int write_file(const char *dir, const char *name, void (*fn)(FILE *, const sweep_manifest_t *, const sweep_unit_result_t *),
                      const sweep_manifest_t *m, const sweep_unit_result_t *res, char *err, size_t err_cap) {
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) return ERR("cannot write %s: %s", tmp, strerror(errno));
    fn(f, m, res);
    bool bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return ERR("cannot write %s: %s", path, strerror(errno));
    }
    return 0;
}

/* units.log in unit order, rebuilt from the records (the same bytes a fresh log line has). */
static void write_log(FILE *f, const sweep_manifest_t *m, const sweep_unit_result_t *res) {
    for (size_t u = 0; u < m->n_units; u++) {
        const char *c, *t, *s;
        unit_names(m, u, &c, &t, &s);
        const sweep_unit_result_t *r = &res[u];
        fprintf(f, "{\"u\": %zu, \"config\": \"%s\", \"trace\": \"%s\", \"seed\": \"%s\", ", u, c, t, s);
        if (!r->ok) {
            fputs("\"status\": \"error\", \"error\": ", f);
            json_escape(f, r->error != NULL ? r->error : "");
        } else {
            fprintf(f, "\"status\": \"ok\", \"digest\": \"%s\", \"events\": %llu, \"values\": [", r->digest,
                    (unsigned long long)r->events);
            for (size_t i = 0; i < m->n_metrics; i++) {
                if (isfinite(r->values[i])) fprintf(f, "%s%.17g", i ? ", " : "", r->values[i]);
                else fprintf(f, "%snull", i ? ", " : "");
            }
            fputc(']', f);
        }
        fputs("}\n", f);
    }
}

int sweep_write_outputs(const char *dir, const sweep_manifest_t *m, const sweep_unit_result_t *res, char *err,
                        size_t err_cap) {
    for (size_t u = 0; u < m->n_units; u++) {
        if (!res[u].done) return ERR("unit %zu is not done", u);
    }
    if (write_file(dir, "units.log", write_log, m, res, err, err_cap) != 0 ||
        write_file(dir, "results.csv", sweep_write_results_csv, m, res, err, err_cap) != 0 ||
        write_file(dir, "results.json", sweep_write_results_json, m, res, err, err_cap) != 0 ||
        write_file(dir, "summary.csv", sweep_write_summary_csv, m, res, err, err_cap) != 0 ||
        write_file(dir, "summary.json", sweep_write_summary_json, m, res, err, err_cap) != 0) {
        return -1;
    }
    return 0;
}
