/* SPDX-License-Identifier: MIT */
/* Adversarial reproducers against the public API (r_client.h, r_client_io.h),
 * with a host and an r-server written here from the spec alone: responses are
 * built from the captured request bytes with the offsets of wire_protocol.md
 * ("Tenant Header", "Auth Header", "rate_request PDU", "rate_response PDU")
 * and, for AES, sealed with OpenSSL's AES-256-GCM directly ("AES-256-GCM
 * Normative Framing"), never through the client's own codec. Credentials are
 * the outside known answers of public_api_key.json (#5 cookie, #6 AES).
 *
 * Covered: responses with extra or omitted trailing TLVs (wire_protocol.md
 * "Response TLV Parameters"), count mismatches, a held candidate with
 * repeated trackers selected at the preference deadline, duplicates from the
 * candidate server, a response at the dedup deadline, completion-delivery
 * bytes, late timers at a boundary and far beyond the horizon, and the
 * r_client_on_datagram code of every malformed class with and without a
 * matching request (api.md "Datagrams and Timers"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "r_client.h"

/* ---- spec constants (wire_protocol.md) ---------------------------------------- */
#define TENANT_SIZE 40u
#define OFF_KEY_ID 4u
#define OFF_UNIQUE_ID 12u
#define OFF_STEERING 36u
#define OFF_MGMT 37u
#define OFF_TPAD 38u
#define GUARD_SIZE 40u
#define RESOURCE_SIZE 28u
#define PDU_FIXED 12u

/* public_api_key.json #5 (cookie, key_id 7) and #6 (AES, key_id 8), canonical quota word. */
static const char *const KEY_COOKIE =
    "rl-cookie1qyrsqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtruhc9ag94n";
static const char *const KEY_AES = "rl-aes1qyyqqqqqqqqqqqyhtpw26t7u4rs2csj0kc7u7veejzf62ygpl5j67xs3kla745vv3egtruhch7sxr7";
static const uint8_t SECRET_COOKIE[32] = {0x1b, 0xa1, 0x33, 0xec, 0xcd, 0xfc, 0x4e, 0x5c, 0xa3, 0x40, 0x5d,
                                          0xfd, 0x70, 0xc1, 0x13, 0x60, 0xaf, 0x03, 0x81, 0x06, 0xc9, 0xee,
                                          0xbd, 0xde, 0x50, 0x4a, 0x4b, 0x14, 0xc9, 0x4b, 0x85, 0x57};
static const uint8_t SECRET_AES[32] = {0x97, 0x58, 0x5c, 0xad, 0x2f, 0xdc, 0xa8, 0xe0, 0xac, 0x42, 0x4f,
                                       0xb6, 0x3d, 0xcf, 0x33, 0x39, 0x90, 0x93, 0xa5, 0x11, 0x01, 0xfd,
                                       0x25, 0xaf, 0x1a, 0x11, 0xb7, 0xfb, 0xea, 0xd1, 0x8c, 0x8e};

#define T0 1767225600000ull /* 2026-01-01T00:00:00Z */
#define N_SERVERS 3
#define MAX_SENDS 64
enum { A = 0, B = 1, C = 2 }; /* A oldest */

static uint16_t ld16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static void st16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void st32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void st64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

typedef struct {
    uint8_t data[1200];
    size_t len;
    int server;
} sent_t;

typedef struct {
    uint64_t now;
    sent_t sends[MAX_SENDS];
    size_t n_sends;
    uint64_t rng;
    r_auth_type_t mode;
    const uint8_t *secret;
    uint64_t ids[N_SERVERS];
    r_server_endpoint_t eps[N_SERVERS];
    r_client_t *client;
    int completions;
    r_rate_limit_result_t result;
    r_resource_result_t res[4];
    r_guard_result_t grd[4];
    uint64_t completed_at;
} host_t;

static int h_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    host_t *h = ctx;
    assert_true(len <= 1200 && h->n_sends < MAX_SENDS);
    sent_t *s = &h->sends[h->n_sends++];
    memcpy(s->data, data, len);
    s->len = len;
    s->server = to->port - 29292;
    return 0;
}
static uint64_t h_now(void *ctx) { return ((host_t *)ctx)->now; }
static int h_random(void *ctx, uint8_t *buf, size_t len) {
    host_t *h = ctx;
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)(h->rng++ * 0x9Du + 1u);
    return 0;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    host_t *h = user;
    h->completions++;
    h->result = *r;
    for (size_t i = 0; i < r->resource_count && i < 4; i++) h->res[i] = r->resources[i];
    for (size_t i = 0; i < r->guard_count && i < 4; i++) h->grd[i] = r->guards[i];
    h->completed_at = h->now;
}

