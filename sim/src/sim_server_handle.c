/* SPDX-License-Identifier: MIT */
/* sim_server_handle.c - one datagram through the reference server: framing,
 * tenant, auth, PDU, freshness, dedup, then the models (the order and the
 * models are documented at the top of sim_server.c). */
#include <string.h>

#include "sim_server_int.h"

/* What a handled datagram produced: response bytes (owned by the server or
 * the dedup cache, valid until the next call) and the decision. */
typedef struct {
    const uint8_t *bytes;
    size_t len;
    bool allowed;
    uint32_t tokens_granted;
} reply_t;

sim_server_verdict_t srv_check_fresh(sim_server_t *s, const srv_frame_t *f, uint64_t now_ms) {
    uint64_t age = now_ms > f->time_stamp ? now_ms - f->time_stamp : f->time_stamp - now_ms;
    if (s->params.freshness_ms != 0 && age > s->params.freshness_ms) {
        return SRV_DROP(s, SIM_SRV_DROP_STALE, .where = "tenant TLV", .field = "time_stamp", .got = f->time_stamp,
                        .rel = "server time", .want = now_ms, .note = "differs by more than freshness_ms");
    }
    return SIM_SRV_ANSWERED;
}

uint64_t srv_dedup_keep_until(const sim_server_t *s, const srv_frame_t *f) {
    return s->params.freshness_ms == 0 ? 0 : f->time_stamp + s->params.freshness_ms + 1u;
}

uint16_t srv_degraded_reason(const sim_server_t *s, uint64_t now_ms) {
    if (s->dedup_loss_p > 0.0) {
        return SRV_DEGRADED_DEDUP_LOSS;
    }
    return now_ms < s->dedup.degraded_until_ms ? SRV_DEGRADED_DEDUP_EVICTION : 0;
}

void srv_dedup_cached(sim_server_t *s, const srv_dd_key_t *key, uint64_t now_ms, uint32_t ttl_ms,
                      uint64_t keep_until_ms, size_t len, bool allowed) {
    bool healthy = srv_degraded_reason(s, now_ms) == 0;
    uint64_t before = s->dedup.evicted;
    if (srv_dedup_insert(&s->dedup, key, now_ms, ttl_ms, keep_until_ms, s->resp, len, allowed) == 0 &&
        s->dedup.count > s->stats.dedup_live_max) {
        s->stats.dedup_live_max = s->dedup.count;
    }
    s->stats.dedup_evicted_capacity = s->dedup.evicted;
    if (s->dedup.evicted != before && s->result != NULL) {
        s->result->dedup_evicted += (uint32_t)(s->dedup.evicted - before);
        s->result->dedup_evicted_key_id = s->dedup.evicted_key_id;
        s->result->dedup_degraded_began = healthy;
    }
}

sim_server_verdict_t srv_dedup_too_late(sim_server_t *s, const srv_dd_slot_t *slot) {
    return SRV_DROP(s, SIM_SRV_DROP_STALE, .where = slot->tenant_mgmt_flag ? "tenant mutation" : "rate request",
                    .field = "dedup_ttl_ms", .got = slot->ttl_ms,
                    .note = "a copy after its accepted dedup window: a replayed capture, not decided again");
}

/* A keyed draw for one request identity at one instant: what the server draws
 * for one client's request does not depend on other clients' traffic. */
static double keyed_draw(const sim_server_t *s, uint64_t purpose, const uint8_t *uid, uint64_t now_ms) {
    uint64_t lo = srv_ld64(uid), hi = srv_ld64(uid + 8);
    return sim_rng_keyed_unit(s->draw_key ^ purpose, lo ^ (hi * 0x9E3779B97F4A7C15ull), now_ms);
}

static uint8_t steering_value(sim_server_t *s, const uint8_t *uid, uint64_t now_ms) {
    switch (s->steer_mode) {
    case SIM_STEER_CHANGE: return 0;
    case SIM_STEER_RANDOM: return keyed_draw(s, 1, uid, now_ms) < s->steer_change_p ? 0u : 1u;
    default: return 1;
    }
}

