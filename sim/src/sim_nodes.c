/* SPDX-License-Identifier: MIT */
/* sim_nodes.c - server nodes (processing delay, pause queue, responses into
 * the network, per-request server answers), node addressing, and the pools
 * behind them: the unique_id map, request records and packet buffers. No
 * allocation per packet or per request in steady state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

#define PKT_SIZE 1504u /* 4-byte length prefix + up to 1500 bytes */
#define REQ_BLOCK 4096u

/* ---- addressing -------------------------------------------------------------
 * Clients are 192.0.<hi>.<lo>, servers 198.51.<hi>.<lo> (documentation
 * prefixes): labels only, nothing leaves the process. */
r_addr_t sim_node_addr(const sim_world_t *w, uint32_t node, uint16_t port) {
    r_addr_t a;
    memset(&a, 0, sizeof a);
    a.family = R_ADDR_INET;
    uint32_t idx = node < w->n_hosts ? node : node - (uint32_t)w->n_hosts;
    a.addr[0] = node < w->n_hosts ? 192 : 198;
    a.addr[1] = node < w->n_hosts ? 0 : 51;
    a.addr[2] = (uint8_t)(idx >> 8);
    a.addr[3] = (uint8_t)idx;
    a.port = port;
    return a;
}

uint32_t sim_addr_node(const sim_world_t *w, const r_addr_t *a) {
    if (a->family != R_ADDR_INET) return UINT32_MAX;
    uint32_t idx = ((uint32_t)a->addr[2] << 8) | a->addr[3];
    if (a->addr[0] == 192 && a->addr[1] == 0 && idx < w->n_hosts) return idx;
    if (a->addr[0] == 198 && a->addr[1] == 51 && idx < w->n_servers) return (uint32_t)w->n_hosts + idx;
    return UINT32_MAX;
}

uint64_t sim_run_ms(const sim_world_t *w) {
    return SIM_RUN_EPOCH_MS + sim_engine_now(&w->engine) / SIM_US_PER_MS;
}

/* Drift: ppm microseconds gained per second of run time, in whole ms, floored
 * (docs/traces.md: a slow clock reads 1 ms behind from its first microsecond of loss). */
int64_t sim_drift_ms(sim_time_t run_us, int32_t ppm) {
    int64_t x = (int64_t)run_us * ppm, q = x / 1000000000ll;
    return (x % 1000000000ll != 0 && x < 0) ? q - 1 : q;
}

uint64_t sim_server_now_ms(const sim_world_t *w, const sim_node_server_t *s) {
    int64_t t = (int64_t)sim_run_ms(w) + s->skew_ms + sim_drift_ms(sim_engine_now(&w->engine), s->cfg->clock_drift_ppm);
    return (uint64_t)(t < 0 ? 0 : t);
}

/* ---- packet pool ---------------------------------------------------------------- */

uint8_t *sim_pkt_get(sim_world_t *w) {
    if (w->n_pkt_free > 0) {
        return w->pkt_free[--w->n_pkt_free];
    }
    if (w->n_pkt_all == w->cap_pkt_all) {
        size_t cap = w->cap_pkt_all ? w->cap_pkt_all * 2 : 256;
        uint8_t **all = realloc(w->pkt_all, cap * sizeof *all);
        uint8_t **fr = realloc(w->pkt_free, cap * sizeof *fr);
        if (all) w->pkt_all = all;
        if (fr) w->pkt_free = fr;
        if (!all || !fr) return NULL;
        w->cap_pkt_all = w->cap_pkt_free = cap;
    }
    uint8_t *p = malloc(PKT_SIZE);
    if (p != NULL) w->pkt_all[w->n_pkt_all++] = p;
    return p;
}

void sim_pkt_put(sim_world_t *w, uint8_t *p) {
    w->pkt_free[w->n_pkt_free++] = p; /* capacity always covers every packet ever made */
}

/* ---- request records -------------------------------------------------------------- */

