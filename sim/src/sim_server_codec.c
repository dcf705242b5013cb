/* SPDX-License-Identifier: MIT */
/* sim_server_codec.c - the reference server's decoder and in-place response
 * encoder (wire_protocol.md "Tenant Header", "Auth Header", "General PDU
 * Format", "Rate Request", "rate_response PDU", "Latency Report PDU").
 *
 * Strictness: this is a checker of the client, so every field the spec says
 * MUST be zero, and every padding field a conforming client writes as zero,
 * is required to be zero; the only fields ignored are guard current_latency
 * in a request ("ignored by server") and unknown request TLVs. */
#include <string.h>

#include "sim_server_codec.h"

/* A cursor over [p, end): take() returns the next n bytes or NULL when fewer
 * remain, so no field is read before its length is checked. */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} cursor_t;

static const uint8_t *take(cursor_t *c, size_t n) {
    if ((size_t)(c->end - c->p) < n) {
        return NULL;
    }
    const uint8_t *at = c->p;
    c->p += n;
    return at;
}

static size_t known_auth_size(uint16_t type) {
    switch (type) {
    case SRV_TLV_AUTH_NONE: return 4u;
    case SRV_TLV_AUTH_COOKIE: return 4u + SRV_SECRET_LEN;
    case SRV_TLV_AUTH_AES: return 4u + SRV_NONCE_LEN + SRV_TAG_LEN;
    default: return 0;
    }
}

static srv_status_t decode_tenant(cursor_t *c, srv_frame_t *out, sim_server_reason_t *why) {
    size_t len = (size_t)(c->end - c->p);
    const uint8_t *t = take(c, SRV_TENANT_SIZE);
    if (t == NULL) {
        return SRV_REJECT(why, .where = "datagram", .field = "length", .got = len, .rel = "min", .want = 44,
                          .note = "tenant TLV 40 + auth TLV header 4");
    }
    if (srv_ld16(t) != SRV_TLV_TENANT) {
        return SRV_REJECT(why, .where = "tenant TLV", .field = "tlv_type", .got = srv_ld16(t), .rel = "want",
                          .want = SRV_TLV_TENANT, .hex = true);
    }
    if (srv_ld16(t + 2) != SRV_TENANT_SIZE) {
        return SRV_REJECT(why, .where = "tenant TLV", .field = "tlv_size", .got = srv_ld16(t + 2), .rel = "want",
                          .want = SRV_TENANT_SIZE);
    }
    /* Padding MUST be zero; both booleans reserve 2..255 (wire_protocol.md "Tenant Header"). */
    if (srv_ld16(t + SRV_OFF_PADDING) != 0) {
        return SRV_REJECT(why, .where = "tenant TLV", .field = "padding", .got = srv_ld16(t + SRV_OFF_PADDING),
                          .rel = "want", .want = 0);
    }
    if (t[SRV_OFF_STEERING] > 1u) {
        return SRV_REJECT(why, .where = "tenant TLV", .field = "steering_feedback", .got = t[SRV_OFF_STEERING],
                          .rel = "max", .want = 1);
    }
    if (t[SRV_OFF_MGMT] > 1u) {
        return SRV_REJECT(why, .where = "tenant TLV", .field = "tenant_mgmt_flag", .got = t[SRV_OFF_MGMT],
                          .rel = "max", .want = 1);
    }
    out->key_id = srv_ld64(t + SRV_OFF_KEY_ID);
    out->unique_id = t + SRV_OFF_UNIQUE_ID;
    out->time_stamp = srv_ld64(t + SRV_OFF_TIME_STAMP);
    out->steering_feedback = t[SRV_OFF_STEERING];
    out->tenant_mgmt_flag = t[SRV_OFF_MGMT];
    return SRV_OK;
}

