/* SPDX-License-Identifier: MIT */
/* conf_events.c - parse a case's request and event script (conformance/README.md
 * "Request", "Events", "Responses", "Invalid datagrams"). */
#include <string.h>

#include "conf_case.h"

bool conf_request_parse(const json_t *root, conf_case_t *c, vj_err_t *e);
bool conf_events_parse(const json_t *root, conf_case_t *c, vj_err_t *e);

/* The default request: checkout 1000 ms / 100, 1 token; guard inventory-backend < 100 ms. */
static bool default_request(conf_case_t *c, vj_err_t *e)
{
    r_resource_request_t *r = &c->resources[0];
    r_latency_guard_t *g = &c->guards[0];
    r->window_size_ms = 1000;
    r->rate_limit = 100;
    r->tokens_requested = 1;
    g->threshold_ms = 100;
    g->ttl_ms = 10000;
    g->max_samples = 100;
    g->buffer_size = 32;
    g->min_sample_threshold = 5;
    c->n_resources = c->n_guards = 1;
    if (r_client_derive_bucket_id("checkout", 8, 1000, 100, r->bucket_id) != RCLIENT_OK ||
        r_client_derive_latency_tracker_id("inventory-backend", 17, 10000, 100, 32, 5, g->latency_tracker_id) !=
            RCLIENT_OK)
        return vj_fail(e, &(vj_path_t){"request"}, "deriving the default ids failed");
    return true;
}

static bool block_array(const json_t *obj, const vj_path_t *base, const char *key, const json_t **arr, size_t *n,
                        vj_err_t *e)
{
    if (!vj_array(obj, base, key, arr, n, e))
        return false;
    if (*n > CONF_MAX_BLOCKS) {
        vj_path_t p = vj_path_key(base, key);
        return vj_fail(e, &p, "expected at most %u entries, got %zu", CONF_MAX_BLOCKS, *n);
    }
    return true;
}

static bool parse_resource(const json_t *v, const vj_path_t *p, r_resource_request_t *r, vj_err_t *e)
{
    static const char *const keys[] = {"name_utf8", "window_size_ms", "rate_limit", "tokens_requested", NULL};
    const char *name = NULL;
    size_t len = 0;
    if (!vj_v_object(v, p, e) || !conf_keys_known(v, p, keys, e) || !vj_string(v, p, "name_utf8", &name, &len, e) ||
        !vj_u32(v, p, "window_size_ms", &r->window_size_ms, e) || !vj_u32(v, p, "rate_limit", &r->rate_limit, e) ||
        !vj_u16(v, p, "tokens_requested", &r->tokens_requested, e))
        return false;
    if (r_client_derive_bucket_id(name, len, r->window_size_ms, r->rate_limit, r->bucket_id) != RCLIENT_OK)
        return vj_fail(e, p, "deriving bucket_id failed");
    return true;
}

static bool parse_guard(const json_t *v, const vj_path_t *p, r_latency_guard_t *g, vj_err_t *e)
{
    static const char *const keys[] = {"name_utf8",   "latency_threshold", "ttl_ms", "max_samples",
                                       "buffer_size", "min_sample_threshold", NULL};
    const char *name = NULL;
    size_t len = 0;
    if (!vj_v_object(v, p, e) || !conf_keys_known(v, p, keys, e) || !vj_string(v, p, "name_utf8", &name, &len, e) ||
        !vj_u32(v, p, "latency_threshold", &g->threshold_ms, e) || !vj_u32(v, p, "ttl_ms", &g->ttl_ms, e) ||
        !vj_u32(v, p, "max_samples", &g->max_samples, e) || !vj_u32(v, p, "buffer_size", &g->buffer_size, e) ||
        !vj_u32(v, p, "min_sample_threshold", &g->min_sample_threshold, e))
        return false;
    if (r_client_derive_latency_tracker_id(name, len, g->ttl_ms, g->max_samples, g->buffer_size,
                                           g->min_sample_threshold, g->latency_tracker_id) != RCLIENT_OK)
        return vj_fail(e, p, "deriving latency_tracker_id failed");
    return true;
}

