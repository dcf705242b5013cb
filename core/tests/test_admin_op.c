/* SPDX-License-Identifier: MIT */
/* Unit tests for the sans-IO administrative operations (r_admin.h layer 3):
 * tenant mutation replays under one unique_id with the same sealed bytes,
 * correlation and rejection of bad datagrams without state change, status
 * query, metrics pagination (cursor echoed exactly, restart on server_id
 * change and on METRICS_CURSOR_INVALID, RECORD_TOO_LARGE hard stop)
 * (wire_protocol.md "Tenant Mutation PDU", "dedup_ttl_ms (Tenant Mutation)",
 * "unique_id", "Status Query PDU", "Pagination rules", "Metrics PDU Examples"). */
#include <stdlib.h>

#include "admin_test_util.h"

#define U64(v) (uint8_t)(v), 0, 0, 0, 0, 0, 0, 0
#define MAX_SENT 16
#define S1 0x0000000100008001ull
#define S2 0x0000000200008002ull

static const char KEY_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys";
#define KEY_NONE_ID 0x0102030405060708ull

typedef struct {
    uint64_t now;
    uint8_t counter;
    int fail_send;
    size_t n_sent;
    uint8_t sent[MAX_SENT][1200];
    size_t sent_len[MAX_SENT];
    r_admin_event_t events[16];
    r_admin_status_response_t status;
    uint8_t ack_operation;
    size_t page_records[16];
    size_t n_events;
} host_t;

static host_t *H;
static r_admin_key_t *KEY;

static int fake_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    host_t *h = ctx;
    (void)to;
    if (h->fail_send) {
        return -1;
    }
    assert_true(h->n_sent < MAX_SENT);
    memcpy(h->sent[h->n_sent], data, len);
    h->sent_len[h->n_sent++] = len;
    return 0;
}
static uint64_t fake_now(void *ctx) {
    return ((host_t *)ctx)->now;
}
static int fake_random(void *ctx, uint8_t *buf, size_t len) {
    host_t *h = ctx;
    for (size_t i = 0; i < len; i++) buf[i] = ++h->counter;
    return 0;
}
static void on_event(r_admin_op_t *op, const r_admin_event_t *ev, void *user) {
    host_t *h = user;
    (void)op;
    assert_true(h->n_events < 16);
    h->events[h->n_events] = *ev;
    if (ev->kind == R_ADMIN_EVENT_STATUS) h->status = *ev->status_response;
    if (ev->kind == R_ADMIN_EVENT_TENANT_ACK) h->ack_operation = ev->tenant_ack->operation;
    if (ev->kind == R_ADMIN_EVENT_METRICS_PAGE) h->page_records[h->n_events] = ev->page->record_count;
    h->n_events++;
}

static r_io_ops_t g_io;

static int setup(void **state) {
    (void)state;
    H = calloc(1, sizeof *H);
    H->now = 1767225600000ull;
    g_io = (r_io_ops_t){.ctx = H, .udp_send = fake_send, .now_ms = fake_now, .random = fake_random};
    uint8_t k[32];
    for (int i = 0; i < 32; i++) k[i] = (uint8_t)(0x40 + i);
    return r_admin_key_create_raw(k, &KEY);
}
static int teardown(void **state) {
    (void)state;
    r_admin_key_destroy(KEY);
    free(H);
    return 0;
}

static r_admin_op_config_t config(void) {
    r_admin_op_config_t c;
    memset(&c, 0, sizeof c);
    c.key = KEY;
    c.io = &g_io;
    c.server.family = R_ADDR_INET;
    c.server.port = 4500;
    c.timeout_ms = 1000;
    c.resend_interval_ms = 250;
    c.cb = on_event;
    c.user_data = H;
    return c;
}

/* Decrypt sent datagram i; returns the PDU (in a static copy) and its header. */
static uint8_t *sent_pdu(size_t i, size_t *len, r_admin_header_t *h) {
    static uint8_t copy[1200];
    memcpy(copy, H->sent[i], H->sent_len[i]);
    uint8_t *pdu = NULL;
    assert_int_equal(r_admin_open(KEY, copy, H->sent_len[i], h, &pdu, len, NULL), RCLIENT_OK);
    return pdu;
}

