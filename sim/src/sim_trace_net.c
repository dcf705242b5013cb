/* SPDX-License-Identifier: MIT */
/* sim_trace_net.c - trace sections for the network and the environment
 * (docs/traces.md "Links", "DNS", "Faults"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim_dns.h"
#include "sim_trace_int.h"

/* ---- latency and loss ----------------------------------------------------- */

static const char *const lat_keys[] = {"kind", "base_us", "spread_us", "alpha", "jitter_us", "file", "fraction", NULL};
static const char *const lat_kinds[] = {"const", "uniform", "exp", "pareto", "empirical"}; /* sim_latency_kind_t */
static const char *const lat_used[][6] = {
    {"kind", "base_us", "jitter_us", NULL},
    {"kind", "base_us", "spread_us", "jitter_us", NULL},
    {"kind", "base_us", "spread_us", "jitter_us", NULL},
    {"kind", "base_us", "spread_us", "alpha", "jitter_us", NULL},
    {"kind", "base_us", "jitter_us", "file", "fraction", NULL},
};

#define SAMPLES_MAX 1000000u

/* The samples file of an empirical latency: one round-trip time in us per
 * line (decimal, 0 .. 4294967295), blank lines and '#' comments ignored; the
 * path is relative to the trace file's directory. */
static int read_samples(tj_ctx_t *c, const tj_path_t *p, const char *name, sim_latency_t *out) {
    char path[4096];
    const char *slash = strrchr(c->file, '/');
    if (name[0] == '/' || slash == NULL) {
        snprintf(path, sizeof path, "%s", name);
    } else {
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - c->file), c->file, name);
    }
    struct stat st;
    FILE *f = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
    if (f == NULL) {
        return tj_fail(c, p, "cannot read samples file %s (a regular file relative to the trace)", path);
    }
    uint32_t *v = NULL;
    size_t n = 0, cap = 0, line_no = 0;
    char line[128];
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        line_no++;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0') continue;
        char *end = NULL;
        unsigned long long x = (*s >= '0' && *s <= '9') ? strtoull(s, &end, 10) : 0;
        while (end != NULL && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) end++;
        if (end == NULL || *end != '\0' || x > UINT32_MAX) {
            rc = tj_fail(c, p, "%s line %zu: expected a round-trip time in us (0 .. 4294967295)", path, line_no);
        } else if (n == SAMPLES_MAX) {
            rc = tj_fail(c, p, "%s: more than %u samples", path, SAMPLES_MAX);
        } else {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                uint32_t *g = realloc(v, cap * sizeof *v);
                if (g == NULL) {
                    rc = tj_fail(c, p, "out of memory");
                    break;
                }
                v = g;
            }
            v[n++] = (uint32_t)x;
        }
    }
    fclose(f);
    sim_config_t *cfg = c->owner;
    if (rc == 0 && n == 0) rc = tj_fail(c, p, "%s: no samples", path);
    uint32_t **t = rc == 0 && cfg != NULL ? realloc(cfg->sample_tables, (cfg->n_sample_tables + 1) * sizeof *t) : NULL;
    if (rc == 0 && t == NULL) rc = tj_fail(c, p, "out of memory");
    if (rc != 0) {
        free(v);
        return -1;
    }
    cfg->sample_tables = t;
    cfg->sample_tables[cfg->n_sample_tables++] = v;
    out->samples = v;
    out->n_samples = (uint32_t)n;
    return 0;
}

int st_parse_latency(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_latency_t *out) {
    int kind = 0;
    memset(out, 0, sizeof *out);
    if (tj_object(c, v, p, lat_keys) != 0 || tj_enum(c, v, p, "kind", lat_kinds, 5, &kind) < 0 ||
        tj_object_kind(c, v, p, lat_keys, lat_used[kind], lat_kinds[kind]) != 0) {
        return -1;
    }
    out->kind = (sim_latency_kind_t)kind;
    out->alpha = out->kind == SIM_LAT_PARETO ? 2.0 : 0.0;
    if (tj_u32(c, v, p, "base_us", 0, UINT32_MAX, &out->base_us) < 0 ||
        tj_u32(c, v, p, "spread_us", 0, UINT32_MAX, &out->spread_us) < 0 ||
        tj_num(c, v, p, "alpha", 1.0, true, 100.0, &out->alpha) < 0 ||
        tj_u32(c, v, p, "jitter_us", 0, UINT32_MAX, &out->jitter_us) < 0) {
        return -1;
    }
    if (out->kind == SIM_LAT_EMPIRICAL) {
        char name[1024];
        out->fraction = 0.5;
        tj_path_t q;
        tj_key(&q, p, "file");
        if (tj_require(c, v, p, "file") != 0 || tj_str(c, v, p, "file", false, name, sizeof name) < 0 ||
            tj_num(c, v, p, "fraction", 0.0, false, 1000.0, &out->fraction) < 0 || read_samples(c, &q, name, out) != 0) {
            return -1;
        }
    }
    return 0;
}

