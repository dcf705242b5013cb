/* SPDX-License-Identifier: MIT */
/* sim_cmd.c - `rl-testbed sim`: run simulator traces (docs/traces.md) and
 * print their metrics; expectations make a trace a conformance case. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli_words.h"
#include "sim_cmd.h"
#include "explore_cmd.h"
#include "vec_runner.h" /* vec_default_base: where the default data lives */
#include "sim_trace.h"
#include "sim_world.h"

typedef struct {
    bool seed_given;
    uint64_t seed;
    bool check_determinism;
    bool quiet;
    bool wall_time;
    const char *events_path;
    const char *json_path;
    const char *timeline_path;
    uint32_t timeline_ms;
} sim_opts_t;

static void usage(FILE *f) {
    fputs("usage: rl-testbed sim [TRACE.json...] [--seed N] [--check-determinism] [--events FILE]\n"
          "                      [--json FILE] [--timeline MS FILE] [--quiet] [--wall-time]\n"
          "\n"
          "Runs simulator traces (format: docs/traces.md) with the unmodified client core\n"
          "against simulated r-servers, links and DNS, and prints each trace's metrics table\n"
          "and expectation results, then 'sim: N passed, N failed' last. A trace passes when\n"
          "it runs and every expectation holds.\n"
          "A directory stands for its *.json files (rl-testbed sim sim/traces runs all).\n"
          "With no TRACE: the default set listed in sim/traces/default-set.txt of the\n"
          "data directory (see 'rl-testbed vectors --help').\n"
          "\n"
          "  --seed N              seed for every trace (default: each trace's own seed)\n"
          "  --check-determinism   run each trace twice and compare event-log digests and metrics\n"
          "  --events FILE         write the text event log (one line per event) to FILE\n"
          "  --json FILE           write results (seed, digest, metrics, expectations) as JSON\n"
          "  --timeline MS FILE    write CSV: a row per MS-ms window of the run clock and client,\n"
          "                        with every per-client metric (docs/traces.md \"Timeline\")\n"
          "  --quiet               print only the summary line per trace and failures\n"
          "  --wall-time           also print each trace's wall time (stdout and JSON); without it\n"
          "                        stdout and --json depend only on the traces and seeds\n"
          "  --explore, --seeds    random worlds and seed search: rl-testbed sim --explore --help\n"
          "  --help                print this help\n"
          "\n"
          "The same trace and seed give a byte-identical event log, stdout and JSON.\n"
          "Exit status: 0 when every trace passed, 1 when one failed, 2 on a usage error.\n",
          f);
}

static double wall_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A decimal or 0x-hex u64, digits only (no sign, no spaces), as a trace's "seed". */
static int parse_u64(const char *s, uint64_t *out) {
    int base = 10;
    const char *d = s;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        d = s + 2;
    }
    if (d[0] == '\0') return -1;
    for (const char *p = d; *p; p++) {
        bool ok = base == 10 ? (*p >= '0' && *p <= '9')
                             : ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'));
        if (!ok) return -1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(d, &end, base);
    if (*end != '\0' || errno != 0) return -1;
    *out = v;
    return 0;
}

/* s as a JSON string body: quotes, backslashes and control bytes escaped. */
static void json_str(FILE *j, const char *s) {
    fputc('"', j);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', j);
            fputc(*p, j);
        } else if (*p < 0x20) {
            fprintf(j, "\\u%04x", *p);
        } else {
            fputc(*p, j);
        }
    }
    fputc('"', j);
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
                        int ok, bool wall_time) {
    fprintf(j, "%s\n  {\"trace\": ", first ? "" : ",");
    json_str(j, path);
    fputs(", \"name\": ", j);
    json_str(j, cfg->name);
    fprintf(j, ", \"seed\": %" PRIu64 ", \"passed\": %s", r->seed, ok ? "true" : "false");
    fprintf(j, ", \"digest\": \"%s\", \"events\": %" PRIu64, r->digest, r->events);
    if (wall_time) fprintf(j, ", \"wall_seconds\": %.3f", r->wall_seconds);
    fputs(", \"metrics\": ", j);
    sim_metrics_json(j, &r->metrics);
    fputs(", \"convergence\": ", j);
    sim_conv_json(j, r);
    fputs(", \"expectations\": [", j);
    for (size_t i = 0; i < r->n_expects; i++) {
        fprintf(j, "%s{\"passed\": %s, \"message\": ", i ? ", " : "", r->expects[i].passed ? "true" : "false");
        json_str(j, r->expects[i].message);
        fputs("}", j);
    }
    fputs("]}", j);
}

