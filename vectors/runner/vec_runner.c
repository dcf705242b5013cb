/* SPDX-License-Identifier: MIT */
/* vec_runner.c - file loop, envelope checks and per-test evaluation
 * (../shared/vectors-schema.md "Envelope", "Runner contract"). */
#include "vec_runner.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vec_check.h"
#include "vec_kinds.h"
#include "vec_leak.h"
#include "vec_norm.h"
#include "vec_report.h"

#define SCHEMA_ID "ratelimitly-vectors/v1"

/* ---- one test --------------------------------------------------------------- */

static bool case_fail(vec_case_t *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool case_fail(vec_case_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->detail, sizeof c->detail, fmt, ap);
    va_end(ap);
    c->pass = false;
    return false;
}

/* Seen tcIds: open addressing over `cap` (a power of two >= 2 x tests) key
 * slots (0 = empty; tcIds are >= 1) followed by `cap` test indices, so the
 * duplicate check stays linear for large files. */
typedef struct {
    uint64_t *keys;
    uint64_t *index;
    size_t cap;
} tcid_set_t;

/* tcId: a positive integer, unique in the file. */
static bool read_tcid(const json_t *test, const vj_path_t *tp, size_t i, tcid_set_t *seen, vec_case_t *c)
{
    vj_err_t e;
    uint64_t id = 0;
    vj_path_t p = vj_path_key(tp, "tcId");
    if (!vj_v_uint(json_object_get(test, "tcId"), &p, 1, UINT32_MAX, &id, &e))
        return case_fail(c, "%s", e.msg);
    snprintf(c->id, sizeof c->id, "%" PRIu64, id);
    snprintf(c->name, sizeof c->name, "tcId %" PRIu64, id);
    size_t slot = (size_t)(id * 0x9E3779B97F4A7C15ull) & (seen->cap - 1);
    while (seen->keys[slot] != 0) {
        if (seen->keys[slot] == id)
            return case_fail(c, "%s.tcId: duplicate tcId %" PRIu64 " (also tests[%" PRIu64 "])", tp->s, id,
                             seen->index[slot]);
        slot = (slot + 1) & (seen->cap - 1);
    }
    seen->keys[slot] = id;
    seen->index[slot] = i;
    return true;
}

/* Optional comment (string) and flags (array of strings). */
static bool check_annotations(const json_t *test, const vj_path_t *tp, vec_case_t *c)
{
    vj_err_t e;
    const json_t *v = json_object_get(test, "comment");
    const char *s = NULL;
    size_t len = 0, n = 0;
    vj_path_t p = vj_path_key(tp, "comment");
    if (v != NULL && !vj_v_string(v, &p, &s, &len, &e))
        return case_fail(c, "%s", e.msg);
    v = json_object_get(test, "flags");
    if (v == NULL)
        return true;
    p = vj_path_key(tp, "flags");
    if (!vj_v_array(v, &p, &n, &e))
        return case_fail(c, "%s", e.msg);
    for (size_t k = 0; k < n; k++) {
        vj_path_t q = vj_path_index(&p, k);
        if (!vj_v_string(json_array_get(v, k), &q, &s, &len, &e))
            return case_fail(c, "%s", e.msg);
    }
    return true;
}

/* An invalid test's expected is exactly {error: <schema class>}. */
static bool check_invalid_expected(const json_t *expected, const vj_path_t *ep, vec_case_t *c)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)expected, key, value) {
        if (strcmp(key, "error") != 0)
            return case_fail(c, "%s.%s: unknown field for an invalid test", ep->s, key);
    }
    const json_t *err = json_object_get(expected, "error");
    if (!vec_is_error_class(err)) {
        char got[96];
        return case_fail(c, "%s.error: expected an error class (bech32, hrp, length, version, quota, range, "
                            "malformed, auth, correlation), got %s",
                         ep->s, vj_describe(err, got, sizeof got));
    }
    return true;
}

