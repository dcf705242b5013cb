/* SPDX-License-Identifier: MIT */
/* sim_keys.h - deterministic API-key credentials for simulated tenants.
 * The simulator builds credential text with its own Bech32 (BIP-173) encoder,
 * independent of the client's, so every simulated run also checks the
 * client's credential decoder (wire_protocol.md "Bech32 Credential Formats"). */
#ifndef SIM_KEYS_H
#define SIM_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

#define SIM_KEY_TEXT_MAX 128u

/* Credential for (auth, key_id, quota_word), version 1; the 32-byte secret
 * of cookie/aes keys is SHA-256("ratelimitly-sim-secret" || u64le(key_id)).
 * Writes NUL-terminated text; returns 0 or -1 (bad auth, small buffer). */
int sim_key_make(r_auth_type_t auth, uint64_t key_id, uint32_t quota_word, char *out, size_t cap);

/* Bech32 encode hrp + 8-bit payload. Returns text length or -1. */
int sim_bech32_encode(const char *hrp, const uint8_t *data, size_t len, char *out, size_t cap);

#endif /* SIM_KEYS_H */
