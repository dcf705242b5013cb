/* SPDX-License-Identifier: MIT */
/* adapter_ha.c - HA requests of the C reference adapter (see adapter_c.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "adapter_c.h"
#include "r_client.h"
#include "r_client_io.h"
#include "vec_json.h"
#include "vec_kinds.h"

#define MAX_SERVERS 64u
#define MAX_BLOCKS 8u
#define MAX_FAILURES 16u
#define NAME_LEN 16u
#define RANDOM_MAX 4096u

typedef struct {
    char name[NAME_LEN];
    uint64_t server_id;
} server_t;

typedef struct {
    int server;
    uint64_t from; /* ms after t0 */
    uint32_t left;
} failure_t;

struct adapter_ha {
    r_client_t *client;
    r_client_req_t *req;
    bool pending;
    uint64_t now, t0;
    server_t servers[MAX_SERVERS];
    r_server_endpoint_t endpoints[MAX_SERVERS];
    size_t n_servers;
    failure_t failures[MAX_FAILURES];
    size_t n_failures;
    uint8_t random[RANDOM_MAX];
    size_t random_len, random_used;
    r_resource_request_t resources[MAX_BLOCKS];
    size_t n_resources;
    r_latency_guard_t guards[MAX_BLOCKS];
    size_t n_guards;
    char label[128];
    size_t label_len;
    /* what the current call produced */
    json_t *sends, *completions, *profile;
    unsigned rebinds;
    bool rebind_pending;
};

adapter_ha_t *adapter_ha_new(void)
{
    return calloc(1, sizeof(adapter_ha_t));
}

static void reset(adapter_ha_t *ha)
{
    r_client_destroy(ha->client);
    json_decref(ha->sends);
    json_decref(ha->completions);
    json_decref(ha->profile);
    OPENSSL_cleanse(ha->random, sizeof ha->random);
    memset(ha, 0, sizeof *ha);
}

void adapter_ha_free(adapter_ha_t *ha)
{
    if (ha == NULL)
        return;
    reset(ha);
    free(ha);
}

/* ---- host hooks ------------------------------------------------------------- */

static int server_of_port(const adapter_ha_t *ha, uint16_t port)
{
    for (size_t i = 0; i < ha->n_servers; i++) {
        if (ha->endpoints[i].addr.port == port)
            return (int)i;
    }
    return -1;
}

static bool plan_fails(adapter_ha_t *ha, int server)
{
    for (size_t i = 0; i < ha->n_failures; i++) {
        failure_t *f = &ha->failures[i];
        if (f->server == server && ha->now - ha->t0 >= f->from && f->left > 0) {
            f->left--;
            return true;
        }
    }
    return false;
}

static int hook_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len)
{
    adapter_ha_t *ha = ctx;
    int server = server_of_port(ha, to->port);
    bool fail = server >= 0 && plan_fails(ha, server);
    json_array_append_new(ha->sends, json_pack("{s:s, s:o, s:b}", "to", server >= 0 ? ha->servers[server].name : "?",
                                               "data_hex", vec_json_hex(data, len), "ok", !fail));
    return fail ? -1 : 0;
}

static uint64_t hook_now(void *ctx)
{
    return ((adapter_ha_t *)ctx)->now;
}

static int hook_random(void *ctx, uint8_t *buf, size_t len)
{
    adapter_ha_t *ha = ctx;
    if (ha->random_len - ha->random_used < len)
        return -1; /* the testbed's random source is spent */
    memcpy(buf, ha->random + ha->random_used, len);
    ha->random_used += len;
    return 0;
}

static void hook_rebind(void *ctx, uint64_t server_id)
{
    adapter_ha_t *ha = ctx;
    (void)server_id;
    ha->rebinds++;
    ha->rebind_pending = true;
}

