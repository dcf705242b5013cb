/* SPDX-License-Identifier: MIT */
/* rl_c_client_ha.c - HA cases (conformance/ADAPTER.md "HA cases") for the
 * published C client, through its own host hooks:
 *   - clock: r_io_ops_t.now_ms returns the message's now_ms;
 *   - sends: r_io_ops_t.udp_send reports each datagram and fails the ones the
 *     case's send_failures plan names;
 *   - membership: the client has no explicit server list; its resolver hook
 *     answers the SRV query with one s-<server_id> target per case server and
 *     the A query with that server's address (r_client_io.h r_resolver_ops_t);
 *   - random: RAND_bytes, as for the vector kinds, serves random_hex in order;
 *   - rebinds: r_io_ops_t.on_steering_feedback(keep_port false);
 *   - profile: r_client_config_t.request_profile_cb.
 * The client's policy has no preference schedule P(k) and its only preset is
 * r_client_default_request_policy: hello says preference and presets false,
 * and policy_shape "api_md" (round 0 waits for the oldest server until B(0),
 * later rounds and the final interval select at once: r_client.c
 * r_start_round, r_enter_final). Its API is api.md's C API (c_api), with
 * r_client_cancel_request (cancel) and request_profile_cb (profile). */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r_client.h"
#include "rl_c_client_adapter.h"

#define HA_SERVERS 16
#define HA_FAILURES 16
#define HA_BLOCKS 64

typedef struct {
    char name[32], target[64];
    uint64_t id;
    r_addr_t addr;
} ha_server_t;

typedef struct {
    int server;
    uint64_t from, left;
} ha_failure_t;

static struct {
    r_client_t *client;
    r_client_req_t *req;
    int pending;
    uint64_t t0, now;
    ha_server_t servers[HA_SERVERS];
    size_t n_servers;
    ha_failure_t failures[HA_FAILURES];
    size_t n_failures;
    r_resource_request_t resources[HA_BLOCKS];
    r_latency_guard_t guards[HA_BLOCKS];
    size_t n_resources, n_guards;
    char label[256];
    size_t label_len;
    char key[256];
    json_t *sends, *completions, *profile;
    int rebinds;
} ha;

static int same_addr(const r_addr_t *a, const r_addr_t *b)
{
    const struct sockaddr_in *x = (const void *)&a->sa, *y = (const void *)&b->sa;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
}

static int hook_send(void *ctx, const r_addr_t *to, const uint8_t *buf, size_t len)
{
    int server = -1, fail = 0;
    (void)ctx;
    for (size_t i = 0; i < ha.n_servers; i++)
        if (same_addr(to, &ha.servers[i].addr))
            server = (int)i;
    for (size_t i = 0; server >= 0 && i < ha.n_failures && !fail; i++) {
        ha_failure_t *f = &ha.failures[i];
        if (f->server == server && ha.now - ha.t0 >= f->from && f->left > 0) {
            f->left--;
            fail = 1;
        }
    }
    json_array_append_new(ha.sends, json_pack("{s:s, s:o, s:b}", "to", server >= 0 ? ha.servers[server].name : "?",
                                              "data_hex", hex_json(buf, len), "ok", !fail));
    return fail ? -1 : 0;
}

static uint64_t hook_now(void *ctx)
{
    (void)ctx;
    return ha.now;
}

static void hook_steering(void *ctx, bool keep_port)
{
    (void)ctx;
    if (!keep_port)
        ha.rebinds++;
}

static int hook_srv(void *ctx, const char *name, r_dns_req_id_t *id, r_dns_srv_cb cb, void *user)
{
    r_srv_record_t rec[HA_SERVERS];
    (void)ctx;
    (void)name;
    *id = 0;
    for (size_t i = 0; i < ha.n_servers; i++) {
        const struct sockaddr_in *sin = (const void *)&ha.servers[i].addr.sa;
        rec[i] = (r_srv_record_t){ha.servers[i].target, ntohs(sin->sin_port), 0, 0, 3600000u};
    }
    cb(user, 0, rec, ha.n_servers);
    return 0;
}

