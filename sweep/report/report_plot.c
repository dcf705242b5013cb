/* SPDX-License-Identifier: MIT */
/* report_plot.c - the report's plots as gnuplot data files (NAME.dat) and
 * scripts (NAME.gp), each script drawing NAME.svg and NAME.png when run
 * with `gnuplot NAME.gp` in the output directory:
 *   pareto            p99 decision latency against false-allow rate, front marked
 *   availability_loss availability against the Bernoulli loss rate
 *   overconsumption   over-consumed tokens against N and against the dedup TTL H
 *   extra_datagrams   replays + completion sends per request, per configuration
 *   convergence       convergence time per fault trace (highlighted configurations)
 *   latency_u         decision latency against U on the empirical round-trip traces */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939",
                                      "#8c6d31", "#843c39", "#7b4173", "#3182bd"};
#define GREY "#b0b0b0"

typedef struct {
    FILE *f;
    bool bad;
} pout_t;

__attribute__((format(printf, 2, 3))) static void pr(pout_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(o->f, fmt, ap) < 0)
        o->bad = true;
    va_end(ap);
}

/* A number for a data file: NaN as gnuplot's missing value. */
static void num(pout_t *o, double v)
{
    if (isnan(v))
        pr(o, " NaN");
    else
        pr(o, " %.9g", v);
}

/* The half-width of the paired 95 % interval of a (configuration, trace)'s difference from the baseline
 * (0 for the baseline itself), NaN without one; scaled by k. */
static double half(const rep_stat_t *s, double k)
{
    return s->has && s->has_ci ? (s->ci_high - s->ci_low) / 2.0 * k : NAN;
}

/* The same for the mean over every trace (rep_diff_over: conservative). */
static double half_all(const rep_data_t *d, size_t c, rep_metric_t m, double k)
{
    double mean, h;
    (void)rep_diff_over(d, c, m, NULL, 0, &mean, &h);
    return h * k;
}

typedef struct {
    const rep_data_t *d;
    const rep_sel_t *sel;
    const size_t *idx; /* plot-specific trace list */
    size_t n_idx;
} ctx_t;

typedef void (*body_fn)(pout_t *, const ctx_t *);

static int open_out(const char *dir, const char *name, const char *ext, pout_t *o, char *path, size_t pcap,
                    char *err, size_t cap)
{
    (void)snprintf(path, pcap, "%s/%s.%s", dir, name, ext);
    o->f = fopen(path, "w");
    o->bad = false;
    return o->f == NULL ? rep_fail(err, cap, "%s: %s", path, strerror(errno)) : 0;
}

static int close_out(pout_t *o, const char *path, char *err, size_t cap)
{
    bool bad = o->bad;
    if (fclose(o->f) != 0)
        bad = true;
    return bad ? rep_fail(err, cap, "%s: write error", path) : 0;
}

/* NAME.gp: the body drawn once per terminal (SVG, then PNG). */
static int write_script(const char *dir, const char *name, const char *title, int w, int h, body_fn body,
                        const ctx_t *cx, char *err, size_t cap)
{
    char path[4200];
    pout_t o;
    if (open_out(dir, name, "gp", &o, path, sizeof path, err, cap) != 0)
        return -1;
    pr(&o, "# %s\n# Written by rl-testbed sweep report from %s.dat; run: gnuplot %s.gp (draws %s.svg and "
           "%s.png)\nset encoding utf8\n",
       title, name, name, name, name);
    static const char *const terms[2][2] = {{"svg", "svg"}, {"pngcairo", "png"}};
    for (int k = 0; k < 2; k++) {
        pr(&o, "\nreset\nset terminal %s size %d,%d %sfont 'Sans,%d' noenhanced background rgb 'white'\n",
           terms[k][0], w, h, k == 0 ? "dynamic " : "", k == 0 ? 13 : 12);
        pr(&o, "set output '%s.%s'\nset title '%s'\nset grid lc rgb '#dddddd'\n", name, terms[k][1], title);
        body(&o, cx);
        pr(&o, "unset output\n");
    }
    return close_out(&o, path, err, cap);
}