/* A response datagram from server_id answering the request of datagram i. */
static size_t response(size_t i, uint64_t server_id, const uint8_t *pdu, size_t pdu_len, uint8_t *out) {
    r_admin_header_t h;
    memcpy(h.unique_id, H->sent[i] + 12, 16);
    h.key_id = server_id;
    h.time_stamp_ms = H->now;
    h.steering_feedback = 1;
    static uint8_t nonce[12] = {0x77};
    nonce[11]++;
    size_t n = 0;
    assert_int_equal(r_admin_seal(KEY, &h, nonce, pdu, pdu_len, out, 1200, &n, NULL), RCLIENT_OK);
    return n;
}

static const uint8_t TA_ADD[12] = {0x41, 0x54, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0};

static r_admin_op_t *start_add(uint32_t dedup_ttl_ms) {
    r_admin_op_config_t c = config();
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, dedup_ttl_ms, (const uint8_t *)"acme", 4, KEY_NONE,
                                    strlen(KEY_NONE)};
    r_admin_op_t *op = NULL;
    assert_int_equal(r_admin_tenant_mutation_start(&c, KEY_NONE_ID, &tm, &op, NULL), RCLIENT_OK);
    return op;
}

static void test_tenant_add_sends_the_mutation(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    assert_int_equal(H->n_sent, 1);
    assert_int_equal(H->n_events, 0);
    size_t len = 0;
    r_admin_header_t h;
    uint8_t *pdu = sent_pdu(0, &len, &h);
    /* 4d 54 | 10+1+4+1+35 = 51 | 03 00 | 2c 01 00 00 | 04 acme | 23 <key> */
    const uint8_t head[15] = {0x4d, 0x54, 0x33, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x04, 'a', 'c', 'm', 'e'};
    assert_int_equal(len, 51);
    assert_memory_equal(pdu, head, 15);
    assert_int_equal(pdu[15], 35);
    assert_memory_equal(pdu + 16, KEY_NONE, 35);
    assert_true(h.key_id == KEY_NONE_ID);
    assert_true(h.time_stamp_ms == H->now);
    assert_int_equal(H->sent[0][37], 1); /* tenant_mgmt_flag */
    assert_int_equal(H->sent[0][40], 0x41); /* AES auth TLV */
    r_admin_op_destroy(op);
}

static void test_tenant_ack_completes(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    uint8_t d[1200], before[1200];
    size_t n = response(0, S1, TA_ADD, sizeof TA_ADD, d);
    memcpy(before, d, n);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_memory_equal(d, before, n); /* decrypted in a copy, the caller's bytes untouched */
    assert_int_equal(H->n_events, 2);
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_TENANT_ACK);
    assert_int_equal(H->ack_operation, R_TENANT_OP_ADD);
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[1].status, RCLIENT_OK);
    assert_true(H->events[1].server_id == S1);
    assert_true(r_admin_op_done(op));
    assert_true(r_admin_op_deadline_ms(op) == UINT64_MAX);
    ASSERT_REJECT(r_admin_op_on_datagram(op, d, n, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_STATE);
    r_admin_op_destroy(op);
}

static void test_tenant_replay_resends_same_bytes(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(600);
    assert_true(r_admin_op_deadline_ms(op) == H->now + 250);
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 250), RCLIENT_OK);
    assert_int_equal(H->n_sent, 2);
    assert_int_equal(H->sent_len[1], H->sent_len[0]);
    assert_memory_equal(H->sent[1], H->sent[0], H->sent_len[0]); /* same unique_id, same nonce, same ciphertext */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 500), RCLIENT_OK);
    assert_int_equal(H->n_sent, 3);
    assert_memory_equal(H->sent[2], H->sent[0], H->sent_len[0]);
    r_admin_op_destroy(op);
}

static void test_tenant_no_resend_after_dedup_window(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300); /* window ends at +300: one resend at +250 */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 250), RCLIENT_OK);
    assert_int_equal(H->n_sent, 2);
    assert_true(r_admin_op_deadline_ms(op) == H->now + 1000); /* only the timeout is left */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 500), RCLIENT_OK);
    assert_int_equal(H->n_sent, 2);
    assert_int_equal(H->n_events, 0);
    r_admin_op_destroy(op);
}

