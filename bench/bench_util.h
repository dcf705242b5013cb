/* SPDX-License-Identifier: MIT */
/* bench_util.h - shared by the benchmarks: process-wide heap allocation and
 * requested-byte counters (interposes malloc/calloc/realloc; glibc only) and a
 * monotonic nanosecond clock. Include from exactly one translation unit per
 * binary. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <time.h>

static unsigned long long g_allocs;
static unsigned long long g_alloc_bytes; /* bytes requested, not the allocator's rounding */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n);
void *calloc(size_t a, size_t b);
void *realloc(void *p, size_t n);
void *malloc(size_t n) { g_allocs++; g_alloc_bytes += n; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { g_allocs++; g_alloc_bytes += a * b; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { g_allocs++; g_alloc_bytes += n; return __libc_realloc(p, n); }

static inline double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#endif /* BENCH_UTIL_H */
