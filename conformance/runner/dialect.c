/* SPDX-License-Identifier: MIT */
/* dialect.c - the per-area dialect report (see dialect.h). */
#include "dialect.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vec_check.h"
#include "vec_client.h"

#define MAX_AREAS 32u
#define MAX_VARIANTS 48u /* per area: every variant under every layout it is judged under */
#define NAME_MAX_LEN 40u
#define CTX_MAX_LEN 128u
#define FLAG_PREFIX "dialect:"
#define UNDER_PREFIX "dialect-under:"
#define SHOWN_MAX 48u /* characters of a value shown in a difference */

/* One variant of an area under one layout of the other areas (its "dialect-under:" flags). */
typedef struct {
    char name[NAME_MAX_LEN];
    char ctx[CTX_MAX_LEN]; /* "byte_order big_endian, guard_block guard_36"; "" when none */
    bool ctx_spec;         /* every layout in ctx is the spec's */
    unsigned tests, matched, unsupported;
    unsigned accepted;            /* matched tests the client accepted (a refusal alone proves nothing) */
    unsigned produced_ok;         /* accepted and matching on every produced field (unproduced_only) */
    char note[VEC_MSG_MAX];       /* the file's note for this flag */
    char first_miss[VEC_MSG_MAX]; /* the first test of this variant the client did not answer as it */
    char first_unsupported[VEC_MSG_MAX];
    bool off_layout;              /* written under a layout of another area the client does not hold:
                                     left out of the verdict (apply_layouts) */
} variant_t;

typedef struct {
    char name[NAME_MAX_LEN];
    variant_t variants[MAX_VARIANTS];
    size_t n_variants;
} area_t;

typedef struct {
    area_t areas[MAX_AREAS];
    size_t n_areas;
    unsigned problems; /* files or tests that could not be used */
} dialect_t;

bool dialect_inputs(vec_file_list_t *files, const char *arg)
{
    char pattern[4096];
    struct stat st;
    if (arg != NULL && !(stat(arg, &st) == 0 && S_ISDIR(st.st_mode)))
        return vec_file_list_add(files, arg, false);
    if (arg != NULL) {
        vec_format(pattern, sizeof pattern, "%s/*.json", arg);
    } else {
        const char *base = vec_default_base();
        vec_format(pattern, sizeof pattern, "%s%svectors/dialect/*.json", base, base[0] != '\0' ? "/" : "");
    }
    return vec_add_glob(files, pattern, true);
}

static variant_t *variant_of(dialect_t *d, const char *area, const char *variant, const char *ctx)
{
    area_t *a = NULL;
    for (size_t i = 0; i < d->n_areas && a == NULL; i++)
        a = strcmp(d->areas[i].name, area) == 0 ? &d->areas[i] : NULL;
    if (a == NULL) {
        if (d->n_areas == MAX_AREAS)
            return NULL;
        a = &d->areas[d->n_areas++];
        vec_format(a->name, sizeof a->name, "%s", area);
    }
    for (size_t i = 0; i < a->n_variants; i++) {
        if (strcmp(a->variants[i].name, variant) == 0 && strcmp(a->variants[i].ctx, ctx) == 0)
            return &a->variants[i];
    }
    if (a->n_variants == MAX_VARIANTS)
        return NULL;
    variant_t *v = &a->variants[a->n_variants++];
    vec_format(v->name, sizeof v->name, "%s", variant);
    vec_format(v->ctx, sizeof v->ctx, "%s", ctx);
    return v;
}

/* Split "<prefix><area>:<variant>" into its two names; false when malformed or too long. */
static bool split_flag(const char *f, const char *prefix, char *area, char *variant)
{
    const char *a = f + strlen(prefix), *colon = strchr(a, ':');
    if (colon == NULL || colon == a || colon[1] == '\0' || (size_t)(colon - a) >= NAME_MAX_LEN ||
        strlen(colon + 1) >= NAME_MAX_LEN)
        return false;
    memcpy(area, a, (size_t)(colon - a));
    area[colon - a] = '\0';
    vec_format(variant, NAME_MAX_LEN, "%s", colon + 1);
    return true;
}

/* The test's "dialect:<area>:<variant>" flag split into area and variant, and its
 * "dialect-under:<area>:<variant>" flags as "area variant, area variant" in ctx (*ctx_spec:
 * every one names the spec). False when there is no dialect flag or a flag is malformed. */
