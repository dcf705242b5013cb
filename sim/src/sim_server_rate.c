/* SPDX-License-Identifier: MIT */
/* sim_server_rate.c - the reference server's state models: fixed-window rate
 * buckets, sliding-window-minimum latency trackers, metrics-label quota, and
 * the validate / decide / commit pipeline that makes a Rate Request and a
 * Latency Report atomic (wire_protocol.md "Guard Blocks", "Resource Blocks",
 * "Response Semantics", "Quota Enforcement Semantics"). The model is
 * described in the block comment of sim_server.c.
 *
 * Every request runs in three phases so that a drop changes nothing:
 *   1. validate: shapes against quotas, live bindings (mismatch), entry
 *      counts against quotas; reads only (a sweep of expired entries is not
 *      a semantic change);
 *   2. decide: guards, then per-resource deficits;
 *   3. commit: establish/refresh every bucket and tracker, consume tokens
 *      only when allowed. */
#include <stdlib.h>
#include <string.h>

#include "sim_server_int.h"

static srv_tenant_t *owner(void *ctx, const void *entry) {
    return srv_tenant_find((const sim_server_t *)ctx, ((const srv_entry_hdr_t *)entry)->key_id);
}

void srv_on_remove_bucket(void *ctx, void *entry) {
    srv_tenant_t *t = owner(ctx, entry);
    if (t != NULL && t->buckets > 0) {
        t->buckets--;
    }
}

/* Bytes of a tracker slot of cap points: cap monotonic points and cap
 * arrival times (SRV_MEM_PER_BUFFER_POINT per point). */
static uint64_t slot_bytes(uint32_t cap) {
    return (uint64_t)cap * (sizeof(srv_sample_t) + sizeof(uint64_t));
}
_Static_assert(sizeof(srv_sample_t) + sizeof(uint64_t) <= SRV_MEM_PER_BUFFER_POINT,
               "SRV_MEM_PER_BUFFER_POINT covers one slot point");
/* Per live tracker beyond its slot: its table entry and its service index
 * entry at a table load down to 1/4 (a table doubles when over 1/2 full),
 * its counters record in an array that doubles, and the slot's malloc header. */
_Static_assert(4u * sizeof(srv_tracker_t) + 4u * sizeof(srv_index_entry_t) + 2u * sizeof(srv_service_rec_t) + 16u <=
                   SRV_MEM_PER_SERVICE,
               "SRV_MEM_PER_SERVICE covers one latency service");

static void tracker_slot_free(sim_server_t *s, srv_tracker_t *tr) {
    if (tr->points != NULL) {
        s->stats.tracker_bytes -= slot_bytes(tr->cap);
    }
    free(tr->points);
    tr->points = NULL;
    tr->recent = NULL;
    tr->cap = tr->pcap = tr->rcap = 0;
}

void srv_on_remove_tracker(void *ctx, void *entry) {
    tracker_slot_free(ctx, entry);
    srv_tenant_t *t = owner(ctx, entry);
    if (t != NULL && t->trackers > 0) {
        t->trackers--;
    }
}

void srv_on_remove_label(void *ctx, void *entry) {
    srv_tenant_t *t = owner(ctx, entry);
    if (t != NULL && t->labels > 0) {
        t->labels--;
    }
}

/* ---- latency trackers -------------------------------------------------------- */

/* current_latency: the value of the oldest point younger than ttl_ms (the
 * points are the last max_samples samples the monotonic buffer kept, so
 * this is their minimum), once the last min_sample_threshold samples are all
 * younger than ttl_ms; else 0 ("0 if no data available", wire_protocol.md
 * "Guard Block Response"). */
static uint32_t tracker_current(const srv_tracker_t *tr, uint64_t now_ms) {
    if (tr->gated_off) {
        return 0;
    }
    if (tr->rcap > 0) {
        uint32_t oldest = (tr->rnext + tr->rcap - tr->rn) % tr->rcap;
        if (tr->rn < tr->rcap || now_ms >= tr->recent[oldest] + tr->ttl_ms) {
            return 0; /* fewer than min_sample_threshold live samples */
        }
    }
    for (uint32_t k = 0; k < tr->pn; k++) {
        const srv_sample_t *pt = &tr->points[(tr->phead + k) % tr->pcap];
        if (now_ms < pt->at_ms + tr->ttl_ms) {
            return pt->value; /* later points are not smaller */
        }
    }
    return 0;
}

