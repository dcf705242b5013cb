/* SPDX-License-Identifier: MIT */
/* conf_policy_json.h - an HA request policy as the JSON object the adapter
 * protocol (conformance/ADAPTER.md "HA cases") and the interop driver
 * protocol (docs/interop.md "Driver protocol") hand to a client: the field
 * names of conformance/README.md "Policy". */
#ifndef CONF_POLICY_JSON_H
#define CONF_POLICY_JSON_H

#include <jansson.h>

#include "r_client.h"

/* A new JSON object for schedule s: {"kind": "fixed" | "linear" |
 * "exponential" ("unknown" for any other kind), "initial_units", "max_units",
 * "linear_step_units" (0 unless linear), "exponential_factor" (0 unless
 * exponential)}. r-client.md 9.3.1. The caller owns the reference; NULL only
 * when jansson cannot allocate. */
json_t *conf_schedule_json(const r_ha_schedule_t *s);

/* A new JSON object for policy p: {"unit_ms", "replay_count", "replay_gap",
 * "preference" (schedules as above), "final_receive_units",
 * "final_preference_units", "completion_delivery" (boolean)}. r-client.md
 * 9.3.1. The caller owns the reference; NULL only when jansson cannot
 * allocate. */
json_t *conf_policy_json(const r_request_policy_t *p);

#endif
