/* SPDX-License-Identifier: MIT */
/* explore_check.c - the properties of explore mode (docs/explore.md
 * "Properties"), checked by an observer of the event log and of the bytes of
 * every datagram sent and delivered. Written from r-client.md 9.3,
 * wire_protocol.md and docs/traces.md ("Event log", the clock formulas); it
 * reads nothing of the client core's or the server model's state.
 *
 * A response is *valid* for a request when its bytes are exactly bytes the
 * server node sent to that client (so injected forgeries and wrong
 * identities are not, a replayed copy is), it carries the request's
 * unique_id, and the server never restarted in the run (its identity is the
 * one every snapshot trusts). Checks that need the full valid set (selection)
 * run only on requests whose servers never restart. */
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "sim_engine.h"

const char *const explore_property_names[EX_PROPERTIES] = {
    "decision_once",           "ends_by_horizon",        "no_send_after_horizon",   "one_unique_id",
    "dedup_ttl_is_horizon",
    "replay_only_missing",     "replay_after_silent_round", "completion_only_missing", "completion_at_selection",
    "select_oldest_valid",     "immediate_on_oldest",    "no_fallback_before_preference",
    "select_by_preference_deadline", "fail_only_at_end", "aes_nonce_once",
    "server_no_double_consume", "stale_copy_replayed", "eviction_logged", "single_server_matches_oracle",
    "single_server_no_overconsume"};
const char *const explore_property_specs[EX_PROPERTIES] = {
    "r-client.md 9.3.3: Once a response is selected, later responses MUST NOT change the completed result",
    "r-client.md 9.3.1: H = U * (sum(B(k)) + F) is the complete operation horizon",
    "r-client.md 9.3.1: No replay or completion-delivery send may be initiated at or after the deduplication deadline",
    "r-client.md 9.3.2: Every transmission and replay for the operation MUST represent the same logical request and "
    "reuse the same unique_id",
    "r-client.md 9.3.1 and 9.3.5: the request deduplication TTL is derived from H (TTL = 3 * U = H in the default)",
    "r-client.md 9.3.3: it replays the request only to servers from which no valid response has yet arrived",
    "r-client.md 9.3.3 item 7: At the replay deadline, if no candidate exists ... start the next round",
    "r-client.md 9.3.4: one fire-and-forget send ... to every server in the membership snapshot from which no valid "
    "response has arrived",
    "r-client.md 9.3.4: When C = 1, immediately before returning any selected response",
    "r-client.md 9.3.2/9.3.3: the current candidate, which is the response from the oldest server in that set",
    "r-client.md 9.3.3 item 4: If the response is from the oldest server in the membership snapshot, select it "
    "immediately",
    "r-client.md 9.3.3 items 5-6: a non-oldest candidate is selected only once the round's preference deadline has "
    "elapsed",
    "r-client.md 9.3.3 items 5-6: At the preference deadline, select the candidate if one exists (a valid response "
    "after it is selected immediately)",
    "r-client.md 9.3.3: If its end deadline arrives first, the client reports transport failure (not before)",
    "wire_protocol.md rl-aes: a nonce is never used twice under one key",
    "wire_protocol.md Healthy-State Guarantee: a unique_id is decided at most once within its accepted TTL",
    "wire_protocol.md Healthy-State Guarantee / docs/traces.md Server model step 7: a copy inside its dedup window is "
    "replayed before any freshness check",
    "wire_protocol.md Degraded-State Behavior: an eviction of a live entry is logged as ERROR (dedup_evicted)",
    "docs/traces.md Oracle: in a fault-free run with one server, false allows and false denies are exactly 0",
    "docs/traces.md Over-consumption: a single server never over-consumes"};

#define MAX_SERVERS 64
#define EPOCH_MS 1767225600000ll

typedef struct {
    bool live, decided, ok, have_first, judged;
    bool before_horizon; /* decided before time_stamp + H on the client clock */
    uint64_t submit_us, decision_us, ts_ms, oldest_valid_us;
    int64_t first_valid_clock; /* client clock at the first valid response + 1 (0 none) */
    uint8_t uid[16];
    uint8_t *pdu;
    size_t pdu_len;
    uint16_t auth;
    uint64_t dst, valid, valid_at_decision, cd;
    unsigned replay_rounds, decisions;
    uint64_t last_replay_us;
    uint64_t fresh_us[MAX_SERVERS]; /* last fresh decision per server + 1 (0 none) */
} req_t;

typedef struct {
    req_t *v;
    size_t n, cap;
    int64_t skew_ms;
    uint64_t skew_step_us; /* run time of this client's last clock step + 1 (0 none) */
    uint8_t **q; /* bytes of this client's sends not yet matched to an xmit record */
    size_t *qlen, qn, qcap;
} cli_t;

typedef struct {
    uint64_t key, nonce_hi, nonce_lo, hash;
} nonce_t;

