/* SPDX-License-Identifier: MIT */
/* Datagram ingress through the public API and a fake host (api.md
 * "Datagrams and Timers"; r-client.md 6.2.1 "Invalid or unrelated datagram",
 * 6.3, 6.4 Authentication and Correlation rows).
 *
 * Most tests use the oldest-preferred policy (U = 10, B = 2, P = 1, so
 * round 0 = [t0, t0+20) with preference deadline t0+10): a datagram from B
 * wrongly accepted as a candidate would move the deadline to t0+10 and keep
 * B out of completion delivery, so both are checked after every rejected
 * datagram. Rejected datagrams are built from the request sent to B. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0

static r_request_policy_t oldest_preferred(void) {
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_OLDEST_PREFERRED), RCLIENT_OK);
    return p;
}

static fh_t *setup(r_auth_type_t mode, r_client_req_t **req) {
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(mode, &p, 3);
    *req = fh_submit(h);
    assert_int_equal(r_client_request_deadline_ms(h->client, *req), T0 + 20);
    h->now = T0 + 2;
    return h;
}

/* A's distinctive answer: deficit 0, actual_rate 7, current_latency 9. */
static const fh_reply_t A_REPLY = {.deficit = 0, .actual_rate = 7, .current_latency = 9, .keep_port = 1};

/* The request is untouched: no callback, same deadline, no send; a later valid
 * response from A completes it with A's values, and completion delivery goes
 * to B and C (neither counted as a responder). */
static void assert_untouched_then_a_completes(fh_t *h, r_client_req_t *req) {
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    assert_int_equal(h->n_sends, 3);
    h->now = T0 + 4;
    assert_int_equal(fh_reply(h, A, &A_REPLY), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_true(h->success);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_int_equal(h->resources[0].actual_rate, 7);
    assert_int_equal(h->guards[0].current_latency_ms, 9);
    assert_int_equal(h->completed_at, T0 + 4);
    assert_int_equal(h->n_sends, 5);
    assert_int_equal(h->sends[3].server, B);
    assert_int_equal(h->sends[4].server, C);
}

static size_t build_from_b(fh_t *h, const fh_reply_t *r, uint8_t *buf) {
    static const fh_reply_t allow = {.keep_port = 1, .current_latency = 5, .actual_rate = 1};
    return fh_build_response(h, B, r != NULL ? r : &allow, buf);
}

static size_t pdu_offset(const fh_t *h) {
    return RL_TENANT_TLV_SIZE + rl_auth_tlv_size(h->mode);
}

/* ---- malformed: RCLIENT_ERR_PROTOCOL ----------------------------------------- */

static void test_truncated_response_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    assert_int_equal(r_client_on_datagram(h->client, buf, len - 1), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(r_client_on_datagram(h->client, buf, 30), RCLIENT_ERR_PROTOCOL); /* inside the tenant TLV */
    assert_int_equal(r_client_on_datagram(h->client, buf, 0), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_oversized_datagram_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM + 1];
    memset(buf, 0, sizeof buf);
    size_t len = build_from_b(h, NULL, buf);
    /* a valid response padded with a trailing TLV to 1201 bytes */
    size_t pdu = pdu_offset(h);
    size_t extra = sizeof buf - len;
    rl_store_u16(buf + len, 0x5858);
    rl_store_u16(buf + len + 2, (uint16_t)extra);
    rl_store_u16(buf + pdu + 2, (uint16_t)(len - pdu + extra));
    assert_int_equal(r_client_on_datagram(h->client, buf, sizeof buf), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_wrong_tenant_tlv_type_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    rl_store_u16(buf, 0x4C53);
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_pdu_size_one_over_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    size_t pdu = pdu_offset(h);
    rl_store_u16(buf + pdu + 2, (uint16_t)(len - pdu + 1));
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_pdu_size_one_under_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    size_t pdu = pdu_offset(h);
    rl_store_u16(buf + pdu + 2, (uint16_t)(len - pdu - 1));
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_aes_tag_flipped_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_AES, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    buf[RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE + RL_AES_NONCE_LEN] ^= 0x01; /* first tag byte */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_aes_ciphertext_flipped_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_AES, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    buf[len - 1] ^= 0x80;
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* ---- authentication: RCLIENT_ERR_AUTH ---------------------------------------- */

static void test_cookie_mismatch_is_auth(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    buf[RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE + 31] ^= 0x01; /* last cookie byte */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_AUTH);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* The cookie response re-framed under a no-auth TLV ("NA", 4 bytes). */
static void test_wrong_auth_tlv_type_is_auth(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    size_t pdu = pdu_offset(h);
    uint8_t out[RL_MAX_DATAGRAM];
    memcpy(out, buf, RL_TENANT_TLV_SIZE);
    rl_store_u16(out + RL_TENANT_TLV_SIZE, RL_TLV_AUTH_NONE);
    rl_store_u16(out + RL_TENANT_TLV_SIZE + 2, RL_AUTH_NONE_TLV_SIZE);
    memcpy(out + RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE, buf + pdu, len - pdu);
    size_t out_len = RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE + (len - pdu);
    assert_int_equal(r_client_on_datagram(h->client, out, out_len), RCLIENT_ERR_AUTH);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* ---- correlation: RCLIENT_OK, no effect --------------------------------------- */

static void test_uncorrelated_unique_id_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, NULL, buf);
    buf[RL_TENANT_OFF_UNIQUE_ID + 15] ^= 0x01;
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_OK);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_untrusted_server_id_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint64_t stranger = 0;
    assert_int_equal(r_client_encode_server_id(1767225600u - 7200u, 7, 99, &stranger), RCLIENT_OK);
    fh_reply_t r = {.current_latency = 5, .actual_rate = 1, .keep_port = 0, .server_id = stranger};
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, &r, buf);
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_OK);
    assert_int_equal(h->rebinds, 0); /* its steering flag is ignored too */
    assert_false(r_client_rebind_pending(h->client));
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* A server outside this request's snapshot of two members is not trusted,
 * even though it is a real server of the host. */