/* A refusal of an invalid test is judged at its step (conformance/ADAPTER.md
 * "Steps"): a refusal at another step proves nothing about the test's rule
 * and fails; a client's refusal without a stage, on a test whose kind has an
 * earlier step it could have refused at, is inconclusive. A built-in kind
 * that reports no stage refused at the kind's final step. True when the
 * class is still to be judged. */
static bool judge_stage(const vec_kind_t *kind, bool from_client, const vec_tag_t *tag, const vec_run_t *run,
                        vec_case_t *c)
{
    const char *stage = run->stage;
    if (stage == NULL && !from_client)
        stage = vec_kind_final_step(kind->name);
    if (stage == NULL) {
        if (vec_step_rank(kind->name, tag->step) <= 0)
            return true;
        c->inconclusive = true;
        vec_format(c->detail, sizeof c->detail,
                   "inconclusive: rejected without a stage; the test is about the %s (a refusal at the %s "
                   "looks the same): %s",
                   tag->step, vec_kind_steps(kind->name)[0], run->reason);
        return false;
    }
    if (strcmp(stage, tag->step) != 0) {
        if (vec_step_rank(kind->name, stage) < 0)
            case_fail(c, "refused at the %s, not a step of %s; the test is about the %s (%s)", stage, kind->name,
                      tag->step, run->reason);
        else
            case_fail(c, "refused at the %s; the test is about the %s (%s)", stage, tag->step, run->reason);
        return false;
    }
    return true;
}

/* An oversized request a client cut down instead of refusing (api.md
 * "Capacity limits"): say so rather than only "accepted". */
static void name_truncation(const json_t *actual, const json_t *test, vec_case_t *c)
{
    const json_t *flags = json_object_get(test, "flags");
    const char *hex = json_string_value(json_object_get(actual, "packet_hex"));
    bool capacity = false;
    for (size_t i = 0; i < json_array_size(flags); i++)
        capacity = capacity || vj_string_is(json_array_get(flags, i), "Capacity");
    if (capacity && hex != NULL) {
        /* wire_protocol.md: a datagram is at most 1200 bytes; one of exactly that size
         * built from a request that does not fit was cut short, a smaller one may be
         * the whole request in another layout (a dialect), a larger one breaks the limit */
        size_t n = strlen(c->detail), len = strlen(hex) / 2u;
        char *at = c->detail + n;
        size_t room = sizeof c->detail - n;
        if (len == 1200u)
            vec_format(at, room, "; the oversized request was truncated to a 1200-byte datagram instead of refused");
        else if (len > 1200u)
            vec_format(at, room, "; the oversized request was sent as a %zu-byte datagram, above the 1200-byte limit",
                       len);
        else
            vec_format(at, room,
                       "; the oversized request was accepted and sent as a %zu-byte datagram (in another layout, "
                       "or cut short) instead of refused",
                       len);
    }
}

/* expected without the output fields the client declared it does not
 * produce (capabilities.unproduced_fields), which are removed from actual
 * too: every other field is still compared. A new reference. */
static json_t *without_unproduced(const json_t *expected, json_t *actual, const json_t *unproduced)
{
    if (json_array_size(unproduced) == 0)
        return json_incref((json_t *)expected);
    json_t *want = json_copy((json_t *)expected);
    for (size_t i = 0; want != NULL && i < json_array_size(unproduced); i++) {
        const char *f = json_string_value(json_array_get(unproduced, i));
        if (f != NULL) {
            json_object_del(want, f);
            json_object_del(actual, f);
        }
    }
    return want;
}

/* Key material in a datagram the client built (vec_leak.h): a failure of
 * severity security, whatever else the test is about. True when found. */
