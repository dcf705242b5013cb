/* SPDX-License-Identifier: MIT */
/* report_data.c - reading a sweep's output directory for the report:
 * summary.json (docs/sweep.md "summary.json") and, when present,
 * manifest.json for the configurations' policies and the traces' variant
 * settings. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "report_int.h"

static const char *const metric_names[REP_M_COUNT] = {
    "availability",      "latency_p50_ms",  "latency_p99_ms",
    "false_allow_rate",  "false_deny_rate", "overconsumed_tokens",
    "extra_datagrams_per_request",          "convergence_ms",
    "oldest_selected_rate",                 "replays_sent",
};

const char *rep_metric_name(rep_metric_t m)
{
    return (unsigned)m < REP_M_COUNT ? metric_names[m] : "";
}

const rep_stat_t *rep_stat(const rep_data_t *d, size_t c, size_t t, rep_metric_t m)
{
    return &d->stats[(c * d->n_traces + t) * REP_M_COUNT + (size_t)m];
}

int rep_fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return -1;
}

static int metric_index(const char *name)
{
    for (int m = 0; m < (int)REP_M_COUNT; m++) {
        if (strcmp(name, metric_names[m]) == 0)
            return m;
    }
    return -1;
}

size_t rep_find_config(const rep_data_t *d, const char *name)
{
    for (size_t i = 0; name != NULL && i < d->n_configs; i++) {
        if (strcmp(d->configs[i].name, name) == 0)
            return i;
    }
    return d->n_configs;
}

size_t rep_find_trace(const rep_data_t *d, const char *name)
{
    for (size_t i = 0; name != NULL && i < d->n_traces; i++) {
        if (strcmp(d->traces[i].name, name) == 0)
            return i;
    }
    return d->n_traces;
}

static bool valid_name(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len >= REP_NAME_MAX)
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        char ch = *p;
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                  ch == '.' || ch == '-' || ch == '=';
        if (!ok)
            return false;
    }
    return true;
}

/* A number member, or null (absent value) -> *has false. -1: not a number. */
static int get_number(json_t *obj, const char *key, bool required, double *v, bool *has)
{
    json_t *j = json_object_get(obj, key);
    *has = false;
    if (j == NULL)
        return required ? -1 : 0;
    if (json_is_null(j))
        return 0;
    if (!json_is_number(j))
        return -1;
    *v = json_number_value(j);
    if (!isfinite(*v))
        return -1;
    *has = true;
    return 0;
}

static int get_count(json_t *obj, const char *key, uint64_t *v)
{
    json_t *j = json_object_get(obj, key);
    if (!json_is_integer(j) || json_integer_value(j) < 0)
        return -1;
    *v = (uint64_t)json_integer_value(j);
    return 0;
}

/* Grow-by-one append of a name into configs or traces. */
static int add_config(rep_data_t *d, const char *name)
{
    rep_config_t *n = realloc(d->configs, (d->n_configs + 1) * sizeof *n);
    if (n == NULL)
        return -1;
    d->configs = n;
    memset(&n[d->n_configs], 0, sizeof n[0]);
    (void)snprintf(n[d->n_configs].name, sizeof n[0].name, "%s", name);
    d->n_configs++;
    return 0;
}

static int add_trace(rep_data_t *d, const char *name)
{
    rep_trace_t *n = realloc(d->traces, (d->n_traces + 1) * sizeof *n);
    if (n == NULL)
        return -1;
    d->traces = n;
    memset(&n[d->n_traces], 0, sizeof n[0]);
    (void)snprintf(n[d->n_traces].name, sizeof n[0].name, "%s", name);
    d->n_traces++;
    return 0;
}

