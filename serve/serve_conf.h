/* SPDX-License-Identifier: MIT */
/* serve_conf.h - configuration of `rl-testbed serve`: the reference r-server
 * model (sim/src/sim_server.h) on real UDP sockets, several instances in one
 * process. Every option has one parser, shared by the command line
 * ("--server port=0,drop=0.1") and the JSON config file (the same keys as
 * members of a "servers" object), so both accept exactly the same values.
 * tools/rl-testbed/README.md "serve" documents each key. */
#ifndef SERVE_CONF_H
#define SERVE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_server.h"

#define SERVE_MAX_SERVERS 64u
#define SERVE_MAX_LISTEN 8u
#define SERVE_MAX_TENANTS 256u
#define SERVE_ERR_LEN 256u

/* Reply delay distribution (ms). */
typedef enum {
    SERVE_DELAY_NONE = 0,
    SERVE_DELAY_FIXED = 1,   /* a */
    SERVE_DELAY_UNIFORM = 2, /* uniform integer in [a, b] */
    SERVE_DELAY_EXP = 3      /* exponential with mean a, capped at b (0 = 10 * a) */
} serve_delay_kind_t;

typedef struct {
    serve_delay_kind_t kind;
    uint32_t a_ms, b_ms;
} serve_delay_t;

/* One server instance and its scripted behaviour. */
typedef struct {
    uint16_t port;               /* 0 = an ephemeral port (the same on every listen address) */
    bool has_id;                 /* server_id given: start/listener/node decoded from it */
    uint64_t server_id;
    uint64_t start_s;            /* server_start_s; 0 = the wall clock at start */
    bool has_listener;
    uint8_t listener_id;         /* default: the instance's index */
    bool has_node;
    uint16_t node_id;            /* default: the process id modulo 32768 (serve_conf_finish) */
    double drop;                 /* probability a received datagram is lost before the model */
    double drop_reply;           /* probability a reply is lost after the model decided */
    double inject;               /* probability an invalid datagram precedes a reply */
    serve_delay_t delay;
    bool deny;                   /* forced deny (sim_server_set_forced_deny) */
    double restart_at_s;         /* restart once this long after start; 0 = never */
    uint64_t restart_after;      /* restart once after this many rate requests; 0 = never */
    double down_at_s;            /* from this long after start, answer nothing (a crash); 0 = never */
    uint64_t down_after;         /* the same after this many rate requests; 0 = never */
    sim_steer_mode_t steer;
    double steer_p;
    uint32_t freshness_ms;       /* default 5000; 0 = no time_stamp check */
    int64_t skew_ms;             /* the server clock runs this far ahead of the wall clock */
    uint32_t dedup_capacity;     /* 0 = the model's default (65536), capped by the memory cap */
    uint32_t dedup_ttl_cap_ms;   /* 0 = the model's default (2000) */
} serve_server_conf_t;

typedef struct {
    serve_server_conf_t servers[SERVE_MAX_SERVERS];
    size_t n_servers;
    char *tenants[SERVE_MAX_TENANTS];    /* credential text, owned, cleansed on free */
    size_t n_tenants;
    char *listen[SERVE_MAX_LISTEN];      /* numeric IPv4/IPv6 addresses, owned */
    size_t n_listen;                     /* 0 = 127.0.0.1 and ::1 */
    char *log_path, *zone_path, *dnsmasq_path, *dns_name; /* owned; NULL = unset */
    bool has_log_max_bytes;
    uint64_t log_max_bytes;              /* rotate the log file at this size; 0 = no limit */
    uint32_t rate_cap;                   /* datagrams per second handled, whole process */
    uint32_t memory_cap_mb;              /* bound for dedup caches and the reply queue */
    uint32_t memory_budget_mb;           /* rl_memory_budget_bytes of each server: tenant admission */
    bool has_admin_secret;
    uint8_t admin_secret[32];            /* --admin-secret: the raw AES-256 key, cleansed on free */
    uint32_t max_pending;                /* delayed replies queued at once */
    bool has_seed;
    uint64_t seed;                       /* scripted faults' random stream; default from the OS */
    double duration_s;                   /* stop after this long; 0 = run until a signal */
} serve_conf_t;

/* err := the formatted text, truncated to SERVE_ERR_LEN (every error
 * message of serve is made here). */
__attribute__((format(printf, 2, 3))) void serve_errf(char *err, const char *fmt, ...);

/* Defaults: no servers, no tenants, rate_cap 100000, memory_cap_mb 256,
 * memory_budget_mb 1024, max_pending 4096, log_max_bytes 1 GiB, no admin
 * secret. */
void serve_conf_init(serve_conf_t *c);
/* Release owned strings (credentials cleansed). */
void serve_conf_free(serve_conf_t *c);

/* Defaults of one server. */
void serve_server_defaults(serve_server_conf_t *s);

/* Set server key to text value ("drop" = "0.25"). Returns 0, or -1 with err
 * (cap SERVE_ERR_LEN) naming the key and the accepted values. */
int serve_server_set(serve_server_conf_t *s, const char *key, const char *value, char *err);

/* Parse "key=value,key=value" into a new server (defaults first) appended to
 * c. Returns 0 or -1 with err. */
int serve_conf_add_server_spec(serve_conf_t *c, const char *spec, char *err);

/* Set a process-wide option by its command-line name without dashes
 * ("tenant", "listen", "log", "log-max-bytes", "zone", "dnsmasq", "dns-name", "rate-cap",
 * "memory-cap", "memory-budget", "admin-secret", "max-pending", "seed",
 * "duration"). "tenant" and "listen"
 * append. Returns 0, or -1 with err naming the option and the value. */
int serve_conf_set(serve_conf_t *c, const char *name, const char *value, char *err);

/* Load a JSON config file (format in tools/rl-testbed/README.md "serve
 * config file") into c. Returns 0, or -1 with err "FILE:LINE:COL: ..." for
 * a syntax error or "FILE: servers[1].drop: ..." for a bad member. */
int serve_conf_load_json(serve_conf_t *c, const char *path, char *err);

/* Final checks and defaults after every source was applied: at least one
 * tenant (each a valid credential) unless an admin secret is given (tenants
 * then come by Tenant Mutation), --dns-name when zone records are asked for
 * and there is no tenant, --log-max-bytes only with a --log file (not
 * stdout), one server when none was given, no two
 * servers on one fixed port, an explicit server_id or start valid for
 * wire_protocol.md "Structured server_id Format". Defaults: listener = the
 * server's index, node = getpid() % 32768 (processes running at once on one
 * host differ, so servers they start in the same second get distinct
 * server_ids). Returns 0 or -1 with err. */
int serve_conf_finish(serve_conf_t *c, char *err);

#endif /* SERVE_CONF_H */
