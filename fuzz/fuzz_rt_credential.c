/* SPDX-License-Identifier: MIT */
/* fuzz_rt_credential.c - credential round trip: decode(encode(x)) == x
 * (rl_credential_encode -> r_client_parse_auth_key_diag, rl_bech32_encode ->
 * rl_credential_parse_secret; wire_protocol.md "Bech32 Credential Formats").
 *
 * Input: a selector (rl-none, rl-cookie, rl-aes, rl-secret), key_id, secret,
 * quota word, then a position and a character for a one-character edit.
 * Checks: an encoded key parses back to the same key when its quota word is
 * valid and is rejected with class quota otherwise; the all-upper-case form
 * parses identically; replacing one data character by another charset
 * character is always rejected as bech32 (BIP-173 detects any single
 * substitution). */
#include <string.h>

#include "fuzz_common.h"
#include "rl_bech32.h"
#include "rl_credential.h"

static const char CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static void check_key(const r_auth_key_info_t *in, const char *text, size_t len) {
    r_api_key_quotas_t q;
    bool quota_ok = r_client_decode_quota_word(in->quota_word, &q, NULL) == RCLIENT_OK;
    r_auth_key_info_t out;
    r_key_diag_t diag;
    int rc = r_client_parse_auth_key_diag(text, len, &out, &diag);
    if (!quota_ok) {
        FUZZ_CHECK(rc == RCLIENT_ERR_CONFIG && diag.reason == R_KEY_ERR_QUOTA);
        return;
    }
    FUZZ_CHECK(rc == RCLIENT_OK);
    FUZZ_CHECK(out.type == in->type && out.key_id == in->key_id && out.quota_word == in->quota_word);
    FUZZ_CHECK(out.has_secret == (in->type != R_AUTH_NONE));
    FUZZ_CHECK(!out.has_secret || memcmp(out.secret, in->secret, R_CLIENT_SECRET_LEN) == 0);
    FUZZ_CHECK(memcmp(&out.quotas, &q, sizeof q) == 0);
    /* All upper case is the same credential (BIP-173: one case only). */
    char upper[160];
    for (size_t i = 0; i <= len; i++) {
        upper[i] = (text[i] >= 'a' && text[i] <= 'z') ? (char)(text[i] - 'a' + 'A') : text[i];
    }
    r_auth_key_info_t out2;
    FUZZ_CHECK(r_client_parse_auth_key(upper, len, &out2) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(&out2, &out, sizeof out) == 0);
}

static void check_secret(const uint8_t secret[32], const char *text, size_t len) {
    uint8_t out[32];
    r_key_diag_t diag;
    FUZZ_CHECK(rl_credential_parse_secret(text, len, out, &diag) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(out, secret, 32) == 0 && diag.reason == R_KEY_OK);
    r_auth_key_info_t info;
    FUZZ_CHECK(r_client_parse_auth_key_diag(text, len, &info, &diag) == RCLIENT_ERR_CONFIG);
    FUZZ_CHECK(diag.reason == R_KEY_ERR_HRP); /* an rl-secret is never an API key */
}

/* One substituted data character must break the checksum. */
static void check_substitution(char *text, size_t len, uint8_t pos_byte, uint8_t ch_byte, bool api_key) {
    const char *sep = strrchr(text, '1');
    FUZZ_CHECK(sep != NULL);
    size_t first = (size_t)(sep - text) + 1;
    size_t pos = first + pos_byte % (len - first);
    char old = text[pos];
    char repl = CHARSET[ch_byte % 32];
    if (repl == old) {
        repl = CHARSET[(ch_byte + 1) % 32];
    }
    text[pos] = repl;
    r_key_diag_t diag;
    int rc;
    if (api_key) {
        r_auth_key_info_t info;
        rc = r_client_parse_auth_key_diag(text, len, &info, &diag);
    } else {
        uint8_t out[32];
        rc = rl_credential_parse_secret(text, len, out, &diag);
    }
    FUZZ_CHECK(rc == RCLIENT_ERR_CONFIG && diag.reason == R_KEY_ERR_BECH32);
    text[pos] = old;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    uint8_t sel = fuzz_u8(&r) % 4;
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = (r_auth_type_t)(sel + 1);
    info.key_id = fuzz_u64(&r);
    fuzz_bytes(&r, info.secret, sizeof info.secret);
    info.quota_word = fuzz_u32(&r);
    uint8_t pos = fuzz_u8(&r), ch = fuzz_u8(&r);
    free(copy);

    char text[160];
    int n;
    if (sel < 3) {
        n = rl_credential_encode(&info, text, sizeof text);
        FUZZ_CHECK(n > 0);
        check_key(&info, text, (size_t)n);
    } else {
        n = rl_bech32_encode("rl-secret", info.secret, sizeof info.secret, text, sizeof text);
        FUZZ_CHECK(n > 0);
        check_secret(info.secret, text, (size_t)n);
    }
    check_substitution(text, (size_t)n, pos, ch, sel < 3);
    return 0;
}
