/* SPDX-License-Identifier: MIT */
/* response.c - validation and zero-copy parsing of a Rate Response datagram
 * (wire_protocol.md "General PDU Format", "rate_response PDU", "Response
 * Semantics"; r-client.md 6.2.1, 6.4, 9.3.3 step 1).
 *
 * Check order and classes are fixed by rl_response.h: malformed, then auth,
 * then correlation. Every field is read through a bounds check against the
 * bytes actually present; no length field is used before it is checked. */
#include <string.h>

#include <openssl/crypto.h>

#include "rl_le.h"
#include "rl_response.h"
#include "rl_wire.h"

#define RL_PDU_SIZE_MAX 0xFFFFu /* pdu_size is a u16 */

static rl_verdict_class_t set_verdict(rl_verdict_t *v, rl_verdict_class_t cls, int code, const char *reason) {
    v->cls = cls;
    v->code = code;
    v->reason = reason;
    return cls;
}

static rl_verdict_class_t malformed(rl_verdict_t *v, const char *reason) {
    return set_verdict(v, RL_VERDICT_MALFORMED, RCLIENT_ERR_PROTOCOL, reason);
}

/* Framing check failed: record the malformed verdict, stop the walk. */
static bool reject(rl_verdict_t *v, const char *reason) {
    malformed(v, reason);
    return false;
}

/* A correlation miss is a valid-looking datagram that belongs to no request:
 * on_datagram reports it as RCLIENT_OK (api.md "Datagrams and Timers"). */
static rl_verdict_class_t uncorrelated(rl_verdict_t *v, const char *reason) {
    return set_verdict(v, RL_VERDICT_CORRELATION, RCLIENT_OK, reason);
}

/* ---- step 1: framing --------------------------------------------------------- */

/* Tenant TLV (wire_protocol.md "Tenant Header"). */
static bool check_tenant(const uint8_t *d, size_t len, rl_verdict_t *v) {
    if (len < RL_TLV_HDR_SIZE) {
        return reject(v, "truncated tenant TLV header");
    }
    if (rl_load_u16(d) != RL_TLV_TENANT) {
        return reject(v, "first TLV is not the tenant TLV");
    }
    if (rl_load_u16(d + 2) != RL_TENANT_TLV_SIZE) {
        return reject(v, "tenant tlv_size is not 40");
    }
    if (len < RL_TENANT_TLV_SIZE) {
        return reject(v, "truncated tenant TLV");
    }
    if (rl_load_u16(d + RL_TENANT_OFF_PADDING) != 0) {
        return reject(v, "tenant padding is not zero");
    }
    if (d[RL_TENANT_OFF_STEERING] > 1u) {
        return reject(v, "steering_feedback is not 0 or 1");
    }
    if (d[RL_TENANT_OFF_MGMT] > 1u) {
        return reject(v, "tenant_mgmt_flag is not 0 or 1");
    }
    return true;
}

static size_t known_auth_size(uint16_t tlv_type) {
    switch (tlv_type) {
    case RL_TLV_AUTH_NONE: return RL_AUTH_NONE_TLV_SIZE;
    case RL_TLV_AUTH_COOKIE: return RL_AUTH_COOKIE_TLV_SIZE;
    case RL_TLV_AUTH_AES: return RL_AUTH_AES_TLV_SIZE;
    default: return 0;
    }
}

/* Auth TLV header right after the tenant TLV (wire_protocol.md "Auth
 * Header"). On success *pdu_off is the offset of the PDU. */
static bool check_auth_header(const uint8_t *d, size_t len, size_t *pdu_off, rl_verdict_t *v) {
    const uint8_t *a = d + RL_TENANT_TLV_SIZE;
    size_t remaining = len - RL_TENANT_TLV_SIZE;
    if (remaining < RL_TLV_HDR_SIZE) {
        return reject(v, "truncated auth TLV header");
    }
    size_t tlv_size = rl_load_u16(a + 2);
    if (tlv_size < RL_TLV_HDR_SIZE || tlv_size > remaining) {
        return reject(v, "auth tlv_size out of range");
    }
    size_t expected = known_auth_size(rl_load_u16(a));
    if (expected != 0 && tlv_size != expected) {
        return reject(v, "auth tlv_size wrong for its type");
    }
    *pdu_off = RL_TENANT_TLV_SIZE + tlv_size;
    return true;
}

/* Optional trailing TLVs: an exact sequence, each tlv_size >= 4
 * (wire_protocol.md "Response TLV Parameters", "Size Field Semantics"). */
