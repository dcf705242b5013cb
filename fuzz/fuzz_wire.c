/* SPDX-License-Identifier: MIT */
/* fuzz_wire.c - independent decoders and the response oracle (fuzz_wire.h).
 * Offsets and rules are transcribed from wire_protocol.md, not from core/src. */
#include "fuzz_wire.h"

#include <string.h>

/* Wire constants (wire_protocol.md "Tenant Header", "Auth Header", "PDU Type Summary"). */
#define T_TENANT 0x4C52u
#define T_AUTH_NONE 0x414Eu
#define T_AUTH_COOKIE 0x4143u
#define T_AUTH_AES 0x4541u
#define T_LABEL 0x4C4Du
#define P_RATE_REQUEST 0x5452u
#define P_RATE_RESPONSE 0x5252u
#define P_LATENCY_REPORT 0x524Cu
#define TENANT_SIZE 40u

uint16_t fw_u16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}

uint32_t fw_u32(const uint8_t *p) {
    return (uint32_t)fw_u16(p) | ((uint32_t)fw_u16(p + 2) << 16);
}

uint64_t fw_u64(const uint8_t *p) {
    return (uint64_t)fw_u32(p) | ((uint64_t)fw_u32(p + 4) << 32);
}

void fw_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)(v >> 8);
}

void fw_put_u32(uint8_t *p, uint32_t v) {
    fw_put_u16(p, (uint16_t)(v & 0xFFFFu));
    fw_put_u16(p + 2, (uint16_t)(v >> 16));
}

void fw_put_u64(uint8_t *p, uint64_t v) {
    fw_put_u32(p, (uint32_t)(v & 0xFFFFFFFFu));
    fw_put_u32(p + 4, (uint32_t)(v >> 32));
}

static r_auth_type_t auth_of(uint16_t tlv_type, size_t *size) {
    switch (tlv_type) {
    case T_AUTH_NONE: *size = 4; return R_AUTH_NONE;
    case T_AUTH_COOKIE: *size = 36; return R_AUTH_COOKIE;
    case T_AUTH_AES: *size = 32; return R_AUTH_AES;
    default: *size = 0; return R_AUTH_UNSPECIFIED;
    }
}

/* Tenant TLV: type "RL", size 40, booleans 0/1, zero padding. */
static const char *tenant(const uint8_t *d, size_t len, fw_tenant_t *t) {
    if (len < TENANT_SIZE) return "short tenant TLV";
    if (fw_u16(d) != T_TENANT || fw_u16(d + 2) != TENANT_SIZE) return "tenant TLV header";
    if (d[36] > 1 || d[37] > 1 || fw_u16(d + 38) != 0) return "tenant flags or padding";
    t->key_id = fw_u64(d + 4);
    memcpy(t->unique_id, d + 12, 16);
    t->time_stamp_ms = fw_u64(d + 28);
    t->steering_feedback = d[36];
    t->tenant_mgmt_flag = d[37];
    return NULL;
}

/* Client auth TLV right after the tenant TLV, exact size for its type. */
static const char *client_auth(const uint8_t *d, size_t len, r_auth_type_t *mode, size_t *pdu_off) {
    size_t size = 0;
    if (len < TENANT_SIZE + 4) return "short auth TLV";
    *mode = auth_of(fw_u16(d + TENANT_SIZE), &size);
    if (size == 0 || fw_u16(d + TENANT_SIZE + 2) != size || len < TENANT_SIZE + size) return "auth TLV";
    *pdu_off = TENANT_SIZE + size;
    return NULL;
}

static void guard_at(const uint8_t *g, r_latency_guard_t *out) {
    memcpy(out->latency_tracker_id, g, 16);
    out->ttl_ms = fw_u32(g + 16);
    out->max_samples = fw_u32(g + 20);
    out->buffer_size = fw_u32(g + 24);
    out->min_sample_threshold = fw_u32(g + 28);
    out->threshold_ms = fw_u32(g + 32);
}

static void resource_at(const uint8_t *r, r_resource_request_t *out) {
    memcpy(out->bucket_id, r, 16);
    out->window_size_ms = fw_u32(r + 16);
    out->rate_limit = fw_u32(r + 20);
    out->tokens_requested = fw_u16(r + 24);
}

/* The one metrics label TLV a client sends: tlv_size = round_up_4(6 + len),
 * padding zero, a non-empty label (an empty label sends no TLV). */
