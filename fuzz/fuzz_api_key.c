/* SPDX-License-Identifier: MIT */
/* fuzz_api_key.c - API-key credential parser (r_client_parse_auth_key_diag,
 * r_client_parse_auth_key; wire_protocol.md "Bech32 Credential Formats",
 * "Credential Validation Rules").
 *
 * Checks: the rejection class is the first failing stage, derived here from
 * rl_bech32_decode's result and the format table (bech32, hrp, length,
 * version, quota); a rejected key leaves out_info untouched; an accepted key
 * re-encodes (rl_credential_encode) to exactly the input text, lower-cased;
 * both entry points and the NUL-terminated form agree. */
#include <string.h>

#include "fuzz_common.h"
#include "rl_bech32.h"
#include "rl_credential.h"

/* The class the parser must report, staged independently of its code. */
static r_key_error_t expected_class(const char *key, size_t len) {
    rl_bech32_t dec;
    if (rl_bech32_decode(key, len, &dec, NULL) != 0) {
        return R_KEY_ERR_BECH32;
    }
    size_t want = 0;
    if (strcmp(dec.hrp, "rl-none") == 0) {
        want = 13;
    } else if (strcmp(dec.hrp, "rl-cookie") == 0 || strcmp(dec.hrp, "rl-aes") == 0) {
        want = 45;
    } else {
        return R_KEY_ERR_HRP;
    }
    if (dec.payload_len != want) {
        return R_KEY_ERR_LENGTH;
    }
    if (dec.payload[0] != 1) {
        return R_KEY_ERR_VERSION;
    }
    uint32_t word = (uint32_t)dec.payload[want - 4] | ((uint32_t)dec.payload[want - 3] << 8) |
                    ((uint32_t)dec.payload[want - 2] << 16) | ((uint32_t)dec.payload[want - 1] << 24);
    r_api_key_quotas_t q;
    return r_client_decode_quota_word(word, &q, NULL) == RCLIENT_OK ? R_KEY_OK : R_KEY_ERR_QUOTA;
}

static void check_accepted(const char *key, size_t len, const r_auth_key_info_t *info) {
    FUZZ_CHECK(info->type >= R_AUTH_NONE && info->type <= R_AUTH_AES);
    FUZZ_CHECK(info->has_secret == (info->type != R_AUTH_NONE));
    if (!info->has_secret) {
        static const uint8_t zero[R_CLIENT_SECRET_LEN];
        FUZZ_CHECK(memcmp(info->secret, zero, sizeof zero) == 0);
    }
    r_api_key_quotas_t q;
    FUZZ_CHECK(r_client_decode_quota_word(info->quota_word, &q, NULL) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(&q, &info->quotas, sizeof q) == 0);
    char text[256];
    int n = rl_credential_encode(info, text, sizeof text);
    FUZZ_CHECK(n > 0);
    FUZZ_CHECK(fuzz_equal_lower(key, len, text, (size_t)n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *key = fuzz_dup_cstr(data, size); /* exact bytes, plus a NUL the length-given calls never read */
    size_t len = size;
    r_auth_key_info_t info, untouched;
    memset(&info, 0xA5, sizeof info);
    untouched = info;
    r_key_diag_t diag;
    memset(&diag, 0x5A, sizeof diag);
    /* key_len 0 means NUL-terminated: the empty input goes that way. */
    int rc = r_client_parse_auth_key_diag(key, len, &info, &diag);
    FUZZ_CHECK(rc == RCLIENT_OK || rc == RCLIENT_ERR_CONFIG);
    FUZZ_CHECK(fuzz_message_ok(diag.message, sizeof diag.message));
    FUZZ_CHECK(diag.reason == expected_class(key, len));
    if (rc == RCLIENT_OK) {
        FUZZ_CHECK(diag.reason == R_KEY_OK && diag.message[0] == '\0');
        check_accepted(key, len, &info);
    } else {
        FUZZ_CHECK(diag.reason >= R_KEY_ERR_BECH32 && diag.reason <= R_KEY_ERR_QUOTA);
        FUZZ_CHECK(memcmp(&info, &untouched, sizeof info) == 0);
    }
    /* The diag-less entry point decides the same. */
    r_auth_key_info_t plain = untouched;
    FUZZ_CHECK(r_client_parse_auth_key(key, len, &plain) == rc);
    FUZZ_CHECK(memcmp(&plain, &info, sizeof plain) == 0);
    /* The NUL-terminated form of a NUL-free key decides the same. */
    if (len > 0 && memchr(key, '\0', len) == NULL) {
        r_auth_key_info_t z = untouched;
        r_key_diag_t zdiag;
        FUZZ_CHECK(r_client_parse_auth_key_diag(key, 0, &z, &zdiag) == rc);
        FUZZ_CHECK(zdiag.reason == diag.reason && memcmp(&z, &info, sizeof z) == 0);
    }
    free(key);
    return 0;
}