static bool leaks_key(const json_t *test, const json_t *actual, vec_case_t *c)
{
    const char *hex = json_string_value(json_object_get(actual, "packet_hex"));
    const char *key = json_string_value(json_object_get(json_object_get(test, "input"), "key"));
    size_t n = hex != NULL ? strlen(hex) / 2u : 0;
    if (hex == NULL || key == NULL || n == 0)
        return false;
    uint8_t *pkt = malloc(n);
    char msg[160];
    bool leak = false;
    if (pkt != NULL) {
        for (size_t i = 0; i < n; i++) {
            unsigned v = 0;
            if (sscanf(hex + 2 * i, "%2x", &v) != 1)
                break;
            pkt[i] = (uint8_t)v;
        }
        leak = vec_datagram_leaks(key, pkt, n, msg, sizeof msg);
        free(pkt);
    }
    if (leak) {
        case_fail(c, "key material on the wire: %s", msg);
        c->severity = VEC_SEV_SECURITY;
        vec_format(c->norm, sizeof c->norm, "%s", "wire_protocol.md \"Auth Header\": secrets never go on the wire MUST");
    }
    return leak;
}

/* A rate_response test under an AES key whose datagram carries the AES auth
 * TLV (type 0x4541 at offset 40, after the tenant TLV) and expects "auth":
 * the tag fails to verify. api.md r_client_on_datagram reports that as
 * RCLIENT_ERR_PROTOCOL, so "malformed" is right for it too (as the HA judge
 * takes it, conformance/runner/conf_remote.c); a wrong auth TLV type stays
 * "auth" (RCLIENT_ERR_AUTH). */
static bool aes_tag_failure(const vec_kind_t *kind, const json_t *test, const json_t *want_error)
{
    const json_t *input = json_object_get(test, "input");
    const char *key = json_string_value(json_object_get(input, "key"));
    const char *hex = json_string_value(json_object_get(input, "packet_hex"));
    return strcmp(kind->name, "rate_response") == 0 && vj_string_is(want_error, "auth") && key != NULL &&
           strncmp(key, "rl-aes1", 7) == 0 && hex != NULL && strlen(hex) >= 84 && strncmp(hex + 80, "4145", 4) == 0;
}

/* A refusal is fail-safe (conformance/ADAPTER.md "Norms and severities"): a
 * wrong one (refused where acceptance was due, at another step or with
 * another class) never lets a forged response or a wrong allow through, so it
 * fails as interop, never security or decision; a convention test stays
 * convention. A wrong acceptance keeps the test's severity. */
static void refusal_severity(vec_case_t *c)
{
    if (!c->pass && (c->severity == VEC_SEV_SECURITY || c->severity == VEC_SEV_DECISION))
        c->severity = VEC_SEV_INTEROP;
}

/* The output of an accepted answer against the test's expectation. */
static void judge_output(const vec_kind_t *kind, bool from_client, bool want_valid, const json_t *test,
                         const vj_path_t *ep, vec_run_t *run, vec_case_t *c)
{
    const json_t *expected = json_object_get(test, "expected");
    const json_t *want_error = json_object_get(expected, "error");
    if (!want_valid) {
        case_fail(c, "expected invalid, accepted (expected error \"%s\")", json_string_value(want_error));
        name_truncation(run->actual, test, c);
        return;
    }
    vj_err_t e;
    json_t *want = without_unproduced(expected, run->actual, run->unproduced);
    if (want == NULL) {
        case_fail(c, "out of memory");
        return;
    }
    if (json_object_size(want) == 0 && json_object_size(expected) > 0) {
        /* nothing left to compare: the client produces none of it (project) */
        case_fail(c, "unsupported: every field of expected is declared unproduced "
                     "(capabilities.unproduced_fields)");
        c->skipped = true;
        json_decref(want);
        return;
    }
    if (!vec_check_output(want, run->actual, kind->expected_fields, kind->name, ep, from_client, &e))
        case_fail(c, "%s", e.msg);
    json_decref(want);
}

/* An accepted answer: a datagram carrying key material fails as security, and
 * whatever else is wrong with it is still named after it, so that one
 * difference does not hide another (project: a maintainer sees both). */
