/* SPDX-License-Identifier: MIT */
/* sim_oracle.c - the one oracle (docs/traces.md "Oracle"): a single
 * authority on the true (run) clock, an instance of the reference server
 * model with no loss, no freshness check and a healthy dedup cache, that
 * applies
 *   - each decided logical request once, at the instant the server whose
 *     response the client selected decided it afresh (the grant the
 *     application uses), and
 *   - each latency report once, at the instant the oldest server it was sent
 *     to recorded it,
 * in the order of those instants (ties: the order the servers processed the
 * datagrams). Both are instants of server processing on the true clock: one
 * time base for requests and reports.
 *
 * An instant is known only later (at the client's decision), so applications
 * wait in a min-heap until no request still in flight can have an earlier
 * one: every future instant is at or after the submit time of a request in
 * flight, so entries before the oldest in-flight submit are safe. A request
 * whose lifetime outlives that (a client clock stepped backwards) is applied
 * when it is forgotten and counted in oracle_late. */
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

void sim_oracle_inflight_add(sim_world_t *w, sim_req_t *r) {
    r->ifl_next = NULL;
    r->ifl_prev = w->ifl_tail;
    if (w->ifl_tail) w->ifl_tail->ifl_next = r;
    else w->ifl_head = r;
    w->ifl_tail = r;
    r->in_flight = true;
}

void sim_oracle_inflight_remove(sim_world_t *w, sim_req_t *r) {
    if (!r->in_flight) return;
    if (r->ifl_prev) r->ifl_prev->ifl_next = r->ifl_next;
    else w->ifl_head = r->ifl_next;
    if (r->ifl_next) r->ifl_next->ifl_prev = r->ifl_prev;
    else w->ifl_tail = r->ifl_prev;
    r->ifl_prev = r->ifl_next = NULL;
    r->in_flight = false;
}

int sim_oracle_keep_datagram(sim_world_t *w, sim_req_t *r, const uint8_t *data, size_t len) {
    if (r->dgram != NULL || len > 1500u) return 0;
    r->dgram = sim_pkt_get(w);
    if (r->dgram == NULL) return -1;
    uint32_t l32 = (uint32_t)len;
    memcpy(r->dgram, &l32, 4);
    memcpy(r->dgram + 4, data, len);
    return 0;
}

static bool before(const sim_oracle_ev_t *a, const sim_oracle_ev_t *b) {
    return a->at_us < b->at_us || (a->at_us == b->at_us && a->pseq < b->pseq);
}

static int push(sim_world_t *w, sim_oracle_ev_t ev) {
    if (w->n_oheap == w->cap_oheap) {
        size_t cap = w->cap_oheap ? w->cap_oheap * 2 : 1024;
        sim_oracle_ev_t *h = realloc(w->oheap, cap * sizeof *h);
        if (h == NULL) return -1;
        w->oheap = h;
        w->cap_oheap = cap;
    }
    size_t i = w->n_oheap++;
    while (i > 0 && before(&ev, &w->oheap[(i - 1) / 2])) {
        w->oheap[i] = w->oheap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->oheap[i] = ev;
    return 0;
}

int sim_oracle_queue(sim_world_t *w, sim_req_t *r, uint64_t at_us, uint64_t pseq) {
    if (push(w, (sim_oracle_ev_t){at_us, pseq, r, 0}) != 0) return -1;
    r->oracle_pending = true;
    return 0;
}

int sim_oracle_queue_fault(sim_world_t *w, size_t idx, uint64_t at_us, uint64_t pseq) {
    return push(w, (sim_oracle_ev_t){at_us, pseq, NULL, idx});
}

static sim_oracle_ev_t pop(sim_world_t *w) {
    sim_oracle_ev_t top = w->oheap[0];
    sim_oracle_ev_t last = w->oheap[--w->n_oheap];
    size_t i = 0, n = w->n_oheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(&w->oheap[c + 1], &w->oheap[c])) c++;
        if (!before(&w->oheap[c], &last)) break;
        w->oheap[i] = w->oheap[c];
        i = c;
    }
    if (n > 0) w->oheap[i] = last;
    return top;
}

/* The oracle applies one entry: its datagram on the true clock of its instant. */
static void apply(sim_world_t *w, const sim_oracle_ev_t *ev) {
    if (ev->r == NULL) { /* a tenant removed or added everywhere: the oracle follows at that instant */
        (void)sim_world_tenant_fault(w, w->oracle, &w->cfg->faults[ev->fault]);
        return;
    }
    sim_req_t *r = ev->r;
    r->oracle_pending = false;
    r->oracle_applied = true;
    if (ev->at_us < w->oracle_last_us || (ev->at_us == w->oracle_last_us && ev->pseq < w->oracle_last_pseq)) {
        w->oracle_late++;
    } else {
        w->oracle_last_us = ev->at_us;
        w->oracle_last_pseq = ev->pseq;
    }
    const sim_shape_t *shape = r->host ? &r->host->shapes[r->mix] : NULL;
    bool allowed = !r->is_report && shape != NULL && shape->n_res == 0 && shape->n_guards == 0;
    if (r->dgram != NULL) {
        uint32_t len;
        memcpy(&len, r->dgram, 4);
        uint8_t out[1500];
        size_t out_len = 0;
        sim_server_result_t res;
        memset(&res, 0, sizeof res);
        uint64_t ms = SIM_RUN_EPOCH_MS + ev->at_us / SIM_US_PER_MS;
        sim_server_verdict_t v = sim_server_handle(w->oracle, ms, r->dgram + 4, len, out, sizeof out, &out_len, &res);
        allowed = (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) && res.allowed;
        sim_pkt_put(w, r->dgram);
        r->dgram = NULL;
    }
    if (r->is_report) return;
    r->oracle_allowed = allowed;
    bool wrong = r->client_allowed != allowed;
    r->oracle_wrong = wrong;
    if (r->client_allowed && !allowed) {
        w->m.false_allows++;
        sim_tl_add(w, r->host->index, r->submitted_at, SIM_TL_FALSE_ALLOWS, 1);
    }
    if (!r->client_allowed && allowed) {
        w->m.false_denies++;
        sim_tl_add(w, r->host->index, r->submitted_at, SIM_TL_FALSE_DENIES, 1);
    }
    if (wrong && w->has_fault && r->decided_at >= w->last_fault && r->decided_at > w->last_wrong) {
        w->last_wrong = r->decided_at;
    }
}

void sim_oracle_flush(sim_world_t *w, bool all) {
    uint64_t bound = w->ifl_head != NULL ? w->ifl_head->submitted_at : UINT64_MAX;
    while (w->n_oheap > 0 && (all || w->oheap[0].at_us < bound)) {
        sim_oracle_ev_t ev = pop(w);
        apply(w, &ev);
    }
}

void sim_oracle_settle(sim_world_t *w, sim_req_t *r) {
    while (r->oracle_pending && w->n_oheap > 0) {
        sim_oracle_ev_t ev = pop(w);
        apply(w, &ev);
    }
}

void sim_oracle_free(sim_world_t *w) {
    free(w->oheap);
    w->oheap = NULL;
    w->n_oheap = w->cap_oheap = 0;
}