static void on_profile(const r_request_profile_t *p, void *user)
{
    adapter_ha_t *ha = user;
    json_decref(ha->profile);
    ha->profile = json_pack("{s:I, s:s}", "round", (json_int_t)p->round, "phase",
                            p->phase == R_PHASE_FINAL_RECEIVE ? "final" : "round");
}

static const char *server_name(const adapter_ha_t *ha, uint64_t server_id)
{
    for (size_t i = 0; i < ha->n_servers; i++) {
        if (ha->servers[i].server_id == server_id)
            return ha->servers[i].name;
    }
    return "?";
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user)
{
    adapter_ha_t *ha = user;
    (void)req;
    ha->pending = false;
    ha->req = NULL;
    if (r->status != RCLIENT_OK) {
        const char *s = r->status == RCLIENT_ERR_TIMEOUT ? "timeout"
                        : r->status == RCLIENT_ERR_IO    ? "send_failed"
                                                         : r_client_strerror(r->status);
        json_array_append_new(ha->completions, json_pack("{s:s}", "status", s));
        return;
    }
    json_t *res = json_array(), *guards = json_array();
    for (size_t i = 0; i < r->resource_count; i++)
        json_array_append_new(res, json_pack("{s:I, s:I}", "tokens_deficit", (json_int_t)r->resources[i].tokens_deficit,
                                             "actual_rate", (json_int_t)r->resources[i].actual_rate));
    for (size_t i = 0; i < r->guard_count; i++)
        json_array_append_new(guards, json_pack("{s:I, s:b}", "current_latency",
                                                (json_int_t)r->guards[i].current_latency_ms, "passed",
                                                r->guards[i].passed));
    json_array_append_new(ha->completions,
                          json_pack("{s:s, s:b, s:s, s:b, s:o, s:o}", "status", "ok", "success", r->success, "server",
                                    server_name(ha, r->server_id), "keep_port", r->steering_feedback, "resources", res,
                                    "guards", guards));
}

/* ---- reading the testbed's messages ----------------------------------------- */

static bool read_now(adapter_ha_t *ha, const json_t *req, char *err, size_t cap)
{
    vj_err_t e;
    vj_path_t none = {""};
    if (!vj_dec_u64(req, &none, "now_ms", &ha->now, &e)) {
        vec_format(err, cap, "%s", e.msg);
        return false;
    }
    return true;
}

static bool read_servers(adapter_ha_t *ha, const json_t *arr, vj_err_t *e)
{
    vj_path_t p = vj_path("servers");
    size_t n = 0;
    if (!vj_v_array(arr, &p, &n, e))
        return false;
    if (n == 0 || n > MAX_SERVERS)
        return vj_fail(e, &p, "expected 1..64 servers");
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(arr, i);
        vj_path_t q = vj_path_index(&p, i);
        const char *name = NULL, *addr = NULL;
        size_t len = 0, alen = 0;
        unsigned a, b, c, d, port;
        if (!vj_string(s, &q, "name", &name, &len, e) || !vj_dec_u64(s, &q, "server_id", &ha->servers[i].server_id, e) ||
            !vj_string(s, &q, "address", &addr, &alen, e))
            return false;
        if (len >= NAME_LEN)
            return vj_fail(e, &q, "name longer than 15 characters");
        if (sscanf(addr, "%u.%u.%u.%u:%u", &a, &b, &c, &d, &port) != 5 || a > 255 || b > 255 || c > 255 || d > 255 ||
            port == 0 || port > 65535)
            return vj_fail(e, &q, "address: expected IPv4 a.b.c.d:port");
        memcpy(ha->servers[i].name, name, len + 1);
        r_server_endpoint_t *ep = &ha->endpoints[i];
        ep->server_id = ha->servers[i].server_id;
        ep->addr.family = R_ADDR_INET;
        ep->addr.port = (uint16_t)port;
        ep->addr.addr[0] = (uint8_t)a;
        ep->addr.addr[1] = (uint8_t)b;
        ep->addr.addr[2] = (uint8_t)c;
        ep->addr.addr[3] = (uint8_t)d;
    }
    ha->n_servers = n;
    return true;
}

