/* SPDX-License-Identifier: MIT */
/* io_case.c - load a case for `rl-testbed interop` (docs/interop.md "Cases"):
 * an HA case of conformance/cases (schema ratelimitly-ha-case/v1, parsed by the
 * conformance runner) or an interop case (schema ratelimitly-interop-case/v1:
 * an HA case plus "interop_events", datagrams only a network test needs), and
 * decide whether it can be played over a network. */
#include <string.h>

#include "io_int.h"
#include "vec_runner.h"

#define IO_SCHEMA_ID "ratelimitly-interop-case/v1"

static bool event_is_plain(const conf_case_t *c, const conf_event_t *ev)
{
    if (ev->kind != CONF_EV_RESPONSE || !ev->keep_port)
        return false;
    for (size_t i = 0; i < c->n_resources; i++)
        if (ev->tokens_deficit[i] != 0 || ev->actual_rate[i] != 1)
            return false;
    for (size_t i = 0; i < c->n_guards; i++)
        if (ev->current_latency[i] != 5)
            return false;
    return true;
}

/* Why the case needs what a network cannot give (exact ties, a host's
 * timers, injected send failures, cancellation), or NULL. */
static const char *unplayable(const json_t *root, const io_case_t *ic)
{
    const conf_case_t *c = &ic->c;
    if (json_array_size(json_object_get(root, "flags")) > 0)
        return "flagged boundary/convention/c_api: exact-time ties or a C API detail";
    if (c->manual_timers)
        return "late timers: needs the host's timer calls";
    if (c->n_failures > 0)
        return "send failures: needs a failing send hook";
    for (size_t i = 0; i < c->n_events; i++)
        if (c->events[i].kind == CONF_EV_TIMER || c->events[i].kind == CONF_EV_CANCEL)
            return "timer or cancel events: needs the host's calls";
    switch (c->expect.outcome) {
    case CONF_OUT_ALLOWED:
    case CONF_OUT_DENIED:
    case CONF_OUT_TIMEOUT: break;
    default: return "expects a submit error, a send failure or a cancellation";
    }
    if (c->policy.unit_ms == 0 || IO_UNIT_MS % c->policy.unit_ms != 0)
        return "unit_ms does not divide the interop unit";
    return NULL;
}

static bool parse_extra(const json_t *list, io_case_t *ic, char *err, size_t cap)
{
    static const char *const kinds[] = {"downgraded", NULL};
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *v = json_array_get(list, i);
        const char *kind = json_string_value(json_object_get(v, "kind"));
        const char *server = json_string_value(json_object_get(v, "server"));
        json_int_t at = json_integer_value(json_object_get(v, "at"));
        int idx = -1;
        for (size_t s = 0; server != NULL && s < ic->c.n_servers; s++)
            if (strcmp(ic->c.server_names[s], server) == 0)
                idx = (int)s;
        if (kind == NULL || strcmp(kind, kinds[0]) != 0 || idx < 0 || at < 0 || ic->n_extra == CONF_MAX_EVENTS) {
            vec_format(err, cap, "interop_events[%zu]: want {\"at\": ms, \"server\": name, \"kind\": \"downgraded\"}",
                       i);
            return false;
        }
        conf_event_t *ev = &ic->extra[ic->n_extra];
        memset(ev, 0, sizeof *ev);
        ev->kind = CONF_EV_RESPONSE;
        ev->at = (uint32_t)at;
        ev->server = idx;
        ev->keep_port = true;
        for (size_t b = 0; b < CONF_MAX_BLOCKS; b++) {
            ev->actual_rate[b] = 1;
            ev->current_latency[b] = 5;
        }
        ic->extra_kind[ic->n_extra++] = IO_EV_DOWNGRADED;
    }
    return true;
}

/* "restart": {"server": name, "before": {"start_s_since_2025", "listener_id",
 * "node_id"}}: the server's identity before its restart (docs/interop.md
 * "Restarts"); needs DNS, whose records name the server either way. */