/* server_id = (start_s_since_2025 << 23) | (listener_id << 15) | node_id; A started first. */
static host_t *setup(r_auth_type_t mode, const r_request_policy_t *policy) {
    host_t *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->now = T0;
    h->rng = 1;
    h->mode = mode;
    h->secret = mode == R_AUTH_AES ? SECRET_AES : SECRET_COOKIE;
    for (int i = 0; i < N_SERVERS; i++) {
        h->ids[i] = ((uint64_t)(1000u + 100u * (unsigned)i) << 23) | ((uint64_t)i << 15) | (uint64_t)(20 + i);
        h->eps[i].server_id = h->ids[i];
        h->eps[i].addr.family = R_ADDR_INET;
        h->eps[i].addr.addr[0] = 127;
        h->eps[i].addr.addr[3] = 1;
        h->eps[i].addr.port = (uint16_t)(29292 + i);
    }
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = mode == R_AUTH_AES ? KEY_AES : KEY_COOKIE;
    cfg.request_policy = policy;
    cfg.servers = h->eps;
    cfg.server_count = N_SERVERS;
    r_io_ops_t io = {.ctx = h, .udp_send = h_send, .now_ms = h_now, .random = h_random};
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    return h;
}

static void teardown(host_t *h) {
    r_client_destroy(h->client);
    free(h);
}

static size_t auth_size(const host_t *h) { return h->mode == R_AUTH_AES ? 32u : 36u; }

/* AES-256-GCM over the PDU in place; AAD = the first 56 bytes (tenant TLV ||
 * auth type, size, nonce); tag at 56..72. Returns 1 when the tag verifies. */
static int gcm(const host_t *h, uint8_t *d, size_t len, int encrypt) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0;
    int ok = EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, h->secret, d + 44, encrypt) == 1 &&
             (encrypt || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, d + 56) == 1) &&
             EVP_CipherUpdate(ctx, NULL, &n, d, 56) == 1 && EVP_CipherUpdate(ctx, d + 72, &n, d + 72, (int)(len - 72)) == 1 &&
             EVP_CipherFinal_ex(ctx, d + 72 + n, &n) == 1 &&
             (!encrypt || EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, d + 56) == 1);
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/* What the r-server answers (per block; unset values are 0). */
typedef struct {
    uint32_t current[4];       /* guard i current_latency */
    uint16_t deficit[4];       /* resource i deficit */
    uint32_t actual[4];        /* resource i actual_rate */
    int server;                /* responding server (its server_id goes in key_id) */
    const uint8_t *tail;       /* replaces the request's TLV section when tail_set */
    size_t tail_len;
    bool tail_set;
    void (*edit)(uint8_t *pdu); /* optional change to the plaintext PDU before sealing */
    uint8_t nonce_seed;
} reply_t;

/* The request captured as send idx, modified in place into a rate_response
 * (wire_protocol.md "rate_response PDU"), sealed; returns its length. */
static size_t build(const host_t *h, size_t idx, const reply_t *r, uint8_t *out) {
    const sent_t *s = &h->sends[idx];
    size_t head = TENANT_SIZE + auth_size(h);
    memcpy(out, s->data, s->len);
    if (h->mode == R_AUTH_AES) {
        assert_true(gcm(h, out, s->len, 0));
    }
    uint8_t *pdu = out + head;
    assert_int_equal(ld16(pdu), 0x5452); /* "RT" */
    uint16_t ng = ld16(pdu + 8);
    uint16_t nr = ld16(pdu + 10);
    size_t blocks = PDU_FIXED + (size_t)ng * GUARD_SIZE + (size_t)nr * RESOURCE_SIZE;
    size_t len = s->len;
    if (r->tail_set) {
        if (r->tail_len > 0) {
            memcpy(pdu + blocks, r->tail, r->tail_len);
        }
        len = head + blocks + r->tail_len;
    }
    st64(out + OFF_KEY_ID, h->ids[r->server]);
    out[OFF_STEERING] = 1;
    st16(pdu, 0x5252); /* "RR" */
    st16(pdu + 2, (uint16_t)(len - head));
    st32(pdu + 4, 0);
    for (size_t i = 0; i < ng; i++) st32(pdu + PDU_FIXED + i * GUARD_SIZE + 36, i < 4 ? r->current[i] : 0);
    uint8_t *res = pdu + PDU_FIXED + (size_t)ng * GUARD_SIZE;
    for (size_t i = 0; i < nr; i++) {
        st32(res + i * RESOURCE_SIZE + 20, i < 4 ? r->actual[i] : 0);
        st16(res + i * RESOURCE_SIZE + 24, i < 4 ? r->deficit[i] : 0);
    }
    if (r->edit != NULL) {
        r->edit(pdu);
    }
    if (h->mode == R_AUTH_AES) {
        memset(out + 44, 0xA5 ^ r->nonce_seed, 12);
        out[44] = (uint8_t)(r->server + 1);
        assert_true(gcm(h, out, len, 1));
    }
    return len;
}

