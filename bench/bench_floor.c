/* SPDX-License-Identifier: MIT */
/* bench_floor.c - the syscall floor of a UDP request/response client on
 * loopback, to hold the runtime against (bench/run_load.sh): S echo servers
 * (child processes: recvmmsg, then sendmmsg of the same datagrams back), and
 * a closed-loop client with K requests in flight. A request is one sendmmsg
 * of a SIZE-byte datagram to every server; it completes when all S replies
 * came back. The client reads with one blocking recvmmsg (MSG_WAITFORONE)
 * per turn and counts its own syscalls: at 1 server and 1 in flight, 2 per
 * request (an event-loop client adds its poll). No crypto, no protocol: only what any
 * client of this shape must do.
 *
 * usage: bench_floor [--servers S] [--concurrency K] [--duration SECONDS] [--size BYTES] [--json]
 *        (defaults 1, 1, 2, 124). Prints requests/s and client syscalls per request. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SERVERS 8
#define MAX_K 4096
#define BATCH 64
#define DGRAM 1200

static uint64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* This process's user + system CPU time (the client alone: the servers are children). */
static double cpu_us(void) {
    struct rusage ru;
    (void)getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int udp_bound(uint16_t *port) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &l) != 0) {
        perror("bench_floor: socket");
        exit(1);
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* An echo server: every datagram read goes back to its sender, batch for batch. */
static void echo_loop(int fd) {
    static uint8_t bufs[BATCH][DGRAM];
    struct sockaddr_in from[BATCH];
    struct iovec iov[BATCH];
    struct mmsghdr m[BATCH];
    for (;;) {
        memset(m, 0, sizeof m);
        for (int i = 0; i < BATCH; i++) {
            iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = DGRAM};
            m[i].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_namelen = sizeof from[i], .msg_iov = &iov[i],
                                           .msg_iovlen = 1};
        }
        int n = recvmmsg(fd, m, BATCH, MSG_WAITFORONE, NULL);
        if (n <= 0) {
            continue;
        }
        for (int i = 0; i < n; i++) {
            iov[i].iov_len = m[i].msg_len;
        }
        (void)sendmmsg(fd, m, (unsigned)n, 0);
    }
}

typedef struct {
    int servers, k, size;
    double duration;
    int json;
} opts_t;

static int parse(int argc, char **argv, opts_t *o) {
    *o = (opts_t){.servers = 1, .k = 1, .size = 124, .duration = 2.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_floor: %s: missing value or unknown option\n", a);
            return -1;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--servers") == 0) {
            o->servers = atoi(v);
        } else if (strcmp(a, "--concurrency") == 0) {
            o->k = atoi(v);
        } else if (strcmp(a, "--duration") == 0) {
            o->duration = atof(v);
        } else if (strcmp(a, "--size") == 0) {
            o->size = atoi(v);
        } else {
            fprintf(stderr, "bench_floor: unknown option '%s'\n", a);
            return -1;
        }
    }
    if (o->servers < 1 || o->servers > MAX_SERVERS || o->k < 1 || o->k > MAX_K || o->size < 8 || o->size > DGRAM ||
        !(o->duration > 0)) {
        fprintf(stderr, "bench_floor: want --servers 1..%d, --concurrency 1..%d, --size 8..%d, --duration > 0\n",
                MAX_SERVERS, MAX_K, DGRAM);
        return -1;
    }
    return 0;
}

typedef struct {
    int fd;
    const opts_t *o;
    struct sockaddr_in to[MAX_SERVERS];
    uint8_t missing[MAX_K]; /* replies still due per slot */
    uint64_t seq[MAX_K];    /* the request a slot carries */
    uint64_t next_seq, done, syscalls;
} client_t;

static void send_request(client_t *c, uint32_t slot) {
    uint8_t buf[DGRAM];
    memset(buf, 0xab, (size_t)c->o->size);
    uint64_t id = ((uint64_t)slot << 40) | c->next_seq;
    c->seq[slot] = c->next_seq++;
    memcpy(buf, &id, sizeof id);
    struct iovec iov = {.iov_base = buf, .iov_len = (size_t)c->o->size};
    struct mmsghdr m[MAX_SERVERS];
    memset(m, 0, sizeof m);
    for (int i = 0; i < c->o->servers; i++) {
        m[i].msg_hdr = (struct msghdr){.msg_name = &c->to[i], .msg_namelen = sizeof c->to[i], .msg_iov = &iov,
                                       .msg_iovlen = 1};
    }
    c->syscalls++;
    if (sendmmsg(c->fd, m, (unsigned)c->o->servers, 0) != c->o->servers) {
        perror("bench_floor: sendmmsg");
        exit(1);
    }
    c->missing[slot] = (uint8_t)c->o->servers;
}

