/* SPDX-License-Identifier: MIT */
/* sim_server_int.h - internals shared by the reference server's files
 * (sim_server.c, sim_server_auth.c, sim_server_rate.c). Not for other
 * simulator modules: they use sim_server.h. */
#ifndef SIM_SERVER_INT_H
#define SIM_SERVER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "r_client.h"
#include "sim_server.h"
#include "sim_server_codec.h"
#include "sim_server_dedup.h"
#include "sim_server_table.h"

/* Per-label request counters (wire_protocol.md "Tenant Label Counter record"). */
typedef struct {
    uint64_t success, rate_limited, guard_failed, auth_failed;
} srv_counts_t;

typedef struct {
    srv_counts_t c;
    uint16_t len;
    uint8_t *bytes;                    /* owned; NULL when len is 0 */
} srv_label_rec_t;

/* Per-service counters (wire_protocol.md "Tenant Service Latency Counter record"). */
typedef struct {
    uint8_t id[SRV_ID_LEN];
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    uint64_t report_count, checks_total, checks_passed, checks_failed;
} srv_service_rec_t;

/* Entry of the label and service index tables: (key_id, id) -> index into
 * the tenant's record array (insertion order: the pagination order). */
typedef struct {
    srv_entry_hdr_t h;
    uint32_t index;
} srv_index_entry_t;

/* Memory admission estimate (sim_server_admin.c "Memory admission"): bytes
 * per unit of each quota, fixed so the estimate is the same on every host. */
#define SRV_MEM_PER_BUCKET 128u          /* srv_bucket_t slot at load <= 1/2 */
#define SRV_MEM_PER_SERVICE 800u         /* srv_tracker_t table slot and service index slot at load >= 1/4,
                                          * service counters record (x 2, array doubling), slot malloc
                                          * header (checked in sim_server_rate.c) */
#define SRV_MEM_PER_BUFFER_POINT 24u     /* one monotonic point (srv_sample_t) and one arrival time */
/* The longest label a datagram carries: 1200 - 40 (Tenant TLV) - 4 (rl-none
 * auth TLV) - 12 (rate request header) - 6 (label TLV header, str_length). */
#define SRV_MAX_LABEL_BYTES (SRV_MAX_DATAGRAM - 44u - SRV_PDU_FIXED - 6u)
#define SRV_MEM_PER_LABEL (96u + 1168u)  /* index slot, record, counters; the label's bytes in their own
                                          * allocation (up to SRV_MAX_LABEL_BYTES and a malloc header) */
_Static_assert(SRV_MAX_LABEL_BYTES + 16u <= 1168u, "SRV_MEM_PER_LABEL covers the longest label's allocation");
#define SRV_MEM_PER_TENANT 1024u         /* the tenant record, contexts, table slot */
#define SRV_MEM_PER_DEDUP_ENTRY 1400u    /* slot, cached reply up to 1200 bytes, index */
#define SRV_DEFAULT_MEMORY_BUDGET (1ull << 30)

/* The estimate of one tenant's quotas by component; all saturate at UINT64_MAX. */
typedef struct {
    uint64_t rate_map, latency_map, latency_buffer, metrics_label, other, total;
} srv_mem_estimate_t;
void srv_mem_estimate(const r_api_key_quotas_t *q, srv_mem_estimate_t *out);

/* One configured API key (wire_protocol.md "ADD Tenant": the credential
 * carries auth method, key_id, secret and quotas). */
typedef struct {
    uint64_t key_id;
    uint16_t auth_tlv;                 /* SRV_TLV_AUTH_* of the credential's HRP */
    uint8_t secret[SRV_SECRET_LEN];    /* cookie value or AES-256 key; zero for none */
    EVP_CIPHER_CTX *enc, *dec;         /* AES only: keyed once, reused per packet */
    r_api_key_quotas_t quotas;
    uint32_t buckets, trackers, labels; /* entries stored per table (live or not yet swept) */
    uint32_t quota_word;
    char name[256];                    /* from the ADD (NUL-terminated), "" when configured */
    srv_mem_estimate_t mem;            /* admitted estimate of the quotas */
    /* queue-local metrics (wire_protocol.md "Metrics Record Formats"), lost on restart */
    srv_counts_t summary;
    uint64_t service_reports;          /* accepted latency-report service blocks */
    srv_label_rec_t *label_recs;       /* distinct labels, then "overflow" when used */
    uint32_t n_label_recs, label_recs_cap;
    int64_t overflow_rec;              /* index of the "overflow" record, -1 none */
    srv_service_rec_t *svc_recs;
    uint32_t n_svc_recs, svc_recs_cap;
    uint32_t metrics_gen;              /* changes when the records are reset: cursors die */
    uint64_t mq_batch;                 /* batch of the last Metrics Query processed (+1; 0 none) */
} srv_tenant_t;

