/* SPDX-License-Identifier: MIT */
/* Documented truths re-checked after issue 23 item 5 (docs/traces.md):
 * the drift of a clock is floored to whole ms, also when negative ("server
 * clock = run clock + skew + floor(run_us x ppm / 10^9) ms"); `disagreed`
 * counts decided requests only ("decided requests for which two different
 * servers answered differently"; decided = completed with a selected server
 * response); and which fault-free configurations give exactly 0 false allows
 * and denies ("Oracle"): one server, or every decision from the oldest server
 * (it answers before U x P(0)); with several servers and fastest_valid the
 * servers see requests in different orders and the counts are not 0. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_trace.h"
#include "sim_world.h"
#include "sim_world_int.h"


/* floor(run_us x ppm / 10^9), values worked by hand. */
static void test_drift_is_floored(void **state) {
    (void)state;
    assert_int_equal(sim_drift_ms(0, -5), 0);
    assert_int_equal(sim_drift_ms(1, -1), -1);              /* -1e-9 ms -> -1 */
    assert_int_equal(sim_drift_ms(1000000, -1000), -1);     /* exactly -1 */
    assert_int_equal(sim_drift_ms(1500000, -1000), -2);     /* -1.5 -> -2 (truncation gave -1) */
    assert_int_equal(sim_drift_ms(1500000, 1000), 1);       /* 1.5 -> 1 */
    assert_int_equal(sim_drift_ms(999999, 1000), 0);        /* 0.999999 -> 0 */
    assert_int_equal(sim_drift_ms(3600000000ull, -100000), -360000);
}

/* A request A allowed and B denied: disagreed when decided, not when it timed out. */
static void forget_with_status(int status, uint64_t *disagreed) {
    sim_world_t *w = calloc(1, sizeof *w);
    assert_non_null(w);
    sim_req_t r;
    memset(&r, 0, sizeof r);
    r.decided = true;
    r.status = status;
    r.client_allowed = status == RCLIENT_OK;
    r.n_touch = 2;
    r.touch[0] = (sim_touch_t){0, SIM_TOUCH_ANSWERED | SIM_TOUCH_ALLOWED};
    r.touch[1] = (sim_touch_t){1, SIM_TOUCH_ANSWERED | SIM_TOUCH_DENIED};
    sim_metrics_forget(w, &r);
    *disagreed = w->m.disagreed;
    free(w);
}

static void test_disagreed_counts_decided_requests_only(void **state) {
    (void)state;
    uint64_t d = 99;
    forget_with_status(RCLIENT_ERR_TIMEOUT, &d);
    assert_int_equal(d, 0);
    forget_with_status(RCLIENT_OK, &d);
    assert_int_equal(d, 1);
}

/* Fault-free: two clients of one key at twice the limit, one-way latency
 * 100..3100 us (well under U = 20 ms), SERVERS and POLICY replaced. */
#define TRACE                                                                                                       \
    "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 300,"                                                 \
    " \"defaults\": {\"server\": {\"processing_jitter_us\": 200}, \"client\": {\"auth\": \"cookie\","            \
    "   \"use_dns\": false, \"policy\": %s, \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 200},"          \
    "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"window_size_ms\": 100, \"rate_limit\": 20}]}]}},"      \
    " \"servers\": [%s], \"clients\": [{\"name\": \"c1\"}, {\"name\": \"c2\"}],"                                 \
    " \"links\": {\"default\": {\"latency\": {\"kind\": \"uniform\", \"base_us\": 100, \"spread_us\": 3000}}}}"

#define SEEDS 60u

static uint64_t wrong_over_seeds(const char *policy, const char *servers, uint64_t *decided) {
    char text[2048], err[300];
    snprintf(text, sizeof text, TRACE, policy, servers);
    sim_config_t cfg;
    if (sim_trace_parse(text, strlen(text), "truths.json", &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    uint64_t wrong = 0;
    *decided = 0;
    for (unsigned seed = 1; seed <= SEEDS; seed++) {
        sim_result_t r;
        sim_run_opts_t o = {.events = NULL};
        if (sim_run(&cfg, seed, &o, &r, err, sizeof err) != 0) fail_msg("%s", err);
        assert_int_equal(r.metrics.decided, r.metrics.submitted);
        wrong += r.metrics.false_allows + r.metrics.false_denies;
        *decided += r.metrics.decided;
        sim_result_free(&r);
    }
    sim_config_free(&cfg);
    return wrong;
}

#define THREE "{\"name\": \"A\"}, {\"name\": \"B\"}, {\"name\": \"C\"}"

static void test_exactly_zero_when_one_server_decides(void **state) {
    (void)state;
    uint64_t decided;
    assert_int_equal(wrong_over_seeds("\"fastest_valid\"", "{\"name\": \"A\"}", &decided), 0);
    assert_true(decided > 50u * SEEDS);
    assert_int_equal(wrong_over_seeds("\"default\"", THREE, &decided), 0);
    assert_int_equal(wrong_over_seeds("\"strict_oldest\"", THREE, &decided), 0);
    assert_int_equal(wrong_over_seeds("\"oldest_preferred\"", THREE, &decided), 0);
}

static void test_not_zero_when_the_fastest_decides(void **state) {
    (void)state;
    uint64_t decided;
    uint64_t wrong = wrong_over_seeds("\"fastest_valid\"", THREE, &decided);
    assert_true(decided > 50u * SEEDS);
    if (wrong == 0) fail_msg("fastest_valid on three servers: 0 false allows and denies over %u seeds", SEEDS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drift_is_floored),
        cmocka_unit_test(test_disagreed_counts_decided_requests_only),
        cmocka_unit_test(test_exactly_zero_when_one_server_decides),
        cmocka_unit_test(test_not_zero_when_the_fastest_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
