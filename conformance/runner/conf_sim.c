/* SPDX-License-Identifier: MIT */
/* conf_sim.c - simulator traces as conformance cases (conf_sim.h). Built
 * without the simulator (RCLIENT_BUILD_SIM=OFF), a trace file fails with a
 * message saying so. */
#include <stdio.h>
#include <string.h>

#include "conf_sim.h"

#ifdef RL_WITH_SIM
#include "sim_trace.h"
#include "sim_world.h"
#endif

bool conf_is_trace_file(const json_t *root)
{
    const char *schema = json_string_value(json_object_get(root, "schema"));
    return schema != NULL && strcmp(schema, CONF_TRACE_SCHEMA_ID) == 0;
}

#ifdef RL_WITH_SIM
bool conf_simulator_built(void)
{
    return true;
}

bool conf_judge_trace(const char *path, char *detail, size_t cap)
{
    sim_config_t cfg;
    char err[512];
    detail[0] = '\0';
    if (sim_trace_load(path, &cfg, err, sizeof err) != 0) {
        snprintf(detail, cap, "%s", err);
        return false;
    }
    sim_result_t r;
    sim_run_opts_t ro = {.events = NULL};
    bool pass = false;
    if (sim_run(&cfg, cfg.seed, &ro, &r, err, sizeof err) != 0) {
        snprintf(detail, cap, "run failed: %s", err);
    } else {
        pass = r.expects_failed == 0;
        for (size_t i = 0; i < r.n_expects; i++) {
            if (!r.expects[i].passed) {
                snprintf(detail, cap, "expectation failed: %s", r.expects[i].message);
                break;
            }
        }
        if (pass)
            snprintf(detail, cap, "%zu expectations, seed %llu, digest %.16s", r.n_expects,
                     (unsigned long long)r.seed, r.digest);
        sim_result_free(&r);
    }
    sim_config_free(&cfg);
    return pass;
}
#else
bool conf_simulator_built(void)
{
    return false;
}

bool conf_judge_trace(const char *path, char *detail, size_t cap)
{
    (void)path;
    snprintf(detail, cap, "this build has no simulator (RCLIENT_BUILD_SIM=OFF)");
    return false;
}
#endif
