/* SPDX-License-Identifier: MIT */
/* test_server_rate.c - reference server: fixed-window rate model, guards,
 * all-or-nothing decisions, response encoding, steering and labels
 * (wire_protocol.md "Resource Blocks", "Guard Blocks", "Response Semantics",
 * "rate_response PDU"). Every test runs once per auth mode. */
#include "sim_server_test_util.h"

static r_auth_type_t MODE_NONE = R_AUTH_NONE;
static r_auth_type_t MODE_COOKIE = R_AUTH_COOKIE;
static r_auth_type_t MODE_AES = R_AUTH_AES;

static int setup(void **state) {
    r_api_key_quotas_t q = tu_default_quotas();
    sim_server_params_t p = tu_params();
    *state = tu_fix_new(*(r_auth_type_t *)*state, &q, &p);
    return 0;
}

static int teardown(void **state) {
    tu_fix_free(*state);
    return 0;
}

static void test_allow_fills_every_field(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("api", 1000, 10, 3);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0 + 5, 1, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    uint64_t sid = 0;
    assert_int_equal(r_client_encode_server_id(TU_START_S, TU_LISTENER, TU_NODE, &sid), RCLIENT_OK);
    assert_int_equal(sim_server_id(f->s), sid);
    assert_int_equal(p.rr.server_id, sid);
    assert_int_equal(p.rr.time_stamp_ms, TU_T0 + 5);
    assert_true(p.rr.keep_port);
    assert_true(p.rr.success);
    assert_int_equal(p.rr.resource_count, 1);
    rl_resource_view_t v = tu_res_at(&p, 0);
    assert_memory_equal(v.bucket_id, r.bucket_id, 16);
    assert_int_equal(v.window_size_ms, 1000);
    assert_int_equal(v.tokens_deficit, 0);
    assert_int_equal(v.actual_rate, 3);
    assert_int_equal(o.result.key_id, 0x1234u);
    assert_true(o.result.is_request);
    assert_true(o.result.allowed);
    assert_int_equal(o.result.tokens_granted, 3);
}

static void test_deny_exact_deficit_and_actual_rate(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("api", 1000, 5, 3);
    uint16_t deficit = 99;
    assert_int_equal(tu_take(f, TU_T0, 1, &r, &deficit), 3);
    assert_int_equal(deficit, 0);
    r.tokens_requested = 4;
    assert_int_equal(tu_take(f, TU_T0 + 1, 2, &r, &deficit), 3); /* 2 left: 2 short, nothing taken */
    assert_int_equal(deficit, 2);
    r.tokens_requested = 2;
    assert_int_equal(tu_take(f, TU_T0 + 2, 3, &r, &deficit), 5);
    assert_int_equal(deficit, 0);
    r.tokens_requested = 1;
    assert_int_equal(tu_take(f, TU_T0 + 3, 4, &r, &deficit), 5);
    assert_int_equal(deficit, 1);
}

static void test_window_boundary_at_multiple_of_window(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("api", 1000, 2, 2);
    uint16_t deficit = 0;
    /* [T0+1000, T0+2000) is one window: its last millisecond, then the next. */
    assert_int_equal(tu_take(f, TU_T0 + 1999, 1, &r, &deficit), 2);
    r.tokens_requested = 1;
    assert_int_equal(tu_take(f, TU_T0 + 1999, 2, &r, &deficit), 2);
    assert_int_equal(deficit, 1);
    assert_int_equal(tu_take(f, TU_T0 + 2000, 3, &r, &deficit), 1);
    assert_int_equal(deficit, 0);
}

static void test_resource_with_room_reports_zero_deficit(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r[2] = {tu_resource("roomy", 1000, 10, 2), tu_resource("tight", 1000, 1, 2)};
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, r, 2, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.success);
    assert_false(o.result.allowed);
    assert_int_equal(o.result.tokens_granted, 0);
    assert_int_equal(tu_res_at(&p, 0).tokens_deficit, 0);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 0);
    assert_int_equal(tu_res_at(&p, 1).tokens_deficit, 1);
    assert_int_equal(tu_res_at(&p, 1).actual_rate, 0);
    /* Atomicity: "roomy" gave nothing to the denied request. */
    r[0].tokens_requested = 10;
    assert_int_equal(tu_take(f, TU_T0 + 1, 2, &r[0], NULL), 10);
}

