/* SPDX-License-Identifier: MIT */
/* bench_serve_floor.c - the syscall floor of a client of `rl-testbed serve`,
 * to hold the runtime against on the same servers (bench/run_load.sh). The
 * least any client must do against serve: send a valid, sealed request with
 * a fresh unique_id (and nonce) and a fresh time_stamp to every server, and
 * read the replies. So every request is built by the client core before the
 * timed loop (captured from its udp_send hook: one sealed datagram per
 * request, the same bytes to every server), CHUNK at a time so none is older
 * than serve's dedup window allows when sent (the clock, the CPU time and the
 * syscall count stop while a chunk is built), and the timed loop is a
 * closed-loop ping-pong with K in flight: one sendmmsg of a request to every
 * server, one blocking recvmmsg (MSG_WAITFORONE) per turn; a reply is matched
 * to its request by the unique_id in its outer framing (rl_response_peek: no
 * cryptography, no validation), and a request completes when every server
 * replied. Counts its own syscalls and CPU time (getrusage: this process).
 *
 * usage: bench_serve_floor --key KEY --server ID@IPV4:PORT... [--concurrency K] [--duration SECONDS] [--json]
 *        (defaults K 1, 2 s). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r_client.h"
#include "rl_client.h"
#include "rl_response.h"

#define MAX_SERVERS 8
#define MAX_K 256
#define BATCH 64
#define MAX_REPLAYS 3
#define REPLAY_US 250000u /* RATELIMITLY_REQUEST_UNIT_MS=250 in run_load.sh */
#define MAX_OUT (BATCH * MAX_SERVERS * 2 + MAX_K * MAX_SERVERS)

#define CHUNK 2048u
#define POOL (2u * CHUNK) /* a ring: a chunk is built while the K in flight sit in the other */

typedef struct {
    uint8_t dgram[POOL][R_CLIENT_MAX_DATAGRAM];
    uint16_t len[POOL];
    uint8_t uid[POOL][16];
    size_t n, dests; /* n: requests built so far (position n % POOL); dests: of the one being captured */
    int capturing;
    r_client_t *client;
    r_resource_request_t res;
    int servers;
} pool_t;

static int capture_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)to;
    pool_t *p = ctx;
    if (p->capturing && p->dests++ == 0) {
        memcpy(p->dgram[p->n % POOL], data, len);
        p->len[p->n % POOL] = (uint16_t)len;
    }
    return 0;
}

static uint64_t wall_ms(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static double cpu_us(void) {
    struct rusage ru;
    (void)getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req, (void)r, (void)user;
}

typedef struct {
    const char *key;
    r_server_endpoint_t servers[MAX_SERVERS];
    int n_servers, k, json;
    double duration;
} opts_t;

static int parse(int argc, char **argv, opts_t *o) {
    *o = (opts_t){.k = 1, .duration = 2.0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "bench_serve_floor: %s: missing value or unknown option\n", a);
            return -1;
        }
        const char *v = argv[++i];
        unsigned long long id;
        char ip[64];
        unsigned port;
        if (strcmp(a, "--key") == 0) {
            o->key = v;
        } else if (strcmp(a, "--server") == 0) {
            if (o->n_servers == MAX_SERVERS || sscanf(v, "%llu@%63[0-9.]:%u", &id, ip, &port) != 3 || port > 65535) {
                fprintf(stderr, "bench_serve_floor: --server '%s': want ID@IPV4:PORT, at most %d\n", v, MAX_SERVERS);
                return -1;
            }
            r_server_endpoint_t *s = &o->servers[o->n_servers++];
            *s = (r_server_endpoint_t){.server_id = id, .addr = {.family = R_ADDR_INET, .port = (uint16_t)port}};
            if (inet_pton(AF_INET, ip, s->addr.addr) != 1) {
                fprintf(stderr, "bench_serve_floor: --server '%s': bad IPv4 address\n", v);
                return -1;
            }
        } else if (strcmp(a, "--concurrency") == 0) {
            o->k = atoi(v);
        } else if (strcmp(a, "--duration") == 0) {
            o->duration = atof(v);
        } else {
            fprintf(stderr, "bench_serve_floor: unknown option '%s'\n", a);
            return -1;
        }
    }
    if (o->key == NULL || o->n_servers == 0 || o->k < 1 || o->k > MAX_K || !(o->duration > 0)) {
        fprintf(stderr, "bench_serve_floor: want --key, --server (1..%d), --concurrency 1..%d, --duration > 0\n",
                MAX_SERVERS, MAX_K);
        return -1;
    }
    return 0;
}

