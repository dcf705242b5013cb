/* SPDX-License-Identifier: MIT */
/* check_run.c - the `rl-testbed check` engine for one decision: the runtime
 * from the command line and the environment, the request from the buckets
 * and guards, a poll loop until the callback (api.md "Datagrams and Timers"),
 * then the decision, the selected server, the request profile and the
 * latency; optionally one latency report (api.md "Reporting measured work"). */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "check.h"

typedef struct {
    const check_cfg_t *cfg;
} lookup_ctx_t;

/* The environment, except that --key stands in for RATELIMITLY_AUTH_KEY. */
static const char *lookup(void *ctx, const char *name) {
    const lookup_ctx_t *l = ctx;
    if (l->cfg->key != NULL && strcmp(name, "RATELIMITLY_AUTH_KEY") == 0) {
        return l->cfg->key;
    }
    return getenv(name);
}

int check_open(const check_cfg_t *cfg, r_runtime_client_t **out, r_request_profile_cb profile_cb, void *profile_user) {
    lookup_ctx_t l = {cfg};
    r_runtime_options_t o;
    const char *why = NULL;
    if (r_runtime_options_from_lookup(&o, lookup, &l, &why) != RCLIENT_OK) {
        if (cfg->key != NULL && strncmp(why, "RATELIMITLY_AUTH_KEY", 20) == 0) {
            /* Name the rule the key breaks (the vector schema's error classes). */
            r_auth_key_info_t info;
            r_key_diag_t diag;
            if (r_client_parse_auth_key_diag(cfg->key, 0, &info, &diag) != RCLIENT_OK)
                fprintf(stderr, "rl-testbed check: --key: not a valid API key (rl-none, rl-cookie or rl-aes, version 1): %s\n",
                        diag.message);
            else
                fprintf(stderr, "rl-testbed check: --key: %s\n", why + 22);
            OPENSSL_cleanse(&info, sizeof info);
        } else {
            fprintf(stderr, "rl-testbed check: %s\n", why);
        }
        return CHECK_EXIT_USAGE;
    }
    if (cfg->dns_name != NULL) {
        o.tenant_dns_name = cfg->dns_name;
    }
    o.dns_server = cfg->dns_server;
    o.servers = cfg->n_servers > 0 ? cfg->servers : NULL;
    o.server_count = cfg->n_servers;
    o.single_send = cfg->single_send;
    o.profile_cb = profile_cb;
    o.profile_user = profile_user;
    int rc = r_runtime_client_create(&o, out);
    if (rc == RCLIENT_ERR_CONFIG) {
        fprintf(stderr, "rl-testbed check: invalid configuration (%s): check the key, --dns NAME, --dns-server "
                        "and $RATELIMITLY_TENANT\n", r_client_strerror(rc));
        return CHECK_EXIT_USAGE;
    }
    if (rc != RCLIENT_OK) {
        fprintf(stderr, "rl-testbed check: cannot start the runtime: %s\n", r_client_strerror(rc));
        return CHECK_EXIT_FAILED;
    }
    return 0;
}

int check_build_request(const check_cfg_t *cfg, r_resource_request_t *res, r_latency_guard_t *guards) {
    for (size_t i = 0; i < cfg->n_buckets; i++) {
        const check_bucket_t *b = &cfg->buckets[i];
        memset(&res[i], 0, sizeof res[i]);
        res[i].window_size_ms = b->window_ms;
        res[i].rate_limit = b->limit;
        res[i].tokens_requested = b->tokens;
        if (r_client_derive_bucket_id(b->name, strlen(b->name), b->window_ms, b->limit, res[i].bucket_id) !=
            RCLIENT_OK) {
            return -1;
        }
    }
    for (size_t i = 0; i < cfg->n_guards; i++) {
        const check_guard_t *g = &cfg->guards[i];
        memset(&guards[i], 0, sizeof guards[i]);
        guards[i].threshold_ms = g->threshold_ms;
        guards[i].ttl_ms = g->ttl_ms;
        guards[i].max_samples = g->max_samples;
        guards[i].buffer_size = g->buffer_size;
        guards[i].min_sample_threshold = g->min_samples;
        if (r_client_derive_latency_tracker_id(g->name, strlen(g->name), g->ttl_ms, g->max_samples, g->buffer_size,
                                               g->min_samples, guards[i].latency_tracker_id) != RCLIENT_OK) {
            return -1;
        }
    }
    return 0;
}