/* A trace that did not load or run, in the JSON output too. */
static void json_error(FILE *j, bool *first, const char *path, const char *err) {
    if (j == NULL) return;
    fprintf(j, "%s\n  {\"trace\": ", *first ? "" : ",");
    json_str(j, path);
    fputs(", \"passed\": false, \"error\": ", j);
    json_str(j, err);
    fputc('}', j);
    *first = false;
}

/* Run one trace; returns 1 when it passed. */
static int run_trace(const char *path, const sim_opts_t *o, FILE *events, FILE *json, FILE *timeline,
                     bool *first_json) {
    sim_config_t cfg;
    char err[512];
    if (sim_trace_load(path, &cfg, err, sizeof err) != 0) {
        printf("trace %s: FAIL: %s\n", path, err);
        json_error(json, first_json, path, err);
        return 0;
    }
    uint64_t seed = o->seed_given ? o->seed : cfg.seed;
    sim_run_opts_t ro = {.events = events, .timeline = timeline, .timeline_ms = o->timeline_ms};
    sim_result_t r;
    double t0 = wall_now();
    if (sim_run(&cfg, seed, &ro, &r, err, sizeof err) != 0) {
        printf("trace %s: FAIL: %s\n", path, err);
        json_error(json, first_json, path, err);
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
    char wall[48] = "";
    if (o->wall_time) snprintf(wall, sizeof wall, "  %.2f s", r.wall_seconds);
    printf("trace %s (%s): %s  seed %" PRIu64 "  events %" PRIu64 "  digest %.16s%s%s%s\n", path, cfg.name,
           ok ? "PASS" : "FAIL", seed, r.events, r.digest, wall, det[0] ? "  " : "", det);
    if (!o->quiet) {
        sim_metrics_table(stdout, &r.metrics);
        sim_conv_table(stdout, &r, 16);
    }
    for (size_t i = 0; i < r.n_expects; i++) {
        if (!o->quiet || !r.expects[i].passed) {
            printf("  expect %-4s %s\n", r.expects[i].passed ? "PASS" : "FAIL", r.expects[i].message);
        }
    }
    if (json != NULL) {
        json_result(json, *first_json, path, &cfg, &r, ok, o->wall_time);
        *first_json = false;
    }
    sim_result_free(&r);
    sim_config_free(&cfg);
    return ok;
}

/* A growing list of owned path strings. */
typedef struct {
    char **v;
    size_t n, cap;
} paths_t;

static int paths_add(paths_t *p, const char *s) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        char **v = realloc(p->v, cap * sizeof *v);
        if (v == NULL) return -1;
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n] = strdup(s);
    if (p->v[p->n] == NULL) return -1;
    p->n++;
    return 0;
}

static void paths_free(paths_t *p) {
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
}

/* A directory stands for its *.json files (sorted). */
static int add_dir(paths_t *p, const char *dir) {
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/*.json", dir);
    glob_t g;
    int rc = glob(pat, 0, NULL, &g);
    if (rc == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (paths_add(p, g.gl_pathv[i]) != 0) rc = -1;
        }
    }
    globfree(&g);
    return rc == 0 ? 0 : -1;
}

/* The default set: sim/traces/default-set.txt (one file per line, '#'
 * comments) under vec_default_base(): the checkout, or the installed data. */
static int default_traces(paths_t *p) {
    char dir[4096], list[sizeof dir + 32];
    const char *base = vec_default_base();
    snprintf(dir, sizeof dir, "%s%ssim/traces", base, base[0] != '\0' ? "/" : "");
    snprintf(list, sizeof list, "%s/default-set.txt", dir);
    FILE *f = fopen(list, "r");
    if (f == NULL) return -1;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "#\r\n")] = '\0';
        char *t = line;
        while (*t == ' ' || *t == '\t') t++;
        size_t n = strlen(t);
        while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t')) t[--n] = '\0';
        if (n == 0) continue;
        char path[sizeof dir + sizeof line + 2];
        snprintf(path, sizeof path, "%s/%s", dir, t);
        if (paths_add(p, path) != 0) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return p->n > 0 ? 0 : -1;
}

