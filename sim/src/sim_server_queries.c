/* SPDX-License-Identifier: MIT */
/* sim_server_queries.c - administrative queries are answered once
 * (contract: sim_server_int.h; the rule: sim_server_admin.c "Queries are
 * answered once").
 *
 * A Status or Metrics Response is larger than its query (Status: 520 bytes
 * for 80, 6.5x; Metrics: up to 1200 bytes, 14.65x for the smallest query),
 * and a captured query could be resent from any source address: the server
 * would reflect and amplify it. So each answered query (pdu_type, key_id,
 * unique_id) is remembered until its time_stamp + freshness_ms, the last
 * moment it could pass the freshness check (or, with the check off, for
 * SRV_QUERY_WINDOW_OFF_MS after it was answered), and a copy within that time
 * is dropped. The memory is a fixed table of SIM_SERVER_QUERIES_MAX entries
 * (about 40 bytes each), searched linearly (a query has already cost an
 * AES-GCM open); when every entry is live a new query is dropped rather than
 * an entry forgotten early. It survives a restart (a restart is no way
 * around the rule). */
#include <string.h>

#include "sim_server_int.h"

#define SRV_QUERY_WINDOW_OFF_MS 5000u

static bool live(const srv_query_seen_t *q, uint64_t now_ms) {
    return q->expiry_ms != 0 && now_ms <= q->expiry_ms;
}

static const char *query_name(uint16_t pdu_type) {
    return pdu_type == 0x5153u ? "status query" : "metrics query";
}

sim_server_verdict_t srv_query_admit(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, uint16_t pdu_type,
                                     size_t *slot) {
    size_t free_at = SIM_SERVER_QUERIES_MAX;
    for (size_t i = 0; i < SIM_SERVER_QUERIES_MAX; i++) {
        const srv_query_seen_t *q = &s->queries[i];
        if (!live(q, now_ms)) {
            free_at = free_at == SIM_SERVER_QUERIES_MAX ? i : free_at;
            continue;
        }
        if (q->pdu_type == pdu_type && q->key_id == f->key_id && memcmp(q->unique_id, f->unique_id, 16) == 0) {
            return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = query_name(pdu_type), .field = "unique_id",
                            .note = "a copy of a query answered already (a query is answered once, until its "
                                    "time_stamp + freshness_ms)");
        }
    }
    if (free_at == SIM_SERVER_QUERIES_MAX) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = query_name(pdu_type), .field = "unique_id",
                        .got = SIM_SERVER_QUERIES_MAX, .rel = "max", .want = SIM_SERVER_QUERIES_MAX,
                        .note = "queries answered within their freshness: no room to remember one more");
    }
    *slot = free_at;
    return SIM_SRV_ADMIN_ANSWERED;
}

void srv_query_answered(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, uint16_t pdu_type, size_t slot) {
    srv_query_seen_t *q = &s->queries[slot];
    uint32_t fresh = s->params.freshness_ms;
    q->key_id = f->key_id;
    memcpy(q->unique_id, f->unique_id, 16);
    q->pdu_type = pdu_type;
    q->expiry_ms = fresh != 0 ? f->time_stamp + fresh : now_ms + SRV_QUERY_WINDOW_OFF_MS;
    if (q->expiry_ms == 0) {
        q->expiry_ms = 1;
    }
}