static void test_tenant_late_timer_after_window_sends_nothing(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300); /* resend due at +250, window ends at +300 */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 400), RCLIENT_OK); /* the host is late */
    assert_int_equal(H->n_sent, 1);
    assert_true(r_admin_op_deadline_ms(op) == H->now + 1000);
    r_admin_op_destroy(op);
}

static void test_tenant_timeout(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 1000), RCLIENT_OK);
    assert_int_equal(H->n_events, 1);
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[0].status, RCLIENT_ERR_TIMEOUT);
    r_admin_op_destroy(op);
}

/* A bad datagram: the reason, no event, deadline and sent count unchanged, still in flight. */
static void bad_datagram(r_admin_op_t *op, const uint8_t *d, size_t n, r_admin_reason_t reason) {
    uint64_t deadline = r_admin_op_deadline_ms(op);
    uint32_t sent = r_admin_op_sent_count(op);
    uint8_t uid[16], uid2[16];
    r_admin_op_unique_id(op, uid);
    ASSERT_REJECT(r_admin_op_on_datagram(op, d, n, diag), RCLIENT_ERR_PROTOCOL, reason);
    assert_int_equal(H->n_events, 0);
    assert_false(r_admin_op_done(op));
    assert_true(r_admin_op_deadline_ms(op) == deadline);
    assert_int_equal(r_admin_op_sent_count(op), sent);
    r_admin_op_unique_id(op, uid2);
    assert_memory_equal(uid, uid2, 16);
}

