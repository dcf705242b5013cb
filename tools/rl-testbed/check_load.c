/* check_load.c - the `rl-testbed check --load N --rate R` engine: N requests
 * on the public runtime, open loop at R requests/s (R = 0: the next request
 * when the previous one completed), then throughput, decision-latency
 * quantiles (nearest rank), the completion rounds and the runtime's own
 * syscalls per request (sendto/sendmmsg/recvfrom from r_runtime_stats_t, plus
 * this loop's ppoll calls). Latency is submit to callback, monotonic clock. */
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MAX_INFLIGHT 4096u

typedef struct load load_t;

typedef struct {
    load_t *load;
    r_client_req_t *req; /* NULL: free */
    uint64_t t0_us;
} slot_t;

struct load {
    slot_t slots[MAX_INFLIGHT];
    size_t inflight;
    uint32_t *lat_us;   /* one per completed request */
    uint64_t done;
    uint64_t allowed, denied, failed;
    uint64_t rounds[R_CLIENT_HA_MAX_REPLAY_COUNT + 2]; /* [k] round k, [N+1] final receive phase */
    uint64_t polls;
};

static void on_profile(const r_request_profile_t *p, void *user) {
    load_t *l = user;
    size_t k = p->phase == R_PHASE_FINAL_RECEIVE ? R_CLIENT_HA_MAX_REPLAY_COUNT + 1 : p->round;
    l->rounds[k < R_CLIENT_HA_MAX_REPLAY_COUNT + 1 ? k : R_CLIENT_HA_MAX_REPLAY_COUNT + 1]++;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    slot_t *s = user;
    load_t *l = s->load;
    uint64_t now = 0;
    (void)r_runtime_monotonic_time_us(&now);
    uint64_t d = now - s->t0_us;
    l->lat_us[l->done++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    if (r->status != RCLIENT_OK) {
        l->failed++;
    } else if (r->success) {
        l->allowed++;
    } else {
        l->denied++;
    }
    s->req = NULL;
    l->inflight--;
}

static slot_t *free_slot(load_t *l) {
    for (size_t i = 0; i < MAX_INFLIGHT; i++) {
        if (l->slots[i].req == NULL) {
            return &l->slots[i];
        }
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least q of the samples at or below it. */
static uint32_t quantile(const uint32_t *sorted, uint64_t n, double q) {
    uint64_t rank = (uint64_t)ceil(q * (double)n);
    return sorted[rank == 0 ? 0 : rank - 1];
}

/* Fire every due deadline; the earliest remaining one (ms from now) or 1000. */
static uint64_t drive_deadlines(r_runtime_client_t *rt, load_t *l) {
    uint64_t next = 1000;
    for (size_t i = 0; i < MAX_INFLIGHT && l->inflight > 0; i++) {
        if (l->slots[i].req == NULL) {
            continue;
        }
        uint64_t d = 0;
        (void)r_runtime_request_delay_ms(rt, l->slots[i].req, &d);
        if (d == 0) {
            (void)r_runtime_request_on_timeout(rt, l->slots[i].req);
            if (l->slots[i].req != NULL && r_runtime_request_delay_ms(rt, l->slots[i].req, &d) == RCLIENT_OK &&
                d < next) {
                next = d;
            }
        } else if (d < next) {
            next = d;
        }
    }
    return next;
}

/* One ppoll (microsecond timeout: an open loop at R/s sleeps until its next submission
 * instead of spinning on a zero millisecond timeout). */
static void poll_once(r_runtime_client_t *rt, load_t *l, uint64_t timeout_us) {
    struct pollfd pfd[8];
    size_t n = r_runtime_socket_count(rt);
    n = n < 8 ? n : 8;
    for (size_t i = 0; i < n; i++) {
        pfd[i] = (struct pollfd){.fd = r_runtime_socket_at(rt, i), .events = POLLIN};
    }
    l->polls++;
    struct timespec ts = {.tv_sec = (time_t)(timeout_us / 1000000u), .tv_nsec = (long)(timeout_us % 1000000u) * 1000};
    if (ppoll(pfd, (nfds_t)n, &ts, NULL) > 0) {
        for (size_t i = 0; i < n; i++) {
            if (pfd[i].revents & POLLIN) {
                (void)r_runtime_client_on_readable(rt, pfd[i].fd);
            }
        }
    }
}

/* servers: those given, or with DNS the membership found (at the end). */
static void print_summary(const check_cfg_t *cfg, load_t *l, size_t servers, uint64_t submitted,
                          uint64_t submit_failed, double secs, const r_runtime_stats_t *st) {
    printf("load: %" PRIu64 " requests (%zu server(s)%s, %s) in %.3f s: %.1f requests/s", submitted, servers,
           cfg->n_servers == 0 ? " from DNS" : "", cfg->single_send ? "sendto" : "sendmmsg", secs,
           secs > 0 ? (double)l->done / secs : 0.0);
    if (cfg->rate > 0) {
        printf(" (target %.1f/s)", cfg->rate);
    }
    printf("\ndecisions: allowed %" PRIu64 ", denied %" PRIu64 ", failed %" PRIu64 ", submit errors %" PRIu64 "\n",
           l->allowed, l->denied, l->failed, submit_failed);
    if (l->done > 0) {
        qsort(l->lat_us, (size_t)l->done, sizeof l->lat_us[0], cmp_u32);
        printf("latency (us): p50 %" PRIu32 ", p90 %" PRIu32 ", p99 %" PRIu32 ", max %" PRIu32 "\n",
               quantile(l->lat_us, l->done, 0.50), quantile(l->lat_us, l->done, 0.90),
               quantile(l->lat_us, l->done, 0.99), l->lat_us[l->done - 1]);
    }
    printf("completion: ");
    for (size_t k = 0; k <= R_CLIENT_HA_MAX_REPLAY_COUNT; k++) {
        if (l->rounds[k] > 0) {
            printf("round %zu %" PRIu64 ", ", k, l->rounds[k]);
        }
    }
    printf("final-receive %" PRIu64 "\n", l->rounds[R_CLIENT_HA_MAX_REPLAY_COUNT + 1]);
    double n = submitted > 0 ? (double)submitted : 1.0;
    uint64_t sys = st->sendto_calls + st->sendmmsg_calls + st->recvfrom_calls;
    printf("syscalls per request: %.2f send/recv (sendmmsg %.2f, sendto %.2f, recvfrom %.2f) + poll %.2f = %.2f\n",
           (double)sys / n, (double)st->sendmmsg_calls / n, (double)st->sendto_calls / n,
           (double)st->recvfrom_calls / n, (double)l->polls / n, (double)(sys + l->polls) / n);
    printf("datagrams per request: sent %.2f, received %.2f; send failures %" PRIu64 ", noise %" PRIu64 "\n",
           (double)st->datagrams_sent / n, (double)st->datagrams_received / n, st->send_failures,
           st->noise_protocol + st->noise_auth);
}

int check_run_load(const check_cfg_t *cfg) {
    load_t *l = calloc(1, sizeof *l);
    if (l == NULL || (l->lat_us = malloc((size_t)cfg->load_n * sizeof l->lat_us[0])) == NULL) {
        free(l);
        fputs("rl-testbed check: out of memory for --load\n", stderr);
        return CHECK_EXIT_FAILED;
    }
    r_runtime_client_t *rt = NULL;
    int rc = check_open(cfg, &rt, on_profile, l);
    r_resource_request_t res[CHECK_MAX_BUCKETS];
    r_latency_guard_t guards[CHECK_MAX_GUARDS];
    if (rc == 0 && check_build_request(cfg, res, guards) != 0) {
        fputs("rl-testbed check: cannot derive the bucket or tracker IDs\n", stderr);
        rc = CHECK_EXIT_USAGE;
    }
    if (rc != 0) {
        r_runtime_client_destroy(rt);
        free(l->lat_us);
        free(l);
        return rc;
    }
    for (size_t i = 0; i < MAX_INFLIGHT; i++) {
        l->slots[i].load = l;
    }
    r_client_t *client = r_runtime_client_handle(rt);
    uint64_t start = 0, now = 0, submitted = 0, submit_failed = 0;
    (void)r_runtime_monotonic_time_us(&start);
    double gap_us = cfg->rate > 0 ? 1e6 / cfg->rate : 0.0;
    while (submitted < cfg->load_n || l->inflight > 0) {
        (void)r_runtime_monotonic_time_us(&now);
        /* Submit everything due (open loop), or one when idle (closed loop). */
        while (submitted < cfg->load_n && l->inflight < MAX_INFLIGHT &&
               (cfg->rate > 0 ? (double)(now - start) >= (double)submitted * gap_us : l->inflight == 0)) {
            slot_t *s = free_slot(l);
            s->t0_us = now;
            r_client_req_t *req = NULL;
            rc = r_client_check_rate_limit_async_borrowed(client, res, cfg->n_buckets, guards, cfg->n_guards,
                                                          cfg->label, 0, on_result, s, &req);
            submitted++;
            if (rc != RCLIENT_OK) {
                submit_failed++;
                continue;
            }
            s->req = req;
            l->inflight++;
        }
        uint64_t timeout_us = drive_deadlines(rt, l) * 1000u;
        if (submitted < cfg->load_n && cfg->rate > 0) {
            (void)r_runtime_monotonic_time_us(&now);
            double due = (double)submitted * gap_us - (double)(now - start);
            uint64_t us = due <= 0 ? 0 : (uint64_t)due;
            timeout_us = us < timeout_us ? us : timeout_us;
        }
        /* Nothing in flight (the last request was decided on its deadline,
         * or every submit failed): the closed loop submits again at once and
         * the open loop sleeps until its next submission only. */
        bool next_due_later = cfg->rate > 0 && submitted < cfg->load_n;
        if (l->inflight > 0 || (next_due_later && timeout_us > 0)) {
            poll_once(rt, l, timeout_us);
        }
    }
    (void)r_runtime_monotonic_time_us(&now);
    r_runtime_stats_t st;
    (void)r_runtime_client_stats(rt, &st);
    size_t servers = cfg->n_servers != 0 ? cfg->n_servers : r_client_server_count(r_runtime_client_handle(rt));
    print_summary(cfg, l, servers, submitted, submit_failed, (double)(now - start) / 1e6, &st);
    int exit_code = l->failed > 0 || submit_failed > 0 ? CHECK_EXIT_FAILED : 0;
    r_runtime_client_destroy(rt);
    free(l->lat_us);
    free(l);
    return exit_code;
}