bool conf_request_parse(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    static const char *const keys[] = {"resources", "guards", "metrics_label_utf8", NULL};
    const vj_path_t none = {""};
    const json_t *obj = NULL, *res = NULL, *gua = NULL;
    if (json_object_get(root, "request") == NULL)
        return default_request(c, e);
    if (!vj_object(root, &none, "request", &obj, e))
        return false;
    vj_path_t p = vj_path("request");
    if (!conf_keys_known(obj, &p, keys, e) || !block_array(obj, &p, "resources", &res, &c->n_resources, e) ||
        !block_array(obj, &p, "guards", &gua, &c->n_guards, e))
        return false;
    if (c->n_resources + c->n_guards == 0)
        return vj_fail(e, &p, "expected at least one resource or guard (an empty request sends nothing)");
    vj_path_t rp = vj_path_key(&p, "resources"), gp = vj_path_key(&p, "guards");
    for (size_t i = 0; i < c->n_resources; i++) {
        vj_path_t q = vj_path_index(&rp, i);
        if (!parse_resource(json_array_get(res, i), &q, &c->resources[i], e))
            return false;
    }
    for (size_t i = 0; i < c->n_guards; i++) {
        vj_path_t q = vj_path_index(&gp, i);
        if (!parse_guard(json_array_get(gua, i), &q, &c->guards[i], e))
            return false;
    }
    if (json_object_get(obj, "metrics_label_utf8") == NULL)
        return true;
    const char *label = NULL;
    if (!vj_string(obj, &p, "metrics_label_utf8", &label, &c->label_len, e))
        return false;
    if (c->label_len >= sizeof c->label) {
        vj_path_t q = vj_path_key(&p, "metrics_label_utf8");
        return vj_fail(e, &q, "expected at most %zu bytes, got %zu", sizeof c->label - 1, c->label_len);
    }
    memcpy(c->label, label, c->label_len);
    return true;
}

/* Optional per-block reply values; when present, one entry per request block. */
static bool reply_blocks(const json_t *ev, const vj_path_t *p, const conf_case_t *c, conf_event_t *out, vj_err_t *e)
{
    static const char *const rkeys[] = {"tokens_deficit", "actual_rate", NULL};
    static const char *const gkeys[] = {"current_latency", NULL};
    const json_t *arr = NULL;
    size_t n = 0;
    for (size_t i = 0; i < CONF_MAX_BLOCKS; i++) {
        out->actual_rate[i] = 1;
        out->current_latency[i] = 5;
    }
    if (json_object_get(ev, "resources") != NULL) {
        vj_path_t q = vj_path_key(p, "resources");
        if (!vj_array(ev, p, "resources", &arr, &n, e))
            return false;
        if (n != c->n_resources)
            return vj_fail(e, &q, "expected %zu entries (one per request resource), got %zu", c->n_resources, n);
        for (size_t i = 0; i < n; i++) {
            vj_path_t r = vj_path_index(&q, i);
            const json_t *v = json_array_get(arr, i);
            if (!vj_v_object(v, &r, e) || !conf_keys_known(v, &r, rkeys, e) ||
                !vj_u16(v, &r, "tokens_deficit", &out->tokens_deficit[i], e) ||
                !vj_u32(v, &r, "actual_rate", &out->actual_rate[i], e))
                return false;
        }
    }
    if (json_object_get(ev, "guards") != NULL) {
        vj_path_t q = vj_path_key(p, "guards");
        if (!vj_array(ev, p, "guards", &arr, &n, e))
            return false;
        if (n != c->n_guards)
            return vj_fail(e, &q, "expected %zu entries (one per request guard), got %zu", c->n_guards, n);
        for (size_t i = 0; i < n; i++) {
            vj_path_t r = vj_path_index(&q, i);
            const json_t *v = json_array_get(arr, i);
            if (!vj_v_object(v, &r, e) || !conf_keys_known(v, &r, gkeys, e) ||
                !vj_u32(v, &r, "current_latency", &out->current_latency[i], e))
                return false;
        }
    }
    return true;
}

