/* SPDX-License-Identifier: MIT */
/* fake_host.h - a scripted host for client-core tests: manual clock, captured
 * sends, deterministic random source, explicit three-server membership, and
 * a server-side response builder that turns a captured request into a Rate
 * Response (wire_protocol.md "rate_response PDU": the request modified in
 * place). Header-only; include after <cmocka.h>. */
#ifndef FAKE_HOST_H
#define FAKE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_le.h"
#include "rl_wire.h"

#define FH_MAX_SENDS 256
#define FH_SERVERS 3
#define FH_T0 1767225600000ull /* 2026-01-01T00:00:00Z in ms */

typedef struct {
    int server;               /* index into fh servers by address, -1 unknown */
    uint8_t data[RL_MAX_DATAGRAM];
    size_t len;
    uint64_t at;
} fh_send_t;

typedef struct {
    uint64_t now;
    fh_send_t sends[FH_MAX_SENDS];
    size_t n_sends;
    long fail_send_at;        /* index of the send that fails, -1 none */
    unsigned fail_servers;    /* bit i set: every send to server i fails */
    int warn_logs;            /* R_LOG_WARN lines from the client */
    char last_warn[256];      /* the latest of them */
    uint64_t rng_counter;
    bool rng_fail;
    int rebinds;
    uint64_t rebind_server;
    uint64_t server_ids[FH_SERVERS]; /* [0] oldest */
    r_server_endpoint_t endpoints[FH_SERVERS];
    r_auth_type_t mode;
    char key[160];
    uint8_t secret[32];
    rl_auth_t server_auth;    /* the servers' copy of the key */
    r_client_t *client;
    /* completion capture */
    int completions;
    int status;
    bool success;
    uint64_t server_id;
    bool steering_feedback;
    size_t resource_count, guard_count;
    r_resource_result_t resources[4];
    r_guard_result_t guards[4];
    uint64_t completed_at;
    r_client_req_t *completed_req;
    bool cancel_in_callback;
    /* profile capture */
    int profiles;
    r_request_profile_t profile;
} fh_t;

static fh_t *fh_current; /* the host whose clock the hooks read */

static inline int fh_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    fh_t *h = ctx;
    int server = -1;
    for (int i = 0; i < FH_SERVERS; i++) {
        if (h->endpoints[i].addr.port == to->port) {
            server = i;
        }
    }
    if (server >= 0 && ((h->fail_servers >> server) & 1u) != 0) {
        return -1;
    }
    if (h->fail_send_at >= 0 && (size_t)h->fail_send_at == h->n_sends) {
        h->fail_send_at = -1;
        return -1;
    }
    if (h->n_sends >= FH_MAX_SENDS) {
        return -1;
    }
    fh_send_t *s = &h->sends[h->n_sends++];
    s->server = server;
    memcpy(s->data, data, len);
    s->len = len;
    s->at = h->now;
    return 0;
}

static inline void fh_log(void *ctx, r_log_level_t level, const char *msg) {
    fh_t *h = ctx;
    if (level == R_LOG_WARN) {
        h->warn_logs++;
        snprintf(h->last_warn, sizeof h->last_warn, "%s", msg);
    }
}

static inline uint64_t fh_now(void *ctx) {
    return ((fh_t *)ctx)->now;
}

static inline int fh_random(void *ctx, uint8_t *buf, size_t len) {
    fh_t *h = ctx;
    if (h->rng_fail) {
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(h->rng_counter >> (8 * (i % 8)));
        if (i % 8 == 7) h->rng_counter++;
    }
    h->rng_counter++;
    return 0;
}

static inline void fh_rebind(void *ctx, uint64_t server_id) {
    fh_t *h = ctx;
    h->rebinds++;
    h->rebind_server = server_id;
}

static inline void fh_profile(const r_request_profile_t *p, void *user) {
    fh_t *h = user;
    h->profiles++;
    h->profile = *p;
}