/* Probabilities end in _p (docs/traces.md "Units"). */
static const char *const loss_keys[] = {"kind", "loss_p", "good_to_bad_p", "bad_to_good_p", "good_loss_p",
                                        "bad_loss_p", "shared", NULL};
static const char *const loss_kinds[] = {"none", "bernoulli", "gilbert"}; /* sim_loss_kind_t order */
static const char *const loss_used[][7] = {
    {"kind", NULL},
    {"kind", "loss_p", NULL},
    {"kind", "good_to_bad_p", "bad_to_good_p", "good_loss_p", "bad_loss_p", "shared", NULL},
};

/* The chain index (1-based) of a shared Gilbert-Elliott name, added on first use. */
static int shared_chain(tj_ctx_t *c, const json_t *v, const tj_path_t *p, uint32_t *out) {
    char name[SIM_NAME_MAX];
    int r = tj_str(c, v, p, "shared", false, name, sizeof name);
    sim_config_t *cfg = c->owner;
    if (r != 1 || cfg == NULL) return r < 0 ? -1 : 0;
    for (size_t i = 0; i < cfg->n_shared_loss; i++) {
        if (strcmp(cfg->shared_loss[i], name) == 0) {
            *out = (uint32_t)i + 1u;
            return 0;
        }
    }
    if (cfg->n_shared_loss == SIM_NET_SHARED_MAX) {
        tj_path_t q;
        tj_key(&q, p, "shared");
        return tj_fail(c, &q, "more than %u shared loss chains", SIM_NET_SHARED_MAX);
    }
    snprintf(cfg->shared_loss[cfg->n_shared_loss], SIM_NAME_MAX, "%s", name);
    *out = (uint32_t)++cfg->n_shared_loss;
    return 0;
}

static int parse_loss(tj_ctx_t *c, const json_t *v, const tj_path_t *p, sim_loss_t *out) {
    int kind = 0;
    memset(out, 0, sizeof *out);
    if (tj_object(c, v, p, loss_keys) != 0 || tj_require(c, v, p, "kind") != 0 ||
        tj_enum(c, v, p, "kind", loss_kinds, 3, &kind) < 0 ||
        tj_object_kind(c, v, p, loss_keys, loss_used[kind], loss_kinds[kind]) != 0) {
        return -1;
    }
    out->kind = (sim_loss_kind_t)kind;
    out->loss_bad = out->kind == SIM_LOSS_GILBERT ? 1.0 : 0.0;
    if (out->kind == SIM_LOSS_BERNOULLI) {
        return tj_require(c, v, p, "loss_p") != 0 || tj_prob(c, v, p, "loss_p", &out->p) < 0 ? -1 : 0;
    }
    if (out->kind == SIM_LOSS_GILBERT &&
        (tj_require(c, v, p, "good_to_bad_p") != 0 || tj_prob(c, v, p, "good_to_bad_p", &out->p_good_to_bad) < 0 ||
         tj_require(c, v, p, "bad_to_good_p") != 0 || tj_prob(c, v, p, "bad_to_good_p", &out->p_bad_to_good) < 0 ||
         tj_prob(c, v, p, "good_loss_p", &out->loss_good) < 0 || tj_prob(c, v, p, "bad_loss_p", &out->loss_bad) < 0 ||
         shared_chain(c, v, p, &out->shared) != 0)) {
        return -1;
    }
    return 0;
}

/* ---- links -------------------------------------------------------------------- */

const char *const st_link_members[] = {"latency", "loss", "duplicate_p", "reorder_p", "reorder_us", "down", NULL};

int st_parse_link_fields(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, sim_link_t *inout) {
    tj_path_t q;
    const json_t *lat = json_object_get(obj, "latency");
    const json_t *loss = json_object_get(obj, "loss");
    tj_key(&q, p, "latency");
    if (lat != NULL && st_parse_latency(c, lat, &q, &inout->latency) != 0) {
        return -1;
    }
    tj_key(&q, p, "loss");
    if (loss != NULL && parse_loss(c, loss, &q, &inout->loss) != 0) {
        return -1;
    }
    if (tj_prob(c, obj, p, "duplicate_p", &inout->duplicate_p) < 0 ||
        tj_prob(c, obj, p, "reorder_p", &inout->reorder_p) < 0 ||
        tj_u32(c, obj, p, "reorder_us", 0, UINT32_MAX, &inout->reorder_us) < 0 ||
        tj_bool(c, obj, p, "down", &inout->down) < 0) {
        return -1;
    }
    return 0;
}

