/* SPDX-License-Identifier: MIT */
/* Metrics judged against each request's own view (docs/traces.md "Metrics"):
 * oldest_selected against the request's membership snapshot, responses from
 * an identity the snapshot does not trust counted by class (never as late
 * responses). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_trace.h"
#include "sim_world.h"
#include "sim_world_int.h"

#ifndef SIM_SOURCE_DIR
#define SIM_SOURCE_DIR "sim"
#endif

static void run_text(const char *text, sim_metrics_t *m) {
    sim_config_t cfg;
    char err[300];
    if (sim_trace_parse(text, strlen(text), "inline.json", &cfg, err, sizeof err) != 0) fail_msg("trace: %s", err);
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(&cfg, cfg.seed, &o, &r, err, sizeof err) != 0) fail_msg("run: %s", err);
    *m = r.metrics;
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* membership_change: from 1500 ms the snapshots no longer hold A; every
 * decision takes the oldest member of its own snapshot (defect: 0.64, A
 * counted as the oldest for requests that never went to it). */
static void test_oldest_selected_against_snapshot(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[300];
    if (sim_trace_load(SIM_SOURCE_DIR "/traces/membership_change.json", &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(&cfg, 1, &o, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_true(r.metrics.decided > 1000);
    assert_true(r.metrics.oldest_selected_rate == 1.0);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* A restarts at 100 ms under a new server_id the client (explicit endpoints)
 * never learns. Each of the 3 requests: A's answer is untrusted, B is
 * selected at the preference deadline, completion delivery to A brings a
 * second untrusted answer. So 6 untrusted responses, none counted late. */
static void test_untrusted_identity_counted(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 500,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [{\"name\": \"c1\", \"auth\": \"cookie\", \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [200, 300, 400]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 100}]}]}],"
        " \"faults\": [{\"at_ms\": 100, \"kind\": \"restart\", \"target\": \"A\"}],"
        " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 2, \"server\": \"B\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 3);
    assert_true(m.oldest_selected_rate == 0.0); /* A (old identity) is the snapshot's oldest */
    assert_int_equal(m.untrusted_responses, 6);
    assert_int_equal(m.late_responses, 0);
    assert_int_equal(m.completion_sends, 3);
    assert_int_equal(m.invalid_datagrams, m.invalid_protocol + m.invalid_auth + m.invalid_other);
}

/* --timeline 25: five scripted requests at 0, 10, 20, 30, 40 ms against a
 * limit of 3 per second: window 0 holds three allowed, window 25 two denied. */
static void test_timeline_rows(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 100,"
        " \"servers\": [{\"name\": \"A\"}, {\"name\": \"B\"}],"
        " \"clients\": [{\"name\": \"c1\", \"auth\": \"cookie\", \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 10, 20, 30, 40]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 3}]}]}]}";
    sim_config_t cfg;
    char err[300];
    if (sim_trace_parse(T, strlen(T), "t.json", &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sim_run_opts_t o = {.events = NULL, .timeline = f, .timeline_ms = 25};
    sim_result_t r;
    if (sim_run(&cfg, 1, &o, &r, err, sizeof err) != 0) fail_msg("%s", err);
    fclose(f);
    const char *head = "window_start_ms,client,submitted,submit_errors,decided,allowed,denied,timeouts,io_failures,"
                       "false_allows,false_denies,oldest_selected,";
    assert_memory_equal(buf, head, strlen(head));
    const char *row0 = strstr(buf, "\n0,c1,");
    const char *row1 = strstr(buf, "\n25,c1,");
    assert_non_null(row0);
    assert_non_null(row1);
    assert_memory_equal(row0, "\n0,c1,3,0,3,3,0,0,0,0,0,3,", strlen("\n0,c1,3,0,3,3,0,0,0,0,0,3,"));
    assert_memory_equal(row1, "\n25,c1,2,0,2,0,2,0,0,0,0,2,", strlen("\n25,c1,2,0,2,0,2,0,0,0,0,2,"));
    assert_null(strstr(buf, "\n50,c1,")); /* nothing after the last busy window */
    free(buf);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

/* docs/traces.md "Latency quantiles": nearest rank ceil(p x n). Ten requests,
 * 0 .. 90 ms; A (oldest) stops answering at 45 ms, so requests 0-4 are
 * decided on A's answer (250 + 20 + 250 us) and 5-9 at the 20 ms preference
 * deadline. p50 is rank 5 (a fast one), p90 rank 9 and p99 rank 10 (slow).
 * Defect: the rank was round(p x (n - 1)) + 1, so p50 took rank 6 (a slow one). */
static void test_latency_nearest_rank(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 200,"
        " \"servers\": [{\"name\": \"A\"}, {\"name\": \"B\"}],"
        " \"clients\": [{\"name\": \"c1\", \"auth\": \"cookie\", \"use_dns\": false,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]},"
        "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 100}]}]}],"
        " \"faults\": [{\"at_ms\": 45, \"kind\": \"partition\", \"target\": \"A\", \"dir\": \"out\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 10);
    assert_true(m.latency_p50_ms == 0.52);
    assert_true(m.latency_p90_ms >= 20.0);
    assert_true(m.latency_p99_ms == m.latency_max_ms);
}

static void test_nearest_rank_index(void **state) {
    (void)state;
    assert_int_equal(sim_nearest_rank(1, 50), 0);
    assert_int_equal(sim_nearest_rank(1, 99), 0);
    assert_int_equal(sim_nearest_rank(10, 50), 4);  /* rank 5 */
    assert_int_equal(sim_nearest_rank(11, 50), 5);  /* rank ceil(5.5) = 6 */
    assert_int_equal(sim_nearest_rank(100, 99), 98); /* rank 99 exactly, no rounding up */
    assert_int_equal(sim_nearest_rank(970, 99), 960); /* rank ceil(960.3) = 961 */
    assert_int_equal(sim_nearest_rank(970, 100), 969);
    assert_int_equal(sim_nearest_rank(5, 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oldest_selected_against_snapshot),
        cmocka_unit_test(test_untrusted_identity_counted),
        cmocka_unit_test(test_timeline_rows),
        cmocka_unit_test(test_latency_nearest_rank),
        cmocka_unit_test(test_nearest_rank_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
