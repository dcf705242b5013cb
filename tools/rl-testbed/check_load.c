/* SPDX-License-Identifier: MIT */
/* check_load.c - the `rl-testbed check --load N | --duration S` engine on the
 * public runtime. Open loop (--rate R > 0): request i is due at start + i/R
 * and its latency is timed from that intended moment as well as from its
 * actual submit, so a loop that runs late shows its lateness (no coordinated
 * omission). At the in-flight cap (--max-inflight) due requests wait for a
 * slot: the schedule never changes, each such request is counted, and its
 * wait lands in the latency from its intended time. Closed loop
 * (--concurrency K, or --rate 0 for K = 1): a request is due when one of the K
 * before it completed. The first --warmup requests are run but not counted.
 * Deadlines sit in a binary min-heap on the wall-clock deadline (the
 * runtime's clock); a datagram that did not decide its request may move that
 * request's deadline (api.md "Datagrams and Timers": re-query after every
 * nonterminal datagram), so after a poll turn that received more datagrams
 * than it decided, the keys are re-read and the heap rebuilt. */
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "check_load.h"

#define DEFAULT_MAX_INFLIGHT 4096u
#define NO_POS UINT32_MAX
/* Submissions in one loop turn before the sockets are read (a zero-timeout
 * poll) and the deadlines fired: a loop that is behind its schedule, or a
 * large K, would otherwise send for as long as it is behind and read nothing,
 * the replies overflowing the socket's receive buffer and the requests timing
 * out (check --load 50000 --rate 50000: 49,600 of 50,000 failed against a
 * server that answered every one). */
#define SUBMITS_PER_TURN 32u

typedef struct engine engine_t;

typedef struct {
    const check_cfg_t *cfg;
    uint64_t total;      /* with --load: warm-up + N */
    double gap_us;       /* open loop */
    uint64_t start_us;   /* monotonic */
    uint64_t measure_us; /* first measured request's intended time; 0 before */
    uint64_t next;       /* next request index */
    uint64_t cap_counted;
} sched_t;

typedef struct {
    engine_t *e;
    r_client_req_t *req;
    uint64_t intended_us, sent_us, freed_us; /* monotonic */
    uint64_t deadline_ms;                   /* heap key, wall clock */
    uint32_t heap_pos;                      /* NO_POS: not in the heap */
    bool active, measured;
} slot_t;

struct engine {
    load_result_t r;
    r_client_t *client;
    slot_t *slots;
    uint32_t cap, *free_list, n_free, *heap, n_heap, inflight;
    uint64_t decided; /* every completion, warm-up included */
    sched_t *sc;
};

/* ---- the deadline heap: slot indices ordered by deadline_ms ---- */

static bool earlier(const engine_t *e, uint32_t a, uint32_t b) {
    return e->slots[e->heap[a]].deadline_ms < e->slots[e->heap[b]].deadline_ms;
}

static void heap_swap(engine_t *e, uint32_t a, uint32_t b) {
    uint32_t t = e->heap[a];
    e->heap[a] = e->heap[b];
    e->heap[b] = t;
    e->slots[e->heap[a]].heap_pos = a;
    e->slots[e->heap[b]].heap_pos = b;
}