static void test_server_outside_snapshot_is_ignored(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 2);
    r_client_req_t *req = fh_submit(h);
    fh_reply_t r = {.current_latency = 5, .actual_rate = 1, .keep_port = 1, .server_id = h->server_ids[C]};
    h->now = T0 + 2;
    assert_int_equal(fh_reply(h, B, &r), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    fh_teardown(h);
}

static void test_echoed_rate_request_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    uint8_t buf[RL_MAX_DATAGRAM];
    memcpy(buf, h->sends[B].data, h->sends[B].len);
    rl_store_u64(buf + RL_TENANT_OFF_KEY_ID, h->server_ids[B]); /* even from a trusted server_id */
    assert_int_equal(r_client_on_datagram(h->client, buf, h->sends[B].len), RCLIENT_OK);
    assert_int_equal(r_client_on_datagram(h->client, h->sends[B].data, h->sends[B].len), RCLIENT_OK);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

static void test_echoed_rate_request_aes_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_AES, &req);
    assert_int_equal(r_client_on_datagram(h->client, h->sends[B].data, h->sends[B].len), RCLIENT_OK);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* ---- duplicates, late responses, cancel, timeout ------------------------------ */

static void test_duplicate_valid_response_is_not_a_new_responder(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(fh_allow(h, B), RCLIENT_OK);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 10);
    h->now = T0 + 3;
    assert_int_equal(fh_allow(h, B), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 10);
    h->now = T0 + 4;
    assert_int_equal(fh_reply(h, A, &A_REPLY), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_int_equal(h->n_sends, 4); /* completion delivery to C only */
    assert_int_equal(h->sends[3].server, C);
    fh_teardown(h);
}

static void test_late_response_after_completion_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(fh_reply(h, A, &A_REPLY), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->n_sends, 5);
    h->now = T0 + 5;
    fh_reply_t deny = {.deficit = 3, .actual_rate = 100, .current_latency = 500, .keep_port = 0};
    assert_int_equal(fh_reply(h, B, &deny), RCLIENT_OK);
    assert_int_equal(fh_reply(h, A, &deny), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    assert_int_equal(h->resources[0].actual_rate, 7);
    assert_int_equal(h->n_sends, 5);
    assert_int_equal(h->rebinds, 0);
    fh_teardown(h);
}