static int deliver(host_t *h, size_t idx, const reply_t *r) {
    uint8_t buf[1400];
    size_t len = build(h, idx, r, buf);
    return r_client_on_datagram(h->client, buf, len);
}

/* The send captured for server s at or after index from. */
static size_t send_for(const host_t *h, int s, size_t from) {
    for (size_t i = from; i < h->n_sends; i++) {
        if (h->sends[i].server == s) return i;
    }
    fail_msg("no send to server %d", s);
    return 0;
}

/* Inputs: two guards on one tracker (thresholds 100 and 10: r-client.md 5.2,
 * the threshold is a query) and two buckets. */
static void inputs(r_resource_request_t res[2], r_latency_guard_t g[2]) {
    memset(res, 0, 2 * sizeof *res);
    memset(g, 0, 2 * sizeof *g);
    res[0].window_size_ms = 1000;
    res[0].rate_limit = 100;
    res[0].tokens_requested = 1;
    assert_int_equal(r_client_derive_bucket_id("checkout", 8, 1000, 100, res[0].bucket_id), RCLIENT_OK);
    res[1].window_size_ms = 60000;
    res[1].rate_limit = 5;
    res[1].tokens_requested = 4;
    assert_int_equal(r_client_derive_bucket_id("export", 6, 60000, 5, res[1].bucket_id), RCLIENT_OK);
    for (int i = 0; i < 2; i++) {
        g[i].ttl_ms = 10000;
        g[i].max_samples = 100;
        g[i].buffer_size = 32;
        g[i].min_sample_threshold = 5;
        assert_int_equal(r_client_derive_latency_tracker_id("inventory", 9, 10000, 100, 32, 5, g[i].latency_tracker_id),
                         RCLIENT_OK);
    }
    g[0].threshold_ms = 100;
    g[1].threshold_ms = 10;
}

static r_client_req_t *submit(host_t *h, const char *label) {
    r_resource_request_t res[2];
    r_latency_guard_t g[2];
    inputs(res, g);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, res, 2, g, 2, label, 0, on_result, h, &req), RCLIENT_OK);
    assert_non_null(req);
    assert_int_equal(h->n_sends % N_SERVERS, 0);
    return req;
}

/* Host timer loop: deliver each due deadline up to t. */
static void advance(host_t *h, r_client_req_t *req, uint64_t t) {
    int before = h->completions;
    while (h->completions == before) {
        uint64_t d = r_client_request_deadline_ms(h->client, req);
        if (d > t) break;
        h->now = d;
        assert_int_equal(r_client_on_timeout(h->client, req, d), RCLIENT_OK);
    }
    if (h->now < t) h->now = t;
}

/* A server-metrics TLV of type 0x5853 with 8 body bytes, then an empty TLV. */
static const uint8_t SERVER_TLVS[] = {0x53, 0x58, 12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x54, 0x58, 4, 0};

/* ---- trailing TLVs: wire_protocol.md "Response TLV Parameters" ------------------- */

static void expect_allow_from(host_t *h, int server) {
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->result.status, RCLIENT_OK);
    assert_true(h->result.success);
    assert_true(h->result.server_id == h->ids[server]);
}

/* The response may replace the request's label TLV with server TLVs (longer
 * than the request) or omit the TLV section (shorter): both are answers. */
static void check_tail(r_auth_type_t mode, const char *label, const uint8_t *tail, size_t tail_len) {
    host_t *h = setup(mode, NULL);
    submit(h, label);
    reply_t r = {.server = A, .current = {5, 5}, .actual = {1, 4}, .tail = tail, .tail_len = tail_len, .tail_set = true};
    h->now = T0 + 3;
    assert_int_equal(deliver(h, send_for(h, A, 0), &r), RCLIENT_OK);
    expect_allow_from(h, A);
    assert_int_equal(h->res[1].actual_rate, 4);
    teardown(h);
}

