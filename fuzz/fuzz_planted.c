/* SPDX-License-Identifier: MIT */
/* fuzz_planted.c - a test build of the quota_word harness with three planted
 * bugs, for testing crash triage (fuzz/tools/triage.py, scripts/fuzz-smoke.sh).
 * Built only with -DRCLIENT_FUZZ_PLANTED=ON, as fuzz_planted, never listed in
 * harnesses.txt: no campaign, replay or OSS-Fuzz build contains it.
 *
 * fuzz_quota_word.c is compiled with its entry point renamed to
 * fuzz_planted_inner; this file's LLVMFuzzerTestOneInput checks the input for
 * three byte patterns and otherwise runs the real harness:
 *   "\xde\xad\xbe\xef" anywhere  -> abort() after a FUZZ_CHECK-style message
 *   starts with "OVR"            -> a heap read one byte past the input (ASan)
 *   "SHFT" anywhere              -> a shift of 1 by 40 bits (UBSan)
 * so each minimizes to exactly its pattern. */
#include "fuzz_common.h"

int fuzz_planted_inner(const uint8_t *data, size_t size);

static const uint8_t *find(const uint8_t *p, size_t n, const char *pat, size_t m) {
    for (size_t i = 0; i + m <= n; i++) {
        if (memcmp(p + i, pat, m) == 0) {
            return p + i;
        }
    }
    return NULL;
}

__attribute__((noinline)) static void planted_abort(const uint8_t *p, size_t n) {
    FUZZ_CHECK(find(p, n, "\xde\xad\xbe\xef", 4) == NULL);
}

__attribute__((noinline)) static int planted_overflow(const uint8_t *p, size_t n) {
    return (n >= 3 && memcmp(p, "OVR", 3) == 0) ? p[n] : 0; /* one past the end */
}

__attribute__((noinline)) static int planted_shift(const uint8_t *p, size_t n) {
    volatile int width = find(p, n, "SHFT", 4) != NULL ? 40 : 1;
    return 1 << width;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    planted_abort(copy, size);
    int sink = planted_overflow(copy, size) + planted_shift(copy, size);
    free(copy);
    return fuzz_planted_inner(data, size) + (sink & 0);
}