static void judge_accepted(const vec_kind_t *kind, bool from_client, bool want_valid, const json_t *test,
                           const vj_path_t *ep, vec_run_t *run, vec_case_t *c)
{
    bool leak = leaks_key(test, run->actual, c);
    vec_case_t rest;
    memset(&rest, 0, sizeof rest);
    rest.pass = true;
    judge_output(kind, from_client, want_valid, test, ep, run, leak ? &rest : c);
    if (!leak || rest.pass || rest.skipped)
        return;
    size_t n = strlen(c->detail);
    vec_format(c->detail + n, sizeof c->detail - n, "; and: %s", rest.detail);
}

static void judge(const vec_kind_t *kind, bool from_client, bool want_valid, const json_t *test,
                  const vec_tag_t *tag, const vj_path_t *ep, vec_run_t *run, vec_case_t *c)
{
    const json_t *expected = json_object_get(test, "expected");
    const json_t *want_error = json_object_get(expected, "error");
    if (want_valid && run->undeclared[0] != '\0') {
        /* a valid key of a format the client declared it does not take */
        case_fail(c, "unsupported: %s", run->undeclared);
        c->skipped = true;
        return;
    }
    if (run->status == VEC_RUN_BAD_INPUT && run->err.range) {
        /* A well-typed input outside its field's range (tokens_requested 65536,
         * a u32 of 2^32): a builder in any language must reject it, class range. */
        vec_run_reject(run, "range", "%s", run->err.msg);
    }
    if (run->status == VEC_RUN_REJECTED && !want_valid && !judge_stage(kind, from_client, tag, run, c)) {
        refusal_severity(c);
        return;
    }
    switch (run->status) {
    case VEC_RUN_BAD_INPUT:
        case_fail(c, "%s", run->err.msg);
        return;
    case VEC_RUN_UNSUPPORTED:
        case_fail(c, "unsupported: %s", run->reason);
        c->skipped = true;
        return;
    case VEC_RUN_REJECTED:
        if (run->error_class == NULL) {
            /* A client without error classes: the behaviour (rejected) is judged alone. */
            if (want_valid)
                case_fail(c, "expected valid, rejected (no error class reported): %s", run->reason);
            else
                vec_format(c->detail, sizeof c->detail, "rejected; no error class reported (want \"%s\")",
                           json_string_value(want_error));
        } else if (want_valid)
            case_fail(c, "expected valid, rejected as \"%s\": %s", run->error_class, run->reason);
        else if (strcmp(run->error_class, "malformed") == 0 && aes_tag_failure(kind, test, want_error))
            vec_format(c->detail, sizeof c->detail,
                       "rejected as \"malformed\": an AES tag failure is a protocol error in api.md's C API (want "
                       "\"auth\")");
        else if (!vj_string_is(want_error, run->error_class))
            case_fail(c, "expected error \"%s\", got \"%s\" (%s)", json_string_value(want_error), run->error_class,
                      run->reason);
        refusal_severity(c);
        return;
    case VEC_RUN_ACCEPTED:
        judge_accepted(kind, from_client, want_valid, test, ep, run, c);
        return;
    }
}

/* The test's comment after the tcId in the JUnit name, and after a failure's detail. */
static void add_comment(const json_t *test, vec_case_t *c)
{
    const char *comment = json_string_value(json_object_get(test, "comment"));
    if (comment == NULL || comment[0] == '\0')
        return;
    size_t n = strlen(c->name);
    vec_format(c->name + n, sizeof c->name - n, ": %s", comment);
    if (c->skipped || (c->pass && !c->inconclusive))
        return; /* a skip reason stays the same for every test it skips: one summary line */
    n = strlen(c->detail);
    vec_format(c->detail + n, sizeof c->detail - n, " [test: %s]", comment);
}

static void tag_case(const vec_tag_t *tag, vec_case_t *c)
{
    vec_format(c->step, sizeof c->step, "%s", tag->step);
    vec_format(c->norm, sizeof c->norm, "%s", tag->norm);
    c->spec = tag->spec;
    c->severity = tag->severity;
}