static void test_response_after_cancel_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(r_client_cancel_request(h->client, req), RCLIENT_OK);
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(h->profiles, 0);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

static void test_response_after_timeout_is_ignored(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_advance(h, req, T0 + 60);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    size_t sends = h->n_sends;
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    assert_int_equal(h->n_sends, sends);
    fh_teardown(h);
}

static void test_cancel_inside_completion_callback_is_noop(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    h->cancel_in_callback = true;
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_ptr_equal(h->completed_req, req);
    assert_int_equal(h->status, RCLIENT_OK);
    /* the client is intact: a new request goes out and completes */
    h->cancel_in_callback = false;
    fh_submit(h);
    assert_int_equal(h->n_sends, 8);
    assert_int_equal(fh_allow(h, 5), RCLIENT_OK);
    assert_int_equal(h->completions, 2);
    fh_teardown(h);
}

typedef struct {
    fh_t *h;
    int calls;
    int submit_rc;
    r_client_req_t *next;
} chain_t;

static void on_chain(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    chain_t *ch = user;
    ch->calls++;
    fh_on_result(req, r, ch->h);
    if (ch->calls == 1) {
        r_resource_request_t res;
        r_latency_guard_t guard;
        fh_default_inputs(&res, &guard);
        ch->submit_rc = r_client_check_rate_limit_async(ch->h->client, &res, 1, &guard, 1, NULL, 0, on_chain, ch,
                                                        &ch->next);
    }
}

static void test_submit_inside_completion_callback(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_AES, &p, 3);
    chain_t ch = {.h = h};
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, on_chain, &ch, &req),
                     RCLIENT_OK);
    h->now = T0 + 2;
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(ch.calls, 1);
    assert_int_equal(ch.submit_rc, RCLIENT_OK);
    assert_non_null(ch.next);
    /* 3 initial + 2 completion delivery + 3 for the new request, sent at t0+2 */
    assert_int_equal(h->n_sends, 8);
    assert_int_equal(h->sends[5].server, A);
    assert_int_equal(h->sends[5].at, T0 + 2);
    assert_memory_not_equal(h->sends[5].data + RL_TENANT_OFF_UNIQUE_ID, h->sends[0].data + RL_TENANT_OFF_UNIQUE_ID,
                            16);
    assert_int_equal(r_client_request_deadline_ms(h->client, ch.next), T0 + 22);
    h->now = T0 + 5;
    assert_int_equal(fh_reply(h, 5, &A_REPLY), RCLIENT_OK);
    assert_int_equal(ch.calls, 2);
    assert_int_equal(h->resources[0].actual_rate, 7);
    fh_teardown(h);
}

/* ---- steering feedback (r-client.md 6.1, 6.3 rule 6) -------------------------- */

static void test_keep_port_false_requests_one_rebind(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_false(r_client_rebind_pending(h->client));
    fh_reply_t r = A_REPLY;
    r.keep_port = 0;
    assert_int_equal(fh_reply(h, A, &r), RCLIENT_OK);
    assert_int_equal(h->rebinds, 1);
    assert_int_equal(h->rebind_server, h->server_ids[A]);
    assert_true(r_client_rebind_pending(h->client));
    assert_int_equal(h->completions, 1);
    assert_false(h->steering_feedback);
    fh_teardown(h);
}

static void test_second_keep_port_false_while_pending_does_not_rebind_again(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = {.current_latency = 5, .actual_rate = 1, .keep_port = 0};
    assert_int_equal(fh_reply(h, B, &r), RCLIENT_OK); /* candidate, not yet selected */
    assert_int_equal(h->rebinds, 1);
    assert_int_equal(h->rebind_server, h->server_ids[B]);
    assert_int_equal(fh_reply(h, A, &r), RCLIENT_OK);
    assert_int_equal(h->rebinds, 1);
    assert_int_equal(h->rebind_server, h->server_ids[B]);
    assert_true(r_client_rebind_pending(h->client));
    fh_teardown(h);
}