static bool is_hl(const rep_sel_t *sel, size_t c)
{
    for (size_t i = 0; i < sel->n_hl; i++) {
        if (sel->hl[i] == c)
            return true;
    }
    return false;
}

/* True when configuration c behaves exactly as the baseline: the same derived
 * timing (r_client_policy_schedule: rounds, B(k) U, P(k) U, F U, P_final U)
 * and the same completion delivery. Its line would hide the baseline's. */
static bool same_as_baseline(const rep_data_t *d, size_t c)
{
    const rep_config_t *a = &d->configs[c], *b = &d->configs[d->baseline_idx];
    if (c == d->baseline_idx || !a->has_policy || !b->has_policy ||
        a->policy.completion_delivery != b->policy.completion_delivery)
        return false;
    r_policy_schedule_t x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    if (r_client_policy_schedule(&a->policy, UINT32_MAX, &x, NULL) != RCLIENT_OK ||
        r_client_policy_schedule(&b->policy, UINT32_MAX, &y, NULL) != RCLIENT_OK)
        return false;
    return memcmp(&x, &y, sizeof x) == 0;
}

static void hl_title(pout_t *o, const ctx_t *cx, size_t i)
{
    size_t c = cx->sel->hl[i];
    pr(o, "title '%s%s'", cx->d->configs[c].name,
       c == cx->d->baseline_idx ? " (baseline)" : same_as_baseline(cx->d, c) ? " (= baseline, hides it)" : "");
}

/* ---- pareto ------------------------------------------------------------------ */

static bool log_ok(const double *v, size_t n)
{
    double lo = INFINITY, hi = 0.0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (v[i] <= 0.0)
            return false;
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    return hi > 0.0 && hi / lo > 20.0;
}

static void pareto_body(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    double *x = malloc(d->n_configs * sizeof *x);
    bool lg = false;
    if (x != NULL) {
        for (size_t c = 0; c < d->n_configs; c++)
            x[c] = rep_mean_over_traces(d, c, REP_M_P99);
        lg = log_ok(x, d->n_configs);
        free(x);
    }
    pr(o, "%sset xlabel 'p99 decision latency, mean over traces (ms)%s; bars: paired 95 %% interval from the baseline'\n"
          "set ylabel 'false-allow rate, mean over traces (%% of decided requests)'\n"
          "set key outside right top box opaque\nset offsets graph 0.02, graph 0.08, graph 0.05, graph 0.05\n",
       lg ? "set logscale x\n" : "", lg ? ", log scale" : "");
    pr(o, "plot 'pareto.dat' index 0 using 1:2:5:6 with xyerrorbars pt 6 ps 1.1 lc rgb '" GREY "' "
          "title 'configuration', \\\n"
          "     '' index 1 using 1:2 with linespoints lw 2 dt 2 pt 7 ps 1.3 lc rgb '#000000' title 'Pareto front', \\\n"
          "     '' index 1 using 1:2:3 with labels left offset char 0.8,0.7 font ',9' tc rgb '#000000' notitle");
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        pr(o, ", \\\n     '' index %zu using 1:2:4:5 with xyerrorbars pt %d ps %s lw 1.5 lc rgb '%s' ", i + 2, i == 0 ? 5 : 9,
           i == 0 ? "2.6" : "1.8",
           colours[i % 16]);
        hl_title(o, cx, i);
    }
    pr(o, "\n");
}

