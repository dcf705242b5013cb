/* sim_cmd.c - `rl-testbed sim`: run simulator traces (docs/traces.md) and
 * print their metrics; expectations make a trace a conformance case. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_cmd.h"
#include "sim_trace.h"
#include "sim_world.h"

#ifndef RL_SOURCE_DIR
#define RL_SOURCE_DIR "."
#endif

typedef struct {
    bool seed_given;
    uint64_t seed;
    bool check_determinism;
    bool quiet;
    const char *events_path;
    const char *json_path;
} sim_opts_t;

static void usage(FILE *f) {
    fputs("usage: rl-testbed sim [TRACE.json...] [--seed N] [--check-determinism] [--events FILE]\n"
          "                      [--json FILE] [--quiet]\n"
          "\n"
          "Runs simulator traces (format: docs/traces.md) with the unmodified client core\n"
          "against simulated r-servers, links and DNS, and prints each trace's metrics table\n"
          "and expectation results, then 'sim: N passed, N failed' last. A trace passes when\n"
          "it runs and every expectation holds.\n"
          "With no TRACE: every sim/traces/*.json except bench_*.json (the default set),\n"
          "relative to the current directory or to the source tree.\n"
          "\n"
          "  --seed N              seed for every trace (default: each trace's own seed)\n"
          "  --check-determinism   run each trace twice and compare event-log digests and metrics\n"
          "  --events FILE         write the text event log (one line per event) to FILE\n"
          "  --json FILE           write results (seed, digest, metrics, expectations) as JSON\n"
          "  --quiet               print only the summary line per trace and failures\n"
          "  --help                print this help\n"
          "\n"
          "The same trace and seed give a byte-identical event log and identical metrics.\n"
          "Exit status: 0 when every trace passed, 1 when one failed, 2 on a usage error.\n",
          f);
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0) return -1;
    *out = v;
    return 0;
}

/* Metrics as JSON text, for the determinism comparison. */
static char *metrics_text(const sim_metrics_t *m) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) return NULL;
    sim_metrics_json(f, m);
    fclose(f);
    return buf;
}

static void json_result(FILE *j, bool first, const char *path, const sim_config_t *cfg, const sim_result_t *r,
                        int ok) {
    fprintf(j, "%s\n  {\"trace\": \"%s\", \"name\": \"%s\", \"seed\": %" PRIu64 ", \"passed\": %s", first ? "" : ",",
            path, cfg->name, r->seed, ok ? "true" : "false");
    fprintf(j, ", \"digest\": \"%s\", \"events\": %" PRIu64 ", \"wall_seconds\": %.3f, \"metrics\": ", r->digest,
            r->events, r->wall_seconds);
    sim_metrics_json(j, &r->metrics);
    fputs(", \"expectations\": [", j);
    for (size_t i = 0; i < r->n_expects; i++) {
        fprintf(j, "%s{\"passed\": %s, \"message\": \"", i ? ", " : "", r->expects[i].passed ? "true" : "false");
        for (const char *p = r->expects[i].message; *p; p++) {
            if (*p == '"' || *p == '\\') fputc('\\', j);
            fputc(*p, j);
        }
        fputs("\"}", j);
    }
    fputs("]}", j);
}

