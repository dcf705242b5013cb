/* SPDX-License-Identifier: MIT */
/* Unit tests for the simulator substrate (sim_engine.h): random streams
 * (sim_rng.c) and the event queue (sim_engine.c). The event log is in
 * test_log.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_engine.h"

/* ---- random streams ---------------------------------------------------------
 * Expected values computed independently with this Python 3 snippet (the
 * derivation documented in sim_rng.c; xoshiro256** as published):
 *
 *   M = (1 << 64) - 1
 *   def sm_next(x):
 *       x = (x + 0x9E3779B97F4A7C15) & M; z = x
 *       z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
 *       z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
 *       return x, z ^ (z >> 31)
 *   def seed(seed, stream, index):
 *       x, h = sm_next(seed); x, h = sm_next(h ^ stream); x = h ^ index; s = []
 *       for _ in range(4): x, v = sm_next(x); s.append(v)
 *       return s
 *   def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M
 *   def nxt(s):
 *       r = (rotl((s[1] * 5) & M, 7) * 9) & M; t = (s[1] << 17) & M
 *       s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
 *       s[3] = rotl(s[3], 45); return r
 *   s = seed(42, 1, 0); print([hex(v) for v in s]); print([hex(nxt(s)) for _ in range(4)])
 *   s = seed(42, 1, 1); print([hex(nxt(s)) for _ in range(2)])
 *   s = [1, 2, 3, 4];   print([nxt(s) for _ in range(4)])
 */
static void test_rng_seed_derivation(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 42, SIM_STREAM_NET, 0);
    assert_true(r.s[0] == 0x93be8420bb55b94cull);
    assert_true(r.s[1] == 0x1ad53e778ef35117ull);
    assert_true(r.s[2] == 0x5f84818bb2511a21ull);
    assert_true(r.s[3] == 0x817f892d0a65fdcdull);
}

static void test_rng_first_outputs_fixed_seed(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 42, SIM_STREAM_NET, 0);
    assert_true(sim_rng_u64(&r) == 0xbdfd821062a087dbull);
    assert_true(sim_rng_u64(&r) == 0x06c2e1f34acfb9e1ull);
    assert_true(sim_rng_u64(&r) == 0x0c7ca92e2905572bull);
    assert_true(sim_rng_u64(&r) == 0xc8d53c77dc10db71ull);
    sim_rng_seed(&r, 42, SIM_STREAM_NET, 1);
    assert_true(sim_rng_u64(&r) == 0x40666bd301deb710ull);
    assert_true(sim_rng_u64(&r) == 0x0df98bd60ef4d56aull);
}

/* The published xoshiro256** step from the state {1, 2, 3, 4}. */
static void test_rng_xoshiro_reference_state(void **state) {
    (void)state;
    sim_rng_t r = {{1, 2, 3, 4}};
    assert_true(sim_rng_u64(&r) == 11520u);
    assert_true(sim_rng_u64(&r) == 0u);
    assert_true(sim_rng_u64(&r) == 1509978240u);
    assert_true(sim_rng_u64(&r) == 1215971899390074240ull);
}

static void test_rng_same_seed_same_draws(void **state) {
    (void)state;
    sim_rng_t a, b;
    sim_rng_seed(&a, 7, SIM_STREAM_CLIENT, 3);
    sim_rng_seed(&b, 7, SIM_STREAM_CLIENT, 3);
    for (int i = 0; i < 1000; i++) {
        assert_true(sim_rng_u64(&a) == sim_rng_u64(&b));
    }
}

/* Seed, stream and index each select another sequence. */
static void test_rng_streams_differ(void **state) {
    (void)state;
    sim_rng_t r[4];
    sim_rng_seed(&r[0], 42, SIM_STREAM_NET, 0);
    sim_rng_seed(&r[1], 43, SIM_STREAM_NET, 0);
    sim_rng_seed(&r[2], 42, SIM_STREAM_DNS, 0);
    sim_rng_seed(&r[3], 42, SIM_STREAM_NET, 1);
    uint64_t first[4];
    for (int i = 0; i < 4; i++) {
        first[i] = sim_rng_u64(&r[i]);
    }
    for (int i = 0; i < 4; i++) {
        for (int k = i + 1; k < 4; k++) {
            assert_true(first[i] != first[k]);
        }
    }
}

