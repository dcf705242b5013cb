/* SPDX-License-Identifier: MIT */
/* sim_server.c - the reference r-server model (contract: sim_server.h).
 *
 * ==== Server model (docs/traces.md "Server model" copies this text) ====
 *
 * The model speaks real bytes with its own decoder/encoder and OpenSSL, and
 * shares no code with the client codec, so each checks the other. Any drop is
 * a blackhole (wire_protocol.md "Auth Header"): no reply and no state change.
 *
 * Order of checks for one datagram (the first failure names the verdict):
 *  1. Framing, MALFORMED: at most 1200 bytes; Tenant TLV 0x4C52 size 40,
 *     padding 0, steering_feedback and tenant_mgmt_flag 0 or 1; auth TLV
 *     header inside the datagram with the exact size of a known type; a PDU
 *     header after it.
 *  2. TENANT: tenant_mgmt_flag = 1 while the model has no administrative key
 *     (with one, the datagram goes to the administrative channel,
 *     sim_server_admin.c), then an unknown key_id.
 *  3. AUTH: auth TLV type other than the key's mode (rl-none -> 0x414E,
 *     rl-cookie -> 0x4143, rl-aes -> 0x4541), cookie not equal (constant
 *     time), AES-256-GCM tag not verifying over AAD = tenant TLV || auth type
 *     || auth size || nonce.
 *  4. MALFORMED: the plaintext PDU - pdu_size equal to the bytes left, type
 *     RT or LR (anything else, responses included, is dropped), reserved and
 *     padding fields 0 (guard current_latency is ignored), blocks inside
 *     pdu_size, LR pdu_size = 12 + 36n, RT TLVs an exact sequence, a metrics
 *     label well formed.
 *  5. Latency Report: STALE when |server_now - time_stamp| > freshness_ms
 *     (when freshness_ms > 0; equal is fresh); then validated as a whole
 *     (quota, mismatch), then every sample recorded: REPORT. Reports have no
 *     dedup and no response.
 *  6. Rate Request, DEDUP_TTL: dedup_ttl_ms 0, above the key's
 *     dedup_ttl_ms_max, or above the listener cap (rejected, not clamped:
 *     r-client-ha-design.md 11 item 1). The accepted TTL is dedup_ttl_ms.
 *  7. Dedup lookup by (pdu_type, tenant_mgmt_flag, key_id, unique_id), before
 *     the freshness check: a live entry replays its cached response bytes
 *     exactly (REPLAYED), whatever its decision was (allow or deny), whatever
 *     the duplicate's body and even when its time_stamp has gone stale since
 *     (wire_protocol.md Healthy-State Guarantee). An entry past its window
 *     but still retained (below) is a copy arriving too late, a replayed
 *     capture: STALE, never decided again.
 *  8. STALE: |server_now - time_stamp| > freshness_ms (when freshness_ms > 0;
 *     equal is fresh).
 *  9. Validation (before any guard is evaluated or state created): every
 *     resource window_size_ms 0 (MALFORMED) or above rate_window_size_ms_max
 *     (QUOTA); a live bucket or tracker presented with other settings, or two
 *     blocks of one PDU with one id and different settings (MISMATCH); every
 *     guard buffer_size above latency_buffer_size_max (QUOTA); new entries
 *     beyond rate_buckets_max / latency_services_max live entries (QUOTA).
 * 10. Decision and commit: ANSWERED; the response is cached for the accepted
 *     TTL.
 *
 * Rate buckets: fixed windows. The window of time t is [t - t % W, that + W)
 * with W = window_size_ms on the server clock, so windows are aligned to
 * multiples of W. Why: it is simple, deterministic (no refill arithmetic or
 * rounding), and it makes over-consumption exactly measurable - the oracle
 * and the metrics sum tokens granted per (bucket, window) and compare with
 * rate_limit, and a single server can never exceed it. A bucket entry
 * (key_id, bucket_id) binds window_size_ms and rate_limit, counts the tokens
 * consumed in its window and lives until that window ends ("window_size_ms
 * determines when inactive rate state expires"); in the next window it
 * starts from 0 and the binding may change.
 *   For block i: left = max(0, rate_limit - consumed - tokens of earlier
 *   blocks of the same bucket_id in this request), deficit = max(0,
 *   tokens_requested - left): the tokens that could not be granted for that
 *   resource, 0 for a resource with room even when another resource or a
 *   guard denied. actual_rate = tokens consumed in the current window after
 *   the decision. The request is allowed when every guard passes and every
 *   deficit is 0; then every resource consumes its tokens, otherwise none
 *   does (all-or-nothing across resources and guards). A validated request
 *   establishes or refreshes each of its buckets and trackers whatever the
 *   decision (a new bucket with 0 consumed), so its settings stay bound for
 *   the rest of the window.
 *
 * Latency trackers (key_id, latency_tracker_id) bind ttl_ms, max_samples,
 * buffer_size and min_sample_threshold. A tracker keeps at most max_samples
 * samples, the most recent (wire_protocol.md "Guard Blocks": "Maximum number
 * of samples to keep"), each for ttl_ms, in a monotonic buffer of at most
 * buffer_size points (arrival time, value, sample number), times increasing
 * and values non-decreasing from its head: a new sample first drops head
 * points older than ttl_ms or no longer among the last max_samples samples,
 * removes every tail point not smaller than itself (it can never be the
 * minimum again) and, if the buffer is still full, the head point, then is
 * appended. current_latency is the value of the oldest point younger than
 * ttl_ms (a sample arriving at t counts while now < t + ttl_ms): the minimum
 * of the last max_samples samples younger than ttl_ms (exact when
 * buffer_size >= max_samples; with fewer points a full buffer gives up its
 * oldest, smallest point). It controls admission only when the last
 * min_sample_threshold samples all are younger than ttl_ms (a count of
 * samples, not points; a threshold above max_samples, or above the slot's
 * capacity latency_buffer_size_max, never controls); otherwise, and with no
 * live point, it is 0; max_samples 0 keeps nothing. A guard fails when
 * current_latency >= latency_threshold (so a threshold of 0 always fails),
 * and any failing guard denies. A guard or report touching a tracker keeps it
 * live until now + ttl_ms; an expired tracker forgets its samples and binding.
 * Memory: one slot per stored tracker of latency_buffer_size_max points and as
 * many arrival times (24 bytes a point, wire_protocol.md "Quota Enforcement
 * Semantics": every slot's inline capacity), allocated when the tracker is
 * bound, counted in stats.tracker_bytes and covered by the memory estimate of
 * the key (sim_server_admin.c "Memory admission"); at most
 * latency_services_max trackers are stored per key.
 * A report applies every block or none: a mismatch or quota failure in any
 * block drops the whole report; blocks repeating an id add one sample each.
 *
 * Quotas (wire_protocol.md "Quota Enforcement Semantics"): counted per key
 * over live entries (expired ones are swept before a refusal); a refused
 * request or report changes nothing. Metrics labels: the first
 * metrics_labels_max distinct labels of a key are accounted as themselves,
 * later new ones as "overflow" (stats.labels_overflowed); the request is
 * processed either way.
 *
 * Dedup cache: entries in insertion order, each holding the exact response
 * datagram, replayed until inserted + accepted TTL (a duplicate at exactly
 * that time is no longer replayed). With a freshness check, an entry is kept
 * (found, not replayed) until its time_stamp is stale (time_stamp +
 * freshness_ms), so a copy arriving after its window is dropped as STALE
 * instead of being decided again; without one, it leaves at its window's end.
 * A Rate Request under a live entry's key in a datagram shorter than the
 * cached reply is not a copy (a response is its request modified in place):
 * MISMATCH (unique_id), nothing replayed or counted, so no source gets more
 * bytes back than it sent. dedup_capacity bounds the occupied slots; a new entry at capacity removes
 * the oldest: one past its window costs nothing, a live one is an eviction
 * (stats.dedup_evicted_capacity, the datagram's result.dedup_evicted) and
 * makes the cache degraded (wire_protocol.md Degraded-State Behavior) until
 * the last evicted entry's window ends: Status degraded_reason_code 1 (2 while
 * the simulator's loss mode is on). The cache is shared by every tenant and
 * the admin acks: one tenant answering more than capacity / TTL requests per
 * second evicts the others' live entries (docs/spec-notes.md says why there
 * is no per-tenant share). Degraded mode: a found entry is lost with
 * probability loss_p (stats.dedup_lost_degraded) and the request is processed
 * again; such a fresh decision, and one for a key evicted inside its window,
 * counts in stats.dedup_reprocessed. The index hash is SipHash-2-4 under a
 * 16-byte key drawn from the server's stream (the seed in the simulator, the
 * OS in serve), so unique_ids cannot be chosen to share one index slot.
 * Memory per entry: about 80 bytes of slot, the response buffer (>= 256
 * bytes, reused), 40 bytes of index and ghosts; the ring grows by doubling up
 * to the capacity.
 *
 * Response (wire_protocol.md "rate_response PDU"): the request modified in
 * place - key_id := server_id, steering_feedback per the steering mode (keep
 * 1, change 0, random 0 with probability steer_change_p), pdu_type RR, zero
 * where dedup_ttl_ms was, guard current_latency filled, resource
 * rate_limit := actual_rate and tokens_requested := deficit, request TLVs
 * omitted; time_stamp and unique_id are kept. AES responses use a fresh
 * nonce from the server's random stream.
 *
 * server_id = (server_start_s - 1735689600) << 23 | listener_id << 15 |
 * node_id. A restart takes a new start time and loses every dedup entry,
 * bucket, tracker and label and the queue-local status and metrics counters;
 * tenants, statistics and the degraded and steering settings are kept (they
 * are faults of the host, not state).
 *
 * Choices the specification leaves open: datagrams over 1200 bytes are
 * malformed; every padding field is required to be zero (the model checks the
 * client); the first metrics-label TLV is the label, unknown request TLVs are
 * skipped; tenant_mgmt_flag 2..255 is malformed; an ADD of a known key_id
 * replaces its credential and quotas but keeps its buckets, trackers and
 * counters (its trackers are dropped when latency_services_max or
 * latency_buffer_size_max shrinks: their slots no longer fit the estimate);
 * a REMOVE drops all of them;
 * min_sample_threshold ("minimum insertion rate") is a count of live samples;
 * a guard evaluation records no sample: api.md's "speculative latency" a
 * successful evaluation "may record" is, here, the establishment or refresh
 * of the tracker's binding and life and its check counters (wire_protocol.md
 * defines no speculative sample, and a sample the server made up would bias
 * the minimum that reports measure);
 * the server never compares a duplicate's body with the original's (only
 * its length, above); an
 * allocation failure while creating state drops the request as QUOTA.
 *
 * State tables (buckets, trackers, labels, services): clients choose the
 * ids, so positions are SipHash-2-4 under a 16-byte key per server (drawn
 * after the dedup key on the same side stream): no chosen ids share one
 * probe chain.
 *
 * Cost: one handle copies the datagram once, does O(blocks) table probes and
 * at most two AES operations; the tables allocate only when they grow
 * (sim/bench/bench_sim_server counts allocations per datagram: 0). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "sim_server_int.h"

#define DEFAULT_DEDUP_CAPACITY 65536u
#define DEFAULT_DEDUP_TTL_CAP_MS 2000u
#define SRV_DEDUP_KEY_STREAM 0x64647570u /* "ddup": the side stream of the dedup index key */

