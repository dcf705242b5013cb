/* vec_check.c - structural comparison of expected vs actual (see vec_check.h). */
#include "vec_check.h"

#include <stdio.h>
#include <string.h>

#define SHOW_FULL_MAX 72u  /* strings up to this length are shown whole */
#define SHOW_WINDOW 32u    /* otherwise this many characters around the difference */
#define SHOW_BEFORE 8u

static bool check_value(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e);

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool fail_type(vj_err_t *e, const vj_path_t *p, const char *what, const json_t *want)
{
    char got[96];
    return vj_fail(e, p, "expected %s, got %s", what, vj_describe(want, got, sizeof got));
}

/* "want X got Y", shortened around the first difference for long values. */
static bool fail_strings(vj_err_t *e, const vj_path_t *p, const char *w, size_t wl, const char *g, size_t gl)
{
    if (wl <= SHOW_FULL_MAX && gl <= SHOW_FULL_MAX)
        return vj_fail(e, p, "want %.*s got %.*s", (int)wl, w, (int)gl, g);
    size_t i = 0;
    while (i < wl && i < gl && w[i] == g[i])
        i++;
    size_t from = i > SHOW_BEFORE ? i - SHOW_BEFORE : 0;
    if (from % 2u != 0)
        from--; /* keep hex windows on byte boundaries */
    size_t wn = wl - from < SHOW_WINDOW ? wl - from : SHOW_WINDOW;
    size_t gn = gl - from < SHOW_WINDOW ? gl - from : SHOW_WINDOW;
    bool hex = ends_with(p->s, "_hex");
    return vj_fail(e, p, "want %s%.*s%s got %s%.*s%s (first difference at %s %zu; lengths %zu/%zu %s)",
                   from > 0 ? ".." : "", (int)wn, w + from, from + wn < wl ? ".." : "", from > 0 ? ".." : "",
                   (int)gn, g + from, from + gn < gl ? ".." : "", hex ? "byte" : "character", hex ? i / 2u : i,
                   hex ? wl / 2u : wl, hex ? gl / 2u : gl, hex ? "bytes" : "characters");
}

static bool check_string(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    bool hex = ends_with(p->s, "_hex");
    if (!json_is_string(want))
        return fail_type(e, p, hex ? "lowercase even-length hex string" : "string", want);
    const char *w = json_string_value(want), *g = json_string_value(got);
    size_t wl = json_string_length(want), gl = json_string_length(got);
    char why[64];
    if (hex && !vj_hex_text_ok(w, wl, why, sizeof why))
        return vj_fail(e, p, "expected lowercase even-length hex, got %s", why);
    if (wl == gl && memcmp(w, g, wl) == 0)
        return true;
    return fail_strings(e, p, w, wl, g, gl);
}

static bool check_integer(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    if (!json_is_integer(want))
        return fail_type(e, p, "integer", want);
    if (json_integer_value(want) == json_integer_value(got))
        return true;
    return vj_fail(e, p, "want %" JSON_INTEGER_FORMAT " got %" JSON_INTEGER_FORMAT, json_integer_value(want),
                   json_integer_value(got));
}

static bool check_bool(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    if (!json_is_boolean(want))
        return fail_type(e, p, "true or false", want);
    if (json_is_true(want) == json_is_true(got))
        return true;
    return vj_fail(e, p, "want %s got %s", json_is_true(want) ? "true" : "false",
                   json_is_true(got) ? "true" : "false");
}

/* null: a value the result reports as unknown (admin_status_response "known"). */
static bool check_null(const json_t *want, const vj_path_t *p, vj_err_t *e)
{
    if (json_is_null(want))
        return true;
    return fail_type(e, p, "null", want);
}

static bool check_array(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    if (!json_is_array(want))
        return fail_type(e, p, "array", want);
    size_t n = json_array_size(want);
    if (n != json_array_size(got))
        return vj_fail(e, p, "want %zu entries got %zu", n, json_array_size(got));
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(p, i);
        if (!check_value(json_array_get(want, i), json_array_get(got, i), &q, e))
            return false;
    }
    return true;
}

/* Fields of the runner's result the file leaves out are failures too: a
 * vector that omits a value does not pin it. */
static bool check_missing(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)got, key, value) {
        if (json_object_get(want, key) == NULL) {
            vj_path_t q = vj_path_key(p, key);
            char desc[96];
            return vj_fail(e, &q, "missing (the runner gives %s)", vj_describe(value, desc, sizeof desc));
        }
    }
    return true;
}

static bool check_object(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    if (!json_is_object(want))
        return fail_type(e, p, "object", want);
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)want, key, value) {
        if (json_object_get(got, key) == NULL) {
            vj_path_t q = vj_path_key(p, key);
            return vj_fail(e, &q, "unknown field");
        }
    }
    if (!check_missing(want, got, p, e))
        return false;
    json_object_foreach((json_t *)want, key, value) {
        vj_path_t q = vj_path_key(p, key);
        if (!check_value(value, json_object_get(got, key), &q, e))
            return false;
    }
    return true;
}

static bool check_value(const json_t *want, const json_t *got, const vj_path_t *p, vj_err_t *e)
{
    switch (json_typeof(got)) {
    case JSON_STRING: return check_string(want, got, p, e);
    case JSON_INTEGER: return check_integer(want, got, p, e);
    case JSON_TRUE:
    case JSON_FALSE: return check_bool(want, got, p, e);
    case JSON_ARRAY: return check_array(want, got, p, e);
    case JSON_OBJECT: return check_object(want, got, p, e);
    case JSON_NULL: return check_null(want, p, e);
    default: break;
    }
    return vj_fail(e, p, "runner produced an unexpected value type");
}

static bool is_known(const char *const *known, const char *key)
{
    for (size_t i = 0; known[i] != NULL; i++) {
        if (strcmp(known[i], key) == 0)
            return true;
    }
    return false;
}

bool vec_check_expected(const json_t *expected, const json_t *actual, const char *const *known, const char *kind,
                        const vj_path_t *path, vj_err_t *e)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)expected, key, value) {
        vj_path_t q = vj_path_key(path, key);
        if (!is_known(known, key))
            return vj_fail(e, &q, "unknown field for a valid %s test", kind);
        if (json_object_get(actual, key) == NULL)
            return vj_fail(e, &q, "not produced for this input (the field does not apply to it)");
    }
    if (!check_missing(expected, actual, path, e))
        return false;
    json_object_foreach((json_t *)expected, key, value) {
        vj_path_t q = vj_path_key(path, key);
        if (!check_value(value, json_object_get(actual, key), &q, e))
            return false;
    }
    return true;
}

bool vec_check_fields(const json_t *expected, const json_t *actual, const vj_path_t *path, vj_err_t *e)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)expected, key, value) {
        vj_path_t q = vj_path_key(path, key);
        const json_t *got = json_object_get(actual, key);
        if (got == NULL)
            return vj_fail(e, &q, "not produced by the client");
        if (!check_value(value, got, &q, e))
            return false;
    }
    return true;
}