sim_req_t *sim_req_alloc(sim_world_t *w) {
    if (w->free_reqs == NULL) {
        if (w->n_req_blocks == w->cap_req_blocks) {
            size_t cap = w->cap_req_blocks ? w->cap_req_blocks * 2 : 16;
            sim_req_t **b = realloc(w->req_blocks, cap * sizeof *b);
            if (b == NULL) return NULL;
            w->req_blocks = b;
            w->cap_req_blocks = cap;
        }
        sim_req_t *block = calloc(REQ_BLOCK, sizeof *block);
        if (block == NULL) return NULL;
        w->req_blocks[w->n_req_blocks++] = block;
        for (size_t i = 0; i < REQ_BLOCK; i++) {
            block[i].next = w->free_reqs;
            w->free_reqs = &block[i];
        }
    }
    sim_req_t *r = w->free_reqs;
    w->free_reqs = r->next;
    uint32_t gen = r->timer_gen; /* keeps stale timer events of a previous owner harmless */
    memset(r, 0, sizeof *r);
    r->timer_gen = gen + 1;
    return r;
}

sim_ext_t *sim_ext_get(sim_world_t *w) {
    if (w->free_ext == NULL) {
        if (w->n_ext_blocks == w->cap_ext_blocks) {
            size_t cap = w->cap_ext_blocks ? w->cap_ext_blocks * 2 : 16;
            sim_ext_t **b = realloc(w->ext_blocks, cap * sizeof *b);
            if (b == NULL) return NULL;
            w->ext_blocks = b;
            w->cap_ext_blocks = cap;
        }
        sim_ext_t *block = calloc(REQ_BLOCK, sizeof *block);
        if (block == NULL) return NULL;
        w->ext_blocks[w->n_ext_blocks++] = block;
        for (size_t i = 0; i < REQ_BLOCK; i++) {
            block[i].next = w->free_ext;
            w->free_ext = &block[i];
        }
    }
    sim_ext_t *e = w->free_ext;
    w->free_ext = e->next;
    e->n_fresh = 0;
    return e;
}

void sim_ext_put(sim_world_t *w, sim_ext_t *e) {
    e->next = w->free_ext;
    w->free_ext = e;
}

void sim_trust_release(sim_trust_t *t) {
    if (t != NULL && --t->refs == 0) free(t);
}

uint32_t *sim_req_touch(sim_req_t *r, uint32_t si) {
    for (uint32_t k = 0; k < r->n_touch; k++) {
        sim_touch_t *t = k < SIM_TOUCH_INLINE ? &r->touch[k] : &r->touch_more[k - SIM_TOUCH_INLINE];
        if (t->server == si) return &t->flags;
    }
    if (r->n_touch >= SIM_TOUCH_INLINE && r->n_touch - SIM_TOUCH_INLINE == r->cap_more) {
        uint32_t cap = r->cap_more ? 2 * r->cap_more : 8;
        sim_touch_t *m = realloc(r->touch_more, cap * sizeof *m);
        if (m == NULL) return NULL;
        r->touch_more = m;
        r->cap_more = cap;
    }
    sim_touch_t *t = r->n_touch < SIM_TOUCH_INLINE ? &r->touch[r->n_touch] : &r->touch_more[r->n_touch - SIM_TOUCH_INLINE];
    r->n_touch++;
    *t = (sim_touch_t){si, 0};
    return &t->flags;
}

/* id: client index + 1 (never 0), report flag, request or report number
 * (docs/traces.md "Random numbers"). */
bool sim_req_tag(sim_req_t *r, uint32_t node, bool back, sim_net_tag_t *tag) {
    if (r == NULL || r->host == NULL) return false;
    sim_xmit_t *x = NULL;
    for (uint8_t k = 0; k < r->n_xmit && x == NULL; k++) {
        if (r->xmit[k].node == node) x = &r->xmit[k];
    }
    if (x == NULL) {
        if (r->n_xmit == SIM_XMIT_LINKS) return false;
        x = &r->xmit[r->n_xmit++];
        *x = (sim_xmit_t){node, 0, 0};
    }
    uint16_t *n = back ? &x->back : &x->out;
    if (*n == UINT16_MAX) return false;
    tag->id = ((uint64_t)r->host->index + 1u) << 40 | (uint64_t)r->is_report << 39 | (r->seq & ((1ull << 39) - 1u));
    tag->xmit = (*n)++;
    return true;
}

