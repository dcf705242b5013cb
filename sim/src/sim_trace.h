/* SPDX-License-Identifier: MIT */
/* sim_trace.h - the JSON trace loader (docs/traces.md): a trace file becomes
 * a sim_config_t (sim_config.h). Strict: unknown fields, wrong types, values
 * out of range, dangling names and invalid policies are errors, reported as
 * "<file>: <json path>: <problem>", e.g.
 *   traces/x.json: clients[1].policy.replay_gap.kind: expected one of fixed, linear, exponential
 * The loader never crashes on bad input and leaves nothing allocated on error. */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "sim_config.h"

#define SIM_TRACE_SCHEMA "ratelimitly-trace/v1"
#define SIM_TRACE_MAX_FILE_BYTES (64u * 1024u * 1024u)

/* Read and parse the trace file at path (errors name it as given).
 * Returns 0 with *out filled (free with sim_config_free), or -1 with err
 * (err_cap bytes, NUL-terminated, may be NULL) set and *out zeroed. */
int sim_trace_load(const char *path, sim_config_t *out, char *err, size_t err_cap);

/* Parse len bytes of JSON text; name_for_errors prefixes every error and,
 * without a "name" field, gives the trace name (its base name without
 * ".json"). Same results as sim_trace_load. */
int sim_trace_parse(const char *json_text, size_t len, const char *name_for_errors, sim_config_t *out, char *err,
                    size_t err_cap);

/* The metric keys an expectation may name: the sim_metrics_t field names
 * (sim_world.h), NULL-terminated. */
extern const char *const sim_trace_metric_names[];
bool sim_trace_metric_known(const char *key);

/* Check pol against the key of quota_word (0 = the canonical word): the
 * r_client_policy_schedule rules with the key's dedup_ttl_ms_max
 * (r-client.md 9.3.1), as the loader checks a client's policy. Returns 0 when
 * valid, else -1 with err (err_cap bytes, may be NULL) the reason, e.g.
 * "horizon H exceeds the key's dedup_ttl_ms_max (H = 600 ms, dedup_ttl_ms_max
 * = 300 ms)", or "quota_word: <decoder reason>" for an invalid word. */
int sim_policy_check_key(const r_request_policy_t *pol, uint32_t quota_word, char *err, size_t err_cap);

#endif /* SIM_TRACE_H */
