/* SPDX-License-Identifier: MIT */
/* The faults a policy tuner needs (docs/traces.md "faults", "servers",
 * "clients"): server overload (a bounded FIFO service queue), restart with
 * downtime, late timers, clock drift. Expected values follow from the trace
 * and the documented models. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim_trace.h"
#include "sim_world.h"
#include "sim_run_util.h"

static void run_text(const char *text, sim_metrics_t *m) {
    sim_config_t cfg;
    char err[300];
    if (sim_trace_parse(text, strlen(text), "inline.json", &cfg, err, sizeof err) != 0) fail_msg("trace: %s", err);
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(&cfg, cfg.seed, &o, &r, err, sizeof err) != 0) fail_msg("run: %s", err);
    *m = r.metrics;
    if (r.expects_failed) fail_msg("%zu expectation(s) failed: %s", r.expects_failed, r.expects[0].message);
    sim_result_free(&r);
    sim_config_free(&cfg);
}

#define CLIENT_HEAD "{\"name\": \"c1\", \"auth\": \"cookie\", \"use_dns\": false,"
#define ONE_RESOURCE "\"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 100}]}]"

/* Five requests at 0 ms reach A together; its queue holds 2 (10 ms of service
 * each), so 3 are dropped and, with no replay, time out. The second served
 * answers after 20 ms of service. */
static void test_overload_queue_drops_and_delays(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 100,"
        " \"servers\": [{\"name\": \"A\", \"queue_capacity\": 2, \"processing_us\": 10000}],"
        " \"clients\": [" CLIENT_HEAD " \"policy\": {\"replay_count\": 0, \"completion_delivery\": false},"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 0, 0, 0, 0]}, " ONE_RESOURCE "}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.queue_drops, 3);
    assert_int_equal(m.decided, 2);
    assert_int_equal(m.timeouts, 3);
    assert_true(m.latency_max_ms >= 20.0 && m.latency_max_ms < 21.0); /* 250 us out, 20 ms served, 250 us back */
}

/* A restarts at 100 ms and is down for 200 ms; requests at 150 and 250 ms lose
 * their send and their completion delivery to A (4 drops) and select B; at
 * 400 ms A answers under its new identity, which the client does not trust
 * (its first answer and the reply to the completion delivery). */
static void test_restart_with_downtime(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 500,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [150, 250, 400]}, "
        ONE_RESOURCE "}],"
        " \"faults\": [{\"at_ms\": 100, \"kind\": \"restart\", \"target\": \"A\", \"duration_ms\": 200}],"
        " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 0, \"server\": \"B\"},"
        "   {\"kind\": \"selected\", \"client\": \"c1\", \"request\": 2, \"server\": \"B\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 3);
    assert_int_equal(m.down_drops, 4);
    assert_int_equal(m.untrusted_responses, 2);
}

/* A never answers (outbound partition), B does: the client selects B at the
 * 20 ms preference deadline, and a host that delivers timers 5 ms late
 * decides at 25 ms. */
static void test_late_timers(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 300,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"timer_delay\": {\"kind\": \"const\", \"base_us\": 5000},"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 100, 200]}, " ONE_RESOURCE "}],"
        " \"faults\": [{\"at_ms\": 0, \"kind\": \"partition\", \"target\": \"A\", \"dir\": \"out\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 3);
    assert_true(m.latency_p50_ms >= 25.0 && m.latency_max_ms < 25.1);
}

/* A client clock 10 % slow (-100000 ppm) waits 20 of its ms for the preference
 * deadline: about 22.2 ms of run time. */
static void test_client_clock_drift(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 300,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"clock_drift_ppm\": -100000,"
        "   \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [100, 200]}, " ONE_RESOURCE "}],"
        " \"faults\": [{\"at_ms\": 0, \"kind\": \"partition\", \"target\": \"A\", \"dir\": \"out\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 2);
    assert_true(m.latency_p50_ms > 21.9 && m.latency_max_ms < 23.3);
}

/* A server clock 10 % fast with 1 s freshness: at 5 s it is 0.5 s ahead
 * (fresh), at 12 s 1.2 s ahead (every request stale: a timeout). */
