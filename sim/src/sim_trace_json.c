/* SPDX-License-Identifier: MIT */
/* sim_trace_json.c - typed readers with JSON paths in errors (docs/traces.md
 * "Errors"): a bad trace names the file, the field and the problem. */
#include "sim_trace_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A path too long for the buffer ends in "..." rather than silently. */
static void mark_truncated(tj_path_t *p, int written) {
    if (written < 0 || (size_t)written >= sizeof p->s) {
        memcpy(p->s + sizeof p->s - 4, "...", 4);
    }
}

void tj_key(tj_path_t *out, const tj_path_t *parent, const char *key) {
    const char *base = parent != NULL ? parent->s : "";
    tj_path_t tmp; /* parent may alias out */
    int n = snprintf(tmp.s, sizeof tmp.s, "%s%s%s", base, base[0] != '\0' ? "." : "", key);
    mark_truncated(&tmp, n);
    *out = tmp;
}

void tj_idx(tj_path_t *out, const tj_path_t *parent, size_t index) {
    tj_path_t tmp;
    int n = snprintf(tmp.s, sizeof tmp.s, "%s[%zu]", parent != NULL ? parent->s : "", index);
    mark_truncated(&tmp, n);
    *out = tmp;
}

int tj_fail(tj_ctx_t *c, const tj_path_t *p, const char *fmt, ...) {
    if (c->failed) {
        return -1;
    }
    c->failed = true;
    if (c->err == NULL || c->err_cap == 0) {
        return -1;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p != NULL && p->s[0] != '\0') {
        snprintf(c->err, c->err_cap, "%s: %s: %s", c->file, p->s, msg);
    } else {
        snprintf(c->err, c->err_cap, "%s: %s", c->file, msg);
    }
    return -1;
}

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static bool key_allowed(const char *key, const char *const *allowed) {
    for (size_t i = 0; allowed != NULL && allowed[i] != NULL; i++) {
        if (strcmp(key, allowed[i]) == 0) {
            return true;
        }
    }
    return false;
}

int tj_object(tj_ctx_t *c, const json_t *v, const tj_path_t *p, const char *const *allowed) {
    if (!json_is_object(v)) {
        return tj_fail(c, p, "expected an object, got %s", type_name(v));
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)v, key, value) {
        tj_path_t q;
        tj_key(&q, p, key);
        if (strcmp(key, "comment") == 0) {
            if (!json_is_string(value)) {
                return tj_fail(c, &q, "expected a string, got %s", type_name(value));
            }
            continue;
        }
        if (!key_allowed(key, allowed)) {
            return tj_fail(c, &q, "unknown field");
        }
    }
    return 0;
}

/* Look obj[key] up; NULL when absent. q receives the field's path. */
static json_t *field(const json_t *obj, const tj_path_t *p, const char *key, tj_path_t *q) {
    tj_key(q, p, key);
    return json_object_get(obj, key);
}

int tj_require(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key) {
    tj_path_t q;
    if (field(obj, p, key, &q) == NULL) {
        return tj_fail(c, &q, "missing (required)");
    }
    return 0;
}

int tj_u64(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint64_t min, uint64_t max,
           uint64_t *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (!json_is_integer(v)) {
        return tj_fail(c, &q, "expected an integer, got %s", type_name(v));
    }
    json_int_t i = json_integer_value(v);
    if (i < 0 || (uint64_t)i < min || (uint64_t)i > max) {
        return tj_fail(c, &q, "expected an integer in [%" PRIu64 ", %" PRIu64 "], got %" JSON_INTEGER_FORMAT, min,
                       max, i);
    }
    *out = (uint64_t)i;
    return 1;
}

int tj_u32(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint32_t min, uint32_t max,
           uint32_t *out) {
    uint64_t v = 0;
    int r = tj_u64(c, obj, p, key, min, max, &v);
    if (r == 1) {
        *out = (uint32_t)v;
    }
    return r;
}

int tj_i64(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, int64_t min, int64_t max,
           int64_t *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (!json_is_integer(v)) {
        return tj_fail(c, &q, "expected an integer, got %s", type_name(v));
    }
    json_int_t i = json_integer_value(v);
    if (i < min || i > max) {
        return tj_fail(c, &q, "expected an integer in [%" PRId64 ", %" PRId64 "], got %" JSON_INTEGER_FORMAT, min,
                       max, i);
    }
    *out = (int64_t)i;
    return 1;
}

