/* SPDX-License-Identifier: MIT */
/* vec_check.h - compare a valid test's `expected` with what the core produced.
 *
 * The adapter's result has exactly the schema's shape, so one structural
 * comparison checks every field (vectors-schema.md: "A runner checks every
 * field present in expected; an expected field it does not know is a failure").
 * Every difference is reported, wrong values before absent fields, joined by
 * "; ", e.g. "tests[2].expected.key_id: want 5 (0x5) got 6 (0x6);
 * tests[2].expected.quota_word: absent from the client's output"; a decimal
 * 64-bit value is shown in decimal and hex. */
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

/* As vec_check_expected; from_client names an expected field the output
 * lacks "absent from the client's output" (an adapter that answered short)
 * instead of a field the input does not produce. */
bool vec_check_output(const json_t *expected, const json_t *actual, const char *const *known, const char *kind,
                      const vj_path_t *path, bool from_client, vj_err_t *e);

/* The fields of expected only, each present in actual and equal (a subset
 * match: the dialect report pins just the fields a variant changes). */
bool vec_check_fields(const json_t *expected, const json_t *actual, const vj_path_t *path, vj_err_t *e);
/* (vec_check_fields reports the first difference only.) */

#endif /* VEC_CHECK_H */
