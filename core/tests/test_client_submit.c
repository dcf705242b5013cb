/* SPDX-License-Identifier: MIT */
/* Resource-request submission through the public API and a fake host
 * (api.md "Resource Requests", "Configuration", "Error Codes"; r-client.md
 * 6.2.1 Created/Prepared rows, 6.4 Validation class).
 * Three explicit servers A (oldest), B, C unless a test says otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_host.h"
#include "fake_dns.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0
#define QUOTA_WORD 0xf8f2b150u /* dedup_ttl_ms_max 300, latency_buffer_size_max 32, window unlimited */

/* Same quota word with window_exp (bits 27..31) = 10: rate_window_size_ms_max 1024. */
#define QUOTA_WORD_WINDOW_1024 ((QUOTA_WORD & 0x07ffffffu) | (10u << 27))

static r_client_req_t *const SENTINEL = (r_client_req_t *)(uintptr_t)0x5a5a;

static int submit_default(fh_t *h, r_client_req_t **out) {
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    return r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, out);
}

/* n copies of the default resource (distinct bucket_id first byte). */
static int submit_resources(fh_t *h, size_t n, const char *label, size_t label_len, r_client_req_t **out) {
    r_resource_request_t res[48];
    r_latency_guard_t guard;
    assert_true(n <= 48);
    for (size_t i = 0; i < n; i++) {
        fh_default_inputs(&res[i], &guard);
        res[i].bucket_id[0] = (uint8_t)i;
    }
    return r_client_check_rate_limit_async(h->client, n ? res : NULL, n, NULL, 0, label, label_len, fh_on_result, h,
                                           out);
}

static int submit_guards(fh_t *h, size_t n, r_client_req_t **out) {
    r_resource_request_t res;
    r_latency_guard_t guards[32];
    assert_true(n <= 32);
    for (size_t i = 0; i < n; i++) {
        fh_default_inputs(&res, &guards[i]);
        guards[i].latency_tracker_id[0] = (uint8_t)i;
    }
    return r_client_check_rate_limit_async(h->client, NULL, 0, guards, n, NULL, 0, fh_on_result, h, out);
}

/* A DNS-mode client (no explicit servers) on host h with the fake resolver. */
static fh_t *dns_setup(fake_dns_t *dns, fake_mode_t srv_mode, const r_request_policy_t *policy) {
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    memset(dns, 0, sizeof *dns);
    dns->srv_mode = srv_mode; /* FAKE_AT_ONCE with no records: a discovery that finds nobody */
    r_client_config_t cfg = fh_config(h, policy, 0);
    r_io_ops_t io = fh_io(h);
    r_resolver_ops_t ro = fake_dns_ops(dns);
    assert_int_equal(r_client_create(&cfg, &io, &ro, &h->client), RCLIENT_OK);
    return h;
}

static void dns_teardown(fh_t *h, fake_dns_t *dns) {
    fh_teardown(h);
    fake_dns_answer_rest(dns);
}

static r_request_policy_t policy_h_over_quota(void) {
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.unit_ms = 101; /* H = 3 * 101 = 303 > dedup_ttl_ms_max 300 */
    return p;
}

static r_request_policy_t policy_p_over_b(void) {
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.preference.initial_units = 2;
    p.preference.max_units = 2; /* P(0) = 2 > B(0) = 1 */
    return p;
}

/* ---- argument checks ------------------------------------------------------- */

static void test_null_client_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(NULL, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_check_rate_limit_async_borrowed(NULL, &res, 1, &guard, 1, NULL, 0, fh_on_result, h,
                                                              &out),
                     RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_null_callback_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, NULL, h, &out),
                     RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_null_callback_on_empty_request_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, NULL, h, &out),
                     RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->profiles, 0);
    fh_teardown(h);
}

static void test_null_out_req_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, fh_on_result, h, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_null_resources_with_count_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 1, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_null_guards_with_count_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(
        r_client_check_rate_limit_async_borrowed(h->client, &res, 1, NULL, 1, NULL, 0, fh_on_result, h, &out),
        RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_guard_only_request_is_sent(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_guards(h, 1, &out), RCLIENT_OK);
    assert_non_null(out);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->sends[0].len, 56 + 40); /* tenant 40 + none 4 + fixed 12 + one guard */
    size_t pdu = RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    assert_int_equal(rl_load_u16(h->sends[0].data + pdu + 8), 1);  /* guard_count */
    assert_int_equal(rl_load_u16(h->sends[0].data + pdu + 10), 0); /* resource_count */
    fh_teardown(h);
}

