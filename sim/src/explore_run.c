/* SPDX-License-Identifier: MIT */
/* explore_run.c - explore mode's driver (docs/explore.md): run worlds seed by
 * seed under the property observer, count the coverage of the worlds drawn,
 * shrink a failing world to a small trace file. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explore.h"
#include "sim_trace.h"

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int explore_run_doc(json_t *doc, uint64_t seed, char *why, size_t cap, explore_property_t *prop, uint64_t *checks) {
    char *text = json_dumps(doc, JSON_COMPACT);
    if (text == NULL) {
        snprintf(why, cap, "cannot serialise the world");
        return -1;
    }
    sim_config_t cfg;
    char err[300];
    int rc = sim_trace_parse(text, strlen(text), "world", &cfg, err, sizeof err);
    free(text);
    if (rc != 0) {
        snprintf(why, cap, "%s", err);
        return -1;
    }
    explore_obs_t *o = explore_obs_new(&cfg);
    sim_run_opts_t opts = {.observer = explore_obs_record, .observer_ctx = o};
    sim_result_t res;
    if (o == NULL || sim_run(&cfg, seed, &opts, &res, err, sizeof err) != 0) {
        snprintf(why, cap, "run: %s", o == NULL ? "out of memory" : err);
        explore_obs_free(o);
        sim_config_free(&cfg);
        return -1;
    }
    size_t bad = explore_obs_finish(o, &res.metrics, why, cap, prop);
    if (checks != NULL) *checks = explore_obs_checks(o);
    sim_result_free(&res);
    explore_obs_free(o);
    sim_config_free(&cfg);
    return bad != 0 ? 1 : 0;
}

/* ---- shrinking: greedy, one smaller candidate at a time, kept when the same
 * property still fails. Each step keeps the document a valid trace. ------- */

static bool still_fails(json_t *doc, uint64_t seed, explore_property_t prop, unsigned *runs) {
    char why[400];
    explore_property_t p = EX_PROPERTIES;
    (*runs)++;
    return explore_run_doc(doc, seed, why, sizeof why, &p, NULL) == 1 && p == prop;
}

/* Try removing each element of the array at key (from the end). */
static bool shrink_array(json_t *doc, json_t *parent, const char *key, size_t min, uint64_t seed,
                         explore_property_t prop, unsigned *runs) {
    bool any = false;
    json_t *arr = json_object_get(parent, key);
    for (size_t i = json_array_size(arr); i-- > 0 && json_array_size(arr) > min;) {
        json_t *item = json_incref(json_array_get(arr, i));
        json_array_remove(arr, i);
        if (still_fails(doc, seed, prop, runs)) {
            any = true;
        } else {
            json_array_insert(arr, i, item);
        }
        json_decref(item);
    }
    return any;
}

/* Try setting parent[key] to value (stolen); keep it if the failure stays. */
static bool try_set(json_t *doc, json_t *parent, const char *key, json_t *value, uint64_t seed,
                    explore_property_t prop, unsigned *runs) {
    json_t *old = json_incref(json_object_get(parent, key));
    json_object_set_new(parent, key, value);
    if (still_fails(doc, seed, prop, runs)) {
        json_decref(old);
        return true;
    }
    if (old != NULL) json_object_set_new(parent, key, old);
    else json_object_del(parent, key);
    return false;
}

/* Scripted arrivals at the times the Poisson process would have drawn are not
 * the same run; so the request count shrinks through max_requests. */
static bool shrink_requests(json_t *doc, json_t *client, uint64_t seed, explore_property_t prop, unsigned *runs) {
    json_int_t hi = json_integer_value(json_object_get(client, "max_requests"));
    if (hi == 0) hi = 100000;
    json_int_t lo = 1;
    bool any = false;
    while (lo < hi) {
        json_int_t mid = lo + (hi - lo) / 2;
        if (try_set(doc, client, "max_requests", json_integer(mid), seed, prop, runs)) {
            hi = mid;
            any = true;
        } else {
            lo = mid + 1;
        }
        if (*runs > 400) break;
    }
    return any;
}

