/* SPDX-License-Identifier: MIT */
/* sim_world.c - one simulated run: build the world from a config and a seed,
 * schedule the fault timeline, run the engine, drain, check expectations,
 * tear down. The run is a pure function of (config, seed). */
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

#define DRAIN_US (10u * 1000u * 1000u) /* after the last arrival, time for in-flight requests to finish */

/* ---- name lookup --------------------------------------------------------------- */

static long server_by_name(const sim_world_t *w, const char *name) {
    for (size_t i = 0; i < w->n_servers; i++) {
        if (strcmp(w->cfg->servers[i].name, name) == 0) return (long)i;
    }
    return -1;
}

static long client_by_name(const sim_world_t *w, const char *name) {
    for (size_t i = 0; i < w->cfg->n_clients; i++) {
        if (strcmp(w->cfg->clients[i].name, name) == 0) return (long)i;
    }
    return -1;
}

#define NODE_UNKNOWN (UINT32_MAX - 1u) /* SIM_NODE_ANY is UINT32_MAX */

/* Node of a client or server name; SIM_NODE_ANY for "*"; NODE_UNKNOWN otherwise. */
static uint32_t node_by_name(const sim_world_t *w, const char *name) {
    if (strcmp(name, "*") == 0) return SIM_NODE_ANY;
    long c = client_by_name(w, name);
    if (c >= 0) return (uint32_t)c;
    long s = server_by_name(w, name);
    return s >= 0 ? (uint32_t)(w->cfg->n_clients + (size_t)s) : NODE_UNKNOWN;
}

/* ---- network delivery dispatch ------------------------------------------------------ */

static void deliver(void *ctx, uint32_t src, uint32_t dst, const uint8_t *data, size_t len) {
    sim_world_t *w = ctx;
    if (dst < w->n_hosts) {
        sim_host_deliver(w, &w->hosts[dst], src, data, len);
    } else if (dst - w->n_hosts < w->n_servers) {
        sim_server_deliver(w, &w->servers[dst - w->n_hosts], src, data, len);
    }
}

/* ---- DNS timeline ------------------------------------------------------------------------ */

static int setup_dns(sim_world_t *w) {
    const sim_config_t *cfg = w->cfg;
    char srv_name[200];
    const char *zone = cfg->tenant_dns_name[0] ? cfg->tenant_dns_name : "rl.sim.example";
    snprintf(srv_name, sizeof srv_name, "_ratelimitly._udp.%s", zone);
    /* the loader fills the documented defaults; an explicit 0 means "answer at once" */
    w->dns = sim_dns_new(&w->engine, w->log, srv_name, cfg->dns_latency_us, cfg->dns_timeout_us);
    if (w->dns == NULL) return -1;
    for (size_t e = 0; e < cfg->n_dns; e++) {
        const sim_dns_epoch_cfg_t *ec = &cfg->dns[e];
        sim_dns_record_t *recs = calloc(ec->n_members ? ec->n_members : 1, sizeof *recs);
        if (recs == NULL) return -1;
        for (size_t i = 0; i < ec->n_members; i++) {
            const struct sim_dns_member *m = &ec->members[i];
            sim_dns_record_t *r = &recs[i];
            r->port = m->port ? m->port : 29292;
            r->ttl_s = m->ttl_s;
            long s = m->server[0] ? server_by_name(w, m->server) : -1;
            if (s >= 0) {
                snprintf(r->target, sizeof r->target, "s-%llu.%s.",
                         (unsigned long long)sim_server_id_at(w, (size_t)s, ec->at_ms), zone);
                r->has_addr = !m->no_addr;
                r->addr = sim_node_addr(w, w->servers[s].node, r->port);
            } else {
                snprintf(r->target, sizeof r->target, "%s", m->raw_target);
                r->has_addr = false;
            }
        }
        sim_dns_epoch_t ep = {.from = ec->at_ms * SIM_US_PER_MS, .mode = (sim_dns_mode_t)ec->mode,
                              .records = recs, .n_records = ec->n_members};
        int rc = sim_dns_add_epoch(w->dns, &ep);
        free(recs);
        if (rc != 0) return -1;
    }
    return 0;
}