static void pareto_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "# p99_ms false_allow_pct name on_front p99_half false_allow_half (index 0: every configuration; 1: the "
          "front by p99; 2..: highlighted: p99_ms false_allow_pct name p99_half false_allow_half; half: of the paired "
          "95 %% interval of the difference from the baseline over the traces)\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        num(o, rep_mean_over_traces(d, c, REP_M_P99));
        num(o, rep_mean_over_traces(d, c, REP_M_FALSE_ALLOW) * 100.0);
        pr(o, " \"%s\" %d", d->configs[c].name, cx->sel->front_all[c] ? 1 : 0);
        num(o, half_all(d, c, REP_M_P99, 1.0));
        num(o, half_all(d, c, REP_M_FALSE_ALLOW, 100.0));
        pr(o, "\n");
    }
    pr(o, "\n\n");
    /* the front, ascending p99 (ties: ascending false allows) */
    size_t *f = malloc(d->n_configs * sizeof *f);
    size_t nf = 0;
    for (size_t c = 0; f != NULL && c < d->n_configs; c++) {
        if (!cx->sel->front_all[c])
            continue;
        double xc = rep_mean_over_traces(d, c, REP_M_P99), yc = rep_mean_over_traces(d, c, REP_M_FALSE_ALLOW);
        size_t k = nf++;
        while (k > 0) {
            double xp = rep_mean_over_traces(d, f[k - 1], REP_M_P99);
            double yp = rep_mean_over_traces(d, f[k - 1], REP_M_FALSE_ALLOW);
            if (xp < xc || (xp == xc && yp <= yc))
                break;
            f[k] = f[k - 1];
            k--;
        }
        f[k] = c;
    }
    /* coincident front points share one label: "a, b" on the first, "" on the others */
    for (size_t i = 0; i < nf; i++) {
        double xi = rep_mean_over_traces(d, f[i], REP_M_P99), yi = rep_mean_over_traces(d, f[i], REP_M_FALSE_ALLOW);
        num(o, xi);
        num(o, yi * 100.0);
        bool later = i > 0 && rep_mean_over_traces(d, f[i - 1], REP_M_P99) == xi &&
                     rep_mean_over_traces(d, f[i - 1], REP_M_FALSE_ALLOW) == yi;
        pr(o, " \"");
        for (size_t j = i; !later && j < nf; j++) {
            if (rep_mean_over_traces(d, f[j], REP_M_P99) != xi || rep_mean_over_traces(d, f[j], REP_M_FALSE_ALLOW) != yi)
                break;
            pr(o, "%s%s", j > i ? ", " : "", d->configs[f[j]].name);
        }
        pr(o, "\"\n");
    }
    if (nf == 0)
        pr(o, "NaN NaN \"\"\n");
    free(f);
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        size_t c = cx->sel->hl[i];
        pr(o, "\n\n");
        num(o, rep_mean_over_traces(d, c, REP_M_P99));
        num(o, rep_mean_over_traces(d, c, REP_M_FALSE_ALLOW) * 100.0);
        pr(o, " \"%s\"", d->configs[c].name);
        num(o, half_all(d, c, REP_M_P99, 1.0));
        num(o, half_all(d, c, REP_M_FALSE_ALLOW, 100.0));
        pr(o, "\n");
    }
}

/* ---- availability against loss ---------------------------------------------------- */

static void loss_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "# loss_pct availability diff_pp ci_low_pp ci_high_pp half (one block per configuration, summary order;"
          " diff: paired difference from the baseline in percentage points, 95 %% interval; half: its half-width"
          " as a fraction, drawn around the availability)\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        pr(o, "%s# %s\n", c > 0 ? "\n\n" : "", d->configs[c].name);
        for (size_t i = 0; i < cx->n_idx; i++) {
            const rep_stat_t *s = rep_stat(d, c, cx->idx[i], REP_M_AVAILABILITY);
            num(o, d->traces[cx->idx[i]].loss_p * 100.0);
            num(o, s->has ? s->mean : NAN);
            /* paired difference from the baseline, percentage points, and its 95 % interval */
            num(o, s->has_diff ? s->diff_mean * 100.0 : NAN);
            num(o, s->has_ci ? s->ci_low * 100.0 : NAN);
            num(o, s->has_ci ? s->ci_high * 100.0 : NAN);
            num(o, half(s, 1.0));
            pr(o, "\n");
        }
    }
}

