/* SPDX-License-Identifier: MIT */
/* serve_mem.h - the host memory readings of `rl-testbed serve` for the
 * server model's memory admission and Status Response (sim_server.h
 * sim_server_set_host_memory; wire_protocol.md "Status Response PDU": node
 * values are "cheap point-in-time readings or cached snapshots"). Linux:
 * /proc/meminfo (MemTotal, MemAvailable), the cgroup v2 memory.max of this
 * process's cgroup, /proc/self/statm (resident pages). A value that cannot be
 * read is UINT64_MAX (unknown). */
#ifndef SERVE_MEM_H
#define SERVE_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "sim_server.h"

/* A snapshot kept for SERVE_MEM_CACHE_MS before it is read again. */
#define SERVE_MEM_CACHE_MS 1000u

typedef struct {
    sim_server_host_memory_t last;
    uint64_t read_at_ms;          /* CLOCK_MONOTONIC ms of the last reading; 0 = never */
} serve_mem_t;

/* sim_server_memory_fn: ctx is a serve_mem_t; reads at most once per
 * SERVE_MEM_CACHE_MS. */
void serve_mem_read(void *ctx, sim_server_host_memory_t *out);

/* Parsers of the file texts (NUL-terminated), for the tests. meminfo: the
 * MemTotal and MemAvailable lines in kB, as bytes (UINT64_MAX when absent).
 * memory.max: a decimal byte count, or "max" (unconstrained: UINT64_MAX).
 * statm: the second field (resident pages) times page_size. Each returns 0,
 * or -1 when a value is missing or unreadable (that value is UINT64_MAX,
 * values found are still set). */
int serve_mem_parse_meminfo(const char *text, uint64_t *total, uint64_t *available);
int serve_mem_parse_cgroup_max(const char *text, uint64_t *limit);
int serve_mem_parse_statm(const char *text, uint64_t page_size, uint64_t *rss);

#endif /* SERVE_MEM_H */
