/* SPDX-License-Identifier: MIT */
/* fuzz_conf_case.c - the HA decision case loader of `rl-testbed conformance`
 * (conf_case_parse: envelope, policy, servers, request, send_failures, events,
 * expect; schema ratelimitly-ha-case/v1, conformance/README.md).
 *
 * The input is a case file's bytes, loaded as the runner loads a file
 * (jansson, duplicate keys rejected, NUL allowed) and parsed whatever its
 * schema field says, so the parser is exercised on any JSON value.
 * Checks, from conformance/README.md:
 *   - a rejected case has a message "<field>: <problem>", NUL-terminated;
 *   - an accepted case respects the documented limits: id of 1..63 characters
 *     of [a-z0-9_]; 1..16 servers, names 1..15 bytes and unique, server_ids
 *     unique; at most 8 resources and 8 guards, not both empty; a label under
 *     128 bytes; at most 16 send failures, each of count >= 1 on a known server;
 *     at most 128 events in time order, responses and invalid datagrams on a
 *     known server, timers and cancels on none, invalid ones with a variant;
 *     expected sends on known servers, the selected server known or none;
 *   - parsing is deterministic: a second parse gives the same case, byte for
 *     byte, or the same message. */
#include <jansson.h>

#include "conf_case.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* a fixed hash seed: deterministic runs and no read of /dev/urandom */
    json_object_seed(1);
    return 0;
}

static bool name_ok(const char *s, size_t cap) {
    const char *nul = memchr(s, '\0', cap);
    return nul != NULL && nul != s;
}

static bool id_ok(const char *id) {
    size_t n = 0;
    for (; id[n] != '\0'; n++) {
        char ch = id[n];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) {
            return false;
        }
    }
    return n >= 1 && n <= 63;
}

static bool server_ok(const conf_case_t *c, int s) {
    return s >= 0 && (size_t)s < c->n_servers;
}

static void check_accepted(const conf_case_t *c) {
    FUZZ_CHECK(name_ok(c->id, sizeof c->id) && id_ok(c->id));
    FUZZ_CHECK(name_ok(c->area, sizeof c->area));
    /* "auth": "any" leaves the mode unbound until conf_case_bind_mode */
    FUZZ_CHECK(c->any_auth ? c->auth == R_AUTH_UNSPECIFIED
                           : c->auth == R_AUTH_NONE || c->auth == R_AUTH_COOKIE || c->auth == R_AUTH_AES);
    FUZZ_CHECK(c->n_servers >= 1 && c->n_servers <= CONF_MAX_SERVERS);
    for (size_t i = 0; i < c->n_servers; i++) {
        FUZZ_CHECK(name_ok(c->server_names[i], CONF_NAME_MAX));
        for (size_t j = 0; j < i; j++) {
            FUZZ_CHECK(strcmp(c->server_names[i], c->server_names[j]) != 0);
            FUZZ_CHECK(c->server_ids[i] != c->server_ids[j]);
        }
    }
    FUZZ_CHECK(c->n_resources <= CONF_MAX_BLOCKS && c->n_guards <= CONF_MAX_BLOCKS);
    FUZZ_CHECK(c->n_resources + c->n_guards >= 1);
    FUZZ_CHECK(c->label_len < CONF_LABEL_MAX);
    FUZZ_CHECK(c->n_failures <= CONF_MAX_FAILURES);
    for (size_t i = 0; i < c->n_failures; i++) {
        FUZZ_CHECK(server_ok(c, c->failures[i].server) && c->failures[i].count >= 1);
    }
    FUZZ_CHECK(c->n_events <= CONF_MAX_EVENTS);
    for (size_t i = 0; i < c->n_events; i++) {
        const conf_event_t *ev = &c->events[i];
        FUZZ_CHECK(i == 0 || ev->at >= c->events[i - 1].at);
        switch (ev->kind) {
        case CONF_EV_RESPONSE:
            FUZZ_CHECK(server_ok(c, ev->server) && ev->variant == CONF_VAR_NONE);
            break;
        case CONF_EV_INVALID:
            FUZZ_CHECK(server_ok(c, ev->server));
            FUZZ_CHECK(ev->variant > CONF_VAR_NONE && ev->variant < CONF_VAR_COUNT);
            break;
        case CONF_EV_TIMER:
        case CONF_EV_CANCEL:
            FUZZ_CHECK(ev->server == -1);
            break;
        default:
            FUZZ_CHECK(!"event kind out of range");
        }
    }
    const conf_behaviour_t *x = &c->expect;
    FUZZ_CHECK(x->selected == -1 || server_ok(c, x->selected));
    FUZZ_CHECK(x->n_sends <= CONF_MAX_SENDS);
    for (size_t i = 0; i < x->n_sends; i++) {
        FUZZ_CHECK(server_ok(c, x->sends[i].server));
    }
    FUZZ_CHECK(x->n_resources <= CONF_MAX_BLOCKS && x->n_guards <= CONF_MAX_BLOCKS);
}

static void check_rejected(const vj_err_t *e) {
    FUZZ_CHECK(fuzz_message_ok(e->msg, sizeof e->msg));
    const char *sep = strstr(e->msg, ": ");
    FUZZ_CHECK(sep != NULL && sep[2] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = (char *)fuzz_dup(data, size);
    json_error_t jerr;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    free(text);
    if (root == NULL) {
        return 0;
    }
    conf_case_t *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    FUZZ_CHECK(a != NULL && b != NULL);
    vj_err_t ea, eb;
    memset(&ea, 0, sizeof ea);
    memset(&eb, 0, sizeof eb);
    bool ok = conf_case_parse(root, a, &ea);
    FUZZ_CHECK(conf_case_parse(root, b, &eb) == ok);
    if (ok) {
        check_accepted(a);
        FUZZ_CHECK(memcmp(a, b, sizeof *a) == 0);
    } else {
        check_rejected(&ea);
        FUZZ_CHECK(strcmp(ea.msg, eb.msg) == 0);
    }
    free(a);
    free(b);
    json_decref(root);
    return 0;
}