/* Rate bucket: fixed window [window_start_ms, window_start_ms + window_size_ms). */
typedef struct {
    srv_entry_hdr_t h;                 /* id = bucket_id; expiry = end of the window */
    uint64_t window_start_ms;
    uint32_t window_size_ms;
    uint32_t rate_limit;
    uint32_t consumed;                 /* tokens granted in this window */
} srv_bucket_t;

typedef struct {
    uint64_t at_ms;
    uint32_t value;
    uint32_t seq;                      /* the sample's number in its tracker (wraps; see tracker_push) */
} srv_sample_t;

/* Latency tracker (sim_server.c "Latency trackers"): the minimum over the
 * last max_samples samples younger than ttl_ms, in a bounded monotonic
 * buffer of at most buffer_size points, and the arrival times of the last
 * min_sample_threshold samples for the admission gate. Both live in one slot
 * of cap points and cap arrival times, cap = the key's
 * latency_buffer_size_max when the tracker was bound (wire_protocol.md
 * "Quota Enforcement Semantics": the inline monotonic-point capacity of
 * every slot): SRV_MEM_PER_BUFFER_POINT bytes per point of the slot, so
 * nothing a datagram carries sizes an allocation beyond the key's quota. */
typedef struct {
    srv_entry_hdr_t h;                 /* id = latency_tracker_id; expiry = last touch + ttl_ms */
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    srv_sample_t *points;              /* the slot: cap points, then cap arrival times (recent) */
    uint64_t *recent;                  /* ring of the last rcap arrival times, inside the slot */
    uint32_t cap;                      /* slot capacity in points (0: no slot, out of memory) */
    uint32_t pcap, phead, pn;          /* monotonic ring: pcap = buffer_size <= cap */
    uint32_t rcap, rnext, rn;
    uint32_t seq;                      /* number of the next sample (wraps) */
    bool gated_off;                    /* min_sample_threshold can never be reached: never controls */
} srv_tracker_t;

/* Queue-local status counters (wire_protocol.md "Status Response PDU"),
 * reset by a restart. */
typedef struct {
    uint64_t rx_packets, tx_packets, rx_dropped, tx_dropped, parse_errors, auth_failures;
    uint64_t admin_requests, rate_requests, rate_success, rate_limited, guard_failed, latency_reports;
    uint64_t dedup_hits, dedup_misses, tenant_mutations, tenant_mutation_failures, allocation_failures;
    uint64_t table_generation;
} srv_status_counts_t;

/* An answered administrative query (sim_server_admin.c "Queries are
 * answered once"). Free when expiry_ms is 0 or past. */
typedef struct {
    uint64_t key_id;
    uint64_t expiry_ms;                /* remembered while now <= expiry_ms */
    uint8_t unique_id[16];
    uint16_t pdu_type;
} srv_query_seen_t;

