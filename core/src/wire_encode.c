/* SPDX-License-Identifier: MIT */
/* wire_encode.c - plaintext encoders for the rate request and the latency
 * report datagrams, their size arithmetic, and the client-side quota checks
 * (wire_protocol.md "Tenant Header", "Auth Header", "Rate Request",
 * "Metrics Label TLV Parameter", "Latency Report PDU", "Quota Enforcement
 * Semantics"; api.md "Capacity limits").
 *
 * The encoders write Tenant TLV || auth TLV (header, zeroed body) || PDU.
 * rl_auth_seal() fills the auth body afterwards (rl_auth.h). */
#include <stdint.h>
#include <string.h>

#include "rl_le.h"
#include "rl_wire.h"

/* ---- saturating size arithmetic ------------------------------------------ */

static size_t sat_add(size_t a, size_t b) {
    return (a > SIZE_MAX - b) ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b) {
    return (b != 0 && a > SIZE_MAX / b) ? SIZE_MAX : a * b;
}

size_t rl_auth_tlv_size(r_auth_type_t type) {
    switch (type) {
    case R_AUTH_NONE: return RL_AUTH_NONE_TLV_SIZE;
    case R_AUTH_COOKIE: return RL_AUTH_COOKIE_TLV_SIZE;
    case R_AUTH_AES: return RL_AUTH_AES_TLV_SIZE;
    default: return 0;
    }
}

static uint16_t auth_tlv_type(r_auth_type_t type) {
    switch (type) {
    case R_AUTH_COOKIE: return RL_TLV_AUTH_COOKIE;
    case R_AUTH_AES: return RL_TLV_AUTH_AES;
    default: return RL_TLV_AUTH_NONE;
    }
}

/* tlv_size = round_up_4(tlv header 4 + str_length 2 + label bytes); the padding
 * is counted in tlv_size (vectors-schema.md "rate_request_packet"). */
size_t rl_metrics_label_tlv_size(size_t label_len) {
    if (label_len == 0) {
        return 0;
    }
    size_t raw = sat_add(RL_TLV_HDR_SIZE + 2u, label_len);
    if (raw > SIZE_MAX - 3u) {
        return SIZE_MAX;
    }
    return (raw + 3u) & ~(size_t)3u;
}

static size_t frame_size(r_auth_type_t type) {
    size_t auth = rl_auth_tlv_size(type);
    return auth == 0 ? 0 : RL_TENANT_TLV_SIZE + auth;
}

size_t rl_rate_request_size(r_auth_type_t type, size_t n_guards, size_t n_resources, size_t label_len) {
    size_t size = frame_size(type);
    if (size == 0) {
        return 0;
    }
    size = sat_add(size, RL_RATE_PDU_FIXED);
    size = sat_add(size, sat_mul(n_guards, RL_GUARD_BLOCK_SIZE));
    size = sat_add(size, sat_mul(n_resources, RL_RESOURCE_BLOCK_SIZE));
    return sat_add(size, rl_metrics_label_tlv_size(label_len));
}

size_t rl_latency_report_size(r_auth_type_t type, size_t n_reports) {
    size_t size = frame_size(type);
    if (size == 0) {
        return 0;
    }
    size = sat_add(size, RL_REPORT_PDU_FIXED);
    return sat_add(size, sat_mul(n_reports, RL_SERVICE_BLOCK_SIZE));
}

/* ---- frame writers ----------------------------------------------------------- */

static int tenant_header_valid(const rl_tenant_header_t *hdr) {
    /* Both fields are wire booleans; 2..255 are reserved (wire_protocol.md
     * "Tenant Header"). */
    return hdr->steering_feedback <= 1u && hdr->tenant_mgmt_flag <= 1u;
}

/* Tenant TLV (40 bytes) then the auth TLV header with a zeroed body.
 * Returns the offset of the PDU. */
