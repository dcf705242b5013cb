/* SPDX-License-Identifier: MIT */
/* fuzz_vector_file.c - the vector-file loader and checker of rl-testbed
 * (vec_run_buffer: jansson parsing with duplicate keys rejected, envelope
 * checks, every kind adapter and the expected-value comparison;
 * ../shared/vectors-schema.md).
 *
 * The input is the file's bytes, run in memory with the report silenced.
 * Checks: no crash, leak or sanitizer report on any file, and every file
 * yields at least one reported case (a broken file is one failure). */
#include <jansson.h>

#include "fuzz_common.h"
#include "vec_runner.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* jansson seeds its hash function from /dev/urandom on first use: a fixed
     * seed keeps runs deterministic and the harness free of I/O. */
    json_object_seed(1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = (char *)fuzz_dup(data, size);
    vec_report_t r;
    FUZZ_CHECK(vec_report_open(&r, "vectors", true, NULL));
    r.out = NULL;
    vec_run_buffer(&r, "fuzz.json", text, size);
    vec_report_file_end(&r);
    FUZZ_CHECK(r.passed + r.failed >= 1);
    FUZZ_CHECK(vec_report_close(&r, NULL));
    free(text);
    return 0;
}