struct explore_obs {
    const sim_config_t *cfg;
    size_t nc, ns;
    cli_t *cl;
    uint64_t *sent; /* hashes of genuine server datagrams (open addressing, 0 empty) */
    size_t sent_cap, sent_n;
    uint64_t *map_key, *map_val; /* (client, uid low 64) -> seq */
    size_t map_cap, map_n;
    nonce_t *nonces;
    size_t n_nonces, cap_nonces;
    bool restarted[MAX_SERVERS], unhealthy[MAX_SERVERS];
    uint64_t fresh_count[MAX_SERVERS];
    int last_verdict[MAX_SERVERS];
    uint64_t server_id[MAX_SERVERS];
    /* eviction model (modeled servers only): expiry ms of occupied slots, in insertion order */
    bool modeled[MAX_SERVERS], pending_fresh[MAX_SERVERS];
    uint64_t *ring[MAX_SERVERS];
    size_t ring_head[MAX_SERVERS], ring_n[MAX_SERVERS];
    uint64_t model_evictions;
    /* datagrams delivered to a server, in order (servers without processing jitter) */
    struct dq { uint64_t uid, ts; } *dq[MAX_SERVERS];
    size_t dq_head[MAX_SERVERS], dq_n[MAX_SERVERS], dq_cap[MAX_SERVERS];
    bool fifo[MAX_SERVERS];
    size_t violations[EX_PROPERTIES];
    char first[400];
    explore_property_t first_prop;
    uint64_t checks;
};

static uint64_t fnv(const uint8_t *p, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h | 1;
}
static uint64_t ld64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

static void fail(explore_obs_t *o, explore_property_t p, uint64_t at_us, const char *what, size_t c, uint64_t seq) {
    if (o->violations[p]++ == 0 && o->first[0] == '\0') {
        snprintf(o->first, sizeof o->first, "%s at %.3f ms: client %zu request %llu: %s [%s]",
                 explore_property_names[p], (double)at_us / 1000.0, c, (unsigned long long)seq, what,
                 explore_property_specs[p]);
        o->first_prop = p;
    }
}

/* docs/traces.md: client clock = run clock + skew + drift, the drift
 * floor(run_us * ppm / 10^9) ms, floored also when negative (-1.5 ms reads -2). */
static int64_t client_clock(const explore_obs_t *o, size_t c, uint64_t at_us) {
    int64_t num = (int64_t)at_us * o->cfg->clients[c].clock_drift_ppm;
    int64_t drift = num / 1000000000ll - (num % 1000000000ll < 0 ? 1 : 0);
    return EPOCH_MS + (int64_t)(at_us / 1000) + o->cl[c].skew_ms + drift;
}

/* r-client.md 9.3.1: B(k) and P(k) from their schedule. */
static uint64_t sched(const r_ha_schedule_t *s, uint32_t k) {
    uint64_t v = s->initial_units;
    if (s->kind == R_HA_SCHEDULE_LINEAR) {
        v = s->initial_units + (uint64_t)k * s->growth.linear_step_units;
    } else if (s->kind == R_HA_SCHEDULE_EXPONENTIAL) {
        for (uint32_t i = 0; i < k && v <= s->max_units; i++) v *= s->growth.exponential_factor;
    } else {
        return v;
    }
    return v < s->max_units ? v : s->max_units;
}
static uint64_t round_start_ms(const r_request_policy_t *p, uint32_t k) {
    uint64_t t = 0;
    for (uint32_t j = 0; j < k; j++) t += sched(&p->replay_gap, j) * p->unit_ms;
    return t;
}
static uint64_t horizon_ms(const r_request_policy_t *p) {
    return round_start_ms(p, p->replay_count + 1) + (uint64_t)p->final_receive_units * p->unit_ms;
}
/* True when offset e (ms since time_stamp) is at or after the preference
 * deadline of a phase it is in; a phase's end belongs to it too (its
 * preference deadline may be its end, P(k) = B(k)). With late timers a
 * deadline may be handled in a later phase: any phase started will do. */
static bool preference_elapsed(const r_request_policy_t *p, uint64_t e, bool late) {
    for (uint32_t k = 0; k <= p->replay_count + 1; k++) {
        uint64_t start = round_start_ms(p, k);
        uint64_t end = k <= p->replay_count ? round_start_ms(p, k + 1) : horizon_ms(p);
        uint64_t pref = start + (k <= p->replay_count ? sched(&p->preference, k) * p->unit_ms
                                                      : (uint64_t)p->final_preference_units * p->unit_ms);
        /* 1 ms of slack: the clocks are whole milliseconds */
        if (start <= e + 1 && pref <= e + 1 && (e <= end || late)) return true;
    }
    return false;
}

/* When a candidate that exists from offset v on must be selected: at the
 * preference deadline of the phase v is in (start <= v < end: at a phase
 * boundary the deadline is handled first), or at v when that has passed. */
static uint64_t selection_due(const r_request_policy_t *p, uint64_t v) {
    uint64_t pref = round_start_ms(p, p->replay_count + 1) + (uint64_t)p->final_preference_units * p->unit_ms;
    for (uint32_t k = 0; k <= p->replay_count; k++) {
        if (v < round_start_ms(p, k + 1)) {
            pref = round_start_ms(p, k) + sched(&p->preference, k) * p->unit_ms;
            break;
        }
    }
    return v > pref ? v : pref;
}

