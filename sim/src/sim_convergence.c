/* SPDX-License-Identifier: MIT */
/* sim_convergence.c - convergence per fault event (docs/traces.md
 * "Convergence per fault event"; r-client-ha-design.md 7, "convergence time
 * after membership changes or packet loss").
 *
 * A fault event is an instant: a fault of the trace (for pause and restart
 * with downtime, the end of its duration), each transition of a failures
 * process, and each DNS epoch after the first. The events form one sorted
 * list. A decided request is unsettled when two servers answered it
 * differently (disagreed) or the client's outcome differs from the oracle's
 * (a false allow or deny); it is charged to the latest event at or before its
 * decision. An event's convergence is the time from the event to the last
 * unsettled decision charged to it (0 when none): after it, until the next
 * event, the servers agree and decisions are right. */
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

/* Upper bound: the first event later than at_us. */
static size_t after(const sim_world_t *w, sim_time_t at_us) {
    size_t lo = 0, hi = w->n_conv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->conv[mid].at_us <= at_us) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int sim_conv_add(sim_world_t *w, sim_time_t at_us, int kind, uint32_t index) {
    if (w->n_conv == w->cap_conv) {
        size_t cap = w->cap_conv ? 2 * w->cap_conv : 16;
        sim_conv_ev_t *c = realloc(w->conv, cap * sizeof *c);
        if (c == NULL) return -1;
        w->conv = c;
        w->cap_conv = cap;
    }
    size_t pos = after(w, at_us); /* after the events of the same instant: insertion order */
    memmove(&w->conv[pos + 1], &w->conv[pos], (w->n_conv - pos) * sizeof *w->conv);
    w->conv[pos] = (sim_conv_ev_t){at_us, kind, index, 0, 0};
    w->n_conv++;
    return 0;
}

void sim_conv_unsettled(sim_world_t *w, sim_time_t decided_at) {
    size_t pos = after(w, decided_at);
    if (pos == 0) return; /* before the first event */
    sim_conv_ev_t *e = &w->conv[pos - 1];
    e->unsettled++;
    if (decided_at > e->last_us) e->last_us = decided_at;
}

int sim_conv_result(const sim_world_t *w, sim_result_t *out) {
    out->n_convergence = 0;
    out->convergence = calloc(w->n_conv ? w->n_conv : 1, sizeof *out->convergence);
    if (out->convergence == NULL) return -1;
    for (size_t i = 0; i < w->n_conv; i++) {
        const sim_conv_ev_t *e = &w->conv[i];
        sim_convergence_t *c = &out->convergence[i];
        c->at_ms = (double)e->at_us / 1000.0;
        c->kind = e->kind;
        c->index = e->index;
        c->unsettled = e->unsettled;
        c->convergence_ms = e->unsettled ? (double)(e->last_us - e->at_us) / 1000.0 : 0;
    }
    out->n_convergence = w->n_conv;
    return 0;
}

const char *sim_conv_kind_name(int kind) {
    static const char *const names[] = {"dns_change", "restart", "pause", "link", "partition", "dedup_degrade",
                                        "dedup_heal", "skew", "steering", "inject", "failures",
                                        "tenant_remove", "tenant_add"};
    return kind >= 0 && (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

void sim_conv_table(FILE *f, const sim_result_t *r, size_t max_rows) {
    if (r->n_convergence == 0) return;
    double worst = 0;
    for (size_t i = 0; i < r->n_convergence; i++) {
        if (r->convergence[i].convergence_ms > worst) worst = r->convergence[i].convergence_ms;
    }
    fprintf(f, "  convergence per fault event: %zu events, max %.3f ms\n", r->n_convergence, worst);
    fprintf(f, "    %12s  %-14s %6s %10s %16s\n", "at_ms", "event", "index", "unsettled", "convergence_ms");
    for (size_t i = 0; i < r->n_convergence && i < max_rows; i++) {
        const sim_convergence_t *c = &r->convergence[i];
        fprintf(f, "    %12.3f  %-14s %6u %10llu %16.3f\n", c->at_ms, sim_conv_kind_name(c->kind), c->index,
                (unsigned long long)c->unsettled, c->convergence_ms);
    }
    if (r->n_convergence > max_rows) fprintf(f, "    ... %zu more (every event in --json)\n", r->n_convergence - max_rows);
}

void sim_conv_json(FILE *f, const sim_result_t *r) {
    fputc('[', f);
    for (size_t i = 0; i < r->n_convergence; i++) {
        const sim_convergence_t *c = &r->convergence[i];
        fprintf(f, "%s{\"at_ms\": %.3f, \"event\": \"%s\", \"index\": %u, \"unsettled\": %llu, \"convergence_ms\": %.3f}",
                i ? ", " : "", c->at_ms, sim_conv_kind_name(c->kind), c->index, (unsigned long long)c->unsettled,
                c->convergence_ms);
    }
    fputc(']', f);
}