static bool tracker_same_config(const srv_tracker_t *tr, const srv_tracker_block_t *b) {
    return tr->ttl_ms == b->ttl_ms && tr->max_samples == b->max_samples && tr->buffer_size == b->buffer_size &&
           tr->min_sample_threshold == b->min_sample_threshold;
}

static bool block_same_config(const srv_tracker_block_t *a, const srv_tracker_block_t *b) {
    return a->ttl_ms == b->ttl_ms && a->max_samples == b->max_samples && a->buffer_size == b->buffer_size &&
           a->min_sample_threshold == b->min_sample_threshold;
}

/* The MISMATCH reason: the first setting of block i of `where` that differs
 * from the bound one. */
static sim_server_verdict_t tracker_mismatch(sim_server_t *s, const char *where, size_t i,
                                             const srv_tracker_block_t *b, const srv_tracker_block_t *bound,
                                             const char *note) {
    const char *field = "min_sample_threshold";
    uint64_t got = b->min_sample_threshold, want = bound->min_sample_threshold;
    if (b->ttl_ms != bound->ttl_ms) {
        field = "ttl_ms", got = b->ttl_ms, want = bound->ttl_ms;
    } else if (b->max_samples != bound->max_samples) {
        field = "max_samples", got = b->max_samples, want = bound->max_samples;
    } else if (b->buffer_size != bound->buffer_size) {
        field = "buffer_size", got = b->buffer_size, want = bound->buffer_size;
    }
    return SRV_DROP(s, SIM_SRV_DROP_MISMATCH, .where = where, .block = (unsigned)i + 1u, .field = field, .got = got,
                    .rel = "want", .want = want, .note = note);
}

/* (Re)bind a tracker entry to a configuration with no samples, in a slot of
 * cap points (the key's latency_buffer_size_max; buffer_size <= cap was
 * validated). The gate's ring of min_sample_threshold arrival times shares the
 * slot: a threshold above max_samples or above cap can never be checked, so
 * that tracker never controls admission. Out of memory: no slot, no points,
 * never controls. */
static void tracker_bind(sim_server_t *s, srv_tracker_t *tr, const srv_tracker_block_t *b, uint32_t cap) {
    if (tr->points == NULL || tr->cap != cap) {
        tracker_slot_free(s, tr);
        tr->points = cap == 0 ? NULL : malloc((size_t)slot_bytes(cap));
        if (tr->points != NULL) {
            tr->cap = cap;
            tr->recent = (uint64_t *)(tr->points + cap);
            s->stats.tracker_bytes += slot_bytes(cap);
        }
    }
    tr->gated_off = tr->points == NULL || b->min_sample_threshold > b->max_samples || b->min_sample_threshold > tr->cap;
    tr->pcap = tr->points == NULL ? 0 : (b->buffer_size < tr->cap ? b->buffer_size : tr->cap);
    tr->rcap = tr->gated_off ? 0 : b->min_sample_threshold;
    tr->ttl_ms = b->ttl_ms;
    tr->max_samples = b->max_samples;
    tr->buffer_size = b->buffer_size;
    tr->min_sample_threshold = b->min_sample_threshold;
    tr->phead = tr->pn = 0;
    tr->rnext = tr->rn = 0;
    tr->seq = 0;
}

/* Find-or-create the live tracker for a validated block and extend its life
 * to now + ttl_ms. Requires srv_table_reserve() for new entries. */
static srv_tracker_t *tracker_touch(sim_server_t *s, srv_tenant_t *t, const srv_tracker_block_t *b,
                                    uint64_t now_ms) {
    srv_tracker_t *tr = srv_table_find(&s->trackers, t->key_id, b->id);
    if (tr == NULL) {
        tr = srv_table_insert(&s->trackers, t->key_id, b->id);
        t->trackers++;
        tracker_bind(s, tr, b, t->quotas.latency_buffer_size_max);
    } else if (!srv_entry_live(tr, now_ms)) {
        tracker_bind(s, tr, b, t->quotas.latency_buffer_size_max); /* the old binding expired: forget it */
    }
    uint64_t expiry = now_ms + b->ttl_ms;
    srv_table_set_expiry(&s->trackers, tr, expiry > tr->h.expiry_ms ? expiry : tr->h.expiry_ms);
    return tr;
}