static void loss_body(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "set multiplot layout 1,2\nset xlabel 'Bernoulli loss rate on every link (%%)'\n"
          "set offsets graph 0.03, graph 0.03, 0, 0\nset format y '%%g'\nset key bottom left box opaque font ',10'\n");
    /* left: every configuration's availability; right: the highlighted ones' paired difference from the
     * baseline with its 95 %% interval (a zoom that shows what the eye cannot separate on the left) */
    pr(o, "set title 'availability, every configuration (bars: paired 95 %% interval from the baseline)'\n"
          "set ylabel 'availability (decided / submitted)'\n"
          "set autoscale y\nplot ");
    bool first = true, grey_titled = false;
    for (size_t c = 0; c < d->n_configs; c++) {
        if (is_hl(cx->sel, c))
            continue;
        pr(o, "%s'availability_loss.dat' index %zu using 1:2 with lines lw 1 lc rgb '" GREY "' %s",
           first ? "" : ", \\\n     ", c, grey_titled ? "notitle" : "title 'other configurations'");
        first = false;
        grey_titled = true;
    }
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        pr(o, "%s'availability_loss.dat' index %zu using 1:2:6 with yerrorlines lw 2 pt %zu ps 1.2 lc rgb '%s' ",
           first ? "" : ", \\\n     ", cx->sel->hl[i], (i % 12) + 1, colours[i % 16]);
        hl_title(o, cx, i);
        first = false;
    }
    pr(o, "\nset title 'difference from the baseline (%s), paired 95 %% intervals'\n"
          "set ylabel 'availability difference (percentage points)'\nset key top left box opaque font ',9'\n"
          "set xzeroaxis lt -1 lw 1\nplot ", d->configs[d->baseline_idx].name);
    first = true;
    size_t k = 0, n_other = cx->sel->n_hl > 0 ? cx->sel->n_hl - 1 : 0;
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        if (cx->sel->hl[i] == d->baseline_idx)
            continue;
        double shift = ((double)k - (double)(n_other - 1) / 2.0) * 0.35; /* side by side at each loss rate */
        pr(o, "%s'availability_loss.dat' index %zu using ($1%+.3f):3:4:5 with yerrorlines lw 1.5 pt %zu ps 1 "
              "lc rgb '%s' ",
           first ? "" : ", \\\n     ", cx->sel->hl[i], shift, (i % 12) + 1, colours[i % 16]);
        hl_title(o, cx, i);
        first = false;
        k++;
    }
    if (first)
        pr(o, "0 notitle");
    pr(o, "\nunset multiplot\n");
}

/* ---- over-consumption -------------------------------------------------------------- */

static void oc_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "# N_jittered H_ms overconsumed_tokens name half (index 0: every configuration with a policy; 1..: highlighted;"
          " half: of the paired 95 %% interval of the difference from the baseline over the traces)\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        if (!d->configs[c].has_policy)
            continue;
        num(o, (double)d->configs[c].policy.replay_count + (double)((int)(c % 7) - 3) * 0.05);
        num(o, (double)d->configs[c].horizon_ms);
        num(o, rep_mean_over_traces(d, c, REP_M_OVERCONSUMED));
        pr(o, " \"%s\"", d->configs[c].name);
        num(o, half_all(d, c, REP_M_OVERCONSUMED, 1.0));
        pr(o, "\n");
    }
    pr(o, "NaN NaN NaN \"\" NaN\n");
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        size_t c = cx->sel->hl[i];
        pr(o, "\n\n");
        if (d->configs[c].has_policy) {
            num(o, (double)d->configs[c].policy.replay_count + (double)((int)(c % 7) - 3) * 0.05);
            num(o, (double)d->configs[c].horizon_ms);
        } else {
            pr(o, " NaN NaN");
        }
        num(o, rep_mean_over_traces(d, c, REP_M_OVERCONSUMED));
        pr(o, " \"%s\"", d->configs[c].name);
        num(o, half_all(d, c, REP_M_OVERCONSUMED, 1.0));
        pr(o, "\n");
    }
}

