/* SPDX-License-Identifier: MIT */
/* Unit tests for sim_net.c: latency shapes, loss models, duplication,
 * reordering, partitions, link down/up, per-link overrides, stats and the
 * event log of the simulated network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_net.h"

#define MAX_SEEN 8192u

typedef struct {
    sim_time_t at;
    uint32_t src, dst;
    size_t len;
    uint8_t first;
} seen_t;

typedef struct {
    sim_engine_t engine;
    sim_log_t *log;
    FILE *text;
    sim_net_t *net;
    seen_t seen[MAX_SEEN];
    size_t n_seen;
} env_t;

static void on_deliver(void *ctx, uint32_t src, uint32_t dst, const uint8_t *data, size_t len) {
    env_t *e = ctx;
    assert_true(e->n_seen < MAX_SEEN);
    seen_t s = {sim_engine_now(&e->engine), src, dst, len, len > 0 ? data[0] : 0};
    e->seen[e->n_seen++] = s;
}

static sim_link_t const_link(uint32_t base_us) {
    sim_link_t l;
    memset(&l, 0, sizeof l);
    l.latency.kind = SIM_LAT_CONST;
    l.latency.base_us = base_us;
    return l;
}

/* Three nodes, constant 1000 us links, text log captured in a temp file. */
static void env_open(env_t *e, const sim_link_t *link) {
    assert_int_equal(sim_engine_init(&e->engine), 0);
    e->text = tmpfile();
    assert_non_null(e->text);
    e->log = sim_log_new(e->text);
    assert_non_null(e->log);
    sim_rng_t rng;
    sim_rng_seed(&rng, 1234, SIM_STREAM_NET, 0);
    e->net = sim_net_new(&e->engine, e->log, &rng, 3, link, on_deliver, e);
    assert_non_null(e->net);
}

static int setup(void **state) {
    env_t *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return -1;
    }
    sim_link_t l = const_link(1000);
    env_open(e, &l);
    *state = e;
    return 0;
}

static int teardown(void **state) {
    env_t *e = *state;
    sim_net_free(e->net);
    sim_log_free(e->log);
    fclose(e->text);
    sim_engine_free(&e->engine);
    free(e);
    return 0;
}

static void send_n(env_t *e, uint32_t src, uint32_t dst, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint8_t b = (uint8_t)i;
        assert_int_equal(sim_net_send(e->net, src, dst, &b, 1), 0);
    }
}

static void run_all(env_t *e) { (void)sim_engine_run(&e->engine, UINT64_MAX); }

/* ---- latency ---------------------------------------------------------------- */

static void send_later(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    env_t *e = ctx;
    uint8_t data[3] = {(uint8_t)arg, 2, 3};
    assert_int_equal(sim_net_send(e->net, 0, 1, data, sizeof data), 0);
}

static void test_const_latency_exact(void **state) {
    env_t *e = *state;
    assert_int_equal(sim_engine_schedule(&e->engine, 0, SIM_CLASS_WORKLOAD, send_later, e, 7, NULL), 0);
    assert_int_equal(sim_engine_schedule(&e->engine, 250, SIM_CLASS_WORKLOAD, send_later, e, 8, NULL), 0);
    run_all(e);
    assert_int_equal(e->n_seen, 2);
    assert_int_equal(e->seen[0].at, 1000);
    assert_int_equal(e->seen[0].first, 7);
    assert_int_equal(e->seen[0].len, 3);
    assert_int_equal(e->seen[0].src, 0);
    assert_int_equal(e->seen[0].dst, 1);
    assert_int_equal(e->seen[1].at, 1250);
    assert_int_equal(e->seen[1].first, 8);
}

