/* SPDX-License-Identifier: MIT */
/* explore_world.c - one random world per seed, written as a trace document
 * (docs/traces.md), so a world found failing is already a trace file that
 * `rl-testbed sim` reproduces (docs/explore.md "Worlds").
 *
 * Swarm testing: each seed first chooses which fault kinds it may use, then
 * draws events of those kinds only, so rare combinations are not diluted. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "explore.h"
#include "sim_engine.h"
#include "sim_trace.h"

const char *const explore_fault_names[EXPLORE_FAULT_KINDS] = {
    "restart", "pause", "link", "partition", "dedup_degrade", "dedup_heal", "skew",
    "steering", "inject", "failures", "tenant_remove", "tenant_add", "dns_change"};
const char *const explore_policy_names[EXPLORE_POLICY_FAMILIES] = {
    "default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid", "random"};

static uint64_t below(sim_rng_t *r, uint64_t n) { return n == 0 ? 0 : sim_rng_below(r, n); }
static uint64_t range(sim_rng_t *r, uint64_t lo, uint64_t hi) { return lo + below(r, hi - lo + 1); }
static bool chance(sim_rng_t *r, double p) { return sim_rng_unit(r) < p; }

static json_t *schedule(const char *kind, uint64_t init, uint64_t max, uint64_t growth) {
    json_t *s = json_pack("{s:s, s:I, s:I}", "kind", kind, "initial_units", (json_int_t)init, "max_units",
                          (json_int_t)max);
    if (strcmp(kind, "linear") == 0) json_object_set_new(s, "linear_step_units", json_integer((json_int_t)growth));
    if (strcmp(kind, "exponential") == 0) json_object_set_new(s, "exponential_factor", json_integer((json_int_t)growth));
    return s;
}

/* Any valid policy (r-client.md 9.3.1): P(k) <= B(k) holds because P's
 * initial, max and growth are each at most B's in one schedule kind. */
static json_t *random_policy(sim_rng_t *r) {
    static const char *const kinds[] = {"fixed", "linear", "exponential"};
    const char *kind = kinds[below(r, 3)];
    uint64_t b0 = range(r, 1, 3), bmax = b0 + below(r, 4), bg = kind[0] == 'e' ? below(r, 3) : below(r, 2);
    uint64_t p0 = below(r, b0 + 1), pmax = p0 + below(r, bmax - p0 + 1), pg = below(r, bg + 1);
    if (kind[0] == 'f') {
        bmax = b0;
        pmax = p0;
    }
    uint64_t f = below(r, 3);
    /* One draw per full expression (arguments are evaluated in an unspecified
     * order: gcc and clang drew other worlds from one seed); this order is
     * the one gcc used, so the seeds in docs/explore.md keep their worlds. */
    int c = chance(r, 0.7);
    uint64_t pf = below(r, f + 1);
    uint64_t n = below(r, 4);
    uint64_t u = range(r, 3, 25);
    return json_pack("{s:I, s:I, s:o, s:o, s:I, s:I, s:b}", "unit_ms", (json_int_t)u, "replay_count", (json_int_t)n,
                     "replay_gap", schedule(kind, b0, bmax, bg), "preference", schedule(kind, p0, pmax, pg),
                     "final_receive_units", (json_int_t)f, "final_preference_units", (json_int_t)pf,
                     "completion_delivery", c);
}

static json_t *latency(sim_rng_t *r, uint64_t base_max) {
    static const char *const kinds[] = {"const", "uniform", "exp"};
    const char *kind = kinds[below(r, 3)];
    json_t *l = json_pack("{s:s, s:I}", "kind", kind, "base_us", (json_int_t)range(r, 50, base_max));
    if (kind[0] != 'c') json_object_set_new(l, "spread_us", json_integer((json_int_t)below(r, base_max)));
    return l;
}

