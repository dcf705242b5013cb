/* SPDX-License-Identifier: MIT */
/* explore.h - explore mode (docs/explore.md): random worlds drawn from a
 * seed, properties of r-client.md 9.3 and wire_protocol.md checked by an
 * observer of the simulator's events and datagrams (never the core's internal
 * state), shrinking of a failing world to a small trace file. */
#ifndef EXPLORE_H
#define EXPLORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "sim_config.h"
#include "sim_world.h"

#define EXPLORE_FAULT_KINDS 13 /* the 12 trace fault kinds and DNS membership changes */
#define EXPLORE_FAULT_DNS 12
#define EXPLORE_POLICY_FAMILIES 6 /* the five presets and "random" (any valid policy) */
extern const char *const explore_fault_names[EXPLORE_FAULT_KINDS];
extern const char *const explore_policy_names[EXPLORE_POLICY_FAMILIES];

typedef struct {
    unsigned servers;       /* 1..8 */
    uint32_t faults_used;   /* bit k: explore_fault_names[k] occurs */
    uint32_t policies_used; /* bit k: explore_policy_names[k] is some client's */
    uint32_t auth_used;     /* bit 0 none, 1 cookie, 2 aes */
    bool late_timers;
} explore_world_info_t;

/* The world of seed as a trace document (owned by the caller). */
json_t *explore_world_draw(uint64_t seed, explore_world_info_t *info);

/* The properties (docs/explore.md "Properties"): index, name, spec sentence. */
typedef enum {
    EX_DECISION_ONCE = 0,
    EX_ENDS_BY_HORIZON,
    EX_NO_SEND_AFTER_HORIZON,
    EX_ONE_UNIQUE_ID,
    EX_DEDUP_TTL_IS_HORIZON,
    EX_REPLAY_ONLY_MISSING,
    EX_REPLAY_AFTER_SILENT_ROUND,
    EX_COMPLETION_ONLY_MISSING,
    EX_COMPLETION_AT_SELECTION,
    EX_SELECT_OLDEST_VALID,
    EX_IMMEDIATE_ON_OLDEST,
    EX_NO_FALLBACK_BEFORE_PREFERENCE,
    EX_SELECT_BY_PREFERENCE_DEADLINE,
    EX_FAIL_ONLY_AT_END,
    EX_AES_NONCE_ONCE,
    EX_SERVER_NO_DOUBLE_CONSUME,
    EX_STALE_COPY_REPLAYED,
    EX_EVICTION_LOGGED,
    EX_SINGLE_SERVER_MATCHES_ORACLE,
    EX_SINGLE_SERVER_NO_OVERCONSUME,
    EX_PROPERTIES
} explore_property_t;
extern const char *const explore_property_names[EX_PROPERTIES];
extern const char *const explore_property_specs[EX_PROPERTIES];

typedef struct explore_obs explore_obs_t;
explore_obs_t *explore_obs_new(const sim_config_t *cfg);
void explore_obs_free(explore_obs_t *o);
/* The sim_run_opts_t observer; ctx is the explore_obs_t. */
void explore_obs_record(void *ctx, uint64_t at_us, int kind, uint64_t a, uint64_t b, uint64_t c,
                        const uint8_t *data, size_t len);
/* After the run: end-of-run checks with its metrics. Returns the number of
 * violations; the first is described in first (cap bytes). */
size_t explore_obs_finish(explore_obs_t *o, const sim_metrics_t *m, char *first, size_t cap,
                          explore_property_t *first_prop);
uint64_t explore_obs_checks(const explore_obs_t *o); /* property evaluations made */

/* Run one world document under its own seed with the observer. Returns 1 when
 * a property failed (why filled), 0 when all held, -1 when the document does
 * not load (why says so). */
int explore_run_doc(json_t *doc, uint64_t seed, char *why, size_t cap, explore_property_t *prop, uint64_t *checks);

/* Shrink doc (a failing world) while prop still fails; returns the smaller
 * document (owned) and the number of runs made. */
json_t *explore_shrink(json_t *doc, uint64_t seed, explore_property_t prop, unsigned *runs);

typedef struct {
    uint64_t seed_lo, seed_hi;
    double seconds;       /* 0: no time limit */
    const char *out_dir;  /* where shrunk traces go ("." by default) */
    bool shrink;
    bool quiet;
    bool first;           /* stop at the first failing seed */
} explore_opts_t;

/* The whole explore command; returns the exit status (0 nothing found). */
int explore_main(const explore_opts_t *opts, FILE *out);

#endif /* EXPLORE_H */
