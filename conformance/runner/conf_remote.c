/* SPDX-License-Identifier: MIT */
/* conf_remote.c - HA cases through an adapter (see conf_remote.h and
 * conformance/ADAPTER.md "HA cases"). */
#include "conf_remote.h"

#include "conf_policy_json.h"

#include "vec_leak.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vec_kinds.h"

#define RANDOM_BYTES 512u /* the random source handed to the adapter: ample for one request */
#define STATUS_UNKNOWN (-1000) /* a status string no api.md code names */

static const char *const preset_names[] = {"default", "api_md", "strict_oldest", "oldest_preferred",
                                           "fastest_valid"};

/* ---- requests --------------------------------------------------------------- */

static json_t *dec(uint64_t x)
{
    return vec_json_dec_u64(x);
}

/* The request in the shape of the rate_request_packet vector input (ids, not names). */
static json_t *request_json(const conf_case_t *c)
{
    json_t *res = json_array(), *guards = json_array();
    for (size_t i = 0; i < c->n_resources; i++) {
        const r_resource_request_t *r = &c->resources[i];
        json_array_append_new(res, json_pack("{s:o, s:I, s:I, s:I}", "bucket_id_hex",
                                             vec_json_hex(r->bucket_id, R_CLIENT_ID_LEN), "window_size_ms",
                                             (json_int_t)r->window_size_ms, "rate_limit", (json_int_t)r->rate_limit,
                                             "tokens_requested", (json_int_t)r->tokens_requested));
    }
    for (size_t i = 0; i < c->n_guards; i++) {
        const r_latency_guard_t *g = &c->guards[i];
        json_array_append_new(
            guards, json_pack("{s:o, s:I, s:I, s:I, s:I, s:I}", "tracker_id_hex",
                              vec_json_hex(g->latency_tracker_id, R_CLIENT_ID_LEN), "ttl_ms", (json_int_t)g->ttl_ms,
                              "max_samples", (json_int_t)g->max_samples, "buffer_size", (json_int_t)g->buffer_size,
                              "min_sample_threshold", (json_int_t)g->min_sample_threshold, "latency_threshold",
                              (json_int_t)g->threshold_ms));
    }
    json_t *req = json_pack("{s:o, s:o}", "resources", res, "guards", guards);
    if (c->label_len > 0)
        json_object_set_new(req, "metrics_label_utf8", json_stringn(c->label, c->label_len));
    return req;
}

static json_t *create_json(const conf_case_t *c)
{
    json_t *servers = json_array(), *failures = json_array();
    char addr[32];
    for (size_t i = 0; i < c->n_servers; i++) {
        vec_format(addr, sizeof addr, "127.0.0.1:%u", CONF_PORT_BASE + (unsigned)i);
        json_array_append_new(servers, json_pack("{s:s, s:o, s:s}", "name", c->server_names[i], "server_id",
                                                 dec(c->server_ids[i]), "address", addr));
    }
    for (size_t i = 0; i < c->n_failures; i++) {
        const conf_failure_t *f = &c->failures[i];
        json_array_append_new(failures, json_pack("{s:s, s:I, s:I}", "server", c->server_names[f->server], "from",
                                                  (json_int_t)f->from, "count", (json_int_t)f->count));
    }
    uint8_t rnd[RANDOM_BYTES];
    for (size_t i = 0; i < sizeof rnd; i++)
        rnd[i] = (uint8_t)(i * 151u + 7u); /* deterministic; distinct enough for unique_id and nonce */
    json_t *req = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "op", "ha_create", "case", c->id, "key",
                            c->key, "policy", conf_policy_json(&c->policy), "servers", servers, "t0_ms", dec(CONF_T0_MS),
                            "random_hex", vec_json_hex(rnd, sizeof rnd), "send_failures", failures, "request",
                            request_json(c));
    if (c->has_preset)
        json_object_set_new(req, "preset", json_string(preset_names[c->preset]));
    return req;
}

/* ---- answers ---------------------------------------------------------------- */

