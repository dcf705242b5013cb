/* SPDX-License-Identifier: MIT */
/* rl_credential.h - API-key and rl-secret credentials (wire_protocol.md
 * "Bech32 Credential Formats", "API-key quota word, format version 1",
 * "Credential Validation Rules"). Public entry points are in r_client.h. */
#ifndef RL_CREDENTIAL_H
#define RL_CREDENTIAL_H

#include "r_client.h"

#define RL_KEY_PAYLOAD_NONE 13u    /* version + key_id + quotas */
#define RL_KEY_PAYLOAD_SECRET 45u  /* version + key_id + secret + quotas */
#define RL_SECRET_PAYLOAD 32u      /* rl-secret */

/* Parse an rl-secret credential into out_secret (32 bytes). Any other HRP is
 * R_KEY_ERR_HRP. Returns RCLIENT_OK or RCLIENT_ERR_CONFIG (diag filled, may be NULL).
 * Intermediate copies of the secret are cleansed. */
int rl_credential_parse_secret(const char *key, size_t key_len, uint8_t out_secret[R_CLIENT_SECRET_LEN],
                               r_key_diag_t *diag);

/* Encode quotas as a version-1 word. Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG
 * when a value is not representable (not a power of two in range, dedup not a
 * multiple of 10 in 10..2000, window not 2^0..2^30 or 4294967295). */
int rl_quota_encode(const r_api_key_quotas_t *quotas, uint32_t *out_word);

/* Encode an API key as Bech32 text (for tests, fuzz round trips and tools).
 * info->type selects the HRP; secret is used for cookie/aes. Returns the text
 * length or -1. */
int rl_credential_encode(const r_auth_key_info_t *info, char *out, size_t cap);

/* Fill diag (may be NULL) with reason and a printf-style message, truncated to
 * fit. Messages name the failed rule and never contain secret bytes. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
void rl_key_diag_set(r_key_diag_t *diag, r_key_error_t reason, const char *fmt, ...);

#endif /* RL_CREDENTIAL_H */