static json_t *mix_entry(sim_rng_t *r, unsigned client) {
    json_t *e = json_object(), *res = json_array(), *guards = json_array();
    char name[32];
    uint64_t nres = range(r, 0, 2), ngu = nres == 0 ? 1 : below(r, 2);
    for (uint64_t i = 0; i < nres; i++) {
        snprintf(name, sizeof name, "b%u_%u", client, (unsigned)below(r, 3));
        uint64_t tokens = range(r, 1, 3), rate = range(r, 1, 60), win = range(r, 1, 10); /* in this order */
        json_array_append_new(res, json_pack("{s:s, s:I, s:I, s:I}", "bucket", name, "window_size_ms",
                                             (json_int_t)(100 * win), "rate_limit", (json_int_t)rate, "tokens",
                                             (json_int_t)tokens));
    }
    for (uint64_t i = 0; i < ngu; i++) {
        snprintf(name, sizeof name, "t%u", (unsigned)below(r, 2));
        json_array_append_new(guards, json_pack("{s:s, s:I}", "tracker", name, "threshold_ms",
                                                (json_int_t)range(r, 0, 8)));
    }
    json_object_set_new(e, "weight", json_integer((json_int_t)range(r, 1, 4)));
    json_object_set_new(e, "resources", res);
    json_object_set_new(e, "guards", guards);
    return e;
}

static const char *server_name(unsigned i, char *buf) {
    snprintf(buf, 8, "S%u", i % 1000u);
    return buf;
}

static json_t *fault(sim_rng_t *r, int kind, uint64_t at, unsigned ns, unsigned nc) {
    char s[8], c[16];
    server_name((unsigned)below(r, ns), s);
    snprintf(c, sizeof c, "c%u", (unsigned)below(r, nc));
    json_t *f = json_pack("{s:I, s:s}", "at_ms", (json_int_t)at, "kind", explore_fault_names[kind]);
    switch (kind) {
    case 0: /* restart */
        json_object_set_new(f, "target", json_string(s));
        uint64_t with = below(r, 2), down = range(r, 1, 400); /* one draw per statement: a seed's world is */
        json_object_set_new(f, "duration_ms", json_integer((json_int_t)(with * down))); /* the same on every compiler */
        break;
    case 1: /* pause */
        json_object_set_new(f, "target", json_string(s));
        json_object_set_new(f, "duration_ms", json_integer((json_int_t)range(r, 1, 200)));
        break;
    case 2: /* link */
        json_object_set_new(f, "to", json_string(s));
        json_object_set_new(f, "symmetric", json_boolean(chance(r, 0.5)));
        json_object_set_new(f, "latency", latency(r, 20000));
        json_object_set_new(f, "loss", json_pack("{s:s, s:f}", "kind", "bernoulli", "loss_p", sim_rng_unit(r) * 0.5));
        json_object_set_new(f, "duplicate_p", json_real(sim_rng_unit(r) * 0.2));
        break;
    case 3: /* partition */
        json_object_set_new(f, "target", json_string(chance(r, 0.7) ? s : c));
        json_object_set_new(f, "dir", json_string(chance(r, 0.5) ? "both" : chance(r, 0.5) ? "in" : "out"));
        json_object_set_new(f, "on", json_boolean(chance(r, 0.7)));
        break;
    case 4: /* dedup_degrade */
        json_object_set_new(f, "target", json_string(s));
        json_object_set_new(f, "loss_p", json_real(sim_rng_unit(r)));
        json_object_set_new(f, "capacity", json_integer((json_int_t)below(r, 40)));
        break;
    case 5: /* dedup_heal */
        json_object_set_new(f, "target", json_string(s));
        break;
    case 6: /* skew */
        json_object_set_new(f, "target", json_string(chance(r, 0.5) ? s : c));
        json_object_set_new(f, "skew_ms", json_integer((json_int_t)range(r, 0, 400) - 200));
        break;
    case 7: /* steering */
        json_object_set_new(f, "target", json_string(s));
        json_object_set_new(f, "mode", json_string(chance(r, 0.5) ? "keep" : "change"));
        break;
    case 8: { /* inject */
        static const char *const cls[] = {"invalid", "forged", "replayed", "wrong_identity"};
        json_object_set_new(f, "target", json_string(c));
        json_object_set_new(f, "from", json_string(s));
        json_object_set_new(f, "class", json_string(cls[below(r, 4)]));
        json_object_set_new(f, "count", json_integer((json_int_t)range(r, 1, 20)));
        break;
    }
    case 9: /* failures */
        json_object_set_new(f, "target", json_string(s));
        json_object_set_new(f, "mtbf_ms", json_integer((json_int_t)range(r, 20, 400)));
        json_object_set_new(f, "mttr_ms", json_integer((json_int_t)range(r, 1, 100)));
        break;
    case 10: /* tenant_remove */
    case 11: /* tenant_add */
        json_object_set_new(f, "tenant", json_string(c));
        if (chance(r, 0.6)) json_object_set_new(f, "target", json_string(s));
        break;
    default:
        break;
    }
    return f;
}