static bool dialect_flags(const json_t *test, char *area, char *variant, const char **flag, char *ctx, bool *ctx_spec)
{
    const json_t *flags = json_object_get(test, "flags");
    size_t len = 0;
    bool found = false;
    ctx[0] = '\0';
    *ctx_spec = true;
    for (size_t i = 0; i < json_array_size(flags); i++) {
        const char *f = json_string_value(json_array_get(flags, i));
        char ua[NAME_MAX_LEN], uv[NAME_MAX_LEN];
        if (f != NULL && strncmp(f, FLAG_PREFIX, strlen(FLAG_PREFIX)) == 0 && !found) {
            if (!split_flag(f, FLAG_PREFIX, area, variant))
                return false;
            *flag = f;
            found = true;
        } else if (f != NULL && strncmp(f, UNDER_PREFIX, strlen(UNDER_PREFIX)) == 0) {
            if (!split_flag(f, UNDER_PREFIX, ua, uv))
                return false;
            int n = snprintf(ctx + len, CTX_MAX_LEN - len, "%s%s %s", len > 0 ? ", " : "", ua, uv);
            if (n < 0 || (size_t)n >= CTX_MAX_LEN - len)
                return false;
            len += (size_t)n;
            *ctx_spec = *ctx_spec && strcmp(uv, "spec") == 0;
        }
    }
    return found;
}

