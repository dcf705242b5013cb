/* SPDX-License-Identifier: MIT */
/* Response blocks matched to the request block by block, and the codes of
 * bad datagrams that match no request in flight, through the public API.
 *
 * Expected values come from wire_protocol.md "rate_response PDU" (the
 * response is the request modified in place; guard_count and resource_count
 * are copied from the request), "Response Semantics" (a guard fails when
 * current_latency >= latency_threshold; any failure rejects the whole request),
 * r-client.md 5.2 (latency_threshold is a query, not tracker identity: two
 * guards may share a tracker with different thresholds), r-client.md 6.2.1
 * (a response failing a check is invalid and must not complete the request)
 * and api.md "Datagrams and Timers" (the on_datagram codes). The positional
 * reading is recorded in docs/spec-notes.md "Rate responses". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"

#define T0 FH_T0
#define MAX_BLOCKS 4

/* Per-block server answer: current_latency per guard, deficit per resource. */
typedef struct {
    uint32_t latency[MAX_BLOCKS];
    uint16_t deficit[MAX_BLOCKS];
} answer_t;

typedef void (*mutate_fn)(uint8_t *plain, size_t pdu, size_t *len);

static size_t pdu_offset(const fh_t *h) {
    return RL_TENANT_TLV_SIZE + rl_auth_tlv_size(h->mode);
}

/* The server's response to captured send idx: the request modified in place,
 * then (before sealing) changed by mutate, which may be NULL. */
static size_t build(fh_t *h, size_t idx, const answer_t *a, mutate_fn mutate, uint8_t *out) {
    const fh_send_t *s = &h->sends[idx];
    memcpy(out, s->data, s->len);
    size_t len = s->len;
    assert_int_equal(rl_auth_open(&h->server_auth, out, len, NULL), RCLIENT_OK);
    size_t pdu = pdu_offset(h);
    rl_store_u64(out + RL_TENANT_OFF_KEY_ID, h->server_ids[s->server]);
    rl_store_u16(out + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(out + pdu + 4, 0);
    size_t ng = rl_load_u16(out + pdu + 8), nr = rl_load_u16(out + pdu + 10);
    uint8_t *g = out + pdu + RL_RATE_PDU_FIXED;
    for (size_t i = 0; i < ng && i < MAX_BLOCKS; i++) rl_store_u32(g + i * RL_GUARD_BLOCK_SIZE + 36, a->latency[i]);
    uint8_t *r = g + ng * RL_GUARD_BLOCK_SIZE;
    for (size_t i = 0; i < nr && i < MAX_BLOCKS; i++) {
        rl_store_u32(r + i * RL_RESOURCE_BLOCK_SIZE + 20, 1);
        rl_store_u16(r + i * RL_RESOURCE_BLOCK_SIZE + 24, a->deficit[i]);
    }
    if (mutate != NULL) mutate(out, pdu, &len);
    uint8_t nonce[12] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
    assert_int_equal(rl_auth_seal(&h->server_auth, out, len, nonce), RCLIENT_OK);
    return len;
}

static int deliver(fh_t *h, size_t idx, const answer_t *a, mutate_fn mutate) {
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build(h, idx, a, mutate, buf);
    return r_client_on_datagram(h->client, buf, len);
}

static void guard_on(r_latency_guard_t *g, const char *tracker, uint32_t threshold) {
    memset(g, 0, sizeof *g);
    g->threshold_ms = threshold;
    g->ttl_ms = 10000;
    g->max_samples = 100;
    g->buffer_size = 32;
    g->min_sample_threshold = 5;
    assert_int_equal(r_client_derive_latency_tracker_id(tracker, strlen(tracker), 10000, 100, 32, 5,
                                                        g->latency_tracker_id),
                     RCLIENT_OK);
}

static void resource_on(r_resource_request_t *r, const char *bucket) {
    memset(r, 0, sizeof *r);
    r->window_size_ms = 1000;
    r->rate_limit = 100;
    r->tokens_requested = 1;
    assert_int_equal(r_client_derive_bucket_id(bucket, strlen(bucket), 1000, 100, r->bucket_id), RCLIENT_OK);
}

static r_client_req_t *submit(fh_t *h, const r_resource_request_t *res, size_t nr, const r_latency_guard_t *g,
                              size_t ng) {
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, res, nr, g, ng, NULL, 0, fh_on_result, h, &req),
                     RCLIENT_OK);
    assert_non_null(req);
    return req;
}

