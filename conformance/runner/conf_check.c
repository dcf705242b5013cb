/* SPDX-License-Identifier: MIT */
/* conf_check.c - compare an observed behaviour with a case's expectations,
 * one table row per field (conformance/README.md "Expectations"). Sends are
 * compared as multisets: the order within one instant is not specified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_exec.h"

static const char *server_name(const conf_case_t *c, int i)
{
    return i >= 0 && (size_t)i < c->n_servers ? c->server_names[i] : "?";
}

static const char *phase_name(r_request_phase_t p)
{
    return p == R_PHASE_FINAL_RECEIVE ? "final" : "round";
}

/* ---- sends ------------------------------------------------------------------------ */

static const conf_case_t *sort_case; /* qsort has no context argument: names for the tie-break */

static int compare_sends(const void *pa, const void *pb)
{
    const conf_send_t *a = pa, *b = pb;
    if (a->at != b->at)
        return a->at < b->at ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    int n = strcmp(server_name(sort_case, a->server), server_name(sort_case, b->server));
    if (n != 0)
        return n;
    return (int)a->ok - (int)b->ok;
}

static void format_send(const conf_case_t *c, const conf_send_t *s, char *buf, size_t cap)
{
    static const char *const kinds[] = {"initial", "replay", "completion"};
    char round[16] = "";
    if (s->kind == CONF_SEND_REPLAY)
        snprintf(round, sizeof round, "%u", s->round);
    snprintf(buf, cap, "%llu:%s:%s%s%s", (unsigned long long)s->at, server_name(c, s->server), kinds[s->kind], round,
             s->ok ? "" : "(failed)");
}

/* Append " <send>" to buf (bounded). */
static void append_send(const conf_case_t *c, const conf_send_t *s, char *buf, size_t cap)
{
    char one[64];
    size_t used = strlen(buf);
    format_send(c, s, one, sizeof one);
    if (used + 1 < cap)
        snprintf(buf + used, cap - used, " %s", one);
}

static void check_sends(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out)
{
    static conf_send_t want[CONF_MAX_SENDS], got[CONF_MAX_SENDS];
    char missing[VEC_MSG_MAX / 2] = "", unexpected[VEC_MSG_MAX / 2] = "";
    size_t nw = c->expect.n_sends, ng = obs->n_sends;
    memcpy(want, c->expect.sends, nw * sizeof *want);
    memcpy(got, obs->sends, ng * sizeof *got);
    sort_case = c;
    qsort(want, nw, sizeof *want, compare_sends);
    qsort(got, ng, sizeof *got, compare_sends);
    size_t i = 0, j = 0;
    while (i < nw || j < ng) {
        int order = i == nw ? 1 : j == ng ? -1 : compare_sends(&want[i], &got[j]);
        if (order == 0) {
            i++;
            j++;
        } else if (order < 0) {
            append_send(c, &want[i++], missing, sizeof missing);
        } else {
            append_send(c, &got[j++], unexpected, sizeof unexpected);
        }
    }
    bool ok = missing[0] == '\0' && unexpected[0] == '\0';
    if (ok)
        conf_row(out, "sends", true, "%zu", ng);
    else
        conf_row(out, "sends", false, "missing [%s ] unexpected [%s ]", missing, unexpected);
}

/* ---- scalar fields ----------------------------------------------------------------- */

static void check_decision(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out)
{
    const conf_behaviour_t *x = &c->expect;
    char want[32] = "none", got[32] = "none";
    if (x->has_decision)
        snprintf(want, sizeof want, "%llu", (unsigned long long)x->decision_at);
    if (obs->has_decision)
        snprintf(got, sizeof got, "%llu", (unsigned long long)obs->decision_at);
    bool ok = x->has_decision == obs->has_decision && (!x->has_decision || x->decision_at == obs->decision_at);
    conf_row(out, "decision_at", ok, ok ? "%s" : "want %s got %s", want, got);
}

static void check_profile(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out)
{
    const conf_behaviour_t *x = &c->expect;
    char want[48] = "none", got[48] = "none";
    if (!x->profile_none)
        snprintf(want, sizeof want, "round %u %s", x->profile_round, phase_name(x->profile_phase));
    if (!obs->profile_none)
        snprintf(got, sizeof got, "round %u %s", obs->profile_round, phase_name(obs->profile_phase));
    bool ok = strcmp(want, got) == 0;
    conf_row(out, "profile", ok, ok ? "%s" : "want %s got %s", want, got);
}

static void format_result(const conf_behaviour_t *b, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "resources [");
    for (size_t i = 0; i < b->n_resources && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, " %u/%u", b->resources[i].tokens_deficit,
                                 b->resources[i].actual_rate);
    if (used < cap)
        used += (size_t)snprintf(buf + used, cap - used, " ] guards [");
    for (size_t i = 0; i < b->n_guards && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, " %u%s", b->guards[i].current_latency,
                                 b->guards[i].passed ? "" : "(failed)");
    if (used < cap)
        snprintf(buf + used, cap - used, " ]");
}

static void check_result(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out)
{
    char want[200], got[200];
    format_result(&c->expect, want, sizeof want);
    format_result(obs, got, sizeof got);
    bool ok = strcmp(want, got) == 0; /* the text holds every compared value */
    conf_row(out, "result", ok, ok ? "%s" : "want %s got %s", want, got);
}

void conf_check_behaviour(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out)
{
    const conf_behaviour_t *x = &c->expect;
    const char *wo = conf_outcome_name(x->outcome), *go = conf_outcome_name(obs->outcome);
    conf_row(out, "outcome", x->outcome == obs->outcome, x->outcome == obs->outcome ? "%s" : "want %s got %s", wo,
             go);
    const char *ws = x->selected < 0 ? "none" : server_name(c, x->selected);
    const char *gs = obs->selected < 0 ? "none" : server_name(c, obs->selected);
    conf_row(out, "selected", x->selected == obs->selected, x->selected == obs->selected ? "%s" : "want %s got %s",
             ws, gs);
    check_decision(c, obs, out);
    bool same = x->completions == obs->completions;
    conf_row(out, "completions", same, same ? "%u" : "want %u got %u", x->completions, obs->completions);
    check_sends(c, obs, out);
    if (x->has_profile)
        check_profile(c, obs, out);
    if (x->has_keep_port) {
        same = x->keep_port == obs->keep_port;
        conf_row(out, "keep_port", same, same ? "%s" : "want %s got %s", x->keep_port ? "true" : "false",
                 obs->keep_port ? "true" : "false");
    }
    if (x->has_result)
        check_result(c, obs, out);
    if (x->has_rebinds) {
        same = x->rebinds == obs->rebinds;
        conf_row(out, "rebinds", same, same ? "%u" : "want %u got %u", x->rebinds, obs->rebinds);
    }
}
