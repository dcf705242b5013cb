/* SPDX-License-Identifier: MIT */
/* sim_metrics.c - the metrics of r-client-ha-design.md section 7 for one run:
 * collection during the run, final figures, and output as a table for people
 * and JSON for tools. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

int sim_metrics_latency(sim_world_t *w, sim_time_t latency_us) {
    if (w->n_lat == w->cap_lat) {
        size_t cap = w->cap_lat ? w->cap_lat * 2 : 4096;
        uint32_t *p = realloc(w->latencies_us, cap * sizeof *p);
        if (p == NULL) return -1;
        w->latencies_us = p;
        w->cap_lat = cap;
    }
    w->latencies_us[w->n_lat++] = latency_us > UINT32_MAX ? UINT32_MAX : (uint32_t)latency_us;
    return 0;
}

/* ---- over-consumption: (bucket_id, window) -> tokens the clients allowed ---- */

static size_t win_hash(uint64_t key_id, const uint8_t *b, uint64_t window) {
    uint64_t h;
    memcpy(&h, b, 8);
    h ^= window * 0x9E3779B97F4A7C15ull ^ key_id * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29));
}

static int win_grow(sim_windowmap_t *m) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    sim_window_t *slots = calloc(cap, sizeof *slots);
    if (slots == NULL) return -1;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used) continue;
        size_t j = win_hash(m->slots[i].key_id, m->slots[i].bucket, m->slots[i].window) & (cap - 1);
        while (slots[j].used) j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

