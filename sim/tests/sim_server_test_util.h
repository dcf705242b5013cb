/* SPDX-License-Identifier: MIT */
/* sim_server_test_util.h - helpers for the reference-server tests.
 *
 * Requests are built with the CLIENT's encoder and sealer (rl_wire.h,
 * rl_auth.h) and responses checked with the CLIENT's parser (rl_response.h):
 * the server shares no code with them, so every test is also a differential
 * check of the two implementations. Include once per test executable. */
#ifndef SIM_SERVER_TEST_UTIL_H
#define SIM_SERVER_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_response.h"
#include "rl_wire.h"
#include "sim_engine.h"
#include "sim_server.h"

#include "sim_rng_weak.h"

/* ---- fixtures ------------------------------------------------------------------ */

#define TU_START_S 1767225600ull      /* 2026-01-01T00:00:00Z */
#define TU_T0 1767225600000ull        /* ms; a multiple of every window used below */
#define TU_LISTENER 3u
#define TU_NODE 77u

static inline sim_server_params_t tu_params(void) {
    sim_server_params_t p;
    memset(&p, 0, sizeof p);
    p.server_start_s = TU_START_S;
    p.listener_id = TU_LISTENER;
    p.node_id = TU_NODE;
    p.steer_mode = SIM_STEER_KEEP;
    return p;
}

static inline sim_server_t *tu_server(const sim_server_params_t *p) {
    sim_rng_t rng;
    sim_rng_seed(&rng, 42, SIM_STREAM_SERVER, 0);
    sim_server_t *s = sim_server_new(p, &rng);
    assert_non_null(s);
    return s;
}

/* The canonical default quota word 0xf8f2b150: 65,536 buckets, 1,024 services,
 * 4,096 labels, buffer 32, dedup 300 ms, full window range. */
static inline r_api_key_quotas_t tu_default_quotas(void) {
    r_api_key_quotas_t q;
    assert_int_equal(r_client_decode_quota_word(0xf8f2b150u, &q, NULL), RCLIENT_OK);
    return q;
}

/* One API key as both sides see it: the credential text for the server, the
 * client's rl_auth_t for sealing requests and parsing responses. */
typedef struct {
    r_auth_type_t type;
    uint64_t key_id;
    char cred[200];
    rl_auth_t auth;
    uint8_t nonce[12];
} tu_key_t;

static inline void tu_key_init(tu_key_t *k, r_auth_type_t type, uint64_t key_id, const r_api_key_quotas_t *q) {
    memset(k, 0, sizeof *k);
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = type;
    info.key_id = key_id;
    info.has_secret = type != R_AUTH_NONE;
    for (size_t i = 0; i < sizeof info.secret; i++) {
        info.secret[i] = info.has_secret ? (uint8_t)(0xA0u + i + (uint8_t)key_id) : 0u;
    }
    assert_int_equal(rl_quota_encode(q, &info.quota_word), RCLIENT_OK);
    info.quotas = *q;
    assert_true(rl_credential_encode(&info, k->cred, sizeof k->cred) > 0);
    assert_int_equal(rl_auth_init(&k->auth, type, info.has_secret ? info.secret : NULL), RCLIENT_OK);
    k->type = type;
    k->key_id = key_id;
}

static inline void tu_key_free(tu_key_t *k) {
    rl_auth_release(&k->auth);
}

static inline void tu_uid(uint8_t uid[16], uint32_t n) {
    memset(uid, 0, 16);
    uid[0] = 0x5A;
    uid[12] = (uint8_t)n;
    uid[13] = (uint8_t)(n >> 8);
    uid[14] = (uint8_t)(n >> 16);
    uid[15] = (uint8_t)(n >> 24);
}

static inline r_resource_request_t tu_resource(const char *name, uint32_t window_ms, uint32_t limit, uint16_t tokens) {
    r_resource_request_t r;
    memset(&r, 0, sizeof r);
    assert_int_equal(r_client_derive_bucket_id(name, strlen(name), window_ms, limit, r.bucket_id), RCLIENT_OK);
    r.window_size_ms = window_ms;
    r.rate_limit = limit;
    r.tokens_requested = tokens;
    return r;
}

static inline r_latency_guard_t tu_guard(const char *name, uint32_t threshold, uint32_t ttl, uint32_t max_samples,
                                  uint32_t buffer_size, uint32_t min_samples) {
    r_latency_guard_t g;
    memset(&g, 0, sizeof g);
    assert_int_equal(r_client_derive_latency_tracker_id(name, strlen(name), ttl, max_samples, buffer_size,
                                                        min_samples, g.latency_tracker_id),
                     RCLIENT_OK);
    g.threshold_ms = threshold;
    g.ttl_ms = ttl;
    g.max_samples = max_samples;
    g.buffer_size = buffer_size;
    g.min_sample_threshold = min_samples;
    return g;
}

