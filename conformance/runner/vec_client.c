/* SPDX-License-Identifier: MIT */
/* vec_client.c - vector tests answered by an adapter (see vec_client.h). */
#include "vec_client.h"

#include <ctype.h>
#include <string.h>

/* "adapter message N (vector): <field>: expected <want>, got <what was there>" */
static void answer_fail(vec_run_t *run, unsigned long id, const char *field, const char *want, const json_t *v)
{
    char got[96];
    run->status = VEC_RUN_BAD_INPUT;
    run->err.range = false;
    vec_format(run->err.msg, sizeof run->err.msg, "adapter message %lu (vector): %s: expected %s, got %s", id, field,
               want, vj_describe(v, got, sizeof got));
}

static const char *reason_of(const json_t *ans)
{
    const char *s = json_string_value(json_object_get(ans, "reason"));
    return s != NULL ? s : "";
}

/* The schema class the adapter named, as the runner's static string. */
static const char *known_class(const json_t *v)
{
    for (size_t i = 0; vec_error_classes[i] != NULL; i++) {
        if (vj_string_is(v, vec_error_classes[i]))
            return vec_error_classes[i];
    }
    return NULL;
}

/* The step a rejection names (conformance/ADAPTER.md "Steps"), as a static
 * string; false when "stage" is there but names no step. */
static bool read_stage(const json_t *ans, const char **stage)
{
    static const char *const steps[] = {"key", "ids", "discovery", "request", "report", "response", "policy",
                                        "admin"};
    const json_t *v = json_object_get(ans, "stage");
    *stage = NULL;
    if (v == NULL || json_is_null(v))
        return true;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (vj_string_is(v, steps[i])) {
            *stage = steps[i];
            return true;
        }
    }
    return false;
}

void vec_client_answer(const rl_adapter_t *a, unsigned long id, const json_t *ans, vec_run_t *run)
{
    const json_t *status = json_object_get(ans, "status");
    if (vj_string_is(status, "accepted")) {
        json_t *output = json_object_get(ans, "output");
        if (!json_is_object(output)) {
            answer_fail(run, id, "output", "an object", output);
            return;
        }
        vec_run_accept(run, json_incref(output));
    } else if (vj_string_is(status, "rejected")) {
        const json_t *cls = json_object_get(ans, "error");
        const char *known = known_class(cls);
        if (cls != NULL && !json_is_null(cls) && known == NULL) {
            answer_fail(run, id, "error",
                        "a schema error class (bech32, hrp, length, version, quota, range, malformed, auth, "
                        "correlation) or null",
                        cls);
            return;
        }
        const char *stage = NULL;
        if (!read_stage(ans, &stage)) {
            answer_fail(run, id, "stage",
                        "\"key\", \"ids\", \"discovery\", \"request\", \"report\", \"response\", \"policy\", "
                        "\"admin\" or null",
                        json_object_get(ans, "stage"));
            return;
        }
        vec_run_reject(run, rl_adapter_reports_classes(a) ? known : NULL, "%s", reason_of(ans));
        run->stage = stage;
    } else if (vj_string_is(status, "unsupported")) {
        run->status = VEC_RUN_UNSUPPORTED;
        vec_format(run->reason, sizeof run->reason, "the client says: %s", reason_of(ans));
    } else if (vj_string_is(status, "bad_input")) {
        run->status = VEC_RUN_BAD_INPUT;
        vec_format(run->err.msg, sizeof run->err.msg, "adapter message %lu (vector): the client cannot read the input: %s",
                   id, reason_of(ans));
    } else {
        answer_fail(run, id, "status", "\"accepted\", \"rejected\", \"unsupported\" or \"bad_input\"", status);
    }
}

/* An input field the adapter declared it cannot take (capabilities.unsupported_fields). */
static const char *unsupported_field(const rl_adapter_t *a, const char *kind, const json_t *input)
{
    const json_t *fields =
        json_object_get(json_object_get(json_object_get(a->hello, "capabilities"), "unsupported_fields"), kind);
    for (size_t i = 0; i < json_array_size(fields); i++) {
        const char *f = json_string_value(json_array_get(fields, i));
        if (f != NULL && json_object_get(input, f) != NULL)
            return f;
    }
    return NULL;
}

