/* SPDX-License-Identifier: MIT */
/* The admission workflow (r_client_workflow.h; api.md "Combined Admission
 * Workflow", "Reporting measured work"; r-client.md 6.2, 6.2.2, 6.3) through a
 * fake host with three explicit servers A (oldest), B, C and the default
 * policy: deadlines at t0+20 (replay), t0+40 (final phase), t0+60 (timeout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_dns_host.h"
#include "r_client_workflow.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0
#define EXAMPLE "rl-c-client-example"

typedef struct {
    int calls;
    r_admission_request_t *adm;
    r_admission_outcome_t outcome;
    r_admission_state_t state_in_cb;
} capture_t;

static void on_admission(r_admission_request_t *adm, const r_admission_outcome_t *outcome, void *user_data) {
    capture_t *cap = user_data;
    cap->calls++;
    cap->adm = adm;
    cap->outcome = *outcome;
    cap->state_in_cb = adm->state;
}

typedef struct {
    fh_t *h;
    r_admission_config_t cfg;
    r_admission_request_t adm;
    capture_t cap;
} wf_t;

static wf_t *wf_setup(r_auth_type_t mode) {
    wf_t *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->h = fh_setup(mode, NULL, 3);
    r_client_admission_config_defaults(&w->cfg);
    return w;
}

static void wf_teardown(wf_t *w) {
    fh_teardown(w->h);
    free(w);
}

static int wf_start(wf_t *w) {
    return r_client_admission_start(w->h->client, &w->cfg, &w->adm, on_admission, &w->cap);
}

/* Start, then server A answers with the given deficit and current latency. */
static void wf_decide(wf_t *w, uint16_t deficit, uint32_t current_latency) {
    assert_int_equal(wf_start(w), RCLIENT_OK);
    w->h->now = T0 + 3;
    fh_reply_t r = {.deficit = deficit, .actual_rate = 7, .current_latency = current_latency, .keep_port = 1};
    assert_int_equal(fh_reply(w->h, A, &r), RCLIENT_OK);
    assert_int_equal(w->cap.calls, 1);
}

/* Drive the admission's deadline as a host would until its callback fires. */
static void wf_drive_to_timeout(wf_t *w) {
    while (w->cap.calls == 0) {
        uint64_t d = r_client_admission_deadline_ms(&w->adm);
        assert_true(d > 0);
        w->h->now = d;
        assert_int_equal(r_client_admission_on_timeout(&w->adm, d), RCLIENT_OK);
    }
}

/* ---- configuration ---------------------------------------------------------- */

static void test_config_defaults_every_field(void **state) {
    (void)state;
    r_admission_config_t cfg;
    memset(&cfg, 0xA5, sizeof cfg);
    r_client_admission_config_defaults(&cfg);
    assert_string_equal(cfg.bucket_name, EXAMPLE);
    assert_int_equal(cfg.bucket_name_len, 0);
    assert_int_equal(cfg.window_size_ms, 1000);
    assert_int_equal(cfg.rate_limit, 100);
    assert_int_equal(cfg.tokens, 1);
    assert_string_equal(cfg.latency_tracker_name, EXAMPLE);
    assert_int_equal(cfg.latency_tracker_name_len, 0);
    assert_int_equal(cfg.threshold_ms, 100);
    assert_int_equal(cfg.ttl_ms, 10000);
    assert_int_equal(cfg.max_samples, 100);
    assert_int_equal(cfg.buffer_size, 32);
    assert_int_equal(cfg.min_sample_threshold, 5);
    assert_string_equal(cfg.metrics_label, EXAMPLE);
}

/* ---- start -------------------------------------------------------------------- */

