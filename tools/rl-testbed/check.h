/* SPDX-License-Identifier: MIT */
/* check.h - `rl-testbed check`: a command-line client on the public runtime
 * (r_client_runtime.h). check_cmd.c parses the command line into a
 * check_cfg_t; check_run.c makes the runtime and runs one decision (and an
 * optional latency report); check_load.c drives a load and prints throughput,
 * decision-latency quantiles and syscalls per request. Exit codes are those of
 * tools/rl-testbed/README.md "check". */
#ifndef CHECK_H
#define CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client_runtime.h"

#define CHECK_EXIT_ALLOWED 0
#define CHECK_EXIT_DENIED 1
#define CHECK_EXIT_USAGE 2
#define CHECK_EXIT_FAILED 3 /* no decision: timeout, I/O, no server known, runtime error */

#define CHECK_MAX_BUCKETS 39u /* api.md "Capacity limits" */
#define CHECK_MAX_GUARDS 27u
#define CHECK_MAX_SERVERS 64u
#define CHECK_NAME_MAX 128u

typedef struct {
    char name[CHECK_NAME_MAX];
    uint32_t window_ms;
    uint32_t limit;
    uint16_t tokens;
} check_bucket_t;

typedef struct {
    char name[CHECK_NAME_MAX];
    uint32_t threshold_ms;
    uint32_t ttl_ms;
    uint32_t max_samples;
    uint32_t buffer_size;
    uint32_t min_samples;
} check_guard_t;

typedef struct {
    const char *key;              /* --key; NULL: RATELIMITLY_AUTH_KEY */
    const char *dns_name;         /* --dns; NULL: RATELIMITLY_TENANT or the key's default name */
    const char *dns_server;       /* --dns-server HOST:PORT */
    r_server_endpoint_t servers[CHECK_MAX_SERVERS];
    size_t n_servers;
    check_bucket_t buckets[CHECK_MAX_BUCKETS];
    size_t n_buckets;
    check_guard_t guards[CHECK_MAX_GUARDS];
    size_t n_guards;
    const char *label;            /* --label */
    bool report;                  /* --report MS */
    uint32_t report_ms;
    bool load;                    /* --load N or --duration S */
    uint64_t load_n;              /* --load N: measured requests; 0 with --duration */
    uint64_t duration_us;         /* --duration S: measured seconds of submissions; 0 with --load */
    double rate;                  /* --rate R: requests/s, open loop; 0 = closed loop, 1 in flight */
    bool rate_given;
    uint32_t concurrency;         /* --concurrency K: closed loop, K in flight; 0 = open loop */
    uint64_t warmup;              /* --warmup N: requests before the measured ones, not counted */
    uint32_t max_inflight;        /* --max-inflight N: open loop cap (default 4096) */
    bool json;                    /* --json: the load summary as one JSON object */
    bool single_send;             /* --no-sendmmsg */
    bool quiet;                   /* --quiet: no per-request detail */
    r_server_endpoint_t compare_servers[CHECK_MAX_SERVERS]; /* --compare-server: configuration B */
    size_t n_compare_servers;
    uint32_t rounds;              /* --rounds N: with --compare-server, N rounds of each (default 10) */
} check_cfg_t;

/* Parse argv (argv[0] = "check"). Returns 0 with *cfg filled, 1 after
 * --help (printed), or CHECK_EXIT_USAGE with a message naming the argument. */
int check_parse(int argc, char **argv, check_cfg_t *cfg);

/* The engines: make the runtime from cfg (environment included), then one
 * decision or a load. Return an exit code (CHECK_EXIT_*). */
int check_open(const check_cfg_t *cfg, r_runtime_client_t **out, r_request_profile_cb profile_cb, void *profile_user);
int check_build_request(const check_cfg_t *cfg, r_resource_request_t *res, r_latency_guard_t *guards);
int check_run_once(const check_cfg_t *cfg);
int check_run_load(const check_cfg_t *cfg);

/* The command (main.c). */
int rl_cmd_check(int argc, char **argv);

#endif /* CHECK_H */