struct sim_server {
    sim_server_params_t params;        /* defaults resolved */
    uint64_t server_id;
    sim_rng_t rng;                /* AES response nonces */
    uint64_t draw_key;            /* keyed draws per request identity: dedup loss, random steering */
    srv_tenant_t **tenants;            /* open addressing on key_id; never removed */
    size_t tenant_cap, n_tenants;
    srv_table_t buckets, trackers, labels, services;
    srv_hasher_t hasher;        /* the tables' keyed position hash */
    srv_dedup_t dedup;
    double dedup_loss_p;
    sim_steer_mode_t steer_mode;
    double steer_change_p;
    sim_server_stats_t stats;
    uint64_t now_ms;                   /* time of the latest datagram (for setters) */
    bool forced_deny;                  /* sim_server_set_forced_deny */
    sim_server_reason_t *why;          /* the current datagram's result.why */
    sim_server_result_t *result;       /* the current datagram's result */
    srv_status_counts_t st;
    uint64_t table_hash;               /* XOR of the loaded keys' (key_id, quota word) hashes */
    uint64_t batch;                    /* sim_server_batch_begin count */
    uint32_t metrics_gen_seq;          /* last metrics_gen handed out: every tenant incarnation and
                                          every reset of its records gets a new one, so no cursor
                                          outlives them */
    sim_server_memory_fn host_memory;  /* sim_server_set_host_memory, or NULL */
    void *host_memory_ctx;
    bool has_admin;
    uint8_t admin_secret[SRV_SECRET_LEN];
    srv_tenant_t admin;                /* the admin key as a pseudo-tenant (auth contexts only) */
    srv_query_seen_t queries[SIM_SERVER_QUERIES_MAX]; /* answered queries; kept across a restart */
    uint8_t scratch[SRV_MAX_DATAGRAM]; /* plaintext request, then response in place */
    uint8_t resp[SRV_MAX_DATAGRAM];    /* sealed response */
};

srv_tenant_t *srv_tenant_find(const sim_server_t *s, uint64_t key_id);

/* Sum of the admitted estimates of every tenant, plus the dedup cache. */
uint64_t srv_mem_allocated(const sim_server_t *s);
uint64_t srv_mem_dedup(const sim_server_t *s);

/* Upsert of a decoded credential after every check passed, with the name
 * (len bytes, may be 0). Returns 0, or -1 on an allocation failure (then
 * nothing changed). */
int srv_tenant_upsert(sim_server_t *s, const r_auth_key_info_t *info, const char *name, size_t name_len);

/* Drop the per-tenant metrics records (restart, removal). */
void srv_metrics_reset(srv_tenant_t *t);
/* Free a tenant's label records (and "overflow") / service records; the
 * caller drops their index entries (srv_table_drop_key) first. */
void srv_label_recs_reset(srv_tenant_t *t);
void srv_service_recs_reset(srv_tenant_t *t);

/* ---- dedup and freshness (sim_server_handle.c) -------------------------------- */
/* Status Response degraded_reason_code values (project; the spec reserves
 * non-zero values for degraded reasons, docs/spec-notes.md). */
#define SRV_DEGRADED_DEDUP_EVICTION 1u /* live entries evicted for capacity, a window not over */
#define SRV_DEGRADED_DEDUP_LOSS 2u     /* the simulator's degraded mode: entries lost at lookup */
uint16_t srv_degraded_reason(const sim_server_t *s, uint64_t now_ms);

/* SIM_SRV_ANSWERED when f's time_stamp is within freshness_ms of now, else
 * the DROP_STALE verdict with its reason. */
sim_server_verdict_t srv_check_fresh(sim_server_t *s, const srv_frame_t *f, uint64_t now_ms);

/* How long an entry for f stays findable: until its time_stamp is stale
 * (time_stamp + freshness_ms + 1), or 0 (only the window) with no freshness check. */
uint64_t srv_dedup_keep_until(const sim_server_t *s, const srv_frame_t *f);

/* Cache the sealed response s->resp[0..len) and account evictions in the
 * statistics and the current datagram's result. */
void srv_dedup_cached(sim_server_t *s, const srv_dd_key_t *key, uint64_t now_ms, uint32_t ttl_ms,
                      uint64_t keep_until_ms, size_t len, bool allowed);

/* The DROP_STALE verdict of a copy found past its window (slot retained). */
sim_server_verdict_t srv_dedup_too_late(sim_server_t *s, const srv_dd_slot_t *slot);

/* ---- administrative channel (sim_server_admin.c) ---------------------------- */
/* A datagram with tenant_mgmt_flag = 1, framed as f. Returns the verdict;
 * on ADMIN_ANSWERED/ADMIN_REPLAYED the reply and reply_len outputs point at the sealed
 * response (server- or cache-owned). */
sim_server_verdict_t srv_admin_handle(sim_server_t *s, uint64_t now_ms, const uint8_t *in, size_t len,
                                      const srv_frame_t *f, const uint8_t **reply, size_t *reply_len);

