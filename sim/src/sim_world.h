/* SPDX-License-Identifier: MIT */
/* sim_world.h - one simulated run: the world (engine, network, DNS, servers,
 * clients hosting the unmodified client core through its public headers,
 * workload, oracle) and its metrics (r-client-ha-design.md section 7). */
#ifndef SIM_WORLD_H
#define SIM_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_config.h"

/* Metrics of one run. Rates are fractions in [0, 1]; times in ms. The JSON
 * keys (sim_metrics_json) are the field names; trace expectations name them. */
typedef struct {
    uint64_t submitted;               /* logical requests submitted, submit errors included */
    uint64_t submit_errors;           /* submit returned an error (DNS, ...): never decided */
    uint64_t decided;                 /* completed with a selected server response */
    uint64_t allowed, denied;
    uint64_t timeouts, io_failures;
    double availability;              /* decided / submitted */
    double latency_p50_ms, latency_p90_ms, latency_p99_ms, latency_max_ms; /* submit -> decision */
    /* against the oracle (each logical request applied once to one authoritative server) */
    uint64_t false_allows, false_denies;
    double false_allow_rate, false_deny_rate;               /* over decided requests */
    uint64_t disagreed;                                     /* requests whose servers answered differently */
    double false_allow_rate_disagree, false_deny_rate_disagree; /* over decided requests with disagreement */
    double oldest_selected_rate;      /* decided requests that selected the oldest server (by current server_id) */
    uint64_t overconsumed_tokens;     /* client-allowed tokens beyond rate_limit, summed over (bucket, window) */
    uint64_t overconsumed_windows;
    /* delivery */
    uint64_t datagrams_sent, datagrams_lost;
    uint64_t queue_drops;             /* datagrams a server dropped because its queue was full (overload) */
    uint64_t down_drops;              /* datagrams that reached a server during a restart's downtime */
    uint64_t replays_sent, completion_sends;
    uint64_t duplicate_deliveries;    /* server dedup hits (a replayed copy arrived within the window) */
    uint64_t reprocessed;             /* same unique_id decided afresh twice by one server (dedup lost) */
    double dedup_utilization;         /* peak live dedup entries / capacity, max over servers */
    double dedup_hit_age;             /* mean age of a dedup hit as a fraction of its TTL */
    uint64_t dedup_evicted;           /* live dedup entries evicted for capacity, all servers (degraded) */
    uint64_t dedup_lost;              /* live dedup entries lost at lookup in degraded mode, all servers */
    /* responses seen by clients */
    uint64_t late_responses;          /* trusted responses for requests already completed */
    uint64_t invalid_datagrams;       /* r_client_on_datagram returned an error (every class) */
    uint64_t invalid_protocol;        /* ... RCLIENT_ERR_PROTOCOL: malformed, AES tag, not the request's answer */
    uint64_t invalid_auth;            /* ... RCLIENT_ERR_AUTH: wrong auth type, cookie mismatch */
    uint64_t invalid_other;           /* ... any other error */
    uint64_t untrusted_responses;     /* responses whose server_id is not the one the request's snapshot trusts */
    uint64_t injected_datagrams;      /* datagrams inject faults delivered to clients (also counted by class) */
    uint64_t contradictory;           /* requests with both an allow and a deny from servers */
    /* faults */
    double convergence_ms;            /* last fault -> last wrong decision after it (0: none wrong) */
    uint64_t steering_requests;       /* keep_port = false applied by clients */
    double steering_latency_ms;       /* mean rebind-request -> rebind-complete */
    uint64_t dns_queries, dns_failures;
    uint64_t reports_sent;
} sim_metrics_t;

typedef struct {
    bool passed;
    char message[200];                /* what was expected and what happened */
} sim_expect_result_t;

/* Convergence of one fault event (docs/traces.md "Convergence per fault event"). */
typedef struct {
    double at_ms;                     /* the event's instant (run clock) */
    int kind;                         /* sim_fault_kind_t, 0 = a DNS epoch change */
    uint32_t index;                   /* index in faults (or in dns.epochs) */
    uint64_t unsettled;               /* disagreed or wrong decisions charged to it */
    double convergence_ms;            /* event -> last of them (0: none) */
} sim_convergence_t;

typedef struct {
    uint64_t seed;
    sim_metrics_t metrics;
    sim_convergence_t *convergence;   /* per fault event, in time order (owned) */
    size_t n_convergence;
    char digest[65];                  /* SHA-256 of the event log */
    uint64_t events;                  /* engine events processed */
    uint64_t log_records;
    sim_expect_result_t *expects;     /* cfg->n_expects entries, owned */
    size_t n_expects;
    size_t expects_failed;
    double wall_seconds;              /* filled by the caller if it measures; not part of the digest */
} sim_result_t;

typedef struct {
    FILE *events;                     /* text event log, or NULL */
    FILE *timeline;                   /* --timeline CSV (docs/traces.md "Timeline"), or NULL */
    uint32_t timeline_ms;             /* its window length, ms (> 0 with timeline) */
    /* An observer of every event-log record, with the datagram of send and
     * deliver records (explore mode's property checks, docs/explore.md), or
     * NULL. Its type is sim_log_observer_fn (sim_engine.h). */
    void (*observer)(void *ctx, uint64_t at_us, int kind, uint64_t a, uint64_t b, uint64_t c, const uint8_t *data,
                     size_t len);
    void *observer_ctx;
} sim_run_opts_t;

/* Run cfg with seed. Returns 0 with *out filled (free with sim_result_free),
 * or -1 with err (cap bytes) naming the problem (e.g. an unknown server name). */
int sim_run(const sim_config_t *cfg, uint64_t seed, const sim_run_opts_t *opts, sim_result_t *out, char *err,
            size_t err_cap);
void sim_result_free(sim_result_t *r);

/* Value of a metric by JSON key; false when unknown. */
bool sim_metric_value(const sim_metrics_t *m, const char *key, double *out);
/* True when the metric is a counter (an integer field), false for a rate,
 * a time or an unknown key. */
bool sim_metric_is_count(const char *key);
/* Print the metrics as a table for people / a JSON object for tools. */
void sim_metrics_table(FILE *f, const sim_metrics_t *m);
void sim_metrics_json(FILE *f, const sim_metrics_t *m);
/* Convergence per fault event: a table (at most max_rows rows) / a JSON array. */
void sim_conv_table(FILE *f, const sim_result_t *r, size_t max_rows);
void sim_conv_json(FILE *f, const sim_result_t *r);
const char *sim_conv_kind_name(int kind);

#endif /* SIM_WORLD_H */