/* A value as shown in a difference: a decimal string of a 64-bit id also in hex, long text cut. */
static void show_value(const json_t *v, char *out, size_t cap)
{
    const char *s = json_string_value(v);
    if (json_is_integer(v)) {
        json_int_t n = json_integer_value(v);
        vec_format(out, cap, "%" JSON_INTEGER_FORMAT " (0x%" PRIx64 ")", n, (uint64_t)n);
        return;
    }
    if (s != NULL && s[0] != '\0' && strspn(s, "0123456789") == strlen(s) && strlen(s) <= 20) {
        vec_format(out, cap, "%s (0x%" PRIx64 ")", s, (uint64_t)strtoull(s, NULL, 10));
        return;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (text == NULL) {
        vec_format(out, cap, "(unprintable)");
        return;
    }
    vec_format(out, cap, "%.*s%s", (int)SHOWN_MAX, text, strlen(text) > SHOWN_MAX ? ".." : "");
    free(text);
}

/* Two hex strings: the first differing byte and both lengths. */
static void show_hex_diff(const char *key, const char *want, const char *got, const char *who, char *out, size_t cap)
{
    size_t i = 0, wl = strlen(want), gl = strlen(got);
    while (i + 1 < wl && i + 1 < gl && want[i] == got[i] && want[i + 1] == got[i + 1])
        i += 2;
    if (i + 1 < wl && i + 1 < gl)
        vec_format(out, cap, "%s: first difference at byte %zu: client %.2s, %s %.2s (lengths %zu/%zu bytes)", key,
                   i / 2, got + i, who, want + i, gl / 2, wl / 2);
    else
        vec_format(out, cap, "%s: client %zu bytes, %s %zu bytes, equal over the shorter", key, gl / 2, who, wl / 2);
}

/* The first expected field the client's output gives another value for (wrong values before
 * absent fields), with both values. */
static void field_diff(const json_t *expected, const json_t *actual, const char *who, char *out, size_t cap)
{
    const char *key, *absent = NULL;
    json_t *want;
    json_object_foreach ((json_t *)expected, key, want) {
        const json_t *got = json_object_get(actual, key);
        if (got == NULL) {
            absent = absent != NULL ? absent : key;
            continue;
        }
        if (json_equal(want, got))
            continue;
        size_t kl = strlen(key);
        if (json_is_string(want) && json_is_string(got) && kl > 4 && strcmp(key + kl - 4, "_hex") == 0) {
            show_hex_diff(key, json_string_value(want), json_string_value(got), who, out, cap);
            return;
        }
        char w[96], g[96];
        show_value(want, w, sizeof w);
        show_value(got, g, sizeof g);
        vec_format(out, cap, "%s: client %s, %s %s", key, g, who, w);
        return;
    }
    if (absent != NULL) {
        char w[96];
        show_value(json_object_get(expected, absent), w, sizeof w);
        vec_format(out, cap, "%s: absent from the client's answer, %s %s", absent, who, w);
    } else {
        vec_format(out, cap, "(no field differs)");
    }
}

/* Did the client's answer match the variant's recorded answer? */
static bool matches(const json_t *expected, const vj_path_t *tp, const char *variant, const vec_run_t *run,
                    char *why, size_t cap)
{
    vj_path_t ep = vj_path_key(tp, "expected");
    vj_err_t e;
    const json_t *want_error = json_object_get(expected, "error");
    char who[NAME_MAX_LEN + 16];
    vec_format(who, sizeof who, strcmp(variant, "spec") == 0 ? "the spec" : "variant %s", variant);
    switch (run->status) {
    case VEC_RUN_BAD_INPUT: vec_format(why, cap, "%s", run->err.msg); return false;
    case VEC_RUN_UNSUPPORTED: vec_format(why, cap, "unsupported"); return false;
    case VEC_RUN_REJECTED:
        if (want_error == NULL) {
            vec_format(why, cap, "rejected (%s), %s accepts", run->error_class ? run->error_class : "no class", who);
            return false;
        }
        if (run->error_class != NULL && !vj_string_is(want_error, run->error_class)) {
            vec_format(why, cap, "rejected as %s, %s as %s", run->error_class, who, json_string_value(want_error));
            return false;
        }
        return true;
    case VEC_RUN_ACCEPTED:
        if (want_error != NULL) {
            vec_format(why, cap, "accepted, %s rejects (%s)", who, json_string_value(want_error));
            return false;
        }
        if (!vec_check_fields(expected, run->actual, &ep, &e)) {
            field_diff(expected, run->actual, who, why, cap);
            if (strcmp(why, "(no field differs)") == 0)
                vec_format(why, cap, "%s", e.msg);
            return false;
        }
        return true;
    }
    return false;
}

/* An accepted answer whose test expects a field the client declared it does not produce
 * (capabilities.unproduced_fields): those fields are left out of *expected (a new reference in
 * *trimmed, or NULL when none applies). True when the answer matches every produced field: the
 * test cannot tell the variants apart for this client, so it counts as unsupported with that
 * reason in why, never as a field "absent from the client's answer". */
static bool unproduced_only(const json_t *expected, const vec_run_t *run, const char *variant, json_t **trimmed,
                            char *why, size_t cap)
{
    const char *first = NULL;
    *trimmed = NULL;
    for (size_t i = 0; run->status == VEC_RUN_ACCEPTED && i < json_array_size(run->unproduced); i++) {
        const char *f = json_string_value(json_array_get(run->unproduced, i));
        if (f == NULL || json_object_get(expected, f) == NULL)
            continue;
        if (*trimmed == NULL)
            *trimmed = json_copy((json_t *)expected);
        json_object_del(*trimmed, f);
        json_object_del(run->actual, f);
        first = first != NULL ? first : f;
    }
    if (*trimmed == NULL)
        return false;
    vj_path_t ep = {"expected"};
    vj_err_t e;
    if (!vec_check_fields(*trimmed, run->actual, &ep, &e))
        return false;
    vec_format(why, cap, "answers as %s on every produced field; %s is not produced (capabilities.unproduced_fields)",
               strcmp(variant, "spec") == 0 ? "the spec" : variant, first);
    return true;
}

/* Where a test is, for a report line: the file's base name and the tcId. */
static void test_place(const char *path, const json_t *test, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    vec_format(out, cap, "%s tcId %" JSON_INTEGER_FORMAT, base != NULL ? base + 1 : path,
               json_integer_value(json_object_get(test, "tcId")));
}

static void run_test(dialect_t *d, const vec_file_t *f, const vec_kind_t *kind, const json_t *notes,
                     const json_t *test, size_t i, vec_backend_t *backend)
{
    char area[NAME_MAX_LEN], variant[NAME_MAX_LEN], ctx[CTX_MAX_LEN], place[300];
    bool ctx_spec = true;
    const char *flag = NULL;
    vj_path_t tp = vj_path_index(&(vj_path_t){"tests"}, i);
    const json_t *input = json_object_get(test, "input");
    variant_t *v = NULL;
    if (!json_is_object(input) || !dialect_flags(test, area, variant, &flag, ctx, &ctx_spec) ||
        (v = variant_of(d, area, variant, ctx)) == NULL) {
        fprintf(stderr, "rl-testbed: %s: %s: no usable input and dialect:<area>:<variant> flag\n", f->path, tp.s);
        d->problems++;
        return;
    }
    v->ctx_spec = ctx_spec;
    const char *note = json_string_value(json_object_get(notes, flag));
    if (v->note[0] == '\0' && note != NULL)
        vec_format(v->note, sizeof v->note, "%s", note);
    vec_run_t run;
    memset(&run, 0, sizeof run);
    vj_path_t ip = vj_path_key(&tp, "input");
    backend->run(backend->ctx, kind, input, &ip, &run);
    if (run.status == VEC_RUN_REJECTED && run.stage != NULL && strcmp(run.stage, "key") == 0 &&
        strcmp(kind->name, "api_key") != 0) {
        /* refused before the area's step: the test shows nothing about the area (project) */
        run.status = VEC_RUN_UNSUPPORTED;
        vec_format(run.reason, sizeof run.reason,
                   "not judged: refused at the key (stage \"key\"), and the area is not about the key");
    }
    char why[VEC_MSG_MAX];
    json_t *trimmed = NULL;
    test_place(f->path, test, place, sizeof place);
    v->tests++;
    if (unproduced_only(json_object_get(test, "expected"), &run, variant, &trimmed, run.reason, sizeof run.reason)) {
        run.status = VEC_RUN_UNSUPPORTED;
        v->produced_ok++;
    }
    if (run.status == VEC_RUN_UNSUPPORTED) {
        v->unsupported++;
        if (v->first_unsupported[0] == '\0')
            vec_format(v->first_unsupported, sizeof v->first_unsupported, "%s: %s", place,
                       run.reason[0] != '\0' ? run.reason : "no reason given");
    } else if (matches(trimmed != NULL ? trimmed : json_object_get(test, "expected"), &tp, variant, &run, why,
                       sizeof why)) {
        v->matched++;
        v->accepted += run.status == VEC_RUN_ACCEPTED;
    } else if (v->first_miss[0] == '\0') {
        vec_format(v->first_miss, sizeof v->first_miss, "%s: %s", place, why);
    }
    json_decref(trimmed);
    json_decref(run.actual);
}

static void run_file(dialect_t *d, const vec_file_t *f, vec_backend_t *backend)
{
    char msg[VEC_MSG_MAX];
    json_t *root = f->no_match ? NULL : vec_load_file(f->path, msg, sizeof msg);
    if (f->no_match)
        vec_format(msg, sizeof msg, "(files): no file matches this pattern");
    const vec_kind_t *kind = root != NULL ? vec_kind_find(json_object_get(root, "kind")) : NULL;
    const json_t *tests = json_object_get(root, "tests"), *notes = json_object_get(root, "notes");
    if (root != NULL && (!vec_is_vector_file(root) || kind == NULL || !json_is_array(tests)))
        vec_format(msg, sizeof msg, "not a ratelimitly-vectors/v1 file of a known kind with tests");
    if (root == NULL || !vec_is_vector_file(root) || kind == NULL || !json_is_array(tests)) {
        fprintf(stderr, "rl-testbed: %s: %s\n", f->path, msg);
        d->problems++;
        json_decref(root);
        return;
    }
    for (size_t i = 0; i < json_array_size(tests); i++)
        run_test(d, f, kind, notes, json_array_get(tests, i), i, backend);
    json_decref(root);
}

/* A variant holds when the client answered every test of it it supports as the variant does, and
 * accepted at least one of them (or one matched on every field it produces): refusing everything
 * matches no variant. */
static bool holds(const variant_t *v)
{
    return v->tests > v->unsupported && v->matched == v->tests - v->unsupported && v->accepted + v->produced_ok > 0;
}

/* A variant whose layout-free tests (no "dialect-under:" flag) do not hold is out, whatever it
 * matches under some layout: those tests apply to every client. */
static bool blocked(const area_t *a, const char *name)
{
    for (size_t i = 0; i < a->n_variants; i++) {
        const variant_t *v = &a->variants[i];
        if (v->ctx[0] == '\0' && strcmp(v->name, name) == 0 && !holds(v))
            return true;
    }
    return false;
}

typedef enum { AREA_SPEC, AREA_VARIANT, AREA_NONE, AREA_PARTIAL, AREA_UNSUPPORTED } area_verdict_t;

typedef struct {
    area_verdict_t verdict;
    const variant_t *hit;       /* SPEC, VARIANT, PARTIAL: the first holding entry */
    unsigned ok, n;             /* the spec's tests the client matched, of those run, over the entries shown */
    unsigned unsupported, tests;
    const char *unsupported_why; /* the first unsupported test's reason */
    const char *miss;            /* NONE: the first difference from the spec */
    const variant_t *other;      /* NONE: a second variant that also holds (answers mixed) */
} judged_t;

/* The spec entry whose first miss names the difference: the one the client matched most often. */
static const variant_t *closest_spec(const area_t *a)
{
    const variant_t *best = NULL;
    for (size_t i = 0; i < a->n_variants; i++) {
        const variant_t *v = &a->variants[i];
        if (!v->off_layout && strcmp(v->name, "spec") == 0 && v->first_miss[0] != '\0' && (best == NULL || v->matched > best->matched))
            best = v;
    }
    return best;
}

static judged_t judge_area(const area_t *a)
{
    judged_t j;
    memset(&j, 0, sizeof j);
    const variant_t *spec = NULL, *var = NULL;
    const char *off_why = NULL;
    for (size_t i = 0; i < a->n_variants; i++) {
        const variant_t *v = &a->variants[i];
        if (v->off_layout) {
            off_why = off_why != NULL ? off_why : v->first_unsupported;
            continue;
        }
        j.tests += v->tests;
        j.unsupported += v->unsupported;
        if (j.unsupported_why == NULL && v->first_unsupported[0] != '\0')
            j.unsupported_why = v->first_unsupported;
        if (!holds(v) || blocked(a, v->name))
            continue;
        if (strcmp(v->name, "spec") == 0)
            spec = spec != NULL ? spec : v;
        else if (var == NULL)
            var = v;
        else if (strcmp(var->name, v->name) != 0 && j.other == NULL)
            j.other = v;
    }
    if (j.tests == j.unsupported) {
        j.verdict = AREA_UNSUPPORTED;
        j.unsupported_why = j.unsupported_why != NULL ? j.unsupported_why : off_why;
        return j;
    }
    j.hit = spec != NULL && var == NULL ? spec : spec == NULL && var != NULL && j.other == NULL ? var : NULL;
    for (size_t i = 0; i < a->n_variants; i++) { /* the spec's counts: under the hit's layout, or all */
        const variant_t *v = &a->variants[i];
        if (!v->off_layout && strcmp(v->name, "spec") == 0 && (j.hit == NULL || strcmp(v->ctx, j.hit->ctx) == 0)) {
            j.ok += v->matched;
            j.n += v->tests - v->unsupported;
        }
    }
    if (j.hit == NULL) {
        j.verdict = AREA_NONE;
        j.other = spec != NULL ? var : j.other;
        j.hit = spec != NULL ? spec : var;
        const variant_t *closest = closest_spec(a);
        j.miss = closest != NULL ? closest->first_miss : "(the client answered no spec test)";
        return j;
    }
    j.verdict = j.unsupported > 0 ? AREA_PARTIAL : j.hit == spec ? AREA_SPEC : AREA_VARIANT;
    return j;
}

/* " (under byte_order big_endian)" when the entry holds only under a layout other than the spec's. */
static void under_text(const variant_t *v, char *out, size_t cap)
{
    if (v->ctx_spec || v->ctx[0] == '\0')
        out[0] = '\0';
    else
        vec_format(out, cap, " (under %s)", v->ctx);
}

static void print_area(const area_t *ar, const judged_t *j)
{
    char under[CTX_MAX_LEN + 16] = "";
    if (j->hit != NULL && j->verdict != AREA_NONE)
        under_text(j->hit, under, sizeof under);
    const char *note = j->hit != NULL && j->hit->note[0] ? j->hit->note : "(no note in the dialect file)";
    switch (j->verdict) {
    case AREA_SPEC: printf("  %-16s %-22s %u/%u%s\n", ar->name, "spec", j->ok, j->n, under); break;
    case AREA_UNSUPPORTED:
        printf("  %-16s %-22s -; %s\n", ar->name, "unsupported", j->unsupported_why ? j->unsupported_why : "");
        break;
    case AREA_VARIANT: printf("  %-16s %-22s %u/%u%s; %s\n", ar->name, j->hit->name, j->ok, j->n, under, note); break;
    case AREA_PARTIAL:
        printf("  %-16s %-22s %u/%u%s; %s on the %u tests answered, %u unsupported (first: %s)\n", ar->name,
               "partial", j->ok, j->n, under, strcmp(j->hit->name, "spec") == 0 ? "the spec" : j->hit->name,
               j->tests - j->unsupported, j->unsupported, j->unsupported_why);
        break;
    case AREA_NONE:
        if (j->other != NULL)
            printf("  %-16s %-22s %u/%u; answers mixed: %s%s and %s%s both hold\n", ar->name, "none", j->ok, j->n,
                   j->hit->name, j->hit->ctx[0] ? " under another layout" : "", j->other->name,
                   j->other->ctx[0] ? " under another layout" : "");
        else
            printf("  %-16s %-22s %u/%u; first difference from the spec: %s\n", ar->name, "none", j->ok, j->n, j->miss);
        if (j->unsupported > 0)
            printf("  %-16s %-22s %u unsupported (first: %s)\n", "", "", j->unsupported, j->unsupported_why);
        break;
    }
}

/* The variant an area was found to hold (spec, a variant or partial), "" when it is none or
 * unsupported: judged once without the layout rule below. */
static const char *held_variant(const dialect_t *d, const char *area)
{
    for (size_t i = 0; i < d->n_areas; i++) {
        if (strcmp(d->areas[i].name, area) != 0)
            continue;
        judged_t j = judge_area(&d->areas[i]);
        return j.verdict == AREA_SPEC || j.verdict == AREA_VARIANT || j.verdict == AREA_PARTIAL ? j.hit->name : "";
    }
    return "";
}

/* Tests written under a layout of another area that the client was found not to speak (the
 * byte_order tests under the spec's key format, for a client that holds legacy_60) tell
 * nothing about their own area: they become unsupported with that reason (project; an area is
 * judged under the client's own layout of the others). One level: the other areas are judged
 * without this rule. */
static void apply_layouts(dialect_t *d)
{
    char held[MAX_AREAS][NAME_MAX_LEN];
    for (size_t i = 0; i < d->n_areas; i++)
        vec_format(held[i], sizeof held[i], "%s", held_variant(d, d->areas[i].name));
    for (size_t i = 0; i < d->n_areas; i++) {
        for (size_t k = 0; k < d->areas[i].n_variants; k++) {
            variant_t *v = &d->areas[i].variants[k];
            for (size_t o = 0; o < d->n_areas && v->ctx[0] != '\0'; o++) {
                char pair[2 * NAME_MAX_LEN + 2];
                vec_format(pair, sizeof pair, "%s %s", d->areas[o].name, held[o]);
                bool names_area = false, names_held = strstr(v->ctx, pair) != NULL;
                char prefix[NAME_MAX_LEN + 2];
                vec_format(prefix, sizeof prefix, "%s ", d->areas[o].name);
                for (const char *c = v->ctx; (c = strstr(c, prefix)) != NULL; c++)
                    names_area = names_area || c == v->ctx || c[-1] == ' ';
                if (held[o][0] == '\0' || !names_area || names_held)
                    continue;
                v->off_layout = true;
                vec_format(v->first_unsupported, sizeof v->first_unsupported,
                           "written under %s; the client holds %s %s", v->ctx, d->areas[o].name, held[o]);
                break;
            }
        }
    }
}

int dialect_run(const vec_file_list_t *files, rl_adapter_t *a)
{
    dialect_t *d = calloc(1, sizeof *d);
    if (d == NULL) {
        fputs("rl-testbed: out of memory\n", stderr);
        return 1;
    }
    vec_backend_t backend = vec_client_backend(a);
    for (size_t i = 0; i < files->n; i++)
        run_file(d, &files->files[i], &backend);
    apply_layouts(d);
    unsigned counts[5] = {0, 0, 0, 0, 0}, partial_off_spec = 0;
    printf("dialect of %s %s\n  %-16s %-22s %s\n", a->name, a->version, "area", "client matches",
           "spec tests / what differs");
    for (size_t i = 0; i < d->n_areas; i++) {
        judged_t j = judge_area(&d->areas[i]);
        counts[j.verdict]++;
        partial_off_spec += j.verdict == AREA_PARTIAL && strcmp(j.hit->name, "spec") != 0;
        print_area(&d->areas[i], &j);
    }
    printf("\ndialect: %u areas spec, %u variant, %u none, %u partial, %u unsupported\n", counts[AREA_SPEC],
           counts[AREA_VARIANT], counts[AREA_NONE], counts[AREA_PARTIAL], counts[AREA_UNSUPPORTED]);
    int rc = d->problems == 0 && counts[AREA_VARIANT] == 0 && counts[AREA_NONE] == 0 && partial_off_spec == 0 &&
                     d->n_areas > 0
                 ? 0
                 : 1;
    if (d->problems > 0)
        fprintf(stderr, "rl-testbed: %u dialect file(s) or test(s) could not be used\n", d->problems);
    free(d);
    return rc;
}
