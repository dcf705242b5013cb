/* SPDX-License-Identifier: MIT */
/* conf_host.c - client side of the host adapter: hooks, entry points and
 * send attribution (see conf_host.h). The servers' side is conf_server.c. */
#include "conf_host.h"

#include <string.h>

#include "conf_remote.h"

#include <openssl/crypto.h>

#include "vec_json.h"

static int server_of(const conf_host_t *h, const r_addr_t *to)
{
    for (size_t i = 0; i < h->c->n_servers; i++) {
        if (h->endpoints[i].addr.port == to->port)
            return (int)i;
    }
    return -1;
}

/* The first `count` sends to a server at or after `from` fail (README "Send failures"). */
bool conf_host_send_fails(conf_host_t *h, int server)
{
    uint64_t rel = h->now - CONF_T0_MS;
    for (size_t i = 0; i < h->c->n_failures; i++) {
        const conf_failure_t *f = &h->c->failures[i];
        if (f->server == server && rel >= f->from && h->fail_left[i] > 0) {
            h->fail_left[i]--;
            return true;
        }
    }
    return false;
}

static int hook_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len)
{
    conf_host_t *h = ctx;
    int server = server_of(h, to);
    bool fail = server >= 0 && conf_host_send_fails(h, server);
    if (h->n_cap == CONF_MAX_SENDS || len > R_CLIENT_MAX_DATAGRAM) {
        h->cap_overflow = true;
        return -1;
    }
    conf_capture_t *c = &h->cap[h->n_cap++];
    memset(&c->s, 0, sizeof c->s);
    c->s.at = h->now - CONF_T0_MS;
    c->s.server = server;
    c->s.ok = !fail;
    memcpy(c->data, data, len);
    c->len = len;
    return fail ? -1 : 0;
}

static uint64_t hook_now(void *ctx)
{
    return ((conf_host_t *)ctx)->now;
}

/* Deterministic: unique_id and AES nonces differ per draw, repeat per run. */
static int hook_random(void *ctx, uint8_t *buf, size_t len)
{
    conf_host_t *h = ctx;
    for (size_t i = 0; i < len; i++) {
        if (i % 8 == 0)
            h->rng_counter++;
        buf[i] = (uint8_t)(h->rng_counter >> (8 * (i % 8)));
    }
    return 0;
}

/* Rebinding from inside the receive path is not allowed (r-client.md 6.3
 * rule 6): note it, finish it after the entry point returns. */
static void hook_rebind(void *ctx, uint64_t server_id)
{
    conf_host_t *h = ctx;
    (void)server_id;
    h->obs.rebinds++;
    h->rebind_requested = true;
}

static void on_profile(const r_request_profile_t *p, void *user)
{
    conf_host_t *h = user;
    h->obs.profile_none = false;
    h->obs.profile_round = p->round;
    h->obs.profile_phase = p->phase;
}

static int server_index(const conf_host_t *h, uint64_t server_id)
{
    for (size_t i = 0; i < h->c->n_servers; i++) {
        if (h->c->server_ids[i] == server_id)
            return (int)i;
    }
    return -1;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user)
{
    conf_host_t *h = user;
    conf_behaviour_t *o = &h->obs;
    (void)req;
    h->pending = false;
    h->status = r->status;
    o->completions++;
    o->has_decision = true;
    o->decision_at = h->now - CONF_T0_MS;
    if (r->status == RCLIENT_OK)
        o->outcome = r->success ? CONF_OUT_ALLOWED : CONF_OUT_DENIED;
    else if (r->status == RCLIENT_ERR_TIMEOUT)
        o->outcome = CONF_OUT_TIMEOUT;
    else if (r->status == RCLIENT_ERR_IO)
        o->outcome = CONF_OUT_SEND_FAILED;
    else
        o->outcome = CONF_OUT_OTHER;
    o->selected = r->status == RCLIENT_OK ? server_index(h, r->server_id) : -1;
    o->keep_port = r->steering_feedback;
    o->n_resources = r->resource_count < CONF_MAX_BLOCKS ? r->resource_count : CONF_MAX_BLOCKS;
    o->n_guards = r->guard_count < CONF_MAX_BLOCKS ? r->guard_count : CONF_MAX_BLOCKS;
    for (size_t i = 0; i < o->n_resources; i++) {
        o->resources[i].tokens_deficit = r->resources[i].tokens_deficit;
        o->resources[i].actual_rate = r->resources[i].actual_rate;
    }
    for (size_t i = 0; i < o->n_guards; i++) {
        o->guards[i].current_latency = r->guards[i].current_latency_ms;
        o->guards[i].passed = r->guards[i].passed;
    }
}