static inline void fh_on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    fh_t *h = user;
    h->completions++;
    h->status = r->status;
    h->success = r->success;
    h->server_id = r->server_id;
    h->steering_feedback = r->steering_feedback;
    h->resource_count = r->resource_count;
    h->guard_count = r->guard_count;
    for (size_t i = 0; i < r->resource_count && i < 4; i++) h->resources[i] = r->resources[i];
    for (size_t i = 0; i < r->guard_count && i < 4; i++) h->guards[i] = r->guards[i];
    h->completed_at = h->now;
    h->completed_req = req;
    if (h->cancel_in_callback && req != NULL) {
        r_client_cancel_request(h->client, req);
    }
}

/* Build the credential for mode with the canonical quota word 0xf8f2b150
 * (dedup_ttl_ms_max 300, latency_buffer_size_max 32). */
static inline void fh_make_key(fh_t *h, r_auth_type_t mode, uint32_t quota_word) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = mode;
    info.key_id = 72623859790382856ull;
    info.has_secret = mode != R_AUTH_NONE;
    for (int i = 0; i < 32; i++) h->secret[i] = (uint8_t)(0x30 + i);
    if (info.has_secret) memcpy(info.secret, h->secret, 32);
    info.quota_word = quota_word;
    r_client_decode_quota_word(quota_word, &info.quotas, NULL);
    assert_true(rl_credential_encode(&info, h->key, sizeof h->key) > 0);
}

static inline void fh_init_servers(fh_t *h) {
    for (int i = 0; i < FH_SERVERS; i++) {
        /* A (index 0) started first: lower start time = older. */
        assert_int_equal(r_client_encode_server_id(1767225600u - 3600u * (uint64_t)(FH_SERVERS - i), (uint8_t)i,
                                                   (uint16_t)(10 + i), &h->server_ids[i]),
                         RCLIENT_OK);
        h->endpoints[i].server_id = h->server_ids[i];
        h->endpoints[i].addr.family = R_ADDR_INET;
        h->endpoints[i].addr.port = (uint16_t)(29292 + i);
        h->endpoints[i].addr.addr[0] = 127;
        h->endpoints[i].addr.addr[3] = 1;
    }
}

/* A host without a client: clock at FH_T0, key for mode with quota_word,
 * three servers, the servers' auth state. */
static inline fh_t *fh_new(r_auth_type_t mode, uint32_t quota_word) {
    fh_t *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->now = FH_T0;
    h->fail_send_at = -1;
    h->rng_counter = 1;
    h->mode = mode;
    fh_make_key(h, mode, quota_word);
    fh_init_servers(h);
    assert_int_equal(rl_auth_init(&h->server_auth, mode, mode == R_AUTH_NONE ? NULL : h->secret), RCLIENT_OK);
    fh_current = h;
    return h;
}

/* Client configuration for h: its key, policy (may be NULL), the first
 * n_servers explicit servers (0 = none: DNS discovery), the profile hook. */
static inline r_client_config_t fh_config(fh_t *h, const r_request_policy_t *policy, size_t n_servers) {
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = h->key;
    cfg.request_policy = policy;
    cfg.servers = n_servers > 0 ? h->endpoints : NULL;
    cfg.server_count = n_servers;
    cfg.request_profile_cb = fh_profile;
    cfg.request_profile_user_data = h;
    return cfg;
}

static inline r_io_ops_t fh_io(fh_t *h) {
    r_io_ops_t io = {.ctx = h, .udp_send = fh_udp_send, .now_ms = fh_now, .steering_rebind = fh_rebind,
                     .random = fh_random, .log = fh_log};
    return io;
}

/* Set up a host and a client with explicit servers and a key with quota_word. */
static inline fh_t *fh_setup_quota(r_auth_type_t mode, const r_request_policy_t *policy, size_t n_servers,
                                   uint32_t quota_word) {
    fh_t *h = fh_new(mode, quota_word);
    r_client_config_t cfg = fh_config(h, policy, n_servers);
    r_io_ops_t io = fh_io(h);
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    return h;
}

/* Set up a host and a client with explicit servers. policy may be NULL. */
static inline fh_t *fh_setup(r_auth_type_t mode, const r_request_policy_t *policy, size_t n_servers) {
    return fh_setup_quota(mode, policy, n_servers, 0xf8f2b150u);
}

static inline void fh_teardown(fh_t *h) {
    r_client_destroy(h->client);
    rl_auth_release(&h->server_auth);
    free(h);
}