static int hook_addrs(void *ctx, const char *name, r_dns_req_id_t *id, r_dns_addr_cb cb, void *user)
{
    (void)ctx;
    *id = 0;
    for (size_t i = 0; i < ha.n_servers; i++)
        if (strcmp(name, ha.servers[i].target) == 0) {
            cb(user, 0, &ha.servers[i].addr, 1);
            return 0;
        }
    cb(user, -1, NULL, 0);
    return 0;
}

static void on_profile(void *user, const r_request_profile_t *p)
{
    (void)user;
    json_decref(ha.profile);
    ha.profile = json_pack("{s:I, s:s}", "round", (json_int_t)p->round, "phase",
                           p->phase == R_REQUEST_COMPLETION_FINAL_RECEIVE ? "final" : "round");
}

static const char *name_of(uint64_t id)
{
    for (size_t i = 0; i < ha.n_servers; i++)
        if (ha.servers[i].id == id)
            return ha.servers[i].name;
    return "?";
}

static void on_done(void *user, r_client_req_t *req, int status, const r_rate_limit_result_t *r)
{
    (void)user;
    (void)req;
    ha.pending = 0;
    ha.req = NULL;
    if (status != RCLIENT_OK || r == NULL) {
        const char *s = status == RCLIENT_ERR_TIMEOUT ? "timeout" : status == RCLIENT_ERR_IO ? "send_failed" : rc_name(status);
        json_array_append_new(ha.completions, json_pack("{s:s}", "status", s));
        return;
    }
    json_t *rs = json_array(), *gs = json_array();
    for (size_t i = 0; i < r->resource_count; i++)
        json_array_append_new(rs, json_pack("{s:I, s:I}", "tokens_deficit", (json_int_t)r->resources[i].tokens_deficit,
                                            "actual_rate", (json_int_t)r->resources[i].actual_rate));
    for (size_t i = 0; i < r->guard_count; i++)
        json_array_append_new(gs, json_pack("{s:I, s:b}", "current_latency", (json_int_t)r->guards[i].current_latency_ms,
                                            "passed", r->guards[i].passed));
    json_array_append_new(ha.completions, json_pack("{s:s, s:b, s:s, s:b, s:o, s:o}", "status", "ok", "success",
                                                    r->success, "server", name_of(r->server_id), "keep_port",
                                                    r->steering_feedback, "resources", rs, "guards", gs));
}

static json_t *perror_answer(const char *msg)
{
    return json_pack("{s:s}", "protocol_error", msg);
}

static void reset(void)
{
    if (ha.client != NULL)
        r_client_destroy(ha.client);
    json_decref(ha.sends);
    json_decref(ha.completions);
    json_decref(ha.profile);
    memset(&ha, 0, sizeof ha);
}

static int read_servers(const json_t *arr)
{
    if (json_array_size(arr) == 0 || json_array_size(arr) > HA_SERVERS)
        return -1;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *s = json_array_get(arr, i);
        const char *name = json_string_value(json_object_get(s, "name"));
        const char *addr = json_string_value(json_object_get(s, "address"));
        unsigned a, b, c, d, port;
        if (name == NULL || strlen(name) >= sizeof ha.servers[i].name || addr == NULL
            || sscanf(addr, "%u.%u.%u.%u:%u", &a, &b, &c, &d, &port) != 5 || a > 255 || b > 255 || c > 255 || d > 255
            || port == 0 || port > 65535)
            return -1;
        ha_server_t *sv = &ha.servers[i];
        strcpy(sv->name, name);
        sv->id = u64s(json_object_get(s, "server_id"));
        snprintf(sv->target, sizeof sv->target, "s-%" PRIu64 ".adapter.invalid", sv->id);
        struct sockaddr_in sin;
        memset(&sin, 0, sizeof sin);
        sin.sin_family = AF_INET;
        sin.sin_port = htons((uint16_t)port);
        sin.sin_addr.s_addr = htonl(a << 24 | b << 16 | c << 8 | d);
        memcpy(&sv->addr.sa, &sin, sizeof sin);
        sv->addr.len = sizeof sin;
    }
    ha.n_servers = json_array_size(arr);
    return 0;
}

