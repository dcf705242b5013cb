/* SPDX-License-Identifier: MIT */
/* vec_json.h - typed, path-named field getters for vector files
 * (../shared/vectors-schema.md "Envelope").
 *
 * Every getter checks presence, JSON type and range, and on failure writes
 * "<path>: expected <what>, got <what was there>" into a vj_err_t, so a bad
 * vector file is reported by the exact field, never crashes the runner.
 * Conventions of the schema enforced here: 64-bit integers are canonical
 * decimal strings, 32-bit and smaller integers are JSON integers, byte strings
 * are lowercase even-length hex. */
#ifndef VEC_JSON_H
#define VEC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define VJ_PATH_MAX 256u
#define VEC_MSG_MAX 512u

/* A dotted field path, e.g. "tests[3].input.guards[0].ttl_ms". Truncated
 * (never overflowed) when a file uses absurdly long keys. */
typedef struct {
    char s[VJ_PATH_MAX];
} vj_path_t;

typedef struct {
    char msg[VEC_MSG_MAX];
    /* The value had the right JSON type but lies outside its field's range
     * (an integer too wide for its field, a decimal string above 2^64-1). In
     * an input that is the schema's error class `range`, not a broken file. */
    bool range;
} vj_err_t;

/* snprintf that truncates on purpose (paths and messages built from file
 * contents may be arbitrarily long). */
void vec_format(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

vj_path_t vj_path(const char *s);
vj_path_t vj_path_key(const vj_path_t *base, const char *key);
vj_path_t vj_path_index(const vj_path_t *base, size_t i);

/* Write "<path>: <formatted problem>" into e (clearing e->range). Always returns false. */
bool vj_fail(vj_err_t *e, const vj_path_t *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Describe what a value is, for "got ..." ("nothing (field absent)" for NULL,
 * "null", "integer 7", "string \"ab\"", ...). Writes into buf (cap bytes). */
const char *vj_describe(const json_t *v, char *buf, size_t cap);

/* s[0..len) quoted, control characters, quote and backslash escaped, cut
 * after 40 characters with "...". Writes into buf (cap bytes). */
const char *vj_quote(const char *s, size_t len, char *buf, size_t cap);

/* Byte-wise equality of a JSON string's full contents with a C string. */
bool vj_string_is(const json_t *v, const char *s);

/* ---- value-level checks (v may be NULL: reported as absent) --------------- */
bool vj_v_object(const json_t *v, const vj_path_t *p, vj_err_t *e);
bool vj_v_array(const json_t *v, const vj_path_t *p, size_t *out_n, vj_err_t *e);
bool vj_v_string(const json_t *v, const vj_path_t *p, const char **out, size_t *out_len, vj_err_t *e);
bool vj_v_uint(const json_t *v, const vj_path_t *p, uint64_t min, uint64_t max, uint64_t *out, vj_err_t *e);
bool vj_v_dec_u64(const json_t *v, const vj_path_t *p, uint64_t *out, vj_err_t *e);
/* Lowercase even-length hex; *out is malloc'ed with exactly *out_len bytes
 * (1 when empty) and owned by the caller; exact_len 0 accepts any length. */
bool vj_v_hex(const json_t *v, const vj_path_t *p, size_t exact_len, uint8_t **out, size_t *out_len,
              vj_err_t *e);

/* ---- object-member getters: obj[key] at path base.key -------------------- */
bool vj_object(const json_t *obj, const vj_path_t *base, const char *key, const json_t **out, vj_err_t *e);
bool vj_array(const json_t *obj, const vj_path_t *base, const char *key, const json_t **out, size_t *out_n,
              vj_err_t *e);
bool vj_string(const json_t *obj, const vj_path_t *base, const char *key, const char **out, size_t *out_len,
               vj_err_t *e);
bool vj_u32(const json_t *obj, const vj_path_t *base, const char *key, uint32_t *out, vj_err_t *e);
bool vj_u16(const json_t *obj, const vj_path_t *base, const char *key, uint16_t *out, vj_err_t *e);
bool vj_u8_max(const json_t *obj, const vj_path_t *base, const char *key, uint8_t max, uint8_t *out,
               vj_err_t *e);
bool vj_dec_u64(const json_t *obj, const vj_path_t *base, const char *key, uint64_t *out, vj_err_t *e);
bool vj_bool(const json_t *obj, const vj_path_t *base, const char *key, bool *out, vj_err_t *e);
/* Exactly n bytes of hex into out (caller's buffer of n bytes). */
bool vj_hex_fixed(const json_t *obj, const vj_path_t *base, const char *key, uint8_t *out, size_t n,
                  vj_err_t *e);
bool vj_hex_alloc(const json_t *obj, const vj_path_t *base, const char *key, uint8_t **out, size_t *out_len,
                  vj_err_t *e);
/* A name given as exactly one of name_utf8 / name_hex; *out malloc'ed. */
bool vj_name(const json_t *obj, const vj_path_t *base, uint8_t **out, size_t *out_len, vj_err_t *e);

/* Check s[0..len) is lowercase even-length hex; on failure describe why in buf. */
bool vj_hex_text_ok(const char *s, size_t len, char *why, size_t cap);

#endif /* VEC_JSON_H */
