/* SPDX-License-Identifier: MIT */
/* check_compare.c - `check --load|--duration ... --compare-server ...`: two
 * configurations, A (--server) and B (--compare-server, all else equal), run
 * in alternating rounds, A B then B A, so that a drift of the host's load
 * falls on both alike. Every round is a whole load run (its own runtime and
 * warm-up) of N/R requests or S/R seconds. Printed: each configuration's
 * quantiles from its rounds' merged histograms, side by side, and the paired
 * difference B - A: per round pair, B's figure minus A's, then the mean of
 * those R differences with a 95 % confidence interval (Student's t, R - 1
 * degrees of freedom). project. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_load.h"

#define N_FIG 11 /* requests/s, 5 quantiles from the intended send, 5 from the actual send */

static const char *const FIG[N_FIG] = {"requests_per_s", "intended_p50", "intended_p90", "intended_p99",
                                       "intended_p99.9", "intended_max", "sent_p50", "sent_p90", "sent_p99",
                                       "sent_p99.9", "sent_max"};
static const double QS[] = {0.50, 0.90, 0.99, 0.999};

typedef struct {
    check_hist_t from_intended, from_sent;
    uint64_t requests, done, failed, submit_failed;
    double secs;
} merged_t;

static void hist_add(check_hist_t *to, const check_hist_t *h) {
    for (uint32_t i = 0; i < CHECK_HIST_BUCKETS; i++) {
        to->counts[i] += h->counts[i];
    }
    to->total += h->total;
    to->max = h->max > to->max ? h->max : to->max;
}

static void hist_figs(const check_hist_t *h, double *out) {
    for (size_t i = 0; i < 4; i++) {
        out[i] = (double)check_hist_quantile(h, QS[i]);
    }
    out[4] = (double)h->max;
}

static void figures(const load_result_t *r, double *f) {
    f[0] = r->secs > 0 ? (double)r->done / r->secs : 0.0;
    hist_figs(&r->from_intended, f + 1);
    hist_figs(&r->from_sent, f + 6);
}

static void merged_figures(const merged_t *m, double *f) {
    f[0] = m->secs > 0 ? (double)m->done / m->secs : 0.0;
    hist_figs(&m->from_intended, f + 1);
    hist_figs(&m->from_sent, f + 6);
}