static void test_allowed_multi_resource_sums_tokens(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r[2] = {tu_resource("a", 1000, 10, 2), tu_resource("b", 500, 10, 5)};
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, r, 2, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.success);
    assert_int_equal(o.result.tokens_granted, 7);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 2);
    assert_int_equal(tu_res_at(&p, 1).actual_rate, 5);
}

static void test_guard_equal_to_threshold_denies_and_consumes_nothing(void **state) {
    tu_fix_t *f = *state;
    r_latency_guard_t g = tu_guard("db", 50, 10000, 100, 32, 1);
    r_service_latency_report_t s = tu_sample(&g, 50);
    assert_int_equal(tu_send_report(f, TU_T0, 100, &s, 1), SIM_SRV_REPORT);
    r_resource_request_t r = tu_resource("api", 1000, 3, 3);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0 + 1, 1, &g, 1, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.success);
    assert_false(o.result.allowed);
    rl_guard_view_t gv = tu_guard_at(&p, 0);
    assert_int_equal(gv.current_latency, 50);
    assert_int_equal(gv.latency_threshold, 50);
    assert_false(gv.passed);
    assert_int_equal(tu_res_at(&p, 0).tokens_deficit, 0); /* the bucket had room */
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 0);
    g.threshold_ms = 51; /* the threshold is not part of the tracker identity */
    assert_int_equal(tu_send(f, TU_T0 + 2, 2, &g, 1, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.success);
    assert_int_equal(tu_guard_at(&p, 0).current_latency, 50);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 3); /* all 3 were still there */
}

/* r-client.md 5.2: two guards on one tracker with their own thresholds. The
 * tracker's current latency is 50: the guard asking for < 100 passes, the one
 * asking for < 10 fails, so the request is denied and consumes nothing
 * (wire_protocol.md "Response Semantics"); each block keeps its own threshold
 * (the response is the request modified in place). */
static void test_two_guards_on_one_tracker_each_with_its_threshold(void **state) {
    tu_fix_t *f = *state;
    r_latency_guard_t g[2] = {tu_guard("db", 100, 10000, 100, 32, 1), tu_guard("db", 10, 10000, 100, 32, 1)};
    r_service_latency_report_t s = tu_sample(&g[0], 50);
    assert_int_equal(tu_send_report(f, TU_T0, 100, &s, 1), SIM_SRV_REPORT);
    r_resource_request_t r = tu_resource("api", 1000, 3, 1);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0 + 1, 1, g, 2, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_false(o.result.allowed);
    assert_false(p.rr.success);
    assert_int_equal(tu_guard_at(&p, 0).current_latency, 50);
    assert_int_equal(tu_guard_at(&p, 0).latency_threshold, 100);
    assert_int_equal(tu_guard_at(&p, 1).current_latency, 50);
    assert_int_equal(tu_guard_at(&p, 1).latency_threshold, 10);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 0); /* denied: nothing consumed */
    g[1].threshold_ms = 51;
    assert_int_equal(tu_send(f, TU_T0 + 2, 2, g, 2, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_true(o.result.allowed);
    assert_true(p.rr.success);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 1);
}

static void test_guard_without_samples_reads_zero(void **state) {
    tu_fix_t *f = *state;
    r_latency_guard_t g = tu_guard("cold", 1, 10000, 100, 32, 0);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0, 1, &g, 1, NULL, 0, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.success);
    assert_int_equal(tu_guard_at(&p, 0).current_latency, 0);
    g.threshold_ms = 0; /* 0 >= 0: a zero threshold always denies */
    assert_int_equal(tu_send(f, TU_T0, 2, &g, 1, NULL, 0, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.success);
}

