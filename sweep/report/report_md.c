/* SPDX-License-Identifier: MIT */
/* report_md.c - report.md (overview, plots, aggregated tables, the
 * configurations) and tables.md (per trace: the summary of every
 * configuration and its paired difference from the baseline). Every table
 * row carries an HTML anchor so a claim can point at it:
 *   all-<config>          overview row (means over traces)
 *   loss-<config>         availability per loss rate
 *   oc-<config>           over-consumption, N and dedup TTL
 *   conv-<config>         convergence per fault trace
 *   u-<config>            latency against U on the empirical traces
 *   cfg-<config>          the configuration's policy fields
 *   t-<trace>--<config>   per-trace summary row (tables.md)
 *   d-<trace>--<config>   per-trace paired difference row (tables.md)
 *   trace-<trace>         a trace's section (tables.md) */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

/* ---- number formatting ------------------------------------------------- */

typedef enum { F_AVAIL, F_MS, F_PCT, F_TOKENS, F_EXTRA, F_CONV, F_RATE, F_COUNT } fmt_t;

/* Decimal places of each format. */
static int fmt_prec(fmt_t f)
{
    switch (f) {
    case F_AVAIL: return 4;
    case F_MS: return 2;
    case F_PCT: return 3;
    case F_TOKENS: return 2;
    case F_EXTRA: return 3;
    case F_CONV: return 1;
    case F_RATE: return 3;
    case F_COUNT: return 1;
    }
    return 3;
}

static double scale(fmt_t f, double v)
{
    return f == F_PCT ? v * 100.0 : v;
}

/* "n/a" for NaN; otherwise the value in its format, "-0.00" written as "0.00". */
static void fmt_value(char *buf, size_t cap, fmt_t f, double v, bool sign)
{
    if (isnan(v)) {
        (void)snprintf(buf, cap, "n/a");
        return;
    }
    if (sign)
        (void)snprintf(buf, cap, "%+.*f", fmt_prec(f), scale(f, v));
    else
        (void)snprintf(buf, cap, "%.*f", fmt_prec(f), scale(f, v));
    /* no negative zero: "-0.000" -> "0.000", "+0.000" -> "0.000" */
    const char *p = buf + ((buf[0] == '-' || buf[0] == '+') ? 1 : 0);
    bool zero = true;
    for (const char *q = p; *q != '\0' && zero; q++)
        zero = *q == '0' || *q == '.';
    if (zero && p != buf)
        memmove(buf, p, strlen(p) + 1);
}

static void fmt_stat(char *buf, size_t cap, fmt_t f, const rep_stat_t *s)
{
    fmt_value(buf, cap, f, s->has ? s->mean : NAN, false);
}

/* "+0.0012 [+0.0005, +0.0019]", bold when the interval excludes 0. */
static void fmt_diff(char *buf, size_t cap, fmt_t f, const rep_stat_t *s)
{
    char m[48], lo[48], hi[48];
    if (!s->has_diff) {
        (void)snprintf(buf, cap, "n/a");
        return;
    }
    fmt_value(m, sizeof m, f, s->diff_mean, true);
    if (!s->has_ci) {
        (void)snprintf(buf, cap, "%s", m);
        return;
    }
    fmt_value(lo, sizeof lo, f, s->ci_low, true);
    fmt_value(hi, sizeof hi, f, s->ci_high, true);
    bool sig = s->ci_low > 0.0 || s->ci_high < 0.0;
    (void)snprintf(buf, cap, "%s%s [%s, %s]%s", sig ? "**" : "", m, lo, hi, sig ? "**" : "");
}

/* ---- output with error tracking ---------------------------------------- */

typedef struct {
    FILE *f;
    bool bad;
} out_t;

__attribute__((format(printf, 2, 3))) static void out(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(o->f, fmt, ap) < 0)
        o->bad = true;
    va_end(ap);
}

/* ---- the columns of a summary table -------------------------------------- */

typedef struct {
    rep_metric_t m;
    fmt_t f;
    const char *head;
} col_t;

