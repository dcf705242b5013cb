/* SPDX-License-Identifier: MIT */
/* fake_dns.h - a scripted resolver, manual clock, log recorder and scripted
 * random source for tests of DNS membership (r_client_io.h resolver hooks).
 *
 * The resolver records every started query and answers it at once from
 * inside resolve_* (FAKE_AT_ONCE), when the test says (FAKE_LATER), never
 * (FAKE_REFUSE: resolve_* fails), or after the client let go of it
 * (fake_dns_answer_rest). */
#ifndef RL_FAKE_DNS_H
#define RL_FAKE_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "r_client.h"

#define FAKE_MAX_QUERIES 80u
#define FAKE_MAX_SCRIPTS 8u
#define FAKE_NAME_CAP 300u

typedef enum { FAKE_LATER = 0, FAKE_AT_ONCE = 1, FAKE_REFUSE = 2 } fake_mode_t;

typedef struct {
    const char *host; /* answered for this A/AAAA name */
    int status;
    r_addr_record_t records[3];
    size_t n;
} fake_addr_script_t;

typedef struct {
    /* script */
    fake_mode_t srv_mode;
    fake_mode_t addr_mode;
    const char *refuse_host; /* resolve_addr of this name fails whatever addr_mode says */
    bool fail_after_answer;  /* host bug: FAKE_AT_ONCE answers, then resolve_* still returns -1 */
    int srv_status;
    r_srv_record_t srv[FAKE_MAX_QUERIES];
    size_t n_srv;
    fake_addr_script_t addr[FAKE_MAX_SCRIPTS];
    size_t n_addr;
    /* record */
    size_t srv_calls;
    char srv_name[FAKE_NAME_CAP];
    r_dns_query_t *srv_q[FAKE_MAX_QUERIES];
    bool srv_owed[FAKE_MAX_QUERIES]; /* started and not answered yet */
    size_t addr_calls;
    char addr_host[FAKE_MAX_QUERIES][FAKE_NAME_CAP];
    const char *addr_host_ptr[FAKE_MAX_QUERIES]; /* the pointer the client passed */
    r_dns_query_t *addr_q[FAKE_MAX_QUERIES];
    bool addr_owed[FAKE_MAX_QUERIES];
} fake_dns_t;

static inline void fake_copy_name(char out[FAKE_NAME_CAP], const char *name) {
    size_t n = strlen(name);
    if (n >= FAKE_NAME_CAP) {
        n = FAKE_NAME_CAP - 1;
    }
    memcpy(out, name, n);
    out[n] = '\0';
}

static inline void fake_dns_answer_srv(fake_dns_t *f, size_t i) {
    f->srv_owed[i] = false;
    r_client_dns_srv_done(f->srv_q[i], f->srv_status, f->srv, f->n_srv);
}

/* Answers from the script entry for the query's host; no entry = status 3 (NXDOMAIN). */
static inline void fake_dns_answer_addr(fake_dns_t *f, size_t i) {
    f->addr_owed[i] = false;
    for (size_t k = 0; k < f->n_addr; k++) {
        if (strcmp(f->addr[k].host, f->addr_host[i]) == 0) {
            r_client_dns_addr_done(f->addr_q[i], f->addr[k].status, f->addr[k].records, f->addr[k].n);
            return;
        }
    }
    r_client_dns_addr_done(f->addr_q[i], 3, NULL, 0);
}

static inline int fake_resolve_srv(void *ctx, const char *name, r_dns_query_t *query) {
    fake_dns_t *f = ctx;
    size_t i = f->srv_calls++;
    fake_copy_name(f->srv_name, name);
    if (f->srv_mode == FAKE_REFUSE || i >= FAKE_MAX_QUERIES) {
        return -1;
    }
    f->srv_q[i] = query;
    f->srv_owed[i] = true;
    if (f->srv_mode == FAKE_AT_ONCE) {
        fake_dns_answer_srv(f, i);
    }
    return f->fail_after_answer ? -1 : 0;
}

