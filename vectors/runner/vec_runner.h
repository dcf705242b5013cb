/* SPDX-License-Identifier: MIT */
/* vec_runner.h - the `rl-testbed vectors` command: run known-answer files in
 * the ratelimitly-vectors/v1 schema (../shared/vectors-schema.md). */
#ifndef VEC_RUNNER_H
#define VEC_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "vec_report.h"

#include "vec_kinds.h"

/* Who answers a test: NULL means the built-in C kinds (vec_kinds.h); an
 * adapter backend (vec_client.h) asks the client under test instead. run
 * must set run->status exactly as a built-in kind does. */
typedef struct vec_backend {
    void (*run)(void *ctx, const vec_kind_t *kind, const json_t *input, const vj_path_t *path, vec_run_t *run);
    void *ctx;
} vec_backend_t;

typedef struct {
    bool quiet;             /* print failing rows only */
    const char *junit_path; /* NULL: no JUnit XML */
    const vec_backend_t *backend; /* NULL: the built-in C runner */
    vec_gate_t gate;        /* --require, --min-pass, --fail-on-skip, --verbose, --norm, --json */
} vec_options_t;

/* One file to run. no_match marks a required glob that matched nothing; it is
 * reported as a failure under its pattern instead of silently passing. */
typedef struct {
    char *path;
    bool no_match;
} vec_file_t;

typedef struct {
    vec_file_t *files;
    size_t n, cap;
} vec_file_list_t;

/* The default file set: every .json file of <base>/vectors (required), then
 * of <base>/external when base is an installed data directory, else of
 * <base>/../shared/external (optional), each sorted, where base is
 * vec_default_base(). Returns false on out of memory. */
bool vec_default_files(vec_file_list_t *out);
bool vec_file_list_add(vec_file_list_t *list, const char *path, bool no_match);
void vec_file_list_free(vec_file_list_t *list);

/* Run the files and print the table and the closing line. Returns the exit
 * status: 0 when every test of every file passed and every gate of
 * opt->gate is met, 1 otherwise, 2 when a report file cannot be written. */
int vec_run(const vec_file_list_t *files, const vec_options_t *opt);

/* Building blocks shared with `rl-testbed conformance`. */
/* Load a JSON file; NULL with msg ("(file): ..." or "(json): ...") on failure. */
json_t *vec_load_file(const char *path, char *msg, size_t cap);
/* Load a listed file; when it has no match or does not load, report that as
 * the file's one failure and return NULL. */
json_t *vec_open_listed_file(vec_report_t *r, const vec_file_t *f);
/* True when root declares the ratelimitly-vectors/v1 schema. */
bool vec_is_vector_file(const json_t *root);
/* Run one loaded vector file into r (a table, its tests counted). */
void vec_run_root(vec_report_t *r, const char *path, const json_t *root);
/* Count one failure "<path>: <msg>" for a file that cannot be run. */
void vec_report_file_failure(vec_report_t *r, const char *path, const char *msg);
/* Add the sorted matches of pattern; a required pattern without matches is
 * added as a no_match entry. Returns false on out of memory. */
bool vec_add_glob(vec_file_list_t *list, const char *pattern, bool required);
/* The directory the default file sets are relative to, the first that
 * applies (README "Installed data"): "" (the current directory) when
 * ./vectors exists; $RL_TESTBED_DATA when set and not empty; the installed
 * data directory beside the running binary (<bin>/../share/rl-testbed) when
 * it holds vectors/; the source tree the binary was built from when it still
 * holds vectors/; else the compiled-in install data directory (RL_DATA_DIR).
 * The string is static. */
const char *vec_default_base(void);
/* The per-file processing of vec_run on a file already in memory:
 * data[0..len) (not NUL-terminated) is parsed and checked as if read from a
 * file called name, and its cases are recorded in r (from vec_report_open;
 * the caller ends the file with vec_report_file_end). Touches no file: the
 * vector_file fuzz harness drives the loader through here. */
void vec_run_buffer(vec_report_t *r, const char *name, const char *data, size_t len);

#endif /* VEC_RUNNER_H */