static int read_failures(const json_t *arr)
{
    if (json_array_size(arr) > HA_FAILURES)
        return -1;
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const json_t *f = json_array_get(arr, i);
        const char *name = json_string_value(json_object_get(f, "server"));
        ha.failures[i].server = -1;
        for (size_t j = 0; name != NULL && j < ha.n_servers; j++)
            if (strcmp(name, ha.servers[j].name) == 0)
                ha.failures[i].server = (int)j;
        ha.failures[i].from = u32(f, "from");
        ha.failures[i].left = u32(f, "count");
        if (ha.failures[i].server < 0)
            return -1;
    }
    ha.n_failures = json_array_size(arr);
    return 0;
}

static int read_request(const json_t *rq)
{
    const json_t *rj = json_object_get(rq, "resources"), *gj = json_object_get(rq, "guards");
    if (json_array_size(rj) > HA_BLOCKS || json_array_size(gj) > HA_BLOCKS
        || read_blocks(rj, gj, ha.resources, ha.guards) != 0)
        return -1;
    ha.n_resources = json_array_size(rj);
    ha.n_guards = json_array_size(gj);
    const json_t *label = json_object_get(rq, "metrics_label_utf8");
    ha.label_len = json_string_length(label);
    if (ha.label_len >= sizeof ha.label)
        return -1;
    if (ha.label_len > 0)
        memcpy(ha.label, json_string_value(label), ha.label_len);
    return 0;
}

/* The policy of the case; the client has no P(k) or P_final to set. */
static int read_policy(const json_t *p, r_request_policy_t *pol)
{
    const json_t *g = json_object_get(p, "replay_gap");
    const char *kind = json_string_value(json_object_get(g, "kind"));
    memset(pol, 0, sizeof *pol);
    pol->unit_ms = (uint64_t)json_integer_value(json_object_get(p, "unit_ms"));
    pol->replay_count = u32(p, "replay_count");
    pol->final_receive_units = u32(p, "final_receive_units");
    pol->completion_delivery = json_is_true(json_object_get(p, "completion_delivery"));
    pol->replay_gap.initial_units = u32(g, "initial_units");
    pol->replay_gap.max_units = u32(g, "max_units");
    if (kind == NULL)
        return -1;
    if (strcmp(kind, "fixed") == 0) {
        pol->replay_gap.kind = R_HA_SCHEDULE_FIXED;
    } else if (strcmp(kind, "linear") == 0) {
        pol->replay_gap.kind = R_HA_SCHEDULE_LINEAR;
        pol->replay_gap.growth.linear_step_units = u32(g, "linear_step_units");
    } else if (strcmp(kind, "exponential") == 0) {
        pol->replay_gap.kind = R_HA_SCHEDULE_EXPONENTIAL;
        pol->replay_gap.growth.exponential_factor = u32(g, "exponential_factor");
    } else {
        return -1;
    }
    return 0;
}

static json_t *create(const json_t *req)
{
    static r_request_policy_t pol;
    const char *key = json_string_value(json_object_get(req, "key"));
    const char *preset = json_string_value(json_object_get(req, "preset"));
    uint8_t *rnd = malloc(8192);
    size_t rnd_len = 0;
    reset();
    if (key == NULL || strlen(key) >= sizeof ha.key || read_policy(json_object_get(req, "policy"), &pol) != 0
        || read_servers(json_object_get(req, "servers")) != 0 || read_failures(json_object_get(req, "send_failures")) != 0
        || read_request(json_object_get(req, "request")) != 0
        || hex_bytes(json_object_get(req, "random_hex"), rnd, 8192, &rnd_len) != 0) {
        free(rnd);
        return perror_answer("ha_create: a field this adapter cannot read");
    }
    int use_preset = preset != NULL && strcmp(preset, "default") == 0;
    if (use_preset)
        r_client_default_request_policy(&pol);
    strcpy(ha.key, client_key(key));
    ha.t0 = ha.now = u64s(json_object_get(req, "t0_ms"));
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = ha.key;
    cfg.request_policy = &pol;
    cfg.request_profile_cb = on_profile;
    r_io_ops_t io = {NULL, hook_send, hook_now, NULL, hook_steering};
    r_resolver_ops_t res = {NULL, hook_srv, hook_addrs, NULL};
    ha.sends = json_array(); /* the DNS refresh at creation sends nothing */
    int rc = r_client_create(&cfg, &io, &res, &ha.client);
    json_decref(ha.sends);
    ha.sends = NULL;
    /* The creation's own draw (a DNS refresh jitter) is made before the case's
     * random source is in place: every byte of random_hex goes to the request. */
    rand_set(rnd, rnd_len, NULL, 0);
    free(rnd);
    if (rc != RCLIENT_OK)
        return json_pack("{s:s, s:s}", "status", "unsupported", "reason",
                         translating() ? "r_client_create refused the key" :
                         "r_client_create refused the key (the client reads only its 60-byte key format; "
                         "RL_ADAPTER_TRANSLATE_KEYS=1 translates rl-cookie and rl-aes keys)");
    return json_pack("{s:s, s:s}", "status", "ok", "used", use_preset ? "preset" : "policy");
}