static size_t write_frame(uint8_t *buf, r_auth_type_t type, const rl_tenant_header_t *hdr) {
    size_t auth_size = rl_auth_tlv_size(type);
    rl_store_u16(buf, RL_TLV_TENANT);
    rl_store_u16(buf + 2, RL_TENANT_TLV_SIZE);
    rl_store_u64(buf + RL_TENANT_OFF_KEY_ID, hdr->key_id);
    memcpy(buf + RL_TENANT_OFF_UNIQUE_ID, hdr->unique_id, sizeof hdr->unique_id);
    rl_store_u64(buf + RL_TENANT_OFF_TIME_STAMP, hdr->time_stamp_ms);
    buf[RL_TENANT_OFF_STEERING] = hdr->steering_feedback;
    buf[RL_TENANT_OFF_MGMT] = hdr->tenant_mgmt_flag;
    rl_store_u16(buf + RL_TENANT_OFF_PADDING, 0);

    uint8_t *auth = buf + RL_TENANT_TLV_SIZE;
    rl_store_u16(auth, auth_tlv_type(type));
    rl_store_u16(auth + 2, (uint16_t)auth_size);
    memset(auth + RL_TLV_HDR_SIZE, 0, auth_size - RL_TLV_HDR_SIZE);
    return RL_TENANT_TLV_SIZE + auth_size;
}

/* The 32-byte tracker definition that opens both guard and service latency
 * blocks: latency_tracker_id, ttl_ms, max_samples, buffer_size,
 * min_sample_threshold (wire_protocol.md "Guard Blocks", "Service Latency Block"). */
static void write_tracker(uint8_t *p, const uint8_t id[R_CLIENT_ID_LEN], uint32_t ttl_ms, uint32_t max_samples,
                          uint32_t buffer_size, uint32_t min_sample_threshold) {
    memcpy(p, id, R_CLIENT_ID_LEN);
    rl_store_u32(p + 16, ttl_ms);
    rl_store_u32(p + 20, max_samples);
    rl_store_u32(p + 24, buffer_size);
    rl_store_u32(p + 28, min_sample_threshold);
}

/* Guard block, 40 bytes; current_latency is 0 in requests (r-client.md 5.2). */
static uint8_t *write_guard(uint8_t *p, const r_latency_guard_t *g) {
    write_tracker(p, g->latency_tracker_id, g->ttl_ms, g->max_samples, g->buffer_size, g->min_sample_threshold);
    rl_store_u32(p + 32, g->threshold_ms);
    rl_store_u32(p + 36, 0);
    return p + RL_GUARD_BLOCK_SIZE;
}

/* Resource block, 28 bytes (wire_protocol.md "Resource Blocks"). */
static uint8_t *write_resource(uint8_t *p, const r_resource_request_t *r) {
    memcpy(p, r->bucket_id, R_CLIENT_ID_LEN);
    rl_store_u32(p + 16, r->window_size_ms);
    rl_store_u32(p + 20, r->rate_limit);
    rl_store_u16(p + 24, r->tokens_requested);
    rl_store_u16(p + 26, 0);
    return p + RL_RESOURCE_BLOCK_SIZE;
}

/* Metrics label TLV: type, tlv_size (padding counted), str_length, label,
 * zero padding to a 4-byte boundary. */
static uint8_t *write_label(uint8_t *p, const uint8_t *label, size_t label_len) {
    size_t tlv_size = rl_metrics_label_tlv_size(label_len);
    rl_store_u16(p, RL_TLV_METRICS_LABEL);
    rl_store_u16(p + 2, (uint16_t)tlv_size);
    rl_store_u16(p + 4, (uint16_t)label_len);
    memcpy(p + 6, label, label_len);
    memset(p + 6 + label_len, 0, tlv_size - 6u - label_len);
    return p + tlv_size;
}

/* Service latency block, 36 bytes (wire_protocol.md "Service Latency Block"). */
static uint8_t *write_service(uint8_t *p, const r_service_latency_report_t *s) {
    write_tracker(p, s->latency_tracker_id, s->ttl_ms, s->max_samples, s->buffer_size, s->min_sample_threshold);
    rl_store_u32(p + 32, s->observed_latency);
    return p + RL_SERVICE_BLOCK_SIZE;
}

/* Common checks: 0 for unknown mode is a config error; a datagram over 1200
 * bytes or over cap is a protocol error (api.md "Capacity limits"). */
static int check_size(size_t size, size_t cap) {
    if (size == 0) {
        return RCLIENT_ERR_CONFIG;
    }
    if (size > RL_MAX_DATAGRAM || size > cap) {
        return RCLIENT_ERR_PROTOCOL;
    }
    return RCLIENT_OK;
}

/* ---- encoders ---------------------------------------------------------------- */

