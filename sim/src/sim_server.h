/* sim_server.h - the reference r-server model (wire_protocol.md), sans-IO.
 *
 * It speaks real bytes with its own decoder and encoder (it shares no code
 * with the client codec, so client and server check each other): Tenant TLV,
 * none/cookie/AES-256-GCM auth (OpenSSL directly), Rate Request -> Rate
 * Response built by modifying the request in place, Latency Report (no
 * response). Any auth or validation failure is a blackhole: no reply.
 *
 * Models, each documented in docs/traces.md "Server model":
 * - tenants from Bech32 credentials (r_client_parse_auth_key), with quotas;
 * - structured server_id from (server_start_s, listener_id, node_id); a
 *   restart picks a new start time and loses all runtime state;
 * - dedup cache keyed by (pdu_type, tenant_mgmt_flag, key_id, unique_id),
 *   honouring dedup_ttl_ms (clamped by the listener cap; 0 or above the key's
 *   dedup_ttl_ms_max is dropped), with a capacity and a degraded mode that
 *   loses entries;
 * - rate buckets keyed by (key_id, bucket_id), fixed windows aligned to
 *   multiples of window_size_ms on the server clock, atomic all-or-nothing
 *   grants, drop on a window/limit mismatch while the entry is live;
 * - latency trackers keyed by (key_id, latency_tracker_id): a sliding-window
 *   minimum over the last ttl_ms of at most buffer_size (and max_samples)
 *   samples, reported only once min_sample_threshold samples are live
 *   (else 0); drop on a configuration mismatch;
 * - quotas: rate_buckets_max, latency_services_max, latency_buffer_size_max,
 *   rate_window_size_ms_max (drop), metrics labels (rewrite to "overflow");
 * - request freshness: |server_now - time_stamp| > freshness_ms is dropped;
 * - steering feedback written into responses. */
#ifndef SIM_SERVER_H
#define SIM_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_engine.h"

typedef enum {
    SIM_SRV_ANSWERED = 0,         /* fresh decision, response written */
    SIM_SRV_REPLAYED = 1,         /* dedup hit within the window: cached response written */
    SIM_SRV_REPORT = 2,           /* latency report applied, no response */
    SIM_SRV_DROP_MALFORMED = 3,   /* framing, sizes, reserved fields, unknown PDU */
    SIM_SRV_DROP_AUTH = 4,        /* auth type, cookie, AES tag */
    SIM_SRV_DROP_TENANT = 5,      /* unknown key_id or tenant_mgmt_flag = 1 (2..255: malformed) */
    SIM_SRV_DROP_STALE = 6,       /* time_stamp outside the freshness window */
    SIM_SRV_DROP_DEDUP_TTL = 7,   /* dedup_ttl_ms 0 or above the key's cap */
    SIM_SRV_DROP_QUOTA = 8,       /* bucket/tracker count, buffer_size or window over quota */
    SIM_SRV_DROP_MISMATCH = 9,    /* live bucket/tracker presented with other settings */
    SIM_SRV_VERDICTS = 10
} sim_server_verdict_t;

typedef enum {
    SIM_STEER_KEEP = 0,    /* always steering_feedback = 1 */
    SIM_STEER_CHANGE = 1,  /* always 0: ask every client to rebind */
    SIM_STEER_RANDOM = 2   /* 0 with probability steer_change_p */
} sim_steer_mode_t;

typedef struct {
    uint64_t server_start_s;    /* Unix seconds, >= 1735689600 */
    uint8_t listener_id;
    uint16_t node_id;           /* <= 32767 */
    uint32_t dedup_capacity;    /* live entries; 0 = 65536 */
    uint32_t dedup_ttl_cap_ms;  /* listener cap; accepted TTL = min(request, cap); 0 = 2000 */
    uint32_t freshness_ms;      /* 0 = no freshness check */
    sim_steer_mode_t steer_mode;
    double steer_change_p;
} sim_server_params_t;

/* Why a datagram was dropped (every drop verdict sets it; where is NULL for
 * the others): which record and field broke which rule, for logs a client
 * maintainer reads. Strings are static. Printed by sim_server_reason_text as
 * "<where>[<block - 1>]: <field> <got>, <rel> <want> (<note>)", each part only
 * when set, e.g. "tenant TLV: tlv_size 36, want 40". */
