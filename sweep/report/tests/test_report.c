/* SPDX-License-Identifier: MIT */
/* test_report.c - the sweep report's Pareto front (hand-made point sets,
 * expected fronts worked out by hand from the definition: a point is on the
 * front when no other point is at most as large on both axes and smaller on
 * one), the loss-rate name rule and the loading of the committed fixture. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "report_int.h"

static void test_pareto_hand_set(void **state)
{
    (void)state;
    /*            A    B    C    D    E    F    G    H */
    double x[] = {1.0, 2.0, 3.0, 4.0, 2.0, 5.0, NAN, 6.0};
    double y[] = {5.0, 3.0, 3.0, 1.0, 3.0, 5.0, 0.0, 0.5};
    bool f[8];
    memset(f, 0xff, sizeof f);
    /* A: lowest x. B and E: equal points, nothing better on both. C: B has
     * the same y and a lower x. D: only A, B, E have lower x, all higher y.
     * F: dominated by A (equal y, lower x). G: NaN, never on the front.
     * H: lowest y among the numbers (G's 0 does not count). */
    assert_int_equal(rep_pareto_front(x, y, 8, f), 5);
    assert_true(f[0]);
    assert_true(f[1]);
    assert_false(f[2]);
    assert_true(f[3]);
    assert_true(f[4]);
    assert_false(f[5]);
    assert_false(f[6]);
    assert_true(f[7]);
}

static void test_pareto_one_point_dominates_all(void **state)
{
    (void)state;
    double x[] = {3.0, 0.0, 1.0, 0.0};
    double y[] = {0.0, 0.0, 2.0, 1.0};
    bool f[4];
    /* (0, 0) is at most as large as every point and smaller on one axis. */
    assert_int_equal(rep_pareto_front(x, y, 4, f), 1);
    assert_false(f[0]);
    assert_true(f[1]);
    assert_false(f[2]);
    assert_false(f[3]);
}

static void test_pareto_single_and_empty(void **state)
{
    (void)state;
    double x = 7.0, y = 7.0;
    bool f = false;
    assert_int_equal(rep_pareto_front(&x, &y, 1, &f), 1);
    assert_true(f);
    assert_int_equal(rep_pareto_front(NULL, NULL, 0, NULL), 0);
}

static void test_loss_from_name(void **state)
{
    (void)state;
    double p = -1.0;
    assert_true(rep_loss_from_name("loss-loss_p0.05", &p));
    assert_true(p == 0.05);
    assert_true(rep_loss_from_name("a-loss_p0.2-b", &p));
    assert_true(p == 0.2);
    p = -1.0;
    assert_false(rep_loss_from_name("loss_p0.05", &p));  /* not after a '-' */
    assert_false(rep_loss_from_name("x-loss_p1.5", &p)); /* not a probability */
    assert_false(rep_loss_from_name("x-loss_pabc", &p));
    assert_false(rep_loss_from_name("x-loss_p0.1x", &p));
    assert_true(p == -1.0);
}

static void test_load_fixture(void **state)
{
    (void)state;
    rep_data_t d;
    char err[512] = "";
    assert_int_equal(rep_data_load(REPORT_TEST_DIR "/fixture", &d, err, sizeof err), 0);
    assert_int_equal(d.n_configs, 4);
    assert_int_equal(d.n_traces, 4);
    assert_int_equal(d.n_seeds, 4);
    assert_string_equal(d.baseline, "default");
    assert_int_equal(d.baseline_idx, 0);
    assert_string_equal(d.configs[3].name, "u40");
    assert_true(d.configs[3].has_policy);
    assert_int_equal(d.configs[3].policy.unit_ms, 40);
    /* H = U * (B(0) + B(1) + F) = 40 * 3 */
    assert_int_equal(d.configs[3].horizon_ms, 120);
    assert_true(d.traces[1].has_loss);
    assert_true(d.traces[1].loss_p == 0.2);
    assert_false(d.traces[2].has_loss);
    const rep_stat_t *s = rep_stat(&d, 1, 0, REP_M_P99);
    assert_true(s->has);
    assert_true(s->mean == 1.0);
    assert_true(s->has_ci);
    rep_data_free(&d);
}

static void test_load_missing_dir(void **state)
{
    (void)state;
    rep_data_t d;
    char err[512] = "";
    assert_int_equal(rep_data_load(REPORT_TEST_DIR "/no-such-dir", &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "no-such-dir/summary.json: "));
    assert_int_equal(d.n_configs, 0);
    assert_null(d.stats);
}

static void test_load_bad_schema(void **state)
{
    (void)state;
    rep_data_t d;
    char err[512] = "";
    assert_int_equal(rep_data_load(REPORT_TEST_DIR "/bad_schema", &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad_schema/summary.json: schema: expected \"ratelimitly-sweep-summary/v1\""));
}

static void test_load_bad_number(void **state)
{
    (void)state;
    rep_data_t d;
    char err[512] = "";
    assert_int_equal(rep_data_load(REPORT_TEST_DIR "/bad_number", &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "bad_number/summary.json: rows[1].mean: expected a number or null"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pareto_hand_set),
        cmocka_unit_test(test_pareto_one_point_dominates_all),
        cmocka_unit_test(test_pareto_single_and_empty),
        cmocka_unit_test(test_loss_from_name),
        cmocka_unit_test(test_load_fixture),
        cmocka_unit_test(test_load_missing_dir),
        cmocka_unit_test(test_load_bad_schema),
        cmocka_unit_test(test_load_bad_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
