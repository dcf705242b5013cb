/* SPDX-License-Identifier: MIT */
/* op.c - sans-IO client operations on the administrative channel
 * (r_admin.h layer 3): tenant mutation with replays under one unique_id,
 * status query, paginated metrics query (wire_protocol.md "Tenant Mutation
 * PDU", "dedup_ttl_ms (Tenant Mutation)", "unique_id", "Status Query PDU",
 * "Metrics Query PDU", "Pagination rules", "Metrics Response PDU").
 *
 * Each request is sealed once; resends repeat the same bytes, so one AES
 * nonce never seals two plaintexts. A metrics page query is a new request
 * (new unique_id, new nonce). Plaintexts are cleansed right after sealing,
 * decrypted responses right after their events. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_admin.h"
#include "rl_le.h"
#include "rl_rng.h"

#define DEFAULT_TIMEOUT_MS 1000u
#define DEFAULT_RESEND_MS 250u
#define DEFAULT_MAX_RESTARTS 2u

typedef enum { OP_TENANT = 1, OP_STATUS = 2, OP_METRICS = 3 } op_kind_t;

struct r_admin_op {
    op_kind_t kind;
    r_admin_key_t *key;
    r_io_ops_t io;
    rl_rng_t rng;
    r_addr_t server;
    uint64_t expected_server_id;
    uint32_t timeout_ms;
    uint32_t resend_ms;
    r_admin_event_cb cb;
    void *user_data;
    bool done;
    bool in_callback;
    /* the request in flight */
    uint8_t unique_id[R_CLIENT_ID_LEN];
    uint8_t dgram[R_CLIENT_MAX_DATAGRAM];
    size_t dgram_len;
    uint64_t time_stamp_ms;
    uint64_t deadline_ms;    /* DONE with TIMEOUT */
    uint64_t next_resend_ms; /* UINT64_MAX: no more resends */
    uint64_t resend_until_ms; /* tenant mutation: time_stamp + dedup_ttl_ms */
    uint32_t sent;
    /* tenant mutation */
    uint8_t operation;
    /* metrics */
    uint64_t tenant_id;
    uint8_t family;
    uint32_t max_restarts;
    uint32_t restarts;
    uint32_t page_index;
    bool have_pass_server;
    uint64_t pass_server_id;
};

static uint64_t sat_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int send_dgram(r_admin_op_t *op, r_admin_diag_t *diag) {
    if (op->io.udp_send(op->io.ctx, &op->server, op->dgram, op->dgram_len) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_IO, R_ADMIN_ERR_SEND, "admin: udp_send failed");
    }
    op->sent++;
    return RCLIENT_OK;
}

/* Seal pdu under a fresh unique_id and nonce into op->dgram. Cleanses pdu. */
static int seal_request(r_admin_op_t *op, uint64_t key_id, uint8_t *pdu, size_t pdu_len, r_admin_diag_t *diag) {
    r_admin_header_t h;
    memset(&h, 0, sizeof h);
    uint8_t nonce[R_ADMIN_NONCE_LEN];
    int rc;
    if (rl_rng_unique_id(&op->rng, h.unique_id) != 0 || rl_rng_bytes(&op->rng, nonce, sizeof nonce) != 0) {
        rc = rl_admin_fail(diag, RCLIENT_ERR_AUTH, R_ADMIN_ERR_CRYPTO, "admin: random source failed");
    } else {
        h.key_id = key_id;
        h.time_stamp_ms = op->io.now_ms(op->io.ctx);
        h.steering_feedback = 1;
        size_t n = 0;
        rc = r_admin_seal(op->key, &h, nonce, pdu, pdu_len, op->dgram, sizeof op->dgram, &n, diag);
        if (rc == RCLIENT_OK) {
            op->dgram_len = n;
            memcpy(op->unique_id, h.unique_id, R_CLIENT_ID_LEN);
            op->time_stamp_ms = h.time_stamp_ms;
        }
    }
    OPENSSL_cleanse(pdu, pdu_len);
    OPENSSL_cleanse(nonce, sizeof nonce);
    return rc;
}

/* Arm the timers of a freshly sealed request and send its first copy. */
static int launch(r_admin_op_t *op, r_admin_diag_t *diag) {
    uint64_t now = op->time_stamp_ms;
    op->deadline_ms = sat_add(now, op->timeout_ms);
    op->next_resend_ms = sat_add(now, op->resend_ms);
    if (op->next_resend_ms >= op->deadline_ms || op->next_resend_ms >= op->resend_until_ms) {
        op->next_resend_ms = UINT64_MAX;
    }
    return send_dgram(op, diag);
}