/* One sample, number seq: points older than ttl_ms or no longer among the
 * last max_samples samples leave the head, points not smaller than the
 * sample leave the tail (they can never be the minimum again), and the
 * sample is appended; a full buffer first drops its head (the oldest point).
 * Sample numbers wrap at 2^32: a point's distance seq - p.seq is exact
 * because a point leaves once it reaches max_samples <= 2^32 - 1. */
static void tracker_push(srv_tracker_t *tr, uint64_t now_ms, uint32_t value) {
    uint32_t seq = tr->seq++;
    if (tr->rcap > 0) {
        tr->recent[tr->rnext] = now_ms;
        tr->rnext = (tr->rnext + 1) % tr->rcap;
        tr->rn = tr->rn < tr->rcap ? tr->rn + 1 : tr->rcap;
    }
    if (tr->pcap == 0 || tr->max_samples == 0) {
        return; /* max_samples 0 keeps no sample */
    }
    while (tr->pn > 0 && (now_ms >= tr->points[tr->phead].at_ms + tr->ttl_ms ||
                          seq - tr->points[tr->phead].seq >= tr->max_samples)) {
        tr->phead = (tr->phead + 1) % tr->pcap;
        tr->pn--;
    }
    while (tr->pn > 0 && tr->points[(tr->phead + tr->pn - 1) % tr->pcap].value >= value) {
        tr->pn--;
    }
    if (tr->pn == tr->pcap) {
        tr->phead = (tr->phead + 1) % tr->pcap;
        tr->pn--;
    }
    tr->points[(tr->phead + tr->pn) % tr->pcap] = (srv_sample_t){now_ms, value, seq};
    tr->pn++;
}

/* Phase 1 for tracker blocks (guards or services): buffer_size quota, live
 * binding and in-PDU consistency, then the latency_services_max count.
 * current[i] (may be NULL) receives each tracker's current latency. */
static sim_server_verdict_t validate_trackers(sim_server_t *s, srv_tenant_t *t, const char *where,
                                              const srv_tracker_block_t *b, size_t n, uint64_t now_ms,
                                              uint32_t *current) {
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i].buffer_size > t->quotas.latency_buffer_size_max) {
            return SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = where, .block = (unsigned)i + 1u, .field = "buffer_size",
                            .got = b[i].buffer_size, .rel = "max", .want = t->quotas.latency_buffer_size_max,
                            .note = "the key's latency_buffer_size_max");
        }
    }
    for (size_t i = 0; i < n; i++) {
        const srv_tracker_t *tr = srv_table_find(&s->trackers, t->key_id, b[i].id);
        bool live = srv_entry_live(tr, now_ms);
        if (live && !tracker_same_config(tr, &b[i])) {
            srv_tracker_block_t bound = {.ttl_ms = tr->ttl_ms, .max_samples = tr->max_samples,
                                         .buffer_size = tr->buffer_size,
                                         .min_sample_threshold = tr->min_sample_threshold};
            return tracker_mismatch(s, where, i, &b[i], &bound,
                                    "the live tracker with this latency_tracker_id has other settings");
        }
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++) {
            if (memcmp(b[j].id, b[i].id, SRV_ID_LEN) == 0) {
                if (!block_same_config(&b[j], &b[i])) {
                    return tracker_mismatch(s, where, i, &b[i], &b[j],
                                            "an earlier block has this latency_tracker_id with other settings");
                }
                dup = true;
            }
        }
        fresh += (!live && !dup) ? 1u : 0u;
        if (current != NULL) {
            current[i] = live ? tracker_current(tr, now_ms) : 0u;
        }
    }
    /* Stored counts include expired entries: sweep them before refusing. */
    if (t->trackers + fresh > t->quotas.latency_services_max &&
        (!srv_table_sweep(&s->trackers, now_ms) || t->trackers + fresh > t->quotas.latency_services_max)) {
        return SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = where, .field = "live latency trackers",
                        .got = t->trackers + fresh, .rel = "max", .want = t->quotas.latency_services_max,
                        .note = "the key's latency_services_max");
    }
    return srv_table_reserve(&s->trackers, fresh, now_ms) == 0
               ? SIM_SRV_ANSWERED
               : SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = "server", .note = "out of memory for new trackers");
}

