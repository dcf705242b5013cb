/* SPDX-License-Identifier: MIT */
/* sweep_cmd.c - `rl-testbed sweep`: parses arguments and calls the sweep
 * engine (sweep/, docs/sweep.md): run or resume a sweep, one shard of it, or
 * merge shard directories. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_words.h"
#include "sweep.h"
#include "sweep_cmd.h"
#include "sweep_run.h"

#define EXIT_FAILED_UNITS 1
#define EXIT_USAGE 2
#define EXIT_STOPPED 3

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig) {
    (void)sig;
    stop_flag = 1;
}

static void usage(FILE *f) {
    fputs("usage: rl-testbed sweep SWEEP.json [--jobs N] [--out DIR] [--shard i/N] [--stop-after K]\n"
          "                        [--check] [--quiet]\n"
          "       rl-testbed sweep merge DIR... --out DIR\n"
          "       rl-testbed sweep report RESULTS_DIR [--out DIR] ...   (rl-testbed sweep report --help)\n"
          "\n"
          "Runs every HA policy configuration of a sweep file (format: docs/sweep.md) on every\n"
          "trace and seed it names, and writes results.csv/json (one row per configuration,\n"
          "trace and seed) and summary.csv/json (per configuration and trace: mean, quantiles\n"
          "and the paired 95 % confidence interval of the difference from the baseline).\n"
          "Finished units are appended to DIR/units.log: a rerun resumes where it stopped.\n"
          "\n"
          "  --jobs N|all    worker processes (default, and all: the online CPUs); results do not depend on it\n"
          "  --out DIR       output directory (default: sweep-out/<sweep name>)\n"
          "  --shard i/N     run only the units with index mod N = i; auto/N or /N take i from\n"
          "                  JOB_COMPLETION_INDEX, else SLURM_ARRAY_TASK_ID\n"
          "  --stop-after K  stop after K units are recorded in this run (resume later)\n"
          "  --check         load and check the sweep and its traces, print the unit count, run nothing\n"
          "  --quiet         no progress on stderr\n"
          "  --help          print this help\n"
          "\n"
          "merge joins the output directories of shards of one sweep (same sweep hash and build)\n"
          "into --out DIR, refusing missing or overlapping units.\n"
          "Exit status: 0 complete, 1 complete with failed units, 2 usage error or refused input,\n"
          "3 stopped before the end (rerun to resume).\n",
          f);
}

static void usage_merge(FILE *f) {
    fputs("usage: rl-testbed sweep merge DIR... --out DIR\n"
          "\n"
          "Joins the output directories of the shards of one sweep ('rl-testbed sweep ... --shard i/N')\n"
          "into --out DIR: units.log, manifest.json, results.csv/json and summary.csv/json, byte for\n"
          "byte those of one unsharded run (docs/sweep.md \"Sharding and merge\"). Refused, naming the directory\n"
          "or unit: a different sweep hash or build id, a unit in two directories or in none, a\n"
          "directory given twice, an --out that is one of the shards.\n"
          "\n"
          "  --out DIR       the merged output directory (required)\n"
          "  --help          print this help\n"
          "\n"
          "Exit status: 0 merged, 1 merged with failed units, 2 usage error or refused input.\n",
          f);
}

static int parse_count(const char *s, unsigned long max, unsigned long *out) {
    if (s[0] < '0' || s[0] > '9' || strlen(s) > 9) return -1;
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v > max) return -1;
    *out = v;
    return 0;
}

static const char *env(const char *name) {
    return getenv(name);
}

static int cmd_merge(int argc, char **argv) {
    const char *out = NULL;
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t n = 0;
    if (dirs == NULL) return EXIT_USAGE;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_merge(stdout);
            free(dirs);
            return 0;
        } else if (argv[i][0] == '-') {
            rl_cli_bad_option(argv[i], (const char *const[]){"--out", NULL});
            free(dirs);
            return EXIT_USAGE;
        } else {
            dirs[n++] = argv[i];
        }
    }
    if (out == NULL || n == 0) {
        fprintf(stderr, "rl-testbed sweep merge: give the shard directories and --out DIR\n");
        free(dirs);
        return EXIT_USAGE;
    }
    char err[1024];
    size_t failed = 0;
    int r = sweep_merge(dirs, n, out, &failed, err, sizeof err);
    free(dirs);
    if (r != 0) {
        fprintf(stderr, "rl-testbed sweep merge: %s\n", err);
        return EXIT_USAGE;
    }
    printf("sweep merge: %zu slices merged into %s, %zu failed units\n", n, out, failed);
    return failed > 0 ? EXIT_FAILED_UNITS : 0;
}

int rl_cmd_sweep(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "merge") == 0) return cmd_merge(argc, argv);
    const char *file = NULL, *out = NULL, *shard = NULL;
    unsigned long jobs = 0, stop_after = 0;
    bool check = false, quiet = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--jobs") == 0 && i + 1 < argc && strcmp(argv[i + 1], "all") == 0) {
            i++;
            jobs = 0; /* the online CPUs, as by default */
        } else if (strcmp(a, "--jobs") == 0 && i + 1 < argc) {
            if (parse_count(argv[++i], 4096, &jobs) != 0 || jobs == 0) {
                fprintf(stderr, "rl-testbed sweep: --jobs wants 1..4096 or all, got '%s'\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--stop-after") == 0 && i + 1 < argc) {
            if (parse_count(argv[++i], SWEEP_MAX_UNITS, &stop_after) != 0 || stop_after == 0) {
                fprintf(stderr, "rl-testbed sweep: --stop-after wants 1..%u, got '%s'\n", SWEEP_MAX_UNITS, argv[i]);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--shard") == 0 && i + 1 < argc) {
            shard = argv[++i];
        } else if (strcmp(a, "--check") == 0) {
            check = true;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            quiet = true;
        } else if (a[0] == '-') {
            rl_cli_bad_option(a, (const char *const[]){"--jobs", "--stop-after", "--out", "--shard", NULL});
            usage(stderr);
            return EXIT_USAGE;
        } else if (file != NULL) {
            fprintf(stderr, "rl-testbed sweep: one sweep file at a time ('%s' and '%s')\n", file, a);
            return EXIT_USAGE;
        } else {
            file = a;
        }
    }
    if (file == NULL) {
        fprintf(stderr, "rl-testbed sweep: no sweep file given\n");
        usage(stderr);
        return EXIT_USAGE;
    }
    char err[1024];
    size_t si = 0, sc = 1;
    if (shard != NULL && sweep_parse_shard(shard, env, &si, &sc, err, sizeof err) != 0) {
        fprintf(stderr, "rl-testbed sweep: %s\n", err);
        return EXIT_USAGE;
    }
    sweep_t sw;
    if (sweep_load(file, &sw, err, sizeof err) != 0 || sweep_prepare(&sw, err, sizeof err) != 0) {
        fprintf(stderr, "rl-testbed sweep: %s\n", err);
        sweep_free(&sw);
        return EXIT_USAGE;
    }
    size_t units = sweep_units(&sw);
    if (check) {
        printf("sweep %s: %zu configurations x %zu traces x %zu seeds = %zu units, baseline %s, hash %.16s\n", sw.name,
               sw.n_configs, sw.n_traces, sw.n_seeds, units, sw.configs[sw.baseline].name, sw.hash);
        sweep_free(&sw);
        return 0;
    }
    char def_out[256];
    if (out == NULL) {
        snprintf(def_out, sizeof def_out, "sweep-out/%s", sw.name);
        out = def_out;
    }
    if (jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (unsigned long)n : 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sweep_run_opts_t o = {.out_dir = out,
                          .jobs = (unsigned)jobs,
                          .shard_index = si,
                          .shard_count = sc,
                          .stop_after = stop_after,
                          .progress = quiet ? NULL : stderr,
                          .progress_tty = isatty(STDERR_FILENO) != 0,
                          .stop = &stop_flag};
    sweep_run_report_t rep;
    int r = sweep_run(&sw, &o, &rep, err, sizeof err);
    if (r != 0) {
        fprintf(stderr, "rl-testbed sweep: %s\n", err);
        sweep_free(&sw);
        return EXIT_USAGE;
    }
    char part[64] = "";
    if (sc > 1) snprintf(part, sizeof part, " shard %zu/%zu", si, sc);
    printf("sweep %s%s: %zu units, %zu run now (%.1f runs/s), %zu already done, %zu failed; %s in %s\n", sw.name,
           part, rep.units, rep.ran, rep.wall_seconds > 0 ? (double)rep.ran / rep.wall_seconds : 0.0,
           rep.already_done, rep.failed,
           !rep.complete ? "incomplete (rerun to resume)"
                         : rep.outputs_written ? "results" : "slice complete (join with 'rl-testbed sweep merge')",
           out);
    sweep_free(&sw);
    if (!rep.complete) return EXIT_STOPPED;
    return rep.failed > 0 ? EXIT_FAILED_UNITS : 0;
}