/* ---- tenants ------------------------------------------------------------------ */

static size_t tenant_slot(uint64_t key_id, size_t cap) {
    uint64_t h = key_id * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

srv_tenant_t *srv_tenant_find(const sim_server_t *s, uint64_t key_id) {
    for (size_t i = tenant_slot(key_id, s->tenant_cap); s->tenants[i] != NULL; i = (i + 1) & (s->tenant_cap - 1)) {
        if (s->tenants[i]->key_id == key_id) {
            return s->tenants[i];
        }
    }
    return NULL;
}

static int tenant_table_grow(sim_server_t *s) {
    size_t cap = s->tenant_cap * 2u;
    srv_tenant_t **fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL) {
        return -1;
    }
    for (size_t i = 0; i < s->tenant_cap; i++) {
        if (s->tenants[i] != NULL) {
            size_t j = tenant_slot(s->tenants[i]->key_id, cap);
            while (fresh[j] != NULL) {
                j = (j + 1) & (cap - 1);
            }
            fresh[j] = s->tenants[i];
        }
    }
    free(s->tenants);
    s->tenants = fresh;
    s->tenant_cap = cap;
    return 0;
}

static srv_tenant_t *tenant_create(sim_server_t *s, uint64_t key_id) {
    if ((s->n_tenants + 1) * 2u > s->tenant_cap && tenant_table_grow(s) != 0) {
        return NULL;
    }
    srv_tenant_t *t = calloc(1, sizeof *t);
    if (t == NULL) {
        return NULL;
    }
    t->key_id = key_id;
    t->metrics_gen = ++s->metrics_gen_seq; /* a re-added key_id does not continue old cursors */
    size_t i = tenant_slot(key_id, s->tenant_cap);
    while (s->tenants[i] != NULL) {
        i = (i + 1) & (s->tenant_cap - 1);
    }
    s->tenants[i] = t;
    s->n_tenants++;
    return t;
}