static void test_extra_trailing_tlvs_accepted_cookie(void **s) { (void)s; check_tail(R_AUTH_COOKIE, NULL, SERVER_TLVS, sizeof SERVER_TLVS); }
static void test_extra_trailing_tlvs_accepted_aes(void **s) { (void)s; check_tail(R_AUTH_AES, NULL, SERVER_TLVS, sizeof SERVER_TLVS); }
static void test_omitted_tlvs_accepted_cookie(void **s) { (void)s; check_tail(R_AUTH_COOKIE, "checkout-api", NULL, 0); }
static void test_omitted_tlvs_accepted_aes(void **s) { (void)s; check_tail(R_AUTH_AES, "checkout-api", NULL, 0); }

/* A candidate from B whose response is longer than the request (server TLVs)
 * is held, then selected at the preference deadline (t0 + U): each guard is
 * judged with its own requested threshold (current 50: passes 100, fails 10),
 * the deficits are B's, and completion delivery goes to A and C only. */
static void check_held_candidate(r_auth_type_t mode) {
    host_t *h = setup(mode, NULL);
    r_client_req_t *req = submit(h, "x");
    reply_t r = {.server = B, .current = {50, 50}, .deficit = {0, 3}, .actual = {7, 5},
                 .tail = SERVER_TLVS, .tail_len = sizeof SERVER_TLVS, .tail_set = true};
    h->now = T0 + 4;
    assert_int_equal(deliver(h, send_for(h, B, 0), &r), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 20);
    /* A later datagram overwrites whatever buffer the client parsed B's in. */
    reply_t other = {.server = C, .current = {1, 1}, .actual = {99, 99}};
    h->now = T0 + 6;
    assert_int_equal(deliver(h, send_for(h, C, 0), &other), RCLIENT_OK);
    size_t before = h->n_sends;
    advance(h, req, T0 + 20);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->result.status, RCLIENT_OK);
    assert_false(h->result.success);
    assert_true(h->result.server_id == h->ids[B]);
    assert_int_equal(h->result.guard_count, 2);
    assert_int_equal(h->grd[0].threshold_ms, 100);
    assert_int_equal(h->grd[0].current_latency_ms, 50);
    assert_true(h->grd[0].passed);
    assert_int_equal(h->grd[1].threshold_ms, 10);
    assert_int_equal(h->grd[1].current_latency_ms, 50);
    assert_false(h->grd[1].passed);
    assert_int_equal(h->result.resource_count, 2);
    assert_int_equal(h->res[0].tokens_deficit, 0);
    assert_int_equal(h->res[0].actual_rate, 7);
    assert_int_equal(h->res[1].tokens_deficit, 3);
    assert_int_equal(h->res[1].actual_rate, 5);
    /* completion delivery: A only (B and C answered) */
    assert_int_equal(h->n_sends, before + 1);
    assert_int_equal(h->sends[before].server, A);
    assert_int_equal(h->sends[before].len, h->sends[0].len);
    assert_memory_equal(h->sends[before].data, h->sends[send_for(h, A, 0)].data, h->sends[0].len);
    teardown(h);
}

static void test_held_candidate_values_cookie(void **s) { (void)s; check_held_candidate(R_AUTH_COOKIE); }
static void test_held_candidate_values_aes(void **s) { (void)s; check_held_candidate(R_AUTH_AES); }

/* ---- counts and blocks that do not answer the request ---------------------------- */

static void set_counts_1_2(uint8_t *pdu) { st16(pdu + 8, 1); }   /* 1 guard announced, blocks of 2 */
static void set_resources_1(uint8_t *pdu) { st16(pdu + 10, 1); } /* 1 resource announced */

static void check_count_edit(r_auth_type_t mode, void (*edit)(uint8_t *)) {
    host_t *h = setup(mode, NULL);
    r_client_req_t *req = submit(h, NULL);
    reply_t bad = {.server = A, .current = {5, 5}, .edit = edit};
    h->now = T0 + 2;
    assert_int_equal(deliver(h, send_for(h, A, 0), &bad), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(h->completions, 0);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 20);
    reply_t good = {.server = A, .current = {5, 5}};
    assert_int_equal(deliver(h, send_for(h, A, 0), &good), RCLIENT_OK);
    expect_allow_from(h, A);
    teardown(h);
}

