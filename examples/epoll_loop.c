/* SPDX-License-Identifier: MIT */
/* epoll_loop.c - the sans-IO client core embedded in a Linux epoll loop
 * (docs/api-guide.md), with several requests in flight at once: the host owns
 * an IPv4 and an IPv6 UDP socket, one timerfd armed at the earliest request
 * deadline, and the source-port rebind the core asks for when a server sends
 * steering_feedback = 0 (r-client.md 6.1: the new socket is open and
 * registered before the old one closes; a failed rebind keeps the old one).
 *
 * usage: epoll_loop [-n N] [-u UNIT_MS] CREDENTIAL SERVER_ID@ADDR:PORT [...]
 * ADDR is IPv4 (127.0.0.1) or bracketed IPv6 ([::1]). -u sets the request
 * policy's unit U (default: r-client.md 9.3.5, 20 ms, a 60 ms horizon; the
 * key's dedup_ttl_ms_max must cover 3 U). Submits N requests
 * (default 3; bucket "checkout", 1000 ms window, limit 100, 1 token) at once,
 * prints "request K: allowed by server ID" / "denied by ..." / "failed: ERR"
 * as each completes, then "rebinds: R". Exit 0 when every request got a
 * decision, 2 when one failed, 64 usage. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "r_client.h"

#define MAX_REQUESTS 64
#define MAX_SERVERS 8

typedef struct {
    r_client_req_t *req;   /* NULL once completed (the handle is then invalid) */
    int status;
    bool success;
    uint64_t server_id;
} slot_t;

typedef struct {
    int ep, timer, fd4, fd6;
    bool rebind_wanted;
    unsigned rebinds;
    slot_t slots[MAX_REQUESTS];
    size_t n_slots;
} host_t;

/* ---- host hooks ------------------------------------------------------------ */
static int host_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    host_t *h = ctx;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (to->family == R_ADDR_INET6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(to->port);
        memcpy(&a->sin6_addr, to->addr, 16);
        sl = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(to->port);
        memcpy(&a->sin_addr, to->addr, 4);
        sl = sizeof *a;
    }
    int fd = to->family == R_ADDR_INET6 ? h->fd6 : h->fd4;
    return sendto(fd, data, len, 0, (struct sockaddr *)&ss, sl) == (ssize_t)len ? 0 : -1;
}

static uint64_t host_now_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* Unix-epoch ms: the clock domain of deadlines */
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Called from inside r_client_on_datagram: only note it; the rebind runs
 * later in the loop, outside the receive path (r_client_io.h). */
static void host_steering_rebind(void *ctx, uint64_t server_id) {
    (void)server_id;
    ((host_t *)ctx)->rebind_wanted = true;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req; /* invalid after this callback returns */
    slot_t *s = user;
    s->req = NULL;
    s->status = r->status;
    s->success = r->success;
    s->server_id = r->server_id;
}

/* ---- sockets and the timer ---------------------------------------------------- */
static int open_udp(host_t *h, int family) {
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (fd >= 0 && epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Replace both sockets: new ones (new source ports) open and registered
 * first; only then the old ones close. On failure the old sockets stay. */
static bool rebind(host_t *h) {
    int n4 = open_udp(h, AF_INET), n6 = open_udp(h, AF_INET6);
    if (n4 < 0 || n6 < 0) {
        if (n4 >= 0) {
            close(n4);
        }
        if (n6 >= 0) {
            close(n6);
        }
        return false;
    }
    close(h->fd4); /* close() also removes it from the epoll set */
    close(h->fd6);
    h->fd4 = n4;
    h->fd6 = n6;
    h->rebinds++;
    return true;
}

/* Arm the timerfd at the earliest deadline of the requests in flight
 * (re-queried after every event: a datagram can move a deadline earlier). */
static void arm_timer(r_client_t *client, host_t *h) {
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < h->n_slots; i++) {
        if (h->slots[i].req != NULL) {
            uint64_t d = r_client_request_deadline_ms(client, h->slots[i].req);
            next = d < next ? d : next;
        }
    }
    struct itimerspec its = {0};
    if (next != UINT64_MAX) {
        its.it_value.tv_sec = (time_t)(next / 1000u);
        its.it_value.tv_nsec = (long)(next % 1000u) * 1000000L;
        if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) {
            its.it_value.tv_nsec = 1; /* all zero would disarm */
        }
    }
    timerfd_settime(h->timer, TFD_TIMER_ABSTIME, &its, NULL);
}

static void drain(r_client_t *client, int fd) {
    for (int i = 0; i < 64; i++) { /* bounded batch (r-client.md 9.3.3) */
        uint8_t buf[1500];
        ssize_t len = recv(fd, buf, sizeof buf, 0);
        if (len < 0) {
            return;
        }
        (void)r_client_on_datagram(client, buf, (size_t)len); /* non-OK codes are noise counters */
    }
}

static size_t count_in_flight(const host_t *h) {
    size_t n = 0;
    for (size_t i = 0; i < h->n_slots; i++) {
        n += h->slots[i].req != NULL;
    }
    return n;
}

