/* SPDX-License-Identifier: MIT */
/* report_run.c - rep_write: the output directory, the highlighted
 * configurations and Pareto fronts, the plots (written, then run through
 * gnuplot in the output directory) and the Markdown. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_int.h"

#define EXIT_NO_PROGRAM 127

/* Run `gnuplot NAME.gp` in dir. Returns the exit status, EXIT_NO_PROGRAM when
 * the program cannot be started, -1 when the process cannot be made. */
static int run_one(const char *dir, const char *program, const char *script)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(EXIT_NO_PROGRAM - 1);
        char *argv[] = {(char *)program, (char *)script, NULL};
        execvp(program, argv);
        _exit(EXIT_NO_PROGRAM);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int rep_plots_run(const rep_options_t *opt, const char *const *names, size_t n, rep_result_t *res, char *err,
                  size_t cap)
{
    const char *program = opt->gnuplot != NULL ? opt->gnuplot : "gnuplot";
    for (size_t i = 0; i < n; i++) {
        char script[128];
        (void)snprintf(script, sizeof script, "%s.gp", names[i]);
        int st = run_one(opt->out_dir, program, script);
        if (st == EXIT_NO_PROGRAM) {
            res->gnuplot_missing = true;
            return 0;
        }
        if (st != 0)
            return rep_fail(err, cap, "%s/%s: %s exited with status %d", opt->out_dir, script, program, st);
        res->plots_drawn++;
    }
    return 0;
}

static int make_dir(const char *dir, char *err, size_t cap)
{
    struct stat st;
    if (mkdir(dir, 0777) == 0)
        return 0;
    if (errno == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    return rep_fail(err, cap, "%s: cannot create the output directory: %s", dir, strerror(errno == EEXIST ? ENOTDIR : errno));
}

static int group_fronts(const rep_data_t *d, const rep_options_t *opt, rep_sel_t *sel, char *err, size_t cap)
{
    size_t nc = d->n_configs;
    sel->front_group = calloc(REP_MAX_GROUPS * nc, sizeof *sel->front_group);
    double *x = malloc(nc * sizeof *x), *y = malloc(nc * sizeof *y);
    int rc = (sel->front_group == NULL || x == NULL || y == NULL) ? rep_fail(err, cap, "out of memory") : 0;
    for (size_t g = 0; rc == 0 && g < opt->n_groups; g++) {
        const rep_group_t *gr = &opt->groups[g];
        for (size_t i = 0; rc == 0 && i < gr->n_traces; i++) {
            sel->group_traces[g][i] = rep_find_trace(d, gr->traces[i]);
            if (sel->group_traces[g][i] == d->n_traces)
                rc = rep_fail(err, cap, "--group %s: unknown trace \"%s\"", gr->name, gr->traces[i]);
        }
        for (size_t c = 0; rc == 0 && c < nc; c++) {
            x[c] = rep_mean_over(d, c, REP_M_P99, sel->group_traces[g], gr->n_traces);
            y[c] = rep_mean_over(d, c, REP_M_FALSE_ALLOW, sel->group_traces[g], gr->n_traces);
        }
        if (rc == 0)
            (void)rep_pareto_front(x, y, nc, &sel->front_group[g * nc]);
    }
    free(x);
    free(y);
    return rc;
}

static int fronts(const rep_data_t *d, rep_sel_t *sel)
{
    size_t nc = d->n_configs;
    double *x = malloc(nc * sizeof *x), *y = malloc(nc * sizeof *y);
    bool *f = malloc(nc * sizeof *f);
    sel->front_all = calloc(nc, sizeof *sel->front_all);
    sel->front_trace = calloc(nc * d->n_traces, sizeof *sel->front_trace);
    int rc = (x == NULL || y == NULL || f == NULL || sel->front_all == NULL || sel->front_trace == NULL) ? -1 : 0;
    if (rc == 0) {
        for (size_t c = 0; c < nc; c++) {
            x[c] = rep_mean_over_traces(d, c, REP_M_P99);
            y[c] = rep_mean_over_traces(d, c, REP_M_FALSE_ALLOW);
        }
        (void)rep_pareto_front(x, y, nc, sel->front_all);
        for (size_t t = 0; t < d->n_traces; t++) {
            for (size_t c = 0; c < nc; c++) {
                const rep_stat_t *a = rep_stat(d, c, t, REP_M_P99), *b = rep_stat(d, c, t, REP_M_FALSE_ALLOW);
                x[c] = a->has ? a->mean : NAN;
                y[c] = b->has ? b->mean : NAN;
            }
            (void)rep_pareto_front(x, y, nc, f);
            for (size_t c = 0; c < nc; c++)
                sel->front_trace[c * d->n_traces + t] = f[c];
        }
    }
    free(x);
    free(y);
    free(f);
    return rc;
}

int rep_write(const rep_data_t *d, const rep_options_t *opt, rep_result_t *res, char *err, size_t cap)
{
    memset(res, 0, sizeof *res);
    rep_sel_t sel;
    memset(&sel, 0, sizeof sel);
    int n = rep_highlight(d, opt, sel.hl, err, cap);
    if (n < 0)
        return -1;
    sel.n_hl = (size_t)n;
    int rc = group_fronts(d, opt, &sel, err, cap);
    if (rc == 0)
        rc = make_dir(opt->out_dir, err, cap);
    if (rc == 0)
        rc = fronts(d, &sel) == 0 ? 0 : rep_fail(err, cap, "out of memory");
    const char *names[REP_PLOT_MAX];
    size_t np = 0;
    if (rc == 0)
        rc = rep_plots_write(d, opt, &sel, names, &np, err, cap);
    res->plots = np;
    if (rc == 0)
        rc = rep_plots_run(opt, names, np, res, err, cap);
    if (rc == 0)
        rc = rep_md_write(d, opt, &sel, res, err, cap);
    free(sel.front_all);
    free(sel.front_trace);
    free(sel.front_group);
    return rc;
}
