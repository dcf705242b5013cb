/* SPDX-License-Identifier: MIT */
/* sim_trace_fault.c - the fault timeline of a trace (docs/traces.md "Faults"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_trace_int.h"

#define RUN_EPOCH_S (SIM_RUN_EPOCH_MS / 1000u)

static const char *const fault_keys[] = {"at_ms", "kind", "target", "duration_ms", "from", "to", "symmetric",
                                         "latency", "loss", "duplicate_p", "reorder_p", "reorder_us", "down",
                                         "dir", "on", "loss_p", "capacity", "skew_ms", "mode", "change_p", "class",
                                         "count", "mtbf_ms", "mttr_ms", "until_ms", "tenant", "quota_word", NULL};
/* sim_fault_kind_t order, from 1 */
static const char *const fault_kinds[] = {"restart", "pause", "link", "partition", "dedup_degrade",
                                          "dedup_heal", "skew", "steering", "inject", "failures",
                                          "tenant_remove", "tenant_add"};
static const char *const fault_used[][12] = {
    {"at_ms", "kind", "target", "duration_ms", NULL},
    {"at_ms", "kind", "target", "duration_ms", NULL},
    {"at_ms", "kind", "from", "to", "symmetric", "latency", "loss", "duplicate_p", "reorder_p", "reorder_us", "down",
     NULL},
    {"at_ms", "kind", "target", "dir", "on", NULL},
    {"at_ms", "kind", "target", "loss_p", "capacity", NULL},
    {"at_ms", "kind", "target", NULL},
    {"at_ms", "kind", "target", "skew_ms", NULL},
    {"at_ms", "kind", "target", "mode", "change_p", NULL},
    {"at_ms", "kind", "target", "from", "class", "count", NULL},
    {"at_ms", "kind", "target", "from", "to", "symmetric", "mtbf_ms", "mttr_ms", "until_ms", NULL},
    {"at_ms", "kind", "target", "tenant", NULL},
    {"at_ms", "kind", "target", "tenant", "quota_word", NULL},
};
static const char *const inject_names[] = {"invalid", "forged", "replayed", "wrong_identity"};
static const char *const dir_names[] = {"in", "out", "both"}; /* sim_dir_t order, from 1 */
static const char *const steer_names[] = {"keep", "change", "random"};

static int fault_link(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                      sim_fault_cfg_t *f, bool *symmetric) {
    sim_link_cfg_t *l = &f->link;
    strcpy(l->from, "*");
    strcpy(l->to, "*");
    l->link = cfg->default_link; /* absent members: links.default, not the link's current value */
    if (st_node_ref(c, cfg, o, p, "from", true, ST_NODE_NONE, l->from) < 0 ||
        st_node_ref(c, cfg, o, p, "to", true, ST_NODE_NONE, l->to) < 0 ||
        tj_bool(c, o, p, "symmetric", symmetric) < 0 ||
        st_parse_link_fields(c, o, p, &l->link) != 0) {
        return -1;
    }
    *symmetric = *symmetric && strcmp(l->from, l->to) != 0;
    return 0;
}

static int fault_steering(tj_ctx_t *c, const json_t *o, const tj_path_t *p, sim_fault_cfg_t *f) {
    int mode = 0;
    if (tj_require(c, o, p, "mode") != 0 || tj_enum(c, o, p, "mode", steer_names, 3, &mode) < 0) {
        return -1;
    }
    f->value = mode;
    int r = tj_prob(c, o, p, "change_p", &f->p);
    if (r < 0) {
        return -1;
    }
    if ((mode == SIM_STEER_RANDOM) != (r == 1)) {
        tj_path_t q;
        tj_key(&q, p, "change_p");
        return tj_fail(c, &q, mode == SIM_STEER_RANDOM ? "missing (required with mode random)"
                                                       : "only with mode random");
    }
    return 0;
}

/* tenant_remove / tenant_add: tenant (a client: its key_id and auth mode),
 * target a server or absent (every server and the oracle), quota_word a
 * valid version-1 word (default: the client's). */
static int fault_tenant(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                        sim_fault_cfg_t *f) {
    if (tj_require(c, o, p, "tenant") != 0 || st_node_ref(c, cfg, o, p, "tenant", false, ST_NODE_CLIENT, f->tenant) < 0 ||
        st_node_ref(c, cfg, o, p, "target", false, ST_NODE_SERVER, f->target) < 0) {
        return -1;
    }
    const sim_client_cfg_t *cl = NULL;
    for (size_t i = 0; i < cfg->n_clients; i++) {
        if (strcmp(cfg->clients[i].name, f->tenant) == 0) {
            cl = &cfg->clients[i];
        }
    }
    f->quota_word = cl != NULL && cl->quota_word != 0 ? cl->quota_word : 0xf8f2b150u;
    uint64_t w64 = f->quota_word;
    if (f->kind == SIM_FAULT_TENANT_ADD && tj_u64_hex(c, o, p, "quota_word", UINT32_MAX, &w64) < 0) {
        return -1;
    }
    uint32_t word = (uint32_t)w64;
    r_api_key_quotas_t q;
    r_key_diag_t diag;
    if (r_client_decode_quota_word(word, &q, &diag) != RCLIENT_OK) {
        tj_path_t qp;
        tj_key(&qp, p, "quota_word");
        return tj_fail(c, &qp, "not a valid quota word: %s", diag.message);
    }
    f->quota_word = word;
    return 0;
}