static sim_window_t *win_get(sim_windowmap_t *m, uint64_t key_id, const uint8_t *bucket, uint64_t window,
                             uint32_t limit) {
    if ((m->count + 1) * 2 > m->cap && win_grow(m) != 0) return NULL;
    size_t j = win_hash(key_id, bucket, window) & (m->cap - 1);
    while (m->slots[j].used) {
        if (m->slots[j].window == window && m->slots[j].key_id == key_id &&
            memcmp(m->slots[j].bucket, bucket, 16) == 0)
            return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    sim_window_t *s = &m->slots[j];
    s->used = true;
    s->key_id = key_id;
    memcpy(s->bucket, bucket, 16);
    s->window = window;
    s->limit = limit;
    m->count++;
    return s;
}

/* Windows are fixed, aligned to multiples of window_size_ms, per tenant
 * (key_id) and bucket; an allowed request counts in the window of the grant
 * the application uses, on the clock of the server that made it (clock_ms,
 * docs/traces.md "Over-consumption"). */
int sim_metrics_allowed_tokens(sim_world_t *w, uint64_t key_id, const sim_shape_t *shape, uint64_t clock_ms) {
    for (size_t i = 0; i < shape->n_res; i++) {
        const r_resource_request_t *r = &shape->res[i];
        uint64_t win = r->window_size_ms ? clock_ms / r->window_size_ms : 0;
        sim_window_t *s = win_get(&w->windows, key_id, r->bucket_id, win, r->rate_limit);
        if (s == NULL) return -1;
        s->tokens += r->tokens_requested;
    }
    return 0;
}

/* Two different servers, one allowing and one denying (a single server that
 * answered both, after losing its dedup entry, is not a disagreement). */
static bool servers_differ(const sim_req_t *r, uint32_t need) {
    uint32_t n_allow = 0, n_deny = 0, first_allow = 0, first_deny = 0;
    for (uint32_t k = 0; k < r->n_touch; k++) {
        const sim_touch_t *t = k < SIM_TOUCH_INLINE ? &r->touch[k] : &r->touch_more[k - SIM_TOUCH_INLINE];
        if ((t->flags & need) != need) continue;
        if ((t->flags & SIM_TOUCH_ALLOWED) && n_allow++ == 0) first_allow = t->server;
        if ((t->flags & SIM_TOUCH_DENIED) && n_deny++ == 0) first_deny = t->server;
    }
    return n_allow != 0 && n_deny != 0 && !(n_allow == 1 && n_deny == 1 && first_allow == first_deny);
}

void sim_metrics_forget(sim_world_t *w, const sim_req_t *r) {
    if (!r->decided || r->is_report) return;
    bool differ = servers_differ(r, 0);
    if (differ || (r->oracle_applied && r->oracle_wrong)) sim_conv_unsettled(w, r->decided_at);
    if (differ && r->status == RCLIENT_OK) { /* decided: a selected server response (not a timeout) */
        w->m.disagreed++;
        w->disagreed_decided++;
        if (r->client_allowed && !r->oracle_allowed) w->m.false_allow_rate_disagree += 1;
        if (!r->client_allowed && r->oracle_allowed) w->m.false_deny_rate_disagree += 1;
    }
    if (servers_differ(r, SIM_TOUCH_DELIVERED)) w->m.contradictory++;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

size_t sim_nearest_rank(size_t n, unsigned pct) {
    size_t rank = (pct * n + 99) / 100; /* ceil(pct * n / 100), exact */
    return rank > 0 ? rank - 1 : 0;
}

static double quantile_ms(const uint32_t *v, size_t n, unsigned pct) {
    return n == 0 ? 0 : (double)v[sim_nearest_rank(n, pct)] / 1000.0;
}

void sim_metrics_finish(sim_world_t *w) {
    sim_metrics_t *m = &w->m;
    m->availability = m->submitted ? (double)m->decided / (double)m->submitted : 0;
    m->false_allow_rate = m->decided ? (double)m->false_allows / (double)m->decided : 0;
    m->false_deny_rate = m->decided ? (double)m->false_denies / (double)m->decided : 0;
    /* accumulated as counts during the run; turned into rates here */
    uint64_t dis = w->disagreed_decided;
    m->false_allow_rate_disagree = dis ? m->false_allow_rate_disagree / (double)dis : 0;
    m->false_deny_rate_disagree = dis ? m->false_deny_rate_disagree / (double)dis : 0;
    if (w->n_lat > 0) {
        qsort(w->latencies_us, w->n_lat, sizeof *w->latencies_us, cmp_u32);
    }
    m->oldest_selected_rate = m->decided ? (double)w->oldest_selected / (double)m->decided : 0;
    m->latency_p50_ms = quantile_ms(w->latencies_us, w->n_lat, 50);
    m->latency_p90_ms = quantile_ms(w->latencies_us, w->n_lat, 90);
    m->latency_p99_ms = quantile_ms(w->latencies_us, w->n_lat, 99);
    m->latency_max_ms = w->n_lat ? (double)w->latencies_us[w->n_lat - 1] / 1000.0 : 0;
    for (size_t i = 0; i < w->windows.cap; i++) {
        const sim_window_t *s = &w->windows.slots[i];
        if (s->used && s->tokens > s->limit) {
            m->overconsumed_tokens += s->tokens - s->limit;
            m->overconsumed_windows++;
        }
    }
    for (size_t i = 0; i < w->n_servers; i++) {
        const sim_server_stats_t *st = sim_server_stats(w->servers[i].srv);
        m->duplicate_deliveries += st->dedup_hits;
        uint32_t cap = w->servers[i].cfg->params.dedup_capacity ? w->servers[i].cfg->params.dedup_capacity : 65536u;
        double u = (double)st->dedup_live_max / (double)cap;
        if (u > m->dedup_utilization) m->dedup_utilization = u;
        if (st->dedup_hits) m->dedup_hit_age += st->dedup_hit_age_sum;
        m->dedup_evicted += st->dedup_evicted_capacity;
        m->dedup_lost += st->dedup_lost_degraded;
    }
    m->dedup_hit_age = m->duplicate_deliveries ? m->dedup_hit_age / (double)m->duplicate_deliveries : 0;
    m->convergence_ms = w->has_fault && w->last_wrong > w->last_fault ? (double)(w->last_wrong - w->last_fault) / 1000.0 : 0;
    m->steering_latency_ms = m->steering_requests ? w->steering_latency_sum / (double)m->steering_requests : 0;
    const sim_net_stats_t *ns = sim_net_stats(w->net);
    m->datagrams_lost = ns->dropped[SIM_DROP_LOSS] + ns->dropped[SIM_DROP_DOWN] + ns->dropped[SIM_DROP_PARTITION];
    const sim_dns_stats_t *ds = sim_dns_stats(w->dns);
    m->dns_queries = ds->srv_queries + ds->addr_queries;
    m->dns_failures = ds->failures + ds->timeouts;
}

void sim_metrics_free(sim_world_t *w) {
    free(w->latencies_us);
    w->latencies_us = NULL;
    free(w->windows.slots);
    w->windows.slots = NULL;
}

/* ---- names, lookup and output ------------------------------------------------ */

typedef struct {
    const char *key;
    size_t off;
    bool is_double;
    const char *what;
} metric_desc_t;

#define U(f, what) {#f, offsetof(sim_metrics_t, f), false, what}
#define D(f, what) {#f, offsetof(sim_metrics_t, f), true, what}
static const metric_desc_t METRICS[] = {
    U(submitted, "logical requests submitted (submit errors included)"),
    U(submit_errors, "submits refused at once (DNS warm-up, ...)"),
    U(decided, "completed with a selected response"),
    U(allowed, "allowed"),
    U(denied, "denied"),
    U(timeouts, "no acceptable response before the deadline"),
    U(io_failures, "other failures after submit (replay I/O, auth)"),
    D(availability, "decided / submitted"),
    D(latency_p50_ms, "decision latency p50 (ms)"),
    D(latency_p90_ms, "decision latency p90 (ms)"),
    D(latency_p99_ms, "decision latency p99 (ms)"),
    D(latency_max_ms, "decision latency max (ms)"),
    U(false_allows, "allowed, oracle denied"),
    U(false_denies, "denied, oracle allowed"),
    D(false_allow_rate, "false allows / decided"),
    D(false_deny_rate, "false denies / decided"),
    U(disagreed, "requests whose servers answered differently"),
    D(false_allow_rate_disagree, "false allows / requests with disagreement"),
    D(false_deny_rate_disagree, "false denies / requests with disagreement"),
    D(oldest_selected_rate, "decisions that selected the oldest server"),
    U(overconsumed_tokens, "allowed tokens beyond rate_limit, per (bucket, window)"),
    U(overconsumed_windows, "(bucket, window) pairs over their limit"),
    U(datagrams_sent, "datagrams sent by clients"),
    U(datagrams_lost, "datagrams lost, both directions (loss, down, partition)"),
    U(queue_drops, "datagrams dropped by a full server queue"),
    U(down_drops, "datagrams reaching a server in restart downtime"),
    U(replays_sent, "replay datagrams"),
    U(completion_sends, "completion-delivery datagrams"),
    U(duplicate_deliveries, "server dedup hits"),
    U(reprocessed, "same unique_id decided afresh twice by one server"),
    D(dedup_utilization, "peak live dedup entries / capacity"),
    D(dedup_hit_age, "mean dedup-hit age / accepted TTL"),
    U(dedup_evicted, "live dedup entries evicted for capacity (degraded)"),
    U(dedup_lost, "live dedup entries lost in degraded mode"),
    U(late_responses, "trusted responses after the decision (completion replies too)"),
    U(invalid_datagrams, "datagrams the client rejected (every class)"),
    U(invalid_protocol, "rejected: malformed, AES tag, not the request's answer"),
    U(invalid_auth, "rejected: wrong auth type, cookie mismatch"),
    U(invalid_other, "rejected: any other error"),
    U(untrusted_responses, "responses from an identity the request's snapshot does not trust"),
    U(injected_datagrams, "datagrams injected by inject faults"),
    U(contradictory, "requests with allow and deny delivered from different servers"),
    D(convergence_ms, "last fault -> last wrong decision (ms)"),
    U(steering_requests, "rebinds applied"),
    D(steering_latency_ms, "mean rebind hint -> rebind done (ms)"),
    U(dns_queries, "DNS queries"),
    U(dns_failures, "DNS failures and timeouts"),
    U(reports_sent, "latency reports sent"),
};
#define N_METRICS (sizeof METRICS / sizeof METRICS[0])

static double metric_at(const sim_metrics_t *m, const metric_desc_t *d) {
    const char *base = (const char *)m + d->off;
    if (d->is_double) {
        double v;
        memcpy(&v, base, sizeof v);
        return v;
    }
    uint64_t v;
    memcpy(&v, base, sizeof v);
    return (double)v;
}

bool sim_metric_is_count(const char *key) {
    for (size_t i = 0; key != NULL && i < N_METRICS; i++) {
        if (strcmp(METRICS[i].key, key) == 0) {
            return !METRICS[i].is_double;
        }
    }
    return false;
}

bool sim_metric_value(const sim_metrics_t *m, const char *key, double *out) {
    for (size_t i = 0; i < N_METRICS; i++) {
        if (strcmp(METRICS[i].key, key) == 0) {
            *out = metric_at(m, &METRICS[i]);
            return true;
        }
    }
    return false;
}

void sim_metrics_table(FILE *f, const sim_metrics_t *m) {
    fprintf(f, "  %-26s %16s  %s\n", "metric", "value", "meaning");
    for (size_t i = 0; i < N_METRICS; i++) {
        double v = metric_at(m, &METRICS[i]);
        if (METRICS[i].is_double) {
            fprintf(f, "  %-26s %16.4f  %s\n", METRICS[i].key, v, METRICS[i].what);
        } else {
            fprintf(f, "  %-26s %16.0f  %s\n", METRICS[i].key, v, METRICS[i].what);
        }
    }
}

void sim_metrics_json(FILE *f, const sim_metrics_t *m) {
    fputc('{', f);
    for (size_t i = 0; i < N_METRICS; i++) {
        double v = metric_at(m, &METRICS[i]);
        if (METRICS[i].is_double) fprintf(f, "%s\"%s\": %.6g", i ? ", " : "", METRICS[i].key, v);
        else fprintf(f, "%s\"%s\": %.0f", i ? ", " : "", METRICS[i].key, v);
    }
    fputc('}', f);
}
