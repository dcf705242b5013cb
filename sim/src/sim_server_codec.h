/* SPDX-License-Identifier: MIT */
/* sim_server_codec.h - the reference server's own wire decoder and response
 * encoder (wire_protocol.md "Tenant Header", "Auth Header", "General PDU
 * Format", "Rate Request", "Metrics Label TLV Parameter", "rate_response PDU",
 * "Latency Report PDU"). Private to sim_server*.c; it shares nothing with the
 * client codec on purpose, so each checks the other.
 *
 * Decoders take a cursor and an end pointer and check every length before the
 * field it guards. Nothing here allocates. */
#ifndef SIM_SERVER_CODEC_H
#define SIM_SERVER_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_server.h"

/* ---- little-endian helpers (wire_protocol.md "Little-endian ordering") ---- */
static inline uint16_t srv_ld16(const uint8_t *p) {
    return (uint16_t)(p[0] | (uint16_t)(p[1] << 8));
}
static inline uint32_t srv_ld32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t srv_ld64(const uint8_t *p) {
    return (uint64_t)srv_ld32(p) | ((uint64_t)srv_ld32(p + 4) << 32);
}
static inline void srv_st16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void srv_st32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}
static inline void srv_st64(uint8_t *p, uint64_t v) {
    srv_st32(p, (uint32_t)v);
    srv_st32(p + 4, (uint32_t)(v >> 32));
}

/* ---- wire constants ------------------------------------------------------ */
#define SRV_TLV_TENANT 0x4C52u
#define SRV_TLV_AUTH_NONE 0x414Eu
#define SRV_TLV_AUTH_COOKIE 0x4143u
#define SRV_TLV_AUTH_AES 0x4541u
#define SRV_TLV_METRICS_LABEL 0x4C4Du
#define SRV_PDU_RT 0x5452u
#define SRV_PDU_RR 0x5252u
#define SRV_PDU_LR 0x524Cu

#define SRV_MAX_DATAGRAM 1200u  /* wire_protocol.md introduction; api.md "Capacity limits" */
#define SRV_TENANT_SIZE 40u
#define SRV_NONCE_LEN 12u
#define SRV_TAG_LEN 16u
#define SRV_SECRET_LEN 32u
#define SRV_AES_AAD_LEN (SRV_TENANT_SIZE + 4u + SRV_NONCE_LEN) /* tenant TLV || type || size || nonce */
#define SRV_PDU_FIXED 12u       /* RT/RR/LR header incl. counts */
#define SRV_GUARD_SIZE 40u
#define SRV_RESOURCE_SIZE 28u
#define SRV_SERVICE_SIZE 36u
/* Upper bounds on blocks in one 1200-byte datagram (smallest frame: 44 bytes). */
#define SRV_MAX_GUARDS ((SRV_MAX_DATAGRAM - 44u - SRV_PDU_FIXED) / SRV_GUARD_SIZE)
#define SRV_MAX_RESOURCES ((SRV_MAX_DATAGRAM - 44u - SRV_PDU_FIXED) / SRV_RESOURCE_SIZE)
#define SRV_MAX_SERVICES ((SRV_MAX_DATAGRAM - 44u - SRV_PDU_FIXED) / SRV_SERVICE_SIZE)

/* Offsets inside the tenant TLV. */
#define SRV_OFF_KEY_ID 4u
#define SRV_OFF_UNIQUE_ID 12u
#define SRV_OFF_TIME_STAMP 28u
#define SRV_OFF_STEERING 36u
#define SRV_OFF_MGMT 37u
#define SRV_OFF_PADDING 38u

typedef enum {
    SRV_OK = 0,
    SRV_E_MALFORMED = 1,
    SRV_E_AUTH = 2
} srv_status_t;

/* Record the broken rule in *why (when why is not NULL) and return
 * SRV_E_MALFORMED: return SRV_REJECT(why, .where = "PDU", .field = ...). */
static inline srv_status_t srv_reject(sim_server_reason_t *why, sim_server_reason_t r) {
    if (why != NULL) {
        *why = r;
    }
    return SRV_E_MALFORMED;
}
#define SRV_REJECT(why, ...) srv_reject((why), (sim_server_reason_t){__VA_ARGS__})

