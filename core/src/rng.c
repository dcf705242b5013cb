/* SPDX-License-Identifier: MIT */
/* rng.c - random bytes for unique_id and AES nonces through the host hook,
 * default OpenSSL RAND_bytes drawn in blocks. Any failure fails closed: the
 * buffer is zeroed and the caller sends nothing. */
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "rl_rng.h"

/* Bumped in every child after fork(): pools filled before the fork are
 * discarded, so parent and child never share request IDs or nonces. */
static volatile unsigned g_fork_generation;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void) {
    g_fork_generation++;
}

static void register_atfork(void) {
    (void)pthread_atfork(NULL, NULL, on_fork_child);
}

static int raw_bytes(uint8_t *buf, size_t len) {
    return len <= INT_MAX && RAND_bytes(buf, (int)len) == 1 ? 0 : -1;
}

static int pooled_bytes(rl_rng_t *rng, uint8_t *buf, size_t len) {
    if (len > RL_RNG_POOL / 4) {
        return raw_bytes(buf, len);
    }
    pthread_once(&g_atfork_once, register_atfork);
    if (rng->fork_generation != g_fork_generation) {
        OPENSSL_cleanse(rng->pool, sizeof rng->pool);
        rng->avail = 0;
        rng->fork_generation = g_fork_generation;
    }
    if (rng->avail < len) {
        if (raw_bytes(rng->pool, sizeof rng->pool) != 0) {
            OPENSSL_cleanse(rng->pool, sizeof rng->pool);
            rng->avail = 0;
            return -1;
        }
        rng->avail = sizeof rng->pool;
    }
    rng->avail -= len;
    memcpy(buf, rng->pool + rng->avail, len);
    OPENSSL_cleanse(rng->pool + rng->avail, len);
    return 0;
}

int rl_rng_bytes(rl_rng_t *rng, uint8_t *buf, size_t len) {
    int rc;
    if (buf == NULL) {
        return -1;
    }
    if (rng != NULL && rng->fn != NULL) {
        rc = rng->fn(rng->ctx, buf, len) == 0 ? 0 : -1;
    } else if (rng != NULL) {
        rc = pooled_bytes(rng, buf, len);
    } else {
        rc = raw_bytes(buf, len);
    }
    if (rc != 0) {
        memset(buf, 0, len);
    }
    return rc;
}

int rl_rng_unique_id(rl_rng_t *rng, uint8_t out[16]) {
    if (rl_rng_bytes(rng, out, 16) != 0) {
        return -1;
    }
    /* UUIDv4 (RFC 9562): version nibble 4, variant bits 10. */
    out[6] = (uint8_t)((out[6] & 0x0Fu) | 0x40u);
    out[8] = (uint8_t)((out[8] & 0x3Fu) | 0x80u);
    return 0;
}

void rl_rng_release(rl_rng_t *rng) {
    if (rng != NULL) {
        OPENSSL_cleanse(rng->pool, sizeof rng->pool);
        rng->avail = 0;
    }
}
