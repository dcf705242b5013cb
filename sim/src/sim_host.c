/* SPDX-License-Identifier: MIT */
/* sim_host.c - the simulator as the host of the unmodified client core:
 * it implements r_io_ops_t (udp_send into the simulated network, now_ms from
 * the virtual clock plus skew, random from the client's stream, steering),
 * arms one timer per request from r_client_request_deadline_ms, delivers
 * datagrams, and generates the workload (arrivals, request mix, latency
 * reports). Only public headers of the core are used. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_world_int.h"

#define STEERING_APPLY_US 1000u  /* rebind completes 1 ms after the hint (outside the receive path) */
#define FORGET_AFTER_US 5000000u /* keep decided requests 5 s for late-response and disagreement accounting */

static uint64_t host_clock_at(const sim_host_t *h, sim_time_t run_us) {
    int64_t t = (int64_t)(SIM_RUN_EPOCH_MS + run_us / SIM_US_PER_MS) + h->skew_ms +
                sim_drift_ms(run_us, h->cfg->clock_drift_ppm);
    return (uint64_t)(t < 0 ? 0 : t);
}

uint64_t sim_host_now_ms(const sim_host_t *h) {
    return host_clock_at(h, sim_engine_now(&h->w->engine));
}

/* ---- r_io_ops_t ------------------------------------------------------------ */

static int h_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    sim_host_t *h = ctx;
    sim_world_t *w = h->w;
    uint32_t dst = sim_addr_node(w, to);
    if (dst == UINT32_MAX) {
        return -1;
    }
    if (dst >= w->n_hosts) {
        /* the oldest destination of this call: the request's snapshot (initial fan-out) or the report's reference */
        size_t si = dst - w->n_hosts;
        uint64_t id = sim_server_id(w->servers[si].srv);
        if (h->call_oldest < 0 || id < h->call_oldest_id) {
            h->call_oldest = (long)si;
            h->call_oldest_id = id;
        }
    }
    if (h->call == SIM_CALL_SUBMIT && dst >= w->n_hosts) {
        /* the snapshot's oldest member: the smallest trusted server_id among the destinations
         * (a destination with no trusted identity by its current one) */
        size_t si = dst - w->n_hosts;
        uint64_t id = h->trust->id[si] ? h->trust->id[si] : sim_server_id(w->servers[si].srv);
        if (h->call_snap_oldest < 0 || id < h->call_snap_oldest_id) {
            h->call_snap_oldest = (long)si;
            h->call_snap_oldest_id = id;
        }
    }
    if (h->call == SIM_CALL_SUBMIT && h->calling != NULL && !h->calling->uid_known && len >= 28) {
        memcpy(h->calling->uid, data + 12, 16); /* Tenant Header unique_id (wire_protocol.md) */
        h->calling->uid_known = true;
        if (sim_oracle_keep_datagram(w, h->calling, data, len) != 0) w->failed = true;
    } else if (h->call == SIM_CALL_REPORT && h->reporting == NULL && len >= 28) {
        sim_req_t *r = sim_req_alloc(w);
        if (r == NULL || sim_oracle_keep_datagram(w, r, data, len) != 0) {
            w->failed = true;
        } else {
            r->host = h;
            r->is_report = true;
            r->seq = h->next_report; /* its number (set again after the call) */
            r->submitted_at = sim_engine_now(&w->engine);
            memcpy(r->uid, data + 12, 16);
            h->reporting = r;
        }
    }
    h->call_sends++;
    w->m.datagrams_sent++;
    sim_tl_add(w, h->index, sim_engine_now(&w->engine), SIM_TL_DATAGRAMS_SENT, 1);
    if (h->n_call_dst < sizeof h->call_dst / sizeof h->call_dst[0]) h->call_dst[h->n_call_dst++] = dst;
    /* the packet's identity (counter-based draws): the request or report of this call */
    sim_req_t *q = h->call == SIM_CALL_SUBMIT ? h->calling : h->call == SIM_CALL_REPORT ? h->reporting : h->call_req;
    sim_net_tag_t tag;
    bool tagged = q != NULL && dst >= w->n_hosts && sim_req_tag(q, dst, false, &tag);
    return sim_net_send_tagged(w->net, h->node, dst, data, len, tagged ? &tag : NULL) == 0 ? 0 : -1;
}