static void test_start_derives_bucket_and_tracker_ids(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    w->cfg.bucket_name = "checkout";
    w->cfg.window_size_ms = 2000;
    w->cfg.rate_limit = 50;
    w->cfg.latency_tracker_name = "inventory-backend";
    w->cfg.ttl_ms = 20000;
    w->cfg.max_samples = 64;
    w->cfg.buffer_size = 16;
    w->cfg.min_sample_threshold = 3;
    assert_int_equal(wf_start(w), RCLIENT_OK);
    uint8_t bucket[16], tracker[16];
    assert_int_equal(r_client_derive_bucket_id("checkout", 8, 2000, 50, bucket), RCLIENT_OK);
    assert_int_equal(r_client_derive_latency_tracker_id("inventory-backend", 17, 20000, 64, 16, 3, tracker),
                     RCLIENT_OK);
    assert_memory_equal(w->adm.resource.bucket_id, bucket, 16);
    assert_memory_equal(w->adm.guard.latency_tracker_id, tracker, 16);
    /* and the datagram carries them: guard block, then resource block */
    const uint8_t *pdu = w->h->sends[0].data + RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    assert_memory_equal(pdu + RL_RATE_PDU_FIXED, tracker, 16);
    assert_memory_equal(pdu + RL_RATE_PDU_FIXED + RL_GUARD_BLOCK_SIZE, bucket, 16);
    wf_teardown(w);
}

/* An explicit length covers names with embedded NUL bytes. */
static void test_start_uses_explicit_name_length(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    w->cfg.bucket_name = "ab\0cd";
    w->cfg.bucket_name_len = 5;
    assert_int_equal(wf_start(w), RCLIENT_OK);
    uint8_t five[16], two[16];
    assert_int_equal(r_client_derive_bucket_id("ab\0cd", 5, 1000, 100, five), RCLIENT_OK);
    assert_int_equal(r_client_derive_bucket_id("ab", 2, 1000, 100, two), RCLIENT_OK);
    assert_memory_equal(w->adm.resource.bucket_id, five, 16);
    assert_memory_not_equal(w->adm.resource.bucket_id, two, 16);
    wf_teardown(w);
}

static void test_start_sends_request_and_is_pending(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_COOKIE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    assert_int_equal(w->adm.state, R_ADMISSION_PENDING);
    assert_non_null(w->adm.req);
    assert_int_equal(w->h->n_sends, 3);
    assert_int_equal(r_client_admission_deadline_ms(&w->adm), T0 + 20);
    assert_int_equal(w->cap.calls, 0);
    wf_teardown(w);
}

static void test_start_while_pending_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    r_client_req_t *req = w->adm.req;
    assert_int_equal(wf_start(w), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, 3);
    assert_int_equal(w->adm.state, R_ADMISSION_PENDING);
    assert_ptr_equal(w->adm.req, req);
    assert_int_equal(fh_allow(w->h, A), RCLIENT_OK); /* the first admission still completes */
    assert_int_equal(w->cap.calls, 1);
    assert_true(w->cap.outcome.allowed);
    wf_teardown(w);
}

static void test_start_again_after_done(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 5);
    assert_int_equal(r_client_admission_report_latency(&w->adm, 12), RCLIENT_OK);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    assert_int_equal(w->adm.state, R_ADMISSION_PENDING);
    assert_false(w->adm.reported);
    wf_teardown(w);
}

/* api.md "DNS Refresh": no server known -> RCLIENT_ERR_DNS; adm stays IDLE. */
static void test_start_without_servers_is_dns_and_idle(void **state) {
    (void)state;
    fake_dns_t dns;
    memset(&dns, 0, sizeof dns);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    r_admission_config_t cfg;
    r_client_admission_config_defaults(&cfg);
    r_admission_request_t adm;
    memset(&adm, 0, sizeof adm);
    capture_t cap;
    memset(&cap, 0, sizeof cap);
    assert_int_equal(r_client_admission_start(h->client, &cfg, &adm, on_admission, &cap), RCLIENT_ERR_DNS);
    assert_int_equal(adm.state, R_ADMISSION_IDLE);
    assert_null(adm.req);
    assert_int_equal(r_client_admission_deadline_ms(&adm), 0);
    assert_int_equal(cap.calls, 0);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

static void test_start_over_quota_buffer_is_protocol_and_idle(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    w->cfg.buffer_size = 33; /* latency_buffer_size_max is 32 */
    assert_int_equal(wf_start(w), RCLIENT_ERR_PROTOCOL);
    assert_int_equal(w->adm.state, R_ADMISSION_IDLE);
    assert_int_equal(w->h->n_sends, 0);
    assert_int_equal(w->cap.calls, 0);
    wf_teardown(w);
}

static void test_start_send_failure_is_io_and_idle(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    w->h->fail_servers = 7u; /* no member can be sent to (docs/spec-notes.md "Send failures") */
    assert_int_equal(wf_start(w), RCLIENT_ERR_IO);
    assert_int_equal(w->adm.state, R_ADMISSION_IDLE);
    assert_null(w->adm.req);
    assert_int_equal(w->cap.calls, 0);
    wf_teardown(w);
}

static void test_start_null_arguments_are_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(r_client_admission_start(NULL, &w->cfg, &w->adm, on_admission, &w->cap), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_admission_start(w->h->client, NULL, &w->adm, on_admission, &w->cap),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_admission_start(w->h->client, &w->cfg, NULL, on_admission, &w->cap),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_admission_start(w->h->client, &w->cfg, &w->adm, NULL, &w->cap), RCLIENT_ERR_CONFIG);
    w->cfg.bucket_name = NULL;
    assert_int_equal(wf_start(w), RCLIENT_ERR_CONFIG);
    r_client_admission_config_defaults(&w->cfg);
    w->cfg.latency_tracker_name = NULL;
    assert_int_equal(wf_start(w), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->adm.state, R_ADMISSION_IDLE);
    assert_int_equal(w->h->n_sends, 0);
    wf_teardown(w);
}

