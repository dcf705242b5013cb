/* SPDX-License-Identifier: MIT */
/* Request state machine through the public API and a fake host
 * (r-client.md 6.2.1, 9.3.3, 9.3.4, 9.3.5; r-client-ha-design.md 10).
 * Three explicit servers: A (index 0) oldest, then B, then C.
 * Default policy: U = 20, N = 1, B = [1,1], P = [1,1], F = 1, P_final = 0, C = 1,
 * so round 0 = [t0, t0+20), round 1 = [t0+20, t0+40), final = [t0+40, t0+60). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0

/* U = 10, N = 1, B = 2, P = 1, F = 2, P_final = 1: preference ends before the round. */
static r_request_policy_t oldest_preferred(void) {
    r_request_policy_t p;
    assert_int_equal(r_client_request_policy_preset(&p, R_POLICY_OLDEST_PREFERRED), RCLIENT_OK);
    return p;
}

static void test_initial_fanout_sends_same_datagram_to_every_server(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->sends[0].server, A);
    assert_int_equal(h->sends[1].server, B);
    assert_int_equal(h->sends[2].server, C);
    assert_memory_equal(h->sends[0].data, h->sends[1].data, h->sends[0].len);
    assert_memory_equal(h->sends[0].data, h->sends[2].data, h->sends[0].len);
    assert_int_equal(rl_load_u64(h->sends[0].data + RL_TENANT_OFF_TIME_STAMP), T0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_request_carries_derived_dedup_ttl(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    size_t pdu = RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    assert_int_equal(rl_load_u32(h->sends[0].data + pdu + 4), 60); /* 3 * U */
    fh_teardown(h);
}

static void test_oldest_response_selects_immediately(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    fh_submit(h);
    h->now = T0 + 3;
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_true(h->success);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_int_equal(h->completed_at, T0 + 3);
    assert_int_equal(h->profile.wait_ms, 3);
    assert_int_equal(h->profile.round, 0);
    assert_int_equal(h->profile.phase, R_PHASE_ROUND);
    assert_true(h->profile.selected);
    fh_teardown(h);
}

static void test_completion_delivery_goes_to_missing_servers_only(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    fh_submit(h);
    h->now = T0 + 3;
    fh_allow(h, A);
    assert_int_equal(h->n_sends, 5);
    assert_int_equal(h->sends[3].server, B);
    assert_int_equal(h->sends[4].server, C);
    assert_int_equal(h->sends[3].at, T0 + 3);
    assert_memory_equal(h->sends[3].data, h->sends[0].data, h->sends[0].len);
    fh_teardown(h);
}

static void test_completion_delivery_disabled(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.completion_delivery = false;
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3);
    fh_submit(h);
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

static void test_completion_delivery_for_denied_response(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    fh_submit(h);
    fh_reply_t deny = {.deficit = 1, .actual_rate = 100, .current_latency = 5, .keep_port = 1};
    assert_int_equal(fh_reply(h, A, &deny), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_false(h->success);
    assert_int_equal(h->resources[0].tokens_deficit, 1);
    assert_int_equal(h->resources[0].actual_rate, 100);
    assert_int_equal(h->n_sends, 5); /* outcome-independent (r-client.md 9.3.4) */
    fh_teardown(h);
}

/* Borrowed requests re-encode their datagram into the client's scratch buffer
 * for completion delivery; the selected response was parsed in place there.
 * The result must still carry the response's values (found by fuzz_client,
 * fuzz/regressions/client/borrowed-completion-delivery-*). */
static void test_borrowed_completion_delivery_keeps_response_values(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async_borrowed(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result,
                                                              h, &req),
                     RCLIENT_OK);
    fh_reply_t deny = {.deficit = 3, .actual_rate = 17, .current_latency = 7, .keep_port = 1};
    assert_int_equal(fh_reply(h, A, &deny), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->n_sends, 5); /* completion delivery to B and C happened */
    assert_int_equal(h->resources[0].tokens_deficit, 3);
    assert_int_equal(h->resources[0].actual_rate, 17);
    assert_int_equal(h->guards[0].current_latency_ms, 7);
    assert_memory_equal(h->guards[0].latency_tracker_id, guard.latency_tracker_id, R_CLIENT_ID_LEN);
    assert_false(h->success);
    fh_teardown(h);
}

static void test_younger_response_waits_for_preference_deadline(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20); /* B(0) * U */
    h->now = T0 + 4;
    assert_int_equal(fh_allow(h, B), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 10); /* moved to P(0) * U */
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(h->completed_at, T0 + 10);
    /* completion delivery to A and C */
    assert_int_equal(h->n_sends, 5);
    assert_int_equal(h->sends[3].server, A);
    assert_int_equal(h->sends[4].server, C);
    fh_teardown(h);
}