static void test_rebind_failure_keeps_pending(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = A_REPLY;
    r.keep_port = 0;
    fh_reply(h, A, &r);
    r_client_rebind_complete(h->client, false);
    assert_true(r_client_rebind_pending(h->client));
    /* still pending: another keep_port = false schedules nothing new */
    fh_submit(h);
    assert_int_equal(fh_reply(h, 5, &r), RCLIENT_OK);
    assert_int_equal(h->completions, 2);
    assert_int_equal(h->rebinds, 1);
    fh_teardown(h);
}

static void test_rebind_success_clears_pending(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = A_REPLY;
    r.keep_port = 0;
    fh_reply(h, A, &r);
    r_client_rebind_complete(h->client, true);
    assert_false(r_client_rebind_pending(h->client));
    /* Ready again: the next keep_port = false asks for a new rebind */
    fh_submit(h);
    assert_int_equal(fh_reply(h, 5, &r), RCLIENT_OK);
    assert_int_equal(h->rebinds, 2);
    assert_true(r_client_rebind_pending(h->client));
    fh_teardown(h);
}

static void test_keep_port_true_requests_no_rebind(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(fh_reply(h, A, &A_REPLY), RCLIENT_OK);
    assert_int_equal(h->rebinds, 0);
    assert_false(r_client_rebind_pending(h->client));
    assert_true(h->steering_feedback);
    fh_teardown(h);
}

static void test_steering_on_invalid_datagram_changes_nothing(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = {.current_latency = 5, .actual_rate = 1, .keep_port = 0};
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = build_from_b(h, &r, buf);
    buf[RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE] ^= 0x01; /* bad cookie */
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_ERR_AUTH);
    assert_int_equal(h->rebinds, 0);
    assert_false(r_client_rebind_pending(h->client));
    assert_untouched_then_a_completes(h, req);
    assert_int_equal(h->rebinds, 0);
    fh_teardown(h);
}

/* ---- result arrays (api.md "Result fields") ----------------------------------- */

static void test_guard_at_threshold_fails(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = {.current_latency = 100, .actual_rate = 1, .keep_port = 1}; /* threshold 100 */
    assert_int_equal(fh_reply(h, A, &r), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_false(h->success);
    assert_int_equal(h->guard_count, 1);
    assert_false(h->guards[0].passed);
    assert_int_equal(h->guards[0].current_latency_ms, 100);
    assert_int_equal(h->guards[0].threshold_ms, 100);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    fh_teardown(h);
}

static void test_guard_below_threshold_passes(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t r = {.current_latency = 99, .actual_rate = 1, .keep_port = 1};
    assert_int_equal(fh_reply(h, A, &r), RCLIENT_OK);
    assert_true(h->success);
    assert_true(h->guards[0].passed);
    assert_int_equal(h->guards[0].current_latency_ms, 99);
    fh_teardown(h);
}

static void test_result_ids_mirror_response(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_AES, &req);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    fh_reply_t r = {.deficit = 2, .actual_rate = 100, .current_latency = 5, .keep_port = 1};
    assert_int_equal(fh_reply(h, A, &r), RCLIENT_OK);
    assert_false(h->success);
    assert_int_equal(h->resource_count, 1);
    assert_memory_equal(h->resources[0].bucket_id, res.bucket_id, 16);
    assert_int_equal(h->resources[0].tokens_deficit, 2);
    assert_int_equal(h->resources[0].actual_rate, 100);
    assert_memory_equal(h->guards[0].latency_tracker_id, guard.latency_tracker_id, 16);
    assert_true(h->guards[0].passed);
    fh_teardown(h);
}

/* The selected response's keep_port, not the first responder's. */
static void test_steering_feedback_mirrors_selected_response(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    fh_reply_t from_b = {.current_latency = 5, .actual_rate = 1, .keep_port = 1};
    assert_int_equal(fh_reply(h, B, &from_b), RCLIENT_OK);
    fh_reply_t from_a = {.current_latency = 5, .actual_rate = 1, .keep_port = 0};
    assert_int_equal(fh_reply(h, A, &from_a), RCLIENT_OK);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_false(h->steering_feedback);
    fh_teardown(h);
}