/* ---- outcomes ------------------------------------------------------------------- */

static void test_allowed_outcome(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_COOKIE);
    wf_decide(w, 0, 5);
    const r_admission_outcome_t *o = &w->cap.outcome;
    assert_true(o->allowed);
    assert_int_equal(o->reason, R_ADMISSION_ALLOWED);
    assert_int_equal(o->status, RCLIENT_OK);
    assert_int_equal(o->server_id, w->h->server_ids[A]);
    assert_int_equal(o->tokens_deficit, 0);
    assert_int_equal(o->actual_rate, 7);
    assert_int_equal(o->current_latency_ms, 5);
    assert_int_equal(o->threshold_ms, 100);
    assert_ptr_equal(w->cap.adm, &w->adm);
    assert_int_equal(w->cap.state_in_cb, R_ADMISSION_DONE);
    assert_int_equal(w->adm.state, R_ADMISSION_DONE);
    assert_null(w->adm.req);
    assert_memory_equal(&w->adm.outcome, o, sizeof *o);
    assert_int_equal(r_client_admission_deadline_ms(&w->adm), 0);
    wf_teardown(w);
}

/* current 99 < threshold 100: the guard passes. */
static void test_latency_just_below_threshold_is_allowed(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 99);
    assert_true(w->cap.outcome.allowed);
    assert_int_equal(w->cap.outcome.reason, R_ADMISSION_ALLOWED);
    assert_int_equal(w->cap.outcome.current_latency_ms, 99);
    wf_teardown(w);
}

static void test_denied_rate_only(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 2, 5);
    const r_admission_outcome_t *o = &w->cap.outcome;
    assert_false(o->allowed);
    assert_int_equal(o->reason, R_ADMISSION_DENIED_RATE);
    assert_int_equal(o->status, RCLIENT_OK);
    assert_int_equal(o->tokens_deficit, 2);
    assert_int_equal(o->actual_rate, 7);
    assert_int_equal(o->current_latency_ms, 5);
    assert_int_equal(o->server_id, w->h->server_ids[A]);
    wf_teardown(w);
}

/* r-client.md 7.1.2: denied when current latency >= threshold (100 == 100). */
static void test_denied_latency_only(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 100);
    const r_admission_outcome_t *o = &w->cap.outcome;
    assert_false(o->allowed);
    assert_int_equal(o->reason, R_ADMISSION_DENIED_LATENCY);
    assert_int_equal(o->status, RCLIENT_OK);
    assert_int_equal(o->tokens_deficit, 0);
    assert_int_equal(o->current_latency_ms, 100);
    assert_int_equal(o->threshold_ms, 100);
    wf_teardown(w);
}

static void test_denied_both(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 1, 250);
    const r_admission_outcome_t *o = &w->cap.outcome;
    assert_false(o->allowed);
    assert_int_equal(o->reason, R_ADMISSION_DENIED_BOTH);
    assert_int_equal(o->tokens_deficit, 1);
    assert_int_equal(o->current_latency_ms, 250);
    wf_teardown(w);
}

/* ---- deadline ---------------------------------------------------------------------- */