void sim_req_release(sim_world_t *w, sim_req_t *r) {
    free(r->touch_more);
    r->touch_more = NULL;
    r->cap_more = 0;
    if (r->uid_known) sim_uid_remove(w, r);
    sim_oracle_inflight_remove(w, r);
    if (r->ext != NULL) {
        sim_ext_put(w, r->ext);
        r->ext = NULL;
    }
    sim_trust_release(r->trust);
    r->trust = NULL;
    if (r->dgram != NULL) {
        sim_pkt_put(w, r->dgram);
        r->dgram = NULL;
    }
    r->host = NULL;
    r->next = w->free_reqs;
    w->free_reqs = r;
}

void sim_req_forget_later(sim_world_t *w, sim_req_t *r) {
    r->next = NULL;
    if (w->forget_tail) w->forget_tail->next = r;
    else w->forget_head = r;
    w->forget_tail = r;
    sim_req_forget_due(w, sim_engine_now(&w->engine), false);
}

void sim_req_forget_due(sim_world_t *w, sim_time_t now, bool all) {
    while (w->forget_head != NULL && (all || w->forget_head->forget_at <= now)) {
        sim_req_t *r = w->forget_head;
        w->forget_head = r->next;
        if (w->forget_head == NULL) w->forget_tail = NULL;
        sim_oracle_settle(w, r);
        sim_metrics_forget(w, r);
        sim_req_release(w, r);
    }
}

/* ---- unique_id map ------------------------------------------------------------------- */

static char g_tomb;
#define TOMB ((sim_req_t *)(void *)&g_tomb)

static size_t uid_hash(const uint8_t *u) {
    uint64_t a, b;
    memcpy(&a, u, 8);
    memcpy(&b, u + 8, 8);
    uint64_t h = a ^ (b * 0x9E3779B97F4A7C15ull);
    return (size_t)(h ^ (h >> 31));
}

/* Rebuild when live entries plus tombstones reach half the slots. The new
 * table keeps the live entries at no more than a quarter of its slots, so at
 * least a quarter of the slots are inserted before the next rebuild: O(1)
 * amortized per put even when the live count sits just under half (a rebuild
 * at the same size would then purge the tombstones and leave the table full
 * again, one rebuild per put). */
static int uid_grow(sim_uidmap_t *m) {
    size_t cap = m->cap ? m->cap : 1024;
    while ((m->count + 1) * 4 > cap) cap *= 2;
    m->rebuilds++;
    sim_req_t **slots = calloc(cap, sizeof *slots);
    if (slots == NULL) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        sim_req_t *r = m->slots[i];
        if (r == NULL || r == TOMB) continue;
        size_t j = uid_hash(r->uid) & (cap - 1);
        while (slots[j] != NULL) j = (j + 1) & (cap - 1);
        slots[j] = r;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    m->used = m->count;
    return 0;
}

int sim_uid_put(sim_world_t *w, sim_req_t *r) {
    sim_uidmap_t *m = &w->uids;
    if ((m->used + 1) * 2 > m->cap && uid_grow(m) != 0) return -1;
    size_t j = uid_hash(r->uid) & (m->cap - 1);
    while (m->slots[j] != NULL && m->slots[j] != TOMB) j = (j + 1) & (m->cap - 1);
    if (m->slots[j] == NULL) m->used++;
    m->slots[j] = r;
    m->count++;
    return 0;
}

static size_t uid_slot(const sim_uidmap_t *m, const uint8_t *uid) {
    if (m->cap == 0) return SIZE_MAX;
    size_t j = uid_hash(uid) & (m->cap - 1);
    while (m->slots[j] != NULL) {
        if (m->slots[j] != TOMB && memcmp(m->slots[j]->uid, uid, 16) == 0) return j;
        j = (j + 1) & (m->cap - 1);
    }
    return SIZE_MAX;
}

sim_req_t *sim_uid_find(sim_world_t *w, const uint8_t uid[16]) {
    size_t j = uid_slot(&w->uids, uid);
    return j == SIZE_MAX ? NULL : w->uids.slots[j];
}