static void draw_range(env_t *e, const sim_link_t *l, size_t n, sim_time_t *lo, sim_time_t *hi, double *mean) {
    sim_net_set_link(e->net, 0, 1, l);
    send_n(e, 0, 1, n);
    run_all(e);
    assert_int_equal(e->n_seen, n);
    *lo = UINT64_MAX;
    *hi = 0;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
        *lo = e->seen[i].at < *lo ? e->seen[i].at : *lo;
        *hi = e->seen[i].at > *hi ? e->seen[i].at : *hi;
        sum += (double)e->seen[i].at;
    }
    *mean = sum / (double)n;
}

/* 4000 draws of 51 values: both ends occur (a miss has probability < 1e-30). */
static void test_uniform_bounds(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(100);
    l.latency.kind = SIM_LAT_UNIFORM;
    l.latency.spread_us = 50;
    sim_time_t lo, hi;
    double mean;
    draw_range(e, &l, 4000, &lo, &hi, &mean);
    assert_int_equal(lo, 100);
    assert_int_equal(hi, 150);
}

static void test_jitter_bounds(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(200);
    l.latency.jitter_us = 10;
    sim_time_t lo, hi;
    double mean;
    draw_range(e, &l, 4000, &lo, &hi, &mean);
    assert_int_equal(lo, 200);
    assert_int_equal(hi, 210);
}

/* Mean 1000 us over 4000 draws: standard error ~16 us. */
static void test_exponential_mean(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(500);
    l.latency.kind = SIM_LAT_EXP;
    l.latency.spread_us = 1000;
    sim_time_t lo, hi;
    double mean;
    draw_range(e, &l, 4000, &lo, &hi, &mean);
    assert_true(lo >= 500);
    assert_true(mean > 1420.0 && mean < 1580.0);
}

/* Pareto(scale 100, shape 3): never below base + scale; mean scale * a / (a - 1) = 150
 * (standard error over 4000 draws ~1.4 us). */
static void test_pareto_floor_and_tail(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(50);
    l.latency.kind = SIM_LAT_PARETO;
    l.latency.spread_us = 100;
    l.latency.alpha = 3.0;
    sim_time_t lo, hi;
    double mean;
    draw_range(e, &l, 4000, &lo, &hi, &mean);
    assert_true(lo >= 150 && lo < 152);
    assert_true(hi > 600);
    assert_true(mean > 193.0 && mean < 207.0);
}

/* ---- loss --------------------------------------------------------------------- */

static void test_bernoulli_zero_delivers_all(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(10);
    l.loss.kind = SIM_LOSS_BERNOULLI;
    l.loss.p = 0.0;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 500);
    run_all(e);
    assert_int_equal(e->n_seen, 500);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_LOSS], 0);
}

static void test_bernoulli_one_drops_all(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(10);
    l.loss.kind = SIM_LOSS_BERNOULLI;
    l.loss.p = 1.0;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 500);
    run_all(e);
    assert_int_equal(e->n_seen, 0);
    assert_int_equal(sim_net_stats(e->net)->sent, 500);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_LOSS], 500);
}

static void test_bernoulli_rate(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(10);
    l.loss.kind = SIM_LOSS_BERNOULLI;
    l.loss.p = 0.3;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 4000);
    run_all(e);
    assert_in_range(sim_net_stats(e->net)->dropped[SIM_DROP_LOSS], 1050, 1350);
    assert_int_equal(e->n_seen + sim_net_stats(e->net)->dropped[SIM_DROP_LOSS], 4000);
}

static sim_link_t gilbert(double g2b, double b2g, double loss_good, double loss_bad) {
    sim_link_t l = const_link(10);
    l.loss.kind = SIM_LOSS_GILBERT;
    l.loss.p_good_to_bad = g2b;
    l.loss.p_bad_to_good = b2g;
    l.loss.loss_good = loss_good;
    l.loss.loss_bad = loss_bad;
    return l;
}

/* Lost by the current state, then the state moves: the first packet (good)
 * passes, every later one (bad forever) is lost. */