/* Queries answered once (sim_server_queries.c). srv_query_admit: DROP_ADMIN
 * (reason set) for a copy of a query answered already or when the memory is
 * full of live entries; else SIM_SRV_ADMIN_ANSWERED and *slot is where
 * srv_query_answered records it once it is answered. */
sim_server_verdict_t srv_query_admit(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, uint16_t pdu_type,
                                     size_t *slot);
void srv_query_answered(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, uint16_t pdu_type, size_t slot);

/* Record why the current datagram is dropped and return the verdict v:
 * return SRV_DROP(s, SIM_SRV_DROP_QUOTA, .where = "resources", ...). */
static inline sim_server_verdict_t srv_drop(sim_server_t *s, sim_server_verdict_t v, sim_server_reason_t r) {
    if (s->why != NULL) {
        *s->why = r;
    }
    return v;
}
#define SRV_DROP(s, v, ...) srv_drop((s), (v), (sim_server_reason_t){__VA_ARGS__})

/* ---- auth (sim_server_auth.c) ---------------------------------------------- */
/* Key the tenant's AES contexts (created on first use, reused after). 0 or -1. */
int srv_auth_key(srv_tenant_t *t);
void srv_auth_release(srv_tenant_t *t);

/* Authenticate dgram (framed as f, auth type already equal to the tenant's)
 * and write its plaintext to plain[0..len): cookie compared in constant time;
 * AES tag verified over AAD = tenant TLV || auth type || size || nonce and the
 * PDU decrypted. Returns SRV_OK or SRV_E_AUTH. */
srv_status_t srv_auth_open(srv_tenant_t *t, const uint8_t *dgram, size_t len, const srv_frame_t *f,
                           uint8_t *plain);

/* Seal the plaintext response plain[0..len) (tenant TLV already rewritten)
 * into out[0..len): AES writes nonce, encrypts the PDU and writes the tag;
 * none and cookie copy. Returns 0 or -1 (cipher failure). */
int srv_auth_seal(srv_tenant_t *t, uint8_t *plain, size_t len, const srv_frame_t *f, const uint8_t *nonce,
                  uint8_t *out);

/* ---- models (sim_server_rate.c) -------------------------------------------- */
typedef struct {
    bool allowed;
    bool guard_failed;                 /* denied with at least one failing guard */
    uint32_t tokens_granted;
} srv_decision_t;

/* Validate, decide and apply one Rate Request; fills the response fields of
 * the blocks in place. Returns SIM_SRV_ANSWERED or a drop verdict (then no
 * state changed). */
sim_server_verdict_t srv_rate_request(sim_server_t *s, srv_tenant_t *t, srv_pdu_t *pdu, uint64_t now_ms,
                                      srv_decision_t *out);

/* Validate and apply one Latency Report atomically. SIM_SRV_REPORT or a drop. */
sim_server_verdict_t srv_latency_report(sim_server_t *s, srv_tenant_t *t, const srv_pdu_t *pdu, uint64_t now_ms);

/* Metrics label accounting (wire_protocol.md "Quota Enforcement Semantics":
 * beyond metrics_labels_max distinct labels a label is rewritten to "overflow"). */
void srv_count_label(sim_server_t *s, srv_tenant_t *t, const uint8_t *label, size_t len);

/* The counters of the label a fresh decision is accounted under (the label,
 * or "overflow" past metrics_labels_max; "" for a request without label), or
 * NULL when no record could be allocated. Creates the record. */
srv_counts_t *srv_label_counts(sim_server_t *s, srv_tenant_t *t, const uint8_t *label, size_t len);

/* The service record of a tracker block (created on first use, metadata
 * refreshed), or NULL past latency_services_max records or on allocation failure. */
srv_service_rec_t *srv_service_rec(sim_server_t *s, srv_tenant_t *t, const srv_tracker_block_t *b);

/* Table removal hooks: keep per-tenant counts and free tracker rings. */
void srv_on_remove_bucket(void *ctx, void *entry);
void srv_on_remove_tracker(void *ctx, void *entry);
void srv_on_remove_label(void *ctx, void *entry);

#endif /* SIM_SERVER_INT_H */