srv_status_t srv_decode_frame(const uint8_t *dgram, size_t len, srv_frame_t *out, sim_server_reason_t *why) {
    if (dgram == NULL || len > SRV_MAX_DATAGRAM) {
        return SRV_REJECT(why, .where = "datagram", .field = "length", .got = len, .rel = "max",
                          .want = SRV_MAX_DATAGRAM);
    }
    cursor_t c = {dgram, dgram + len};
    if (decode_tenant(&c, out, why) != SRV_OK) {
        return SRV_E_MALFORMED;
    }
    const uint8_t *a = take(&c, 4u);
    if (a == NULL) {
        return SRV_REJECT(why, .where = "datagram", .field = "length", .got = len, .rel = "min", .want = 44,
                          .note = "tenant TLV 40 + auth TLV header 4");
    }
    uint16_t type = srv_ld16(a);
    uint16_t size = srv_ld16(a + 2);
    size_t want = known_auth_size(type);
    if (size < 4u || (want != 0 && size != want)) {
        return SRV_REJECT(why, .where = "auth TLV", .field = "tlv_size", .got = size, .rel = "want",
                          .want = want != 0 ? want : 4u);
    }
    if (take(&c, (size_t)size - 4u) == NULL) {
        return SRV_REJECT(why, .where = "auth TLV", .field = "tlv_size", .got = size, .rel = "max",
                          .want = len - SRV_TENANT_SIZE, .note = "runs past the datagram");
    }
    size_t rest = (size_t)(c.end - c.p);
    if (rest < 8u) { /* "Valid PDU requires pdu_size >= 8" */
        return SRV_REJECT(why, .where = "PDU", .field = "bytes after the auth TLV", .got = rest, .rel = "min",
                          .want = 8);
    }
    out->auth_type = type;
    out->auth_size = size;
    out->pdu_off = SRV_TENANT_SIZE + size;
    out->pdu_len = rest;
    return SRV_OK;
}

static size_t round_up4(size_t n) {
    return (n + 3u) & ~(size_t)3u;
}

static bool all_zero(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] != 0) {
            return false;
        }
    }
    return true;
}

/* Metrics label TLV body: str_length, label, optional zero padding to the
 * next 4-byte boundary of the whole TLV. */
static srv_status_t decode_label(const uint8_t *tlv, size_t tlv_size, srv_pdu_t *out, sim_server_reason_t *why) {
    if (tlv_size < 6u) {
        return SRV_REJECT(why, .where = "metrics label TLV", .field = "tlv_size", .got = tlv_size, .rel = "min",
                          .want = 6);
    }
    size_t str_len = srv_ld16(tlv + 4);
    size_t raw = 6u + str_len;
    if (raw > tlv_size || tlv_size > round_up4(raw)) {
        return SRV_REJECT(why, .where = "metrics label TLV", .field = "tlv_size", .got = tlv_size, .rel = "want",
                          .want = round_up4(raw), .note = "6 + str_length, padded to 4");
    }
    if (!all_zero(tlv + raw, tlv_size - raw)) {
        return SRV_REJECT(why, .where = "metrics label TLV", .note = "padding not zero");
    }
    if (!out->has_label) { /* the first label TLV is the request's label */
        out->has_label = true;
        out->label = tlv + 6;
        out->label_len = (uint16_t)str_len;
    }
    return SRV_OK;
}

static srv_status_t decode_tlvs(cursor_t *c, srv_pdu_t *out, sim_server_reason_t *why) {
    while (c->p < c->end) {
        size_t left = (size_t)(c->end - c->p);
        const uint8_t *h = take(c, 4u);
        if (h == NULL) {
            return SRV_REJECT(why, .where = "request TLV", .field = "bytes left", .got = left, .rel = "min",
                              .want = 4, .note = "a TLV header");
        }
        size_t size = srv_ld16(h + 2);
        if (size < 4u) {
            return SRV_REJECT(why, .where = "request TLV", .field = "tlv_size", .got = size, .rel = "min", .want = 4);
        }
        if (take(c, size - 4u) == NULL) {
            return SRV_REJECT(why, .where = "request TLV", .field = "tlv_size", .got = size, .rel = "max",
                              .want = left, .note = "runs past pdu_size");
        }
        if (srv_ld16(h) == SRV_TLV_METRICS_LABEL && decode_label(h, size, out, why) != SRV_OK) {
            return SRV_E_MALFORMED;
        }
    }
    return SRV_OK;
}

