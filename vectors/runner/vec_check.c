/* SPDX-License-Identifier: MIT */
/* vec_check.c - structural comparison of expected vs actual (see vec_check.h). */
#include "vec_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_FULL_MAX 72u  /* strings up to this length are shown whole */
#define SHOW_WINDOW 32u    /* otherwise this many characters around the difference */
#define SHOW_BEFORE 8u

#define DIFFS_KEPT 8u      /* differences of each sort kept for the message */

/* Every difference of one comparison: wrong values first, then fields absent
 * on one side (issue "print every difference": a missing field must not hide
 * a wrong one). limit 1 keeps the first difference only (the dialect report). */
typedef struct {
    vj_err_t wrong[DIFFS_KEPT];
    size_t n_wrong;
    vj_err_t absent[DIFFS_KEPT];
    size_t n_absent;
    size_t total, limit;
    bool from_client; /* actual is an adapter's client output, not the built-in runner's */
} diffs_t;

/* Record a difference; always returns false (as vj_fail). */
static bool diff(diffs_t *d, bool absent, const vj_err_t *e)
{
    d->total++;
    size_t *n = absent ? &d->n_absent : &d->n_wrong;
    if (*n < DIFFS_KEPT && d->n_wrong + d->n_absent < d->limit)
        (absent ? d->absent : d->wrong)[(*n)++] = *e;
    return false;
}

/* The differences as one message: wrong values, then absent fields, "; "
 * between them, and how many there were when some did not fit. */
static bool diffs_message(const diffs_t *d, vj_err_t *out)
{
    if (d->total == 0)
        return true;
    size_t used = 0, shown = 0;
    out->msg[0] = '\0';
    out->range = false;
    for (size_t k = 0; k < d->n_wrong + d->n_absent; k++) {
        const vj_err_t *e = k < d->n_wrong ? &d->wrong[k] : &d->absent[k - d->n_wrong];
        if (used + strlen(e->msg) + 40 >= sizeof out->msg)
            break;
        vec_format(out->msg + used, sizeof out->msg - used, "%s%s", k > 0 ? "; " : "", e->msg);
        used = strlen(out->msg);
        shown++;
    }
    if (shown < d->total && d->limit > 1)
        vec_format(out->msg + used, sizeof out->msg - used, " (%zu differences in all)", d->total);
    return false;
}

static bool check_value(const json_t *want, const json_t *got, const vj_path_t *p, diffs_t *d);

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

/* s[0..len) is a canonical decimal u64 (the schema's 64-bit integers). */
static bool dec_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20 || (len > 1 && s[0] == '0'))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10u)
            return false;
        v = v * 10u + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
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
    uint64_t wv = 0, gv = 0;
    if (!hex && dec_u64(w, wl, &wv) && dec_u64(g, gl, &gv))
        /* a 64-bit id: its bit fields read best in hex */
        return vj_fail(e, p, "want %" PRIu64 " (0x%" PRIx64 ") got %" PRIu64 " (0x%" PRIx64 ")", wv, wv, gv, gv);
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

static bool check_array(const json_t *want, const json_t *got, const vj_path_t *p, diffs_t *d)
{
    vj_err_t e;
    if (!json_is_array(want))
        return diff(d, false, (fail_type(&e, p, "array", want), &e));
    size_t n = json_array_size(want);
    if (n != json_array_size(got)) {
        vj_fail(&e, p, "want %zu entries got %zu", n, json_array_size(got));
        return diff(d, false, &e);
    }
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        vj_path_t q = vj_path_index(p, i);
        ok = check_value(json_array_get(want, i), json_array_get(got, i), &q, d) && ok;
    }
    return ok;
}

/* Fields of the result the file leaves out are failures too: a vector that
 * omits a value does not pin it. */
