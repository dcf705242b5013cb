/* SPDX-License-Identifier: MIT */
/* conf_expect.c - parse a case's expectations (conformance/README.md "Expectations"). */
#include <string.h>

#include "conf_case.h"

static const char *const outcome_names[] = {"allowed",  "denied",   "timeout", "send_failed",
                                            "cancelled", "rejected", "submit_send_failed", NULL};

const char *conf_outcome_name(conf_outcome_t o)
{
    if (o == CONF_OUT_PENDING)
        return "pending";
    if (o == CONF_OUT_OTHER)
        return "other";
    return outcome_names[o];
}

static bool parse_outcome(const json_t *x, const vj_path_t *p, conf_behaviour_t *b, vj_err_t *e)
{
    const char *s = NULL;
    size_t len = 0;
    char got[96];
    if (!vj_string(x, p, "outcome", &s, &len, e))
        return false;
    for (int i = 0; outcome_names[i] != NULL; i++) {
        if (vj_string_is(json_object_get(x, "outcome"), outcome_names[i])) {
            b->outcome = (conf_outcome_t)i;
            return true;
        }
    }
    vj_path_t q = vj_path_key(p, "outcome");
    return vj_fail(e, &q, "expected allowed, denied, timeout, send_failed, cancelled, rejected or "
                          "submit_send_failed, got %s", vj_quote(s, len, got, sizeof got));
}

/* selected: a server name or null; decision_at: an integer or null. */
static bool parse_decision(const json_t *x, const vj_path_t *p, const conf_case_t *c, conf_behaviour_t *b,
                           vj_err_t *e)
{
    b->selected = -1;
    if (!json_is_null(json_object_get(x, "selected")) && !conf_server_ref(x, p, "selected", c, &b->selected, e))
        return false;
    const json_t *d = json_object_get(x, "decision_at");
    if (json_is_null(d))
        return true;
    vj_path_t q = vj_path_key(p, "decision_at");
    b->has_decision = true;
    return vj_v_uint(d, &q, 0, UINT32_MAX, &b->decision_at, e);
}

static bool parse_send(const json_t *v, const vj_path_t *p, const conf_case_t *c, conf_send_t *s, vj_err_t *e)
{
    static const char *const keys[] = {"at", "to", "kind", "round", "ok", NULL};
    static const char *const kinds[] = {"initial", "replay", "completion"};
    const char *k = NULL;
    size_t len = 0;
    char got[96];
    uint32_t at = 0;
    if (!vj_v_object(v, p, e) || !conf_keys_known(v, p, keys, e) || !vj_u32(v, p, "at", &at, e) ||
        !conf_server_ref(v, p, "to", c, &s->server, e) || !vj_string(v, p, "kind", &k, &len, e))
        return false;
    s->at = at;
    s->ok = true;
    int kind = -1;
    for (int i = 0; i < 3 && kind < 0; i++)
        kind = vj_string_is(json_object_get(v, "kind"), kinds[i]) ? i : -1;
    vj_path_t q = vj_path_key(p, "kind");
    if (kind < 0)
        return vj_fail(e, &q, "expected \"initial\", \"replay\" or \"completion\", got %s",
                       vj_quote(k, len, got, sizeof got));
    s->kind = (conf_send_kind_t)kind;
    q = vj_path_key(p, "round");
    if (s->kind == CONF_SEND_REPLAY) {
        uint64_t round = 0;
        if (!vj_v_uint(json_object_get(v, "round"), &q, 1, R_CLIENT_HA_MAX_REPLAY_COUNT, &round, e))
            return false;
        s->round = (uint32_t)round;
    } else if (json_object_get(v, "round") != NULL) {
        return vj_fail(e, &q, "only a replay has a round");
    }
    return conf_opt_bool(v, p, "ok", &s->ok, e);
}

static bool parse_sends(const json_t *x, const vj_path_t *p, const conf_case_t *c, conf_behaviour_t *b, vj_err_t *e)
{
    const json_t *arr = NULL;
    if (!vj_array(x, p, "sends", &arr, &b->n_sends, e))
        return false;
    vj_path_t q = vj_path_key(p, "sends");
    if (b->n_sends > CONF_MAX_SENDS)
        return vj_fail(e, &q, "expected at most %u sends, got %zu", CONF_MAX_SENDS, b->n_sends);
    for (size_t i = 0; i < b->n_sends; i++) {
        vj_path_t r = vj_path_index(&q, i);
        if (!parse_send(json_array_get(arr, i), &r, c, &b->sends[i], e))
            return false;
    }
    return true;
}

