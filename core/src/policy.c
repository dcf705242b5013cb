/* SPDX-License-Identifier: MIT */
/* policy.c - the resource-request HA policy: r-client.md 9.3.5 defaults,
 * named presets (r-client-ha-design.md 6, spec README "Known disagreements")
 * and schedule derivation with validation (r-client.md 9.3.1, api.md
 * "Resource-Request HA Policy").
 *
 * Arithmetic: every schedule value is computed in 64 bits from 32-bit inputs
 * and capped at max_units (< 2^32) after each step, so no intermediate can
 * wrap; products and the horizon are then checked against 32 bits because
 * dedup_ttl_ms is a 4-byte wire field (wire_protocol.md "Rate Request"). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "r_client.h"

#define MAX_ROUNDS (R_CLIENT_HA_MAX_REPLAY_COUNT + 1u)

/* r-client.md 9.3.5 */
#define DEFAULT_UNIT_MS 20u
#define DEFAULT_REPLAY_COUNT 1u
#define DEFAULT_GAP_UNITS 1u
#define DEFAULT_PREFERENCE_UNITS 1u
#define DEFAULT_FINAL_RECEIVE_UNITS 1u
#define DEFAULT_FINAL_PREFERENCE_UNITS 0u

static r_ha_schedule_t fixed_schedule(uint32_t units) {
    r_ha_schedule_t s;
    memset(&s, 0, sizeof s); /* the unused growth member stays 0 */
    s.kind = R_HA_SCHEDULE_FIXED;
    s.initial_units = units;
    s.max_units = units;
    return s;
}

void r_client_default_request_policy(r_request_policy_t *policy) {
    if (policy == NULL) {
        return;
    }
    memset(policy, 0, sizeof *policy);
    policy->unit_ms = DEFAULT_UNIT_MS;
    policy->replay_count = DEFAULT_REPLAY_COUNT;
    policy->replay_gap = fixed_schedule(DEFAULT_GAP_UNITS);
    policy->preference = fixed_schedule(DEFAULT_PREFERENCE_UNITS);
    policy->final_receive_units = DEFAULT_FINAL_RECEIVE_UNITS;
    policy->final_preference_units = DEFAULT_FINAL_PREFERENCE_UNITS;
    policy->completion_delivery = true;
}