/* ---- rate buckets ------------------------------------------------------------ */

typedef struct {
    srv_resource_block_t r[SRV_MAX_RESOURCES];
    uint32_t consumed[SRV_MAX_RESOURCES];  /* in the current window, before this request */
    int first[SRV_MAX_RESOURCES];          /* index of the first block with this bucket_id */
    uint16_t deficit[SRV_MAX_RESOURCES];
    uint32_t total[SRV_MAX_RESOURCES];     /* tokens of this bucket over the request (at first) */
} rate_work_t;

static uint64_t window_start(uint64_t now_ms, uint32_t window_size_ms) {
    return now_ms - now_ms % window_size_ms;
}

/* The MISMATCH reason for resource block i against the bound settings. */
static sim_server_verdict_t bucket_mismatch(sim_server_t *s, size_t i, const srv_resource_block_t *r,
                                            uint32_t window_size_ms, uint32_t rate_limit, const char *note) {
    bool window = r->window_size_ms != window_size_ms;
    return SRV_DROP(s, SIM_SRV_DROP_MISMATCH, .where = "resources", .block = (unsigned)i + 1u,
                    .field = window ? "window_size_ms" : "rate_limit", .got = window ? r->window_size_ms : r->rate_limit,
                    .rel = "want", .want = window ? window_size_ms : rate_limit, .note = note);
}

/* Phase 1 for resources: window shape, live binding, in-request consistency,
 * rate_buckets_max. */
static sim_server_verdict_t validate_resources(sim_server_t *s, srv_tenant_t *t, rate_work_t *w, size_t n,
                                               uint64_t now_ms) {
    for (size_t i = 0; i < n; i++) {
        if (w->r[i].window_size_ms == 0) { /* no window can be formed */
            return SRV_DROP(s, SIM_SRV_DROP_MALFORMED, .where = "resources", .block = (unsigned)i + 1u,
                            .field = "window_size_ms", .got = 0, .rel = "min", .want = 1);
        }
        if (w->r[i].window_size_ms > t->quotas.rate_window_size_ms_max) {
            return SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = "resources", .block = (unsigned)i + 1u,
                            .field = "window_size_ms", .got = w->r[i].window_size_ms, .rel = "max",
                            .want = t->quotas.rate_window_size_ms_max, .note = "the key's rate_window_size_ms_max");
        }
    }
    size_t fresh = 0;
    for (size_t i = 0; i < n; i++) {
        const srv_resource_block_t *r = &w->r[i];
        const srv_bucket_t *b = srv_table_find(&s->buckets, t->key_id, r->bucket_id);
        bool live = srv_entry_live(b, now_ms);
        if (live && (b->window_size_ms != r->window_size_ms || b->rate_limit != r->rate_limit)) {
            return bucket_mismatch(s, i, r, b->window_size_ms, b->rate_limit,
                                   "the live bucket with this bucket_id has other settings");
        }
        w->first[i] = (int)i;
        for (size_t j = 0; j < i; j++) {
            if (memcmp(w->r[j].bucket_id, r->bucket_id, SRV_ID_LEN) == 0) {
                if (w->r[j].window_size_ms != r->window_size_ms || w->r[j].rate_limit != r->rate_limit) {
                    return bucket_mismatch(s, i, r, w->r[j].window_size_ms, w->r[j].rate_limit,
                                           "an earlier block has this bucket_id with other settings");
                }
                w->first[i] = (int)j;
                break;
            }
        }
        bool same_window = live && b->window_start_ms == window_start(now_ms, r->window_size_ms);
        w->consumed[i] = same_window ? b->consumed : 0u;
        fresh += (!live && w->first[i] == (int)i) ? 1u : 0u;
    }
    if (t->buckets + fresh > t->quotas.rate_buckets_max &&
        (!srv_table_sweep(&s->buckets, now_ms) || t->buckets + fresh > t->quotas.rate_buckets_max)) {
        return SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = "resources", .field = "live rate buckets",
                        .got = t->buckets + fresh, .rel = "max", .want = t->quotas.rate_buckets_max,
                        .note = "the key's rate_buckets_max");
    }
    return srv_table_reserve(&s->buckets, fresh, now_ms) == 0
               ? SIM_SRV_ANSWERED
               : SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = "server", .note = "out of memory for new buckets");
}