static const col_t summary_cols[] = {
    {REP_M_AVAILABILITY, F_AVAIL, "availability"},
    {REP_M_P50, F_MS, "p50 latency (ms)"},
    {REP_M_P99, F_MS, "p99 latency (ms)"},
    {REP_M_FALSE_ALLOW, F_PCT, "false allows (%)"},
    {REP_M_FALSE_DENY, F_PCT, "false denies (%)"},
    {REP_M_OVERCONSUMED, F_TOKENS, "over-consumed tokens"},
    {REP_M_EXTRA, F_EXTRA, "extra datagrams / request"},
    {REP_M_CONVERGENCE, F_CONV, "convergence (ms)"},
    {REP_M_OLDEST, F_RATE, "oldest selected"},
};
#define N_SUMMARY_COLS (sizeof summary_cols / sizeof summary_cols[0])

static const col_t diff_cols[] = {
    {REP_M_AVAILABILITY, F_AVAIL, "Δ availability"},
    {REP_M_P99, F_MS, "Δ p99 latency (ms)"},
    {REP_M_FALSE_ALLOW, F_PCT, "Δ false allows (%)"},
    {REP_M_OVERCONSUMED, F_TOKENS, "Δ over-consumed tokens"},
    {REP_M_EXTRA, F_EXTRA, "Δ extra datagrams / request"},
};
#define N_DIFF_COLS (sizeof diff_cols / sizeof diff_cols[0])

static void table_head(out_t *o, const char *first, const col_t *cols, size_t n, const char *last)
{
    out(o, "| %s |", first);
    for (size_t i = 0; i < n; i++)
        out(o, " %s |", cols[i].head);
    if (last != NULL)
        out(o, " %s |", last);
    out(o, "\n|---|");
    for (size_t i = 0; i < n + (last != NULL ? 1u : 0u); i++)
        out(o, "---:|");
    out(o, "\n");
}

/* ---- policy text ----------------------------------------------------------- */

/* "1, 2, 4" : the schedule's per-round values in units of U. */
static void fmt_rounds(char *buf, size_t cap, const uint32_t *ms, uint32_t rounds, uint32_t unit)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < rounds && used < cap; k++) {
        int w = snprintf(buf + used, cap - used, "%s%u", k > 0 ? ", " : "", unit > 0 ? ms[k] / unit : 0u);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- report.md sections -------------------------------------------------- */

static void header(out_t *o, const rep_data_t *d, const char *title)
{
    out(o, "# %s: `%s`\n\n", title, d->sweep);
    if (d->description[0] != '\0')
        out(o, "%s\n\n", d->description);
}

static void facts(out_t *o, const rep_data_t *d)
{
    uint64_t runs = (uint64_t)d->n_configs * d->n_traces * d->n_seeds;
    out(o, "| sweep | value |\n|---|---|\n");
    out(o, "| configurations | %zu |\n| traces | %zu |\n| seeds per configuration and trace | %llu |\n",
        d->n_configs, d->n_traces, (unsigned long long)d->n_seeds);
    out(o, "| runs | %llu (%llu failed) |\n", (unsigned long long)runs, (unsigned long long)d->n_errors);
    out(o, "| baseline | `%s` |\n", d->baseline);
    if (d->hash[0] != '\0')
        out(o, "| sweep hash | `%s` |\n", d->hash);
    if (d->build_id[0] != '\0')
        out(o, "| build id | `%s` |\n", d->build_id);
    out(o, "\n");
}

static void copy_notes(out_t *o, const char *path, char *err, size_t cap, int *rc)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *rc = rep_fail(err, cap, "%s: %s", path, strerror(errno));
        return;
    }
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (fwrite(buf, 1, n, o->f) != n)
            o->bad = true;
    }
    if (ferror(f))
        *rc = rep_fail(err, cap, "%s: read error", path);
    (void)fclose(f);
    out(o, "\n");
}

static void plot_ref(out_t *o, const rep_result_t *res, const char *name, const char *alt)
{
    out(o, "![%s](%s.svg)\n\n", alt, name);
    if (res->gnuplot_missing)
        out(o, "(Not drawn: gnuplot was not found. Run `gnuplot %s.gp` in this directory.)\n\n", name);
    else
        out(o, "PNG: [%s.png](%s.png) · data: [%s.dat](%s.dat) · script: [%s.gp](%s.gp)\n\n", name, name, name,
            name, name, name);
}