/* The kind-specific members (the kind's member list was already checked). */
static int fault_members(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                         sim_fault_cfg_t *f, bool *symmetric) {
    if (f->kind == SIM_FAULT_TENANT_REMOVE || f->kind == SIM_FAULT_TENANT_ADD) {
        return fault_tenant(c, cfg, o, p, f);
    }
    if (f->kind == SIM_FAULT_LINK) {
        return fault_link(c, cfg, o, p, f, symmetric);
    }
    if (f->kind == SIM_FAULT_INJECT) {
        int cls = 0;
        f->value = 1;
        return tj_require(c, o, p, "target") != 0 ||
                       st_node_ref(c, cfg, o, p, "target", false, ST_NODE_CLIENT, f->target) < 0 ||
                       tj_require(c, o, p, "from") != 0 ||
                       st_node_ref(c, cfg, o, p, "from", false, ST_NODE_SERVER, f->link.from) < 0 ||
                       tj_require(c, o, p, "class") != 0 || tj_enum(c, o, p, "class", inject_names, 4, &cls) < 0 ||
                       tj_i64(c, o, p, "count", 1, 1000000, &f->value) < 0
                   ? -1
                   : (f->dir = cls, 0);
    }
    if (f->kind == SIM_FAULT_FAILURES && json_object_get(o, "target") == NULL &&
        (json_object_get(o, "from") != NULL || json_object_get(o, "to") != NULL)) {
        /* a link's failures: from/to as for a link fault, no target; symmetric fails both directions together */
        bool both = false;
        strcpy(f->link.from, "*");
        strcpy(f->link.to, "*");
        if (st_node_ref(c, cfg, o, p, "from", true, ST_NODE_NONE, f->link.from) < 0 ||
            st_node_ref(c, cfg, o, p, "to", true, ST_NODE_NONE, f->link.to) < 0 ||
            tj_bool(c, o, p, "symmetric", &both) < 0) {
            return -1;
        }
        f->dir = both && strcmp(f->link.from, f->link.to) != 0;
        goto failures;
    }
    if (f->kind == SIM_FAULT_FAILURES && json_object_get(o, "symmetric") != NULL) {
        tj_path_t q;
        tj_key(&q, p, "symmetric");
        return tj_fail(c, &q, "only with from and to (a link's failures)");
    }
    bool any_node = f->kind == SIM_FAULT_PARTITION || f->kind == SIM_FAULT_SKEW || f->kind == SIM_FAULT_FAILURES;
    if (tj_require(c, o, p, "target") != 0 ||
        st_node_ref(c, cfg, o, p, "target", false, any_node ? ST_NODE_NONE : ST_NODE_SERVER, f->target) < 0) {
        return -1;
    }
    int dir = SIM_DIR_BOTH - 1;
    switch (f->kind) {
    case SIM_FAULT_PAUSE:
        return tj_require(c, o, p, "duration_ms") != 0 ||
                       tj_i64(c, o, p, "duration_ms", 1, ST_MAX_DURATION_MS, &f->value) < 0
                   ? -1
                   : 0;
    case SIM_FAULT_PARTITION:
        f->on = true;
        if (tj_enum(c, o, p, "dir", dir_names, 3, &dir) < 0 || tj_bool(c, o, p, "on", &f->on) < 0) {
            return -1;
        }
        f->dir = dir + 1;
        return 0;
    case SIM_FAULT_DEDUP_DEGRADE: {
        uint32_t cap = 0;
        if (tj_require(c, o, p, "loss_p") != 0 || tj_prob(c, o, p, "loss_p", &f->p) < 0 ||
            tj_u32(c, o, p, "capacity", 0, UINT32_MAX, &cap) < 0) {
            return -1;
        }
        f->value = cap;
        return 0;
    }
    case SIM_FAULT_SKEW:
        return tj_require(c, o, p, "skew_ms") != 0 ||
                       tj_i64(c, o, p, "skew_ms", -ST_MAX_SKEW_MS, ST_MAX_SKEW_MS, &f->value) < 0
                   ? -1
                   : 0;
    case SIM_FAULT_STEERING:
        return fault_steering(c, o, p, f);
    case SIM_FAULT_FAILURES:
    failures:
        f->until_ms = cfg->duration_ms;
        return tj_require(c, o, p, "mtbf_ms") != 0 || tj_u64(c, o, p, "mtbf_ms", 1, ST_MAX_DURATION_MS, &f->mtbf_ms) < 0 ||
                       tj_require(c, o, p, "mttr_ms") != 0 ||
                       tj_u64(c, o, p, "mttr_ms", 1, ST_MAX_DURATION_MS, &f->mttr_ms) < 0 ||
                       tj_u64(c, o, p, "until_ms", f->at_ms, cfg->duration_ms, &f->until_ms) < 0
                   ? -1
                   : 0;
    case SIM_FAULT_RESTART: /* duration_ms: downtime before it comes back (default 0) */
        return tj_i64(c, o, p, "duration_ms", 0, ST_MAX_DURATION_MS, &f->value) < 0 ? -1 : 0;
    default: /* dedup_heal: the target only */
        return 0;
    }
}

