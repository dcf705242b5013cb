/* vec_check.h - compare a valid test's `expected` with what the core produced.
 *
 * The adapter's result has exactly the schema's shape, so one structural
 * comparison checks every field (vectors-schema.md: "A runner checks every
 * field present in expected; an expected field it does not know is a failure").
 * The first difference is reported, e.g. "tests[2].expected.id_hex: want 00ab
 * got 11cd". */
#ifndef VEC_CHECK_H
#define VEC_CHECK_H

#include <stdbool.h>

#include <jansson.h>

#include "vec_json.h"

/* expected: the file's `expected` object at path; actual: the adapter's result;
 * known: the kind's NULL-terminated field list; kind: its name for messages.
 * Returns true when every field matches and none is missing or unknown. */
bool vec_check_expected(const json_t *expected, const json_t *actual, const char *const *known, const char *kind,
                        const vj_path_t *path, vj_err_t *e);

/* The fields of expected only, each present in actual and equal (a subset
 * match: the dialect report pins just the fields a variant changes). */
bool vec_check_fields(const json_t *expected, const json_t *actual, const vj_path_t *path, vj_err_t *e);

#endif /* VEC_CHECK_H */