static void test_guard_count_mismatch_cookie(void **s) { (void)s; check_count_edit(R_AUTH_COOKIE, set_counts_1_2); }
static void test_guard_count_mismatch_aes(void **s) { (void)s; check_count_edit(R_AUTH_AES, set_counts_1_2); }
static void test_resource_count_mismatch_aes(void **s) { (void)s; check_count_edit(R_AUTH_AES, set_resources_1); }

/* ---- duplicates and the dedup deadline ------------------------------------------ */

/* r-client.md 9.3.3 rule 2: a duplicate from the candidate server adds no
 * responder and never replaces the candidate; after the preference deadline
 * it lets the existing candidate be selected, with the first answer's values. */
static void test_duplicate_from_candidate_keeps_first_values(void **s) {
    (void)s;
    host_t *h = setup(R_AUTH_AES, NULL);
    r_client_req_t *req = submit(h, NULL);
    reply_t first = {.server = B, .current = {5, 5}, .actual = {11, 2}};
    reply_t dup = {.server = B, .current = {500, 500}, .deficit = {9, 9}, .nonce_seed = 1};
    h->now = T0 + 2;
    assert_int_equal(deliver(h, send_for(h, B, 0), &first), RCLIENT_OK);
    h->now = T0 + 10;
    assert_int_equal(deliver(h, send_for(h, B, 0), &dup), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 20);
    h->now = T0 + 25; /* timer not delivered yet */
    size_t before = h->n_sends;
    assert_int_equal(deliver(h, send_for(h, B, 0), &dup), RCLIENT_OK);
    expect_allow_from(h, B);
    assert_int_equal(h->res[0].actual_rate, 11);
    assert_int_equal(h->res[1].tokens_deficit, 0);
    assert_int_equal(h->grd[1].current_latency_ms, 5);
    assert_int_equal(h->n_sends, before + 2); /* completion delivery to A and C */
    teardown(h);
}

/* Default policy, timers on time: at t0 + 60 = H the final interval ends. A
 * response processed at exactly H, before the timer, is selected (a datagram
 * is judged in the phase the client is still in), and no completion-delivery
 * send is initiated at the dedup deadline (r-client.md 9.3.1 MUST NOT). */
static void test_response_at_dedup_deadline_sends_nothing(void **s) {
    (void)s;
    host_t *h = setup(R_AUTH_COOKIE, NULL);
    r_client_req_t *req = submit(h, NULL);
    advance(h, req, T0 + 59);
    assert_int_equal(h->n_sends, 6); /* round 0 and the replay of round 1 */
    h->now = T0 + 60;
    reply_t r = {.server = C, .current = {1, 1}};
    assert_int_equal(deliver(h, send_for(h, C, 3), &r), RCLIENT_OK);
    expect_allow_from(h, C);
    assert_int_equal(h->n_sends, 6);
    teardown(h);
}

/* ---- late timers (docs/spec-notes.md "Late timers") ------------------------------ */

static void policy_n3(r_request_policy_t *p) {
    r_client_default_request_policy(p);
    p->replay_count = 3; /* rounds end at t0+20, 40, 60, 80; H = 100 */
}

/* Delivered at exactly t0 + 40, the end of round 1: round 1 is over, round 2
 * is current and replays once to each server. */
static void test_late_timer_exactly_at_round_boundary(void **s) {
    (void)s;
    r_request_policy_t p;
    policy_n3(&p);
    host_t *h = setup(R_AUTH_COOKIE, &p);
    r_client_req_t *req = submit(h, NULL);
    h->now = T0 + 40;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 40), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    for (int i = 3; i < 6; i++) assert_memory_equal(h->sends[i].data, h->sends[0].data, h->sends[0].len);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 60);
    teardown(h);
}

/* Delivered far beyond the horizon: nothing is sent, the request times out. */
static void test_late_timer_far_beyond_dedup_deadline(void **s) {
    (void)s;
    r_request_policy_t p;
    policy_n3(&p);
    host_t *h = setup(R_AUTH_AES, &p);
    r_client_req_t *req = submit(h, NULL);
    h->now = T0 + 100000;
    assert_int_equal(r_client_on_timeout(h->client, req, h->now), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->result.status, RCLIENT_ERR_TIMEOUT);
    teardown(h);
}

/* Delivered at t0 + 79, inside round 3 (the last): rounds 1 and 2 are
 * skipped, round 3 replays once; at exactly t0 + 80 every round is over, the
 * final receive-only interval is current and sends nothing (r-client.md
 * 9.3.3); at exactly t0 + 100 = H the request times out. */
