/* SPDX-License-Identifier: MIT */
/* fuzz_quota_word.c - the version-1 quota word decoder
 * (r_client_decode_quota_word; wire_protocol.md "API-key quota word, format
 * version 1") on the first 4 input bytes, little-endian as in a credential.
 *
 * Checks: acceptance and every decoded value against the bit layout written
 * out here; rejection class quota with the output untouched; encode(decode(w))
 * == w (rl_quota_encode: the layout uses all 32 bits, so decoding is 1:1). */
#include <string.h>

#include "fuzz_common.h"
#include "rl_credential.h"

static uint32_t bits(uint32_t w, unsigned shift, unsigned width) {
    return (w >> shift) & ((1u << width) - 1u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    uint32_t word = fuzz_u32(&r);
    free(copy);

    uint32_t rate = bits(word, 0, 5), latency = bits(word, 5, 5), labels = bits(word, 10, 5);
    uint32_t buffer = bits(word, 15, 4), dedup = bits(word, 19, 8), window = bits(word, 27, 5);
    bool valid = rate <= 24 && latency <= 24 && dedup >= 1 && dedup <= 200;

    r_api_key_quotas_t q, untouched;
    memset(&q, 0xA5, sizeof q);
    untouched = q;
    r_key_diag_t diag;
    int rc = r_client_decode_quota_word(word, &q, &diag);
    FUZZ_CHECK(fuzz_message_ok(diag.message, sizeof diag.message));
    FUZZ_CHECK((rc == RCLIENT_OK) == valid);
    if (!valid) {
        FUZZ_CHECK(rc == RCLIENT_ERR_CONFIG && diag.reason == R_KEY_ERR_QUOTA);
        FUZZ_CHECK(memcmp(&q, &untouched, sizeof q) == 0);
        FUZZ_CHECK(r_client_decode_quota_word(word, &q, NULL) == RCLIENT_ERR_CONFIG);
        return 0;
    }
    FUZZ_CHECK(diag.reason == R_KEY_OK && diag.message[0] == '\0');
    FUZZ_CHECK(q.rate_buckets_max == 1u << rate);
    FUZZ_CHECK(q.latency_services_max == 1u << latency);
    FUZZ_CHECK(q.metrics_labels_max == 1u << labels);
    FUZZ_CHECK(q.latency_buffer_size_max == 1u << buffer);
    FUZZ_CHECK(q.dedup_ttl_ms_max == dedup * 10u);
    FUZZ_CHECK(q.rate_window_size_ms_max == (window == 31 ? 4294967295u : 1u << window));
    uint32_t back = 0;
    FUZZ_CHECK(rl_quota_encode(&q, &back) == RCLIENT_OK && back == word);
    return 0;
}