/* One server (the oldest: its valid response is selected at once), default policy. */
static fh_t *one_server(r_auth_type_t mode) {
    return fh_setup(mode, NULL, 1);
}

/* ---- defect: a tracker repeated with two thresholds --------------------------- */

/* r-client.md 5.2: the same tracker, thresholds 100 and 10. An honest server
 * reports current_latency 50 for both; 50 >= 10 fails guard 1, which rejects
 * the whole request (wire_protocol.md "Response Semantics"). */
static void test_repeated_tracker_each_guard_judged_by_its_own_threshold(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_latency_guard_t g[2];
    guard_on(&g[0], "inventory-backend", 100);
    guard_on(&g[1], "inventory-backend", 10);
    (void)submit(h, NULL, 0, g, 2);
    answer_t a = {.latency = {50, 50}};
    assert_int_equal(deliver(h, 0, &a, NULL), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_false(h->success);
    assert_int_equal(h->guard_count, 2);
    assert_true(h->guards[0].passed);
    assert_int_equal(h->guards[0].threshold_ms, 100);
    assert_int_equal(h->guards[0].current_latency_ms, 50);
    assert_false(h->guards[1].passed);
    assert_int_equal(h->guards[1].threshold_ms, 10);
    assert_int_equal(h->guards[1].current_latency_ms, 50);
    assert_memory_equal(h->guards[1].latency_tracker_id, g[1].latency_tracker_id, 16);
    fh_teardown(h);
}

/* Below both thresholds: allowed, both guards passed. */
static void test_repeated_tracker_below_both_thresholds_allows(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_AES);
    r_latency_guard_t g[2];
    guard_on(&g[0], "inventory-backend", 100);
    guard_on(&g[1], "inventory-backend", 10);
    (void)submit(h, NULL, 0, g, 2);
    answer_t a = {.latency = {9, 9}};
    assert_int_equal(deliver(h, 0, &a, NULL), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    assert_true(h->guards[0].passed);
    assert_true(h->guards[1].passed);
    fh_teardown(h);
}

/* The response's latency_threshold is an echo: a server that writes 1000
 * there cannot widen the guard that asked for 10. */
static void echo_threshold_1000(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    rl_store_u32(p + pdu + RL_RATE_PDU_FIXED + 32, 1000);
}

static void test_echoed_threshold_does_not_decide(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_NONE);
    r_latency_guard_t g;
    guard_on(&g, "inventory-backend", 10);
    (void)submit(h, NULL, 0, &g, 1);
    answer_t a = {.latency = {50}};
    assert_int_equal(deliver(h, 0, &a, echo_threshold_1000), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_false(h->success);
    assert_false(h->guards[0].passed);
    assert_int_equal(h->guards[0].threshold_ms, 10);
    fh_teardown(h);
}

/* ---- defect: each request block answered exactly once, at its position -------- */

/* Request {A, B}: resource blocks 0 = A, 1 = B (no guards in these requests). */
static void repeat_a_omit_b(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    uint8_t *r = p + pdu + RL_RATE_PDU_FIXED;
    memcpy(r + RL_RESOURCE_BLOCK_SIZE, r, RL_RESOURCE_BLOCK_SIZE);
}

static void swap_resources(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    uint8_t *r = p + pdu + RL_RATE_PDU_FIXED, tmp[RL_RESOURCE_BLOCK_SIZE];
    memcpy(tmp, r, sizeof tmp);
    memcpy(r, r + RL_RESOURCE_BLOCK_SIZE, sizeof tmp);
    memcpy(r + RL_RESOURCE_BLOCK_SIZE, tmp, sizeof tmp);
}

/* B dropped: resource_count 1, pdu_size and the datagram 28 bytes shorter
 * (framing stays valid; only the count disagrees with the request). */
static void omit_b(uint8_t *p, size_t pdu, size_t *len) {
    rl_store_u16(p + pdu + 10, 1);
    rl_store_u16(p + pdu + 2, (uint16_t)(rl_load_u16(p + pdu + 2) - RL_RESOURCE_BLOCK_SIZE));
    *len -= RL_RESOURCE_BLOCK_SIZE;
}

/* Block 1's window differs from B's: the same bucket_id cannot name it. */
static void window_of_b_changed(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    uint8_t *r = p + pdu + RL_RATE_PDU_FIXED + RL_RESOURCE_BLOCK_SIZE;
    rl_store_u32(r + 16, rl_load_u32(r + 16) + 1);
}

static r_client_req_t *submit_a_b(fh_t *h) {
    r_resource_request_t res[2];
    resource_on(&res[0], "bucket-a");
    resource_on(&res[1], "bucket-b");
    return submit(h, res, 2, NULL, 0);
}

/* A rejected response changes nothing: no callback, the same deadline, no
 * send; then the honest answer (B denied) completes the request. */
static void assert_in_flight_then_honest_answer_completes(fh_t *h, r_client_req_t *req) {
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    assert_int_equal(h->n_sends, 1);
    answer_t honest = {.deficit = {0, 4}};
    assert_int_equal(deliver(h, 0, &honest, NULL), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_false(h->success);
    assert_int_equal(h->resource_count, 2);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    assert_int_equal(h->resources[1].tokens_deficit, 4);
}

static void test_response_repeating_a_and_omitting_b_is_rejected(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_client_req_t *req = submit_a_b(h);
    answer_t a = {.deficit = {0, 0}};
    assert_int_equal(deliver(h, 0, &a, repeat_a_omit_b), RCLIENT_ERR_PROTOCOL);
    assert_in_flight_then_honest_answer_completes(h, req);
    fh_teardown(h);
}

static void test_response_repeating_a_and_omitting_b_is_rejected_aes(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_AES);
    r_client_req_t *req = submit_a_b(h);
    answer_t a = {.deficit = {0, 0}};
    assert_int_equal(deliver(h, 0, &a, repeat_a_omit_b), RCLIENT_ERR_PROTOCOL);
    assert_in_flight_then_honest_answer_completes(h, req);
    fh_teardown(h);
}

/* Positional: block i answers request block i, so a reordered response does
 * not answer the request (docs/spec-notes.md "Rate responses"). */
static void test_reordered_resource_blocks_are_rejected(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_client_req_t *req = submit_a_b(h);
    answer_t a = {.deficit = {0, 0}};
    assert_int_equal(deliver(h, 0, &a, swap_resources), RCLIENT_ERR_PROTOCOL);
    assert_in_flight_then_honest_answer_completes(h, req);
    fh_teardown(h);
}

static void test_response_omitting_a_block_is_rejected(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_NONE);
    r_client_req_t *req = submit_a_b(h);
    answer_t a = {.deficit = {0, 0}};
    assert_int_equal(deliver(h, 0, &a, omit_b), RCLIENT_ERR_PROTOCOL);
    assert_in_flight_then_honest_answer_completes(h, req);
    fh_teardown(h);
}

