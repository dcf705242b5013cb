/* SPDX-License-Identifier: MIT */
/* sim_dedup_unkeyed.h - the reference server's earlier, unkeyed dedup index
 * mix: what anyone can compute without a key, so what an attacker uses to
 * choose unique_ids that share one index slot. Used by the test of the keyed
 * index (test_server_dedup_health.c) and by bench_dedup_collide. */
#ifndef SIM_DEDUP_UNKEYED_H
#define SIM_DEDUP_UNKEYED_H

#include <stdint.h>
#include <string.h>

static inline uint64_t tu_unkeyed_hash(uint64_t key_id, const uint8_t uid[16], uint16_t type, uint8_t flag) {
    uint64_t lo, hi;
    memcpy(&lo, uid, 8);
    memcpy(&hi, uid + 8, 8);
    uint64_t h = key_id * 0x9E3779B97F4A7C15ull;
    h ^= lo + 0x632BE59BD9B4E019ull * ((uint64_t)type << 8 | flag);
    h ^= hi * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 31);
}

#endif /* SIM_DEDUP_UNKEYED_H */
