/* SPDX-License-Identifier: MIT */
/* bench_sim_server.c - throughput of the reference server model: one
 * client-encoded AES request (1 guard, 2 resources) handled by 3 servers and
 * an oracle instance, with a latency report every 16 requests and a replay
 * every 8, at 10,000 requests per simulated second (dedup entries expire
 * continuously). Prints handled datagrams per wall second, the logical
 * request rate this allows, and heap allocations per datagram after warm-up
 * (the model allocates only while its tables grow).
 *
 * usage: bench_sim_server [REQUESTS [WARMUP]] (defaults 1000000, 100000).
 * Instructions per datagram (bench/README.md): run it under
 * valgrind --tool=callgrind --toggle-collect=sim_server_handle with small
 * counts and divide the total by the "handle calls" printed. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in bench_util.h */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_wire.h"
#include "sim_rng_weak.h"
#include "sim_server.h"

#define N_SERVERS 4

static int make_key(char *cred, size_t cap, rl_auth_t *auth) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = R_AUTH_AES;
    info.key_id = 42;
    info.has_secret = true;
    memset(info.secret, 0x5c, sizeof info.secret);
    info.quota_word = 0xf8f2b150u;
    if (r_client_decode_quota_word(info.quota_word, &info.quotas, NULL) != RCLIENT_OK ||
        rl_credential_encode(&info, cred, cap) < 0) {
        return -1;
    }
    return rl_auth_init(auth, R_AUTH_AES, info.secret) == RCLIENT_OK ? 0 : -1;
}

int main(int argc, char **argv) {
    uint32_t requests = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 1000000u;
    uint32_t warmup = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 100000u;
    if (requests == 0) {
        fputs("usage: bench_sim_server [REQUESTS [WARMUP]] (REQUESTS >= 1)\n", stderr);
        return 2;
    }
    char cred[200];
    rl_auth_t auth;
    if (make_key(cred, sizeof cred, &auth) != 0) {
        return 1;
    }
    sim_server_t *srv[N_SERVERS];
    for (int i = 0; i < N_SERVERS; i++) {
        sim_server_params_t p;
        memset(&p, 0, sizeof p);
        p.server_start_s = 1767225600ull - (uint64_t)i;
        p.node_id = (uint16_t)i;
        sim_rng_t rng;
        sim_rng_seed(&rng, 1, SIM_STREAM_SERVER, (uint64_t)i);
        srv[i] = sim_server_new(&p, &rng);
        if (srv[i] == NULL || sim_server_add_tenant(srv[i], cred) != 0) {
            return 1;
        }
    }
    r_latency_guard_t g = {.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                           .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("db", 2, 10000, 100, 32, 5, g.latency_tracker_id);
    r_resource_request_t r[2] = {{.window_size_ms = 1000, .rate_limit = 5000, .tokens_requested = 1},
                                 {.window_size_ms = 60000, .rate_limit = 1000000, .tokens_requested = 2}};
    r_client_derive_bucket_id("api", 3, 1000, 5000, r[0].bucket_id);
    r_client_derive_bucket_id("user", 4, 60000, 1000000, r[1].bucket_id);
    r_service_latency_report_t rep = {.ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                                      .min_sample_threshold = 5};
    memcpy(rep.latency_tracker_id, g.latency_tracker_id, 16);

    uint8_t buf[1200], out[1200];
    size_t out_len = 0;
    uint64_t handled = 0, answered = 0, calls = 0;
    unsigned long long allocs0 = 0;
    double t0 = 0;
    for (uint32_t n = 0; n < warmup + requests; n++) {
        if (n == warmup) {
            allocs0 = g_allocs;
            t0 = now_ns();
        }
        uint64_t now = 1767225600000ull + n / 10u; /* 10 requests per ms */
        rl_tenant_header_t h = {.key_id = 42, .time_stamp_ms = now, .steering_feedback = 1};
        memcpy(h.unique_id, &n, sizeof n);
        uint8_t nonce[12] = {0};
        memcpy(nonce, &n, sizeof n);
        size_t len = 0;
        int rc = (n % 16u == 15u) ? rl_encode_latency_report(buf, sizeof buf, R_AUTH_AES, &h, &rep, 1, &len)
                                  : rl_encode_rate_request(buf, sizeof buf, R_AUTH_AES, &h, 60, &g, 1, r, 2, NULL, 0, &len);
        rep.observed_latency = 20u + n % 50u;
        if (rc != RCLIENT_OK || rl_auth_seal(&auth, buf, len, nonce) != RCLIENT_OK) {
            return 1;
        }
        int copies = (n % 8u == 7u) ? 2 : 1; /* a replay now and then */
        for (int c = 0; c < copies; c++) {
            for (int i = 0; i < N_SERVERS; i++) {
                sim_server_verdict_t v = sim_server_handle(srv[i], now, buf, len, out, sizeof out, &out_len, NULL);
                answered += (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) ? 1u : 0u;
                handled += n >= warmup ? 1u : 0u;
                calls++;
            }
        }
    }
    double secs = (now_ns() - t0) / 1e9;
    unsigned long long allocs = g_allocs - allocs0;
    printf("bench_sim_server: %llu datagrams in %.3f s: %.0f datagrams/s, %.0f logical requests/s "
           "(4 instances), %.4f allocations per datagram, answered %llu\n",
           (unsigned long long)handled, secs, (double)handled / secs, (double)requests / secs,
           (double)allocs / (double)handled, (unsigned long long)answered);
    printf("handle calls (warm-up included): %llu\n", (unsigned long long)calls);
    for (int i = 0; i < N_SERVERS; i++) {
        const sim_server_stats_t *st = sim_server_stats(srv[i]);
        if (i == 0) {
            printf("server 0: answered %llu replayed %llu reports %llu, dedup live max %llu\n",
                   (unsigned long long)st->verdicts[SIM_SRV_ANSWERED],
                   (unsigned long long)st->verdicts[SIM_SRV_REPLAYED],
                   (unsigned long long)st->verdicts[SIM_SRV_REPORT], (unsigned long long)st->dedup_live_max);
        }
        sim_server_free(srv[i]);
    }
    rl_auth_release(&auth);
    return 0;
}