static void test_late_timer_inside_last_round_then_final_boundaries(void **s) {
    (void)s;
    r_request_policy_t p;
    policy_n3(&p);
    host_t *h = setup(R_AUTH_COOKIE, &p);
    r_client_req_t *req = submit(h, NULL);
    h->now = T0 + 79;
    assert_int_equal(r_client_on_timeout(h->client, req, h->now), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 80);
    h->now = T0 + 80;
    assert_int_equal(r_client_on_timeout(h->client, req, h->now), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    assert_int_equal(h->completions, 0);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 100);
    h->now = T0 + 100;
    assert_int_equal(r_client_on_timeout(h->client, req, h->now), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->result.status, RCLIENT_ERR_TIMEOUT);
    assert_int_equal(h->n_sends, 6);
    teardown(h);
}

/* A timer first delivered at exactly t0 + 80 (the end of the last round):
 * nothing is sent, the final interval is entered. */
static void test_late_timer_exactly_at_final_start_sends_nothing(void **s) {
    (void)s;
    r_request_policy_t p;
    policy_n3(&p);
    host_t *h = setup(R_AUTH_AES, &p);
    r_client_req_t *req = submit(h, NULL);
    h->now = T0 + 80;
    assert_int_equal(r_client_on_timeout(h->client, req, h->now), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->completions, 0);
    assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 100);
    reply_t r = {.server = C, .current = {1, 1}};
    h->now = T0 + 85;
    assert_int_equal(deliver(h, send_for(h, C, 0), &r), RCLIENT_OK); /* P_final = 0: selected at once */
    expect_allow_from(h, C);
    assert_int_equal(h->n_sends, 5); /* completion delivery to A and B (before H) */
    teardown(h);
}

/* ---- reentrancy (api.md "Threading and reentrancy") ------------------------------- */

/* The completion callback of the first request delivers the answer of a
 * second one (a host draining its socket from the callback): each request
 * gets its own values, and the first callback's result arrays are not
 * overwritten by the nested parse. */
static host_t *nested_host;
static uint8_t nested_buf[1400];
static size_t nested_len;
static int nested_rc;
static uint32_t first_actual_after_nested;
static uint32_t second_actual;

static void on_second(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    (void)user;
    second_actual = r->resources[1].actual_rate;
}

static void on_first(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    (void)user;
    nested_rc = r_client_on_datagram(nested_host->client, nested_buf, nested_len);
    first_actual_after_nested = r->resources[1].actual_rate;
}

static void test_nested_delivery_from_completion_callback(void **s) {
    (void)s;
    host_t *h = setup(R_AUTH_AES, NULL);
    nested_host = h;
    r_resource_request_t res[2];
    r_latency_guard_t g[2];
    inputs(res, g);
    r_client_req_t *r1 = NULL;
    r_client_req_t *r2 = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, res, 2, g, 2, NULL, 0, on_first, h, &r1), RCLIENT_OK);
    assert_int_equal(r_client_check_rate_limit_async(h->client, res, 2, g, 2, NULL, 0, on_second, h, &r2), RCLIENT_OK);
    reply_t for2 = {.server = A, .current = {1, 1}, .actual = {0, 222}};
    nested_len = build(h, send_for(h, A, 3), &for2, nested_buf);
    reply_t for1 = {.server = A, .current = {1, 1}, .actual = {0, 111}, .nonce_seed = 7};
    h->now = T0 + 1;
    assert_int_equal(deliver(h, send_for(h, A, 0), &for1), RCLIENT_OK);
    assert_int_equal(nested_rc, RCLIENT_OK);
    assert_int_equal(first_actual_after_nested, 111);
    assert_int_equal(second_actual, 222);
    teardown(h);
}

/* ---- r_client_on_datagram codes (api.md "Datagrams and Timers") ------------------ */

typedef enum { MATCHED, UNMATCHED } match_t;

/* A valid response for send 0 from A, then mutated; when UNMATCHED, the
 * request has been cancelled first, so the unique_id matches nothing. */
typedef void (*mutate_fn)(host_t *h, uint8_t *d, size_t *len);