/* Returns false when the test is left out (--norm spec and a project norm). */
static bool run_test(const vec_report_t *r, const vec_kind_t *kind, const json_t *test, size_t i,
                     tcid_set_t *seen, vec_case_t *c)
{
    const vec_backend_t *backend = r->backend;
    vj_path_t tp = vj_path_index(&(vj_path_t){"tests"}, i);
    vj_err_t e;
    const json_t *input = NULL, *expected = NULL;
    vec_tag_t tag;
    c->pass = true;
    c->result = "-";
    vec_format(c->id, sizeof c->id, "%s", tp.s);
    vec_format(c->name, sizeof c->name, "%s", tp.s);
    if (!vj_v_object(test, &tp, &e)) {
        case_fail(c, "%s", e.msg);
        return true;
    }
    vec_tag_test(kind->name, test, &tag);
    if (r->gate.norm_spec && !tag.spec)
        return false;
    if (!read_tcid(test, &tp, i, seen, c) || !check_annotations(test, &tp, c))
        return true;
    const json_t *result = json_object_get(test, "result");
    bool want_valid = vj_string_is(result, "valid");
    if (!want_valid && !vj_string_is(result, "invalid")) {
        char got[96];
        case_fail(c, "%s.result: expected \"valid\" or \"invalid\", got %s", tp.s,
                  vj_describe(result, got, sizeof got));
        return true;
    }
    c->result = want_valid ? "valid" : "invalid";
    if (!vj_object(test, &tp, "input", &input, &e) || !vj_object(test, &tp, "expected", &expected, &e)) {
        case_fail(c, "%s", e.msg);
        return true;
    }
    vj_path_t ip = vj_path_key(&tp, "input"), ep = vj_path_key(&tp, "expected");
    if (!want_valid && !check_invalid_expected(expected, &ep, c))
        return true;
    if (kind->run == NULL && backend == NULL) {
        case_fail(c, "kind %s not supported by this build", kind->name);
        return true;
    }
    tag_case(&tag, c); /* a test of the file that runs: its failure has the test's severity */
    vec_run_t run;
    memset(&run, 0, sizeof run);
    if (backend != NULL)
        backend->run(backend->ctx, kind, input, &ip, &run);
    else
        kind->run(input, &ip, &run);
    judge(kind, backend != NULL, want_valid, test, &tag, &ep, &run, c);
    c->wants_datagram = want_valid && json_object_get(expected, "packet_hex") != NULL;
    c->wants_silence = want_valid && json_is_false(json_object_get(expected, "sent"));
    c->sent_datagram = run.status == VEC_RUN_ACCEPTED && json_object_get(run.actual, "packet_hex") != NULL;
    json_decref(run.actual);
    add_comment(test, c);
    return true;
}

/* ---- one file --------------------------------------------------------------- */

/* A broken file counts as one failure, reported "<path>: <field>: <problem>". */
void vec_report_file_failure(vec_report_t *r, const char *path, const char *msg)
{
    vec_case_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.name, sizeof c.name, "envelope");
    snprintf(c.id, sizeof c.id, "-");
    c.result = "-";
    c.pass = false;
    vec_format(c.detail, sizeof c.detail, "%s: %s", path, msg);
    vec_report_case(r, &c);
}

/* Check the envelope; on success *kind and *tests are set. */
bool vec_is_vector_file(const json_t *root)
{
    return json_is_object(root) && vj_string_is(json_object_get(root, "schema"), SCHEMA_ID);
}

