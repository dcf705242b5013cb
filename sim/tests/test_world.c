/* SPDX-License-Identifier: MIT */
/* The simulated world end to end (sim_world.c, sim_host.c, sim_nodes.c,
 * sim_metrics.c): determinism, seeds, expectations, metrics on small traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_trace.h"
#include "sim_world.h"

/* Two servers, one client, five scripted requests, healthy links. */
static const char HEALTHY[] =
    "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"t\", \"seed\": 5, \"duration_ms\": 200,"
    " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
    " \"clients\": [{\"name\": \"c1\", \"auth\": \"cookie\", \"use_dns\": false, \"policy\": \"default\","
    "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 10, 20, 30, 40]},"
    "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"window_size_ms\": 1000, \"rate_limit\": 3}]}]}],"
    " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 0, \"server\": \"A\"},"
    "   {\"kind\": \"metric\", \"metric\": \"allowed\", \"op\": \"==\", \"value\": 3}]}";

static void load(const char *text, sim_config_t *cfg) {
    char err[300];
    int rc = sim_trace_parse(text, strlen(text), "inline.json", cfg, err, sizeof err);
    if (rc != 0) fail_msg("trace did not load: %s", err);
}

static void run(const sim_config_t *cfg, uint64_t seed, sim_result_t *r) {
    char err[300];
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(cfg, seed, &o, r, err, sizeof err) != 0) fail_msg("run failed: %s", err);
}

static void test_same_seed_same_digest_and_metrics(void **state) {
    (void)state;
    sim_config_t cfg;
    load(HEALTHY, &cfg);
    sim_result_t a, b;
    run(&cfg, 5, &a);
    run(&cfg, 5, &b);
    assert_string_equal(a.digest, b.digest);
    assert_int_equal(a.events, b.events);
    assert_memory_equal(&a.metrics, &b.metrics, sizeof a.metrics);
    sim_result_free(&a);
    sim_result_free(&b);
    sim_config_free(&cfg);
}

static void test_different_seed_different_digest(void **state) {
    (void)state;
    sim_config_t cfg;
    load(HEALTHY, &cfg);
    sim_result_t a, b;
    run(&cfg, 5, &a);
    run(&cfg, 6, &b);
    assert_string_not_equal(a.digest, b.digest); /* unique_ids and link draws differ */
    sim_result_free(&a);
    sim_result_free(&b);
    sim_config_free(&cfg);
}