static int check_config(const r_admin_op_config_t *cfg, r_admin_op_t **out, r_admin_diag_t *diag) {
    if (cfg == NULL || out == NULL || cfg->key == NULL || cfg->io == NULL || cfg->io->udp_send == NULL ||
        cfg->io->now_ms == NULL || cfg->cb == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT,
                             "admin: NULL config, key, io, udp_send, now_ms, cb or out");
    }
    return RCLIENT_OK;
}

static r_admin_op_t *op_new(const r_admin_op_config_t *cfg, op_kind_t kind) {
    r_admin_op_t *op = calloc(1, sizeof *op);
    if (op == NULL) {
        return NULL;
    }
    op->kind = kind;
    op->key = cfg->key;
    op->io = *cfg->io;
    op->rng.fn = cfg->io->random;
    op->rng.ctx = cfg->io->ctx;
    op->server = cfg->server;
    op->expected_server_id = cfg->expected_server_id;
    op->timeout_ms = cfg->timeout_ms != 0 ? cfg->timeout_ms : DEFAULT_TIMEOUT_MS;
    op->resend_ms = cfg->resend_interval_ms != 0 ? cfg->resend_interval_ms : DEFAULT_RESEND_MS;
    op->resend_until_ms = UINT64_MAX;
    op->cb = cfg->cb;
    op->user_data = cfg->user_data;
    return op;
}

/* Start helper: seal and send, or free everything on failure. */
static int start(r_admin_op_t *op, uint64_t key_id, uint8_t *pdu, size_t pdu_len, r_admin_op_t **out,
                 r_admin_diag_t *diag) {
    int rc = seal_request(op, key_id, pdu, pdu_len, diag);
    if (rc == RCLIENT_OK) {
        if (op->kind == OP_TENANT) {
            /* set by the caller through op->resend_until_ms relative to time_stamp */
            op->resend_until_ms = sat_add(op->time_stamp_ms, op->resend_until_ms);
        }
        rc = launch(op, diag);
    }
    if (rc != RCLIENT_OK) {
        r_admin_op_destroy(op);
        return rc;
    }
    *out = op;
    return rl_admin_ok(diag);
}

int r_admin_tenant_mutation_start(const r_admin_op_config_t *cfg, uint64_t tenant_id,
                                  const r_admin_tenant_mutation_t *tm, r_admin_op_t **out, r_admin_diag_t *diag) {
    int rc = check_config(cfg, out, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (tm == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin: NULL tenant mutation");
    }
    if (tm->dedup_ttl_ms == 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT,
                             "tenant_mutation: dedup_ttl_ms 0 (a replay window is required)");
    }
    uint8_t pdu[R_ADMIN_MAX_PDU];
    size_t pdu_len = 0;
    rc = r_admin_encode_tenant_mutation(pdu, sizeof pdu, tm, &pdu_len, diag);
    if (rc != RCLIENT_OK) {
        OPENSSL_cleanse(pdu, sizeof pdu);
        return rc;
    }
    rc = r_admin_tenant_mutation_check(tm, tenant_id, NULL, diag);
    if (rc != RCLIENT_OK) {
        OPENSSL_cleanse(pdu, sizeof pdu);
        return RCLIENT_ERR_CONFIG; /* the caller's credential: reason CREDENTIAL / KEY_ID_MISMATCH */
    }
    r_admin_op_t *op = op_new(cfg, OP_TENANT);
    if (op == NULL) {
        OPENSSL_cleanse(pdu, sizeof pdu);
        return rl_admin_fail(diag, RCLIENT_ERR_NOMEM, R_ADMIN_ERR_NOMEM, "admin: out of memory");
    }
    op->operation = tm->operation;
    op->resend_until_ms = tm->dedup_ttl_ms; /* made absolute in start() */
    return start(op, tenant_id, pdu, pdu_len, out, diag);
}

