/* SPDX-License-Identifier: MIT */
/* serve_run.c - sockets, the ppoll() loop and the scripted behaviour around
 * the reference server model (contract: serve.h).
 *
 * Per received datagram: rate cap -> scripted drop -> the model (at wall
 * clock + skew) -> log -> injected invalid datagram -> scripted reply loss ->
 * reply now or after the drawn delay -> restart_after. Syscalls are batched:
 * one recvmmsg reads up to BATCH datagrams of a socket, and the replies they
 * produce leave in one sendmmsg (in order, an injected datagram before its
 * reply). Work is bounded: at most BATCH datagrams per socket per wakeup,
 * --rate-cap datagrams per second handled, a reply queue of fixed size and
 * dedup caches sized from --memory-cap. The loop itself allocates nothing per
 * datagram; the model's per-tenant state (buckets, trackers, labels) grows
 * only within each tenant's quotas, whose estimate memory admission counts
 * (docs/serve.md "Memory"). Signals are taken before every batch (and every
 * BATCH due delayed replies), so SIGINT, SIGTERM and SIGHUP act at once under
 * any load. */
#define _GNU_SOURCE
#include "serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "r_client.h"
#include "serve_datagram.h"
#include "serve_fault.h"
#include "serve_log.h"
#include "serve_mem.h"
#include "serve_net.h"
#include "serve_zone.h"

#define BATCH 64
#define RECV_BUF 2048u          /* > 1200: an oversized datagram is seen and logged as such */
#define DEDUP_ENTRY_BYTES 1400u /* slot, cached reply up to 1200 bytes, index (sim_server.c "Dedup cache") */

typedef struct {
    uint64_t received, script_dropped, rate_capped, down, sent, injected, replies_lost, queue_full, send_errors, restarts;
    uint64_t dedup_evicted;     /* live dedup entries evicted for capacity (the model's count, at the summary) */
    uint64_t verdicts[SIM_SRV_VERDICTS];
} counts_t;

typedef struct {
    serve_server_conf_t conf;
    sim_server_t *model;
    int fd[SERVE_MAX_LISTEN];
    size_t n_fd;
    uint16_t port;
    uint64_t start_s;
    uint32_t dedup_capacity;    /* as given to the model, after the memory cap */
    uint64_t rate_requests;
    bool restart_at_done, restart_after_done;
    bool down;                  /* down_at / down_after reached: every datagram is ignored */
    sim_rng_t rng;              /* the script's stream: drop, delay, inject */
    counts_t n;
} instance_t;

/* Receive and send batches, allocated once (too big for the stack). */
typedef struct {
    struct mmsghdr msg[BATCH];
    struct iovec iov[BATCH];
    struct sockaddr_storage peer[BATCH];
    uint8_t buf[BATCH][RECV_BUF];
} rx_t;

typedef struct {
    size_t n, instance, socket;
    struct mmsghdr msg[2 * BATCH];
    struct iovec iov[2 * BATCH];
    struct sockaddr_storage peer[2 * BATCH];
    uint8_t buf[2 * BATCH][SERVE_DATAGRAM_MAX];
} tx_t;

typedef struct {
    const serve_conf_t *c;
    rx_t *rx;
    tx_t *tx;
    char *const *listen;
    size_t n_listen;
    instance_t *inst;
    size_t n_inst;
    serve_queue_t queue;
    serve_ratecap_t cap;
    serve_log_t log;
    uint32_t zone_serial;
    serve_mem_t mem;            /* host memory readings, shared by every server (one cached snapshot) */
    FILE *out;
    uint64_t t0_mono;
    sigset_t signals;           /* SIGINT, SIGTERM, SIGHUP: blocked outside ppoll() */
} serve_t;

static volatile sig_atomic_t stop_signal, hup_pending;

static void on_stop(int sig) {
    stop_signal = sig;
}

static void on_hup(int sig) {
    (void)sig;
    hup_pending = 1;
}

/* Take the signals of `set` that are pending (blocked outside ppoll()).
 * ppoll() delivers a signal only when it would sleep: while a socket stays
 * readable it returns at once with the signal still pending, so the loop asks
 * for it after every batch instead (docs/serve.md "Stop it"). */
static void take_signals(const sigset_t *set) {
    const struct timespec zero = {0, 0};
    int sig;
    while ((sig = sigtimedwait(set, NULL, &zero)) > 0) {
        if (sig == SIGHUP) {
            hup_pending = 1;
        } else {
            stop_signal = sig;
        }
    }
}