static void test_healthy_run_metrics(void **state) {
    (void)state;
    sim_config_t cfg;
    load(HEALTHY, &cfg);
    sim_result_t r;
    run(&cfg, 5, &r);
    assert_int_equal(r.metrics.submitted, 5);
    assert_int_equal(r.metrics.decided, 5);
    assert_int_equal(r.metrics.allowed, 3); /* rate_limit 3 per 1000 ms window */
    assert_int_equal(r.metrics.denied, 2);
    assert_int_equal(r.metrics.false_allows, 0);
    assert_int_equal(r.metrics.false_denies, 0);
    assert_int_equal(r.metrics.overconsumed_tokens, 0);
    assert_int_equal(r.metrics.replays_sent, 0);
    assert_int_equal(r.metrics.datagrams_sent, 10 + r.metrics.completion_sends);
    assert_true(r.metrics.availability == 1.0);
    assert_int_equal(r.n_expects, 2);
    assert_int_equal(r.expects_failed, 0);
    assert_true(r.expects[0].passed);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

static void test_failed_expectation_is_reported(void **state) {
    (void)state;
    char text[sizeof HEALTHY + 16];
    snprintf(text, sizeof text, "%s", HEALTHY);
    char *p = strstr(text, "\"server\": \"A\"");
    assert_non_null(p);
    p[11] = 'B'; /* expect B: the oldest, A, answers first and is selected */
    sim_config_t cfg;
    load(text, &cfg);
    sim_result_t r;
    run(&cfg, 5, &r);
    assert_int_equal(r.expects_failed, 1);
    assert_false(r.expects[0].passed);
    assert_string_equal(r.expects[0].message, "c1 request #0 selected B: got A (RCLIENT_OK)");
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* The oldest server silent (partitioned): B is selected at the preference
 * deadline, 20 ms after submit, and A gets completion deliveries. */
static void test_partitioned_oldest_selects_younger_at_deadline(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"p\", \"seed\": 1, \"duration_ms\": 100,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [{\"name\": \"c1\", \"auth\": \"none\", \"use_dns\": false, \"policy\": \"default\","
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"window_size_ms\": 1000, \"rate_limit\": 3}]}]}],"
        " \"faults\": [{\"at_ms\": 0, \"kind\": \"partition\", \"target\": \"A\", \"dir\": \"both\", \"on\": true}],"
        " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 0, \"server\": \"B\"}]}";
    sim_config_t cfg;
    load(T, &cfg);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.expects_failed, 0);
    assert_true(r.metrics.latency_max_ms >= 20.0 && r.metrics.latency_max_ms < 21.0);
    assert_int_equal(r.metrics.completion_sends, 1);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* Two tenants share a bucket name: buckets are tenant-local, so neither is
 * over its limit (3 each). */
static void test_overconsumption_is_per_tenant(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"t2\", \"seed\": 1, \"duration_ms\": 200,"
        " \"servers\": [{\"name\": \"A\"}],"
        " \"clients\": [{\"name\": \"c1\", \"key_id\": 1, \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 1, 2]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]},"
        "  {\"name\": \"c2\", \"key_id\": 2, \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 1, 2]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]}]}";
    sim_config_t cfg;
    load(T, &cfg);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.metrics.allowed, 6);
    assert_int_equal(r.metrics.overconsumed_tokens, 0);
    assert_int_equal(r.metrics.false_allows, 0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* Requests no server processes (stale: the client's clock is 5 s ahead)
 * consume nothing in the oracle either. */
static void test_oracle_ignores_requests_no_server_processed(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"t3\", \"seed\": 1, \"duration_ms\": 300,"
        " \"servers\": [{\"name\": \"A\", \"freshness_ms\": 1000}],"
        " \"clients\": [{\"name\": \"c1\", \"use_dns\": false, \"clock_skew_ms\": 5000,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 1, 2]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]},"
        "  {\"name\": \"c2\", \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [100, 101, 102]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]}]}";
    sim_config_t cfg;
    load(T, &cfg);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.metrics.timeouts, 3);
    assert_int_equal(r.metrics.allowed, 3);
    assert_int_equal(r.metrics.false_allows, 0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* Beyond 64 servers: 130 servers, and the two a request touches are the last
 * two (indexes 128 and 129). c2 (same tenant, only s129) exhausts s129's
 * bucket first, so each of c1's two requests is allowed by s128 and denied by
 * s129: disagreed and contradictory count both. */
static const char *wide_trace(const char *extra) {
    static char T[16384];
    size_t n = (size_t)snprintf(T, sizeof T,
                                "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"wide\", \"seed\": 1,"
                                " \"duration_ms\": 300, \"servers\": [");
    for (int i = 0; i < 130; i++) {
        n += (size_t)snprintf(T + n, sizeof T - n,
                              "%s{\"name\": \"s%03d\", \"start_age_s\": %d, \"processing_us\": 0,"
                              " \"processing_jitter_us\": 0}",
                              i ? ", " : "", i, 100000 - i);
    }
    snprintf(T + n, sizeof T - n,
             "], \"clients\": ["
             "  {\"name\": \"c2\", \"endpoints\": [\"s129\"], \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 1, 2]},"
             "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]},"
             "  {\"name\": \"c1\", \"endpoints\": [\"s128\", \"s129\"],"
             "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [10, 20]},"
             "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]}],"
             " \"links\": {\"default\": {\"latency\": {\"kind\": \"const\", \"base_us\": 1000}}},%s"
             " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 0, \"server\": \"s128\"}]}",
             extra);
    return T;
}

static void test_disagreement_between_servers_beyond_64(void **state) {
    (void)state;
    sim_config_t cfg;
    load(wide_trace(""), &cfg);
    assert_int_equal(cfg.n_servers, 130);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.metrics.submitted, 5);
    assert_int_equal(r.metrics.allowed, 5); /* c1 takes the oldest member's (s128's) answer */
    assert_int_equal(r.metrics.disagreed, 2);
    assert_int_equal(r.metrics.contradictory, 2);
    assert_int_equal(r.expects_failed, 0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* Convergence per fault event: c1's disagreed decisions (12 ms and 22 ms:
 * submit + two 1 ms links) are charged to the latest event at or before
 * each: the skew at 5 ms gets the first (12 - 5 = 7 ms), the pause of an
 * unused server, ending at 15 + 1 = 16 ms, the second (22 - 16 = 6 ms). */
static void test_convergence_per_fault_event(void **state) {
    (void)state;
    sim_config_t cfg;
    load(wide_trace(" \"faults\": [{\"at_ms\": 5, \"kind\": \"skew\", \"target\": \"c2\", \"skew_ms\": 0},"
                    " {\"at_ms\": 15, \"kind\": \"pause\", \"target\": \"s000\", \"duration_ms\": 1}],"),
         &cfg);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.metrics.disagreed, 2);
    assert_int_equal(r.n_convergence, 2);
    assert_true(r.convergence[0].at_ms == 5.0);
    assert_int_equal(r.convergence[0].kind, 7); /* skew */
    assert_int_equal(r.convergence[0].unsettled, 1);
    assert_true(r.convergence[0].convergence_ms == 7.0);
    assert_true(r.convergence[1].at_ms == 16.0);
    assert_int_equal(r.convergence[1].kind, 2); /* pause, at its end */
    assert_int_equal(r.convergence[1].index, 1);
    assert_int_equal(r.convergence[1].unsettled, 1);
    assert_true(r.convergence[1].convergence_ms == 6.0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* No unsettled decision: every event converges at once (0). */
static void test_convergence_zero_when_servers_agree(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"t\", \"seed\": 5, \"duration_ms\": 200,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [{\"name\": \"c1\", \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 10, 20, 30, 40]}}],"
        " \"faults\": [{\"at_ms\": 25, \"kind\": \"pause\", \"target\": \"B\", \"duration_ms\": 5}]}";
    sim_config_t cfg;
    load(T, &cfg);
    sim_result_t r;
    run(&cfg, 5, &r);
    assert_int_equal(r.n_convergence, 1);
    assert_true(r.convergence[0].at_ms == 30.0);
    assert_int_equal(r.convergence[0].unsettled, 0);
    assert_true(r.convergence[0].convergence_ms == 0.0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* A refused submit counts against availability and takes its number. */
static void test_submit_errors_count_and_match_expectations(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"t4\", \"seed\": 1, \"duration_ms\": 100,"
        " \"servers\": [{\"name\": \"A\"}],"
        " \"clients\": [{\"name\": \"c1\", \"use_dns\": true,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 50]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]}],"
        " \"dns\": {\"epochs\": [{\"at_ms\": 0, \"members\": [\"A\"]}]},"
        " \"expectations\": [{\"kind\": \"status\", \"client\": \"c1\", \"request\": 0,"
        "   \"status\": \"RCLIENT_ERR_DNS\"},"
        "   {\"kind\": \"selected\", \"client\": \"c1\", \"request\": 1, \"server\": \"A\"}]}";
    sim_config_t cfg;
    load(T, &cfg);
    sim_result_t r;
    run(&cfg, 1, &r);
    assert_int_equal(r.metrics.submitted, 2);
    assert_int_equal(r.metrics.submit_errors, 1); /* DNS warm-up: the first lookup is still in flight */
    assert_true(r.metrics.availability == 0.5);
    assert_int_equal(r.expects_failed, 0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_digest_and_metrics),
        cmocka_unit_test(test_different_seed_different_digest),
        cmocka_unit_test(test_healthy_run_metrics),
        cmocka_unit_test(test_failed_expectation_is_reported),
        cmocka_unit_test(test_partitioned_oldest_selects_younger_at_deadline),
        cmocka_unit_test(test_overconsumption_is_per_tenant),
        cmocka_unit_test(test_oracle_ignores_requests_no_server_processed),
        cmocka_unit_test(test_submit_errors_count_and_match_expectations),
        cmocka_unit_test(test_disagreement_between_servers_beyond_64),
        cmocka_unit_test(test_convergence_per_fault_event),
        cmocka_unit_test(test_convergence_zero_when_servers_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