/* Phase 2: deficit of each block against what the window has left after the
 * bucket's consumption and the earlier blocks of this request for the same
 * bucket. Returns true when every deficit is 0. */
static bool decide_resources(rate_work_t *w, size_t n) {
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        const srv_resource_block_t *r = &w->r[i];
        size_t f = (size_t)w->first[i];
        uint64_t used = (uint64_t)w->consumed[f] + (f == i ? 0u : w->total[f]);
        uint64_t left = used < r->rate_limit ? r->rate_limit - used : 0u;
        w->deficit[i] = r->tokens_requested > left ? (uint16_t)(r->tokens_requested - left) : 0u;
        w->total[f] = (f == i ? 0u : w->total[f]) + r->tokens_requested;
        ok = ok && w->deficit[i] == 0;
    }
    return ok;
}

/* Phase 3 for one bucket (first block of its id): establish or refresh the
 * binding for the current window; consume only when allowed. Returns the
 * tokens consumed in the window after the decision (actual_rate). */
static uint32_t bucket_commit(sim_server_t *s, srv_tenant_t *t, const srv_resource_block_t *r, uint32_t tokens,
                              bool allowed, uint64_t now_ms) {
    srv_bucket_t *b = srv_table_find(&s->buckets, t->key_id, r->bucket_id);
    if (b == NULL) {
        b = srv_table_insert(&s->buckets, t->key_id, r->bucket_id);
        t->buckets++;
    }
    uint64_t ws = window_start(now_ms, r->window_size_ms);
    if (!srv_entry_live(b, now_ms) || b->window_start_ms != ws) {
        b->window_start_ms = ws;
        b->consumed = 0;
    }
    b->window_size_ms = r->window_size_ms;
    b->rate_limit = r->rate_limit;
    if (allowed) {
        uint64_t c = (uint64_t)b->consumed + tokens;
        b->consumed = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    }
    srv_table_set_expiry(&s->buckets, b, ws + r->window_size_ms);
    return b->consumed;
}

static void commit_resources(sim_server_t *s, srv_tenant_t *t, rate_work_t *w, srv_pdu_t *pdu, bool allowed,
                             uint64_t now_ms) {
    uint32_t actual[SRV_MAX_RESOURCES];
    for (size_t i = 0; i < pdu->resource_count; i++) {
        size_t f = (size_t)w->first[i];
        if (f == i) {
            actual[i] = bucket_commit(s, t, &w->r[i], w->total[i], allowed, now_ms);
        } else {
            actual[i] = actual[f];
        }
    }
    for (size_t i = 0; i < pdu->resource_count; i++) {
        srv_put_resource_result(pdu, i, actual[(size_t)w->first[i]], w->deficit[i]);
    }
}

