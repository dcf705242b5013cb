/* SPDX-License-Identifier: MIT */
/* conf_policy_json.c - see conf_policy_json.h. */
#include "conf_policy_json.h"

json_t *conf_schedule_json(const r_ha_schedule_t *s)
{
    const char *kind = s->kind == R_HA_SCHEDULE_FIXED    ? "fixed"
                       : s->kind == R_HA_SCHEDULE_LINEAR ? "linear"
                       : s->kind == R_HA_SCHEDULE_EXPONENTIAL ? "exponential"
                                                               : "unknown";
    uint32_t step = s->kind == R_HA_SCHEDULE_LINEAR ? s->growth.linear_step_units : 0;
    uint32_t factor = s->kind == R_HA_SCHEDULE_EXPONENTIAL ? s->growth.exponential_factor : 0;
    return json_pack("{s:s, s:I, s:I, s:I, s:I}", "kind", kind, "initial_units", (json_int_t)s->initial_units,
                     "max_units", (json_int_t)s->max_units, "linear_step_units", (json_int_t)step,
                     "exponential_factor", (json_int_t)factor);
}

json_t *conf_policy_json(const r_request_policy_t *p)
{
    return json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:b}", "unit_ms", (json_int_t)p->unit_ms, "replay_count",
                     (json_int_t)p->replay_count, "replay_gap", conf_schedule_json(&p->replay_gap), "preference",
                     conf_schedule_json(&p->preference), "final_receive_units", (json_int_t)p->final_receive_units,
                     "final_preference_units", (json_int_t)p->final_preference_units, "completion_delivery",
                     p->completion_delivery);
}
