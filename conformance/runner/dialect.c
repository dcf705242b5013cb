/* dialect.c - the per-area dialect report (see dialect.h). */
#include "dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vec_check.h"
#include "vec_client.h"

#define MAX_AREAS 32u
#define MAX_VARIANTS 8u
#define NAME_MAX_LEN 40u
#define FLAG_PREFIX "dialect:"

typedef struct {
    char name[NAME_MAX_LEN];
    unsigned tests, matched, unsupported;
    char note[VEC_MSG_MAX];     /* the file's note for this flag */
    char first_miss[VEC_MSG_MAX]; /* why the first test of this variant did not match */
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

static variant_t *variant_of(dialect_t *d, const char *area, const char *variant)
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
        if (strcmp(a->variants[i].name, variant) == 0)
            return &a->variants[i];
    }
    if (a->n_variants == MAX_VARIANTS)
        return NULL;
    variant_t *v = &a->variants[a->n_variants++];
    vec_format(v->name, sizeof v->name, "%s", variant);
    return v;
}

/* The test's "dialect:<area>:<variant>" flag split into area and variant. */
static bool dialect_flag(const json_t *test, char *area, char *variant, const char **flag)
{
    const json_t *flags = json_object_get(test, "flags");
    for (size_t i = 0; i < json_array_size(flags); i++) {
        const char *f = json_string_value(json_array_get(flags, i));
        if (f == NULL || strncmp(f, FLAG_PREFIX, strlen(FLAG_PREFIX)) != 0)
            continue;
        const char *a = f + strlen(FLAG_PREFIX), *colon = strchr(a, ':');
        if (colon == NULL || colon == a || colon[1] == '\0' || (size_t)(colon - a) >= NAME_MAX_LEN ||
            strlen(colon + 1) >= NAME_MAX_LEN)
            return false;
        memcpy(area, a, (size_t)(colon - a));
        area[colon - a] = '\0';
        vec_format(variant, NAME_MAX_LEN, "%s", colon + 1);
        *flag = f;
        return true;
    }
    return false;
}

/* Did the client's answer match the variant's recorded answer? */
static bool matches(const json_t *test, const vj_path_t *tp, const vec_run_t *run, char *why, size_t cap)
{
    const json_t *expected = json_object_get(test, "expected");
    const json_t *want_error = json_object_get(expected, "error");
    vj_path_t ep = vj_path_key(tp, "expected");
    vj_err_t e;
    switch (run->status) {
    case VEC_RUN_BAD_INPUT: vec_format(why, cap, "%s", run->err.msg); return false;
    case VEC_RUN_UNSUPPORTED: vec_format(why, cap, "unsupported"); return false;
    case VEC_RUN_REJECTED:
        if (want_error == NULL) {
            vec_format(why, cap, "rejected (%s), the variant accepts", run->error_class ? run->error_class : "no class");
            return false;
        }
        if (run->error_class != NULL && !vj_string_is(want_error, run->error_class)) {
            vec_format(why, cap, "rejected as %s, the variant as %s", run->error_class, json_string_value(want_error));
            return false;
        }
        return true;
    case VEC_RUN_ACCEPTED:
        if (want_error != NULL) {
            vec_format(why, cap, "accepted, the variant rejects (%s)", json_string_value(want_error));
            return false;
        }
        if (!vec_check_fields(expected, run->actual, &ep, &e)) {
            vec_format(why, cap, "%s", e.msg);
            return false;
        }
        return true;
    }
    return false;
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
    for (size_t i = 0; i < json_array_size(tests); i++) {
        const json_t *test = json_array_get(tests, i);
        char area[NAME_MAX_LEN], variant[NAME_MAX_LEN];
        const char *flag = NULL;
        vj_path_t tp = vj_path_index(&(vj_path_t){"tests"}, i);
        const json_t *input = json_object_get(test, "input");
        variant_t *v = NULL;
        if (!json_is_object(input) || !dialect_flag(test, area, variant, &flag) ||
            (v = variant_of(d, area, variant)) == NULL) {
            fprintf(stderr, "rl-testbed: %s: %s: no usable input and dialect:<area>:<variant> flag\n", f->path, tp.s);
            d->problems++;
            continue;
        }
        const char *note = json_string_value(json_object_get(notes, flag));
        if (v->note[0] == '\0' && note != NULL)
            vec_format(v->note, sizeof v->note, "%s", note);
        vec_run_t run;
        memset(&run, 0, sizeof run);
        vj_path_t ip = vj_path_key(&tp, "input");
        backend->run(backend->ctx, kind, input, &ip, &run);
        char why[VEC_MSG_MAX];
        v->tests++;
        if (run.status == VEC_RUN_UNSUPPORTED)
            v->unsupported++;
        else if (matches(test, &tp, &run, why, sizeof why))
            v->matched++;
        else if (v->first_miss[0] == '\0')
            vec_format(v->first_miss, sizeof v->first_miss, "%s tcId %" JSON_INTEGER_FORMAT ": %s", f->path,
                       json_integer_value(json_object_get(test, "tcId")), why);
        json_decref(run.actual);
    }
    json_decref(root);
}

