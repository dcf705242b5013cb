/* SPDX-License-Identifier: MIT */
/* conf_runner.h - the `rl-testbed conformance` command: every vector file,
 * every HA decision case and every simulator trace with expectations, one
 * report, closing line "conformance: N passed, N failed" (conformance/README.md). */
#ifndef CONF_RUNNER_H
#define CONF_RUNNER_H

#include <stdbool.h>

#include "conf_case.h"
#include "vec_report.h"
#include "vec_runner.h"

typedef struct {
    bool quiet;             /* print failing rows only */
    const char *junit_path; /* NULL: no JUnit XML */
    bool vectors_only;      /* vector files only: no cases, no simulator traces */
    bool cases_only;        /* HA cases and simulator traces only */
    struct rl_adapter *client; /* NULL: the built-in C runner; else the adapter to drive */
    vec_gate_t gate;        /* --require, --min-pass, --fail-on-skip, --verbose, --norm, --json */
} conf_options_t;

/* Expand the command-line arguments (files, or directories: their *.json,
 * sorted) into out; with none, the default set: the .json files of vectors/,
 * ../shared/external/ and conformance/cases/ (relative to the
 * current directory when ./vectors exists, else the source tree), filtered by
 * the options. Returns false on out of memory. */
bool conf_inputs(char **args, int n_args, const conf_options_t *opt, vec_file_list_t *out);

/* Run everything and print the tables and the closing line. Returns the exit
 * status: 0 when all passed and every gate of opt->gate is met, 1 on a
 * failure or a gate not met, 2 when the JUnit file cannot be created. */
int conf_run(const vec_file_list_t *files, const conf_options_t *opt);

/* Tag v (a case's verdict) with the case's step, norm (its "spec" entries,
 * or "project: ..." for a convention, c_api or late-timer case) and failure
 * severity (conf_norm.c). */
void conf_case_tag(const conf_case_t *c, vec_case_t *v);

#endif /* CONF_RUNNER_H */