static bool check_envelope(const json_t *root, const vec_kind_t **kind, const json_t **tests, vj_err_t *e)
{
    vj_path_t none = {""};
    vj_path_t p;
    char got[96];
    const char *s = NULL;
    size_t len = 0, n = 0;
    if (!json_is_object(root))
        return vj_fail(e, &(vj_path_t){"(root)"}, "expected object, got %s", vj_describe(root, got, sizeof got));
    if (!vj_string_is(json_object_get(root, "schema"), SCHEMA_ID))
        return vj_fail(e, &(vj_path_t){"schema"}, "expected \"" SCHEMA_ID "\", got %s",
                       vj_describe(json_object_get(root, "schema"), got, sizeof got));
    if (!vj_string(root, &none, "kind", &s, &len, e))
        return false;
    *kind = vec_kind_find(json_object_get(root, "kind"));
    if (*kind == NULL)
        return vj_fail(e, &(vj_path_t){"kind"}, "unknown kind %s", vj_quote(s, len, got, sizeof got));
    if (!vj_string(root, &none, "source", &s, &len, e))
        return false;
    p = vj_path("notes");
    if (json_object_get(root, "notes") != NULL && !vj_v_object(json_object_get(root, "notes"), &p, e))
        return false;
    if (!vj_array(root, &none, "tests", tests, &n, e))
        return false;
    if (n == 0)
        return vj_fail(e, &(vj_path_t){"tests"}, "expected at least one test, got an empty array");
    return true;
}

json_t *vec_load_file(const char *path, char *msg, size_t cap)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* never block on a FIFO or read a device; say what the path is */
        vec_format(msg, cap, "%s", S_ISDIR(st.st_mode) ? "(file): is a directory, not a vector file"
                                                       : "(file): not a regular file");
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (root == NULL) {
        bool unreadable = json_error_code(&jerr) == json_error_cannot_open_file;
        if (unreadable || jerr.line < 0)
            vec_format(msg, cap, "%s: %s", unreadable ? "(file)" : "(json)", jerr.text);
        else
            vec_format(msg, cap, "(json): %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
    }
    return root;
}

json_t *vec_open_listed_file(vec_report_t *r, const vec_file_t *f)
{
    char msg[VEC_MSG_MAX];
    json_t *root = NULL;
    if (f->no_match)
        vec_format(msg, sizeof msg, "(files): no file matches this pattern");
    else
        root = vec_load_file(f->path, msg, sizeof msg);
    if (root == NULL) {
        vec_report_file_begin(r, f->path, "-");
        vec_report_file_failure(r, f->path, msg);
    }
    return root;
}

static void run_file(vec_report_t *r, const vec_file_t *f)
{
    json_t *root = vec_open_listed_file(r, f);
    if (root == NULL)
        return;
    vec_run_root(r, f->path, root);
    json_decref(root);
}

/* A refusal shows a rule only when the client can accept at that point: when
 * a file has valid tests that ran and the client passed none of them, its
 * passing refusals of the file's invalid tests prove nothing (it may refuse
 * everything) and are inconclusive (project; conformance/ADAPTER.md
 * "Steps"). The dialect report applies the same rule to its variants. */
static void vacuous_refusals(vec_case_t *cases, const bool *ran, size_t n)
{
    size_t valid_ran = 0, valid_passed = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ran[i] || cases[i].result == NULL || strcmp(cases[i].result, "valid") != 0 || cases[i].skipped)
            continue;
        valid_ran++;
        valid_passed += cases[i].pass && !cases[i].inconclusive;
    }
    if (valid_ran == 0 || valid_passed > 0)
        return;
    for (size_t i = 0; i < n; i++) {
        vec_case_t *c = &cases[i];
        if (!ran[i] || c->skipped || c->inconclusive || !c->pass || c->result == NULL ||
            strcmp(c->result, "invalid") != 0)
            continue;
        c->inconclusive = true;
        vec_format(c->detail, sizeof c->detail,
                   "inconclusive: refused, but the client passed none of the %zu valid tests of this file, so a "
                   "refusal shows nothing about the rule",
                   valid_ran);
    }
}

/* Sending nothing shows a filter only when the client sends at all: when a
 * file has valid tests expecting a datagram that ran and the client produced
 * a datagram in none of them, its passing {"sent": false} tests prove nothing
 * (it may send nothing for any input) and are inconclusive (project, the
 * same reasoning as vacuous_refusals; conformance/ADAPTER.md "Steps"). */
