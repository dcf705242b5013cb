/* SPDX-License-Identifier: MIT */
/* serve_mem.c - host memory readings of `rl-testbed serve` (contract:
 * serve_mem.h). */
#define _GNU_SOURCE
#include "serve_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int parse_u64(const char *s, char **end, uint64_t *out) {
    while (*s == ' ' || *s == '\t') {
        s++;
    }
    if (*s < '0' || *s > '9') {
        return -1;
    }
    unsigned long long v = strtoull(s, end, 10);
    *out = v;
    return 0;
}

static int kb_line(const char *text, const char *name, uint64_t *out) {
    *out = UINT64_MAX;
    size_t n = strlen(name);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p != NULL ? p + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            uint64_t kb = 0;
            char *end = NULL;
            if (parse_u64(p + n + 1, &end, &kb) != 0 || kb > UINT64_MAX / 1024u) {
                return -1;
            }
            *out = kb * 1024u;
            return 0;
        }
    }
    return -1;
}

int serve_mem_parse_meminfo(const char *text, uint64_t *total, uint64_t *available) {
    int a = kb_line(text, "MemTotal", total);
    int b = kb_line(text, "MemAvailable", available);
    return a == 0 && b == 0 ? 0 : -1;
}

int serve_mem_parse_cgroup_max(const char *text, uint64_t *limit) {
    *limit = UINT64_MAX;
    if (strncmp(text, "max", 3) == 0) {
        return 0; /* unconstrained */
    }
    char *end = NULL;
    return parse_u64(text, &end, limit) == 0 && (*end == '\n' || *end == '\0') ? 0 : (*limit = UINT64_MAX, -1);
}

int serve_mem_parse_statm(const char *text, uint64_t page_size, uint64_t *rss) {
    *rss = UINT64_MAX;
    uint64_t size = 0, resident = 0;
    char *end = NULL;
    if (parse_u64(text, &end, &size) != 0 || parse_u64(end, &end, &resident) != 0 ||
        (page_size != 0 && resident > UINT64_MAX / page_size)) {
        return -1;
    }
    *rss = resident * page_size;
    return 0;
}

static size_t slurp(const char *path, char *buf, size_t cap) {
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        buf[0] = '\0';
        return 0;
    }
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n;
}

/* The cgroup v2 path of this process ("0::/a/b" in /proc/self/cgroup). */
static void cgroup_limit(uint64_t *limit) {
    char text[4096], path[4200];
    *limit = UINT64_MAX;
    slurp("/proc/self/cgroup", text, sizeof text);
    const char *p = strstr(text, "0::");
    if (p == NULL) {
        return;
    }
    p += 3;
    size_t n = strcspn(p, "\n");
    snprintf(path, sizeof path, "/sys/fs/cgroup%.*s/memory.max", (int)n, p);
    if (slurp(path, text, sizeof text) == 0) {
        return;
    }
    (void)serve_mem_parse_cgroup_max(text, limit);
}

void serve_mem_read(void *ctx, sim_server_host_memory_t *out) {
    serve_mem_t *m = ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u + 1u;
    if (m->read_at_ms == 0 || now - m->read_at_ms >= SERVE_MEM_CACHE_MS) {
        char text[8192];
        slurp("/proc/meminfo", text, sizeof text);
        (void)serve_mem_parse_meminfo(text, &m->last.system_total, &m->last.system_available);
        cgroup_limit(&m->last.cgroup_limit);
        slurp("/proc/self/statm", text, sizeof text);
        long page = sysconf(_SC_PAGESIZE);
        (void)serve_mem_parse_statm(text, page > 0 ? (uint64_t)page : 4096u, &m->last.process_rss);
        m->read_at_ms = now;
    }
    *out = m->last;
}
