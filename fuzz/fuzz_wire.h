/* SPDX-License-Identifier: MIT */
/* fuzz_wire.h - minimal independent decoders for the differential harnesses.
 *
 * Written from wire_protocol.md ("Tenant Header", "Auth Header", "General PDU
 * Format", "rate_request PDU", "Metrics Label TLV Parameter", "Latency Report
 * PDU", "rate_response PDU", "Response Semantics") and the check order that
 * core/src/rl_response.h documents. They use no core code (not even rl_le.h):
 * a harness compares what these decoders read with what the core encoded or
 * parsed, so a shared helper would hide a shared mistake. Only the public
 * value types of r_client.h are reused as containers. */
#ifndef FUZZ_WIRE_H
#define FUZZ_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

/* At most 28 guards or 40 resources fit 1200 bytes; the arrays leave room. */
#define FW_MAX_GUARDS 32u
#define FW_MAX_RESOURCES 48u
#define FW_MAX_REPORTS 40u

typedef struct {
    uint64_t key_id;
    uint8_t unique_id[16];
    uint64_t time_stamp_ms;
    uint8_t steering_feedback;
    uint8_t tenant_mgmt_flag;
} fw_tenant_t;

typedef struct {
    fw_tenant_t tenant;
    r_auth_type_t auth;       /* from the auth TLV type */
    size_t auth_body_off;     /* offset of the auth TLV body in the datagram */
    size_t pdu_off;
    uint32_t dedup_ttl_ms;
    size_t n_guards, n_resources;
    r_latency_guard_t guards[FW_MAX_GUARDS];       /* current_latency must be 0: checked */
    r_resource_request_t resources[FW_MAX_RESOURCES];
    size_t label_off, label_len;                   /* label_len 0: no metrics label TLV */
} fw_rate_request_t;

typedef struct {
    fw_tenant_t tenant;
    r_auth_type_t auth;
    size_t auth_body_off;
    size_t n_reports;
    r_service_latency_report_t reports[FW_MAX_REPORTS];
} fw_latency_report_t;

/* Strict decoders of a plaintext client datagram (auth body not checked).
 * Return NULL on success, else a static text naming the broken rule. */
const char *fw_decode_rate_request(const uint8_t *d, size_t len, fw_rate_request_t *out);
const char *fw_decode_latency_report(const uint8_t *d, size_t len, fw_latency_report_t *out);

/* Little-endian reads for the harnesses, independent of rl_le.h. */
uint16_t fw_u16(const uint8_t *p);
uint32_t fw_u32(const uint8_t *p);
uint64_t fw_u64(const uint8_t *p);
void fw_put_u16(uint8_t *p, uint16_t v);
void fw_put_u32(uint8_t *p, uint32_t v);
void fw_put_u64(uint8_t *p, uint64_t v);

/* ---- response oracle (the classes of rl_response.h) ---------------------- */

typedef enum { FW_OK = 0, FW_MALFORMED = 1, FW_AUTH = 2, FW_CORRELATION = 3 } fw_class_t;

/* How far a response got, and the parse an accepting parser must produce. */
typedef struct {
    bool outer_ok;            /* tenant TLV and auth TLV header pass (rl_response_peek) */
    bool pre_auth_ok;         /* every check before authentication passes */
    fw_class_t cls;
    int code;                 /* the on_datagram code the class maps to */
    uint64_t server_id;
    uint64_t time_stamp_ms;
    bool keep_port;
    size_t server_index;
    uint16_t guard_count, resource_count;
    size_t guards_off, resources_off;
    bool success;
} fw_response_t;

typedef struct {
    r_auth_type_t mode;        /* the key's mode */
    const uint8_t *cookie;     /* 32 bytes, cookie mode */
    const uint8_t *unique_id;  /* 16 bytes expected */
    const uint64_t *trusted;
    size_t n_trusted;
} fw_response_key_t;

/* Classify d[0..len) for key. For an AES key, d must already hold the
 * decrypted PDU and tag_ok says whether the tag verified (the oracle has no
 * cipher); for the other modes tag_ok is ignored. */
void fw_check_response(const uint8_t *d, size_t len, const fw_response_key_t *key, bool tag_ok,
                       fw_response_t *out);

#endif /* FUZZ_WIRE_H */