/* Run one trace; returns 1 when it passed. */
static int run_trace(const char *path, const sim_opts_t *o, FILE *events, FILE *json, bool *first_json) {
    sim_config_t cfg;
    char err[512];
    if (sim_trace_load(path, &cfg, err, sizeof err) != 0) {
        printf("trace %s: FAIL: %s\n", path, err);
        return 0;
    }
    uint64_t seed = o->seed_given ? o->seed : cfg.seed;
    sim_run_opts_t ro = {.events = events};
    sim_result_t r;
    double t0 = wall_now();
    if (sim_run(&cfg, seed, &ro, &r, err, sizeof err) != 0) {
        printf("trace %s: FAIL: %s\n", path, err);
        sim_config_free(&cfg);
        return 0;
    }
    r.wall_seconds = wall_now() - t0;
    int ok = r.expects_failed == 0;
    const char *det = "";
    if (o->check_determinism) {
        sim_result_t r2;
        sim_run_opts_t ro2 = {.events = NULL};
        if (sim_run(&cfg, seed, &ro2, &r2, err, sizeof err) != 0) {
            det = "determinism: second run failed";
            ok = 0;
        } else {
            char *a = metrics_text(&r.metrics), *b = metrics_text(&r2.metrics);
            bool same = strcmp(r.digest, r2.digest) == 0 && a && b && strcmp(a, b) == 0;
            det = same ? "determinism: identical" : "determinism: DIFFERENT digest or metrics";
            ok = ok && same;
            free(a);
            free(b);
            sim_result_free(&r2);
        }
    }
    printf("trace %s (%s): %s  seed %" PRIu64 "  events %" PRIu64 "  digest %.16s  %.2f s%s%s\n", path, cfg.name,
           ok ? "PASS" : "FAIL", seed, r.events, r.digest, r.wall_seconds, det[0] ? "  " : "", det);
    if (!o->quiet) sim_metrics_table(stdout, &r.metrics);
    for (size_t i = 0; i < r.n_expects; i++) {
        if (!o->quiet || !r.expects[i].passed) {
            printf("  expect %-4s %s\n", r.expects[i].passed ? "PASS" : "FAIL", r.expects[i].message);
        }
    }
    if (json != NULL) {
        json_result(json, *first_json, path, &cfg, &r, ok);
        *first_json = false;
    }
    sim_result_free(&r);
    sim_config_free(&cfg);
    return ok;
}

static int default_traces(glob_t *g) {
    const char *pats[2] = {"sim/traces/*.json", RL_SOURCE_DIR "/sim/traces/*.json"};
    for (int i = 0; i < 2; i++) {
        if (glob(pats[i], 0, NULL, g) == 0 && g->gl_pathc > 0) return 0;
        globfree(g);
    }
    return -1;
}

static bool is_bench(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "bench_", 6) == 0;
}

int rl_cmd_sim(int argc, char **argv) {
    sim_opts_t o = {0};
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    size_t n = 0;
    if (paths == NULL) return 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            free(paths);
            return 0;
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &o.seed) != 0) {
                fprintf(stderr, "rl-testbed sim: --seed wants a decimal integer 0..18446744073709551615, got '%s'\n",
                        argv[i]);
                free(paths);
                return 2;
            }
            o.seed_given = true;
        } else if (strcmp(a, "--check-determinism") == 0) {
            o.check_determinism = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o.quiet = true;
        } else if (strcmp(a, "--events") == 0 && i + 1 < argc) {
            o.events_path = argv[++i];
        } else if (strcmp(a, "--json") == 0 && i + 1 < argc) {
            o.json_path = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "rl-testbed sim: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            free(paths);
            return 2;
        } else {
            paths[n++] = a;
        }
    }
    glob_t g = {0};
    bool globbed = false;
    if (n == 0) {
        if (default_traces(&g) != 0) {
            fprintf(stderr, "rl-testbed sim: no traces given and none found in sim/traces/\n");
            free(paths);
            return 1;
        }
        globbed = true;
        const char **p = realloc(paths, (g.gl_pathc + 1) * sizeof *paths);
        if (p == NULL) {
            free(paths);
            globfree(&g);
            return 1;
        }
        paths = p;
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (!is_bench(g.gl_pathv[i])) paths[n++] = g.gl_pathv[i];
        }
    }
    FILE *events = NULL, *json = NULL;
    if (o.events_path && (events = fopen(o.events_path, "w")) == NULL) {
        fprintf(stderr, "rl-testbed sim: cannot write %s: %s\n", o.events_path, strerror(errno));
        free(paths);
        if (globbed) globfree(&g);
        return 2;
    }
    if (o.json_path && (json = fopen(o.json_path, "w")) == NULL) {
        fprintf(stderr, "rl-testbed sim: cannot write %s: %s\n", o.json_path, strerror(errno));
        if (events) fclose(events);
        free(paths);
        if (globbed) globfree(&g);
        return 2;
    }
    if (json) fputc('[', json);
    size_t passed = 0, failed = 0;
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (run_trace(paths[i], &o, events, json, &first)) passed++;
        else failed++;
    }
    if (json) {
        fputs("\n]\n", json);
        fclose(json);
    }
    if (events) fclose(events);
    printf("sim: %zu passed, %zu failed\n", passed, failed);
    free(paths);
    if (globbed) globfree(&g);
    return failed == 0 ? 0 : 1;
}