typedef struct {
    const char *where;          /* "datagram", "tenant TLV", "auth TLV", "PDU", "resources", ... */
    unsigned block;             /* 1 + index of the block in its array; 0 = not a block */
    const char *field;          /* wire field name, or NULL */
    uint64_t got;               /* the field's value (when field is set) */
    const char *rel;            /* "want", "max", "min", "server time", ... or NULL */
    uint64_t want;              /* the value rel names */
    bool hex;                   /* print got and want as 0x%04x (type codes) */
    const char *note;           /* extra words, or NULL */
} sim_server_reason_t;

typedef struct {
    /* filled for requests that reached tenant lookup */
    uint64_t key_id;
    uint8_t unique_id[16];
    bool is_request;            /* rate request (vs report) */
    bool allowed;               /* for ANSWERED/REPLAYED: the response's decision */
    uint32_t tokens_granted;    /* sum over resources when allowed and ANSWERED */
    sim_server_reason_t why;    /* for a drop verdict: the broken rule */
} sim_server_result_t;

typedef struct {
    uint64_t verdicts[SIM_SRV_VERDICTS];
    uint64_t dedup_hits, dedup_misses;
    uint64_t dedup_evicted_capacity;   /* live entries pushed out by the capacity */
    uint64_t dedup_lost_degraded;      /* live entries lost to degraded mode */
    uint64_t dedup_live_max;           /* peak occupied entries (utilization = / capacity) */
    uint64_t dedup_reprocessed;        /* fresh decisions for a key whose entry was lost (degraded)
                                          or evicted (capacity) inside its window */
    double dedup_hit_age_sum;          /* sum over hits of age / accepted TTL (0..1) */
    uint64_t labels_overflowed;
} sim_server_stats_t;

typedef struct sim_server sim_server_t;

/* rng: the server's own stream (AES nonces; a key drawn from it keys the
 * per-request draws of degraded mode and random steering). Returns NULL
 * for invalid params (start before 2025, node_id > 32767) or allocation failure. */
sim_server_t *sim_server_new(const sim_server_params_t *params, const sim_rng_t *rng);
void sim_server_free(sim_server_t *s);
uint64_t sim_server_id(const sim_server_t *s);

/* Add or replace a tenant from its credential text (rl-none/rl-cookie/rl-aes;
 * upsert, wire_protocol.md "ADD Tenant"). Returns 0, or -1 for an invalid credential. */
int sim_server_add_tenant(sim_server_t *s, const char *credential);

/* Restart: a new start time (new server_id), every dedup entry, bucket and
 * tracker lost; tenants (configuration) kept. Returns 0 or -1 (bad start). */
int sim_server_restart(sim_server_t *s, uint64_t new_start_s);

/* Degraded dedup: each live entry is lost with probability loss_p when it is
 * looked up, and the capacity becomes capacity (0 = unchanged). loss_p 0 and
 * capacity 0 restore health (the original capacity). */
void sim_server_set_dedup_degraded(sim_server_t *s, double loss_p, uint32_t capacity);
void sim_server_set_steering(sim_server_t *s, sim_steer_mode_t mode, double change_p);

/* Handle one datagram received at server-local time now_ms. On ANSWERED or
 * REPLAYED the response is written to out (out_cap >= 1200) and *out_len set;
 * otherwise *out_len = 0 (also when out is NULL or smaller than the response:
 * the decision stands, the bytes are lost). result may be NULL. Never reads
 * past len. The model and the order of checks are documented at the top of
 * sim_server.c. */
sim_server_verdict_t sim_server_handle(sim_server_t *s, uint64_t now_ms, const uint8_t *in, size_t len,
                                       uint8_t *out, size_t out_cap, size_t *out_len,
                                       sim_server_result_t *result);

/* Forced deny (a scripted fault of a test server): while on, every validated
 * Rate Request is decided as if each bucket had no tokens left and each
 * guard's tracker sat at its threshold, so it is denied (unless it asks for no
 * tokens and has no guard); state is established as for any decision. */
void sim_server_set_forced_deny(sim_server_t *s, bool on);

const sim_server_stats_t *sim_server_stats(const sim_server_t *s);

/* Write r as text ("tenant TLV: tlv_size 36, want 40") into buf[0..cap),
 * NUL-terminated and truncated to fit; "" when r->where is NULL. Returns the
 * length written. */
size_t sim_server_reason_text(const sim_server_reason_t *r, char *buf, size_t cap);
const char *sim_server_verdict_name(sim_server_verdict_t v);

#endif /* SIM_SERVER_H */