static void oc_body(pout_t *o, const ctx_t *cx)
{
    pr(o, "set multiplot layout 1,2\nset ylabel 'over-consumed tokens per run, mean over traces'\n"
          "set key top right box opaque font ',10'\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n");
    for (int panel = 0; panel < 2; panel++) {
        int xcol = panel == 0 ? 1 : 2;
        pr(o, "set title '%s (bars: paired 95 %% interval from the baseline)'\nset xlabel '%s'\n%s",
           panel == 0 ? "against the replay count N" : "against the dedup TTL",
           panel == 0 ? "replay count N (replays after the first send)" : "dedup TTL = horizon H (ms)",
           panel == 0 ? "set xtics 1\nset xrange [-0.5:*]\n" : "set xtics autofreq\nset xrange [0:*]\n");
        pr(o, "plot 'overconsumption.dat' index 0 using %d:3:5 with yerrorbars pt 6 ps 1.1 lc rgb '" GREY "' "
              "title 'configuration'",
           xcol);
        for (size_t i = 0; i < cx->sel->n_hl; i++) {
            pr(o, ", \\\n     '' index %zu using %d:3:5 with yerrorbars pt %zu ps 1.6 lw 1.5 lc rgb '%s' ", i + 1, xcol,
               (i % 12) + 1, colours[i % 16]);
            if (panel == 0)
                hl_title(o, cx, i);
            else
                pr(o, "notitle");
        }
        pr(o, "\n");
    }
    pr(o, "unset multiplot\n");
}

/* ---- extra datagrams ----------------------------------------------------------------- */

static void extra_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "# x name extra_datagrams_per_request colour half (half: of the paired 95 %% interval of the difference from"
          " the baseline over the traces)\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        const char *col = GREY;
        for (size_t i = 0; i < cx->sel->n_hl; i++) {
            if (cx->sel->hl[i] == c)
                col = colours[i % 16];
        }
        pr(o, "%zu \"%s\"", c, d->configs[c].name);
        num(o, rep_mean_over_traces(d, c, REP_M_EXTRA));
        pr(o, " 0x%s", col + 1);
        num(o, half_all(d, c, REP_M_EXTRA, 1.0));
        pr(o, "\n");
    }
}

static void extra_body(pout_t *o, const ctx_t *cx)
{
    pr(o, "set ylabel 'extra datagrams per request, mean over traces'\n"
          "set xlabel 'configuration (coloured: highlighted; bars: paired 95 %% interval from the baseline)'\n"
          "set xtics rotate by 90 right font ',9' nomirror\nset boxwidth 0.8\nset style fill solid 0.85 border -1\n"
          "set xrange [-1:%zu]\nset yrange [0:*]\nset grid noxtics ytics\n"
          "plot 'extra_datagrams.dat' using 1:3:4:xtic(2) with boxes lc rgb variable notitle, \\\n"
          "     '' using 1:3:5 with yerrorbars pt -1 lw 1.5 lc rgb '#000000' notitle\n",
       cx->d->n_configs);
}

/* ---- convergence ------------------------------------------------------------------- */

static void conv_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    pr(o, "# trace, then per highlighted configuration its mean and the half-width of the paired 95 %% interval of"
          " its difference from the baseline:");
    for (size_t i = 0; i < cx->sel->n_hl; i++)
        pr(o, " %s half", d->configs[cx->sel->hl[i]].name);
    pr(o, "\n");
    for (size_t k = 0; k < cx->n_idx; k++) {
        pr(o, "%s", d->traces[cx->idx[k]].name);
        for (size_t i = 0; i < cx->sel->n_hl; i++) {
            const rep_stat_t *s = rep_stat(d, cx->sel->hl[i], cx->idx[k], REP_M_CONVERGENCE);
            num(o, s->has ? s->mean : NAN);
            num(o, half(s, 1.0));
        }
        pr(o, "\n");
    }
}

static void conv_body(pout_t *o, const ctx_t *cx)
{
    double top = 0.0;
    for (size_t k = 0; k < cx->n_idx; k++) {
        for (size_t i = 0; i < cx->sel->n_hl; i++) {
            const rep_stat_t *s = rep_stat(cx->d, cx->sel->hl[i], cx->idx[k], REP_M_CONVERGENCE);
            double h = half(s, 1.0);
            if (s->has && s->mean + (isnan(h) ? 0.0 : h) > top)
                top = s->mean + (isnan(h) ? 0.0 : h);
        }
    }
    pr(o, "set ylabel 'convergence time after the last fault, mean over seeds (ms)'\n"
          "set xlabel 'fault trace (bars: paired 95 %% interval of the difference from the baseline)'\n"
          "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
          "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:%.9g]\nset grid noxtics ytics\n"
          "set key outside right top box opaque\nset xtics font ',10'\nplot ",
       top > 0.0 ? top * 1.15 : 1.0);
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        pr(o, "%s'convergence.dat' using %zu:%zu:xtic(1) lc rgb '%s' ", i > 0 ? ", \\\n     " : "", 2 * i + 2,
           2 * i + 3, colours[i % 16]);
        hl_title(o, cx, i);
    }
    pr(o, "\n");
}