static uint16_t auth_tlv_of(r_auth_type_t type) {
    switch (type) {
    case R_AUTH_COOKIE: return SRV_TLV_AUTH_COOKIE;
    case R_AUTH_AES: return SRV_TLV_AUTH_AES;
    default: return SRV_TLV_AUTH_NONE;
    }
}

/* Backward-shift removal from the tenant table (no tombstones). */
static void tenant_unlink(sim_server_t *s, size_t i) {
    size_t mask = s->tenant_cap - 1;
    s->tenants[i] = NULL;
    for (size_t j = (i + 1) & mask; s->tenants[j] != NULL; j = (j + 1) & mask) {
        size_t k = tenant_slot(s->tenants[j]->key_id, s->tenant_cap);
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            s->tenants[i] = s->tenants[j];
            s->tenants[j] = NULL;
            i = j;
        }
    }
    s->n_tenants--;
}

static void tenant_free(srv_tenant_t *t) {
    srv_metrics_reset(t);
    srv_auth_release(t);
    OPENSSL_cleanse(t, sizeof *t);
    free(t);
}

/* Fixed hash of one key's id and quota word (Status Response
 * api_key_table_hash is the XOR over the loaded keys: order-free). */
static uint64_t key_hash(uint64_t key_id, uint32_t quota_word) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 8; i++) {
        h = (h ^ (uint8_t)(key_id >> (8 * i))) * 0x100000001b3ull;
    }
    for (int i = 0; i < 4; i++) {
        h = (h ^ (uint8_t)(quota_word >> (8 * i))) * 0x100000001b3ull;
    }
    return h;
}