static void test_server_clock_drift_makes_requests_stale(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 13000,"
        " \"servers\": [{\"name\": \"A\", \"clock_drift_ppm\": 100000, \"freshness_ms\": 1000}],"
        " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [5000, 12000]}, "
        ONE_RESOURCE "}],"
        " \"expectations\": [{\"kind\": \"status\", \"client\": \"c1\", \"request\": 0, \"status\": \"RCLIENT_OK\"},"
        "   {\"kind\": \"status\", \"client\": \"c1\", \"request\": 1, \"status\": \"RCLIENT_ERR_TIMEOUT\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.decided, 1);
}

/* c1's request at 10 ms: B answers at once, A's answer takes 15 ms on its
 * way back, so at 20 ms the request waits for A. Injected then, as if from A:
 * 3 random datagrams, A's answer with a byte of its cookie flipped, A's answer under
 * another server_id (rejected or ignored, the request stays in flight), then A's
 * answer replayed: valid, so the client selects A at 20 ms; A's genuine answer
 * arrives late. */
static void test_injected_datagrams_by_class(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 200,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [10]}, " ONE_RESOURCE "}],"
        " \"links\": {\"overrides\": [{\"from\": \"A\", \"to\": \"c1\", \"latency\": {\"base_us\": 15000}}]},"
        " \"faults\": [{\"at_ms\": 20, \"kind\": \"inject\", \"target\": \"c1\", \"from\": \"A\", \"class\": \"invalid\", \"count\": 3},"
        "   {\"at_ms\": 20, \"kind\": \"inject\", \"target\": \"c1\", \"from\": \"A\", \"class\": \"forged\"},"
        "   {\"at_ms\": 20, \"kind\": \"inject\", \"target\": \"c1\", \"from\": \"A\", \"class\": \"wrong_identity\"},"
        "   {\"at_ms\": 20, \"kind\": \"inject\", \"target\": \"c1\", \"from\": \"A\", \"class\": \"replayed\"}],"
        " \"expectations\": [{\"kind\": \"selected\", \"client\": \"c1\", \"request\": 0, \"server\": \"A\"}]}";
    sim_metrics_t m;
    run_text(T, &m);
    assert_int_equal(m.injected_datagrams, 6);
    assert_int_equal(m.invalid_datagrams, 4); /* the untrusted copy is ignored silently (api: RCLIENT_OK) */
    assert_int_equal(m.invalid_auth, 1); /* the forged copy */
    assert_int_equal(m.untrusted_responses, 1);
    assert_int_equal(m.decided, 1);
    assert_true(m.latency_max_ms == 10.0); /* decided by the replayed copy at 20 ms */
    assert_int_equal(m.late_responses, 1); /* A's genuine answer */
}