/* serve_log_t.room for a log that is not a regular file: true once the log
 * has room (POLLOUT: a line of up to PIPE_BUF bytes then enters a pipe
 * without blocking), waiting with the signals deliverable (ctx: the mask of
 * the wait); false when a stop signal is in and there is no room, so a
 * stalled reader never holds a stop back (docs/serve.md "Stop it"). */
static bool log_room(void *ctx, int fd) {
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    const struct timespec zero = {0, 0};
    if (ppoll(&p, 1, &zero, NULL) != 0) {
        return true; /* room, or an error that the write reports */
    }
    for (;;) {
        if (stop_signal != 0) {
            return false;
        }
        int r = ppoll(&p, 1, NULL, ctx);
        if (r > 0 || (r < 0 && errno != EINTR)) {
            return true;
        }
    }
}

static const char *stop_name(void) {
    return stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
}

static uint64_t clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#define fail(err, ...) (serve_errf((err), __VA_ARGS__), 1)

/* ---- sockets ------------------------------------------------------------------ */

static void close_sockets(instance_t *in) {
    for (size_t i = 0; i < in->n_fd; i++) {
        close(in->fd[i]);
    }
    in->n_fd = 0;
}

/* One port on every listen address; an ephemeral port taken on the first
 * address may be busy on another: retry with a new one. */
static int bind_instance(serve_t *s, instance_t *in, char *err) {
    for (int attempt = 0; attempt < 16; attempt++) {
        uint16_t port = in->conf.port;
        int e = 0;
        for (size_t a = 0; a < s->n_listen; a++) {
            int fd = serve_net_open(s->listen[a], &port);
            if (fd < 0) {
                e = errno;
                break;
            }
            in->fd[in->n_fd++] = fd;
        }
        if (in->n_fd == s->n_listen) {
            in->port = port;
            return 0;
        }
        close_sockets(in);
        if (in->conf.port != 0 || e != EADDRINUSE) {
            return fail(err, "cannot bind UDP %s port %u: %s", s->listen[in->n_fd], (unsigned)in->conf.port,
                        strerror(e));
        }
    }
    return fail(err, "no ephemeral port free on every listen address");
}

/* ---- zone files and restarts -------------------------------------------------- */

static int write_zones(serve_t *s) {
    if (s->c->zone_path == NULL && s->c->dnsmasq_path == NULL) {
        return 0;
    }
    serve_zone_server_t z[SERVE_MAX_SERVERS];
    for (size_t i = 0; i < s->n_inst; i++) {
        z[i].server_id = sim_server_id(s->inst[i].model);
        z[i].port = s->inst[i].port;
    }
    const char *name = s->c->dns_name;
    char fallback[64];
    if (name == NULL) { /* the name a client of the first tenant looks up by default (api.md) */
        r_auth_key_info_t info;
        (void)r_client_parse_auth_key(s->c->tenants[0], 0, &info);
        (void)r_client_format_default_tenant_dns(info.key_id, fallback, sizeof fallback);
        memset(&info, 0, sizeof info);
        name = fallback;
    }
    s->zone_serial++;
    int rc = 0;
    if (s->c->zone_path != NULL) {
        rc |= serve_zone_write_file(s->c->zone_path, SERVE_ZONE_MASTER, name, z, s->n_inst, s->listen, s->n_listen,
                                    s->zone_serial);
    }
    if (s->c->dnsmasq_path != NULL) {
        rc |= serve_zone_write_file(s->c->dnsmasq_path, SERVE_ZONE_DNSMASQ, name, z, s->n_inst, s->listen,
                                    s->n_listen, s->zone_serial);
    }
    return rc;
}

static void restart(serve_t *s, size_t i, const char *cause) {
    instance_t *in = &s->inst[i];
    uint64_t old = sim_server_id(in->model);
    uint64_t now_s = clock_ms(CLOCK_REALTIME) / 1000u;
    /* A new incarnation needs a new server_id: 1-second resolution, so at
     * least one second past the previous start (wire_protocol.md). */
    in->start_s = now_s > in->start_s ? now_s : in->start_s + 1u;
    (void)sim_server_restart(in->model, in->start_s);
    in->n.restarts++;
    fprintf(s->out, "server %zu: restarted (%s), server_id %" PRIu64 " (was %" PRIu64 ")\n", i, cause,
            sim_server_id(in->model), old);
    fflush(s->out);
    serve_log_restart(&s->log, clock_ms(CLOCK_REALTIME), (unsigned)i, old, sim_server_id(in->model), cause);
    if (write_zones(s) != 0) {
        fprintf(s->out, "server %zu: cannot rewrite the zone file: %s\n", i, strerror(errno));
    }
}