typedef struct {
    const check_cfg_t *cfg;
    bool done;
    int status;
    bool success;
    uint64_t server_id;
    bool keep_port;
    uint64_t t_done_us;
    bool has_profile;
    r_request_profile_t profile;
    r_resource_result_t res[CHECK_MAX_BUCKETS]; /* copied: the result arrays live only in the callback */
    size_t n_res;
    r_guard_result_t guards[CHECK_MAX_GUARDS];
    size_t n_guards;
} once_t;

static void on_profile(const r_request_profile_t *p, void *user) {
    once_t *o = user;
    o->profile = *p;
    o->has_profile = true;
}

static size_t bucket_of(const check_cfg_t *cfg, const r_resource_request_t *res, const uint8_t *id) {
    for (size_t i = 0; i < cfg->n_buckets; i++) {
        if (memcmp(res[i].bucket_id, id, R_CLIENT_ID_LEN) == 0) {
            return i;
        }
    }
    return 0; /* the core matched every entry to the request on arrival */
}

static r_resource_request_t g_res[CHECK_MAX_BUCKETS];
static r_latency_guard_t g_guards[CHECK_MAX_GUARDS];

static size_t guard_of(const check_cfg_t *cfg, const uint8_t *id) {
    for (size_t i = 0; i < cfg->n_guards; i++) {
        if (memcmp(g_guards[i].latency_tracker_id, id, R_CLIENT_ID_LEN) == 0) {
            return i;
        }
    }
    return 0;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    once_t *o = user;
    (void)r_runtime_monotonic_time_us(&o->t_done_us);
    o->done = true;
    o->status = r->status;
    o->success = r->success;
    o->server_id = r->server_id;
    o->keep_port = r->steering_feedback;
    o->n_res = r->resource_count < CHECK_MAX_BUCKETS ? r->resource_count : CHECK_MAX_BUCKETS;
    if (o->n_res > 0) {
        memcpy(o->res, r->resources, o->n_res * sizeof o->res[0]);
    }
    o->n_guards = r->guard_count < CHECK_MAX_GUARDS ? r->guard_count : CHECK_MAX_GUARDS;
    if (o->n_guards > 0) {
        memcpy(o->guards, r->guards, o->n_guards * sizeof o->guards[0]);
    }
}

static void print_entries(const once_t *o) {
    for (size_t i = 0; i < o->n_res; i++) {
        const r_resource_result_t *x = &o->res[i];
        printf("bucket %s: %s, deficit %" PRIu16 ", actual_rate %" PRIu32 "\n",
               o->cfg->buckets[bucket_of(o->cfg, g_res, x->bucket_id)].name,
               x->tokens_deficit == 0 ? "granted" : "short", x->tokens_deficit, x->actual_rate);
    }
    for (size_t i = 0; i < o->n_guards; i++) {
        const r_guard_result_t *x = &o->guards[i];
        printf("guard %s: current %" PRIu32 " ms, threshold %" PRIu32 " ms, %s\n",
               o->cfg->guards[guard_of(o->cfg, x->latency_tracker_id)].name, x->current_latency_ms, x->threshold_ms,
               x->passed ? "passed" : "failed");
    }
}

/* Poll the runtime's sockets and drive req's deadline until *done. */
static void run_until_done(r_runtime_client_t *rt, r_client_req_t *req, const bool *done) {
    while (!*done) {
        struct pollfd pfd[8];
        size_t n = r_runtime_socket_count(rt);
        for (size_t i = 0; i < n && i < 8; i++) {
            pfd[i] = (struct pollfd){.fd = r_runtime_socket_at(rt, i), .events = POLLIN};
        }
        uint64_t delay = 0;
        (void)r_runtime_request_delay_ms(rt, req, &delay);
        int r = poll(pfd, (nfds_t)(n < 8 ? n : 8), (int)(delay > 1000 ? 1000 : delay));
        for (size_t i = 0; r > 0 && i < n && i < 8 && !*done; i++) {
            if (pfd[i].revents & POLLIN) {
                (void)r_runtime_client_on_readable(rt, pfd[i].fd);
            }
        }
        if (!*done) {
            (void)r_runtime_request_on_timeout(rt, req);
        }
    }
}

