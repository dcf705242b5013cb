/* rl_rng.h - the injectable random source behind request IDs (unique_id) and
 * AES-GCM nonces. Default: OpenSSL RAND_bytes. Failures fail closed. */
#ifndef RL_RNG_H
#define RL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "r_client_io.h"

typedef struct {
    r_random_fn fn; /* NULL selects RAND_bytes */
    void *ctx;
} rl_rng_t;

/* Fill buf with len random bytes. Returns 0, or -1 when the source failed
 * (buf is then zeroed so no partial randomness is used). */
int rl_rng_bytes(const rl_rng_t *rng, uint8_t *buf, size_t len);

/* A fresh 16-byte unique_id with UUIDv4 version and variant bits
 * (byte 6 = 0x4?, byte 8 = 0b10??????). Returns 0 or -1 (fail closed). */
int rl_rng_unique_id(const rl_rng_t *rng, uint8_t out[16]);

#endif /* RL_RNG_H */
