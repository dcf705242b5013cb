/* SPDX-License-Identifier: MIT */
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
 *   honouring dedup_ttl_ms (0, above the key's dedup_ttl_ms_max or above
 *   the listener cap is dropped), looked up before the freshness check,
 *   kept until the request's time_stamp is stale so a late copy is dropped,
 *   with a capacity whose evictions are a degraded state (Status
 *   degraded_reason_code), a degraded mode that loses entries, and a
 *   SipHash-keyed index;
 * - rate buckets keyed by (key_id, bucket_id), fixed windows aligned to
 *   multiples of window_size_ms on the server clock, atomic all-or-nothing
 *   grants, drop on a window/limit mismatch while the entry is live;
 * - latency trackers keyed by (key_id, latency_tracker_id): the minimum of
 *   the last max_samples samples younger than ttl_ms, kept in a monotonic
 *   buffer of at most buffer_size points, reported only once the last
 *   min_sample_threshold samples are younger than ttl_ms (else 0); one slot of
 *   latency_buffer_size_max points per tracker, within the key's memory
 *   estimate; drop on a configuration mismatch;
 * - quotas: rate_buckets_max, latency_services_max, latency_buffer_size_max,
 *   rate_window_size_ms_max (drop), metrics labels (rewrite to "overflow");
 * - request freshness: |server_now - time_stamp| > freshness_ms is dropped;
 * - steering feedback written into responses;
 * - the administrative channel (wire_protocol.md "Administrative PDUs"), once
 *   an admin key is set: Tenant Mutation (ADD upsert, REMOVE) answered by a
 *   Tenant Ack, Status Query by a 448-byte Status Response V1, Metrics Query
 *   by a Metrics Response page (tenant summary, label counters, service
 *   latency counters); memory admission of every ADD against the budget;
 *   at most one Metrics Query per tenant per processing batch
 *   (sim_server_batch_begin). Documented at the top of sim_server_admin.c. */
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
    SIM_SRV_DROP_STALE = 6,       /* time_stamp outside the freshness window, or a copy of a request
                                     after its dedup window (a replayed capture) */
    SIM_SRV_DROP_DEDUP_TTL = 7,   /* dedup_ttl_ms 0 or above the key's or the listener's cap */
    SIM_SRV_DROP_QUOTA = 8,       /* bucket/tracker count, buffer_size or window over quota */
    SIM_SRV_DROP_MISMATCH = 9,    /* live bucket/tracker presented with other settings, or a Rate
                                     Request under a live dedup entry's unique_id in a datagram
                                     shorter than the cached reply */
    SIM_SRV_ADMIN_ANSWERED = 10,  /* administrative PDU answered: Tenant Ack, Status or Metrics Response */
    SIM_SRV_ADMIN_REPLAYED = 11,  /* Tenant Mutation duplicate inside its window: the cached Tenant Ack */
    SIM_SRV_DROP_ADMIN = 12,      /* administrative request refused after authentication: mutation
                                     validation, memory admission, a second Metrics Query of one
                                     tenant in one batch (reason says which) */
    SIM_SRV_VERDICTS = 13
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
    uint32_t dedup_ttl_cap_ms;  /* listener cap: a Rate Request above it is dropped (DEDUP_TTL), a Tenant
                                   Mutation's TTL is clamped to it; 0 = 2000 */
    uint32_t freshness_ms;      /* 0 = no freshness check */
    sim_steer_mode_t steer_mode;
    double steer_change_p;
    uint64_t memory_budget_bytes; /* rl_memory_budget_bytes for memory admission; 0 = 1 GiB */
    uint16_t udp_port;          /* reported in the Status Response (0 = unknown, the simulator) */
    uint16_t backend;           /* Status Response backend: 0 unknown, 2 UDP fallback (serve) */
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
    uint16_t admin_pdu;         /* administrative request: its pdu_type (0x544D, 0x5153, 0x514D), else 0 */
    uint8_t admin_op;           /* Tenant Mutation operation (0x03 ADD, 0x05 REMOVE), else 0 */
    uint32_t dedup_evicted;     /* live dedup entries evicted for capacity while answering this datagram
                                   (wire_protocol.md Degraded-State Behavior: the host logs it as ERROR) */
    uint64_t dedup_evicted_key_id; /* key_id of the last entry evicted (tenant or admin key_id) */
    bool dedup_degraded_began;  /* this eviction ended a healthy period (the first of an episode) */
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
    uint64_t tracker_bytes;            /* latency-tracker slots now allocated (slot capacity x
                                        * SRV_MEM_PER_BUFFER_POINT each); within the memory estimate */
    uint64_t tenant_mutations;         /* applied Tenant Mutations (fresh acks), since creation */
    uint64_t tenant_mutation_failures; /* authenticated Tenant Mutations refused (no ack) */
    uint64_t allocation_failures;      /* ADDs refused by memory admission or an allocation failure */
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