static void names_list(out_t *o, const rep_data_t *d, const bool *flags)
{
    bool first = true;
    for (size_t c = 0; c < d->n_configs; c++) {
        if (!flags[c])
            continue;
        out(o, "%s[`%s`](#all-%s)", first ? "" : ", ", d->configs[c].name, d->configs[c].name);
        first = false;
    }
    if (first)
        out(o, "none");
}

static void names_list_group(out_t *o, const rep_data_t *d, const bool *flags, const char *group)
{
    bool first = true;
    for (size_t c = 0; c < d->n_configs; c++) {
        if (!flags[c])
            continue;
        out(o, "%s[`%s`](#g-%s-%s)", first ? "" : ", ", d->configs[c].name, group, d->configs[c].name);
        first = false;
    }
    if (first)
        out(o, "none");
}

static void section_pareto(out_t *o, const rep_data_t *d, const rep_sel_t *sel, const rep_result_t *res)
{
    out(o, "## <a id=\"pareto\"></a>p99 decision latency against false-allow rate\n\n");
    plot_ref(o, res, "pareto", "p99 decision latency against false-allow rate, Pareto front marked");
    out(o, "Each configuration's means over seeds, averaged over the %zu traces (equal weight). "
           "Both are minimised; the Pareto front is the set of configurations no other one beats on both. "
           "On the front: ", d->n_traces);
    names_list(o, d, sel->front_all);
    out(o, ". The baseline `%s` is %s ([row](#all-%s)).\n\n", d->baseline,
        sel->front_all[d->baseline_idx] ? "on the front" : "not on the front", d->baseline);
    static const col_t cols[] = {
        {REP_M_P99, F_MS, "p99 latency (ms)"},
        {REP_M_FALSE_ALLOW, F_PCT, "false allows (%)"},
        {REP_M_FALSE_DENY, F_PCT, "false denies (%)"},
        {REP_M_AVAILABILITY, F_AVAIL, "availability"},
        {REP_M_OVERCONSUMED, F_TOKENS, "over-consumed tokens"},
        {REP_M_EXTRA, F_EXTRA, "extra datagrams / request"},
    };
    /* the paired differences from the baseline averaged over the traces, with their intervals */
    static const col_t dcols[] = {
        {REP_M_P99, F_MS, "Δ p99 (ms) [95 %]"},
        {REP_M_FALSE_ALLOW, F_PCT, "Δ false allows (%) [95 %]"},
        {REP_M_FALSE_DENY, F_PCT, "Δ false denies (%) [95 %]"},
        {REP_M_AVAILABILITY, F_AVAIL, "Δ availability [95 %]"},
    };
    size_t n_dc = sizeof dcols / sizeof dcols[0], n_cmp = 0, n_sig = 0;
    for (size_t c = 0; c < d->n_configs; c++) {
        for (size_t i = 0; c != d->baseline_idx && i < n_dc; i++) {
            double m, h;
            if (rep_diff_over(d, c, dcols[i].m, NULL, 0, &m, &h) && !isnan(h)) {
                n_cmp++;
                n_sig += m - h > 0.0 || m + h < 0.0;
            }
        }
    }
    out(o, "The Δ columns are each configuration's paired difference from the baseline `%s` (same seeds), "
           "averaged over the traces, with a 95 %% interval whose half-width is the mean of the traces' "
           "half-widths: the standard deviation of a mean over traces is at most the mean of their standard "
           "deviations whatever their correlation, so the interval is conservative; bold: it excludes 0. "
           "%zu such intervals are given (configurations other than the baseline x %zu metrics), %zu of them "
           "exclude 0. At 95 %% each, about %.1f of the %zu intervals are expected to miss the true difference by "
           "chance alone, so one interval that barely excludes 0 among many is weak evidence; a claim read "
           "from several of them holds at the 95 %% level for all of them together only at 1 - 0.05/%zu each "
           "(Bonferroni), as [worlds.md](worlds.md#worlds) counts for the worlds sweep.\n\n",
        d->baseline, n_cmp, n_dc, n_sig, 0.05 * (double)n_cmp, n_cmp, n_cmp);
    out(o, "| configuration (means over traces) |");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        out(o, " %s |", cols[i].head);
    for (size_t i = 0; i < n_dc; i++)
        out(o, " %s |", dcols[i].head);
    out(o, " Pareto front |\n|---|");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0] + n_dc + 1; i++)
        out(o, "---:|");
    out(o, "\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        out(o, "| <a id=\"all-%s\"></a>`%s` |", d->configs[c].name, d->configs[c].name);
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
            char b[48];
            fmt_value(b, sizeof b, cols[i].f, rep_mean_over_traces(d, c, cols[i].m), false);
            out(o, " %s |", b);
        }
        for (size_t i = 0; i < n_dc; i++) {
            char b[160];
            rep_stat_t s;
            memset(&s, 0, sizeof s);
            double m, h;
            s.has_diff = rep_diff_over(d, c, dcols[i].m, NULL, 0, &m, &h);
            s.diff_mean = m;
            s.has_ci = s.has_diff && !isnan(h);
            s.ci_low = m - h;
            s.ci_high = m + h;
            if (c == d->baseline_idx)
                (void)snprintf(b, sizeof b, "baseline");
            else
                fmt_diff(b, sizeof b, dcols[i].f, &s);
            out(o, " %s |", b);
        }
        out(o, " %s |\n", sel->front_all[c] ? "yes" : "");
    }
    out(o, "\n");
}