static const char *const override_keys[] = {"from", "to", "symmetric", "latency", "loss", "duplicate_p",
                                            "reorder_p", "reorder_us", "down", NULL};
static const char *const links_keys[] = {"default", "overrides", NULL};

/* from/to (default "*"), symmetric, then the link members over links.default.
 * Writes one entry, or two (both directions) when symmetric. */
static int parse_override(tj_ctx_t *c, const json_t *o, const tj_path_t *p, const sim_config_t *cfg,
                          sim_link_cfg_t out[2], size_t *n_out) {
    bool symmetric = false;
    memset(out, 0, 2 * sizeof *out);
    strcpy(out[0].from, "*");
    strcpy(out[0].to, "*");
    out[0].link = cfg->default_link;
    if (tj_object(c, o, p, override_keys) != 0 ||
        st_node_ref(c, cfg, o, p, "from", true, ST_NODE_NONE, out[0].from) < 0 ||
        st_node_ref(c, cfg, o, p, "to", true, ST_NODE_NONE, out[0].to) < 0 ||
        tj_bool(c, o, p, "symmetric", &symmetric) < 0 || st_parse_link_fields(c, o, p, &out[0].link) != 0) {
        return -1;
    }
    *n_out = 1;
    if (symmetric && strcmp(out[0].from, out[0].to) != 0) {
        out[1] = out[0];
        memcpy(out[1].from, out[0].to, SIM_NAME_MAX);
        memcpy(out[1].to, out[0].from, SIM_NAME_MAX);
        *n_out = 2;
    }
    return 0;
}

