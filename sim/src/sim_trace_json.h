/* SPDX-License-Identifier: MIT */
/* sim_trace_json.h - typed, path-tracking readers over jansson values for the
 * trace loader (docs/traces.md). Every reader either fills its output or
 * writes one error "<file>: <json path>: <problem>" into the context and
 * returns -1; the first error wins. Internal to sim_trace*.c. */
#ifndef SIM_TRACE_JSON_H
#define SIM_TRACE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TJ_PATH_MAX 160u

typedef struct {
    const char *file;   /* name_for_errors */
    char *err;
    size_t err_cap;
    bool failed;
    void *owner;        /* the sim_config_t being filled (tables that outlive the JSON) */
} tj_ctx_t;

/* A JSON path such as "clients[1].policy.replay_gap"; "" is the top level. */
typedef struct {
    char s[TJ_PATH_MAX];
} tj_path_t;

void tj_key(tj_path_t *out, const tj_path_t *parent, const char *key);
void tj_idx(tj_path_t *out, const tj_path_t *parent, size_t index);

/* Record "<file>: <path>: <message>" (the first error only). Returns -1. */
int tj_fail(tj_ctx_t *c, const tj_path_t *p, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* v must be an object whose keys are all in allowed (NULL-terminated);
 * "comment" (a string) is accepted everywhere. */
int tj_object(tj_ctx_t *c, const json_t *v, const tj_path_t *p, const char *const *allowed);
/* As tj_object over all, then every key must also be in used_by_kind: the
 * members a "kind" uses ("<key>: not used by kind <kind>" otherwise). */
int tj_object_kind(tj_ctx_t *c, const json_t *v, const tj_path_t *p, const char *const *all,
                   const char *const *used_by_kind, const char *kind);

/* Readers of obj[key]: return 0 when the key is absent (out untouched), 1 when
 * set, -1 on error. Integers must be JSON integers within [min, max]. */
int tj_u64(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint64_t min, uint64_t max,
           uint64_t *out);
int tj_u32(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint32_t min, uint32_t max,
           uint32_t *out);
int tj_i64(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, int64_t min, int64_t max,
           int64_t *out);
/* A u64 given as a JSON integer or as a "0x..." hex string (key_id, seed). */
int tj_u64_hex(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint64_t max, uint64_t *out);
/* A number (integer or real) within [min, max]; min_open excludes min. */
int tj_num(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, double min, bool min_open,
           double max, double *out);
int tj_prob(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, double *out);
int tj_bool(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, bool *out);
/* A string of 1 .. cap-1 bytes (0 .. cap-1 when allow_empty). */
int tj_str(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, bool allow_empty, char *buf,
           size_t cap);
/* A string that is one of names[0..n-1]; *out = its index. */
int tj_enum(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, const char *const *names,
            size_t n, int *out);
/* An array of at most max entries: *out = the array (borrowed) or NULL when absent. */
int tj_array(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, size_t max, json_t **out);

/* A required key: fails with "<path>.<key>: missing (required)" when absent. */
int tj_require(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key);

#endif /* SIM_TRACE_JSON_H */