static void begin(void)
{
    json_decref(ha.sends);
    json_decref(ha.completions);
    json_decref(ha.profile);
    ha.sends = json_array();
    ha.completions = json_array();
    ha.profile = NULL;
    ha.rebinds = 0;
}

static json_t *report(json_t *ans)
{
    uint64_t deadline = 0;
    json_t *d = json_null();
    if (ha.pending && ha.req != NULL && r_client_request_deadline_ms(ha.req, &deadline) == RCLIENT_OK)
        d = u64_json(deadline);
    json_object_set_new(ans, "sends", ha.sends);
    json_object_set_new(ans, "completions", ha.completions);
    json_object_set_new(ans, "profile", ha.profile != NULL ? ha.profile : json_null());
    json_object_set_new(ans, "rebinds", json_integer(ha.rebinds));
    json_object_set_new(ans, "deadline_ms", d);
    ha.sends = ha.completions = ha.profile = NULL;
    return ans;
}

static int probe_send(void *ctx, const r_addr_t *to, const uint8_t *buf, size_t len)
{
    (void)ctx, (void)to, (void)buf, (void)len;
    return 0;
}

static void probe_done(void *user, r_client_req_t *req, int status, const r_rate_limit_result_t *r)
{
    (void)user, (void)req, (void)status, (void)r;
}

/* The step of a submission the client refused with RCLIENT_ERR_CONFIG, its
 * one code for a request it cannot hold and a policy it will not run
 * (r_client.c r_client_check_rate_limit_async_impl checks the blocks, then
 * r_request_policy_ttl_ms the policy). The same request submitted to a
 * client whose policy fits any key (one round of 1 ms: a dedup_ttl_ms of 1)
 * tells them apart: refused again, it is the request; taken, it is the
 * policy. The probe's draws are given back. */
static const char *refused_stage(void)
{
    r_request_policy_t tiny;
    memset(&tiny, 0, sizeof tiny);
    tiny.unit_ms = 1;
    tiny.replay_gap.kind = R_HA_SCHEDULE_FIXED;
    tiny.replay_gap.initial_units = 1;
    tiny.replay_gap.max_units = 1;
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = ha.key;
    cfg.request_policy = &tiny;
    r_io_ops_t io = {NULL, probe_send, hook_now, NULL, NULL};
    r_resolver_ops_t res = {NULL, hook_srv, hook_addrs, NULL};
    r_client_t *probe = NULL;
    r_client_req_t *req = NULL;
    size_t mark = rand_tell();
    if (r_client_create(&cfg, &io, &res, &probe) != RCLIENT_OK)
        return "key";
    int rc = r_client_check_rate_limit_async(probe, ha.n_resources ? ha.resources : NULL, ha.n_resources,
                                             ha.n_guards ? ha.guards : NULL, ha.n_guards,
                                             ha.label_len ? ha.label : NULL, ha.label_len, probe_done, NULL, &req);
    if (rc == RCLIENT_OK && req != NULL)
        r_client_cancel_request(probe, req);
    r_client_destroy(probe);
    rand_seek(mark);
    return rc == RCLIENT_ERR_CONFIG ? "request" : "policy";
}