/* A call into the core begins: classify its sends. */
static void call_begin(sim_host_t *h, sim_call_t call) {
    h->call = call;
    h->call_sends = 0;
    h->call_completed_ok = false;
    h->call_oldest = -1;
    h->call_oldest_id = 0;
    h->call_snap_oldest = -1;
    h->call_snap_oldest_id = 0;
    h->n_call_dst = 0;
    h->call_req = NULL;
}

/* A call into the core ended: one xmit record per send, naming the request
 * (seq; for a report its report number) and the send's class (docs/traces.md
 * "Event log"): 0 initial fan-out, 1 replay, 2 completion delivery, 3 report. */
static void call_end(sim_host_t *h, uint64_t seq, uint64_t cls) {
    sim_world_t *w = h->w;
    sim_time_t now = sim_engine_now(&w->engine);
    for (size_t i = 0; i < h->n_call_dst; i++) {
        sim_log_record(w->log, now, SIM_LOG_XMIT, h->index, seq, cls << 32 | h->call_dst[i]);
    }
    if (cls == 1) sim_tl_add(w, h->index, now, SIM_TL_REPLAYS_SENT, h->call_sends);
    if (cls == 2) sim_tl_add(w, h->index, now, SIM_TL_COMPLETION_SENDS, h->call_sends);
    h->call = SIM_CALL_NONE;
}

static uint64_t h_now(void *ctx) {
    return sim_host_now_ms(ctx);
}

static int h_random(void *ctx, uint8_t *buf, size_t len) {
    sim_host_t *h = ctx;
    sim_rng_bytes(&h->rng_core, buf, len);
    return 0;
}

static void ev_rebind_done(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    (void)ptr;
    sim_host_t *h = ctx;
    sim_world_t *w = h->w;
    r_client_rebind_complete(h->client, true);
    h->rebind_pending = false;
    w->m.steering_requests++;
    w->steering_latency_sum += (double)(sim_engine_now(&w->engine) - h->rebind_asked_at) / 1000.0;
}

/* r-client.md 6.1/6.3: schedule the rebind; never perform it inside the receive path. */
static void h_steering(void *ctx, uint64_t server_id) {
    sim_host_t *h = ctx;
    sim_world_t *w = h->w;
    sim_log_record(w->log, sim_engine_now(&w->engine), SIM_LOG_STEERING, h->index, server_id & 0xFFFFFFFFu, 0);
    if (!h->rebind_pending) {
        h->rebind_pending = true;
        h->rebind_asked_at = sim_engine_now(&w->engine);
        sim_engine_schedule(&w->engine, h->rebind_asked_at + STEERING_APPLY_US, SIM_CLASS_CONTROL, ev_rebind_done, h,
                            0, NULL);
    }
}

/* ---- timers ---------------------------------------------------------------- */

static void ev_timer(void *ctx, uint64_t gen, void *ptr);

/* The first whole run millisecond at which the client's clock reads client_ms. */
static sim_time_t to_sim_time(const sim_host_t *h, uint64_t client_ms) {
    int64_t run_ms = (int64_t)client_ms - h->skew_ms - (int64_t)SIM_RUN_EPOCH_MS;
    if (h->cfg->clock_drift_ppm != 0 && run_ms > 0) {
        run_ms = (int64_t)((double)run_ms / (1.0 + (double)h->cfg->clock_drift_ppm * 1e-6));
        while (run_ms > 0 && host_clock_at(h, (sim_time_t)(run_ms - 1) * SIM_US_PER_MS) >= client_ms) run_ms--;
        while (host_clock_at(h, (sim_time_t)run_ms * SIM_US_PER_MS) < client_ms) run_ms++;
    }
    return run_ms <= 0 ? 0 : (sim_time_t)run_ms * SIM_US_PER_MS;
}

/* Re-arm from the request's current absolute deadline (api.md: re-query after
 * every nonterminal datagram or timeout; a valid response can move it earlier). */
static sim_time_t service_draw(sim_rng_t *rng, const sim_latency_t *l);