static bool parse_variant(const json_t *ev, const vj_path_t *p, const conf_case_t *c, conf_event_t *out,
                          vj_err_t *e)
{
    const char *s = NULL;
    size_t len = 0;
    char got[96];
    static const char *const modes[] = {"", "none", "cookie", "aes"};
    if (!vj_string(ev, p, "variant", &s, &len, e))
        return false;
    vj_path_t q = vj_path_key(p, "variant");
    for (int v = CONF_VAR_NONE + 1; v < CONF_VAR_COUNT; v++) {
        const conf_variant_info_t *info = conf_variant_info((conf_variant_t)v);
        if (!vj_string_is(json_object_get(ev, "variant"), info->name))
            continue;
        if (info->only_mode != R_AUTH_UNSPECIFIED && info->only_mode != c->auth)
            return vj_fail(e, &q, "variant \"%s\" needs auth \"%s\"", info->name, modes[info->only_mode]);
        if (v == CONF_VAR_AUTH_NONE && c->auth == R_AUTH_NONE)
            return vj_fail(e, &q, "variant \"%s\" needs auth \"cookie\" or \"aes\"", info->name);
        if (c->n_guards < info->min_guards || c->n_resources < info->min_resources)
            return vj_fail(e, &q, "variant \"%s\" needs a request with at least %u guards and %u resources",
                           info->name, info->min_guards, info->min_resources);
        out->variant = (conf_variant_t)v;
        return true;
    }
    return vj_fail(e, &q, "unknown variant %s (see conformance/README.md)", vj_quote(s, len, got, sizeof got));
}

static bool parse_event(const json_t *ev, const vj_path_t *p, const conf_case_t *c, conf_event_t *out, vj_err_t *e)
{
    static const char *const types[] = {"response", "invalid", "timer", "cancel"};
    static const char *const keys[][7] = {
        {"at", "type", "server", "keep_port", "resources", "guards", NULL},
        {"at", "type", "server", "variant", "foreign_unique_id", NULL},
        {"at", "type", NULL},
        {"at", "type", NULL},
    };
    const char *s = NULL;
    size_t len = 0;
    char got[96];
    if (!vj_v_object(ev, p, e) || !vj_u32(ev, p, "at", &out->at, e) || !vj_string(ev, p, "type", &s, &len, e))
        return false;
    int type = -1;
    for (int i = 0; i < 4 && type < 0; i++)
        type = vj_string_is(json_object_get(ev, "type"), types[i]) ? i : -1;
    if (type < 0) {
        vj_path_t q = vj_path_key(p, "type");
        return vj_fail(e, &q, "expected \"response\", \"invalid\", \"timer\" or \"cancel\", got %s",
                       vj_quote(s, len, got, sizeof got));
    }
    out->kind = (conf_event_kind_t)type;
    out->server = -1;
    out->keep_port = true;
    if (!conf_keys_known(ev, p, keys[type], e))
        return false;
    switch (out->kind) {
    case CONF_EV_RESPONSE:
        return conf_server_ref(ev, p, "server", c, &out->server, e) &&
               conf_opt_bool(ev, p, "keep_port", &out->keep_port, e) && reply_blocks(ev, p, c, out, e);
    case CONF_EV_INVALID:
        return conf_server_ref(ev, p, "server", c, &out->server, e) && reply_blocks(ev, p, c, out, e) &&
               parse_variant(ev, p, c, out, e) &&
               conf_opt_bool(ev, p, "foreign_unique_id", &out->foreign_unique_id, e);
    default:
        return true;
    }
}

bool conf_events_parse(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    const vj_path_t none = {""};
    const json_t *arr = NULL;
    size_t n = 0;
    if (!vj_array(root, &none, "events", &arr, &n, e))
        return false;
    vj_path_t p = vj_path("events");
    if (n > CONF_MAX_EVENTS)
        return vj_fail(e, &p, "expected at most %u events, got %zu", CONF_MAX_EVENTS, n);
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(&p, i);
        if (!parse_event(json_array_get(arr, i), &q, c, &c->events[i], e))
            return false;
        if (i > 0 && c->events[i].at < c->events[i - 1].at) {
            vj_path_t r = vj_path_key(&q, "at");
            return vj_fail(e, &r, "%u is before events[%zu].at %u (events are ordered by time)", c->events[i].at,
                           i - 1, c->events[i - 1].at);
        }
    }
    c->n_events = n;
    return true;
}