static bool problem(conf_host_t *h, const char *fmt, const char *field, const json_t *v)
{
    conf_remote_t *r = h->remote;
    char got[96];
    if (r->problem[0] == '\0')
        vec_format(r->problem, sizeof r->problem, "adapter message %lu: %s: %s, got %s", r->a->next_id - 1, field, fmt,
                   vj_describe(v, got, sizeof got));
    return false;
}

static int server_by_name(const conf_case_t *c, const json_t *name)
{
    for (size_t i = 0; i < c->n_servers; i++) {
        if (vj_string_is(name, c->server_names[i]))
            return (int)i;
    }
    return -1;
}

static bool read_sends(conf_host_t *h, const json_t *sends)
{
    if (!json_is_array(sends))
        return problem(h, "expected an array", "sends", sends);
    for (size_t i = 0; i < json_array_size(sends); i++) {
        const json_t *s = json_array_get(sends, i);
        char field[48];
        vec_format(field, sizeof field, "sends[%zu]", i);
        int server = server_by_name(h->c, json_object_get(s, "to"));
        const json_t *hex = json_object_get(s, "data_hex"), *ok = json_object_get(s, "ok");
        size_t len = json_string_length(hex);
        char why[64];
        if (server < 0)
            return problem(h, "expected the name of a server of the case", field, json_object_get(s, "to"));
        if (!json_is_string(hex) || !vj_hex_text_ok(json_string_value(hex), len, why, sizeof why) ||
            len / 2 > R_CLIENT_MAX_DATAGRAM)
            return problem(h, "data_hex: expected lowercase hex of at most 1200 bytes", field, hex);
        if (!json_is_boolean(ok))
            return problem(h, "ok: expected true or false", field, ok);
        if (h->n_cap == CONF_MAX_SENDS) {
            h->cap_overflow = true;
            return problem(h, "more sends than a case allows", field, s);
        }
        bool want_fail = conf_host_send_fails(h, server);
        if (want_fail == json_is_true(ok))
            return problem(h, want_fail ? "ok: the case's send_failures make this send fail"
                                        : "ok: the case's send_failures do not fail this send",
                           field, ok);
        conf_capture_t *c = &h->cap[h->n_cap++];
        memset(&c->s, 0, sizeof c->s);
        c->s.at = h->now - CONF_T0_MS;
        c->s.server = server;
        c->s.ok = json_is_true(ok);
        c->len = len / 2;
        for (size_t k = 0; k < c->len; k++)
            sscanf(json_string_value(hex) + 2 * k, "%2hhx", &c->data[k]);
        char leak[160];
        if (h->remote->leak[0] == '\0' && vec_datagram_leaks(h->c->key, c->data, c->len, leak, sizeof leak))
            vec_format(h->remote->leak, sizeof h->remote->leak, "key material on the wire: adapter message %lu: %s: %s",
                       h->remote->a->next_id - 1, field, leak);
    }
    return true;
}

