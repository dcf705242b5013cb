/* SPDX-License-Identifier: MIT */
/* client_events.c - the events of the stateful client harness: submit,
 * datagrams (raw, built responses, reflections, replays), timers, cancel,
 * reports, steering and drain. Each event computes what the core must do,
 * calls it, and checks the outcome against the model (client_model.h). */
#include <string.h>

#include "client_model.h"
#include "rl_wire.h"

static size_t auth_size(r_auth_type_t mode) {
    return mode == R_AUTH_NONE ? 4u : (mode == R_AUTH_COOKIE ? 36u : 32u);
}

/* What an event must leave alone when the core rejects its input. */
typedef struct {
    cm_slot_state_t state[CM_SLOTS];
    uint64_t deadline[CM_SLOTS];
    size_t n_sends;
    int results;
    bool rebind_pending;
    int rebind_calls;
} cm_snapshot_t;

static void take_snapshot(const cm_model_t *m, cm_snapshot_t *snap) {
    for (size_t i = 0; i < CM_SLOTS; i++) {
        snap->state[i] = m->slots[i].state;
        snap->deadline[i] = snap->state[i] == SLOT_LIVE ? r_client_request_deadline_ms(m->client, m->slots[i].req) : 0;
    }
    snap->n_sends = m->n_sends;
    snap->results = m->results;
    snap->rebind_pending = r_client_rebind_pending(m->client);
    snap->rebind_calls = m->rebind_calls;
}

static void check_unchanged(const cm_model_t *m, const cm_snapshot_t *before) {
    cm_snapshot_t now;
    take_snapshot(m, &now);
    FUZZ_CHECK(memcmp(now.state, before->state, sizeof now.state) == 0);
    FUZZ_CHECK(memcmp(now.deadline, before->deadline, sizeof now.deadline) == 0);
    FUZZ_CHECK(now.n_sends == before->n_sends && now.results == before->results);
    FUZZ_CHECK(now.rebind_pending == before->rebind_pending && now.rebind_calls == before->rebind_calls);
}

/* ---- submit ----------------------------------------------------------------------- */

cm_slot_t *cm_free_slot(cm_model_t *m, uint8_t start) {
    for (size_t k = 0; k < CM_SLOTS; k++) {
        cm_slot_t *s = &m->slots[(start + k) % CM_SLOTS];
        if (s->state != SLOT_LIVE && s != m->completing && s != m->submitting) return s;
    }
    return NULL;
}

/* The submit result api.md "Resource Requests" prescribes, in its order. */
/* A fan-out goes to every member whatever one send does (r-client.md 9.3
 * best-effort delivery) and fails with RCLIENT_ERR_IO only when no member
 * took it: every send failing, or the one failing send being the only one. */
static bool every_send_fails(const cm_model_t *m) {
    return m->fail_all || (m->n_members == 1 && m->fail_in == 1);
}

static int expected_submit(const cm_model_t *m, const cm_slot_t *s) {
    if (s->n_resources == 0 && s->n_guards == 0) return RCLIENT_OK;
    for (size_t i = 0; i < s->n_guards; i++) {
        if (s->guards[i].buffer_size > m->quotas.latency_buffer_size_max) return RCLIENT_ERR_PROTOCOL;
    }
    for (size_t i = 0; i < s->n_resources; i++) {
        if (s->resources[i].window_size_ms > m->quotas.rate_window_size_ms_max) return RCLIENT_ERR_PROTOCOL;
    }
    size_t label = s->label_len == 0 ? 0 : (6 + s->label_len + 3) & ~(size_t)3;
    if (40 + auth_size(m->mode) + 12 + 40 * s->n_guards + 28 * s->n_resources + label > 1200) {
        return RCLIENT_ERR_PROTOCOL;
    }
    if (m->schedule_rc != RCLIENT_OK) return RCLIENT_ERR_CONFIG;
    if (m->rng_fail > 0) return RCLIENT_ERR_AUTH;
    if (every_send_fails(m)) return RCLIENT_ERR_IO;
    return RCLIENT_OK;
}

