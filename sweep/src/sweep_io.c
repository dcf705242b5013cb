/* SPDX-License-Identifier: MIT */
/* sweep_io.c - the files of an output directory other than the results
 * (docs/sweep.md "Output directory", "Resume", "Sweep hash and build id"):
 * the metric columns, the build id, manifest.json, units.log lines, and the
 * --shard argument. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rl_build_info.h"
#include "sweep_run.h"
#include "sim_trace.h"
#include "sim_world.h"

#define ERR(...) (snprintf(err, err_cap, __VA_ARGS__), -1)

const char *const sweep_derived_metrics[] = {"extra_datagrams_per_request", NULL};
static const char *const key_metrics[] = {"latency_p50_ms", "latency_p99_ms", "availability", "false_allow_rate",
                                          "false_deny_rate", "overconsumed_tokens", "replays_sent",
                                          "extra_datagrams_per_request", "convergence_ms", NULL};

size_t sweep_metric_columns(const char ***names_out) {
    static const char *cols[128];
    static size_t n;
    if (n == 0) {
        for (size_t i = 0; sim_trace_metric_names[i] != NULL && n < 120; i++) cols[n++] = sim_trace_metric_names[i];
        for (size_t i = 0; sweep_derived_metrics[i] != NULL; i++) cols[n++] = sweep_derived_metrics[i];
        cols[n] = NULL;
    }
    if (names_out != NULL) *names_out = cols;
    return n;
}

bool sweep_metric_is_key(const char *name) {
    for (size_t i = 0; key_metrics[i] != NULL; i++) {
        if (strcmp(key_metrics[i], name) == 0) return true;
    }
    return false;
}

bool sweep_metric_is_count(const char *name) {
    return sim_metric_is_count(name);
}

/* The build id of rl-testbed --version (tools/buildinfo). */
void sweep_build_id(char out[SWEEP_BUILD_ID_MAX]) {
    char id[RL_BUILD_ID_MAX];
    rl_build_id(id);
    snprintf(out, SWEEP_BUILD_ID_MAX, "%s", id);
}

/* ---- manifest ----------------------------------------------------------------------- */

static json_t *schedule_json(const r_ha_schedule_t *s) {
    return json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind", sweep_schedule_kind_name(s->kind), "initial_units",
                     (json_int_t)s->initial_units, "max_units", (json_int_t)s->max_units, "linear_step_units",
                     (json_int_t)s->growth.linear_step_units, "exponential_factor",
                     (json_int_t)s->growth.exponential_factor);
}

static json_t *policy_json(const r_request_policy_t *p) {
    return json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:b}", "unit_ms", (json_int_t)p->unit_ms, "replay_count",
                     (json_int_t)p->replay_count, "replay_gap", schedule_json(&p->replay_gap), "preference",
                     schedule_json(&p->preference), "final_receive_units", (json_int_t)p->final_receive_units,
                     "final_preference_units", (json_int_t)p->final_preference_units, "completion_delivery",
                     (int)p->completion_delivery);
}

json_t *sweep_manifest_new(const sweep_t *sw, const char *build_id, size_t shard_index, size_t shard_count) {
    json_t *configs = json_array(), *traces = json_array(), *seeds = json_array(), *metrics = json_array();
    for (size_t i = 0; i < sw->n_configs; i++) {
        json_array_append_new(configs, json_pack("{s:s, s:o}", "name", sw->configs[i].name, "policy",
                                                 policy_json(&sw->configs[i].policy)));
    }
    for (size_t i = 0; i < sw->n_traces; i++) {
        json_t *set = json_loads(sw->traces[i].sets_json, 0, NULL);
        json_array_append_new(traces, json_pack("{s:s, s:s, s:o}", "name", sw->traces[i].name, "path",
                                                sw->traces[i].rel_path, "set", set != NULL ? set : json_object()));
    }
    for (size_t i = 0; i < sw->n_seeds; i++) {
        char s[24];
        snprintf(s, sizeof s, "%" PRIu64, sw->seeds[i]);
        json_array_append_new(seeds, json_string(s));
    }
    const char **cols;
    size_t nc = sweep_metric_columns(&cols);
    for (size_t i = 0; i < nc; i++) json_array_append_new(metrics, json_string(cols[i]));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:I, s:I}, s:I, s:s, s:o, s:o, s:o, s:o}", "schema",
                     SWEEP_MANIFEST_SCHEMA, "sweep", sw->name, "description", sw->description, "sweep_hash", sw->hash,
                     "build_id", build_id, "shard", "index", (json_int_t)shard_index, "count",
                     (json_int_t)shard_count, "units", (json_int_t)sweep_units(sw), "baseline",
                     sw->configs[sw->baseline].name, "configurations", configs, "traces", traces, "seeds", seeds,
                     "metrics", metrics);
}

void sweep_manifest_free(sweep_manifest_t *m) {
    free(m->configs);
    free(m->traces);
    free(m->seeds);
    free(m->metrics);
    json_decref(m->root);
    memset(m, 0, sizeof *m);
}