/* Rewrite the plaintext request in s->scratch into its response, seal it into
 * s->resp and cache it. Returns the response length (0 on a cipher failure:
 * the decision stands, the reply is lost). */
static size_t respond(sim_server_t *s, srv_tenant_t *t, const srv_frame_t *f, srv_pdu_t *pdu,
                      const srv_dd_key_t *key, uint32_t ttl_ms, bool allowed, uint64_t now_ms) {
    uint8_t *p = s->scratch;
    srv_st64(p + SRV_OFF_KEY_ID, s->server_id);
    p[SRV_OFF_STEERING] = steering_value(s, key->unique_id, now_ms);
    size_t len = f->pdu_off + srv_encode_rr_header(pdu);
    uint8_t nonce[SRV_NONCE_LEN] = {0};
    if (t->auth_tlv == SRV_TLV_AUTH_AES) {
        sim_rng_bytes(&s->rng, nonce, sizeof nonce); /* fresh per response */
    }
    if (srv_auth_seal(t, p, len, f, nonce, s->resp) != 0) {
        return 0;
    }
    srv_dedup_cached(s, key, now_ms, ttl_ms, srv_dedup_keep_until(s, f), len, allowed);
    return len;
}

/* Dedup lookup with degraded-mode loss. Returns the live entry to replay, or
 * NULL to process the request afresh (*lost: its entry was lost inside its
 * window, so a decision now is a reprocessing); *late is set
 * when the entry is retained past its window (the copy is refused). A live
 * entry whose reply is longer than the datagram (in_len bytes) is returned
 * uncounted: a copy is the same request, and a response is its request
 * modified in place (wire_protocol.md "rate_response PDU"), so this datagram
 * is no copy and is refused without changing anything. */
static const srv_dd_slot_t *dedup_check(sim_server_t *s, const srv_dd_key_t *key, uint64_t now_ms, size_t in_len,
                                        bool *late, bool *lost) {
    srv_dd_slot_t *slot = srv_dedup_lookup(&s->dedup, key, now_ms);
    *late = slot != NULL && now_ms >= slot->expiry_ms;
    *lost = false;
    if (*late || (slot != NULL && slot->resp_len > in_len)) {
        return slot;
    }
    if (slot != NULL && s->dedup_loss_p > 0.0 && keyed_draw(s, 2, key->unique_id, now_ms) < s->dedup_loss_p) {
        srv_dedup_kill(&s->dedup, slot);
        s->stats.dedup_lost_degraded++;
        *lost = true;
        slot = NULL;
    } else if (slot == NULL && srv_dedup_ghost_hit(&s->dedup, key, now_ms)) {
        *lost = true;
    }
    if (slot == NULL) {
        s->stats.dedup_misses++;
        s->st.dedup_misses++;
        return NULL;
    }
    s->stats.dedup_hits++;
    s->st.dedup_hits++;
    s->stats.dedup_hit_age_sum += (double)(now_ms - slot->inserted_ms) / (double)slot->ttl_ms;
    return slot;
}