static void test_tenant_rejects_wrong_unique_id(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    uint8_t d[1200];
    H->sent[0][12] ^= 0xFF; /* answer a request with another unique_id */
    size_t n = response(0, S1, TA_ADD, sizeof TA_ADD, d);
    H->sent[0][12] ^= 0xFF;
    bad_datagram(op, d, n, R_ADMIN_ERR_UNIQUE_ID);
    /* the right answer still completes it */
    n = response(0, S1, TA_ADD, sizeof TA_ADD, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_true(r_admin_op_done(op));
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_tag_failure(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    uint8_t d[1200];
    size_t n = response(0, S1, TA_ADD, sizeof TA_ADD, d);
    d[n - 1] ^= 0x01;
    bad_datagram(op, d, n, R_ADMIN_ERR_TAG);
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_ack_of_other_operation(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    const uint8_t ta_remove[12] = {0x41, 0x54, 0x0c, 0x00, 0x05, 0x00, 0, 0, 0, 0, 0, 0};
    uint8_t d[1200];
    size_t n = response(0, S1, ta_remove, sizeof ta_remove, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_ACK_OPERATION);
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_ack_reserved(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    uint8_t ta[12];
    memcpy(ta, TA_ADD, 12);
    ta[8] = 1;
    uint8_t d[1200];
    size_t n = response(0, S1, ta, sizeof ta, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_RESERVED);
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_other_pdu_kind(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    const uint8_t mr[8] = {0x4d, 0x52, 0x08, 0x00, 0x03, 0x02, 0x00, 0x00};
    uint8_t d[1200];
    size_t n = response(0, S1, mr, sizeof mr, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_PDU_TYPE);
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_mgmt_flag_0(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(300);
    uint8_t d[1200];
    size_t n = response(0, S1, TA_ADD, sizeof TA_ADD, d);
    d[37] = 0;
    bad_datagram(op, d, n, R_ADMIN_ERR_MGMT_FLAG);
    r_admin_op_destroy(op);
}

static void test_tenant_rejects_unexpected_server(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    c.expected_server_id = S2;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_REMOVE, 300, NULL, 0, NULL, 0};
    r_admin_op_t *op = NULL;
    assert_int_equal(r_admin_tenant_mutation_start(&c, 42, &tm, &op, NULL), RCLIENT_OK);
    const uint8_t ta_remove[12] = {0x41, 0x54, 0x0c, 0x00, 0x05, 0x00, 0, 0, 0, 0, 0, 0};
    uint8_t d[1200];
    size_t n = response(0, S1, ta_remove, sizeof ta_remove, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_SERVER_ID);
    n = response(0, S2, ta_remove, sizeof ta_remove, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_true(r_admin_op_done(op));
    r_admin_op_destroy(op);
}

static void test_tenant_start_rejects(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 0, NULL, 0, KEY_NONE, strlen(KEY_NONE)};
    ASSERT_REJECT(r_admin_tenant_mutation_start(&c, KEY_NONE_ID, &tm, &op, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT); /* dedup_ttl_ms 0 */
    tm.dedup_ttl_ms = 300;
    ASSERT_REJECT(r_admin_tenant_mutation_start(&c, KEY_NONE_ID + 1, &tm, &op, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_KEY_ID_MISMATCH);
    tm.tenant_key = "rl-none1bad";
    tm.tenant_key_len = 11;
    ASSERT_REJECT(r_admin_tenant_mutation_start(&c, KEY_NONE_ID, &tm, &op, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_CREDENTIAL);
    assert_null(op);
    assert_int_equal(H->n_sent, 0);
    H->fail_send = 1;
    tm.tenant_key = KEY_NONE;
    tm.tenant_key_len = strlen(KEY_NONE);
    ASSERT_REJECT(r_admin_tenant_mutation_start(&c, KEY_NONE_ID, &tm, &op, diag), RCLIENT_ERR_IO, R_ADMIN_ERR_SEND);
    assert_null(op);
    H->fail_send = 0;
}

/* ---- status ---- */

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void sr_bytes(uint8_t sr[448], uint64_t server_id) {
    memset(sr, 0, 448);
    sr[0] = 0x53; sr[1] = 0x52; sr[2] = 0xC0; sr[3] = 0x01; /* 0x5253, 448 */
    sr[4] = 1;
    sr[6] = 0x80;           /* DEDUP_TTL_MS_MAX_VALID */
    sr[10] = 0xB8; sr[11] = 0x01; /* record_len 440 */
    put64(sr + 12, server_id);
    sr[56] = 0x1F;
    sr[384] = 0xD0; sr[385] = 0x07; /* dedup_ttl_ms_max 2000 */
}

static void test_status_query(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    ASSERT_OK(r_admin_status_query_start(&c, &op, diag));
    size_t len = 0;
    r_admin_header_t h;
    uint8_t *pdu = sent_pdu(0, &len, &h);
    const uint8_t sq[8] = {0x53, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};
    assert_int_equal(len, 8);
    assert_memory_equal(pdu, sq, 8);
    assert_true(h.key_id == 0); /* Status Query key_id SHOULD be zero */
    uint8_t sr[448];
    sr_bytes(sr, S1);
    uint8_t d[1200];
    size_t n = response(0, S1, sr, sizeof sr, d);
    assert_int_equal(n, 520); /* the spec's "total UDP payload: 520 bytes" */
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->n_events, 2);
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_STATUS);
    assert_true(H->status.server_id == S1);
    uint64_t v = 0;
    assert_int_equal(r_admin_status_get(&H->status, R_STATUS_DEDUP_TTL_MS_MAX, &v), 1);
    assert_true(v == 2000);
    assert_true(r_admin_status_healthy(&H->status));
    r_admin_op_destroy(op);
}

static void test_status_rejects_server_id_field_mismatch(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    ASSERT_OK(r_admin_status_query_start(&c, &op, diag));
    uint8_t sr[448];
    sr_bytes(sr, S2);
    uint8_t d[1200];
    size_t n = response(0, S1, sr, sizeof sr, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_SERVER_ID);
    r_admin_op_destroy(op);
}

static void test_status_rejects_reserved1(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    ASSERT_OK(r_admin_status_query_start(&c, &op, diag));
    uint8_t sr[448];
    sr_bytes(sr, S1);
    sr[400] = 1;
    uint8_t d[1200];
    size_t n = response(0, S1, sr, sizeof sr, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_RESERVED);
    r_admin_op_destroy(op);
}

/* ---- metrics pagination ---- */

static const uint8_t EX2_MQ[8] = {0x4d, 0x51, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00};
static const uint8_t EX2_MR[92] = {
    0x4d, 0x52, 0x5c, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef,
    U64(8), U64(1), U64(0), U64(0), 0x00, 0x00, 0x00, 0x00,
    U64(50), U64(2), U64(1), U64(0), 0x03, 0x00, 0x00, 0x00, 'a', 'p', 'i', 0x00,
};
static const uint8_t EX3_MQ[16] = {0x4d, 0x51, 0x10, 0x00, 0x02, 0x01, 0x00, 0x00,
                                   0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef};
static const uint8_t EX3_MR[52] = {
    0x4d, 0x52, 0x34, 0x00, 0x02, 0x01, 0x00, 0x00,
    U64(7), U64(4), U64(0), U64(0), 0x08, 0x00, 0x00, 0x00, 'o', 'v', 'e', 'r', 'f', 'l', 'o', 'w',
};

static r_admin_op_t *start_labels(uint32_t max_restarts) {
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    assert_int_equal(r_admin_metrics_query_start(&c, 42, R_METRICS_TENANT_LABEL_COUNTERS, max_restarts, &op, NULL),
                     RCLIENT_OK);
    return op;
}

static void assert_sent_pdu(size_t i, const uint8_t *want, size_t want_len, uint64_t key_id) {
    size_t len = 0;
    r_admin_header_t h;
    uint8_t *pdu = sent_pdu(i, &len, &h);
    assert_int_equal(len, want_len);
    assert_memory_equal(pdu, want, want_len);
    assert_true(h.key_id == key_id);
}

static void test_metrics_pages_echo_cursor(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    assert_sent_pdu(0, EX2_MQ, sizeof EX2_MQ, 42); /* the example's first query; key_id = tenant */
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->n_events, 1);
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_METRICS_PAGE);
    assert_int_equal(H->page_records[0], 2);
    assert_int_equal(H->n_sent, 2);
    assert_sent_pdu(1, EX3_MQ, sizeof EX3_MQ, 42); /* LABELS_FROM_CURSOR, de ad be ef echoed */
    assert_memory_not_equal(H->sent[1] + 12, H->sent[0] + 12, 16); /* a new unique_id per page */
    assert_memory_not_equal(H->sent[1] + 44, H->sent[0] + 44, 12); /* and a new nonce */
    n = response(1, S1, EX3_MR, sizeof EX3_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->n_events, 3);
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_METRICS_PAGE);
    assert_int_equal(H->events[1].page_index, 1);
    assert_int_equal(H->events[2].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[2].status, RCLIENT_OK);
    assert_int_equal(H->events[2].final_page_kind, R_PAGE_LAST);
    assert_int_equal(H->n_sent, 2);
    r_admin_op_destroy(op);
}

static void test_metrics_odd_cursor_echoed_exactly(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    /* PAGE_MORE with a 5-byte cursor 00 ff 10 00 7f, padded by 3 zero bytes, one "" record */
    const uint8_t mr[56] = {0x4d, 0x52, 0x38, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00,
                            0x00, 0xff, 0x10, 0x00, 0x7f, 0x00, 0x00, 0x00, U64(1), U64(0), U64(0), U64(0),
                            0x00, 0x00, 0x00, 0x00};
    uint8_t d[1200];
    size_t n = response(0, S1, mr, sizeof mr, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    const uint8_t want[20] = {0x4d, 0x51, 0x14, 0x00, 0x02, 0x01, 0x00, 0x00, 0x05, 0x00,
                              0x00, 0x00, 0x00, 0xff, 0x10, 0x00, 0x7f, 0x00, 0x00, 0x00};
    assert_sent_pdu(1, want, sizeof want, 42);
    r_admin_op_destroy(op);
}

static void test_metrics_server_change_restarts(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    n = response(1, S2, EX3_MR, sizeof EX3_MR, d); /* page 2 from another listener */
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->n_events, 2);
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_METRICS_RESTART);
    assert_int_equal(H->events[1].restart_reason, R_ADMIN_RESTART_SERVER_ID);
    assert_int_equal(H->n_sent, 3);
    assert_sent_pdu(2, EX2_MQ, sizeof EX2_MQ, 42); /* from the start again */
    /* the new pass accepts S2 */
    n = response(2, S2, EX3_MR, sizeof EX3_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->events[2].kind, R_ADMIN_EVENT_METRICS_PAGE);
    assert_int_equal(H->events[2].page_index, 0);
    assert_int_equal(H->events[3].kind, R_ADMIN_EVENT_DONE);
    r_admin_op_destroy(op);
}

static void test_metrics_record_too_large_stops(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    const uint8_t too_large[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x07, 0x00, 0x00};
    n = response(1, S1, too_large, sizeof too_large, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->n_events, 3);
    assert_int_equal(H->events[2].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[2].final_page_kind, R_PAGE_RECORD_TOO_LARGE);
    assert_int_equal(H->n_sent, 2); /* the query is not retried */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 5000), RCLIENT_OK);
    assert_int_equal(H->n_sent, 2);
    r_admin_op_destroy(op);
}

