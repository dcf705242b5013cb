/* SPDX-License-Identifier: MIT */
/* rl_interop_driver.c - the reference interop driver (docs/interop.md "Driver
 * protocol"): the project's public runtime (r_client_runtime.h) behind the
 * JSON-lines protocol of `rl-testbed interop`. It uses the client as an
 * application would: real wall clock, real sockets, the library's own random
 * source; one request at a time, blocking until its completion.
 *
 * Reads one JSON object per line on stdin (op create, check, report, close)
 * and answers each with one line on stdout. Diagnostics go to stderr.
 *
 * Built a second time as rl-interop-driver-faults (INTEROP_FAULTS), where
 * RL_INTEROP_FAULT switches one deliberate fault on (interop_faults.h), to
 * prove that each check of the testbed bites (docs/interop.md "Broken drivers"). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "interop_faults.h"
#include "r_client_runtime.h"
#include "vec_kinds.h"

#define MAX_SERVERS 16
#define MAX_BLOCKS 8

typedef struct {
    r_runtime_client_t *rt;
    bool done;
    int status;
    bool success;
    uint64_t server_id;
    uint64_t at_ms;
} driver_t;

static void answer(json_t *obj)
{
    char *text = json_dumps(obj, JSON_COMPACT);
    if (text != NULL) {
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(text);
    }
    json_decref(obj);
}

static void answer_error(const char *why)
{
    answer(json_pack("{s:b, s:s}", "ok", 0, "error", why));
}

/* 32 hex digits into id; false when absent or malformed. */
static bool hex_id(const json_t *obj, const char *key, uint8_t id[R_CLIENT_ID_LEN])
{
    const char *s = json_string_value(json_object_get(obj, key));
    if (s == NULL || strlen(s) != 2 * R_CLIENT_ID_LEN)
        return false;
    for (size_t i = 0; i < R_CLIENT_ID_LEN; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return false;
        id[i] = (uint8_t)v;
    }
    return true;
}

static uint32_t u32_of(const json_t *obj, const char *key)
{
    return (uint32_t)json_integer_value(json_object_get(obj, key));
}

/* The tracker settings a guard and a report share; false without a tracker_id. */
static bool tracker(const json_t *v, uint8_t id[R_CLIENT_ID_LEN], uint32_t *ttl_ms, uint32_t *max_samples,
                    uint32_t *buffer_size, uint32_t *min_sample_threshold)
{
    *ttl_ms = u32_of(v, "ttl_ms");
    *max_samples = u32_of(v, "max_samples");
    *buffer_size = u32_of(v, "buffer_size");
    *min_sample_threshold = u32_of(v, "min_sample_threshold");
    return hex_id(v, "tracker_id", id);
}

static bool parse_server(const json_t *v, r_server_endpoint_t *out)
{
    const char *addr = json_string_value(json_object_get(v, "address"));
    const char *id = json_string_value(json_object_get(v, "server_id"));
    json_int_t port = json_integer_value(json_object_get(v, "port"));
    memset(out, 0, sizeof *out);
    if (addr == NULL || id == NULL || port <= 0 || port > 65535)
        return false;
    out->server_id = strtoull(id, NULL, 10);
    out->addr.port = (uint16_t)port;
    if (inet_pton(AF_INET, addr, out->addr.addr) == 1) {
        out->addr.family = R_ADDR_INET;
        return true;
    }
    out->addr.family = R_ADDR_INET6;
    return inet_pton(AF_INET6, addr, out->addr.addr) == 1;
}