static void section_groups(out_t *o, const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel)
{
    if (opt->n_groups == 0)
        return;
    out(o, "## <a id=\"groups\"></a>Deployment groups\n\n");
    out(o, "The same means over seeds, averaged over each group's traces only, with the group's own Pareto front "
           "of p99 latency against false-allow rate, and the lowest availability of any trace of the group.\n\n");
    static const col_t cols[] = {
        {REP_M_P99, F_MS, "p99 latency (ms)"},
        {REP_M_FALSE_ALLOW, F_PCT, "false allows (%)"},
        {REP_M_FALSE_DENY, F_PCT, "false denies (%)"},
        {REP_M_AVAILABILITY, F_AVAIL, "availability"},
        {REP_M_OVERCONSUMED, F_TOKENS, "over-consumed tokens"},
        {REP_M_EXTRA, F_EXTRA, "extra datagrams / request"},
    };
    for (size_t g = 0; g < opt->n_groups; g++) {
        const rep_group_t *gr = &opt->groups[g];
        const size_t *ti = sel->group_traces[g];
        out(o, "### <a id=\"group-%s\"></a>%s\n\nTraces:", gr->name, gr->name);
        for (size_t i = 0; i < gr->n_traces; i++)
            out(o, "%s [%s](tables.md#trace-%s)", i > 0 ? "," : "", d->traces[ti[i]].name, d->traces[ti[i]].name);
        out(o, ". On the front: ");
        names_list_group(o, d, &sel->front_group[g * d->n_configs], gr->name);
        out(o, ". The baseline `%s` is %s ([row](#g-%s-%s)).\n\n", d->baseline,
            sel->front_group[g * d->n_configs + d->baseline_idx] ? "on the front" : "not on the front", gr->name,
            d->baseline);
        out(o, "| configuration (means over the group) |");
        for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
            out(o, " %s |", cols[i].head);
        out(o, " lowest availability | Pareto front |\n|---|");
        for (size_t i = 0; i < sizeof cols / sizeof cols[0] + 2; i++)
            out(o, "---:|");
        out(o, "\n");
        for (size_t c = 0; c < d->n_configs; c++) {
            out(o, "| <a id=\"g-%s-%s\"></a>`%s` |", gr->name, d->configs[c].name, d->configs[c].name);
            double lo = NAN;
            for (size_t i = 0; i < gr->n_traces; i++) {
                const rep_stat_t *s = rep_stat(d, c, ti[i], REP_M_AVAILABILITY);
                if (s->has && (isnan(lo) || s->mean < lo))
                    lo = s->mean;
            }
            for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
                char b[48];
                fmt_value(b, sizeof b, cols[i].f, rep_mean_over(d, c, cols[i].m, ti, gr->n_traces), false);
                out(o, " %s |", b);
            }
            char b[48];
            fmt_value(b, sizeof b, F_AVAIL, lo, false);
            out(o, " %s | %s |\n", b, sel->front_group[g * d->n_configs + c] ? "yes" : "");
        }
        out(o, "\n");
    }
}

