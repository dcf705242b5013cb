/* SPDX-License-Identifier: MIT */
/* sim_dns.h - the simulated DNS: SRV and A/AAAA answers that change over
 * time (an epoch timeline), with TTLs, empty answers, failures, timeouts and
 * non-conforming targets. It answers the client core's resolver hooks
 * (r_client_io.h) through r_client_dns_srv_done / r_client_dns_addr_done after
 * a lookup latency, from engine events. */
#ifndef SIM_DNS_H
#define SIM_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "sim_engine.h"

#define SIM_DNS_NAME_MAX 256u

typedef enum {
    SIM_DNS_OK = 0,       /* the records below (may be empty) */
    SIM_DNS_FAIL = 1,     /* answer with a failure status after the latency */
    SIM_DNS_TIMEOUT = 2   /* answer with a failure status after timeout_us */
} sim_dns_mode_t;

typedef struct {
    char target[SIM_DNS_NAME_MAX]; /* SRV target, e.g. "s-<server_id>.rl.example." or anything */
    uint16_t port;
    uint32_t ttl_s;
    bool has_addr;                 /* false: the A/AAAA lookup of this target answers empty */
    r_addr_t addr;                 /* the node address the target resolves to */
} sim_dns_record_t;

/* The answer set in force from `from` until the next epoch. */
typedef struct {
    sim_time_t from;
    sim_dns_mode_t mode;
    sim_dns_record_t *records;     /* owned by the caller of sim_dns_add_epoch (copied) */
    size_t n_records;
} sim_dns_epoch_t;

/* Failure statuses handed to r_client_dns_*_done (any non-zero is a failure
 * to the core) and the log's query kinds: extensions of this contract. */
#define SIM_DNS_STATUS_FAIL 2     /* a FAIL epoch (SERVFAIL-like) */
#define SIM_DNS_STATUS_TIMEOUT 5  /* a TIMEOUT epoch, after timeout_us */
#define SIM_DNS_STATUS_FLUSHED 6  /* answered by sim_dns_flush at teardown */
#define SIM_DNS_QUERY_SRV 1u      /* SIM_LOG_DNS b */
#define SIM_DNS_QUERY_ADDR 2u
#define SIM_DNS_LOG_FAILED UINT64_MAX /* SIM_LOG_DNS c for a failure; else the record count */

/* Counted when an event answers (flushed answers are not counted):
 * failures = FAIL answers, timeouts = TIMEOUT answers, empty_answers = status
 * 0 with no records (SRV or A/AAAA). */
typedef struct {
    uint64_t srv_queries, addr_queries, failures, timeouts, empty_answers;
} sim_dns_stats_t;

typedef struct sim_dns sim_dns_t;

/* latency_us: lookup latency; timeout_us: how long a TIMEOUT epoch takes to
 * fail. zone: the SRV name clients are expected to query (any other SRV name
 * answers empty). log may be NULL. */
sim_dns_t *sim_dns_new(sim_engine_t *engine, sim_log_t *log, const char *srv_name, uint32_t latency_us,
                       uint32_t timeout_us);
/* Owed queries are answered by engine events that point into the model:
 * flush and free it only when the engine will run no more events. */
void sim_dns_free(sim_dns_t *dns);
/* Epochs must be added in increasing `from` order; records are copied.
 * Returns 0 or -1. */
int sim_dns_add_epoch(sim_dns_t *dns, const sim_dns_epoch_t *epoch);

/* The resolver hooks to pass to r_client_create; ctx identifies (dns,
 * client_index): a per-client record owned by dns, the same for repeated
 * calls with one index (NULL hooks on allocation failure, which
 * r_client_create refuses). The answer uses the epoch in force when the
 * query was made. `client_index` is only for the log: use
 * sim_dns_resolver(dns, i) to get per-client hooks. */
r_resolver_ops_t sim_dns_resolver(sim_dns_t *dns, uint32_t client_index);

/* Answer every query still owed (at teardown, after the clients are gone) so
 * query objects are released; answers are failures. */
void sim_dns_flush(sim_dns_t *dns);

const sim_dns_stats_t *sim_dns_stats(const sim_dns_t *dns);

/* Called with every successful SRV answer just before the client gets it
 * (records valid during the call only): lets the world track which server_id
 * each client believes each address has. fn NULL: no observer. */
typedef void (*sim_dns_srv_observer_fn)(void *ctx, uint32_t client, const sim_dns_record_t *records, size_t n);
void sim_dns_set_observer(sim_dns_t *dns, sim_dns_srv_observer_fn fn, void *ctx);

#endif /* SIM_DNS_H */