static int pool_open(const opts_t *o, pool_t *p) {
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = o->key;
    cfg.servers = o->servers;
    cfg.server_count = (size_t)o->n_servers;
    r_io_ops_t io = {.ctx = p, .udp_send = capture_send, .now_ms = wall_ms};
    if (r_client_create(&cfg, &io, NULL, &p->client) != RCLIENT_OK) {
        fprintf(stderr, "bench_serve_floor: cannot create the client (key?)\n");
        return -1;
    }
    p->res = (r_resource_request_t){.window_size_ms = 1000, .rate_limit = 1000000000, .tokens_requested = 1};
    r_client_derive_bucket_id("bench", 5, p->res.window_size_ms, p->res.rate_limit, p->res.bucket_id);
    p->servers = o->n_servers;
    return 0;
}

/* CHUNK more requests sealed by the client core now, each with its own
 * unique_id, nonce and time_stamp; submitted and cancelled (only the
 * submit's sends are kept). */
static void pool_build(pool_t *p) {
    for (size_t end = p->n + CHUNK; p->n < end;) {
        r_client_req_t *req = NULL;
        p->dests = 0;
        p->capturing = 1;
        int rc = r_client_check_rate_limit_async(p->client, &p->res, 1, NULL, 0, NULL, 0, on_result, NULL, &req);
        p->capturing = 0;
        if (rc != RCLIENT_OK || p->dests != (size_t)p->servers) {
            fprintf(stderr, "bench_serve_floor: submit %zu: rc %d, %zu destinations (want %d)\n", p->n, rc, p->dests,
                    p->servers);
            exit(1);
        }
        memcpy(p->uid[p->n++ % POOL], req->unique_id, 16);
        r_client_cancel_request(p->client, req);
    }
}

typedef struct {
    int fd;
    const opts_t *o;
    pool_t *p;
    struct sockaddr_in to[MAX_SERVERS];
    uint64_t paused_us;        /* spent building chunks: not timed */
    double paused_cpu;
    int oldest;                /* index of the oldest server (decides at once) */
    size_t req[MAX_K];         /* pool index a slot carries */
    uint8_t active[MAX_K];
    uint8_t responded[MAX_K];  /* bit s: server s replied */
    uint64_t sent_us[MAX_K];   /* the slot's last send, for the replay below */
    uint8_t replayed[MAX_K];   /* replays of the slot's request */
    struct mmsghdr out[MAX_OUT]; /* this turn's sends, one sendmmsg */
    struct iovec out_iov[MAX_OUT];
    unsigned n_out;
    size_t next;
    uint64_t done, syscalls, sends, replays, lost, deliveries, datagrams_sent, datagrams_received;
} client_t;

static void queue(client_t *c, size_t i, int s) {
    c->out_iov[c->n_out] = (struct iovec){.iov_base = c->p->dgram[i], .iov_len = c->p->len[i]};
    c->out[c->n_out] = (struct mmsghdr){.msg_hdr = {.msg_name = &c->to[s], .msg_namelen = sizeof c->to[s],
                                                    .msg_iov = &c->out_iov[c->n_out], .msg_iovlen = 1}};
    c->n_out++;
}

static void flush(client_t *c) {
    if (c->n_out == 0) {
        return;
    }
    c->syscalls++;
    c->sends++;
    if (sendmmsg(c->fd, c->out, c->n_out, 0) != (int)c->n_out) {
        perror("bench_serve_floor: sendmmsg");
        exit(1);
    }
    c->datagrams_sent += c->n_out;
    c->n_out = 0;
}