/* Remove the tenant key_id and every bucket, tracker, label and counter it
 * owns (wire_protocol.md "REMOVE Tenant"). Returns 0 when it was removed, 1
 * when no such tenant existed (nothing changes), -1 for a NULL s. */
int sim_server_remove_tenant(sim_server_t *s, uint64_t key_id);

/* Add or replace a tenant the way an administrative ADD does: every
 * validation rule (credential HRP and shape, key_id equal to header_key_id)
 * and memory admission against memory_budget_bytes, before anything is
 * published. Returns 0, or -1 with *why (may be NULL) naming the rule;
 * nothing changes on -1. The simulator's trace events use it. */
int sim_server_admit_tenant(sim_server_t *s, uint64_t header_key_id, const char *credential,
                            sim_server_reason_t *why);

/* Administrative queries answered once (sim_server_admin.c "Queries are
 * answered once"): at most this many answered Status and Metrics Queries are
 * remembered per server, each until its time_stamp + freshness_ms; while all
 * are live, a further query is dropped (DROP_ADMIN). */
#define SIM_SERVER_QUERIES_MAX 1024u

/* The administrative key (wire_protocol.md "Administrative Authentication":
 * the raw 32-byte AES-256 key of an rl-secret credential; the caller parses
 * the text). Until one is set, tenant_mgmt_flag = 1 datagrams are dropped as
 * DROP_TENANT. key NULL removes it. Returns 0, or -1 (cipher setup failed:
 * no key then). */
int sim_server_set_admin_key(sim_server_t *s, const uint8_t key[32]);

/* Start a new listener processing batch (wire_protocol.md "Metrics Query
 * PDU": at most one Metrics Query per tenant per batch). serve calls it once
 * per recvmmsg() batch of a socket; the simulator once per distinct
 * simulated millisecond at which a server receives datagrams. A host that
 * never calls it has one batch for the server's whole life. */
void sim_server_batch_begin(sim_server_t *s);

/* Host memory readings (wire_protocol.md "Status Response PDU": "cheap
 * point-in-time readings or cached snapshots"); UINT64_MAX = unknown (for
 * cgroup_limit also: unconstrained). */
typedef struct {
    uint64_t system_total, system_available, cgroup_limit, process_rss;
} sim_server_host_memory_t;
typedef void (*sim_server_memory_fn)(void *ctx, sim_server_host_memory_t *out);

/* The host's memory readings, asked at each administrative ADD (memory
 * admission also against the available system/cgroup memory: the ADD's
 * growth must fit system_available and, when both are known, cgroup_limit
 * minus process_rss) and each Status Query (the four fields, with their
 * validity bits). fn NULL (the default, the simulator): the model knows no
 * host memory and admits against its budget only. */
void sim_server_set_host_memory(sim_server_t *s, sim_server_memory_fn fn, void *ctx);

/* The UDP port the Status Response reports (serve sets it once bound). */
void sim_server_set_udp_port(sim_server_t *s, uint16_t port);

/* Number of tenants configured now. */
size_t sim_server_tenant_count(const sim_server_t *s);

/* Restart: a new start time (new server_id), every dedup entry, bucket,
 * tracker, label and queue-local counter (status and metrics) lost; tenants
 * (configuration) kept. Returns 0 or -1 (bad start). */
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

/* The dedup cache's capacity now (entries; a degraded-mode capacity while one
 * is set). */
uint32_t sim_server_dedup_capacity(const sim_server_t *s);

/* Write r as text ("tenant TLV: tlv_size 36, want 40") into buf[0..cap),
 * NUL-terminated and truncated to fit; "" when r->where is NULL. Returns the
 * length written. */
size_t sim_server_reason_text(const sim_server_reason_t *r, char *buf, size_t cap);
const char *sim_server_verdict_name(sim_server_verdict_t v);

#endif /* SIM_SERVER_H */
