/* SPDX-License-Identifier: MIT */
/* fuzz_bech32.c - Bech32 text decoder (rl_bech32_decode; BIP-173 as used by
 * wire_protocol.md "Bech32 Credential Formats").
 *
 * Checks: a rejection names a "bech32: " rule and leaves the output cleansed
 * (all zero); an acceptance has a lower-case HRP ending at the last '1', the
 * payload length the data characters imply, and (when the payload was kept
 * whole) re-encodes with rl_bech32_encode to the input, lower-cased. */
#include <string.h>

#include "fuzz_common.h"
#include "rl_bech32.h"

static void check_rejected(const rl_bech32_t *out, const char *why) {
    FUZZ_CHECK(why != NULL && strncmp(why, "bech32: ", 8) == 0);
    const uint8_t *b = (const uint8_t *)out;
    for (size_t i = 0; i < sizeof *out; i++) {
        FUZZ_CHECK(b[i] == 0);
    }
}

static void check_accepted(const char *text, size_t len, const rl_bech32_t *out) {
    const char *sep = NULL;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '1') sep = text + i;
    }
    FUZZ_CHECK(sep != NULL);
    size_t hrp_len = (size_t)(sep - text);
    size_t data_chars = len - hrp_len - 1;
    FUZZ_CHECK(hrp_len >= 1 && hrp_len <= RL_BECH32_HRP_MAX && data_chars >= 6);
    FUZZ_CHECK(strlen(out->hrp) == hrp_len);
    FUZZ_CHECK(out->payload_len == (data_chars - 6) * 5 / 8);
    for (size_t i = 0; i < hrp_len; i++) {
        FUZZ_CHECK(out->hrp[i] == fuzz_lower(text[i]));
    }
    if (out->payload_len > RL_BECH32_PAYLOAD_MAX) {
        return; /* only counted, not stored: nothing to re-encode */
    }
    char *again = malloc(len + 2);
    FUZZ_CHECK(again != NULL);
    int n = rl_bech32_encode(out->hrp, out->payload, out->payload_len, again, len + 2);
    FUZZ_CHECK(n >= 0 && fuzz_equal_lower(text, len, again, (size_t)n));
    free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = (char *)fuzz_dup(data, size);
    rl_bech32_t out;
    memset(&out, 0xA5, sizeof out);
    const char *why = NULL;
    int rc = rl_bech32_decode(text, size, &out, &why);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc == 0) {
        check_accepted(text, size, &out);
    } else {
        check_rejected(&out, why);
    }
    free(text);
    return 0;
}
