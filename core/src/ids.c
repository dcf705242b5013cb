/* SPDX-License-Identifier: MIT */
/* ids.c - content-defined bucket and latency-tracker IDs (wire_protocol.md
 * "Content-defined resource identity", "Content-defined latency-tracker identity").
 * BLAKE2s-256 (standard 32-byte digest) truncated to its first 16 bytes; the
 * 16-byte-digest variant is a different function and must not be used. */
#include <blake2.h>
#include <stdint.h>
#include <string.h>

#include "r_client.h"
#include "rl_le.h"

/* Domains include their terminating NUL: 24 and 31 bytes. */
static const char RESOURCE_DOMAIN[] = "ratelimitly.resource.v1";
static const char TRACKER_DOMAIN[] = "ratelimitly.latency-tracker.v1";

static int update_u32(blake2s_state *st, uint32_t v) {
    uint8_t b[4];
    rl_store_u32(b, v);
    return blake2s_update(st, b, sizeof b);
}

/* Hash domain || u32le(name_len) || name || settings[0..n) into out_id. */
static int derive(const char *domain, size_t domain_len, const void *name, size_t name_len,
                  const uint32_t *settings, size_t n_settings, uint8_t out_id[R_CLIENT_ID_LEN]) {
    if (out_id == NULL || (name == NULL && name_len > 0) || name_len > UINT32_MAX) {
        return RCLIENT_ERR_CONFIG;
    }
    blake2s_state st;
    uint8_t digest[BLAKE2S_OUTBYTES];
    int rc = blake2s_init(&st, BLAKE2S_OUTBYTES);
    rc |= blake2s_update(&st, (const uint8_t *)domain, domain_len);
    rc |= update_u32(&st, (uint32_t)name_len);
    if (name_len > 0) {
        rc |= blake2s_update(&st, name, name_len);
    }
    for (size_t i = 0; i < n_settings; i++) {
        rc |= update_u32(&st, settings[i]);
    }
    rc |= blake2s_final(&st, digest, sizeof digest);
    if (rc != 0) {
        return RCLIENT_ERR_CONFIG;
    }
    memcpy(out_id, digest, R_CLIENT_ID_LEN);
    return RCLIENT_OK;
}

int r_client_derive_bucket_id(const void *name, size_t name_len, uint32_t window_size_ms, uint32_t rate_limit,
                              uint8_t out_id[R_CLIENT_ID_LEN]) {
    const uint32_t settings[2] = {window_size_ms, rate_limit};
    return derive(RESOURCE_DOMAIN, sizeof RESOURCE_DOMAIN, name, name_len, settings, 2, out_id);
}

int r_client_derive_latency_tracker_id(const void *name, size_t name_len, uint32_t ttl_ms, uint32_t max_samples,
                                       uint32_t buffer_size, uint32_t min_sample_threshold,
                                       uint8_t out_id[R_CLIENT_ID_LEN]) {
    const uint32_t settings[4] = {ttl_ms, max_samples, buffer_size, min_sample_threshold};
    return derive(TRACKER_DOMAIN, sizeof TRACKER_DOMAIN, name, name_len, settings, 4, out_id);
}
