/* SPDX-License-Identifier: MIT */
/* test_fault.c - serve's scripted faults outside the model: the rate cap's
 * exact token counts, delay draws within their distribution's bounds, the
 * injected datagrams' shapes, and the reply queue's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "serve_fault.h"

static void test_ratecap_burst_then_refill(void **state) {
    (void)state;
    serve_ratecap_t rc;
    serve_ratecap_init(&rc, 10, 1000);
    for (int i = 0; i < 10; i++) {
        assert_true(serve_ratecap_take(&rc, 1000)); /* a burst of one second's worth */
    }
    assert_false(serve_ratecap_take(&rc, 1000));
    assert_false(serve_ratecap_take(&rc, 1099)); /* 99 ms = 0.99 token */
    assert_true(serve_ratecap_take(&rc, 1100));  /* 100 ms at 10/s = 1 token */
    assert_false(serve_ratecap_take(&rc, 1100));
    for (int i = 0; i < 10; i++) {
        assert_true(serve_ratecap_take(&rc, 60000)); /* a long pause refills to the burst only */
    }
    assert_false(serve_ratecap_take(&rc, 60000));
}

static void test_delay_bounds(void **state) {
    (void)state;
    sim_rng_t rng;
    sim_rng_seed(&rng, 1, SIM_STREAM_FAULT, 0);
    serve_delay_t none = {SERVE_DELAY_NONE, 0, 0}, fixed = {SERVE_DELAY_FIXED, 30, 0};
    serve_delay_t uni = {SERVE_DELAY_UNIFORM, 5, 7}, ex = {SERVE_DELAY_EXP, 10, 40};
    assert_int_equal(serve_delay_draw(&none, &rng), 0);
    assert_int_equal(serve_delay_draw(&fixed, &rng), 30);
    bool seen[3] = {false, false, false};
    bool capped = false;
    for (int i = 0; i < 2000; i++) {
        uint32_t u = serve_delay_draw(&uni, &rng);
        assert_true(u >= 5 && u <= 7);
        seen[u - 5] = true;
        uint32_t e = serve_delay_draw(&ex, &rng);
        assert_true(e <= 40);
        capped = capped || e == 40;
    }
    assert_true(seen[0] && seen[1] && seen[2]);
    assert_true(capped); /* P(exp(10) >= 40) = e^-4: about 37 of 2000 */
}

static void test_inject_shapes(void **state) {
    (void)state;
    sim_rng_t rng;
    sim_rng_seed(&rng, 2, SIM_STREAM_FAULT, 0);
    uint8_t reply[100];
    for (size_t i = 0; i < sizeof reply; i++) {
        reply[i] = (uint8_t)i;
    }
    uint8_t out[SERVE_DATAGRAM_MAX];
    size_t n = serve_inject_make(SERVE_INJECT_TRUNCATED, reply, sizeof reply, &rng, out);
    assert_true(n >= 1 && n < sizeof reply);
    assert_memory_equal(out, reply, n);
    n = serve_inject_make(SERVE_INJECT_TENANT_SIZE, reply, sizeof reply, &rng, out);
    assert_int_equal(n, sizeof reply);
    assert_int_equal(out[2], 36);
    assert_int_equal(out[3], 0);
    assert_memory_equal(out + 4, reply + 4, sizeof reply - 4);
    n = serve_inject_make(SERVE_INJECT_UNIQUE_ID, reply, sizeof reply, &rng, out);
    assert_int_equal(n, sizeof reply);
    assert_memory_equal(out, reply, 12);
    assert_memory_not_equal(out + 12, reply + 12, 16);
    assert_memory_equal(out + 28, reply + 28, sizeof reply - 28);
    n = serve_inject_make(SERVE_INJECT_GARBAGE, reply, sizeof reply, &rng, out);
    assert_true(n >= 1 && n <= SERVE_DATAGRAM_MAX);
    assert_string_equal(serve_inject_name(SERVE_INJECT_UNIQUE_ID), "reply with another unique_id");
}

static void test_queue_order_and_bound(void **state) {
    (void)state;
    serve_queue_t q;
    assert_int_equal(serve_queue_init(&q, 4), 0);
    serve_pending_t p;
    memset(&p, 0, sizeof p);
    const uint64_t due[4] = {30, 10, 30, 20};
    for (uint32_t i = 0; i < 4; i++) {
        p.due_ms = due[i];
        p.instance = i;
        assert_true(serve_queue_push(&q, &p));
    }
    assert_false(serve_queue_push(&q, &p)); /* full */
    const uint32_t order[4] = {1, 3, 0, 2}; /* by due time; equal times first in, first out */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(serve_queue_peek(&q)->instance, order[i]);
        serve_queue_pop(&q);
    }
    assert_null(serve_queue_peek(&q));
    serve_queue_free(&q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ratecap_burst_then_refill),
        cmocka_unit_test(test_delay_bounds),
        cmocka_unit_test(test_inject_shapes),
        cmocka_unit_test(test_queue_order_and_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
