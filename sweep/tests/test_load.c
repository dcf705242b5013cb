/* SPDX-License-Identifier: MIT */
/* test_load.c - the sweep file loader (docs/sweep.md "Sweep file"): accepted
 * files expand as documented (presets, grid order and names, seed ranges,
 * variants), and every malformed file is refused naming the file and field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sweep.h"

#define HEAD "{\"schema\": \"ratelimitly-sweep/v1\", "
#define TR "\"traces\": [\"t.json\"], \"seeds\": [1]"

static int parse(const char *text, sweep_t *sw, char *err, size_t cap) {
    return sweep_parse(text, strlen(text), "s.json", "dir", sw, err, cap);
}

static void expect_error(const char *text, const char *want) {
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(text, &sw, err, sizeof err), -1);
    if (strcmp(err, want) != 0) fail_msg("got  \"%s\"\nwant \"%s\"", err, want);
    assert_null(sw.configs);
}

static void presets_and_objects(void **state) {
    (void)state;
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(HEAD "\"configurations\": [\"default\", \"api_md\", {\"name\": \"u10\", \"unit_ms\": 10}], " TR "}",
                           &sw, err, sizeof err), 0);
    assert_int_equal(sw.n_configs, 3);
    assert_string_equal(sw.name, "s");
    assert_string_equal(sw.configs[1].name, "api_md");
    /* r-client.md 9.3.5 default: U = 20, N = 1; u10 starts from it */
    assert_int_equal(sw.configs[0].policy.unit_ms, 20);
    assert_int_equal(sw.configs[2].policy.unit_ms, 10);
    assert_int_equal(sw.configs[2].policy.replay_count, 1);
    /* api.md: P(k >= 1) = 0 by an exponential schedule with factor 0 (docs/traces.md presets) */
    assert_int_equal(sw.configs[1].policy.preference.kind, R_HA_SCHEDULE_EXPONENTIAL);
    assert_int_equal(sw.configs[1].policy.preference.growth.exponential_factor, 0);
    assert_int_equal(sw.baseline, 0);
    assert_string_equal(sw.traces[0].path, "dir/t.json");
    sweep_free(&sw);
}

/* First axis slowest; names <grid>-<label><value>. */
static void grid_order_and_names(void **state) {
    (void)state;
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(HEAD "\"configurations\": [\"default\"], \"grids\": [{\"name\": \"g\", \"axes\": ["
                                "{\"field\": \"unit_ms\", \"label\": \"U\", \"values\": [10, 40]},"
                                "{\"field\": \"completion_delivery\", \"label\": \"C\", \"values\": [true, false]}]}], " TR "}",
                           &sw, err, sizeof err), 0);
    assert_int_equal(sw.n_configs, 5);
    assert_string_equal(sw.configs[1].name, "g-U10-Ctrue");
    assert_string_equal(sw.configs[2].name, "g-U10-Cfalse");
    assert_string_equal(sw.configs[3].name, "g-U40-Ctrue");
    assert_int_equal(sw.configs[4].policy.unit_ms, 40);
    assert_false(sw.configs[4].policy.completion_delivery);
    sweep_free(&sw);
}

/* A fixed schedule given initial_units only follows with max_units (docs/traces.md "policy"). */
static void grid_schedule_field(void **state) {
    (void)state;
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(HEAD "\"configurations\": [\"default\"], \"grids\": [{\"name\": \"b\", \"axes\": ["
                                "{\"field\": \"replay_gap.initial_units\", \"label\": \"B\", \"values\": [3]}]}], " TR "}",
                           &sw, err, sizeof err), 0);
    assert_string_equal(sw.configs[1].name, "b-B3");
    assert_int_equal(sw.configs[1].policy.replay_gap.initial_units, 3);
    assert_int_equal(sw.configs[1].policy.replay_gap.max_units, 3);
    sweep_free(&sw);
}

static void seed_range_and_hex(void **state) {
    (void)state;
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(HEAD "\"configurations\": [\"default\"], \"traces\": [\"t.json\"], "
                                "\"seeds\": {\"first\": \"0xfffffffffffffffe\", \"count\": 2}}", &sw, err, sizeof err), 0);
    assert_int_equal(sw.n_seeds, 2);
    assert_true(sw.seeds[1] == UINT64_MAX);
    sweep_free(&sw);
    expect_error(HEAD "\"configurations\": [\"default\"], \"traces\": [\"t.json\"], "
                      "\"seeds\": {\"first\": \"0xffffffffffffffff\", \"count\": 2}}",
                 "s.json: seeds.count: the range passes 18446744073709551615");
}