static bool check_trailing_tlvs(const uint8_t *p, const uint8_t *end, rl_verdict_t *v) {
    while (p < end) {
        if ((size_t)(end - p) < RL_TLV_HDR_SIZE) {
            return reject(v, "truncated trailing TLV header");
        }
        size_t tlv_size = rl_load_u16(p + 2);
        if (tlv_size < RL_TLV_HDR_SIZE) {
            return reject(v, "trailing tlv_size below 4");
        }
        if (tlv_size > (size_t)(end - p)) {
            return reject(v, "trailing TLV overruns the PDU");
        }
        p += tlv_size;
    }
    return true;
}

/* Plaintext PDU: pdu_size >= 8 and exactly the remaining bytes; for a Rate
 * Response also the fixed part, reserved fields, blocks and TLVs. */
static bool check_pdu(const uint8_t *pdu, size_t remaining, rl_verdict_t *v) {
    if (remaining < RL_PDU_HDR_SIZE) {
        return reject(v, "truncated PDU header");
    }
    size_t pdu_size = rl_load_u16(pdu + 2);
    if (pdu_size < RL_PDU_HDR_SIZE) {
        return reject(v, "pdu_size below 8");
    }
    if (pdu_size != remaining) {
        return reject(v, "pdu_size does not match the remaining bytes");
    }
    if (rl_load_u16(pdu) != RL_PDU_RATE_RESPONSE) {
        return true; /* another kind: the correlation step rejects it */
    }
    if (pdu_size < RL_RATE_PDU_FIXED) {
        return reject(v, "rate_response pdu_size below 12");
    }
    if (rl_load_u16(pdu + 4) != 0 || rl_load_u16(pdu + 6) != 0) {
        return reject(v, "rate_response reserved field is not zero");
    }
    size_t blocks = (size_t)rl_load_u16(pdu + 8) * RL_GUARD_BLOCK_SIZE +
                    (size_t)rl_load_u16(pdu + 10) * RL_RESOURCE_BLOCK_SIZE;
    if (blocks > pdu_size - RL_RATE_PDU_FIXED) {
        return reject(v, "guard and resource counts exceed pdu_size");
    }
    return check_trailing_tlvs(pdu + RL_RATE_PDU_FIXED + blocks, pdu + pdu_size, v);
}

/* Before decryption only lengths can be checked: ciphertext has the plaintext
 * PDU's length (wire_protocol.md "AES-256-GCM Normative Framing"). */
static bool check_opaque_pdu(size_t remaining, rl_verdict_t *v) {
    if (remaining < RL_PDU_HDR_SIZE) {
        return reject(v, "truncated PDU header");
    }
    if (remaining > RL_PDU_SIZE_MAX) {
        return reject(v, "PDU longer than any pdu_size");
    }
    return true;
}

static bool is_plaintext_auth(uint16_t tlv_type) {
    return tlv_type == RL_TLV_AUTH_NONE || tlv_type == RL_TLV_AUTH_COOKIE;
}

rl_verdict_class_t rl_response_peek(const uint8_t *dgram, size_t len, const uint8_t **out_unique_id,
                                    rl_verdict_t *verdict) {
    rl_verdict_t local;
    rl_verdict_t *v = verdict != NULL ? verdict : &local;
    size_t pdu_off = 0;
    if (dgram == NULL || out_unique_id == NULL) {
        return set_verdict(v, RL_VERDICT_MALFORMED, RCLIENT_ERR_CONFIG, "invalid argument");
    }
    if (!check_tenant(dgram, len, v) || !check_auth_header(dgram, len, &pdu_off, v)) {
        return v->cls;
    }
    *out_unique_id = dgram + RL_TENANT_OFF_UNIQUE_ID;
    return set_verdict(v, RL_VERDICT_OK, RCLIENT_OK, "ok");
}

/* ---- steps 2 and 3 ----------------------------------------------------------- */

static rl_verdict_class_t authenticate(rl_auth_t *auth, uint8_t *dgram, size_t len, size_t pdu_off,
                                       rl_verdict_t *v) {
    const char *why = "ok";
    int rc = rl_auth_open(auth, dgram, len, &why);
    if (rc != RCLIENT_OK) {
        return set_verdict(v, RL_VERDICT_AUTH, rc, why);
    }
    /* AES: step 1's PDU checks run now, on the plaintext. */
    if (auth->type == R_AUTH_AES && !check_pdu(dgram + pdu_off, len - pdu_off, v)) {
        return v->cls;
    }
    return RL_VERDICT_OK;
}

static bool find_trusted(uint64_t server_id, const uint64_t *trusted, size_t n_trusted, size_t *index) {
    for (size_t i = 0; i < n_trusted; i++) {
        if (trusted[i] == server_id) {
            *index = i;
            return true;
        }
    }
    return false;
}