static void arm_timer(sim_req_t *r) {
    if (r->req == NULL) {
        return;
    }
    sim_host_t *h = r->host;
    sim_world_t *w = h->w;
    sim_time_t base = to_sim_time(h, r_client_request_deadline_ms(h->client, r->req));
    if (base < sim_engine_now(&w->engine)) {
        base = sim_engine_now(&w->engine);
    }
    if (r->timer_at != 0 && r->timer_base == base) {
        return;
    }
    /* a host that delivers timers late (timer_delay): one draw per armed deadline */
    sim_time_t at = base + (h->cfg->timer_late ? service_draw(&h->rng_timer, &h->cfg->timer_delay) : 0);
    r->timer_base = base;
    r->timer_at = at;
    r->timer_gen++;
    sim_engine_schedule(&w->engine, at, SIM_CLASS_TIMER, ev_timer, h, r->timer_gen, r);
}

static void ev_timer(void *ctx, uint64_t gen, void *ptr) {
    sim_host_t *h = ctx;
    sim_req_t *r = ptr;
    if (r->req == NULL || r->timer_gen != (uint32_t)gen || r->host != h) {
        return; /* decided, re-armed, or recycled since */
    }
    r->timer_at = 0;
    call_begin(h, SIM_CALL_TIMEOUT);
    h->call_req = r;
    r_client_on_timeout(h->client, r->req, sim_host_now_ms(h));
    if (h->call_completed_ok) {
        h->w->m.completion_sends += h->call_sends;
    } else {
        h->w->m.replays_sent += h->call_sends;
    }
    call_end(h, r->seq, h->call_completed_ok ? 2 : 1);
    arm_timer(r);
}

/* ---- completion ------------------------------------------------------------- */

static long server_index_of(const sim_world_t *w, uint64_t server_id) {
    for (size_t i = 0; i < w->n_servers; i++) {
        for (size_t k = 0; k < w->servers[i].n_ids; k++) {
            if (w->servers[i].id_history[k] == server_id) return (long)i;
        }
    }
    return -1;
}

static void record_expectations(sim_world_t *w, const sim_req_t *r, int status, uint64_t server_id) {
    const sim_config_t *cfg = w->cfg;
    for (size_t i = 0; i < cfg->n_expects; i++) {
        const sim_expect_cfg_t *e = &cfg->expects[i];
        if (e->kind == SIM_EXPECT_METRIC || e->index != r->seq || strcmp(e->client, r->host->cfg->name) != 0) {
            continue;
        }
        w->expect_seen[i] = true;
        w->expect_server_id[i] = server_id;
        w->expect_status[i] = status;
    }
}

static void ev_report(void *ctx, uint64_t arg, void *ptr);

/* Service time of the protected work, in us (same shapes as link latency). */
static sim_time_t service_draw(sim_rng_t *rng, const sim_latency_t *l) {
    double extra = 0;
    switch (l->kind) {
    case SIM_LAT_UNIFORM: extra = (double)sim_rng_below(rng, (uint64_t)l->spread_us + 1u); break;
    case SIM_LAT_EXP: extra = sim_rng_exp(rng, (double)l->spread_us); break;
    case SIM_LAT_EMPIRICAL:
        extra = l->n_samples ? l->fraction * (double)l->samples[sim_rng_below(rng, l->n_samples)] : 0;
        break;
    case SIM_LAT_PARETO: { /* base + spread * U^(-1/alpha), as on links: at least base + spread */
        double u = 1.0 - sim_rng_unit(rng);
        extra = (double)l->spread_us * pow(u, -1.0 / (l->alpha > 1.0 ? l->alpha : 1.5));
        break;
    }
    default: break;
    }
    if (l->jitter_us) extra += (double)sim_rng_below(rng, (uint64_t)l->jitter_us + 1u);
    if (extra > 3.6e9) extra = 3.6e9;
    return (sim_time_t)l->base_us + (sim_time_t)extra;
}

/* The fresh decision of server si that the client selected (the grant the
 * application uses), or NULL when none was recorded. */
static const sim_fresh_t *selected_fresh(const sim_req_t *r, long si) {
    for (uint8_t k = 0; si >= 0 && r->ext != NULL && k < r->ext->n_fresh; k++) {
        if (r->ext->fresh[k].server == (uint32_t)si) return &r->ext->fresh[k];
    }
    return NULL;
}