/* A variant matches when the client answered every one of its tests as it does. */
static bool variant_matched(const variant_t *v)
{
    return v->tests > 0 && v->unsupported == 0 && v->matched == v->tests;
}

typedef enum { AREA_SPEC, AREA_VARIANT, AREA_NONE, AREA_UNSUPPORTED } area_verdict_t;

static area_verdict_t judge_area(const area_t *a, const variant_t **spec, const variant_t **hit)
{
    unsigned tests = 0, unsupported = 0;
    *spec = *hit = NULL;
    for (size_t i = 0; i < a->n_variants; i++) {
        const variant_t *v = &a->variants[i];
        tests += v->tests;
        unsupported += v->unsupported;
        if (strcmp(v->name, "spec") == 0)
            *spec = v;
        else if (*hit == NULL && variant_matched(v))
            *hit = v;
    }
    if (tests == unsupported)
        return AREA_UNSUPPORTED;
    if (*spec != NULL && variant_matched(*spec))
        return AREA_SPEC;
    return *hit != NULL ? AREA_VARIANT : AREA_NONE;
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
    unsigned counts[4] = {0, 0, 0, 0};
    printf("dialect of %s %s\n  %-16s %-22s %s\n", a->name, a->version, "area", "client matches", "spec tests / to reach the spec");
    for (size_t i = 0; i < d->n_areas; i++) {
        const area_t *ar = &d->areas[i];
        const variant_t *spec = NULL, *hit = NULL;
        area_verdict_t verdict = judge_area(ar, &spec, &hit);
        counts[verdict]++;
        unsigned spec_ok = spec != NULL ? spec->matched : 0, spec_n = spec != NULL ? spec->tests : 0;
        switch (verdict) {
        case AREA_SPEC: printf("  %-16s %-22s %u/%u\n", ar->name, "spec", spec_ok, spec_n); break;
        case AREA_UNSUPPORTED: printf("  %-16s %-22s -\n", ar->name, "unsupported"); break;
        case AREA_VARIANT:
            printf("  %-16s %-22s %u/%u; %s\n", ar->name, hit->name, spec_ok, spec_n,
                   hit->note[0] ? hit->note : "(no note in the dialect file)");
            break;
        case AREA_NONE:
            printf("  %-16s %-22s %u/%u; first difference from the spec: %s\n", ar->name, "none", spec_ok, spec_n,
                   spec != NULL ? spec->first_miss : "(the area has no spec tests)");
            break;
        }
    }
    printf("\ndialect: %u areas spec, %u variant, %u none, %u unsupported\n", counts[AREA_SPEC],
           counts[AREA_VARIANT], counts[AREA_NONE], counts[AREA_UNSUPPORTED]);
    int rc = d->problems == 0 && counts[AREA_VARIANT] == 0 && counts[AREA_NONE] == 0 && d->n_areas > 0 ? 0 : 1;
    if (d->problems > 0)
        fprintf(stderr, "rl-testbed: %u dialect file(s) or test(s) could not be used\n", d->problems);
    free(d);
    return rc;
}