static void variants_expand(void **state) {
    (void)state;
    sweep_t sw;
    char err[512] = "";
    assert_int_equal(parse(HEAD "\"configurations\": [\"default\"], \"traces\": [\"a.json\", {\"path\": \"/abs/l.json\", \"name\": \"loss\","
                                "\"vary\": [{\"field\": \"links.default.loss.loss_p\", \"label\": \"p\", \"values\": [0.01, 0.2]}]}], "
                                "\"seeds\": [5, 3]}", &sw, err, sizeof err), 0);
    assert_int_equal(sw.n_traces, 3);
    assert_int_equal(sw.n_entries, 2);
    assert_string_equal(sw.traces[1].name, "loss-p0.01");
    assert_string_equal(sw.traces[2].name, "loss-p0.2");
    assert_string_equal(sw.traces[2].path, "/abs/l.json");
    assert_string_equal(sw.traces[2].sets_json, "{\"links.default.loss.loss_p\":0.20000000000000001}");
    assert_int_equal(sweep_units(&sw), 6);
    size_t c, t, s;
    sweep_unit_split(&sw, 5, &c, &t, &s);
    assert_true(c == 0 && t == 2 && s == 1);
    sweep_free(&sw);
}

static void errors_name_the_field(void **state) {
    (void)state;
    expect_error(HEAD "\"configurations\": [\"default\", \"api_md\", \"fastest_valid\", {\"name\": \"x\", \"replay_gap\": {\"kind\": \"fixd\"}}], " TR "}",
                 "s.json: configurations[3].replay_gap.kind: expected one of fixed, linear, exponential");
    expect_error("{\"schema\": \"ratelimitly-trace/v1\"}", "s.json: schema: expected \"ratelimitly-sweep/v1\"");
    expect_error(HEAD "\"configurations\": [\"default\"], \"trace\": [], " TR "}", "s.json: trace: unknown field");
    expect_error(HEAD "\"configurations\": [\"nope\"], " TR "}",
                 "s.json: configurations[0]: expected one of default, api_md, strict_oldest, oldest_preferred, fastest_valid");
    expect_error(HEAD "\"configurations\": [\"default\", {\"name\": \"default\"}], " TR "}",
                 "s.json: configurations[1]: duplicate configuration name \"default\" (also configurations[0])");
    expect_error(HEAD "\"configurations\": [{\"name\": \"a b\"}], " TR "}",
                 "s.json: configurations[0].name: \"a b\": use only letters, digits, '_', '.', '-' and '='");
    expect_error(HEAD "\"configurations\": [\"api_md\"], " TR "}",
                 "s.json: baseline: no configuration named \"default\" (the default baseline): add the default preset as a configuration or name a baseline");
    expect_error(HEAD "\"configurations\": [\"default\"], \"baseline\": \"zz\", " TR "}", "s.json: baseline: no configuration named \"zz\"");
    expect_error(HEAD "\"configurations\": [\"default\"], \"traces\": [\"t.json\"], \"seeds\": [1, 2, 1]}",
                 "s.json: seeds: duplicate seed 1");
    expect_error(HEAD "\"configurations\": [\"default\"], \"traces\": [], \"seeds\": [1]}", "s.json: traces: expected at least one trace");
    expect_error(HEAD "\"configurations\": [\"default\"], \"traces\": [\"t.json\"]}", "s.json: seeds: missing (required)");
    expect_error(HEAD "\"configurations\": [\"default\"], \"grids\": [{\"name\": \"g\", \"axes\": [{\"field\": \"unit\", \"values\": [1]}]}], " TR "}",
                 "s.json: grids[0].axes[0].field: \"unit\" is not a policy field (expected preset, unit_ms, replay_count, "
                 "final_receive_units, final_preference_units, completion_delivery, or replay_gap./preference. kind, "
                 "initial_units, max_units, linear_step_units, exponential_factor)");
    expect_error(HEAD "\"configurations\": [\"default\"], \"grids\": [{\"name\": \"g\", \"axes\": [{\"field\": \"unit_ms\", \"values\": [1, -1]}]}], " TR "}",
                 "s.json: grids[0].axes[0].values[1]: expected an integer 0..4294967295");
    expect_error(HEAD "\"configurations\": [\"default\"], \"grids\": [{\"name\": \"g\", \"axes\": [{\"field\": \"unit_ms\", \"values\": [1, 1]}]}], " TR "}",
                 "s.json: grids[0].axes[0].values[1]: duplicate value (also values[0])");
    expect_error(HEAD "\"configurations\": [\"default\"], \"traces\": [{\"path\": \"t.json\", \"vary\": [{\"field\": \"a..b\", \"values\": [1]}]}], \"seeds\": [1]}",
                 "s.json: traces[0].vary[0].field: \"a..b\": expected a path of keys and [index] (e.g. links.default.loss.loss_p)");
    expect_error(HEAD "\"configurations\": [\"default\"], " TR ", \"seeds\": [2]}", "s.json: line 1 column 109: duplicate object key near '\"seeds\"'");
    expect_error("[1]", "s.json: expected a JSON object at the top level");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(presets_and_objects), cmocka_unit_test(grid_order_and_names),
        cmocka_unit_test(grid_schedule_field), cmocka_unit_test(seed_range_and_hex),
        cmocka_unit_test(variants_expand),     cmocka_unit_test(errors_name_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
