/* SPDX-License-Identifier: MIT */
/* sim_trace_client.c - the clients of a trace (docs/traces.md "Clients"):
 * credentials (recorded only: the world generates the keys), the HA policy
 * (a named preset plus overrides, checked with r_client_policy_schedule
 * against the key's dedup_ttl_ms_max), arrivals, the request mix and the
 * service-latency model. defaults.client is a template every client starts
 * from. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_trace.h"
#include "sim_trace_int.h"

#define CANONICAL_QUOTA_WORD 0xf8f2b150u /* wire_protocol.md "API-key quota word" example */

static const char *const client_keys[] = {"name", "auth", "key_id", "quota_word", "policy", "dns_refresh",
                                          "use_dns", "clock_skew_ms", "clock_drift_ppm", "timer_delay", "arrivals", "max_requests", "mix",
                                          "service", "endpoints", NULL};
static const char *const auth_names[] = {"none", "cookie", "aes"}; /* r_auth_type_t order, from 1 */

/* ---- policy ------------------------------------------------------------------- */

static const char *const policy_keys[] = {"preset", "unit_ms", "replay_count", "replay_gap", "preference",
                                          "final_receive_units", "final_preference_units", "completion_delivery",
                                          NULL};
static const char *const preset_names[] = {"default", "api_md", "strict_oldest", "oldest_preferred",
                                           "fastest_valid"}; /* r_policy_preset_t order */
static const char *const sched_keys[] = {"kind", "initial_units", "max_units", "linear_step_units",
                                         "exponential_factor", NULL};
static const char *const sched_kinds[] = {"fixed", "linear", "exponential"}; /* r_ha_schedule_kind_t order */
static const char *const sched_used[][5] = {
    {"kind", "initial_units", "max_units", NULL},
    {"kind", "initial_units", "max_units", "linear_step_units", NULL},
    {"kind", "initial_units", "max_units", "exponential_factor", NULL},
};

/* A schedule object over *s: a new kind clears the growth member; for kind
 * fixed, max_units follows initial_units unless given. */
static int parse_schedule(tj_ctx_t *c, const json_t *v, const tj_path_t *p, r_ha_schedule_t *s) {
    int kind = (int)s->kind;
    if (tj_object(c, v, p, sched_keys) != 0 || tj_enum(c, v, p, "kind", sched_kinds, 3, &kind) < 0 ||
        tj_object_kind(c, v, p, sched_keys, sched_used[kind], sched_kinds[kind]) != 0) {
        return -1;
    }
    if ((r_ha_schedule_kind_t)kind != s->kind) {
        memset(&s->growth, 0, sizeof s->growth);
        s->kind = (r_ha_schedule_kind_t)kind;
    }
    int ini = tj_u32(c, v, p, "initial_units", 0, UINT32_MAX, &s->initial_units);
    int max = tj_u32(c, v, p, "max_units", 0, UINT32_MAX, &s->max_units);
    if (ini < 0 || max < 0 || tj_u32(c, v, p, "linear_step_units", 0, UINT32_MAX, &s->growth.linear_step_units) < 0 ||
        tj_u32(c, v, p, "exponential_factor", 0, UINT32_MAX, &s->growth.exponential_factor) < 0) {
        return -1;
    }
    if (s->kind == R_HA_SCHEDULE_FIXED && ini == 1 && max == 0) {
        s->max_units = s->initial_units;
    }
    return 0;
}