/* The rest of a table whose header row (up to its last column title) is
 * written: the separator row, then one row per configuration, anchored
 * "<anchor>-<name>", with metric m of each trace in cols formatted as f. */
static void config_by_trace_rows(out_t *o, const rep_data_t *d, const char *anchor, const size_t *cols, size_t ncols,
                                 fmt_t f, rep_metric_t m)
{
    out(o, "\n|---|");
    for (size_t i = 0; i < ncols; i++)
        out(o, "---:|");
    out(o, "\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        out(o, "| <a id=\"%s-%s\"></a>`%s` |", anchor, d->configs[c].name, d->configs[c].name);
        for (size_t i = 0; i < ncols; i++) {
            char b[48];
            fmt_stat(b, sizeof b, f, rep_stat(d, c, cols[i], m));
            out(o, " %s |", b);
        }
        out(o, "\n");
    }
    out(o, "\n");
}

static void section_loss(out_t *o, const rep_data_t *d, const rep_result_t *res, const size_t *lt, size_t nl)
{
    out(o, "## <a id=\"loss\"></a>Availability against loss rate\n\n");
    if (nl == 0) {
        out(o, "No trace with a Bernoulli loss rate (a `vary` axis on `links.default.loss.loss_p`).\n\n");
        return;
    }
    plot_ref(o, res, "availability_loss", "availability against loss rate");
    out(o, "Availability (decided / submitted, mean over seeds) on the Bernoulli loss variants.\n\n| configuration |");
    for (size_t i = 0; i < nl; i++)
        out(o, " [%s](tables.md#trace-%s) (loss %g %%) |", d->traces[lt[i]].name, d->traces[lt[i]].name,
            d->traces[lt[i]].loss_p * 100.0);
    config_by_trace_rows(o, d, "loss", lt, nl, F_AVAIL, REP_M_AVAILABILITY);
}

static void section_overconsumption(out_t *o, const rep_data_t *d, const rep_result_t *res)
{
    out(o, "## <a id=\"overconsumption\"></a>Over-consumption against replay count and dedup TTL\n\n");
    plot_ref(o, res, "overconsumption", "over-consumed tokens against replay count and dedup TTL");
    out(o, "Over-consumed tokens per run (tokens allowed beyond a bucket's limit, docs/traces.md "
           "\"Over-consumption\"), mean over seeds, averaged over the traces, and the worst trace. "
           "The dedup TTL a request carries is its horizon H = U × (ΣB(k) + F) (r-client.md 9.3.1).\n\n");
    out(o, "| configuration | N (replays) | dedup TTL H (ms) | over-consumed tokens (mean over traces) | "
           "worst trace | over-consumed tokens there |\n|---|---:|---:|---:|---|---:|\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        const rep_config_t *rc = &d->configs[c];
        char n[16] = "n/a", h[16] = "n/a", m[48], w[48];
        if (rc->has_policy) {
            (void)snprintf(n, sizeof n, "%u", rc->policy.replay_count);
            (void)snprintf(h, sizeof h, "%u", rc->horizon_ms);
        }
        fmt_value(m, sizeof m, F_TOKENS, rep_mean_over_traces(d, c, REP_M_OVERCONSUMED), false);
        size_t worst = d->n_traces;
        for (size_t t = 0; t < d->n_traces; t++) {
            const rep_stat_t *s = rep_stat(d, c, t, REP_M_OVERCONSUMED);
            if (s->has && (worst == d->n_traces || s->mean > rep_stat(d, c, worst, REP_M_OVERCONSUMED)->mean))
                worst = t;
        }
        if (worst < d->n_traces) {
            fmt_stat(w, sizeof w, F_TOKENS, rep_stat(d, c, worst, REP_M_OVERCONSUMED));
            out(o, "| <a id=\"oc-%s\"></a>`%s` | %s | %s | %s | [%s](tables.md#t-%s--%s) | %s |\n", rc->name, rc->name, n,
                h, m, d->traces[worst].name, d->traces[worst].name, rc->name, w);
        } else {
            out(o, "| <a id=\"oc-%s\"></a>`%s` | %s | %s | %s | n/a | n/a |\n", rc->name, rc->name, n, h, m);
        }
    }
    out(o, "\n");
}