/* A crash without a restart: the server stops answering; its sockets stay
 * bound, so clients see silence (as from a dead host), not ICMP errors. */
static void go_down(serve_t *s, size_t i, const char *cause) {
    s->inst[i].down = true;
    fprintf(s->out, "server %zu: down (%s), server_id %" PRIu64 "\n", i, cause, sim_server_id(s->inst[i].model));
    fflush(s->out);
}

/* ---- replies ------------------------------------------------------------------- */

/* Send the batched datagrams of s->tx with sendmmsg; a message the kernel
 * refuses counts as a send error and the rest still go. */
static void flush_tx(serve_t *s) {
    tx_t *tx = s->tx;
    if (tx->n == 0) {
        return;
    }
    instance_t *in = &s->inst[tx->instance];
    for (size_t done = 0; done < tx->n;) {
        int k = sendmmsg(in->fd[tx->socket], tx->msg + done, (unsigned)(tx->n - done), 0);
        if (k > 0) {
            in->n.sent += (uint64_t)k;
            done += (size_t)k;
        } else {
            in->n.send_errors++;
            done++;
        }
    }
    tx->n = 0;
}

/* Queue one datagram for the socket (instance i, socket sock) in s->tx,
 * flushing first when the batch is full or belongs to another socket. */
static void send_now(serve_t *s, size_t i, size_t sock, const struct sockaddr_storage *peer, socklen_t peer_len,
                     const uint8_t *bytes, size_t len, serve_log_out_t *e) {
    tx_t *tx = s->tx;
    if (tx->n == 2 * BATCH || (tx->n > 0 && (tx->instance != i || tx->socket != sock))) {
        flush_tx(s);
    }
    tx->instance = i;
    tx->socket = sock;
    size_t k = tx->n++;
    memcpy(tx->buf[k], bytes, len);
    memcpy(&tx->peer[k], peer, peer_len);
    tx->iov[k] = (struct iovec){tx->buf[k], len};
    memset(&tx->msg[k], 0, sizeof tx->msg[k]);
    tx->msg[k].msg_hdr.msg_name = &tx->peer[k];
    tx->msg[k].msg_hdr.msg_namelen = peer_len;
    tx->msg[k].msg_hdr.msg_iov = &tx->iov[k];
    tx->msg[k].msg_hdr.msg_iovlen = 1;
    if (s->log.f != NULL) {
        char text[64];
        serve_net_peer_text(peer, text, sizeof text);
        e->peer = text;
        e->wall_ms = clock_ms(CLOCK_REALTIME);
        e->dgram = bytes;
        e->len = len;
        serve_log_out(&s->log, e);
    }
}

/* An administrative answer: sent at once, never delayed, dropped or preceded
 * by an injected datagram (the scripted reply faults are for rate traffic). */
static void reply_admin(serve_t *s, size_t i, size_t sock, const struct sockaddr_storage *peer, socklen_t peer_len,
                        const uint8_t *bytes, size_t len, sim_server_verdict_t v, uint16_t admin_pdu) {
    serve_log_out_t e = {0};
    e.server = (unsigned)i;
    e.server_id = sim_server_id(s->inst[i].model);
    e.verdict = sim_server_verdict_name(v);
    e.what = admin_pdu == 0x544D ? "tenant_ack" : admin_pdu == 0x5153 ? "status_response" : "metrics_response";
    send_now(s, i, sock, peer, peer_len, bytes, len, &e);
}