/* Draws from one stream never shift another stream's draws. */
static void test_rng_streams_independent(void **state) {
    (void)state;
    sim_rng_t alone, mixed, other;
    sim_rng_seed(&alone, 9, SIM_STREAM_SERVER, 0);
    sim_rng_seed(&mixed, 9, SIM_STREAM_SERVER, 0);
    sim_rng_seed(&other, 9, SIM_STREAM_SERVER, 1);
    for (int i = 0; i < 100; i++) {
        for (int k = 0; k < i % 5; k++) {
            (void)sim_rng_u64(&other);
        }
        assert_true(sim_rng_u64(&alone) == sim_rng_u64(&mixed));
    }
}

static void test_rng_below_degenerate(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 1, 1, 1);
    assert_true(sim_rng_below(&r, 0) == 0);
    for (int i = 0; i < 100; i++) {
        assert_true(sim_rng_below(&r, 1) == 0);
    }
}

/* 70,000 draws in 7 buckets: each count within 4 % of 10,000 (about 10
 * standard deviations), and never out of range. */
static void test_rng_below_bounds_and_buckets(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 2024, SIM_STREAM_WORKLOAD, 0);
    uint64_t counts[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t v = sim_rng_below(&r, 7);
        assert_true(v < 7);
        counts[v]++;
    }
    for (int i = 0; i < 7; i++) {
        assert_in_range(counts[i], 9600, 10400);
    }
}

/* n just above 2^63 rejects almost half the draws: results stay below n and
 * both halves of the range occur. */
static void test_rng_below_huge_n(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 5, 5, 5);
    uint64_t n = (1ull << 63) + 1u;
    int high = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t v = sim_rng_below(&r, n);
        assert_true(v < n);
        high += v >= (1ull << 62) ? 1 : 0; /* n / 2 */
    }
    assert_in_range(high, 400, 600);
}

static void test_rng_unit_range(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 3, 3, 3);
    double lo = 1.0, hi = 0.0;
    for (int i = 0; i < 100000; i++) {
        double u = sim_rng_unit(&r);
        assert_true(u >= 0.0 && u < 1.0);
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    assert_true(lo < 0.001 && hi > 0.999);
}

/* p <= 0 and p >= 1 are decided without a draw. */
static void test_rng_chance_extremes_draw_nothing(void **state) {
    (void)state;
    sim_rng_t r, ref;
    sim_rng_seed(&r, 4, 4, 4);
    ref = r;
    assert_false(sim_rng_chance(&r, 0.0));
    assert_false(sim_rng_chance(&r, -1.0));
    assert_true(sim_rng_chance(&r, 1.0));
    assert_true(sim_rng_chance(&r, 2.0));
    assert_memory_equal(r.s, ref.s, sizeof r.s);
}

static void test_rng_chance_rate(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 11, 1, 0);
    int hits = 0;
    for (int i = 0; i < 100000; i++) {
        hits += sim_rng_chance(&r, 0.25) ? 1 : 0;
    }
    assert_in_range(hits, 24000, 26000);
}

/* Standard error of the mean is 50 / sqrt(100000) = 0.16: 1.5 % is ~5 sigma. */
static void test_rng_exp_mean(void **state) {
    (void)state;
    sim_rng_t r;
    sim_rng_seed(&r, 12, 1, 0);
    double sum = 0.0;
    for (int i = 0; i < 100000; i++) {
        double x = sim_rng_exp(&r, 50.0);
        assert_true(x >= 0.0);
        sum += x;
    }
    double mean = sum / 100000.0;
    assert_true(mean > 49.25 && mean < 50.75);
}