/* The report block for the tracker of guard g. */
static inline r_service_latency_report_t tu_sample(const r_latency_guard_t *g, uint32_t observed) {
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    memcpy(r.latency_tracker_id, g->latency_tracker_id, 16);
    r.ttl_ms = g->ttl_ms;
    r.max_samples = g->max_samples;
    r.buffer_size = g->buffer_size;
    r.min_sample_threshold = g->min_sample_threshold;
    r.observed_latency = observed;
    return r;
}

static inline void tu_next_nonce(tu_key_t *k) {
    for (size_t i = 0; i < sizeof k->nonce && ++k->nonce[i] == 0; i++) {
    }
}

/* Encode (plaintext, auth body zero) without sealing: for crafted mutations. */
static inline size_t tu_encode(tu_key_t *k, uint8_t *buf, const uint8_t uid[16], uint64_t ts, uint32_t ttl,
                        const r_latency_guard_t *g, size_t ng, const r_resource_request_t *r, size_t nr,
                        const char *label) {
    rl_tenant_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = k->key_id;
    memcpy(h.unique_id, uid, 16);
    h.time_stamp_ms = ts;
    h.steering_feedback = 1;
    size_t len = 0;
    size_t label_len = label == NULL ? 0 : strlen(label);
    assert_int_equal(rl_encode_rate_request(buf, 1200, k->type, &h, ttl, g, ng, r, nr, (const uint8_t *)label,
                                            label_len, &len),
                     RCLIENT_OK);
    return len;
}

static inline void tu_seal(tu_key_t *k, uint8_t *buf, size_t len) {
    tu_next_nonce(k);
    assert_int_equal(rl_auth_seal(&k->auth, buf, len, k->nonce), RCLIENT_OK);
}

static inline size_t tu_request(tu_key_t *k, uint8_t *buf, const uint8_t uid[16], uint64_t ts, uint32_t ttl,
                         const r_latency_guard_t *g, size_t ng, const r_resource_request_t *r, size_t nr,
                         const char *label) {
    size_t len = tu_encode(k, buf, uid, ts, ttl, g, ng, r, nr, label);
    tu_seal(k, buf, len);
    return len;
}

static inline size_t tu_report(tu_key_t *k, uint8_t *buf, const uint8_t uid[16], uint64_t ts,
                        const r_service_latency_report_t *rep, size_t n) {
    rl_tenant_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = k->key_id;
    memcpy(h.unique_id, uid, 16);
    h.time_stamp_ms = ts;
    h.steering_feedback = 1;
    size_t len = 0;
    assert_int_equal(rl_encode_latency_report(buf, 1200, k->type, &h, rep, n, &len), RCLIENT_OK);
    tu_seal(k, buf, len);
    return len;
}

/* Parse a response with the client's validator; the copy keeps the cached
 * bytes intact (AES decrypts in place). Asserts the client accepts it. */
typedef struct {
    uint8_t bytes[1200];
    rl_rate_response_t rr;
} tu_parsed_t;

static inline void tu_parse_ok(tu_key_t *k, const uint8_t *resp, size_t len, const uint8_t uid[16], uint64_t server_id,
                        tu_parsed_t *out) {
    memcpy(out->bytes, resp, len);
    rl_verdict_t v;
    rl_verdict_class_t cls = rl_parse_rate_response(&k->auth, out->bytes, len, uid, &server_id, 1, &out->rr, &v);
    if (cls != RL_VERDICT_OK) {
        fail_msg("client rejected the server's response: %s", v.reason);
    }
}

static inline rl_resource_view_t tu_res_at(const tu_parsed_t *p, size_t i) {
    rl_resource_view_t v;
    rl_response_resource_at(&p->rr, i, &v);
    return v;
}

static inline rl_guard_view_t tu_guard_at(const tu_parsed_t *p, size_t i) {
    rl_guard_view_t v;
    rl_response_guard_at(&p->rr, i, &v);
    return v;
}

/* Handle one datagram; returns the verdict, fills resp/len. */
typedef struct {
    uint8_t bytes[1200];
    size_t len;
    sim_server_result_t result;
} tu_out_t;

static inline sim_server_verdict_t tu_handle(sim_server_t *s, uint64_t now, const uint8_t *in, size_t len, tu_out_t *o) {
    return sim_server_handle(s, now, in, len, o->bytes, sizeof o->bytes, &o->len, &o->result);
}

/* ---- a server with one key -------------------------------------------------- */

