/* SPDX-License-Identifier: MIT */
/* sim_engine.h - the simulator's deterministic substrate: virtual clock,
 * priority event queue, seeded random streams, and the event log whose digest
 * proves a run reproducible. Nothing here reads a wall clock or an OS random
 * source: a run is a pure function of (trace, seed). */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t sim_time_t; /* microseconds since the start of the run */
#define SIM_US_PER_MS 1000ull

/* ---- Random streams -----------------------------------------------------------
 * Generator: xoshiro256** (Blackman & Vigna), state seeded with splitmix64.
 * Common random numbers: every entity (a link, a client, a server, a fault
 * process) owns one stream per purpose, derived from (run seed, entity kind,
 * entity index << 8 | purpose) by sim_rng_entity, so what one entity draws
 * never shifts the draws of another, and one purpose of an entity never shifts
 * another purpose (docs/traces.md "Random numbers"). */
typedef struct {
    uint64_t s[4];
} sim_rng_t;

/* Stream ids: one per consumer kind, combined with an index (server, client, link). */
enum {
    SIM_STREAM_NET = 1,
    SIM_STREAM_DNS = 2,
    SIM_STREAM_SERVER = 3,
    SIM_STREAM_CLIENT = 4,   /* the client core's random source (unique_id, nonces) */
    SIM_STREAM_WORKLOAD = 5,
    SIM_STREAM_FAULT = 6
};

/* Purposes within one entity (the low 8 bits of the index). */
enum {
    SIM_PURPOSE_LOSS = 0,        /* link: Bernoulli / Gilbert-Elliott loss draw */
    SIM_PURPOSE_STATE = 1,       /* link: Gilbert-Elliott state transition */
    SIM_PURPOSE_DUPLICATE = 2,   /* link: duplication */
    SIM_PURPOSE_LATENCY = 3,     /* link: one-way delay draw and jitter */
    SIM_PURPOSE_REORDER = 4,     /* link: reorder */
    SIM_PURPOSE_PROCESSING = 5,  /* link into a server: the server's processing jitter for it */
    SIM_PURPOSE_EXCHANGE = 6,    /* a request-server exchange: its one round-trip sample (empirical latency) */
    SIM_PURPOSE_CORE = 16,       /* client: the core's random hook (unique_id, nonces, DNS jitter) */
    SIM_PURPOSE_ARRIVALS = 17,   /* client: arrival gaps */
    SIM_PURPOSE_MIX = 18,        /* client: request mix choice */
    SIM_PURPOSE_SERVICE = 19,    /* client: service time of admitted work */
    SIM_PURPOSE_TIMER = 20,      /* client: how late the host delivers a timer */
    SIM_PURPOSE_SERVER = 32      /* server: its own stream (sim_server_new) */
};

/* The stream of (seed, kind, entity, purpose): sim_rng_seed(r, seed, kind, entity << 8 | purpose). */
void sim_rng_entity(sim_rng_t *r, uint64_t seed, uint64_t kind, uint64_t entity, uint32_t purpose);
/* A stateless keyed draw in [0, 1): a pure function of (key, a, b), for draws
 * that belong to one request identity (a server's dedup loss and random
 * steering), so they do not depend on the traffic of other clients. */
double sim_rng_keyed_unit(uint64_t key, uint64_t a, uint64_t b);
void sim_rng_seed(sim_rng_t *r, uint64_t seed, uint64_t stream, uint64_t index);
/* Counter-based: the stream of (key, a, b, c), a pure function of the four words (one more
 * splitmix64 step of sim_rng_seed's chain): the per-packet draws of a tagged packet. */
void sim_rng_counter(sim_rng_t *r, uint64_t key, uint64_t a, uint64_t b, uint64_t c);
uint64_t sim_rng_u64(sim_rng_t *r);
uint64_t sim_rng_below(sim_rng_t *r, uint64_t n);  /* uniform in [0, n), unbiased; 0 when n == 0 */
double sim_rng_unit(sim_rng_t *r);                 /* uniform in [0, 1), 53 bits */
bool sim_rng_chance(sim_rng_t *r, double p);       /* true with probability p (p <= 0 never, >= 1 always) */
double sim_rng_exp(sim_rng_t *r, double mean);     /* exponential with the given mean */
void sim_rng_bytes(sim_rng_t *r, uint8_t *out, size_t n);

/* ---- Event log ------------------------------------------------------------------
 * Every state-changing event is recorded as a fixed-size record folded into a
 * SHA-256 digest; with a text sink it is also printed one line per event. The
 * digest is the run's fingerprint for --check-determinism. */