/* The slot's next request to every server (sent at this turn's flush). */
static void start_request(client_t *c, int slot) {
    if (c->next == c->p->n) { /* the clock stops while the next chunk is built */
        uint64_t t = mono_us();
        double cpu = cpu_us();
        pool_build(c->p);
        c->paused_cpu += cpu_us() - cpu;
        c->paused_us += mono_us() - t;
    }
    size_t i = c->next++ % POOL;
    for (int s = 0; s < c->o->n_servers; s++) {
        queue(c, i, s);
    }
    c->req[slot] = i;
    c->sent_us[slot] = mono_us();
    c->replayed[slot] = 0;
    c->active[slot] = 1;
    c->responded[slot] = 0;
}

/* r-client.md 9.3.3/9.3.4 at its least: the oldest server's reply completes
 * the request; the same datagram then goes once to every server that has not
 * replied (completion delivery). No validation: a floor. */
static void complete(client_t *c, int slot, int more) {
    for (int s = 0; s < c->o->n_servers; s++) {
        if (!(c->responded[slot] & (1u << s))) {
            queue(c, c->req[slot], s);
            c->deliveries++;
        }
    }
    c->done++;
    c->active[slot] = 0;
    if (more) {
        start_request(c, slot);
    }
}

static int find_slot(const client_t *c, const uint8_t *uid) {
    for (int s = 0; s < c->o->k; s++) {
        if (c->active[s] && memcmp(c->p->uid[c->req[s]], uid, 16) == 0) {
            return s;
        }
    }
    return -1;
}

static int server_of(const client_t *c, const struct sockaddr_in *from) {
    for (int s = 0; s < c->o->n_servers; s++) {
        if (from->sin_port == c->to[s].sin_port && from->sin_addr.s_addr == c->to[s].sin_addr.s_addr) {
            return s;
        }
    }
    return -1;
}

/* A request with no reply from the oldest server after REPLAY_US is sent
 * again, same bytes, to the servers that did not reply (serve deduplicates
 * it), as the runtime's replay round would; counted. After MAX_REPLAYS it is
 * given up (counted lost) and the slot takes a new request. */
static int replay_late(client_t *c) {
    uint64_t now = mono_us();
    int n = 0;
    for (int slot = 0; slot < c->o->k; slot++) {
        if (c->active[slot] && now - c->sent_us[slot] >= REPLAY_US) {
            if (c->replayed[slot] == MAX_REPLAYS) { /* past serve's dedup window: given up, counted */
                c->lost++;
                start_request(c, slot);
                continue;
            }
            c->replayed[slot]++;
            for (int s = 0; s < c->o->n_servers; s++) {
                if (!(c->responded[slot] & (1u << s))) {
                    queue(c, c->req[slot], s);
                }
            }
            c->sent_us[slot] = now;
            c->replays++;
            n++;
        }
    }
    return n;
}

/* One blocking recvmmsg (at most REPLAY_US), then one sendmmsg of every send
 * the batch caused. */
static void receive(client_t *c) {
    static uint8_t bufs[BATCH][R_CLIENT_MAX_DATAGRAM];
    struct sockaddr_in from[BATCH];
    struct iovec iov[BATCH];
    struct mmsghdr m[BATCH];
    memset(m, 0, sizeof m);
    for (int i = 0; i < BATCH; i++) {
        iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = sizeof bufs[i]};
        m[i].msg_hdr = (struct msghdr){.msg_name = &from[i], .msg_namelen = sizeof from[i], .msg_iov = &iov[i],
                                       .msg_iovlen = 1};
    }
    c->syscalls++;
    int n = recvmmsg(c->fd, m, BATCH, MSG_WAITFORONE, NULL);
    (void)replay_late(c);
    for (int i = 0; i < n; i++) {
        const uint8_t *uid = NULL;
        rl_verdict_t v;
        c->datagrams_received++;
        int srv = server_of(c, &from[i]);
        if (srv < 0 || rl_response_peek(bufs[i], m[i].msg_len, &uid, &v) != RL_VERDICT_OK) {
            continue;
        }
        int s = find_slot(c, uid);
        if (s < 0) {
            continue; /* a late reply or a delivery's reply: read, nothing to do */
        }
        c->responded[s] |= (uint8_t)(1u << srv);
        if (srv == c->oldest) {
            complete(c, s, 1);
        }
    }
    flush(c);
}

/* r-client.md: the oldest server has the lowest start time (server_id >> 23),
 * ties to the lower full ID. */
