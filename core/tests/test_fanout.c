/* SPDX-License-Identifier: MIT */
/* The optional batch-send hook r_io_ops_t.udp_send_batch (r_client_io.h):
 * every fan-out of the core (request submit, replays, completion delivery,
 * latency reports) is one hook call with the destinations in membership
 * order, and a failure is handled as with udp_send: every fan-out goes on
 * with the destinations after the refused one (r-client.md 9.3 "Delivery",
 * best effort to every member; 9.3.4), and the submit, a replay round or a
 * report fails only when no destination was taken (docs/spec-notes.md "Send
 * failures"). Three servers A (oldest), B, C; default policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"

enum { A = 0, B = 1, C = 2 };

typedef struct {
    fh_t *h;
    int batch_calls;
    size_t batch_n[8];           /* destinations per call */
    int first_server[8];         /* server index of to[0] per call */
    long fail_at;                /* -1 none; else the call's destination index that fails (once) */
    bool fail_all;               /* every destination is refused */
    int direct_sends;
} bh_t;

static bh_t bh;

static int server_of(const fh_t *h, const r_addr_t *a) {
    for (int i = 0; i < FH_SERVERS; i++) {
        if (h->endpoints[i].addr.port == a->port) return i;
    }
    return -1;
}

static size_t batch_hook(void *ctx, const r_addr_t *const *to, size_t n, const uint8_t *data, size_t len) {
    fh_t *h = ctx;
    if (bh.batch_calls < 8) {
        bh.batch_n[bh.batch_calls] = n;
        bh.first_server[bh.batch_calls] = server_of(h, to[0]);
    }
    bh.batch_calls++;
    for (size_t i = 0; i < n; i++) {
        if (bh.fail_all) {
            return i;
        }
        if (bh.fail_at >= 0 && (size_t)bh.fail_at == i) {
            bh.fail_at = -1;
            return i;
        }
        assert_int_equal(fh_udp_send(h, to[i], data, len), 0); /* capture it */
    }
    return n;
}

static int direct_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    bh.direct_sends++;
    return fh_udp_send(ctx, to, data, len);
}

static fh_t *setup_batch(long fail_at) {
    memset(&bh, 0, sizeof bh);
    bh.fail_at = fail_at;
    fh_t *h = fh_new(R_AUTH_COOKIE, 0xf8f2b150u);
    bh.h = h;
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    io.udp_send = direct_send;
    io.udp_send_batch = batch_hook;
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    return h;
}

static void test_submit_is_one_batch_call_in_membership_order(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(bh.batch_calls, 1);
    assert_int_equal(bh.batch_n[0], 3);
    assert_int_equal(bh.first_server[0], A);
    assert_int_equal(h->sends[1].server, B);
    assert_int_equal(h->sends[2].server, C);
    assert_int_equal(bh.direct_sends, 0);
    r_client_cancel_request(h->client, req);
    fh_teardown(h);
}

static void test_without_batch_hook_udp_send_per_server(void **state) {
    (void)state;
    memset(&bh, 0, sizeof bh);
    fh_t *h = fh_new(R_AUTH_COOKIE, 0xf8f2b150u);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    io.udp_send = direct_send; /* udp_send_batch left NULL by the initializer */
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(bh.direct_sends, 3);
    r_client_cancel_request(h->client, req);
    fh_teardown(h);
}

static void test_submit_batch_goes_on_after_a_failed_destination(void **state) {
    (void)state;
    fh_t *h = setup_batch(1); /* B refused */
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(bh.batch_calls, 2); /* A, B, C; then C after the refused B */
    assert_int_equal(bh.batch_n[1], 1);
    assert_int_equal(bh.first_server[1], C);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(h->sends[0].server, A);
    assert_int_equal(h->sends[1].server, C);
    r_client_cancel_request(h->client, req);
    fh_teardown(h);
}