static void test_metrics_cursor_invalid_restarts(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(1);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    const uint8_t invalid[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x08, 0x00, 0x00};
    n = response(1, S1, invalid, sizeof invalid, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_METRICS_RESTART);
    assert_int_equal(H->events[1].restart_reason, R_ADMIN_RESTART_CURSOR_INVALID);
    assert_sent_pdu(2, EX2_MQ, sizeof EX2_MQ, 42);
    /* second pass: MORE, then CURSOR_INVALID again: the one restart is used up */
    n = response(2, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    n = response(3, S1, invalid, sizeof invalid, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->events[3].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[3].status, RCLIENT_ERR_PROTOCOL);
    assert_int_equal(H->n_sent, 4);
    r_admin_op_destroy(op);
}

static void test_metrics_late_page_rejected(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    H->n_events = 0;
    /* a duplicate answer to the first page's query arrives late */
    bad_datagram(op, d, n, R_ADMIN_ERR_UNIQUE_ID);
    r_admin_op_destroy(op);
}

static void test_metrics_rejects_family_echo(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    const uint8_t services_empty[8] = {0x4d, 0x52, 0x08, 0x00, 0x03, 0x02, 0x00, 0x00};
    uint8_t d[1200];
    size_t n = response(0, S1, services_empty, sizeof services_empty, d);
    bad_datagram(op, d, n, R_ADMIN_ERR_FAMILY_ECHO);
    r_admin_op_destroy(op);
}

static void test_metrics_summary(void **state) {
    (void)state;
    r_admin_op_config_t c = config();
    r_admin_op_t *op = NULL;
    ASSERT_OK(r_admin_metrics_query_start(&c, 42, R_METRICS_TENANT_SUMMARY, 0, &op, diag));
    const uint8_t mq[8] = {0x4d, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};
    assert_sent_pdu(0, mq, 8, 42);
    const uint8_t mr[48] = {0x4d, 0x52, 0x30, 0x00, 0x01, 0x00, 0x00, 0x00, U64(0x64), U64(3), U64(1), U64(0), U64(9)};
    uint8_t d[1200];
    size_t n = response(0, S1, mr, sizeof mr, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_METRICS_PAGE);
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[1].final_page_kind, R_SUMMARY_PAGE);
    r_admin_op_destroy(op);
}