/* Upsert (wire_protocol.md "ADD Tenant": "completely replaces existing
 * configuration"). Runtime state of the key (buckets, trackers, counters) is
 * kept, except its trackers when latency_services_max or
 * latency_buffer_size_max shrinks: their slots were sized by the old quotas
 * and would not fit the new estimate. A new AES key is set up on a scratch copy first, so a failure leaves
 * the old configuration in place. */
int srv_tenant_upsert(sim_server_t *s, const r_auth_key_info_t *info, const char *name, size_t name_len) {
    srv_tenant_t *t = srv_tenant_find(s, info->key_id);
    bool fresh = t == NULL;
    srv_tenant_t next;
    memset(&next, 0, sizeof next);
    next.auth_tlv = auth_tlv_of(info->type);
    memcpy(next.secret, info->secret, SRV_SECRET_LEN);
    if (next.auth_tlv == SRV_TLV_AUTH_AES && srv_auth_key(&next) != 0) {
        srv_auth_release(&next);
        return -1;
    }
    if (fresh && (t = tenant_create(s, info->key_id)) == NULL) {
        srv_auth_release(&next);
        return -1;
    }
    if (fresh) {
        t->overflow_rec = -1;
    } else {
        s->table_hash ^= key_hash(t->key_id, t->quota_word); /* the old entry leaves the hash */
        if (info->quotas.latency_services_max < t->quotas.latency_services_max ||
            info->quotas.latency_buffer_size_max < t->quotas.latency_buffer_size_max) {
            srv_table_drop_key(&s->trackers, t->key_id);
        }
        /* Label and service records never expire: kept beyond a lowered
         * quota they would stay outside the new estimate for good. */
        if (info->quotas.metrics_labels_max < t->quotas.metrics_labels_max) {
            srv_table_drop_key(&s->labels, t->key_id);
            srv_label_recs_reset(t);
            t->metrics_gen = ++s->metrics_gen_seq; /* old cursors are invalid */
        }
        if (info->quotas.latency_services_max < t->quotas.latency_services_max) {
            srv_table_drop_key(&s->services, t->key_id);
            srv_service_recs_reset(t);
            t->metrics_gen = ++s->metrics_gen_seq;
        }
    }
    srv_auth_release(t);
    t->auth_tlv = next.auth_tlv;
    memcpy(t->secret, next.secret, SRV_SECRET_LEN);
    t->enc = next.enc;
    t->dec = next.dec;
    OPENSSL_cleanse(&next, sizeof next);
    t->quotas = info->quotas;
    t->quota_word = info->quota_word;
    srv_mem_estimate(&t->quotas, &t->mem);
    size_t n = name_len < sizeof t->name ? name_len : sizeof t->name - 1u;
    if (n > 0) {
        memcpy(t->name, name, n);
    }
    t->name[n] = '\0';
    s->table_hash ^= key_hash(t->key_id, t->quota_word);
    s->st.table_generation++;
    return 0;
}