/* ---- the empty request (api.md "Resource Requests") ------------------------- */

typedef struct {
    fh_t *h;
    int calls;
    int profiles_at_call;
    r_client_req_t *req;
    r_rate_limit_result_t result;
    bool resources_null, guards_null;
    /* recursion */
    bool recurse;
    int inner_rc;
    r_client_req_t *inner_out;
    int calls_after_inner_submit;
} empty_cap_t;

static void on_empty(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    empty_cap_t *cap = user;
    cap->calls++;
    cap->profiles_at_call = cap->h->profiles;
    cap->req = req;
    cap->result = *r;
    cap->resources_null = r->resources == NULL;
    cap->guards_null = r->guards == NULL;
    if (cap->recurse) {
        cap->recurse = false;
        cap->inner_out = SENTINEL;
        cap->inner_rc = r_client_check_rate_limit_async(cap->h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, cap,
                                                        &cap->inner_out);
        cap->calls_after_inner_submit = cap->calls;
    }
}

static void test_empty_request_completes_inside_submit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    empty_cap_t cap = {.h = h, .req = SENTINEL};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, "label", 0, on_empty, &cap, &out),
                     RCLIENT_OK);
    assert_null(out);
    assert_int_equal(cap.calls, 1);
    assert_null(cap.req);
    assert_int_equal(cap.result.status, RCLIENT_OK);
    assert_true(cap.result.success);
    assert_int_equal(cap.result.server_id, 0);
    assert_false(cap.result.steering_feedback);
    assert_true(cap.resources_null);
    assert_true(cap.guards_null);
    assert_int_equal(cap.result.resource_count, 0);
    assert_int_equal(cap.result.guard_count, 0);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_empty_request_borrowed_completes_inside_submit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    empty_cap_t cap = {.h = h, .req = SENTINEL};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(
        r_client_check_rate_limit_async_borrowed(h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, &cap, &out),
        RCLIENT_OK);
    assert_null(out);
    assert_int_equal(cap.calls, 1);
    assert_true(cap.result.success);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_empty_request_profile_precedes_callback(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->now = T0 + 17;
    empty_cap_t cap = {.h = h};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, &cap, &out),
                     RCLIENT_OK);
    assert_int_equal(cap.profiles_at_call, 1);
    assert_int_equal(h->profiles, 1);
    assert_int_equal(h->profile.wait_ms, 0);
    assert_int_equal(h->profile.round, 0);
    assert_int_equal(h->profile.phase, R_PHASE_ROUND);
    assert_int_equal(h->profile.status, RCLIENT_OK);
    assert_false(h->profile.selected);
    assert_int_equal(h->profile.server_id, 0);
    fh_teardown(h);
}

/* api.md: an empty request performs no policy validation or DNS and
 * completes even if no r-server is known. */
static void test_empty_request_ignores_invalid_policy_and_missing_servers(void **state) {
    (void)state;
    fake_dns_t dns;
    r_request_policy_t bad = policy_h_over_quota();
    fh_t *h = dns_setup(&dns, FAKE_LATER, &bad); /* the resolver never answers */
    assert_int_equal(r_client_server_count(h->client), 0);
    empty_cap_t cap = {.h = h};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, &cap, &out),
                     RCLIENT_OK);
    assert_null(out);
    assert_int_equal(cap.calls, 1);
    assert_int_equal(cap.result.status, RCLIENT_OK);
    assert_true(cap.result.success);
    assert_int_equal(h->n_sends, 0);
    dns_teardown(h, &dns);
}

static void test_empty_request_starts_no_dns_refresh(void **state) {
    (void)state;
    fake_dns_t dns;
    fh_t *h = dns_setup(&dns, FAKE_AT_ONCE, NULL); /* first discovery finished, found nobody */
    assert_int_equal(dns.srv_calls, 1);
    empty_cap_t cap = {.h = h};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, &cap, &out),
                     RCLIENT_OK);
    assert_int_equal(cap.calls, 1);
    assert_int_equal(dns.srv_calls, 1);
    dns_teardown(h, &dns);
}