static int server_by_name(const adapter_ha_t *ha, const char *name)
{
    for (size_t i = 0; i < ha->n_servers; i++) {
        if (strcmp(ha->servers[i].name, name) == 0)
            return (int)i;
    }
    return -1;
}

static bool read_failures(adapter_ha_t *ha, const json_t *arr, vj_err_t *e)
{
    vj_path_t p = vj_path("send_failures");
    size_t n = 0;
    if (arr == NULL)
        return true;
    if (!vj_v_array(arr, &p, &n, e))
        return false;
    if (n > MAX_FAILURES)
        return vj_fail(e, &p, "more than 16 entries");
    for (size_t i = 0; i < n; i++) {
        const json_t *f = json_array_get(arr, i);
        vj_path_t q = vj_path_index(&p, i);
        const char *name = NULL;
        size_t len = 0;
        uint32_t from = 0;
        if (!vj_string(f, &q, "server", &name, &len, e) || !vj_u32(f, &q, "from", &from, e) ||
            !vj_u32(f, &q, "count", &ha->failures[i].left, e))
            return false;
        ha->failures[i].server = server_by_name(ha, name);
        ha->failures[i].from = from;
        if (ha->failures[i].server < 0)
            return vj_fail(e, &q, "server: not a server of this client");
    }
    ha->n_failures = n;
    return true;
}

static bool read_request(adapter_ha_t *ha, const json_t *req, vj_err_t *e)
{
    vj_path_t p = vj_path("request"), rp = vj_path("request.resources"), gp = vj_path("request.guards");
    const json_t *res = NULL, *guards = NULL;
    size_t nr = 0, ng = 0;
    if (!vj_array(req, &p, "resources", &res, &nr, e) || !vj_array(req, &p, "guards", &guards, &ng, e))
        return false;
    if (nr > MAX_BLOCKS || ng > MAX_BLOCKS)
        return vj_fail(e, &p, "more than 8 resources or guards");
    for (size_t i = 0; i < nr; i++) {
        const json_t *r = json_array_get(res, i);
        vj_path_t q = vj_path_index(&rp, i);
        r_resource_request_t *o = &ha->resources[i];
        if (!vj_hex_fixed(r, &q, "bucket_id_hex", o->bucket_id, R_CLIENT_ID_LEN, e) ||
            !vj_u32(r, &q, "window_size_ms", &o->window_size_ms, e) || !vj_u32(r, &q, "rate_limit", &o->rate_limit, e) ||
            !vj_u16(r, &q, "tokens_requested", &o->tokens_requested, e))
            return false;
    }
    for (size_t i = 0; i < ng; i++) {
        const json_t *g = json_array_get(guards, i);
        vj_path_t q = vj_path_index(&gp, i);
        r_latency_guard_t *o = &ha->guards[i];
        if (!vj_hex_fixed(g, &q, "tracker_id_hex", o->latency_tracker_id, R_CLIENT_ID_LEN, e) ||
            !vj_u32(g, &q, "ttl_ms", &o->ttl_ms, e) || !vj_u32(g, &q, "max_samples", &o->max_samples, e) ||
            !vj_u32(g, &q, "buffer_size", &o->buffer_size, e) ||
            !vj_u32(g, &q, "min_sample_threshold", &o->min_sample_threshold, e) ||
            !vj_u32(g, &q, "latency_threshold", &o->threshold_ms, e))
            return false;
    }
    ha->n_resources = nr;
    ha->n_guards = ng;
    const char *label = NULL;
    size_t len = 0;
    if (json_object_get(req, "metrics_label_utf8") != NULL) {
        if (!vj_string(req, &p, "metrics_label_utf8", &label, &len, e))
            return false;
        if (len > sizeof ha->label)
            return vj_fail(e, &p, "metrics_label_utf8 longer than 128 bytes");
        memcpy(ha->label, label, len);
    }
    ha->label_len = len;
    return true;
}

