/* SPDX-License-Identifier: MIT */
/* test_util.h - small helpers shared by the cmocka unit tests. */
#ifndef RL_TEST_UTIL_H
#define RL_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Decode lowercase/uppercase hex into out; returns bytes written or (size_t)-1. */
static inline size_t tu_hex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = strlen(hex);
    if (n % 2 != 0 || n / 2 > cap) {
        return (size_t)-1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v = 0;
        for (int j = 0; j < 2; j++) {
            char c = hex[2 * i + (size_t)j];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
            else return (size_t)-1;
        }
        out[i] = (uint8_t)v;
    }
    return n / 2;
}

#endif /* RL_TEST_UTIL_H */
