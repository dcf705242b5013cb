/* SPDX-License-Identifier: MIT */
/* vec_json.c - typed, path-named field getters (see vec_json.h). */
#include "vec_json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIBE_MAX 96u
#define DESCRIBE_STRING_CHARS 40

void vec_format(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

vj_path_t vj_path(const char *s)
{
    vj_path_t p;
    vec_format(p.s, sizeof p.s, "%s", s);
    return p;
}

vj_path_t vj_path_key(const vj_path_t *base, const char *key)
{
    vj_path_t p;
    if (base->s[0] == '\0')
        vec_format(p.s, sizeof p.s, "%s", key);
    else
        vec_format(p.s, sizeof p.s, "%s.%s", base->s, key);
    return p;
}

vj_path_t vj_path_index(const vj_path_t *base, size_t i)
{
    vj_path_t p;
    vec_format(p.s, sizeof p.s, "%s[%zu]", base->s, i);
    return p;
}

bool vj_fail(vj_err_t *e, const vj_path_t *path, const char *fmt, ...)
{
    int n = snprintf(e->msg, sizeof e->msg, "%s: ", path->s);
    e->range = false;
    if (n < 0 || (size_t)n >= sizeof e->msg)
        return false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg + n, sizeof e->msg - (size_t)n, fmt, ap);
    va_end(ap);
    e->range = false;
    return false;
}