static void section_datagrams(out_t *o, const rep_result_t *res)
{
    out(o, "## <a id=\"datagrams\"></a>Extra datagrams per request\n\n");
    plot_ref(o, res, "extra_datagrams", "extra datagrams per request");
    out(o, "Replays and completion sends per logical request ((replays_sent + completion_sends) / submitted, "
           "docs/sweep.md \"results.csv\"), averaged over the traces; the values are in the "
           "[overview table](#pareto) and per trace in [tables.md](tables.md).\n\n");
}

static void section_convergence(out_t *o, const rep_data_t *d, const rep_result_t *res, const size_t *ft, size_t nf)
{
    out(o, "## <a id=\"convergence\"></a>Convergence time per fault kind\n\n");
    if (nf == 0) {
        out(o, "No trace with a measured convergence time (every configuration 0 on every trace).\n\n");
        return;
    }
    plot_ref(o, res, "convergence", "convergence time per fault kind");
    out(o, "Time from a trace's last fault event to the last wrong or disagreed decision after it "
           "(`convergence_ms`, docs/traces.md \"Metrics\"), mean over seeds, on the traces where it is "
           "ever above 0.\n\n| configuration |");
    for (size_t i = 0; i < nf; i++)
        out(o, " [%s](tables.md#trace-%s) (ms) |", d->traces[ft[i]].name, d->traces[ft[i]].name);
    config_by_trace_rows(o, d, "conv", ft, nf, F_CONV, REP_M_CONVERGENCE);
}

static void section_latency_u(out_t *o, const rep_data_t *d, const rep_result_t *res, const size_t *et, size_t ne)
{
    out(o, "## <a id=\"latency-u\"></a>Decision latency against U on measured round trips\n\n");
    size_t fam[REP_MAX_HIGHLIGHT];
    size_t nfam = rep_u_families(d, fam, REP_MAX_HIGHLIGHT);
    if (ne == 0 || nfam == 0) {
        out(o, "Needs a trace whose name contains `empirical` and at least three configurations that differ "
               "only in U (manifest policies).\n\n");
        return;
    }
    plot_ref(o, res, "latency_u", "decision latency against U on the empirical round-trip traces");
    out(o, "Configurations that differ only in U (r-client.md 9.3.1), on the traces whose link latencies are "
           "drawn from round-trip samples (docs/traces.md \"latency\", kind `empirical`). Means over seeds.\n\n");
    out(o, "| configuration | U (ms) |");
    for (size_t i = 0; i < ne; i++)
        out(o, " %s p50 (ms) | %s p99 (ms) | %s oldest selected | %s false allows (%%) |", d->traces[et[i]].name,
            d->traces[et[i]].name, d->traces[et[i]].name, d->traces[et[i]].name);
    out(o, "\n|---|---:|");
    for (size_t i = 0; i < ne * 4; i++)
        out(o, "---:|");
    out(o, "\n");
    size_t *mem = malloc(d->n_configs * sizeof *mem);
    if (mem == NULL) {
        o->bad = true;
        return;
    }
    for (size_t f = 0; f < nfam; f++) {
        size_t nm = rep_u_family(d, fam[f], mem);
        for (size_t k = 0; k < nm; k++) {
            const rep_config_t *rc = &d->configs[mem[k]];
            out(o, "| <a id=\"u-%s\"></a>`%s` | %u |", rc->name, rc->name, rc->policy.unit_ms);
            for (size_t i = 0; i < ne; i++) {
                char a[48], b[48], c2[48], e[48];
                fmt_stat(a, sizeof a, F_MS, rep_stat(d, mem[k], et[i], REP_M_P50));
                fmt_stat(b, sizeof b, F_MS, rep_stat(d, mem[k], et[i], REP_M_P99));
                fmt_stat(c2, sizeof c2, F_RATE, rep_stat(d, mem[k], et[i], REP_M_OLDEST));
                fmt_stat(e, sizeof e, F_PCT, rep_stat(d, mem[k], et[i], REP_M_FALSE_ALLOW));
                out(o, " %s | %s | %s | %s |", a, b, c2, e);
            }
            out(o, "\n");
        }
    }
    free(mem);
    out(o, "\n");
}