/* names[i] = arr[i][key] (or arr[i] itself when key is NULL), all strings. */
static const char **names_of(const json_t *arr, const char *key, size_t *n) {
    *n = json_array_size(arr);
    const char **v = calloc(*n + 1, sizeof *v);
    if (v == NULL) return NULL;
    for (size_t i = 0; i < *n; i++) {
        const json_t *e = json_array_get(arr, i);
        if (key != NULL) e = json_object_get(e, key);
        v[i] = json_string_value(e);
        if (v[i] == NULL) {
            free(v);
            return NULL;
        }
    }
    return v;
}

int sweep_manifest_read(const char *dir, sweep_manifest_t *m, char *err, size_t err_cap) {
    memset(m, 0, sizeof *m);
    char path[4200];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t je;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) {
        return ERR("%s: no manifest.json: not a sweep output directory (or its run has not started)", dir);
    }
    m->root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (m->root == NULL) return ERR("%s: %s", path, je.text);
    json_int_t si = 0, sc = 0, units = 0;
    const char *schema = NULL, *baseline = NULL;
    json_t *configs, *traces, *seeds, *metrics;
    if (json_unpack(m->root, "{s:s, s:s, s:s, s:{s:I, s:I}, s:I, s:s, s:o, s:o, s:o, s:o}", "schema", &schema,
                    "sweep_hash", &m->hash, "build_id", &m->build_id, "shard", "index", &si, "count", &sc, "units",
                    &units, "baseline", &baseline, "configurations", &configs, "traces", &traces, "seeds", &seeds,
                    "metrics", &metrics) != 0 ||
        strcmp(schema, SWEEP_MANIFEST_SCHEMA) != 0 || sc < 1 || si < 0 || si >= sc) {
        sweep_manifest_free(m);
        return ERR("%s: not a %s manifest", path, SWEEP_MANIFEST_SCHEMA);
    }
    m->shard_index = (size_t)si;
    m->shard_count = (size_t)sc;
    m->configs = names_of(configs, "name", &m->n_configs);
    m->traces = names_of(traces, "name", &m->n_traces);
    m->seeds = names_of(seeds, NULL, &m->n_seeds);
    m->metrics = names_of(metrics, NULL, &m->n_metrics);
    m->n_units = m->n_configs * m->n_traces * m->n_seeds;
    for (m->baseline = 0; m->configs != NULL && m->baseline < m->n_configs; m->baseline++) {
        if (strcmp(m->configs[m->baseline], baseline) == 0) break;
    }
    if (m->configs == NULL || m->traces == NULL || m->seeds == NULL || m->metrics == NULL ||
        m->baseline >= m->n_configs || (json_int_t)m->n_units != units) {
        sweep_manifest_free(m);
        return ERR("%s: inconsistent manifest", path);
    }
    return 0;
}

/* ---- units.log ---------------------------------------------------------------------- */

static void json_escape(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

char *sweep_log_line(const sweep_t *sw, size_t u, const double *values, const char *digest, uint64_t events,
                     const char *error) {
    size_t c, t, s;
    sweep_unit_split(sw, u, &c, &t, &s);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) return NULL;
    fprintf(f, "{\"u\": %zu, \"config\": \"%s\", \"trace\": \"%s\", \"seed\": \"%" PRIu64 "\", ", u,
            sw->configs[c].name, sw->traces[t].name, sw->seeds[s]);
    if (error != NULL) {
        fputs("\"status\": \"error\", \"error\": ", f);
        json_escape(f, error);
    } else {
        fprintf(f, "\"status\": \"ok\", \"digest\": \"%s\", \"events\": %" PRIu64 ", \"values\": [", digest, events);
        size_t n = sweep_metric_columns(NULL);
        for (size_t i = 0; i < n; i++) {
            if (isfinite(values[i])) fprintf(f, "%s%.17g", i ? ", " : "", values[i]);
            else fprintf(f, "%snull", i ? ", " : "");
        }
        fputc(']', f);
    }
    fputs("}\n", f);
    fclose(f);
    return buf;
}