static void on_result(r_client_req_t *req, const r_rate_limit_result_t *res, void *user) {
    (void)req;
    sim_req_t *r = user;
    sim_host_t *h = r->host;
    sim_world_t *w = h->w;
    sim_time_t now = sim_engine_now(&w->engine);
    r->req = NULL;
    r->decided = true;
    r->decided_at = now;
    r->status = res->status;
    r->client_allowed = res->status == RCLIENT_OK && res->success;
    sim_oracle_inflight_remove(w, r);
    long si = res->server_id != 0 ? server_index_of(w, res->server_id) : -1;
    if (res->status == RCLIENT_OK) {
        h->call_completed_ok = true;
        w->m.decided++;
        sim_tl_add(w, h->index, r->submitted_at, SIM_TL_DECIDED, 1);
        sim_tl_latency(w, h->index, r->submitted_at, now - r->submitted_at);
        const sim_fresh_t *f = selected_fresh(r, si);
        if (r->client_allowed) {
            w->m.allowed++;
            sim_tl_add(w, h->index, r->submitted_at, SIM_TL_ALLOWED, 1);
            /* counted in the window of the grant, on the clock of the server that made it */
            uint64_t clock_ms = f != NULL ? (uint64_t)((int64_t)(SIM_RUN_EPOCH_MS + f->run_us / SIM_US_PER_MS) + f->skew_ms)
                                : si >= 0 ? sim_server_now_ms(w, &w->servers[si]) : sim_run_ms(w);
            if (sim_metrics_allowed_tokens(w, h->cfg->key_id, &h->shapes[r->mix], clock_ms) != 0) w->failed = true;
        } else {
            w->m.denied++;
            sim_tl_add(w, h->index, r->submitted_at, SIM_TL_DENIED, 1);
        }
        sim_metrics_latency(w, now - r->submitted_at);
        if (sim_oracle_queue(w, r, f != NULL ? f->run_us : now, f != NULL ? f->pseq : w->pseq) != 0) w->failed = true;
        if (si >= 0 && si == r->snapshot_oldest) {
            w->oldest_selected++;
            sim_tl_add(w, h->index, r->submitted_at, SIM_TL_OLDEST_SELECTED, 1);
        }
    } else if (res->status == RCLIENT_ERR_TIMEOUT) {
        w->m.timeouts++;
        sim_tl_add(w, h->index, r->submitted_at, SIM_TL_TIMEOUTS, 1);
    } else {
        w->m.io_failures++;
        sim_tl_add(w, h->index, r->submitted_at, SIM_TL_IO_FAILURES, 1);
    }
    if (r->ext != NULL) {
        sim_ext_put(w, r->ext); /* the fresh decisions are needed no longer */
        r->ext = NULL;
    }
    sim_log_record(w->log, now, SIM_LOG_DECISION, h->index, r->seq,
                   ((uint64_t)(uint32_t)(-res->status) << 32) | ((uint64_t)r->client_allowed << 16) |
                       (uint64_t)(uint16_t)(si + 1));
    record_expectations(w, r, res->status, res->server_id);
    /* Admitted work runs, then its measured latency is reported (api.md "Latency Guards and Independent Reports"). */
    if (r->client_allowed && h->cfg->service.enabled && h->shapes[r->mix].n_guards > 0) {
        sim_time_t service = service_draw(&h->rng_service, &h->cfg->service.model);
        sim_engine_schedule(&w->engine, now + service, SIM_CLASS_WORKLOAD, ev_report, h,
                            ((uint64_t)r->mix << 32) | (service / SIM_US_PER_MS), NULL);
    }
    sim_oracle_flush(w, false);
    r->forget_at = now + FORGET_AFTER_US;
    sim_req_forget_later(w, r);
}