int sim_server_add_tenant(sim_server_t *s, const char *credential) {
    r_auth_key_info_t info;
    if (s == NULL || credential == NULL || r_client_parse_auth_key(credential, 0, &info) != RCLIENT_OK) {
        return -1;
    }
    int rc = srv_tenant_upsert(s, &info, NULL, 0);
    OPENSSL_cleanse(&info, sizeof info);
    return rc;
}

int sim_server_remove_tenant(sim_server_t *s, uint64_t key_id) {
    if (s == NULL) {
        return -1;
    }
    for (size_t i = tenant_slot(key_id, s->tenant_cap); s->tenants[i] != NULL; i = (i + 1) & (s->tenant_cap - 1)) {
        srv_tenant_t *t = s->tenants[i];
        if (t->key_id == key_id) {
            /* The tables' hooks look the tenant up: drop its entries first. */
            srv_table_drop_key(&s->buckets, key_id);
            srv_table_drop_key(&s->trackers, key_id);
            srv_table_drop_key(&s->labels, key_id);
            srv_table_drop_key(&s->services, key_id);
            s->table_hash ^= key_hash(t->key_id, t->quota_word);
            s->st.table_generation++;
            tenant_unlink(s, i);
            tenant_free(t);
            return 0;
        }
    }
    return 1;
}

size_t sim_server_tenant_count(const sim_server_t *s) {
    return s == NULL ? 0 : s->n_tenants;
}

/* ---- lifecycle ------------------------------------------------------------------- */