static void test_metrics_page_timeout_resends_same_query(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    ASSERT_OK(r_admin_op_on_datagram(op, d, n, diag));
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 250), RCLIENT_OK);
    assert_int_equal(H->n_sent, 3);
    assert_memory_equal(H->sent[2], H->sent[1], H->sent_len[1]);
    r_admin_op_destroy(op);
}

static int failing_random(void *ctx, uint8_t *buf, size_t len) {
    (void)ctx;
    (void)buf;
    (void)len;
    return -1;
}

static void test_start_random_failure_sends_nothing(void **state) {
    (void)state;
    r_io_ops_t io = g_io;
    io.random = failing_random;
    r_admin_op_config_t c = config();
    c.io = &io;
    r_admin_op_t *op = NULL;
    ASSERT_REJECT(r_admin_status_query_start(&c, &op, diag), RCLIENT_ERR_AUTH, R_ADMIN_ERR_CRYPTO);
    assert_null(op);
    assert_int_equal(H->n_sent, 0);
}

static void test_metrics_next_page_send_failure_ends_with_io(void **state) {
    (void)state;
    r_admin_op_t *op = start_labels(0);
    uint8_t d[1200];
    size_t n = response(0, S1, EX2_MR, sizeof EX2_MR, d);
    H->fail_send = 1;
    ASSERT_REJECT(r_admin_op_on_datagram(op, d, n, diag), RCLIENT_ERR_IO, R_ADMIN_ERR_SEND);
    H->fail_send = 0;
    assert_int_equal(H->n_events, 2); /* the page, then DONE */
    assert_int_equal(H->events[0].kind, R_ADMIN_EVENT_METRICS_PAGE);
    assert_int_equal(H->events[1].kind, R_ADMIN_EVENT_DONE);
    assert_int_equal(H->events[1].status, RCLIENT_ERR_IO);
    assert_true(r_admin_op_done(op));
    r_admin_op_destroy(op);
}