static void check_code(r_auth_type_t mode, match_t m, mutate_fn mutate, int want) {
    host_t *h = setup(mode, NULL);
    r_client_req_t *req = submit(h, NULL);
    uint8_t buf[1400];
    reply_t r = {.server = A, .current = {5, 5}};
    size_t len = build(h, send_for(h, A, 0), &r, buf);
    mutate(h, buf, &len);
    if (m == UNMATCHED) {
        assert_int_equal(r_client_cancel_request(h->client, req), RCLIENT_OK);
    }
    h->now = T0 + 1;
    assert_int_equal(r_client_on_datagram(h->client, buf, len), want);
    if (m == MATCHED) {
        assert_int_equal(h->completions, 0);
        assert_true(r_client_request_deadline_ms(h->client, req) == T0 + 20);
        reply_t good = {.server = A, .current = {5, 5}, .nonce_seed = 3};
        assert_int_equal(deliver(h, send_for(h, A, 0), &good), RCLIENT_OK);
        expect_allow_from(h, A);
    } else {
        /* The next request behaves as if the datagram never came. */
        r_client_req_t *next = submit(h, NULL);
        assert_true(r_client_request_deadline_ms(h->client, next) == T0 + 21);
        reply_t good = {.server = A, .current = {5, 5}};
        assert_int_equal(deliver(h, send_for(h, A, 3), &good), RCLIENT_OK);
        expect_allow_from(h, A);
    }
    teardown(h);
}

static void cut_30(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)d; *len = 30; }      /* inside the tenant TLV */
static void cut_42(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)d; *len = 42; }      /* inside the auth header */
static void cut_76(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)d; *len = 76; }      /* AES: PDU header cut */
static void tenant_type(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[0] ^= 1; }
static void tenant_pad(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[OFF_TPAD] = 1; }
static void steering_2(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[OFF_STEERING] = 2; }
static void cookie_flip(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[44] ^= 0x80; }
static void tag_flip(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[60] ^= 1; }
/* An auth TLV type the key does not use (unknown type, its size kept). */
static void auth_other_type(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; st16(d + 40, 0x5858); }
/* The None type with the cookie TLV's size: None is always 4 bytes, malformed. */
static void auth_none_type(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; st16(d + 40, 0x414E); }
static void mgmt_1(host_t *h, uint8_t *d, size_t *len) { (void)h; (void)len; d[OFF_MGMT] = 1; }
/* Plaintext modes: the pdu_size field one below the bytes present. */
static void pdu_size_minus(host_t *h, uint8_t *d, size_t *len) {
    (void)len;
    uint8_t *pdu = d + TENANT_SIZE + auth_size(h);
    st16(pdu + 2, (uint16_t)(ld16(pdu + 2) - 1));
}
/* AES: decrypt, break the plaintext, re-seal with a valid tag. */
static void aes_reseal(host_t *h, uint8_t *d, size_t len, void (*edit)(uint8_t *pdu)) {
    assert_true(gcm(h, d, len, 0));
    edit(d + 72);
    assert_true(gcm(h, d, len, 1));
}
static void edit_pdu_size(uint8_t *pdu) { st16(pdu + 2, (uint16_t)(ld16(pdu + 2) + 4)); }
static void edit_reserved(uint8_t *pdu) { pdu[5] = 1; }
static void edit_counts_overrun(uint8_t *pdu) { st16(pdu + 10, 40); }
static void aes_pdu_size(host_t *h, uint8_t *d, size_t *len) { aes_reseal(h, d, *len, edit_pdu_size); }
static void aes_reserved(host_t *h, uint8_t *d, size_t *len) { aes_reseal(h, d, *len, edit_reserved); }
static void aes_counts(host_t *h, uint8_t *d, size_t *len) { aes_reseal(h, d, *len, edit_counts_overrun); }
/* AES: a trailing TLV of tlv_size 2 (below 4) after the blocks, tag valid. */
static void aes_short_tlv(host_t *h, uint8_t *d, size_t *len) {
    assert_true(gcm(h, d, *len, 0));
    uint8_t *pdu = d + 72;
    size_t blocks = PDU_FIXED + 2 * GUARD_SIZE + 2 * RESOURCE_SIZE;
    static const uint8_t tlv[4] = {0x53, 0x58, 2, 0};
    memcpy(pdu + blocks, tlv, 4);
    *len = 72 + blocks + 4;
    st16(pdu + 2, (uint16_t)(blocks + 4));
    assert_true(gcm(h, d, *len, 1));
}

#define CODE_TEST(name, mode, mutate, want)                                                   \
    static void test_##name##_matched(void **s) { (void)s; check_code(mode, MATCHED, mutate, want); } \
    static void test_##name##_unmatched(void **s) { (void)s; check_code(mode, UNMATCHED, mutate, want); }