/* The plaintext frame: Tenant TLV, Auth TLV, then a PDU of pdu_len bytes. */
typedef struct {
    uint64_t key_id;
    const uint8_t *unique_id;   /* 16 bytes inside the datagram */
    uint64_t time_stamp;
    uint8_t steering_feedback;
    uint8_t tenant_mgmt_flag;
    uint16_t auth_type;
    size_t auth_size;           /* whole auth TLV */
    size_t pdu_off;             /* = 40 + auth_size */
    size_t pdu_len;             /* bytes after the auth TLV, >= 8 */
} srv_frame_t;

/* One decoded PDU; block pointers point into the plaintext datagram. */
typedef struct {
    uint8_t *base;              /* the PDU header */
    uint16_t pdu_type;          /* SRV_PDU_RT or SRV_PDU_LR */
    uint16_t pdu_size;
    uint32_t dedup_ttl_ms;      /* RT only */
    uint16_t guard_count, resource_count, service_count;
    uint8_t *guards, *resources, *services;
    bool has_label;
    const uint8_t *label;       /* first metrics-label TLV, if any */
    uint16_t label_len;
} srv_pdu_t;

/* Outer framing: len <= 1200; tenant TLV type 0x4C52 and size 40, padding
 * zero, steering_feedback and tenant_mgmt_flag 0 or 1 (2..255 reserved); auth
 * TLV header present with 4 <= tlv_size <= remaining and the exact size of a
 * known type (none 4, cookie 36, AES 32; an unknown type is judged by auth
 * later); at least a PDU header after it. Returns SRV_OK or SRV_E_MALFORMED
 * (then *why, when why is not NULL, names the broken rule). */
srv_status_t srv_decode_frame(const uint8_t *dgram, size_t len, srv_frame_t *out, sim_server_reason_t *why);

/* Decode the plaintext PDU at pdu[0..len): pdu_size == len (the datagram ends
 * with the PDU), a known request type (RT or LR), reserved and padding fields
 * zero, the blocks inside pdu_size, and for RT the rest an exact sequence of
 * TLVs (tlv_size >= 4) of which a metrics label must be well formed
 * (6 + str_length <= tlv_size <= round_up_4(6 + str_length), zero padding).
 * Unknown TLV types are skipped. Returns SRV_OK or SRV_E_MALFORMED (then *why,
 * when why is not NULL, names the broken rule). */
srv_status_t srv_decode_pdu(uint8_t *pdu, size_t len, srv_pdu_t *out, sim_server_reason_t *why);

/* Turn the decoded RT PDU into its RR in place (wire_protocol.md
 * "rate_response PDU"): type RR, reserved zero where dedup_ttl_ms was, TLVs
 * omitted (pdu_size shrinks to 12 + 40g + 28r). Block fields are written by
 * the caller with the srv_put_* helpers. Returns the new pdu_size. */
size_t srv_encode_rr_header(srv_pdu_t *pdu);

/* Block field access (offsets of wire_protocol.md "Guard Blocks",
 * "Resource Blocks", "Service Latency Block"). */
typedef struct {
    const uint8_t *id;          /* 16 bytes */
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    uint32_t value;             /* guard: latency_threshold; service: observed_latency */
} srv_tracker_block_t;

typedef struct {
    const uint8_t *bucket_id;   /* 16 bytes */
    uint32_t window_size_ms;
    uint32_t rate_limit;
    uint16_t tokens_requested;
} srv_resource_block_t;

void srv_guard_at(const srv_pdu_t *pdu, size_t i, srv_tracker_block_t *out);
void srv_service_at(const srv_pdu_t *pdu, size_t i, srv_tracker_block_t *out);
void srv_resource_at(const srv_pdu_t *pdu, size_t i, srv_resource_block_t *out);
void srv_put_guard_latency(srv_pdu_t *pdu, size_t i, uint32_t current_latency);
void srv_put_resource_result(srv_pdu_t *pdu, size_t i, uint32_t actual_rate, uint16_t deficit);

#endif /* SIM_SERVER_CODEC_H */