static void dns_epochs(sim_rng_t *r, json_t *doc, unsigned ns, uint64_t duration, uint64_t changes,
                       explore_world_info_t *info) {
    json_t *dns = json_object(), *epochs = json_array();
    uint64_t at = 0;
    char s[8];
    for (uint64_t e = 0; e <= changes; e++) {
        json_t *members = json_array();
        for (unsigned i = 0; i < ns; i++) {
            if (e == 0 || chance(r, 0.7)) json_array_append_new(members, json_string(server_name(i, s)));
        }
        if (json_array_size(members) == 0) json_array_append_new(members, json_string(server_name(0, s)));
        json_array_append_new(epochs, json_pack("{s:I, s:o}", "at_ms", (json_int_t)at, "members", members));
        at += range(r, 1, duration / (changes + 1) + 1);
        if (at > duration) break;
        if (e < changes) info->faults_used |= 1u << EXPLORE_FAULT_DNS;
    }
    json_object_set_new(dns, "epochs", epochs);
    json_object_set_new(doc, "dns", dns);
}

json_t *explore_world_draw(uint64_t seed, explore_world_info_t *info) {
    sim_rng_t rng, *r = &rng;
    sim_rng_seed(r, seed, SIM_STREAM_FAULT + 100, 0);
    memset(info, 0, sizeof *info);
    unsigned ns = (unsigned)range(r, 1, 8), nc = (unsigned)range(r, 1, 3);
    uint64_t duration = range(r, 100, 1000);
    info->servers = ns;
    json_t *doc = json_pack("{s:s, s:s, s:I, s:I}", "schema", SIM_TRACE_SCHEMA, "name", "explore", "seed",
                            (json_int_t)(seed & 0x7fffffffffffffffull), "duration_ms", (json_int_t)duration);
    char desc[96];
    snprintf(desc, sizeof desc, "rl-testbed sim --explore --seeds %llu..%llu", (unsigned long long)seed,
             (unsigned long long)seed);
    json_object_set_new(doc, "description", json_string(desc));
    json_t *servers = json_array();
    for (unsigned i = 0; i < ns; i++) {
        char s[8];
        json_t *sv = json_pack("{s:s}", "name", server_name(i, s));
        if (chance(r, 0.3)) json_object_set_new(sv, "dedup_capacity", json_integer((json_int_t)range(r, 2, 64)));
        if (chance(r, 0.3)) json_object_set_new(sv, "freshness_ms", json_integer((json_int_t)range(r, 20, 500)));
        if (chance(r, 0.3)) json_object_set_new(sv, "clock_skew_ms", json_integer((json_int_t)range(r, 0, 200) - 100));
        if (chance(r, 0.2)) json_object_set_new(sv, "clock_drift_ppm", json_integer((json_int_t)range(r, 0, 2000) - 1000));
        if (chance(r, 0.3)) json_object_set_new(sv, "processing_jitter_us", json_integer((json_int_t)below(r, 2000)));
        if (chance(r, 0.1)) json_object_set_new(sv, "queue_capacity", json_integer((json_int_t)range(r, 1, 8)));
        json_array_append_new(servers, sv);
    }
    json_object_set_new(doc, "servers", servers);
    static const char *const auths[] = {"none", "cookie", "aes"};
    bool use_dns = chance(r, 0.5);
    json_t *clients = json_array();
    for (unsigned i = 0; i < nc; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%u", i);
        uint64_t fam = below(r, EXPLORE_POLICY_FAMILIES);
        info->policies_used |= 1u << fam;
        uint64_t auth = below(r, 3);
        info->auth_used |= 1u << auth;
        json_t *policy = NULL;
        for (int tries = 0; tries < 16 && fam == EXPLORE_POLICY_FAMILIES - 1; tries++) {
            json_t *p = random_policy(r);
            json_t *probe = json_pack("{s:s, s:[{s:s}], s:[{s:s, s:O}]}", "schema", SIM_TRACE_SCHEMA, "servers",
                                      "name", "S0", "clients", "name", "c0", "policy", p);
            char *text = json_dumps(probe, JSON_COMPACT);
            sim_config_t cfg;
            int bad = sim_trace_parse(text, strlen(text), "probe", &cfg, NULL, 0);
            if (bad == 0) sim_config_free(&cfg);
            free(text);
            json_decref(probe);
            if (bad == 0) {
                policy = p;
                break;
            }
            json_decref(p);
        }
        if (policy == NULL) policy = json_string(explore_policy_names[fam == EXPLORE_POLICY_FAMILIES - 1 ? 0 : fam]);
        json_t *c = json_pack("{s:s, s:s, s:I, s:o, s:b}", "name", name, "auth", auths[auth], "key_id",
                              (json_int_t)(i + 1), "policy", policy, "use_dns", use_dns);
        json_t *mix = json_array();
        for (uint64_t m = range(r, 1, 3); m > 0; m--) json_array_append_new(mix, mix_entry(r, i));
        json_object_set_new(c, "mix", mix);
        json_object_set_new(c, "arrivals",
                            json_pack("{s:s, s:I}", "kind", "poisson", "rate_per_s", (json_int_t)range(r, 10, 300)));
        if (chance(r, 0.4)) json_object_set_new(c, "service", json_pack("{s:b}", "reports", 1));
        if (chance(r, 0.3)) json_object_set_new(c, "clock_skew_ms", json_integer((json_int_t)range(r, 0, 200) - 100));
        if (chance(r, 0.3)) json_object_set_new(c, "clock_drift_ppm", json_integer((json_int_t)range(r, 0, 2000) - 1000));
        if (chance(r, 0.3)) {
            uint64_t spread = below(r, 3000), base = below(r, 500); /* in this order */
            json_object_set_new(c, "timer_delay", json_pack("{s:s, s:I, s:I}", "kind", "uniform", "base_us",
                                                            (json_int_t)base, "spread_us", (json_int_t)spread));
            info->late_timers = true;
        }
        json_array_append_new(clients, c);
    }
    json_object_set_new(doc, "clients", clients);
    json_t *deflink = json_pack("{s:o}", "latency", latency(r, 6000));
    if (chance(r, 0.5)) {
        json_object_set_new(deflink, "loss", json_pack("{s:s, s:f}", "kind", "bernoulli", "loss_p",
                                                       sim_rng_unit(r) * 0.3));
    }
    if (chance(r, 0.3)) json_object_set_new(deflink, "duplicate_p", json_real(sim_rng_unit(r) * 0.2));
    if (chance(r, 0.3)) json_object_set_new(deflink, "reorder_p", json_real(sim_rng_unit(r) * 0.3));
    json_object_set_new(doc, "links", json_pack("{s:o}", "default", deflink));
    /* Swarm: the kinds this seed may use. */
    uint32_t enabled = chance(r, 0.25) ? 0 : (uint32_t)range(r, 1, (1u << 12) - 1); /* a quarter fault-free */
    uint64_t nf = enabled == 0 ? 0 : range(r, 1, 8);
    json_t *faults = json_array();
    uint64_t at = 0;
    int64_t restart_sec[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    for (uint64_t i = 0; i < nf; i++) {
        int kind;
        do kind = (int)below(r, 12);
        while (!(enabled & (1u << kind)));
        at += below(r, duration / nf + 1);
        json_t *f = fault(r, kind, at, ns, nc);
        if (kind == 0) { /* the loader refuses a restart that keeps the server_id (same second) */
            unsigned t = (unsigned)(json_string_value(json_object_get(f, "target"))[1] - '0');
            int64_t sec = (int64_t)(at + (uint64_t)json_integer_value(json_object_get(f, "duration_ms"))) / 1000;
            if (restart_sec[t] == sec) {
                json_decref(f);
                continue;
            }
            restart_sec[t] = sec;
        }
        json_array_append_new(faults, f);
        info->faults_used |= 1u << kind;
    }
    json_object_set_new(doc, "faults", faults);
    if (use_dns) dns_epochs(r, doc, ns, duration, (enabled >> 11) ? range(r, 0, 3) : 0, info);
    return doc;
}