typedef enum {
    SIM_LOG_SUBMIT = 1,     /* a: client, b: request seq, c: low 64 bits of unique_id, or the submit error */
    SIM_LOG_SEND = 2,       /* a: src node, b: dst node, c: length */
    SIM_LOG_DROP = 3,       /* a: src node, b: dst node, c: reason (sim_drop_reason_t) */
    SIM_LOG_DELIVER = 4,    /* a: src node, b: dst node, c: length */
    SIM_LOG_SERVER = 5,     /* a: server, b: outcome (sim_server_verdict_t), c: allowed */
    SIM_LOG_DECISION = 6,   /* a: client, b: request seq, c: status/allowed/server index packed */
    SIM_LOG_DNS = 7,        /* a: client, b: query kind, c: answer size or failure */
    SIM_LOG_FAULT = 8,      /* a: fault kind, b: target, c: parameter */
    SIM_LOG_REPORT = 9,     /* a: client, b: reports, c: sent */
    SIM_LOG_STEERING = 10,  /* a: client, b: server_id low bits, c: 0 */
    SIM_LOG_XMIT = 11,      /* a: client, b: request seq (report seq for class 3), c: class << 32 | dst node */
    SIM_LOG_SHAPE = 12,     /* a: client, b: request seq, c: mix index */
    SIM_LOG_SREQ = 13,      /* a: server, b: client, c: request seq (follows its "server" record) */
    SIM_LOG_SREP = 14,      /* a: server, b: client, c: report seq (follows its "server" record) */
    SIM_LOG_RSHAPE = 15     /* a: client, b: report seq, c: mix index << 32 | observed latency (ms) */
} sim_log_kind_t;

typedef struct sim_log sim_log_t;

/* text may be NULL (digest only). Returns NULL on allocation failure. */
sim_log_t *sim_log_new(FILE *text);
void sim_log_free(sim_log_t *log);
void sim_log_record(sim_log_t *log, sim_time_t at, sim_log_kind_t kind, uint64_t a, uint64_t b, uint64_t c);
/* The same, for a send or deliver record: an observer (explore mode,
 * docs/explore.md) also sees the datagram's bytes; the log itself does not. */
void sim_log_record_bytes(sim_log_t *log, sim_time_t at, sim_log_kind_t kind, uint64_t a, uint64_t b, uint64_t c,
                          const uint8_t *data, size_t len);
/* An observer of every record, after it is logged (data NULL unless the
 * record carries a datagram). NULL fn removes it. */
typedef void (*sim_log_observer_fn)(void *ctx, uint64_t at_us, int kind, uint64_t a, uint64_t b, uint64_t c,
                                    const uint8_t *data, size_t len);
void sim_log_set_observer(sim_log_t *log, sim_log_observer_fn fn, void *ctx);
uint64_t sim_log_count(const sim_log_t *log);
/* Hex SHA-256 of every record so far (65 bytes with NUL). Does not end the log. */
void sim_log_digest(const sim_log_t *log, char out[65]);

/* ---- Event queue --------------------------------------------------------------
 * Binary heap ordered by (at, class, seq): at equal times control changes come
 * first, then deliveries (datagrams, DNS answers), then timers, then new
 * arrivals; seq (insertion order) breaks the remaining ties. Delivering
 * readable datagrams before a simultaneous deadline is r-client.md 9.3.3's
 * "bounded batch before the deadline". */
typedef enum {
    SIM_CLASS_CONTROL = 0,
    SIM_CLASS_DELIVER = 1,
    SIM_CLASS_TIMER = 2,
    SIM_CLASS_WORKLOAD = 3
} sim_event_class_t;

typedef void (*sim_event_fn)(void *ctx, uint64_t arg, void *ptr);

typedef struct {
    sim_time_t at;
    uint64_t key;        /* class << 56 | seq: one comparison after time */
    sim_event_fn fn;
    void *ctx;
    void *ptr;
    uint64_t arg;
} sim_event_t;

typedef struct {
    sim_event_t *heap;
    size_t len, cap;
    uint64_t next_seq;
    sim_time_t now;
    uint64_t processed;
    bool stopped;
} sim_engine_t;

int sim_engine_init(sim_engine_t *e);   /* 0 or -1 (allocation) */
void sim_engine_free(sim_engine_t *e);
/* Schedule fn(ctx, arg, ptr) at time at (clamped to now if earlier).
 * Returns 0, or -1 on allocation failure, a NULL fn or an unknown class. */
int sim_engine_schedule(sim_engine_t *e, sim_time_t at, sim_event_class_t cls, sim_event_fn fn, void *ctx,
                        uint64_t arg, void *ptr);
/* Run events in order until the queue is empty, sim_engine_stop() is called,
 * or the next event is later than until. Returns the number processed. now
 * moves only with events (it stays at the last event's time, not `until`);
 * stop() ends the run in progress, the next run starts afresh. */
uint64_t sim_engine_run(sim_engine_t *e, sim_time_t until);
void sim_engine_stop(sim_engine_t *e);
static inline sim_time_t sim_engine_now(const sim_engine_t *e) { return e->now; }

#endif /* SIM_ENGINE_H */