static void test_empty_request_recursive_empty_submit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    empty_cap_t cap = {.h = h, .recurse = true};
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, NULL, 0, NULL, 0, NULL, 0, on_empty, &cap, &out),
                     RCLIENT_OK);
    assert_null(out);
    assert_int_equal(cap.inner_rc, RCLIENT_OK);
    assert_null(cap.inner_out);
    assert_int_equal(cap.calls_after_inner_submit, 2); /* inner callback fired inside the inner submit */
    assert_int_equal(cap.calls, 2);
    assert_int_equal(h->profiles, 2);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

/* ---- quotas (api.md "Credentials") ----------------------------------------- */

static void test_guard_buffer_size_at_quota_is_sent(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    guard.buffer_size = 32;
    r_client_req_t *out = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_OK);
    assert_non_null(out);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

static void test_guard_buffer_size_over_quota_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    guard.buffer_size = 33;
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_ERR_PROTOCOL);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_window_at_quota_is_sent(void **state) {
    (void)state;
    fh_t *h = fh_setup_quota(R_AUTH_COOKIE, NULL, 3, QUOTA_WORD_WINDOW_1024);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    res.window_size_ms = 1024;
    r_client_req_t *out = NULL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, NULL, 0, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

static void test_window_over_quota_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup_quota(R_AUTH_COOKIE, NULL, 3, QUOTA_WORD_WINDOW_1024);
    r_resource_request_t res[2];
    r_latency_guard_t guard;
    fh_default_inputs(&res[0], &guard);
    fh_default_inputs(&res[1], &guard);
    res[1].window_size_ms = 1025; /* one resource over quota fails the whole request */
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, res, 2, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_ERR_PROTOCOL);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

/* api.md: quota failures happen before DNS refresh. */
static void test_quota_failure_starts_no_dns_refresh(void **state) {
    (void)state;
    fake_dns_t dns;
    fh_t *h = dns_setup(&dns, FAKE_AT_ONCE, NULL);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    guard.buffer_size = 33;
    r_client_req_t *out = SENTINEL;
    assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, &out),
                     RCLIENT_ERR_PROTOCOL);
    assert_int_equal(dns.srv_calls, 1);
    dns_teardown(h, &dns);
}

/* ---- capacity: one 1200-byte datagram (api.md "Capacity limits") ----------- */

static void test_cookie_39_resources_fit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 39, NULL, 0, &out), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->sends[0].len, 88 + 39 * 28); /* 1180 */
    fh_teardown(h);
}

static void test_cookie_40_resources_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_resources(h, 40, NULL, 0, &out), RCLIENT_ERR_PROTOCOL); /* 1208 */
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_none_40_resources_fit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 40, NULL, 0, &out), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 56 + 40 * 28); /* 1176 */
    fh_teardown(h);
}

static void test_none_41_resources_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_resources(h, 41, NULL, 0, &out), RCLIENT_ERR_PROTOCOL); /* 1204 */
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_aes_39_resources_fit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 39, NULL, 0, &out), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 84 + 39 * 28); /* 1176 */
    fh_teardown(h);
}

static void test_aes_40_resources_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_resources(h, 40, NULL, 0, &out), RCLIENT_ERR_PROTOCOL); /* 1204 */
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_cookie_27_guards_fit(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_guards(h, 27, &out), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 88 + 27 * 40); /* 1168 */
    fh_teardown(h);
}

static void test_cookie_28_guards_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_guards(h, 28, &out), RCLIENT_ERR_PROTOCOL); /* 1208 */
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

/* 1180 + round_up_4(4 + 2 + 14) = 1200 exactly. */
static void test_label_filling_exactly_1200_fits(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 39, "abcdefghijklmn", 14, &out), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 1200);
    fh_teardown(h);
}