static void set_add(explore_obs_t *o, uint64_t h) {
    if (o->sent_n * 2 >= o->sent_cap) {
        size_t cap = o->sent_cap ? o->sent_cap * 2 : 4096;
        uint64_t *n = calloc(cap, sizeof *n);
        if (n == NULL) return;
        for (size_t i = 0; i < o->sent_cap; i++) {
            if (o->sent[i] == 0) continue;
            size_t j = o->sent[i] & (cap - 1);
            while (n[j] != 0) j = (j + 1) & (cap - 1);
            n[j] = o->sent[i];
        }
        free(o->sent);
        o->sent = n;
        o->sent_cap = cap;
    }
    size_t j = h & (o->sent_cap - 1);
    while (o->sent[j] != 0 && o->sent[j] != h) j = (j + 1) & (o->sent_cap - 1);
    if (o->sent[j] == 0) o->sent_n++;
    o->sent[j] = h;
}
static bool set_has(const explore_obs_t *o, uint64_t h) {
    if (o->sent_cap == 0) return false;
    size_t j = h & (o->sent_cap - 1);
    while (o->sent[j] != 0) {
        if (o->sent[j] == h) return true;
        j = (j + 1) & (o->sent_cap - 1);
    }
    return false;
}
/* A nonzero key per (client, unique_id low 64 bits); 0 marks an empty slot. */
static uint64_t map_keyof(size_t c, uint64_t uid) {
    uint64_t k = uid * 0x9e3779b97f4a7c15ull + ((uint64_t)c + 1) * 0xbf58476d1ce4e5b9ull;
    return k != 0 ? k : 1;
}
static void map_put(explore_obs_t *o, uint64_t key, uint64_t val) {
    if (o->map_n * 2 >= o->map_cap) {
        size_t cap = o->map_cap ? o->map_cap * 2 : 4096;
        uint64_t *k = calloc(cap, sizeof *k), *v = calloc(cap, sizeof *v);
        if (k == NULL || v == NULL) {
            free(k);
            free(v);
            return;
        }
        for (size_t i = 0; i < o->map_cap; i++) {
            if (o->map_key[i] == 0) continue;
            size_t j = o->map_key[i] & (cap - 1);
            while (k[j] != 0) j = (j + 1) & (cap - 1);
            k[j] = o->map_key[i];
            v[j] = o->map_val[i];
        }
        free(o->map_key);
        free(o->map_val);
        o->map_key = k;
        o->map_val = v;
        o->map_cap = cap;
    }
    size_t j = key & (o->map_cap - 1);
    while (o->map_key[j] != 0 && o->map_key[j] != key) j = (j + 1) & (o->map_cap - 1);
    if (o->map_key[j] == 0) o->map_n++;
    o->map_key[j] = key;
    o->map_val[j] = val;
}
static bool map_get(const explore_obs_t *o, uint64_t key, uint64_t *val) {
    if (o->map_cap == 0) return false;
    size_t j = key & (o->map_cap - 1);
    while (o->map_key[j] != 0) {
        if (o->map_key[j] == key) {
            *val = o->map_val[j];
            return true;
        }
        j = (j + 1) & (o->map_cap - 1);
    }
    return false;
}

static req_t *req_at(explore_obs_t *o, size_t c, uint64_t seq, bool grow) {
    cli_t *cl = &o->cl[c];
    if (seq >= cl->n) {
        if (!grow) return NULL;
        if (seq >= cl->cap) {
            size_t cap = cl->cap ? cl->cap * 2 : 256;
            while (cap <= seq) cap *= 2;
            req_t *v = realloc(cl->v, cap * sizeof *v);
            if (v == NULL) return NULL;
            memset(v + cl->cap, 0, (cap - cl->cap) * sizeof *v);
            cl->v = v;
            cl->cap = cap;
        }
        cl->n = seq + 1;
    }
    return &cl->v[seq];
}

explore_obs_t *explore_obs_new(const sim_config_t *cfg) {
    explore_obs_t *o = calloc(1, sizeof *o);
    if (o == NULL) return NULL;
    o->cfg = cfg;
    o->nc = cfg->n_clients;
    o->ns = cfg->n_servers < MAX_SERVERS ? cfg->n_servers : MAX_SERVERS;
    o->cl = calloc(o->nc, sizeof *o->cl);
    if (o->cl == NULL) {
        free(o);
        return NULL;
    }
    for (size_t c = 0; c < o->nc; c++) o->cl[c].skew_ms = cfg->clients[c].clock_skew_ms;
    for (size_t s = 0; s < o->ns; s++) {
        const sim_server_params_t *p = &cfg->servers[s].params;
        /* wire_protocol.md "Structured server_id Format" */
        o->server_id[s] = (p->server_start_s - 1735689600ull) << 23 | (uint64_t)p->listener_id << 15 | p->node_id;
        o->last_verdict[s] = -1;
    }
    for (size_t s = 0; s < o->ns; s++) {
        const sim_server_params_t *p = &cfg->servers[s].params;
        o->modeled[s] = p->dedup_capacity != 0 && p->freshness_ms == 0 && cfg->servers[s].clock_drift_ppm == 0;
        o->fifo[s] = cfg->servers[s].processing_jitter_us == 0;
        /* Two pauses of one server process the datagrams queued before the
         * second one after those that arrived during it (explore found it:
         * docs/spec-notes.md "Explore mode"): the order is kept with one. */
        unsigned pauses = 0;
        for (size_t f = 0; f < cfg->n_faults; f++) {
            pauses += cfg->faults[f].kind == SIM_FAULT_PAUSE && strcmp(cfg->faults[f].target, cfg->servers[s].name) == 0;
        }
        if (pauses > 1) o->fifo[s] = false;
        for (size_t f = 0; f < cfg->n_faults; f++) {
            const sim_fault_cfg_t *fc = &cfg->faults[f];
            if (fc->kind != SIM_FAULT_LINK && fc->kind != SIM_FAULT_PARTITION && fc->kind != SIM_FAULT_FAILURES &&
                fc->kind != SIM_FAULT_INJECT && fc->kind != SIM_FAULT_STEERING && fc->kind != SIM_FAULT_PAUSE &&
                (fc->target[0] == '\0' || strcmp(fc->target, cfg->servers[s].name) == 0)) {
                o->modeled[s] = false;
            }
        }
        if (o->modeled[s]) {
            o->ring[s] = calloc(p->dedup_capacity, sizeof *o->ring[s]);
            if (o->ring[s] == NULL) o->modeled[s] = false;
        }
    }
    for (size_t f = 0; f < cfg->n_faults; f++) {
        if (cfg->faults[f].kind != SIM_FAULT_RESTART) continue;
        for (size_t s = 0; s < o->ns; s++) {
            if (strcmp(cfg->servers[s].name, cfg->faults[f].target) == 0) o->restarted[s] = true;
        }
    }
    return o;
}

