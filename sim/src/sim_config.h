/* SPDX-License-Identifier: MIT */
/* sim_config.h - the in-memory form of a trace (docs/traces.md): everything a
 * run needs besides the seed. Built by the trace loader (sim_trace.h) or by
 * code; every time is in ms from the start of the run unless named *_us. */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "sim_net.h"
#include "sim_server.h"

#define SIM_NAME_MAX 32u
#define SIM_RUN_EPOCH_MS 1767225600000ull /* simulated wall clock at t = 0: 2026-01-01T00:00:00Z */

typedef struct {
    char name[SIM_NAME_MAX];          /* "A", "B", ... referenced by links, DNS, faults */
    sim_server_params_t params;       /* server_start_s etc.; start defaults to epoch - age */
    uint32_t processing_us;           /* per-datagram processing delay */
    uint32_t processing_jitter_us;
    int64_t clock_skew_ms;            /* server clock = run clock + skew */
    int32_t clock_drift_ppm;          /* + drift: the clock gains ppm microseconds per second of run time */
    uint32_t queue_capacity;          /* > 0: one FIFO service queue of this many datagrams (overload) */
} sim_server_cfg_t;

typedef struct {
    char bucket[SIM_NAME_MAX * 2];    /* bucket name (hashed into bucket_id) */
    uint32_t window_size_ms;
    uint32_t rate_limit;
    uint16_t tokens;
} sim_resource_cfg_t;

typedef struct {
    char tracker[SIM_NAME_MAX * 2];
    uint32_t threshold_ms;
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
} sim_guard_cfg_t;

#define SIM_MAX_MIX_RES 4u
#define SIM_MAX_MIX_GUARDS 4u

/* One request shape, chosen with probability weight / sum of weights. */
typedef struct {
    uint32_t weight;
    sim_resource_cfg_t resources[SIM_MAX_MIX_RES];
    size_t n_resources;
    sim_guard_cfg_t guards[SIM_MAX_MIX_GUARDS];
    size_t n_guards;
    char label[SIM_NAME_MAX];         /* metrics label, "" = none */
} sim_mix_cfg_t;

typedef enum { SIM_ARRIVAL_POISSON = 0, SIM_ARRIVAL_SCRIPTED = 1 } sim_arrival_kind_t;

/* Service latency of the protected work (reported after an allowed request). */
typedef struct {
    bool enabled;                     /* send latency reports */
    sim_latency_t model;              /* reuse of the link latency shapes, in us */
} sim_service_cfg_t;

typedef struct {
    char name[SIM_NAME_MAX];
    r_auth_type_t auth;               /* credential generated deterministically from the seed-free key_id */
    uint64_t key_id;
    uint32_t quota_word;              /* 0 = canonical 0xf8f2b150 */
    r_request_policy_t policy;
    r_dns_refresh_config_t dns_refresh;
    bool use_dns;                     /* false: explicit endpoints = every server in DNS epoch 0 */
    uint32_t *endpoints;              /* explicit endpoints (server indexes, owned; implies !use_dns), or NULL */
    size_t n_endpoints;
    int64_t clock_skew_ms;
    int32_t clock_drift_ppm;          /* as for servers */
    bool timer_late;                  /* timers fire late by a draw of timer_delay */
    sim_latency_t timer_delay;
    sim_arrival_kind_t arrival;
    double rate_per_s;                /* Poisson */
    uint64_t *script_ms;              /* scripted submit times (owned) */
    size_t n_script;
    uint64_t max_requests;            /* 0 = unbounded (until duration) */
    sim_mix_cfg_t *mix;               /* owned */
    size_t n_mix;
    sim_service_cfg_t service;
} sim_client_cfg_t;

/* A link override: names are client or server names, or "*". */
typedef struct {
    char from[SIM_NAME_MAX];
    char to[SIM_NAME_MAX];
    sim_link_t link;
} sim_link_cfg_t;

/* DNS answer set in force from at_ms. */
typedef struct {
    uint64_t at_ms;
    int mode;                         /* sim_dns_mode_t */
    struct sim_dns_member {
        char server[SIM_NAME_MAX];    /* a server name, or "" with raw_target set */
        char raw_target[128];         /* non-conforming or custom target text */
        uint16_t port;                /* 0 = 29292 */
        uint32_t ttl_s;
        bool no_addr;                 /* the A/AAAA lookup answers empty */
    } *members;                       /* owned */
    size_t n_members;
} sim_dns_epoch_cfg_t;

