/* SPDX-License-Identifier: MIT */
/* rl_bech32.h - Bech32 (BIP-173) text codec with 8-bit payload conversion. */
#ifndef RL_BECH32_H
#define RL_BECH32_H

#include <stddef.h>
#include <stdint.h>

#define RL_BECH32_HRP_MAX 83u
#define RL_BECH32_PAYLOAD_MAX 128u /* bytes kept; longer payloads are still counted */

typedef struct {
    char hrp[RL_BECH32_HRP_MAX + 1];   /* lower-cased, NUL-terminated */
    uint8_t payload[RL_BECH32_PAYLOAD_MAX];
    size_t payload_len;                 /* true length, may exceed RL_BECH32_PAYLOAD_MAX */
} rl_bech32_t;

/* Decode text[0..len). Checks, in order: printable ASCII (33..126), no mixed
 * case, a '1' separator (the last one) with 1..83 HRP characters and at least
 * six data characters, charset, checksum (constant 1), then 5-to-8-bit
 * conversion (at most 4 padding bits, all zero).
 * There is no overall length limit (BIP-173's 90 characters is not applied):
 * legacy credentials must reach the payload-length check.
 * Returns 0 on success; -1 on failure with *why (may be NULL) set to a static
 * message "bech32: <rule>", and *out cleansed since it may hold part of a secret. */
int rl_bech32_decode(const char *text, size_t len, rl_bech32_t *out, const char **why);

/* Encode hrp (lower-case ASCII 33..126, 1..83 chars) and payload into out
 * (cap bytes, NUL-terminated). Returns the text length, or -1 when it does not fit
 * or an argument is invalid. */
int rl_bech32_encode(const char *hrp, const uint8_t *payload, size_t payload_len, char *out, size_t cap);

#endif /* RL_BECH32_H */