/* Write text to dir/name. */
static void put_file(const char *dir, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

#define EMPIRICAL_TRACE(file)                                                                                      \
    "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 100,"                                               \
    " \"servers\": [{\"name\": \"A\", \"processing_us\": 0}],"                                                      \
    " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [0, 10]}, " ONE_RESOURCE "}],"  \
    " \"links\": {\"default\": {\"latency\": {\"kind\": \"empirical\", \"file\": \"" file "\", \"fraction\": 0.5}}}}"

/* Every sample is 6000 us: each way takes half, so a decision 6 ms after
 * the submit; the samples file is found relative to the trace. */
static void test_empirical_latency_from_file(void **state) {
    (void)state;
    char dir[] = "/tmp/sim_empirical_XXXXXX";
    assert_non_null(mkdtemp(dir));
    put_file(dir, "rtt.txt", "# measured\n6000\n\n  6000  \n");
    put_file(dir, "t.json", EMPIRICAL_TRACE("rtt.txt"));
    put_file(dir, "bad.txt", "6000\nfast\n");
    put_file(dir, "bad.json", EMPIRICAL_TRACE("bad.txt"));
    char path[512], err[400];
    sim_config_t cfg;
    snprintf(path, sizeof path, "%s/t.json", dir);
    if (sim_trace_load(path, &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(&cfg, 1, &o, &r, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(r.metrics.decided, 2);
    assert_true(r.metrics.latency_p50_ms == 6.0 && r.metrics.latency_max_ms == 6.0);
    sim_result_free(&r);
    sim_config_free(&cfg);
    snprintf(path, sizeof path, "%s/bad.json", dir);
    assert_int_equal(sim_trace_load(path, &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "links.default.latency.file: "));
    assert_non_null(strstr(err, "bad.txt line 2: expected a round-trip time in us"));
    const char *names[] = {"rtt.txt", "t.json", "bad.txt", "bad.json"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A fails and is repaired at random (MTBF 100 ms, MTTR 50 ms) for 3 s: the
 * log's transitions alternate, A is down about a third of the time, B
 * covers (availability), and fewer decisions take A. */
static void test_failures_process(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 3000,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 100}, " ONE_RESOURCE "}],"
        " \"faults\": [{\"at_ms\": 0, \"kind\": \"failures\", \"target\": \"A\", \"mtbf_ms\": 100, \"mttr_ms\": 50}]}";
    sim_result_t r;
    char *buf = sim_test_run_events(T, "t.json", 3, &r);
    unsigned long long t, kind, idx, v, last_t = 0, down_us = 0, last_v = 0;
    size_t transitions = 0;
    for (const char *p = buf; (p = strstr(p, " fault 10 ")) != NULL; p++) {
        const char *line = p;
        while (line > buf && line[-1] != '\n') line--;
        assert_int_equal(sscanf(line, "%llu fault %llu %llu %llu", &t, &kind, &idx, &v), 4);
        if (last_v == 1) down_us += t - last_t;
        if (t > 0 && t < 3000000) { /* the records at 0 (start) and until_ms (end) state "working" */
            assert_true(v != last_v); /* failed and repaired in turn */
            transitions++;
        }
        last_t = t;
        last_v = v;
    }
    assert_int_equal(last_v, 0); /* working again at until_ms */
    assert_true(transitions > 20);
    double down = (double)down_us / 3e6;
    assert_true(down > 0.2 && down < 0.45);
    assert_true(r.metrics.availability >= 0.99);
    assert_true(r.metrics.oldest_selected_rate > 0.4 && r.metrics.oldest_selected_rate < 0.9);
    free(buf);
    sim_result_free(&r);
}

/* A link's failures (c1 -> A only, MTBF 100 ms, MTTR 50 ms): packets on
 * that link are dropped as down exactly while the process is failed, and no
 * other link (A -> c1, c2 -> A) loses a packet. */
static void test_link_failures_process(void **state) {
    (void)state;
    static const char T[] =
        "{\"schema\": \"ratelimitly-trace/v1\", \"duration_ms\": 2000,"
        " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600}],"
        " \"clients\": [" CLIENT_HEAD " \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 200}, " ONE_RESOURCE "},"
        "  {\"name\": \"c2\", \"auth\": \"cookie\", \"use_dns\": false, \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 200}, " ONE_RESOURCE "}],"
        " \"faults\": [{\"at_ms\": 0, \"kind\": \"failures\", \"from\": \"c1\", \"to\": \"A\", \"mtbf_ms\": 100,"
        "   \"mttr_ms\": 50}]}";
    sim_result_t r;
    char *buf = sim_test_run_events(T, "t.json", 3, &r);
    /* nodes: c1 = 0, c2 = 1, A = 2, B = 3 */
    bool failed = false;
    size_t drops = 0, sends_while_failed = 0, transitions = 0;
    char kind[16];
    unsigned long long t, a, b, c;
    for (const char *line = buf; *line != '\0';) {
        assert_int_equal(sscanf(line, "%llu %15s %llu %llu %llu", &t, kind, &a, &b, &c), 5);
        if (strcmp(kind, "fault") == 0 && a == 10) {
            failed = c == 1;
            transitions += c == 1;
        } else if (strcmp(kind, "drop") == 0) {
            assert_int_equal(a, 0);
            assert_int_equal(b, 2);
            assert_int_equal(c, 2); /* down */
            assert_true(failed);
            drops++;
        } else if (strcmp(kind, "send") == 0 && a == 0 && b == 2 && failed) {
            sends_while_failed++;
        }
        line = strchr(line, '\n');
        if (line == NULL) break;
        line++;
    }
    assert_true(transitions > 5);
    assert_true(drops > 0);
    assert_int_equal(drops, sends_while_failed); /* every packet on the link while failed, no other */
    assert_true(r.metrics.availability >= 0.99);
    free(buf);
    sim_result_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overload_queue_drops_and_delays),
        cmocka_unit_test(test_restart_with_downtime),
        cmocka_unit_test(test_late_timers),
        cmocka_unit_test(test_client_clock_drift),
        cmocka_unit_test(test_server_clock_drift_makes_requests_stale),
        cmocka_unit_test(test_injected_datagrams_by_class),
        cmocka_unit_test(test_empirical_latency_from_file),
        cmocka_unit_test(test_failures_process),
        cmocka_unit_test(test_link_failures_process),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