/* "0x" followed by 1..16 hex digits. */
static bool parse_hex_u64(const char *s, uint64_t *out) {
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0' || strlen(s + 2) > 16) {
        return false;
    }
    uint64_t v = 0;
    for (const char *d = s + 2; *d != '\0'; d++) {
        int x;
        if (*d >= '0' && *d <= '9') {
            x = *d - '0';
        } else if (*d >= 'a' && *d <= 'f') {
            x = *d - 'a' + 10;
        } else if (*d >= 'A' && *d <= 'F') {
            x = *d - 'A' + 10;
        } else {
            return false;
        }
        v = (v << 4) | (uint64_t)x;
    }
    *out = v;
    return true;
}

int tj_u64_hex(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, uint64_t max, uint64_t *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (json_is_string(v)) {
        uint64_t x;
        if (!parse_hex_u64(json_string_value(v), &x) || x > max) {
            return tj_fail(c, &q, "expected an integer or a \"0x\" hex string of at most 0x%" PRIx64, max);
        }
        *out = x;
        return 1;
    }
    if (!json_is_integer(v)) {
        return tj_fail(c, &q, "expected an integer or a \"0x\" hex string, got %s", type_name(v));
    }
    return tj_u64(c, obj, p, key, 0, max, out);
}

int tj_num(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, double min, bool min_open,
           double max, double *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (!json_is_number(v)) {
        return tj_fail(c, &q, "expected a number, got %s", type_name(v));
    }
    double d = json_number_value(v);
    bool low = min_open ? !(d > min) : !(d >= min);
    if (low || !(d <= max) || !isfinite(d)) {
        return tj_fail(c, &q, "expected a number in %s%g, %g], got %g", min_open ? "(" : "[", min, max, d);
    }
    *out = d;
    return 1;
}

int tj_prob(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, double *out) {
    return tj_num(c, obj, p, key, 0.0, false, 1.0, out);
}

int tj_bool(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, bool *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (!json_is_boolean(v)) {
        return tj_fail(c, &q, "expected a boolean, got %s", type_name(v));
    }
    *out = json_is_true(v);
    return 1;
}

int tj_str(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, bool allow_empty, char *buf,
           size_t cap) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (!json_is_string(v)) {
        return tj_fail(c, &q, "expected a string, got %s", type_name(v));
    }
    size_t len = json_string_length(v);
    if (len == 0 && !allow_empty) {
        return tj_fail(c, &q, "must not be empty");
    }
    if (len >= cap) {
        return tj_fail(c, &q, "longer than %zu bytes", cap - 1);
    }
    memcpy(buf, json_string_value(v), len + 1);
    return 1;
}

int tj_enum(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, const char *const *names,
            size_t n, int *out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    if (v == NULL) {
        return 0;
    }
    if (json_is_string(v)) {
        for (size_t i = 0; i < n; i++) {
            if (strcmp(json_string_value(v), names[i]) == 0) {
                *out = (int)i;
                return 1;
            }
        }
    }
    char list[200] = "";
    size_t used = 0;
    for (size_t i = 0; i < n && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i > 0 ? ", " : "", names[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return tj_fail(c, &q, "expected one of %s", list);
}

int tj_array(tj_ctx_t *c, const json_t *obj, const tj_path_t *p, const char *key, size_t max, json_t **out) {
    tj_path_t q;
    json_t *v = field(obj, p, key, &q);
    *out = NULL;
    if (v == NULL) {
        return 0;
    }
    if (!json_is_array(v)) {
        return tj_fail(c, &q, "expected an array, got %s", type_name(v));
    }
    if (json_array_size(v) > max) {
        return tj_fail(c, &q, "more than %zu entries", max);
    }
    *out = v;
    return 1;
}

int tj_object_kind(tj_ctx_t *c, const json_t *v, const tj_path_t *p, const char *const *all,
                   const char *const *used_by_kind, const char *kind) {
    if (tj_object(c, v, p, all) != 0) {
        return -1;
    }
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)v, key, value) {
        if (strcmp(key, "comment") != 0 && !key_allowed(key, used_by_kind)) {
            tj_path_t q;
            tj_key(&q, p, key);
            return tj_fail(c, &q, "not used by kind %s", kind);
        }
    }
    return 0;
}
