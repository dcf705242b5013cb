/* SPDX-License-Identifier: MIT */
/* conf_sim.h - simulator traces in the conformance gate: a trace file
 * (schema ratelimitly-trace/v1, docs/traces.md) is one case. */
#ifndef CONF_SIM_H
#define CONF_SIM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define CONF_TRACE_SCHEMA_ID "ratelimitly-trace/v1"

/* True when this build includes the simulator. */
bool conf_simulator_built(void);

/* True when root is a trace file (its schema names the trace format). */
bool conf_is_trace_file(const json_t *root);

/* Load and run the trace at path with its own seed; true when it ran and every
 * expectation held. detail (cap bytes) gets why it failed, or "" on a pass. */
bool conf_judge_trace(const char *path, char *detail, size_t cap);

#endif /* CONF_SIM_H */
