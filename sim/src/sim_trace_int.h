/* SPDX-License-Identifier: MIT */
/* sim_trace_int.h - the trace loader's sections, shared by sim_trace.c,
 * sim_trace_client.c and sim_trace_net.c. Each parser fills its part of cfg
 * (arrays owned by cfg, freed by sim_config_free even on error) and returns
 * 0 or -1 with the error recorded in the context. */
#ifndef SIM_TRACE_INT_H
#define SIM_TRACE_INT_H

#include "sim_config.h"
#include "sim_trace_json.h"

/* Caps that keep a trace's memory bounded (docs/traces.md "Limits"). */
#define ST_MAX_SERVERS 1024u
#define ST_MAX_CLIENTS 1024u
#define ST_MAX_MIX 64u
#define ST_MAX_LINKS 4096u
#define ST_MAX_EPOCHS 4096u
#define ST_MAX_MEMBERS 64u
#define ST_MAX_FAULTS 65536u
#define ST_MAX_EXPECTS 65536u
#define ST_MAX_SCRIPT 10000000u
#define ST_MAX_DURATION_MS 86400000u  /* one simulated day */
#define ST_MAX_SKEW_MS 86400000ll
#define ST_MAX_DRIFT_PPM 100000ll /* 10 %: clocks that gain or lose up to 100 ms per second */

typedef enum { ST_NODE_NONE = 0, ST_NODE_SERVER = 1, ST_NODE_CLIENT = 2 } st_node_kind_t;

/* Kind of the node called name (servers and clients share one name space). */
st_node_kind_t st_node_kind(const sim_config_t *cfg, const char *name);

/* obj.name (required): 1..31 bytes of [A-Za-z0-9_.-], unique among servers
 * and clients parsed so far. */
int st_read_name(tj_ctx_t *c, const sim_config_t *cfg, const json_t *obj, const tj_path_t *p,
                 char out[SIM_NAME_MAX]);

/* A node reference at obj[key]: a server or client name, or "*" when
 * allow_any; want restricts the kind (ST_NODE_NONE = either). */
int st_node_ref(tj_ctx_t *c, const sim_config_t *cfg, const json_t *obj, const tj_path_t *p, const char *key,
                bool allow_any, st_node_kind_t want, char out[SIM_NAME_MAX]);

/* Latency object (docs/traces.md "Latency"): a complete value, absent
 * members take their defaults. */
int st_parse_latency(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_latency_t *out);

/* The link members of obj (latency, loss, duplicate_p, reorder_p,
 * reorder_us, down) over *inout; absent members keep their value. */
int st_parse_link_fields(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, sim_link_t *inout);
extern const char *const st_link_members[];   /* the six member names */

/* A trace `policy` value (a preset name or an object, docs/traces.md "policy")
 * applied over *pol. Also used by the sweep loader (docs/sweep.md). */
int st_parse_policy(tj_ctx_t *c, const json_t *v, const tj_path_t *p, r_request_policy_t *pol);

int st_parse_links(tj_ctx_t *c, const json_t *root, sim_config_t *cfg);
int st_parse_dns(tj_ctx_t *c, const json_t *root, sim_config_t *cfg);
int st_parse_faults(tj_ctx_t *c, const json_t *root, sim_config_t *cfg);
int st_parse_clients(tj_ctx_t *c, const json_t *root, sim_config_t *cfg);

#endif /* SIM_TRACE_INT_H */