/* One more label byte: round_up_4(21) = 24, 1204 bytes. */
static void test_label_one_byte_over_1200_is_protocol(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_resources(h, 39, "abcdefghijklmno", 15, &out), RCLIENT_ERR_PROTOCOL);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_label_len_zero_means_nul_terminated(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 1, "label-abc", 0, &out), RCLIENT_OK);
    const uint8_t *d = h->sends[0].data;
    size_t tlv = 88 + 28;
    assert_int_equal(h->sends[0].len, tlv + 16); /* round_up_4(4 + 2 + 9) */
    assert_int_equal(rl_load_u16(d + tlv), RL_TLV_METRICS_LABEL);
    assert_int_equal(rl_load_u16(d + tlv + 2), 16);
    assert_int_equal(rl_load_u16(d + tlv + 4), 9);
    assert_memory_equal(d + tlv + 6, "label-abc\0", 10); /* label then zero padding */
    fh_teardown(h);
}

static void test_label_explicit_len_takes_prefix(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 1, "label-abc", 5, &out), RCLIENT_OK);
    const uint8_t *d = h->sends[0].data;
    size_t tlv = 88 + 28;
    assert_int_equal(h->sends[0].len, tlv + 12); /* round_up_4(4 + 2 + 5) */
    assert_int_equal(rl_load_u16(d + tlv + 4), 5);
    assert_memory_equal(d + tlv + 6, "label\0", 6);
    fh_teardown(h);
}

static void test_empty_label_sends_no_tlv(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_resources(h, 1, "", 0, &out), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 88 + 28);
    fh_teardown(h);
}

/* ---- policy (api.md "Resource-Request HA Policy") --------------------------- */

static void test_policy_horizon_over_dedup_max_is_config_at_submit(void **state) {
    (void)state;
    r_request_policy_t p = policy_h_over_quota();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3); /* create succeeds */
    assert_non_null(h->client);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    assert_int_equal(h->profiles, 0);
    fh_teardown(h);
}

static void test_policy_horizon_at_dedup_max_is_accepted(void **state) {
    (void)state;
    r_request_policy_t p;
    r_client_default_request_policy(&p);
    p.unit_ms = 100; /* H = 300 = dedup_ttl_ms_max */
    fh_t *h = fh_setup(R_AUTH_NONE, &p, 3);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_default(h, &out), RCLIENT_OK);
    assert_int_equal(rl_load_u32(h->sends[0].data + RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE + 4), 300);
    fh_teardown(h);
}

static void test_policy_preference_over_gap_is_config_at_submit(void **state) {
    (void)state;
    r_request_policy_t p = policy_p_over_b();
    fh_t *h = fh_setup(R_AUTH_COOKIE, &p, 3);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_CONFIG);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_invalid_policy_starts_no_dns_refresh(void **state) {
    (void)state;
    fake_dns_t dns;
    r_request_policy_t p = policy_p_over_b();
    fh_t *h = dns_setup(&dns, FAKE_AT_ONCE, &p);
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_CONFIG);
    assert_int_equal(dns.srv_calls, 1);
    dns_teardown(h, &dns);
}

/* ---- DNS, random source, send failures -------------------------------------- */

static void test_no_servers_is_dns_and_forces_refresh(void **state) {
    (void)state;
    fake_dns_t dns;
    fh_t *h = dns_setup(&dns, FAKE_AT_ONCE, NULL);
    assert_int_equal(dns.srv_calls, 1); /* first discovery at create, found nobody */
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_DNS);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(dns.srv_calls, 2);
    assert_string_equal(dns.srv_name, "_ratelimitly._udp.c-72623859790382856.p0.ratelimitly.com");
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    assert_int_equal(h->profiles, 0);
    dns_teardown(h, &dns);
}

static void test_random_failure_is_auth_and_sends_nothing(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->rng_fail = true;
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_AUTH);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

static void test_random_failure_aes_is_auth_and_sends_nothing(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    h->rng_fail = true;
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_AUTH);
    assert_int_equal(h->n_sends, 0);
    h->rng_fail = false; /* the source recovers: the next submit works */
    assert_int_equal(submit_default(h, &out), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

/* r-client.md 9.3 "Delivery: make a best-effort attempt to deliver the same
 * logical operation to every server in the request's membership snapshot":
 * a send refused towards B does not keep the request from C, and the submit
 * succeeds (docs/spec-notes.md "Send failures", which ranks r-client.md 9.3
 * above api.md's abort). The refused member is logged with its server_id. */
static void test_send_failure_to_one_member_still_sends_to_the_others(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->fail_send_at = 1; /* the send to B */
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_OK);
    assert_ptr_not_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(h->sends[0].server, A);
    assert_int_equal(h->sends[1].server, C);
    assert_int_equal(h->warn_logs, 1);
    char want[64];
    snprintf(want, sizeof want, "server_id %llu", (unsigned long long)h->server_ids[B]);
    assert_non_null(strstr(h->last_warn, want));
    assert_int_equal(h->completions, 0);
    fh_teardown(h);
}

