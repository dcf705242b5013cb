/* SPDX-License-Identifier: MIT */
/* fuzz_rt_quota.c - quota word round trip (rl_quota_encode ->
 * r_client_decode_quota_word; wire_protocol.md "API-key quota word, format
 * version 1").
 *
 * Input: a mode byte, then six 32-bit values. Mode 0 takes them raw; mode 1
 * maps each to a power of two (and dedup to a multiple of 10) so the
 * representable region is reached often. Checks: the encoder accepts exactly
 * the representable quotas (predicate written out here) and decoding its word
 * gives the quotas back. */
#include <string.h>

#include "fuzz_common.h"
#include "rl_credential.h"

static bool pow2_upto(uint32_t v, unsigned max_exp) {
    return v != 0 && (v & (v - 1u)) == 0 && v <= (1u << max_exp);
}

static bool representable(const r_api_key_quotas_t *q) {
    uint32_t d = q->dedup_ttl_ms_max;
    return pow2_upto(q->rate_buckets_max, 24) && pow2_upto(q->latency_services_max, 24) &&
           pow2_upto(q->metrics_labels_max, 31) && pow2_upto(q->latency_buffer_size_max, 15) && d >= 10 &&
           d <= 2000 && d % 10 == 0 &&
           (q->rate_window_size_ms_max == 4294967295u || pow2_upto(q->rate_window_size_ms_max, 30));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    bool shaped = fuzz_u8(&r) & 1u;
    uint32_t v[6];
    for (size_t i = 0; i < 6; i++) {
        v[i] = fuzz_u32(&r);
    }
    free(copy);
    if (shaped) {
        for (size_t i = 0; i < 6; i++) {
            v[i] = (i == 4) ? (v[i] % 256u) * 10u : (v[i] % 33u == 32u ? 4294967295u : 1u << (v[i] % 33u));
        }
    }
    r_api_key_quotas_t q = {v[0], v[1], v[2], v[3], v[4], v[5]};
    uint32_t word = 0xA5A5A5A5u;
    int rc = rl_quota_encode(&q, &word);
    FUZZ_CHECK((rc == RCLIENT_OK) == representable(&q));
    if (rc != RCLIENT_OK) {
        FUZZ_CHECK(rc == RCLIENT_ERR_CONFIG && word == 0xA5A5A5A5u);
        return 0;
    }
    r_api_key_quotas_t back;
    FUZZ_CHECK(r_client_decode_quota_word(word, &back, NULL) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(&back, &q, sizeof q) == 0);
    return 0;
}