/* ---- faults ------------------------------------------------------------------------------ */

/* Inject fault: count datagrams into the client as if from the server
 * (docs/traces.md "faults"), delivered at once through the client's normal
 * receive path, so the metrics classify them as any other datagram. */
static void inject(sim_world_t *w, size_t idx, const sim_fault_cfg_t *f, long c, long s) {
    if (c < 0 || s < 0) return;
    sim_node_server_t *srv = &w->servers[s];
    const uint8_t *last = srv->last_resp != NULL ? srv->last_resp[c] : NULL;
    uint32_t last_len = 0;
    if (last != NULL) memcpy(&last_len, last, 4);
    sim_rng_t rng;
    sim_rng_entity(&rng, w->seed, SIM_STREAM_FAULT, idx, 0);
    for (int64_t k = 0; k < f->value; k++) {
        uint8_t d[1500];
        size_t len = 0;
        if (f->dir == SIM_INJECT_INVALID) {
            len = 16 + (size_t)sim_rng_below(&rng, 113); /* 16..128 random bytes */
            sim_rng_bytes(&rng, d, len);
        } else if (last_len >= 28) {
            len = last_len;
            memcpy(d, last + 4, len);
            if (f->dir == SIM_INJECT_FORGED) d[48] ^= 0x01; /* first byte of the auth TLV's value (cookie, nonce) */
            if (f->dir == SIM_INJECT_WRONG_IDENTITY) d[4] ^= 0x01; /* key_id = server_id, low byte */
        }
        if (len == 0) continue; /* nothing to replay yet */
        w->m.injected_datagrams++;
        sim_log_record_bytes(w->log, sim_engine_now(&w->engine), SIM_LOG_DELIVER, srv->node, (uint64_t)c, len, d, len);
        sim_host_deliver(w, &w->hosts[c], srv->node, d, len);
    }
}

/* A failures process (MTBF/MTTR): the node works for an exponential time of
 * mean mtbf_ms, then is cut off both ways for an exponential time of mean
 * mttr_ms, and so on until until_ms (then it works). arg: fault index << 1 |
 * the state entered (1 failed). Draws from the fault's own stream. */
static void ev_failure(void *ctx, uint64_t arg, void *ptr) {
    sim_world_t *w = ctx;
    sim_rng_t *rng = ptr;
    size_t idx = (size_t)(arg >> 1);
    bool fail = arg & 1u;
    const sim_fault_cfg_t *f = &w->cfg->faults[idx];
    sim_time_t now = sim_engine_now(&w->engine), until = f->until_ms * SIM_US_PER_MS;
    if (now >= until) fail = false;
    if (f->target[0] != '\0') {
        sim_net_partition(w->net, node_by_name(w, f->target), SIM_DIR_BOTH, fail);
    } else { /* a link's failures: its links down (and the reverse ones with symmetric) */
        uint32_t a = node_by_name(w, f->link.from), b = node_by_name(w, f->link.to);
        if (sim_net_fail(w->net, a, b, (uint32_t)idx, fail) != 0 ||
            (f->dir && sim_net_fail(w->net, b, a, (uint32_t)idx, fail) != 0))
            w->failed = true;
    }
    sim_log_record(w->log, now, SIM_LOG_FAULT, SIM_FAULT_FAILURES, idx, fail);
    if (now > w->last_fault) w->last_fault = now; /* convergence counts from the last transition */
    if (sim_conv_add(w, now, SIM_FAULT_FAILURES, (uint32_t)idx) != 0) w->failed = true;
    w->has_fault = true;
    if (now >= until) return;
    double mean_ms = (double)(fail ? f->mttr_ms : f->mtbf_ms);
    double d_us = sim_rng_exp(rng, mean_ms * 1000.0);
    sim_time_t next = now + (d_us < 1.0 ? 1 : d_us < (double)(until - now) ? (sim_time_t)d_us : until - now);
    sim_engine_schedule(&w->engine, next, SIM_CLASS_CONTROL, ev_failure, w, (uint64_t)idx << 1 | (fail ? 0u : 1u), rng);
}