static sim_server_verdict_t rate_request(sim_server_t *s, srv_tenant_t *t, const srv_frame_t *f, srv_pdu_t *pdu,
                                         uint64_t now_ms, reply_t *reply) {
    /* r-client-ha-design.md 11 item 1 */
    if (pdu->dedup_ttl_ms == 0) {
        return SRV_DROP(s, SIM_SRV_DROP_DEDUP_TTL, .where = "rate request", .field = "dedup_ttl_ms", .got = 0,
                        .rel = "min", .want = 1);
    }
    if (pdu->dedup_ttl_ms > t->quotas.dedup_ttl_ms_max) {
        return SRV_DROP(s, SIM_SRV_DROP_DEDUP_TTL, .where = "rate request", .field = "dedup_ttl_ms",
                        .got = pdu->dedup_ttl_ms, .rel = "max", .want = t->quotas.dedup_ttl_ms_max,
                        .note = "the key's dedup_ttl_ms_max");
    }
    /* r-client-ha-design.md 11 item 1: rejected, not clamped, so the window
     * the client was promised is the one kept. */
    if (pdu->dedup_ttl_ms > s->params.dedup_ttl_cap_ms) {
        return SRV_DROP(s, SIM_SRV_DROP_DEDUP_TTL, .where = "rate request", .field = "dedup_ttl_ms",
                        .got = pdu->dedup_ttl_ms, .rel = "max", .want = s->params.dedup_ttl_cap_ms,
                        .note = "the listener's dedup_ttl_ms_max");
    }
    uint32_t ttl = pdu->dedup_ttl_ms;
    srv_dd_key_t key = {f->key_id, f->unique_id, SRV_PDU_RT, f->tenant_mgmt_flag};
    bool late = false, lost = false;
    const srv_dd_slot_t *hit = dedup_check(s, &key, now_ms, f->pdu_off + f->pdu_len, &late, &lost);
    if (late) {
        return srv_dedup_too_late(s, hit);
    }
    if (hit != NULL && hit->resp_len > f->pdu_off + f->pdu_len) {
        return SRV_DROP(s, SIM_SRV_DROP_MISMATCH, .where = "rate request", .field = "unique_id",
                        .got = f->pdu_off + f->pdu_len, .rel = "min", .want = hit->resp_len,
                        .note = "reuses an answered request's unique_id in a datagram shorter than its reply");
    }
    if (hit != NULL) { /* before the freshness check: a duplicate inside its window is replayed */
        reply->bytes = hit->resp;
        reply->len = hit->resp_len;
        reply->allowed = hit->allowed != 0;
        return SIM_SRV_REPLAYED;
    }
    srv_decision_t d;
    sim_server_verdict_t v = srv_check_fresh(s, f, now_ms);
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    v = srv_rate_request(s, t, pdu, now_ms, &d);
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    s->stats.dedup_reprocessed += lost ? 1u : 0u; /* decided again: a reprocessing */
    /* Queue-local and tenant counters of a fresh decision (wire_protocol.md
     * "Tenant Summary record", "Tenant Label Counter record"); a request
     * without a label is accounted under the label "". */
    srv_counts_t *lc = srv_label_counts(s, t, pdu->has_label ? pdu->label : NULL, pdu->has_label ? pdu->label_len : 0);
    srv_counts_t *counters[2] = {&t->summary, lc};
    for (size_t i = 0; i < 2; i++) {
        if (counters[i] == NULL) {
            continue;
        }
        if (d.allowed) {
            counters[i]->success++;
        } else if (d.guard_failed) {
            counters[i]->guard_failed++;
        } else {
            counters[i]->rate_limited++;
        }
    }
    if (d.allowed) {
        s->st.rate_success++;
    } else if (d.guard_failed) {
        s->st.guard_failed++;
    } else {
        s->st.rate_limited++;
    }
    reply->allowed = d.allowed;
    reply->tokens_granted = d.allowed ? d.tokens_granted : 0;
    reply->len = respond(s, t, f, pdu, &key, ttl, d.allowed, now_ms);
    reply->bytes = s->resp;
    return SIM_SRV_ANSWERED;
}