int cm_submit_slot(cm_model_t *m, cm_slot_t *s) {
    int want = expected_submit(m, s);
    bool empty = s->n_resources == 0 && s->n_guards == 0;
    s->state = SLOT_FREE;
    s->uid_known = false;
    s->completions = 0;
    memset(s->have_resp, 0, sizeof s->have_resp);
    s->t0 = m->now;
    s->dedup_deadline = m->now + m->schedule.ttl_ms;
    s->label[s->label_len] = '\0';
    const char *label = s->label_len > 0 ? s->label : NULL;
    size_t label_len = s->label_cstr ? 0 : s->label_len;
    r_client_req_t *req = (r_client_req_t *)&req; /* sentinel: must stay untouched on error */
    r_client_req_t *const sentinel = req;
    cm_op_t op = m->op;
    cm_slot_t *outer = m->submitting;
    size_t sends = m->n_sends;
    int empties = m->empty_completions;
    m->op = OP_SUBMIT;
    m->submitting = s;
    int rc = s->borrowed
                 ? r_client_check_rate_limit_async_borrowed(m->client, s->resources, s->n_resources, s->guards,
                                                            s->n_guards, label, label_len,
                                                            empty ? cm_on_empty : cm_on_result, empty ? (void *)m : s,
                                                            &req)
                 : r_client_check_rate_limit_async(m->client, s->resources, s->n_resources, s->guards, s->n_guards,
                                                   label, label_len, empty ? cm_on_empty : cm_on_result,
                                                   empty ? (void *)m : s, &req);
    m->op = op;
    m->submitting = outer;
    /* A random source that repeats itself may exhaust the unique_id retries,
     * which come before any send. */
    bool retries_exhausted = m->rng_rewound && rc == RCLIENT_ERR_AUTH && (want == RCLIENT_OK || want == RCLIENT_ERR_IO);
    if (rc != want && !retries_exhausted) fprintf(stderr, "submit returned %d, model expects %d\n", rc, want);
    FUZZ_CHECK(rc == want || retries_exhausted);
    if (empty) {
        FUZZ_CHECK(req == NULL && m->empty_completions == empties + 1 && m->n_sends == sends);
        return rc;
    }
    if (rc != RCLIENT_OK) {
        FUZZ_CHECK(req == sentinel);
        FUZZ_CHECK(m->n_sends == sends + (rc == RCLIENT_ERR_IO ? m->n_members : 0)); /* every member tried */
        s->uid_known = false;
        return rc;
    }
    FUZZ_CHECK(req != NULL && req != sentinel && s->uid_known);
    FUZZ_CHECK(m->n_sends == sends + m->n_members); /* sent to every member */
    s->req = req;
    s->state = SLOT_LIVE;
    return rc;
}

static const uint32_t WINDOWS[8] = {1000, 60000, 65536, 65537, 4294967295u, 1, 100, 30000};