/* First pass: the configuration and trace names in summary order. */
static int collect_names(json_t *rows, rep_data_t *d, const char *file, char *err, size_t cap)
{
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row) {
        const char *c = json_string_value(json_object_get(row, "config"));
        const char *t = json_string_value(json_object_get(row, "trace"));
        if (!json_is_object(row) || c == NULL || t == NULL || !valid_name(c) || !valid_name(t))
            return rep_fail(err, cap, "%s: rows[%zu]: expected an object with config and trace names", file, i);
        if (rep_find_config(d, c) == d->n_configs && add_config(d, c) != 0)
            return rep_fail(err, cap, "%s: out of memory", file);
        if (rep_find_trace(d, t) == d->n_traces && add_trace(d, t) != 0)
            return rep_fail(err, cap, "%s: out of memory", file);
    }
    return 0;
}

static int read_row(json_t *row, size_t i, rep_data_t *d, const char *file, char *err, size_t cap)
{
    const char *mname = json_string_value(json_object_get(row, "metric"));
    if (mname == NULL)
        return rep_fail(err, cap, "%s: rows[%zu].metric: expected a string", file, i);
    int m = metric_index(mname);
    if (m < 0)
        return 0; /* a metric the report does not show */
    size_t c = rep_find_config(d, json_string_value(json_object_get(row, "config")));
    size_t t = rep_find_trace(d, json_string_value(json_object_get(row, "trace")));
    rep_stat_t *s = &d->stats[(c * d->n_traces + t) * REP_M_COUNT + (size_t)m];
    if (s->has || s->n != 0)
        return rep_fail(err, cap, "%s: rows[%zu]: duplicate row for %s, %s, %s", file, i, d->configs[c].name,
                    d->traces[t].name, mname);
    if (get_count(row, "n", &s->n) != 0)
        return rep_fail(err, cap, "%s: rows[%zu].n: expected a count", file, i);
    if (get_count(row, "errors", &s->errors) != 0)
        return rep_fail(err, cap, "%s: rows[%zu].errors: expected a count", file, i);
    static const char *const keys[] = {"mean", "min", "p50", "p90", "p99", "max"};
    double *dst[] = {&s->mean, &s->min, &s->p50, &s->p90, &s->p99, &s->max};
    bool has = false;
    for (size_t k = 0; k < 6; k++) {
        if (get_number(row, keys[k], true, dst[k], &has) != 0)
            return rep_fail(err, cap, "%s: rows[%zu].%s: expected a number or null", file, i, keys[k]);
        if (has != (s->n > 0))
            return rep_fail(err, cap, "%s: rows[%zu].%s: %s", file, i, keys[k],
                        s->n > 0 ? "null with n > 0" : "a number with n = 0");
    }
    s->has = s->n > 0;
    json_t *diff = json_object_get(row, "diff");
    if (diff == NULL || json_is_null(diff))
        return 0;
    json_t *dn = json_object_get(diff, "n");
    if (!json_is_object(diff) || (!json_is_null(dn) && get_count(diff, "n", &s->diff_n) != 0))
        return rep_fail(err, cap, "%s: rows[%zu].diff.n: expected a count or null", file, i);
    if (get_number(diff, "mean", false, &s->diff_mean, &s->has_diff) != 0)
        return rep_fail(err, cap, "%s: rows[%zu].diff.mean: expected a number or null", file, i);
    bool h1 = false, h2 = false, h3 = false;
    if (get_number(diff, "sd", false, &s->diff_sd, &h1) != 0 ||
        get_number(diff, "ci_low", false, &s->ci_low, &h2) != 0 ||
        get_number(diff, "ci_high", false, &s->ci_high, &h3) != 0)
        return rep_fail(err, cap, "%s: rows[%zu].diff: sd, ci_low and ci_high must be numbers or null", file, i);
    s->has_ci = s->has_diff && h1 && h2 && h3; /* an interval without a mean difference is not shown */
    if (s->has_ci && s->ci_low > s->ci_high)
        return rep_fail(err, cap, "%s: rows[%zu].diff: ci_low above ci_high", file, i);
    return 0;
}

