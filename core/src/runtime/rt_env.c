/* SPDX-License-Identifier: MIT */
/* rt_env.c - runtime options from the environment (api.md "Public runtime":
 * the unit must be a nonzero decimal integer, the replay count a decimal
 * integer from zero through R_CLIENT_HA_MAX_REPLAY_COUNT; invalid or
 * out-of-range values fail with RCLIENT_ERR_CONFIG). */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rt_int.h"

#define ENV_KEY "RATELIMITLY_AUTH_KEY"
#define ENV_TENANT "RATELIMITLY_TENANT"
#define ENV_UNIT "RATELIMITLY_REQUEST_UNIT_MS"
#define ENV_REPLAYS "RATELIMITLY_REQUEST_REPLAY_COUNT"
#define ENV_PROFILE "RATELIMITLY_REQUEST_PROFILE"

/* A decimal integer: one or more ASCII digits and nothing else (no sign,
 * space or suffix), at most UINT32_MAX. Returns 0 with *out set, or -1. */
_Static_assert(R_CLIENT_HA_MAX_REPLAY_COUNT == 16u, "the replay-count message names 16");

static int parse_u32(const char *s, uint32_t *out) {
    if (s == NULL || *s == '\0') {
        return -1;
    }
    uint64_t v = 0;
    for (const char *p = s; *p != '\0'; p++) {
        if (*p < '0' || *p > '9') {
            return -1;
        }
        v = v * 10u + (uint64_t)(*p - '0');
        if (v > UINT32_MAX) {
            return -1;
        }
    }
    *out = (uint32_t)v;
    return 0;
}

static int fail(const char **why, const char *msg) {
    if (why != NULL) {
        *why = msg;
    }
    return RCLIENT_ERR_CONFIG;
}

/* The key must parse, and the policy must fit its dedup_ttl_ms_max. */
static int check_key_and_policy(const r_runtime_options_t *o, const char **why) {
    r_auth_key_info_t info;
    if (r_client_parse_auth_key(o->auth_key, 0, &info) != RCLIENT_OK) {
        return fail(why, ENV_KEY ": not a valid API key (rl-none, rl-cookie or rl-aes, version 1)");
    }
    uint32_t cap = info.quotas.dedup_ttl_ms_max;
    OPENSSL_cleanse(&info, sizeof info);
    const char *pwhy = NULL;
    if (o->has_request_policy) {
        if (r_client_policy_schedule(&o->request_policy, cap, NULL, &pwhy) != RCLIENT_OK) {
            /* The default policy's shape with U and N from the variables:
             * N + 1 rounds of one unit and a final unit (r-client.md 9.3.1,
             * 9.3.5); the only failure left is H above the key's limit. */
            return fail(why, ENV_UNIT "/" ENV_REPLAYS ": the horizon H = U x (N + 2) ms (N + 1 rounds of one "
                                      "unit, then a final unit) exceeds the key's dedup_ttl_ms_max; lower "
                                      "the unit or the replay count");
        }
        return RCLIENT_OK;
    }
    /* No scheduler variable: the runtime will use the default policy, which
     * must fit the key too (else every submit would fail RCLIENT_ERR_CONFIG). */
    r_request_policy_t def;
    r_client_default_request_policy(&def);
    if (r_client_policy_schedule(&def, cap, NULL, &pwhy) != RCLIENT_OK) {
        return fail(why, ENV_KEY ": the key's dedup_ttl_ms_max is below the default policy's horizon "
                                 "(60 ms); set " ENV_UNIT " lower");
    }
    return RCLIENT_OK;
}

int r_runtime_options_from_lookup(r_runtime_options_t *out, r_runtime_lookup_fn lookup, void *ctx,
                                  const char **why) {
    if (why != NULL) {
        *why = NULL;
    }
    if (out == NULL || lookup == NULL) {
        return fail(why, "NULL argument");
    }
    r_runtime_options_t o;
    memset(&o, 0, sizeof o);
    o.auth_key = lookup(ctx, ENV_KEY);
    if (o.auth_key == NULL || o.auth_key[0] == '\0') {
        return fail(why, ENV_KEY ": not set (the API key is required)");
    }
    o.tenant_dns_name = lookup(ctx, ENV_TENANT);
    if (o.tenant_dns_name != NULL && o.tenant_dns_name[0] == '\0') {
        return fail(why, ENV_TENANT ": empty (unset it to use the key's default name)");
    }
    r_client_default_request_policy(&o.request_policy);
    const char *unit = lookup(ctx, ENV_UNIT);
    if (unit != NULL) {
        if (parse_u32(unit, &o.request_policy.unit_ms) != 0 || o.request_policy.unit_ms == 0) {
            return fail(why, ENV_UNIT ": not a nonzero decimal integer (1..4294967295)");
        }
        o.has_request_policy = true;
    }
    const char *replays = lookup(ctx, ENV_REPLAYS);
    if (replays != NULL) {
        if (parse_u32(replays, &o.request_policy.replay_count) != 0 ||
            o.request_policy.replay_count > R_CLIENT_HA_MAX_REPLAY_COUNT) {
            return fail(why, ENV_REPLAYS ": not a decimal integer from 0 through 16");
        }
        o.has_request_policy = true;
    }
    const char *profile = lookup(ctx, ENV_PROFILE);
    if (profile != NULL) {
        if (strcmp(profile, "1") != 0 && strcmp(profile, "0") != 0) {
            return fail(why, ENV_PROFILE ": not 0 or 1");
        }
        o.profile_requests = profile[0] == '1';
    }
    if (!o.has_request_policy) {
        memset(&o.request_policy, 0, sizeof o.request_policy);
    }
    int rc = check_key_and_policy(&o, why);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    *out = o;
    return RCLIENT_OK;
}

static const char *env_lookup(void *ctx, const char *name) {
    (void)ctx;
    return getenv(name);
}

int r_runtime_options_from_env(r_runtime_options_t *out) {
    return r_runtime_options_from_lookup(out, env_lookup, NULL, NULL);
}