void cm_ev_submit(cm_model_t *m, fuzz_reader_t *r, bool borrowed) {
    cm_slot_t *s = cm_free_slot(m, fuzz_u8(r));
    if (s == NULL) return;
    uint8_t counts = fuzz_u8(r);
    s->n_resources = counts % CM_MAX_BLOCKS;
    s->n_guards = (counts / CM_MAX_BLOCKS) % CM_MAX_BLOCKS;
    uint8_t lb = fuzz_u8(r);
    s->label_len = lb < 200 ? lb % 24u : (size_t)(lb - 200u) * 20u;
    s->label_cstr = false;
    fuzz_bytes(r, (uint8_t *)s->label, s->label_len);
    if (lb < 200 && (lb / 24) % 2 == 1 && memchr(s->label, '\0', s->label_len) == NULL) s->label_cstr = true;
    s->borrowed = borrowed;
    s->cb_action = (cm_cb_action_t)(fuzz_u8(r) % CB_ACTIONS);
    s->cb_arg = fuzz_u8(r);
    memset(s->resources, 0, sizeof s->resources);
    memset(s->guards, 0, sizeof s->guards);
    for (size_t i = 0; i < s->n_resources; i++) {
        r_resource_request_t *res = &s->resources[i];
        uint8_t b = fuzz_u8(r);
        memset(res->bucket_id, b, 16);
        res->bucket_id[0] = (uint8_t)i;
        res->window_size_ms = WINDOWS[b % 8];
        res->rate_limit = fuzz_u16(r);
        res->tokens_requested = fuzz_u8(r);
        if (i > 0 && b % 5 == 1) {
            /* the same bucket again (its ID and definition), its own tokens */
            memcpy(res->bucket_id, s->resources[0].bucket_id, 16);
            res->window_size_ms = s->resources[0].window_size_ms;
            res->rate_limit = s->resources[0].rate_limit;
        }
    }
    for (size_t i = 0; i < s->n_guards; i++) {
        r_latency_guard_t *g = &s->guards[i];
        uint8_t b = fuzz_u8(r);
        memset(g->latency_tracker_id, b, 16);
        g->latency_tracker_id[0] = (uint8_t)i;
        g->threshold_ms = fuzz_u16(r);
        g->ttl_ms = 10000;
        g->max_samples = 100;
        g->buffer_size = b < 240 ? 32 : b; /* above latency_buffer_size_max 32: PROTOCOL */
        g->min_sample_threshold = 5;
        if (i > 0 && b % 4 == 1) {
            /* r-client.md 5.2: the same tracker under its own threshold */
            uint32_t threshold = g->threshold_ms;
            *g = s->guards[0];
            g->threshold_ms = threshold;
        }
    }
    (void)cm_submit_slot(m, s);
}

/* ---- datagrams -------------------------------------------------------------- */

/* The response-semantic check, read from the spec (not from the core):
 * wire_protocol.md "rate_response PDU" builds the response by modifying the
 * request in place and copies guard_count and resource_count, so block i of
 * the response is the request's block i with only the response fields
 * rewritten (current_latency; rate_limit -> actual_rate, tokens_requested ->
 * deficit). Everything that names the tracker or bucket stays: the ID and the
 * tracker settings (ttl_ms, max_samples, buffer_size, min_sample_threshold),
 * the bucket's window_size_ms. latency_threshold is a query (r-client.md 5.2),
 * so the echo is not compared: the decision uses the requested one.
 * plain is a framed response. */
static bool answers_request(const cm_slot_t *s, const uint8_t *plain, r_auth_type_t mode) {
    size_t pdu = 40u + auth_size(mode);
    size_t ng = fw_u16(plain + pdu + 8), nr = fw_u16(plain + pdu + 10);
    if (ng != s->n_guards || nr != s->n_resources) return false;
    const uint8_t *b = plain + pdu + 12;
    for (size_t i = 0; i < ng; i++, b += 40) {
        const r_latency_guard_t *q = &s->guards[i];
        if (memcmp(q->latency_tracker_id, b, 16) != 0 || fw_u32(b + 16) != q->ttl_ms ||
            fw_u32(b + 20) != q->max_samples || fw_u32(b + 24) != q->buffer_size ||
            fw_u32(b + 28) != q->min_sample_threshold) {
            return false;
        }
    }
    for (size_t i = 0; i < nr; i++, b += 28) {
        const r_resource_request_t *q = &s->resources[i];
        if (memcmp(q->bucket_id, b, 16) != 0 || fw_u32(b + 16) != q->window_size_ms) return false;
    }
    return true;
}

/* The on_datagram code and validity the oracle (fuzz_wire.c) predicts.
 * api.md "Datagrams and Timers": malformed and AES tag failures are
 * PROTOCOL, a wrong auth type or cookie AUTH, whether or not the unique_id
 * matches a live request (framing and authentication need only the key);
 * OK for a valid-looking datagram that matches no live request. */