static bool read_preset(const json_t *v, r_policy_preset_t *out)
{
    static const char *const names[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (vj_string_is(v, names[i])) {
            *out = (r_policy_preset_t)i;
            return true;
        }
    }
    return false;
}

/* ---- requests --------------------------------------------------------------- */

static json_t *fail_answer(const char *msg)
{
    return json_pack("{s:s}", "protocol_error", msg);
}

static json_t *create(adapter_ha_t *ha, const json_t *req)
{
    vj_err_t e;
    vj_path_t none = {""}, pp = vj_path("policy");
    const char *key = NULL, *rnd = NULL;
    size_t key_len = 0, rnd_len = 0;
    const json_t *policy = NULL, *request = NULL;
    r_request_policy_t pol;
    r_policy_preset_t preset;
    bool use_preset = false;
    uint8_t *bytes = NULL;
    reset(ha);
    memset(&pol, 0, sizeof pol);
    if (!vj_string(req, &none, "key", &key, &key_len, &e) || !vj_object(req, &none, "policy", &policy, &e) ||
        !vec_read_policy(policy, &pp, &pol, &e) || !vj_dec_u64(req, &none, "t0_ms", &ha->t0, &e) ||
        !read_servers(ha, json_object_get(req, "servers"), &e) ||
        !read_failures(ha, json_object_get(req, "send_failures"), &e) ||
        !vj_object(req, &none, "request", &request, &e) || !read_request(ha, request, &e) ||
        !vj_string(req, &none, "random_hex", &rnd, &rnd_len, &e) || !vj_hex_alloc(req, &none, "random_hex", &bytes, &ha->random_len, &e))
        return fail_answer(e.msg);
    (void)rnd;
    if (ha->random_len > RANDOM_MAX) {
        free(bytes);
        return fail_answer("random_hex: longer than 4096 bytes");
    }
    memcpy(ha->random, bytes, ha->random_len);
    free(bytes);
    if (json_object_get(req, "preset") != NULL && read_preset(json_object_get(req, "preset"), &preset)) {
        use_preset = true;
        if (r_client_request_policy_preset(&pol, preset) != RCLIENT_OK)
            return fail_answer("preset: r_client_request_policy_preset failed");
    }
    ha->now = ha->t0;
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = key;
    cfg.tenant.auth.secret_len = key_len;
    cfg.request_policy = &pol;
    cfg.servers = ha->endpoints;
    cfg.server_count = ha->n_servers;
    cfg.request_profile_cb = on_profile;
    cfg.request_profile_user_data = ha;
    r_io_ops_t io = {.ctx = ha, .udp_send = hook_send, .now_ms = hook_now, .steering_rebind = hook_rebind,
                     .random = hook_random};
    int rc = r_client_create(&cfg, &io, NULL, &ha->client);
    if (rc != RCLIENT_OK) {
        char msg[96];
        snprintf(msg, sizeof msg, "r_client_create: %s", r_client_strerror(rc));
        return fail_answer(msg);
    }
    return json_pack("{s:s, s:s}", "status", "ok", "used", use_preset ? "preset" : "policy");
}

static void begin(adapter_ha_t *ha)
{
    json_decref(ha->sends);
    json_decref(ha->completions);
    json_decref(ha->profile);
    ha->sends = json_array();
    ha->completions = json_array();
    ha->profile = NULL;
    ha->rebinds = 0;
}

/* The report of the call just made (ADAPTER.md "Reports"). */
static json_t *report(adapter_ha_t *ha, json_t *ans)
{
    if (ha->rebind_pending) {
        /* outside the receive path now (r-client.md 6.3 rule 6) */
        ha->rebind_pending = false;
        r_client_rebind_complete(ha->client, true);
    }
    json_t *deadline = json_null();
    if (ha->pending) {
        uint64_t d = r_client_request_deadline_ms(ha->client, ha->req);
        if (d != UINT64_MAX)
            deadline = vec_json_dec_u64(d);
    }
    json_object_set_new(ans, "sends", ha->sends);
    json_object_set_new(ans, "completions", ha->completions);
    json_object_set_new(ans, "profile", ha->profile != NULL ? ha->profile : json_null());
    json_object_set_new(ans, "rebinds", json_integer(ha->rebinds));
    json_object_set_new(ans, "deadline_ms", deadline);
    ha->sends = ha->completions = ha->profile = NULL;
    return ans;
}