/* Bytes are the u64 draws in little-endian order; a tail takes a whole draw. */
static void test_rng_bytes_little_endian(void **state) {
    (void)state;
    sim_rng_t a, b;
    sim_rng_seed(&a, 42, SIM_STREAM_NET, 0);
    b = a;
    uint8_t out[11];
    sim_rng_bytes(&a, out, sizeof out);
    static const uint8_t want[11] = {0xdb, 0x87, 0xa0, 0x62, 0x10, 0x82, 0xfd, 0xbd, 0xe1, 0xb9, 0xcf};
    assert_memory_equal(out, want, sizeof want);
    (void)sim_rng_u64(&b);
    (void)sim_rng_u64(&b);
    assert_memory_equal(a.s, b.s, sizeof a.s);
}

/* ---- event queue ------------------------------------------------------------ */

typedef struct {
    sim_engine_t *e;
    uint64_t order[64];
    sim_time_t at[64];
    size_t n;
} trace_t;

static void record_event(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    trace_t *t = ctx;
    t->at[t->n] = sim_engine_now(t->e);
    t->order[t->n++] = arg;
}

static int engine_setup(void **state) {
    static sim_engine_t e;
    static trace_t t;
    if (sim_engine_init(&e) != 0) {
        return -1;
    }
    memset(&t, 0, sizeof t);
    t.e = &e;
    *state = &t;
    return 0;
}

static int engine_teardown(void **state) {
    trace_t *t = *state;
    sim_engine_free(t->e);
    return 0;
}

static void test_engine_orders_by_time(void **state) {
    trace_t *t = *state;
    static const sim_time_t times[] = {50, 10, 40, 20, 30, 0};
    for (uint64_t i = 0; i < 6; i++) {
        assert_int_equal(sim_engine_schedule(t->e, times[i], SIM_CLASS_TIMER, record_event, t, i, NULL), 0);
    }
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 6);
    static const uint64_t want[] = {5, 1, 3, 4, 2, 0};
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(t->order[i], want[i]);
        assert_int_equal(t->at[i], times[want[i]]);
    }
    assert_int_equal(sim_engine_now(t->e), 50);
    assert_int_equal(t->e->processed, 6);
}

/* Equal times: control, deliver, timer, workload, whatever the insertion order. */
static void test_engine_equal_times_by_class(void **state) {
    trace_t *t = *state;
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_WORKLOAD, record_event, t, 3, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_TIMER, record_event, t, 2, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_DELIVER, record_event, t, 1, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_CONTROL, record_event, t, 0, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 9, SIM_CLASS_WORKLOAD, record_event, t, 9, NULL), 0);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 5);
    static const uint64_t want[] = {9, 0, 1, 2, 3};
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(t->order[i], want[i]);
    }
}

/* Equal time and class: insertion order. */
static void test_engine_equal_class_by_seq(void **state) {
    trace_t *t = *state;
    for (uint64_t i = 0; i < 20; i++) {
        assert_int_equal(sim_engine_schedule(t->e, 7, SIM_CLASS_DELIVER, record_event, t, i, NULL), 0);
    }
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 20);
    for (uint64_t i = 0; i < 20; i++) {
        assert_int_equal(t->order[i], i);
    }
}

static void schedule_in_past(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    (void)ptr;
    trace_t *t = ctx;
    assert_int_equal(sim_engine_schedule(t->e, 50, SIM_CLASS_TIMER, record_event, t, 77, NULL), 0);
}

static void test_engine_past_clamps_to_now(void **state) {
    trace_t *t = *state;
    assert_int_equal(sim_engine_schedule(t->e, 100, SIM_CLASS_TIMER, schedule_in_past, t, 0, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 101, SIM_CLASS_TIMER, record_event, t, 1, NULL), 0);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 3);
    assert_int_equal(t->n, 2);
    assert_int_equal(t->order[0], 77);
    assert_int_equal(t->at[0], 100);
    assert_int_equal(t->order[1], 1);
}