static void reply(serve_t *s, size_t i, size_t sock, const struct sockaddr_storage *peer, socklen_t peer_len,
                  const uint8_t *bytes, size_t len, sim_server_verdict_t v, bool allowed) {
    instance_t *in = &s->inst[i];
    serve_log_out_t e = {0};
    e.server = (unsigned)i;
    e.server_id = sim_server_id(in->model);
    e.verdict = sim_server_verdict_name(v);
    e.allowed = allowed;
    if (in->conf.inject > 0.0 && sim_rng_chance(&in->rng, in->conf.inject)) {
        uint8_t bad[SERVE_DATAGRAM_MAX];
        serve_inject_kind_t kind = (serve_inject_kind_t)sim_rng_below(&in->rng, SERVE_INJECT_KINDS);
        size_t n = serve_inject_make(kind, bytes, len, &in->rng, bad);
        serve_log_out_t ie = e;
        ie.what = "injected";
        ie.note = serve_inject_name(kind);
        in->n.injected++;
        send_now(s, i, sock, peer, peer_len, bad, n, &ie);
    }
    e.what = "rate_response";
    if (in->conf.drop_reply > 0.0 && sim_rng_chance(&in->rng, in->conf.drop_reply)) {
        in->n.replies_lost++;
        if (s->log.f != NULL) {
            char text[64];
            serve_net_peer_text(peer, text, sizeof text);
            e.peer = text;
            e.wall_ms = clock_ms(CLOCK_REALTIME);
            e.dgram = bytes;
            e.len = len;
            e.lost = true;
            serve_log_out(&s->log, &e);
        }
        return;
    }
    uint32_t delay = serve_delay_draw(&in->conf.delay, &in->rng);
    if (delay == 0) {
        send_now(s, i, sock, peer, peer_len, bytes, len, &e);
        return;
    }
    serve_pending_t p;
    p.due_ms = clock_ms(CLOCK_MONOTONIC) + delay;
    p.instance = (uint32_t)i;
    p.socket = (uint32_t)sock;
    memcpy(p.peer, peer, peer_len <= sizeof p.peer ? peer_len : sizeof p.peer);
    p.peer_len = peer_len;
    p.delay_ms = delay;
    p.verdict = (int)v;
    p.allowed = allowed;
    p.len = (uint16_t)len;
    memcpy(p.bytes, bytes, len);
    if (!serve_queue_push(&s->queue, &p)) {
        in->n.queue_full++;
    }
}

/* Send the delayed replies that are due; every BATCH of them, a stop signal
 * ends the flush (the queue may hold --max-pending replies due at once). */
static void flush_due(serve_t *s, uint64_t now_mono) {
    const serve_pending_t *p;
    for (size_t n = 1; (p = serve_queue_peek(&s->queue)) != NULL && p->due_ms <= now_mono; n++) {
        if (n % BATCH == 0) {
            take_signals(&s->signals);
            if (stop_signal != 0) {
                break;
            }
        }
        struct sockaddr_storage peer;
        memset(&peer, 0, sizeof peer);
        memcpy(&peer, p->peer, p->peer_len <= sizeof p->peer ? p->peer_len : sizeof p->peer);
        serve_log_out_t e = {0};
        e.server = p->instance;
        e.server_id = sim_server_id(s->inst[p->instance].model);
        e.what = "rate_response";
        e.verdict = sim_server_verdict_name((sim_server_verdict_t)p->verdict);
        e.allowed = p->allowed;
        e.delay_ms = p->delay_ms;
        uint8_t bytes[SERVE_DATAGRAM_MAX];
        size_t len = p->len;
        memcpy(bytes, p->bytes, len);
        size_t inst = p->instance, sock = p->socket;
        socklen_t plen = (socklen_t)p->peer_len;
        serve_queue_pop(&s->queue);
        send_now(s, inst, sock, &peer, plen, bytes, len, &e);
    }
    flush_tx(s);
}

/* ---- one datagram ------------------------------------------------------------- */

static void log_in(serve_t *s, size_t i, const struct sockaddr_storage *peer, const uint8_t *d, size_t len,
                   const char *verdict, int v, const sim_server_result_t *r) {
    if (s->log.f == NULL) {
        return;
    }
    char text[64];
    serve_net_peer_text(peer, text, sizeof text);
    serve_log_in_t e = {clock_ms(CLOCK_REALTIME), (unsigned)i, sim_server_id(s->inst[i].model), text, d, len,
                        verdict, v, r};
    serve_log_in(&s->log, &e);
}

