/* SPDX-License-Identifier: MIT */
/* client_model.c - setup, host hooks, completion callbacks and the per-event
 * invariants of the stateful client harness (client_model.h). */
#include "client_model.h"

#include <string.h>

#include "rl_credential.h"

#define KEY_ID 72623859790382856ull

/* ---- lookups ------------------------------------------------------------------ */

size_t cm_member(const cm_model_t *m, uint64_t server_id) {
    size_t j = 0;
    while (j < m->n_members && m->member_ids[j] != server_id) j++;
    return j;
}

cm_slot_t *cm_slot_by_uid(cm_model_t *m, const uint8_t uid[16]) {
    for (size_t i = 0; i < CM_SLOTS; i++) {
        cm_slot_t *s = &m->slots[i];
        if (s->state == SLOT_LIVE && s->uid_known && memcmp(s->unique_id, uid, 16) == 0) return s;
    }
    return NULL;
}

static size_t member_by_addr(const cm_model_t *m, const r_addr_t *to) {
    size_t j = 0;
    while (j < m->n_members) {
        /* A duplicate server_id keeps the first endpoint given (rl_membership.h). */
        size_t e = 0;
        while (m->member_of[e] != j) e++;
        const r_addr_t *a = &m->endpoints[e].addr;
        if (a->family == to->family && a->port == to->port && memcmp(a->addr, to->addr, 16) == 0) break;
        j++;
    }
    return j;
}

/* ---- setup ------------------------------------------------------------------------ */

static void read_schedule(fuzz_reader_t *r, r_ha_schedule_t *s, uint32_t min_initial) {
    s->kind = (r_ha_schedule_kind_t)(fuzz_u8(r) % 3);
    s->initial_units = min_initial + fuzz_u8(r) % 4;
    s->max_units = s->initial_units + fuzz_u8(r) % 4;
    s->growth.linear_step_units = fuzz_u8(r) % 3; /* also the exponential factor */
}

/* A named preset, or a small custom policy (possibly invalid: then every
 * submit must fail with RCLIENT_ERR_CONFIG). */
static void read_policy(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t sel = fuzz_u8(r) % 8;
    if (sel < 5) {
        FUZZ_CHECK(r_client_request_policy_preset(&m->policy, (r_policy_preset_t)sel) == RCLIENT_OK);
    } else {
        r_client_default_request_policy(&m->policy);
        m->policy.unit_ms = 1 + fuzz_u8(r) % 20;
        m->policy.replay_count = fuzz_u8(r) % 5;
        read_schedule(r, &m->policy.replay_gap, 1);
        read_schedule(r, &m->policy.preference, 0);
        m->policy.final_receive_units = fuzz_u8(r) % 4;
        m->policy.final_preference_units = fuzz_u8(r) % (m->policy.final_receive_units + 1);
        m->policy.completion_delivery = fuzz_u8(r) & 1u;
    }
    m->schedule_rc = r_client_policy_schedule(&m->policy, m->quotas.dedup_ttl_ms_max, &m->schedule, NULL);
}

/* 1..4 endpoints with distinct ages, in either order, optionally with the
 * last one repeating the first one's server_id on another port. */
static void read_servers(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t c = fuzz_u8(r);
    m->n_endpoints = 1 + c % CM_MAX_ENDPOINTS;
    bool reversed = (c >> 2) & 1u, duplicate = ((c >> 3) & 1u) && m->n_endpoints > 1;
    for (size_t i = 0; i < m->n_endpoints; i++) {
        size_t k = reversed ? m->n_endpoints - 1 - i : i;
        r_server_endpoint_t *e = &m->endpoints[i];
        FUZZ_CHECK(r_client_encode_server_id(1767225600u - 3600u * (CM_MAX_ENDPOINTS - k), (uint8_t)k,
                                             (uint16_t)(10 + k), &e->server_id) == RCLIENT_OK);
        e->addr.family = R_ADDR_INET;
        e->addr.port = (uint16_t)(29292 + i);
        e->addr.addr[0] = 127;
        e->addr.addr[3] = 1;
    }
    if (duplicate) m->endpoints[m->n_endpoints - 1].server_id = m->endpoints[0].server_id;
    for (size_t i = 0; i < m->n_endpoints; i++) {
        size_t j = cm_member(m, m->endpoints[i].server_id);
        if (j == m->n_members) m->member_ids[m->n_members++] = m->endpoints[i].server_id;
        m->member_of[i] = j;
    }
    m->oldest = 0;
    for (size_t j = 1; j < m->n_members; j++) {
        if (m->member_ids[j] < m->member_ids[m->oldest]) m->oldest = j;
    }
}

