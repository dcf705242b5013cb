/* SPDX-License-Identifier: MIT */
/* sim_run_util.h - test helper: parse a trace from text and run it with the
 * event log captured in memory. Include after <cmocka.h>, "sim_trace.h" and
 * "sim_world.h". */
#ifndef SIM_RUN_UTIL_H
#define SIM_RUN_UTIL_H

/* Parse `text` (named `name` in errors), run it with `seed`, fill *r (the
 * caller frees it with sim_result_free) and return the text event log
 * (owned, free()). Any parse or run error fails the test. */
static char *sim_test_run_events(const char *text, const char *name, uint64_t seed, sim_result_t *r) {
    sim_config_t cfg;
    char err[300];
    if (sim_trace_parse(text, strlen(text), name, &cfg, err, sizeof err) != 0) fail_msg("trace: %s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    sim_run_opts_t o = {.events = f};
    if (sim_run(&cfg, seed, &o, r, err, sizeof err) != 0) fail_msg("run: %s", err);
    fclose(f);
    sim_config_free(&cfg);
    return buf;
}

#endif /* SIM_RUN_UTIL_H */