/* One resource (checkout 1000/100, 1 token) and one guard (threshold 100). */
static inline void fh_default_inputs(r_resource_request_t *res, r_latency_guard_t *guard) {
    memset(res, 0, sizeof *res);
    res->window_size_ms = 1000;
    res->rate_limit = 100;
    res->tokens_requested = 1;
    assert_int_equal(r_client_derive_bucket_id("checkout", 8, 1000, 100, res->bucket_id), RCLIENT_OK);
    memset(guard, 0, sizeof *guard);
    guard->threshold_ms = 100;
    guard->ttl_ms = 10000;
    guard->max_samples = 100;
    guard->buffer_size = 32;
    guard->min_sample_threshold = 5;
    assert_int_equal(r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5,
                                                        guard->latency_tracker_id),
                     RCLIENT_OK);
}

/* Submit the default 1 resource + 1 guard request (copying API). */
static inline r_client_req_t *fh_submit(fh_t *h) {
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &req),
                     RCLIENT_OK);
    assert_non_null(req);
    return req;
}

typedef struct {
    uint16_t deficit;         /* resource 0 */
    uint32_t actual_rate;
    uint32_t current_latency; /* guard 0 */
    uint8_t keep_port;        /* steering_feedback */
    uint64_t server_id;       /* 0 = the captured request's destination server */
} fh_reply_t;

/* Turn captured request send `idx` into a sealed response in out; returns its length. */
static inline size_t fh_build_response(fh_t *h, size_t idx, const fh_reply_t *r, uint8_t *out) {
    const fh_send_t *s = &h->sends[idx];
    memcpy(out, s->data, s->len);
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&h->server_auth, out, s->len, &why), RCLIENT_OK);
    size_t pdu = RL_TENANT_TLV_SIZE + rl_auth_tlv_size(h->mode);
    uint64_t sid = r->server_id != 0 ? r->server_id : h->server_ids[s->server];
    rl_store_u64(out + RL_TENANT_OFF_KEY_ID, sid);
    out[RL_TENANT_OFF_STEERING] = r->keep_port;
    uint16_t n_guards = rl_load_u16(out + pdu + 8);
    rl_store_u16(out + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(out + pdu + 4, 0); /* reserved, reserved (dedup_ttl_ms in the request) */
    size_t g = pdu + RL_RATE_PDU_FIXED;
    if (n_guards > 0) {
        rl_store_u32(out + g + 36, r->current_latency);
    }
    size_t res = g + (size_t)n_guards * RL_GUARD_BLOCK_SIZE;
    rl_store_u32(out + res + 20, r->actual_rate);
    rl_store_u16(out + res + 24, r->deficit);
    uint8_t nonce[12] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 1};
    assert_int_equal(rl_auth_seal(&h->server_auth, out, s->len, nonce), RCLIENT_OK);
    return s->len;
}

/* Deliver a response to captured send idx at the current time; returns the
 * r_client_on_datagram result. */
static inline int fh_reply(fh_t *h, size_t idx, const fh_reply_t *r) {
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = fh_build_response(h, idx, r, buf);
    return r_client_on_datagram(h->client, buf, len);
}

static inline int fh_allow(fh_t *h, size_t idx) {
    fh_reply_t r = {.keep_port = 1, .current_latency = 5, .actual_rate = 1};
    return fh_reply(h, idx, &r);
}

/* Advance the clock to t and fire the request's timer if due (as a host
 * would: re-query the deadline after every event). */
static inline void fh_advance(fh_t *h, r_client_req_t *req, uint64_t t) {
    int before = h->completions;
    while (h->completions == before) {
        uint64_t d = r_client_request_deadline_ms(h->client, req);
        if (d > t) break;
        h->now = d;
        assert_int_equal(r_client_on_timeout(h->client, req, d), RCLIENT_OK);
    }
    if (h->now < t) h->now = t;
}

/* Count captured sends to server i at or after send index from. */
static inline size_t fh_sends_to(const fh_t *h, int server, size_t from) {
    size_t n = 0;
    for (size_t i = from; i < h->n_sends; i++) n += h->sends[i].server == server;
    return n;
}

#endif /* FAKE_HOST_H */