static json_t *parse_json(const char *text, size_t len, const char *name, char *err, size_t cap, int *rc)
{
    json_error_t je;
    *rc = 0;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL)
        *rc = rep_fail(err, cap, "%s: line %d column %d: %s", name, je.line, je.column, je.text);
    else if (!json_is_object(root)) {
        json_decref(root);
        root = NULL;
        *rc = rep_fail(err, cap, "%s: expected a JSON object", name);
    }
    return root;
}

static int summary_header(json_t *root, rep_data_t *d, const char *file, char *err, size_t cap)
{
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (schema == NULL || strcmp(schema, "ratelimitly-sweep-summary/v1") != 0)
        return rep_fail(err, cap, "%s: schema: expected \"ratelimitly-sweep-summary/v1\"", file);
    const char *sweep = json_string_value(json_object_get(root, "sweep"));
    const char *base = json_string_value(json_object_get(root, "baseline"));
    if (sweep == NULL || !valid_name(sweep))
        return rep_fail(err, cap, "%s: sweep: expected a name", file);
    if (base == NULL || !valid_name(base))
        return rep_fail(err, cap, "%s: baseline: expected a name", file);
    (void)snprintf(d->sweep, sizeof d->sweep, "%s", sweep);
    (void)snprintf(d->baseline, sizeof d->baseline, "%s", base);
    const char *hash = json_string_value(json_object_get(root, "sweep_hash"));
    const char *bid = json_string_value(json_object_get(root, "build_id"));
    (void)snprintf(d->hash, sizeof d->hash, "%s", hash != NULL ? hash : "");
    (void)snprintf(d->build_id, sizeof d->build_id, "%s", bid != NULL ? bid : "");
    return 0;
}

int rep_data_parse(const char *summary, size_t summary_len, const char *manifest, size_t manifest_len,
                   const char *dir, rep_data_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    int rc = 0;
    (void)snprintf(path, sizeof path, "%s/summary.json", dir);
    json_t *root = parse_json(summary, summary_len, path, err, cap, &rc);
    if (root == NULL)
        return -1;
    rep_data_t d;
    memset(&d, 0, sizeof d);
    json_t *rows = json_object_get(root, "rows");
    rc = summary_header(root, &d, path, err, cap);
    if (rc == 0 && !json_is_array(rows))
        rc = rep_fail(err, cap, "%s: rows: expected an array", path);
    if (rc == 0)
        rc = collect_names(rows, &d, path, err, cap);
    if (rc == 0 && d.n_configs == 0)
        rc = rep_fail(err, cap, "%s: rows: no rows", path);
    if (rc == 0) {
        d.baseline_idx = rep_find_config(&d, d.baseline);
        if (d.baseline_idx == d.n_configs)
            rc = rep_fail(err, cap, "%s: baseline: \"%s\" has no rows", path, d.baseline);
    }
    if (rc == 0 && d.n_configs * d.n_traces > REP_MAX_CELLS)
        rc = rep_fail(err, cap, "%s: rows: more than %u (configuration, trace) pairs", path, REP_MAX_CELLS);
    if (rc == 0) {
        d.stats = calloc(d.n_configs * d.n_traces * REP_M_COUNT, sizeof *d.stats);
        if (d.stats == NULL)
            rc = rep_fail(err, cap, "%s: out of memory", path);
    }
    size_t i;
    json_t *row;
    if (rc == 0) {
        json_array_foreach(rows, i, row) {
            if ((rc = read_row(row, i, &d, path, err, cap)) != 0)
                break;
        }
    }
    json_decref(root);
    if (rc == 0) {
        for (size_t c = 0; c < d.n_configs; c++) {
            for (size_t t = 0; t < d.n_traces; t++) {
                const rep_stat_t *s = rep_stat(&d, c, t, REP_M_AVAILABILITY);
                if (s->n + s->errors > d.n_seeds)
                    d.n_seeds = s->n + s->errors;
                d.n_errors += s->errors;
            }
        }
        (void)snprintf(path, sizeof path, "%s/manifest.json", dir);
        rc = rep_manifest_apply(manifest, manifest_len, path, &d, err, cap);
    }
    if (rc != 0) {
        rep_data_free(&d);
        return -1;
    }
    *out = d;
    return 0;
}

