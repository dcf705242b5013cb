/* SPDX-License-Identifier: MIT */
/* bench_client.c - the client core through its public API with a fake host:
 * one server, 1 guard + 1 resource, submit then cancel, per auth mode; also
 * submit then answer (the oldest server's response completes the request).
 * Prints ns/op and heap allocations per request. Targets (issue "client
 * core"): <= 500 ns cookie, <= 1500 ns AES for submit+cancel; at most one
 * heap allocation per non-empty request.
 *
 * Memory per in-flight request: the heap bytes one submit requests (the
 * request's own allocation, and what malloc actually reserves for it), and
 * the submit cost with 16 and with 10,000 requests in flight (bytes/request
 * there is the first batch's, so it includes the in-flight table's growth).
 * Two 39-resource rows (the largest request that fits, api.md "Capacity
 * limits"), cookie auth:
 * - "submit+complete 39-resource": the full path, per iteration one submit of
 *   a 39-resource request and the oldest server's answer, which completes it
 *   (frame, look up, authenticate, parse, match, select, callback, free); the
 *   server's part (making the answer) is timed apart and left out, the two
 *   clock reads around it stay in;
 * - "on_datagram 39-resource duplicate": a repeat of one response that never
 *   completes the request. The request goes to two servers; the second (not
 *   the oldest) server's answer is delivered once to become the candidate,
 *   then again per iteration: each repeat is fully validated and matched, then
 *   ignored as a duplicate, so the row measures parse + match alone, not the
 *   completion.
 *
 * usage: bench_client [iterations]   (default 1000000) */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_le.h"
#include "rl_wire.h"



typedef struct {
    uint64_t now;
    uint8_t last[RL_MAX_DATAGRAM];
    size_t last_len;
    int done;
} host_t;

static int h_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)to;
    host_t *h = ctx;
    memcpy(h->last, data, len);
    h->last_len = len;
    return 0;
}
static uint64_t h_now(void *ctx) { return ((host_t *)ctx)->now; }
static void h_cb(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    (void)r;
    ((host_t *)user)->done++;
}


static const uint64_t SERVER_ID = 264543142129721ull;

static r_client_t *make_client(host_t *h, r_auth_type_t mode, rl_auth_t *server_auth) {
    r_auth_key_info_t info = {.type = mode, .key_id = 72623859790382856ull, .has_secret = mode != R_AUTH_NONE,
                              .quota_word = 0xf8f2b150u};
    memset(info.secret, mode == R_AUTH_NONE ? 0 : 0x42, 32);
    char key[160];
    if (rl_credential_encode(&info, key, sizeof key) < 0 ||
        rl_auth_init(server_auth, mode, mode == R_AUTH_NONE ? NULL : info.secret) != RCLIENT_OK) {
        fprintf(stderr, "bench_client: key setup failed\n");
        exit(1);
    }
    r_server_endpoint_t ep = {.server_id = SERVER_ID, .addr = {.family = R_ADDR_INET, .port = 29292}};
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = key;
    cfg.servers = &ep;
    cfg.server_count = 1;
    r_io_ops_t io = {.ctx = h, .udp_send = h_send, .now_ms = h_now}; /* default random source: RAND_bytes */
    r_client_t *c = NULL;
    if (r_client_create(&cfg, &io, NULL, &c) != RCLIENT_OK) {
        fprintf(stderr, "bench_client: create failed\n");
        exit(1);
    }
    return c;
}