static bool parse_profile(const json_t *x, const vj_path_t *p, conf_behaviour_t *b, vj_err_t *e)
{
    static const char *const keys[] = {"round", "phase", NULL};
    const json_t *v = json_object_get(x, "profile");
    vj_path_t q = vj_path_key(p, "profile");
    char got[96];
    if (v == NULL)
        return true;
    b->has_profile = true;
    if (json_is_null(v)) {
        b->profile_none = true;
        return true;
    }
    if (!vj_v_object(v, &q, e) || !conf_keys_known(v, &q, keys, e) || !vj_u32(v, &q, "round", &b->profile_round, e))
        return false;
    const json_t *phase = json_object_get(v, "phase");
    if (vj_string_is(phase, "round") || vj_string_is(phase, "final")) {
        b->profile_phase = vj_string_is(phase, "final") ? R_PHASE_FINAL_RECEIVE : R_PHASE_ROUND;
        return true;
    }
    vj_path_t r = vj_path_key(&q, "phase");
    return vj_fail(e, &r, "expected \"round\" or \"final\", got %s", vj_describe(phase, got, sizeof got));
}

static bool parse_result(const json_t *x, const vj_path_t *p, conf_behaviour_t *b, vj_err_t *e)
{
    static const char *const keys[] = {"resources", "guards", NULL};
    static const char *const rkeys[] = {"tokens_deficit", "actual_rate", NULL};
    static const char *const gkeys[] = {"current_latency", "passed", NULL};
    const json_t *v = json_object_get(x, "result"), *res = NULL, *gua = NULL;
    vj_path_t q = vj_path_key(p, "result");
    if (v == NULL)
        return true;
    b->has_result = true;
    if (!vj_v_object(v, &q, e) || !conf_keys_known(v, &q, keys, e) ||
        !vj_array(v, &q, "resources", &res, &b->n_resources, e) || !vj_array(v, &q, "guards", &gua, &b->n_guards, e))
        return false;
    if (b->n_resources > CONF_MAX_BLOCKS || b->n_guards > CONF_MAX_BLOCKS)
        return vj_fail(e, &q, "expected at most %u resources and %u guards", CONF_MAX_BLOCKS, CONF_MAX_BLOCKS);
    vj_path_t rp = vj_path_key(&q, "resources"), gp = vj_path_key(&q, "guards");
    for (size_t i = 0; i < b->n_resources; i++) {
        vj_path_t r = vj_path_index(&rp, i);
        const json_t *o = json_array_get(res, i);
        if (!vj_v_object(o, &r, e) || !conf_keys_known(o, &r, rkeys, e) ||
            !vj_u16(o, &r, "tokens_deficit", &b->resources[i].tokens_deficit, e) ||
            !vj_u32(o, &r, "actual_rate", &b->resources[i].actual_rate, e))
            return false;
    }
    for (size_t i = 0; i < b->n_guards; i++) {
        vj_path_t r = vj_path_index(&gp, i);
        const json_t *o = json_array_get(gua, i);
        if (!vj_v_object(o, &r, e) || !conf_keys_known(o, &r, gkeys, e) ||
            !vj_u32(o, &r, "current_latency", &b->guards[i].current_latency, e) ||
            !vj_bool(o, &r, "passed", &b->guards[i].passed, e))
            return false;
    }
    return true;
}

bool conf_expect_parse(const json_t *root, conf_case_t *c, vj_err_t *e)
{
    static const char *const keys[] = {"outcome", "selected",  "decision_at", "completions", "sends", "ttl_ms",
                                       "profile", "keep_port", "result",      "rebinds",     NULL};
    const vj_path_t none = {""};
    const json_t *x = NULL;
    conf_behaviour_t *b = &c->expect;
    if (!vj_object(root, &none, "expect", &x, e))
        return false;
    vj_path_t p = vj_path("expect");
    if (!conf_keys_known(x, &p, keys, e) || !parse_outcome(x, &p, b, e) || !parse_decision(x, &p, c, b, e) ||
        !vj_u32(x, &p, "completions", &b->completions, e) || !parse_sends(x, &p, c, b, e) ||
        !parse_profile(x, &p, b, e) || !parse_result(x, &p, b, e))
        return false;
    b->has_ttl = json_object_get(x, "ttl_ms") != NULL;
    if (b->has_ttl && !vj_u32(x, &p, "ttl_ms", &b->ttl_ms, e))
        return false;
    b->has_keep_port = json_object_get(x, "keep_port") != NULL;
    if (b->has_keep_port && !vj_bool(x, &p, "keep_port", &b->keep_port, e))
        return false;
    b->has_rebinds = json_object_get(x, "rebinds") != NULL;
    return !b->has_rebinds || vj_u32(x, &p, "rebinds", &b->rebinds, e);
}