static int expected_datagram(cm_model_t *m, const uint8_t *d, size_t len, cm_pending_t *p) {
    p->valid = false;
    if (len > CM_DGRAM) return RCLIENT_ERR_PROTOCOL;
    fw_response_key_t key = {m->mode, m->secret, NULL, m->member_ids, m->n_members};
    uint8_t zero[16] = {0};
    key.unique_id = zero;
    fw_response_t want;
    fw_check_response(d, len, &key, false, &want);
    if (!want.outer_ok) return RCLIENT_ERR_PROTOCOL;
    memcpy(p->plain, d, len);
    bool tag_ok = false;
    if (m->mode == R_AUTH_AES && want.pre_auth_ok && fw_u16(d + 40) == 0x4541u) {
        tag_ok = rl_auth_open(&m->server_auth, p->plain, len, NULL) == RCLIENT_OK;
    }
    cm_slot_t *s = cm_slot_by_uid(m, d + 12);
    key.unique_id = s != NULL ? s->unique_id : d + 12;
    fw_check_response(p->plain, len, &key, tag_ok, &want);
    if (s == NULL) {
        /* late, foreign or unknown: only its own framing and auth can fail */
        return want.cls == FW_MALFORMED || want.cls == FW_AUTH ? want.code : RCLIENT_OK;
    }
    if (want.cls == FW_OK && !answers_request(s, p->plain, m->mode)) {
        return RCLIENT_ERR_PROTOCOL; /* not this request's answer: rejected, no state change */
    }
    if (want.cls == FW_OK) {
        p->valid = true;
        p->slot = s;
        p->member = cm_member(m, want.server_id);
        p->duplicate = s->have_resp[p->member];
        p->len = len;
    }
    return want.code;
}

static void deliver(cm_model_t *m, const uint8_t *data, size_t len) {
    uint8_t *d = fuzz_dup(data, len); /* exact size: over-reads are ASan reports */
    int want = expected_datagram(m, d, len, &m->pending);
    cm_snapshot_t before;
    take_snapshot(m, &before);
    cm_op_t op = m->op;
    m->op = OP_DATAGRAM;
    int rc = r_client_on_datagram(m->client, d, len);
    m->op = op;
    FUZZ_CHECK(rc == want);
    cm_pending_t *p = &m->pending;
    if (!p->valid) {
        check_unchanged(m, &before); /* r-client.md 6.3 rule 1 */
    } else {
        uint64_t server_id = m->member_ids[p->member];
        if (p->plain[36] == 0 && !before.rebind_pending) {
            m->rebind_pending = true; /* r-client.md 6.1 Ready -> RebindPending */
            m->rebind_expected++;
            FUZZ_CHECK(m->rebind_server == server_id);
        }
        cm_slot_t *s = p->slot;
        if (!p->duplicate) {
            s->have_resp[p->member] = true;
            memcpy(s->resp[p->member], p->plain, len);
            s->resp_len[p->member] = len;
            /* The oldest server's response is selected at once (r-client.md 9.3.3). */
            if (p->member == m->oldest) FUZZ_CHECK(s->state == SLOT_DONE);
        }
        p->valid = false;
    }
    if (len <= sizeof m->last) {
        memcpy(m->last, data, len);
        m->last_len = len;
    }
    free(d);
}

void cm_ev_raw_datagram(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t flags = fuzz_u8(r);
    size_t len = fuzz_u16(r) % (CM_DGRAM + 64);
    if (len > fuzz_left(r)) len = fuzz_left(r);
    uint8_t buf[CM_DGRAM + 64];
    fuzz_bytes(r, buf, len);
    /* Optionally aim at a live request so the lookup by unique_id succeeds. */
    cm_slot_t *s = &m->slots[flags % CM_SLOTS];
    if ((flags & 0x80u) && len >= 28 && s->state == SLOT_LIVE) memcpy(buf + 12, s->unique_id, 16);
    deliver(m, buf, len);
}

