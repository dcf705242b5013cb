/* SPDX-License-Identifier: MIT */
/* dialect.h - `rl-testbed dialect`: which published variant a client speaks
 * (conformance/ADAPTER.md "Dialect report").
 *
 * A dialect file is an ordinary ratelimitly-vectors/v1 file whose tests each
 * carry one flag "dialect:<area>:<variant>": the expected value is the answer
 * of that variant ("spec" for the specification's). Its notes object explains
 * each such flag: what the variant does and what to change to reach the spec.
 * Expected fields are matched as a subset (only the fields a variant pins).
 * A test may also carry "dialect-under:<area>:<variant>" flags: the layouts of
 * other areas its answer is computed under; each area is judged under the
 * client's own layout (ADAPTER.md "Dialect report"). */
#ifndef DIALECT_H
#define DIALECT_H

#include <stdbool.h>

#include "adapter_proc.h"
#include "vec_runner.h"

/* Add arg (a file, or a directory: its *.json) to files; arg NULL adds the
 * default set: the .json files of vectors/dialect/. Returns false on out of memory. */
bool dialect_inputs(vec_file_list_t *files, const char *arg);

/* Ask the adapter every dialect test and print the per-area report (spec,
 * variant, none with the first differing field, partial, unsupported).
 * Returns 0 when every area the client supports matches the spec (partial on
 * the spec included) and every file was usable, else 1. */
int dialect_run(const vec_file_list_t *files, rl_adapter_t *a);

#endif /* DIALECT_H */