static void test_resend_failure_keeps_the_operation(void **state) {
    (void)state;
    r_admin_op_t *op = start_add(600);
    H->fail_send = 1;
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 250), RCLIENT_ERR_IO);
    H->fail_send = 0;
    assert_false(r_admin_op_done(op));
    assert_true(r_admin_op_deadline_ms(op) == H->now + 500); /* the next resend still comes */
    assert_int_equal(r_admin_op_on_timeout(op, H->now + 500), RCLIENT_OK);
    assert_int_equal(H->n_sent, 2);
    r_admin_op_destroy(op);
}

static void test_config_rejects_missing_hooks(void **state) {
    (void)state;
    r_io_ops_t io = g_io;
    io.now_ms = NULL;
    r_admin_op_config_t c = config();
    c.io = &io;
    r_admin_op_t *op = NULL;
    ASSERT_REJECT(r_admin_status_query_start(&c, &op, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT);
    c = config();
    c.cb = NULL;
    ASSERT_REJECT(r_admin_metrics_query_start(&c, 42, R_METRICS_TENANT_SUMMARY, 0, &op, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
    c = config();
    ASSERT_REJECT(r_admin_metrics_query_start(&c, 42, (r_metric_family_t)4, 0, &op, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_FAMILY);
    assert_null(op);
    assert_int_equal(H->n_sent, 0);
}

static int reset(void **state) {
    (void)state;
    uint64_t now = H->now;
    memset(H, 0, sizeof *H);
    H->now = now;
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_tenant_add_sends_the_mutation, reset),
        cmocka_unit_test_setup(test_tenant_ack_completes, reset),
        cmocka_unit_test_setup(test_tenant_replay_resends_same_bytes, reset),
        cmocka_unit_test_setup(test_tenant_no_resend_after_dedup_window, reset),
        cmocka_unit_test_setup(test_tenant_late_timer_after_window_sends_nothing, reset),
        cmocka_unit_test_setup(test_tenant_timeout, reset),
        cmocka_unit_test_setup(test_tenant_rejects_wrong_unique_id, reset),
        cmocka_unit_test_setup(test_tenant_rejects_tag_failure, reset),
        cmocka_unit_test_setup(test_tenant_rejects_ack_of_other_operation, reset),
        cmocka_unit_test_setup(test_tenant_rejects_ack_reserved, reset),
        cmocka_unit_test_setup(test_tenant_rejects_other_pdu_kind, reset),
        cmocka_unit_test_setup(test_tenant_rejects_mgmt_flag_0, reset),
        cmocka_unit_test_setup(test_tenant_rejects_unexpected_server, reset),
        cmocka_unit_test_setup(test_tenant_start_rejects, reset),
        cmocka_unit_test_setup(test_status_query, reset),
        cmocka_unit_test_setup(test_status_rejects_server_id_field_mismatch, reset),
        cmocka_unit_test_setup(test_status_rejects_reserved1, reset),
        cmocka_unit_test_setup(test_metrics_pages_echo_cursor, reset),
        cmocka_unit_test_setup(test_metrics_odd_cursor_echoed_exactly, reset),
        cmocka_unit_test_setup(test_metrics_server_change_restarts, reset),
        cmocka_unit_test_setup(test_metrics_record_too_large_stops, reset),
        cmocka_unit_test_setup(test_metrics_cursor_invalid_restarts, reset),
        cmocka_unit_test_setup(test_metrics_late_page_rejected, reset),
        cmocka_unit_test_setup(test_metrics_rejects_family_echo, reset),
        cmocka_unit_test_setup(test_metrics_summary, reset),
        cmocka_unit_test_setup(test_metrics_page_timeout_resends_same_query, reset),
        cmocka_unit_test_setup(test_start_random_failure_sends_nothing, reset),
        cmocka_unit_test_setup(test_metrics_next_page_send_failure_ends_with_io, reset),
        cmocka_unit_test_setup(test_resend_failure_keeps_the_operation, reset),
        cmocka_unit_test_setup(test_config_rejects_missing_hooks, reset),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