int rl_encode_rate_request(uint8_t *buf, size_t cap, r_auth_type_t type, const rl_tenant_header_t *hdr,
                           uint32_t dedup_ttl_ms, const r_latency_guard_t *guards, size_t n_guards,
                           const r_resource_request_t *resources, size_t n_resources,
                           const uint8_t *label, size_t label_len, size_t *out_len) {
    if (buf == NULL || hdr == NULL || out_len == NULL || (guards == NULL && n_guards > 0) ||
        (resources == NULL && n_resources > 0) || (label == NULL && label_len > 0) ||
        !tenant_header_valid(hdr)) {
        return RCLIENT_ERR_CONFIG;
    }
    size_t size = rl_rate_request_size(type, n_guards, n_resources, label_len);
    int rc = check_size(size, cap);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    /* size <= 1200 bounds every count and the label length, so the u16 casts
     * below cannot truncate. */
    uint8_t *p = buf + write_frame(buf, type, hdr);
    uint8_t *pdu = p;
    rl_store_u16(pdu, RL_PDU_RATE_REQUEST);
    rl_store_u16(pdu + 2, (uint16_t)(buf + size - pdu));
    rl_store_u32(pdu + 4, dedup_ttl_ms);
    rl_store_u16(pdu + 8, (uint16_t)n_guards);
    rl_store_u16(pdu + 10, (uint16_t)n_resources);
    p = pdu + RL_RATE_PDU_FIXED;
    for (size_t i = 0; i < n_guards; i++) {
        p = write_guard(p, &guards[i]);
    }
    for (size_t i = 0; i < n_resources; i++) {
        p = write_resource(p, &resources[i]);
    }
    if (label_len > 0) {
        write_label(p, label, label_len);
    }
    *out_len = size;
    return RCLIENT_OK;
}

int rl_encode_latency_report(uint8_t *buf, size_t cap, r_auth_type_t type, const rl_tenant_header_t *hdr,
                             const r_service_latency_report_t *reports, size_t n_reports, size_t *out_len) {
    if (buf == NULL || hdr == NULL || out_len == NULL || reports == NULL || n_reports == 0 ||
        !tenant_header_valid(hdr)) {
        return RCLIENT_ERR_CONFIG;
    }
    size_t size = rl_latency_report_size(type, n_reports);
    int rc = check_size(size, cap);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    uint8_t *pdu = buf + write_frame(buf, type, hdr);
    /* pdu_size MUST equal 12 + service_count * 36 (wire_protocol.md
     * "Latency Report PDU"); both reserved fields and the padding are zero. */
    rl_store_u16(pdu, RL_PDU_LATENCY_REPORT);
    rl_store_u16(pdu + 2, (uint16_t)(RL_REPORT_PDU_FIXED + n_reports * RL_SERVICE_BLOCK_SIZE));
    rl_store_u16(pdu + 4, 0);
    rl_store_u16(pdu + 6, 0);
    rl_store_u16(pdu + 8, (uint16_t)n_reports);
    rl_store_u16(pdu + 10, 0);
    uint8_t *p = pdu + RL_REPORT_PDU_FIXED;
    for (size_t i = 0; i < n_reports; i++) {
        p = write_service(p, &reports[i]);
    }
    *out_len = size;
    return RCLIENT_OK;
}

/* ---- quota checks ---------------------------------------------------------- */

static void set_why(const char **why, const char *text) {
    if (why != NULL) {
        *why = text;
    }
}

/* Conforming clients validate the complete logical request before DNS,
 * serialization or transmission (wire_protocol.md "Quota Enforcement
 * Semantics"). */
int rl_check_request_quotas(const r_api_key_quotas_t *quotas, const r_latency_guard_t *guards, size_t n_guards,
                            const r_resource_request_t *resources, size_t n_resources, const char **why) {
    if (quotas == NULL || (guards == NULL && n_guards > 0) || (resources == NULL && n_resources > 0)) {
        set_why(why, "invalid argument");
        return RCLIENT_ERR_CONFIG;
    }
    for (size_t i = 0; i < n_guards; i++) {
        if (guards[i].buffer_size > quotas->latency_buffer_size_max) {
            set_why(why, "guard buffer_size exceeds latency_buffer_size_max");
            return RCLIENT_ERR_PROTOCOL;
        }
    }
    for (size_t i = 0; i < n_resources; i++) {
        if (resources[i].window_size_ms > quotas->rate_window_size_ms_max) {
            set_why(why, "resource window_size_ms exceeds rate_window_size_ms_max");
            return RCLIENT_ERR_PROTOCOL;
        }
    }
    set_why(why, "ok");
    return RCLIENT_OK;
}