void cm_setup(cm_model_t *m, fuzz_reader_t *r) {
    uint8_t c = fuzz_u8(r);
    m->mode = (r_auth_type_t)(1 + c % 3);
    /* 0xf8f2b150: buffer 32, dedup 300 ms, any window; 0x80f2b150: window 65536 ms. */
    uint32_t quota_word = (c & 4u) ? 0x80f2b150u : 0xf8f2b150u;
    FUZZ_CHECK(r_client_decode_quota_word(quota_word, &m->quotas, NULL) == RCLIENT_OK);
    for (size_t i = 0; i < 32; i++) m->secret[i] = (uint8_t)(0x30 + i);
    m->key_id = KEY_ID;
    read_policy(m, r);
    read_servers(m, r);
    for (size_t i = 0; i < CM_SLOTS; i++) m->slots[i].m = m;
    m->now = CM_T0;
    m->rng_counter = 1;
    FUZZ_CHECK(rl_auth_init(&m->server_auth, m->mode, m->secret) == RCLIENT_OK);

    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = m->mode;
    info.key_id = m->key_id;
    info.has_secret = m->mode != R_AUTH_NONE;
    if (info.has_secret) memcpy(info.secret, m->secret, 32);
    info.quota_word = quota_word;
    char key[160];
    FUZZ_CHECK(rl_credential_encode(&info, key, sizeof key) > 0);
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = key;
    cfg.request_policy = &m->policy;
    cfg.servers = m->endpoints;
    cfg.server_count = m->n_endpoints;
    cfg.request_profile_cb = cm_profile;
    cfg.request_profile_user_data = m;
    r_io_ops_t io = {.ctx = m, .udp_send = cm_udp_send, .now_ms = cm_now, .steering_rebind = cm_rebind,
                     .random = cm_random};
    FUZZ_CHECK(r_client_create(&cfg, &io, NULL, &m->client) == RCLIENT_OK);
}

void cm_teardown(cm_model_t *m) {
    m->op = OP_DESTROY; /* in-flight requests are cancelled without callbacks */
    r_client_destroy(m->client);
    rl_auth_release(&m->server_auth);
}

/* ---- host hooks ---------------------------------------------------------------- */

uint64_t cm_now(void *ctx) {
    return ((cm_model_t *)ctx)->now;
}

static uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Deterministic: one counter step per draw; rewinding repeats draws. */
int cm_random(void *ctx, uint8_t *buf, size_t len) {
    cm_model_t *m = ctx;
    if (m->rng_fail > 0) {
        m->rng_fail--;
        return -1;
    }
    uint64_t v = splitmix64(m->rng_counter++);
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && i % 8 == 0) v = splitmix64(v);
        buf[i] = (uint8_t)(v >> (8 * (i % 8)));
    }
    return 0;
}

void cm_rebind(void *ctx, uint64_t server_id) {
    cm_model_t *m = ctx;
    FUZZ_CHECK(m->op == OP_DATAGRAM);
    m->rebind_calls++;
    m->rebind_server = server_id;
}

/* A rate request on the wire: the slot's logical request, unchanged. */
static void check_request_content(const cm_model_t *m, const cm_slot_t *s, const fw_rate_request_t *rq) {
    FUZZ_CHECK(rq->dedup_ttl_ms == m->schedule.ttl_ms && rq->tenant.time_stamp_ms == s->t0);
    FUZZ_CHECK(rq->n_guards == s->n_guards && rq->n_resources == s->n_resources);
    FUZZ_CHECK(memcmp(rq->guards, s->guards, s->n_guards * sizeof s->guards[0]) == 0);
    for (size_t i = 0; i < s->n_resources; i++) {
        const r_resource_request_t *a = &rq->resources[i], *b = &s->resources[i];
        FUZZ_CHECK(memcmp(a->bucket_id, b->bucket_id, 16) == 0 && a->window_size_ms == b->window_size_ms);
        FUZZ_CHECK(a->rate_limit == b->rate_limit && a->tokens_requested == b->tokens_requested);
    }
    FUZZ_CHECK(rq->label_len == s->label_len);
}