static bool parse_restart(const json_t *r, io_case_t *ic, char *err, size_t cap)
{
    ic->restart = -1;
    if (r == NULL)
        return true;
    const char *server = json_string_value(json_object_get(r, "server"));
    const json_t *b = json_object_get(r, "before");
    json_int_t st = json_integer_value(json_object_get(b, "start_s_since_2025"));
    json_int_t li = json_integer_value(json_object_get(b, "listener_id"));
    json_int_t node = json_integer_value(json_object_get(b, "node_id"));
    for (size_t s = 0; server != NULL && s < ic->c.n_servers; s++)
        if (strcmp(ic->c.server_names[s], server) == 0)
            ic->restart = (int)s;
    if (!ic->dns || ic->restart < 0 || !json_is_integer(json_object_get(b, "start_s_since_2025")) || st < 0 ||
        st >= (1ll << 41) || li < 0 || li > 255 || node < 0 || node > 0x7FFF) {
        vec_format(err, cap, "restart: want {\"server\": name, \"before\": {\"start_s_since_2025\", "
                   "\"listener_id\", \"node_id\"}}, with \"discovery\": \"dns\"");
        ic->restart = -1;
        return false;
    }
    ic->restart_before_id = ((uint64_t)st << 23) | ((uint64_t)li << 15) | (uint64_t)node;
    return true;
}

/* "join": name: a server published in DNS only after the warm-up check. */
static bool parse_join(const json_t *v, io_case_t *ic, char *err, size_t cap)
{
    ic->join = -1;
    if (v == NULL)
        return true;
    for (size_t s = 0; json_is_string(v) && s < ic->c.n_servers; s++)
        if (strcmp(ic->c.server_names[s], json_string_value(v)) == 0)
            ic->join = (int)s;
    if (!ic->dns || ic->join < 0 || ic->join == ic->restart) {
        vec_format(err, cap, "join: want the name of a server other than the restart's, with \"discovery\": \"dns\"");
        ic->join = -1;
        return false;
    }
    return true;
}

/* "discovery": "dns" and "dns_targets": {server name: first label of its SRV
 * target} (docs/interop.md "DNS"). */