/* ---- latency against U -------------------------------------------------------------- */

static size_t family_label_member(const ctx_t *cx, size_t first)
{
    for (size_t i = 0; i < cx->sel->n_hl; i++) {
        if (rep_same_but_unit(&cx->d->configs[first], &cx->d->configs[cx->sel->hl[i]]))
            return cx->sel->hl[i];
    }
    return first;
}

static void lu_data(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    size_t fam[REP_MAX_HIGHLIGHT];
    size_t nfam = rep_u_families(d, fam, REP_MAX_HIGHLIGHT);
    size_t *mem = malloc(d->n_configs * sizeof *mem);
    if (mem == NULL) {
        o->bad = true;
        return;
    }
    pr(o, "# U_ms p50_ms p99_ms oldest_selected name p50_half p99_half oldest_half (block = trace x family: "
          "trace-major; half: of the paired 95 %% interval of the difference from the baseline)\n");
    bool first = true;
    for (size_t t = 0; t < cx->n_idx; t++) {
        for (size_t f = 0; f < nfam; f++) {
            pr(o, "%s# %s, U x %s\n", first ? "" : "\n\n", d->traces[cx->idx[t]].name,
               d->configs[family_label_member(cx, fam[f])].name);
            first = false;
            size_t nm = rep_u_family(d, fam[f], mem);
            for (size_t k = 0; k < nm; k++) {
                const rep_stat_t *a = rep_stat(d, mem[k], cx->idx[t], REP_M_P50);
                const rep_stat_t *b = rep_stat(d, mem[k], cx->idx[t], REP_M_P99);
                const rep_stat_t *c = rep_stat(d, mem[k], cx->idx[t], REP_M_OLDEST);
                num(o, (double)d->configs[mem[k]].policy.unit_ms);
                num(o, a->has ? a->mean : NAN);
                num(o, b->has ? b->mean : NAN);
                num(o, c->has ? c->mean : NAN);
                pr(o, " \"%s\"", d->configs[mem[k]].name);
                num(o, half(a, 1.0));
                num(o, half(b, 1.0));
                num(o, half(c, 1.0));
                pr(o, "\n");
            }
        }
    }
    free(mem);
}

static void lu_body(pout_t *o, const ctx_t *cx)
{
    const rep_data_t *d = cx->d;
    size_t fam[REP_MAX_HIGHLIGHT];
    size_t nfam = rep_u_families(d, fam, REP_MAX_HIGHLIGHT);
    pr(o, "set multiplot layout 1,%zu\nset logscale xy\nset xlabel 'U (ms, log scale)'\n"
          "set ylabel 'decision latency, mean over seeds (ms, log scale)'\nset y2label 'oldest server selected (fraction)'\n"
          "set y2range [0:1.05]\nset y2tics 0.2\nset ytics nomirror\nset key outside below maxrows 3 box font ',9'\nset bmargin 9\n",
       cx->n_idx);
    /* Families that share values (the same U on the same trace) would hide each other: each family is
     * drawn at U times its own factor (side by side on the log axis), with its own point shapes. */
    static const int pt_p99[] = {7, 5, 9, 11, 13, 15}, pt_p50[] = {6, 4, 8, 10, 12, 14}, pt_old[] = {1, 2, 3, 12, 10, 8};
    for (size_t t = 0; t < cx->n_idx; t++) {
        pr(o, "set title '%s (families side by side: U x %s)'\nplot ", d->traces[cx->idx[t]].name,
           nfam > 1 ? "0.94 .. 1.06" : "1");
        for (size_t f = 0; f < nfam; f++) {
            size_t blk = t * nfam + f;
            const char *col = colours[f % 16];
            const char *nm = d->configs[family_label_member(cx, fam[f])].name;
            double k = nfam > 1 ? 1.0 + 0.12 * ((double)f / (double)(nfam - 1) - 0.5) : 1.0;
            pr(o, "%s'latency_u.dat' index %zu using ($1*%.4f):3:7 with yerrorlines lw 2 pt %d lc rgb '%s' title 'U x %s: p99', \\\n"
                  "     '' index %zu using ($1*%.4f):2:6 with yerrorlines lw 1.5 dt 2 pt %d lc rgb '%s' title 'U x %s: p50', \\\n"
                  "     '' index %zu using ($1*%.4f):4:8 axes x1y2 with yerrorlines lw 1 dt 3 pt %d lc rgb '%s' "
                  "title 'U x %s: oldest selected'",
               f > 0 ? ", \\\n     " : "", blk, k, pt_p99[f % 6], col, nm, blk, k, pt_p50[f % 6], col, nm, blk, k,
               pt_old[f % 6], col, nm);
        }
        pr(o, "\n");
    }
    pr(o, "unset multiplot\n");
}