static inline int fake_resolve_addr(void *ctx, const char *host, r_dns_query_t *query) {
    fake_dns_t *f = ctx;
    size_t i = f->addr_calls++;
    if (i >= FAKE_MAX_QUERIES) {
        return -1;
    }
    fake_copy_name(f->addr_host[i], host);
    f->addr_host_ptr[i] = host;
    f->addr_q[i] = query;
    if (f->addr_mode == FAKE_REFUSE || (f->refuse_host != NULL && strcmp(f->refuse_host, host) == 0)) {
        return -1;
    }
    f->addr_owed[i] = true;
    if (f->addr_mode == FAKE_AT_ONCE) {
        fake_dns_answer_addr(f, i);
    }
    return f->fail_after_answer ? -1 : 0;
}

/* Answer every query still owed with a failure, as a host does after the
 * client is gone: the detached discovery must free itself (ASan checks). */
static inline void fake_dns_answer_rest(fake_dns_t *f) {
    for (size_t i = 0; i < f->srv_calls && i < FAKE_MAX_QUERIES; i++) {
        if (f->srv_owed[i]) {
            f->srv_owed[i] = false;
            r_client_dns_srv_done(f->srv_q[i], 2, NULL, 0);
        }
    }
    for (size_t i = 0; i < f->addr_calls && i < FAKE_MAX_QUERIES; i++) {
        if (f->addr_owed[i]) {
            f->addr_owed[i] = false;
            r_client_dns_addr_done(f->addr_q[i], 2, NULL, 0);
        }
    }
}

static inline r_resolver_ops_t fake_dns_ops(fake_dns_t *f) {
    r_resolver_ops_t ops = {f, fake_resolve_srv, fake_resolve_addr};
    return ops;
}

static inline void fake_dns_add_srv(fake_dns_t *f, const char *target, uint16_t port, uint32_t ttl_s) {
    r_srv_record_t r = {target, port, 0, 0, ttl_s};
    f->srv[f->n_srv++] = r;
}

static inline r_addr_t fake_v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
    r_addr_t x;
    memset(&x, 0, sizeof x);
    x.family = R_ADDR_INET;
    x.addr[0] = a;
    x.addr[1] = b;
    x.addr[2] = c;
    x.addr[3] = d;
    return x;
}

static inline void fake_dns_add_a(fake_dns_t *f, const char *host, r_addr_t addr) {
    fake_addr_script_t *s = &f->addr[f->n_addr++];
    s->host = host;
    s->status = 0;
    s->records[0].addr = addr;
    s->records[0].ttl_s = 60;
    s->n = 1;
}

static inline void fake_dns_add_failure(fake_dns_t *f, const char *host, int status) {
    fake_addr_script_t *s = &f->addr[f->n_addr++];
    s->host = host;
    s->status = status;
    s->n = 0;
}

/* ---- clock, log, random --------------------------------------------------- */

typedef struct {
    uint64_t now;
} fake_clock_t;

static inline uint64_t fake_now_ms(void *ctx) {
    return ((fake_clock_t *)ctx)->now;
}

typedef struct {
    size_t count[4]; /* per r_log_level_t */
    char last[256];
    const char *needle; /* count messages containing it */
    size_t needle_hits;
} fake_log_t;

static inline void fake_log(void *ctx, r_log_level_t level, const char *msg) {
    fake_log_t *l = ctx;
    if ((unsigned)level < 4u) {
        l->count[level]++;
    }
    size_t n = strlen(msg);
    if (n >= sizeof l->last) {
        n = sizeof l->last - 1;
    }
    memcpy(l->last, msg, n);
    l->last[n] = '\0';
    if (l->needle != NULL && strstr(msg, l->needle) != NULL) {
        l->needle_hits++;
    }
}

typedef struct {
    uint8_t bytes[8]; /* returned for every draw (repeated for longer requests) */
    bool fail;
    size_t calls;
    size_t last_len;
} fake_rng_t;

static inline int fake_random(void *ctx, uint8_t *buf, size_t len) {
    fake_rng_t *r = ctx;
    r->calls++;
    r->last_len = len;
    if (r->fail) {
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        buf[i] = r->bytes[i % sizeof r->bytes];
    }
    return 0;
}

#endif /* RL_FAKE_DNS_H */
