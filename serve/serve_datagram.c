/* SPDX-License-Identifier: MIT */
/* serve_datagram.c - one received datagram through the model and into the
 * log (contract: serve_datagram.h). */
#include "serve_datagram.h"

sim_server_verdict_t serve_handle_datagram(sim_server_t *model, uint64_t now_ms, const uint8_t *d, size_t len,
                                           uint8_t *out, size_t cap, size_t *out_len, sim_server_result_t *r,
                                           serve_log_t *log, serve_log_in_t *e) {
    *out_len = 0;
    sim_server_verdict_t v = sim_server_handle(model, now_ms, d, len, out, cap, out_len, r);
    if (log->f != NULL) {
        e->server_id = sim_server_id(model);
        e->dgram = d;
        e->len = len;
        e->verdict = sim_server_verdict_name(v);
        e->model_verdict = (int)v;
        e->result = r;
        serve_log_in(log, e);
    }
    if (r->dedup_evicted > 0) {
        const sim_server_stats_t *st = sim_server_stats(model);
        serve_log_evict_t ev = {e->wall_ms, e->server, sim_server_id(model), r->dedup_evicted,
                                r->dedup_evicted_key_id, st->dedup_evicted_capacity,
                                sim_server_dedup_capacity(model), r->dedup_degraded_began};
        serve_log_dedup_evicted(log, &ev);
    }
    return v;
}
