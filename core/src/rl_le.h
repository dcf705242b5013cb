/* SPDX-License-Identifier: MIT */
/* rl_le.h - little-endian load/store helpers (wire_protocol.md "Little-endian
 * ordering of numbers"). The only place byte order is handled. */
#ifndef RL_LE_H
#define RL_LE_H

#include <stdint.h>

static inline uint16_t rl_load_u16(const uint8_t *p) {
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}
static inline uint32_t rl_load_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t rl_load_u64(const uint8_t *p) {
    return (uint64_t)rl_load_u32(p) | ((uint64_t)rl_load_u32(p + 4) << 32);
}
static inline void rl_store_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void rl_store_u32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void rl_store_u64(uint8_t *p, uint64_t v) {
    rl_store_u32(p, (uint32_t)v);
    rl_store_u32(p + 4, (uint32_t)(v >> 32));
}

#endif /* RL_LE_H */