const char *vj_quote(const char *s, size_t len, char *buf, size_t cap)
{
    size_t o = 0, i = 0;
    if (cap < 8) {
        if (cap > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[o++] = '"';
    /* Reserve room for an escape (4), the ellipsis (3), the quote and NUL. */
    for (; i < len && i < DESCRIBE_STRING_CHARS && o + 9 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F || c == '"' || c == '\\')
            o += (size_t)snprintf(buf + o, cap - o, c == '"' || c == '\\' ? "\\%c" : "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    if (i < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

const char *vj_describe(const json_t *v, char *buf, size_t cap)
{
    if (v == NULL) {
        snprintf(buf, cap, "nothing (field absent)");
        return buf;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT: snprintf(buf, cap, "object"); break;
    case JSON_ARRAY: snprintf(buf, cap, "array"); break;
    case JSON_STRING: {
        /* Quote straight into buf after the prefix: vj_quote bounds the text
         * to what is left and marks a cut with "...". */
        static const char prefix[] = "string ";
        size_t n = sizeof prefix - 1u;
        if (cap <= n) {
            if (cap > 0)
                buf[0] = '\0';
            break;
        }
        memcpy(buf, prefix, n);
        vj_quote(json_string_value(v), json_string_length(v), buf + n, cap - n);
        break;
    }
    case JSON_INTEGER: snprintf(buf, cap, "integer %" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: snprintf(buf, cap, "number %.17g", json_real_value(v)); break;
    case JSON_TRUE: snprintf(buf, cap, "true"); break;
    case JSON_FALSE: snprintf(buf, cap, "false"); break;
    case JSON_NULL: snprintf(buf, cap, "null"); break;
    default: snprintf(buf, cap, "unknown value"); break;
    }
    return buf;
}

static bool fail_expected(vj_err_t *e, const vj_path_t *p, const char *what, const json_t *v)
{
    char got[DESCRIBE_MAX];
    return vj_fail(e, p, "expected %s, got %s", what, vj_describe(v, got, sizeof got));
}

bool vj_string_is(const json_t *v, const char *s)
{
    if (!json_is_string(v))
        return false;
    size_t len = strlen(s);
    return json_string_length(v) == len && memcmp(json_string_value(v), s, len) == 0;
}

bool vj_v_object(const json_t *v, const vj_path_t *p, vj_err_t *e)
{
    return json_is_object(v) ? true : fail_expected(e, p, "object", v);
}

bool vj_v_array(const json_t *v, const vj_path_t *p, size_t *out_n, vj_err_t *e)
{
    if (!json_is_array(v))
        return fail_expected(e, p, "array", v);
    *out_n = json_array_size(v);
    return true;
}

bool vj_v_string(const json_t *v, const vj_path_t *p, const char **out, size_t *out_len, vj_err_t *e)
{
    if (!json_is_string(v))
        return fail_expected(e, p, "string", v);
    *out = json_string_value(v);
    *out_len = json_string_length(v);
    return true;
}

bool vj_v_uint(const json_t *v, const vj_path_t *p, uint64_t min, uint64_t max, uint64_t *out, vj_err_t *e)
{
    char what[64];
    snprintf(what, sizeof what, "integer %" PRIu64 "..%" PRIu64, min, max);
    if (!json_is_integer(v))
        return fail_expected(e, p, what, v);
    json_int_t x = json_integer_value(v);
    if (x < 0 || (uint64_t)x < min || (uint64_t)x > max) {
        fail_expected(e, p, what, v);
        e->range = true;
        return false;
    }
    *out = (uint64_t)x;
    return true;
}

typedef enum { DEC_OK, DEC_SYNTAX, DEC_OVERFLOW } dec_result_t;

/* Canonical decimal: digits only, no sign, no leading zero, <= UINT64_MAX. */
static dec_result_t parse_dec_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || (len > 1 && s[0] == '0'))
        return DEC_SYNTAX;
    uint64_t x = 0;
    bool overflow = false;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return DEC_SYNTAX;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10u)
            overflow = true;
        else
            x = x * 10u + d;
    }
    if (overflow)
        return DEC_OVERFLOW;
    *out = x;
    return DEC_OK;
}

bool vj_v_dec_u64(const json_t *v, const vj_path_t *p, uint64_t *out, vj_err_t *e)
{
    static const char what[] = "decimal string 0..18446744073709551615";
    dec_result_t r = json_is_string(v) ? parse_dec_u64(json_string_value(v), json_string_length(v), out)
                                       : DEC_SYNTAX;
    if (r == DEC_OK)
        return true;
    fail_expected(e, p, what, v);
    e->range = r == DEC_OVERFLOW;
    return false;
}

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool vj_hex_text_ok(const char *s, size_t len, char *why, size_t cap)
{
    for (size_t i = 0; i < len; i++) {
        if (hex_nibble(s[i]) >= 0)
            continue;
        if (s[i] >= 'A' && s[i] <= 'F')
            snprintf(why, cap, "uppercase digit '%c' at character %zu", s[i], i);
        else
            snprintf(why, cap, "non-hex character at character %zu", i);
        return false;
    }
    if (len % 2u != 0) {
        snprintf(why, cap, "odd length %zu", len);
        return false;
    }
    return true;
}

bool vj_v_hex(const json_t *v, const vj_path_t *p, size_t exact_len, uint8_t **out, size_t *out_len,
              vj_err_t *e)
{
    char what[64], why[64];
    if (exact_len != 0)
        snprintf(what, sizeof what, "lowercase hex of %zu bytes", exact_len);
    else
        snprintf(what, sizeof what, "lowercase even-length hex");
    if (!json_is_string(v))
        return fail_expected(e, p, what, v);
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (!vj_hex_text_ok(s, len, why, sizeof why))
        return vj_fail(e, p, "expected %s, got %s", what, why);
    if (exact_len != 0 && len / 2u != exact_len)
        return vj_fail(e, p, "expected %s, got %zu bytes", what, len / 2u);
    /* Exact size, so a consumer's over-read is visible to ASan. */
    uint8_t *buf = malloc(len == 0 ? 1u : len / 2u);
    if (buf == NULL)
        return vj_fail(e, p, "out of memory");
    for (size_t i = 0; i < len / 2u; i++)
        buf[i] = (uint8_t)(hex_nibble(s[2 * i]) << 4 | hex_nibble(s[2 * i + 1]));
    *out = buf;
    *out_len = len / 2u;
    return true;
}

bool vj_object(const json_t *obj, const vj_path_t *base, const char *key, const json_t **out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    const json_t *v = json_object_get(obj, key);
    if (!vj_v_object(v, &p, e))
        return false;
    *out = v;
    return true;
}

bool vj_array(const json_t *obj, const vj_path_t *base, const char *key, const json_t **out, size_t *out_n,
              vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    const json_t *v = json_object_get(obj, key);
    if (!vj_v_array(v, &p, out_n, e))
        return false;
    *out = v;
    return true;
}

bool vj_string(const json_t *obj, const vj_path_t *base, const char *key, const char **out, size_t *out_len,
               vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    return vj_v_string(json_object_get(obj, key), &p, out, out_len, e);
}

bool vj_u32(const json_t *obj, const vj_path_t *base, const char *key, uint32_t *out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    uint64_t x = 0;
    if (!vj_v_uint(json_object_get(obj, key), &p, 0, UINT32_MAX, &x, e))
        return false;
    *out = (uint32_t)x;
    return true;
}

bool vj_u16(const json_t *obj, const vj_path_t *base, const char *key, uint16_t *out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    uint64_t x = 0;
    if (!vj_v_uint(json_object_get(obj, key), &p, 0, UINT16_MAX, &x, e))
        return false;
    *out = (uint16_t)x;
    return true;
}

bool vj_u8_max(const json_t *obj, const vj_path_t *base, const char *key, uint8_t max, uint8_t *out,
               vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    uint64_t x = 0;
    if (!vj_v_uint(json_object_get(obj, key), &p, 0, max, &x, e))
        return false;
    *out = (uint8_t)x;
    return true;
}

bool vj_dec_u64(const json_t *obj, const vj_path_t *base, const char *key, uint64_t *out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    return vj_v_dec_u64(json_object_get(obj, key), &p, out, e);
}

bool vj_bool(const json_t *obj, const vj_path_t *base, const char *key, bool *out, vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    const json_t *v = json_object_get(obj, key);
    if (!json_is_boolean(v))
        return fail_expected(e, &p, "true or false", v);
    *out = json_is_true(v);
    return true;
}

bool vj_hex_fixed(const json_t *obj, const vj_path_t *base, const char *key, uint8_t *out, size_t n,
                  vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (!vj_v_hex(json_object_get(obj, key), &p, n, &buf, &len, e))
        return false;
    memcpy(out, buf, n);
    free(buf);
    return true;
}

bool vj_hex_alloc(const json_t *obj, const vj_path_t *base, const char *key, uint8_t **out, size_t *out_len,
                  vj_err_t *e)
{
    vj_path_t p = vj_path_key(base, key);
    return vj_v_hex(json_object_get(obj, key), &p, 0, out, out_len, e);
}

bool vj_name(const json_t *obj, const vj_path_t *base, uint8_t **out, size_t *out_len, vj_err_t *e)
{
    const json_t *utf8 = json_object_get(obj, "name_utf8");
    const json_t *hex = json_object_get(obj, "name_hex");
    if ((utf8 == NULL) == (hex == NULL)) {
        vj_path_t p = vj_path_key(base, "name_utf8|name_hex");
        return vj_fail(e, &p, "expected exactly one of name_utf8 and name_hex, got %s",
                       utf8 == NULL ? "neither" : "both");
    }
    if (hex != NULL)
        return vj_hex_alloc(obj, base, "name_hex", out, out_len, e);
    const char *s = NULL;
    size_t len = 0;
    if (!vj_string(obj, base, "name_utf8", &s, &len, e))
        return false;
    /* jansson has already checked the text is valid UTF-8. */
    uint8_t *buf = malloc(len + 1u);
    if (buf == NULL)
        return vj_fail(e, base, "out of memory");
    memcpy(buf, s, len);
    *out = buf;
    *out_len = len;
    return true;
}