int st_parse_policy(tj_ctx_t *c, const json_t *v, const tj_path_t *p, r_request_policy_t *pol) {
    int preset = -1;
    if (json_is_string(v)) { /* shorthand: a preset name */
        for (int i = 0; i < 5; i++) {
            if (strcmp(json_string_value(v), preset_names[i]) == 0) {
                return r_client_request_policy_preset(pol, (r_policy_preset_t)i) == RCLIENT_OK ? 0 : -1;
            }
        }
        return tj_fail(c, p, "expected one of default, api_md, strict_oldest, oldest_preferred, fastest_valid");
    }
    if (tj_object(c, v, p, policy_keys) != 0 || tj_enum(c, v, p, "preset", preset_names, 5, &preset) < 0) {
        return -1;
    }
    if (preset >= 0) {
        r_client_request_policy_preset(pol, (r_policy_preset_t)preset);
    }
    tj_path_t gq, pq;
    tj_key(&gq, p, "replay_gap");
    tj_key(&pq, p, "preference");
    const json_t *gap = json_object_get(v, "replay_gap"), *pref = json_object_get(v, "preference");
    if (tj_u32(c, v, p, "unit_ms", 0, UINT32_MAX, &pol->unit_ms) < 0 ||
        tj_u32(c, v, p, "replay_count", 0, UINT32_MAX, &pol->replay_count) < 0 ||
        (gap != NULL && parse_schedule(c, gap, &gq, &pol->replay_gap) != 0) ||
        (pref != NULL && parse_schedule(c, pref, &pq, &pol->preference) != 0) ||
        tj_u32(c, v, p, "final_receive_units", 0, UINT32_MAX, &pol->final_receive_units) < 0 ||
        tj_u32(c, v, p, "final_preference_units", 0, UINT32_MAX, &pol->final_preference_units) < 0 ||
        tj_bool(c, v, p, "completion_delivery", &pol->completion_delivery) < 0) {
        return -1;
    }
    return 0;
}

int sim_policy_check_key(const r_request_policy_t *pol, uint32_t quota_word, char *err, size_t err_cap) {
    r_api_key_quotas_t quotas;
    r_key_diag_t diag;
    uint32_t word = quota_word != 0 ? quota_word : CANONICAL_QUOTA_WORD;
    if (r_client_decode_quota_word(word, &quotas, &diag) != RCLIENT_OK) {
        if (err != NULL && err_cap > 0) snprintf(err, err_cap, "quota_word: %s", diag.message);
        return -1;
    }
    r_policy_schedule_t sched;
    const char *why = NULL;
    if (r_client_policy_schedule(pol, quotas.dedup_ttl_ms_max, &sched, &why) == RCLIENT_OK) {
        return 0;
    }
    const char *text = why != NULL ? why : "invalid";
    if (strncmp(text, "policy: ", 8) == 0) {
        text += 8;
    }
    if (err == NULL || err_cap == 0) {
        return -1;
    }
    if (r_client_policy_schedule(pol, UINT32_MAX, &sched, NULL) == RCLIENT_OK) { /* only the cap broke */
        snprintf(err, err_cap, "%s (H = %" PRIu32 " ms, dedup_ttl_ms_max = %" PRIu32 " ms)", text, sched.ttl_ms,
                 quotas.dedup_ttl_ms_max);
    } else {
        snprintf(err, err_cap, "%s", text);
    }
    return -1;
}

/* The policy must be valid for the client's key (r-client.md 9.3.1). */
static int check_policy(tj_ctx_t *c, const tj_path_t *cp, const sim_client_cfg_t *cl) {
    tj_path_t q, pq;
    tj_key(&q, cp, "quota_word");
    tj_key(&pq, cp, "policy");
    char why[200];
    if (sim_policy_check_key(&cl->policy, cl->quota_word, why, sizeof why) == 0) {
        return 0;
    }
    if (strncmp(why, "quota_word: ", 12) == 0) {
        return tj_fail(c, &q, "%s", why + 12);
    }
    return tj_fail(c, &pq, "%s", why);
}

/* ---- arrivals, mix, service ------------------------------------------------------ */

static const char *const arrival_keys[] = {"kind", "rate_per_s", "at_ms", NULL};
static const char *const arrival_kinds[] = {"poisson", "scripted"};
static const char *const arrival_used[][3] = {{"kind", "rate_per_s", NULL}, {"kind", "at_ms", NULL}};

