/* SPDX-License-Identifier: MIT */
/* guide_snippets.c - the code blocks of docs/api-guide.md, as real code: each
 * region between "guide:NAME" and "end guide:NAME" is, once dedented, exactly
 * the block the guide shows (CTest docs_api_guide_snippets compares them). It
 * is compiled in CI (target guide_snippets, -Werror), against the build tree
 * and, in scripts/check-install.sh, against an installed prefix through
 * `pkg-config --cflags --libs rclient_runtime` (docs/api-guide.md "Linking").
 * The host hooks are those of examples/event_loop.c, the program the guide
 * walks through; run with no argument it only prints the snippets it holds. */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <openssl/crypto.h>

#include "r_client.h"
#include "r_client_runtime.h"
#include "r_client_workflow.h"

typedef struct {
    int fd;
    int done;
    int status;
    int success;
} host_t;

static int host_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)ctx, (void)to, (void)data, (void)len;
    return -1; /* examples/event_loop.c sends with sendto() */
}

static uint64_t host_now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void host_log(void *ctx, r_log_level_t level, const char *msg) {
    (void)ctx;
    fprintf(stderr, "rclient[%d]: %s\n", (int)level, msg);
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    host_t *h = user;
    h->done = 1;
    h->status = r->status;
    h->success = r->success;
}

static void on_admission(r_admission_request_t *adm, const r_admission_outcome_t *outcome, void *user) {
    (void)adm;
    host_t *h = user;
    h->done = 1;
    h->success = outcome->allowed;
}

int guide_poll_loop(const char *credential, const r_server_endpoint_t *servers, size_t n, int fd);
int guide_poll_loop(const char *credential, const r_server_endpoint_t *servers, size_t n, int fd) {
    /* guide:poll-loop */
    /* 1. hooks: the only I/O the core ever does */
    host_t host = {.fd = fd};
    r_io_ops_t io = {.ctx = &host, .udp_send = host_send, .now_ms = host_now_ms, .log = host_log};

    /* 2. configuration: the Bech32 credential text, servers (or DNS), policy */
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = credential;      /* copied and decoded during create */
    cfg.servers = servers;                    /* or leave NULL and pass resolver hooks */
    cfg.server_count = n;
    r_client_t *client;
    int rc = r_client_create(&cfg, &io, NULL, &client);
    if (rc != RCLIENT_OK) return rc;

    /* 3. what to ask: IDs derived from the names and settings (content-defined) */
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", strlen("checkout"), res.window_size_ms, res.rate_limit, res.bucket_id);
    r_latency_guard_t guard = {.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                               .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("inventory-backend", strlen("inventory-backend"), guard.ttl_ms,
                                       guard.max_samples, guard.buffer_size, guard.min_sample_threshold,
                                       guard.latency_tracker_id);

    /* 4. submit: the callback fires later from on_datagram/on_timeout */
    r_client_req_t *req = NULL;
    rc = r_client_check_rate_limit_async(client, &res, 1, &guard, 1, "label", 0, on_result, &host, &req);

    /* 5. loop: datagrams first (a bounded batch), then the deadline, re-queried every time */
    while (rc == RCLIENT_OK && !host.done) {
        uint64_t now = host_now_ms(NULL), deadline = r_client_request_deadline_ms(client, req);
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        poll(&pfd, 1, deadline > now ? (int)(deadline - now) : 0);
        uint8_t buf[1500];
        ssize_t len;
        for (int i = 0; i < 16 && !host.done && (len = recv(fd, buf, sizeof buf, MSG_DONTWAIT)) >= 0; i++) {
            r_client_on_datagram(client, buf, (size_t)len);
            OPENSSL_cleanse(buf, (size_t)len); /* a cookie datagram carries the cookie */
        }
        if (!host.done) r_client_on_timeout(client, req, host_now_ms(NULL));
    }
    r_client_destroy(client);
    return rc != RCLIENT_OK ? rc : host.status;
    /* end guide:poll-loop */
}

int guide_admission(r_client_t *client, host_t *host, r_admission_request_t *adm);
int guide_admission(r_client_t *client, host_t *host, r_admission_request_t *adm) {
    /* guide:admission */
    r_admission_config_t ac;
    r_client_admission_config_defaults(&ac);
    ac.bucket_name = "checkout";
    ac.latency_tracker_name = "inventory-backend";
    ac.metrics_label = "web";
    *adm = (r_admission_request_t){0}; /* yours: zeroed, alive and unmoved until the callback or cancel */
    int rc = r_client_admission_start(client, &ac, adm, on_admission, host);
    /* received datagrams still go to r_client_on_datagram(client, ...); drive
     * r_client_admission_deadline_ms(adm) and r_client_admission_on_timeout(adm, now) like a request */
    return rc;
    /* end guide:admission */
}

int guide_runtime(void);
int guide_runtime(void) {
    /* guide:runtime */
    r_runtime_options_t o;
    int rc = r_runtime_options_from_env(&o);  /* RCLIENT_ERR_CONFIG: a bad variable */
    if (rc != RCLIENT_OK) return rc;
    o.dns_server = "127.0.0.1:5353";          /* optional: ask this DNS server (tests, staging) */
    r_runtime_client_t *rt;
    rc = r_runtime_client_create(&o, &rt);    /* first discovery runs here, synchronously */
    if (rc != RCLIENT_OK) return rc;
    r_client_t *c = r_runtime_client_handle(rt);

    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("api", 3, res.window_size_ms, res.rate_limit, res.bucket_id);
    host_t state = {0};
    r_client_req_t *req = NULL;
    rc = r_client_check_rate_limit_async(c, &res, 1, NULL, 0, "label", 0, on_result, &state, &req);
    while (rc == RCLIENT_OK && !state.done) { /* poll every runtime socket; re-read the set each turn */
        uint64_t delay;
        r_runtime_request_delay_ms(rt, req, &delay);
        struct pollfd fds[8];
        size_t n = r_runtime_socket_count(rt);
        for (size_t i = 0; i < n && i < 8; i++) fds[i] = (struct pollfd){.fd = r_runtime_socket_at(rt, i), .events = POLLIN};
        poll(fds, n < 8 ? n : 8, (int)delay);
        for (size_t i = 0; i < n && i < 8 && !state.done; i++) {
            if (fds[i].revents & POLLIN) r_runtime_client_on_readable(rt, fds[i].fd);
        }
        if (!state.done) r_runtime_request_on_timeout(rt, req);
    }
    r_runtime_client_destroy(rt);
    return rc != RCLIENT_OK ? rc : state.status;
    /* end guide:runtime */
}

int main(void) {
    /* Compiled and linked is the test; the snippets need servers to run (examples/event_loop.c). */
    printf("guide_snippets: poll-loop, admission, runtime\n");
    return 0;
}