/* The captured request as the server answers it (request modified in place). */
static size_t make_response(host_t *h, r_auth_type_t mode, rl_auth_t *server_auth, uint8_t *out) {
    memcpy(out, h->last, h->last_len);
    const char *why;
    if (rl_auth_open(server_auth, out, h->last_len, &why) != RCLIENT_OK) {
        fprintf(stderr, "bench_client: open failed: %s\n", why);
        exit(1);
    }
    size_t pdu = RL_TENANT_TLV_SIZE + rl_auth_tlv_size(mode);
    rl_store_u64(out + RL_TENANT_OFF_KEY_ID, SERVER_ID);
    rl_store_u16(out + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(out + pdu + 4, 0);
    uint8_t nonce[12] = {1};
    rl_auth_seal(server_auth, out, h->last_len, nonce);
    return h->last_len;
}

static void run_mode(r_auth_type_t mode, const char *name, long iters) {
    host_t h = {.now = 1767225600000ull};
    rl_auth_t server_auth;
    r_client_t *c = make_client(&h, mode, &server_auth);
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", 8, 1000, 100, res.bucket_id);
    r_latency_guard_t g = {.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                           .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5, g.latency_tracker_id);
    r_client_req_t *req;
    /* warm up the in-flight table */
    for (int i = 0; i < 1000; i++) {
        r_client_check_rate_limit_async(c, &res, 1, &g, 1, NULL, 0, h_cb, &h, &req);
        r_client_cancel_request(c, req);
    }
    unsigned long long a0 = g_allocs;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        if (r_client_check_rate_limit_async(c, &res, 1, &g, 1, NULL, 0, h_cb, &h, &req) != RCLIENT_OK) {
            fprintf(stderr, "bench_client: submit failed\n");
            exit(1);
        }
        r_client_cancel_request(c, req);
    }
    double ns = (now_ns() - t0) / (double)iters;
    printf("submit+cancel            %-7s %8.1f ns/op   heap allocations/request %.3f\n", name, ns,
           (double)(g_allocs - a0) / (double)iters);

    /* submit + the oldest server's response (selection, no completion delivery needed) */
    uint8_t resp[RL_MAX_DATAGRAM];
    long n2 = iters / 4 > 0 ? iters / 4 : 1;
    double total = 0;
    a0 = g_allocs;
    for (long i = 0; i < n2; i++) {
        double s = now_ns();
        r_client_check_rate_limit_async(c, &res, 1, &g, 1, NULL, 0, h_cb, &h, &req);
        double mid = now_ns();
        size_t len = make_response(&h, mode, &server_auth, resp); /* server side, not timed */
        double mid2 = now_ns();
        r_client_on_datagram(c, resp, len);
        total += (mid - s) + (now_ns() - mid2);
    }
    printf("submit+response+complete %-7s %8.1f ns/op   heap allocations/request %.3f (completed %d)\n", name,
           total / (double)n2, (double)(g_allocs - a0) / (double)n2, h.done);
    r_client_destroy(c);
    rl_auth_release(&server_auth);
}

#define MAX_INFLIGHT 10000

/* Submit `inflight` requests (timed), cancel them (not timed), `rounds` times. */
static double submit_batch(r_client_t *c, host_t *h, const r_resource_request_t *res, const r_latency_guard_t *g,
                           r_client_req_t **reqs, size_t inflight, long rounds, unsigned long long *bytes) {
    double total = 0;
    unsigned long long b0 = g_alloc_bytes;
    for (long k = 0; k < rounds; k++) {
        double t = now_ns();
        for (size_t i = 0; i < inflight; i++) {
            if (r_client_check_rate_limit_async(c, res, 1, g, 1, NULL, 0, h_cb, h, &reqs[i]) != RCLIENT_OK) {
                fprintf(stderr, "bench_client: submit failed\n");
                exit(1);
            }
        }
        total += now_ns() - t;
        for (size_t i = 0; i < inflight; i++) {
            r_client_cancel_request(c, reqs[i]);
        }
    }
    *bytes = g_alloc_bytes - b0;
    return total / ((double)rounds * (double)inflight);
}