void explore_obs_free(explore_obs_t *o) {
    if (o == NULL) return;
    for (size_t c = 0; c < o->nc; c++) {
        for (size_t i = 0; i < o->cl[c].n; i++) free(o->cl[c].v[i].pdu);
        for (size_t i = 0; i < o->cl[c].qn; i++) free(o->cl[c].q[i]);
        free(o->cl[c].v);
        free(o->cl[c].q);
        free(o->cl[c].qlen);
    }
    free(o->cl);
    for (size_t s = 0; s < o->ns; s++) {
        free(o->ring[s]);
        free(o->dq[s]);
    }
    free(o->sent);
    free(o->map_key);
    free(o->map_val);
    free(o->nonces);
    free(o);
}

uint64_t explore_obs_checks(const explore_obs_t *o) { return o->checks; }

static void note_nonce(explore_obs_t *o, uint64_t key, const uint8_t *d, size_t len) {
    /* tenant TLV (40) then the auth TLV: type, size, 12-byte nonce (wire_protocol.md "Auth Header") */
    if (len < 56 || ld16(d + 40) != 0x4541u) return;
    if (o->n_nonces == o->cap_nonces) {
        size_t cap = o->cap_nonces ? o->cap_nonces * 2 : 1024;
        nonce_t *n = realloc(o->nonces, cap * sizeof *n);
        if (n == NULL) return;
        o->nonces = n;
        o->cap_nonces = cap;
    }
    nonce_t *n = &o->nonces[o->n_nonces++];
    n->key = key;
    n->nonce_hi = ld64(d + 44);
    n->nonce_lo = ld16(d + 52) | (uint64_t)ld16(d + 54) << 16;
    n->hash = fnv(d, len, 0xcbf29ce484222325ull);
}

static void on_send(explore_obs_t *o, uint64_t src, uint64_t dst, const uint8_t *d, size_t len) {
    if (src < o->nc) {
        cli_t *cl = &o->cl[src];
        if (cl->qn == cl->qcap) {
            size_t cap = cl->qcap ? cl->qcap * 2 : 16;
            uint8_t **q = realloc(cl->q, cap * sizeof *q);
            if (q == NULL) return;
            cl->q = q;
            size_t *ql = realloc(cl->qlen, cap * sizeof *ql);
            if (ql == NULL) return;
            cl->qlen = ql;
            cl->qcap = cap;
        }
        uint8_t *copy = malloc(len ? len : 1);
        if (copy != NULL && len) memcpy(copy, d, len);
        cl->q[cl->qn] = copy;
        cl->qlen[cl->qn++] = copy ? len : 0;
        note_nonce(o, o->cfg->clients[src].key_id, d, len);
    } else if (dst < o->nc) {
        set_add(o, fnv(d, len, 0xcbf29ce484222325ull ^ (src << 20 | dst)));
        note_nonce(o, o->cfg->clients[dst].key_id, d, len);
    }
}

static bool all_clean(const explore_obs_t *o, uint64_t dst) {
    for (size_t s = 0; s < o->ns; s++) {
        if ((dst >> s & 1) && o->restarted[s]) return false;
    }
    return true;
}

static size_t oldest_of(const explore_obs_t *o, uint64_t mask) {
    size_t best = SIZE_MAX;
    for (size_t s = 0; s < o->ns; s++) {
        if ((mask >> s & 1) && (best == SIZE_MAX || o->server_id[s] < o->server_id[best])) best = s;
    }
    return best;
}

static void on_deliver(explore_obs_t *o, uint64_t at, uint64_t src, uint64_t dst, const uint8_t *d, size_t len) {
    if (dst >= o->nc || src < o->nc || src - o->nc >= o->ns || len < 40) return;
    size_t s = src - o->nc;
    if (o->restarted[s] || !set_has(o, fnv(d, len, 0xcbf29ce484222325ull ^ (src << 20 | dst)))) return;
    uint64_t seq;
    if (!map_get(o, map_keyof(dst, ld64(d + 12)), &seq)) return;
    req_t *r = req_at(o, dst, seq, false);
    if (r == NULL || !r->have_first || memcmp(r->uid, d + 12, 16) != 0 || !(r->dst >> s & 1)) return;
    if (r->decided) return;
    if (!(r->valid >> s & 1) && s == oldest_of(o, r->dst) && r->oldest_valid_us == 0) r->oldest_valid_us = at + 1;
    if (r->valid == 0) r->first_valid_clock = client_clock(o, dst, at) + 1;
    r->valid |= 1ull << s;
}