int r_client_request_policy_preset(r_request_policy_t *policy, r_policy_preset_t preset) {
    if (policy == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    switch (preset) {
    case R_POLICY_DEFAULT:
        break;
    case R_POLICY_API_MD:
        /* api.md: the oldest server is preferred for round 0 only; any valid
         * response in rounds k >= 1 and the final phase completes at once. */
        p.preference.kind = R_HA_SCHEDULE_EXPONENTIAL;
        p.preference.growth.exponential_factor = 0;
        break;
    case R_POLICY_STRICT_OLDEST:
        p.preference = p.replay_gap;
        p.final_preference_units = p.final_receive_units;
        break;
    case R_POLICY_OLDEST_PREFERRED:
        p.unit_ms = 10;
        p.replay_gap = fixed_schedule(2);
        p.preference = fixed_schedule(1);
        p.final_receive_units = 2;
        p.final_preference_units = 1;
        break;
    case R_POLICY_FASTEST_VALID:
        p.preference = fixed_schedule(0);
        p.final_preference_units = 0;
        break;
    default:
        return RCLIENT_ERR_CONFIG;
    }
    *policy = p;
    return RCLIENT_OK;
}

static bool kind_known(r_ha_schedule_kind_t kind) {
    return kind == R_HA_SCHEDULE_FIXED || kind == R_HA_SCHEDULE_LINEAR || kind == R_HA_SCHEDULE_EXPONENTIAL;
}

/* S(k) for round k <= R_CLIENT_HA_MAX_REPLAY_COUNT. The result is <= max_units.
 * LINEAR: initial + k * step <= (2^32 - 1) * 17, exact in 64 bits.
 * EXPONENTIAL: capping after each multiplication equals capping once at the
 * end, because multiplying by factor is monotone (and for factor 0 both give
 * 0); the running value stays < 2^32, so value * factor < 2^64. */
static uint64_t schedule_units(const r_ha_schedule_t *s, uint32_t k) {
    uint64_t max = s->max_units;
    uint64_t v = s->initial_units;
    if (s->kind == R_HA_SCHEDULE_LINEAR) {
        v += (uint64_t)k * s->growth.linear_step_units;
    } else if (s->kind == R_HA_SCHEDULE_EXPONENTIAL) {
        for (uint32_t i = 0; i < k && v != 0; i++) {
            v *= s->growth.exponential_factor;
            v = v < max ? v : max;
        }
    }
    return v < max ? v : max;
}

/* Rules on the fields themselves, before any schedule value is computed. */
static const char *check_fields(const r_request_policy_t *p) {
    if (p->unit_ms == 0) {
        return "policy: unit_ms must be at least 1";
    }
    if (p->replay_count > R_CLIENT_HA_MAX_REPLAY_COUNT) {
        return "policy: replay_count exceeds R_CLIENT_HA_MAX_REPLAY_COUNT (16)";
    }
    if (!kind_known(p->replay_gap.kind)) {
        return "policy: replay_gap.kind is not fixed, linear or exponential";
    }
    if (!kind_known(p->preference.kind)) {
        return "policy: preference.kind is not fixed, linear or exponential";
    }
    if (p->replay_gap.initial_units > p->replay_gap.max_units) {
        return "policy: replay_gap.initial_units exceeds replay_gap.max_units";
    }
    if (p->preference.initial_units > p->preference.max_units) {
        return "policy: preference.initial_units exceeds preference.max_units";
    }
    return NULL;
}

/* Rules on the per-round values B(k), P(k) (units) and the final interval
 * (r-client.md 9.3.1: B(k) >= 1, 0 <= P(k) <= B(k), 0 <= P_final <= F). */
static const char *check_units(const r_request_policy_t *p, const uint64_t *b, const uint64_t *pref,
                               uint32_t rounds) {
    for (uint32_t k = 0; k < rounds; k++) {
        if (b[k] == 0) {
            return "policy: replay_gap B(k) is 0; replay gaps must be positive";
        }
    }
    for (uint32_t k = 0; k < rounds; k++) {
        if (pref[k] > b[k]) {
            return "policy: preference P(k) exceeds replay_gap B(k)";
        }
    }
    if (p->final_preference_units > p->final_receive_units) {
        return "policy: final_preference_units exceeds final_receive_units";
    }
    return NULL;
}

/* Convert to ms and derive H = U * (sum B(k) + F) (r-client.md 9.3.1).
 * P(k) <= B(k) and P_final <= F are already checked, so their products
 * cannot overflow when B(k) * U and F * U do not. */
static const char *derive_ms(const r_request_policy_t *p, const uint64_t *b, const uint64_t *pref,
                             uint32_t rounds, uint32_t dedup_ttl_ms_max, r_policy_schedule_t *s) {
    uint64_t u = p->unit_ms;
    uint64_t h = 0; /* at most 18 terms below 2^32 each */
    for (uint32_t k = 0; k < rounds; k++) {
        if (b[k] * u > UINT32_MAX) {
            return "policy: replay_gap B(k) * unit_ms overflows 32 bits";
        }
        s->round_ms[k] = (uint32_t)(b[k] * u);
        s->preference_ms[k] = (uint32_t)(pref[k] * u);
        h += b[k] * u;
    }
    if ((uint64_t)p->final_receive_units * u > UINT32_MAX) {
        return "policy: final_receive_units * unit_ms overflows 32 bits";
    }
    s->final_receive_ms = (uint32_t)(p->final_receive_units * u);
    s->final_preference_ms = (uint32_t)(p->final_preference_units * u);
    h += s->final_receive_ms;
    if (h > UINT32_MAX) {
        return "policy: horizon H = U * (sum B(k) + F) overflows 32 bits";
    }
    if (h > dedup_ttl_ms_max) {
        return "policy: horizon H exceeds the key's dedup_ttl_ms_max";
    }
    s->ttl_ms = (uint32_t)h;
    s->rounds = rounds;
    return NULL;
}

static const char *validate(const r_request_policy_t *p, uint32_t dedup_ttl_ms_max, r_policy_schedule_t *s) {
    const char *why = check_fields(p);
    if (why != NULL) {
        return why;
    }
    uint32_t rounds = p->replay_count + 1u;
    uint64_t b[MAX_ROUNDS];
    uint64_t pref[MAX_ROUNDS];
    for (uint32_t k = 0; k < rounds; k++) {
        b[k] = schedule_units(&p->replay_gap, k);
        pref[k] = schedule_units(&p->preference, k);
    }
    why = check_units(p, b, pref, rounds);
    if (why != NULL) {
        return why;
    }
    return derive_ms(p, b, pref, rounds, dedup_ttl_ms_max, s);
}

int r_client_policy_schedule(const r_request_policy_t *policy, uint32_t dedup_ttl_ms_max,
                             r_policy_schedule_t *out, const char **why) {
    const char *reason = "policy: NULL policy";
    r_policy_schedule_t s;
    memset(&s, 0, sizeof s); /* rounds beyond N stay 0 */
    if (policy != NULL) {
        reason = validate(policy, dedup_ttl_ms_max, &s);
    }
    if (why != NULL) {
        *why = reason;
    }
    if (reason != NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (out != NULL) {
        *out = s; /* NULL out: validate only */
    }
    return RCLIENT_OK;
}