static void on_request_send(cm_model_t *m, size_t member, const uint8_t *data, const uint8_t *plain, size_t len,
                            const fw_rate_request_t *rq) {
    cm_slot_t *s = m->submitting;
    if (s != NULL && !s->uid_known) {
        /* The first send of a submit: a fresh unique_id, never one in flight. */
        FUZZ_CHECK(cm_slot_by_uid(m, rq->tenant.unique_id) == NULL);
        memcpy(s->unique_id, rq->tenant.unique_id, 16);
        s->uid_known = true;
        memcpy(s->plain, plain, len);
        memcpy(s->sealed, data, len);
        s->dgram_len = len;
        check_request_content(m, s, rq);
        FUZZ_CHECK(s->label_len == 0 || memcmp(plain + rq->label_off, s->label, s->label_len) == 0);
    } else if (s == NULL || memcmp(s->unique_id, rq->tenant.unique_id, 16) != 0) {
        s = cm_slot_by_uid(m, rq->tenant.unique_id);
        FUZZ_CHECK(s != NULL); /* no datagram for a finished, cancelled or unknown request */
    }
    /* Replays are byte-identical to the first transmission (api.md). */
    FUZZ_CHECK(len == s->dgram_len && memcmp(data, s->sealed, len) == 0);
    /* r-client.md 9.3.1: no send at or after t0 + ttl_ms. */
    FUZZ_CHECK(m->now < s->dedup_deadline);
    /* Replays and completion delivery go only to servers without a valid response. */
    FUZZ_CHECK(!s->have_resp[member]);
    FUZZ_CHECK(!(m->pending.valid && m->pending.slot == s && m->pending.member == member));
}

static void on_report_send(cm_model_t *m, const fw_latency_report_t *rp) {
    FUZZ_CHECK(m->reporting != NULL && rp->n_reports == m->n_reporting);
    FUZZ_CHECK(memcmp(rp->reports, m->reporting, m->n_reporting * sizeof rp->reports[0]) == 0);
    FUZZ_CHECK(rp->tenant.time_stamp_ms == m->now);
}

int cm_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    cm_model_t *m = ctx;
    FUZZ_CHECK(m->op == OP_SUBMIT || m->op == OP_DATAGRAM || m->op == OP_TIMEOUT || m->op == OP_REPORT);
    FUZZ_CHECK(data != NULL && len >= 56 && len <= CM_DGRAM);
    size_t member = member_by_addr(m, to);
    FUZZ_CHECK(member < m->n_members);
    m->n_sends++;
    /* Every datagram authenticates under the key and decodes strictly. */
    uint8_t plain[CM_DGRAM];
    memcpy(plain, data, len);
    FUZZ_CHECK(rl_auth_open(&m->server_auth, plain, len, NULL) == RCLIENT_OK);
    fw_rate_request_t rq;
    fw_latency_report_t rp;
    const fw_tenant_t *t = &rq.tenant;
    if (fw_decode_rate_request(plain, len, &rq) == NULL) {
        on_request_send(m, member, data, plain, len, &rq);
    } else {
        FUZZ_CHECK(fw_decode_latency_report(plain, len, &rp) == NULL);
        on_report_send(m, &rp);
        t = &rp.tenant;
    }
    FUZZ_CHECK(t->key_id == m->key_id && t->steering_feedback == 1 && t->tenant_mgmt_flag == 0);
    if (m->fail_all) return -1;
    if (m->fail_in > 0 && --m->fail_in == 0) return -1;
    return 0;
}

/* ---- callbacks ------------------------------------------------------------------- */