static void test_block_with_other_identity_fields_is_rejected(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_client_req_t *req = submit_a_b(h);
    answer_t a = {.deficit = {0, 0}};
    assert_int_equal(deliver(h, 0, &a, window_of_b_changed), RCLIENT_ERR_PROTOCOL);
    assert_in_flight_then_honest_answer_completes(h, req);
    fh_teardown(h);
}

/* Two guards on different trackers, swapped in the response. */
static void swap_guards(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    uint8_t *g = p + pdu + RL_RATE_PDU_FIXED, tmp[RL_GUARD_BLOCK_SIZE];
    memcpy(tmp, g, sizeof tmp);
    memcpy(g, g + RL_GUARD_BLOCK_SIZE, sizeof tmp);
    memcpy(g + RL_GUARD_BLOCK_SIZE, tmp, sizeof tmp);
}

/* Guard 1's max_samples differs from the request's. */
static void guard_config_changed(uint8_t *p, size_t pdu, size_t *len) {
    (void)len;
    uint8_t *g = p + pdu + RL_RATE_PDU_FIXED + RL_GUARD_BLOCK_SIZE;
    rl_store_u32(g + 20, rl_load_u32(g + 20) + 1);
}

static void test_reordered_or_altered_guard_blocks_are_rejected(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_latency_guard_t g[2];
    guard_on(&g[0], "inventory-backend", 100);
    guard_on(&g[1], "payments-backend", 100);
    r_client_req_t *req = submit(h, NULL, 0, g, 2);
    answer_t a = {.latency = {1, 2}};
    assert_int_equal(deliver(h, 0, &a, swap_guards), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(deliver(h, 0, &a, guard_config_changed), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    assert_int_equal(deliver(h, 0, &a, NULL), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    assert_int_equal(h->guards[0].current_latency_ms, 1);
    assert_int_equal(h->guards[1].current_latency_ms, 2);
    fh_teardown(h);
}

/* A bucket repeated in the request is answered once per position. */
static void test_repeated_bucket_answered_at_each_position(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_resource_request_t res[2];
    resource_on(&res[0], "bucket-a");
    resource_on(&res[1], "bucket-a");
    res[1].tokens_requested = 5;
    (void)submit(h, res, 2, NULL, 0);
    answer_t a = {.deficit = {0, 3}};
    assert_int_equal(deliver(h, 0, &a, NULL), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_false(h->success);
    assert_int_equal(h->resource_count, 2);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    assert_int_equal(h->resources[1].tokens_deficit, 3);
    assert_memory_equal(h->resources[1].bucket_id, res[1].bucket_id, 16);
    fh_teardown(h);
}

/* ---- bad datagrams that match no request in flight (api.md codes) ------------- */

/* Submit, complete it with an allow from the only server, then return the
 * host: every later datagram for that unique_id matches nothing in flight. */
static fh_t *completed(r_auth_type_t mode) {
    fh_t *h = one_server(mode);
    (void)fh_submit(h);
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    return h;
}

/* A late response (the request completed) changed after sealing by alter. */
static int late(fh_t *h, void (*alter)(fh_t *, uint8_t *, size_t *)) {
    uint8_t buf[RL_MAX_DATAGRAM];
    fh_reply_t r = {.keep_port = 1, .current_latency = 5, .actual_rate = 1};
    size_t len = fh_build_response(h, 0, &r, buf);
    if (alter != NULL) alter(h, buf, &len);
    size_t sends = h->n_sends;
    int rc = r_client_on_datagram(h->client, buf, len);
    assert_int_equal(h->completions, 1); /* nothing reopened */
    assert_int_equal(h->n_sends, sends);
    return rc;
}

static void pdu_size_plus_one(fh_t *h, uint8_t *b, size_t *len) {
    (void)len;
    size_t pdu = pdu_offset(h);
    rl_store_u16(b + pdu + 2, (uint16_t)(rl_load_u16(b + pdu + 2) + 1));
}

static void drop_last_byte(fh_t *h, uint8_t *b, size_t *len) {
    (void)h;
    (void)b;
    *len -= 1;
}

static void flip_cookie(fh_t *h, uint8_t *b, size_t *len) {
    (void)h;
    (void)len;
    b[RL_TENANT_TLV_SIZE + 4] ^= 0x01;
}

static void unknown_auth_type(fh_t *h, uint8_t *b, size_t *len) {
    (void)h;
    (void)len;
    rl_store_u16(b + RL_TENANT_TLV_SIZE, 0x5858);
}

static void flip_tag(fh_t *h, uint8_t *b, size_t *len) {
    (void)h;
    (void)len;
    b[RL_TENANT_TLV_SIZE + 4 + RL_AES_NONCE_LEN] ^= 0x01;
}

static void flip_ciphertext(fh_t *h, uint8_t *b, size_t *len) {
    (void)len;
    b[pdu_offset(h)] ^= 0x01;
}

static void foreign_unique_id(fh_t *h, uint8_t *b, size_t *len) {
    (void)h;
    (void)len;
    b[RL_TENANT_OFF_UNIQUE_ID + 15] ^= 0xFF;
}

static void test_unmatched_malformed_pdu_size_is_protocol(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_COOKIE);
    assert_int_equal(late(h, pdu_size_plus_one), RCLIENT_ERR_PROTOCOL);
    fh_teardown(h);
}

static void test_unmatched_truncated_is_protocol(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_NONE);
    assert_int_equal(late(h, drop_last_byte), RCLIENT_ERR_PROTOCOL);
    fh_teardown(h);
}

static void test_unmatched_cookie_mismatch_is_auth(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_COOKIE);
    assert_int_equal(late(h, flip_cookie), RCLIENT_ERR_AUTH);
    fh_teardown(h);
}

static void test_unmatched_wrong_auth_type_is_auth(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_NONE);
    assert_int_equal(late(h, unknown_auth_type), RCLIENT_ERR_AUTH);
    fh_teardown(h);
}