static void test_gilbert_enters_burst_and_stays(void **state) {
    env_t *e = *state;
    sim_link_t l = gilbert(1.0, 0.0, 0.0, 1.0);
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 10);
    run_all(e);
    assert_int_equal(e->n_seen, 1);
    assert_int_equal(e->seen[0].first, 0);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_LOSS], 9);
}

static void test_gilbert_alternates(void **state) {
    env_t *e = *state;
    sim_link_t l = gilbert(1.0, 1.0, 0.0, 1.0);
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 10);
    run_all(e);
    assert_int_equal(e->n_seen, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(e->seen[i].first, 2 * i);
    }
}

/* The state is per directed link and survives sim_net_set_link. */
static void test_gilbert_state_per_link_and_kept(void **state) {
    env_t *e = *state;
    sim_link_t l = gilbert(1.0, 0.0, 0.0, 1.0);
    sim_net_set_link(e->net, SIM_NODE_ANY, SIM_NODE_ANY, &l);
    send_n(e, 0, 1, 2); /* 0->1 is now bad */
    sim_link_t stay = gilbert(0.0, 0.0, 0.0, 1.0);
    sim_net_set_link(e->net, SIM_NODE_ANY, SIM_NODE_ANY, &stay);
    send_n(e, 0, 1, 3); /* still bad: lost */
    send_n(e, 1, 0, 3); /* never left good: delivered */
    run_all(e);
    assert_int_equal(e->n_seen, 4);
    assert_int_equal(e->seen[0].src, 0);
    for (size_t i = 1; i < 4; i++) {
        assert_int_equal(e->seen[i].src, 1);
    }
}

/* ---- duplication and reordering ------------------------------------------------- */

static void test_duplicate_always(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(100);
    l.duplicate_p = 1.0;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 50);
    run_all(e);
    assert_int_equal(e->n_seen, 100);
    assert_int_equal(sim_net_stats(e->net)->sent, 50);
    assert_int_equal(sim_net_stats(e->net)->duplicated, 50);
    assert_int_equal(sim_net_stats(e->net)->delivered, 100);
    assert_int_equal(e->seen[0].first, e->seen[1].first);
}

/* Each copy takes its own latency draw. */
static void test_duplicate_independent_latency(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(0);
    l.latency.kind = SIM_LAT_UNIFORM;
    l.latency.spread_us = 1000000;
    l.duplicate_p = 1.0;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 1);
    run_all(e);
    assert_int_equal(e->n_seen, 2);
    assert_true(e->seen[0].at != e->seen[1].at);
}

static void test_duplicate_rate(void **state) {
    env_t *e = *state;
    sim_link_t l = const_link(100);
    l.duplicate_p = 0.1;
    sim_net_set_link(e->net, 0, 1, &l);
    send_n(e, 0, 1, 4000);
    run_all(e);
    uint64_t dup = sim_net_stats(e->net)->duplicated;
    assert_in_range(dup, 300, 500);
    assert_int_equal(e->n_seen, 4000 + dup);
}

static void set_link_event(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    env_t *e = ctx;
    sim_net_set_link(e->net, 0, 1, ptr);
}

/* A packet held back by reorder_us arrives after one sent later without it. */
static void test_reorder_extra_delay(void **state) {
    env_t *e = *state;
    sim_link_t held = const_link(100);
    held.reorder_p = 1.0;
    held.reorder_us = 500;
    sim_link_t plain = const_link(100);
    sim_net_set_link(e->net, 0, 1, &held);
    assert_int_equal(sim_engine_schedule(&e->engine, 0, SIM_CLASS_WORKLOAD, send_later, e, 1, NULL), 0);
    assert_int_equal(sim_engine_schedule(&e->engine, 10, SIM_CLASS_CONTROL, set_link_event, e, 0, &plain), 0);
    assert_int_equal(sim_engine_schedule(&e->engine, 10, SIM_CLASS_WORKLOAD, send_later, e, 2, NULL), 0);
    run_all(e);
    assert_int_equal(e->n_seen, 2);
    assert_int_equal(e->seen[0].first, 2);
    assert_int_equal(e->seen[0].at, 110);
    assert_int_equal(e->seen[1].first, 1);
    assert_int_equal(e->seen[1].at, 600);
    assert_int_equal(sim_net_stats(e->net)->reordered, 1);
}