int st_parse_links(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    tj_path_t p, dp, op;
    json_t *arr = NULL;
    memset(&cfg->default_link, 0, sizeof cfg->default_link);
    cfg->default_link.latency.base_us = 250;
    cfg->default_link.reorder_us = 1000;
    const json_t *links = json_object_get(root, "links");
    if (links == NULL) {
        return 0;
    }
    tj_key(&p, NULL, "links");
    tj_key(&dp, &p, "default");
    tj_key(&op, &p, "overrides");
    const json_t *d = json_object_get(links, "default");
    if (tj_object(c, links, &p, links_keys) != 0 ||
        (d != NULL && (tj_object(c, d, &dp, st_link_members) != 0 ||
                       st_parse_link_fields(c, d, &dp, &cfg->default_link) != 0)) ||
        tj_array(c, links, &p, "overrides", ST_MAX_LINKS, &arr) < 0) {
        return -1;
    }
    size_t n = json_array_size(arr);
    cfg->links = calloc(2 * n + 1, sizeof *cfg->links);
    if (cfg->links == NULL) {
        return tj_fail(c, &op, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q;
        size_t k = 0;
        tj_idx(&q, &op, i);
        if (parse_override(c, json_array_get(arr, i), &q, cfg, &cfg->links[cfg->n_links], &k) != 0) {
            return -1;
        }
        cfg->n_links += k;
    }
    return 0;
}

/* ---- DNS ------------------------------------------------------------------------ */

static const char *const dns_keys[] = {"name", "latency_us", "timeout_us", "epochs", NULL};
static const char *const epoch_keys[] = {"at_ms", "mode", "members", NULL};
static const char *const member_keys[] = {"server", "target", "port", "ttl_s", "no_addr", NULL};
static const char *const dns_modes[] = {"ok", "fail", "timeout"}; /* sim_dns_mode_t order */

static int parse_member(tj_ctx_t *c, const sim_config_t *cfg, const json_t *v, const tj_path_t *p,
                        struct sim_dns_member *m) {
    memset(m, 0, sizeof *m);
    m->port = 29292;
    m->ttl_s = 30;
    if (json_is_string(v)) { /* shorthand: a server name */
        const char *name = json_string_value(v);
        if (json_string_length(v) >= SIM_NAME_MAX || st_node_kind(cfg, name) != ST_NODE_SERVER) {
            return tj_fail(c, p, "unknown server \"%.40s\" (expected a server name)", name);
        }
        memcpy(m->server, name, json_string_length(v) + 1);
        return 0;
    }
    uint32_t port = m->port;
    int s, t;
    if (tj_object(c, v, p, member_keys) != 0 ||
        (s = st_node_ref(c, cfg, v, p, "server", false, ST_NODE_SERVER, m->server)) < 0 ||
        (t = tj_str(c, v, p, "target", false, m->raw_target, sizeof m->raw_target)) < 0 ||
        tj_u32(c, v, p, "port", 1, 65535, &port) < 0 || tj_u32(c, v, p, "ttl_s", 0, UINT32_MAX, &m->ttl_s) < 0 ||
        tj_bool(c, v, p, "no_addr", &m->no_addr) < 0) {
        return -1;
    }
    m->port = (uint16_t)port;
    if (s + t != 1) {
        return tj_fail(c, p, "give exactly one of server and target");
    }
    return 0;
}

static int parse_epoch(tj_ctx_t *c, const sim_config_t *cfg, const json_t *o, const tj_path_t *p,
                       sim_dns_epoch_cfg_t *e) {
    int mode = 0;
    json_t *arr = NULL;
    tj_path_t mp;
    tj_key(&mp, p, "members");
    if (tj_object(c, o, p, epoch_keys) != 0 || tj_require(c, o, p, "at_ms") != 0 ||
        tj_u64(c, o, p, "at_ms", 0, cfg->duration_ms, &e->at_ms) < 0 ||
        tj_enum(c, o, p, "mode", dns_modes, 3, &mode) < 0 ||
        tj_array(c, o, p, "members", ST_MAX_MEMBERS, &arr) < 0) {
        return -1;
    }
    e->mode = mode;
    if (mode != SIM_DNS_OK) {
        return arr != NULL ? tj_fail(c, &mp, "only with mode ok") : 0;
    }
    if (arr == NULL) {
        return tj_fail(c, &mp, "missing (required with mode ok; [] is an empty answer)");
    }
    size_t n = json_array_size(arr);
    e->members = calloc(n != 0 ? n : 1, sizeof *e->members);
    if (e->members == NULL) {
        return tj_fail(c, &mp, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q;
        tj_idx(&q, &mp, i);
        if (parse_member(c, cfg, json_array_get(arr, i), &q, &e->members[i]) != 0) {
            return -1;
        }
        e->n_members++;
    }
    return 0;
}

/* Without epochs: one epoch at 0 answering every server, in trace order. */
static int default_epoch(tj_ctx_t *c, sim_config_t *cfg) {
    cfg->dns = calloc(1, sizeof *cfg->dns);
    if (cfg->dns == NULL || (cfg->dns->members = calloc(cfg->n_servers, sizeof *cfg->dns->members)) == NULL) {
        return tj_fail(c, NULL, "out of memory");
    }
    cfg->n_dns = 1;
    for (size_t i = 0; i < cfg->n_servers; i++) {
        struct sim_dns_member *m = &cfg->dns->members[i];
        memcpy(m->server, cfg->servers[i].name, SIM_NAME_MAX);
        m->port = 29292;
        m->ttl_s = 30;
    }
    cfg->dns->n_members = cfg->n_servers;
    return 0;
}

int st_parse_dns(tj_ctx_t *c, const json_t *root, sim_config_t *cfg) {
    tj_path_t p, ep;
    json_t *arr = NULL;
    const json_t *dns = json_object_get(root, "dns");
    strcpy(cfg->tenant_dns_name, "rl.sim.example");
    cfg->dns_latency_us = 1000;
    cfg->dns_timeout_us = 500000;
    tj_key(&p, NULL, "dns");
    tj_key(&ep, &p, "epochs");
    if (dns != NULL &&
        (tj_object(c, dns, &p, dns_keys) != 0 ||
         tj_str(c, dns, &p, "name", false, cfg->tenant_dns_name, sizeof cfg->tenant_dns_name) < 0 ||
         tj_u32(c, dns, &p, "latency_us", 0, UINT32_MAX, &cfg->dns_latency_us) < 0 ||
         tj_u32(c, dns, &p, "timeout_us", 0, UINT32_MAX, &cfg->dns_timeout_us) < 0 ||
         tj_array(c, dns, &p, "epochs", ST_MAX_EPOCHS, &arr) < 0)) {
        return -1;
    }
    if (arr == NULL) {
        return default_epoch(c, cfg);
    }
    size_t n = json_array_size(arr);
    if (n == 0) {
        return tj_fail(c, &ep, "at least one epoch is required (omit epochs for the default)");
    }
    cfg->dns = calloc(n, sizeof *cfg->dns);
    if (cfg->dns == NULL) {
        return tj_fail(c, &ep, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        tj_path_t q, aq;
        tj_idx(&q, &ep, i);
        tj_key(&aq, &q, "at_ms");
        sim_dns_epoch_cfg_t *e = &cfg->dns[i];
        cfg->n_dns++; /* counted before filling: sim_config_free releases partial members */
        if (parse_epoch(c, cfg, json_array_get(arr, i), &q, e) != 0) {
            return -1;
        }
        if (i == 0 && e->at_ms != 0) {
            return tj_fail(c, &aq, "the first epoch must start at 0");
        }
        if (i > 0 && e->at_ms <= cfg->dns[i - 1].at_ms) {
            return tj_fail(c, &aq, "must be later than epochs[%zu].at_ms (%" PRIu64 ")", i - 1, cfg->dns[i - 1].at_ms);
        }
    }
    return 0;
}