bool conf_host_init_servers(conf_host_t *h, const conf_case_t *c, char *err, size_t cap)
{
    static const char *const modes[] = {"", "none", "cookie", "aes"};
    r_key_diag_t diag;
    memset(h, 0, sizeof *h);
    h->c = c;
    h->now = CONF_T0_MS;
    h->obs.selected = -1;
    h->obs.profile_none = true;
    h->obs.has_ttl = h->obs.has_profile = h->obs.has_keep_port = h->obs.has_result = h->obs.has_rebinds = true;
    for (size_t i = 0; i < c->n_failures; i++)
        h->fail_left[i] = c->failures[i].count;
    if (r_client_parse_auth_key_diag(c->key, 0, &h->key, &diag) != RCLIENT_OK) {
        vec_format(err, cap, "key: not a valid API key: %s", diag.message);
        return false;
    }
    if (h->key.type != c->auth) {
        vec_format(err, cap, "auth: \"%s\", but the key is an rl-%s key", modes[c->auth], modes[h->key.type]);
        return false;
    }
    if (rl_auth_init(&h->server_auth, h->key.type, h->key.has_secret ? h->key.secret : NULL) != RCLIENT_OK) {
        vec_format(err, cap, "key: the servers' auth state could not be set up");
        return false;
    }
    h->server_auth_ready = true;
    for (size_t i = 0; i < c->n_servers; i++) {
        h->endpoints[i].server_id = c->server_ids[i];
        h->endpoints[i].addr.family = R_ADDR_INET;
        h->endpoints[i].addr.port = (uint16_t)(CONF_PORT_BASE + i);
        h->endpoints[i].addr.addr[0] = 127;
        h->endpoints[i].addr.addr[3] = 1;
    }
    return true;
}

bool conf_host_init(conf_host_t *h, const conf_case_t *c, char *err, size_t cap)
{
    if (!conf_host_init_servers(h, c, err, cap))
        return false;
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = c->key;
    cfg.request_policy = &c->policy;
    cfg.servers = h->endpoints;
    cfg.server_count = c->n_servers;
    cfg.request_profile_cb = on_profile;
    cfg.request_profile_user_data = h;
    r_io_ops_t io = {.ctx = h, .udp_send = hook_send, .now_ms = hook_now, .steering_rebind = hook_rebind,
                     .random = hook_random};
    int rc = r_client_create(&cfg, &io, NULL, &h->client);
    if (rc != RCLIENT_OK) {
        vec_format(err, cap, "(client): r_client_create failed: %s", r_client_strerror(rc));
        return false;
    }
    return true;
}

void conf_host_free(conf_host_t *h)
{
    r_client_destroy(h->client); /* cancels a request still in flight */
    h->client = NULL;
    if (h->server_auth_ready)
        rl_auth_release(&h->server_auth);
    OPENSSL_cleanse(&h->key, sizeof h->key);
}

void conf_host_begin_call(conf_host_t *h, conf_call_t call)
{
    h->call = call;
    h->call_first = h->n_cap;
}

/* Attribute the call's sends (README "Expectations"): submission -> initial;
 * a deadline that selected nothing -> replay k (k = that server's replay
 * count); anything that selected a response -> completion delivery. */
void conf_host_end_call(conf_host_t *h, bool selected)
{
    for (size_t i = h->call_first; i < h->n_cap; i++) {
        conf_send_t *s = &h->cap[i].s;
        if (h->call == CONF_CALL_SUBMIT) {
            s->kind = CONF_SEND_INITIAL;
        } else if (h->call == CONF_CALL_TIMER && !selected) {
            s->kind = CONF_SEND_REPLAY;
            s->round = s->server >= 0 ? ++h->replays[s->server] : 0;
        } else {
            s->kind = CONF_SEND_COMPLETION;
        }
    }
    h->call = CONF_CALL_NONE;
    if (h->rebind_requested && h->client != NULL) {
        h->rebind_requested = false;
        r_client_rebind_complete(h->client, true);
    }
}

static bool selected_now(const conf_host_t *h, uint32_t before)
{
    return h->obs.completions > before && h->status == RCLIENT_OK;
}

int conf_host_submit(conf_host_t *h)
{
    if (h->remote != NULL)
        return conf_remote_submit(h);
    conf_host_begin_call(h, CONF_CALL_SUBMIT);
    int rc = r_client_check_rate_limit_async(h->client, h->c->n_resources ? h->c->resources : NULL,
                                             h->c->n_resources, h->c->n_guards ? h->c->guards : NULL,
                                             h->c->n_guards, h->c->label_len ? h->c->label : NULL, h->c->label_len,
                                             on_result, h, &h->req);
    h->pending = rc == RCLIENT_OK && h->req != NULL;
    conf_host_end_call(h, false);
    return rc;
}

int conf_host_timer(conf_host_t *h)
{
    if (h->remote != NULL)
        return conf_remote_timer(h);
    uint32_t before = h->obs.completions;
    conf_host_begin_call(h, CONF_CALL_TIMER);
    int rc = r_client_on_timeout(h->client, h->req, h->now);
    conf_host_end_call(h, selected_now(h, before));
    return rc;
}

int conf_host_datagram(conf_host_t *h, const uint8_t *data, size_t len)
{
    if (h->remote != NULL)
        return conf_remote_datagram(h, data, len);
    uint32_t before = h->obs.completions;
    conf_host_begin_call(h, CONF_CALL_DATAGRAM);
    int rc = r_client_on_datagram(h->client, data, len);
    conf_host_end_call(h, selected_now(h, before));
    return rc;
}

void conf_host_cancel(conf_host_t *h)
{
    if (!h->pending)
        return;
    if (h->remote != NULL)
        conf_remote_cancel(h);
    else
        r_client_cancel_request(h->client, h->req);
    h->pending = false;
    h->cancelled = true;
    h->req = NULL;
}

uint64_t conf_host_deadline(const conf_host_t *h)
{
    if (h->remote != NULL)
        return conf_remote_deadline(h);
    return r_client_request_deadline_ms(h->client, h->req);
}