/* The end of a restart's downtime: the server comes back under its new identity. */
static void ev_comeback(void *ctx, uint64_t idx, void *ptr) {
    sim_node_server_t *s = ptr;
    sim_world_t *w = ctx;
    (void)idx;
    s->down_until = 0;
    sim_server_do_restart(w, s);
}

int sim_world_tenant_fault(sim_world_t *w, sim_server_t *srv, const sim_fault_cfg_t *f) {
    long c = client_by_name(w, f->tenant);
    if (c < 0) return -1;
    const sim_client_cfg_t *cl = w->hosts[c].cfg;
    if (f->kind == SIM_FAULT_TENANT_REMOVE) return sim_server_remove_tenant(srv, cl->key_id) < 0 ? -1 : 0;
    char key[SIM_KEY_TEXT_MAX];
    if (sim_key_make(cl->auth, cl->key_id, f->quota_word, key, sizeof key) != 0) return -1;
    int rc = sim_server_admit_tenant(srv, cl->key_id, key, NULL);
    memset(key, 0, sizeof key);
    return rc;
}

/* tenant_remove / tenant_add (docs/traces.md "Faults"): the model's own
 * mutation path (validation, memory admission) on the target server, or on
 * every server and, in instant order, on the oracle. Value logged: 1 applied
 * everywhere, 0 when a model refused it. */
static int64_t tenant_fault(sim_world_t *w, size_t idx, const sim_fault_cfg_t *f, long s) {
    int64_t ok = 1;
    for (size_t i = 0; i < w->n_servers; i++) {
        if (s < 0 || (size_t)s == i) {
            ok &= sim_world_tenant_fault(w, w->servers[i].srv, f) == 0;
        }
    }
    if (f->target[0] == '\0' && sim_oracle_queue_fault(w, idx, sim_engine_now(&w->engine), ++w->pseq) != 0) {
        w->failed = true;
    }
    return ok;
}

static void ev_fault(void *ctx, uint64_t idx, void *ptr) {
    (void)ptr;
    sim_world_t *w = ctx;
    const sim_fault_cfg_t *f = &w->cfg->faults[idx];
    sim_time_t now = sim_engine_now(&w->engine);
    long s = server_by_name(w, f->target);
    long c = client_by_name(w, f->target);
    switch (f->kind) {
    case SIM_FAULT_RESTART:
        if (s >= 0 && f->value > 0) {
            /* down for duration_ms: every datagram dropped, then the new identity */
            w->servers[s].down_until = now + (sim_time_t)f->value * SIM_US_PER_MS;
            sim_engine_schedule(&w->engine, w->servers[s].down_until, SIM_CLASS_CONTROL, ev_comeback, w, idx,
                                &w->servers[s]);
        } else if (s >= 0) {
            sim_server_do_restart(w, &w->servers[s]);
        }
        break;
    case SIM_FAULT_PAUSE:
        if (s >= 0) {
            /* packets arriving meanwhile are queued to paused_until (sim_server_deliver) */
            w->servers[s].paused_until = now + (sim_time_t)(f->value > 0 ? f->value : 0) * SIM_US_PER_MS;
        }
        break;
    case SIM_FAULT_LINK:
        sim_net_set_link(w->net, node_by_name(w, f->link.from), node_by_name(w, f->link.to), &f->link.link);
        break;
    case SIM_FAULT_PARTITION:
        if (node_by_name(w, f->target) != NODE_UNKNOWN) {
            sim_net_partition(w->net, node_by_name(w, f->target), (sim_dir_t)f->dir, f->on);
        }
        break;
    case SIM_FAULT_DEDUP_DEGRADE:
        if (s >= 0) sim_server_set_dedup_degraded(w->servers[s].srv, f->p, (uint32_t)(f->value > 0 ? f->value : 0));
        break;
    case SIM_FAULT_DEDUP_HEAL:
        if (s >= 0) sim_server_set_dedup_degraded(w->servers[s].srv, 0, 0);
        break;
    case SIM_FAULT_SKEW:
        if (s >= 0) w->servers[s].skew_ms = f->value;
        if (c >= 0) w->hosts[c].skew_ms = f->value;
        break;
    case SIM_FAULT_STEERING:
        if (s >= 0) sim_server_set_steering(w->servers[s].srv, (sim_steer_mode_t)f->value, f->p);
        break;
    case SIM_FAULT_INJECT:
        inject(w, idx, f, c, server_by_name(w, f->link.from));
        break;
    case SIM_FAULT_TENANT_REMOVE:
    case SIM_FAULT_TENANT_ADD:
        sim_log_record(w->log, now, SIM_LOG_FAULT, (uint64_t)f->kind, idx, (uint64_t)tenant_fault(w, idx, f, s));
        return;
    case SIM_FAULT_FAILURES: {
        sim_rng_t *rng = &w->fault_rngs[idx];
        sim_rng_entity(rng, w->seed, SIM_STREAM_FAULT, idx, 1);
        double d_us = sim_rng_exp(rng, (double)f->mtbf_ms * 1000.0);
        sim_time_t until = f->until_ms * SIM_US_PER_MS;
        sim_time_t next = now + (d_us < (double)(until - now) ? (sim_time_t)d_us : until - now);
        sim_engine_schedule(&w->engine, next, SIM_CLASS_CONTROL, ev_failure, w, (uint64_t)idx << 1 | 1u, rng);
        break;
    }
    }
    sim_log_record(w->log, now, SIM_LOG_FAULT, (uint64_t)f->kind, idx, (uint64_t)f->value);
}