void sim_uid_remove(sim_world_t *w, sim_req_t *r) {
    sim_uidmap_t *m = &w->uids;
    size_t j = uid_slot(m, r->uid);
    if (j == SIZE_MAX || m->slots[j] != r) return;
    if (m->slots[(j + 1) & (m->cap - 1)] == NULL) {
        m->slots[j] = NULL;
        m->used--;
    } else {
        m->slots[j] = TOMB;
    }
    m->count--;
}

/* ---- servers ---------------------------------------------------------------------------- */

static void process_now(sim_world_t *w, sim_node_server_t *s, uint32_t src, const uint8_t *data, size_t len) {
    uint8_t out[1500];
    size_t out_len = 0;
    sim_server_result_t res;
    uint64_t ms = sim_server_now_ms(w, s);
    if (ms != s->batch_ms) { /* one processing batch per server millisecond (docs/spec-notes.md) */
        s->batch_ms = ms;
        sim_server_batch_begin(s->srv);
    }
    sim_server_verdict_t v = sim_server_handle(s->srv, ms, data, len, out, sizeof out, &out_len, &res);
    uint32_t si = (uint32_t)(s - w->servers);
    uint64_t pseq = ++w->pseq;
    sim_time_t now = sim_engine_now(&w->engine);
    sim_log_record(w->log, now, SIM_LOG_SERVER, si, v, (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) && res.allowed);
    if ((v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED || v == SIM_SRV_REPORT)) {
        /* which logical request (or report) this was, for an independent reading of the log */
        sim_req_t *q = sim_uid_find(w, res.unique_id);
        if (q != NULL && q->host != NULL && q->is_report == (v == SIM_SRV_REPORT)) {
            sim_log_record(w->log, now, q->is_report ? SIM_LOG_SREP : SIM_LOG_SREQ, si, q->host->index, q->seq);
        }
    }
    if ((v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) && res.is_request) {
        sim_req_t *r = sim_uid_find(w, res.unique_id);
        if (r != NULL && r->ext != NULL && v == SIM_SRV_ANSWERED) {
            /* the first fresh decision of each server: the oracle instant if the client selects it */
            sim_ext_t *e = r->ext;
            bool known = false;
            for (uint8_t k = 0; k < e->n_fresh; k++) known |= e->fresh[k].server == si;
            if (!known && e->n_fresh < SIM_REQ_FRESH) {
                int64_t offset = (int64_t)sim_server_now_ms(w, s) - (int64_t)sim_run_ms(w); /* skew + drift */
                e->fresh[e->n_fresh++] = (sim_fresh_t){si, (int32_t)offset, now, pseq};
            }
        }
        uint32_t *f = r != NULL && !r->is_report ? sim_req_touch(r, si) : NULL;
        if (r != NULL && !r->is_report && f == NULL) w->failed = true;
        if (f != NULL) {
            if (v == SIM_SRV_ANSWERED) {
                if (*f & SIM_TOUCH_ANSWERED) w->m.reprocessed++;
                *f |= SIM_TOUCH_ANSWERED;
            }
            *f |= res.allowed ? SIM_TOUCH_ALLOWED : SIM_TOUCH_DENIED;
        }
    } else if (v == SIM_SRV_REPORT) {
        /* a report's oracle instant: its recording by the oldest server it was sent to */
        sim_req_t *r = sim_uid_find(w, res.unique_id);
        if (r != NULL && r->is_report && r->ref_server == si && !r->oracle_pending && !r->oracle_applied) {
            sim_oracle_inflight_remove(w, r);
            if (sim_oracle_queue(w, r, now, pseq) != 0) w->failed = true;
        }
    }
    if (out_len > 0 && s->last_resp != NULL && src < w->n_hosts && s->last_resp[src] != NULL) {
        uint32_t l32 = (uint32_t)out_len; /* kept for inject faults (replayed, forged, wrong identity) */
        memcpy(s->last_resp[src], &l32, 4);
        memcpy(s->last_resp[src] + 4, out, out_len);
    }
    if (out_len > 0) {
        /* the response's identity: the request it answers and its count on this exchange */
        sim_req_t *q = res.is_request || v == SIM_SRV_REPORT ? sim_uid_find(w, res.unique_id) : NULL;
        sim_net_tag_t tag;
        bool tagged = q != NULL && q->host != NULL && src == q->host->node && sim_req_tag(q, s->node, true, &tag);
        sim_net_send_tagged(w->net, s->node, src, out, out_len, tagged ? &tag : NULL);
    }
}