static bool parse_dns(const json_t *root, io_case_t *ic, char *err, size_t cap)
{
    const json_t *d = json_object_get(root, "discovery"), *t = json_object_get(root, "dns_targets");
    const char *key;
    const json_t *v;
    if (d != NULL && (!json_is_string(d) || (strcmp(json_string_value(d), "dns") != 0 &&
                                             strcmp(json_string_value(d), "static") != 0))) {
        vec_format(err, cap, "discovery: want \"dns\" or \"static\"");
        return false;
    }
    ic->dns = d != NULL && strcmp(json_string_value(d), "dns") == 0;
    if (t != NULL && (!ic->dns || !json_is_object(t))) {
        vec_format(err, cap, "dns_targets: want an object of server name to label, with \"discovery\": \"dns\"");
        return false;
    }
    json_object_foreach((json_t *)t, key, v) {
        int idx = -1;
        for (size_t s = 0; s < ic->c.n_servers; s++)
            if (strcmp(ic->c.server_names[s], key) == 0)
                idx = (int)s;
        const char *label = json_string_value(v);
        if (idx < 0 || label == NULL || label[0] == '\0' || strlen(label) >= sizeof ic->dns_target[0] ||
            strspn(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(label)) {
            vec_format(err, cap, "dns_targets.%s: want a server's name and a DNS label (a-z, 0-9, -)", key);
            return false;
        }
        vec_format(ic->dns_target[idx], sizeof ic->dns_target[idx], "%s", label);
    }
    return parse_restart(json_object_get(root, "restart"), ic, err, cap) &&
           parse_join(json_object_get(root, "join"), ic, err, cap);
}

bool io_case_load(const char *path, io_case_t *ic, char *err, size_t cap)
{
    char msg[256];
    vj_err_t e;
    memset(ic, 0, sizeof *ic);
    memset(&e, 0, sizeof e);
    vec_format(ic->path, sizeof ic->path, "%s", path);
    json_t *root = vec_load_file(path, msg, sizeof msg);
    if (root == NULL) {
        vec_format(err, cap, "%s", msg);
        return false;
    }
    bool ok = false;
    json_t *copy = json_deep_copy(root);
    const char *schema = json_string_value(json_object_get(root, "schema"));
    if (copy == NULL || schema == NULL ||
        (strcmp(schema, IO_SCHEMA_ID) != 0 && strcmp(schema, CONF_SCHEMA_ID) != 0)) {
        vec_format(err, cap, "schema: want \"%s\" or \"%s\"", CONF_SCHEMA_ID, IO_SCHEMA_ID);
        goto out;
    }
    json_object_set_new(copy, "schema", json_string(CONF_SCHEMA_ID));
    json_object_del(copy, "interop_events");
    json_object_del(copy, "discovery");
    json_object_del(copy, "dns_targets");
    json_object_del(copy, "restart");
    json_object_del(copy, "join");
    if (!conf_case_parse(copy, &ic->c, &e)) {
        vec_format(err, cap, "%s", e.msg);
        goto out;
    }
    if (!parse_extra(json_object_get(root, "interop_events"), ic, err, cap) || !parse_dns(root, ic, err, cap))
        goto out;
    ic->any_auth = ic->c.any_auth;
    ic->default_request = json_object_get(root, "request") == NULL;
    const char *why = unplayable(root, ic);
    vec_format(ic->skip, sizeof ic->skip, "%s", why != NULL ? why : "");
    ic->factor = why == NULL ? IO_UNIT_MS / ic->c.policy.unit_ms : 1;
    ok = true;
out:
    json_decref(copy);
    json_decref(root);
    return ok;
}

size_t io_case_events(const io_run_t *run, io_event_t *out, size_t cap)
{
    const io_case_t *ic = run->ic;
    size_t n = 0;
    for (size_t i = 0; i < ic->c.n_events && n < cap; i++) {
        const conf_event_t *ev = &run->c.events[i];
        out[n++] = (io_event_t){.at_ms = (uint64_t)ev->at * ic->factor, .server = ev->server, .ev = ev,
                                .kind = event_is_plain(&run->c, ev) ? IO_EV_MODEL : IO_EV_CONF};
    }
    for (size_t i = 0; i < ic->n_extra && n < cap; i++)
        out[n++] = (io_event_t){.at_ms = (uint64_t)ic->extra[i].at * ic->factor, .server = ic->extra[i].server,
                                .ev = &ic->extra[i], .kind = ic->extra_kind[i]};
    for (size_t i = 1; i < n; i++) /* insertion sort by time, stable */
        for (size_t j = i; j > 0 && out[j - 1].at_ms > out[j].at_ms; j--) {
            io_event_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* S(k) of r-client.md 9.3.1: fixed b; linear min(b + k * step, b_max);
 * exponential min(b * factor^k, b_max). Saturates at max_units. */
static uint64_t schedule_units(const r_ha_schedule_t *s, uint32_t k)
{
    uint64_t v = s->initial_units;
    if (s->kind == R_HA_SCHEDULE_FIXED)
        return v;
    if (s->kind == R_HA_SCHEDULE_LINEAR)
        v += (uint64_t)k * s->growth.linear_step_units;
    else if (s->kind == R_HA_SCHEDULE_EXPONENTIAL)
        for (uint32_t i = 0; i < k && v <= s->max_units; i++)
            v *= s->growth.exponential_factor;
    return v < s->max_units ? v : s->max_units;
}

uint64_t io_round_start_ms(const r_request_policy_t *p, uint32_t k)
{
    uint64_t units = 0;
    for (uint32_t j = 0; j < k; j++)
        units += schedule_units(&p->replay_gap, j);
    return units * p->unit_ms;
}

uint64_t io_policy_h_ms(const r_request_policy_t *p)
{
    return io_round_start_ms(p, p->replay_count + 1) + (uint64_t)p->final_receive_units * p->unit_ms;
}