static void test_same_bucket_twice_in_one_request(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r[2] = {tu_resource("dup", 1000, 5, 3), tu_resource("dup", 1000, 5, 3)};
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, r, 2, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.success);
    assert_int_equal(tu_res_at(&p, 0).tokens_deficit, 0);
    assert_int_equal(tu_res_at(&p, 1).tokens_deficit, 1);
    assert_int_equal(tu_res_at(&p, 1).actual_rate, 0);
    r[0].tokens_requested = 2;
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, r, 2, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.success);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 5);
    assert_int_equal(tu_res_at(&p, 1).actual_rate, 5);
    assert_int_equal(o.result.tokens_granted, 5);
}

static void test_rate_limit_zero_denies_everything(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("closed", 1000, 0, 7);
    uint16_t deficit = 0;
    assert_int_equal(tu_take(f, TU_T0, 1, &r, &deficit), 0);
    assert_int_equal(deficit, 7);
}

static void test_zero_tokens_on_full_bucket_allowed(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("full", 1000, 1, 1);
    assert_int_equal(tu_take(f, TU_T0, 1, &r, NULL), 1);
    r.tokens_requested = 0;
    uint16_t deficit = 9;
    assert_int_equal(tu_take(f, TU_T0, 2, &r, &deficit), 1);
    assert_int_equal(deficit, 0);
}

static void test_steering_modes(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("api", 1000, 100, 1);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.keep_port);
    sim_server_set_steering(f->s, SIM_STEER_CHANGE, 0.0);
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.keep_port);
    sim_server_set_steering(f->s, SIM_STEER_RANDOM, 1.0);
    assert_int_equal(tu_send(f, TU_T0, 3, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_false(p.rr.keep_port);
    sim_server_set_steering(f->s, SIM_STEER_RANDOM, 0.0);
    assert_int_equal(tu_send(f, TU_T0, 4, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
    assert_true(p.rr.keep_port);
}

static void test_steering_random_mixes(void **state) {
    tu_fix_t *f = *state;
    r_resource_request_t r = tu_resource("api", 1000, 1000, 1);
    sim_server_set_steering(f->s, SIM_STEER_RANDOM, 0.5);
    unsigned changes = 0;
    for (uint32_t n = 0; n < 200; n++) {
        tu_out_t o;
        tu_parsed_t p;
        assert_int_equal(tu_send(f, TU_T0, n + 1, NULL, 0, &r, 1, &o, &p), SIM_SRV_ANSWERED);
        changes += p.rr.keep_port ? 0u : 1u;
    }
    assert_in_range(changes, 60, 140);
}

#define RATE_TEST(fn, mode) cmocka_unit_test_prestate_setup_teardown(fn, setup, teardown, &mode)
#define ALL_MODES(fn) RATE_TEST(fn, MODE_NONE), RATE_TEST(fn, MODE_COOKIE), RATE_TEST(fn, MODE_AES)

int main(void) {
    const struct CMUnitTest tests[] = {
        ALL_MODES(test_allow_fills_every_field),
        ALL_MODES(test_deny_exact_deficit_and_actual_rate),
        ALL_MODES(test_window_boundary_at_multiple_of_window),
        ALL_MODES(test_resource_with_room_reports_zero_deficit),
        ALL_MODES(test_allowed_multi_resource_sums_tokens),
        ALL_MODES(test_guard_equal_to_threshold_denies_and_consumes_nothing),
        ALL_MODES(test_two_guards_on_one_tracker_each_with_its_threshold),
        ALL_MODES(test_guard_without_samples_reads_zero),
        ALL_MODES(test_same_bucket_twice_in_one_request),
        ALL_MODES(test_rate_limit_zero_denies_everything),
        ALL_MODES(test_zero_tokens_on_full_bucket_allowed),
        ALL_MODES(test_steering_modes),
        RATE_TEST(test_steering_random_mixes, MODE_AES),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
