/* SPDX-License-Identifier: MIT */
/* fuzz_adapter_answer.c - the testbed's reading of one answer line from an
 * adapter (conformance/ADAPTER.md): rl_adapter_parse_answer (JSON object,
 * "id", "protocol_error"), then as the hello answer rl_adapter_check_hello,
 * and as a vector answer vec_client_answer (conformance/runner/adapter_proc.c,
 * vec_client.c). No process is started: the input is the line's bytes.
 *
 * Checks, from conformance/ADAPTER.md and adapter_proc.h:
 *   - the line is accepted exactly when it is a JSON object (duplicate keys
 *     rejected) whose "id" is the message number and with no string
 *     "protocol_error"; the stream is declared broken exactly when it is not
 *     an object or its id is wrong;
 *   - every error is "adapter message N (<op>): " followed by a field name
 *     and ": " (id, protocol, client.name, capabilities.vector_kinds[3], ...),
 *     or by one of the two documented sentences (not a JSON object, the
 *     adapter reports an error), NUL-terminated;
 *   - an accepted hello has capabilities.vector_kinds an array of strings,
 *     and client name and version NUL-terminated;
 *   - a vector answer's verdict follows its "status": accepted with an output
 *     object, rejected, unsupported, or bad input with a message naming the
 *     field; the same line read twice gives the same verdict. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapter_proc.h"
#include "fuzz_common.h"
#include "vec_client.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    json_object_seed(1); /* deterministic, no read of /dev/urandom */
    return 0;
}

/* After prefix: a field path ([a-z0-9_.[]]) then ": " and something. */
static bool names_field(const char *msg, const char *prefix) {
    size_t n = strlen(prefix);
    if (strncmp(msg, prefix, n) != 0) {
        return false;
    }
    const char *p = msg + n, *start = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == '[' ||
           *p == ']') {
        p++;
    }
    return p > start && p[0] == ':' && p[1] == ' ' && p[2] != '\0';
}

static bool starts(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static json_t *parse(const char *line, size_t len, unsigned long id, const char *op, const char *prefix) {
    char msg[VEC_MSG_MAX];
    memset(msg, 0x55, sizeof msg);
    json_t *ans = NULL;
    rl_answer_t got = rl_adapter_parse_answer(line, len, id, op, &ans, msg, sizeof msg);
    json_error_t jerr;
    json_t *ref = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    bool object = json_is_object(ref);
    json_t *idv = json_object_get(ref, "id");
    bool id_ok = object && json_is_integer(idv) && json_integer_value(idv) == (json_int_t)id;
    bool perr = id_ok && json_is_string(json_object_get(ref, "protocol_error"));
    json_decref(ref);
    if (got == RL_ANSWER_OK) {
        FUZZ_CHECK(id_ok && !perr && json_is_object(ans));
        return ans;
    }
    FUZZ_CHECK(ans == NULL);
    FUZZ_CHECK(fuzz_message_ok(msg, sizeof msg));
    if (got == RL_ANSWER_BROKEN) {
        FUZZ_CHECK(!id_ok);
        char sentence[128];
        snprintf(sentence, sizeof sentence, "%sanswer is not a JSON object", prefix);
        FUZZ_CHECK(object ? names_field(msg, prefix) && starts(msg + strlen(prefix), "id: ") : starts(msg, sentence));
    } else {
        FUZZ_CHECK(got == RL_ANSWER_ERROR && perr);
        char sentence[128];
        snprintf(sentence, sizeof sentence, "%sthe adapter reports an error: ", prefix);
        FUZZ_CHECK(starts(msg, sentence));
    }
    return NULL;
}

static bool kinds_ok(const json_t *h) {
    const json_t *kinds = json_object_get(json_object_get(h, "capabilities"), "vector_kinds");
    if (!json_is_array(kinds)) {
        return false;
    }
    for (size_t i = 0; i < json_array_size(kinds); i++) {
        if (!json_is_string(json_array_get(kinds, i))) {
            return false;
        }
    }
    return true;
}

static void vector_answer(const rl_adapter_t *a, const json_t *ans, vec_run_t *run) {
    memset(run, 0, sizeof *run);
    run->status = (vec_run_status_t)99;
    vec_client_answer(a, 2, ans, run);
    const char *status = json_string_value(json_object_get(ans, "status"));
    status = status != NULL ? status : "";
    switch (run->status) {
    case VEC_RUN_ACCEPTED:
        FUZZ_CHECK(strcmp(status, "accepted") == 0 && json_is_object(run->actual));
        break;
    case VEC_RUN_REJECTED:
        FUZZ_CHECK(strcmp(status, "rejected") == 0 && memchr(run->reason, '\0', sizeof run->reason) != NULL);
        FUZZ_CHECK(run->error_class == NULL || vec_is_error_class(json_object_get(ans, "error")));
        break;
    case VEC_RUN_UNSUPPORTED:
        FUZZ_CHECK(strcmp(status, "unsupported") == 0 && fuzz_message_ok(run->reason, sizeof run->reason));
        break;
    case VEC_RUN_BAD_INPUT:
        FUZZ_CHECK(fuzz_message_ok(run->err.msg, sizeof run->err.msg));
        FUZZ_CHECK(strcmp(status, "bad_input") == 0
                       ? starts(run->err.msg, "adapter message 2 (vector): the client cannot read the input: ")
                       : names_field(run->err.msg, "adapter message 2 (vector): "));
        break;
    default:
        FUZZ_CHECK(!"vec_client_answer left the status unset");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *line = (char *)fuzz_dup(data, size);
    rl_adapter_t a;
    memset(&a, 0, sizeof a);
    json_t *hello = parse(line, size, 1, "hello", "adapter message 1 (hello): ");
    if (hello != NULL) {
        char err[VEC_MSG_MAX];
        memset(err, 0x55, sizeof err);
        if (rl_adapter_check_hello(&a, hello, err, sizeof err)) {
            FUZZ_CHECK(kinds_ok(hello));
            FUZZ_CHECK(memchr(a.name, '\0', sizeof a.name) != NULL);
            FUZZ_CHECK(memchr(a.version, '\0', sizeof a.version) != NULL);
            a.hello = hello; /* the vector answer below is read under these capabilities */
        } else {
            FUZZ_CHECK(fuzz_message_ok(err, sizeof err));
            FUZZ_CHECK(names_field(err, "adapter message 1 (hello): "));
        }
    }
    json_t *ans = parse(line, size, 2, "vector", "adapter message 2 (vector): ");
    if (ans != NULL) {
        vec_run_t r1, r2;
        vector_answer(&a, ans, &r1);
        vector_answer(&a, ans, &r2);
        FUZZ_CHECK(r1.status == r2.status && r1.error_class == r2.error_class);
        FUZZ_CHECK(strcmp(r1.reason, r2.reason) == 0 && strcmp(r1.err.msg, r2.err.msg) == 0);
        json_decref(r1.actual);
        json_decref(r2.actual);
        json_decref(ans);
    }
    json_decref(hello);
    free(line);
    return 0;
}