static void run_inflight(r_auth_type_t mode, const char *name, long iters) {
    host_t h = {.now = 1767225600000ull};
    rl_auth_t server_auth;
    r_client_t *c = make_client(&h, mode, &server_auth);
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", 8, 1000, 100, res.bucket_id);
    r_latency_guard_t g = {.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                           .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5, g.latency_tracker_id);
    r_client_req_t **reqs = malloc(MAX_INFLIGHT * sizeof *reqs);
    if (reqs == NULL) {
        fprintf(stderr, "bench_client: out of memory\n");
        exit(1);
    }
    /* Grow the in-flight table to its 10,000-request size first, so the
     * single-request figure is the request's own allocation only. */
    unsigned long long bytes = 0;
    submit_batch(c, &h, &res, &g, reqs, MAX_INFLIGHT, 1, &bytes);
    unsigned long long b0 = g_alloc_bytes;
    r_client_req_t *one = NULL;
    r_client_check_rate_limit_async(c, &res, 1, &g, 1, NULL, 0, h_cb, &h, &one);
    unsigned long long own = g_alloc_bytes - b0;
    size_t usable = malloc_usable_size(one);
    r_client_cancel_request(c, one);
    printf("in-flight memory         %-7s %8llu bytes/request requested, %zu reserved by malloc\n", name, own,
           usable);
    r_client_destroy(c);
    rl_auth_release(&server_auth);

    /* Fresh clients, so the first batch counts the table's growth. */
    const size_t sizes[2] = {16, MAX_INFLIGHT};
    double ns[2];
    for (int k = 0; k < 2; k++) {
        c = make_client(&h, mode, &server_auth);
        long rounds = iters / (long)sizes[k] > 0 ? iters / (long)sizes[k] : 1;
        submit_batch(c, &h, &res, &g, reqs, sizes[k], 1, &bytes); /* first batch: grows the table */
        unsigned long long steady = 0;
        ns[k] = submit_batch(c, &h, &res, &g, reqs, sizes[k], rounds, &steady);
        printf("submit, %5zu in flight  %-7s %8.1f ns/op   heap bytes/request %.1f (first batch, with table)\n",
               sizes[k], name, ns[k], (double)bytes / (double)sizes[k]);
        r_client_destroy(c);
        rl_auth_release(&server_auth);
    }
    printf("submit cost growth 16 -> 10,000 in flight %-7s %+.0f %%\n", name, 100.0 * (ns[1] / ns[0] - 1.0));
    free(reqs);
}

#define MATCH_RESOURCES 39