static json_t *submit(adapter_ha_t *ha)
{
    begin(ha);
    int rc = r_client_check_rate_limit_async(ha->client, ha->n_resources ? ha->resources : NULL, ha->n_resources,
                                             ha->n_guards ? ha->guards : NULL, ha->n_guards,
                                             ha->label_len ? ha->label : NULL, ha->label_len, on_result, ha, &ha->req);
    ha->pending = rc == RCLIENT_OK && ha->req != NULL && json_array_size(ha->completions) == 0;
    const char *status = rc == RCLIENT_OK ? "ok" : rc == RCLIENT_ERR_CONFIG ? "rejected"
                                                   : rc == RCLIENT_ERR_IO   ? "send_failed"
                                                                            : r_client_strerror(rc);
    /* RCLIENT_ERR_CONFIG at submit: the policy or its TTL against the key (api.md "Errors"); the key
     * itself was checked at ha_create (ADAPTER.md "Steps") */
    if (rc == RCLIENT_ERR_CONFIG)
        return report(ha, json_pack("{s:s, s:s}", "status", status, "stage", "policy"));
    return report(ha, json_pack("{s:s}", "status", status));
}

static json_t *datagram(adapter_ha_t *ha, const json_t *req)
{
    vj_err_t e;
    vj_path_t none = {""};
    uint8_t *data = NULL;
    size_t len = 0;
    if (!vj_hex_alloc(req, &none, "data_hex", &data, &len, &e))
        return fail_answer(e.msg);
    begin(ha);
    int rc = r_client_on_datagram(ha->client, data, len);
    free(data);
    /* api.md "Datagrams and Timers": PROTOCOL for malformed input (and an AES
     * tag failure), AUTH for a wrong auth type or cookie; OK otherwise, which
     * does not tell accepted from ignored. */
    if (rc == RCLIENT_OK)
        return report(ha, json_pack("{s:s}", "datagram", "accepted"));
    return report(ha, json_pack("{s:s, s:s}", "datagram", "rejected", "error",
                                rc == RCLIENT_ERR_AUTH ? "auth" : "malformed"));
}

static json_t *timer(adapter_ha_t *ha)
{
    begin(ha);
    if (ha->pending)
        r_client_on_timeout(ha->client, ha->req, ha->now);
    return report(ha, json_object());
}

static json_t *cancel(adapter_ha_t *ha)
{
    begin(ha);
    if (ha->pending) {
        r_client_cancel_request(ha->client, ha->req);
        ha->pending = false;
        ha->req = NULL;
    }
    return report(ha, json_object());
}

json_t *adapter_ha_dispatch(adapter_ha_t *ha, const json_t *req)
{
    const json_t *op = json_object_get(req, "op");
    char err[VEC_MSG_MAX];
    if (vj_string_is(op, "ha_create"))
        return create(ha, req);
    bool known = vj_string_is(op, "submit") || vj_string_is(op, "datagram") || vj_string_is(op, "timer") ||
                 vj_string_is(op, "cancel");
    if (!known)
        return NULL;
    if (ha->client == NULL)
        return fail_answer("no client: send ha_create first");
    if (!read_now(ha, req, err, sizeof err))
        return fail_answer(err);
    if (vj_string_is(op, "submit"))
        return submit(ha);
    if (vj_string_is(op, "datagram"))
        return datagram(ha, req);
    if (vj_string_is(op, "timer"))
        return timer(ha);
    return cancel(ha);
}