static const char *label_tlv(const uint8_t *p, size_t rest, size_t base, fw_rate_request_t *out) {
    if (rest == 0) return NULL;
    if (rest < 8 || fw_u16(p) != T_LABEL || fw_u16(p + 2) != rest) return "label TLV header";
    size_t n = fw_u16(p + 4);
    if (n == 0 || ((6 + n + 3) & ~(size_t)3) != rest) return "label TLV size";
    for (size_t i = 6 + n; i < rest; i++) {
        if (p[i] != 0) return "label padding";
    }
    out->label_off = base + 6;
    out->label_len = n;
    return NULL;
}

const char *fw_decode_rate_request(const uint8_t *d, size_t len, fw_rate_request_t *out) {
    memset(out, 0, sizeof *out);
    size_t off = 0;
    const char *why = len > 1200 ? "over 1200 bytes" : tenant(d, len, &out->tenant);
    if (why == NULL) why = client_auth(d, len, &out->auth, &off);
    if (why != NULL) return why;
    out->auth_body_off = TENANT_SIZE + 4;
    out->pdu_off = off;
    const uint8_t *pdu = d + off;
    size_t size = len - off;
    if (size < 12 || fw_u16(pdu) != P_RATE_REQUEST || fw_u16(pdu + 2) != size) return "rate_request header";
    out->dedup_ttl_ms = fw_u32(pdu + 4);
    out->n_guards = fw_u16(pdu + 8);
    out->n_resources = fw_u16(pdu + 10);
    if (out->n_guards > FW_MAX_GUARDS || out->n_resources > FW_MAX_RESOURCES) return "block counts";
    size_t need = 12 + 40 * out->n_guards + 28 * out->n_resources;
    if (need > size) return "blocks overrun pdu_size";
    for (size_t i = 0; i < out->n_guards; i++) {
        const uint8_t *g = pdu + 12 + 40 * i;
        guard_at(g, &out->guards[i]);
        if (fw_u32(g + 36) != 0) return "request current_latency not 0";
    }
    for (size_t i = 0; i < out->n_resources; i++) {
        const uint8_t *r = pdu + 12 + 40 * out->n_guards + 28 * i;
        resource_at(r, &out->resources[i]);
        if (fw_u16(r + 26) != 0) return "resource padding";
    }
    return label_tlv(pdu + need, size - need, off + need, out);
}

const char *fw_decode_latency_report(const uint8_t *d, size_t len, fw_latency_report_t *out) {
    memset(out, 0, sizeof *out);
    size_t off = 0;
    const char *why = len > 1200 ? "over 1200 bytes" : tenant(d, len, &out->tenant);
    if (why == NULL) why = client_auth(d, len, &out->auth, &off);
    if (why != NULL) return why;
    out->auth_body_off = TENANT_SIZE + 4;
    const uint8_t *pdu = d + off;
    size_t size = len - off;
    if (size < 12 || fw_u16(pdu) != P_LATENCY_REPORT || fw_u16(pdu + 2) != size) return "latency_report header";
    if (fw_u16(pdu + 4) != 0 || fw_u16(pdu + 6) != 0 || fw_u16(pdu + 10) != 0) return "reserved or padding";
    out->n_reports = fw_u16(pdu + 8);
    if (out->n_reports == 0 || out->n_reports > FW_MAX_REPORTS) return "service_count";
    if (size != 12 + 36 * out->n_reports) return "pdu_size is not 12 + 36n";
    for (size_t i = 0; i < out->n_reports; i++) {
        const uint8_t *s = pdu + 12 + 36 * i;
        r_service_latency_report_t *r = &out->reports[i];
        memcpy(r->latency_tracker_id, s, 16);
        r->ttl_ms = fw_u32(s + 16);
        r->max_samples = fw_u32(s + 20);
        r->buffer_size = fw_u32(s + 24);
        r->min_sample_threshold = fw_u32(s + 28);
        r->observed_latency = fw_u32(s + 32);
    }
    return NULL;
}

/* ---- response oracle ------------------------------------------------------------ */

/* Plaintext PDU rules: pdu_size >= 8 and equal to the bytes present; a
 * rate_response also needs its fixed part, zero reserved fields, blocks within
 * pdu_size and an exact sequence of trailing TLVs of size >= 4. */