static void sift_up(engine_t *e, uint32_t i) {
    while (i > 0 && earlier(e, i, (i - 1) / 2)) {
        heap_swap(e, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(engine_t *e, uint32_t i) {
    for (;;) {
        uint32_t l = 2 * i + 1, m = i;
        if (l < e->n_heap && earlier(e, l, m)) {
            m = l;
        }
        if (l + 1 < e->n_heap && earlier(e, l + 1, m)) {
            m = l + 1;
        }
        if (m == i) {
            return;
        }
        heap_swap(e, i, m);
        i = m;
    }
}

static void heap_push(engine_t *e, uint32_t slot) {
    e->heap[e->n_heap] = slot;
    e->slots[slot].heap_pos = e->n_heap++;
    sift_up(e, e->n_heap - 1);
}

static void heap_remove(engine_t *e, uint32_t pos) {
    e->slots[e->heap[pos]].heap_pos = NO_POS;
    if (--e->n_heap == pos) {
        return;
    }
    e->heap[pos] = e->heap[e->n_heap];
    e->slots[e->heap[pos]].heap_pos = pos;
    sift_down(e, pos);
    sift_up(e, pos);
}

static void heap_rekey(engine_t *e) {
    for (uint32_t i = 0; i < e->n_heap; i++) {
        slot_t *s = &e->slots[e->heap[i]];
        s->deadline_ms = r_client_request_deadline_ms(e->client, s->req);
    }
    for (uint32_t i = e->n_heap / 2; i-- > 0;) {
        sift_down(e, i);
    }
    e->r.rekeys++;
}

/* ---- callbacks ---- */

static void on_profile(const r_request_profile_t *p, void *user) {
    engine_t *e = user;
    size_t k = p->phase == R_PHASE_FINAL_RECEIVE ? R_CLIENT_HA_MAX_REPLAY_COUNT + 1 : p->round;
    e->r.rounds[k < R_CLIENT_HA_MAX_REPLAY_COUNT + 1 ? k : R_CLIENT_HA_MAX_REPLAY_COUNT + 1]++;
}

static double cpu_us(void) {
    struct rusage ru;
    (void)getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static uint64_t mono_us(void) {
    uint64_t t = 0;
    (void)r_runtime_monotonic_time_us(&t);
    return t;
}

/* Open loop: how many requests are due by now (those that exist). */
static uint64_t due_by(const sched_t *sc, uint64_t now) {
    uint64_t due = now < sc->start_us ? 0 : (uint64_t)((double)(now - sc->start_us) / sc->gap_us) + 1;
    if (sc->cfg->duration_us == 0) {
        return due < sc->total ? due : sc->total;
    }
    uint64_t limit = sc->cfg->warmup + (uint64_t)ceil((double)sc->cfg->duration_us / sc->gap_us);
    return due < limit ? due : limit;
}

/* The cap is about to free a slot: every request due by now and not yet
 * submitted waited for it (submissions go in index order, so a due request
 * not yet sent while a slot was free would have been sent first). Each is
 * counted once. */
static void count_cap_wait(engine_t *e, uint64_t now) {
    sched_t *sc = e->sc;
    uint64_t due = due_by(sc, now);
    uint64_t from = sc->cap_counted > sc->next ? sc->cap_counted : sc->next;
    e->r.cap_delayed += due > from ? due - from : 0;
    sc->cap_counted = due > sc->cap_counted ? due : sc->cap_counted;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *res, void *user) {
    (void)req;
    slot_t *s = user;
    engine_t *e = s->e;
    uint64_t now = mono_us();
    if (s->measured) {
        check_hist_record(&e->r.from_intended, now - s->intended_us);
        check_hist_record(&e->r.from_sent, now - s->sent_us);
        e->r.done++;
        e->r.failed += res->status != RCLIENT_OK;
        e->r.allowed += res->status == RCLIENT_OK && res->success;
        e->r.denied += res->status == RCLIENT_OK && !res->success;
    } else {
        e->r.warmup_done++;
    }
    if (s->heap_pos != NO_POS) {
        heap_remove(e, s->heap_pos);
    }
    if (e->inflight == e->cap && e->sc->gap_us > 0) {
        count_cap_wait(e, now);
    }
    s->active = false;
    s->req = NULL;
    s->freed_us = now;
    e->free_list[e->n_free++] = (uint32_t)(s - e->slots);
    e->inflight--;
    e->decided++;
}

/* ---- the loop ---- */

/* One ppoll over the runtime's sockets, microsecond timeout. */
static void poll_once(r_runtime_client_t *rt, engine_t *e, uint64_t timeout_us, bool measuring) {
    struct pollfd pfd[8];
    size_t n = r_runtime_socket_count(rt);
    n = n < 8 ? n : 8;
    for (size_t i = 0; i < n; i++) {
        pfd[i] = (struct pollfd){.fd = r_runtime_socket_at(rt, i), .events = POLLIN};
    }
    e->r.polls += measuring;
    struct timespec ts = {.tv_sec = (time_t)(timeout_us / 1000000u), .tv_nsec = (long)(timeout_us % 1000000u) * 1000};
    if (ppoll(pfd, (nfds_t)n, &ts, NULL) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (pfd[i].revents & POLLIN) {
                (void)r_runtime_client_on_readable(rt, pfd[i].fd);
            }
        }
    }
}

/* Fire every due deadline; returns us until the next one (or max_us). */
static uint64_t fire_deadlines(r_runtime_client_t *rt, engine_t *e, uint64_t max_us) {
    uint64_t now_ms = 0;
    (void)r_runtime_wall_time_ms(&now_ms);
    while (e->n_heap > 0 && e->slots[e->heap[0]].deadline_ms <= now_ms) {
        uint32_t idx = e->heap[0];
        slot_t *s = &e->slots[idx];
        heap_remove(e, 0);
        (void)r_runtime_request_on_timeout(rt, s->req);
        if (s->active) { /* a replay round: the next deadline (never the same one again: no spin) */
            uint64_t next = r_client_request_deadline_ms(e->client, s->req);
            s->deadline_ms = next > now_ms ? next : now_ms + 1;
            heap_push(e, idx);
        }
        (void)r_runtime_wall_time_ms(&now_ms);
    }
    if (e->n_heap == 0) {
        return max_us;
    }
    uint64_t d = e->slots[e->heap[0]].deadline_ms;
    uint64_t us = d > now_ms ? (d - now_ms) * 1000u : 0;
    return us < max_us ? us : max_us;
}


static uint64_t intended_at(const sched_t *sc, uint64_t i) {
    return sc->start_us + (uint64_t)((double)i * sc->gap_us);
}

/* Whether request `next` exists at all (its index or its time within the run). */
static bool more(const sched_t *sc, uint64_t now) {
    if (sc->cfg->duration_us == 0) {
        return sc->next < sc->total;
    }
    if (sc->next <= sc->cfg->warmup) {
        return true;
    }
    uint64_t t = sc->gap_us > 0 ? intended_at(sc, sc->next) : now;
    return t < sc->measure_us + sc->cfg->duration_us;
}

static void submit(engine_t *e, sched_t *sc, r_runtime_client_t *rt, const r_resource_request_t *res,
                   const r_latency_guard_t *guards, uint64_t intended, uint64_t now) {
    const check_cfg_t *cfg = sc->cfg;
    bool measured = sc->next >= cfg->warmup;
    if (sc->next == cfg->warmup) {
        sc->measure_us = intended;
        (void)r_runtime_client_stats(rt, &e->r.st); /* the baseline, subtracted at the end */
        e->r.cpu_us = cpu_us();
    }
    sc->next++;
    uint32_t idx = e->free_list[--e->n_free];
    slot_t *s = &e->slots[idx];
    s->intended_us = intended;
    s->sent_us = now;
    s->measured = measured;
    s->active = true;
    s->heap_pos = NO_POS;
    e->inflight++;
    e->r.submitted += measured;
    e->r.most_inflight = e->inflight > e->r.most_inflight ? e->inflight : e->r.most_inflight;
    r_client_req_t *req = NULL;
    int rc = r_client_check_rate_limit_async_borrowed(e->client, res, cfg->n_buckets, guards, cfg->n_guards,
                                                      cfg->label, 0, on_result, s, &req);
    if (rc != RCLIENT_OK) {
        e->r.submit_failed += measured;
        if (s->active) {
            s->active = false;
            s->freed_us = now; /* the closed loop's next intended send */
            e->free_list[e->n_free++] = idx;
            e->inflight--;
        }
        return;
    }
    if (s->active) {
        s->req = req;
        s->deadline_ms = r_client_request_deadline_ms(e->client, req);
        heap_push(e, idx);
    }
}

/* Submit what is due; returns us until the next open-loop submission (or max_us). */
static uint64_t submit_due(engine_t *e, sched_t *sc, r_runtime_client_t *rt, const r_resource_request_t *res,
                           const r_latency_guard_t *guards, uint64_t max_us) {
    uint64_t now = mono_us();
    if (sc->gap_us <= 0) {
        uint32_t k = sc->cfg->concurrency > 0 ? sc->cfg->concurrency : 1;
        for (uint32_t turn = 0; e->inflight < k && more(sc, now); turn++) {
            if (turn == SUBMITS_PER_TURN) {
                return 0; /* read what came back first */
            }
            uint64_t intended = e->slots[e->free_list[e->n_free - 1]].freed_us;
            submit(e, sc, rt, res, guards, intended > 0 ? intended : now, now);
            now = mono_us();
        }
        return max_us;
    }
    for (uint32_t turn = 0; more(sc, now) && intended_at(sc, sc->next) <= now; turn++) {
        if (e->inflight == e->cap) {
            return max_us; /* they wait for a slot (counted when one frees) */
        }
        if (turn == SUBMITS_PER_TURN) {
            return 0; /* read what came back first: the requests still due keep their intended times */
        }
        submit(e, sc, rt, res, guards, intended_at(sc, sc->next), now);
        now = mono_us();
    }
    if (!more(sc, now)) {
        return max_us;
    }
    uint64_t t = intended_at(sc, sc->next);
    return t > now && t - now < max_us ? t - now : t > now ? max_us : 0;
}

static void subtract_stats(r_runtime_stats_t *base, const r_runtime_stats_t *end) {
    r_runtime_stats_t b = *base;
    *base = *end;
    base->sendto_calls -= b.sendto_calls;
    base->sendmmsg_calls -= b.sendmmsg_calls;
    base->recvfrom_calls -= b.recvfrom_calls;
    base->recvmmsg_calls -= b.recvmmsg_calls;
    base->datagrams_sent -= b.datagrams_sent;
    base->datagrams_received -= b.datagrams_received;
    base->send_failures -= b.send_failures;
    base->noise_protocol -= b.noise_protocol;
    base->noise_auth -= b.noise_auth;
}

static void run(engine_t *e, r_runtime_client_t *rt, const check_cfg_t *cfg, const r_resource_request_t *res,
                const r_latency_guard_t *guards) {
    sched_t sc = {.cfg = cfg, .total = cfg->warmup + cfg->load_n, .gap_us = cfg->rate > 0 ? 1e6 / cfg->rate : 0.0};
    sc.start_us = mono_us();
    e->sc = &sc;
    for (;;) {
        uint64_t wait = submit_due(e, &sc, rt, res, guards, 1000000u);
        uint64_t decided = e->decided;
        wait = fire_deadlines(rt, e, wait);
        if (e->inflight == 0 && !more(&sc, mono_us())) {
            break;
        }
        if (e->decided != decided) {
            continue; /* a deadline decided a request: its slot may take the next one at once */
        }
        if (e->inflight == 0 && wait == 0) {
            continue; /* closed loop after a failed submit, or the open loop is due now */
        }
        r_runtime_stats_t before;
        (void)r_runtime_client_stats(rt, &before);
        decided = e->decided;
        poll_once(rt, e, wait, sc.next > cfg->warmup);
        r_runtime_stats_t after;
        (void)r_runtime_client_stats(rt, &after);
        if (after.datagrams_received - before.datagrams_received > e->decided - decided && e->n_heap > 0) {
            heap_rekey(e);
        }
    }
    uint64_t end = mono_us();
    e->r.cpu_us = cpu_us() - e->r.cpu_us;
    e->r.secs = sc.measure_us > 0 && end > sc.measure_us ? (double)(end - sc.measure_us) / 1e6 : 0.0;
    r_runtime_stats_t st;
    (void)r_runtime_client_stats(rt, &st);
    subtract_stats(&e->r.st, &st);
}

static engine_t *engine_new(uint32_t cap) {
    engine_t *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return NULL;
    }
    e->cap = cap;
    e->slots = calloc(cap, sizeof *e->slots);
    e->free_list = calloc(cap, sizeof *e->free_list);
    e->heap = calloc(cap, sizeof *e->heap);
    if (e->slots == NULL || e->free_list == NULL || e->heap == NULL) {
        free(e->slots);
        free(e->free_list);
        free(e->heap);
        free(e);
        return NULL;
    }
    for (uint32_t i = 0; i < cap; i++) {
        e->slots[i].e = e;
        e->slots[i].heap_pos = NO_POS;
        e->free_list[cap - 1 - i] = i;
    }
    e->n_free = cap;
    return e;
}

static void engine_free(engine_t *e) {
    if (e != NULL) {
        free(e->slots);
        free(e->free_list);
        free(e->heap);
        free(e);
    }
}

int check_load_once(const check_cfg_t *cfg, load_result_t *out) {
    uint32_t cap = cfg->concurrency > 0 ? cfg->concurrency
                   : cfg->rate > 0      ? (cfg->max_inflight > 0 ? cfg->max_inflight : DEFAULT_MAX_INFLIGHT)
                                        : 1;
    engine_t *e = engine_new(cap);
    if (e == NULL) {
        fputs("rl-testbed check: out of memory for --load\n", stderr);
        return CHECK_EXIT_FAILED;
    }
    r_runtime_client_t *rt = NULL;
    int rc = check_open(cfg, &rt, on_profile, e);
    r_resource_request_t res[CHECK_MAX_BUCKETS];
    r_latency_guard_t guards[CHECK_MAX_GUARDS];
    if (rc == 0 && check_build_request(cfg, res, guards) != 0) {
        fputs("rl-testbed check: cannot derive the bucket or tracker IDs\n", stderr);
        rc = CHECK_EXIT_USAGE;
    }
    if (rc != 0) {
        r_runtime_client_destroy(rt);
        engine_free(e);
        return rc;
    }
    e->client = r_runtime_client_handle(rt);
    run(e, rt, cfg, res, guards);
    e->r.servers = cfg->n_servers != 0 ? cfg->n_servers : r_client_server_count(e->client);
    *out = e->r;
    r_runtime_client_destroy(rt);
    engine_free(e);
    return 0;
}

int check_run_load(const check_cfg_t *cfg) {
    if (cfg->n_compare_servers > 0) {
        return check_run_compare(cfg);
    }
    load_result_t *r = malloc(sizeof *r);
    if (r == NULL) {
        fputs("rl-testbed check: out of memory for --load\n", stderr);
        return CHECK_EXIT_FAILED;
    }
    int rc = check_load_once(cfg, r);
    if (rc == 0) {
        check_load_print(cfg, r);
        rc = r->failed > 0 || r->submit_failed > 0 ? CHECK_EXIT_FAILED : 0;
    }
    free(r);
    return rc;
}