static void vacuous_silences(vec_case_t *cases, const bool *ran, size_t n)
{
    size_t want_ran = 0, sent = 0;
    for (size_t i = 0; i < n; i++) {
        if (!ran[i] || cases[i].skipped || !cases[i].wants_datagram)
            continue;
        want_ran++;
        sent += cases[i].sent_datagram;
    }
    if (want_ran == 0 || sent > 0)
        return;
    for (size_t i = 0; i < n; i++) {
        vec_case_t *c = &cases[i];
        if (!ran[i] || c->skipped || c->inconclusive || !c->pass || !c->wants_silence)
            continue;
        c->inconclusive = true;
        vec_format(c->detail, sizeof c->detail,
                   "inconclusive: sent nothing, but the client sent no datagram in any of the %zu tests of this "
                   "file that expect one, so not sending shows nothing about the rule",
                   want_ran);
    }
}

static void run_tests(vec_report_t *r, const vec_kind_t *kind, const json_t *tests, size_t n, tcid_set_t *seen)
{
    vec_case_t *cases = calloc(n, sizeof *cases);
    bool *ran = calloc(n, sizeof *ran);
    if (cases == NULL || ran == NULL) {
        free(cases);
        free(ran);
        vec_report_file_failure(r, "tests", "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double t0 = vec_report_now();
        ran[i] = run_test(r, kind, json_array_get(tests, i), i, seen, &cases[i]);
        double t1 = vec_report_now();
        cases[i].seconds = t1 > t0 ? t1 - t0 : 0.0;
    }
    vacuous_refusals(cases, ran, n);
    vacuous_silences(cases, ran, n);
    for (size_t i = 0; i < n; i++) {
        if (ran[i])
            vec_report_case(r, &cases[i]);
        else
            r->not_run++;
    }
    free(cases);
    free(ran);
}

void vec_run_root(vec_report_t *r, const char *path, const json_t *root)
{
    const vec_kind_t *kind = NULL;
    const json_t *tests = NULL;
    vj_err_t e;
    if (!check_envelope(root, &kind, &tests, &e)) {
        vec_report_file_begin(r, path, kind != NULL ? kind->name : "-");
        vec_report_file_failure(r, path, e.msg);
        return;
    }
    vec_report_file_begin(r, path, kind->name);
    size_t n = json_array_size(tests);
    tcid_set_t seen = {NULL, NULL, 16};
    while (seen.cap < 2 * n)
        seen.cap *= 2;
    uint64_t *ids = calloc(2 * seen.cap, sizeof *ids);
    if (ids == NULL) {
        vec_report_file_failure(r, path, "tests: out of memory");
    } else {
        seen.keys = ids;
        seen.index = ids + seen.cap;
        run_tests(r, kind, tests, n, &seen);
    }
    free(ids);
}

/* The per-file processing of vec_run on a file held in memory (the
 * vector_file fuzz harness): no file is touched. */
void vec_run_buffer(vec_report_t *r, const char *name, const char *data, size_t len)
{
    json_error_t jerr;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (root == NULL) {
        char msg[VEC_MSG_MAX];
        vec_report_file_begin(r, name, "-");
        vec_format(msg, sizeof msg, "(json): %s (line %d, column %d)", jerr.text, jerr.line, jerr.column);
        vec_report_file_failure(r, name, msg);
        return;
    }
    vec_run_root(r, name, root);
    json_decref(root);
}

int vec_run(const vec_file_list_t *files, const vec_options_t *opt)
{
    vec_report_t r;
    if (!vec_report_open(&r, "vectors", opt->quiet, opt->junit_path))
        return 2;
    r.backend = opt->backend;
    r.gate = opt->gate;
    for (size_t i = 0; i < files->n; i++) {
        run_file(&r, &files->files[i]);
        vec_report_file_end(&r);
    }
    bool files_ok = vec_report_close(&r, opt->junit_path);
    if (!files_ok)
        return 2; /* the report could not be written: not a test verdict */
    return r.exit_status;
}
