/* SPDX-License-Identifier: MIT */
/* bench_codec.c - per-operation cost of the foundation codec paths, beside
 * OpenSSL's own AES-256-GCM speed at 256 bytes measured in the same run.
 *
 * Prints ns/op and heap allocations per op for: build+seal a rate request
 * (1 guard, 1 resource) per auth mode, open+parse its response per mode,
 * derive a bucket ID, decode a credential. Targets (issue "Foundation"):
 * AES build+seal and open+parse <= 1.5x the OpenSSL per-op time; none/cookie
 * build <= 150 ns; zero heap allocations on both paths.
 *
 * Usage: bench_codec [iterations]   (default 2000000) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_le.h"
#include "rl_response.h"
#include "rl_wire.h"




static volatile uint64_t g_sink;

typedef struct {
    r_auth_type_t type;
    const char *name;
    rl_auth_t auth;
    r_latency_guard_t guard;
    r_resource_request_t res;
    rl_tenant_header_t hdr;
    uint8_t nonce[RL_AES_NONCE_LEN];
    uint8_t response[RL_MAX_DATAGRAM];
    size_t response_len;
    uint64_t server_id;
} bench_case_t;

static void setup_case(bench_case_t *c, r_auth_type_t type, const char *name) {
    memset(c, 0, sizeof *c);
    c->type = type;
    c->name = name;
    uint8_t secret[32];
    for (int i = 0; i < 32; i++) secret[i] = (uint8_t)(i * 7 + 1);
    if (rl_auth_init(&c->auth, type, secret) != RCLIENT_OK) {
        fprintf(stderr, "bench: auth init failed for %s\n", name);
        exit(1);
    }
    c->guard = (r_latency_guard_t){.threshold_ms = 100, .ttl_ms = 10000, .max_samples = 100,
                                   .buffer_size = 32, .min_sample_threshold = 5};
    r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5, c->guard.latency_tracker_id);
    c->res = (r_resource_request_t){.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    r_client_derive_bucket_id("checkout", 8, 1000, 100, c->res.bucket_id);
    c->hdr.key_id = 72623859790382856ull;
    memset(c->hdr.unique_id, 0x5A, 16);
    c->hdr.time_stamp_ms = 1767225600000ull;
    c->hdr.steering_feedback = 1;
    memset(c->nonce, 0x24, sizeof c->nonce);
    r_client_encode_server_id(1767225600u, 1, 2, &c->server_id);
}

/* The response a server would send: the request modified in place
 * (wire_protocol.md "rate_response PDU"), then sealed. */
static void make_response(bench_case_t *c) {
    size_t len = 0;
    if (rl_encode_rate_request(c->response, sizeof c->response, c->type, &c->hdr, 60, &c->guard, 1, &c->res, 1,
                               NULL, 0, &len) != RCLIENT_OK) {
        fprintf(stderr, "bench: encode failed\n");
        exit(1);
    }
    size_t pdu = RL_TENANT_TLV_SIZE + rl_auth_tlv_size(c->type);
    rl_store_u64(c->response + RL_TENANT_OFF_KEY_ID, c->server_id);
    rl_store_u16(c->response + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(c->response + pdu + 4, 0); /* reserved, reserved */
    rl_store_u32(c->response + pdu + 12 + 36, 7); /* guard current_latency */
    if (rl_auth_seal(&c->auth, c->response, len, c->nonce) != RCLIENT_OK) {
        fprintf(stderr, "bench: seal failed\n");
        exit(1);
    }
    c->response_len = len;
}

static void bench_build(bench_case_t *c, long iters) {
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = 0;
    unsigned long long a0 = g_allocs;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        c->hdr.unique_id[0] = (uint8_t)i;
        rl_encode_rate_request(buf, sizeof buf, c->type, &c->hdr, 60, &c->guard, 1, &c->res, 1, NULL, 0, &len);
        rl_auth_seal(&c->auth, buf, len, c->nonce);
        g_sink += buf[len - 1];
    }
    double ns = (now_ns() - t0) / (double)iters;
    printf("%-34s %9.1f ns/op   allocs/op %.3f\n", c->name, ns, (double)(g_allocs - a0) / (double)iters);
}

