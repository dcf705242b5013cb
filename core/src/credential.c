/* SPDX-License-Identifier: MIT */
/* credential.c - API-key and rl-secret credentials (wire_protocol.md
 * "Bech32 Credential Formats", "Credential Validation Rules"; api.md
 * "Credentials", "Configuration").
 *
 * Rejections are classified in the order bech32, hrp, length, version,
 * quota: the first class that applies is reported. Every decoded copy of a
 * payload (which holds secret material for rl-cookie, rl-aes and rl-secret)
 * is cleansed before returning, on success and on failure. */
#include "rl_credential.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_bech32.h"
#include "rl_le.h"

#define RL_KEY_FORMAT_VERSION 1u
/* Payload offsets, wire_protocol.md "rl-none", "rl-cookie", "rl-aes". */
#define OFF_VERSION 0u
#define OFF_KEY_ID 1u
#define OFF_SECRET 9u
#define OFF_QUOTAS_NONE 9u
#define OFF_QUOTAS_SECRET (OFF_SECRET + R_CLIENT_SECRET_LEN)

void rl_key_diag_set(r_key_diag_t *diag, r_key_error_t reason, const char *fmt, ...) {
    if (diag == NULL) {
        return;
    }
    diag->reason = reason;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(diag->message, sizeof(diag->message), fmt, ap);
    va_end(ap);
}

typedef struct {
    const char *hrp;
    r_auth_type_t type;
    size_t payload_len;
} key_format_t;

static const key_format_t KEY_FORMATS[] = {
    {"rl-none", R_AUTH_NONE, RL_KEY_PAYLOAD_NONE},
    {"rl-cookie", R_AUTH_COOKIE, RL_KEY_PAYLOAD_SECRET},
    {"rl-aes", R_AUTH_AES, RL_KEY_PAYLOAD_SECRET},
};

static const key_format_t *format_by_hrp(const char *hrp) {
    for (size_t i = 0; i < sizeof(KEY_FORMATS) / sizeof(KEY_FORMATS[0]); i++) {
        if (strcmp(KEY_FORMATS[i].hrp, hrp) == 0) {
            return &KEY_FORMATS[i];
        }
    }
    return NULL;
}

static const key_format_t *format_by_type(r_auth_type_t type) {
    for (size_t i = 0; i < sizeof(KEY_FORMATS) / sizeof(KEY_FORMATS[0]); i++) {
        if (KEY_FORMATS[i].type == type) {
            return &KEY_FORMATS[i];
        }
    }
    return NULL;
}

/* Bech32 stage shared by both parsers; key_len 0 means NUL-terminated. */
static int decode_text(const char *key, size_t key_len, rl_bech32_t *dec, r_key_diag_t *diag) {
    const char *why = NULL;
    size_t len = (key_len == 0) ? strlen(key) : key_len;
    if (rl_bech32_decode(key, len, dec, &why) != 0) {
        rl_key_diag_set(diag, R_KEY_ERR_BECH32, "%s", why);
        return RCLIENT_ERR_CONFIG;
    }
    return RCLIENT_OK;
}

/* hrp, length and version checks for a decoded API key. */
static const key_format_t *check_api_key(const rl_bech32_t *dec, r_key_diag_t *diag) {
    const key_format_t *fmt = format_by_hrp(dec->hrp);
    if (fmt == NULL) {
        if (strcmp(dec->hrp, "rl-secret") == 0) {
            rl_key_diag_set(diag, R_KEY_ERR_HRP, "hrp: rl-secret is not an API key");
        } else {
            /* The HRP is not echoed: a mistyped secret could sit before a '1'. */
            rl_key_diag_set(diag, R_KEY_ERR_HRP, "hrp: unknown, expected rl-none, rl-cookie or rl-aes");
        }
        return NULL;
    }
    if (dec->payload_len != fmt->payload_len) {
        rl_key_diag_set(diag, R_KEY_ERR_LENGTH, "length: %s payload is %zu bytes, expected %zu", fmt->hrp,
                        dec->payload_len, fmt->payload_len);
        return NULL;
    }
    if (dec->payload[OFF_VERSION] != RL_KEY_FORMAT_VERSION) {
        rl_key_diag_set(diag, R_KEY_ERR_VERSION, "version: format_version %u, expected 1",
                        (unsigned)dec->payload[OFF_VERSION]);
        return NULL;
    }
    return fmt;
}