/* Every resource block's padding is zero (wire_protocol.md "Resource Blocks"). */
static srv_status_t resource_padding_zero(const uint8_t *res, size_t n, sim_server_reason_t *why) {
    for (size_t i = 0; i < n; i++) {
        uint16_t pad = srv_ld16(res + i * SRV_RESOURCE_SIZE + 26u);
        if (pad != 0) {
            return SRV_REJECT(why, .where = "resources", .block = (unsigned)i + 1u, .field = "padding", .got = pad,
                              .rel = "want", .want = 0);
        }
    }
    return SRV_OK;
}

static srv_status_t decode_rt(cursor_t *c, uint8_t *pdu, srv_pdu_t *out, sim_server_reason_t *why) {
    const uint8_t *f = take(c, 8u); /* dedup_ttl_ms, guard_count, resource_count */
    if (f == NULL) {
        return SRV_REJECT(why, .where = "rate request", .field = "pdu_size", .got = out->pdu_size, .rel = "min",
                          .want = SRV_PDU_FIXED);
    }
    out->dedup_ttl_ms = srv_ld32(f);
    out->guard_count = srv_ld16(f + 4);
    out->resource_count = srv_ld16(f + 6);
    size_t g_bytes = (size_t)out->guard_count * SRV_GUARD_SIZE;
    size_t r_bytes = (size_t)out->resource_count * SRV_RESOURCE_SIZE;
    const uint8_t *g = take(c, g_bytes);
    const uint8_t *r = g == NULL ? NULL : take(c, r_bytes);
    if (r == NULL) {
        return SRV_REJECT(why, .where = "rate request", .field = "pdu_size", .got = out->pdu_size, .rel = "min",
                          .want = SRV_PDU_FIXED + g_bytes + r_bytes, .note = "12 + 40 * guard_count + 28 * resource_count");
    }
    if (resource_padding_zero(r, out->resource_count, why) != SRV_OK) {
        return SRV_E_MALFORMED;
    }
    out->guards = pdu + (g - pdu);
    out->resources = pdu + (r - pdu);
    return decode_tlvs(c, out, why);
}

static srv_status_t decode_lr(cursor_t *c, uint8_t *pdu, srv_pdu_t *out, sim_server_reason_t *why) {
    const uint8_t *f = take(c, 8u); /* reserved, reserved, service_count, padding */
    if (f == NULL) {
        return SRV_REJECT(why, .where = "latency report", .field = "pdu_size", .got = out->pdu_size, .rel = "min",
                          .want = SRV_PDU_FIXED);
    }
    if (srv_ld32(f) != 0) {
        return SRV_REJECT(why, .where = "latency report", .field = "reserved", .got = srv_ld32(f), .rel = "want",
                          .want = 0);
    }
    if (srv_ld16(f + 6) != 0) {
        return SRV_REJECT(why, .where = "latency report", .field = "padding", .got = srv_ld16(f + 6), .rel = "want",
                          .want = 0);
    }
    out->service_count = srv_ld16(f + 4);
    /* "For latency reports, pdu_size MUST equal 12 + service_count * 36." */
    size_t want = SRV_PDU_FIXED + (size_t)out->service_count * SRV_SERVICE_SIZE;
    if ((size_t)out->pdu_size != want) {
        return SRV_REJECT(why, .where = "latency report", .field = "pdu_size", .got = out->pdu_size, .rel = "want",
                          .want = want, .note = "12 + 36 * service_count");
    }
    const uint8_t *s = take(c, (size_t)out->service_count * SRV_SERVICE_SIZE);
    if (s == NULL) {
        return SRV_E_MALFORMED; /* unreachable: pdu_size == len was checked */
    }
    out->services = pdu + (s - pdu);
    return SRV_OK;
}