static bool parse_preset(const char *name, r_request_policy_t *pol)
{
    static const char *const names[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return r_client_request_policy_preset(pol, (r_policy_preset_t)i) == RCLIENT_OK;
    return false;
}

static void op_create(driver_t *d, const json_t *msg)
{
    r_runtime_options_t opt;
    r_server_endpoint_t servers[MAX_SERVERS];
    const json_t *list = json_object_get(msg, "servers"), *dns = json_object_get(msg, "dns");
    const json_t *policy = json_object_get(msg, "policy");
    const char *preset = json_string_value(json_object_get(msg, "preset"));
    memset(&opt, 0, sizeof opt);
    opt.auth_key = json_string_value(json_object_get(msg, "key"));
    if (d->rt != NULL || opt.auth_key == NULL)
        return answer_error(d->rt != NULL ? "a client exists already" : "create: key missing");
    size_t n = json_array_size(list);
    if (n > MAX_SERVERS)
        return answer_error("create: too many servers");
    for (size_t i = 0; i < n; i++)
        if (!parse_server(json_array_get(list, i), &servers[i]))
            return answer_error("create: bad server entry");
    opt.servers = n > 0 ? servers : NULL;
    opt.server_count = n;
    if (dns != NULL) {
        opt.tenant_dns_name = json_string_value(json_object_get(dns, "name"));
        opt.dns_server = json_string_value(json_object_get(dns, "resolver"));
    }
    if (json_is_object(policy)) {
        vj_err_t e;
        memset(&e, 0, sizeof e);
        opt.has_request_policy = vec_read_policy(policy, &(vj_path_t){"policy"}, &opt.request_policy, &e);
        if (!opt.has_request_policy)
            return answer_error("create: bad policy");
    } else if (preset != NULL) {
        if (!parse_preset(preset, &opt.request_policy))
            return answer_error("create: unknown preset");
        opt.has_request_policy = true;
    }
    int rc = r_runtime_client_create(&opt, &d->rt);
    if (rc != RCLIENT_OK)
        return answer_error(r_client_strerror(rc));
    if (!opt.has_request_policy)
        r_client_default_request_policy(&opt.request_policy);
    interop_faults_client(opt.auth_key, servers, n, &opt.request_policy);
    answer(json_pack("{s:b}", "ok", 1));
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user)
{
    (void)req;
    driver_t *d = user;
    d->done = true;
    d->status = r->status;
    d->success = r->success;
    d->server_id = r->server_id;
    if (r_runtime_wall_time_ms(&d->at_ms) != RCLIENT_OK)
        d->at_ms = 0;
}

/* Block until the request completes: poll every socket of the runtime up to
 * the request's next deadline, deliver datagrams, then drive the deadline. */
static int wait_request(driver_t *d, r_client_req_t *req)
{
    while (!d->done) {
        uint64_t delay = 0;
        if (r_runtime_request_delay_ms(d->rt, req, &delay) != RCLIENT_OK)
            return RCLIENT_ERR_IO;
        struct pollfd fds[8];
        size_t n = r_runtime_socket_count(d->rt);
        n = n > 8 ? 8 : n;
        for (size_t i = 0; i < n; i++)
            fds[i] = (struct pollfd){.fd = r_runtime_socket_at(d->rt, i), .events = POLLIN};
        int ready = poll(fds, (nfds_t)n, delay > 60000 ? 60000 : (int)delay);
        if (ready < 0 && errno != EINTR)
            return RCLIENT_ERR_IO;
        for (size_t i = 0; i < n && ready > 0 && !d->done; i++)
            if (fds[i].revents & POLLIN)
                (void)r_runtime_client_on_readable(d->rt, fds[i].fd);
        if (!d->done)
            (void)r_runtime_request_on_timeout(d->rt, req);
    }
    return RCLIENT_OK;
}

static void op_check(driver_t *d, const json_t *msg)
{
    r_resource_request_t res[MAX_BLOCKS];
    r_latency_guard_t guards[MAX_BLOCKS];
    const json_t *rl = json_object_get(msg, "resources"), *gl = json_object_get(msg, "guards");
    size_t nr = json_array_size(rl), ng = json_array_size(gl);
    if (d->rt == NULL || nr > MAX_BLOCKS || ng > MAX_BLOCKS)
        return answer_error(d->rt == NULL ? "check: no client" : "check: too many blocks");
    memset(res, 0, sizeof res);
    memset(guards, 0, sizeof guards);
    for (size_t i = 0; i < nr; i++) {
        const json_t *v = json_array_get(rl, i);
        res[i].window_size_ms = u32_of(v, "window_size_ms");
        res[i].rate_limit = u32_of(v, "rate_limit");
        res[i].tokens_requested = (uint16_t)u32_of(v, "tokens");
        if (!hex_id(v, "bucket_id", res[i].bucket_id))
            return answer_error("check: bucket_id missing");
    }
    for (size_t i = 0; i < ng; i++) {
        const json_t *v = json_array_get(gl, i);
        r_latency_guard_t *g = &guards[i];
        g->threshold_ms = u32_of(v, "threshold_ms");
        if (!tracker(v, g->latency_tracker_id, &g->ttl_ms, &g->max_samples, &g->buffer_size, &g->min_sample_threshold))
            return answer_error("check: tracker_id missing");
    }
    r_client_req_t *req = NULL;
    d->done = false;
    interop_faults_phase(FAULT_SUBMIT);
    int rc = r_client_check_rate_limit_async(r_runtime_client_handle(d->rt), res, nr, guards, ng, NULL, 0, on_result,
                                             d, &req);
    interop_faults_phase(FAULT_WAIT);
    if (rc == RCLIENT_OK && req != NULL)
        rc = wait_request(d, req);
    interop_faults_phase(FAULT_IDLE);
    if (rc != RCLIENT_OK)
        return answer_error(r_client_strerror(rc));
    if (d->status != RCLIENT_OK) {
        answer(json_pack("{s:b, s:s, s:n, s:I, s:s}", "ok", 1, "decision", "failed", "server_id", "at_ms",
                         (json_int_t)d->at_ms, "error", r_client_strerror(d->status)));
        return;
    }
    char id[24];
    snprintf(id, sizeof id, "%" PRIu64, d->server_id);
    answer(json_pack("{s:b, s:s, s:s, s:I}", "ok", 1, "decision", d->success ? "allowed" : "denied", "server_id", id,
                     "at_ms", (json_int_t)d->at_ms));
    interop_faults_after_check();
}

static void op_report(driver_t *d, const json_t *msg)
{
    r_service_latency_report_t reps[MAX_BLOCKS];
    const json_t *list = json_object_get(msg, "reports");
    size_t n = json_array_size(list);
    if (d->rt == NULL || n == 0 || n > MAX_BLOCKS)
        return answer_error(d->rt == NULL ? "report: no client" : "report: 1 to 8 reports");
    memset(reps, 0, sizeof reps);
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(list, i);
        r_service_latency_report_t *r = &reps[i];
        r->observed_latency = u32_of(v, "latency_ms");
        if (!tracker(v, r->latency_tracker_id, &r->ttl_ms, &r->max_samples, &r->buffer_size, &r->min_sample_threshold))
            return answer_error("report: tracker_id missing");
    }
    interop_faults_phase(FAULT_REPORT);
    int rc = r_client_report_latency(r_runtime_client_handle(d->rt), reps, n);
    interop_faults_phase(FAULT_IDLE);
    if (rc != RCLIENT_OK)
        return answer_error(r_client_strerror(rc));
    answer(json_pack("{s:b}", "ok", 1));
}

int main(void)
{
    driver_t d;
    char *line = NULL;
    size_t cap = 0;
    memset(&d, 0, sizeof d);
    interop_faults_init();
    while (getline(&line, &cap, stdin) > 0) {
        json_error_t err;
        json_t *msg = json_loads(line, 0, &err);
        const char *op = json_string_value(json_object_get(msg, "op"));
        if (op == NULL)
            answer_error("not a JSON object with an op");
        else if (strcmp(op, "create") == 0)
            op_create(&d, msg);
        else if (strcmp(op, "check") == 0)
            op_check(&d, msg);
        else if (strcmp(op, "report") == 0)
            op_report(&d, msg);
        else if (strcmp(op, "close") == 0) {
            r_runtime_client_destroy(d.rt);
            d.rt = NULL;
            answer(json_pack("{s:b}", "ok", 1));
            json_decref(msg);
            break;
        } else
            answer_error("unknown op");
        json_decref(msg);
    }
    free(line);
    r_runtime_client_destroy(d.rt);
    return 0;
}
