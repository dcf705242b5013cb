/* SPDX-License-Identifier: MIT */
/* Common random numbers (docs/traces.md "Random numbers"): every link,
 * client and server draws from its own streams, so changing one client's
 * policy leaves every other client's events and every link's draws as they
 * were. A paired comparison of two policies on one seed then measures the
 * policy, not the noise. */
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

#include "sim_net.h"
#include "sim_trace.h"
#include "sim_world.h"
#include "sim_run_util.h"

/* Two tenants (c1: key 1, c2: key 2) on three servers, over links with loss,
 * duplication, reordering and latency draws, servers with processing jitter,
 * random steering and, from 300 ms, a degraded dedup cache on B. C2_POLICY is
 * replaced by c2's policy. */
static const char TRACE[] =
    "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"crn\", \"seed\": 11, \"duration_ms\": 800,"
    " \"defaults\": {\"server\": {\"processing_jitter_us\": 80, \"steer_mode\": \"random\", \"steer_change_p\": 0.1},"
    "   \"client\": {\"auth\": \"cookie\", \"use_dns\": false, \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
    "     \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"rate_limit\": 150}], \"guards\": [{\"tracker\": \"svc\","
    "       \"threshold_ms\": 50}]}], \"service\": {\"latency\": {\"kind\": \"exp\", \"base_us\": 2000, \"spread_us\": 3000}}}},"
    " \"servers\": [{\"name\": \"A\"}, {\"name\": \"B\"}, {\"name\": \"C\"}],"
    " \"clients\": [{\"name\": \"c1\", \"key_id\": 1}, {\"name\": \"c2\", \"key_id\": 2, \"policy\": C2_POLICY}],"
    " \"links\": {\"default\": {\"latency\": {\"kind\": \"uniform\", \"base_us\": 300, \"spread_us\": 4000, \"jitter_us\": 50},"
    "   \"loss\": {\"kind\": \"bernoulli\", \"loss_p\": 0.08}, \"duplicate_p\": 0.05, \"reorder_p\": 0.05}},"
    " \"faults\": [{\"at_ms\": 300, \"kind\": \"dedup_degrade\", \"target\": \"B\", \"loss_p\": 0.5}]}";

static char *trace_with(const char *policy) {
    const char *at = strstr(TRACE, "C2_POLICY");
    assert_non_null(at);
    size_t head = (size_t)(at - TRACE), n = strlen(TRACE) + strlen(policy) + 1;
    char *s = malloc(n);
    assert_non_null(s);
    snprintf(s, n, "%.*s%s%s", (int)head, TRACE, policy, at + strlen("C2_POLICY"));
    return s;
}

/* Run the trace with c2's policy; return the text event log (owned). */
static char *events_of(const char *policy, sim_metrics_t *m) {
    char *text = trace_with(policy);
    sim_result_t r;
    char *buf = sim_test_run_events(text, "crn.json", 11, &r);
    *m = r.metrics;
    sim_result_free(&r);
    free(text);
    return buf;
}

/* The events of node `node` (client index = node number): its submits,
 * decisions, reports, steering and DNS, and every send, drop and delivery on
 * one of its links. One line each, in log order. */
static char *subsequence(const char *log, unsigned node) {
    size_t cap = strlen(log) + 1, n = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    const char *p = log;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        char kind[16];
        unsigned long long t, a, b, c;
        if (sscanf(p, "%llu %15s %llu %llu %llu", &t, kind, &a, &b, &c) == 5) {
            bool link = strcmp(kind, "send") == 0 || strcmp(kind, "drop") == 0 || strcmp(kind, "deliver") == 0;
            bool own = strcmp(kind, "submit") == 0 || strcmp(kind, "decision") == 0 || strcmp(kind, "report") == 0 ||
                       strcmp(kind, "steering") == 0 || strcmp(kind, "dns") == 0;
            if ((link && (a == node || b == node)) || (own && a == node)) {
                memcpy(out + n, p, len);
                n += len;
            }
        }
        p += len;
    }
    out[n] = '\0';
    return out;
}

static void test_other_clients_policy_leaves_c1_identical(void **state) {
    (void)state;
    sim_metrics_t ma, mb;
    char *a = events_of("{\"completion_delivery\": true}", &ma);
    char *b = events_of("{\"completion_delivery\": false}", &mb);
    assert_string_not_equal(a, b); /* c2 did change */
    assert_true(ma.completion_sends != mb.completion_sends);
    char *c2a = subsequence(a, 1), *c2b = subsequence(b, 1);
    assert_string_not_equal(c2a, c2b);
    char *c1a = subsequence(a, 0), *c1b = subsequence(b, 0);
    assert_true(strlen(c1a) > 10000); /* c1 has many events, with drops among them */
    assert_non_null(strstr(c1a, " drop 0 "));
    assert_string_equal(c1a, c1b);
    free(a);
    free(b);
    free(c1a);
    free(c1b);
    free(c2a);
    free(c2b);
}

/* ---- one network, two links ---------------------------------------------------------- */

#define PKTS 400u

typedef struct {
    sim_engine_t engine;
    sim_net_t *net;
    sim_time_t at[2][4 * PKTS]; /* [link][packet number]: delivery time, 0 = never */
} net_env_t;