/* Fill info from a checked payload; the quota word is validated last. */
static int build_info(const rl_bech32_t *dec, const key_format_t *fmt, r_auth_key_info_t *info,
                      r_key_diag_t *diag) {
    int has_secret = (fmt->type != R_AUTH_NONE);
    memset(info, 0, sizeof(*info));
    info->type = fmt->type;
    info->key_id = rl_load_u64(dec->payload + OFF_KEY_ID);
    info->has_secret = has_secret;
    if (has_secret) {
        memcpy(info->secret, dec->payload + OFF_SECRET, R_CLIENT_SECRET_LEN);
    }
    info->quota_word = rl_load_u32(dec->payload + (has_secret ? OFF_QUOTAS_SECRET : OFF_QUOTAS_NONE));
    return r_client_decode_quota_word(info->quota_word, &info->quotas, diag);
}

int r_client_parse_auth_key_diag(const char *key, size_t key_len, r_auth_key_info_t *out_info,
                                 r_key_diag_t *out_diag) {
    if (key == NULL || out_info == NULL) {
        rl_key_diag_set(out_diag, R_KEY_ERR_ARGUMENT, "argument: %s is NULL", key == NULL ? "key" : "out_info");
        return RCLIENT_ERR_CONFIG;
    }
    rl_bech32_t dec;
    r_auth_key_info_t info;
    memset(&info, 0, sizeof(info));
    int rc = decode_text(key, key_len, &dec, out_diag);
    if (rc == RCLIENT_OK) {
        const key_format_t *fmt = check_api_key(&dec, out_diag);
        rc = (fmt == NULL) ? RCLIENT_ERR_CONFIG : build_info(&dec, fmt, &info, out_diag);
    }
    if (rc == RCLIENT_OK) {
        *out_info = info;
    }
    OPENSSL_cleanse(&dec, sizeof(dec));
    OPENSSL_cleanse(&info, sizeof(info));
    return rc;
}

int r_client_parse_auth_key(const char *key, size_t key_len, r_auth_key_info_t *out_info) {
    return r_client_parse_auth_key_diag(key, key_len, out_info, NULL);
}

int rl_credential_parse_secret(const char *key, size_t key_len, uint8_t out_secret[R_CLIENT_SECRET_LEN],
                               r_key_diag_t *diag) {
    if (key == NULL || out_secret == NULL) {
        rl_key_diag_set(diag, R_KEY_ERR_ARGUMENT, "argument: %s is NULL", key == NULL ? "key" : "out_secret");
        return RCLIENT_ERR_CONFIG;
    }
    rl_bech32_t dec;
    int rc = decode_text(key, key_len, &dec, diag);
    if (rc == RCLIENT_OK && strcmp(dec.hrp, "rl-secret") != 0) {
        rl_key_diag_set(diag, R_KEY_ERR_HRP, "hrp: expected rl-secret");
        rc = RCLIENT_ERR_CONFIG;
    }
    if (rc == RCLIENT_OK && dec.payload_len != RL_SECRET_PAYLOAD) {
        rl_key_diag_set(diag, R_KEY_ERR_LENGTH, "length: rl-secret payload is %zu bytes, expected 32",
                        dec.payload_len);
        rc = RCLIENT_ERR_CONFIG;
    }
    if (rc == RCLIENT_OK) {
        memcpy(out_secret, dec.payload, R_CLIENT_SECRET_LEN);
        rl_key_diag_set(diag, R_KEY_OK, "%s", "");
    }
    OPENSSL_cleanse(&dec, sizeof(dec));
    return rc;
}

int rl_credential_encode(const r_auth_key_info_t *info, char *out, size_t cap) {
    const key_format_t *fmt = (info == NULL) ? NULL : format_by_type(info->type);
    if (fmt == NULL || out == NULL) {
        return -1;
    }
    uint8_t payload[RL_KEY_PAYLOAD_SECRET];
    payload[OFF_VERSION] = RL_KEY_FORMAT_VERSION;
    rl_store_u64(payload + OFF_KEY_ID, info->key_id);
    if (fmt->type == R_AUTH_NONE) {
        rl_store_u32(payload + OFF_QUOTAS_NONE, info->quota_word);
    } else {
        memcpy(payload + OFF_SECRET, info->secret, R_CLIENT_SECRET_LEN);
        rl_store_u32(payload + OFF_QUOTAS_SECRET, info->quota_word);
    }
    int n = rl_bech32_encode(fmt->hrp, payload, fmt->payload_len, out, cap);
    OPENSSL_cleanse(payload, sizeof(payload));
    return n;
}

/* api.md "Configuration": _ratelimitly._udp.c-<key-id>.p0.ratelimitly.com. */
int r_client_format_default_tenant_dns(uint64_t key_id, char *buf, size_t cap) {
    char name[48];
    int n = snprintf(name, sizeof(name), "c-%" PRIu64 ".p0.ratelimitly.com", key_id);
    if (buf == NULL || n < 0 || (size_t)n >= cap) {
        return RCLIENT_ERR_CONFIG;
    }
    memcpy(buf, name, (size_t)n + 1u);
    return RCLIENT_OK;
}