static void ev_report(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    sim_host_t *h = ctx;
    sim_world_t *w = h->w;
    const sim_shape_t *s = &h->shapes[arg >> 32];
    r_service_latency_report_t reps[SIM_MAX_MIX_GUARDS];
    for (size_t i = 0; i < s->n_guards; i++) {
        memcpy(reps[i].latency_tracker_id, s->guards[i].latency_tracker_id, 16);
        reps[i].ttl_ms = s->guards[i].ttl_ms;
        reps[i].max_samples = s->guards[i].max_samples;
        reps[i].buffer_size = s->guards[i].buffer_size;
        reps[i].min_sample_threshold = s->guards[i].min_sample_threshold;
        reps[i].observed_latency = (uint32_t)(arg & 0xFFFFFFFFu);
    }
    call_begin(h, SIM_CALL_REPORT);
    h->reporting = NULL;
    int rc = r_client_report_latency(h->client, reps, s->n_guards);
    uint64_t report_seq = h->next_report++;
    sim_log_record(w->log, sim_engine_now(&w->engine), SIM_LOG_RSHAPE, h->index, report_seq,
                   (arg >> 32) << 32 | (arg & 0xFFFFFFFFu));
    call_end(h, report_seq, 3);
    sim_req_t *rep = h->reporting;
    h->reporting = NULL;
    if (rep != NULL) {
        rep->seq = report_seq;
        /* applied by the oracle when its reference server records it; forgotten after 5 s */
        rep->ref_server = h->call_oldest >= 0 ? (uint32_t)h->call_oldest : 0;
        rep->decided = true;
        rep->uid_known = true;
        if (sim_uid_put(w, rep) != 0) w->failed = true;
        sim_oracle_inflight_add(w, rep);
        rep->forget_at = sim_engine_now(&w->engine) + FORGET_AFTER_US;
        sim_req_forget_later(w, rep);
    }
    if (rc == RCLIENT_OK) {
        w->m.reports_sent++;
        sim_tl_add(w, h->index, sim_engine_now(&w->engine), SIM_TL_REPORTS_SENT, 1);
    }
    sim_log_record(w->log, sim_engine_now(&w->engine), SIM_LOG_REPORT, h->index, s->n_guards, rc == RCLIENT_OK);
}

/* ---- workload ---------------------------------------------------------------- */

static uint16_t pick_mix(sim_host_t *h) {
    uint64_t x = sim_rng_below(&h->rng_mix, h->total_weight);
    for (size_t i = 0; i < h->cfg->n_mix; i++) {
        if (x < h->cfg->mix[i].weight) return (uint16_t)i;
        x -= h->cfg->mix[i].weight;
    }
    return 0;
}

static void ev_arrival(void *ctx, uint64_t arg, void *ptr);

static void schedule_next_arrival(sim_host_t *h) {
    sim_world_t *w = h->w;
    const sim_client_cfg_t *c = h->cfg;
    if (c->max_requests != 0 && h->next_seq >= c->max_requests) {
        return;
    }
    sim_time_t at;
    if (c->arrival == SIM_ARRIVAL_SCRIPTED) {
        if (h->script_pos >= c->n_script) return;
        at = c->script_ms[h->script_pos++] * SIM_US_PER_MS;
    } else {
        if (c->rate_per_s <= 0) return;
        double gap_us = sim_rng_exp(&h->rng_arrivals, 1e6 / c->rate_per_s);
        sim_time_t now = sim_engine_now(&w->engine);
        if (!(gap_us < (double)(w->end_arrivals - now))) {
            return; /* the next arrival would fall after the run (also guards the cast) */
        }
        at = now + (sim_time_t)(gap_us < 1.0 ? 1.0 : gap_us);
    }
    if (at >= w->end_arrivals) {
        return;
    }
    sim_engine_schedule(&w->engine, at, SIM_CLASS_WORKLOAD, ev_arrival, h, 0, NULL);
}

static void ev_arrival(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    (void)ptr;
    sim_host_t *h = ctx;
    sim_world_t *w = h->w;
    sim_req_t *r = sim_req_alloc(w);
    if (r == NULL) {
        w->failed = true;
        sim_engine_stop(&w->engine);
        return;
    }
    r->host = h;
    r->seq = h->next_seq++;
    r->mix = h->cfg->n_mix ? pick_mix(h) : 0;
    r->submitted_at = sim_engine_now(&w->engine);
    const sim_shape_t *s = &h->shapes[r->mix];
    r->ext = sim_ext_get(w);
    if (r->ext == NULL) w->failed = true;
    r->trust = h->trust;
    h->trust->refs++;
    call_begin(h, SIM_CALL_SUBMIT);
    h->calling = r;
    r_client_req_t *req = NULL;
    int rc = r_client_check_rate_limit_async(h->client, s->res, s->n_res, s->guards, s->n_guards, s->label, 0,
                                             on_result, r, &req);
    h->calling = NULL;
    /* c: the low 64 bits of the unique_id the client drew (so every seed
     * leaves its mark in the log), or the submit error. */
    uint64_t uid_lo = 0;
    if (r->uid_known) {
        for (int k = 0; k < 8; k++) uid_lo |= (uint64_t)r->uid[k] << (8 * k);
    }
    sim_log_record(w->log, r->submitted_at, SIM_LOG_SUBMIT, h->index, r->seq,
                   rc == RCLIENT_OK ? uid_lo : (uint64_t)(uint32_t)(-rc));
    sim_log_record(w->log, r->submitted_at, SIM_LOG_SHAPE, h->index, r->seq, r->mix);
    call_end(h, r->seq, 0);
    w->m.submitted++; /* every logical request the application submitted */
    sim_tl_add(w, h->index, r->submitted_at, SIM_TL_SUBMITTED, 1);
    if (rc != RCLIENT_OK || req == NULL) {
        if (rc != RCLIENT_OK) {
            w->m.submit_errors++;
            sim_tl_add(w, h->index, r->submitted_at, SIM_TL_SUBMIT_ERRORS, 1);
            record_expectations(w, r, rc, 0); /* the request takes its number and the submit's error */
        }
        if (!r->decided) sim_req_release(w, r);
        schedule_next_arrival(h);
        return;
    }
    r->req = req;
    r->snapshot_oldest = (int32_t)h->call_snap_oldest;
    if (r->uid_known && sim_uid_put(w, r) != 0) {
        w->failed = true;
    }
    if (!r->decided) sim_oracle_inflight_add(w, r);
    arm_timer(r);
    schedule_next_arrival(h);
}

