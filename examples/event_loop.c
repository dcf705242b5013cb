/* SPDX-License-Identifier: MIT */
/* event_loop.c - a minimal, complete embedding of the sans-IO client core in
 * a poll() event loop (docs/api-guide.md). The host owns the UDP socket, the
 * clock and the timer; the core owns packets, policy and selection.
 *
 * usage: event_loop [-u UNIT_MS] CREDENTIAL SERVER_ID@IPV4:PORT [...]
 * Sends one request (bucket "checkout", 1000 ms window, limit 100, 1 token;
 * guard "inventory-backend" < 100 ms) to the given servers and prints the
 * decision. -u sets the request policy's unit U (default: r-client.md 9.3.5,
 * 20 ms, so a 60 ms horizon); the key's dedup_ttl_ms_max must cover 3 U.
 * Exit 0 allowed, 1 denied, 2 failed, 64 usage. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "r_client.h"

typedef struct {
    int fd;
    int done;               /* set by the completion callback */
    int status;
    int success;
    uint64_t server_id;
} host_t;

/* ---- host hooks ------------------------------------------------------------ */
static int host_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    host_t *h = ctx;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(to->port);
    memcpy(&sa.sin_addr, to->addr, 4);
    return sendto(h->fd, data, len, 0, (struct sockaddr *)&sa, sizeof sa) == (ssize_t)len ? 0 : -1;
}

static uint64_t host_now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* Unix-epoch ms: the one clock domain of deadlines */
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void host_log(void *ctx, r_log_level_t level, const char *msg) {
    (void)ctx;
    fprintf(stderr, "rclient[%d]: %s\n", (int)level, msg);
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req; /* invalid after this callback returns */
    host_t *h = user;
    h->done = 1;
    h->status = r->status;
    h->success = r->success;
    h->server_id = r->server_id;
}

static int parse_server(const char *spec, r_server_endpoint_t *out) {
    char ip[64];
    unsigned long long id;
    unsigned port;
    if (sscanf(spec, "%llu@%63[0-9.]:%u", &id, ip, &port) != 3 || port == 0 || port > 65535) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->server_id = id;
    out->addr.family = R_ADDR_INET;
    out->addr.port = (uint16_t)port;
    return inet_pton(AF_INET, ip, out->addr.addr) == 1 ? 0 : -1;
}

/* ---- the loop: deliver datagrams, then deadlines ---------------------------- */

/* A bounded batch of readable datagrams, delivered before a simultaneous
 * deadline (r-client.md 9.3.3). A cookie-mode datagram carries the cookie in
 * its auth TLV (wire_protocol.md "Auth Header"), so each one is wiped from
 * this stack buffer as soon as the core has seen it. */
static void deliver_readable(r_client_t *client, host_t *h) {
    uint8_t buf[1500];
    for (int i = 0; i < 16 && !h->done; i++) {
        ssize_t len = recv(h->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (len < 0) {
            break;
        }
        (void)r_client_on_datagram(client, buf, (size_t)len); /* non-OK codes are noise counters */
        OPENSSL_cleanse(buf, (size_t)len);
    }
}

static void run(r_client_t *client, host_t *h, r_client_req_t *req) {
    while (!h->done) {
        uint64_t now = host_now_ms(NULL);
        uint64_t deadline = r_client_request_deadline_ms(client, req);
        int timeout = deadline > now ? (int)(deadline - now) : 0;
        struct pollfd p = {.fd = h->fd, .events = POLLIN};
        int n = poll(&p, 1, timeout);
        if (n < 0 && errno != EINTR) {
            perror("poll");
            r_client_cancel_request(client, req); /* no callback will fire */
            h->done = 1;
            h->status = RCLIENT_ERR_IO;
            break;
        }
        if (p.revents & POLLIN) {
            deliver_readable(client, h);
        }
        if (!h->done) {
            /* Re-query: a valid non-oldest response can move the deadline earlier. */
            r_client_on_timeout(client, req, host_now_ms(NULL));
        }
    }
}

#ifndef EVENT_LOOP_NO_MAIN /* examples/test_event_loop_wipe.c includes this file */
int main(int argc, char **argv) {
    r_request_policy_t policy;
    r_client_default_request_policy(&policy);
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "-u") == 0) {
        policy.unit_ms = (uint32_t)strtoul(argv[a + 1], NULL, 10);
        a += 2;
    }
    if (argc - a < 2 || policy.unit_ms == 0) {
        fprintf(stderr, "usage: %s [-u UNIT_MS] CREDENTIAL SERVER_ID@IPV4:PORT [...]\n", argv[0]);
        return 64;
    }
    r_server_endpoint_t servers[8];
    size_t n_servers = 0;
    if (argc - a - 1 > 8) {
        fprintf(stderr, "event_loop: at most 8 servers\n");
        return 64;
    }
    for (int i = a + 1; i < argc; i++) {
        if (parse_server(argv[i], &servers[n_servers++]) != 0) {
            fprintf(stderr, "event_loop: bad server \"%s\" (want SERVER_ID@IPV4:PORT)\n", argv[i]);
            return 64;
        }
    }
    host_t h = {.fd = socket(AF_INET, SOCK_DGRAM, 0)};
    if (h.fd < 0) {
        perror("socket");
        return 2;
    }
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = argv[a];
    cfg.servers = servers;
    cfg.server_count = n_servers;
    cfg.request_policy = &policy;
    r_io_ops_t io = {.ctx = &h, .udp_send = host_send, .now_ms = host_now_ms, .log = host_log};
    r_client_t *client = NULL;
    int rc = r_client_create(&cfg, &io, NULL, &client);
    if (rc != RCLIENT_OK) {
        fprintf(stderr, "event_loop: r_client_create: %s\n", r_client_strerror(rc));
        close(h.fd);
        return 2;
    }

    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", strlen("checkout"), res.window_size_ms, res.rate_limit, res.bucket_id);
    r_latency_guard_t guard = {.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                               .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("inventory-backend", strlen("inventory-backend"), guard.ttl_ms,
                                       guard.max_samples, guard.buffer_size, guard.min_sample_threshold,
                                       guard.latency_tracker_id);

    r_client_req_t *req = NULL;
    rc = r_client_check_rate_limit_async(client, &res, 1, &guard, 1, "example", 0, on_result, &h, &req);
    if (rc == RCLIENT_OK && req != NULL) {
        run(client, &h, req);
    } else if (rc != RCLIENT_OK) {
        h.done = 1;
        h.status = rc;
    }
    int exit_code;
    if (h.status == RCLIENT_OK) {
        printf("%s by server %" PRIu64 "\n", h.success ? "allowed" : "denied", h.server_id);
        exit_code = h.success ? 0 : 1;
    } else {
        printf("failed: %s\n", r_client_strerror(h.status));
        exit_code = 2;
    }
    r_client_destroy(client);
    close(h.fd);
    return exit_code;
}
#endif