CODE_TEST(cookie_cut_in_tenant, R_AUTH_COOKIE, cut_30, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_cut_in_auth, R_AUTH_COOKIE, cut_42, RCLIENT_ERR_PROTOCOL)
CODE_TEST(aes_cut_in_pdu_header, R_AUTH_AES, cut_76, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_tenant_type, R_AUTH_COOKIE, tenant_type, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_tenant_padding, R_AUTH_COOKIE, tenant_pad, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_steering_2, R_AUTH_COOKIE, steering_2, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_pdu_size, R_AUTH_COOKIE, pdu_size_minus, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_mismatch, R_AUTH_COOKIE, cookie_flip, RCLIENT_ERR_AUTH)
CODE_TEST(cookie_wrong_auth_type, R_AUTH_COOKIE, auth_other_type, RCLIENT_ERR_AUTH)
CODE_TEST(aes_wrong_auth_type, R_AUTH_AES, auth_other_type, RCLIENT_ERR_AUTH)
CODE_TEST(cookie_none_type_size_36, R_AUTH_COOKIE, auth_none_type, RCLIENT_ERR_PROTOCOL)
CODE_TEST(cookie_mgmt_flag, R_AUTH_COOKIE, mgmt_1, RCLIENT_OK)
CODE_TEST(aes_tag, R_AUTH_AES, tag_flip, RCLIENT_ERR_PROTOCOL)
CODE_TEST(aes_valid_tag_bad_pdu_size, R_AUTH_AES, aes_pdu_size, RCLIENT_ERR_PROTOCOL)
CODE_TEST(aes_valid_tag_reserved, R_AUTH_AES, aes_reserved, RCLIENT_ERR_PROTOCOL)
CODE_TEST(aes_valid_tag_counts_overrun, R_AUTH_AES, aes_counts, RCLIENT_ERR_PROTOCOL)
CODE_TEST(aes_valid_tag_short_tlv, R_AUTH_AES, aes_short_tlv, RCLIENT_ERR_PROTOCOL)

#define CODE_ENTRY(name) cmocka_unit_test(test_##name##_matched), cmocka_unit_test(test_##name##_unmatched)

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extra_trailing_tlvs_accepted_cookie),
        cmocka_unit_test(test_extra_trailing_tlvs_accepted_aes),
        cmocka_unit_test(test_omitted_tlvs_accepted_cookie),
        cmocka_unit_test(test_omitted_tlvs_accepted_aes),
        cmocka_unit_test(test_held_candidate_values_cookie),
        cmocka_unit_test(test_held_candidate_values_aes),
        cmocka_unit_test(test_guard_count_mismatch_cookie),
        cmocka_unit_test(test_guard_count_mismatch_aes),
        cmocka_unit_test(test_resource_count_mismatch_aes),
        cmocka_unit_test(test_duplicate_from_candidate_keeps_first_values),
        cmocka_unit_test(test_response_at_dedup_deadline_sends_nothing),
        cmocka_unit_test(test_late_timer_exactly_at_round_boundary),
        cmocka_unit_test(test_late_timer_far_beyond_dedup_deadline),
        cmocka_unit_test(test_late_timer_inside_last_round_then_final_boundaries),
        cmocka_unit_test(test_late_timer_exactly_at_final_start_sends_nothing),
        cmocka_unit_test(test_nested_delivery_from_completion_callback),
        CODE_ENTRY(cookie_cut_in_tenant),
        CODE_ENTRY(cookie_cut_in_auth),
        CODE_ENTRY(aes_cut_in_pdu_header),
        CODE_ENTRY(cookie_tenant_type),
        CODE_ENTRY(cookie_tenant_padding),
        CODE_ENTRY(cookie_steering_2),
        CODE_ENTRY(cookie_pdu_size),
        CODE_ENTRY(cookie_mismatch),
        CODE_ENTRY(cookie_wrong_auth_type),
        CODE_ENTRY(aes_wrong_auth_type),
        CODE_ENTRY(cookie_none_type_size_36),
        CODE_ENTRY(cookie_mgmt_flag),
        CODE_ENTRY(aes_tag),
        CODE_ENTRY(aes_valid_tag_bad_pdu_size),
        CODE_ENTRY(aes_valid_tag_reserved),
        CODE_ENTRY(aes_valid_tag_counts_overrun),
        CODE_ENTRY(aes_valid_tag_short_tlv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
