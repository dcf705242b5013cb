/* SPDX-License-Identifier: MIT */
/* Reentrancy, response-semantic checks and teardown through the public API
 * (r-client.md 6.2.1 "response-semantic checks", 6.3; api.md "Threading and
 * reentrancy"). Three explicit servers, A oldest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"
#include "r_client_workflow.h"

enum { A = 0, B = 1, C = 2 };
#define PDU_OFF (RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE)

/* ---- completing requests are terminal everywhere -------------------------------- */

static int g_calls;
static fh_t *g_host;
static r_client_req_t *g_other;

static void cb_times_out_itself(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)r;
    (void)user;
    g_calls++;
    assert_int_equal(r_client_on_timeout(g_host->client, req, UINT64_MAX), RCLIENT_OK);
    assert_int_equal(r_client_request_deadline_ms(g_host->client, req), 0);
}

static void test_on_timeout_of_completing_request_is_noop(void **state) {
    (void)state;
    g_host = fh_setup(R_AUTH_NONE, NULL, 3);
    g_calls = 0;
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(g_host->client, &res, 1, &guard, 1, NULL, 0,
                                                     cb_times_out_itself, NULL, &req),
                     RCLIENT_OK);
    assert_int_equal(r_client_on_timeout(g_host->client, req, UINT64_MAX), RCLIENT_OK);
    assert_int_equal(g_calls, 1);
    fh_teardown(g_host);
}

static void cb_inner_cancels_outer(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    (void)r;
    g_calls++;
    assert_int_equal(r_client_cancel_request(g_host->client, (r_client_req_t *)user), RCLIENT_OK);
}

static void cb_outer_drives_inner(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)r;
    (void)user;
    g_calls++;
    r_client_on_timeout(g_host->client, g_other, UINT64_MAX); /* inner completes and cancels the outer */
    assert_int_equal(r_client_request_deadline_ms(g_host->client, req), 0);
}

/* A completing request further up the stack: cancel on it is a no-op, not a double free. */
static void test_cancel_of_outer_completing_request_is_noop(void **state) {
    (void)state;
    g_host = fh_setup(R_AUTH_NONE, NULL, 3);
    g_calls = 0;
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *outer = NULL;
    assert_int_equal(r_client_check_rate_limit_async(g_host->client, &res, 1, &guard, 1, NULL, 0,
                                                     cb_outer_drives_inner, NULL, &outer),
                     RCLIENT_OK);
    assert_int_equal(r_client_check_rate_limit_async(g_host->client, &res, 1, &guard, 1, NULL, 0,
                                                     cb_inner_cancels_outer, outer, &g_other),
                     RCLIENT_OK);
    r_client_on_timeout(g_host->client, outer, UINT64_MAX);
    assert_int_equal(g_calls, 2);
    fh_teardown(g_host);
}

/* ---- responses must answer this request ------------------------------------------- */

/* Build an allow response to send idx in buf (none auth: plaintext, editable). */
static size_t allow_bytes(fh_t *h, size_t idx, uint8_t *buf) {
    fh_reply_t r = {.keep_port = 1, .current_latency = 5, .actual_rate = 1};
    return fh_build_response(h, idx, &r, buf);
}

static void test_response_without_the_requested_blocks_is_rejected(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    allow_bytes(h, A, buf);
    rl_store_u16(buf + PDU_OFF + 2, RL_RATE_PDU_FIXED); /* pdu_size 12 */
    rl_store_u16(buf + PDU_OFF + 8, 0);                 /* guard_count */
    rl_store_u16(buf + PDU_OFF + 10, 0);                /* resource_count */
    assert_int_equal(r_client_on_datagram(h->client, buf, PDU_OFF + RL_RATE_PDU_FIXED), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), FH_T0 + 20);
    assert_int_equal(fh_allow(h, A), RCLIENT_OK); /* the real answer still completes it */
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    fh_teardown(h);
}

static void test_response_for_another_bucket_is_rejected(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = allow_bytes(h, A, buf);
    size_t res_off = PDU_OFF + RL_RATE_PDU_FIXED + RL_GUARD_BLOCK_SIZE;
    buf[res_off] ^= 0x01; /* bucket_id */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_response_for_another_tracker_is_rejected(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = allow_bytes(h, A, buf);
    buf[PDU_OFF + RL_RATE_PDU_FIXED + 15] ^= 0x80; /* latency_tracker_id */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

/* The guard decision uses the threshold the client asked for (100), not an echo. */
static void test_guard_uses_requested_threshold_not_echo(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    fh_reply_t r = {.keep_port = 1, .current_latency = 500, .actual_rate = 1};
    size_t len = fh_build_response(h, A, &r, buf);
    rl_store_u32(buf + PDU_OFF + RL_RATE_PDU_FIXED + 32, UINT32_MAX); /* echoed latency_threshold */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_false(h->success);
    assert_int_equal(h->guards[0].threshold_ms, 100);
    assert_int_equal(h->guards[0].current_latency_ms, 500);
    assert_false(h->guards[0].passed);
    fh_teardown(h);
}

/* ---- admission outliving its client ------------------------------------------------- */

static void adm_cb(r_admission_request_t *adm, const r_admission_outcome_t *o, void *user) {
    (void)adm;
    (void)o;
    (*(int *)user)++;
}

static void test_destroy_with_pending_admission_cancels_it(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_admission_config_t ac;
    r_client_admission_config_defaults(&ac);
    r_admission_request_t adm = {0};
    int calls = 0;
    assert_int_equal(r_client_admission_start(h->client, &ac, &adm, adm_cb, &calls), RCLIENT_OK);
    assert_int_equal(adm.state, R_ADMISSION_PENDING);
    r_client_destroy(h->client);
    h->client = NULL;
    assert_int_equal(adm.state, R_ADMISSION_CANCELLED);
    assert_null(adm.req);
    assert_int_equal(r_client_admission_deadline_ms(&adm), 0);
    r_client_admission_cancel(&adm);                                 /* no-op */
    assert_int_equal(r_client_admission_on_timeout(&adm, UINT64_MAX), RCLIENT_OK); /* no-op */
    assert_int_equal(calls, 0);
    fh_teardown(h);
}

static void test_admission_defaults_accepts_null(void **state) {
    (void)state;
    r_client_admission_config_defaults(NULL); /* documented no-op */
    r_admission_config_t ac;
    r_client_admission_config_defaults(&ac);
    assert_int_equal(ac.window_size_ms, 1000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_timeout_of_completing_request_is_noop),
        cmocka_unit_test(test_cancel_of_outer_completing_request_is_noop),
        cmocka_unit_test(test_response_without_the_requested_blocks_is_rejected),
        cmocka_unit_test(test_response_for_another_bucket_is_rejected),
        cmocka_unit_test(test_response_for_another_tracker_is_rejected),
        cmocka_unit_test(test_guard_uses_requested_threshold_not_echo),
        cmocka_unit_test(test_destroy_with_pending_admission_cancels_it),
        cmocka_unit_test(test_admission_defaults_accepts_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