static void section_configs(out_t *o, const rep_data_t *d)
{
    out(o, "## <a id=\"configurations\"></a>Configurations\n\n");
    out(o, "The policy fields of each configuration (r-client.md 9.3.1): B(k) and P(k) per transmission round in "
           "units of U, H the horizon and dedup TTL.\n\n");
    out(o, "| configuration | U (ms) | N | B(k) | P(k) | F | P_final | C | H (ms) |\n"
           "|---|---:|---:|---|---|---:|---:|---|---:|\n");
    for (size_t c = 0; c < d->n_configs; c++) {
        const rep_config_t *rc = &d->configs[c];
        r_policy_schedule_t s;
        const char *why = NULL;
        if (!rc->has_policy || r_client_policy_schedule(&rc->policy, UINT32_MAX, &s, &why) != RCLIENT_OK) {
            out(o, "| <a id=\"cfg-%s\"></a>`%s` | n/a | n/a | n/a | n/a | n/a | n/a | n/a | n/a |\n", rc->name,
                rc->name);
            continue;
        }
        char b[160], p[160];
        fmt_rounds(b, sizeof b, s.round_ms, s.rounds, rc->policy.unit_ms);
        fmt_rounds(p, sizeof p, s.preference_ms, s.rounds, rc->policy.unit_ms);
        out(o, "| <a id=\"cfg-%s\"></a>`%s` | %u | %u | %s | %s | %u | %u | %s | %u |\n", rc->name, rc->name,
            rc->policy.unit_ms, rc->policy.replay_count, b, p, rc->policy.final_receive_units,
            rc->policy.final_preference_units, rc->policy.completion_delivery ? "1" : "0", s.ttl_ms);
    }
    out(o, "\n");
}

static void write_report(out_t *o, const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel,
                         const rep_result_t *res, char *err, size_t cap, int *rc)
{
    size_t *lt = malloc((d->n_traces + 1) * sizeof *lt), *ft = malloc((d->n_traces + 1) * sizeof *ft),
           *et = malloc((d->n_traces + 1) * sizeof *et);
    if (lt == NULL || ft == NULL || et == NULL) {
        *rc = rep_fail(err, cap, "out of memory");
    } else {
        size_t nl = rep_loss_traces(d, lt), nf = rep_fault_traces(d, ft), ne = rep_empirical_traces(d, et);
        header(o, d, "HA policy sweep report");
        facts(o, d);
        out(o, "Per-trace tables (every configuration's summary and its paired difference from the baseline with "
               "95 %% confidence intervals): [tables.md](tables.md). Regenerate this report with "
               "`rl-testbed sweep report RESULTS_DIR --out DIR` (docs/sweep.md \"Report\").\n\n");
        if (opt->notes_path != NULL)
            copy_notes(o, opt->notes_path, err, cap, rc);
        out(o, "## Contents\n\n- [p99 decision latency against false-allow rate](#pareto)\n"
               "%s- [Availability against loss rate](#loss)\n"
               "- [Over-consumption against replay count and dedup TTL](#overconsumption)\n"
               "- [Extra datagrams per request](#datagrams)\n- [Convergence time per fault kind](#convergence)\n"
               "- [Decision latency against U on measured round trips](#latency-u)\n"
               "- [Configurations](#configurations)\n- [Per-trace tables](tables.md)\n\n",
            opt->n_groups > 0 ? "- [Deployment groups](#groups)\n" : "");
        section_pareto(o, d, sel, res);
        section_groups(o, d, opt, sel);
        section_loss(o, d, res, lt, nl);
        section_overconsumption(o, d, res);
        section_datagrams(o, res);
        section_convergence(o, d, res, ft, nf);
        section_latency_u(o, d, res, et, ne);
        section_configs(o, d);
    }
    free(lt);
    free(ft);
    free(et);
}