static void on_datagram(serve_t *s, size_t i, size_t sock, const uint8_t *d, size_t len,
                        const struct sockaddr_storage *peer, socklen_t peer_len) {
    instance_t *in = &s->inst[i];
    in->n.received++;
    if (in->down) {
        in->n.down++;
        log_in(s, i, peer, d, len, "down", -1, NULL);
        return;
    }
    if (!serve_ratecap_take(&s->cap, clock_ms(CLOCK_MONOTONIC))) {
        in->n.rate_capped++;
        log_in(s, i, peer, d, len, "rate_capped", -1, NULL);
        return;
    }
    if (in->conf.drop > 0.0 && sim_rng_chance(&in->rng, in->conf.drop)) {
        in->n.script_dropped++;
        log_in(s, i, peer, d, len, "script_drop", -1, NULL);
        return;
    }
    uint64_t now = clock_ms(CLOCK_REALTIME) + (uint64_t)in->conf.skew_ms;
    uint8_t out[SERVE_DATAGRAM_MAX];
    size_t out_len = 0;
    sim_server_result_t r;
    char text[64] = "";
    serve_log_in_t e = {0};
    if (s->log.f != NULL) {
        serve_net_peer_text(peer, text, sizeof text);
        e.wall_ms = clock_ms(CLOCK_REALTIME);
    }
    e.server = (unsigned)i;
    e.peer = text;
    sim_server_verdict_t v = serve_handle_datagram(in->model, now, d, len, out, sizeof out, &out_len, &r, &s->log, &e);
    in->n.verdicts[v]++;
    if (out_len > 0 && (v == SIM_SRV_ADMIN_ANSWERED || v == SIM_SRV_ADMIN_REPLAYED)) {
        reply_admin(s, i, sock, peer, peer_len, out, out_len, v, r.admin_pdu);
    } else if (out_len > 0) {
        reply(s, i, sock, peer, peer_len, out, out_len, v, r.allowed);
    }
    if (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) {
        in->rate_requests++;
        if (in->conf.restart_after != 0 && !in->restart_after_done && in->rate_requests >= in->conf.restart_after) {
            in->restart_after_done = true;
            restart(s, i, "restart_after");
        }
        if (in->conf.down_after != 0 && !in->down && in->rate_requests >= in->conf.down_after) {
            go_down(s, i, "down_after");
        }
    }
}

/* Up to BATCH datagrams of one socket in one recvmmsg, their replies in one
 * sendmmsg. */
static void drain(serve_t *s, size_t i, size_t sock) {
    rx_t *rx = s->rx;
    for (size_t k = 0; k < BATCH; k++) {
        rx->iov[k] = (struct iovec){rx->buf[k], RECV_BUF};
        memset(&rx->msg[k], 0, sizeof rx->msg[k]);
        rx->msg[k].msg_hdr.msg_name = &rx->peer[k];
        rx->msg[k].msg_hdr.msg_namelen = sizeof rx->peer[k];
        rx->msg[k].msg_hdr.msg_iov = &rx->iov[k];
        rx->msg[k].msg_hdr.msg_iovlen = 1;
    }
    int n = recvmmsg(s->inst[i].fd[sock], rx->msg, BATCH, MSG_DONTWAIT, NULL);
    /* n < 0: EAGAIN, or an ICMP error reported on the socket: nothing more now.
     * One recvmmsg() is one listener processing batch (at most one Metrics
     * Query per tenant in it, wire_protocol.md "Metrics Query PDU"). */
    if (n > 0) {
        sim_server_batch_begin(s->inst[i].model);
    }
    for (int k = 0; k < n; k++) {
        /* msg_len is at most the buffer: a datagram over 2048 bytes is seen
         * as 2048 (MSG_TRUNC in msg_flags), and anything over 1200 bytes is
         * rejected by its length. */
        on_datagram(s, i, sock, rx->buf[k], rx->msg[k].msg_len, &rx->peer[k], rx->msg[k].msg_hdr.msg_namelen);
    }
    flush_tx(s);
}

/* ---- setup, loop, summary ----------------------------------------------------- */