/* The credential format of a key string: its HRP ("rl-none", "rl-cookie",
 * "rl-aes", "rl-secret"; lowercased, as Bech32 is read in either case) and the
 * auth mode of an API key, "" when neither. */
static void key_format(const char *key, char *hrp, size_t cap, const char **mode)
{
    static const char *const modes[][2] = {{"rl-none", "none"}, {"rl-cookie", "cookie"}, {"rl-aes", "aes"}};
    const char *one = key != NULL ? strrchr(key, '1') : NULL;
    hrp[0] = '\0';
    *mode = "";
    if (one == NULL)
        return;
    vec_format(hrp, cap, "%.*s", (int)(one - key), key);
    for (char *h = hrp; *h != '\0'; h++)
        *h = (char)tolower((unsigned char)*h);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(hrp, modes[i][0]) == 0)
            *mode = modes[i][1];
    }
}

/* A test whose credential the client declared it does not take
 * (capabilities.auth_modes, key_formats): it cannot reach the test's step.
 * An api_key or secret_key test still runs, with *key_test set: refusing an
 * invalid key needs no support for its format, and the runner skips a valid
 * one (vec_kinds.h vec_run_t.undeclared). */
static bool undeclared_key(const rl_adapter_t *a, const vec_kind_t *kind, const json_t *input, char *why, size_t cap,
                           bool *key_test)
{
    const json_t *key = json_object_get(input, "key");
    if (key == NULL)
        key = json_object_get(input, "admin_key");
    char hrp[32];
    const char *mode = "";
    key_format(json_string_value(key), hrp, sizeof hrp, &mode);
    *key_test = strcmp(kind->name, "api_key") == 0 || strcmp(kind->name, "secret_key") == 0;
    if (hrp[0] == '\0')
        return false;
    if (mode[0] != '\0' && !rl_adapter_lists(a, "auth_modes", mode))
        vec_format(why, cap, "auth mode %s not declared (capabilities.auth_modes)", mode);
    else if (!rl_adapter_lists(a, "key_formats", hrp))
        vec_format(why, cap, "key format %s not declared (capabilities.key_formats)", hrp);
    else
        return false;
    return true;
}

static void run_one(void *ctx, const vec_kind_t *kind, const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    rl_adapter_t *a = ctx;
    (void)path;
    const char *field = NULL;
    if (!rl_adapter_has_kind(a, kind->name)) {
        run->status = VEC_RUN_UNSUPPORTED;
        vec_format(run->reason, sizeof run->reason, "kind %s not declared in hello", kind->name);
        return;
    }
    if ((field = unsupported_field(a, kind->name, input)) != NULL) {
        run->status = VEC_RUN_UNSUPPORTED;
        vec_format(run->reason, sizeof run->reason, "input field %s declared unsupported in hello", field);
        return;
    }
    bool key_test = false;
    if (undeclared_key(a, kind, input, run->reason, sizeof run->reason, &key_test)) {
        if (!key_test) {
            run->status = VEC_RUN_UNSUPPORTED;
            return;
        }
        vec_format(run->undeclared, sizeof run->undeclared, "%s", run->reason);
        run->reason[0] = '\0';
    }
    json_t *req = json_pack("{s:s, s:s, s:O}", "op", "vector", "kind", kind->name, "input", input);
    json_t *ans = NULL;
    if (req == NULL || !rl_adapter_call(a, req, &ans, run->err.msg, sizeof run->err.msg)) {
        run->status = VEC_RUN_BAD_INPUT;
        run->err.range = false;
    } else {
        vec_client_answer(a, a->next_id - 1, ans, run);
        /* output fields the client declared it does not produce: left out of the comparison */
        run->unproduced = json_object_get(
            json_object_get(json_object_get(a->hello, "capabilities"), "unproduced_fields"), kind->name);
    }
    json_decref(ans);
    json_decref(req);
}

vec_backend_t vec_client_backend(rl_adapter_t *a)
{
    vec_backend_t b = {run_one, a};
    return b;
}