/* ---- tables.md -------------------------------------------------------------- */

static void write_tables(out_t *o, const rep_data_t *d, const rep_sel_t *sel)
{
    header(o, d, "HA policy sweep tables");
    out(o, "Back to the [report](report.md). For each trace: every configuration's means over %llu seeds, then "
           "its paired difference from the baseline `%s` on the same seeds (common random numbers): mean "
           "[95 %% confidence interval], in bold where the interval excludes 0 (docs/sweep.md \"Statistics\"). "
           "\"front\": on the trace's Pareto front of p99 latency against false-allow rate. "
           "Rates are percent of decided requests.\n\n",
        (unsigned long long)d->n_seeds, d->baseline);
    out(o, "Traces:");
    for (size_t t = 0; t < d->n_traces; t++)
        out(o, "%s [%s](#trace-%s)", t > 0 ? " ·" : "", d->traces[t].name, d->traces[t].name);
    out(o, "\n\n");
    for (size_t t = 0; t < d->n_traces; t++) {
        const char *tn = d->traces[t].name;
        out(o, "## <a id=\"trace-%s\"></a>%s\n\n", tn, tn);
        table_head(o, "configuration", summary_cols, N_SUMMARY_COLS, "front");
        for (size_t c = 0; c < d->n_configs; c++) {
            out(o, "| <a id=\"t-%s--%s\"></a>`%s` |", tn, d->configs[c].name, d->configs[c].name);
            for (size_t i = 0; i < N_SUMMARY_COLS; i++) {
                char b[48];
                fmt_stat(b, sizeof b, summary_cols[i].f, rep_stat(d, c, t, summary_cols[i].m));
                out(o, " %s |", b);
            }
            out(o, " %s |\n", sel->front_trace[c * d->n_traces + t] ? "yes" : "");
        }
        out(o, "\nPaired differences from `%s`:\n\n", d->baseline);
        table_head(o, "configuration", diff_cols, N_DIFF_COLS, NULL);
        for (size_t c = 0; c < d->n_configs; c++) {
            if (c == d->baseline_idx)
                continue;
            out(o, "| <a id=\"d-%s--%s\"></a>`%s` |", tn, d->configs[c].name, d->configs[c].name);
            for (size_t i = 0; i < N_DIFF_COLS; i++) {
                char b[160];
                fmt_diff(b, sizeof b, diff_cols[i].f, rep_stat(d, c, t, diff_cols[i].m));
                out(o, " %s |", b);
            }
            out(o, "\n");
        }
        out(o, "\n");
    }
}

static int write_file(const char *dir, const char *name, char *err, size_t cap,
                      void (*body)(out_t *, const rep_data_t *, const rep_options_t *, const rep_sel_t *,
                                   const rep_result_t *, char *, size_t, int *),
                      const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel, const rep_result_t *res)
{
    char path[4200];
    (void)snprintf(path, sizeof path, "%s/%s", dir, name);
    out_t o = {fopen(path, "w"), false};
    if (o.f == NULL)
        return rep_fail(err, cap, "%s: %s", path, strerror(errno));
    int rc = 0;
    body(&o, d, opt, sel, res, err, cap, &rc);
    if (fclose(o.f) != 0)
        o.bad = true;
    if (rc == 0 && o.bad)
        rc = rep_fail(err, cap, "%s: write error", path);
    return rc;
}

static void tables_body(out_t *o, const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel,
                        const rep_result_t *res, char *err, size_t cap, int *rc)
{
    (void)opt;
    (void)res;
    (void)err;
    (void)cap;
    (void)rc;
    write_tables(o, d, sel);
}

int rep_md_write(const rep_data_t *d, const rep_options_t *opt, const rep_sel_t *sel, const rep_result_t *res,
                 char *err, size_t cap)
{
    if (write_file(opt->out_dir, "report.md", err, cap, write_report, d, opt, sel, res) != 0)
        return -1;
    return write_file(opt->out_dir, "tables.md", err, cap, tables_body, d, opt, sel, res);
}