static int make_instances(serve_t *s, char *err) {
    const serve_conf_t *c = s->c;
    uint64_t budget = (uint64_t)c->memory_cap_mb << 20;
    uint64_t dedup_max = budget * 3u / 4u / c->n_servers / DEDUP_ENTRY_BYTES;
    uint64_t seed = c->seed;
    if (!c->has_seed && RAND_bytes((unsigned char *)&seed, sizeof seed) != 1) {
        return fail(err, "no random seed from the OS");
    }
    for (size_t i = 0; i < c->n_servers; i++) {
        instance_t *in = &s->inst[i];
        in->conf = c->servers[i];
        sim_server_params_t p = {0};
        p.server_start_s = in->conf.start_s != 0 ? in->conf.start_s : clock_ms(CLOCK_REALTIME) / 1000u;
        p.listener_id = in->conf.listener_id;
        p.node_id = in->conf.node_id;
        uint64_t cap = in->conf.dedup_capacity != 0 ? in->conf.dedup_capacity : 65536u;
        p.dedup_capacity = (uint32_t)(cap < dedup_max ? cap : (dedup_max > 0 ? dedup_max : 1));
        in->dedup_capacity = p.dedup_capacity;
        p.dedup_ttl_cap_ms = in->conf.dedup_ttl_cap_ms;
        p.freshness_ms = in->conf.freshness_ms;
        p.steer_mode = in->conf.steer;
        p.steer_change_p = in->conf.steer_p;
        p.memory_budget_bytes = (uint64_t)c->memory_budget_mb << 20;
        p.backend = 2; /* UDP fallback (wire_protocol.md "Status Response PDU" backend) */
        /* The model's stream draws AES response nonces: always from the OS,
         * never from --seed, so no two runs reuse a nonce under one key. */
        uint64_t model_seed = 0;
        if (RAND_bytes((unsigned char *)&model_seed, sizeof model_seed) != 1) {
            return fail(err, "no random seed from the OS");
        }
        sim_rng_t model_rng;
        sim_rng_seed(&model_rng, model_seed, SIM_STREAM_SERVER, i);
        sim_rng_seed(&in->rng, seed, SIM_STREAM_FAULT, i);
        in->model = sim_server_new(&p, &model_rng);
        if (in->model == NULL) {
            return fail(err, "server %zu: cannot create the server model (start %" PRIu64 ")", i, p.server_start_s);
        }
        in->start_s = p.server_start_s;
        for (size_t t = 0; t < c->n_tenants; t++) {
            if (sim_server_add_tenant(in->model, c->tenants[t]) != 0) {
                return fail(err, "tenant %zu: the server model refused the credential", t);
            }
        }
        sim_server_set_forced_deny(in->model, in->conf.deny);
        sim_server_set_host_memory(in->model, serve_mem_read, &s->mem);
        if (c->has_admin_secret && sim_server_set_admin_key(in->model, c->admin_secret) != 0) {
            return fail(err, "server %zu: cannot set up the admin key", i);
        }
        for (size_t j = 0; j < i; j++) {
            if (sim_server_id(s->inst[j].model) == sim_server_id(in->model)) {
                return fail(err, "servers %zu and %zu: the same server_id %" PRIu64
                                 " (give each its own listener or node)", j, i, sim_server_id(in->model));
            }
        }
        s->n_inst = i + 1;
        if (bind_instance(s, in, err) != 0) {
            return 1;
        }
        sim_server_set_udp_port(in->model, in->port);
    }
    return 0;
}

static void print_counts(FILE *f, const counts_t *n) {
    fprintf(f, "received %" PRIu64, n->received);
    for (int v = 0; v < SIM_SRV_VERDICTS; v++) {
        fprintf(f, ", %s %" PRIu64, sim_server_verdict_name((sim_server_verdict_t)v), n->verdicts[v]);
    }
    fprintf(f,
            ", script_drop %" PRIu64 ", rate_capped %" PRIu64 ", down %" PRIu64 "; sent %" PRIu64 ", injected %" PRIu64
            ", replies_lost %" PRIu64 ", queue_full %" PRIu64 ", send_errors %" PRIu64 ", restarts %" PRIu64
            ", dedup_evicted %" PRIu64 "\n",
            n->script_dropped, n->rate_capped, n->down, n->sent, n->injected, n->replies_lost, n->queue_full, n->send_errors,
            n->restarts, n->dedup_evicted);
}