static void resolve_params(sim_server_params_t *p) {
    if (p->dedup_capacity == 0) {
        p->dedup_capacity = DEFAULT_DEDUP_CAPACITY;
    }
    if (p->dedup_ttl_cap_ms == 0) {
        p->dedup_ttl_cap_ms = DEFAULT_DEDUP_TTL_CAP_MS;
    }
    if (p->memory_budget_bytes == 0) {
        p->memory_budget_bytes = SRV_DEFAULT_MEMORY_BUDGET;
    }
}

sim_server_t *sim_server_new(const sim_server_params_t *params, const sim_rng_t *rng) {
    uint64_t id = 0;
    if (params == NULL || rng == NULL ||
        r_client_encode_server_id(params->server_start_s, params->listener_id, params->node_id, &id) != RCLIENT_OK) {
        return NULL;
    }
    sim_server_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    s->params = *params;
    resolve_params(&s->params);
    s->server_id = id;
    s->rng = *rng;
    s->draw_key = sim_rng_u64(&s->rng);
    s->steer_mode = params->steer_mode;
    s->steer_change_p = params->steer_change_p;
    s->tenant_cap = 8;
    s->tenants = calloc(s->tenant_cap, sizeof *s->tenants);
    srv_table_init(&s->buckets, sizeof(srv_bucket_t), srv_on_remove_bucket, s);
    srv_table_init(&s->trackers, sizeof(srv_tracker_t), srv_on_remove_tracker, s);
    srv_table_init(&s->labels, sizeof(srv_index_entry_t), srv_on_remove_label, s);
    srv_table_init(&s->services, sizeof(srv_index_entry_t), NULL, s);
    /* The dedup index key comes from the server's stream (the seed in the
     * simulator, the OS in serve), drawn on a side stream so the nonces and
     * draws of the model are unchanged. */
    sim_rng_t key_rng;
    uint8_t hash_key[16];
    sim_rng_seed(&key_rng, s->draw_key, SRV_DEDUP_KEY_STREAM, 0);
    sim_rng_bytes(&key_rng, hash_key, sizeof hash_key);
    int dd = s->tenants == NULL ? -1 : srv_dedup_init(&s->dedup, s->params.dedup_capacity);
    if (dd == 0 && srv_dedup_set_key(&s->dedup, hash_key) != 0) {
        srv_dedup_free(&s->dedup);
        dd = -1;
    }
    /* The state tables' key: the next 16 bytes of the same side stream (the
     * dedup key above is unchanged). */
    sim_rng_bytes(&key_rng, hash_key, sizeof hash_key);
    if (dd == 0 && srv_hasher_init(&s->hasher, hash_key) != 0) {
        srv_dedup_free(&s->dedup);
        dd = -1;
    }
    srv_table_t *tables[4] = {&s->buckets, &s->trackers, &s->labels, &s->services};
    for (size_t i = 0; dd == 0 && i < 4; i++) {
        (void)srv_table_set_hasher(tables[i], &s->hasher); /* empty: cannot fail */
    }
    OPENSSL_cleanse(hash_key, sizeof hash_key);
    OPENSSL_cleanse(&key_rng, sizeof key_rng);
    if (dd != 0) {
        free(s->tenants);
        free(s);
        return NULL;
    }
    return s;
}

void sim_server_free(sim_server_t *s) {
    if (s == NULL) {
        return;
    }
    srv_table_free(&s->buckets); /* before the tenants: the hooks look them up */
    srv_table_free(&s->trackers);
    srv_table_free(&s->labels);
    srv_table_free(&s->services);
    srv_hasher_free(&s->hasher);
    srv_dedup_free(&s->dedup);
    for (size_t i = 0; i < s->tenant_cap; i++) {
        if (s->tenants[i] != NULL) {
            tenant_free(s->tenants[i]);
        }
    }
    srv_auth_release(&s->admin);
    free(s->tenants);
    free(s);
}

uint64_t sim_server_id(const sim_server_t *s) {
    return s == NULL ? 0 : s->server_id;
}

