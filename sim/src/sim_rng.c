/* SPDX-License-Identifier: MIT */
/* sim_rng.c - the simulator's random streams: xoshiro256** (Blackman & Vigna,
 * "Scrambled linear pseudorandom number generators", 2018) seeded with
 * splitmix64. Pure functions of the stream state: no OS entropy, no clock.
 *
 * Stream derivation (sim_rng_seed), with next(x) the splitmix64 step
 * "x += 0x9E3779B97F4A7C15; z = x; z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9;
 *  z = (z ^ z >> 27) * 0x94D049BB133111EB; return z ^ z >> 31":
 *
 *     x = seed;            h = next(x)       mix the run seed
 *     x = h ^ stream;      h = next(x)       then the consumer kind
 *     x = h ^ index;       s[0..3] = next(x), next(x), next(x), next(x)
 *
 * Each step is a bijection of its input, so for one seed every (stream,
 * index) pair gets its own splitmix64 sequence, and the four state words are
 * consecutive outputs of one splitmix64 sequence (never all zero). */
#include <math.h>

#include "sim_engine.h"

#define SPLITMIX_GAMMA 0x9E3779B97F4A7C15ull

static uint64_t splitmix64_next(uint64_t *x) {
    *x += SPLITMIX_GAMMA;
    uint64_t z = *x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng_t *r, uint64_t seed, uint64_t stream, uint64_t index) {
    uint64_t x = seed;
    uint64_t h = splitmix64_next(&x);
    x = h ^ stream;
    h = splitmix64_next(&x);
    x = h ^ index;
    for (int i = 0; i < 4; i++) {
        r->s[i] = splitmix64_next(&x);
    }
}

/* Counter-based streams (sim_net's tagged packets):
 *     x = key; h = next(x);  x = h ^ a; h = next(x);  x = h ^ b; h = next(x);
 *     x = h ^ c; s[0..3] = next(x) x 4
 * so each (key, a, b, c) has its own splitmix64 sequence, whatever was drawn before. */
void sim_rng_counter(sim_rng_t *r, uint64_t key, uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = key;
    uint64_t h = splitmix64_next(&x);
    x = h ^ a;
    h = splitmix64_next(&x);
    x = h ^ b;
    h = splitmix64_next(&x);
    x = h ^ c;
    for (int i = 0; i < 4; i++) {
        r->s[i] = splitmix64_next(&x);
    }
}

void sim_rng_entity(sim_rng_t *r, uint64_t seed, uint64_t kind, uint64_t entity, uint32_t purpose) {
    sim_rng_seed(r, seed, kind, (entity << 8) | (purpose & 0xFFu));
}

double sim_rng_keyed_unit(uint64_t key, uint64_t a, uint64_t b) {
    uint64_t x = key;
    uint64_t h = splitmix64_next(&x);
    x = h ^ a;
    h = splitmix64_next(&x);
    x = h ^ b;
    return (double)(splitmix64_next(&x) >> 11) * 0x1.0p-53;
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sim_rng_u64(sim_rng_t *r) {
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* 64 x 64 -> 128-bit product as (high, low). */
static inline void mul128(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#else
    uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    *lo = (mid << 32) | (ll & 0xFFFFFFFFu);
#endif
}

/* Lemire, "Fast Random Integer Generation in an Interval" (2019): the high
 * word of x * n is uniform in [0, n) once the low words below 2^64 mod n are
 * rejected, so the result is unbiased. */
uint64_t sim_rng_below(sim_rng_t *r, uint64_t n) {
    if (n == 0) {
        return 0;
    }
    uint64_t hi, lo;
    mul128(sim_rng_u64(r), n, &hi, &lo);
    if (lo < n) {
        uint64_t threshold = ((uint64_t)0 - n) % n; /* 2^64 mod n */
        while (lo < threshold) {
            mul128(sim_rng_u64(r), n, &hi, &lo);
        }
    }
    return hi;
}

double sim_rng_unit(sim_rng_t *r) { return (double)(sim_rng_u64(r) >> 11) * 0x1.0p-53; }

/* No draw for p <= 0 or p >= 1: a link without loss consumes nothing. */
bool sim_rng_chance(sim_rng_t *r, double p) {
    if (!(p > 0.0)) {
        return false;
    }
    if (p >= 1.0) {
        return true;
    }
    return sim_rng_unit(r) < p;
}

/* Inverse transform; 1 - unit is in (0, 1], so the log is finite. */
double sim_rng_exp(sim_rng_t *r, double mean) { return -mean * log(1.0 - sim_rng_unit(r)); }

void sim_rng_bytes(sim_rng_t *r, uint8_t *out, size_t n) {
    while (n > 0) {
        uint64_t v = sim_rng_u64(r);
        size_t take = n < 8 ? n : 8;
        for (size_t i = 0; i < take; i++) {
            out[i] = (uint8_t)(v >> (8 * i)); /* little-endian: byte i is bits 8i.. */
        }
        out += take;
        n -= take;
    }
}