static void summary(serve_t *s, const char *why) {
    counts_t total = {0};
    fprintf(s->out, "serve: stopped (%s) after %.3f s\n", why,
            (double)(clock_ms(CLOCK_MONOTONIC) - s->t0_mono) / 1000.0);
    for (size_t i = 0; i < s->n_inst; i++) {
        s->inst[i].n.dedup_evicted = sim_server_stats(s->inst[i].model)->dedup_evicted_capacity;
        const counts_t *n = &s->inst[i].n;
        fprintf(s->out, "server %zu server_id %" PRIu64 " port %u: ", i, sim_server_id(s->inst[i].model),
                (unsigned)s->inst[i].port);
        print_counts(s->out, n);
        uint64_t *dst = (uint64_t *)&total;
        const uint64_t *src = (const uint64_t *)n;
        for (size_t k = 0; k < sizeof total / sizeof(uint64_t); k++) {
            dst[k] += src[k];
        }
    }
    fputs("total: ", s->out);
    print_counts(s->out, &total);
    if (s->log.rotations > 0) {
        fprintf(s->out, "log: rotated %" PRIu64 " time(s) at --log-max-bytes %" PRIu64 "\n", s->log.rotations,
                s->log.max_bytes);
    }
    if (s->log.rotate_errno != 0) {
        fprintf(s->out, "log: rotation failed (%s): logging stopped\n", strerror(s->log.rotate_errno));
    }
    if (s->log.unwritten > 0) {
        fprintf(s->out, "log: %" PRIu64 " line(s) not written: the log was not read when the stop signal came\n",
                s->log.unwritten);
    }
    fflush(s->out);
}

/* Milliseconds until the next timer (reply, restart_at, duration); -1 none. */
static int64_t next_timeout(serve_t *s, uint64_t now) {
    int64_t t = -1;
    const serve_pending_t *p = serve_queue_peek(&s->queue);
#define NEAR(at) do { int64_t d_ = (at) > now ? (int64_t)((at) - now) : 0; t = (t < 0 || d_ < t) ? d_ : t; } while (0)
    if (p != NULL) {
        NEAR(p->due_ms);
    }
    for (size_t i = 0; i < s->n_inst; i++) {
        if (s->inst[i].conf.restart_at_s > 0 && !s->inst[i].restart_at_done) {
            NEAR(s->t0_mono + (uint64_t)(s->inst[i].conf.restart_at_s * 1000.0));
        }
        if (s->inst[i].conf.down_at_s > 0 && !s->inst[i].down) {
            NEAR(s->t0_mono + (uint64_t)(s->inst[i].conf.down_at_s * 1000.0));
        }
    }
    if (s->c->duration_s > 0) {
        NEAR(s->t0_mono + (uint64_t)(s->c->duration_s * 1000.0));
    }
#undef NEAR
    return t;
}

static void timers(serve_t *s, uint64_t now) {
    flush_due(s, now);
    for (size_t i = 0; i < s->n_inst; i++) {
        instance_t *in = &s->inst[i];
        if (in->conf.restart_at_s > 0 && !in->restart_at_done &&
            now >= s->t0_mono + (uint64_t)(in->conf.restart_at_s * 1000.0)) {
            in->restart_at_done = true;
            restart(s, i, "restart_at");
        }
        if (in->conf.down_at_s > 0 && !in->down && now >= s->t0_mono + (uint64_t)(in->conf.down_at_s * 1000.0)) {
            go_down(s, i, "down_at");
        }
    }
    if (hup_pending) {
        hup_pending = 0;
        for (size_t i = 0; i < s->n_inst; i++) {
            restart(s, i, "SIGHUP");
        }
    }
}

static const char *loop(serve_t *s, const sigset_t *wait_mask) {
    struct pollfd pfd[SERVE_MAX_SERVERS * SERVE_MAX_LISTEN];
    size_t who[SERVE_MAX_SERVERS * SERVE_MAX_LISTEN][2];
    size_t n = 0;
    for (size_t i = 0; i < s->n_inst; i++) {
        for (size_t k = 0; k < s->inst[i].n_fd; k++) {
            pfd[n] = (struct pollfd){.fd = s->inst[i].fd[k], .events = POLLIN};
            who[n][0] = i;
            who[n][1] = k;
            n++;
        }
    }
    for (;;) {
        uint64_t now = clock_ms(CLOCK_MONOTONIC);
        timers(s, now);
        if (stop_signal != 0) {
            return stop_name();
        }
        if (s->c->duration_s > 0 && now >= s->t0_mono + (uint64_t)(s->c->duration_s * 1000.0)) {
            return "duration";
        }
        int64_t t = next_timeout(s, now);
        struct timespec ts = {t / 1000, (t % 1000) * 1000000};
        /* Handlers run only in here; a signal that stays pending because a
         * socket is readable is taken by take_signals below. */
        int rc = ppoll(pfd, n, t < 0 ? NULL : &ts, wait_mask);
        if (rc < 0 && errno != EINTR) {
            return "poll error";
        }
        /* A signal is acted on before the next batch: at most one batch
         * (BATCH datagrams of one socket) is handled after it arrives. */
        for (size_t k = 0; rc > 0 && k < n; k++) {
            take_signals(&s->signals);
            if (stop_signal != 0) {
                return stop_name();
            }
            if (pfd[k].revents & (POLLIN | POLLERR)) {
                drain(s, who[k][0], who[k][1]);
            }
        }
    }
}