/* ---- ingress ----------------------------------------------------------------- */

void sim_host_deliver(sim_world_t *w, sim_host_t *h, uint32_t src, const uint8_t *data, size_t len) {
    sim_req_forget_due(w, sim_engine_now(&w->engine), false);
    sim_req_t *r = len >= 28 ? sim_uid_find(w, data + 12) : NULL;
    if (r != NULL && (r->is_report || r->host != h)) r = NULL;
    bool untrusted = false;
    if (r != NULL && src >= w->n_hosts) {
        uint32_t si = src - (uint32_t)w->n_hosts;
        uint64_t id = 0;
        for (int k = 0; k < 8; k++) id |= (uint64_t)data[4 + k] << (8 * k); /* response key_id = server_id */
        untrusted = r->trust == NULL || id != r->trust->id[si];
        if (untrusted) {
            w->m.untrusted_responses++;
            sim_tl_add(w, h->index, sim_engine_now(&w->engine), SIM_TL_UNTRUSTED_RESPONSES, 1);
        }
        uint32_t *f = untrusted ? NULL : sim_req_touch(r, si);
        if (f != NULL) *f |= SIM_TOUCH_DELIVERED;
        else if (!untrusted) w->failed = true;
    }
    call_begin(h, SIM_CALL_DATAGRAM);
    h->call_req = r;
    int rc = r_client_on_datagram(h->client, data, len);
    w->m.completion_sends += h->call_sends;
    call_end(h, r != NULL ? r->seq : UINT64_MAX, 2);
    if (rc != RCLIENT_OK) {
        w->m.invalid_datagrams++;
        sim_tl_add(w, h->index, sim_engine_now(&w->engine), SIM_TL_INVALID_DATAGRAMS, 1);
        if (rc == RCLIENT_ERR_PROTOCOL) w->m.invalid_protocol++;
        else if (rc == RCLIENT_ERR_AUTH) w->m.invalid_auth++;
        else w->m.invalid_other++;
        return;
    }
    if (r != NULL) {
        if (r->decided && !h->call_completed_ok) {
            if (!untrusted) {
                w->m.late_responses++;
                sim_tl_add(w, h->index, sim_engine_now(&w->engine), SIM_TL_LATE_RESPONSES, 1);
            }
        } else {
            arm_timer(r);
        }
    }
}

/* sim_dns observer: after an SRV answer the client trusts, for each server
 * address, the server_id of the conforming target that resolves to it. */
