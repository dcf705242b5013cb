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

/* One configured API key (wire_protocol.md "ADD Tenant": the credential
 * carries auth method, key_id, secret and quotas). */
typedef struct {
    uint64_t key_id;
    uint16_t auth_tlv;                 /* SRV_TLV_AUTH_* of the credential's HRP */
    uint8_t secret[SRV_SECRET_LEN];    /* cookie value or AES-256 key; zero for none */
    EVP_CIPHER_CTX *enc, *dec;         /* AES only: keyed once, reused per packet */
    r_api_key_quotas_t quotas;
    uint32_t buckets, trackers, labels; /* entries stored per table (live or not yet swept) */
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
} srv_sample_t;

/* Latency tracker (sim_server.c "Latency trackers"): the minimum over
 * ttl_ms in a bounded monotonic buffer of at most buffer_size points, and
 * the arrival times of the last min(min_sample_threshold, max_samples)
 * samples for the admission gate. */
#define SRV_TRACKER_RECENT_MAX 65536u
typedef struct {
    srv_entry_hdr_t h;                 /* id = latency_tracker_id; expiry = last touch + ttl_ms */
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    srv_sample_t *points;              /* ring: times increasing, values non-decreasing from the head */
    uint32_t pcap, phead, pn;
    uint64_t *recent;                  /* ring of the last rcap arrival times */
    uint32_t rcap, rnext, rn;
    bool gated_off;                    /* min_sample_threshold can never be reached: never controls */
} srv_tracker_t;

struct sim_server {
    sim_server_params_t params;        /* defaults resolved */
    uint64_t server_id;
    sim_rng_t rng;                /* AES response nonces */
    uint64_t draw_key;            /* keyed draws per request identity: dedup loss, random steering */
    srv_tenant_t **tenants;            /* open addressing on key_id; never removed */
    size_t tenant_cap, n_tenants;
    srv_table_t buckets, trackers, labels;
    srv_dedup_t dedup;
    double dedup_loss_p;
    sim_steer_mode_t steer_mode;
    double steer_change_p;
    sim_server_stats_t stats;
    uint64_t now_ms;                   /* time of the latest datagram (for setters) */
    bool forced_deny;                  /* sim_server_set_forced_deny */
    sim_server_reason_t *why;          /* the current datagram's result.why */
    uint8_t scratch[SRV_MAX_DATAGRAM]; /* plaintext request, then response in place */
    uint8_t resp[SRV_MAX_DATAGRAM];    /* sealed response */
};

srv_tenant_t *srv_tenant_find(const sim_server_t *s, uint64_t key_id);

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

/* Table removal hooks: keep per-tenant counts and free tracker rings. */
void srv_on_remove_bucket(void *ctx, void *entry);
void srv_on_remove_tracker(void *ctx, void *entry);
void srv_on_remove_label(void *ctx, void *entry);

#endif /* SIM_SERVER_INT_H */