sim_server_verdict_t srv_rate_request(sim_server_t *s, srv_tenant_t *t, srv_pdu_t *pdu, uint64_t now_ms,
                                      srv_decision_t *out) {
    srv_tracker_block_t g[SRV_MAX_GUARDS];
    uint32_t current[SRV_MAX_GUARDS];
    rate_work_t w;
    for (size_t i = 0; i < pdu->resource_count; i++) {
        srv_resource_at(pdu, i, &w.r[i]);
    }
    for (size_t i = 0; i < pdu->guard_count; i++) {
        srv_guard_at(pdu, i, &g[i]);
    }
    /* Resources are validated before guards are evaluated or any state is
     * created (wire_protocol.md "Quota Enforcement Semantics"). */
    sim_server_verdict_t v = validate_resources(s, t, &w, pdu->resource_count, now_ms);
    if (v == SIM_SRV_ANSWERED) {
        v = validate_trackers(s, t, "guards", g, pdu->guard_count, now_ms, current);
    }
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    if (s->forced_deny) { /* sim_server_set_forced_deny: every tracker at its threshold */
        for (size_t i = 0; i < pdu->guard_count; i++) {
            current[i] = current[i] > g[i].value ? current[i] : g[i].value;
        }
    }
    bool guards_ok = true;
    for (size_t i = 0; i < pdu->guard_count; i++) {
        bool pass = current[i] < g[i].value; /* >= latency_threshold denies */
        guards_ok = guards_ok && pass;
        /* wire_protocol.md "Tenant Service Latency Counter record" */
        srv_service_rec_t *rec = srv_service_rec(s, t, &g[i]);
        if (rec != NULL) {
            rec->checks_total++;
            rec->checks_passed += pass ? 1u : 0u;
            rec->checks_failed += (!pass && g[i].value > 0) ? 1u : 0u;
        }
    }
    bool rate_ok = decide_resources(&w, pdu->resource_count);
    for (size_t i = 0; s->forced_deny && i < pdu->resource_count; i++) { /* and every bucket empty */
        w.deficit[i] = w.r[i].tokens_requested;
        rate_ok = rate_ok && w.deficit[i] == 0;
    }
    out->allowed = guards_ok && rate_ok;
    out->guard_failed = !guards_ok;
    out->tokens_granted = 0;
    for (size_t i = 0; out->allowed && i < pdu->resource_count; i++) {
        out->tokens_granted += w.r[i].tokens_requested;
    }
    for (size_t i = 0; i < pdu->guard_count; i++) {
        tracker_touch(s, t, &g[i], now_ms);
        srv_put_guard_latency(pdu, i, current[i]);
    }
    commit_resources(s, t, &w, pdu, out->allowed, now_ms);
    return SIM_SRV_ANSWERED;
}

sim_server_verdict_t srv_latency_report(sim_server_t *s, srv_tenant_t *t, const srv_pdu_t *pdu, uint64_t now_ms) {
    srv_tracker_block_t b[SRV_MAX_SERVICES];
    for (size_t i = 0; i < pdu->service_count; i++) {
        srv_service_at(pdu, i, &b[i]);
    }
    sim_server_verdict_t v = validate_trackers(s, t, "services", b, pdu->service_count, now_ms, NULL);
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    for (size_t i = 0; i < pdu->service_count; i++) {
        tracker_push(tracker_touch(s, t, &b[i], now_ms), now_ms, b[i].value);
        srv_service_rec_t *rec = srv_service_rec(s, t, &b[i]);
        if (rec != NULL) {
            rec->report_count++;
        }
    }
    t->service_reports += pdu->service_count;
    s->st.latency_reports += pdu->service_count;
    return SIM_SRV_REPORT;
}

/* Label fingerprint: two FNV-1a-64 passes with different offsets fill the
 * 16-byte table id (collisions would only merge two labels' accounting). */
static void label_id(const uint8_t *label, size_t len, uint8_t id[SRV_ID_LEN]) {
    uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
    for (size_t i = 0; i < len; i++) {
        h1 = (h1 ^ label[i]) * 0x100000001b3ull;
        h2 = (h2 ^ label[i]) * 0x100000001b3ull;
    }
    srv_st64(id, h1);
    srv_st64(id + 8, h2 ^ len);
}

static const uint8_t OVERFLOW_LABEL[8] = {'o', 'v', 'e', 'r', 'f', 'l', 'o', 'w'};

/* Append a label record (bytes copied). Returns its index or -1. */
static int64_t label_rec_append(srv_tenant_t *t, const uint8_t *label, size_t len) {
    if (t->n_label_recs == t->label_recs_cap) {
        uint32_t cap = t->label_recs_cap == 0 ? 8u : t->label_recs_cap * 2u;
        srv_label_rec_t *fresh = realloc(t->label_recs, (size_t)cap * sizeof *fresh);
        if (fresh == NULL) {
            return -1;
        }
        t->label_recs = fresh;
        t->label_recs_cap = cap;
    }
    uint8_t *copy = NULL;
    if (len > 0 && (copy = malloc(len)) == NULL) {
        return -1;
    }
    if (len > 0) {
        memcpy(copy, label, len);
    }
    srv_label_rec_t *r = &t->label_recs[t->n_label_recs];
    memset(r, 0, sizeof *r);
    r->len = (uint16_t)len;
    r->bytes = copy;
    return (int64_t)t->n_label_recs++;
}