/* api.md "Resource Requests": first-transmission RCLIENT_ERR_IO surfaces from
 * the submit; with best-effort delivery that is when no member at all could
 * be sent to (project: docs/spec-notes.md "Send failures"). */
static void test_send_failure_to_every_member_is_io(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->fail_servers = 7u; /* A, B and C */
    r_client_req_t *out = SENTINEL;
    assert_int_equal(submit_default(h, &out), RCLIENT_ERR_IO);
    assert_ptr_equal(out, SENTINEL);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->warn_logs, 3);
    assert_int_equal(h->completions, 0);
    assert_int_equal(h->profiles, 0);
    fh_teardown(h);
}

static void test_unique_id_has_uuidv4_bits(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->rng_counter = 0xffffffffffffffffull; /* every random byte 0xff: the fixed bits must show */
    r_client_req_t *out = NULL;
    assert_int_equal(submit_default(h, &out), RCLIENT_OK);
    const uint8_t *id = h->sends[0].data + RL_TENANT_OFF_UNIQUE_ID;
    /* bytes 0..7 drawn as 0xff, 8..15 as 0x00 (the counter wraps) */
    assert_int_equal(id[5], 0xff);
    assert_int_equal(id[6], 0x4f); /* version nibble 4 */
    assert_int_equal(id[7], 0xff);
    assert_int_equal(id[8], 0x80); /* variant bits 10 */
    assert_int_equal(id[9], 0x00);
    fh_teardown(h);
}

static void test_each_request_gets_distinct_unique_id(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *r1 = NULL, *r2 = NULL;
    assert_int_equal(submit_default(h, &r1), RCLIENT_OK);
    assert_int_equal(submit_default(h, &r2), RCLIENT_OK);
    assert_ptr_not_equal(r1, r2);
    assert_int_equal(h->n_sends, 6);
    assert_memory_not_equal(h->sends[0].data + RL_TENANT_OFF_UNIQUE_ID, h->sends[3].data + RL_TENANT_OFF_UNIQUE_ID,
                            16);
    assert_memory_equal(h->sends[3].data + RL_TENANT_OFF_UNIQUE_ID, h->sends[5].data + RL_TENANT_OFF_UNIQUE_ID, 16);
    fh_teardown(h);
}

/* Every AES request is sealed under a nonce of its own (wire_protocol.md
 * "AES-256-GCM Normative Framing": a nonce MUST be unique per key): of two
 * requests to three servers each, the copies of one request repeat its nonce
 * (one sealed datagram) and the two requests' nonces differ. */