static void ev_process_pkt(void *ctx, uint64_t src, void *ptr) {
    sim_node_server_t *s = ctx;
    sim_world_t *w = s->w;
    uint8_t *p = ptr;
    uint32_t len;
    memcpy(&len, p, 4);
    if (s->paused_until > sim_engine_now(&w->engine) && s->cfg->queue_capacity == 0) {
        /* paused (a pause began after this packet was queued): process at resume */
        sim_engine_schedule(&w->engine, s->paused_until, SIM_CLASS_DELIVER, ev_process_pkt, s, src, ptr);
        return;
    }
    if (s->queued > 0) s->queued--;
    process_now(w, s, (uint32_t)src, p + 4, len);
    sim_pkt_put(w, p);
}

/* A datagram arrives at a server: processed after its processing delay, or
 * when a pause ends (queued in arrival order, like a stalled listener). */
void sim_server_deliver(sim_world_t *w, sim_node_server_t *s, uint32_t src, const uint8_t *data, size_t len) {
    sim_time_t now = sim_engine_now(&w->engine);
    if (now < s->down_until) {
        w->m.down_drops++; /* restarting: nothing listens */
        sim_log_record(w->log, now, SIM_LOG_DROP, src, s->node, SIM_DROP_SERVER_DOWN);
        return;
    }
    if (s->cfg->queue_capacity > 0 && s->queued >= s->cfg->queue_capacity) {
        w->m.queue_drops++; /* overload: the service queue is full */
        sim_log_record(w->log, now, SIM_LOG_DROP, src, s->node, SIM_DROP_QUEUE_FULL);
        return;
    }
    uint32_t delay = s->cfg->processing_us;
    if (s->cfg->processing_jitter_us) {
        /* the jitter stream of the link src -> server: its draws follow that link's packets only */
        sim_rng_t *r = sim_net_stream(w->net, src, s->node, SIM_PURPOSE_PROCESSING);
        if (r == NULL) {
            w->failed = true;
            return;
        }
        delay += (uint32_t)sim_rng_below(r, (uint64_t)s->cfg->processing_jitter_us + 1u);
    }
    if (delay == 0 && s->paused_until <= now && s->cfg->queue_capacity == 0) {
        process_now(w, s, src, data, len);
        return;
    }
    uint8_t *p = len <= PKT_SIZE - 4 ? sim_pkt_get(w) : NULL;
    if (p == NULL) {
        w->failed = true;
        return;
    }
    uint32_t l32 = (uint32_t)len;
    memcpy(p, &l32, 4);
    memcpy(p + 4, data, len);
    sim_time_t at = now + delay;
    if (s->cfg->queue_capacity > 0) {
        /* one server: datagrams are served one after another, in arrival order */
        sim_time_t start = now > s->busy_until ? now : s->busy_until;
        if (s->paused_until > start) start = s->paused_until;
        at = start + delay;
        s->busy_until = at;
        s->queued++;
    }
    if (s->paused_until > at) at = s->paused_until;
    sim_engine_schedule(&w->engine, at, SIM_CLASS_DELIVER, ev_process_pkt, s, src, p);
}

/* Start time after a restart at run time now: strictly younger than before. */
static uint64_t restart_start_s(uint64_t previous, uint64_t run_ms) {
    uint64_t t = run_ms / 1000u;
    return t > previous ? t : previous + 1u;
}