static void on_deliver(void *ctx, uint32_t src, uint32_t dst, const uint8_t *data, size_t len) {
    (void)dst;
    net_env_t *e = ctx;
    assert_true(len == 2 && src < 2);
    size_t k = (size_t)data[0] | (size_t)data[1] << 8;
    if (e->at[src][k] == 0) e->at[src][k] = sim_engine_now(&e->engine); /* first copy */
}

/* Link 0 -> 2 carries PKTS packets, link 1 -> 2 carries `other` packets,
 * interleaved, all sent at time 0. */
static void run_links(net_env_t *e, size_t other) {
    memset(e, 0, sizeof *e);
    assert_int_equal(sim_engine_init(&e->engine), 0);
    sim_link_t l;
    memset(&l, 0, sizeof l);
    l.latency.kind = SIM_LAT_EXP;
    l.latency.base_us = 100;
    l.latency.spread_us = 5000;
    l.latency.jitter_us = 30;
    l.loss.kind = SIM_LOSS_GILBERT;
    l.loss.p_good_to_bad = 0.1;
    l.loss.p_bad_to_good = 0.3;
    l.loss.loss_good = 0.02;
    l.loss.loss_bad = 0.9;
    l.duplicate_p = 0.1;
    l.reorder_p = 0.1;
    l.reorder_us = 700;
    sim_rng_t rng;
    sim_rng_seed(&rng, 77, SIM_STREAM_NET, 0);
    e->net = sim_net_new(&e->engine, NULL, &rng, 3, &l, on_deliver, e);
    assert_non_null(e->net);
    size_t sent[2] = {0, 0};
    while (sent[0] < PKTS || sent[1] < other) {
        for (uint32_t src = 0; src < 2; src++) {
            size_t want = src == 0 ? PKTS : other;
            size_t burst = src == 0 ? 1 : (other + PKTS - 1) / PKTS;
            for (size_t i = 0; i < burst && sent[src] < want; i++) {
                uint8_t d[2] = {(uint8_t)sent[src], (uint8_t)(sent[src] >> 8)};
                assert_int_equal(sim_net_send(e->net, src, 2, d, 2), 0);
                sent[src]++;
            }
        }
    }
    (void)sim_engine_run(&e->engine, UINT64_MAX);
    sim_net_free(e->net);
    sim_engine_free(&e->engine);
}

static void test_link_draws_do_not_depend_on_other_links(void **state) {
    (void)state;
    static net_env_t a, b;
    run_links(&a, PKTS);
    run_links(&b, 3 * PKTS); /* three times the traffic on the other link */
    assert_memory_equal(a.at[0], b.at[0], PKTS * sizeof a.at[0][0]);
    /* the other link's k-th packet gets the same draws in both runs */
    assert_memory_equal(a.at[1], b.at[1], PKTS * sizeof a.at[1][0]);
    size_t lost = 0;
    for (size_t k = 0; k < PKTS; k++) lost += a.at[0][k] == 0;
    assert_true(lost > 10 && lost < PKTS / 2); /* the draws did matter */
}

/* Links 0 -> 2 and 1 -> 2 with one Gilbert-Elliott loss model, packets sent
 * alternately: on a shared chain the two links lose together (bursts cross
 * links); on their own chains joint losses are rare. */
static size_t joint_losses(uint32_t shared, size_t *lost0) {
    static net_env_t e;
    memset(&e, 0, sizeof e);
    assert_int_equal(sim_engine_init(&e.engine), 0);
    sim_link_t l;
    memset(&l, 0, sizeof l);
    l.latency.kind = SIM_LAT_CONST;
    l.latency.base_us = 100;
    l.loss.kind = SIM_LOSS_GILBERT;
    l.loss.p_good_to_bad = 0.05;
    l.loss.p_bad_to_good = 0.2;
    l.loss.loss_good = 0.0;
    l.loss.loss_bad = 1.0;
    l.loss.shared = shared;
    sim_rng_t rng;
    sim_rng_seed(&rng, 5, SIM_STREAM_NET, 0);
    e.net = sim_net_new(&e.engine, NULL, &rng, 3, &l, on_deliver, &e);
    assert_non_null(e.net);
    for (size_t k = 0; k < PKTS; k++) {
        for (uint32_t src = 0; src < 2; src++) {
            uint8_t d[2] = {(uint8_t)k, (uint8_t)(k >> 8)};
            assert_int_equal(sim_net_send(e.net, src, 2, d, 2), 0);
        }
    }
    (void)sim_engine_run(&e.engine, UINT64_MAX);
    sim_net_free(e.net);
    sim_engine_free(&e.engine);
    size_t joint = 0;
    *lost0 = 0;
    for (size_t k = 0; k < PKTS; k++) {
        *lost0 += e.at[0][k] == 0;
        joint += e.at[0][k] == 0 && e.at[1][k] == 0;
    }
    return joint;
}

static void test_shared_gilbert_chain_correlates_links(void **state) {
    (void)state;
    size_t lost_shared = 0, lost_own = 0;
    size_t shared = joint_losses(1, &lost_shared);
    size_t own = joint_losses(0, &lost_own);
    assert_true(lost_shared > 20 && lost_own > 20);
    assert_true(shared * 10 >= lost_shared * 6); /* most losses of link 0 coincide with link 1's */
    assert_true(own * 10 < lost_own * 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_other_clients_policy_leaves_c1_identical),
        cmocka_unit_test(test_link_draws_do_not_depend_on_other_links),
        cmocka_unit_test(test_shared_gilbert_chain_correlates_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
