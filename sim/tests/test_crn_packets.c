/* SPDX-License-Identifier: MIT */
/* Counter-based packet draws (docs/traces.md "Random numbers", project
 * choice after issue 23): a packet's loss, duplication, latency and reorder
 * draws follow from (seed, link, request identity, transmission index), so a
 * policy that adds sends (completion delivery, replays) alters only the
 * packets it adds: every request's first transmission to every server meets
 * the same fate under any two policies on one seed. */
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
#include "sim_run_util.h"

/* Three servers, two clients on one key at 250 requests/s each, 20 % loss on
 * every link: ALL_POLICY is replaced by both clients' policy. */
static const char TRACE[] =
    "{\"schema\": \"ratelimitly-trace/v1\", \"name\": \"crn_packets\", \"seed\": 3, \"duration_ms\": 1500,"
    " \"defaults\": {\"client\": {\"auth\": \"cookie\", \"use_dns\": false, \"policy\": ALL_POLICY,"
    "   \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 250},"
    "   \"mix\": [{\"resources\": [{\"bucket\": \"api\", \"window_size_ms\": 100, \"rate_limit\": 40}]}]}},"
    " \"servers\": [{\"name\": \"A\", \"start_age_s\": 86400}, {\"name\": \"B\", \"start_age_s\": 3600},"
    "   {\"name\": \"C\", \"start_age_s\": 600}],"
    " \"clients\": [{\"name\": \"c1\"}, {\"name\": \"c2\"}],"
    " \"links\": {\"default\": {\"latency\": {\"kind\": \"uniform\", \"base_us\": 200, \"spread_us\": 300},"
    "   \"loss\": {\"kind\": \"bernoulli\", \"loss_p\": 0.2}, \"duplicate_p\": 0.02, \"reorder_p\": 0.05,"
    "   \"reorder_us\": 400}}}";

static char *events_with(const char *policy, uint64_t seed) {
    const char *at = strstr(TRACE, "ALL_POLICY");
    assert_non_null(at);
    size_t head = (size_t)(at - TRACE), n = strlen(TRACE) + strlen(policy) + 1;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "%.*s%s%s", (int)head, TRACE, policy, at + strlen("ALL_POLICY"));
    sim_result_t r;
    char *log = sim_test_run_events(text, "crn_packets.json", seed, &r);
    sim_result_free(&r);
    free(text);
    return log;
}

/* The fate of each first transmission: (client, request, server node) ->
 * 1 delivered into the network, 2 dropped. Read from the event log (docs/traces.md
 * "Event log"): a call's sends (send, then drop at once if dropped) come before
 * its xmit records, one per send in order; class 0 is the initial fan-out. */
#define MAX_REQ 1000u
#define MAX_NODES 8u
typedef struct {
    uint8_t fate[2][MAX_REQ][MAX_NODES];
    size_t firsts, dropped;
} fates_t;

static void read_fates(const char *log, fates_t *f) {
    memset(f, 0, sizeof *f);
    /* per client: the fates of the sends since its last xmit record, in order */
    uint8_t pend[2][16];
    size_t n_pend[2] = {0, 0}, used[2] = {0, 0};
    for (const char *p = log; *p;) {
        const char *eol = strchr(p, '\n');
        char kind[16];
        unsigned long long t, a, b, c;
        if (sscanf(p, "%llu %15s %llu %llu %llu", &t, kind, &a, &b, &c) == 5) {
            if (strcmp(kind, "send") == 0 && a < 2) {
                if (used[a] == n_pend[a]) n_pend[a] = used[a] = 0; /* a new call */
                assert_true(n_pend[a] < 16);
                pend[a][n_pend[a]++] = 1;
            } else if (strcmp(kind, "drop") == 0 && a < 2 && n_pend[a] > 0 && used[a] < n_pend[a]) {
                pend[a][n_pend[a] - 1] = 2;
            } else if (strcmp(kind, "xmit") == 0) {
                assert_true(a < 2 && used[a] < n_pend[a]);
                uint8_t fate = pend[a][used[a]++];
                if (c >> 32 == 0 && b < MAX_REQ) {
                    unsigned node = (unsigned)(c & 0xFFFFFFFFu);
                    assert_true(node < MAX_NODES);
                    f->fate[a][b][node] = fate;
                    f->firsts++;
                    f->dropped += fate == 2;
                }
                if (used[a] == n_pend[a]) n_pend[a] = used[a] = 0;
            }
        }
        p = eol ? eol + 1 : p + strlen(p);
    }
}

/* Count the first transmissions present under both policies and those whose fate differs. */
static void compare(const fates_t *x, const fates_t *y, size_t *both, size_t *differ) {
    *both = *differ = 0;
    for (size_t h = 0; h < 2; h++) {
        for (size_t q = 0; q < MAX_REQ; q++) {
            for (size_t n = 0; n < MAX_NODES; n++) {
                if (x->fate[h][q][n] && y->fate[h][q][n]) {
                    (*both)++;
                    *differ += x->fate[h][q][n] != y->fate[h][q][n];
                }
            }
        }
    }
}

static void same_first_fates(const char *p1, const char *p2) {
    static fates_t fx, fy;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        char *a = events_with(p1, seed), *b = events_with(p2, seed);
        assert_string_not_equal(a, b); /* the policies did differ */
        read_fates(a, &fx);
        read_fates(b, &fy);
        size_t both, differ;
        compare(&fx, &fy, &both, &differ);
        /* every request's fan-out is the same under both policies (arrivals are the clients' own) */
        assert_int_equal(both, fx.firsts);
        assert_int_equal(both, fy.firsts);
        assert_true(fx.firsts > 1000 && fx.dropped * 10 > fx.firsts); /* ~20 % of them lost: the draws mattered */
        if (differ != 0) fail_msg("seed %llu: %zu of %zu first transmissions changed fate", (unsigned long long)seed,
                                  differ, both);
        free(a);
        free(b);
    }
}

/* Completion delivery off: the default adds completion sends after each decision. */
static void test_first_transmissions_same_fate_completion_off(void **state) {
    (void)state;
    same_first_fates("\"default\"", "{\"preset\": \"default\", \"completion_delivery\": false}");
}

/* Two replays instead of one, a shorter unit: more and earlier replays. */
static void test_first_transmissions_same_fate_more_replays(void **state) {
    (void)state;
    same_first_fates("\"default\"", "{\"preset\": \"default\", \"unit_ms\": 5, \"replay_count\": 2}");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_transmissions_same_fate_completion_off),
        cmocka_unit_test(test_first_transmissions_same_fate_more_replays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