static void on_xmit(explore_obs_t *o, uint64_t at, size_t c, uint64_t seq, uint64_t cls, uint64_t node) {
    cli_t *cl = &o->cl[c];
    uint8_t *d = NULL;
    size_t len = 0;
    if (cl->qn > 0) {
        d = cl->q[0];
        len = cl->qlen[0];
        memmove(cl->q, cl->q + 1, (cl->qn - 1) * sizeof *cl->q);
        memmove(cl->qlen, cl->qlen + 1, (cl->qn - 1) * sizeof *cl->qlen);
        cl->qn--;
    }
    if (cls == 3 || d == NULL || len < 44 || node < o->nc || node - o->nc >= o->ns) {
        free(d);
        return;
    }
    size_t s = node - o->nc;
    req_t *r = req_at(o, c, seq, false);
    if (r == NULL || !r->live) {
        free(d);
        return;
    }
    const r_request_policy_t *p = &o->cfg->clients[c].policy;
    o->checks++;
    if (!r->have_first) {
        r->have_first = true;
        memcpy(r->uid, d + 12, 16);
        r->ts_ms = ld64(d + 28);
        r->auth = ld16(d + 40);
        map_put(o, map_keyof(c, ld64(d + 12)), seq);
        size_t off = 40 + ld16(d + 42);
        if (r->auth != 0x4541u && off + 8 <= len) {
            uint64_t ttl = (uint64_t)d[off + 4] | (uint64_t)d[off + 5] << 8 | (uint64_t)d[off + 6] << 16 |
                           (uint64_t)d[off + 7] << 24; /* wire_protocol.md Rate Request: dedup_ttl_ms */
            if (ttl != horizon_ms(p)) {
                fail(o, EX_DEDUP_TTL_IS_HORIZON, at, "dedup_ttl_ms on the wire is not H", c, seq);
            }
        }
        if (r->auth != 0x4541u && off <= len) {
            r->pdu_len = len - off;
            r->pdu = malloc(r->pdu_len ? r->pdu_len : 1);
            if (r->pdu) memcpy(r->pdu, d + off, r->pdu_len);
        }
    } else if (memcmp(r->uid, d + 12, 16) != 0 || ld64(d + 28) != r->ts_ms || ld16(d + 40) != r->auth) {
        fail(o, EX_ONE_UNIQUE_ID, at, "a transmission carries another unique_id, time_stamp or auth type", c, seq);
    } else if (r->pdu != NULL) {
        size_t off = 40 + ld16(d + 42);
        if (off > len || len - off != r->pdu_len || memcmp(d + off, r->pdu, r->pdu_len) != 0) {
            fail(o, EX_ONE_UNIQUE_ID, at, "a transmission carries another PDU than the first", c, seq);
        }
    }
    if (cls == 0) {
        r->dst |= 1ull << s;
        free(d);
        return;
    }
    int64_t now = client_clock(o, c, at);
    if (now >= (int64_t)(r->ts_ms + horizon_ms(p))) {
        fail(o, EX_NO_SEND_AFTER_HORIZON, at, cls == 1 ? "a replay at or after time_stamp + H"
                                                        : "a completion send at or after time_stamp + H", c, seq);
    }
    if (cls == 1) {
        if (!(r->dst >> s & 1) || (r->valid >> s & 1)) {
            fail(o, EX_REPLAY_ONLY_MISSING, at, "a replay to a server outside the snapshot or with a valid response",
                 c, seq);
        }
        if (r->valid != 0) fail(o, EX_REPLAY_AFTER_SILENT_ROUND, at, "a replay after a valid response arrived", c, seq);
        if (r->decided) fail(o, EX_REPLAY_AFTER_SILENT_ROUND, at, "a replay after the request completed", c, seq);
        if (r->replay_rounds == 0 || at != r->last_replay_us) {
            r->replay_rounds++;
            r->last_replay_us = at;
            if (r->replay_rounds > p->replay_count) {
                fail(o, EX_REPLAY_AFTER_SILENT_ROUND, at, "more replay rounds than N", c, seq);
            } else if (now + 1 < (int64_t)(r->ts_ms + round_start_ms(p, r->replay_rounds))) {
                fail(o, EX_REPLAY_AFTER_SILENT_ROUND, at, "a replay round before its replay deadline", c, seq);
            }
        }
    } else if (cls == 2) {
        if (!p->completion_delivery) {
            fail(o, EX_COMPLETION_AT_SELECTION, at, "a completion send with C = 0", c, seq);
        } else if (!r->decided || !r->ok || r->decision_us != at) {
            fail(o, EX_COMPLETION_AT_SELECTION, at, "a completion send not at the selection of a response", c, seq);
        }
        if (!(r->dst >> s & 1) || (r->valid_at_decision >> s & 1) || (r->cd >> s & 1)) {
            fail(o, EX_COMPLETION_ONLY_MISSING, at,
                 "a completion send to a server outside the snapshot, with a valid response, or twice", c, seq);
        }
        r->cd |= 1ull << s;
    }
    free(d);
}

