/* SPDX-License-Identifier: MIT */
/* rl_rng.h - the injectable random source behind request IDs (unique_id) and
 * AES-GCM nonces. Default: OpenSSL RAND_bytes. Failures fail closed. */
#ifndef RL_RNG_H
#define RL_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "r_client_io.h"

#define RL_RNG_POOL 512u

/* Copying an rl_rng_t whose pool is empty (as at initialisation) is safe: each
 * copy refills independently, so no random byte is ever handed out twice. */
typedef struct {
    r_random_fn fn;               /* NULL selects RAND_bytes */
    void *ctx;
    /* Default source only: RAND_bytes output drawn in blocks. OpenSSL 3's
     * RAND_bytes costs several hundred ns per call (DRBG lookup, locks, fork
     * check); one call per block keeps request IDs and nonces cheap. Bytes are
     * wiped as they are handed out; the pool is discarded after fork() so a
     * child never reuses its parent's nonces. */
    uint8_t pool[RL_RNG_POOL];
    size_t avail;                 /* unused bytes at pool[0..avail) */
    unsigned fork_generation;
} rl_rng_t;

/* Fill buf with len random bytes. rng may be NULL (direct RAND_bytes).
 * Returns 0, or -1 when the source failed (buf is then zeroed so no partial
 * randomness is used). */
int rl_rng_bytes(rl_rng_t *rng, uint8_t *buf, size_t len);

/* Wipe the pool (OPENSSL_cleanse). */
void rl_rng_release(rl_rng_t *rng);

/* A fresh 16-byte unique_id with UUIDv4 version and variant bits
 * (byte 6 = 0x4?, byte 8 = 0b10??????). Returns 0 or -1 (fail closed). */
int rl_rng_unique_id(rl_rng_t *rng, uint8_t out[16]);

#endif /* RL_RNG_H */
