/* SPDX-License-Identifier: MIT */
/* rl_wire.h - wire constants and request/report encoders (wire_protocol.md
 * "Tenant Header", "Auth Header", "General PDU Format", "Rate Request",
 * "Latency Report PDU"; r-client.md 5).
 *
 * Encoders write the plaintext datagram: Tenant TLV, the auth TLV header with a
 * zeroed body, then the PDU. rl_auth_seal() (rl_auth.h) then fills the auth
 * body and, for AES-256-GCM, encrypts the PDU in place. */
#ifndef RL_WIRE_H
#define RL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

#define RL_TLV_TENANT 0x4C52u        /* "RL" */
#define RL_TLV_AUTH_NONE 0x414Eu     /* "NA" */
#define RL_TLV_AUTH_COOKIE 0x4143u   /* "CA" */
#define RL_TLV_AUTH_AES 0x4541u      /* "AE" */
#define RL_TLV_METRICS_LABEL 0x4C4Du /* "ML" */

#define RL_PDU_RATE_REQUEST 0x5452u   /* "RT" */
#define RL_PDU_RATE_RESPONSE 0x5252u  /* "RR" */
#define RL_PDU_LATENCY_REPORT 0x524Cu /* "LR" */

#define RL_TENANT_TLV_SIZE 40u
#define RL_AUTH_NONE_TLV_SIZE 4u
#define RL_AUTH_COOKIE_TLV_SIZE 36u
#define RL_AUTH_AES_TLV_SIZE 32u
#define RL_AES_NONCE_LEN 12u
#define RL_AES_TAG_LEN 16u
#define RL_TLV_HDR_SIZE 4u
#define RL_PDU_HDR_SIZE 8u
#define RL_RATE_PDU_FIXED 12u   /* header + dedup_ttl_ms/reserved + counts */
#define RL_REPORT_PDU_FIXED 12u /* header + service_count + padding */
#define RL_GUARD_BLOCK_SIZE 40u
#define RL_RESOURCE_BLOCK_SIZE 28u
#define RL_SERVICE_BLOCK_SIZE 36u
#define RL_MAX_DATAGRAM R_CLIENT_MAX_DATAGRAM

/* Offsets inside the Tenant TLV. */
#define RL_TENANT_OFF_KEY_ID 4u
#define RL_TENANT_OFF_UNIQUE_ID 12u
#define RL_TENANT_OFF_TIME_STAMP 28u
#define RL_TENANT_OFF_STEERING 36u
#define RL_TENANT_OFF_MGMT 37u
#define RL_TENANT_OFF_PADDING 38u

typedef struct {
    uint64_t key_id;            /* request: API key_id; response: server_id */
    uint8_t unique_id[16];
    uint64_t time_stamp_ms;     /* Unix epoch ms when composed */
    uint8_t steering_feedback;  /* 0 = change port, 1 = keep port */
    uint8_t tenant_mgmt_flag;   /* 0 for every client PDU */
} rl_tenant_header_t;

/* Byte size of the auth TLV for a mode (4, 36, 32), or 0 for an unknown mode. */
size_t rl_auth_tlv_size(r_auth_type_t type);

/* Byte size of the metrics-label TLV: 0 for an empty label, else
 * round_up_4(4 + 2 + label_len) (padding counted in tlv_size). */
size_t rl_metrics_label_tlv_size(size_t label_len);

/* Whole datagram size of a rate request / latency report, or 0 for an unknown
 * auth mode. Saturates instead of overflowing (a huge count gives SIZE_MAX). */
size_t rl_rate_request_size(r_auth_type_t type, size_t n_guards, size_t n_resources, size_t label_len);
size_t rl_latency_report_size(r_auth_type_t type, size_t n_reports);

/* Encode a rate-request datagram into buf[0..cap).
 * guards/resources may be NULL only with a zero count; label may be NULL when
 * label_len is 0 (no TLV is sent for an empty label). Guard blocks carry
 * current_latency 0; resource padding is zero.
 * Returns RCLIENT_OK with *out_len set; RCLIENT_ERR_PROTOCOL when the datagram
 * would exceed 1200 bytes (api.md "Capacity limits") or cap; RCLIENT_ERR_CONFIG
 * for a NULL/invalid argument (including steering_feedback or tenant_mgmt_flag
 * above 1, reserved values in wire_protocol.md "Tenant Header") or an unknown
 * auth mode. The size check comes after the argument checks. buf is
 * unspecified on error; *out_len is set only on success. */
int rl_encode_rate_request(uint8_t *buf, size_t cap, r_auth_type_t type, const rl_tenant_header_t *hdr,
                           uint32_t dedup_ttl_ms, const r_latency_guard_t *guards, size_t n_guards,
                           const r_resource_request_t *resources, size_t n_resources,
                           const uint8_t *label, size_t label_len, size_t *out_len);

/* Encode a latency-report datagram (pdu_size = 12 + 36n, reserved and padding zero).
 * n_reports must be >= 1. Errors as rl_encode_rate_request. */
int rl_encode_latency_report(uint8_t *buf, size_t cap, r_auth_type_t type, const rl_tenant_header_t *hdr,
                             const r_service_latency_report_t *reports, size_t n_reports, size_t *out_len);

/* Client-side quota checks before DNS or any send (wire_protocol.md "Quota
 * Enforcement Semantics", api.md "Credentials"): every guard buffer_size <=
 * latency_buffer_size_max and every resource window_size_ms <=
 * rate_window_size_ms_max. Returns RCLIENT_OK or RCLIENT_ERR_PROTOCOL with *why
 * (may be NULL) set to a static message ("ok" on success); RCLIENT_ERR_CONFIG
 * for a NULL quotas or a NULL array with a non-zero count (extension). */
int rl_check_request_quotas(const r_api_key_quotas_t *quotas, const r_latency_guard_t *guards, size_t n_guards,
                            const r_resource_request_t *resources, size_t n_resources, const char **why);

#endif /* RL_WIRE_H */