static void on_decision(explore_obs_t *o, uint64_t at, size_t c, uint64_t seq, uint64_t v) {
    req_t *r = req_at(o, c, seq, false);
    if (r == NULL || !r->live) return;
    const r_request_policy_t *p = &o->cfg->clients[c].policy;
    o->checks++;
    if (++r->decisions > 1) {
        fail(o, EX_DECISION_ONCE, at, "a second completion callback", c, seq);
        return;
    }
    r->decided = true;
    r->decision_us = at;
    r->ok = (v >> 32) == 0;
    r->valid_at_decision = r->valid;
    if (!r->have_first) return;
    int64_t now = client_clock(o, c, at);
    /* Late timers: a deadline may be handled up to one timer delay late. */
    const sim_client_cfg_t *cc = &o->cfg->clients[c];
    int64_t late_ms = cc->timer_late ? (int64_t)((cc->timer_delay.base_us + cc->timer_delay.spread_us +
                                                  cc->timer_delay.jitter_us) / 1000 + 2)
                                     : 1;
    /* A clock stepped forward during the request passes every deadline at once. */
    bool stepped = o->cl[c].skew_step_us > r->submit_us;
    r->before_horizon = now < (int64_t)(r->ts_ms + horizon_ms(p));
    if (!stepped && now > (int64_t)(r->ts_ms + horizon_ms(p)) + late_ms) {
        fail(o, EX_ENDS_BY_HORIZON, at, "completed after time_stamp + H", c, seq);
    }
    if (!stepped && !r->ok && (v >> 32) == 1 && now + late_ms < (int64_t)(r->ts_ms + horizon_ms(p))) {
        fail(o, EX_FAIL_ONLY_AT_END, at, "a timeout before time_stamp + H", c, seq);
    }
    if (!stepped && all_clean(o, r->dst) && r->first_valid_clock != 0) {
        int64_t v0 = r->first_valid_clock - 1 - (int64_t)r->ts_ms;
        uint64_t due = selection_due(p, v0 > 0 ? (uint64_t)v0 : 0);
        if (now - (int64_t)r->ts_ms > (int64_t)due + late_ms) {
            fail(o, EX_SELECT_BY_PREFERENCE_DEADLINE, at, "a valid candidate was not selected by its deadline", c, seq);
        }
    }
    if (!r->ok || !all_clean(o, r->dst)) return;
    size_t sel = (size_t)(v & 0xffff);
    if (sel == 0 || sel - 1 >= o->ns) return;
    sel--;
    size_t oldest_valid = oldest_of(o, r->valid);
    r->judged = true;
    if (!(r->valid >> sel & 1) || sel != oldest_valid) {
        fail(o, EX_SELECT_OLDEST_VALID, at, "the selected response is not the oldest valid one received", c, seq);
    }
    if (r->oldest_valid_us != 0 && at != r->oldest_valid_us - 1) {
        fail(o, EX_IMMEDIATE_ON_OLDEST, at, "not completed when the oldest member's valid response arrived", c, seq);
    }
    if (sel != oldest_of(o, r->dst) && !stepped) {
        uint64_t e = now > (int64_t)r->ts_ms ? (uint64_t)(now - (int64_t)r->ts_ms) : 0;
        if (!preference_elapsed(p, e, cc->timer_late)) {
            fail(o, EX_NO_FALLBACK_BEFORE_PREFERENCE, at, "a younger server selected before the preference deadline",
                 c, seq);
        }
    }
}

/* docs/traces.md Server model, dedup cache: a new entry at capacity removes
 * the oldest; one past its window costs nothing, a live one is an eviction. */
static void model_insert(explore_obs_t *o, size_t s, uint64_t now_ms, uint64_t ttl_ms) {
    uint32_t cap = o->cfg->servers[s].params.dedup_capacity;
    while (o->ring_n[s] > 0 && now_ms >= o->ring[s][o->ring_head[s]]) {
        o->ring_head[s] = (o->ring_head[s] + 1) % cap;
        o->ring_n[s]--;
    }
    if (o->ring_n[s] == cap) {
        if (now_ms < o->ring[s][o->ring_head[s]]) o->model_evictions++;
        o->ring_head[s] = (o->ring_head[s] + 1) % cap;
        o->ring_n[s]--;
    }
    o->ring[s][(o->ring_head[s] + o->ring_n[s]) % cap] = now_ms + ttl_ms;
    o->ring_n[s]++;
}

static void on_sreq(explore_obs_t *o, uint64_t at, size_t s, size_t c, uint64_t seq) {
    if (s >= o->ns || c >= o->nc || o->last_verdict[s] != 0) return;
    if (o->modeled[s]) {
        o->pending_fresh[s] = false;
        model_insert(o, s, at / 1000, horizon_ms(&o->cfg->clients[c].policy));
    }
    o->fresh_count[s]++;
    uint32_t cap = o->cfg->servers[s].params.dedup_capacity;
    if (cap != 0 && o->fresh_count[s] >= cap) o->unhealthy[s] = true; /* an eviction may have happened */
    req_t *r = req_at(o, c, seq, false);
    if (r == NULL || !r->live) return;
    o->checks++;
    const r_request_policy_t *p = &o->cfg->clients[c].policy;
    uint64_t h_us = horizon_ms(p) * 1000, margin = 1000 + h_us / 500;
    if (r->fresh_us[s] != 0 && !o->unhealthy[s] && !o->restarted[s] && at - (r->fresh_us[s] - 1) + margin < h_us) {
        char what[96];
        snprintf(what, sizeof what, "server %zu decided the unique_id afresh twice, %.3f ms apart (TTL %.0f ms)", s,
                 (double)(at - (r->fresh_us[s] - 1)) / 1000.0, (double)h_us / 1000.0);
        fail(o, EX_SERVER_NO_DOUBLE_CONSUME, at, what, c, seq);
    }
    r->fresh_us[s] = at + 1;
}