/* One blocking recvmmsg (MSG_WAITFORONE: it waits for the first datagram,
 * then takes what is queued without waiting); every completed request's
 * slot sends the next one. */
static void receive(client_t *c, int more) {
    static uint8_t bufs[BATCH][DGRAM];
    struct iovec iov[BATCH];
    struct mmsghdr m[BATCH];
    memset(m, 0, sizeof m);
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = DGRAM};
        m[i].msg_hdr.msg_iov = &iov[i];
        m[i].msg_hdr.msg_iovlen = 1;
    }
    c->syscalls++;
    int n = recvmmsg(c->fd, m, BATCH, MSG_WAITFORONE, NULL);
    for (int i = 0; i < n; i++) {
        uint64_t id;
        memcpy(&id, bufs[i], sizeof id);
        uint32_t slot = (uint32_t)(id >> 40);
        if (slot < (uint32_t)c->o->k && c->seq[slot] == (id & ((UINT64_C(1) << 40) - 1)) && c->missing[slot] > 0 &&
            --c->missing[slot] == 0) {
            c->done++;
            if (more) {
                send_request(c, slot);
            }
        }
    }
}

int main(int argc, char **argv) {
    opts_t o;
    if (parse(argc, argv, &o) != 0) {
        return 2;
    }
    pid_t kids[MAX_SERVERS];
    client_t *c = calloc(1, sizeof *c);
    c->o = &o;
    for (int i = 0; i < o.servers; i++) {
        uint16_t port = 0;
        int sfd = udp_bound(&port);
        c->to[i] = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(port),
                                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        kids[i] = fork();
        if (kids[i] == 0) {
            echo_loop(sfd);
        }
        close(sfd);
    }
    uint16_t cport = 0;
    c->fd = udp_bound(&cport);
    for (int s = 0; s < o.k; s++) {
        send_request(c, (uint32_t)s);
    }
    /* Warm-up: the first K * 10 completions are not counted. */
    uint64_t warm = (uint64_t)o.k * 10u, t0 = 0, sys0 = 0, done0 = 0;
    double cpu0 = 0;
    uint64_t end = UINT64_MAX;
    struct timeval tv = {.tv_sec = 1, .tv_usec = 0}; /* a lost datagram cannot hang the run */
    (void)setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    uint64_t inflight_end = 0;
    for (;;) {
        uint64_t now = mono_us();
        if (t0 == 0 && c->done >= warm) {
            t0 = now;
            sys0 = c->syscalls;
            done0 = c->done;
            cpu0 = cpu_us();
            end = t0 + (uint64_t)(o.duration * 1e6);
        }
        int more = now < end;
        if (!more) {
            inflight_end = c->done;
            break;
        }
        receive(c, more);
    }
    uint64_t t1 = mono_us();
    double cpu = cpu_us() - cpu0;
    double secs = (double)(t1 - t0) / 1e6;
    double reqs = (double)(inflight_end - done0);
    double sys = (double)(c->syscalls - sys0);
    for (int i = 0; i < o.servers; i++) {
        kill(kids[i], SIGKILL);
        waitpid(kids[i], NULL, 0);
    }
    if (o.json) {
        printf("{\"servers\":%d,\"concurrency\":%d,\"requests\":%.0f,\"seconds\":%.6f,\"requests_per_s\":%.1f,"
               "\"syscalls_per_request\":%.4f,\"cpu_us_per_request\":%.3f}\n",
               o.servers, o.k, reqs, secs, reqs / secs, sys / (reqs > 0 ? reqs : 1), cpu / (reqs > 0 ? reqs : 1));
    } else {
        printf("floor: %d server(s), %d in flight: %.0f requests in %.3f s: %.1f requests/s, %.2f syscalls per request"
               " (sendmmsg, recvmmsg), client CPU %.2f us per request\n",
               o.servers, o.k, reqs, secs, reqs / secs, sys / (reqs > 0 ? reqs : 1), cpu / (reqs > 0 ? reqs : 1));
    }
    free(c);
    return 0;
}