void cm_profile(const r_request_profile_t *p, void *user) {
    cm_model_t *m = user;
    FUZZ_CHECK(m->op == OP_SUBMIT || m->op == OP_DATAGRAM || m->op == OP_TIMEOUT);
    FUZZ_CHECK(m->profiles == m->results); /* one profile, then its callback */
    m->profiles++;
    m->last_profile = *p;
}

/* The selected response must be the first valid one that server sent for
 * this request, field by field. */
static void check_selected(const cm_model_t *m, const cm_slot_t *s, const r_rate_limit_result_t *res) {
    size_t j = cm_member(m, res->server_id);
    FUZZ_CHECK(j < m->n_members);
    const uint8_t *d = s->have_resp[j] ? s->resp[j] : NULL;
    if (d == NULL && m->pending.valid && m->pending.slot == s && m->pending.member == j) d = m->pending.plain;
    FUZZ_CHECK(d != NULL);
    const uint8_t *pdu = d + 40 + (m->mode == R_AUTH_NONE ? 4 : (m->mode == R_AUTH_COOKIE ? 36 : 32));
    size_t ng = fw_u16(pdu + 8), nr = fw_u16(pdu + 10);
    FUZZ_CHECK(res->guard_count == ng && res->resource_count == nr);
    FUZZ_CHECK((ng == 0) == (res->guards == NULL) && (nr == 0) == (res->resources == NULL));
    FUZZ_CHECK(res->steering_feedback == (d[36] == 1));
    bool success = true;
    for (size_t i = 0; i < ng; i++) {
        const uint8_t *g = pdu + 12 + 40 * i;
        const r_guard_result_t *gr = &res->guards[i];
        /* Block i answers request guard i (the response is the request modified
         * in place); a guard fails when current_latency >= the threshold that
         * guard asked for (wire_protocol.md "Response Semantics"; r-client.md
         * 5.2: the threshold is a query, so a repeated tracker is judged once
         * per guard), never the echo. */
        uint32_t threshold = s->guards[i].threshold_ms;
        FUZZ_CHECK(i < s->n_guards && memcmp(s->guards[i].latency_tracker_id, g, 16) == 0);
        FUZZ_CHECK(memcmp(gr->latency_tracker_id, g, 16) == 0 && gr->threshold_ms == threshold);
        FUZZ_CHECK(gr->current_latency_ms == fw_u32(g + 36) && gr->passed == (gr->current_latency_ms < gr->threshold_ms));
        success = success && gr->passed;
    }
    for (size_t i = 0; i < nr; i++) {
        const uint8_t *b = pdu + 12 + 40 * ng + 28 * i;
        const r_resource_result_t *rr = &res->resources[i];
        FUZZ_CHECK(i < s->n_resources && memcmp(s->resources[i].bucket_id, b, 16) == 0);
        FUZZ_CHECK(memcmp(rr->bucket_id, b, 16) == 0 && rr->actual_rate == fw_u32(b + 20));
        FUZZ_CHECK(rr->tokens_deficit == fw_u16(b + 24));
        success = success && rr->tokens_deficit == 0;
    }
    FUZZ_CHECK(res->success == success);
}

static void check_result(const cm_model_t *m, const cm_slot_t *s, const r_rate_limit_result_t *res) {
    int st = res->status;
    FUZZ_CHECK(st == RCLIENT_OK || st == RCLIENT_ERR_TIMEOUT || st == RCLIENT_ERR_IO || st == RCLIENT_ERR_AUTH);
    const r_request_profile_t *p = &m->last_profile;
    FUZZ_CHECK(p->status == st && p->selected == (st == RCLIENT_OK) && p->server_id == res->server_id);
    FUZZ_CHECK(p->wait_ms == m->now - s->t0);
    if (st == RCLIENT_OK) {
        check_selected(m, s, res);
        return;
    }
    FUZZ_CHECK(!res->success && res->server_id == 0 && res->resource_count == 0 && res->guard_count == 0);
    FUZZ_CHECK(res->resources == NULL && res->guards == NULL);
}

