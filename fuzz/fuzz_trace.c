/* SPDX-License-Identifier: MIT */
/* fuzz_trace.c - the simulator's trace loader (sim_trace_parse; docs/traces.md).
 *
 * Any bytes: either a config or an error that names the file ("fuzz.json: ")
 * and is NUL-terminated; never a crash or a leak. A loaded config is freed
 * (sim_config_free) and, when small enough, run for a few simulated
 * milliseconds so the world's setup paths see fuzzed configurations too. */
#include <string.h>

#include "fuzz_common.h"
#include "sim_trace.h"
#include "sim_world.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_dup_cstr(data, size);
    sim_config_t cfg;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = sim_trace_parse(text, size, "fuzz.json", &cfg, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1);
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
        FUZZ_CHECK(strncmp(err, "fuzz.json", 9) == 0);
    } else {
        /* Bound the run: a short horizon and few nodes keep each input fast. */
        if (cfg.n_servers <= 4 && cfg.n_clients <= 2 && cfg.duration_ms > 0) {
            cfg.duration_ms = cfg.duration_ms > 50 ? 50 : cfg.duration_ms;
            for (size_t i = 0; i < cfg.n_clients; i++) {
                if (cfg.clients[i].rate_per_s > 2000) cfg.clients[i].rate_per_s = 2000;
            }
            sim_result_t r;
            sim_run_opts_t o = {.events = NULL};
            if (sim_run(&cfg, cfg.seed, &o, &r, err, sizeof err) == 0) {
                FUZZ_CHECK(r.metrics.decided <= r.metrics.submitted);
                sim_result_free(&r);
            }
        }
        sim_config_free(&cfg);
    }
    free(text);
    return 0;
}