static int parse_script(tj_ctx_t *c, const json_t *v, const tj_path_t *p, uint64_t duration_ms,
                        sim_client_cfg_t *cl) {
    json_t *arr = NULL;
    tj_path_t ap;
    tj_key(&ap, p, "at_ms");
    if (tj_require(c, v, p, "at_ms") != 0 || tj_array(c, v, p, "at_ms", ST_MAX_SCRIPT, &arr) < 0) {
        return -1;
    }
    size_t n = json_array_size(arr);
    cl->script_ms = calloc(n != 0 ? n : 1, sizeof *cl->script_ms);
    if (cl->script_ms == NULL) {
        return tj_fail(c, &ap, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        tj_path_t q;
        tj_idx(&q, &ap, i);
        json_int_t t = json_is_integer(e) ? json_integer_value(e) : -1;
        if (t < 0 || (uint64_t)t > duration_ms) {
            return tj_fail(c, &q, "expected an integer in [0, %" PRIu64 "] (duration_ms)", duration_ms);
        }
        if (i > 0 && (uint64_t)t < cl->script_ms[i - 1]) {
            return tj_fail(c, &q, "earlier than the time before it (times are listed in order)");
        }
        cl->script_ms[cl->n_script++] = (uint64_t)t;
    }
    return 0;
}

static int parse_arrivals(tj_ctx_t *c, const json_t *v, const tj_path_t *p, uint64_t duration_ms,
                          sim_client_cfg_t *cl) {
    int kind = 0;
    if (tj_object(c, v, p, arrival_keys) != 0 || tj_require(c, v, p, "kind") != 0 ||
        tj_enum(c, v, p, "kind", arrival_kinds, 2, &kind) < 0 ||
        tj_object_kind(c, v, p, arrival_keys, arrival_used[kind], arrival_kinds[kind]) != 0) {
        return -1;
    }
    free(cl->script_ms); /* replaces what the template gave */
    cl->script_ms = NULL;
    cl->n_script = 0;
    cl->arrival = (sim_arrival_kind_t)kind;
    if (cl->arrival == SIM_ARRIVAL_SCRIPTED) {
        return parse_script(c, v, p, duration_ms, cl);
    }
    return tj_require(c, v, p, "rate_per_s") != 0 || tj_num(c, v, p, "rate_per_s", 0.0, true, 1e7, &cl->rate_per_s) < 0
               ? -1
               : 0;
}

static const char *const res_keys[] = {"bucket", "window_size_ms", "rate_limit", "tokens", NULL};
static const char *const guard_keys[] = {"tracker", "threshold_ms", "ttl_ms", "max_samples", "buffer_size",
                                         "min_sample_threshold", NULL};
static const char *const mix_keys[] = {"weight", "label", "resources", "guards", NULL};

static int parse_resource(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_resource_cfg_t *r) {
    uint32_t tokens = 1;
    r->window_size_ms = 1000;
    if (tj_object(c, v, p, res_keys) != 0 || tj_require(c, v, p, "bucket") != 0 ||
        tj_str(c, v, p, "bucket", false, r->bucket, sizeof r->bucket) < 0 ||
        tj_u32(c, v, p, "window_size_ms", 1, UINT32_MAX, &r->window_size_ms) < 0 ||
        tj_require(c, v, p, "rate_limit") != 0 || tj_u32(c, v, p, "rate_limit", 0, UINT32_MAX, &r->rate_limit) < 0 ||
        tj_u32(c, v, p, "tokens", 0, UINT16_MAX, &tokens) < 0) {
        return -1;
    }
    r->tokens = (uint16_t)tokens;
    return 0;
}

static int parse_guard(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_guard_cfg_t *g) {
    g->ttl_ms = 1000;
    g->max_samples = 64;
    g->buffer_size = 16;
    g->min_sample_threshold = 1;
    if (tj_object(c, v, p, guard_keys) != 0 || tj_require(c, v, p, "tracker") != 0 ||
        tj_str(c, v, p, "tracker", false, g->tracker, sizeof g->tracker) < 0 ||
        tj_require(c, v, p, "threshold_ms") != 0 ||
        tj_u32(c, v, p, "threshold_ms", 0, UINT32_MAX, &g->threshold_ms) < 0 ||
        tj_u32(c, v, p, "ttl_ms", 0, UINT32_MAX, &g->ttl_ms) < 0 ||
        tj_u32(c, v, p, "max_samples", 0, UINT32_MAX, &g->max_samples) < 0 ||
        tj_u32(c, v, p, "buffer_size", 0, UINT32_MAX, &g->buffer_size) < 0 ||
        tj_u32(c, v, p, "min_sample_threshold", 0, UINT32_MAX, &g->min_sample_threshold) < 0) {
        return -1;
    }
    return 0;
}

static int parse_mix_entry(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_mix_cfg_t *m) {
    json_t *res = NULL, *guards = NULL;
    tj_path_t rp, gp;
    tj_key(&rp, p, "resources");
    tj_key(&gp, p, "guards");
    m->weight = 1;
    if (tj_object(c, v, p, mix_keys) != 0 || tj_u32(c, v, p, "weight", 1, UINT32_MAX, &m->weight) < 0 ||
        tj_str(c, v, p, "label", true, m->label, sizeof m->label) < 0 ||
        tj_array(c, v, p, "resources", SIM_MAX_MIX_RES, &res) < 0 ||
        tj_array(c, v, p, "guards", SIM_MAX_MIX_GUARDS, &guards) < 0) {
        return -1;
    }
    for (size_t i = 0; i < json_array_size(res); i++, m->n_resources++) {
        tj_path_t q;
        tj_idx(&q, &rp, i);
        if (parse_resource(c, json_array_get(res, i), &q, &m->resources[i]) != 0) {
            return -1;
        }
    }
    for (size_t i = 0; i < json_array_size(guards); i++, m->n_guards++) {
        tj_path_t q;
        tj_idx(&q, &gp, i);
        if (parse_guard(c, json_array_get(guards, i), &q, &m->guards[i]) != 0) {
            return -1;
        }
    }
    if (m->n_resources + m->n_guards == 0) {
        return tj_fail(c, p, "a request needs at least one resource or guard");
    }
    return 0;
}

static int parse_mix(tj_ctx_t *c, const json_t *obj, const tj_path_t *cp, sim_client_cfg_t *cl) {
    json_t *arr = NULL;
    tj_path_t p;
    tj_key(&p, cp, "mix");
    if (tj_array(c, obj, cp, "mix", ST_MAX_MIX, &arr) <= 0) {
        return c->failed ? -1 : 0;
    }
    size_t n = json_array_size(arr);
    if (n == 0) {
        return tj_fail(c, &p, "at least one entry is required");
    }
    free(cl->mix); /* replaces what the template gave */
    cl->n_mix = 0;
    cl->mix = calloc(n, sizeof *cl->mix);
    if (cl->mix == NULL) {
        return tj_fail(c, &p, "out of memory");
    }
    for (size_t i = 0; i < n; i++, cl->n_mix++) {
        tj_path_t q;
        tj_idx(&q, &p, i);
        if (parse_mix_entry(c, json_array_get(arr, i), &q, &cl->mix[i]) != 0) {
            return -1;
        }
    }
    return 0;
}

static int parse_service(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_service_cfg_t *s) {
    static const char *const keys[] = {"reports", "latency", NULL};
    tj_path_t lp;
    tj_key(&lp, p, "latency");
    const json_t *lat = json_object_get(v, "latency");
    s->enabled = true;
    if (tj_object(c, v, p, keys) != 0 || tj_bool(c, v, p, "reports", &s->enabled) < 0 ||
        (lat != NULL && st_parse_latency(c, lat, &lp, &s->model) != 0)) {
        return -1;
    }
    return 0;
}

/* ---- one client ------------------------------------------------------------------ */

static int parse_dns_refresh(tj_ctx_t *c, const json_t *v, const tj_path_t *p, r_dns_refresh_config_t *d) {
    static const char *const keys[] = {"refresh_interval_ms", "forced_refresh_min_interval_ms",
                                       "forced_refresh_jitter_ms", NULL};
    if (tj_object(c, v, p, keys) != 0 ||
        tj_u32(c, v, p, "refresh_interval_ms", 0, UINT32_MAX, &d->refresh_interval_ms) < 0 ||
        tj_u32(c, v, p, "forced_refresh_min_interval_ms", 0, UINT32_MAX, &d->forced_refresh_min_interval_ms) < 0 ||
        tj_u32(c, v, p, "forced_refresh_jitter_ms", 0, UINT32_MAX, &d->forced_refresh_jitter_ms) < 0) {
        return -1;
    }
    return 0;
}

/* obj[key] and its path. */
static const json_t *member(const json_t *obj, const tj_path_t *p, const char *key, tj_path_t *q) {
    tj_key(q, p, key);
    return json_object_get(obj, key);
}

/* Members holding an object value: parsed by their own readers. */
static int client_objects(tj_ctx_t *c, const json_t *o, const tj_path_t *p, uint64_t duration_ms,
                          sim_client_cfg_t *cl) {
    tj_path_t q;
    const json_t *v;
    if (((v = member(o, p, "policy", &q)) != NULL && st_parse_policy(c, v, &q, &cl->policy) != 0) ||
        ((v = member(o, p, "dns_refresh", &q)) != NULL && parse_dns_refresh(c, v, &q, &cl->dns_refresh) != 0) ||
        ((v = member(o, p, "arrivals", &q)) != NULL && parse_arrivals(c, v, &q, duration_ms, cl) != 0) ||
        ((v = member(o, p, "service", &q)) != NULL && parse_service(c, v, &q, &cl->service) != 0) ||
        ((v = member(o, p, "timer_delay", &q)) != NULL && st_parse_latency(c, v, &q, &cl->timer_delay) != 0)) {
        return -1;
    }
    cl->timer_late = cl->timer_late || json_object_get(o, "timer_delay") != NULL;
    return parse_mix(c, o, p, cl);
}

static int client_fields(tj_ctx_t *c, const json_t *o, const tj_path_t *p, uint64_t duration_ms, bool tmpl,
                         sim_client_cfg_t *cl) {
    int auth = (int)cl->auth - 1;
    uint64_t word = cl->quota_word;
    int64_t drift = cl->clock_drift_ppm;
    if (tj_object(c, o, p, tmpl ? client_keys + 1 : client_keys) != 0 ||
        tj_enum(c, o, p, "auth", auth_names, 3, &auth) < 0 ||
        tj_u64_hex(c, o, p, "key_id", UINT64_MAX, &cl->key_id) < 0 ||
        tj_u64_hex(c, o, p, "quota_word", UINT32_MAX, &word) < 0 || tj_bool(c, o, p, "use_dns", &cl->use_dns) < 0 ||
        tj_i64(c, o, p, "clock_skew_ms", -ST_MAX_SKEW_MS, ST_MAX_SKEW_MS, &cl->clock_skew_ms) < 0 ||
        tj_i64(c, o, p, "clock_drift_ppm", -ST_MAX_DRIFT_PPM, ST_MAX_DRIFT_PPM, &drift) < 0 ||
        tj_u64(c, o, p, "max_requests", 0, UINT64_MAX, &cl->max_requests) < 0) {
        return -1;
    }
    if (tmpl && json_object_get(o, "endpoints") != NULL) {
        tj_path_t q;
        tj_key(&q, p, "endpoints");
        return tj_fail(c, &q, "endpoints are per client, not in defaults.client");
    }
    cl->clock_drift_ppm = (int32_t)drift;
    cl->auth = (r_auth_type_t)(auth + 1);
    cl->quota_word = (uint32_t)word;
    return client_objects(c, o, p, duration_ms, cl);
}

/* endpoints: server names, each once; the client's explicit endpoints. */
static int parse_endpoints(tj_ctx_t *c, const json_t *o, const tj_path_t *p, const sim_config_t *cfg,
                           sim_client_cfg_t *cl) {
    json_t *arr = NULL;
    if (tj_array(c, o, p, "endpoints", 64, &arr) <= 0) {
        return arr == NULL && json_object_get(o, "endpoints") == NULL ? 0 : -1;
    }
    tj_path_t q;
    tj_key(&q, p, "endpoints");
    size_t n = json_array_size(arr);
    if (n == 0) {
        return tj_fail(c, &q, "expected at least one server name");
    }
    if ((cl->endpoints = calloc(n, sizeof *cl->endpoints)) == NULL) {
        return tj_fail(c, &q, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t e;
        tj_idx(&e, &q, i);
        const char *name = json_string_value(json_array_get(arr, i));
        size_t s = 0;
        while (name != NULL && s < cfg->n_servers && strcmp(cfg->servers[s].name, name) != 0) s++;
        if (name == NULL) {
            return tj_fail(c, &e, "expected a server name");
        }
        if (s == cfg->n_servers) {
            return tj_fail(c, &e, "unknown server \"%s\" (expected a server name)", name);
        }
        for (size_t k = 0; k < i; k++) {
            if (cl->endpoints[k] == s) return tj_fail(c, &e, "server %s named twice", name);
        }
        cl->endpoints[i] = (uint32_t)s;
        cl->n_endpoints = i + 1;
    }
    cl->use_dns = false;
    return 0;
}

/* Clients sharing a key_id are one tenant: one credential type and quota. */
static int check_key_shared(tj_ctx_t *c, const sim_config_t *cfg, size_t index, const tj_path_t *p) {
    const sim_client_cfg_t *cl = &cfg->clients[index];
    uint32_t word = cl->quota_word != 0 ? cl->quota_word : CANONICAL_QUOTA_WORD;
    for (size_t j = 0; j < index; j++) {
        const sim_client_cfg_t *o = &cfg->clients[j];
        uint32_t other = o->quota_word != 0 ? o->quota_word : CANONICAL_QUOTA_WORD;
        tj_path_t q;
        if (o->key_id == cl->key_id && o->auth != cl->auth) {
            tj_key(&q, p, "auth");
            return tj_fail(c, &q, "key_id %" PRIu64 " is also client %s's, with auth %s", cl->key_id, o->name,
                           auth_names[o->auth - 1]);
        }
        if (o->key_id == cl->key_id && other != word) {
            tj_key(&q, p, "quota_word");
            return tj_fail(c, &q, "key_id %" PRIu64 " is also client %s's, with quota_word 0x%08" PRIx32,
                           cl->key_id, o->name, other);
        }
    }
    return 0;
}

/* A deep copy of the template's owned arrays. */
static int copy_client(const sim_client_cfg_t *t, sim_client_cfg_t *out) {
    *out = *t;
    out->endpoints = NULL; /* per client only */
    out->n_endpoints = 0;
    out->script_ms = NULL;
    out->mix = NULL;
    if (t->n_script > 0) {
        out->script_ms = malloc(t->n_script * sizeof *t->script_ms);
    }
    out->mix = malloc(t->n_mix * sizeof *t->mix);
    if ((t->n_script > 0 && out->script_ms == NULL) || out->mix == NULL) {
        free(out->script_ms);
        free(out->mix);
        memset(out, 0, sizeof *out);
        return -1;
    }
    if (t->n_script > 0) {
        memcpy(out->script_ms, t->script_ms, t->n_script * sizeof *t->script_ms);
    }
    memcpy(out->mix, t->mix, t->n_mix * sizeof *t->mix);
    return 0;
}

/* The built-in client: docs/traces.md "Clients" defaults. */
static int builtin_client(sim_client_cfg_t *cl) {
    memset(cl, 0, sizeof *cl);
    cl->auth = R_AUTH_AES;
    cl->key_id = 1;
    r_client_default_request_policy(&cl->policy);
    cl->use_dns = true;
    cl->arrival = SIM_ARRIVAL_POISSON;
    cl->rate_per_s = 100.0;
    cl->service.model.kind = SIM_LAT_CONST;
    cl->service.model.base_us = 1000;
    cl->mix = calloc(1, sizeof *cl->mix);
    if (cl->mix == NULL) {
        return -1;
    }
    cl->n_mix = 1;
    cl->mix[0].weight = 1;
    cl->mix[0].n_resources = 1;
    strcpy(cl->mix[0].resources[0].bucket, "default");
    cl->mix[0].resources[0].window_size_ms = 1000;
    cl->mix[0].resources[0].rate_limit = 1000;
    cl->mix[0].resources[0].tokens = 1;
    return 0;
}

static void free_client(sim_client_cfg_t *cl) {
    free(cl->script_ms);
    free(cl->mix);
    memset(cl, 0, sizeof *cl);
}

static int parse_client_list(tj_ctx_t *c, const json_t *arr, const tj_path_t *p, const sim_client_cfg_t *tmpl,
                             sim_config_t *cfg) {
    for (size_t i = 0; i < json_array_size(arr); i++) {
        tj_path_t q;
        char name[SIM_NAME_MAX];
        const json_t *o = json_array_get(arr, i);
        tj_idx(&q, p, i);
        if (tj_object(c, o, &q, client_keys) != 0 || st_read_name(c, cfg, o, &q, name) != 0) {
            return -1;
        }
        sim_client_cfg_t *cl = &cfg->clients[i];
        if (copy_client(tmpl, cl) != 0) {
            return tj_fail(c, &q, "out of memory");
        }
        memcpy(cl->name, name, SIM_NAME_MAX);
        cfg->n_clients++; /* owned by cfg from here: freed with it on error */
        if (client_fields(c, o, &q, cfg->duration_ms, false, cl) != 0 || parse_endpoints(c, o, &q, cfg, cl) != 0 ||
            check_policy(c, &q, cl) != 0 ||
            check_key_shared(c, cfg, i, &q) != 0) {
            return -1;
        }
    }
    return 0;
}

int st_parse_clients(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    tj_path_t p, dp;
    json_t *arr = NULL;
    sim_client_cfg_t tmpl;
    tj_key(&p, NULL, "clients");
    tj_key(&dp, NULL, "defaults.client");
    if (builtin_client(&tmpl) != 0) {
        return tj_fail(c, &p, "out of memory");
    }
    const json_t *d = json_object_get(json_object_get(root, "defaults"), "client");
    int r = -1;
    /* A template policy is checked where it is written, against the template's key. */
    if ((d == NULL || (client_fields(c, d, &dp, cfg->duration_ms, true, &tmpl) == 0 &&
                       (json_object_get(d, "policy") == NULL || check_policy(c, &dp, &tmpl) == 0))) &&
        tj_require(c, root, NULL, "clients") == 0 && tj_array(c, root, NULL, "clients", ST_MAX_CLIENTS, &arr) >= 0) {
        size_t n = json_array_size(arr);
        cfg->clients = n > 0 ? calloc(n, sizeof *cfg->clients) : NULL;
        if (n == 0) {
            tj_fail(c, &p, "at least one client is required");
        } else if (cfg->clients == NULL) {
            tj_fail(c, &p, "out of memory");
        } else {
            r = parse_client_list(c, arr, &p, &tmpl, cfg);
        }
    }
    free_client(&tmpl);
    return r;
}