/* ---- partitions, link down/up, overrides ---------------------------------------- */

static void test_partition_in(void **state) {
    env_t *e = *state;
    sim_net_partition(e->net, 1, SIM_DIR_IN, true);
    send_n(e, 0, 1, 1);
    send_n(e, 1, 0, 1);
    run_all(e);
    assert_int_equal(e->n_seen, 1);
    assert_int_equal(e->seen[0].src, 1);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_PARTITION], 1);
}

static void test_partition_out(void **state) {
    env_t *e = *state;
    sim_net_partition(e->net, 1, SIM_DIR_OUT, true);
    send_n(e, 0, 1, 1);
    send_n(e, 1, 0, 1);
    send_n(e, 1, 2, 1);
    run_all(e);
    assert_int_equal(e->n_seen, 1);
    assert_int_equal(e->seen[0].src, 0);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_PARTITION], 2);
}

static void test_partition_both_and_heal(void **state) {
    env_t *e = *state;
    sim_net_partition(e->net, 1, SIM_DIR_BOTH, true);
    send_n(e, 0, 1, 1);
    send_n(e, 1, 0, 1);
    send_n(e, 0, 2, 1);
    run_all(e);
    assert_int_equal(e->n_seen, 1);
    assert_int_equal(e->seen[0].dst, 2);
    sim_net_partition(e->net, 1, SIM_DIR_IN, false); /* heal one direction */
    send_n(e, 0, 1, 1);
    send_n(e, 1, 0, 1);
    run_all(e);
    assert_int_equal(e->n_seen, 2);
    assert_int_equal(e->seen[1].dst, 1);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_PARTITION], 3);
}

static void set_down(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    env_t *e = ctx;
    sim_link_t l = *sim_net_link(e->net, 0, 1);
    l.down = arg != 0;
    sim_net_set_link(e->net, 0, 1, &l);
}

static void test_link_down_then_up(void **state) {
    env_t *e = *state;
    assert_int_equal(sim_engine_schedule(&e->engine, 100, SIM_CLASS_CONTROL, set_down, e, 1, NULL), 0);
    assert_int_equal(sim_engine_schedule(&e->engine, 200, SIM_CLASS_CONTROL, set_down, e, 0, NULL), 0);
    for (uint64_t t = 50; t <= 250; t += 50) { /* 50 .. 250: 100 and 150 are down (control first) */
        assert_int_equal(sim_engine_schedule(&e->engine, t, SIM_CLASS_WORKLOAD, send_later, e, t, NULL), 0);
    }
    run_all(e);
    assert_int_equal(e->n_seen, 3);
    assert_int_equal(e->seen[0].first, 50);
    assert_int_equal(e->seen[1].first, 200);
    assert_int_equal(e->seen[2].first, 250);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_DOWN], 2);
}

static void test_overrides_with_any(void **state) {
    env_t *e = *state;
    sim_link_t to2 = const_link(7);
    sim_link_t from0 = const_link(9);
    sim_net_set_link(e->net, SIM_NODE_ANY, 2, &to2);
    assert_int_equal(sim_net_link(e->net, 0, 2)->latency.base_us, 7);
    assert_int_equal(sim_net_link(e->net, 1, 2)->latency.base_us, 7);
    assert_int_equal(sim_net_link(e->net, 2, 2)->latency.base_us, 7);
    assert_int_equal(sim_net_link(e->net, 2, 0)->latency.base_us, 1000);
    sim_net_set_link(e->net, 0, SIM_NODE_ANY, &from0);
    assert_int_equal(sim_net_link(e->net, 0, 2)->latency.base_us, 9);
    assert_int_equal(sim_net_link(e->net, 0, 1)->latency.base_us, 9);
    assert_int_equal(sim_net_link(e->net, 1, 2)->latency.base_us, 7);
    assert_int_equal(sim_net_link(e->net, 1, 0)->latency.base_us, 1000);
    assert_null(sim_net_link(e->net, 3, 0));
    send_n(e, 1, 2, 1);
    send_n(e, 0, 1, 1);
    send_n(e, 2, 1, 1);
    run_all(e);
    assert_int_equal(e->seen[0].at, 7);
    assert_int_equal(e->seen[1].at, 9);
    assert_int_equal(e->seen[2].at, 1000);
}