typedef enum {
    SIM_FAULT_RESTART = 1,        /* target server; new start = run clock at that time */
    SIM_FAULT_PAUSE = 2,          /* target server; value = duration ms (queued, processed after) */
    SIM_FAULT_LINK = 3,           /* link override applied at at_ms (from/to names) */
    SIM_FAULT_PARTITION = 4,      /* target node; dir; on/off */
    SIM_FAULT_DEDUP_DEGRADE = 5,  /* target server; p = loss probability, value = capacity */
    SIM_FAULT_DEDUP_HEAL = 6,     /* target server */
    SIM_FAULT_SKEW = 7,           /* target client or server; value = new skew ms (signed) */
    SIM_FAULT_STEERING = 8,       /* target server; value = sim_steer_mode_t, p = change probability */
    SIM_FAULT_INJECT = 9,         /* target client, link.from server; dir = sim_inject_class_t, value = count */
    SIM_FAULT_FAILURES = 10,      /* target node: random failures (MTBF/MTTR) until until_ms */
    SIM_FAULT_TENANT_REMOVE = 11, /* target server or "" (every server and the oracle); tenant = client name */
    SIM_FAULT_TENANT_ADD = 12     /* the same; quota_word of the new credential */
} sim_fault_kind_t;

/* Datagrams a fault injects into a client as if from a server. */
typedef enum {
    SIM_INJECT_INVALID = 0,        /* random bytes */
    SIM_INJECT_FORGED = 1,         /* the server's last response to the client, a byte of its auth value flipped */
    SIM_INJECT_REPLAYED = 2,       /* that response again, unchanged */
    SIM_INJECT_WRONG_IDENTITY = 3  /* that response with another server_id in its key_id */
} sim_inject_class_t;

typedef struct {
    uint64_t at_ms;
    sim_fault_kind_t kind;
    char target[SIM_NAME_MAX];
    sim_link_cfg_t link;              /* SIM_FAULT_LINK */
    int dir;                          /* SIM_FAULT_PARTITION: sim_dir_t */
    bool on;
    double p;
    int64_t value;
    uint64_t mtbf_ms, mttr_ms, until_ms; /* SIM_FAULT_FAILURES */
    char tenant[SIM_NAME_MAX];        /* SIM_FAULT_TENANT_*: the client whose key is removed or added */
    uint32_t quota_word;              /* SIM_FAULT_TENANT_ADD: the credential's quota word */
} sim_fault_cfg_t;

typedef enum {
    SIM_EXPECT_SELECTED = 1,          /* client's request #index (0-based) selected server `server` */
    SIM_EXPECT_STATUS = 2,            /* client's request #index ended with status (r_client_error_t) */
    SIM_EXPECT_METRIC = 3             /* metric `metric` op value */
} sim_expect_kind_t;

typedef enum { SIM_OP_LE = 0, SIM_OP_GE = 1, SIM_OP_EQ = 2, SIM_OP_LT = 3, SIM_OP_GT = 4 } sim_op_t;

typedef struct {
    sim_expect_kind_t kind;
    char client[SIM_NAME_MAX];
    uint64_t index;
    char server[SIM_NAME_MAX];
    int status;
    char metric[48];                  /* a key of the metrics JSON, e.g. "false_allow_rate" */
    sim_op_t op;
    double value;
} sim_expect_cfg_t;

typedef struct {
    char name[64];
    char description[256];
    uint64_t seed;                    /* default seed when --seed is not given */
    uint64_t duration_ms;             /* the run ends here (in-flight requests are drained) */
    sim_link_t default_link;
    uint32_t dns_latency_us, dns_timeout_us;
    char tenant_dns_name[128];        /* default "rl.sim.example" */
    sim_server_cfg_t *servers; size_t n_servers;
    sim_client_cfg_t *clients; size_t n_clients;
    sim_link_cfg_t *links; size_t n_links;
    sim_dns_epoch_cfg_t *dns; size_t n_dns;
    sim_fault_cfg_t *faults; size_t n_faults;
    uint32_t **sample_tables; size_t n_sample_tables; /* empirical latency samples (sim_latency_t.samples) */
    char shared_loss[64][SIM_NAME_MAX]; size_t n_shared_loss; /* names of shared Gilbert-Elliott chains */
    sim_expect_cfg_t *expects; size_t n_expects;
} sim_config_t;

/* Free everything a config owns (and the config's arrays); NULL-safe. */
void sim_config_free(sim_config_t *cfg);

#endif /* SIM_CONFIG_H */