static void run_action(cm_model_t *m, cm_slot_t *s, r_client_req_t *req) {
    switch (s->cb_action) {
    case CB_CANCEL_SELF:
        FUZZ_CHECK(r_client_cancel_request(m->client, req) == RCLIENT_OK);
        break;
    case CB_CANCEL_OTHER: {
        cm_slot_t *t = &m->slots[s->cb_arg % CM_SLOTS];
        if (t->state == SLOT_LIVE) {
            cm_op_t op = m->op;
            m->op = OP_CANCEL;
            FUZZ_CHECK(r_client_cancel_request(m->client, t->req) == RCLIENT_OK);
            m->op = op;
            t->state = SLOT_CANCELLED;
        }
        break;
    }
    case CB_SUBMIT:
    case CB_SUBMIT_EMPTY: {
        cm_slot_t *t = cm_free_slot(m, s->cb_arg);
        if (t == NULL) break;
        memset(t->resources, 0, sizeof t->resources);
        t->n_resources = s->cb_action == CB_SUBMIT ? 1 : 0;
        t->n_guards = 0;
        t->label_len = 0;
        t->borrowed = s->cb_arg & 1u;
        t->cb_action = CB_NOTHING;
        t->resources[0].window_size_ms = 1000;
        t->resources[0].rate_limit = s->cb_arg;
        t->resources[0].tokens_requested = 1;
        memset(t->resources[0].bucket_id, s->cb_arg, 16);
        (void)cm_submit_slot(m, t);
        break;
    }
    case CB_REPORT: {
        r_service_latency_report_t rep;
        memset(&rep, s->cb_arg, sizeof rep);
        rep.buffer_size = s->cb_arg % 40; /* over 32 sometimes: filtered */
        cm_report_values(m, &rep, 1);
        break;
    }
    default:
        break;
    }
}

void cm_on_result(r_client_req_t *req, const r_rate_limit_result_t *res, void *user) {
    cm_slot_t *s = user;
    cm_model_t *m = s->m;
    FUZZ_CHECK(m->op == OP_DATAGRAM || m->op == OP_TIMEOUT); /* never from submit, cancel or destroy */
    FUZZ_CHECK(s->state == SLOT_LIVE && s->req == req && s->completions == 0);
    FUZZ_CHECK(m->profiles == m->results + 1);
    m->results++;
    s->completions++;
    s->state = SLOT_DONE;
    check_result(m, s, res);
    cm_slot_t *outer = m->completing;
    m->completing = s;
    run_action(m, s, req);
    m->completing = outer;
}

void cm_on_empty(r_client_req_t *req, const r_rate_limit_result_t *res, void *user) {
    cm_model_t *m = user;
    FUZZ_CHECK(req == NULL && m->op == OP_SUBMIT);
    FUZZ_CHECK(m->profiles == m->results + 1 && m->last_profile.status == RCLIENT_OK);
    m->results++;
    m->empty_completions++;
    FUZZ_CHECK(res->status == RCLIENT_OK && res->success && res->server_id == 0 && !res->steering_feedback);
    FUZZ_CHECK(res->resources == NULL && res->guards == NULL && res->resource_count == 0 && res->guard_count == 0);
}

/* ---- invariants after every event ---------------------------------------------- */

void cm_check_all(const cm_model_t *m) {
    for (size_t i = 0; i < CM_SLOTS; i++) {
        const cm_slot_t *s = &m->slots[i];
        switch (s->state) {
        case SLOT_LIVE: {
            FUZZ_CHECK(s->completions == 0 && s->uid_known);
            /* Every deadline lies within [t0, t0 + ttl_ms] (r-client.md 9.3.1). */
            uint64_t d = r_client_request_deadline_ms(m->client, s->req);
            FUZZ_CHECK(d >= s->t0 && d <= s->dedup_deadline);
            break;
        }
        case SLOT_DONE: FUZZ_CHECK(s->completions == 1); break;
        default: FUZZ_CHECK(s->completions == 0); break;
        }
    }
    FUZZ_CHECK(m->profiles == m->results);
    FUZZ_CHECK(r_client_rebind_pending(m->client) == m->rebind_pending);
    FUZZ_CHECK(m->rebind_calls == m->rebind_expected);
    FUZZ_CHECK(r_client_server_count(m->client) == m->n_members);
}