/* ---- errors, stats, log, pool ---------------------------------------------------- */

static void test_send_rejects(void **state) {
    env_t *e = *state;
    uint8_t big[SIM_MAX_PACKET + 1u] = {0};
    assert_int_equal(sim_net_send(e->net, 0, 1, big, sizeof big), -1);
    assert_int_equal(sim_net_stats(e->net)->dropped[SIM_DROP_TOO_BIG], 1);
    assert_int_equal(sim_net_send(e->net, 0, 1, big, SIM_MAX_PACKET), 0);
    assert_int_equal(sim_net_send(e->net, 3, 1, big, 1), -1);
    assert_int_equal(sim_net_send(e->net, 0, SIM_NODE_ANY, big, 1), -1);
    assert_int_equal(sim_net_send(e->net, 0, 1, NULL, 1), -1);
    assert_int_equal(sim_net_stats(e->net)->sent, 2);
    run_all(e);
    assert_int_equal(e->n_seen, 1);
    assert_int_equal(e->seen[0].len, SIM_MAX_PACKET);
}

static void test_log_lines_and_stats(void **state) {
    env_t *e = *state;
    sim_net_partition(e->net, 2, SIM_DIR_IN, true);
    assert_int_equal(sim_engine_schedule(&e->engine, 5, SIM_CLASS_WORKLOAD, send_later, e, 0, NULL), 0);
    run_all(e);
    uint8_t b[4] = {0};
    assert_int_equal(sim_net_send(e->net, 1, 2, b, sizeof b), 0);
    fflush(e->text);
    rewind(e->text);
    char buf[256] = {0};
    assert_true(fread(buf, 1, sizeof buf - 1u, e->text) > 0);
    assert_string_equal(buf, "5 send 0 1 3\n1005 deliver 0 1 3\n1005 send 1 2 4\n1005 drop 1 2 3\n");
    const sim_net_stats_t *s = sim_net_stats(e->net);
    assert_int_equal(s->sent, 2);
    assert_int_equal(s->delivered, 1);
    assert_int_equal(s->dropped[SIM_DROP_PARTITION], 1);
    assert_int_equal(sim_log_count(e->log), 4);
}

/* 300 packets in flight at once (several pool chunks), then reused. */
static void test_many_in_flight(void **state) {
    env_t *e = *state;
    for (int round = 0; round < 2; round++) {
        e->n_seen = 0;
        send_n(e, 2, 0, 300);
        run_all(e);
        assert_int_equal(e->n_seen, 300);
        for (size_t i = 0; i < 300; i++) {
            assert_int_equal(e->seen[i].first, (uint8_t)i);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_const_latency_exact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_uniform_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_jitter_bounds, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exponential_mean, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pareto_floor_and_tail, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bernoulli_zero_delivers_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bernoulli_one_drops_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bernoulli_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gilbert_enters_burst_and_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gilbert_alternates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gilbert_state_per_link_and_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_always, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_independent_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reorder_extra_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_in, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partition_both_and_heal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_down_then_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overrides_with_any, setup, teardown),
        cmocka_unit_test_setup_teardown(test_send_rejects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_lines_and_stats, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_in_flight, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