static rl_verdict_class_t correlate(const uint8_t *dgram, const uint8_t *pdu, const uint8_t expected[16],
                                    const uint64_t *trusted, size_t n_trusted, size_t *index,
                                    rl_verdict_t *v) {
    if (rl_load_u16(pdu) != RL_PDU_RATE_RESPONSE) {
        return uncorrelated(v, "PDU is not a rate_response");
    }
    if (dgram[RL_TENANT_OFF_MGMT] != 0) {
        return uncorrelated(v, "tenant_mgmt_flag is not 0");
    }
    /* unique_id is public in the plaintext tenant TLV; constant time is not
     * needed here but costs nothing. */
    if (CRYPTO_memcmp(dgram + RL_TENANT_OFF_UNIQUE_ID, expected, R_CLIENT_ID_LEN) != 0) {
        return uncorrelated(v, "unique_id does not match the request");
    }
    if (!find_trusted(rl_load_u64(dgram + RL_TENANT_OFF_KEY_ID), trusted, n_trusted, index)) {
        return uncorrelated(v, "server_id is not trusted");
    }
    return RL_VERDICT_OK;
}

/* Response Semantics: success iff every current_latency < latency_threshold
 * and every deficit == 0. */
static bool compute_success(const rl_rate_response_t *r) {
    for (size_t i = 0; i < r->guard_count; i++) {
        const uint8_t *g = r->guards + i * RL_GUARD_BLOCK_SIZE;
        if (rl_load_u32(g + 36) >= rl_load_u32(g + 32)) {
            return false;
        }
    }
    for (size_t i = 0; i < r->resource_count; i++) {
        if (rl_load_u16(r->resources + i * RL_RESOURCE_BLOCK_SIZE + 24) != 0) {
            return false;
        }
    }
    return true;
}

static void fill_response(const uint8_t *dgram, const uint8_t *pdu, size_t index, rl_rate_response_t *out) {
    out->server_id = rl_load_u64(dgram + RL_TENANT_OFF_KEY_ID);
    out->time_stamp_ms = rl_load_u64(dgram + RL_TENANT_OFF_TIME_STAMP);
    out->keep_port = dgram[RL_TENANT_OFF_STEERING] == 1u;
    out->unique_id = dgram + RL_TENANT_OFF_UNIQUE_ID;
    out->server_index = index;
    out->guard_count = rl_load_u16(pdu + 8);
    out->resource_count = rl_load_u16(pdu + 10);
    out->guards = pdu + RL_RATE_PDU_FIXED;
    out->resources = out->guards + (size_t)out->guard_count * RL_GUARD_BLOCK_SIZE;
    out->success = compute_success(out);
}

/* Steps 1 and 2 on dgram, whose arguments are checked; *pdu_off is set on OK. */
static rl_verdict_class_t frame_and_authenticate(rl_auth_t *auth, uint8_t *dgram, size_t len, size_t *pdu_off,
                                                 rl_verdict_t *v) {
    if (!check_tenant(dgram, len, v) || !check_auth_header(dgram, len, pdu_off, v)) {
        return v->cls;
    }
    const uint8_t *pdu = dgram + *pdu_off;
    bool plaintext = is_plaintext_auth(rl_load_u16(dgram + RL_TENANT_TLV_SIZE));
    if (plaintext ? !check_pdu(pdu, len - *pdu_off, v) : !check_opaque_pdu(len - *pdu_off, v)) {
        return v->cls;
    }
    return authenticate(auth, dgram, len, *pdu_off, v);
}

static bool key_ready(const rl_auth_t *auth) {
    return auth != NULL && rl_auth_tlv_size(auth->type) != 0;
}

rl_verdict_class_t rl_response_authenticate(rl_auth_t *auth, uint8_t *dgram, size_t len, rl_verdict_t *verdict) {
    rl_verdict_t local;
    rl_verdict_t *v = verdict != NULL ? verdict : &local;
    if (!key_ready(auth) || dgram == NULL) {
        return set_verdict(v, RL_VERDICT_MALFORMED, RCLIENT_ERR_CONFIG, "invalid argument");
    }
    size_t pdu_off = 0;
    if (frame_and_authenticate(auth, dgram, len, &pdu_off, v) != RL_VERDICT_OK) {
        return v->cls;
    }
    return set_verdict(v, RL_VERDICT_OK, RCLIENT_OK, "ok");
}

rl_verdict_class_t rl_parse_rate_response(rl_auth_t *auth, uint8_t *dgram, size_t len,
                                          const uint8_t expected_unique_id[16], const uint64_t *trusted,
                                          size_t n_trusted, rl_rate_response_t *out, rl_verdict_t *verdict) {
    rl_verdict_t local;
    rl_verdict_t *v = verdict != NULL ? verdict : &local;
    if (!key_ready(auth) || dgram == NULL || expected_unique_id == NULL || out == NULL ||
        (trusted == NULL && n_trusted > 0)) {
        return set_verdict(v, RL_VERDICT_MALFORMED, RCLIENT_ERR_CONFIG, "invalid argument");
    }
    size_t pdu_off = 0;
    if (frame_and_authenticate(auth, dgram, len, &pdu_off, v) != RL_VERDICT_OK) {
        return v->cls;
    }
    const uint8_t *pdu = dgram + pdu_off;
    size_t index = 0;
    if (correlate(dgram, pdu, expected_unique_id, trusted, n_trusted, &index, v) != RL_VERDICT_OK) {
        return v->cls;
    }
    fill_response(dgram, pdu, index, out);
    return set_verdict(v, RL_VERDICT_OK, RCLIENT_OK, "ok");
}

