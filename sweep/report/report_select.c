/* SPDX-License-Identifier: MIT */
/* report_select.c - which traces and configurations each part of the
 * report shows: loss-rate variants, fault traces, empirical round-trip
 * traces, configurations that differ only in U, highlighted ones. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"

static bool same_schedule(const r_ha_schedule_t *a, const r_ha_schedule_t *b)
{
    return a->kind == b->kind && a->initial_units == b->initial_units && a->max_units == b->max_units &&
           a->growth.linear_step_units == b->growth.linear_step_units;
}

bool rep_same_but_unit(const rep_config_t *a, const rep_config_t *b)
{
    const r_request_policy_t *p = &a->policy, *q = &b->policy;
    return a->has_policy && b->has_policy && p->replay_count == q->replay_count &&
           same_schedule(&p->replay_gap, &q->replay_gap) && same_schedule(&p->preference, &q->preference) &&
           p->final_receive_units == q->final_receive_units &&
           p->final_preference_units == q->final_preference_units &&
           p->completion_delivery == q->completion_delivery;
}

size_t rep_loss_traces(const rep_data_t *d, size_t *idx)
{
    size_t n = 0;
    for (size_t t = 0; t < d->n_traces; t++) {
        if (!d->traces[t].has_loss)
            continue;
        size_t k = n++;
        while (k > 0 && d->traces[idx[k - 1]].loss_p > d->traces[t].loss_p) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = t;
    }
    return n;
}

size_t rep_fault_traces(const rep_data_t *d, size_t *idx)
{
    size_t n = 0;
    for (size_t t = 0; t < d->n_traces; t++) {
        bool any = false;
        for (size_t c = 0; c < d->n_configs && !any; c++) {
            const rep_stat_t *s = rep_stat(d, c, t, REP_M_CONVERGENCE);
            any = s->has && s->max > 0.0;
        }
        if (any)
            idx[n++] = t;
    }
    return n;
}

size_t rep_empirical_traces(const rep_data_t *d, size_t *idx)
{
    size_t n = 0;
    for (size_t t = 0; t < d->n_traces; t++) {
        if (strstr(d->traces[t].name, "empirical") != NULL)
            idx[n++] = t;
    }
    return n;
}

size_t rep_u_family(const rep_data_t *d, size_t c, size_t *idx)
{
    size_t n = 0;
    for (size_t j = 0; j < d->n_configs; j++) {
        if (!rep_same_but_unit(&d->configs[c], &d->configs[j]))
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = d->configs[idx[k]].policy.unit_ms == d->configs[j].policy.unit_ms;
        if (dup)
            continue; /* same U twice (a copy of the baseline): the first one */
        size_t k = n++;
        while (k > 0 && d->configs[idx[k - 1]].policy.unit_ms > d->configs[j].policy.unit_ms) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = j;
    }
    return n;
}

size_t rep_u_families(const rep_data_t *d, size_t *first, size_t max)
{
    size_t n = 0;
    size_t tmp_cap = d->n_configs;
    for (size_t c = 0; c < d->n_configs && n < max; c++) {
        if (!d->configs[c].has_policy)
            continue;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = rep_same_but_unit(&d->configs[first[k]], &d->configs[c]);
        if (seen)
            continue;
        size_t members = 0;
        for (size_t j = 0; j < tmp_cap; j++)
            members += rep_same_but_unit(&d->configs[c], &d->configs[j]) ? 1u : 0u;
        if (members >= 3)
            first[n++] = c;
    }
    return n;
}

int rep_highlight(const rep_data_t *d, const rep_options_t *opt, size_t *idx, char *err, size_t cap)
{
    size_t n = 0;
    idx[n++] = d->baseline_idx;
    if (opt->n_highlight == 0) {
        for (size_t c = 0; c < d->n_configs && n < 6; c++) {
            if (c != d->baseline_idx)
                idx[n++] = c;
        }
        return (int)n;
    }
    for (size_t i = 0; i < opt->n_highlight && i < REP_MAX_HIGHLIGHT; i++) {
        size_t c = rep_find_config(d, opt->highlight[i]);
        if (c == d->n_configs)
            return rep_fail(err, cap, "--highlight: unknown configuration \"%s\"", opt->highlight[i]);
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = idx[k] == c;
        if (!dup && n < REP_MAX_HIGHLIGHT)
            idx[n++] = c;
    }
    return (int)n;
}