/* ---- the loop ----------------------------------------------------------------- */
static int run(r_client_t *client, host_t *h) {
    while (count_in_flight(h) > 0) {
        arm_timer(client, h);
        struct epoll_event ev[8];
        int n = epoll_wait(h->ep, ev, 8, -1);
        if (n < 0 && errno != EINTR) {
            perror("epoll_wait");
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (ev[i].data.fd == h->timer) {
                uint64_t expirations;
                (void)read(h->timer, &expirations, sizeof expirations);
                uint64_t now = host_now_ms(NULL);
                for (size_t k = 0; k < h->n_slots; k++) {
                    if (h->slots[k].req != NULL) {
                        r_client_on_timeout(client, h->slots[k].req, now);
                    }
                }
            } else if (ev[i].data.fd == h->fd4 || ev[i].data.fd == h->fd6) {
                drain(client, ev[i].data.fd);
            }
        }
        if (h->rebind_wanted) {
            h->rebind_wanted = false;
            r_client_rebind_complete(client, rebind(h));
        }
    }
    return 0;
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
    char *end = NULL;
    unsigned long port = colon == NULL ? 0 : strtoul(colon + 1, &end, 10);
    if (colon == NULL || *end != '\0' || port == 0 || port > 65535) {
        return -1;
    }
    *colon = '\0';
    out->addr.port = (uint16_t)port;
    size_t n = strlen(rest);
    if (n > 2 && rest[0] == '[' && rest[n - 1] == ']') {
        rest[n - 1] = '\0';
        out->addr.family = R_ADDR_INET6;
        return inet_pton(AF_INET6, rest + 1, out->addr.addr) == 1 ? 0 : -1;
    }
    out->addr.family = R_ADDR_INET;
    return inet_pton(AF_INET, rest, out->addr.addr) == 1 ? 0 : -1;
}

int main(int argc, char **argv) {
    host_t h = {.ep = -1, .timer = -1, .fd4 = -1, .fd6 = -1, .n_slots = 3};
    r_request_policy_t policy;
    r_client_default_request_policy(&policy);
    int a = 1;
    for (; a + 1 < argc && (strcmp(argv[a], "-n") == 0 || strcmp(argv[a], "-u") == 0); a += 2) {
        if (argv[a][1] == 'n') {
            h.n_slots = strtoul(argv[a + 1], NULL, 10);
        } else {
            policy.unit_ms = (uint32_t)strtoul(argv[a + 1], NULL, 10);
        }
    }
    if (argc - a < 2 || argc - a - 1 > MAX_SERVERS || h.n_slots == 0 || h.n_slots > MAX_REQUESTS ||
        policy.unit_ms == 0) {
        fprintf(stderr, "usage: %s [-n N (1..%d)] [-u UNIT_MS] CREDENTIAL SERVER_ID@ADDR:PORT [...]\n", argv[0],
                MAX_REQUESTS);
        return 64;
    }
    const char *credential = argv[a++];
    r_server_endpoint_t servers[MAX_SERVERS];
    size_t n_servers = 0;
    for (; a < argc; a++) {
        if (parse_server(argv[a], &servers[n_servers++]) != 0) {
            fprintf(stderr, "epoll_loop: bad server \"%s\" (want SERVER_ID@IPV4:PORT or SERVER_ID@[IPV6]:PORT)\n",
                    argv[a]);
            return 64;
        }
    }
    h.ep = epoll_create1(EPOLL_CLOEXEC);
    h.timer = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event tev = {.events = EPOLLIN, .data.fd = h.timer};
    if (h.ep < 0 || h.timer < 0 || epoll_ctl(h.ep, EPOLL_CTL_ADD, h.timer, &tev) != 0 ||
        (h.fd4 = open_udp(&h, AF_INET)) < 0 || (h.fd6 = open_udp(&h, AF_INET6)) < 0) {
        perror("epoll_loop: setup");
        return 2;
    }
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = credential;
    cfg.servers = servers;
    cfg.server_count = n_servers;
    cfg.request_policy = &policy;
    r_io_ops_t io = {.ctx = &h, .udp_send = host_send, .now_ms = host_now_ms,
                     .steering_rebind = host_steering_rebind};
    r_client_t *client = NULL;
    int rc = r_client_create(&cfg, &io, NULL, &client);
    if (rc != RCLIENT_OK) {
        fprintf(stderr, "epoll_loop: r_client_create: %s\n", r_client_strerror(rc));
        return 2;
    }
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", strlen("checkout"), res.window_size_ms, res.rate_limit, res.bucket_id);
    for (size_t i = 0; i < h.n_slots; i++) {
        slot_t *s = &h.slots[i];
        s->status = r_client_check_rate_limit_async(client, &res, 1, NULL, 0, "example", 0, on_result, s, &s->req);
        if (s->status != RCLIENT_OK) {
            s->req = NULL;
        }
    }
    int exit_code = run(client, &h) == 0 ? 0 : 2;
    for (size_t i = 0; i < h.n_slots; i++) {
        const slot_t *s = &h.slots[i];
        if (s->status == RCLIENT_OK) {
            printf("request %zu: %s by server %" PRIu64 "\n", i, s->success ? "allowed" : "denied", s->server_id);
        } else {
            printf("request %zu: failed: %s\n", i, r_client_strerror(s->status));
            exit_code = 2;
        }
    }
    printf("rebinds: %u\n", h.rebinds);
    r_client_destroy(client);
    close(h.fd4);
    close(h.fd6);
    close(h.timer);
    close(h.ep);
    return exit_code;
}
