/* rng.c - random bytes for unique_id and AES nonces through the host hook,
 * default OpenSSL RAND_bytes. Any failure fails closed: the buffer is zeroed
 * and the caller sends nothing. */
#include <limits.h>
#include <openssl/rand.h>
#include <string.h>

#include "rl_rng.h"

int rl_rng_bytes(const rl_rng_t *rng, uint8_t *buf, size_t len) {
    int ok;
    if (buf == NULL) {
        return -1;
    }
    if (rng != NULL && rng->fn != NULL) {
        ok = rng->fn(rng->ctx, buf, len) == 0;
    } else {
        ok = len <= INT_MAX && RAND_bytes(buf, (int)len) == 1;
    }
    if (!ok) {
        memset(buf, 0, len);
        return -1;
    }
    return 0;
}

int rl_rng_unique_id(const rl_rng_t *rng, uint8_t out[16]) {
    if (rl_rng_bytes(rng, out, 16) != 0) {
        return -1;
    }
    /* UUIDv4 (RFC 9562): version nibble 4, variant bits 10. */
    out[6] = (uint8_t)((out[6] & 0x0Fu) | 0x40u);
    out[8] = (uint8_t)((out[8] & 0x3Fu) | 0x80u);
    return 0;
}