/* Borrowed API: completion delivery re-encodes the request; the result must
 * still carry the selected response's values. */
static void test_borrowed_result_survives_completion_delivery(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(
        r_client_check_rate_limit_async_borrowed(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &req),
        RCLIENT_OK);
    assert_int_equal(fh_reply(h, A, &A_REPLY), RCLIENT_OK);
    assert_int_equal(h->n_sends, 5); /* delivery to B and C happened */
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    assert_int_equal(h->resources[0].actual_rate, 7);
    assert_int_equal(h->guards[0].current_latency_ms, 9);
    assert_true(h->guards[0].passed);
    fh_teardown(h);
}

/* ---- arguments ---------------------------------------------------------------- */

static void test_null_client_is_config(void **state) {
    (void)state;
    uint8_t buf[64] = {0};
    assert_int_equal(r_client_on_datagram(NULL, buf, sizeof buf), RCLIENT_ERR_CONFIG);
}

static void test_null_data_with_length_is_config(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(r_client_on_datagram(h->client, NULL, 100), RCLIENT_ERR_CONFIG);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

/* An empty datagram is malformed input, not an invalid argument. */
static void test_null_data_with_zero_length_is_protocol(void **state) {
    (void)state;
    r_client_req_t *req;
    fh_t *h = setup(R_AUTH_COOKIE, &req);
    assert_int_equal(r_client_on_datagram(h->client, NULL, 0), RCLIENT_ERR_PROTOCOL);
    assert_untouched_then_a_completes(h, req);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_response_is_protocol),
        cmocka_unit_test(test_oversized_datagram_is_protocol),
        cmocka_unit_test(test_wrong_tenant_tlv_type_is_protocol),
        cmocka_unit_test(test_pdu_size_one_over_is_protocol),
        cmocka_unit_test(test_pdu_size_one_under_is_protocol),
        cmocka_unit_test(test_aes_tag_flipped_is_protocol),
        cmocka_unit_test(test_aes_ciphertext_flipped_is_protocol),
        cmocka_unit_test(test_cookie_mismatch_is_auth),
        cmocka_unit_test(test_wrong_auth_tlv_type_is_auth),
        cmocka_unit_test(test_uncorrelated_unique_id_is_ignored),
        cmocka_unit_test(test_untrusted_server_id_is_ignored),
        cmocka_unit_test(test_server_outside_snapshot_is_ignored),
        cmocka_unit_test(test_echoed_rate_request_is_ignored),
        cmocka_unit_test(test_echoed_rate_request_aes_is_ignored),
        cmocka_unit_test(test_duplicate_valid_response_is_not_a_new_responder),
        cmocka_unit_test(test_late_response_after_completion_is_ignored),
        cmocka_unit_test(test_response_after_cancel_is_ignored),
        cmocka_unit_test(test_response_after_timeout_is_ignored),
        cmocka_unit_test(test_cancel_inside_completion_callback_is_noop),
        cmocka_unit_test(test_submit_inside_completion_callback),
        cmocka_unit_test(test_keep_port_false_requests_one_rebind),
        cmocka_unit_test(test_second_keep_port_false_while_pending_does_not_rebind_again),
        cmocka_unit_test(test_rebind_failure_keeps_pending),
        cmocka_unit_test(test_rebind_success_clears_pending),
        cmocka_unit_test(test_keep_port_true_requests_no_rebind),
        cmocka_unit_test(test_steering_on_invalid_datagram_changes_nothing),
        cmocka_unit_test(test_guard_at_threshold_fails),
        cmocka_unit_test(test_guard_below_threshold_passes),
        cmocka_unit_test(test_result_ids_mirror_response),
        cmocka_unit_test(test_steering_feedback_mirrors_selected_response),
        cmocka_unit_test(test_borrowed_result_survives_completion_delivery),
        cmocka_unit_test(test_null_client_is_config),
        cmocka_unit_test(test_null_data_with_length_is_config),
        cmocka_unit_test(test_null_data_with_zero_length_is_protocol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
