/* SPDX-License-Identifier: MIT */
/* check_hist.h - a log-linear latency histogram (the HDR histogram layout):
 * values 0..255 each have their own bucket; above, every power of two is cut
 * into 128 equal buckets, so a recorded value is reported at most 1/128
 * (0.79 %) above itself, never below. Fixed size, no allocation per value. */
#ifndef CHECK_HIST_H
#define CHECK_HIST_H

#include <stdint.h>

#define CHECK_HIST_SUB_BITS 7u
#define CHECK_HIST_SUB (1u << CHECK_HIST_SUB_BITS)
#define CHECK_HIST_BUCKETS (2u * CHECK_HIST_SUB + (63u - CHECK_HIST_SUB_BITS) * CHECK_HIST_SUB)

typedef struct {
    uint64_t counts[CHECK_HIST_BUCKETS];
    uint64_t total;
    uint64_t max; /* exact */
} check_hist_t;

void check_hist_record(check_hist_t *h, uint64_t v);
/* Bucket of v, and the largest value sharing that bucket. */
uint32_t check_hist_index(uint64_t v);
uint64_t check_hist_upper(uint32_t index);
/* Nearest rank: the smallest bucket holding at least ceil(q * total) of the
 * values at or below it, reported as its upper bound (capped at the exact
 * maximum). 0 when empty. */
uint64_t check_hist_quantile(const check_hist_t *h, double q);

#endif /* CHECK_HIST_H */