static void bench_parse(bench_case_t *c, long iters) {
    uint8_t buf[RL_MAX_DATAGRAM];
    rl_rate_response_t resp;
    rl_verdict_t v;
    unsigned long long a0 = g_allocs;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        memcpy(buf, c->response, c->response_len);
        if (rl_parse_rate_response(&c->auth, buf, c->response_len, c->hdr.unique_id, &c->server_id, 1, &resp, &v) !=
            RL_VERDICT_OK) {
            fprintf(stderr, "bench: parse failed: %s\n", v.reason);
            exit(1);
        }
        g_sink += resp.success;
    }
    double ns = (now_ns() - t0) / (double)iters;
    printf("%-34s %9.1f ns/op   allocs/op %.3f\n", c->name, ns, (double)(g_allocs - a0) / (double)iters);
}

/* OpenSSL's own figure: `openssl speed -evp aes-256-gcm -bytes 256`, in
 * thousands of bytes per second on its last line. Returns ns per 256-byte op. */
static double openssl_speed_ns(void) {
    FILE *p = popen("openssl speed -seconds 1 -evp aes-256-gcm -bytes 256 2>/dev/null", "r");
    if (p == NULL) return -1;
    char line[512];
    double kbps = -1;
    while (fgets(line, sizeof line, p) != NULL) {
        const char *k = strstr(line, "aes-256-gcm");
        if (k == NULL) k = strstr(line, "AES-256-GCM");
        if (k != NULL && strchr(line, 'k') != NULL) {
            double v;
            if (sscanf(k + strlen("aes-256-gcm"), " %lfk", &v) == 1) kbps = v;
        }
    }
    pclose(p);
    return kbps > 0 ? 256.0 / (kbps * 1000.0) * 1e9 : -1;
}

int main(int argc, char **argv) {
    long iters = argc > 1 ? atol(argv[1]) : 2000000;
    if (iters <= 0) {
        fprintf(stderr, "usage: bench_codec [iterations > 0]\n");
        return 2;
    }
    bench_case_t cases[3];
    setup_case(&cases[0], R_AUTH_NONE, "build+seal rate request  none");
    setup_case(&cases[1], R_AUTH_COOKIE, "build+seal rate request  cookie");
    setup_case(&cases[2], R_AUTH_AES, "build+seal rate request  aes");
    printf("bench_codec: %ld iterations per row (1 guard, 1 resource)\n", iters);
    for (int i = 0; i < 3; i++) bench_build(&cases[i], iters);
    static const char *parse_names[3] = {"open+parse rate response  none", "open+parse rate response  cookie",
                                         "open+parse rate response  aes"};
    for (int i = 0; i < 3; i++) {
        make_response(&cases[i]);
        cases[i].name = parse_names[i];
        bench_parse(&cases[i], iters);
    }

    uint8_t id[16];
    unsigned long long a0 = g_allocs;
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        r_client_derive_bucket_id("checkout", 8, 1000, (uint32_t)i, id);
        g_sink += id[0];
    }
    printf("%-34s %9.1f ns/op   allocs/op %.3f\n", "derive bucket_id", (now_ns() - t0) / (double)iters,
           (double)(g_allocs - a0) / (double)iters);

    r_auth_key_info_t info = {.type = R_AUTH_AES, .key_id = 72623859790382856ull, .has_secret = true};
    memset(info.secret, 0x42, 32);
    info.quota_word = 0xf8f2b150u;
    r_client_decode_quota_word(info.quota_word, &info.quotas, NULL);
    char key[160];
    if (rl_credential_encode(&info, key, sizeof key) < 0) {
        fprintf(stderr, "bench: credential encode failed\n");
        return 1;
    }
    long key_iters = iters / 4 > 0 ? iters / 4 : 1;
    a0 = g_allocs;
    t0 = now_ns();
    for (long i = 0; i < key_iters; i++) {
        r_auth_key_info_t out;
        r_client_parse_auth_key(key, 0, &out);
        g_sink += out.key_id;
    }
    printf("%-34s %9.1f ns/op   allocs/op %.3f\n", "decode credential rl-aes", (now_ns() - t0) / (double)key_iters,
           (double)(g_allocs - a0) / (double)key_iters);

    double ossl = openssl_speed_ns();
    if (ossl > 0) {
        printf("%-34s %9.1f ns/op   (openssl speed -evp aes-256-gcm, 256 bytes)\n", "openssl aes-256-gcm reference",
               ossl);
        printf("targets: aes build+seal and open+parse <= %.1f ns (1.5x); none/cookie build <= 150 ns\n", 1.5 * ossl);
    } else {
        printf("openssl aes-256-gcm reference: unavailable (openssl speed failed)\n");
    }
    for (int i = 0; i < 3; i++) rl_auth_release(&cases[i].auth);
    return 0;
}