static void test_timeout_before_deadline_is_noop(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 19;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 19), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 20);
    fh_teardown(h);
}

static void test_response_after_preference_deadline_selects_at_once(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    fh_submit(h);
    h->now = T0 + 12; /* past P(0) = 10, timer not fired: no candidate yet */
    assert_int_equal(fh_allow(h, C), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[C]);
    fh_teardown(h);
}

static void test_older_response_replaces_candidate(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 2;
    fh_allow(h, C);
    h->now = T0 + 5;
    fh_allow(h, B);
    assert_int_equal(h->completions, 0);
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->server_id, h->server_ids[B]);
    /* completion delivery only to A: B and C answered */
    assert_int_equal(h->n_sends, 4);
    assert_int_equal(h->sends[3].server, A);
    fh_teardown(h);
}

/* The retained candidate keeps its values when its datagram is longer than
 * the request (the server added a trailing TLV, wire_protocol.md "Response
 * TLV Parameters") and other datagrams arrive before it is selected. */
static void test_retained_candidate_from_longer_response_keeps_its_values(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    uint8_t buf[RL_MAX_DATAGRAM];
    fh_reply_t reply = {.keep_port = 1, .current_latency = 33, .actual_rate = 9, .deficit = 0};
    size_t len = fh_build_response(h, B, &reply, buf);
    size_t pdu = RL_TENANT_TLV_SIZE + RL_AUTH_COOKIE_TLV_SIZE;
    const uint8_t tlv[40] = {0x7A, 0x7A, 40, 0, 0xEE, 0xEE, 0xEE}; /* unknown TLV, 40 bytes */
    memcpy(buf + len, tlv, sizeof tlv);
    rl_store_u16(buf + pdu + 2, (uint16_t)(rl_load_u16(buf + pdu + 2) + sizeof tlv));
    h->now = T0 + 2;
    assert_int_equal(r_client_on_datagram(h->client, buf, len + sizeof tlv), RCLIENT_OK);
    assert_int_equal(h->completions, 0); /* B is retained */
    fh_reply_t other = {.keep_port = 1, .current_latency = 77, .actual_rate = 55, .deficit = 4};
    assert_int_equal(fh_reply(h, B, &other), RCLIENT_OK); /* a duplicate overwrites the receive buffer */
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_true(h->success);
    assert_int_equal(h->resources[0].actual_rate, 9);
    assert_int_equal(h->resources[0].tokens_deficit, 0);
    assert_int_equal(h->guards[0].current_latency_ms, 33);
    fh_teardown(h);
}

static void test_younger_response_does_not_replace_candidate(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 2;
    fh_allow(h, B);
    h->now = T0 + 5;
    fh_allow(h, C);
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->server_id, h->server_ids[B]);
    fh_teardown(h);
}

static void test_duplicate_response_before_deadline_changes_nothing(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 2;
    fh_allow(h, C);
    h->now = T0 + 3;
    assert_int_equal(fh_allow(h, C), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 10);
    fh_teardown(h);
}

static void test_duplicate_response_after_deadline_selects_candidate(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    fh_submit(h);
    h->now = T0 + 2;
    fh_allow(h, C);
    h->now = T0 + 11; /* preference elapsed, timer not yet delivered */
    assert_int_equal(fh_allow(h, C), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[C]);
    fh_teardown(h);
}

static void test_silent_round_replays_same_request_to_all(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->n_sends, 6);
    for (size_t i = 3; i < 6; i++) {
        assert_int_equal(h->sends[i].at, T0 + 20);
        assert_int_equal(h->sends[i].len, h->sends[0].len);
        assert_memory_equal(h->sends[i].data, h->sends[0].data, h->sends[0].len); /* same unique_id, same bytes */
    }
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 40);
    fh_teardown(h);
}

