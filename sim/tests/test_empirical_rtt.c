/* SPDX-License-Identifier: MIT */
/* Empirical latency reproduces the measured round trip (docs/traces.md
 * "latency", issue 23 item 1): one sample of the file per request-server
 * exchange, split between the two directions, so the simulated round trip to
 * a server has the file's distribution. The oracle is the file itself: with
 * the oldest server A reached over the file's round trips and B close, the
 * client (r-client.md 9.3: the oldest server's answer is preferred until
 * U x P(0), the default P(0) = 1) takes the decision from A exactly when A's
 * round trip ends before the preference deadline, so the share of decisions
 * from the oldest server is P(RTT < U x P(0)) of the file, within sampling
 * error. The client's clock has whole milliseconds, so the deadline falls
 * between U - 1 and U ms after the send: the oracle is the bracket
 * [P(RTT < U - 1 ms), P(RTT < U)]. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim_trace.h"
#include "sim_world.h"

#define TRACE_FMT                                                                                                  \
    "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"rtt\", \"duration_ms\": 6000,"                           \
    " \"defaults\": {\"client\": {\"auth\": \"cookie\", \"use_dns\": false,"                                     \
    "   \"policy\": {\"preset\": \"default\", \"unit_ms\": %u},"                                                   \
    "   \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 500},"                                               \
    "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"window_size_ms\": 1000, \"rate_limit\": 100000}]}]}},"  \
    " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400, \"processing_us\": 0},"                              \
    "   {\"name\": \"B\", \"start_age_s\": 3600, \"processing_us\": 0}],"                                          \
    " \"clients\": [{\"name\": \"c1\"}, {\"name\": \"c2\"}],"                                                      \
    " \"links\": {\"default\": {\"latency\": {\"kind\": \"uniform\", \"base_us\": 200, \"spread_us\": 100}},"     \
    "   \"overrides\": [{\"from\": \"*\", \"to\": \"A\", \"symmetric\": true,"                                     \
    "     \"latency\": {\"kind\": \"empirical\", \"file\": \"%s\", \"fraction\": 0.5}}]}}"

/* The file's values in us (comment and blank lines skipped, as the loader does). */
static size_t read_values(const char *path, uint32_t *v, size_t cap) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[128];
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\0') continue;
        assert_true(n < cap);
        v[n++] = (uint32_t)strtoul(p, NULL, 10);
    }
    fclose(f);
    return n;
}

static double share_below(const uint32_t *v, size_t n, uint32_t us) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) k += v[i] < us;
    return (double)k / (double)n;
}

/* Run the trace with U = unit_ms over the samples file; the oldest share and the decisions. */
static double oldest_share(const char *samples, unsigned unit_ms, uint64_t seed, uint64_t *decided) {
    char text[4096], err[400];
    snprintf(text, sizeof text, TRACE_FMT, unit_ms, samples);
    sim_config_t cfg;
    if (sim_trace_parse(text, strlen(text), "/rtt.json", &cfg, err, sizeof err) != 0) fail_msg("%s", err);
    sim_result_t r;
    sim_run_opts_t o = {.events = NULL};
    if (sim_run(&cfg, seed, &o, &r, err, sizeof err) != 0) fail_msg("%s", err);
    double share = r.metrics.oldest_selected_rate;
    *decided = r.metrics.decided;
    assert_int_equal(r.metrics.decided, r.metrics.submitted);
    sim_result_free(&r);
    sim_config_free(&cfg);
    return share;
}

/* share within 4 standard errors of the bracket [lo, hi] */
static void check_share(const char *samples, unsigned unit_ms) {
    static uint32_t v[100000];
    size_t n = read_values(samples, v, sizeof v / sizeof v[0]);
    assert_true(n > 0);
    double lo = share_below(v, n, unit_ms * 1000u - 1000u), hi = share_below(v, n, unit_ms * 1000u);
    uint64_t decided = 0;
    double share = oldest_share(samples, unit_ms, 7, &decided);
    assert_true(decided > 5000);
    double p = (lo + hi) / 2, se = sqrt((p * (1 - p) > 1e-4 ? p * (1 - p) : 1e-4) / (double)decided);
    if (share < lo - 4 * se || share > hi + 4 * se) {
        fail_msg("U = %u ms: oldest share %.4f, file P(RTT < U) in [%.4f, %.4f] (4 se = %.4f)", unit_ms, share, lo, hi,
                 4 * se);
    }
}

/* The shipped example (mostly 0.8-3 ms, a 5 % tail of 20-45 ms) at the U of the HA tuning report. */
static void test_oldest_share_follows_example_file(void **state) {
    (void)state;
    const char *f = SIM_SOURCE_DIR "/traces/data/rtt_example_us.txt";
    check_share(f, 5);
    check_share(f, 20);
    check_share(f, 30);
    check_share(f, 40);
}

/* A two-humped file: 80 % at 2 ms, 20 % at 30 ms. Round trips drawn per
 * direction (the mean of two samples) would give 0.96 below 20 ms (one slow
 * half: 16 ms) instead of the file's 0.80, and 0.64 below 10 ms. */
static void test_oldest_share_follows_two_humped_file(void **state) {
    (void)state;
    char dir[] = "/tmp/sim_rtt_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/humps.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < 100; i++) fprintf(f, "%d\n", i % 5 == 4 ? 30000 : 2000);
    fclose(f);
    check_share(path, 20);
    check_share(path, 10);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oldest_share_follows_example_file),
        cmocka_unit_test(test_oldest_share_follows_two_humped_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