static bool pdu_ok(const uint8_t *pdu, size_t rem) {
    if (rem < 8) return false;
    size_t size = fw_u16(pdu + 2);
    if (size < 8 || size != rem) return false;
    if (fw_u16(pdu) != P_RATE_RESPONSE) return true;
    if (size < 12 || fw_u16(pdu + 4) != 0 || fw_u16(pdu + 6) != 0) return false;
    size_t p = 12 + 40 * (size_t)fw_u16(pdu + 8) + 28 * (size_t)fw_u16(pdu + 10);
    if (p > size) return false;
    while (p < size) {
        if (size - p < 4) return false;
        size_t t = fw_u16(pdu + p + 2);
        if (t < 4 || t > size - p) return false;
        p += t;
    }
    return true;
}

static void set_class(fw_response_t *out, fw_class_t cls, int code) {
    out->cls = cls;
    out->code = code;
}

/* Response Semantics: every current_latency < latency_threshold, every deficit 0. */
static bool success_of(const uint8_t *pdu, uint16_t n_guards, uint16_t n_resources) {
    for (size_t i = 0; i < n_guards; i++) {
        const uint8_t *g = pdu + 12 + 40 * i;
        if (fw_u32(g + 36) >= fw_u32(g + 32)) return false;
    }
    for (size_t i = 0; i < n_resources; i++) {
        if (fw_u16(pdu + 12 + 40 * (size_t)n_guards + 28 * i + 24) != 0) return false;
    }
    return true;
}

static void correlate(const uint8_t *d, size_t pdu_off, const fw_response_key_t *key, fw_response_t *out) {
    const uint8_t *pdu = d + pdu_off;
    set_class(out, FW_CORRELATION, RCLIENT_OK);
    if (fw_u16(pdu) != P_RATE_RESPONSE || d[37] != 0 || memcmp(d + 12, key->unique_id, 16) != 0) return;
    uint64_t id = fw_u64(d + 4);
    size_t i = 0;
    while (i < key->n_trusted && key->trusted[i] != id) i++;
    if (i == key->n_trusted) return;
    set_class(out, FW_OK, RCLIENT_OK);
    out->server_id = id;
    out->server_index = i;
    out->time_stamp_ms = fw_u64(d + 28);
    out->keep_port = d[36] == 1;
    out->guard_count = fw_u16(pdu + 8);
    out->resource_count = fw_u16(pdu + 10);
    out->guards_off = pdu_off + 12;
    out->resources_off = out->guards_off + 40 * (size_t)out->guard_count;
    out->success = success_of(pdu, out->guard_count, out->resource_count);
}

void fw_check_response(const uint8_t *d, size_t len, const fw_response_key_t *key, bool tag_ok,
                       fw_response_t *out) {
    memset(out, 0, sizeof *out);
    set_class(out, FW_MALFORMED, RCLIENT_ERR_PROTOCOL);
    fw_tenant_t t;
    if (tenant(d, len, &t) != NULL || len - TENANT_SIZE < 4) return;
    size_t known = 0;
    uint16_t auth_type = fw_u16(d + TENANT_SIZE);
    r_auth_type_t mode = auth_of(auth_type, &known);
    size_t size = fw_u16(d + TENANT_SIZE + 2);
    if (size < 4 || size > len - TENANT_SIZE || (known != 0 && size != known)) return;
    out->outer_ok = true;
    size_t pdu_off = TENANT_SIZE + size;
    size_t rem = len - pdu_off;
    bool plaintext = mode == R_AUTH_NONE || mode == R_AUTH_COOKIE;
    if (plaintext ? !pdu_ok(d + pdu_off, rem) : (rem < 8 || rem > 0xFFFFu)) return;
    out->pre_auth_ok = true;
    if (mode != key->mode || (mode == R_AUTH_COOKIE && memcmp(d + TENANT_SIZE + 4, key->cookie, 32) != 0)) {
        set_class(out, FW_AUTH, RCLIENT_ERR_AUTH);
        return;
    }
    if (mode == R_AUTH_AES && !tag_ok) {
        set_class(out, FW_AUTH, RCLIENT_ERR_PROTOCOL);
        return;
    }
    if (mode == R_AUTH_AES && !pdu_ok(d + pdu_off, rem)) return;
    correlate(d, pdu_off, key, out);
}
