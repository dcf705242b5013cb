/* SPDX-License-Identifier: MIT */
/* bench_engine.c - throughput of the simulator substrate (not a test).
 *
 *  engine/hold    10M events, a steady queue of P pending events: each event
 *                 reschedules itself 1..1000 us later (the classic "hold"
 *                 model of a discrete-event queue, as in a running simulation);
 *  engine/batch   10M events scheduled at random times in batches of 1M, then
 *                 run: schedule + run cost with a deep heap;
 *  net/pingpong   datagrams of 100 bytes bouncing between 3 nodes over links
 *                 with uniform latency, jitter and 1 % loss, K in flight, every
 *                 send and delivery hashed into the event log.
 * Wall time is read here only; the simulator itself never reads a clock. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_net.h"

#define TOTAL_EVENTS 10000000ull

static double wall_s(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    sim_engine_t e;
    sim_rng_t rng;
    uint64_t left;
} hold_t;

static void hold_event(void *ctx, uint64_t arg, void *ptr) {
    hold_t *h = ctx;
    if (h->left == 0) {
        return;
    }
    h->left--;
    sim_time_t at = sim_engine_now(&h->e) + 1u + sim_rng_below(&h->rng, 1000);
    if (sim_engine_schedule(&h->e, at, SIM_CLASS_TIMER, hold_event, h, arg, ptr) != 0) {
        abort();
    }
}

static void bench_hold(size_t pending) {
    hold_t h;
    if (sim_engine_init(&h.e) != 0) {
        abort();
    }
    sim_rng_seed(&h.rng, 1, SIM_STREAM_WORKLOAD, 0);
    h.left = TOTAL_EVENTS - pending;
    for (size_t i = 0; i < pending; i++) {
        if (sim_engine_schedule(&h.e, sim_rng_below(&h.rng, 1000), SIM_CLASS_TIMER, hold_event, &h, i, NULL) != 0) {
            abort();
        }
    }
    double t0 = wall_s();
    uint64_t n = sim_engine_run(&h.e, UINT64_MAX);
    double dt = wall_s() - t0;
    printf("engine/hold   pending=%-7zu events=%" PRIu64 "  %.3f s  %.2f M events/s\n", pending, n, dt,
           (double)n / dt / 1e6);
    sim_engine_free(&h.e);
}

static void count_event(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    (void)ptr;
    (*(uint64_t *)ctx)++;
}

static void bench_batch(void) {
    sim_engine_t e;
    if (sim_engine_init(&e) != 0) {
        abort();
    }
    sim_rng_t rng;
    sim_rng_seed(&rng, 2, SIM_STREAM_WORKLOAD, 0);
    uint64_t ran = 0;
    const uint64_t batch = 1000000u;
    double t0 = wall_s();
    for (uint64_t b = 0; b < TOTAL_EVENTS / batch; b++) {
        for (uint64_t i = 0; i < batch; i++) {
            sim_event_class_t cls = (sim_event_class_t)(i & 3u);
            sim_time_t at = sim_engine_now(&e) + sim_rng_below(&rng, 1000000);
            if (sim_engine_schedule(&e, at, cls, count_event, &ran, i, NULL) != 0) {
                abort();
            }
        }
        (void)sim_engine_run(&e, UINT64_MAX);
    }
    double dt = wall_s() - t0;
    printf("engine/batch  batch=%-9" PRIu64 " events=%" PRIu64 "  %.3f s  %.2f M events/s (schedule+run)\n", batch,
           ran, dt, (double)ran / dt / 1e6);
    sim_engine_free(&e);
}

typedef struct {
    sim_net_t *net;
    uint64_t left;
    uint8_t payload[100];
} pingpong_t;

/* Each delivery sends the datagram on to the next node. */
static void bounce(void *ctx, uint32_t src, uint32_t dst, const uint8_t *data, size_t len) {
    (void)src;
    pingpong_t *p = ctx;
    if (p->left == 0) {
        return;
    }
    p->left--;
    if (sim_net_send(p->net, dst, (dst + 1u) % 3u, data, len) != 0) {
        abort();
    }
}

static void bench_net(size_t in_flight, uint64_t total) {
    sim_engine_t e;
    if (sim_engine_init(&e) != 0) {
        abort();
    }
    sim_log_t *log = sim_log_new(NULL);
    sim_rng_t rng;
    sim_rng_seed(&rng, 3, SIM_STREAM_NET, 0);
    sim_link_t link;
    memset(&link, 0, sizeof link);
    link.latency.kind = SIM_LAT_UNIFORM;
    link.latency.base_us = 200;
    link.latency.spread_us = 300;
    link.latency.jitter_us = 20;
    link.loss.kind = SIM_LOSS_BERNOULLI;
    link.loss.p = 0.01;
    pingpong_t p;
    memset(&p, 0, sizeof p);
    p.left = total;
    p.net = sim_net_new(&e, log, &rng, 3, &link, bounce, &p);
    if (log == NULL || p.net == NULL) {
        abort();
    }
    double t0 = wall_s();
    uint64_t events = 0;
    /* Losses end chains: top up to keep `in_flight` datagrams moving. */
    while (p.left > 0) {
        uint64_t live = sim_net_stats(p.net)->sent - sim_net_stats(p.net)->delivered -
                        sim_net_stats(p.net)->dropped[SIM_DROP_LOSS];
        for (uint64_t i = live; i < in_flight && p.left > 0; i++, p.left--) {
            if (sim_net_send(p.net, (uint32_t)(i % 3u), (uint32_t)((i + 1u) % 3u), p.payload, sizeof p.payload) != 0) {
                abort();
            }
        }
        events += sim_engine_run(&e, sim_engine_now(&e) + 10000u);
    }
    events += sim_engine_run(&e, UINT64_MAX);
    double dt = wall_s() - t0;
    const sim_net_stats_t *s = sim_net_stats(p.net);
    char digest[65];
    sim_log_digest(log, digest);
    printf("net/pingpong  in_flight=%-5zu sent=%" PRIu64 " delivered=%" PRIu64 " lost=%" PRIu64
           "  %.3f s  %.2f M packets/s  (%.2f M events/s, %" PRIu64 " log records)\n",
           in_flight, s->sent, s->delivered, s->dropped[SIM_DROP_LOSS], dt, (double)s->sent / dt / 1e6,
           (double)events / dt / 1e6, sim_log_count(log));
    printf("              digest %.16s...\n", digest);
    sim_net_free(p.net);
    sim_log_free(log);
    sim_engine_free(&e);
}

int main(void) {
    bench_hold(1024);
    bench_hold(65536);
    bench_batch();
    bench_net(1000, 5000000u);
    return 0;
}