static json_t *submit(void)
{
    begin();
    size_t mark = rand_tell();
    int rc = r_client_check_rate_limit_async(ha.client, ha.n_resources ? ha.resources : NULL, ha.n_resources,
                                             ha.n_guards ? ha.guards : NULL, ha.n_guards,
                                             ha.label_len ? ha.label : NULL, ha.label_len, on_done, NULL, &ha.req);
    ha.pending = rc == RCLIENT_OK && json_array_size(ha.completions) == 0;
    if (rc != RCLIENT_OK)
        ha.req = NULL;
    if (rc == RCLIENT_ERR_CONFIG) {
        rand_seek(mark);
        return report(json_pack("{s:s, s:s}", "status", "rejected", "stage", refused_stage()));
    }
    const char *status = rc == RCLIENT_OK ? "ok" : rc == RCLIENT_ERR_IO ? "send_failed" : rc_name(rc);
    return report(json_pack("{s:s}", "status", status));
}

/* The sender's address: the case server whose id the datagram carries (the
 * tenant TLV's key_id field of a response), else the first server. */
static const r_addr_t *sender(const uint8_t *buf, size_t len)
{
    uint64_t id = 0;
    for (int i = 0; len >= 12 && i < 8; i++)
        id |= (uint64_t)buf[4 + i] << (8 * i);
    for (size_t i = 0; i < ha.n_servers; i++)
        if (ha.servers[i].id == id)
            return &ha.servers[i].addr;
    return &ha.servers[0].addr;
}

static json_t *datagram(const json_t *req)
{
    uint8_t buf[2048];
    size_t len = 0;
    if (hex_bytes(json_object_get(req, "data_hex"), buf, sizeof buf, &len) != 0)
        return perror_answer("data_hex: not hex, or longer than 2048 bytes");
    begin();
    int rc = r_client_on_datagram(ha.client, buf, len, sender(buf, len));
    /* r_client.h: RCLIENT_ERR_PROTOCOL and RCLIENT_ERR_AUTH are packet-local noise;
     * every dropped datagram without an error returns RCLIENT_OK. */
    json_t *ans = rc == RCLIENT_ERR_PROTOCOL ? json_pack("{s:s, s:s}", "datagram", "rejected", "error", "malformed")
                  : rc == RCLIENT_ERR_AUTH   ? json_pack("{s:s, s:s}", "datagram", "rejected", "error", "auth")
                                             : json_pack("{s:s}", "datagram", "accepted");
    json_object_set_new(ans, "status", json_string("ok"));
    return report(ans);
}

static json_t *timer(void)
{
    begin();
    if (ha.pending && ha.req != NULL)
        r_client_on_timeout(ha.client, ha.req, ha.now);
    return report(json_pack("{s:s}", "status", "ok"));
}

static json_t *cancel(void)
{
    begin();
    if (ha.pending && ha.req != NULL)
        r_client_cancel_request(ha.client, ha.req);
    ha.pending = 0;
    ha.req = NULL;
    return report(json_pack("{s:s}", "status", "ok"));
}

json_t *ha_capabilities(void)
{
    return json_pack("{s:b, s:b, s:b, s:s, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "cases", 1, "presets", 0,
                     "preference", 0, "policy_shape", "api_md", "completion_delivery", 1, "clock", 1, "random", 1,
                     "explicit_servers", 0, "send_failures", 1, "profile", 1, "c_api", 1, "cancel", 1);
}

json_t *ha_dispatch(const json_t *req)
{
    const char *op = json_string_value(json_object_get(req, "op"));
    if (op == NULL)
        return NULL;
    if (strcmp(op, "ha_create") == 0)
        return create(req);
    if (ha.client == NULL)
        return strncmp(op, "ha_", 3) == 0 || !strcmp(op, "submit") || !strcmp(op, "datagram") || !strcmp(op, "timer")
                       || !strcmp(op, "cancel")
                   ? perror_answer("no ha_create before this call")
                   : NULL;
    if (json_object_get(req, "now_ms") != NULL)
        ha.now = u64s(json_object_get(req, "now_ms"));
    if (strcmp(op, "submit") == 0)
        return submit();
    if (strcmp(op, "datagram") == 0)
        return datagram(req);
    if (strcmp(op, "timer") == 0)
        return timer();
    if (strcmp(op, "cancel") == 0)
        return cancel();
    return NULL;
}