static void print_server(const check_cfg_t *cfg, uint64_t server_id) {
    r_server_id_parts_t p = r_client_decode_server_id(server_id);
    time_t start = (time_t)p.server_start_s;
    struct tm tm;
    char when[32] = "?";
    if (gmtime_r(&start, &tm) != NULL) {
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    }
    printf("server: %" PRIu64 " (started %s, listener %u, node %u", server_id, when, (unsigned)p.listener_id,
           (unsigned)p.node_id);
    for (size_t i = 0; i < cfg->n_servers; i++) {
        if (cfg->servers[i].server_id == server_id) {
            printf(", server %zu of %zu given", i + 1, cfg->n_servers);
        }
    }
    printf(")\n");
}

static int send_report(const check_cfg_t *cfg, r_runtime_client_t *rt) {
    r_service_latency_report_t reps[CHECK_MAX_GUARDS];
    for (size_t i = 0; i < cfg->n_guards; i++) {
        memset(&reps[i], 0, sizeof reps[i]);
        memcpy(reps[i].latency_tracker_id, g_guards[i].latency_tracker_id, R_CLIENT_ID_LEN);
        reps[i].ttl_ms = g_guards[i].ttl_ms;
        reps[i].max_samples = g_guards[i].max_samples;
        reps[i].buffer_size = g_guards[i].buffer_size;
        reps[i].min_sample_threshold = g_guards[i].min_sample_threshold;
        reps[i].observed_latency = cfg->report_ms;
    }
    int rc = r_client_report_latency(r_runtime_client_handle(rt), reps, cfg->n_guards);
    if (rc != RCLIENT_OK) {
        printf("report: failed: %s\n", r_client_strerror(rc));
        return CHECK_EXIT_FAILED;
    }
    printf("report: %" PRIu32 " ms to %zu tracker(s), sent to every known server\n", cfg->report_ms, cfg->n_guards);
    return 0;
}

int check_run_once(const check_cfg_t *cfg) {
    once_t o = {.cfg = cfg};
    r_runtime_client_t *rt = NULL;
    int rc = check_open(cfg, &rt, on_profile, &o);
    if (rc != 0) {
        return rc;
    }
    if (check_build_request(cfg, g_res, g_guards) != 0) {
        fputs("rl-testbed check: cannot derive the bucket or tracker IDs\n", stderr);
        r_runtime_client_destroy(rt);
        return CHECK_EXIT_USAGE;
    }
    uint64_t t0 = 0;
    (void)r_runtime_monotonic_time_us(&t0);
    r_client_req_t *req = NULL;
    rc = r_client_check_rate_limit_async(r_runtime_client_handle(rt), g_res, cfg->n_buckets, g_guards, cfg->n_guards,
                                         cfg->label, 0, on_result, &o, &req);
    int exit_code = CHECK_EXIT_FAILED;
    if (rc != RCLIENT_OK) {
        printf("decision: none: submit failed: %s%s\n", r_client_strerror(rc),
               rc == RCLIENT_ERR_DNS ? " (no server known: check --server, --dns, --dns-server)" : "");
        exit_code = rc == RCLIENT_ERR_PROTOCOL || rc == RCLIENT_ERR_CONFIG ? CHECK_EXIT_USAGE : CHECK_EXIT_FAILED;
    } else {
        run_until_done(rt, req, &o.done);
        if (o.status == RCLIENT_OK) {
            printf("decision: %s\n", o.success ? "allowed" : "denied");
            print_server(cfg, o.server_id);
            print_entries(&o);
            if (!o.keep_port) {
                printf("steering: the server asked for a new source port (keep_port = false)\n");
            }
            exit_code = o.success ? CHECK_EXIT_ALLOWED : CHECK_EXIT_DENIED;
        } else {
            printf("decision: none: %s%s\n", r_client_strerror(o.status),
                   o.status == RCLIENT_ERR_TIMEOUT ? " (no acceptable response: with working networking, suspect "
                                                     "the key, key ID or clock)" : "");
        }
        if (o.has_profile) {
            printf("profile: round %" PRIu32 ", phase %s, wait %" PRIu64 " ms, %s\n", o.profile.round,
                   o.profile.phase == R_PHASE_ROUND ? "round" : "final-receive", o.profile.wait_ms,
                   o.profile.selected ? "response selected" : "no response selected");
        }
        printf("latency: %.3f ms\n", (double)(o.t_done_us - t0) / 1000.0);
        if (cfg->report) {
            if (exit_code == CHECK_EXIT_ALLOWED) {
                rc = send_report(cfg, rt);
                exit_code = rc != 0 ? rc : exit_code;
            } else {
                printf("report: not sent (no allowed decision: no work ran to measure)\n");
            }
        }
    }
    r_runtime_client_destroy(rt);
    return exit_code;
}