/* ---- block-by-block match with the request --------------------------------------- */

/* Guard block g answers request guard q: same latency_tracker_id and the same
 * four tracker settings (the identity-defining fields, wire_protocol.md
 * "Content-defined latency-tracker identity"). latency_threshold is a query,
 * not identity; the decision uses q's, whatever the block echoes. */
static bool guard_answers(const uint8_t *g, const r_latency_guard_t *q) {
    return memcmp(g, q->latency_tracker_id, R_CLIENT_ID_LEN) == 0 && rl_load_u32(g + 16) == q->ttl_ms &&
           rl_load_u32(g + 20) == q->max_samples && rl_load_u32(g + 24) == q->buffer_size &&
           rl_load_u32(g + 28) == q->min_sample_threshold;
}

/* Resource block b answers request resource q: same bucket_id and window
 * (rate_limit and tokens_requested are reused for actual_rate and deficit). */
static bool resource_answers(const uint8_t *b, const r_resource_request_t *q) {
    return memcmp(b, q->bucket_id, R_CLIENT_ID_LEN) == 0 && rl_load_u32(b + 16) == q->window_size_ms;
}

rl_verdict_class_t rl_response_match(rl_rate_response_t *resp, const r_latency_guard_t *guards, size_t guard_count,
                                     const r_resource_request_t *resources, size_t resource_count,
                                     rl_verdict_t *verdict) {
    rl_verdict_t local;
    rl_verdict_t *v = verdict != NULL ? verdict : &local;
    if (resp == NULL || (guards == NULL && guard_count > 0) || (resources == NULL && resource_count > 0)) {
        return set_verdict(v, RL_VERDICT_MALFORMED, RCLIENT_ERR_CONFIG, "invalid argument");
    }
    if (resp->guard_count != guard_count) {
        return malformed(v, "guard_count differs from the request's");
    }
    if (resp->resource_count != resource_count) {
        return malformed(v, "resource_count differs from the request's");
    }
    bool success = true;
    const uint8_t *g = resp->guards;
    for (size_t i = 0; i < guard_count; i++, g += RL_GUARD_BLOCK_SIZE) {
        if (!guard_answers(g, &guards[i])) {
            return malformed(v, "a guard block does not answer the request's guard at its position");
        }
        success = success && rl_load_u32(g + 36) < guards[i].threshold_ms;
    }
    const uint8_t *b = resp->resources;
    for (size_t i = 0; i < resource_count; i++, b += RL_RESOURCE_BLOCK_SIZE) {
        if (!resource_answers(b, &resources[i])) {
            return malformed(v, "a resource block does not answer the request's resource at its position");
        }
        success = success && rl_load_u16(b + 24) == 0;
    }
    resp->success = success;
    return set_verdict(v, RL_VERDICT_OK, RCLIENT_OK, "ok");
}

/* ---- block views --------------------------------------------------------------- */

void rl_response_guard_at(const rl_rate_response_t *resp, size_t i, rl_guard_view_t *out) {
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (resp == NULL || i >= resp->guard_count) {
        return;
    }
    const uint8_t *g = resp->guards + i * RL_GUARD_BLOCK_SIZE;
    out->latency_tracker_id = g;
    out->ttl_ms = rl_load_u32(g + 16);
    out->max_samples = rl_load_u32(g + 20);
    out->buffer_size = rl_load_u32(g + 24);
    out->min_sample_threshold = rl_load_u32(g + 28);
    out->latency_threshold = rl_load_u32(g + 32);
    out->current_latency = rl_load_u32(g + 36);
    out->passed = out->current_latency < out->latency_threshold;
}

void rl_response_resource_at(const rl_rate_response_t *resp, size_t i, rl_resource_view_t *out) {
    if (out == NULL) {
        return;
    }
    memset(out, 0, sizeof *out);
    if (resp == NULL || i >= resp->resource_count) {
        return;
    }
    const uint8_t *r = resp->resources + i * RL_RESOURCE_BLOCK_SIZE;
    out->bucket_id = r;
    out->window_size_ms = rl_load_u32(r + 16);
    out->actual_rate = rl_load_u32(r + 20);
    out->tokens_deficit = rl_load_u16(r + 24);
}