void sim_host_on_srv_answer(void *ctx, uint32_t client, const sim_dns_record_t *records, size_t n) {
    sim_world_t *w = ctx;
    if (client >= w->n_hosts || w->hosts[client].trust == NULL) return;
    sim_host_t *h = &w->hosts[client];
    sim_trust_t *t = calloc(1, sizeof *t + (w->n_servers ? w->n_servers : 1) * sizeof t->id[0]);
    if (t == NULL) {
        w->failed = true;
        return;
    }
    t->refs = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t node = records[i].has_addr ? sim_addr_node(w, &records[i].addr) : UINT32_MAX;
        uint64_t id = 0;
        if (node != UINT32_MAX && node >= w->n_hosts &&
            r_client_parse_srv_target(records[i].target, strlen(records[i].target), &id) == RCLIENT_OK) {
            t->id[node - w->n_hosts] = id;
        }
    }
    if (memcmp(t->id, h->trust->id, w->n_servers * sizeof t->id[0]) == 0) {
        free(t); /* unchanged: the requests keep sharing the current version */
        return;
    }
    sim_trust_release(h->trust);
    h->trust = t;
}

/* ---- setup ------------------------------------------------------------------- */

static int build_shapes(sim_host_t *h) {
    const sim_client_cfg_t *c = h->cfg;
    h->shapes = calloc(c->n_mix ? c->n_mix : 1, sizeof *h->shapes);
    if (h->shapes == NULL) return -1;
    for (size_t i = 0; i < c->n_mix; i++) {
        const sim_mix_cfg_t *m = &c->mix[i];
        sim_shape_t *s = &h->shapes[i];
        h->total_weight += m->weight;
        s->n_res = m->n_resources;
        for (size_t k = 0; k < m->n_resources; k++) {
            const sim_resource_cfg_t *rc = &m->resources[k];
            s->res[k].window_size_ms = rc->window_size_ms;
            s->res[k].rate_limit = rc->rate_limit;
            s->res[k].tokens_requested = rc->tokens;
            if (r_client_derive_bucket_id(rc->bucket, strlen(rc->bucket), rc->window_size_ms, rc->rate_limit,
                                          s->res[k].bucket_id) != RCLIENT_OK)
                return -1;
        }
        s->n_guards = m->n_guards;
        for (size_t k = 0; k < m->n_guards; k++) {
            const sim_guard_cfg_t *g = &m->guards[k];
            r_latency_guard_t *o = &s->guards[k];
            o->threshold_ms = g->threshold_ms;
            o->ttl_ms = g->ttl_ms;
            o->max_samples = g->max_samples;
            o->buffer_size = g->buffer_size;
            o->min_sample_threshold = g->min_sample_threshold;
            if (r_client_derive_latency_tracker_id(g->tracker, strlen(g->tracker), g->ttl_ms, g->max_samples,
                                                   g->buffer_size, g->min_sample_threshold,
                                                   o->latency_tracker_id) != RCLIENT_OK)
                return -1;
        }
        s->label = m->label[0] ? m->label : NULL;
    }
    if (h->total_weight == 0 && c->n_mix > 0) return -1;
    return 0;
}

/* Explicit endpoints: the client's endpoints, else the members of DNS epoch 0 (or every server). */
static size_t explicit_servers(sim_world_t *w, const sim_client_cfg_t *c, r_server_endpoint_t *eps, size_t cap) {
    const sim_config_t *cfg = w->cfg;
    size_t n = 0;
    if (c->n_endpoints > 0) { /* the client's own list */
        for (size_t i = 0; i < c->n_endpoints && n < cap; i++, n++) {
            eps[n].server_id = sim_server_id(w->servers[c->endpoints[i]].srv);
            eps[n].addr = sim_node_addr(w, w->servers[c->endpoints[i]].node, 29292);
        }
        return n;
    }
    if (cfg->n_dns > 0) {
        const sim_dns_epoch_cfg_t *e = &cfg->dns[0];
        for (size_t i = 0; i < e->n_members && n < cap; i++) {
            for (size_t s = 0; s < w->n_servers; s++) {
                if (strcmp(e->members[i].server, w->servers[s].cfg->name) == 0) {
                    eps[n].server_id = sim_server_id(w->servers[s].srv);
                    eps[n].addr = sim_node_addr(w, w->servers[s].node, e->members[i].port ? e->members[i].port : 29292);
                    n++;
                }
            }
        }
        return n;
    }
    for (size_t s = 0; s < w->n_servers && n < cap; s++) {
        eps[n].server_id = sim_server_id(w->servers[s].srv);
        eps[n].addr = sim_node_addr(w, w->servers[s].node, 29292);
        n++;
    }
    return n;
}