/* Block-level edits a wrong or hostile server could make (shape bits 0-2):
 * repeat block 0 over the last block, omit the last block (count, pdu_size
 * and length shrink, framing stays valid), swap blocks 0 and 1, or rewrite
 * guard 0's echoed latency_threshold; bit 3 picks guards or resources; bit
 * 4 gives the datagram a unique_id no request holds. */
static void reshape(const cm_model_t *m, const cm_slot_t *s, uint8_t shape, uint32_t value, uint8_t *buf,
                    size_t *len) {
    uint8_t *pdu = buf + 40 + auth_size(m->mode);
    bool guards = (shape >> 3) & 1u;
    size_t n = guards ? s->n_guards : s->n_resources, size = guards ? 40u : 28u;
    uint8_t *first = pdu + 12 + (guards ? 0 : 40 * s->n_guards);
    uint8_t tmp[40];
    switch (shape & 7u) {
    case 4:
        if (n >= 2) memcpy(first + size * (n - 1), first, size);
        break;
    case 5:
        if (n >= 1) {
            uint8_t *last = first + size * (n - 1);
            memmove(last, last + size, (size_t)(buf + *len - (last + size)));
            *len -= size;
            fw_put_u16(pdu + (guards ? 8 : 10), (uint16_t)(n - 1));
            fw_put_u16(pdu + 2, (uint16_t)(fw_u16(pdu + 2) - size));
        }
        break;
    case 6:
        if (n >= 2) {
            memcpy(tmp, first, size);
            memcpy(first, first + size, size);
            memcpy(first + size, tmp, size);
        }
        break;
    case 7:
        if (s->n_guards > 0) fw_put_u32(pdu + 12 + 32, value);
        break;
    default:
        break;
    }
    if (shape & 0x10u) buf[12 + 15] ^= 0x5Au;
}

/* A server's answer to a live request (the request modified in place,
 * wire_protocol.md "rate_response PDU"), then mutated by the input. */
void cm_ev_response(cm_model_t *m, fuzz_reader_t *r) {
    cm_slot_t *s = &m->slots[fuzz_u8(r) % CM_SLOTS];
    size_t j = fuzz_u8(r) % m->n_members;
    uint8_t flags = fuzz_u8(r);
    uint8_t shape = fuzz_u8(r);
    if (s->state != SLOT_LIVE) return;
    uint8_t buf[CM_DGRAM];
    size_t len = s->dgram_len;
    memcpy(buf, s->plain, len);
    fw_put_u64(buf + 4, (flags & 1u) ? fuzz_u64(r) : m->member_ids[j]);
    buf[36] = (flags >> 1) & 1u;
    uint8_t *pdu = buf + 40 + auth_size(m->mode);
    fw_put_u16(pdu, 0x5252u);
    fw_put_u32(pdu + 4, 0);
    for (size_t i = 0; i < s->n_guards; i++) {
        fw_put_u32(pdu + 12 + 40 * i + 36, (flags & 0x40u) ? fuzz_u16(r) : fuzz_u8(r) % 8u);
    }
    for (size_t i = 0; i < s->n_resources; i++) {
        uint8_t *b = pdu + 12 + 40 * s->n_guards + 28 * i;
        fw_put_u32(b + 20, fuzz_u16(r));
        fw_put_u16(b + 24, (flags & 0x20u) ? fuzz_u8(r) : 0);
    }
    reshape(m, s, shape, fuzz_u32(r), buf, &len);
    size_t n_mut = (flags >> 3) & 3u;
    bool after_seal = flags & 4u;
    uint8_t mut[3][3];
    for (size_t k = 0; k < n_mut; k++) fuzz_bytes(r, mut[k], 3);
    for (size_t k = 0; k < n_mut && !after_seal; k++) buf[fw_u16(mut[k]) % len] ^= mut[k][2];
    uint8_t nonce[12] = {0x52, 0x52};
    nonce[11] = fuzz_u8(r);
    (void)rl_auth_seal(&m->server_auth, buf, len, nonce); /* fails only when a mutation broke the framing */
    for (size_t k = 0; k < n_mut && after_seal; k++) buf[fw_u16(mut[k]) % len] ^= mut[k][2];
    if (flags & 0x80u) len = fuzz_u16(r) % (len + 1);
    deliver(m, buf, len);
}