int r_admin_status_query_start(const r_admin_op_config_t *cfg, r_admin_op_t **out, r_admin_diag_t *diag) {
    int rc = check_config(cfg, out, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    uint8_t pdu[R_ADMIN_STATUS_QUERY_SIZE];
    size_t pdu_len = 0;
    r_admin_status_query_t q = {R_ADMIN_STATUS_SCHEMA_V1, R_ADMIN_STATUS_CURRENT};
    rc = r_admin_encode_status_query(pdu, sizeof pdu, &q, &pdu_len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    r_admin_op_t *op = op_new(cfg, OP_STATUS);
    if (op == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_NOMEM, R_ADMIN_ERR_NOMEM, "admin: out of memory");
    }
    return start(op, 0, pdu, pdu_len, out, diag);
}

/* Seal the next metrics query (from start, or from cursor) as a new request. */
static int metrics_seal_next(r_admin_op_t *op, const uint8_t *cursor, size_t cursor_len, r_admin_diag_t *diag) {
    r_admin_metrics_query_t q = {op->family, cursor != NULL ? R_METRICS_QUERY_FROM_CURSOR : R_METRICS_QUERY_FROM_START,
                                 cursor, cursor_len};
    uint8_t pdu[R_ADMIN_MAX_PDU];
    size_t pdu_len = 0;
    int rc = r_admin_encode_metrics_query(pdu, sizeof pdu, &q, &pdu_len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    return seal_request(op, op->tenant_id, pdu, pdu_len, diag);
}

int r_admin_metrics_query_start(const r_admin_op_config_t *cfg, uint64_t tenant_id, r_metric_family_t family,
                                uint32_t max_restarts, r_admin_op_t **out, r_admin_diag_t *diag) {
    int rc = check_config(cfg, out, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (family < R_METRICS_TENANT_SUMMARY || family > R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_FAMILY, "metrics_query: family 0x%02X unknown",
                             (unsigned)family);
    }
    r_admin_op_t *op = op_new(cfg, OP_METRICS);
    if (op == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_NOMEM, R_ADMIN_ERR_NOMEM, "admin: out of memory");
    }
    op->tenant_id = tenant_id;
    op->family = (uint8_t)family;
    op->max_restarts = max_restarts != 0 ? max_restarts : DEFAULT_MAX_RESTARTS;
    rc = metrics_seal_next(op, NULL, 0, diag);
    if (rc == RCLIENT_OK) {
        rc = launch(op, diag);
    }
    if (rc != RCLIENT_OK) {
        r_admin_op_destroy(op);
        return rc;
    }
    *out = op;
    return rl_admin_ok(diag);
}

/* ---- events ------------------------------------------------------------------ */

static void emit(r_admin_op_t *op, const r_admin_event_t *ev) {
    op->in_callback = true;
    op->cb(op, ev, op->user_data);
    op->in_callback = false;
}

static void finish(r_admin_op_t *op, int status, uint64_t server_id, uint8_t final_kind) {
    op->done = true;
    op->deadline_ms = UINT64_MAX;
    op->next_resend_ms = UINT64_MAX;
    r_admin_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = R_ADMIN_EVENT_DONE;
    ev.status = status;
    ev.server_id = server_id;
    ev.final_page_kind = final_kind;
    emit(op, &ev);
}

/* ---- ingress ------------------------------------------------------------------- */

/* The checks of every kind are r_admin_check_* (check.c); these only react. */
static int on_tenant_ack(r_admin_op_t *op, uint8_t *d, size_t len, r_admin_diag_t *diag) {
    r_admin_header_t h;
    r_admin_tenant_ack_t ack;
    int rc = r_admin_check_tenant_ack(op->key, d, len, op->unique_id, op->operation, op->expected_server_id, &h, &ack,
                                      diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    r_admin_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = R_ADMIN_EVENT_TENANT_ACK;
    ev.server_id = h.key_id;
    ev.tenant_ack = &ack;
    emit(op, &ev);
    finish(op, RCLIENT_OK, h.key_id, 0);
    return RCLIENT_OK;
}

static int on_status(r_admin_op_t *op, uint8_t *d, size_t len, r_admin_diag_t *diag) {
    r_admin_header_t h;
    r_admin_status_response_t sr;
    int rc = r_admin_check_status_response(op->key, d, len, op->unique_id, op->expected_server_id, &h, &sr, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    r_admin_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = R_ADMIN_EVENT_STATUS;
    ev.server_id = h.key_id;
    ev.status_response = &sr;
    emit(op, &ev);
    OPENSSL_cleanse(&sr, sizeof sr);
    finish(op, RCLIENT_OK, h.key_id, 0);
    return RCLIENT_OK;
}

/* Restart pagination from the start (new pass), or give up. */
static int metrics_restart(r_admin_op_t *op, r_admin_restart_reason_t why, uint64_t server_id, r_admin_diag_t *diag) {
    if (op->restarts >= op->max_restarts) {
        finish(op, RCLIENT_ERR_PROTOCOL, server_id, 0);
        return RCLIENT_OK;
    }
    op->restarts++;
    op->page_index = 0;
    op->have_pass_server = false;
    r_admin_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = R_ADMIN_EVENT_METRICS_RESTART;
    ev.server_id = server_id;
    ev.restart_reason = why;
    emit(op, &ev);
    int rc = metrics_seal_next(op, NULL, 0, diag);
    if (rc == RCLIENT_OK) {
        rc = launch(op, diag);
    }
    if (rc != RCLIENT_OK) {
        finish(op, rc, server_id, 0); /* diag keeps the send or seal failure */
    }
    return rc;
}

static int on_metrics(r_admin_op_t *op, uint8_t *d, size_t len, r_admin_diag_t *diag) {
    r_admin_header_t hdr;
    r_admin_metrics_response_t mr;
    int rc = r_admin_check_metrics_response(op->key, d, len, op->unique_id, op->family, op->expected_server_id, &hdr,
                                            &mr, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    const r_admin_header_t *h = &hdr;
    /* Pagination rules: a changed server_id between pages restarts from the beginning. */
    if (op->have_pass_server && h->key_id != op->pass_server_id) {
        return metrics_restart(op, R_ADMIN_RESTART_SERVER_ID, h->key_id, diag);
    }
    bool paged = op->family != R_METRICS_TENANT_SUMMARY;
    if (paged && mr.page_kind == R_PAGE_CURSOR_INVALID) {
        return metrics_restart(op, R_ADMIN_RESTART_CURSOR_INVALID, h->key_id, diag);
    }
    op->have_pass_server = true;
    op->pass_server_id = h->key_id;
    r_admin_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = R_ADMIN_EVENT_METRICS_PAGE;
    ev.server_id = h->key_id;
    ev.page = &mr;
    ev.page_index = op->page_index++;
    emit(op, &ev);
    if (!(paged && mr.page_kind == R_PAGE_MORE)) {
        /* LAST, EMPTY, SUMMARY_PAGE, or an error kind (RECORD_TOO_LARGE: a hard stop). */
        finish(op, RCLIENT_OK, h->key_id, mr.page_kind);
        return RCLIENT_OK;
    }
    /* Echo the cursor byte for byte (it points into the caller's decrypted
     * scratch copy, not into op->dgram, which is overwritten here). */
    rc = metrics_seal_next(op, mr.next_cursor, mr.next_cursor_len, diag);
    if (rc == RCLIENT_OK) {
        rc = launch(op, diag);
    }
    if (rc != RCLIENT_OK) {
        finish(op, rc, h->key_id, mr.page_kind); /* diag keeps the send or seal failure */
    }
    return rc;
}

int r_admin_op_on_datagram(r_admin_op_t *op, const uint8_t *data, size_t len, r_admin_diag_t *diag) {
    if (op == NULL || (data == NULL && len > 0)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin: NULL argument");
    }
    if (op->done || op->in_callback) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_STATE, "admin: the operation is not in flight");
    }
    if (len > R_CLIENT_MAX_DATAGRAM) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                             "admin frame: %zu bytes, over the 1200-byte datagram", len);
    }
    uint8_t scratch[R_CLIENT_MAX_DATAGRAM];
    if (len > 0) {
        memcpy(scratch, data, len);
    }
    int rc;
    switch (op->kind) {
    case OP_TENANT: rc = on_tenant_ack(op, scratch, len, diag); break;
    case OP_STATUS: rc = on_status(op, scratch, len, diag); break;
    default: rc = on_metrics(op, scratch, len, diag); break;
    }
    OPENSSL_cleanse(scratch, len);
    return rc;
}