static int oldest_of(const opts_t *o) {
    int best = 0;
    for (int s = 1; s < o->n_servers; s++) {
        uint64_t a = o->servers[s].server_id, b = o->servers[best].server_id;
        if ((a >> 23) < (b >> 23) || ((a >> 23) == (b >> 23) && a < b)) {
            best = s;
        }
    }
    return best;
}

int main(int argc, char **argv) {
    opts_t o;
    if (parse(argc, argv, &o) != 0) {
        return 2;
    }
    pool_t *p = calloc(1, sizeof *p);
    client_t *c = calloc(1, sizeof *c);
    if (p == NULL || c == NULL || pool_open(&o, p) != 0) {
        return 1;
    }
    pool_build(p);
    c->o = &o;
    c->p = p;
    for (int i = 0; i < o.n_servers; i++) {
        c->to[i] = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons(o.servers[i].addr.port)};
        memcpy(&c->to[i].sin_addr, o.servers[i].addr.addr, 4);
    }
    c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct timeval tv = {.tv_sec = 0, .tv_usec = REPLAY_US}; /* a lost datagram cannot hang the run */
    (void)setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    c->oldest = oldest_of(&o);
    for (int s = 0; s < o.k; s++) {
        start_request(c, s);
    }
    flush(c);
    /* Warm-up: the first K * 10 completions are not counted. */
    uint64_t warm = (uint64_t)o.k * 10u, t0 = 0, sys0 = 0, done0 = 0, end = UINT64_MAX, replays0 = 0, ds0 = 0, dr0 = 0;
    uint64_t lost0 = 0, sends0 = 0, paused0 = 0;
    double cpu0 = 0, paused_cpu0 = 0;
    for (;;) {
        uint64_t now = mono_us();
        if (t0 == 0 && c->done >= warm) {
            t0 = now;
            sys0 = c->syscalls;
            done0 = c->done;
            replays0 = c->replays;
            lost0 = c->lost;
            sends0 = c->sends;
            ds0 = c->datagrams_sent;
            dr0 = c->datagrams_received;
            cpu0 = cpu_us();
            paused0 = c->paused_us;
            paused_cpu0 = c->paused_cpu;
            end = t0 + (uint64_t)(o.duration * 1e6);
        }
        if (now >= end + (c->paused_us - paused0)) {
            break;
        }
        receive(c);
    }
    uint64_t t1 = mono_us();
    double cpu = cpu_us() - cpu0 - (c->paused_cpu - paused_cpu0);
    double secs = t0 > 0 ? (double)(t1 - t0 - (c->paused_us - paused0)) / 1e6 : 0;
    double reqs = (double)(c->done - done0), div = reqs > 0 ? reqs : 1;
    double sys = (double)(c->syscalls - sys0), snd = (double)(c->sends - sends0) / div;
    double ds = (double)(c->datagrams_sent - ds0) / div, dr = (double)(c->datagrams_received - dr0) / div;
    if (o.json) {
        printf("{\"servers\":%d,\"concurrency\":%d,\"requests\":%.0f,\"seconds\":%.6f,\"requests_per_s\":%.1f,"
               "\"syscalls_per_request\":%.4f,\"sendmmsg_per_request\":%.4f,\"cpu_us_per_request\":%.3f,\"datagrams_per_request\":{\"sent\":%.4f,"
               "\"received\":%.4f},\"replays\":%llu,\"lost\":%llu}\n",
               o.n_servers, o.k, reqs, secs, secs > 0 ? reqs / secs : 0, sys / div, snd, cpu / div, ds, dr,
               (unsigned long long)(c->replays - replays0), (unsigned long long)(c->lost - lost0));
    } else {
        printf("serve floor: %d server(s), %d in flight: %.0f requests in %.3f s: %.1f requests/s, %.2f syscalls per"
               " request (sendmmsg %.2f, the rest recvmmsg), client CPU %.2f us per request, datagrams per request sent %.2f"
               " received %.2f, %llu replayed, %llu lost\n",
               o.n_servers, o.k, reqs, secs, secs > 0 ? reqs / secs : 0, sys / div, snd, cpu / div, ds, dr,
               (unsigned long long)(c->replays - replays0), (unsigned long long)(c->lost - lost0));
    }
    r_client_destroy(p->client);
    free(c);
    free(p);
    return 0;
}
