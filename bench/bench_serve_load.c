/* SPDX-License-Identifier: MIT */
/* bench_serve_load.c - throughput of `rl-testbed serve` on loopback: N rate
 * requests encoded by the client core (captured from its udp_send hook, each
 * with its own unique_id), sent with sendmmsg keeping W requests in flight,
 * replies read with recvmmsg. Prints replies/s, and the requests given up
 * (a window with no reply for 10 ms counts as lost).
 *
 * usage: bench_serve_load CREDENTIAL SERVER_ID@IPV4:PORT [N [W]]
 *        (N default 50000, W default 256; start serve first, e.g.
 *        rl-testbed serve --tenant CREDENTIAL --server port=0) */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r_client.h"

#define BATCH 64

typedef struct {
    uint8_t (*dgram)[R_CLIENT_MAX_DATAGRAM];
    uint16_t *len;
    size_t n;
} capture_t;

static int capture_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)to;
    capture_t *c = ctx;
    memcpy(c->dgram[c->n], data, len);
    c->len[c->n++] = (uint16_t)len;
    return 0;
}

static uint64_t now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static double mono_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req, (void)r, (void)user;
}

int main(int argc, char **argv) {
    unsigned long long id;
    char ip[64];
    unsigned port;
    if (argc < 3 || sscanf(argv[2], "%llu@%63[0-9.]:%u", &id, ip, &port) != 3) {
        fprintf(stderr, "usage: bench_serve_load CREDENTIAL SERVER_ID@IPV4:PORT [N [W]]\n");
        return 64;
    }
    size_t n = argc > 3 ? strtoul(argv[3], NULL, 10) : 50000;
    size_t window = argc > 4 ? strtoul(argv[4], NULL, 10) : 256;
    capture_t cap = {calloc(n, sizeof *cap.dgram), calloc(n, sizeof *cap.len), 0};
    r_server_endpoint_t server = {.server_id = id, .addr = {.family = R_ADDR_INET, .port = (uint16_t)port}};
    inet_pton(AF_INET, ip, server.addr.addr);
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = argv[1];
    cfg.servers = &server;
    cfg.server_count = 1;
    r_io_ops_t io = {.ctx = &cap, .udp_send = capture_send, .now_ms = now_ms};
    r_client_t *client = NULL;
    if (cap.dgram == NULL || r_client_create(&cfg, &io, NULL, &client) != RCLIENT_OK) {
        fprintf(stderr, "bench_serve_load: setup failed\n");
        return 1;
    }
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 1000000, .tokens_requested = 1};
    r_client_derive_bucket_id("bench", 5, res.window_size_ms, res.rate_limit, res.bucket_id);
    while (cap.n < n) { /* encode only: each submit is cancelled once its datagram is captured */
        r_client_req_t *req = NULL;
        if (r_client_check_rate_limit_async(client, &res, 1, NULL, 0, NULL, 0, on_result, NULL, &req) != RCLIENT_OK) {
            fprintf(stderr, "bench_serve_load: submit failed\n");
            return 1;
        }
        r_client_cancel_request(client, req);
    }
    r_client_destroy(client);

    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    int rcvbuf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    memcpy(&to.sin_addr, server.addr.addr, 4);
    connect(fd, (struct sockaddr *)&to, sizeof to);
    struct mmsghdr msg[BATCH];
    struct iovec iov[BATCH];
    static uint8_t rbuf[BATCH][1500];
    size_t sent = 0, received = 0, lost = 0, syscalls = 0;
    double t0 = mono_s(), last_progress = t0;
    while (received + lost < n && mono_s() - last_progress < 0.5) { /* stop when replies stop coming */
        size_t out = sent - received - lost;
        size_t room = out < window ? window - out : 0;
        size_t k = room < BATCH ? room : BATCH;
        k = k < n - sent ? k : n - sent;
        for (size_t i = 0; i < k; i++) {
            iov[i] = (struct iovec){cap.dgram[sent + i], cap.len[sent + i]};
            msg[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
        }
        if (k > 0) {
            int m = sendmmsg(fd, msg, (unsigned)k, 0);
            syscalls++;
            sent += m > 0 ? (size_t)m : 0;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10) > 0) {
            for (size_t i = 0; i < BATCH; i++) {
                iov[i] = (struct iovec){rbuf[i], sizeof rbuf[i]};
                msg[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
            }
            int m = recvmmsg(fd, msg, BATCH, MSG_DONTWAIT, NULL);
            syscalls++;
            if (m > 0) {
                received += (size_t)m;
                last_progress = mono_s();
            }
        } else if (sent - received - lost >= window) {
            lost = sent - received; /* 10 ms without a reply: count the window lost, refill it */
        }
    }
    double secs = last_progress - t0;
    printf("bench_serve_load: %zu requests sent, %zu replies, %zu given up in %.3f s: %.0f replies/s, "
           "window %zu, %.2f client syscalls per request\n",
           sent, received, lost, secs, (double)received / secs, window, (double)syscalls / (double)sent);
    free(cap.dgram);
    free(cap.len);
    close(fd);
    return 0;
}