int r_admin_op_on_timeout(r_admin_op_t *op, uint64_t now_ms) {
    if (op == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (op->done || op->in_callback) {
        return RCLIENT_OK;
    }
    if (now_ms >= op->deadline_ms) {
        finish(op, RCLIENT_ERR_TIMEOUT, 0, 0);
        return RCLIENT_OK;
    }
    if (now_ms < op->next_resend_ms) {
        return RCLIENT_OK;
    }
    /* Resend the same sealed bytes; the next resend is one interval after now. */
    uint64_t next = sat_add(now_ms, op->resend_ms);
    op->next_resend_ms = (next >= op->deadline_ms || next >= op->resend_until_ms) ? UINT64_MAX : next;
    if (now_ms >= op->resend_until_ms) {
        return RCLIENT_OK; /* tenant mutation: no resend after time_stamp + dedup_ttl_ms */
    }
    return send_dgram(op, NULL);
}

uint64_t r_admin_op_deadline_ms(const r_admin_op_t *op) {
    if (op == NULL || op->done) {
        return UINT64_MAX;
    }
    return op->next_resend_ms < op->deadline_ms ? op->next_resend_ms : op->deadline_ms;
}

bool r_admin_op_done(const r_admin_op_t *op) {
    return op != NULL && op->done;
}

int r_admin_op_unique_id(const r_admin_op_t *op, uint8_t out[R_CLIENT_ID_LEN]) {
    if (op == NULL || out == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    memcpy(out, op->unique_id, R_CLIENT_ID_LEN);
    return RCLIENT_OK;
}

uint32_t r_admin_op_sent_count(const r_admin_op_t *op) {
    return op != NULL ? op->sent : 0;
}

void r_admin_op_destroy(r_admin_op_t *op) {
    if (op == NULL) {
        return;
    }
    rl_rng_release(&op->rng);
    OPENSSL_cleanse(op, sizeof *op);
    free(op);
}