static void teardown(serve_t *s) {
    for (size_t i = 0; i < s->n_inst; i++) {
        close_sockets(&s->inst[i]);
        sim_server_free(s->inst[i].model);
    }
    free(s->inst);
    free(s->rx);
    free(s->tx);
    serve_queue_free(&s->queue);
    serve_log_close(&s->log);
}

int serve_run(const serve_conf_t *c, FILE *out, char *err) {
    static char *const default_listen[] = {"127.0.0.1", "::1"};
    serve_t s;
    memset(&s, 0, sizeof s);
    s.c = c;
    s.out = out;
    s.listen = c->n_listen > 0 ? c->listen : default_listen;
    s.n_listen = c->n_listen > 0 ? c->n_listen : 2;
    s.t0_mono = clock_ms(CLOCK_MONOTONIC);
    uint64_t pending_max = ((uint64_t)c->memory_cap_mb << 20) / 4u / sizeof(serve_pending_t);
    size_t pending = c->max_pending < pending_max ? c->max_pending : (size_t)pending_max;
    s.inst = calloc(c->n_servers, sizeof *s.inst);
    s.rx = calloc(1, sizeof *s.rx);
    s.tx = calloc(1, sizeof *s.tx);
    int rc = 0;
    if (s.inst == NULL || s.rx == NULL || s.tx == NULL || serve_queue_init(&s.queue, pending > 0 ? pending : 1) != 0) {
        rc = fail(err, "out of memory");
    } else if (c->log_path != NULL && serve_log_open(&s.log, c->log_path, c->log_max_bytes) != 0) {
        rc = fail(err, "--log %s: %s", c->log_path, strerror(errno));
    }
    rc = rc == 0 ? make_instances(&s, err) : rc;
    if (rc == 0 && write_zones(&s) != 0) {
        rc = fail(err, "cannot write the zone file: %s", strerror(errno));
    }
    if (rc != 0) {
        teardown(&s);
        return rc;
    }
    serve_ratecap_init(&s.cap, c->rate_cap, clock_ms(CLOCK_MONOTONIC));
    /* Block the signals except inside ppoll(): none is lost between a check
     * of the flags and the wait. */
    sigset_t old;
    sigemptyset(&s.signals);
    sigaddset(&s.signals, SIGINT);
    sigaddset(&s.signals, SIGTERM);
    sigaddset(&s.signals, SIGHUP);
    sigprocmask(SIG_BLOCK, &s.signals, &old);
    struct sigaction sa_stop = {0}, sa_hup = {0}, prev[3];
    sa_stop.sa_handler = on_stop;
    sa_hup.sa_handler = on_hup;
    sigaction(SIGINT, &sa_stop, &prev[0]);
    sigaction(SIGTERM, &sa_stop, &prev[1]);
    sigaction(SIGHUP, &sa_hup, &prev[2]);
    stop_signal = 0;
    hup_pending = 0;
    s.log.room = log_room; /* a log whose reader stalls never holds a stop signal back */
    s.log.room_ctx = &old;
    for (size_t i = 0; i < s.n_inst; i++) {
        fprintf(out, "server %zu: server_id %" PRIu64 " port %u dedup_capacity %" PRIu32 " listen", i,
                sim_server_id(s.inst[i].model), (unsigned)s.inst[i].port, s.inst[i].dedup_capacity);
        for (size_t a = 0; a < s.n_listen; a++) {
            fprintf(out, " %s", s.listen[a]);
        }
        fputc('\n', out);
    }
    fprintf(out, "serve: ready, %zu server(s), %zu tenant(s)%s\n", s.n_inst, c->n_tenants,
            c->has_admin_secret ? ", admin channel on" : "");
    fflush(out);
    const char *why = loop(&s, &old);
    s.log.room = NULL;
    summary(&s, why);
    sigaction(SIGINT, &prev[0], NULL);
    sigaction(SIGTERM, &prev[1], NULL);
    sigaction(SIGHUP, &prev[2], NULL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    teardown(&s);
    return strcmp(why, "poll error") == 0 ? fail(err, "poll: %s", strerror(errno)) : 0;
}