static int check_names(sim_world_t *w) {
    const sim_config_t *cfg = w->cfg;
    for (size_t i = 0; i < cfg->n_faults; i++) {
        const sim_fault_cfg_t *f = &cfg->faults[i];
        if (f->kind == SIM_FAULT_INJECT && f->dir != SIM_INJECT_INVALID) {
            long s = server_by_name(w, f->link.from), c = client_by_name(w, f->target);
            if (s < 0 || c < 0) continue;
            sim_node_server_t *srv = &w->servers[s];
            if (srv->last_resp == NULL) srv->last_resp = calloc(cfg->n_clients, sizeof *srv->last_resp);
            if (srv->last_resp == NULL) return -1;
            if (srv->last_resp[c] == NULL) srv->last_resp[c] = calloc(1, 1504);
            if (srv->last_resp[c] == NULL) return -1;
        }
        if ((f->kind == SIM_FAULT_TENANT_REMOVE || f->kind == SIM_FAULT_TENANT_ADD) && f->target[0] == '\0') continue;
        bool ok = f->kind == SIM_FAULT_LINK || (f->kind == SIM_FAULT_FAILURES && f->target[0] == '\0')
                      ? node_by_name(w, f->link.from) != NODE_UNKNOWN && node_by_name(w, f->link.to) != NODE_UNKNOWN
                      : node_by_name(w, f->target) != NODE_UNKNOWN;
        if (!ok) {
            snprintf(w->err, sizeof w->err, "faults[%zu]: unknown node name", i);
            return -1;
        }
    }
    for (size_t i = 0; i < cfg->n_links; i++) {
        if (node_by_name(w, cfg->links[i].from) == NODE_UNKNOWN || node_by_name(w, cfg->links[i].to) == NODE_UNKNOWN) {
            snprintf(w->err, sizeof w->err, "links[%zu]: unknown node name", i);
            return -1;
        }
    }
    return 0;
}

/* ---- expectations --------------------------------------------------------------------------- */

static bool compare(double a, sim_op_t op, double b) {
    switch (op) {
    case SIM_OP_LE: return a <= b;
    case SIM_OP_GE: return a >= b;
    case SIM_OP_EQ: return a == b;
    case SIM_OP_LT: return a < b;
    case SIM_OP_GT: return a > b;
    }
    return false;
}

static const char *op_text(sim_op_t op) {
    static const char *T[] = {"<=", ">=", "==", "<", ">"};
    return (unsigned)op < 5 ? T[op] : "?";
}