static int create_client(sim_world_t *w, sim_host_t *h) {
    const sim_client_cfg_t *c = h->cfg;
    if (sim_key_make(c->auth, c->key_id, c->quota_word ? c->quota_word : 0xf8f2b150u, h->key, sizeof h->key) != 0) {
        return -1;
    }
    r_client_config_t rc;
    memset(&rc, 0, sizeof rc);
    rc.tenant.auth.secret = h->key;
    rc.tenant.dns_name = w->cfg->tenant_dns_name[0] ? w->cfg->tenant_dns_name : "rl.sim.example";
    rc.request_policy = &c->policy;
    rc.dns_refresh = c->dns_refresh;
    r_server_endpoint_t eps[64];
    if (!c->use_dns) {
        rc.servers = eps;
        rc.server_count = explicit_servers(w, c, eps, 64);
        if (rc.server_count == 0) {
            snprintf(w->err, sizeof w->err,
                     "clients[%u] (%s): use_dns is false but dns.epochs[0] names no server to use as an explicit "
                     "endpoint",
                     h->index, c->name);
            return -1;
        }
    }
    for (size_t i = 0; !c->use_dns && i < rc.server_count; i++) {
        uint32_t node = sim_addr_node(w, &eps[i].addr);
        if (node != UINT32_MAX && node >= w->n_hosts) h->trust->id[node - w->n_hosts] = eps[i].server_id;
    }
    r_io_ops_t io = {.ctx = h, .udp_send = h_send, .now_ms = h_now, .steering_rebind = h_steering,
                     .random = h_random};
    r_resolver_ops_t res = sim_dns_resolver(w->dns, h->index);
    return r_client_create(&rc, &io, c->use_dns ? &res : NULL, &h->client) == RCLIENT_OK ? 0 : -1;
}

int sim_hosts_create(sim_world_t *w) {
    const sim_config_t *cfg = w->cfg;
    w->hosts = calloc(cfg->n_clients ? cfg->n_clients : 1, sizeof *w->hosts);
    if (w->hosts == NULL) return -1;
    w->n_hosts = cfg->n_clients;
    for (size_t i = 0; i < cfg->n_clients; i++) {
        sim_host_t *h = &w->hosts[i];
        h->w = w;
        h->index = (uint32_t)i;
        h->node = (uint32_t)i;
        h->cfg = &cfg->clients[i];
        h->skew_ms = h->cfg->clock_skew_ms;
        sim_rng_entity(&h->rng_core, w->seed, SIM_STREAM_CLIENT, i, SIM_PURPOSE_CORE);
        sim_rng_entity(&h->rng_arrivals, w->seed, SIM_STREAM_WORKLOAD, i, SIM_PURPOSE_ARRIVALS);
        sim_rng_entity(&h->rng_mix, w->seed, SIM_STREAM_WORKLOAD, i, SIM_PURPOSE_MIX);
        sim_rng_entity(&h->rng_service, w->seed, SIM_STREAM_WORKLOAD, i, SIM_PURPOSE_SERVICE);
        sim_rng_entity(&h->rng_timer, w->seed, SIM_STREAM_CLIENT, i, SIM_PURPOSE_TIMER);
        h->trust = calloc(1, sizeof *h->trust + (w->n_servers ? w->n_servers : 1) * sizeof h->trust->id[0]);
        if (h->trust != NULL) h->trust->refs = 1;
        if (h->trust == NULL || build_shapes(h) != 0 || create_client(w, h) != 0) {
            if (w->err[0] == '\0') {
                snprintf(w->err, sizeof w->err, "clients[%zu] (%s): cannot create the client", i, h->cfg->name);
            }
            return -1;
        }
        for (size_t s = 0; s < w->n_servers; s++) {
            if (sim_server_add_tenant(w->servers[s].srv, h->key) != 0) return -1;
        }
        if (sim_server_add_tenant(w->oracle, h->key) != 0) return -1;
        schedule_next_arrival(h);
    }
    sim_dns_set_observer(w->dns, sim_host_on_srv_answer, w);
    return 0;
}

void sim_hosts_destroy(sim_world_t *w) {
    if (w->hosts == NULL) {
        return; /* setup failed before the clients existed */
    }
    for (size_t i = 0; i < w->n_hosts; i++) {
        r_client_destroy(w->hosts[i].client); /* in-flight requests are cancelled without callbacks */
        free(w->hosts[i].shapes);
        sim_trust_release(w->hosts[i].trust);
    }
    free(w->hosts);
    w->hosts = NULL;
}