static sim_server_verdict_t handle(sim_server_t *s, uint64_t now_ms, const uint8_t *in, size_t len,
                                   sim_server_result_t *result, reply_t *reply) {
    srv_frame_t f;
    if (srv_decode_frame(in, len, &f, &result->why) != SRV_OK) {
        return SIM_SRV_DROP_MALFORMED;
    }
    result->key_id = f.key_id;
    memcpy(result->unique_id, f.unique_id, sizeof result->unique_id);
    if (f.tenant_mgmt_flag != 0) {
        s->st.admin_requests++;
        if (!s->has_admin) {
            return SRV_DROP(s, SIM_SRV_DROP_TENANT, .where = "tenant TLV", .field = "tenant_mgmt_flag", .got = 1,
                            .note = "administrative traffic: this server has no admin key");
        }
        return srv_admin_handle(s, now_ms, in, len, &f, &reply->bytes, &reply->len);
    }
    srv_tenant_t *t = srv_tenant_find(s, f.key_id);
    if (t == NULL) {
        return SRV_DROP(s, SIM_SRV_DROP_TENANT, .where = "tenant TLV", .field = "key_id", .got = f.key_id,
                        .note = "no tenant with this key_id");
    }
    if (f.auth_type != t->auth_tlv) {
        t->summary.auth_failed++; /* wire_protocol.md "Tenant Summary record" */
        return SRV_DROP(s, SIM_SRV_DROP_AUTH, .where = "auth TLV", .field = "tlv_type", .got = f.auth_type,
                        .rel = "want", .want = t->auth_tlv, .hex = true, .note = "the key's auth mode");
    }
    if (srv_auth_open(t, in, len, &f, s->scratch) != SRV_OK) {
        t->summary.auth_failed++; /* wire_protocol.md "Tenant Summary record" */
        return SRV_DROP(s, SIM_SRV_DROP_AUTH, .where = "auth TLV",
                        .note = t->auth_tlv == SRV_TLV_AUTH_COOKIE ? "cookie does not match the key"
                                                                   : "AES-256-GCM tag does not verify");
    }
    srv_pdu_t pdu;
    if (srv_decode_pdu(s->scratch + f.pdu_off, f.pdu_len, &pdu, &result->why) != SRV_OK) {
        return SIM_SRV_DROP_MALFORMED;
    }
    result->is_request = pdu.pdu_type == SRV_PDU_RT;
    if (pdu.pdu_type == SRV_PDU_LR) {
        sim_server_verdict_t v = srv_check_fresh(s, &f, now_ms);
        return v != SIM_SRV_ANSWERED ? v : srv_latency_report(s, t, &pdu, now_ms);
    }
    s->st.rate_requests++;
    return rate_request(s, t, &f, &pdu, now_ms, reply);
}

sim_server_verdict_t sim_server_handle(sim_server_t *s, uint64_t now_ms, const uint8_t *in, size_t len,
                                       uint8_t *out, size_t out_cap, size_t *out_len,
                                       sim_server_result_t *result) {
    sim_server_result_t scratch_result;
    sim_server_result_t *r = result != NULL ? result : &scratch_result;
    memset(r, 0, sizeof *r);
    if (out_len != NULL) {
        *out_len = 0;
    }
    if (s == NULL) {
        return SIM_SRV_DROP_MALFORMED;
    }
    s->now_ms = now_ms;
    s->why = &r->why;
    s->result = r;
    s->st.rx_packets++;
    reply_t reply = {NULL, 0, false, 0};
    sim_server_verdict_t v = in == NULL ? SRV_DROP(s, SIM_SRV_DROP_MALFORMED, .where = "datagram", .note = "NULL")
                                        : handle(s, now_ms, in, len, r, &reply);
    s->why = NULL;
    s->result = NULL;
    s->stats.verdicts[v]++;
    switch (v) {
    case SIM_SRV_DROP_MALFORMED: s->st.parse_errors++; s->st.rx_dropped++; break;
    case SIM_SRV_DROP_AUTH: s->st.auth_failures++; s->st.rx_dropped++; break;
    case SIM_SRV_ANSWERED: case SIM_SRV_REPLAYED: case SIM_SRV_REPORT:
    case SIM_SRV_ADMIN_ANSWERED: case SIM_SRV_ADMIN_REPLAYED: break;
    default: s->st.rx_dropped++; break;
    }
    if (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED || v == SIM_SRV_ADMIN_ANSWERED || v == SIM_SRV_ADMIN_REPLAYED) {
        r->allowed = reply.allowed;
        r->tokens_granted = v == SIM_SRV_ANSWERED ? reply.tokens_granted : 0;
        /* A caller buffer too small gets no bytes; the decision stands. */
        if (out != NULL && out_len != NULL && reply.len > 0 && reply.len <= out_cap) {
            memcpy(out, reply.bytes, reply.len);
            *out_len = reply.len;
            s->st.tx_packets++;
        } else {
            s->st.tx_dropped++;
        }
    }
    return v;
}
