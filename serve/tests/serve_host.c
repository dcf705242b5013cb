/* SPDX-License-Identifier: MIT */
/* serve_host.c - a test host for the loopback tests of `rl-testbed serve`:
 * the client core through its public API (r_client.h) on real IPv4 and IPv6
 * UDP sockets, like examples/event_loop.c, with switches that misbehave on
 * the wire so the server's handling of them can be checked.
 *
 * usage: serve_host [--count N] [--bucket NAME] [--window MS] [--limit N]
 *                   [--tokens N] [--dup] [--truncations]
 *                   CREDENTIAL SERVER_ID@ADDR:PORT [...]
 * ADDR is IPv4 (127.0.0.1) or IPv6 in brackets ([::1]). Sends N requests one
 * after another and prints one line each: "allowed by server ID", "denied by
 * server ID" or "failed: RCLIENT_ERR_...". --dup sends every datagram twice
 * (the server must replay the first answer for the repeated unique_id);
 * --truncations first sends every proper prefix of each datagram.
 * The policy is r-client.md 9.3.5's default with unit_ms 100 instead of 20
 * (H = 300 ms, the test keys' dedup_ttl_ms_max): room for a loaded machine
 * or a sanitizer build without changing the rounds.
 * Exit 0 when every request got a decision, 1 when one failed, 64 usage. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r_client.h"

#define MAX_SERVERS 8

typedef struct {
    int fd4, fd6;
    bool dup, truncations;
    bool done;
    int status;
    bool success;
    uint64_t server_id;
} host_t;

static int send_one(host_t *h, const r_addr_t *to, const uint8_t *data, size_t len) {
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    int fd;
    if (to->family == R_ADDR_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(to->port);
        memcpy(&a->sin6_addr, to->addr, 16);
        sl = sizeof *a;
        fd = h->fd6;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(to->port);
        memcpy(&a->sin_addr, to->addr, 4);
        sl = sizeof *a;
        fd = h->fd4;
    }
    return sendto(fd, data, len, 0, (struct sockaddr *)&ss, sl) == (ssize_t)len ? 0 : -1;
}

static int host_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    host_t *h = ctx;
    for (size_t n = 0; h->truncations && n < len; n++) {
        (void)send_one(h, to, data, n);
    }
    int rc = send_one(h, to, data, len);
    if (rc == 0 && h->dup) {
        rc = send_one(h, to, data, len);
    }
    return rc;
}

static uint64_t host_now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    host_t *h = user;
    h->done = true;
    h->status = r->status;
    h->success = r->success;
    h->server_id = r->server_id;
}

static int parse_server(const char *spec, r_server_endpoint_t *out) {
    unsigned long long id;
    char rest[96];
    if (sscanf(spec, "%llu@%95s", &id, rest) != 2) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->server_id = id;
    char *colon = strrchr(rest, ':');
    if (colon == NULL) {
        return -1;
    }
    *colon = '\0';
    char *end = NULL;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || port == 0 || port > 65535) {
        return -1;
    }
    out->addr.port = (uint16_t)port;
    if (rest[0] == '[' && rest[strlen(rest) - 1] == ']') {
        rest[strlen(rest) - 1] = '\0';
        out->addr.family = R_ADDR_INET6;
        return inet_pton(AF_INET6, rest + 1, out->addr.addr) == 1 ? 0 : -1;
    }
    out->addr.family = R_ADDR_INET;
    return inet_pton(AF_INET, rest, out->addr.addr) == 1 ? 0 : -1;
}

static void drain(r_client_t *client, int fd) {
    for (int i = 0; i < 64; i++) {
        uint8_t buf[1500];
        ssize_t len = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (len < 0) {
            return;
        }
        (void)r_client_on_datagram(client, buf, (size_t)len);
    }
}

static void run(r_client_t *client, host_t *h, r_client_req_t *req) {
    while (!h->done) {
        uint64_t now = host_now_ms(NULL);
        uint64_t deadline = r_client_request_deadline_ms(client, req);
        struct pollfd p[2] = {{.fd = h->fd4, .events = POLLIN}, {.fd = h->fd6, .events = POLLIN}};
        int n = poll(p, 2, deadline > now ? (int)(deadline - now) : 0);
        if (n < 0 && errno != EINTR) {
            r_client_cancel_request(client, req);
            h->done = true;
            h->status = RCLIENT_ERR_IO;
            break;
        }
        drain(client, h->fd4);
        if (!h->done) {
            drain(client, h->fd6);
        }
        if (!h->done) {
            r_client_on_timeout(client, req, host_now_ms(NULL));
        }
    }
}

static int usage(void) {
    fputs("usage: serve_host [--count N] [--bucket NAME] [--window MS] [--limit N] [--tokens N] [--dup]\n"
          "                  [--truncations] CREDENTIAL SERVER_ID@ADDR:PORT [...]\n",
          stderr);
    return 64;
}

int main(int argc, char **argv) {
    host_t h = {.fd4 = -1, .fd6 = -1};
    unsigned long count = 1, window = 1000, limit = 100, tokens = 1;
    const char *bucket = "checkout";
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        unsigned long *num = NULL;
        if (strcmp(argv[i], "--dup") == 0) {
            h.dup = true;
        } else if (strcmp(argv[i], "--truncations") == 0) {
            h.truncations = true;
        } else if (i + 1 < argc && strcmp(argv[i], "--bucket") == 0) {
            bucket = argv[++i];
        } else if (strcmp(argv[i], "--count") == 0) {
            num = &count;
        } else if (strcmp(argv[i], "--window") == 0) {
            num = &window;
        } else if (strcmp(argv[i], "--limit") == 0) {
            num = &limit;
        } else if (strcmp(argv[i], "--tokens") == 0) {
            num = &tokens;
        } else {
            return usage();
        }
        if (num != NULL && (i + 1 >= argc || (*num = strtoul(argv[++i], NULL, 10)) == 0)) {
            return usage();
        }
    }
    if (argc - i < 2 || argc - i - 1 > MAX_SERVERS) {
        return usage();
    }
    const char *credential = argv[i++];
    r_server_endpoint_t servers[MAX_SERVERS];
    size_t n_servers = 0;
    for (; i < argc; i++) {
        if (parse_server(argv[i], &servers[n_servers++]) != 0) {
            fprintf(stderr, "serve_host: bad server '%s'\n", argv[i]);
            return 64;
        }
    }
    h.fd4 = socket(AF_INET, SOCK_DGRAM, 0);
    h.fd6 = socket(AF_INET6, SOCK_DGRAM, 0);
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = credential;
    cfg.servers = servers;
    cfg.server_count = n_servers;
    r_request_policy_t policy;
    r_client_default_request_policy(&policy);
    policy.unit_ms = 100;
    cfg.request_policy = &policy;
    r_io_ops_t io = {.ctx = &h, .udp_send = host_send, .now_ms = host_now_ms};
    r_client_t *client = NULL;
    int rc = r_client_create(&cfg, &io, NULL, &client);
    if (rc != RCLIENT_OK || h.fd4 < 0 || h.fd6 < 0) {
        fprintf(stderr, "serve_host: setup failed: %s\n", r_client_strerror(rc));
        return 1;
    }
    r_resource_request_t res = {.window_size_ms = (uint32_t)window, .rate_limit = (uint32_t)limit,
                                .tokens_requested = (uint16_t)tokens};
    r_client_derive_bucket_id(bucket, strlen(bucket), res.window_size_ms, res.rate_limit, res.bucket_id);
    int exit_code = 0;
    for (unsigned long k = 0; k < count; k++) {
        h.done = false;
        r_client_req_t *req = NULL;
        rc = r_client_check_rate_limit_async(client, &res, 1, NULL, 0, "serve-test", 0, on_result, &h, &req);
        if (rc == RCLIENT_OK) {
            run(client, &h, req);
        } else {
            h.status = rc;
        }
        if (h.status == RCLIENT_OK) {
            printf("%s by server %" PRIu64 "\n", h.success ? "allowed" : "denied", h.server_id);
        } else {
            printf("failed: %s\n", r_client_strerror(h.status));
            exit_code = 1;
        }
        fflush(stdout);
    }
    r_client_destroy(client);
    close(h.fd4);
    close(h.fd6);
    return exit_code;
}