static int parse_fault(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                       sim_fault_cfg_t *f, bool *symmetric) {
    int kind = 0;
    memset(f, 0, sizeof *f);
    *symmetric = false;
    if (tj_object(c, o, p, fault_keys) != 0 || tj_require(c, o, p, "at_ms") != 0 ||
        tj_u64(c, o, p, "at_ms", 0, cfg->duration_ms, &f->at_ms) < 0 || tj_require(c, o, p, "kind") != 0 ||
        tj_enum(c, o, p, "kind", fault_kinds, 12, &kind) < 0 ||
        tj_object_kind(c, o, p, fault_keys, fault_used[kind], fault_kinds[kind]) != 0) {
        return -1;
    }
    f->kind = (sim_fault_kind_t)(kind + 1);
    return fault_members(c, cfg, o, p, f, symmetric);
}

/* A restart gives the server start time = the run clock, in whole seconds
 * (sim_config.h SIM_FAULT_RESTART). It must change the server's server_id
 * (else clients cannot tell the restart) and not take another server's. */
static int check_restart(tj_ctx_t *c, const sim_config_t *cfg, const tj_path_t *p, const sim_fault_cfg_t *f,
                         uint64_t *start) {
    size_t t = 0;
    while (strcmp(cfg->servers[t].name, f->target) != 0) {
        t++;
    }
    uint64_t now_s = RUN_EPOCH_S + (f->at_ms + (uint64_t)f->value) / 1000u; /* after the downtime */
    if (now_s == start[t]) {
        return tj_fail(c, p, "restart of %s in the second it started keeps its server_id; restart it later",
                       f->target);
    }
    for (size_t i = 0; i < cfg->n_servers; i++) {
        const sim_server_params_t *a = &cfg->servers[i].params, *b = &cfg->servers[t].params;
        if (i != t && start[i] == now_s && a->listener_id == b->listener_id && a->node_id == b->node_id) {
            return tj_fail(c, p, "restart of %s would give it the server_id of %s", f->target,
                           cfg->servers[i].name);
        }
    }
    start[t] = now_s;
    return 0;
}

int st_parse_faults(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    tj_path_t p;
    json_t *arr = NULL;
    tj_key(&p, NULL, "faults");
    if (tj_array(c, root, NULL, "faults", ST_MAX_FAULTS, &arr) <= 0) {
        return c->failed ? -1 : 0;
    }
    uint64_t start[ST_MAX_SERVERS]; /* each server's start as the timeline goes */
    for (size_t i = 0; i < cfg->n_servers; i++) {
        start[i] = cfg->servers[i].params.server_start_s;
    }
    size_t n = json_array_size(arr);
    cfg->faults = calloc(2 * n + 1, sizeof *cfg->faults);
    if (cfg->faults == NULL) {
        return tj_fail(c, &p, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q, aq;
        bool symmetric = false;
        sim_fault_cfg_t *f = &cfg->faults[cfg->n_faults];
        tj_idx(&q, &p, i);
        tj_key(&aq, &q, "at_ms");
        if (parse_fault(c, cfg, json_array_get(arr, i), &q, f, &symmetric) != 0) {
            return -1;
        }
        if (cfg->n_faults > 0 && f->at_ms < f[-1].at_ms) {
            return tj_fail(c, &aq, "earlier than the fault before it (faults are listed in time order)");
        }
        if (f->kind == SIM_FAULT_RESTART && check_restart(c, cfg, &q, f, start) != 0) {
            return -1;
        }
        cfg->n_faults++;
        if (symmetric) { /* the reverse direction, at the same time */
            f[1] = f[0];
            memcpy(f[1].link.from, f[0].link.to, SIM_NAME_MAX);
            memcpy(f[1].link.to, f[0].link.from, SIM_NAME_MAX);
            cfg->n_faults++;
        }
    }
    return 0;
}