/* The whole file at path into a NUL-terminated heap buffer; NULL with *missing
 * for a file that does not exist, NULL with err otherwise. */
static char *read_file(const char *path, size_t *len, bool *missing, char *err, size_t cap)
{
    *missing = false;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *missing = errno == ENOENT;
        (void)rep_fail(err, cap, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t used = 0, size = 65536;
    char *buf = malloc(size);
    while (buf != NULL) {
        used += fread(buf + used, 1, size - used - 1, f);
        if (ferror(f) || used > REP_MAX_FILE_BYTES) {
            (void)rep_fail(err, cap, "%s: %s", path, ferror(f) ? "read error" : "larger than 1 GiB");
            free(buf);
            buf = NULL;
            break;
        }
        if (feof(f))
            break;
        char *n = realloc(buf, size * 2);
        if (n == NULL) {
            free(buf);
            buf = NULL;
            (void)rep_fail(err, cap, "%s: out of memory", path);
            break;
        }
        buf = n;
        size *= 2;
    }
    (void)fclose(f);
    if (buf != NULL) {
        buf[used] = '\0';
        *len = used;
    }
    return buf;
}

int rep_data_load(const char *dir, rep_data_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    char path[4200];
    size_t slen = 0, mlen = 0;
    bool missing = false;
    (void)snprintf(path, sizeof path, "%s/summary.json", dir);
    char *summary = read_file(path, &slen, &missing, err, cap);
    if (summary == NULL)
        return -1;
    (void)snprintf(path, sizeof path, "%s/manifest.json", dir);
    char *manifest = read_file(path, &mlen, &missing, err, cap);
    int rc = -1;
    if (manifest != NULL || missing)
        rc = rep_data_parse(summary, slen, manifest, mlen, dir, out, err, cap);
    free(summary);
    free(manifest);
    return rc;
}

double rep_mean_over(const rep_data_t *d, size_t c, rep_metric_t m, const size_t *idx, size_t n_idx)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t i = 0; i < n_idx; i++) {
        const rep_stat_t *s = rep_stat(d, c, idx[i], m);
        if (s->has) {
            sum += s->mean;
            n++;
        }
    }
    return n > 0 ? sum / (double)n : NAN;
}

double rep_mean_over_traces(const rep_data_t *d, size_t c, rep_metric_t m)
{
    double sum = 0.0;
    size_t n = 0;
    for (size_t t = 0; t < d->n_traces; t++) {
        const rep_stat_t *s = rep_stat(d, c, t, m);
        if (s->has) {
            sum += s->mean;
            n++;
        }
    }
    return n > 0 ? sum / (double)n : NAN;
}

bool rep_diff_over(const rep_data_t *d, size_t c, rep_metric_t m, const size_t *idx, size_t n_idx, double *mean,
                   double *half)
{
    double sum = 0.0, hsum = 0.0;
    size_t n = 0;
    bool all_ci = true;
    size_t count = idx != NULL ? n_idx : d->n_traces;
    for (size_t i = 0; i < count; i++) {
        const rep_stat_t *s = rep_stat(d, c, idx != NULL ? idx[i] : i, m);
        if (!s->has)
            continue;
        if (!s->has_diff)
            return *mean = NAN, *half = NAN, false;
        sum += s->diff_mean;
        if (s->has_ci)
            hsum += (s->ci_high - s->ci_low) / 2.0;
        else
            all_ci = false;
        n++;
    }
    *mean = n > 0 ? sum / (double)n : NAN;
    *half = n > 0 && all_ci ? hsum / (double)n : NAN;
    return n > 0;
}

void rep_data_free(rep_data_t *d)
{
    if (d == NULL)
        return;
    free(d->configs);
    free(d->traces);
    free(d->stats);
    memset(d, 0, sizeof *d);
}