static void test_submit_batch_refused_everywhere_is_io(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    bh.fail_all = true;
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &req),
                     RCLIENT_ERR_IO);
    assert_null(req);
    assert_int_equal(bh.batch_calls, 3); /* A, B, C; B, C; C: each refused */
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_completion_delivery_goes_on_after_a_failed_destination(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    (void)fh_submit(h);
    bh.fail_at = 0; /* the delivery's first destination (B) fails */
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK); /* A, the oldest: selected at once */
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_int_equal(bh.batch_calls, 3);     /* submit; delivery to B, C; the rest after B: C */
    assert_int_equal(bh.batch_n[1], 2);
    assert_int_equal(bh.first_server[1], B);
    assert_int_equal(bh.batch_n[2], 1);
    assert_int_equal(bh.first_server[2], C);
    assert_int_equal(fh_sends_to(h, C, 3), 1);
    fh_teardown(h);
}

static void test_replay_batch_goes_on_after_a_failed_destination(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    r_client_req_t *req = fh_submit(h);
    bh.fail_at = 0;
    fh_advance(h, req, FH_T0 + 20); /* round 0 silent: replay to A, B, C; A refused, B and C sent */
    assert_int_equal(h->completions, 0);
    assert_int_equal(bh.batch_calls, 3);
    assert_int_equal(bh.batch_n[2], 2);
    assert_int_equal(bh.first_server[2], B);
    assert_int_equal(h->n_sends, 5);
    r_client_cancel_request(h->client, req);
    fh_teardown(h);
}

static void test_replay_batch_refused_everywhere_fails_the_request(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    r_client_req_t *req = fh_submit(h);
    bh.fail_all = true;
    fh_advance(h, req, FH_T0 + 20);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_ERR_IO);
    assert_int_equal(h->n_sends, 3); /* the replay sent nothing */
    fh_teardown(h);
}

static void test_replay_skips_servers_that_answered(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    r_client_req_t *req = fh_submit(h);
    fh_reply_t deny = {.keep_port = 1, .deficit = 1};
    assert_int_equal(fh_reply(h, 1, &deny), RCLIENT_OK); /* B answers, candidate; A and C missing */
    assert_int_equal(h->completions, 0);
    fh_advance(h, req, FH_T0 + 20); /* preference deadline: B selected; delivery to A and C */
    assert_int_equal(h->completions, 1);
    assert_int_equal(bh.batch_calls, 2);
    assert_int_equal(bh.batch_n[1], 2);
    assert_int_equal(bh.first_server[1], A);
    assert_int_equal(fh_sends_to(h, B, 3), 0);
    fh_teardown(h);
}

static void test_report_is_one_batch_call(void **state) {
    (void)state;
    fh_t *h = setup_batch(-1);
    r_service_latency_report_t rep = {.ttl_ms = 10000, .max_samples = 100, .buffer_size = 32,
                                      .min_sample_threshold = 5, .observed_latency = 7};
    assert_int_equal(r_client_report_latency(h->client, &rep, 1), RCLIENT_OK);
    assert_int_equal(bh.batch_calls, 1);
    assert_int_equal(bh.batch_n[0], 3);
    assert_int_equal(bh.direct_sends, 0);
    bh.fail_at = 2; /* C refused: A and B still got it, the report is not failed */
    assert_int_equal(r_client_report_latency(h->client, &rep, 1), RCLIENT_OK);
    assert_int_equal(bh.batch_calls, 2);
    assert_int_equal(h->n_sends, 5);
    bh.fail_all = true;
    assert_int_equal(r_client_report_latency(h->client, &rep, 1), RCLIENT_ERR_IO);
    assert_int_equal(h->n_sends, 5);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_submit_is_one_batch_call_in_membership_order),
        cmocka_unit_test(test_without_batch_hook_udp_send_per_server),
        cmocka_unit_test(test_submit_batch_goes_on_after_a_failed_destination),
        cmocka_unit_test(test_submit_batch_refused_everywhere_is_io),
        cmocka_unit_test(test_completion_delivery_goes_on_after_a_failed_destination),
        cmocka_unit_test(test_replay_batch_goes_on_after_a_failed_destination),
        cmocka_unit_test(test_replay_batch_refused_everywhere_fails_the_request),
        cmocka_unit_test(test_replay_skips_servers_that_answered),
        cmocka_unit_test(test_report_is_one_batch_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
