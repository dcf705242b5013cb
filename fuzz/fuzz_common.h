/* SPDX-License-Identifier: MIT */
/* fuzz_common.h - shared helpers for the fuzz harnesses (fuzz/README.md).
 *
 * Every harness defines LLVMFuzzerTestOneInput and builds three ways from the
 * same source: libFuzzer, AFL++ persistent mode (afl_main.c) and the plain
 * replay driver (replay_main.c). Harnesses are deterministic, do no I/O and
 * keep no mutable global state: each input starts from scratch.
 *
 * An invariant violation prints one line naming the check and calls abort(),
 * which every engine records as a crash (no __builtin_trap: the message is
 * what makes a regression input readable). */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "fuzz invariant violated at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* An exact-size heap copy of the input, so ASan reports any read past its
 * end (libFuzzer's own buffer may be larger). size 0 gives a 1-byte
 * allocation that is never read. Aborts on allocation failure. */
static inline uint8_t *fuzz_dup(const uint8_t *data, size_t size) {
    uint8_t *p = malloc(size > 0 ? size : 1);
    FUZZ_CHECK(p != NULL);
    if (size > 0) {
        memcpy(p, data, size);
    }
    return p;
}

/* As fuzz_dup, plus a terminating NUL at p[size] (for the "length 0 means
 * NUL-terminated" entry points). */
static inline char *fuzz_dup_cstr(const uint8_t *data, size_t size) {
    char *p = malloc(size + 1);
    FUZZ_CHECK(p != NULL);
    if (size > 0) {
        memcpy(p, data, size);
    }
    p[size] = '\0';
    return p;
}

/* A cursor over the fuzzer's bytes: reads past the end yield zeros, so every
 * input maps to a structured value and no length check is needed. */
typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} fuzz_reader_t;

static inline fuzz_reader_t fuzz_reader(const uint8_t *data, size_t size) {
    fuzz_reader_t r = {data, data + size};
    return r;
}

static inline size_t fuzz_left(const fuzz_reader_t *r) {
    return (size_t)(r->end - r->p);
}

static inline uint8_t fuzz_u8(fuzz_reader_t *r) {
    return r->p < r->end ? *r->p++ : 0;
}

static inline uint16_t fuzz_u16(fuzz_reader_t *r) {
    uint16_t lo = fuzz_u8(r);
    return (uint16_t)(lo | (uint16_t)(fuzz_u8(r) << 8));
}

static inline uint32_t fuzz_u32(fuzz_reader_t *r) {
    uint32_t lo = fuzz_u16(r);
    return lo | ((uint32_t)fuzz_u16(r) << 16);
}

static inline uint64_t fuzz_u64(fuzz_reader_t *r) {
    uint64_t lo = fuzz_u32(r);
    return lo | ((uint64_t)fuzz_u32(r) << 32);
}

/* Copy n bytes (zero-filled past the end of the input). */
static inline void fuzz_bytes(fuzz_reader_t *r, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        out[i] = fuzz_u8(r);
    }
}

/* ASCII lower-casing, for comparing Bech32 text (one case only) with the
 * encoders' lower-case output. */
static inline char fuzz_lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* True when text[0..len) equals lower[0..len) after lower-casing text. */
static inline bool fuzz_equal_lower(const char *text, size_t len, const char *lower, size_t lower_len) {
    if (len != lower_len) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (fuzz_lower(text[i]) != lower[i]) {
            return false;
        }
    }
    return true;
}

/* A NUL-terminated diagnostic message of at most cap - 1 characters. */
static inline bool fuzz_message_ok(const char *msg, size_t cap) {
    return memchr(msg, '\0', cap) != NULL;
}

#endif /* FUZZ_COMMON_H */
