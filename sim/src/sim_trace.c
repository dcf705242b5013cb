/* SPDX-License-Identifier: MIT */
/* sim_trace.c - trace loading (docs/traces.md): the file, the top level,
 * servers, names and expectations. Clients are in sim_trace_client.c, links
 * and DNS in sim_trace_net.c, faults in sim_trace_fault.c. */
#include "sim_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_trace_int.h"

#define RUN_EPOCH_S (SIM_RUN_EPOCH_MS / 1000u)

const char *const sim_trace_metric_names[] = {
    "submitted", "submit_errors", "decided", "allowed", "denied", "timeouts", "io_failures", "availability",
    "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms", "false_allows", "false_denies",
    "false_allow_rate", "false_deny_rate", "disagreed", "false_allow_rate_disagree", "false_deny_rate_disagree",
    "oldest_selected_rate",
    "overconsumed_tokens", "overconsumed_windows", "datagrams_sent", "datagrams_lost", "queue_drops",
    "down_drops", "replays_sent",
    "completion_sends", "duplicate_deliveries", "reprocessed", "dedup_utilization", "dedup_hit_age",
    "dedup_evicted", "dedup_lost",
    "late_responses", "invalid_datagrams", "invalid_protocol", "invalid_auth", "invalid_other",
    "untrusted_responses", "injected_datagrams", "contradictory", "convergence_ms", "steering_requests",
    "steering_latency_ms", "dns_queries", "dns_failures", "reports_sent", NULL};