/* The client's own request sent back (reflection): never a response. */
void cm_ev_reflect(cm_model_t *m, fuzz_reader_t *r) {
    cm_slot_t *s = &m->slots[fuzz_u8(r) % CM_SLOTS];
    if (s->state == SLOT_LIVE) deliver(m, s->sealed, s->dgram_len);
}

void cm_ev_replay_last(cm_model_t *m) {
    uint8_t copy[sizeof m->last];
    memcpy(copy, m->last, m->last_len);
    deliver(m, copy, m->last_len);
}

/* ---- timers, cancel ----------------------------------------------------------- */

void cm_fire_slot(cm_model_t *m, cm_slot_t *s) {
    cm_snapshot_t before;
    take_snapshot(m, &before);
    uint64_t due = r_client_request_deadline_ms(m->client, s->req);
    cm_op_t op = m->op;
    m->op = OP_TIMEOUT;
    FUZZ_CHECK(r_client_on_timeout(m->client, s->req, m->now) == RCLIENT_OK);
    m->op = op;
    if (m->now < due) {
        check_unchanged(m, &before); /* early: a no-op (api.md "Datagrams and Timers") */
        return;
    }
    if (s->state == SLOT_LIVE) {
        /* Every due deadline was applied; none at or past t0 + ttl_ms remains. */
        FUZZ_CHECK(r_client_request_deadline_ms(m->client, s->req) > m->now);
        FUZZ_CHECK(m->now < s->dedup_deadline);
    }
}

void cm_ev_fire(cm_model_t *m, fuzz_reader_t *r) {
    cm_slot_t *s = &m->slots[fuzz_u8(r) % CM_SLOTS];
    if (s->state == SLOT_LIVE) cm_fire_slot(m, s);
}

/* As an event loop would: jump to the earliest deadline and fire it. */
void cm_ev_host_loop(cm_model_t *m) {
    cm_slot_t *next = NULL;
    uint64_t best = UINT64_MAX;
    for (size_t i = 0; i < CM_SLOTS; i++) {
        cm_slot_t *s = &m->slots[i];
        uint64_t d = s->state == SLOT_LIVE ? r_client_request_deadline_ms(m->client, s->req) : UINT64_MAX;
        if (d < best) {
            best = d;
            next = s;
        }
    }
    if (next == NULL) return;
    if (best > m->now) m->now = best;
    cm_fire_slot(m, next);
}

void cm_ev_cancel(cm_model_t *m, fuzz_reader_t *r) {
    cm_slot_t *s = &m->slots[fuzz_u8(r) % CM_SLOTS];
    if (s->state != SLOT_LIVE) return;
    size_t sends = m->n_sends;
    int results = m->results;
    m->op = OP_CANCEL;
    FUZZ_CHECK(r_client_cancel_request(m->client, s->req) == RCLIENT_OK);
    m->op = OP_NONE;
    s->state = SLOT_CANCELLED;
    FUZZ_CHECK(m->n_sends == sends && m->results == results);
}

void cm_drain(cm_model_t *m) {
    for (int iter = 0; iter < 64; iter++) {
        cm_slot_t *s = NULL;
        for (size_t i = 0; i < CM_SLOTS && s == NULL; i++) {
            if (m->slots[i].state == SLOT_LIVE) s = &m->slots[i];
        }
        if (s == NULL) return;
        if (m->now < s->dedup_deadline) m->now = s->dedup_deadline;
        cm_fire_slot(m, s);
        FUZZ_CHECK(s->state != SLOT_LIVE); /* exactly once: it completed now */
        cm_check_all(m);
    }
    FUZZ_CHECK(!"drain did not converge");
}

