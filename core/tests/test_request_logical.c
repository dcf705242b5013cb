/* SPDX-License-Identifier: MIT */
/* One logical request per submit (r-client.md 9.3.2: "Every transmission
 * and replay for the operation MUST represent the same logical request";
 * wire_protocol.md "Nonce MUST be unique per AES key"): the copying and the
 * borrowed API send the same bytes, every replay and completion-delivery send
 * repeats the datagram sealed at submit, and responses are judged against the
 * values submitted, whatever the caller does to its buffers afterwards (api.md
 * only requires borrowed buffers to stay valid). Three explicit servers A
 * (oldest), B, C; default policy (round 1 starts at t0 + 20). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0

static void submit_with(fh_t *h, bool borrowed, const r_resource_request_t *res, const r_latency_guard_t *guard,
                        const char *label, r_client_req_t **out) {
    int rc = borrowed ? r_client_check_rate_limit_async_borrowed(h->client, res, 1, guard, 1, label, 0,
                                                                  fh_on_result, h, out)
                      : r_client_check_rate_limit_async(h->client, res, 1, guard, 1, label, 0, fh_on_result, h, out);
    assert_int_equal(rc, RCLIENT_OK);
}

/* Overwrite every input the caller handed over. */
static void scribble(r_resource_request_t *res, r_latency_guard_t *guard, char *label, size_t label_cap) {
    memset(res, 0xAA, sizeof *res);
    memset(guard, 0xAA, sizeof *guard);
    memset(label, 'X', label_cap - 1);
}

static void assert_sends_repeat_first(const fh_t *h, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) {
        assert_int_equal(h->sends[i].len, h->sends[0].len);
        assert_memory_equal(h->sends[i].data, h->sends[0].data, h->sends[0].len);
    }
}

static void borrowed_matches_copying(r_auth_type_t mode) {
    fh_t *hc = fh_setup(mode, NULL, 3);
    fh_t *hb = fh_setup(mode, NULL, 3); /* same clock, same random sequence */
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *rc = NULL, *rb = NULL;
    submit_with(hc, false, &res, &guard, "lbl", &rc);
    submit_with(hb, true, &res, &guard, "lbl", &rb);
    assert_int_equal(hb->n_sends, 3);
    assert_int_equal(hb->sends[0].len, hc->sends[0].len);
    for (size_t i = 0; i < 3; i++) {
        assert_memory_equal(hb->sends[i].data, hc->sends[0].data, hc->sends[0].len);
    }
    fh_teardown(hc);
    fh_teardown(hb);
}

static void test_borrowed_sends_same_bytes_as_copying_cookie(void **state) {
    (void)state;
    borrowed_matches_copying(R_AUTH_COOKIE);
}

static void test_borrowed_sends_same_bytes_as_copying_aes(void **state) {
    (void)state;
    borrowed_matches_copying(R_AUTH_AES);
}

static void test_borrowed_replay_resends_identical_bytes_aes(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    submit_with(h, true, &res, &guard, "lbl", &req);
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->n_sends, 6);
    assert_sends_repeat_first(h, 3, 6); /* same unique_id and nonce */
    fh_teardown(h);
}

/* Mutate the caller's buffers after submit, then fire the replay timer:
 * the replays must be the datagram sealed at submit, byte for byte (with AES
 * a re-encoding would seal a second plaintext under the submit nonce). */
static void replay_after_scribble(r_auth_type_t mode, bool borrowed) {
    fh_t *h = fh_setup(mode, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    char label[8] = "lbl";
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    submit_with(h, borrowed, &res, &guard, label, &req);
    scribble(&res, &guard, label, sizeof label);
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->n_sends, 6);
    assert_sends_repeat_first(h, 3, 6);
    fh_teardown(h);
}

static void test_borrowed_aes_replay_after_buffers_change_is_identical(void **state) {
    (void)state;
    replay_after_scribble(R_AUTH_AES, true);
}

static void test_borrowed_cookie_replay_after_buffers_change_is_identical(void **state) {
    (void)state;
    replay_after_scribble(R_AUTH_COOKIE, true);
}

static void test_copying_api_does_not_read_inputs_after_submit(void **state) {
    (void)state;
    replay_after_scribble(R_AUTH_COOKIE, false);
}

/* Completion delivery repeats the submitted datagram too. */
static void test_borrowed_completion_delivery_after_buffers_change_is_identical(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    char label[8] = "lbl";
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    submit_with(h, true, &res, &guard, label, &req);
    scribble(&res, &guard, label, sizeof label);
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->n_sends, 5); /* completion delivery to B and C */
    assert_sends_repeat_first(h, 3, 5);
    fh_teardown(h);
}

/* The decision uses what was submitted: the server answers the guard
 * (threshold 100) with current_latency 50 and the resource with deficit 0;
 * the caller has meanwhile lowered its threshold to 10 and changed the bucket.
 * wire_protocol.md "Response Semantics": 50 < 100 passes, so the request is
 * allowed and the result names the submitted bucket and threshold. */
static void decision_after_change(r_auth_type_t mode) {
    fh_t *h = fh_setup(mode, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_resource_request_t submitted_res = res;
    r_client_req_t *req = NULL;
    submit_with(h, true, &res, &guard, NULL, &req);
    guard.threshold_ms = 10;
    res.bucket_id[0] ^= 0xFF;
    res.tokens_requested = 7;
    fh_reply_t reply = {.keep_port = 1, .current_latency = 50, .actual_rate = 1};
    assert_int_equal(fh_reply(h, A, &reply), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_true(h->success);
    assert_int_equal(h->guard_count, 1);
    assert_int_equal(h->guards[0].threshold_ms, 100);
    assert_int_equal(h->guards[0].current_latency_ms, 50);
    assert_true(h->guards[0].passed);
    assert_int_equal(h->resource_count, 1);
    assert_memory_equal(h->resources[0].bucket_id, submitted_res.bucket_id, R_CLIENT_ID_LEN);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    fh_teardown(h);
}

static void test_borrowed_decision_uses_submitted_values_cookie(void **state) {
    (void)state;
    decision_after_change(R_AUTH_COOKIE);
}

static void test_borrowed_decision_uses_submitted_values_aes(void **state) {
    (void)state;
    decision_after_change(R_AUTH_AES);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_borrowed_sends_same_bytes_as_copying_cookie),
        cmocka_unit_test(test_borrowed_sends_same_bytes_as_copying_aes),
        cmocka_unit_test(test_borrowed_replay_resends_identical_bytes_aes),
        cmocka_unit_test(test_borrowed_aes_replay_after_buffers_change_is_identical),
        cmocka_unit_test(test_borrowed_cookie_replay_after_buffers_change_is_identical),
        cmocka_unit_test(test_copying_api_does_not_read_inputs_after_submit),
        cmocka_unit_test(test_borrowed_completion_delivery_after_buffers_change_is_identical),
        cmocka_unit_test(test_borrowed_decision_uses_submitted_values_cookie),
        cmocka_unit_test(test_borrowed_decision_uses_submitted_values_aes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