static void test_engine_run_until(void **state) {
    trace_t *t = *state;
    for (uint64_t i = 1; i <= 3; i++) {
        assert_int_equal(sim_engine_schedule(t->e, i * 10, SIM_CLASS_TIMER, record_event, t, i, NULL), 0);
    }
    assert_int_equal(sim_engine_run(t->e, 20), 2);
    assert_int_equal(sim_engine_now(t->e), 20);
    assert_int_equal(t->e->len, 1);
    assert_int_equal(sim_engine_run(t->e, 29), 0);
    assert_int_equal(sim_engine_now(t->e), 20);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 1);
    assert_int_equal(t->order[2], 3);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 0);
}

static void stop_event(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    (void)ptr;
    trace_t *t = ctx;
    sim_engine_stop(t->e);
}

static void test_engine_stop(void **state) {
    trace_t *t = *state;
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_TIMER, stop_event, t, 0, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 10, SIM_CLASS_WORKLOAD, record_event, t, 1, NULL), 0);
    assert_int_equal(sim_engine_schedule(t->e, 20, SIM_CLASS_TIMER, record_event, t, 2, NULL), 0);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 1);
    assert_int_equal(t->n, 0);
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 2); /* the next run resumes */
    assert_int_equal(t->n, 2);
}

static void test_engine_rejects_bad_arguments(void **state) {
    trace_t *t = *state;
    assert_int_equal(sim_engine_schedule(t->e, 1, SIM_CLASS_TIMER, NULL, t, 0, NULL), -1);
    assert_int_equal(sim_engine_schedule(t->e, 1, (sim_event_class_t)4, record_event, t, 0, NULL), -1);
    assert_int_equal(t->e->len, 0);
}

typedef struct {
    sim_engine_t *e;
    sim_time_t last_at;
    uint64_t last_key;
    uint64_t count;
    bool ordered;
} order_check_t;

static void check_order(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    order_check_t *c = ctx;
    sim_time_t now = sim_engine_now(c->e);
    if (c->count > 0 && (now < c->last_at || (now == c->last_at && arg < c->last_key))) {
        c->ordered = false;
    }
    c->last_at = now;
    c->last_key = arg;
    c->count++;
}

/* 5000 pseudo-random (time, class) pairs: the heap grows past its first
 * allocation and still yields (time, class, seq) order. */
static void test_engine_many_events_ordered(void **state) {
    trace_t *t = *state;
    order_check_t c = {t->e, 0, 0, 0, true};
    sim_rng_t r;
    sim_rng_seed(&r, 99, 0, 0);
    for (uint64_t i = 0; i < 5000; i++) {
        sim_event_class_t cls = (sim_event_class_t)sim_rng_below(&r, 4);
        uint64_t key = ((uint64_t)cls << 56) | i;
        assert_int_equal(sim_engine_schedule(t->e, sim_rng_below(&r, 300), cls, check_order, &c, key, NULL), 0);
    }
    assert_int_equal(sim_engine_run(t->e, UINT64_MAX), 5000);
    assert_int_equal(c.count, 5000);
    assert_true(c.ordered);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_seed_derivation),
        cmocka_unit_test(test_rng_first_outputs_fixed_seed),
        cmocka_unit_test(test_rng_xoshiro_reference_state),
        cmocka_unit_test(test_rng_same_seed_same_draws),
        cmocka_unit_test(test_rng_streams_differ),
        cmocka_unit_test(test_rng_streams_independent),
        cmocka_unit_test(test_rng_below_degenerate),
        cmocka_unit_test(test_rng_below_bounds_and_buckets),
        cmocka_unit_test(test_rng_below_huge_n),
        cmocka_unit_test(test_rng_unit_range),
        cmocka_unit_test(test_rng_chance_extremes_draw_nothing),
        cmocka_unit_test(test_rng_chance_rate),
        cmocka_unit_test(test_rng_exp_mean),
        cmocka_unit_test(test_rng_bytes_little_endian),
        cmocka_unit_test_setup_teardown(test_engine_orders_by_time, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_equal_times_by_class, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_equal_class_by_seq, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_past_clamps_to_now, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_run_until, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_stop, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_rejects_bad_arguments, engine_setup, engine_teardown),
        cmocka_unit_test_setup_teardown(test_engine_many_events_ordered, engine_setup, engine_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