static bool is_directory(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int rl_cmd_sim(int argc, char **argv) {
    if (rl_explore_wanted(argc, argv)) return rl_cmd_explore(argc, argv);
    sim_opts_t o = {0};
    paths_t paths = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            paths_free(&paths);
            return 0;
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            if (parse_u64(argv[++i], &o.seed) != 0) {
                fprintf(stderr, "rl-testbed sim: --seed wants a decimal integer 0..18446744073709551615, got '%s'\n",
                        argv[i]);
                paths_free(&paths);
                return 2;
            }
            o.seed_given = true;
        } else if (strcmp(a, "--check-determinism") == 0) {
            o.check_determinism = true;
        } else if (strcmp(a, "--wall-time") == 0) {
            o.wall_time = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o.quiet = true;
        } else if (strcmp(a, "--events") == 0 && i + 1 < argc) {
            o.events_path = argv[++i];
        } else if (strcmp(a, "--json") == 0 && i + 1 < argc) {
            o.json_path = argv[++i];
        } else if (strcmp(a, "--timeline") == 0 && i + 2 < argc) {
            uint64_t ms = 0;
            if (parse_u64(argv[i + 1], &ms) != 0 || ms == 0 || ms > 86400000u) {
                fprintf(stderr, "rl-testbed sim: --timeline wants a window in ms 1..86400000, got '%s'\n", argv[i + 1]);
                paths_free(&paths);
                return 2;
            }
            o.timeline_ms = (uint32_t)ms;
            o.timeline_path = argv[i + 2];
            i += 2;
        } else if (a[0] == '-') {
            rl_cli_bad_option(a, (const char *const[]){"--seed", "--events", "--json", "--timeline", NULL});
            usage(stderr);
            paths_free(&paths);
            return 2;
        } else if (is_directory(a) ? add_dir(&paths, a) != 0 : paths_add(&paths, a) != 0) {
            fprintf(stderr, "rl-testbed sim: no trace files in '%s'\n", a);
            paths_free(&paths);
            return 2;
        }
    }
    if (paths.n == 0 && default_traces(&paths) != 0) {
        fprintf(stderr, "rl-testbed sim: no traces given and no sim/traces/default-set.txt found\n");
        paths_free(&paths);
        return 2;
    }
    FILE *events = NULL, *json = NULL, *timeline = NULL;
    if (o.events_path && (events = fopen(o.events_path, "w")) == NULL) {
        fprintf(stderr, "rl-testbed sim: cannot write %s: %s\n", o.events_path, strerror(errno));
        paths_free(&paths);
        return 2;
    }
    if (o.json_path && (json = fopen(o.json_path, "w")) == NULL) {
        fprintf(stderr, "rl-testbed sim: cannot write %s: %s\n", o.json_path, strerror(errno));
        if (events) fclose(events);
        paths_free(&paths);
        return 2;
    }
    if (o.timeline_path && (timeline = fopen(o.timeline_path, "w")) == NULL) {
        fprintf(stderr, "rl-testbed sim: cannot write %s: %s\n", o.timeline_path, strerror(errno));
        if (events) fclose(events);
        if (json) fclose(json);
        paths_free(&paths);
        return 2;
    }
    if (json) fputc('[', json);
    size_t passed = 0, failed = 0;
    bool first = true;
    for (size_t i = 0; i < paths.n; i++) {
        if (run_trace(paths.v[i], &o, events, json, timeline, &first)) passed++;
        else failed++;
    }
    bool write_failed = false;
    if (json) {
        fputs("\n]\n", json);
        write_failed |= ferror(json) != 0;
        write_failed |= fclose(json) != 0;
    }
    if (events) {
        write_failed |= ferror(events) != 0;
        write_failed |= fclose(events) != 0;
    }
    if (timeline) {
        write_failed |= ferror(timeline) != 0;
        write_failed |= fclose(timeline) != 0;
    }
    printf("sim: %zu passed, %zu failed\n", passed, failed);
    paths_free(&paths);
    if (write_failed) {
        fprintf(stderr, "rl-testbed sim: writing --json, --events or --timeline output failed: %s\n", strerror(errno));
        return 2;
    }
    return failed == 0 ? 0 : 1;
}