static void test_late_timer_replays_when_delivered(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 27;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 27), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    assert_int_equal(h->sends[5].at, T0 + 27);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 40); /* absolute, not shifted */
    fh_teardown(h);
}

/* N = 3, U = 20, B = P = 1, F = 1: rounds [0,20) [20,40) [40,60) [60,80), final [80,100). */
static r_request_policy_t three_replays(void) {
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.replay_count = 3;
    return p;
}

/* A timer delivered after three round deadlines: rounds 1 and 2 are over and
 * skipped; only round 3, current at t0+65, transmits, once per missing server
 * (docs/spec-notes.md "Late timers"; r-client.md 9.3.1, 9.3.3 rule 7). */
static void test_late_timer_transmits_only_the_current_round(void **state) {
    (void)state;
    r_request_policy_t p = three_replays();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 65;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 65), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    assert_int_equal(fh_sends_to(h, A, 3), 1);
    assert_int_equal(fh_sends_to(h, B, 3), 1);
    assert_int_equal(fh_sends_to(h, C, 3), 1);
    assert_int_equal(h->sends[5].at, T0 + 65);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 80); /* round 3's own deadline */
    fh_advance(h, req, T0 + 100);
    assert_int_equal(h->n_sends, 6); /* the final interval sends nothing */
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    assert_int_equal(h->profile.round, 3);
    assert_int_equal(h->profile.phase, R_PHASE_FINAL_RECEIVE);
    fh_teardown(h);
}

/* Exactly at a round's start that round is current (t >= d reaches d). */
static void test_late_timer_at_a_round_start_transmits_that_round(void **state) {
    (void)state;
    r_request_policy_t p = three_replays();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 40;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 40), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6); /* round 2 only; round 1 skipped */
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 60);
    fh_teardown(h);
}

/* Default policy: at t0+45 every round is over and the final interval is
 * current, which "sends no replay" (r-client.md 9.3.3). */
static void test_late_timer_in_final_interval_sends_no_replay(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 45;
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 45), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 60);
    fh_teardown(h);
}

static void test_round_one_response_from_younger_selects_after_preference(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 20);
    h->now = T0 + 25;
    fh_allow(h, B); /* default P(1) = 1: waits for A until t0+40 */
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 40);
    fh_advance(h, req, T0 + 40);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(h->profile.round, 1);
    fh_teardown(h);
}

static void test_api_md_preset_completes_round_one_response_at_once(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_request_policy_preset(&p, R_POLICY_API_MD);
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 20);
    h->now = T0 + 25;
    fh_allow(h, C);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[C]);
    fh_teardown(h);
}

static void test_final_phase_sends_nothing_and_selects_first_valid(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 40);
    assert_int_equal(h->n_sends, 6); /* no send when entering the final phase */
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 60);
    h->now = T0 + 45;
    fh_allow(h, C);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[C]);
    assert_int_equal(h->profile.phase, R_PHASE_FINAL_RECEIVE);
    assert_int_equal(h->n_sends, 8); /* completion delivery to A and B, before t0+60 */
    fh_teardown(h);
}

static void test_final_deadline_times_out(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 60);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    assert_false(h->success);
    assert_int_equal(h->server_id, 0);
    assert_int_equal(h->completed_at, T0 + 60);
    assert_int_equal(h->n_sends, 6);
    assert_int_equal(h->profile.status, RCLIENT_ERR_TIMEOUT);
    assert_false(h->profile.selected);
    assert_int_equal(h->profile.wait_ms, 60);
    fh_teardown(h);
}

static void test_no_final_phase_times_out_after_last_round(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.final_receive_units = 0;
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    fh_advance(h, req, T0 + 40);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    assert_int_equal(h->completed_at, T0 + 40);
    fh_teardown(h);
}

static void test_no_replay_at_or_after_dedup_deadline(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 60; /* the host slept through every deadline */
    assert_int_equal(r_client_on_timeout(h->client, req, T0 + 60), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_TIMEOUT);
    fh_teardown(h);
}