json_t *explore_shrink(json_t *in, uint64_t seed, explore_property_t prop, unsigned *runs) {
    json_t *doc = json_deep_copy(in);
    *runs = 0;
    for (int pass = 0; pass < 3; pass++) {
        bool any = false;
        any |= shrink_array(doc, doc, "faults", 0, seed, prop, runs);
        json_t *dns = json_object_get(doc, "dns");
        if (dns != NULL) any |= shrink_array(doc, dns, "epochs", 1, seed, prop, runs);
        any |= shrink_array(doc, doc, "clients", 1, seed, prop, runs);
        /* Servers: only those no fault, link or DNS epoch names can go; the
         * loader says which (a failed load is simply not kept). */
        any |= shrink_array(doc, doc, "servers", 1, seed, prop, runs);
        json_int_t dur = json_integer_value(json_object_get(doc, "duration_ms"));
        while (dur > 1 && try_set(doc, doc, "duration_ms", json_integer(dur / 2), seed, prop, runs)) {
            dur /= 2;
            any = true;
        }
        while (dur > 10 && try_set(doc, doc, "duration_ms", json_integer(dur - dur / 10), seed, prop, runs)) {
            dur -= dur / 10;
            any = true;
        }
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(doc, "clients"), i, c) {
            json_t *arr = json_object_get(c, "arrivals");
            double rate = json_number_value(json_object_get(arr, "rate_per_s"));
            while (rate >= 2 && try_set(doc, arr, "rate_per_s", json_integer((json_int_t)(rate / 2)), seed, prop, runs)) {
                rate = (double)(json_int_t)(rate / 2);
                any = true;
            }
            any |= shrink_requests(doc, c, seed, prop, runs);
            json_t *mix = json_object_get(c, "mix");
            any |= shrink_array(doc, c, "mix", 1, seed, prop, runs);
            (void)mix;
            const char *drop[] = {"service", "timer_delay", "clock_drift_ppm", "clock_skew_ms"};
            for (size_t k = 0; k < sizeof drop / sizeof drop[0]; k++) {
                json_t *old = json_incref(json_object_get(c, drop[k]));
                if (old == NULL) continue;
                json_object_del(c, drop[k]);
                if (!still_fails(doc, seed, prop, runs)) json_object_set(c, drop[k], old);
                else any = true;
                json_decref(old);
            }
        }
        if (!any || *runs > 1500) break;
    }
    return doc;
}

/* ---- the command ------------------------------------------------------------------------------- */

typedef struct {
    uint64_t worlds, rejected, failed, checks;
    uint64_t cells[EXPLORE_FAULT_KINDS + 1][EXPLORE_POLICY_FAMILIES][9]; /* row 13: no fault */
    uint64_t auth[3], late_timers, servers[9]; /* servers[n]: worlds with n servers */
} coverage_t;

static void count(coverage_t *cv, const explore_world_info_t *in) {
    for (int f = 0; f <= EXPLORE_FAULT_KINDS; f++) {
        bool row = f == EXPLORE_FAULT_KINDS ? in->faults_used == 0 : (in->faults_used >> f & 1);
        if (!row) continue;
        for (int p = 0; p < EXPLORE_POLICY_FAMILIES; p++) {
            if (in->policies_used >> p & 1) cv->cells[f][p][in->servers]++;
        }
    }
    for (int a = 0; a < 3; a++) cv->auth[a] += in->auth_used >> a & 1;
    cv->late_timers += in->late_timers;
    cv->servers[in->servers <= 8 ? in->servers : 0]++;
}

static void print_coverage(FILE *out, const coverage_t *cv) {
    fprintf(out, "coverage: worlds per fault kind x policy family (a world counts in every cell it has)\n");
    fprintf(out, "%-14s", "fault \\ policy");
    for (int p = 0; p < EXPLORE_POLICY_FAMILIES; p++) fprintf(out, " %16s", explore_policy_names[p]);
    fprintf(out, "\n");
    unsigned empty = 0;
    for (int f = 0; f <= EXPLORE_FAULT_KINDS; f++) {
        fprintf(out, "%-14s", f == EXPLORE_FAULT_KINDS ? "(none)" : explore_fault_names[f]);
        for (int p = 0; p < EXPLORE_POLICY_FAMILIES; p++) {
            uint64_t t = 0;
            for (int s = 1; s <= 8; s++) {
                t += cv->cells[f][p][s];
                empty += cv->cells[f][p][s] == 0;
            }
            fprintf(out, " %16" PRIu64, t);
        }
        fprintf(out, "\n");
    }
    fprintf(out, "worlds with 1..8 servers:");
    for (int s = 1; s <= 8; s++) fprintf(out, " %" PRIu64, cv->servers[s]);
    fprintf(out, "\nauth none/cookie/aes: %" PRIu64 "/%" PRIu64 "/%" PRIu64
                 " worlds; late timers: %" PRIu64 " worlds\n",
            cv->auth[0], cv->auth[1], cv->auth[2], cv->late_timers);
    fprintf(out, "coverage: %u of %d (fault kind x policy family x server count) cells empty\n", empty,
            (EXPLORE_FAULT_KINDS + 1) * EXPLORE_POLICY_FAMILIES * 8);
}