static void on_fault(explore_obs_t *o, uint64_t at, uint64_t kind, uint64_t idx, uint64_t value) {
    if (idx >= o->cfg->n_faults) return;
    const sim_fault_cfg_t *f = &o->cfg->faults[idx];
    for (size_t c = 0; c < o->nc; c++) {
        if (kind == SIM_FAULT_SKEW && strcmp(o->cfg->clients[c].name, f->target) == 0) {
            o->cl[c].skew_ms = (int64_t)value;
            o->cl[c].skew_step_us = at + 1;
        }
    }
    for (size_t s = 0; s < o->ns; s++) {
        bool hit = f->target[0] == '\0' || strcmp(o->cfg->servers[s].name, f->target) == 0;
        /* Degraded dedup, a clock step or a tenant change on a server: its
         * healthy-state guarantee no longer holds for entries already made. */
        if (hit && (kind == SIM_FAULT_DEDUP_DEGRADE || kind == SIM_FAULT_SKEW || kind == SIM_FAULT_TENANT_REMOVE ||
                    kind == SIM_FAULT_TENANT_ADD || kind == SIM_FAULT_RESTART)) {
            o->unhealthy[s] = true;
        }
    }
}

static void dq_push(explore_obs_t *o, size_t s, const uint8_t *d, size_t len) {
    if (o->dq_n[s] == o->dq_cap[s]) {
        size_t cap = o->dq_cap[s] ? o->dq_cap[s] * 2 : 64;
        struct dq *n = malloc(cap * sizeof *n);
        if (n == NULL) {
            o->fifo[s] = false;
            return;
        }
        for (size_t i = 0; i < o->dq_n[s]; i++) n[i] = o->dq[s][(o->dq_head[s] + i) % o->dq_cap[s]];
        free(o->dq[s]);
        o->dq[s] = n;
        o->dq_head[s] = 0;
        o->dq_cap[s] = cap;
    }
    struct dq e = {len >= 40 ? ld64(d + 12) : 0, len >= 40 ? ld64(d + 28) : 0};
    o->dq[s][(o->dq_head[s] + o->dq_n[s]++) % o->dq_cap[s]] = e;
}

static void on_server(explore_obs_t *o, uint64_t at, size_t s, uint64_t verdict) {
    if (o->modeled[s] && o->pending_fresh[s]) o->modeled[s] = false; /* a fresh decision the model cannot place */
    o->last_verdict[s] = (int)verdict;
    if (verdict == 0) o->pending_fresh[s] = true;
    if (o->dq_n[s] == 0) return;
    struct dq e = o->dq[s][o->dq_head[s]];
    o->dq_head[s] = (o->dq_head[s] + 1) % o->dq_cap[s];
    o->dq_n[s]--;
    if (verdict != 6 || !o->fifo[s] || o->unhealthy[s] || o->restarted[s]) return;
    /* the datagram's request: any client's with this unique_id */
    for (size_t c = 0; c < o->nc; c++) {
        uint64_t seq;
        if (!map_get(o, map_keyof(c, e.uid), &seq)) continue;
        req_t *r = req_at(o, c, seq, false);
        if (r == NULL || r->fresh_us[s] == 0 || r->ts_ms != e.ts) continue;
        uint64_t ttl_ms = horizon_ms(&o->cfg->clients[c].policy);
        o->checks++;
        if (at / 1000 < (r->fresh_us[s] - 1) / 1000 + ttl_ms) {
            fail(o, EX_STALE_COPY_REPLAYED, at, "a copy inside its dedup window was dropped as stale", c, seq);
        }
    }
}

void explore_obs_record(void *ctx, uint64_t at, int kind, uint64_t a, uint64_t b, uint64_t c, const uint8_t *data,
                        size_t len) {
    explore_obs_t *o = ctx;
    switch (kind) {
    case SIM_LOG_SEND:
        if (data != NULL) on_send(o, a, b, data, len);
        break;
    case SIM_LOG_DELIVER:
        if (data != NULL) on_deliver(o, at, a, b, data, len);
        if (data != NULL && b >= o->nc && b - o->nc < o->ns) dq_push(o, b - o->nc, data, len);
        break;
    case SIM_LOG_SUBMIT:
        if (a < o->nc && !(c >= 1 && c <= 7)) {
            req_t *r = req_at(o, a, b, true);
            if (r != NULL) {
                r->live = true;
                r->submit_us = at;
            }
        }
        break;
    case SIM_LOG_XMIT:
        if (a < o->nc) on_xmit(o, at, a, b, c >> 32, c & 0xffffffffu);
        break;
    case SIM_LOG_DECISION:
        if (a < o->nc) on_decision(o, at, a, b, c);
        break;
    case SIM_LOG_SERVER:
        if (a < o->ns) on_server(o, at, a, b);
        break;
    case SIM_LOG_DROP:
        /* reasons 5 (queue full) and 6 (server down) are logged right after the deliver */
        if ((c == 5 || c == 6) && b >= o->nc && b - o->nc < o->ns && o->dq_n[b - o->nc] > 0) o->dq_n[b - o->nc]--;
        break;
    case SIM_LOG_SREQ:
        on_sreq(o, at, a, b, c);
        break;
    case SIM_LOG_FAULT:
        on_fault(o, at, a, b, c);
        break;
    default:
        break;
    }
}

