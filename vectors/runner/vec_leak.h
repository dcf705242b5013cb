/* SPDX-License-Identifier: MIT */
/* vec_leak.h - key material on the wire: no datagram a client builds may
 * carry its API key's secret (the AES-256 key, or the cookie anywhere but in
 * the cookie TLV) at any offset (wire_protocol.md "Auth Header": the cookie
 * TLV body is the only place a secret goes; an AES key never does). A failure
 * of this check is severity security (conformance/ADAPTER.md). */
#ifndef VEC_LEAK_H
#define VEC_LEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The shortest run of secret bytes that counts as a leak: 8 bytes match by
 * chance with probability 2^-64 per offset. */
#define VEC_LEAK_MIN_RUN 8u

/* Search pkt[0..len) for a run of at least VEC_LEAK_MIN_RUN consecutive bytes
 * of the secret of API key key_text (NUL-terminated Bech32 string). A cookie
 * key's cookie whole at offset 44 behind a cookie TLV header at 40 is its
 * place and not a leak. Returns true with msg "the datagram carries N bytes
 * of the AES key at offset K" (or "of the cookie ... outside the cookie TLV")
 * when one is found; false when none is, the key has no secret (rl-none) or
 * does not parse. Copies of the secret are cleansed. */
bool vec_datagram_leaks(const char *key_text, const uint8_t *pkt, size_t len, char *msg, size_t cap);

/* One AES nonce sealing two plaintexts (the Security standard: a nonce never
 * seals two plaintexts; wire_protocol.md "Nonce MUST be unique per AES key"):
 * a and b both carry an AES auth TLV (type 0x4541 at offset 40) with the same
 * 12-byte nonce at 44, and differ. The same datagram sent again (a replay of
 * the same bytes) is not a reuse. */
bool vec_nonce_reused(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len);

#endif /* VEC_LEAK_H */
