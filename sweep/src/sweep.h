/* SPDX-License-Identifier: MIT */
/* sweep.h - the HA policy sweep definition (docs/sweep.md "Sweep file"):
 * configurations (explicit and grid points) of the one request policy
 * (r-client-ha-design.md 6, r-client.md 9.3), traces (with parameter
 * variants), seeds and the baseline. sweep_parse reads the file's JSON only;
 * sweep_prepare loads the traces and checks every configuration against
 * every client's key. */
#ifndef SWEEP_H
#define SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "sim_config.h"

#define SWEEP_SCHEMA "ratelimitly-sweep/v1"
#define SWEEP_NAME_MAX 64u          /* names: 1 .. 63 bytes of A-Z a-z 0-9 _ . - = */
#define SWEEP_MAX_CONFIGS 4096u
#define SWEEP_MAX_TRACES 256u       /* entries of "traces" */
#define SWEEP_MAX_VARIANTS 4096u    /* traces after variant expansion */
#define SWEEP_MAX_SEEDS 100000u
#define SWEEP_MAX_UNITS 1000000u    /* configurations x traces x seeds */
#define SWEEP_MAX_FILE_BYTES (16u * 1024u * 1024u)

typedef struct {
    char name[SWEEP_NAME_MAX];
    char origin[160];                /* "configurations[3]" or "grids[0]" (errors; the name follows) */
    r_request_policy_t policy;
} sweep_config_t;

/* One trace after variant expansion. */
typedef struct {
    char name[SWEEP_NAME_MAX];
    char origin[160];                /* "traces[1]" or "traces[1] variant loss-p0.05" */
    size_t entry;                   /* index into "traces" */
    char *path;                     /* the file as opened (resolved against the sweep file's directory), owned */
    char *rel_path;                 /* as written in the sweep file, owned */
    char *sets_json;                /* the variant's assignments as a JSON object text {"path": value}, owned */
    bool name_from_trace;           /* name is the trace's own name + this suffix */
    bool loaded;
    sim_config_t cfg;               /* after sweep_prepare */
} sweep_trace_t;

typedef struct {
    char file[4096];                /* the sweep file as given (errors) */
    char name[SWEEP_NAME_MAX];
    char description[256];
    sweep_config_t *configs;
    size_t n_configs;
    sweep_trace_t *traces;
    size_t n_traces;
    size_t n_entries;               /* entries of "traces" */
    uint64_t *seeds;
    size_t n_seeds;
    size_t baseline;                /* index into configs */
    char *canonical;                /* the sweep file's JSON, sorted keys, compact (hash input), owned */
    char hash[65];                  /* docs/sweep.md "Sweep hash": set by sweep_prepare */
} sweep_t;

/* Parse a sweep file's text. name_for_errors prefixes every error and gives
 * the default name (base name without ".json"); base_dir resolves relative
 * trace paths ("" or NULL: as written). Reads no trace. Returns 0 with *out
 * filled (free with sweep_free), or -1 with err (err_cap bytes) as
 * "<file>: <json path>: <problem>" and *out zeroed. */
int sweep_parse(const char *text, size_t len, const char *name_for_errors, const char *base_dir, sweep_t *out,
                char *err, size_t err_cap);

/* Read and parse the sweep file at path (relative traces resolve against its
 * directory). Same results as sweep_parse. */
int sweep_load(const char *path, sweep_t *out, char *err, size_t err_cap);

/* Load every trace and variant with the strict trace loader (expectations
 * dropped), check every configuration against every client's key
 * (sim_policy_check_key) and compute the sweep hash. Returns 0, or -1 with
 * err naming the sweep file, the configuration, the trace and the client. */
int sweep_prepare(sweep_t *sw, char *err, size_t err_cap);

/* Set every client's policy of trace t to configuration c. */
void sweep_apply(sweep_t *sw, size_t c, size_t t);

size_t sweep_units(const sweep_t *sw);
/* Unit index u = (c * n_traces + t) * n_seeds + s and back. */
void sweep_unit_split(const sweep_t *sw, size_t u, size_t *c, size_t *t, size_t *s);

void sweep_free(sweep_t *sw);

/* Policy fields, as in the manifest and docs/sweep.md. */
const char *sweep_schedule_kind_name(r_ha_schedule_kind_t k);

#endif /* SWEEP_H */