typedef struct {
    sim_server_t *s;
    tu_key_t k;
    uint32_t ttl;                 /* dedup_ttl_ms sent by tu_send */
} tu_fix_t;

static inline tu_fix_t *tu_fix_new(r_auth_type_t type, const r_api_key_quotas_t *q, const sim_server_params_t *p) {
    tu_fix_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->s = tu_server(p);
    tu_key_init(&f->k, type, 0x1234u, q);
    assert_int_equal(sim_server_add_tenant(f->s, f->k.cred), 0);
    f->ttl = 60;
    return f;
}

/* A server with one key of the default quotas (dedup_ttl_ms_max 300) and the
 * given dedup capacity, listener cap and freshness window (0: the defaults,
 * resp. no freshness check). */
static inline tu_fix_t *tu_fix_dedup(r_auth_type_t type, uint32_t capacity, uint32_t ttl_cap_ms,
                                     uint32_t freshness_ms) {
    r_api_key_quotas_t q = tu_default_quotas();
    sim_server_params_t p = tu_params();
    p.dedup_capacity = capacity;
    p.dedup_ttl_cap_ms = ttl_cap_ms;
    p.freshness_ms = freshness_ms;
    return tu_fix_new(type, &q, &p);
}

static inline void tu_fix_free(tu_fix_t *f) {
    if (f != NULL) {
        sim_server_free(f->s);
        tu_key_free(&f->k);
        free(f);
    }
}

/* Send a client-encoded rate request with unique_id #n composed at now; when
 * p is given and a response came back, it must validate in the client, and a
 * fresh answer (not a replay, which may answer an earlier request under the
 * same unique_id) must answer the request block by block (rl_response_match:
 * the request modified in place); p->rr.success is then the client's
 * decision with the requested thresholds. */
static inline sim_server_verdict_t tu_send(tu_fix_t *f, uint64_t now, uint32_t n, const r_latency_guard_t *g,
                                           size_t ng, const r_resource_request_t *r, size_t nr, tu_out_t *o,
                                           tu_parsed_t *p) {
    uint8_t buf[1200];
    uint8_t uid[16];
    tu_uid(uid, n);
    size_t len = tu_request(&f->k, buf, uid, now, f->ttl, g, ng, r, nr, NULL);
    sim_server_verdict_t v = tu_handle(f->s, now, buf, len, o);
    if (p != NULL && (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED)) {
        tu_parse_ok(&f->k, o->bytes, o->len, uid, sim_server_id(f->s), p);
    }
    rl_verdict_t mv;
    if (p != NULL && v == SIM_SRV_ANSWERED && rl_response_match(&p->rr, g, ng, r, nr, &mv) != RL_VERDICT_OK) {
        fail_msg("the server's response does not answer the request block by block: %s", mv.reason);
    }
    return v;
}

/* Send a latency report (unique_id #n) composed at now. */
static inline sim_server_verdict_t tu_send_report(tu_fix_t *f, uint64_t now, uint32_t n,
                                                  const r_service_latency_report_t *rep, size_t nrep) {
    uint8_t buf[1200];
    uint8_t uid[16];
    tu_out_t o;
    tu_uid(uid, n);
    size_t len = tu_report(&f->k, buf, uid, now, rep, nrep);
    sim_server_verdict_t v = tu_handle(f->s, now, buf, len, &o);
    assert_int_equal(o.len, 0); /* fire-and-forget: never a response */
    return v;
}

/* A request (#n, composed at ts with the fixture's dedup_ttl_ms, resource r)
 * encoded once, so a duplicate is the very same datagram. */
typedef struct {
    uint8_t buf[1200];
    size_t len;
    uint8_t uid[16];
} tu_req_t;

static inline void tu_make_req(tu_fix_t *f, tu_req_t *q, uint32_t n, uint64_t ts, const r_resource_request_t *r) {
    tu_uid(q->uid, n);
    q->len = tu_request(&f->k, q->buf, q->uid, ts, f->ttl, NULL, 0, r, 1, NULL);
}

/* Send resource r (1 block) as request #n and return its actual_rate; the
 * verdict must be ANSWERED. *deficit (may be NULL) receives the deficit. */
static inline uint32_t tu_take(tu_fix_t *f, uint64_t now, uint32_t n, const r_resource_request_t *r,
                               uint16_t *deficit) {
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, now, n, NULL, 0, r, 1, &o, &p), SIM_SRV_ANSWERED);
    rl_resource_view_t v = tu_res_at(&p, 0);
    if (deficit != NULL) {
        *deficit = v.tokens_deficit;
    }
    return v.actual_rate;
}

#endif /* SIM_SERVER_TEST_UTIL_H */