srv_status_t srv_decode_pdu(uint8_t *pdu, size_t len, srv_pdu_t *out, sim_server_reason_t *why) {
    memset(out, 0, sizeof *out);
    out->base = pdu;
    cursor_t c = {pdu, pdu + len};
    const uint8_t *h = take(&c, 4u);
    if (h == NULL) {
        return SRV_REJECT(why, .where = "PDU", .field = "bytes after the auth TLV", .got = len, .rel = "min",
                          .want = SRV_PDU_FIXED);
    }
    out->pdu_type = srv_ld16(h);
    out->pdu_size = srv_ld16(h + 2);
    /* "Receiver MUST parse exactly pdu_size bytes", and the PDU is the last
     * record of the datagram: pdu_size equals what remains. */
    if (out->pdu_size != len) {
        return SRV_REJECT(why, .where = "PDU", .field = "pdu_size", .got = out->pdu_size, .rel = "want", .want = len,
                          .note = "the bytes after the auth TLV");
    }
    if (len < SRV_PDU_FIXED) {
        return SRV_REJECT(why, .where = "PDU", .field = "pdu_size", .got = len, .rel = "min", .want = SRV_PDU_FIXED);
    }
    switch (out->pdu_type) {
    case SRV_PDU_RT: return decode_rt(&c, pdu, out, why);
    case SRV_PDU_LR: return decode_lr(&c, pdu, out, why);
    default: /* responses, admin PDUs, unknown types */
        return SRV_REJECT(why, .where = "PDU", .field = "pdu_type", .got = out->pdu_type, .hex = true,
                          .note = "not a request: want 0x5452 (rate request) or 0x524c (latency report)");
    }
}

size_t srv_encode_rr_header(srv_pdu_t *pdu) {
    uint8_t *p = pdu->base;
    size_t size = SRV_PDU_FIXED + (size_t)pdu->guard_count * SRV_GUARD_SIZE +
                  (size_t)pdu->resource_count * SRV_RESOURCE_SIZE;
    srv_st16(p, SRV_PDU_RR);
    srv_st16(p + 2, (uint16_t)size);
    srv_st32(p + 4, 0); /* both reserved fields, where dedup_ttl_ms was */
    pdu->pdu_type = SRV_PDU_RR;
    pdu->pdu_size = (uint16_t)size;
    pdu->has_label = false;
    return size;
}

static void tracker_at(const uint8_t *b, srv_tracker_block_t *out) {
    out->id = b;
    out->ttl_ms = srv_ld32(b + 16);
    out->max_samples = srv_ld32(b + 20);
    out->buffer_size = srv_ld32(b + 24);
    out->min_sample_threshold = srv_ld32(b + 28);
    out->value = srv_ld32(b + 32);
}

void srv_guard_at(const srv_pdu_t *pdu, size_t i, srv_tracker_block_t *out) {
    tracker_at(pdu->guards + i * SRV_GUARD_SIZE, out);
}

void srv_service_at(const srv_pdu_t *pdu, size_t i, srv_tracker_block_t *out) {
    tracker_at(pdu->services + i * SRV_SERVICE_SIZE, out);
}

void srv_resource_at(const srv_pdu_t *pdu, size_t i, srv_resource_block_t *out) {
    const uint8_t *b = pdu->resources + i * SRV_RESOURCE_SIZE;
    out->bucket_id = b;
    out->window_size_ms = srv_ld32(b + 16);
    out->rate_limit = srv_ld32(b + 20);
    out->tokens_requested = srv_ld16(b + 24);
}

void srv_put_guard_latency(srv_pdu_t *pdu, size_t i, uint32_t current_latency) {
    srv_st32(pdu->guards + i * SRV_GUARD_SIZE + 36u, current_latency);
}

void srv_put_resource_result(srv_pdu_t *pdu, size_t i, uint32_t actual_rate, uint16_t deficit) {
    uint8_t *b = pdu->resources + i * SRV_RESOURCE_SIZE;
    srv_st32(b + 20, actual_rate);
    srv_st16(b + 24, deficit);
}