/* r-client.md 9.3 "Delivery" is a best effort to every server: a replay
 * refused towards B still goes to C, and the request stays in flight
 * (docs/spec-notes.md "Send failures"). */
static void test_replay_send_failure_to_one_server_goes_on(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->fail_send_at = 4; /* the replay to B */
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->completions, 0);
    assert_int_equal(h->n_sends, 5);
    assert_int_equal(h->sends[3].server, A);
    assert_int_equal(h->sends[4].server, C);
    assert_int_equal(h->sends[4].at, T0 + 20);
    h->now = T0 + 25;
    assert_int_equal(fh_allow(h, 4), RCLIENT_OK); /* C answers the replay: the request still decides */
    fh_advance(h, req, T0 + 40);                  /* round 1's preference deadline selects C */
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_int_equal(h->server_id, h->server_ids[C]);
    assert_int_equal(h->profile.send_failures, 1);
    fh_teardown(h);
}

/* api.md "Error Codes": RCLIENT_ERR_IO through the callback in replay rounds,
 * when no missing server could be sent to (project: docs/spec-notes.md). */
static void test_replay_refused_by_every_server_completes_with_io(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    h->fail_servers = 7u;
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_IO);
    assert_int_equal(h->completed_at, T0 + 20);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->profile.send_failures, 3);
    fh_teardown(h);
}

/* r-client-ha-design.md 10 "Preferred-server failure": A produces no
 * response, B returns a valid one: select B at the preference deadline, then
 * best-effort completion delivery to the missing A. Here A cannot even be
 * sent to (a host without A's address family): B and C still get the
 * request, B is selected at P(0) = U = 20 ms, and the profile counts the
 * two refused sends to A (initial and completion delivery). */
static void test_unsendable_oldest_server_still_selects_b(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->fail_servers = 1u; /* A */
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(h->sends[0].server, B);
    assert_int_equal(h->sends[1].server, C);
    h->now = T0 + 5;
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK); /* B: a candidate, not yet selected */
    assert_int_equal(h->completions, 0);
    fh_advance(h, req, T0 + 20);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(h->completed_at, T0 + 20);
    assert_int_equal(fh_sends_to(h, C, 2), 1); /* completion delivery reached C */
    assert_int_equal(h->profile.send_failures, 2);
    fh_teardown(h);
}

static void test_completion_delivery_failure_does_not_change_result(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    h->fail_send_at = 3;
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_true(h->success);
    fh_teardown(h);
}

static void test_completion_delivery_failure_still_reaches_other_missing_servers(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    fh_submit(h);
    h->fail_send_at = 3; /* completion delivery to B fails */
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    /* r-client.md 9.3.4: one send "to every server ... from which no valid
     * response has arrived"; a failure towards B does not skip C. */
    assert_int_equal(h->n_sends, 4);
    assert_int_equal(h->sends[3].server, C);
    assert_int_equal(h->sends[3].at, T0);
    fh_teardown(h);
}

static void test_single_server_response_is_oldest(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 1);
    fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->n_sends, 1);
    fh_teardown(h);
}

static void test_strict_oldest_waits_full_round(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_request_policy_preset(&p, R_POLICY_STRICT_OLDEST);
    p.unit_ms = 10;
    p.replay_gap.initial_units = p.replay_gap.max_units = 3;
    p.preference.initial_units = p.preference.max_units = 3;
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, B);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 30);
    fh_advance(h, req, T0 + 29);
    assert_int_equal(h->completions, 0);
    fh_advance(h, req, T0 + 30);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    fh_teardown(h);
}

static void test_fastest_valid_selects_first_response(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_request_policy_preset(&p, R_POLICY_FASTEST_VALID);
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, C);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[C]);
    fh_teardown(h);
}

/* r-client-ha-design.md 10, trace 1: healthy synchronized servers. */
static void test_trace_healthy_selects_oldest_on_arrival(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_AES, &p, 2);
    fh_submit(h);
    h->now = T0 + 2;
    fh_allow(h, B);
    assert_int_equal(h->completions, 0);
    h->now = T0 + 3;
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_int_equal(h->completed_at, T0 + 3);
    assert_int_equal(h->n_sends, 2); /* nobody missing: no completion delivery */
    fh_teardown(h);
}