static void test_each_aes_request_gets_distinct_nonce(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_client_req_t *r1 = NULL, *r2 = NULL;
    assert_int_equal(submit_default(h, &r1), RCLIENT_OK);
    assert_int_equal(submit_default(h, &r2), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    const size_t nonce_off = RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE;
    assert_memory_equal(h->sends[0].data + nonce_off, h->sends[2].data + nonce_off, RL_AES_NONCE_LEN);
    assert_memory_not_equal(h->sends[0].data + nonce_off, h->sends[3].data + nonce_off, RL_AES_NONCE_LEN);
    fh_teardown(h);
}

/* ---- r_client_create (api.md "Configuration") ------------------------------- */

static int create_with(fh_t *h, const r_client_config_t *cfg, const r_io_ops_t *io,
                       const r_resolver_ops_t *resolver) {
    r_client_t *c = (r_client_t *)(uintptr_t)0x5a5a;
    int rc = r_client_create(cfg, io, resolver, &c);
    if (rc == RCLIENT_OK) {
        h->client = c;
    } else {
        assert_ptr_equal(c, (r_client_t *)(uintptr_t)0x5a5a); /* untouched on error */
    }
    return rc;
}

static void test_create_null_arguments_are_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    r_client_t *c = NULL;
    assert_int_equal(r_client_create(NULL, &io, NULL, &c), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_create(&cfg, NULL, NULL, &c), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_create(&cfg, &io, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_null(c);
    fh_teardown(h);
}

static void test_create_without_udp_send_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    io.udp_send = NULL;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_without_now_ms_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    io.now_ms = NULL;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_with_optional_hooks_absent_is_ok(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = {.ctx = h, .udp_send = fh_udp_send, .now_ms = fh_now}; /* no rebind, log or random */
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_default(h, &out), RCLIENT_OK); /* RAND_bytes unique_id */
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

static void test_create_invalid_credential_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    char bad[sizeof h->key];
    memcpy(bad, h->key, sizeof bad);
    size_t n = strlen(bad);
    bad[n - 1] = bad[n - 1] == 'q' ? 'p' : 'q'; /* checksum no longer matches */
    cfg.tenant.auth.secret = bad;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    cfg.tenant.auth.secret = NULL;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_credential_with_explicit_length(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    char buf[sizeof h->key + 8];
    size_t n = strlen(h->key);
    memcpy(buf, h->key, n);
    memcpy(buf + n, "garbage", 8); /* not NUL-terminated at n */
    cfg.tenant.auth.secret = buf;
    cfg.tenant.auth.secret_len = n;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    fh_teardown(h);
}

static void test_create_key_id_assertion_mismatch_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    cfg.tenant.key_id = 72623859790382857ull;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_key_id_assertion_match_is_ok(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    cfg.tenant.key_id = 72623859790382856ull;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    fh_teardown(h);
}

static void test_create_auth_type_assertion_mismatch_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    cfg.tenant.auth.type = R_AUTH_AES;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    cfg.tenant.auth.type = R_AUTH_NONE;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_auth_type_assertion_match_is_ok(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    cfg.tenant.auth.type = R_AUTH_COOKIE;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    fh_teardown(h);
}

static void test_create_dns_mode_without_resolver_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 0);
    r_io_ops_t io = fh_io(h);
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_create_explicit_endpoint_port_zero_is_config(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    h->endpoints[1].addr.port = 0;
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

/* The credential text is copied: the response still authenticates after the
 * caller's buffer is wiped and freed. */
static void test_create_copies_credential_text(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    size_t n = strlen(h->key) + 1;
    char *key = malloc(n);
    assert_non_null(key);
    memcpy(key, h->key, n);
    cfg.tenant.auth.secret = key;
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    memset(key, 'q', n - 1);
    free(key);
    r_client_req_t *out = NULL;
    assert_int_equal(submit_default(h, &out), RCLIENT_OK);
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_true(h->success);
    fh_teardown(h);
}

static void test_create_copies_dns_name(void **state) {
    (void)state;
    fake_dns_t dns;
    memset(&dns, 0, sizeof dns);
    dns.srv_mode = FAKE_AT_ONCE;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_client_config_t cfg = fh_config(h, NULL, 0);
    r_io_ops_t io = fh_io(h);
    r_resolver_ops_t ro = fake_dns_ops(&dns);
    char *name = malloc(32);
    assert_non_null(name);
    memcpy(name, "rl.example.test", 16);
    cfg.tenant.dns_name = name;
    assert_int_equal(create_with(h, &cfg, &io, &ro), RCLIENT_OK);
    memcpy(name, "xx.xxxxxxx.xxxx", 16);
    free(name);
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    assert_string_equal(dns.srv_name, "_ratelimitly._udp.rl.example.test");
    dns_teardown(h, &dns);
}

static void test_create_copies_policy(void **state) {
    (void)state;
    fh_t *h = fh_new(R_AUTH_COOKIE, QUOTA_WORD);
    r_request_policy_t *p = malloc(sizeof *p);
    assert_non_null(p);
    r_client_default_request_policy(p);
    p->unit_ms = 30;
    r_client_config_t cfg = fh_config(h, p, 3);
    r_io_ops_t io = fh_io(h);
    assert_int_equal(create_with(h, &cfg, &io, NULL), RCLIENT_OK);
    p->unit_ms = 0; /* would be invalid if the client still read it */
    free(p);
    r_client_req_t *req = NULL;
    assert_int_equal(submit_default(h, &req), RCLIENT_OK);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), T0 + 30);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_client_is_config),
        cmocka_unit_test(test_null_callback_is_config),
        cmocka_unit_test(test_null_callback_on_empty_request_is_config),
        cmocka_unit_test(test_null_out_req_is_config),
        cmocka_unit_test(test_null_resources_with_count_is_config),
        cmocka_unit_test(test_null_guards_with_count_is_config),
        cmocka_unit_test(test_guard_only_request_is_sent),
        cmocka_unit_test(test_empty_request_completes_inside_submit),
        cmocka_unit_test(test_empty_request_borrowed_completes_inside_submit),
        cmocka_unit_test(test_empty_request_profile_precedes_callback),
        cmocka_unit_test(test_empty_request_ignores_invalid_policy_and_missing_servers),
        cmocka_unit_test(test_empty_request_starts_no_dns_refresh),
        cmocka_unit_test(test_empty_request_recursive_empty_submit),
        cmocka_unit_test(test_guard_buffer_size_at_quota_is_sent),
        cmocka_unit_test(test_guard_buffer_size_over_quota_is_protocol),
        cmocka_unit_test(test_window_at_quota_is_sent),
        cmocka_unit_test(test_window_over_quota_is_protocol),
        cmocka_unit_test(test_quota_failure_starts_no_dns_refresh),
        cmocka_unit_test(test_cookie_39_resources_fit),
        cmocka_unit_test(test_cookie_40_resources_is_protocol),
        cmocka_unit_test(test_none_40_resources_fit),
        cmocka_unit_test(test_none_41_resources_is_protocol),
        cmocka_unit_test(test_aes_39_resources_fit),
        cmocka_unit_test(test_aes_40_resources_is_protocol),
        cmocka_unit_test(test_cookie_27_guards_fit),
        cmocka_unit_test(test_cookie_28_guards_is_protocol),
        cmocka_unit_test(test_label_filling_exactly_1200_fits),
        cmocka_unit_test(test_label_one_byte_over_1200_is_protocol),
        cmocka_unit_test(test_label_len_zero_means_nul_terminated),
        cmocka_unit_test(test_label_explicit_len_takes_prefix),
        cmocka_unit_test(test_empty_label_sends_no_tlv),
        cmocka_unit_test(test_policy_horizon_over_dedup_max_is_config_at_submit),
        cmocka_unit_test(test_policy_horizon_at_dedup_max_is_accepted),
        cmocka_unit_test(test_policy_preference_over_gap_is_config_at_submit),
        cmocka_unit_test(test_invalid_policy_starts_no_dns_refresh),
        cmocka_unit_test(test_no_servers_is_dns_and_forces_refresh),
        cmocka_unit_test(test_random_failure_is_auth_and_sends_nothing),
        cmocka_unit_test(test_random_failure_aes_is_auth_and_sends_nothing),
        cmocka_unit_test(test_send_failure_to_one_member_still_sends_to_the_others),
        cmocka_unit_test(test_send_failure_to_every_member_is_io),
        cmocka_unit_test(test_unique_id_has_uuidv4_bits),
        cmocka_unit_test(test_each_request_gets_distinct_unique_id),
        cmocka_unit_test(test_each_aes_request_gets_distinct_nonce),
        cmocka_unit_test(test_create_null_arguments_are_config),
        cmocka_unit_test(test_create_without_udp_send_is_config),
        cmocka_unit_test(test_create_without_now_ms_is_config),
        cmocka_unit_test(test_create_with_optional_hooks_absent_is_ok),
        cmocka_unit_test(test_create_invalid_credential_is_config),
        cmocka_unit_test(test_create_credential_with_explicit_length),
        cmocka_unit_test(test_create_key_id_assertion_mismatch_is_config),
        cmocka_unit_test(test_create_key_id_assertion_match_is_ok),
        cmocka_unit_test(test_create_auth_type_assertion_mismatch_is_config),
        cmocka_unit_test(test_create_auth_type_assertion_match_is_ok),
        cmocka_unit_test(test_create_dns_mode_without_resolver_is_config),
        cmocka_unit_test(test_create_explicit_endpoint_port_zero_is_config),
        cmocka_unit_test(test_create_copies_credential_text),
        cmocka_unit_test(test_create_copies_dns_name),
        cmocka_unit_test(test_create_copies_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
