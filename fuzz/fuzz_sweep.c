/* SPDX-License-Identifier: MIT */
/* fuzz_sweep.c - the sweep file loader (sweep_parse; docs/sweep.md "Sweep
 * file"): JSON parsing, configurations and grid expansion, trace entries and
 * their variants, seeds, baseline. No trace file is read.
 *
 * Any bytes: either an error that names the file ("fuzz.json") and is
 * NUL-terminated, with the output zeroed; or a sweep within the documented
 * limits (1 .. 4096 configurations with unique names of the name alphabet,
 * a baseline among them, unique seeds, units <= 1,000,000), and a second
 * parse gives the same sweep. */
#include <string.h>

#include "fuzz_common.h"
#include "sweep.h"

static bool name_ok(const char *s) {
    if (s[0] == '\0' || strlen(s) >= SWEEP_NAME_MAX) return false;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '.' || *s == '-' || *s == '=')) {
            return false;
        }
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_dup_cstr(data, size);
    sweep_t sw;
    char err[512];
    memset(err, 'x', sizeof err);
    int rc = sweep_parse(text, size, "fuzz.json", "", &sw, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == -1);
        FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
        FUZZ_CHECK(strncmp(err, "fuzz.json: ", 11) == 0);
        FUZZ_CHECK(sw.configs == NULL && sw.traces == NULL && sw.seeds == NULL && sw.n_configs == 0);
    } else {
        FUZZ_CHECK(sw.n_configs >= 1 && sw.n_configs <= SWEEP_MAX_CONFIGS);
        FUZZ_CHECK(sw.baseline < sw.n_configs);
        FUZZ_CHECK(sw.n_traces >= 1 && sw.n_traces <= SWEEP_MAX_VARIANTS);
        FUZZ_CHECK(sw.n_entries >= 1 && sw.n_entries <= SWEEP_MAX_TRACES);
        FUZZ_CHECK(sw.n_seeds >= 1 && sw.n_seeds <= SWEEP_MAX_SEEDS);
        FUZZ_CHECK(sweep_units(&sw) <= SWEEP_MAX_UNITS);
        for (size_t i = 0; i < sw.n_configs; i++) {
            FUZZ_CHECK(name_ok(sw.configs[i].name));
            for (size_t j = 0; j < i; j++) FUZZ_CHECK(strcmp(sw.configs[i].name, sw.configs[j].name) != 0);
        }
        for (size_t i = 0; i < sw.n_seeds; i++) {
            for (size_t j = 0; j < i && sw.n_seeds <= 256; j++) FUZZ_CHECK(sw.seeds[i] != sw.seeds[j]);
        }
        for (size_t i = 0; i < sw.n_traces; i++) {
            FUZZ_CHECK(sw.traces[i].entry < sw.n_entries);
            FUZZ_CHECK(sw.traces[i].path != NULL && sw.traces[i].sets_json != NULL);
        }
        sweep_t again;
        char err2[512];
        FUZZ_CHECK(sweep_parse(text, size, "fuzz.json", "", &again, err2, sizeof err2) == 0);
        FUZZ_CHECK(again.n_configs == sw.n_configs && again.n_traces == sw.n_traces && again.n_seeds == sw.n_seeds);
        FUZZ_CHECK(strcmp(again.canonical, sw.canonical) == 0);
        for (size_t i = 0; i < sw.n_configs; i++) {
            FUZZ_CHECK(memcmp(&again.configs[i].policy, &sw.configs[i].policy, sizeof sw.configs[i].policy) == 0);
        }
        sweep_free(&again);
        sweep_free(&sw);
    }
    free(text);
    return 0;
}
