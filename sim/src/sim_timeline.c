/* SPDX-License-Identifier: MIT */
/* sim_timeline.c - metrics per client and fixed window of the run clock for
 * `rl-testbed sim --timeline MS FILE` (docs/traces.md "Timeline"): a CSV
 * row per (window, client) with the counters of sim_tl_field_t and the
 * decision-latency quantiles of the requests submitted in that window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

#define TL_MAX_CELLS 4000000u /* clients x windows: a bound on the table */

struct sim_tl_cell {
    uint64_t v[SIM_TL_FIELDS];
};

struct sim_tl_lat {
    uint32_t client;
    uint32_t window;
    uint32_t latency_us;
};

static const char *const TL_NAMES[SIM_TL_FIELDS] = {
    "submitted",       "submit_errors",  "decided",          "allowed",        "denied",
    "timeouts",        "io_failures",    "false_allows",     "false_denies",   "oldest_selected",
    "datagrams_sent",  "replays_sent",   "completion_sends", "late_responses",
    "untrusted_responses", "invalid_datagrams", "reports_sent"};

int sim_timeline_init(sim_world_t *w, uint32_t window_ms) {
    w->tl_us = (uint64_t)window_ms * SIM_US_PER_MS;
    return 0;
}

static struct sim_tl_cell *cell(sim_world_t *w, uint32_t client, sim_time_t at) {
    size_t win = (size_t)(at / w->tl_us);
    if (win >= w->n_tl) {
        size_t n = w->n_tl ? w->n_tl : 64;
        while (n <= win) n *= 2;
        if ((uint64_t)n * w->n_hosts > TL_MAX_CELLS) {
            snprintf(w->err, sizeof w->err, "--timeline: more than %u (window, client) rows; use a longer window",
                     TL_MAX_CELLS);
            w->failed = true;
            return NULL;
        }
        struct sim_tl_cell *t = calloc(n * w->n_hosts, sizeof *t);
        if (t == NULL) {
            w->failed = true;
            return NULL;
        }
        for (size_t c = 0; c < w->n_hosts && w->tl != NULL; c++) {
            memcpy(&t[c * n], &w->tl[c * w->n_tl], w->n_tl * sizeof *t);
        }
        free(w->tl);
        w->tl = t;
        w->n_tl = n;
    }
    return &w->tl[(size_t)client * w->n_tl + win];
}

void sim_tl_add(sim_world_t *w, uint32_t client, sim_time_t at, sim_tl_field_t f, uint64_t n) {
    if (w->tl_us == 0 || client >= w->n_hosts || n == 0) return;
    struct sim_tl_cell *c = cell(w, client, at);
    if (c != NULL) c->v[f] += n;
}

void sim_tl_latency(sim_world_t *w, uint32_t client, sim_time_t submitted_at, sim_time_t latency_us) {
    if (w->tl_us == 0) return;
    if (w->n_tl_lat == w->cap_tl_lat) {
        size_t cap = w->cap_tl_lat ? w->cap_tl_lat * 2 : 4096;
        struct sim_tl_lat *p = realloc(w->tl_lat, cap * sizeof *p);
        if (p == NULL) {
            w->failed = true;
            return;
        }
        w->tl_lat = p;
        w->cap_tl_lat = cap;
    }
    w->tl_lat[w->n_tl_lat++] = (struct sim_tl_lat){client, (uint32_t)(submitted_at / w->tl_us),
                                                    latency_us > UINT32_MAX ? UINT32_MAX : (uint32_t)latency_us};
}

static int cmp_lat(const void *a, const void *b) {
    const struct sim_tl_lat *x = a, *y = b;
    if (x->client != y->client) return x->client < y->client ? -1 : 1;
    if (x->window != y->window) return x->window < y->window ? -1 : 1;
    return x->latency_us < y->latency_us ? -1 : x->latency_us > y->latency_us;
}

/* The same nearest-rank rule as the run's quantiles (sim_metrics.c). */
static double q_ms(const struct sim_tl_lat *v, size_t n, unsigned pct) {
    return n == 0 ? 0 : (double)v[sim_nearest_rank(n, pct)].latency_us / 1000.0;
}

int sim_timeline_write(sim_world_t *w, FILE *out) {
    if (w->tl_us == 0 || out == NULL) return 0;
    qsort(w->tl_lat, w->n_tl_lat, sizeof *w->tl_lat, cmp_lat);
    fputs("window_start_ms,client", out);
    for (size_t f = 0; f < SIM_TL_FIELDS; f++) fprintf(out, ",%s", TL_NAMES[f]);
    fputs(",availability,latency_p50_ms,latency_p99_ms,latency_max_ms\n", out);
    size_t li = 0;
    size_t last = 0; /* windows up to the last one with any count */
    for (size_t win = 0; win < w->n_tl; win++) {
        for (size_t c = 0; c < w->n_hosts; c++) {
            const struct sim_tl_cell *x = &w->tl[c * w->n_tl + win];
            for (size_t f = 0; f < SIM_TL_FIELDS; f++) last = x->v[f] ? win + 1 : last;
        }
    }
    for (size_t c = 0; c < w->n_hosts; c++) {
        for (size_t win = 0; win < last; win++) {
            const struct sim_tl_cell *x = &w->tl[c * w->n_tl + win];
            fprintf(out, "%llu,%s", (unsigned long long)(win * w->tl_us / SIM_US_PER_MS), w->hosts[c].cfg->name);
            for (size_t f = 0; f < SIM_TL_FIELDS; f++) fprintf(out, ",%llu", (unsigned long long)x->v[f]);
            size_t from = li;
            while (li < w->n_tl_lat && w->tl_lat[li].client == c && w->tl_lat[li].window == win) li++;
            size_t n = li - from;
            double avail = x->v[SIM_TL_SUBMITTED] ? (double)x->v[SIM_TL_DECIDED] / (double)x->v[SIM_TL_SUBMITTED] : 0;
            fprintf(out, ",%.6g,%.3f,%.3f,%.3f\n", avail, q_ms(w->tl_lat + from, n, 50), q_ms(w->tl_lat + from, n, 99),
                    n ? (double)w->tl_lat[li - 1].latency_us / 1000.0 : 0.0);
        }
    }
    return ferror(out) ? -1 : 0;
}

void sim_timeline_free(sim_world_t *w) {
    free(w->tl);
    w->tl = NULL;
    free(w->tl_lat);
    w->tl_lat = NULL;
}