static void check_expectations(sim_world_t *w, sim_result_t *out) {
    const sim_config_t *cfg = w->cfg;
    out->n_expects = cfg->n_expects;
    out->expects = calloc(cfg->n_expects ? cfg->n_expects : 1, sizeof *out->expects);
    if (out->expects == NULL) return;
    for (size_t i = 0; i < cfg->n_expects; i++) {
        const sim_expect_cfg_t *e = &cfg->expects[i];
        sim_expect_result_t *r = &out->expects[i];
        if (e->kind == SIM_EXPECT_METRIC) {
            double v = 0;
            bool known = sim_metric_value(&out->metrics, e->metric, &v);
            r->passed = known && compare(v, e->op, e->value);
            snprintf(r->message, sizeof r->message, "%s %s %g: %s%g", e->metric, op_text(e->op), e->value,
                     known ? "got " : "unknown metric ", v);
        } else if (!w->expect_seen[i]) {
            r->passed = false;
            snprintf(r->message, sizeof r->message, "%s request #%llu: never decided", e->client,
                     (unsigned long long)e->index);
        } else if (e->kind == SIM_EXPECT_SELECTED) {
            long s = server_by_name(w, e->server);
            bool match = false;
            for (size_t k = 0; s >= 0 && k < w->servers[s].n_ids; k++) {
                match |= w->servers[s].id_history[k] == w->expect_server_id[i];
            }
            long got = -1;
            for (size_t k = 0; k < w->n_servers && got < 0; k++) {
                for (size_t j = 0; j < w->servers[k].n_ids; j++) {
                    if (w->servers[k].id_history[j] == w->expect_server_id[i]) got = (long)k;
                }
            }
            r->passed = match && w->expect_status[i] == RCLIENT_OK;
            snprintf(r->message, sizeof r->message, "%s request #%llu selected %s: got %s (%s)", e->client,
                     (unsigned long long)e->index, e->server, got >= 0 ? cfg->servers[got].name : "none",
                     r_client_strerror(w->expect_status[i]));
        } else {
            r->passed = w->expect_status[i] == e->status;
            snprintf(r->message, sizeof r->message, "%s request #%llu status %s: got %s", e->client,
                     (unsigned long long)e->index, r_client_strerror(e->status),
                     r_client_strerror(w->expect_status[i]));
        }
        if (!r->passed) out->expects_failed++;
    }
}

/* ---- the run --------------------------------------------------------------------------------- */

static int setup(sim_world_t *w, const sim_run_opts_t *opts) {
    const sim_config_t *cfg = w->cfg;
    if (sim_engine_init(&w->engine) != 0) return -1;
    w->log = sim_log_new(opts != NULL ? opts->events : NULL);
    if (w->log == NULL) return -1;
    if (opts != NULL && opts->observer != NULL) {
        sim_log_set_observer(w->log, opts->observer, opts->observer_ctx);
    }
    if (opts != NULL && opts->timeline != NULL && opts->timeline_ms > 0) sim_timeline_init(w, opts->timeline_ms);
    w->n_hosts = cfg->n_clients; /* node numbering needs it before hosts exist */
    if (sim_servers_create(w) != 0) return -1;
    if (check_names(w) != 0) return -1;
    sim_rng_t net_rng;
    sim_rng_seed(&net_rng, w->seed, SIM_STREAM_NET, 0);
    w->net = sim_net_new(&w->engine, w->log, &net_rng, cfg->n_clients + cfg->n_servers, &cfg->default_link, deliver, w);
    if (w->net == NULL) return -1;
    for (size_t i = 0; i < cfg->n_links; i++) {
        sim_net_set_link(w->net, node_by_name(w, cfg->links[i].from), node_by_name(w, cfg->links[i].to),
                         &cfg->links[i].link);
    }
    if (setup_dns(w) != 0) return -1;
    w->expect_server_id = calloc(cfg->n_expects + 1, sizeof *w->expect_server_id);
    w->expect_status = calloc(cfg->n_expects + 1, sizeof *w->expect_status);
    w->expect_seen = calloc(cfg->n_expects + 1, sizeof *w->expect_seen);
    if (!w->expect_server_id || !w->expect_status || !w->expect_seen) return -1;
    w->end_arrivals = cfg->duration_ms * SIM_US_PER_MS;
    w->fault_rngs = calloc(cfg->n_faults + 1, sizeof *w->fault_rngs);
    if (w->fault_rngs == NULL) return -1;
    for (size_t i = 0; i < cfg->n_faults; i++) {
        sim_time_t at = cfg->faults[i].at_ms * SIM_US_PER_MS;
        if (!w->has_fault || at > w->last_fault) w->last_fault = at;
        w->has_fault = true;
        sim_engine_schedule(&w->engine, at, SIM_CLASS_CONTROL, ev_fault, w, i, NULL);
        const sim_fault_cfg_t *f = &cfg->faults[i];
        sim_time_t end = (f->kind == SIM_FAULT_PAUSE || f->kind == SIM_FAULT_RESTART) && f->value > 0
                             ? at + (sim_time_t)f->value * SIM_US_PER_MS
                             : at; /* a fault with a duration ends then */
        if (f->kind != SIM_FAULT_FAILURES && sim_conv_add(w, end, (int)f->kind, (uint32_t)i) != 0) return -1;
    }
    /* A membership change (a DNS epoch after the first) counts as a fault for convergence. */
    for (size_t i = 1; i < cfg->n_dns; i++) {
        sim_time_t at = cfg->dns[i].at_ms * SIM_US_PER_MS;
        if (!w->has_fault || at > w->last_fault) w->last_fault = at;
        w->has_fault = true;
        if (sim_conv_add(w, at, 0, (uint32_t)i) != 0) return -1;
    }
    return sim_hosts_create(w);
}