long sweep_log_parse_line(const sweep_manifest_t *m, const char *line, sweep_unit_result_t *res, char *err,
                          size_t err_cap) {
    json_error_t je;
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, &je);
    json_int_t u = -1;
    const char *config = NULL, *trace = NULL, *seed = NULL, *status = NULL;
    if (o == NULL || json_unpack(o, "{s:I, s:s, s:s, s:s, s:s}", "u", &u, "config", &config, "trace", &trace, "seed",
                                 &seed, "status", &status) != 0 ||
        u < 0 || (size_t)u >= m->n_units) {
        json_decref(o);
        return ERR("not a unit record");
    }
    size_t su = (size_t)u, s = su % m->n_seeds, t = (su / m->n_seeds) % m->n_traces, c = su / m->n_seeds / m->n_traces;
    if (strcmp(config, m->configs[c]) != 0 || strcmp(trace, m->traces[t]) != 0 || strcmp(seed, m->seeds[s]) != 0) {
        json_decref(o);
        return ERR("unit %zu is not (%s, %s, %s) in this manifest", su, m->configs[c], m->traces[t], m->seeds[s]);
    }
    if (res[su].done) {
        json_decref(o);
        return -2;
    }
    sweep_unit_result_t r = {.done = true};
    if (strcmp(status, "error") == 0) {
        const char *msg = json_string_value(json_object_get(o, "error"));
        r.error = strdup(msg != NULL ? msg : "");
    } else if (strcmp(status, "ok") == 0) {
        const char *digest = NULL;
        json_int_t events = 0;
        json_t *vals = NULL;
        if (json_unpack(o, "{s:s, s:I, s:o}", "digest", &digest, "events", &events, "values", &vals) != 0 ||
            json_array_size(vals) != m->n_metrics || strlen(digest) != 64) {
            json_decref(o);
            return ERR("unit %zu: bad ok record", su);
        }
        r.ok = true;
        snprintf(r.digest, sizeof r.digest, "%s", digest);
        r.events = (uint64_t)events;
        r.values = malloc(m->n_metrics * sizeof *r.values);
        for (size_t i = 0; r.values != NULL && i < m->n_metrics; i++) {
            json_t *v = json_array_get(vals, i);
            r.values[i] = json_is_number(v) ? json_number_value(v) : NAN;
        }
    } else {
        json_decref(o);
        return ERR("unit %zu: status \"%s\"", su, status);
    }
    json_decref(o);
    if ((r.ok && r.values == NULL) || (!r.ok && r.error == NULL)) return ERR("out of memory");
    res[su] = r;
    return (long)su;
}

long sweep_log_read(const char *dir, const sweep_manifest_t *m, sweep_unit_result_t *res, bool truncate_torn,
                    char *err, size_t err_cap) {
    char path[4200];
    snprintf(path, sizeof path, "%s/units.log", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT) return 0;
        return ERR("%s: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long count = 0, lineno = 0;
    off_t good = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        bool complete = line[n - 1] == '\n';
        char why[256];
        long r = complete ? sweep_log_parse_line(m, line, res, why, sizeof why) : -1;
        if (r >= 0) {
            count++;
            good += n;
            continue;
        }
        int c = fgetc(f);
        bool last = c == EOF;
        if (r == -1 && last) break; /* a torn last line: a killed run */
        free(line);
        fclose(f);
        if (r == -2) return ERR("%s line %ld: a unit already recorded", path, lineno);
        return ERR("%s line %ld: %s", path, lineno, why);
    }
    free(line);
    fclose(f);
    if (truncate_torn && truncate(path, good) != 0) return ERR("%s: cannot cut the torn last line: %s", path, strerror(errno));
    return count;
}

void sweep_results_free(sweep_unit_result_t *res, size_t n) {
    for (size_t i = 0; res != NULL && i < n; i++) {
        free(res[i].error);
        free(res[i].values);
    }
    free(res);
}

/* ---- --shard ------------------------------------------------------------------------ */

static int parse_size(const char *s, size_t max, size_t *out) {
    if (s[0] < '0' || s[0] > '9' || strlen(s) > 9) return -1;
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v > max) return -1;
    *out = (size_t)v;
    return 0;
}

int sweep_parse_shard(const char *text, const char *(*getenv_fn)(const char *), size_t *index, size_t *count,
                      char *err, size_t err_cap) {
    const char *slash = strchr(text, '/');
    if (slash == NULL || parse_size(slash + 1, SWEEP_MAX_SHARDS, count) != 0 || *count == 0) {
        return ERR("--shard wants i/N, auto/N or /N with N in 1..%u, got '%s'", SWEEP_MAX_SHARDS, text);
    }
    char idx[32];
    snprintf(idx, sizeof idx, "%.*s", (int)(slash - text), text);
    const char *from = NULL, *v = idx;
    if (idx[0] == '\0' || strcmp(idx, "auto") == 0) {
        const char *k = getenv_fn != NULL ? getenv_fn("JOB_COMPLETION_INDEX") : NULL;
        from = "JOB_COMPLETION_INDEX";
        if (k == NULL || k[0] == '\0') {
            k = getenv_fn != NULL ? getenv_fn("SLURM_ARRAY_TASK_ID") : NULL;
            from = "SLURM_ARRAY_TASK_ID";
        }
        if (k == NULL || k[0] == '\0') {
            return ERR("--shard %s: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set", text);
        }
        v = k;
    }
    if (parse_size(v, SWEEP_MAX_SHARDS, index) != 0 || *index >= *count) {
        if (from != NULL) return ERR("--shard %s: %s is '%s', not an index 0..%zu", text, from, v, *count - 1);
        return ERR("--shard wants an index 0..%zu before '/', got '%s'", *count - 1, text);
    }
    return 0;
}
