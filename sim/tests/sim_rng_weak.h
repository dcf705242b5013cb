/* SPDX-License-Identifier: MIT */
/* sim_rng_weak.h - stand-in random streams for the server tests and bench.
 *
 * The engine's sim_rng_* (sim_engine.h) are written in another module; until it
 * is linked, these weak definitions of the documented generator (xoshiro256**
 * seeded by splitmix64) stand in. If the engine's object is linked in, its
 * strong definitions win without a clash. Include from one translation unit
 * per binary. */
#ifndef SIM_RNG_WEAK_H
#define SIM_RNG_WEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_engine.h"

#if defined(__GNUC__) || defined(__clang__)
#define TU_WEAK __attribute__((weak))
#else
#define TU_WEAK
#endif

static inline uint64_t tu_splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline uint64_t tu_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

TU_WEAK void sim_rng_seed(sim_rng_t *r, uint64_t seed, uint64_t stream, uint64_t index) {
    uint64_t x = seed ^ tu_rotl(stream, 21) ^ tu_rotl(index, 42);
    for (int i = 0; i < 4; i++) {
        r->s[i] = tu_splitmix(&x);
    }
}

TU_WEAK uint64_t sim_rng_u64(sim_rng_t *r) {
    uint64_t *s = r->s;
    uint64_t result = tu_rotl(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = tu_rotl(s[3], 45);
    return result;
}

TU_WEAK uint64_t sim_rng_below(sim_rng_t *r, uint64_t n) {
    if (n == 0) {
        return 0;
    }
    uint64_t limit = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
    uint64_t v;
    do {
        v = sim_rng_u64(r);
    } while (v >= limit);
    return v % n;
}

TU_WEAK double sim_rng_unit(sim_rng_t *r) {
    return (double)(sim_rng_u64(r) >> 11) * 0x1.0p-53;
}

TU_WEAK bool sim_rng_chance(sim_rng_t *r, double p) {
    if (p <= 0.0) {
        return false;
    }
    if (p >= 1.0) {
        return true;
    }
    return sim_rng_unit(r) < p;
}

TU_WEAK void sim_rng_bytes(sim_rng_t *r, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = sim_rng_u64(r);
        for (size_t j = 0; j < 8 && i + j < n; j++) {
            out[i + j] = (uint8_t)(v >> (8 * j));
        }
    }
}

#endif /* SIM_RNG_WEAK_H */