static srv_counts_t *overflow_counts(srv_tenant_t *t) {
    if (t->overflow_rec < 0) {
        t->overflow_rec = label_rec_append(t, OVERFLOW_LABEL, sizeof OVERFLOW_LABEL);
    }
    return t->overflow_rec < 0 ? NULL : &t->label_recs[t->overflow_rec].c;
}

srv_counts_t *srv_label_counts(sim_server_t *s, srv_tenant_t *t, const uint8_t *label, size_t len) {
    if (len == sizeof OVERFLOW_LABEL && memcmp(label, OVERFLOW_LABEL, len) == 0) {
        return overflow_counts(t); /* the fixed overflow label itself: one record, no quota slot */
    }
    uint8_t id[SRV_ID_LEN];
    label_id(label, len, id);
    srv_index_entry_t *e = srv_table_find(&s->labels, t->key_id, id);
    if (e != NULL) {
        return &t->label_recs[e->index].c;
    }
    int64_t at = -1;
    if (t->labels >= t->quotas.metrics_labels_max || srv_table_reserve(&s->labels, 1, 0) != 0 ||
        (at = label_rec_append(t, label, len)) < 0) {
        s->stats.labels_overflowed++; /* counted under the fixed label "overflow" */
        return overflow_counts(t);
    }
    e = srv_table_insert(&s->labels, t->key_id, id);
    e->index = (uint32_t)at;
    srv_table_set_expiry(&s->labels, e, UINT64_MAX);
    t->labels++;
    return &t->label_recs[at].c;
}

void srv_count_label(sim_server_t *s, srv_tenant_t *t, const uint8_t *label, size_t len) {
    (void)srv_label_counts(s, t, label, len);
}

srv_service_rec_t *srv_service_rec(sim_server_t *s, srv_tenant_t *t, const srv_tracker_block_t *b) {
    srv_index_entry_t *e = srv_table_find(&s->services, t->key_id, b->id);
    srv_service_rec_t *r = NULL;
    if (e != NULL) {
        r = &t->svc_recs[e->index];
    } else {
        if (t->n_svc_recs >= t->quotas.latency_services_max || srv_table_reserve(&s->services, 1, 0) != 0) {
            return NULL;
        }
        if (t->n_svc_recs == t->svc_recs_cap) {
            uint32_t cap = t->svc_recs_cap == 0 ? 8u : t->svc_recs_cap * 2u;
            srv_service_rec_t *fresh = realloc(t->svc_recs, (size_t)cap * sizeof *fresh);
            if (fresh == NULL) {
                return NULL;
            }
            t->svc_recs = fresh;
            t->svc_recs_cap = cap;
        }
        e = srv_table_insert(&s->services, t->key_id, b->id);
        e->index = t->n_svc_recs;
        srv_table_set_expiry(&s->services, e, UINT64_MAX);
        r = &t->svc_recs[t->n_svc_recs++];
        memset(r, 0, sizeof *r);
        memcpy(r->id, b->id, SRV_ID_LEN);
    }
    /* latency_tracker_id is the key; the definition is repeated as metadata. */
    r->ttl_ms = b->ttl_ms;
    r->max_samples = b->max_samples;
    r->buffer_size = b->buffer_size;
    r->min_sample_threshold = b->min_sample_threshold;
    return r;
}

void srv_label_recs_reset(srv_tenant_t *t) {
    for (uint32_t i = 0; i < t->n_label_recs; i++) {
        free(t->label_recs[i].bytes);
    }
    free(t->label_recs);
    t->label_recs = NULL;
    t->n_label_recs = t->label_recs_cap = 0;
    t->overflow_rec = -1;
}

void srv_service_recs_reset(srv_tenant_t *t) {
    free(t->svc_recs);
    t->svc_recs = NULL;
    t->n_svc_recs = t->svc_recs_cap = 0;
}

void srv_metrics_reset(srv_tenant_t *t) {
    srv_label_recs_reset(t);
    srv_service_recs_reset(t);
    memset(&t->summary, 0, sizeof t->summary);
    t->service_reports = 0;
    t->metrics_gen++;
    t->mq_batch = 0;
}