static void test_timeout_is_failed_with_timeout_status(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    wf_drive_to_timeout(w);
    const r_admission_outcome_t *o = &w->cap.outcome;
    assert_int_equal(w->cap.calls, 1);
    assert_int_equal(w->h->now, T0 + 60);
    assert_false(o->allowed);
    assert_int_equal(o->reason, R_ADMISSION_FAILED);
    assert_int_equal(o->status, RCLIENT_ERR_TIMEOUT);
    assert_int_equal(o->server_id, 0);
    assert_int_equal(o->tokens_deficit, 0);
    assert_int_equal(o->threshold_ms, 100);
    assert_int_equal(w->adm.state, R_ADMISSION_DONE);
    assert_int_equal(r_client_admission_deadline_ms(&w->adm), 0);
    wf_teardown(w);
}

/* The workflow borrows its inputs: a replay is re-encoded from them and must
 * repeat the initial datagram byte for byte (same unique_id and nonce). */
static void test_replay_repeats_initial_datagram(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_AES);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    w->h->now = T0 + 20;
    assert_int_equal(r_client_admission_on_timeout(&w->adm, T0 + 20), RCLIENT_OK);
    assert_int_equal(w->h->n_sends, 6);
    for (size_t i = 3; i < 6; i++) {
        assert_int_equal(w->h->sends[i].len, w->h->sends[0].len);
        assert_memory_equal(w->h->sends[i].data, w->h->sends[0].data, w->h->sends[0].len);
    }
    assert_int_equal(w->cap.calls, 0);
    wf_teardown(w);
}

static void test_replay_send_failure_is_failed_with_io(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    w->h->fail_servers = 7u; /* the replay round cannot reach any missing member */
    wf_drive_to_timeout(w);
    assert_int_equal(w->h->now, T0 + 20);
    assert_int_equal(w->cap.outcome.reason, R_ADMISSION_FAILED);
    assert_int_equal(w->cap.outcome.status, RCLIENT_ERR_IO);
    assert_false(w->cap.outcome.allowed);
    assert_int_equal(w->cap.outcome.server_id, 0);
    wf_teardown(w);
}

static void test_on_timeout_before_deadline_is_noop(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    w->h->now = T0 + 19;
    assert_int_equal(r_client_admission_on_timeout(&w->adm, T0 + 19), RCLIENT_OK);
    assert_int_equal(w->cap.calls, 0);
    assert_int_equal(w->adm.state, R_ADMISSION_PENDING);
    assert_int_equal(r_client_admission_deadline_ms(&w->adm), T0 + 20);
    assert_int_equal(w->h->n_sends, 3);
    wf_teardown(w);
}

static void test_on_timeout_null_is_config(void **state) {
    (void)state;
    assert_int_equal(r_client_admission_on_timeout(NULL, T0), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_admission_deadline_ms(NULL), 0);
}

/* ---- cancel -------------------------------------------------------------------------- */

static void test_cancel_suppresses_callback(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    r_client_admission_cancel(&w->adm);
    assert_int_equal(w->adm.state, R_ADMISSION_CANCELLED);
    assert_null(w->adm.req);
    assert_int_equal(r_client_admission_deadline_ms(&w->adm), 0);
    assert_int_equal(fh_allow(w->h, A), RCLIENT_OK); /* late response: matches nothing */
    assert_int_equal(r_client_admission_on_timeout(&w->adm, T0 + 60), RCLIENT_OK);
    assert_int_equal(w->cap.calls, 0);
    assert_int_equal(w->adm.state, R_ADMISSION_CANCELLED);
    wf_teardown(w);
}

static void test_cancel_after_done_is_noop(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 5);
    r_client_admission_cancel(&w->adm);
    assert_int_equal(w->adm.state, R_ADMISSION_DONE);
    assert_true(w->adm.outcome.allowed);
    r_client_admission_cancel(NULL); /* harmless */
    wf_teardown(w);
}

/* ---- the one latency report ------------------------------------------------------------ */