bool sim_trace_metric_known(const char *key) {
    for (size_t i = 0; key != NULL && sim_trace_metric_names[i] != NULL; i++) {
        if (strcmp(key, sim_trace_metric_names[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* ---- names --------------------------------------------------------------- */

st_node_kind_t st_node_kind(const sim_config_t *cfg, const char *name) {
    for (size_t i = 0; i < cfg->n_servers; i++) {
        if (strcmp(cfg->servers[i].name, name) == 0) {
            return ST_NODE_SERVER;
        }
    }
    for (size_t i = 0; i < cfg->n_clients; i++) {
        if (strcmp(cfg->clients[i].name, name) == 0) {
            return ST_NODE_CLIENT;
        }
    }
    return ST_NODE_NONE;
}

int st_node_ref(tj_ctx_t *c, const sim_config_t *cfg, const json_t *obj, const tj_path_t *p, const char *key,
                bool allow_any, st_node_kind_t want, char out[SIM_NAME_MAX]) {
    int r = tj_str(c, obj, p, key, false, out, SIM_NAME_MAX);
    if (r != 1) {
        return r;
    }
    if (allow_any && strcmp(out, "*") == 0) {
        return 1;
    }
    st_node_kind_t k = st_node_kind(cfg, out);
    if (k != ST_NODE_NONE && (want == ST_NODE_NONE || want == k)) {
        return 1;
    }
    static const char *const noun[] = {"node", "server", "client"};              /* by st_node_kind_t */
    static const char *const what[] = {"a server or client name", "a server name", "a client name"};
    tj_path_t q;
    tj_key(&q, p, key);
    return tj_fail(c, &q, "unknown %s \"%s\" (expected %s%s)", noun[want], out, what[want],
                   allow_any ? " or \"*\"" : "");
}

/* A node name: 1..31 bytes of [A-Za-z0-9_.-], unique among servers and clients. */
int st_read_name(tj_ctx_t *c, const sim_config_t *cfg, const json_t *obj, const tj_path_t *p,
                 char out[SIM_NAME_MAX]) {
    tj_path_t q;
    tj_key(&q, p, "name");
    if (tj_require(c, obj, p, "name") != 0 || tj_str(c, obj, p, "name", false, out, SIM_NAME_MAX) < 0) {
        return -1;
    }
    for (const char *s = out; *s != '\0'; s++) {
        bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
                  *s == '.' || *s == '-';
        if (!ok) {
            return tj_fail(c, &q, "\"%s\": use only letters, digits, '_', '.' and '-'", out);
        }
    }
    if (st_node_kind(cfg, out) != ST_NODE_NONE) {
        return tj_fail(c, &q, "duplicate name \"%s\" (servers and clients share one name space)", out);
    }
    return 0;
}

/* ---- servers --------------------------------------------------------------- */

/* Server fields plus what the defaults rules need to know. */
typedef struct {
    sim_server_cfg_t s;
    int start;        /* 0: not given, 1: start_s, 2: start_age_s */
    uint64_t start_age_s;
    bool node_set, change_p_set;
} server_tmpl_t;

static const char *const server_keys[] = {"name", "start_s", "start_age_s", "listener_id", "node_id",
                                          "dedup_capacity", "dedup_ttl_cap_ms", "freshness_ms", "steer_mode",
                                          "steer_change_p", "processing_us", "processing_jitter_us",
                                          "clock_skew_ms", "clock_drift_ppm", "queue_capacity", NULL};
static const char *const steer_names[] = {"keep", "change", "random"};

static int server_start(tj_ctx_t *c, const json_t *o, const tj_path_t *p, server_tmpl_t *t) {
    uint64_t v = 0;
    int a = tj_u64(c, o, p, "start_s", R_CLIENT_SERVER_EPOCH_S, RUN_EPOCH_S, &v);
    if (a == 1) {
        t->s.params.server_start_s = v;
    }
    int b = tj_u64(c, o, p, "start_age_s", 0, RUN_EPOCH_S - R_CLIENT_SERVER_EPOCH_S, &t->start_age_s);
    if (a < 0 || b < 0) {
        return -1;
    }
    if (a == 1 && b == 1) {
        tj_path_t q;
        tj_key(&q, p, "start_age_s");
        return tj_fail(c, &q, "give start_s or start_age_s, not both");
    }
    t->start = a == 1 ? 1 : b == 1 ? 2 : t->start;
    return 0;
}

static int server_fields(tj_ctx_t *c, const json_t *o, const tj_path_t *p, server_tmpl_t *t, bool tmpl) {
    sim_server_params_t *sp = &t->s.params;
    uint32_t v32 = 0;
    int mode = (int)sp->steer_mode;
    int64_t drift = t->s.clock_drift_ppm;
    if (tj_object(c, o, p, tmpl ? server_keys + 1 : server_keys) != 0 || server_start(c, o, p, t) != 0) {
        return -1;
    }
    if (tj_u32(c, o, p, "listener_id", 0, 255, &v32) == 1) {
        sp->listener_id = (uint8_t)v32;
    }
    int n = tj_u32(c, o, p, "node_id", 0, 32767, &v32);
    if (n == 1) {
        sp->node_id = (uint16_t)v32;
        t->node_set = true;
    }
    int cp = tj_prob(c, o, p, "steer_change_p", &sp->steer_change_p);
    t->change_p_set |= cp == 1;
    if (tj_u32(c, o, p, "dedup_capacity", 0, UINT32_MAX, &sp->dedup_capacity) < 0 ||
        tj_u32(c, o, p, "dedup_ttl_cap_ms", 0, UINT32_MAX, &sp->dedup_ttl_cap_ms) < 0 ||
        tj_u32(c, o, p, "freshness_ms", 0, UINT32_MAX, &sp->freshness_ms) < 0 ||
        tj_enum(c, o, p, "steer_mode", steer_names, 3, &mode) < 0 ||
        tj_u32(c, o, p, "processing_us", 0, UINT32_MAX, &t->s.processing_us) < 0 ||
        tj_u32(c, o, p, "processing_jitter_us", 0, UINT32_MAX, &t->s.processing_jitter_us) < 0 ||
        tj_i64(c, o, p, "clock_skew_ms", -ST_MAX_SKEW_MS, ST_MAX_SKEW_MS, &t->s.clock_skew_ms) < 0 ||
        tj_i64(c, o, p, "clock_drift_ppm", -ST_MAX_DRIFT_PPM, ST_MAX_DRIFT_PPM, &drift) < 0 ||
        tj_u32(c, o, p, "queue_capacity", 0, UINT32_MAX, &t->s.queue_capacity) < 0 || c->failed) {
        return -1;
    }
    t->s.clock_drift_ppm = (int32_t)drift;
    sp->steer_mode = (sim_steer_mode_t)mode;
    return 0;
}

/* Rules that need the merged value: defaults that depend on the position,
 * steer_change_p exactly with steer_mode random. */
static int server_finish(tj_ctx_t *c, const tj_path_t *p, server_tmpl_t *t, size_t index, size_t n) {
    sim_server_params_t *sp = &t->s.params;
    if (t->start == 0) {
        t->start_age_s = 3600u * (uint64_t)(n - index); /* listed first = oldest */
    }
    if (t->start != 1) {
        sp->server_start_s = RUN_EPOCH_S - t->start_age_s;
    }
    if (!t->node_set) {
        sp->node_id = (uint16_t)(index + 1u);
    }
    bool random = sp->steer_mode == SIM_STEER_RANDOM;
    if (random != t->change_p_set) {
        tj_path_t q;
        tj_key(&q, p, "steer_change_p");
        return tj_fail(c, &q, random ? "missing (required with steer_mode random)" : "only with steer_mode random");
    }
    return 0;
}

static int server_ids_unique(tj_ctx_t *c, const sim_config_t *cfg, const tj_path_t *p) {
    uint64_t ids[ST_MAX_SERVERS];
    for (size_t i = 0; i < cfg->n_servers; i++) {
        const sim_server_params_t *sp = &cfg->servers[i].params;
        tj_path_t q;
        tj_idx(&q, p, i);
        if (r_client_encode_server_id(sp->server_start_s, sp->listener_id, sp->node_id, &ids[i]) != RCLIENT_OK) {
            return tj_fail(c, &q, "no valid server_id from this start time and node_id");
        }
        for (size_t j = 0; j < i; j++) {
            if (ids[j] == ids[i]) {
                return tj_fail(c, &q, "same server_id %" PRIu64 " as servers[%zu] (start, listener_id and node_id)",
                               ids[i], j);
            }
        }
    }
    return 0;
}

static int parse_servers(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    tj_path_t p, dp;
    json_t *arr = NULL;
    server_tmpl_t base;
    memset(&base, 0, sizeof base);
    base.s.processing_us = 20;
    tj_key(&dp, NULL, "defaults.server");
    const json_t *d = json_object_get(json_object_get(root, "defaults"), "server");
    if (d != NULL && server_fields(c, d, &dp, &base, true) != 0) {
        return -1;
    }
    tj_key(&p, NULL, "servers");
    if (tj_require(c, root, NULL, "servers") != 0 || tj_array(c, root, NULL, "servers", ST_MAX_SERVERS, &arr) < 0) {
        return -1;
    }
    size_t n = json_array_size(arr);
    if (n == 0) {
        return tj_fail(c, &p, "at least one server is required");
    }
    cfg->servers = calloc(n, sizeof *cfg->servers);
    if (cfg->servers == NULL) {
        return tj_fail(c, &p, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q;
        tj_idx(&q, &p, i);
        server_tmpl_t t = base;
        const json_t *o = json_array_get(arr, i);
        if (server_fields(c, o, &q, &t, false) != 0 || st_read_name(c, cfg, o, &q, t.s.name) != 0 ||
            server_finish(c, &q, &t, i, n) != 0) {
            return -1;
        }
        cfg->servers[cfg->n_servers++] = t.s;
    }
    return server_ids_unique(c, cfg, &p);
}

/* ---- expectations ------------------------------------------------------------ */

static const char *const expect_keys[] = {"kind", "client", "request", "server", "status", "metric", "op", "value",
                                          NULL};
static const char *const expect_kinds[] = {"selected", "status", "metric"};
static const char *const expect_used[][5] = {
    {"kind", "client", "request", "server", NULL},
    {"kind", "client", "request", "status", NULL},
    {"kind", "metric", "op", "value", NULL},
};
static const char *const op_names[] = {"<=", ">=", "==", "<", ">"}; /* sim_op_t order */

/* The request index must be one the client can submit. */
static int expect_request(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                          sim_expect_cfg_t *e) {
    if (tj_require(c, o, p, "request") != 0 || tj_u64(c, o, p, "request", 0, UINT64_MAX - 1, &e->index) < 0) {
        return -1;
    }
    const sim_client_cfg_t *cl = NULL;
    for (size_t i = 0; i < cfg->n_clients; i++) {
        if (strcmp(cfg->clients[i].name, e->client) == 0) {
            cl = &cfg->clients[i];
        }
    }
    uint64_t limit = cl->max_requests != 0 ? cl->max_requests : UINT64_MAX;
    if (cl->arrival == SIM_ARRIVAL_SCRIPTED && cl->n_script < limit) {
        limit = cl->n_script;
    }
    if (e->index >= limit) {
        tj_path_t q;
        tj_key(&q, p, "request");
        return tj_fail(c, &q, "client %s submits at most %" PRIu64 " requests (indexes start at 0)", e->client,
                       limit);
    }
    return 0;
}

static int expect_status(tj_ctx_t *c, const json_t *o, const tj_path_t *p, sim_expect_cfg_t *e) {
    static const char *const names[] = {"RCLIENT_OK", "RCLIENT_ERR_TIMEOUT", "RCLIENT_ERR_DNS",
                                        "RCLIENT_ERR_IO", "RCLIENT_ERR_PROTOCOL", "RCLIENT_ERR_AUTH",
                                        "RCLIENT_ERR_CONFIG", "RCLIENT_ERR_NOMEM"};
    int i = 0;
    if (tj_require(c, o, p, "status") != 0 || tj_enum(c, o, p, "status", names, 8, &i) < 0) {
        return -1;
    }
    e->status = -i; /* names[i] is r_client_strerror(-i) */
    return 0;
}

static int expect_metric(tj_ctx_t *c, const json_t *o, const tj_path_t *p, sim_expect_cfg_t *e) {
    int op = 0;
    if (tj_require(c, o, p, "metric") != 0 || tj_str(c, o, p, "metric", false, e->metric, sizeof e->metric) < 0 ||
        tj_require(c, o, p, "op") != 0 || tj_enum(c, o, p, "op", op_names, 5, &op) < 0 ||
        tj_require(c, o, p, "value") != 0 || tj_num(c, o, p, "value", -1e300, false, 1e300, &e->value) < 0) {
        return -1;
    }
    e->op = (sim_op_t)op;
    if (!sim_trace_metric_known(e->metric)) {
        tj_path_t q;
        tj_key(&q, p, "metric");
        return tj_fail(c, &q, "unknown metric \"%s\" (see docs/traces.md \"Metrics\")", e->metric);
    }
    return 0;
}

static int parse_expect(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                        sim_expect_cfg_t *e) {
    int kind = 0;
    if (tj_object(c, o, p, expect_keys) != 0 || tj_require(c, o, p, "kind") != 0 ||
        tj_enum(c, o, p, "kind", expect_kinds, 3, &kind) < 0 ||
        tj_object_kind(c, o, p, expect_keys, expect_used[kind], expect_kinds[kind]) != 0) {
        return -1;
    }
    e->kind = (sim_expect_kind_t)(kind + 1);
    if (e->kind == SIM_EXPECT_METRIC) {
        return expect_metric(c, o, p, e);
    }
    if (tj_require(c, o, p, "client") != 0 ||
        st_node_ref(c, cfg, o, p, "client", false, ST_NODE_CLIENT, e->client) < 0 ||
        expect_request(c, cfg, o, p, e) != 0) {
        return -1;
    }
    if (e->kind == SIM_EXPECT_STATUS) {
        return expect_status(c, o, p, e);
    }
    if (tj_require(c, o, p, "server") != 0 ||
        st_node_ref(c, cfg, o, p, "server", false, ST_NODE_SERVER, e->server) < 0) {
        return -1;
    }
    return 0;
}

static int parse_expectations(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    json_t *arr = NULL;
    tj_path_t p;
    tj_key(&p, NULL, "expectations");
    if (tj_array(c, root, NULL, "expectations", ST_MAX_EXPECTS, &arr) <= 0) {
        return c->failed ? -1 : 0;
    }
    size_t n = json_array_size(arr);
    cfg->expects = calloc(n != 0 ? n : 1, sizeof *cfg->expects);
    if (cfg->expects == NULL) {
        return tj_fail(c, &p, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q;
        tj_idx(&q, &p, i);
        if (parse_expect(c, cfg, json_array_get(arr, i), &q, &cfg->expects[i]) != 0) {
            return -1;
        }
        cfg->n_expects++;
    }
    return 0;
}

/* ---- top level ------------------------------------------------------------------ */

static const char *const top_keys[] = {"schema", "name", "description", "seed", "duration_ms", "defaults",
                                       "servers", "clients", "links", "dns", "faults", "expectations", NULL};
static const char *const defaults_keys[] = {"server", "client", NULL};

/* The trace name without a "name" field: the base name without ".json". */
static void default_name(const char *file, char *out, size_t cap) {
    const char *base = strrchr(file, '/');
    base = base != NULL ? base + 1 : file;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".json") == 0) {
        len -= 5;
    }
    if (len >= cap) {
        len = cap - 1;
    }
    memcpy(out, base, len);
    out[len] = '\0';
}

static int parse_top(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    char schema[64] = "";
    tj_path_t sp, dp;
    tj_key(&sp, NULL, "schema");
    tj_key(&dp, NULL, "defaults");
    if (tj_object(c, root, NULL, top_keys) != 0 || tj_require(c, root, NULL, "schema") != 0 ||
        tj_str(c, root, NULL, "schema", false, schema, sizeof schema) < 0) {
        return -1;
    }
    if (strcmp(schema, SIM_TRACE_SCHEMA) != 0) {
        return tj_fail(c, &sp, "expected \"" SIM_TRACE_SCHEMA "\", got \"%s\"", schema);
    }
    default_name(c->file, cfg->name, sizeof cfg->name);
    cfg->seed = 1;
    cfg->duration_ms = 1000;
    const json_t *d = json_object_get(root, "defaults");
    if (tj_str(c, root, NULL, "name", false, cfg->name, sizeof cfg->name) < 0 ||
        tj_str(c, root, NULL, "description", true, cfg->description, sizeof cfg->description) < 0 ||
        tj_u64_hex(c, root, NULL, "seed", UINT64_MAX, &cfg->seed) < 0 ||
        tj_u64(c, root, NULL, "duration_ms", 1, ST_MAX_DURATION_MS, &cfg->duration_ms) < 0 ||
        (d != NULL && tj_object(c, d, &dp, defaults_keys) != 0)) {
        return -1;
    }
    return 0;
}

static int parse_root(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    if (parse_top(c, root, cfg) != 0 || parse_servers(c, root, cfg) != 0 || st_parse_clients(c, root, cfg) != 0 ||
        st_parse_links(c, root, cfg) != 0 || st_parse_dns(c, root, cfg) != 0 || st_parse_faults(c, root, cfg) != 0 ||
        parse_expectations(c, root, cfg) != 0) {
        return -1;
    }
    return 0;
}

int sim_trace_parse(const char *json_text, size_t len, const char *name_for_errors, sim_config_t *out, char *err,
                    size_t err_cap) {
    tj_ctx_t c = {name_for_errors != NULL ? name_for_errors : "trace", err, err_cap, false, NULL};
    if (err != NULL && err_cap > 0) {
        err[0] = '\0';
    }
    if (out == NULL) {
        return tj_fail(&c, NULL, "no output config");
    }
    memset(out, 0, sizeof *out);
    if (json_text == NULL) {
        return tj_fail(&c, NULL, "no JSON text");
    }
    json_error_t je;
    json_t *root = json_loadb(json_text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL) {
        return tj_fail(&c, NULL, "line %d column %d: %s", je.line, je.column, je.text);
    }
    c.owner = out;
    int r = parse_root(&c, root, out);
    json_decref(root);
    if (r != 0) {
        sim_config_free(out);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

/* Read a whole file, growing the buffer, up to SIM_TRACE_MAX_FILE_BYTES. */
static int read_file(tj_ctx_t *c, FILE *f, char **out, size_t *out_len) {
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, f);
        if (ferror(f)) {
            free(buf);
            return tj_fail(c, NULL, "read error");
        }
        if (len > SIM_TRACE_MAX_FILE_BYTES) {
            free(buf);
            return tj_fail(c, NULL, "larger than %u bytes", SIM_TRACE_MAX_FILE_BYTES);
        }
        if (len < cap) { /* end of file */
            *out = buf;
            *out_len = len;
            return 0;
        }
        size_t grown_cap = cap * 2 < SIM_TRACE_MAX_FILE_BYTES + 1u ? cap * 2 : SIM_TRACE_MAX_FILE_BYTES + 1u;
        char *grown = realloc(buf, grown_cap);
        if (grown == NULL) {
            free(buf);
        }
        buf = grown;
        cap = grown_cap;
    }
    return tj_fail(c, NULL, "out of memory");
}

int sim_trace_load(const char *path, sim_config_t *out, char *err, size_t err_cap) {
    tj_ctx_t c = {path != NULL ? path : "(null)", err, err_cap, false, NULL};
    if (out != NULL) {
        memset(out, 0, sizeof *out);
    }
    struct stat st;
    if (path != NULL && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* never block on a FIFO or read a device */
        return tj_fail(&c, NULL, "%s", S_ISDIR(st.st_mode) ? "is a directory, not a trace file" : "not a regular file");
    }
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    if (f == NULL) {
        return tj_fail(&c, NULL, "cannot open: %s", path != NULL ? strerror(errno) : "no path");
    }
    char *buf = NULL;
    size_t len = 0;
    int r = read_file(&c, f, &buf, &len);
    fclose(f);
    if (r == 0) {
        r = sim_trace_parse(buf, len, path, out, err, err_cap);
        free(buf);
    }
    return r;
}
