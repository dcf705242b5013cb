/* SPDX-License-Identifier: MIT */
/* fuzz_sweep_report.c - the sweep report's reader of a sweep's output
 * (rep_data_parse; docs/sweep.md "Report"): summary.json rows and the
 * manifest's policies and trace settings, then the Pareto front of the
 * configurations' means.
 *
 * Input: the summary.json text, optionally followed by a NUL byte and the
 * manifest.json text. Either an error that names one of the two files
 * ("fuzz/summary.json: " or "fuzz/manifest.json: ") and is NUL-terminated,
 * with the output zeroed; or data within the documented shape: at least one
 * configuration and trace, the baseline among the configurations, every
 * value present only with n > 0, a known loss rate in [0, 1], a horizon
 * exactly for a configuration with a policy; a second parse gives the same
 * data, and the Pareto front over the means has between 1 and n_configs
 * members when any mean is defined. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "report_int.h"

static double mean_or_nan(const rep_data_t *d, size_t c, rep_metric_t m)
{
    return rep_mean_over_traces(d, c, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_dup_cstr(data, size);
    const char *sep = memchr(text, '\0', size);
    size_t slen = sep != NULL ? (size_t)(sep - text) : size;
    const char *manifest = sep != NULL ? sep + 1 : NULL;
    size_t mlen = sep != NULL ? size - slen - 1 : 0;
    rep_data_t d;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = rep_data_parse(text, slen, manifest, mlen, "fuzz", &d, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1);
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
        FUZZ_CHECK(strncmp(err, "fuzz/summary.json: ", 19) == 0 || strncmp(err, "fuzz/manifest.json: ", 20) == 0);
        FUZZ_CHECK(d.configs == NULL && d.traces == NULL && d.stats == NULL && d.n_configs == 0);
        free(text);
        return 0;
    }
    FUZZ_CHECK(d.n_configs >= 1 && d.n_traces >= 1 && d.baseline_idx < d.n_configs);
    FUZZ_CHECK(strcmp(d.configs[d.baseline_idx].name, d.baseline) == 0);
    for (size_t c = 0; c < d.n_configs; c++) {
        FUZZ_CHECK(d.configs[c].has_policy == (d.configs[c].horizon_ms > 0));
        for (size_t t = 0; t < d.n_traces; t++) {
            for (int m = 0; m < (int)REP_M_COUNT; m++) {
                const rep_stat_t *s = rep_stat(&d, c, t, (rep_metric_t)m);
                FUZZ_CHECK(!s->has || (s->n > 0 && isfinite(s->mean)));
                FUZZ_CHECK(!s->has_ci || (s->has_diff && s->ci_low <= s->ci_high));
            }
        }
    }
    for (size_t t = 0; t < d.n_traces; t++)
        FUZZ_CHECK(!d.traces[t].has_loss || (d.traces[t].loss_p >= 0.0 && d.traces[t].loss_p <= 1.0));
    rep_data_t again;
    FUZZ_CHECK(rep_data_parse(text, slen, manifest, mlen, "fuzz", &again, err, sizeof err) == 0);
    FUZZ_CHECK(again.n_configs == d.n_configs && again.n_traces == d.n_traces && again.n_seeds == d.n_seeds);
    for (size_t i = 0; i < d.n_configs * d.n_traces * REP_M_COUNT; i++)
        FUZZ_CHECK(again.stats[i].has == d.stats[i].has && (!d.stats[i].has || again.stats[i].mean == d.stats[i].mean));
    double *x = malloc(d.n_configs * sizeof *x), *y = malloc(d.n_configs * sizeof *y);
    bool *f = malloc(d.n_configs * sizeof *f);
    FUZZ_CHECK(x != NULL && y != NULL && f != NULL);
    bool any = false;
    for (size_t c = 0; c < d.n_configs; c++) {
        x[c] = mean_or_nan(&d, c, REP_M_P99);
        y[c] = mean_or_nan(&d, c, REP_M_FALSE_ALLOW);
        any = any || (!isnan(x[c]) && !isnan(y[c]));
    }
    size_t n = rep_pareto_front(x, y, d.n_configs, f);
    FUZZ_CHECK(n <= d.n_configs && (!any || n >= 1));
    free(x);
    free(y);
    free(f);
    rep_data_free(&again);
    rep_data_free(&d);
    free(text);
    return 0;
}