int sim_server_restart(sim_server_t *s, uint64_t new_start_s) {
    uint64_t id = 0;
    if (s == NULL ||
        r_client_encode_server_id(new_start_s, s->params.listener_id, s->params.node_id, &id) != RCLIENT_OK) {
        return -1;
    }
    s->params.server_start_s = new_start_s;
    s->server_id = id;
    srv_table_clear(&s->buckets);
    srv_table_clear(&s->trackers);
    srv_table_clear(&s->labels);
    srv_table_clear(&s->services);
    srv_dedup_clear(&s->dedup);
    for (size_t i = 0; i < s->tenant_cap; i++) {
        if (s->tenants[i] != NULL) {
            srv_metrics_reset(s->tenants[i]);
            s->tenants[i]->metrics_gen = ++s->metrics_gen_seq;
        }
    }
    uint64_t generation = s->st.table_generation;
    memset(&s->st, 0, sizeof s->st);
    s->st.table_generation = generation; /* the table is configuration: kept, so is its generation */
    return 0;
}

void sim_server_set_dedup_degraded(sim_server_t *s, double loss_p, uint32_t capacity) {
    if (s == NULL) {
        return;
    }
    s->dedup_loss_p = loss_p > 0.0 ? loss_p : 0.0;
    if (capacity == 0 && s->dedup_loss_p == 0.0) {
        capacity = s->params.dedup_capacity; /* healthy again */
    }
    if (capacity != 0) {
        srv_dedup_set_capacity(&s->dedup, capacity, s->now_ms);
        s->stats.dedup_evicted_capacity = s->dedup.evicted;
    }
}

void sim_server_set_steering(sim_server_t *s, sim_steer_mode_t mode, double change_p) {
    if (s != NULL) {
        s->steer_mode = mode;
        s->steer_change_p = change_p;
    }
}

void sim_server_set_forced_deny(sim_server_t *s, bool on) {
    if (s != NULL) {
        s->forced_deny = on;
    }
}

const sim_server_stats_t *sim_server_stats(const sim_server_t *s) {
    return s == NULL ? NULL : &s->stats;
}

uint32_t sim_server_dedup_capacity(const sim_server_t *s) {
    return s == NULL ? 0 : s->dedup.capacity;
}

const char *sim_server_verdict_name(sim_server_verdict_t v) {
    static const char *const names[SIM_SRV_VERDICTS] = {
        "answered", "replayed", "report", "drop_malformed", "drop_auth",
        "drop_tenant", "drop_stale", "drop_dedup_ttl", "drop_quota", "drop_mismatch",
        "admin_answered", "admin_replayed", "drop_admin"};
    return (unsigned)v < SIM_SRV_VERDICTS ? names[v] : "unknown";
}

size_t sim_server_reason_text(const sim_server_reason_t *r, char *buf, size_t cap) {
    if (buf == NULL || cap == 0) {
        return 0;
    }
    buf[0] = '\0';
    if (r == NULL || r->where == NULL) {
        return 0;
    }
    size_t n = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int k = snprintf(buf + n, cap - n, __VA_ARGS__);                                          \
        n = k < 0 ? n : (n + (size_t)k < cap ? n + (size_t)k : cap - 1);                          \
    } while (0)
    PUT("%s", r->where);
    if (r->block != 0) {
        PUT("[%u]", r->block - 1u);
    }
    PUT(":");
    if (r->field != NULL) {
        if (r->hex) {
            PUT(" %s 0x%04" PRIx64, r->field, r->got);
        } else {
            PUT(" %s %" PRIu64, r->field, r->got);
        }
        if (r->rel != NULL) {
            if (r->hex) {
                PUT(", %s 0x%04" PRIx64, r->rel, r->want);
            } else {
                PUT(", %s %" PRIu64, r->rel, r->want);
            }
        }
    }
    if (r->note != NULL) {
        PUT(r->field != NULL ? " (%s)" : " %s", r->note);
    }
#undef PUT
    return n;
}
