/* SPDX-License-Identifier: MIT */
/* serve_fault.h - the scripted behaviour of a serve instance that does not
 * live in the server model: reply delays, injected invalid datagrams, the
 * process-wide rate cap, and the queue of delayed replies. Pure functions of
 * their inputs and a random stream, so each is unit-tested exactly. */
#ifndef SERVE_FAULT_H
#define SERVE_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "serve_conf.h"
#include "sim_engine.h"

#define SERVE_DATAGRAM_MAX 1200u

/* A delay drawn from d, ms: NONE 0; FIXED a; UNIFORM integer in [a, b]; EXP
 * exponential with mean a, rounded down, capped at b. */
uint32_t serve_delay_draw(const serve_delay_t *d, sim_rng_t *rng);

/* Token bucket of `rate` datagrams per second, burst `rate` (one second's
 * worth), refilled continuously from a monotonic ms clock. */
typedef struct {
    uint32_t rate;
    uint64_t tokens_milli;   /* thousandths of a token */
    uint64_t last_ms;
} serve_ratecap_t;

void serve_ratecap_init(serve_ratecap_t *rc, uint32_t rate, uint64_t now_ms);
/* Take one token at now_ms; false when none is left (the datagram is not handled). */
bool serve_ratecap_take(serve_ratecap_t *rc, uint64_t now_ms);

/* Invalid datagrams a client must ignore (r-client.md 6.3: malformed or
 * unmatched ingress leaves the request in flight), built from the real reply. */
typedef enum {
    SERVE_INJECT_TRUNCATED = 0,   /* the reply cut short (1 .. len-1 bytes) */
    SERVE_INJECT_TENANT_SIZE = 1, /* the reply with tenant TLV tlv_size 36 */
    SERVE_INJECT_UNIQUE_ID = 2,   /* the reply with one unique_id byte changed: matches no request */
    SERVE_INJECT_GARBAGE = 3,     /* 1..1200 random bytes */
    SERVE_INJECT_KINDS = 4
} serve_inject_kind_t;

/* Write the injected datagram of kind built from reply[0..len) (len >= 44)
 * into out (SERVE_DATAGRAM_MAX bytes). Returns its length (>= 1). */
size_t serve_inject_make(serve_inject_kind_t kind, const uint8_t *reply, size_t len, sim_rng_t *rng, uint8_t *out);
const char *serve_inject_name(serve_inject_kind_t kind);

/* ---- delayed replies: a min-heap on (due_ms, seq) ------------------------- */
typedef struct {
    uint64_t due_ms;         /* monotonic */
    uint64_t seq;            /* insertion order: equal due times leave FIFO */
    uint32_t instance, socket;
    uint8_t peer[28];        /* struct sockaddr_in/_in6 bytes */
    uint32_t peer_len;
    uint32_t delay_ms;
    int verdict;             /* sim_server_verdict_t of the request */
    bool allowed;
    uint16_t len;
    uint8_t bytes[SERVE_DATAGRAM_MAX];
} serve_pending_t;

typedef struct {
    serve_pending_t *items;
    size_t n, cap;
    uint64_t next_seq;
} serve_queue_t;

/* A queue of at most cap entries, allocated once. 0 or -1. */
int serve_queue_init(serve_queue_t *q, size_t cap);
void serve_queue_free(serve_queue_t *q);
/* Copy p in; false when the queue is full (the reply is dropped, counted). */
bool serve_queue_push(serve_queue_t *q, const serve_pending_t *p);
/* The earliest entry, or NULL when empty. */
const serve_pending_t *serve_queue_peek(const serve_queue_t *q);
void serve_queue_pop(serve_queue_t *q);

#endif /* SERVE_FAULT_H */