uint64_t sim_server_id_at(const sim_world_t *w, size_t server, uint64_t at_ms) {
    const sim_config_t *cfg = w->cfg;
    uint64_t start = cfg->servers[server].params.server_start_s;
    /* restarts are applied in time order; faults are sorted by the loader */
    for (size_t i = 0; i < cfg->n_faults; i++) {
        const sim_fault_cfg_t *f = &cfg->faults[i];
        uint64_t back_ms = f->at_ms + (uint64_t)(f->value > 0 ? f->value : 0); /* after any downtime */
        if (f->kind == SIM_FAULT_RESTART && back_ms <= at_ms && strcmp(f->target, cfg->servers[server].name) == 0) {
            start = restart_start_s(start, SIM_RUN_EPOCH_MS + back_ms);
        }
    }
    uint64_t id = 0;
    r_client_encode_server_id(start, cfg->servers[server].params.listener_id, cfg->servers[server].params.node_id, &id);
    return id;
}

int sim_server_do_restart(sim_world_t *w, sim_node_server_t *s) {
    uint64_t start = r_client_decode_server_id(sim_server_id(s->srv)).server_start_s;
    if (sim_server_restart(s->srv, restart_start_s(start, sim_run_ms(w))) != 0) return -1;
    if (s->n_ids < sizeof s->id_history / sizeof s->id_history[0]) s->id_history[s->n_ids++] = sim_server_id(s->srv);
    return 0;
}

int sim_servers_create(sim_world_t *w) {
    const sim_config_t *cfg = w->cfg;
    w->servers = calloc(cfg->n_servers ? cfg->n_servers : 1, sizeof *w->servers);
    if (w->servers == NULL) return -1;
    w->n_servers = cfg->n_servers;
    for (size_t i = 0; i < cfg->n_servers; i++) {
        sim_node_server_t *s = &w->servers[i];
        s->w = w;
        s->cfg = &cfg->servers[i];
        s->node = (uint32_t)(cfg->n_clients + i);
        s->skew_ms = s->cfg->clock_skew_ms;
        sim_rng_t rng;
        sim_rng_entity(&rng, w->seed, SIM_STREAM_SERVER, i, SIM_PURPOSE_SERVER);
        s->srv = sim_server_new(&s->cfg->params, &rng);
        if (s->srv == NULL) {
            snprintf(w->err, sizeof w->err, "servers[%zu] (%s): invalid server parameters", i, s->cfg->name);
            return -1;
        }
        s->id_history[s->n_ids++] = sim_server_id(s->srv);
    }
    /* The oracle: one authoritative server, no loss, healthy dedup, no freshness check. */
    sim_server_params_t op;
    memset(&op, 0, sizeof op);
    op.server_start_s = SIM_RUN_EPOCH_MS / 1000u;
    /* each request reaches the oracle once: its dedup cache never hits, so
     * its capacity stays small (evictions there are harmless); the cap
     * accepts every dedup_ttl_ms a key allows (a request above the cap
     * would be refused, sim_server.c order of checks 6) */
    op.dedup_capacity = 4096;
    op.dedup_ttl_cap_ms = UINT32_MAX;
    sim_rng_t rng;
    sim_rng_entity(&rng, w->seed, SIM_STREAM_SERVER, 0xFFFFu, SIM_PURPOSE_SERVER);
    w->oracle = sim_server_new(&op, &rng);
    return w->oracle != NULL ? 0 : -1;
}

void sim_servers_destroy(sim_world_t *w) {
    for (size_t i = 0; i < w->n_servers; i++) {
        sim_server_free(w->servers[i].srv);
        for (size_t c = 0; w->servers[i].last_resp != NULL && c < w->cfg->n_clients; c++) {
            free(w->servers[i].last_resp[c]);
        }
        free(w->servers[i].last_resp);
    }
    free(w->servers);
    w->servers = NULL;
    sim_server_free(w->oracle);
    w->oracle = NULL;
    for (size_t i = 0; i < w->n_pkt_all; i++) free(w->pkt_all[i]);
    free(w->pkt_all);
    free(w->pkt_free);
    for (size_t i = 0; i < w->n_req_blocks; i++) {
        for (size_t k = 0; k < REQ_BLOCK; k++) free(w->req_blocks[i][k].touch_more);
        free(w->req_blocks[i]);
    }
    free(w->req_blocks);
    for (size_t i = 0; i < w->n_ext_blocks; i++) free(w->ext_blocks[i]);
    free(w->ext_blocks);
    free(w->uids.slots);
}
