/* SPDX-License-Identifier: MIT */
/* check_hist.c - the log-linear histogram of check_hist.h. */
#include "check_hist.h"

#include <math.h>

uint32_t check_hist_index(uint64_t v) {
    if (v < 2u * CHECK_HIST_SUB) {
        return (uint32_t)v;
    }
    uint32_t msb = 63u - (uint32_t)__builtin_clzll(v);
    uint32_t shift = msb - CHECK_HIST_SUB_BITS; /* >= 1 */
    return 2u * CHECK_HIST_SUB + (shift - 1u) * CHECK_HIST_SUB + (uint32_t)((v >> shift) - CHECK_HIST_SUB);
}

uint64_t check_hist_upper(uint32_t index) {
    if (index < 2u * CHECK_HIST_SUB) {
        return index;
    }
    uint32_t k = index - 2u * CHECK_HIST_SUB;
    uint32_t shift = k / CHECK_HIST_SUB + 1u;
    uint64_t sub = (uint64_t)(k % CHECK_HIST_SUB) + CHECK_HIST_SUB;
    return ((sub + 1u) << shift) - 1u;
}

void check_hist_record(check_hist_t *h, uint64_t v) {
    h->counts[check_hist_index(v)]++;
    h->total++;
    if (v > h->max) {
        h->max = v;
    }
}

uint64_t check_hist_quantile(const check_hist_t *h, double q) {
    if (h->total == 0) {
        return 0;
    }
    uint64_t rank = (uint64_t)ceil(q * (double)h->total);
    rank = rank == 0 ? 1 : rank > h->total ? h->total : rank;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < CHECK_HIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            uint64_t u = check_hist_upper(i);
            return u < h->max ? u : h->max;
        }
    }
    return h->max; /* GCOVR_EXCL_LINE: the counts sum to total */
}