/* Trace 2a: slow oldest arrives by the preference deadline. */
static void test_trace_slow_oldest_within_preference(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_AES, &p, 2);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, B);
    fh_advance(h, req, T0 + 9);
    assert_int_equal(h->completions, 0);
    fh_allow(h, A);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[A]);
    assert_int_equal(h->completed_at, T0 + 9);
    fh_teardown(h);
}

/* Trace 2b: slow oldest arrives after the preference deadline: B selected,
 * A's late response changes nothing. */
static void test_trace_slow_oldest_after_preference(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_AES, &p, 2);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, B);
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(h->completed_at, T0 + 10);
    h->now = T0 + 12;
    assert_int_equal(fh_allow(h, A), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    fh_teardown(h);
}

/* Trace 3: preferred-server failure: B selected at the preference deadline,
 * then completion delivery to the missing A. */
static void test_trace_preferred_server_failure(void **state) {
    (void)state;
    r_request_policy_t p = oldest_preferred();
    fh_t *h = fh_setup(R_AUTH_AES, &p, 2);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 1;
    fh_allow(h, B);
    fh_advance(h, req, T0 + 10);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->sends[2].server, A);
    assert_int_equal(h->sends[2].at, T0 + 10);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_fanout_sends_same_datagram_to_every_server),
        cmocka_unit_test(test_request_carries_derived_dedup_ttl),
        cmocka_unit_test(test_oldest_response_selects_immediately),
        cmocka_unit_test(test_completion_delivery_goes_to_missing_servers_only),
        cmocka_unit_test(test_completion_delivery_disabled),
        cmocka_unit_test(test_completion_delivery_for_denied_response),
        cmocka_unit_test(test_borrowed_completion_delivery_keeps_response_values),
        cmocka_unit_test(test_younger_response_waits_for_preference_deadline),
        cmocka_unit_test(test_timeout_before_deadline_is_noop),
        cmocka_unit_test(test_response_after_preference_deadline_selects_at_once),
        cmocka_unit_test(test_older_response_replaces_candidate),
        cmocka_unit_test(test_retained_candidate_from_longer_response_keeps_its_values),
        cmocka_unit_test(test_younger_response_does_not_replace_candidate),
        cmocka_unit_test(test_duplicate_response_before_deadline_changes_nothing),
        cmocka_unit_test(test_duplicate_response_after_deadline_selects_candidate),
        cmocka_unit_test(test_silent_round_replays_same_request_to_all),
        cmocka_unit_test(test_late_timer_replays_when_delivered),
        cmocka_unit_test(test_late_timer_transmits_only_the_current_round),
        cmocka_unit_test(test_late_timer_at_a_round_start_transmits_that_round),
        cmocka_unit_test(test_late_timer_in_final_interval_sends_no_replay),
        cmocka_unit_test(test_round_one_response_from_younger_selects_after_preference),
        cmocka_unit_test(test_api_md_preset_completes_round_one_response_at_once),
        cmocka_unit_test(test_final_phase_sends_nothing_and_selects_first_valid),
        cmocka_unit_test(test_final_deadline_times_out),
        cmocka_unit_test(test_no_final_phase_times_out_after_last_round),
        cmocka_unit_test(test_no_replay_at_or_after_dedup_deadline),
        cmocka_unit_test(test_replay_send_failure_to_one_server_goes_on),
        cmocka_unit_test(test_replay_refused_by_every_server_completes_with_io),
        cmocka_unit_test(test_unsendable_oldest_server_still_selects_b),
        cmocka_unit_test(test_completion_delivery_failure_does_not_change_result),
        cmocka_unit_test(test_completion_delivery_failure_still_reaches_other_missing_servers),
        cmocka_unit_test(test_single_server_response_is_oldest),
        cmocka_unit_test(test_strict_oldest_waits_full_round),
        cmocka_unit_test(test_fastest_valid_selects_first_response),
        cmocka_unit_test(test_trace_healthy_selects_oldest_on_arrival),
        cmocka_unit_test(test_trace_slow_oldest_within_preference),
        cmocka_unit_test(test_trace_slow_oldest_after_preference),
        cmocka_unit_test(test_trace_preferred_server_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