static bool read_u32(conf_host_t *h, const json_t *obj, const char *key, const char *where, uint32_t max, uint32_t *out)
{
    const json_t *v = json_object_get(obj, key);
    char field[64];
    vec_format(field, sizeof field, "%s.%s", where, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return problem(h, "expected an unsigned integer", field, v);
    *out = (uint32_t)json_integer_value(v);
    return true;
}

static bool read_result(conf_host_t *h, const json_t *comp, const char *where)
{
    conf_behaviour_t *o = &h->obs;
    const json_t *res = json_object_get(comp, "resources"), *guards = json_object_get(comp, "guards");
    char field[64];
    o->n_resources = o->n_guards = 0;
    if (res == NULL && guards == NULL)
        return true;
    vec_format(field, sizeof field, "%s.resources", where);
    if (!json_is_array(res) || json_array_size(res) > CONF_MAX_BLOCKS)
        return problem(h, "expected an array of at most 8", field, res);
    vec_format(field, sizeof field, "%s.guards", where);
    if (!json_is_array(guards) || json_array_size(guards) > CONF_MAX_BLOCKS)
        return problem(h, "expected an array of at most 8", field, guards);
    for (size_t i = 0; i < json_array_size(res); i++) {
        uint32_t deficit = 0;
        vec_format(field, sizeof field, "%s.resources[%zu]", where, i);
        if (!read_u32(h, json_array_get(res, i), "tokens_deficit", field, UINT16_MAX, &deficit) ||
            !read_u32(h, json_array_get(res, i), "actual_rate", field, UINT32_MAX, &o->resources[i].actual_rate))
            return false;
        o->resources[i].tokens_deficit = (uint16_t)deficit;
        o->n_resources++;
    }
    for (size_t i = 0; i < json_array_size(guards); i++) {
        const json_t *g = json_array_get(guards, i);
        vec_format(field, sizeof field, "%s.guards[%zu]", where, i);
        if (!read_u32(h, g, "current_latency", field, UINT32_MAX, &o->guards[i].current_latency))
            return false;
        if (!json_is_boolean(json_object_get(g, "passed")))
            return problem(h, "passed: expected true or false", field, json_object_get(g, "passed"));
        o->guards[i].passed = json_is_true(json_object_get(g, "passed"));
        o->n_guards++;
    }
    return true;
}

/* One completion: the observation on_result makes for the built-in client. */
static bool read_completion(conf_host_t *h, const json_t *comp, size_t i, bool *selected)
{
    conf_behaviour_t *o = &h->obs;
    const json_t *status = json_object_get(comp, "status");
    char where[32];
    vec_format(where, sizeof where, "completions[%zu]", i);
    h->pending = false;
    o->completions++;
    o->has_decision = true;
    o->decision_at = h->now - CONF_T0_MS;
    o->selected = -1;
    if (vj_string_is(status, "ok")) {
        const json_t *success = json_object_get(comp, "success"), *kp = json_object_get(comp, "keep_port");
        o->selected = server_by_name(h->c, json_object_get(comp, "server"));
        if (!json_is_boolean(success) || !json_is_boolean(kp) || o->selected < 0)
            return problem(h, "expected success, keep_port (booleans) and server (a server name)", where, comp);
        o->outcome = json_is_true(success) ? CONF_OUT_ALLOWED : CONF_OUT_DENIED;
        o->keep_port = json_is_true(kp);
        h->status = RCLIENT_OK;
        *selected = true;
        return read_result(h, comp, where);
    }
    o->outcome = vj_string_is(status, "timeout") ? CONF_OUT_TIMEOUT
                 : vj_string_is(status, "send_failed") ? CONF_OUT_SEND_FAILED
                                                       : CONF_OUT_OTHER;
    h->status = o->outcome == CONF_OUT_TIMEOUT ? RCLIENT_ERR_TIMEOUT
                : o->outcome == CONF_OUT_SEND_FAILED ? RCLIENT_ERR_IO
                                                     : STATUS_UNKNOWN;
    if (!json_is_string(status))
        return problem(h, "expected \"ok\", \"timeout\", \"send_failed\" or another status string", where, status);
    return true;
}

static bool read_profile(conf_host_t *h, const json_t *p)
{
    conf_behaviour_t *o = &h->obs;
    if (p == NULL || json_is_null(p))
        return true;
    const json_t *phase = json_object_get(p, "phase");
    if (!read_u32(h, p, "round", "profile", UINT32_MAX, &o->profile_round))
        return false;
    if (!vj_string_is(phase, "round") && !vj_string_is(phase, "final"))
        return problem(h, "expected \"round\" or \"final\"", "profile.phase", phase);
    o->profile_none = false;
    o->profile_phase = vj_string_is(phase, "final") ? R_PHASE_FINAL_RECEIVE : R_PHASE_ROUND;
    return true;
}

static bool read_deadline(conf_host_t *h, const json_t *d)
{
    vj_err_t e;
    uint64_t at = 0;
    vj_path_t p = vj_path("deadline_ms");
    if (d == NULL || json_is_null(d)) {
        h->remote->deadline = UINT64_MAX;
        return true;
    }
    if (!vj_v_dec_u64(d, &p, &at, &e))
        return problem(h, "expected a decimal string (absolute ms) or null", "deadline_ms", d);
    h->remote->deadline = at;
    return true;
}

/* The report every HA answer carries (ADAPTER.md "Reports"). */
static bool read_report(conf_host_t *h, const json_t *ans)
{
    const json_t *comps = json_object_get(ans, "completions");
    uint32_t rebinds = 0;
    bool selected = false;
    if (!read_sends(h, json_object_get(ans, "sends")))
        return false;
    if (!json_is_array(comps))
        return problem(h, "expected an array", "completions", comps);
    for (size_t i = 0; i < json_array_size(comps); i++) {
        if (!read_completion(h, json_array_get(comps, i), i, &selected))
            return false;
    }
    if (json_object_get(ans, "rebinds") != NULL && !read_u32(h, ans, "rebinds", "(answer)", 1000, &rebinds))
        return false;
    h->obs.rebinds += rebinds;
    conf_host_end_call(h, selected);
    return read_profile(h, json_object_get(ans, "profile")) && read_deadline(h, json_object_get(ans, "deadline_ms"));
}

/* Send op at the current time; on success the answer (owned), its report read. */
static json_t *call(conf_host_t *h, conf_call_t kind, json_t *req)
{
    conf_remote_t *r = h->remote;
    json_t *ans = NULL;
    char err[VEC_MSG_MAX];
    json_object_set_new(req, "now_ms", dec(h->now));
    conf_host_begin_call(h, kind);
    bool ok = rl_adapter_call(r->a, req, &ans, err, sizeof err);
    json_decref(req);
    if (!ok) {
        if (r->problem[0] == '\0')
            vec_format(r->problem, sizeof r->problem, "%s", err);
        h->pending = false; /* nothing more can be asked */
        r->deadline = UINT64_MAX;
        return NULL;
    }
    if (!read_report(h, ans)) {
        h->pending = false;
        r->deadline = UINT64_MAX;
        json_decref(ans);
        return NULL;
    }
    return ans;
}

int conf_remote_submit(conf_host_t *h)
{
    json_t *ans = call(h, CONF_CALL_SUBMIT, json_pack("{s:s}", "op", "submit"));
    if (ans == NULL)
        return STATUS_UNKNOWN;
    const json_t *status = json_object_get(ans, "status");
    int rc = vj_string_is(status, "ok")              ? RCLIENT_OK
             : vj_string_is(status, "rejected")      ? RCLIENT_ERR_CONFIG
             : vj_string_is(status, "send_failed")   ? RCLIENT_ERR_IO
                                                     : STATUS_UNKNOWN;
    if (rc == STATUS_UNKNOWN)
        problem(h, "expected \"ok\", \"rejected\" or \"send_failed\"", "status", status);
    const json_t *stage = json_object_get(ans, "stage");
    h->remote->submit_rejected = rc == RCLIENT_ERR_CONFIG;
    if (json_is_string(stage))
        vec_format(h->remote->submit_stage, sizeof h->remote->submit_stage, "%s", json_string_value(stage));
    else if (stage != NULL && !json_is_null(stage))
        problem(h, "expected \"key\", \"policy\", \"request\" or null", "stage", stage);
    h->pending = rc == RCLIENT_OK && h->obs.completions == 0;
    json_decref(ans);
    return rc;
}

int conf_remote_timer(conf_host_t *h)
{
    json_decref(call(h, CONF_CALL_TIMER, json_pack("{s:s}", "op", "timer")));
    return RCLIENT_OK;
}

int conf_remote_datagram(conf_host_t *h, const uint8_t *data, size_t len)
{
    conf_remote_t *r = h->remote;
    r->last_outcome[0] = r->last_class[0] = '\0';
    json_t *ans = call(h, CONF_CALL_DATAGRAM, json_pack("{s:s, s:o}", "op", "datagram", "data_hex", vec_json_hex(data, len)));
    if (ans == NULL)
        return STATUS_UNKNOWN;
    const json_t *outcome = json_object_get(ans, "datagram"), *cls = json_object_get(ans, "error");
    if (!vj_string_is(outcome, "accepted") && !vj_string_is(outcome, "ignored") && !vj_string_is(outcome, "rejected"))
        problem(h, "expected \"accepted\", \"ignored\" or \"rejected\"", "datagram", outcome);
    else
        vec_format(r->last_outcome, sizeof r->last_outcome, "%s", json_string_value(outcome));
    if (json_is_string(cls))
        vec_format(r->last_class, sizeof r->last_class, "%s", json_string_value(cls));
    json_decref(ans);
    return RCLIENT_OK;
}

void conf_remote_cancel(conf_host_t *h)
{
    json_decref(call(h, CONF_CALL_NONE, json_pack("{s:s}", "op", "cancel")));
}

uint64_t conf_remote_deadline(const conf_host_t *h)
{
    return h->pending ? h->remote->deadline : UINT64_MAX;
}

static const char *class_name(conf_class_t cls)
{
    switch (cls) {
    case CONF_CLASS_MALFORMED: return "malformed";
    case CONF_CLASS_AUTH: return "auth";
    case CONF_CLASS_CORRELATION: return "correlation";
    default: return "";
    }
}

void conf_remote_datagram_check(const conf_host_t *h, const conf_event_t *ev, size_t i, bool matched, char *msg,
                                size_t cap)
{
    const conf_remote_t *r = h->remote;
    const conf_variant_info_t *info = conf_variant_info(ev->variant);
    /* As expected_code (conf_exec.c): a variant judged against the request's
     * blocks is just valid-looking when it matches no request in flight. */
    conf_class_t cls = info->vs_request && !matched ? CONF_CLASS_VALID : info->cls;
    const char *want = class_name(cls);
    bool rejected = strcmp(r->last_outcome, "rejected") == 0;
    bool has_class = r->last_class[0] != '\0' && rl_adapter_reports_classes(r->a);
    bool ok = true; /* no class reported: the behaviour (no state change) is judged by the other rows */
    if (r->last_outcome[0] == '\0')
        return; /* no usable answer: the adapter row names it */
    if (cls == CONF_CLASS_VALID)
        /* never an error for its own request; a foreign one may be called a correlation failure */
        ok = !rejected || (!matched && (!has_class || strcmp(r->last_class, "correlation") == 0));
    else if (rejected && has_class)
        /* api.md reports an AES tag failure as a protocol error: "malformed" is accepted for it too */
        ok = strcmp(r->last_class, want) == 0 ||
             ((ev->variant == CONF_VAR_BAD_TAG || ev->variant == CONF_VAR_BAD_CIPHERTEXT) &&
              strcmp(r->last_class, "malformed") == 0);
    if (!ok)
        vec_format(msg, cap, "events[%zu] (%s): the client answered %s%s%s, want %s%s", i,
                   ev->kind == CONF_EV_INVALID ? info->name : "response", r->last_outcome,
                   r->last_class[0] ? " " : "", r->last_class,
                   cls == CONF_CLASS_VALID ? "accepted or ignored" : "rejected ", want);
}

/* ---- one case --------------------------------------------------------------- */

/* The first round k the case reaches whose preference interval differs from
 * the api.md policy (P(0) = B(0), P(k) = 0 for k >= 1, P_final = 0; spec
 * README "Known disagreements"), named in why. The case reaches the rounds up
 * to the one its expected profile names, and the final interval when that
 * phase is "final" (all of them when it expects no profile); a case whose
 * submission is refused reaches none. False when the case never depends on a
 * difference, so a client without P(k) runs it. */
static bool needs_pk(const conf_case_t *c, char *why, size_t cap)
{
    r_policy_schedule_t s;
    if (c->expect.outcome == CONF_OUT_REJECTED)
        return false; /* refused at submit (ttl above the key's limit): no round is reached */
    if (r_client_policy_schedule(&c->policy, UINT32_MAX, &s, NULL) != RCLIENT_OK)
        return false; /* an invalid policy: the case is about refusing it, which any client can do */
    const conf_behaviour_t *x = &c->expect;
    bool bounded = x->has_profile && !x->profile_none && x->profile_phase == R_PHASE_ROUND;
    uint32_t last = bounded && x->profile_round < s.rounds ? x->profile_round : s.rounds - 1;
    uint32_t u = c->policy.unit_ms;
    for (uint32_t k = 0; k <= last; k++) {
        uint32_t api_md = k == 0 ? s.round_ms[0] : 0;
        if (s.preference_ms[k] != api_md) {
            vec_format(why, cap, "P(%u) = %u U, the api.md policy has %u U", k, s.preference_ms[k] / u, api_md / u);
            return true;
        }
    }
    if (!bounded && s.final_preference_ms != 0) {
        vec_format(why, cap, "P_final = %u U, the api.md policy has 0", s.final_preference_ms / u);
        return true;
    }
    return false;
}

static bool has_event(const conf_case_t *c, conf_event_kind_t kind)
{
    for (size_t i = 0; i < c->n_events; i++) {
        if (c->events[i].kind == kind)
            return true;
    }
    return false;
}

/* The client runs the api.md policy shape only: preference false, or
 * policy_shape "api_md" (ADAPTER.md "What a client declares"). */
static bool api_md_shape_only(const rl_adapter_t *a)
{
    const json_t *shape = json_object_get(json_object_get(json_object_get(a->hello, "capabilities"), "ha"),
                                          "policy_shape");
    return !rl_adapter_has_ha(a, "preference") || vj_string_is(shape, "api_md");
}

/* Every requirement of the whole case against what hello declares; the
 * first one missing is the skip reason. */
static bool needs_missing_feature(const conf_case_t *c, const rl_adapter_t *a, char *skip, size_t cap)
{
    static const char *const modes[] = {"", "none", "cookie", "aes"};
    char why[128];
    const char *mode = (unsigned)c->auth < sizeof modes / sizeof modes[0] ? modes[c->auth] : "";
    if (!rl_adapter_has_ha(a, "cases"))
        vec_format(skip, cap, "unsupported: HA cases not declared in hello (capabilities.ha.cases)");
    else if (mode[0] != '\0' && !rl_adapter_lists(a, "auth_modes", mode))
        vec_format(skip, cap, "unsupported: auth mode %s not declared (capabilities.auth_modes)", mode);
    else if (c->c_api && !rl_adapter_ha_or(a, "c_api", true))
        vec_format(skip, cap, "unsupported: the case follows api.md's C API where r-client.md leaves the choice "
                              "(flag c_api; capabilities.ha.c_api false)");
    else if (has_event(c, CONF_EV_CANCEL) && !rl_adapter_ha_or(a, "cancel", true))
        vec_format(skip, cap, "unsupported: the case cancels (capabilities.ha.cancel false)");
    else if (c->n_failures > 0 && !rl_adapter_has_ha(a, "send_failures"))
        vec_format(skip, cap, "unsupported: the case needs capabilities.ha.send_failures");
    else if (!c->policy.completion_delivery && !rl_adapter_has_ha(a, "completion_delivery"))
        vec_format(skip, cap, "unsupported: the case turns completion delivery off (capabilities.ha.completion_delivery)");
    else if (api_md_shape_only(a) && needs_pk(c, why, sizeof why))
        vec_format(skip, cap, "unsupported: the case needs P(k) (capabilities.ha.preference, policy_shape): %s", why);
    return skip[0] != '\0';
}

/* Every pair of sends of the case: one AES nonce never seals two
 * plaintexts (vec_nonce_reused); the first reuse goes into r->leak. */
static void check_nonces(const conf_host_t *h, conf_remote_t *r)
{
    for (size_t i = 0; i < h->n_cap && r->leak[0] == '\0'; i++) {
        for (size_t j = i + 1; j < h->n_cap; j++) {
            if (vec_nonce_reused(h->cap[i].data, h->cap[i].len, h->cap[j].data, h->cap[j].len)) {
                vec_format(r->leak, sizeof r->leak, "nonce reuse: sends %zu and %zu of the case seal different "
                                                    "datagrams under one AES nonce", i + 1, j + 1);
                break;
            }
        }
    }
}

/* A case about the policy (area "policy") the client refused at submit: the
 * refusal counts at the policy step only (ADAPTER.md "Steps"). Another stage
 * fails; none leaves the case inconclusive. */
static void judge_submit_stage(const conf_case_t *c, const conf_remote_t *r, conf_rows_t *out)
{
    if (!r->submit_rejected || strcmp(c->area, "policy") != 0)
        return;
    if (r->submit_stage[0] == '\0') {
        conf_row(out, "stage", false, "inconclusive: submit rejected without a stage; the case is about the policy (a "
                                      "refusal at the key looks the same)");
        out->rows[out->n_rows - 1].inconclusive = true;
    } else if (strcmp(r->submit_stage, "policy") != 0) {
        conf_row(out, "stage", false, "refused at the %s; the case is about the policy", r->submit_stage);
    }
}

/* capabilities.ha.profile false: the client reports no request profile, so
 * the profile row is not checked (SKIP), never judged. */
static void skip_undeclared_rows(const rl_adapter_t *a, conf_rows_t *out)
{
    if (rl_adapter_ha_or(a, "profile", true))
        return;
    for (size_t i = 0; i < out->n_rows; i++) {
        if (strcmp(out->rows[i].name, "profile") == 0) {
            out->rows[i].skipped = true;
            out->rows[i].pass = true;
            vec_format(out->rows[i].detail, sizeof out->rows[i].detail,
                       "not checked: the client reports no profile (capabilities.ha.profile false)");
        }
    }
}

void conf_remote_run_case(const conf_case_t *c, rl_adapter_t *a, conf_rows_t *out, char *skip, size_t cap)
{
    char err[VEC_MSG_MAX];
    out->n_rows = 0;
    skip[0] = '\0';
    if (needs_missing_feature(c, a, skip, cap))
        return;
    conf_host_t *h = calloc(1, sizeof *h);
    conf_remote_t remote;
    memset(&remote, 0, sizeof remote);
    remote.a = a;
    remote.deadline = UINT64_MAX;
    if (h == NULL) {
        conf_row(out, "case", false, "out of memory");
        return;
    }
    if (!conf_host_init_servers(h, c, err, sizeof err)) {
        conf_row(out, "case", false, "%s", err);
        conf_host_free(h);
        free(h);
        return;
    }
    json_t *ans = NULL;
    json_t *req = create_json(c);
    if (req == NULL || !rl_adapter_call(a, req, &ans, err, sizeof err)) {
        conf_row(out, "adapter", false, "%s", req == NULL ? "out of memory" : err);
    } else if (vj_string_is(json_object_get(ans, "status"), "unsupported")) {
        const char *why = json_string_value(json_object_get(ans, "reason"));
        vec_format(skip, cap, "unsupported: the client says: %s", why != NULL ? why : "");
    } else if (!vj_string_is(json_object_get(ans, "status"), "ok")) {
        char got[96];
        conf_row(out, "adapter", false, "adapter message %lu (ha_create): status: expected \"ok\" or \"unsupported\", got %s",
                 a->next_id - 1, vj_describe(json_object_get(ans, "status"), got, sizeof got));
    } else {
        h->remote = &remote;
        if (c->has_preset)
            conf_row(out, "preset", true, vj_string_is(json_object_get(ans, "used"), "preset")
                                              ? "the client's %s preset"
                                              : "no presets: the client runs the %s policy as given",
                     preset_names[c->preset]);
        conf_exec_host(h, c, out);
        conf_row(out, "adapter", remote.problem[0] == '\0', "%s", remote.problem);
        /* key material in any datagram the client sent, or a nonce sealing two (vec_leak.h): security */
        check_nonces(h, &remote);
        conf_row(out, "secrets", remote.leak[0] == '\0', "%s", remote.leak);
        judge_submit_stage(c, &remote, out);
        skip_undeclared_rows(a, out);
    }
    json_decref(req);
    json_decref(ans);
    h->remote = NULL;
    conf_host_free(h);
    free(h);
}