static void test_report_after_allowed_carries_guard_fields(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 5);
    size_t first = w->h->n_sends;
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_OK);
    assert_true(w->adm.reported);
    assert_int_equal(w->h->n_sends, first + 3);
    const uint8_t *pdu = w->h->sends[first].data + RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    assert_int_equal(rl_load_u16(pdu), RL_PDU_LATENCY_REPORT);
    assert_int_equal(rl_load_u16(pdu + 2), 48);
    assert_int_equal(rl_load_u16(pdu + 8), 1);
    const uint8_t *blk = pdu + RL_REPORT_PDU_FIXED;
    uint8_t tracker[16];
    assert_int_equal(r_client_derive_latency_tracker_id(EXAMPLE, strlen(EXAMPLE), 10000, 100, 32, 5, tracker),
                     RCLIENT_OK);
    assert_memory_equal(blk, tracker, 16);
    assert_int_equal(rl_load_u32(blk + 16), 10000);
    assert_int_equal(rl_load_u32(blk + 20), 100);
    assert_int_equal(rl_load_u32(blk + 24), 32);
    assert_int_equal(rl_load_u32(blk + 28), 5);
    assert_int_equal(rl_load_u32(blk + 32), 42);
    wf_teardown(w);
}

static void test_second_report_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 5);
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_OK);
    size_t sent = w->h->n_sends;
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, sent);
    wf_teardown(w);
}

static void test_failed_report_send_can_be_retried_once(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 0, 5);
    w->h->fail_servers = 7u; /* no member can be sent to */
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_IO);
    assert_false(w->adm.reported);
    w->h->fail_servers = 0;
    size_t sent = w->h->n_sends;
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_OK);
    assert_true(w->adm.reported);
    assert_int_equal(w->h->n_sends, sent + 3);
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, sent + 3);
    wf_teardown(w);
}

static void test_report_after_denied_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    wf_decide(w, 1, 5);
    size_t sent = w->h->n_sends;
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, sent);
    assert_false(w->adm.reported);
    wf_teardown(w);
}

static void test_report_after_failed_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    wf_drive_to_timeout(w);
    size_t sent = w->h->n_sends;
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, sent);
    wf_teardown(w);
}

static void test_report_after_cancel_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    r_client_admission_cancel(&w->adm);
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, 3);
    wf_teardown(w);
}

static void test_report_while_pending_is_config(void **state) {
    (void)state;
    wf_t *w = wf_setup(R_AUTH_NONE);
    assert_int_equal(wf_start(w), RCLIENT_OK);
    assert_int_equal(r_client_admission_report_latency(&w->adm, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_admission_report_latency(NULL, 42), RCLIENT_ERR_CONFIG);
    assert_int_equal(w->h->n_sends, 3);
    wf_teardown(w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults_every_field),
        cmocka_unit_test(test_start_derives_bucket_and_tracker_ids),
        cmocka_unit_test(test_start_uses_explicit_name_length),
        cmocka_unit_test(test_start_sends_request_and_is_pending),
        cmocka_unit_test(test_start_while_pending_is_config),
        cmocka_unit_test(test_start_again_after_done),
        cmocka_unit_test(test_start_without_servers_is_dns_and_idle),
        cmocka_unit_test(test_start_over_quota_buffer_is_protocol_and_idle),
        cmocka_unit_test(test_start_send_failure_is_io_and_idle),
        cmocka_unit_test(test_start_null_arguments_are_config),
        cmocka_unit_test(test_allowed_outcome),
        cmocka_unit_test(test_latency_just_below_threshold_is_allowed),
        cmocka_unit_test(test_denied_rate_only),
        cmocka_unit_test(test_denied_latency_only),
        cmocka_unit_test(test_denied_both),
        cmocka_unit_test(test_timeout_is_failed_with_timeout_status),
        cmocka_unit_test(test_replay_repeats_initial_datagram),
        cmocka_unit_test(test_replay_send_failure_is_failed_with_io),
        cmocka_unit_test(test_on_timeout_before_deadline_is_noop),
        cmocka_unit_test(test_on_timeout_null_is_config),
        cmocka_unit_test(test_cancel_suppresses_callback),
        cmocka_unit_test(test_cancel_after_done_is_noop),
        cmocka_unit_test(test_report_after_allowed_carries_guard_fields),
        cmocka_unit_test(test_second_report_is_config),
        cmocka_unit_test(test_failed_report_send_can_be_retried_once),
        cmocka_unit_test(test_report_after_denied_is_config),
        cmocka_unit_test(test_report_after_failed_is_config),
        cmocka_unit_test(test_report_after_cancel_is_config),
        cmocka_unit_test(test_report_while_pending_is_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