/* Two-sided 95 % Student t quantile, df >= 1. */
static double t95(uint32_t df) {
    static const double T[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    return df <= 30 ? T[df - 1] : df <= 60 ? 2.000 : df <= 120 ? 1.980 : 1.960;
}

/* Round i's share of a total split into R parts: the first total % R rounds take one more. */
static uint64_t share(uint64_t total, uint32_t rounds, uint32_t i) {
    return total / rounds + (i < total % rounds ? 1u : 0u);
}

static void merge(merged_t *m, const load_result_t *r) {
    hist_add(&m->from_intended, &r->from_intended);
    hist_add(&m->from_sent, &r->from_sent);
    m->requests += r->submitted;
    m->done += r->done;
    m->failed += r->failed;
    m->submit_failed += r->submit_failed;
    m->secs += r->secs;
}

static void print_text(const check_cfg_t *cfg, const merged_t m[2], const double mean[N_FIG],
                       const double half[N_FIG]) {
    double fa[N_FIG], fb[N_FIG];
    merged_figures(&m[0], fa);
    merged_figures(&m[1], fb);
    printf("compare: %" PRIu32 " rounds of each, alternating (A B, B A, ...); A: %zu server(s) (--server),"
           " B: %zu server(s) (--compare-server)\n",
           cfg->rounds, cfg->n_servers, cfg->n_compare_servers);
    printf("requests: A %" PRIu64 " (failed %" PRIu64 ", submit errors %" PRIu64 "), B %" PRIu64 " (failed %" PRIu64
           ", submit errors %" PRIu64 ")\n",
           m[0].requests, m[0].failed, m[0].submit_failed, m[1].requests, m[1].failed, m[1].submit_failed);
    printf("%-22s %12s %12s %14s %14s\n", "figure (us, requests/s)", "A", "B", "B - A paired", "95% CI +-");
    for (size_t i = 0; i < N_FIG; i++) {
        printf("%-22s %12.0f %12.0f %14.0f %14.0f\n", FIG[i], fa[i], fb[i], mean[i], half[i]);
    }
    printf("A and B: quantiles of the merged histograms (values under 256 us exact, above at most 1/128 high);"
           " B - A: mean over the rounds of B's round minus A's round of the same pair\n");
}

static void print_json(const check_cfg_t *cfg, const merged_t m[2], const double mean[N_FIG],
                       const double half[N_FIG]) {
    double f[2][N_FIG];
    merged_figures(&m[0], f[0]);
    merged_figures(&m[1], f[1]);
    printf("{\"compare\":{\"rounds\":%" PRIu32 ",\"servers\":{\"a\":%zu,\"b\":%zu},", cfg->rounds, cfg->n_servers,
           cfg->n_compare_servers);
    for (size_t c = 0; c < 2; c++) {
        printf("\"%s\":{\"requests\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"submit_errors\":%" PRIu64, c ? "b" : "a",
               m[c].requests, m[c].failed, m[c].submit_failed);
        for (size_t i = 0; i < N_FIG; i++) {
            printf(",\"%s\":%.1f", FIG[i], f[c][i]);
        }
        printf("},");
    }
    printf("\"difference\":{");
    for (size_t i = 0; i < N_FIG; i++) {
        printf("%s\"%s\":{\"mean\":%.1f,\"ci95\":%.1f}", i ? "," : "", FIG[i], mean[i], half[i]);
    }
    printf("}}}\n");
}

int check_run_compare(const check_cfg_t *cfg) {
    check_cfg_t *c[2] = {malloc(sizeof *c[0]), malloc(sizeof *c[1])};
    load_result_t *r = malloc(sizeof *r);
    merged_t *m = calloc(2, sizeof *m);
    double *diff = calloc((size_t)cfg->rounds * N_FIG, sizeof *diff);
    int rc = 0;
    if (c[0] == NULL || c[1] == NULL || r == NULL || m == NULL || diff == NULL) {
        fputs("rl-testbed check: out of memory for --compare-server\n", stderr);
        rc = CHECK_EXIT_FAILED;
    }
    for (uint32_t i = 0; rc == 0 && i < cfg->rounds; i++) {
        double f[2][N_FIG];
        for (uint32_t j = 0; rc == 0 && j < 2; j++) {
            uint32_t which = (i % 2 == 0) ? j : 1u - j; /* A B, then B A */
            *c[which] = *cfg;
            c[which]->n_compare_servers = 0;
            c[which]->load_n = cfg->load_n > 0 ? share(cfg->load_n, cfg->rounds, i) : 0;
            c[which]->duration_us = cfg->duration_us > 0 ? share(cfg->duration_us, cfg->rounds, i) : 0;
            if (which == 1) {
                memcpy(c[1]->servers, cfg->compare_servers, sizeof cfg->compare_servers);
                c[1]->n_servers = cfg->n_compare_servers;
            }
            rc = check_load_once(c[which], r);
            if (rc == 0) {
                merge(&m[which], r);
                figures(r, f[which]);
            }
        }
        for (size_t k = 0; rc == 0 && k < N_FIG; k++) {
            diff[(size_t)i * N_FIG + k] = f[1][k] - f[0][k];
        }
    }
    if (rc == 0) {
        double mean[N_FIG], half[N_FIG];
        for (size_t k = 0; k < N_FIG; k++) {
            double s = 0, ss = 0;
            for (uint32_t i = 0; i < cfg->rounds; i++) {
                s += diff[(size_t)i * N_FIG + k];
            }
            mean[k] = s / cfg->rounds;
            for (uint32_t i = 0; i < cfg->rounds; i++) {
                double d = diff[(size_t)i * N_FIG + k] - mean[k];
                ss += d * d;
            }
            half[k] = t95(cfg->rounds - 1) * sqrt(ss / (cfg->rounds - 1)) / sqrt((double)cfg->rounds);
        }
        if (cfg->json) {
            print_json(cfg, m, mean, half);
        } else {
            print_text(cfg, m, mean, half);
        }
        rc = m[0].failed + m[0].submit_failed + m[1].failed + m[1].submit_failed > 0 ? CHECK_EXIT_FAILED : 0;
    }
    free(c[0]);
    free(c[1]);
    free(r);
    free(m);
    free(diff);
    return rc;
}