static int nonce_cmp(const void *x, const void *y) {
    const nonce_t *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    if (a->nonce_hi != b->nonce_hi) return a->nonce_hi < b->nonce_hi ? -1 : 1;
    if (a->nonce_lo != b->nonce_lo) return a->nonce_lo < b->nonce_lo ? -1 : 1;
    return a->hash < b->hash ? -1 : a->hash > b->hash;
}

size_t explore_obs_finish(explore_obs_t *o, const sim_metrics_t *m, char *first, size_t cap,
                          explore_property_t *first_prop) {
    for (size_t c = 0; c < o->nc; c++) {
        for (size_t i = 0; i < o->cl[c].n; i++) {
            req_t *r = &o->cl[c].v[i];
            if (!r->live) continue;
            o->checks++;
            if (!r->decided) fail(o, EX_ENDS_BY_HORIZON, r->submit_us, "never completed", c, i);
            if (r->judged && r->oldest_valid_us != 0 && r->decision_us != r->oldest_valid_us - 1 &&
                r->decision_us > r->oldest_valid_us) {
                fail(o, EX_IMMEDIATE_ON_OLDEST, r->decision_us, "completed after the oldest member answered", c, i);
            }
            /* 9.3.1 forbids a completion send at or after time_stamp + H: none is due then. */
            if (r->decided && r->ok && r->have_first && r->before_horizon &&
                o->cfg->clients[c].policy.completion_delivery &&
                all_clean(o, r->dst) && r->cd != (r->dst & ~r->valid_at_decision)) {
                fail(o, EX_COMPLETION_ONLY_MISSING, r->decision_us,
                     "a snapshot member without a valid response got no completion send", c, i);
            }
        }
    }
    if (o->n_nonces > 1) qsort(o->nonces, o->n_nonces, sizeof *o->nonces, nonce_cmp); /* NULL when none */
    for (size_t i = 1; i < o->n_nonces; i++) {
        const nonce_t *a = &o->nonces[i - 1], *b = &o->nonces[i];
        o->checks++;
        if (a->key == b->key && a->nonce_hi == b->nonce_hi && a->nonce_lo == b->nonce_lo && a->hash != b->hash) {
            fail(o, EX_AES_NONCE_ONCE, 0, "one AES nonce on two different datagrams under one key", 0, 0);
        }
    }
    if (m != NULL) {
        o->checks++;
        if (m->dedup_evicted < o->model_evictions) {
            char what[120];
            snprintf(what, sizeof what, "the cache model evicted %llu live entries, the servers logged %llu",
                     (unsigned long long)o->model_evictions, (unsigned long long)m->dedup_evicted);
            fail(o, EX_EVICTION_LOGGED, 0, what, 0, 0);
        }
    }
    const sim_server_cfg_t *sv = &o->cfg->servers[0];
    const sim_link_t *dl = &o->cfg->default_link;
    if (m != NULL && o->cfg->n_servers == 1 && o->cfg->n_faults == 0 && o->cfg->n_links == 0 &&
        dl->loss.kind == SIM_LOSS_NONE && !dl->down && sv->params.dedup_capacity == 0 && sv->clock_skew_ms == 0 &&
        sv->clock_drift_ppm == 0 && sv->queue_capacity == 0) {
        o->checks++;
        if (m->false_allows != 0 || m->false_denies != 0) {
            char what[120];
            snprintf(what, sizeof what, "false_allows = %llu, false_denies = %llu", (unsigned long long)m->false_allows,
                     (unsigned long long)m->false_denies);
            fail(o, EX_SINGLE_SERVER_MATCHES_ORACLE, 0, what, 0, 0);
        }
    }
    bool single = o->cfg->n_servers == 1;
    for (size_t f = 0; f < o->cfg->n_faults; f++) {
        sim_fault_kind_t k = o->cfg->faults[f].kind;
        if (k == SIM_FAULT_RESTART || k == SIM_FAULT_TENANT_REMOVE || k == SIM_FAULT_TENANT_ADD ||
            k == SIM_FAULT_DEDUP_DEGRADE || k == SIM_FAULT_SKEW) { /* a clock step re-enters a window */
            single = false;
        }
    }
    /* A healthy dedup cache: a request decided twice may be counted at its
     * first decision's window (docs/traces.md Oracle: the grant instant). */
    if (o->cfg->n_servers == 1 && o->cfg->servers[0].params.dedup_capacity != 0) single = false;
    if (single && m != NULL) {
        o->checks++;
        if (m->overconsumed_tokens != 0) {
            char what[80];
            snprintf(what, sizeof what, "overconsumed_tokens = %llu with one server",
                     (unsigned long long)m->overconsumed_tokens);
            fail(o, EX_SINGLE_SERVER_NO_OVERCONSUME, 0, what, 0, 0);
        }
    }
    size_t n = 0;
    for (int p = 0; p < EX_PROPERTIES; p++) n += o->violations[p];
    if (first != NULL && cap > 0) snprintf(first, cap, "%s", o->first);
    if (first_prop != NULL) *first_prop = o->first_prop;
    return n;
}