/* ---- driver ------------------------------------------------------------------------ */

static int write_data(const char *dir, const char *name, void (*data)(pout_t *, const ctx_t *), const ctx_t *cx,
                      char *err, size_t cap)
{
    char path[4200];
    pout_t o;
    if (open_out(dir, name, "dat", &o, path, sizeof path, err, cap) != 0)
        return -1;
    data(&o, cx);
    return close_out(&o, path, err, cap);
}

int rep_plots_write(const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel, const char **names,
                    size_t *n, char *err, size_t cap)
{
    size_t *lt = malloc((d->n_traces + 1) * sizeof *lt), *ft = malloc((d->n_traces + 1) * sizeof *ft),
           *et = malloc((d->n_traces + 1) * sizeof *et);
    int rc = 0;
    *n = 0;
    if (lt == NULL || ft == NULL || et == NULL)
        rc = rep_fail(err, cap, "out of memory");
    size_t fam[REP_MAX_HIGHLIGHT];
    size_t nl = rc == 0 ? rep_loss_traces(d, lt) : 0, nf = rc == 0 ? rep_fault_traces(d, ft) : 0,
           ne = rc == 0 ? rep_empirical_traces(d, et) : 0, nfam = rep_u_families(d, fam, REP_MAX_HIGHLIGHT);
    bool policies = false;
    for (size_t c = 0; c < d->n_configs; c++)
        policies = policies || d->configs[c].has_policy;
    struct {
        const char *name, *title;
        int w, h;
        bool on;
        const size_t *idx;
        size_t n_idx;
        void (*data)(pout_t *, const ctx_t *);
        body_fn body;
    } plots[] = {
        {"pareto", "p99 decision latency against false-allow rate", 1100, 700, true, NULL, 0, pareto_data, pareto_body},
        {"availability_loss", "Availability against loss rate", 1400, 650, nl > 0, lt, nl, loss_data, loss_body},
        {"overconsumption", "Over-consumed tokens against replay count and dedup TTL", 1300, 600, policies, NULL, 0,
         oc_data, oc_body},
        {"extra_datagrams", "Extra datagrams per request (replays + completion sends)", 1400, 650, true, NULL, 0,
         extra_data, extra_body},
        {"convergence", "Convergence time per fault trace", 1100, 600, nf > 0, ft, nf, conv_data, conv_body},
        {"latency_u", "Decision latency against U on measured round trips", ne > 1 ? 1500 : 900, 800,
         ne > 0 && nfam > 0, et, ne, lu_data, lu_body},
    };
    for (size_t i = 0; rc == 0 && i < sizeof plots / sizeof plots[0]; i++) {
        if (!plots[i].on)
            continue;
        ctx_t cx = {d, sel, plots[i].idx, plots[i].n_idx};
        rc = write_data(opt->out_dir, plots[i].name, plots[i].data, &cx, err, cap);
        if (rc == 0)
            rc = write_script(opt->out_dir, plots[i].name, plots[i].title, plots[i].w, plots[i].h, plots[i].body,
                              &cx, err, cap);
        if (rc == 0)
            names[(*n)++] = plots[i].name;
    }
    free(lt);
    free(ft);
    free(et);
    return rc;
}