/* ---- reports ------------------------------------------------------------------ */

void cm_report_values(cm_model_t *m, const r_service_latency_report_t *reports, size_t n) {
    r_service_latency_report_t kept[64];
    size_t n_kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (reports[i].buffer_size <= m->quotas.latency_buffer_size_max) kept[n_kept++] = reports[i];
    }
    int want = RCLIENT_OK;
    if (n_kept > 0 && 40 + auth_size(m->mode) + 12 + 36 * n_kept > 1200) {
        want = RCLIENT_ERR_PROTOCOL;
    } else if (n_kept > 0 && m->rng_fail > 0) {
        want = RCLIENT_ERR_AUTH;
    } else if (n_kept > 0 && every_send_fails(m)) {
        want = RCLIENT_ERR_IO;
    }
    size_t sends = m->n_sends;
    size_t expect_sends = (want == RCLIENT_OK || want == RCLIENT_ERR_IO) && n_kept > 0 ? m->n_members : 0;
    const r_service_latency_report_t *outer = m->reporting;
    size_t outer_n = m->n_reporting;
    cm_op_t op = m->op;
    m->reporting = kept;
    m->n_reporting = n_kept;
    m->op = OP_REPORT;
    int rc = r_client_report_latency(m->client, reports, n);
    m->op = op;
    m->reporting = outer;
    m->n_reporting = outer_n;
    /* As for submits: a random source that repeats in-flight unique_ids may
     * exhaust the report's retries (a fresh identity per call), before any send. */
    bool retries_exhausted = m->rng_rewound && rc == RCLIENT_ERR_AUTH && m->n_sends == sends &&
                             (want == RCLIENT_OK || want == RCLIENT_ERR_IO);
    FUZZ_CHECK((rc == want && m->n_sends == sends + expect_sends) || retries_exhausted);
}

void cm_ev_report(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t c = fuzz_u8(r);
    size_t n = c < 240 ? 1u + c % 4u : (size_t)(c - 200u); /* 40..55 do not fit one datagram */
    r_service_latency_report_t reports[64];
    memset(reports, 0, sizeof reports);
    for (size_t i = 0; i < n; i++) {
        uint8_t b = fuzz_u8(r);
        memset(reports[i].latency_tracker_id, b, 16);
        reports[i].ttl_ms = 10000;
        reports[i].max_samples = 100;
        reports[i].buffer_size = b < 230 ? 32 : b;
        reports[i].min_sample_threshold = 5;
        reports[i].observed_latency = fuzz_u16(r);
    }
    cm_report_values(m, reports, n);
}

/* ---- host state ---------------------------------------------------------------- */

void cm_ev_rebind_complete(cm_model_t *m, fuzz_reader_t *r) {
    bool ok = fuzz_u8(r) & 1u;
    r_client_rebind_complete(m->client, ok);
    if (ok) m->rebind_pending = false; /* a failure keeps RebindPending */
}

void cm_ev_misc(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t c = fuzz_u8(r);
    switch (c % 6) {
    case 0: m->fail_all = !m->fail_all; break;
    case 1: m->fail_in = 1 + (c >> 3) % 5; break;
    case 2: /* rewind: the next draws repeat earlier unique_ids */
        m->rng_counter = m->rng_counter > (uint64_t)(1 + (c >> 3) % 4) ? m->rng_counter - 1 - (c >> 3) % 4 : 1;
        m->rng_rewound = true;
        break;
    case 3: m->rng_fail = 1 + (c >> 3) % 2; break;
    case 4: FUZZ_CHECK(r_client_refresh_dns(m->client) == RCLIENT_ERR_CONFIG); break; /* explicit servers */
    default: m->now += (uint64_t)fuzz_u16(r) * 16u; break;
    }
}