/* r_client_on_datagram on a 39-resource cookie response (see the header). */
static void run_match39(long iters) {
    host_t h = {.now = 1767225600000ull};
    r_auth_key_info_t info = {.type = R_AUTH_COOKIE, .key_id = 72623859790382856ull, .has_secret = true,
                              .quota_word = 0xf8f2b150u};
    memset(info.secret, 0x42, 32);
    char key[160];
    rl_auth_t server_auth;
    if (rl_credential_encode(&info, key, sizeof key) < 0 ||
        rl_auth_init(&server_auth, R_AUTH_COOKIE, info.secret) != RCLIENT_OK) {
        fprintf(stderr, "bench_client: key setup failed\n");
        exit(1);
    }
    const uint64_t second = SERVER_ID + 1; /* same start time, node 1 higher: ranked after SERVER_ID */
    r_server_endpoint_t eps[2] = {{.server_id = SERVER_ID, .addr = {.family = R_ADDR_INET, .port = 29292}},
                                  {.server_id = second, .addr = {.family = R_ADDR_INET, .port = 29293}}};
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = key;
    cfg.servers = eps;
    cfg.server_count = 2;
    r_io_ops_t io = {.ctx = &h, .udp_send = h_send, .now_ms = h_now};
    r_client_t *c = NULL;
    if (r_client_create(&cfg, &io, NULL, &c) != RCLIENT_OK) {
        fprintf(stderr, "bench_client: create failed\n");
        exit(1);
    }
    r_resource_request_t res[MATCH_RESOURCES];
    for (int i = 0; i < MATCH_RESOURCES; i++) {
        char name[16];
        int n = snprintf(name, sizeof name, "bucket-%02d", i);
        res[i] = (r_resource_request_t){.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
        r_client_derive_bucket_id(name, (size_t)n, 1000, 100, res[i].bucket_id);
    }
    r_client_req_t *req = NULL;
    if (r_client_check_rate_limit_async(c, res, MATCH_RESOURCES, NULL, 0, NULL, 0, h_cb, &h, &req) !=
        RCLIENT_OK) {
        fprintf(stderr, "bench_client: 39-resource submit failed\n");
        exit(1);
    }
    uint8_t resp[RL_MAX_DATAGRAM];
    size_t pdu = RL_TENANT_TLV_SIZE + rl_auth_tlv_size(R_AUTH_COOKIE);
    memcpy(resp, h.last, h.last_len);
    rl_store_u64(resp + RL_TENANT_OFF_KEY_ID, second);
    rl_store_u16(resp + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(resp + pdu + 4, 0);
    size_t len = h.last_len;
    int rc = r_client_on_datagram(c, resp, len); /* becomes the candidate */
    long accepted = 0;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        accepted += r_client_on_datagram(c, resp, len) == RCLIENT_OK;
    }
    double ns = (now_ns() - t0) / (double)iters;
    printf("on_datagram 39-resource duplicate (cookie, no completion) %8.1f ns/response (%zu bytes, first rc %d, %ld/%ld ok, "
           "completed %d)\n",
           ns, len, rc, accepted, iters, h.done);
    r_client_destroy(c);
    rl_auth_release(&server_auth);
}

/* One 39-resource cookie request submitted and completed by the oldest server's answer, per iteration. */
static void run_full39(long iters) {
    host_t h = {.now = 1767225600000ull};
    rl_auth_t server_auth;
    r_client_t *c = make_client(&h, R_AUTH_COOKIE, &server_auth);
    r_resource_request_t res[MATCH_RESOURCES];
    for (int i = 0; i < MATCH_RESOURCES; i++) {
        char name[16];
        int n = snprintf(name, sizeof name, "bucket-%02d", i);
        res[i] = (r_resource_request_t){.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
        r_client_derive_bucket_id(name, (size_t)n, 1000, 100, res[i].bucket_id);
    }
    uint8_t resp[RL_MAX_DATAGRAM];
    r_client_req_t *req = NULL;
    double t_resp = 0;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        if (r_client_check_rate_limit_async(c, res, MATCH_RESOURCES, NULL, 0, NULL, 0, h_cb, &h, &req) !=
            RCLIENT_OK) {
            fprintf(stderr, "bench_client: 39-resource submit failed\n");
            exit(1);
        }
        double t1 = now_ns();
        size_t len = make_response(&h, R_AUTH_COOKIE, &server_auth, resp); /* the server's part, not timed */
        double t2 = now_ns();
        t_resp += t2 - t1;
        (void)r_client_on_datagram(c, resp, len);
    }
    double ns = (now_ns() - t0 - t_resp) / (double)iters;
    printf("submit+complete 39-resource (cookie)  %8.1f ns/request (completed %d of %ld)\n", ns, h.done, iters);
    r_client_destroy(c);
    rl_auth_release(&server_auth);
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    if (iters <= 0) {
        fprintf(stderr, "usage: bench_client [iterations > 0]\n");
        return 2;
    }
    printf("bench_client: %ld iterations, one server, 1 guard + 1 resource, public API\n", iters);
    run_mode(R_AUTH_NONE, "none", iters);
    run_mode(R_AUTH_COOKIE, "cookie", iters);
    run_mode(R_AUTH_AES, "aes", iters);
    run_inflight(R_AUTH_NONE, "none", iters);
    run_inflight(R_AUTH_COOKIE, "cookie", iters);
    run_inflight(R_AUTH_AES, "aes", iters);
    run_full39(iters);
    run_match39(iters);
    printf("targets: submit+cancel <= 500 ns cookie, <= 1500 ns aes; <= 1 heap allocation per request\n");
    return 0;
}