static int report_failure(FILE *out, const explore_opts_t *opts, json_t *world, uint64_t seed, explore_property_t prop,
                          const char *why) {
    fprintf(out, "FAIL seed %" PRIu64 ": %s\n", seed, why);
    if (!opts->shrink) return 0;
    double t0 = wall();
    unsigned runs = 0;
    json_t *small = explore_shrink(world, seed, prop, &runs);
    double dt = wall() - t0;
    char path[512];
    snprintf(path, sizeof path, "%s/explore-seed%" PRIu64 ".json", opts->out_dir ? opts->out_dir : ".", seed);
    char desc[800];
    snprintf(desc, sizeof desc, "explore seed %" PRIu64 " shrunk: %s fails (rl-testbed sim --explore --check %s)", seed,
             explore_property_names[prop], path);
    desc[255] = '\0'; /* docs/traces.md: description <= 255 bytes */
    json_object_set_new(small, "description", json_string(desc));
    if (json_dump_file(small, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0) {
        fprintf(out, "  cannot write %s\n", path);
    } else {
        fprintf(out, "  shrunk in %.2f s (%u runs) to %s: %zu servers, %zu clients, %zu faults, duration_ms %lld\n",
                dt, runs, path, json_array_size(json_object_get(small, "servers")),
                json_array_size(json_object_get(small, "clients")), json_array_size(json_object_get(small, "faults")),
                (long long)json_integer_value(json_object_get(small, "duration_ms")));
        fprintf(out, "  reproduce: rl-testbed sim --explore --check %s --seed %" PRIu64 "\n", path, seed);
    }
    json_decref(small);
    return 0;
}

int explore_main(const explore_opts_t *opts, FILE *out) {
    coverage_t *cv = calloc(1, sizeof *cv);
    if (cv == NULL) return 2;
    double t0 = wall();
    uint64_t seed = opts->seed_lo;
    for (;; seed++) {
        if (seed > opts->seed_hi) break;
        if (opts->seconds > 0 && wall() - t0 >= opts->seconds) break;
        explore_world_info_t info;
        json_t *world = explore_world_draw(seed, &info);
        char why[400];
        explore_property_t prop = EX_PROPERTIES;
        uint64_t checks = 0;
        int rc = explore_run_doc(world, seed, why, sizeof why, &prop, &checks);
        if (rc < 0) {
            cv->rejected++;
            if (!opts->quiet) fprintf(out, "seed %" PRIu64 ": world not loadable: %s\n", seed, why);
        } else {
            cv->worlds++;
            cv->checks += checks;
            count(cv, &info);
            if (rc == 1) {
                cv->failed++;
                report_failure(out, opts, world, seed, prop, why);
            }
        }
        json_decref(world);
        if (opts->first && cv->failed != 0) {
            seed++;
            break;
        }
        if (seed == UINT64_MAX) break;
    }
    double dt = wall() - t0;
    print_coverage(out, cv);
    uint64_t ran = cv->worlds + cv->rejected; /* seeds seed_lo .. seed_lo + ran - 1 */
    if (ran == 0) {
        fprintf(out, "explore: no seed of %" PRIu64 "..%" PRIu64 " run", opts->seed_lo, opts->seed_hi);
    } else {
        fprintf(out, "explore: seeds %" PRIu64 "..%" PRIu64, opts->seed_lo, opts->seed_lo + (ran - 1));
    }
    fprintf(out, ", %" PRIu64 " worlds run (%" PRIu64
                 " not loadable), %" PRIu64 " property checks, %.1f seeds/s, %" PRIu64 " failed\n",
            cv->worlds, cv->rejected, cv->checks,
            dt > 0 ? (double)(cv->worlds + cv->rejected) / dt : 0.0, cv->failed);
    int rc = cv->failed != 0 ? 1 : 0;
    free(cv);
    return rc;
}
