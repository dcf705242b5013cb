/* SPDX-License-Identifier: MIT */
/* fuzz_secret_key.c - rl-secret credential parser (rl_credential_parse_secret;
 * wire_protocol.md "Bech32 Credential Formats").
 *
 * Checks: class staging bech32 -> hrp (rl-secret only) -> length (32 bytes);
 * out_secret untouched on rejection; an accepted secret re-encodes
 * (rl_bech32_encode "rl-secret") to the input text, lower-cased. */
#include <string.h>

#include "fuzz_common.h"
#include "rl_bech32.h"
#include "rl_credential.h"

static r_key_error_t expected_class(const char *key, size_t len) {
    rl_bech32_t dec;
    if (rl_bech32_decode(key, len, &dec, NULL) != 0) {
        return R_KEY_ERR_BECH32;
    }
    if (strcmp(dec.hrp, "rl-secret") != 0) {
        return R_KEY_ERR_HRP;
    }
    return dec.payload_len == RL_SECRET_PAYLOAD ? R_KEY_OK : R_KEY_ERR_LENGTH;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *key = fuzz_dup_cstr(data, size);
    uint8_t secret[R_CLIENT_SECRET_LEN], untouched[R_CLIENT_SECRET_LEN];
    memset(secret, 0xA5, sizeof secret);
    memcpy(untouched, secret, sizeof secret);
    r_key_diag_t diag;
    memset(&diag, 0x5A, sizeof diag);
    int rc = rl_credential_parse_secret(key, size, secret, &diag);
    FUZZ_CHECK(rc == RCLIENT_OK || rc == RCLIENT_ERR_CONFIG);
    FUZZ_CHECK(fuzz_message_ok(diag.message, sizeof diag.message));
    FUZZ_CHECK(diag.reason == expected_class(key, size));
    if (rc == RCLIENT_OK) {
        FUZZ_CHECK(diag.reason == R_KEY_OK && diag.message[0] == '\0');
        char text[128];
        int n = rl_bech32_encode("rl-secret", secret, sizeof secret, text, sizeof text);
        FUZZ_CHECK(n > 0 && fuzz_equal_lower(key, size, text, (size_t)n));
    } else {
        FUZZ_CHECK(memcmp(secret, untouched, sizeof secret) == 0);
    }
    /* Without a diag the decision is the same. */
    uint8_t again[R_CLIENT_SECRET_LEN];
    memcpy(again, untouched, sizeof again);
    FUZZ_CHECK(rl_credential_parse_secret(key, size, again, NULL) == rc);
    FUZZ_CHECK(memcmp(again, secret, sizeof again) == 0);
    free(key);
    return 0;
}
