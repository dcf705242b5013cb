/* SPDX-License-Identifier: MIT */
/* sweep_report_cmd.c - `rl-testbed sweep report RESULTS_DIR [--out DIR]
 * [--notes FILE] [--highlight LIST]`: parses the arguments and calls the
 * report engine (sweep/report). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sweep_report.h"
#include "sweep_report_cmd.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
    fputs("usage: rl-testbed sweep report RESULTS_DIR [--out DIR] [--notes FILE] [--highlight LIST]\n"
          "                               [--group NAME=TRACE,TRACE...]...\n"
          "\n"
          "Writes the report of a finished sweep (RESULTS_DIR: the --out directory of\n"
          "'rl-testbed sweep', with summary.json and manifest.json): DIR/report.md\n"
          "(overview, plots, tables with a row anchor each), DIR/tables.md (per trace:\n"
          "every configuration's means and its paired difference from the baseline with\n"
          "95 % confidence intervals), and the plots as gnuplot data (NAME.dat) and\n"
          "scripts (NAME.gp), run through gnuplot to NAME.svg and NAME.png.\n"
          "Without gnuplot the Markdown and scripts are still written and a note says so.\n"
          "\n"
          "  --out DIR         output directory (default: RESULTS_DIR/report), created if missing\n"
          "  --notes FILE      Markdown copied into report.md after its header (the written findings)\n"
          "  --highlight LIST  comma-separated configurations drawn in colour and named in\n"
          "                    legends (at most 16; default: the baseline and the next five)\n"
          "  --group NAME=LIST a deployment group: its own table of means over the listed\n"
          "                    traces and its own Pareto front (repeatable, at most 8 groups\n"
          "                    of at most 64 traces)\n"
          "  --help            print this help\n"
          "\n"
          "The gnuplot program is $RL_GNUPLOT when set, else gnuplot from PATH.\n"
          "Exit status: 0 when the report was written, 1 on a read, write or gnuplot error,\n"
          "2 on a usage error.\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    /* An unknown option and a missing value are worded as by every other command. */
    bool common = strcmp(what, "unknown option") == 0 || strcmp(what, "missing value after") == 0;
    if (arg != NULL)
        fprintf(stderr, "rl-testbed: %s%s '%s'\n", common ? "" : "sweep report: ", what, arg);
    else
        fprintf(stderr, "rl-testbed: sweep report: %s\n", what);
    usage(stderr);
    return EXIT_USAGE;
}

/* Split LIST at commas into opt->highlight (list is modified). */
static int parse_highlight(char *list, rep_options_t *opt)
{
    for (char *p = list; p != NULL;) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*p == '\0')
            return usage_error("empty name in --highlight", NULL);
        if (opt->n_highlight >= REP_MAX_HIGHLIGHT)
            return usage_error("--highlight takes at most 16 configurations", NULL);
        opt->highlight[opt->n_highlight++] = p;
        p = comma != NULL ? comma + 1 : NULL;
    }
    return 0;
}

/* NAME=T1,T2,... into the next group (arg is modified). */
static int parse_group(char *arg, rep_options_t *opt)
{
    char *eq = strchr(arg, '=');
    if (opt->n_groups >= REP_MAX_GROUPS)
        return usage_error("at most 8 --group options", NULL);
    if (eq == NULL || eq == arg || eq[1] == '\0')
        return usage_error("--group wants NAME=TRACE,TRACE..., got", arg);
    *eq = '\0';
    rep_group_t *g = &opt->groups[opt->n_groups];
    g->name = arg;
    for (char *p = eq + 1; p != NULL;) {
        char *comma = strchr(p, ',');
        if (comma != NULL)
            *comma = '\0';
        if (*p == '\0')
            return usage_error("empty trace name in --group", g->name);
        if (g->n_traces >= sizeof g->traces / sizeof g->traces[0])
            return usage_error("--group takes at most 64 traces:", g->name);
        g->traces[g->n_traces++] = p;
        p = comma != NULL ? comma + 1 : NULL;
    }
    opt->n_groups++;
    return 0;
}

int rl_cmd_sweep_report(int argc, char **argv)
{
    rep_options_t opt;
    memset(&opt, 0, sizeof opt);
    const char *dir = NULL;
    char *hl = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--out") == 0) {
            dst = &opt.out_dir;
        } else if (strcmp(a, "--notes") == 0) {
            dst = &opt.notes_path;
        } else if (strcmp(a, "--highlight") == 0) {
            if (i + 1 >= argc)
                return usage_error("missing value after", a);
            hl = argv[++i];
            continue;
        } else if (strcmp(a, "--group") == 0) {
            if (i + 1 >= argc)
                return usage_error("missing value after", a);
            int g = parse_group(argv[++i], &opt);
            if (g != 0)
                return g;
            continue;
        } else if (a[0] == '-') {
            return usage_error("unknown option", a);
        } else if (dir != NULL) {
            return usage_error("more than one RESULTS_DIR:", a);
        } else {
            dir = a;
            continue;
        }
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
            return usage_error("missing value after", a);
        *dst = argv[++i];
    }
    if (dir == NULL)
        return usage_error("missing RESULTS_DIR", NULL);
    int rc = 0;
    if (hl != NULL && (rc = parse_highlight(hl, &opt)) != 0)
        return rc;
    char out_default[4200];
    if (opt.out_dir == NULL) {
        (void)snprintf(out_default, sizeof out_default, "%s/report", dir);
        opt.out_dir = out_default;
    }
    const char *gp = getenv("RL_GNUPLOT");
    opt.gnuplot = gp != NULL && gp[0] != '\0' ? gp : NULL;
    char err[1024];
    rep_data_t d;
    if (rep_data_load(dir, &d, err, sizeof err) != 0) {
        /* A shard's directory has manifest.json and units.log but no summary: say what to do. */
        char path[4200];
        struct stat st;
        (void)snprintf(path, sizeof path, "%s/summary.json", dir);
        bool no_summary = stat(path, &st) != 0;
        (void)snprintf(path, sizeof path, "%s/units.log", dir);
        if (no_summary && stat(path, &st) == 0)
            fprintf(stderr,
                    "rl-testbed: sweep report: %s has no summary.json: it is a shard of a sweep (or an unfinished "
                    "run); merge the shards first (rl-testbed sweep merge SHARD_DIR... --out DIR), then report on "
                    "DIR\n",
                    dir);
        else
            fprintf(stderr, "rl-testbed: sweep report: %s\n", err);
        return 1;
    }
    rep_result_t res;
    if (rep_write(&d, &opt, &res, err, sizeof err) != 0) {
        fprintf(stderr, "rl-testbed: sweep report: %s\n", err);
        rep_data_free(&d);
        return 1;
    }
    if (res.gnuplot_missing)
        fprintf(stderr,
                "rl-testbed: sweep report: gnuplot not found (%s): wrote the Markdown and %zu .gp scripts, no "
                "plots; install gnuplot (Debian: gnuplot-nox) and run 'gnuplot NAME.gp' in %s\n",
                opt.gnuplot != NULL ? opt.gnuplot : "gnuplot", res.plots, opt.out_dir);
    printf("sweep report: %s/report.md, %s/tables.md, %zu plots (%zu drawn): %zu configurations x %zu traces\n",
           opt.out_dir, opt.out_dir, res.plots, res.plots_drawn, d.n_configs, d.n_traces);
    rep_data_free(&d);
    return 0;
}