static void teardown(sim_world_t *w) {
    sim_req_forget_due(w, 0, true); /* decided requests and reports (after a failed run too) */
    while (w->ifl_head != NULL) {  /* undecided requests and unrecorded reports drop their references */
        sim_req_release(w, w->ifl_head);
    }
    sim_hosts_destroy(w);          /* clients first: cancels requests, detaches DNS queries */
    if (w->dns) sim_dns_flush(w->dns);
    sim_req_forget_due(w, 0, true);
    sim_dns_free(w->dns);
    sim_net_free(w->net);
    sim_servers_destroy(w);
    sim_metrics_free(w);
    sim_oracle_free(w);
    sim_timeline_free(w);
    sim_log_free(w->log);
    sim_engine_free(&w->engine);
    free(w->expect_server_id);
    free(w->expect_status);
    free(w->expect_seen);
    free(w->fault_rngs);
    free(w->conv);
}

int sim_run(const sim_config_t *cfg, uint64_t seed, const sim_run_opts_t *opts, sim_result_t *out, char *err,
            size_t err_cap) {
    sim_world_t *w = calloc(1, sizeof *w);
    if (w == NULL) return -1;
    memset(out, 0, sizeof *out);
    w->cfg = cfg;
    w->seed = seed;
    int rc = setup(w, opts);
    if (rc == 0) {
        out->events = sim_engine_run(&w->engine, w->end_arrivals + DRAIN_US);
        if (w->failed && w->err[0] == '\0') {
            snprintf(w->err, sizeof w->err, "out of memory during the run");
            rc = -1;
        } else if (w->failed) {
            rc = -1;
        }
    } else if (w->err[0] == '\0') {
        snprintf(w->err, sizeof w->err, "cannot set up the run (out of memory or invalid configuration)");
    }
    if (rc == 0) {
        sim_oracle_flush(w, true);
        sim_req_forget_due(w, 0, true);
        sim_metrics_finish(w);
        if (opts != NULL) (void)sim_timeline_write(w, opts->timeline); /* write errors: the caller's ferror */
        out->seed = seed;
        out->metrics = w->m;
        out->log_records = sim_log_count(w->log);
        sim_log_digest(w->log, out->digest);
        check_expectations(w, out);
        if (sim_conv_result(w, out) != 0) {
            sim_result_free(out);
            snprintf(w->err, sizeof w->err, "out of memory");
            rc = -1;
        }
    }
    if (rc != 0 && err != NULL && err_cap > 0) {
        snprintf(err, err_cap, "%s", w->err);
    }
    teardown(w);
    free(w);
    return rc;
}

void sim_result_free(sim_result_t *r) {
    if (r != NULL) {
        free(r->expects);
        r->expects = NULL;
        free(r->convergence);
        r->convergence = NULL;
        r->n_convergence = 0;
    }
}
