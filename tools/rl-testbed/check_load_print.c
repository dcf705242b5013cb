/* SPDX-License-Identifier: MIT */
/* check_load_print.c - the `check --load` summary: text lines (the first
 * three keep their earlier form) or, with --json, one JSON object. Latency
 * quantiles come from the histogram (check_hist.h): nearest rank, reported
 * at most 1/128 above the true value; max exact. */
#include <inttypes.h>
#include <stdio.h>

#include "check_load.h"

static const double QS[] = {0.50, 0.90, 0.99, 0.999};
static const char *const QNAMES[] = {"p50", "p90", "p99", "p99.9"};

static uint64_t syscalls(const r_runtime_stats_t *st) {
    return st->sendto_calls + st->sendmmsg_calls + st->recvfrom_calls + st->recvmmsg_calls;
}

static void text_latency(const char *what, const check_hist_t *h) {
    printf("latency from %s (us):", what);
    for (size_t i = 0; i < 4; i++) {
        printf(" %s %" PRIu64 ",", QNAMES[i], check_hist_quantile(h, QS[i]));
    }
    printf(" max %" PRIu64 "\n", h->max);
}

static void print_text(const check_cfg_t *cfg, const load_result_t *r) {
    printf("load: %" PRIu64 " requests (%zu server(s)%s, %s) in %.3f s: %.1f requests/s", r->submitted, r->servers,
           cfg->n_servers == 0 ? " from DNS" : "", cfg->single_send ? "sendto" : "sendmmsg", r->secs,
           r->secs > 0 ? (double)r->done / r->secs : 0.0);
    if (cfg->rate > 0) {
        printf(" (target %.1f/s)", cfg->rate);
    }
    printf("\ndecisions: allowed %" PRIu64 ", denied %" PRIu64 ", failed %" PRIu64 ", submit errors %" PRIu64 "\n",
           r->allowed, r->denied, r->failed, r->submit_failed);
    if (cfg->rate > 0) {
        printf("mode: open loop, %.1f requests/s, in-flight cap %" PRIu32 "; warm-up %" PRIu64 " requests (not counted)\n",
               cfg->rate, cfg->max_inflight, cfg->warmup);
    } else {
        printf("mode: closed loop, %" PRIu32 " in flight; warm-up %" PRIu64 " requests (not counted)\n",
               cfg->concurrency > 0 ? cfg->concurrency : 1, cfg->warmup);
    }
    text_latency("intended send", &r->from_intended);
    text_latency("actual send", &r->from_sent);
    printf("histogram: log-linear, values under 256 us exact, above them reported at most 1/128 (0.8%%) high\n");
    if (cfg->rate > 0) {
        printf("in-flight cap: reached by %" PRIu64 " submissions (each sent late, the wait counted from its intended"
               " send); most in flight %" PRIu32 "\n", r->cap_delayed, r->most_inflight);
    }
    printf("completion: ");
    for (size_t k = 0; k <= R_CLIENT_HA_MAX_REPLAY_COUNT; k++) {
        if (r->rounds[k] > 0) {
            printf("round %zu %" PRIu64 ", ", k, r->rounds[k]);
        }
    }
    printf("final-receive %" PRIu64 "\n", r->rounds[R_CLIENT_HA_MAX_REPLAY_COUNT + 1]);
    double n = r->submitted > 0 ? (double)r->submitted : 1.0;
    const r_runtime_stats_t *st = &r->st;
    uint64_t sys = syscalls(st);
    printf("syscalls per request: %.2f send/recv (sendmmsg %.2f, sendto %.2f, recvmmsg %.2f, recvfrom %.2f)"
           " + poll %.2f = %.2f\n",
           (double)sys / n, (double)st->sendmmsg_calls / n, (double)st->sendto_calls / n,
           (double)st->recvmmsg_calls / n, (double)st->recvfrom_calls / n, (double)r->polls / n,
           (double)(sys + r->polls) / n);
    printf("datagrams per request: sent %.2f, received %.2f; send failures %" PRIu64 ", noise %" PRIu64 "\n",
           (double)st->datagrams_sent / n, (double)st->datagrams_received / n, st->send_failures,
           st->noise_protocol + st->noise_auth);
    printf("client CPU per request: %.2f us (user + system, this process)\n", r->cpu_us / n);
}

static void json_hist(const char *name, const check_hist_t *h) {
    printf("\"%s\":{", name);
    for (size_t i = 0; i < 4; i++) {
        printf("\"%s\":%" PRIu64 ",", QNAMES[i], check_hist_quantile(h, QS[i]));
    }
    printf("\"max\":%" PRIu64 "}", h->max);
}

static void print_json(const check_cfg_t *cfg, const load_result_t *r) {
    const r_runtime_stats_t *st = &r->st;
    double n = r->submitted > 0 ? (double)r->submitted : 1.0;
    printf("{\"mode\":\"%s\",\"rate\":%.3f,\"concurrency\":%" PRIu32 ",\"max_inflight\":%" PRIu32
           ",\"warmup\":%" PRIu64 ",\"servers\":%zu,\"send\":\"%s\",",
           cfg->rate > 0 ? "open" : "closed", cfg->rate, cfg->rate > 0 ? 0 : cfg->concurrency > 0 ? cfg->concurrency : 1,
           cfg->rate > 0 ? cfg->max_inflight : 0, cfg->warmup, r->servers, cfg->single_send ? "sendto" : "sendmmsg");
    printf("\"requests\":%" PRIu64 ",\"seconds\":%.6f,\"requests_per_s\":%.1f,\"allowed\":%" PRIu64
           ",\"denied\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"submit_errors\":%" PRIu64 ",",
           r->submitted, r->secs, r->secs > 0 ? (double)r->done / r->secs : 0.0, r->allowed, r->denied, r->failed,
           r->submit_failed);
    printf("\"latency_us\":{");
    json_hist("from_intended", &r->from_intended);
    printf(",");
    json_hist("from_sent", &r->from_sent);
    printf(",\"precision\":\"values under 256 exact, above at most 1/128 high\"},");
    printf("\"cap_delayed\":%" PRIu64 ",\"most_inflight\":%" PRIu32 ",", r->cap_delayed, r->most_inflight);
    printf("\"syscalls_per_request\":{\"sendmmsg\":%.4f,\"sendto\":%.4f,\"recvmmsg\":%.4f,\"recvfrom\":%.4f,"
           "\"poll\":%.4f,\"total\":%.4f},",
           (double)st->sendmmsg_calls / n, (double)st->sendto_calls / n, (double)st->recvmmsg_calls / n,
           (double)st->recvfrom_calls / n, (double)r->polls / n, (double)(syscalls(st) + r->polls) / n);
    printf("\"datagrams_per_request\":{\"sent\":%.4f,\"received\":%.4f},\"send_failures\":%" PRIu64
           ",\"noise\":%" PRIu64 ",\"cpu_us_per_request\":%.3f}\n",
           (double)st->datagrams_sent / n, (double)st->datagrams_received / n, st->send_failures,
           st->noise_protocol + st->noise_auth, r->cpu_us / n);
}

void check_load_print(const check_cfg_t *cfg, const load_result_t *r) {
    if (cfg->json) {
        print_json(cfg, r);
    } else {
        print_text(cfg, r);
    }
}