static void test_unmatched_aes_tag_failure_is_protocol(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_AES);
    assert_int_equal(late(h, flip_tag), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(late(h, flip_ciphertext), RCLIENT_ERR_PROTOCOL);
    fh_teardown(h);
}

/* The unique_id is in the AES AAD: a foreign one breaks the tag too. */
static void test_unmatched_aes_foreign_unique_id_breaks_the_tag(void **state) {
    (void)state;
    fh_t *h = completed(R_AUTH_AES);
    assert_int_equal(late(h, foreign_unique_id), RCLIENT_ERR_PROTOCOL);
    fh_teardown(h);
}

/* Valid-looking but matching nothing: OK, in every mode (late duplicate and
 * foreign unique_id). */
static void test_unmatched_valid_looking_is_ok(void **state) {
    (void)state;
    r_auth_type_t modes[3] = {R_AUTH_NONE, R_AUTH_COOKIE, R_AUTH_AES};
    for (int i = 0; i < 3; i++) {
        fh_t *h = completed(modes[i]);
        assert_int_equal(late(h, NULL), RCLIENT_OK);
        if (modes[i] != R_AUTH_AES) assert_int_equal(late(h, foreign_unique_id), RCLIENT_OK);
        fh_teardown(h);
    }
}

/* A foreign unique_id while the request is in flight: the cookie is still
 * checked (AUTH), and the request is untouched. */
