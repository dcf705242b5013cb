/* SPDX-License-Identifier: MIT */
/* vec_kind_policy.c - adapter for ha_schedule: validate a resource-request HA
 * policy and derive its schedule (r-client.md 9.3.1, 9.3.5; api.md
 * "Resource-Request HA Policy"). */
#include <string.h>

#include "vec_kinds.h"

/* Not an r_ha_schedule_kind_t value: a kind string the schema does not define
 * is handed to the policy check, which must reject it (class range). */
#define UNKNOWN_SCHEDULE_KIND 0x7F

static r_ha_schedule_kind_t schedule_kind(const json_t *v)
{
    if (vj_string_is(v, "fixed"))
        return R_HA_SCHEDULE_FIXED;
    if (vj_string_is(v, "linear"))
        return R_HA_SCHEDULE_LINEAR;
    if (vj_string_is(v, "exponential"))
        return R_HA_SCHEDULE_EXPONENTIAL;
    return (r_ha_schedule_kind_t)UNKNOWN_SCHEDULE_KIND;
}

static bool read_schedule(const json_t *policy, const vj_path_t *pp, const char *key, r_ha_schedule_t *out,
                          vj_err_t *e)
{
    const json_t *obj = NULL;
    const char *kind = NULL;
    size_t kind_len = 0;
    uint32_t step = 0, factor = 0;
    if (!vj_object(policy, pp, key, &obj, e))
        return false;
    vj_path_t p = vj_path_key(pp, key);
    if (!vj_string(obj, &p, "kind", &kind, &kind_len, e) || !vj_u32(obj, &p, "initial_units", &out->initial_units, e) ||
        !vj_u32(obj, &p, "max_units", &out->max_units, e) || !vj_u32(obj, &p, "linear_step_units", &step, e) ||
        !vj_u32(obj, &p, "exponential_factor", &factor, e))
        return false;
    out->kind = schedule_kind(json_object_get(obj, "kind"));
    /* The C policy keeps one growth parameter, chosen by the kind. */
    if (out->kind == R_HA_SCHEDULE_EXPONENTIAL)
        out->growth.exponential_factor = factor;
    else
        out->growth.linear_step_units = step;
    return true;
}

bool vec_read_policy(const json_t *obj, const vj_path_t *path, r_request_policy_t *pol, vj_err_t *e)
{
    const vj_path_t p = *path;
    return vj_u32(obj, &p, "unit_ms", &pol->unit_ms, e) && vj_u32(obj, &p, "replay_count", &pol->replay_count, e) &&
           read_schedule(obj, &p, "replay_gap", &pol->replay_gap, e) &&
           read_schedule(obj, &p, "preference", &pol->preference, e) &&
           vj_u32(obj, &p, "final_receive_units", &pol->final_receive_units, e) &&
           vj_u32(obj, &p, "final_preference_units", &pol->final_preference_units, e) &&
           vj_bool(obj, &p, "completion_delivery", &pol->completion_delivery, e);
}

static bool read_policy(const json_t *input, const vj_path_t *path, r_request_policy_t *pol, uint32_t *ttl_max,
                        vj_err_t *e)
{
    const json_t *obj = NULL;
    if (!vj_object(input, path, "policy", &obj, e) || !vj_u32(input, path, "dedup_ttl_ms_max", ttl_max, e))
        return false;
    vj_path_t p = vj_path_key(path, "policy");
    return vec_read_policy(obj, &p, pol, e);
}

static json_t *ms_array(const uint32_t *ms, uint32_t n)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr != NULL && i < n; i++) {
        if (json_array_append_new(arr, json_integer((json_int_t)ms[i])) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

void vec_kind_ha_schedule(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    r_request_policy_t pol;
    uint32_t ttl_max = 0;
    memset(&pol, 0, sizeof pol);
    if (!read_policy(input, path, &pol, &ttl_max, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return;
    }
    r_policy_schedule_t s;
    const char *why = NULL;
    memset(&s, 0, sizeof s);
    if (r_client_policy_schedule(&pol, ttl_max, &s, &why) != RCLIENT_OK) {
        vec_run_reject(run, "range", "%s", why != NULL ? why : "policy rejected");
        return;
    }
    uint32_t rounds = s.rounds <= R_CLIENT_HA_MAX_REPLAY_COUNT + 1u ? s.rounds : R_CLIENT_HA_MAX_REPLAY_COUNT + 1u;
    vec_run_accept(run, json_pack("{s:I, s:o, s:o}", "ttl_ms", (json_int_t)s.ttl_ms, "round_ms",
                                  ms_array(s.round_ms, rounds), "preference_ms", ms_array(s.preference_ms, rounds)));
}