static bool check_missing(const json_t *want, const json_t *got, const vj_path_t *p, diffs_t *d)
{
    const char *key;
    json_t *value;
    bool ok = true;
    json_object_foreach((json_t *)got, key, value) {
        if (json_object_get(want, key) == NULL) {
            vj_path_t q = vj_path_key(p, key);
            char desc[96];
            vj_err_t e;
            vj_fail(&e, &q, d->from_client ? "not in the test, but in the client's output (%s)"
                                           : "missing (the runner gives %s)",
                    vj_describe(value, desc, sizeof desc));
            ok = diff(d, true, &e);
        }
    }
    return ok;
}

static bool check_object(const json_t *want, const json_t *got, const vj_path_t *p, diffs_t *d)
{
    vj_err_t e;
    if (!json_is_object(want))
        return diff(d, false, (fail_type(&e, p, "object", want), &e));
    const char *key;
    json_t *value;
    bool ok = true;
    json_object_foreach((json_t *)want, key, value) {
        vj_path_t q = vj_path_key(p, key);
        if (json_object_get(got, key) == NULL)
            ok = diff(d, true,
                      (vj_fail(&e, &q, "%s", d->from_client ? "absent from the client's output" : "unknown field"), &e));
        else
            ok = check_value(value, json_object_get(got, key), &q, d) && ok;
    }
    return check_missing(want, got, p, d) && ok;
}

static bool check_value(const json_t *want, const json_t *got, const vj_path_t *p, diffs_t *d)
{
    vj_err_t e;
    bool ok;
    switch (json_typeof(got)) {
    case JSON_STRING: ok = check_string(want, got, p, &e); break;
    case JSON_INTEGER: ok = check_integer(want, got, p, &e); break;
    case JSON_TRUE:
    case JSON_FALSE: ok = check_bool(want, got, p, &e); break;
    case JSON_ARRAY: return check_array(want, got, p, d);
    case JSON_OBJECT: return check_object(want, got, p, d);
    case JSON_NULL: ok = check_null(want, p, &e); break;
    default: ok = vj_fail(&e, p, "runner produced an unexpected value type"); break;
    }
    return ok || diff(d, false, &e);
}

static bool is_known(const char *const *known, const char *key)
{
    for (size_t i = 0; known[i] != NULL; i++) {
        if (strcmp(known[i], key) == 0)
            return true;
    }
    return false;
}

bool vec_check_output(const json_t *expected, const json_t *actual, const char *const *known, const char *kind,
                      const vj_path_t *path, bool from_client, vj_err_t *e)
{
    const char *key;
    json_t *value;
    diffs_t d;
    memset(&d, 0, sizeof d);
    d.limit = DIFFS_KEPT * 2u;
    d.from_client = from_client;
    vj_err_t one;
    json_object_foreach((json_t *)expected, key, value) {
        vj_path_t q = vj_path_key(path, key);
        if (!is_known(known, key))
            diff(&d, false, (vj_fail(&one, &q, "unknown field for a valid %s test", kind), &one));
        else if (json_object_get(actual, key) == NULL)
            diff(&d, true,
                 (vj_fail(&one, &q, "%s",
                          from_client ? "absent from the client's output"
                                      : "not produced for this input (the field does not apply to it)"),
                  &one));
        else
            check_value(value, json_object_get(actual, key), &q, &d);
    }
    check_missing(expected, actual, path, &d);
    return diffs_message(&d, e);
}

bool vec_check_expected(const json_t *expected, const json_t *actual, const char *const *known, const char *kind,
                        const vj_path_t *path, vj_err_t *e)
{
    return vec_check_output(expected, actual, known, kind, path, false, e);
}

bool vec_check_fields(const json_t *expected, const json_t *actual, const vj_path_t *path, vj_err_t *e)
{
    const char *key;
    json_t *value;
    diffs_t d;
    memset(&d, 0, sizeof d);
    d.limit = 1; /* the dialect report names the first difference */
    json_object_foreach((json_t *)expected, key, value) {
        vj_path_t q = vj_path_key(path, key);
        const json_t *got = json_object_get(actual, key);
        vj_err_t one;
        if (got == NULL)
            diff(&d, true, (vj_fail(&one, &q, "not produced by the client"), &one));
        else
            check_value(value, got, &q, &d);
        if (d.total > 0)
            break;
    }
    return diffs_message(&d, e);
}