static void foreign_and_bad_cookie(fh_t *h, uint8_t *b, size_t *len) {
    foreign_unique_id(h, b, len);
    flip_cookie(h, b, len);
}

static void test_foreign_unique_id_with_bad_cookie_is_auth_while_in_flight(void **state) {
    (void)state;
    fh_t *h = one_server(R_AUTH_COOKIE);
    r_client_req_t *req = fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    fh_reply_t r = {.keep_port = 1, .current_latency = 5, .actual_rate = 1};
    size_t len = fh_build_response(h, 0, &r, buf);
    foreign_and_bad_cookie(h, buf, &len);
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_AUTH);
    foreign_unique_id(h, buf, &len); /* back to the request's id, cookie still bad */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_AUTH);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_repeated_tracker_each_guard_judged_by_its_own_threshold),
        cmocka_unit_test(test_repeated_tracker_below_both_thresholds_allows),
        cmocka_unit_test(test_echoed_threshold_does_not_decide),
        cmocka_unit_test(test_response_repeating_a_and_omitting_b_is_rejected),
        cmocka_unit_test(test_response_repeating_a_and_omitting_b_is_rejected_aes),
        cmocka_unit_test(test_reordered_resource_blocks_are_rejected),
        cmocka_unit_test(test_response_omitting_a_block_is_rejected),
        cmocka_unit_test(test_block_with_other_identity_fields_is_rejected),
        cmocka_unit_test(test_reordered_or_altered_guard_blocks_are_rejected),
        cmocka_unit_test(test_repeated_bucket_answered_at_each_position),
        cmocka_unit_test(test_unmatched_malformed_pdu_size_is_protocol),
        cmocka_unit_test(test_unmatched_truncated_is_protocol),
        cmocka_unit_test(test_unmatched_cookie_mismatch_is_auth),
        cmocka_unit_test(test_unmatched_wrong_auth_type_is_auth),
        cmocka_unit_test(test_unmatched_aes_tag_failure_is_protocol),
        cmocka_unit_test(test_unmatched_aes_foreign_unique_id_breaks_the_tag),
        cmocka_unit_test(test_unmatched_valid_looking_is_ok),
        cmocka_unit_test(test_foreign_unique_id_with_bad_cookie_is_auth_while_in_flight),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
