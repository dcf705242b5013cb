/* SPDX-License-Identifier: MIT */
/* rl_auth.h - per-key authentication state: none, cookie, AES-256-GCM
 * (wire_protocol.md "Auth Header", "AES-256-GCM Normative Framing").
 *
 * AES contexts are created once in rl_auth_init() and reused, so sealing and
 * opening allocate nothing. */
#ifndef RL_AUTH_H
#define RL_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "r_client.h"

typedef struct {
    r_auth_type_t type;
    uint8_t secret[R_CLIENT_SECRET_LEN]; /* cookie value or AES key; zero for none */
    EVP_CIPHER_CTX *enc;                 /* AES only */
    EVP_CIPHER_CTX *dec;                 /* AES only */
} rl_auth_t;

/* Initialise for a mode. secret (32 bytes) is required for cookie/aes and
 * ignored for none. Returns RCLIENT_OK, RCLIENT_ERR_CONFIG (bad mode or NULL
 * secret), RCLIENT_ERR_NOMEM (context allocation) or RCLIENT_ERR_AUTH (key setup).
 * On CONFIG *auth is untouched; on NOMEM/AUTH it is left released (zeroed). */
int rl_auth_init(rl_auth_t *auth, r_auth_type_t type, const uint8_t *secret);

/* Free contexts and cleanse the secret. Idempotent; safe on a zeroed struct. */
void rl_auth_release(rl_auth_t *auth);

/* Seal an encoded datagram (rl_wire.h layout, auth TLV of this mode):
 * cookie: copy the cookie into the auth body; aes: write nonce, encrypt the PDU
 * in place with AAD = tenant TLV || auth type || auth size || nonce, write tag.
 * nonce (12 bytes) is required for aes, ignored otherwise.
 * Returns RCLIENT_OK, RCLIENT_ERR_CONFIG (datagram too short for its framing,
 * auth TLV of another mode) or RCLIENT_ERR_AUTH (cipher failure). */
int rl_auth_seal(rl_auth_t *auth, uint8_t *dgram, size_t len, const uint8_t *nonce);

/* Authenticate a received datagram (the inverse of rl_auth_seal; r-client.md
 * 6.4 "Authentication"). The caller has checked the outer framing (tenant TLV,
 * auth TLV header). Checks, in order: the auth TLV type equals the key's mode;
 * cookie: the cookie equals the key's (CRYPTO_memcmp, constant time); aes: the
 * tag verifies over AAD = tenant TLV || auth type || auth size || nonce and the
 * ciphertext, and the PDU is decrypted in place (same length).
 * why (may be NULL) receives a static text naming the failed check, "ok" on success.
 * Returns RCLIENT_OK; RCLIENT_ERR_AUTH for a wrong auth TLV type or a cookie
 * mismatch; RCLIENT_ERR_PROTOCOL for an AES tag that does not verify (api.md
 * "Error Codes") - the PDU bytes are then unspecified (currently wiped, so no
 * unauthenticated plaintext remains); RCLIENT_ERR_CONFIG for a NULL argument,
 * an uninitialised key, an auth TLV size wrong for the mode or a datagram
 * shorter than its auth TLV.
 * Allocates nothing. */
int rl_auth_open(rl_auth_t *auth, uint8_t *dgram, size_t len, const char **why);

#endif /* RL_AUTH_H */
