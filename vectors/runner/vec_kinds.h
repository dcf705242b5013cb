/* SPDX-License-Identifier: MIT */
/* vec_kinds.h - the kind dispatch table of the vector runner
 * (../shared/vectors-schema.md "Kinds").
 *
 * A kind adapter reads its input fields, drives the core, and reports either
 * an accepted result, built as JSON in exactly the shape of the schema's valid
 * `expected`, or a rejection with its schema error class. The runner compares
 * that against the file, so adapters hold no comparison code. */
#ifndef VEC_KINDS_H
#define VEC_KINDS_H

#include <stdbool.h>

#include <jansson.h>

#include "r_client.h"
#include "rl_response.h"
#include "vec_json.h"

typedef enum {
    VEC_RUN_ACCEPTED = 0, /* actual holds the result */
    VEC_RUN_REJECTED = 1, /* error_class and reason say why */
    VEC_RUN_BAD_INPUT = 2, /* err.msg names the input field the file got wrong; with
                              err.range set the runner treats it as rejected, class range */
    VEC_RUN_UNSUPPORTED = 3 /* an adapter's client cannot run this test (reason says why) */
} vec_run_status_t;

typedef struct {
    vec_run_status_t status;
    json_t *actual;          /* ACCEPTED: owned by the runner after the call */
    const char *error_class; /* REJECTED: one of the schema classes (static); NULL when an
                                adapter's client reports no class (behaviour judged alone) */
    char reason[256];        /* REJECTED, UNSUPPORTED: the core's message naming the failed rule */
    const char *stage;       /* REJECTED: the step refused at (vec_norm.h; static), NULL when not
                                reported: a built-in kind then refused at its final step */
    vj_err_t err;            /* BAD_INPUT */
    const json_t *unproduced; /* ACCEPTED from an adapter: top-level output fields its client declared it
                                 does not produce (array of strings, borrowed); NULL: none */
    char undeclared[160];    /* a key test whose key format or auth mode the adapter's client declared
                                it does not take: a valid test is skipped (the key cannot be accepted),
                                an invalid one is still judged; "" otherwise */
} vec_run_t;

/* input: the test's `input` object (already checked to be an object);
 * path: its path, "tests[i].input". Must set run->status. */
typedef void (*vec_kind_fn)(const json_t *input, const vj_path_t *path, vec_run_t *run);

typedef struct {
    const char *name;
    vec_kind_fn run;                    /* NULL: kind of the schema this build cannot run */
    const char *const *expected_fields; /* NULL-terminated top-level fields of a valid `expected` */
} vec_kind_t;

/* Look a kind up by name (the JSON string v). NULL when the schema has no such kind. */
const vec_kind_t *vec_kind_find(const json_t *name);

/* The schema's error classes, in precedence order, NULL-terminated. */
extern const char *const vec_error_classes[];
bool vec_is_error_class(const json_t *v);

/* Map core rejections to schema error classes. */
const char *vec_key_error_class(r_key_error_t reason);
const char *vec_verdict_class(rl_verdict_class_t cls);

/* Helpers for adapters. */
void vec_run_reject(vec_run_t *run, const char *error_class, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void vec_run_accept(vec_run_t *run, json_t *actual);  /* NULL actual (out of memory) -> bad input */
json_t *vec_json_hex(const uint8_t *bytes, size_t len);
json_t *vec_json_dec_u64(uint64_t x);
json_t *vec_json_quotas(const r_api_key_quotas_t *q);

/* Read input.key and parse it as an API key. Returns true with *info filled;
 * false with run set to BAD_INPUT (field) or REJECTED (key error class).
 * The caller cleanses *info (it holds the secret). */
bool vec_parse_api_key(const json_t *input, const vj_path_t *path, r_auth_key_info_t *info, vec_run_t *run);

/* Read an ha_schedule policy object (obj at path) into *pol (r-client.md 9.3.1);
 * a schedule kind string other than fixed/linear/exponential becomes a value
 * outside the C enum, which r_client_policy_schedule() rejects. */
bool vec_read_policy(const json_t *obj, const vj_path_t *path, r_request_policy_t *pol, vj_err_t *e);

/* Read obj.guards and obj.resources in the rate_request_packet block shape
 * (guards {tracker_id_hex, ttl_ms, max_samples, buffer_size,
 * min_sample_threshold, latency_threshold}, resources {bucket_id_hex,
 * window_size_ms, rate_limit, tokens_requested}) into calloc'ed arrays the
 * caller frees (also on failure; never NULL after a successful call). */
bool vec_read_rate_blocks(const json_t *obj, const vj_path_t *path, r_latency_guard_t **guards, size_t *n_guards,
                          r_resource_request_t **resources, size_t *n_resources, vj_err_t *e);

/* Adapters, one per kind. */
void vec_kind_bucket_id(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_tracker_id(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_server_id(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_srv_target(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_api_key(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_secret_key(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_quota_word(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_rate_request_packet(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_latency_report_packet(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_rate_response(const json_t *input, const vj_path_t *path, vec_run_t *run);
void vec_kind_ha_schedule(const json_t *input, const vj_path_t *path, vec_run_t *run);

#endif /* VEC_KINDS_H */
