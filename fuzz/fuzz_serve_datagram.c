/* SPDX-License-Identifier: MIT */
/* fuzz_serve_datagram.c - what `rl-testbed serve` does with one received
 * datagram past the rate cap and the scripted drop: serve_handle_datagram
 * (serve/serve_datagram.c: the reference server model, then the log's "in"
 * line of serve_log.c; docs/serve.md "Read the log").
 *
 * The input is one datagram, handled twice by a server with three tenants
 * (key_id 1 none, 2 cookie, 3 aes), so a valid request is answered and then
 * replayed. Checks, from docs/serve.md and serve_log.h:
 *   - a reply exists exactly for answered/replayed verdicts and fits;
 *   - every drop verdict carries a reason: a non-empty reason text;
 *   - the log gets exactly one line per datagram, and it parses back
 *     (jansson, duplicate keys rejected) as an object with dir "in", the
 *     server and its server_id, the peer, len = the datagram's length, what
 *     one of rate_request / latency_report / rate_response / datagram /
 *     admin / tenant_mutation / status_query / metrics_query, the
 *     verdict's name, key_id exactly when a tenant TLV starts the datagram,
 *     and for a drop the reason text itself. Numbers are read as doubles:
 *     the log writes key_id, any u64, as a JSON integer, which jansson's
 *     integers (int64) cannot hold from 2^63 on. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_sim_world.h"
#include "serve_datagram.h"

#define PEER "[::1]:5000 \"\\\x01"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    json_object_seed(1); /* deterministic, no read of /dev/urandom */
    return 0;
}

static const char *str_field(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    FUZZ_CHECK(json_is_string(v));
    return json_string_value(v);
}

/* Numbers are read as doubles: key_id is any u64 the datagram carries, and
 * jansson's integers stop at 2^63 - 1. The fields compared are below 2^53. */
static double num_field(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    FUZZ_CHECK(json_is_number(v) && json_number_value(v) >= 0);
    return json_number_value(v);
}

static void check_line(const char *line, size_t line_len, const world_t *w, const uint8_t *d, size_t len,
                       sim_server_verdict_t v, const char *reason) {
    FUZZ_CHECK(line_len >= 2 && line[line_len - 1] == '\n' && memchr(line, '\n', line_len) == line + line_len - 1);
    json_error_t jerr;
    json_t *o = json_loadb(line, line_len, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &jerr);
    FUZZ_CHECK(json_is_object(o));
    FUZZ_CHECK(num_field(o, "ts_ms") == 1234.0);
    FUZZ_CHECK(strcmp(str_field(o, "dir"), "in") == 0);
    FUZZ_CHECK(num_field(o, "server") == 3.0);
    FUZZ_CHECK(num_field(o, "server_id") == (double)w->server_id);
    FUZZ_CHECK(strcmp(str_field(o, "peer"), PEER) == 0);
    FUZZ_CHECK(num_field(o, "len") == (double)len);
    const char *what = str_field(o, "what");
    FUZZ_CHECK(strcmp(what, "rate_request") == 0 || strcmp(what, "latency_report") == 0 ||
               strcmp(what, "rate_response") == 0 || strcmp(what, "datagram") == 0 || strcmp(what, "admin") == 0 ||
               strcmp(what, "tenant_mutation") == 0 || strcmp(what, "status_query") == 0 ||
               strcmp(what, "metrics_query") == 0);
    FUZZ_CHECK(strcmp(str_field(o, "verdict"), sim_server_verdict_name(v)) == 0);
    bool tenant = len >= 40 && d[0] == 0x52 && d[1] == 0x4c;
    FUZZ_CHECK((json_object_get(o, "key_id") != NULL) == tenant);
    if (reason != NULL) {
        FUZZ_CHECK(strcmp(str_field(o, "reason"), reason) == 0);
    }
    json_decref(o);
}

static void handle(world_t *w, const uint8_t *d, size_t len) {
    char *buf = NULL;
    size_t buf_len = 0;
    FILE *f = open_memstream(&buf, &buf_len);
    FUZZ_CHECK(f != NULL);
    serve_log_t log = {.f = f, .owned = false, .alert = f};
    serve_log_in_t e = {0};
    e.wall_ms = 1234;
    e.server = 3;
    e.peer = PEER;
    uint8_t out[1200 + 16];
    size_t out_len = 99;
    sim_server_result_t r;
    sim_server_verdict_t v = serve_handle_datagram(w->srv, NOW_MS, d, len, out, sizeof out, &out_len, &r, &log, &e);
    FUZZ_CHECK(v >= 0 && v < SIM_SRV_VERDICTS);
    bool answered = v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED || v == SIM_SRV_ADMIN_ANSWERED ||
                    v == SIM_SRV_ADMIN_REPLAYED;
    FUZZ_CHECK((out_len > 0) == answered);
    FUZZ_CHECK(out_len <= sizeof out);
    char reason[256];
    const char *why = NULL;
    if (!answered && v != SIM_SRV_REPORT) {
        FUZZ_CHECK(r.why.where != NULL);
        size_t n = sim_server_reason_text(&r.why, reason, sizeof reason);
        FUZZ_CHECK(n > 0 && reason[0] != '\0' && memchr(reason, '\0', sizeof reason) != NULL);
        why = reason;
    }
    FUZZ_CHECK(fclose(f) == 0);
    check_line(buf, buf_len, w, d, len, v, why);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *d = fuzz_dup(data, size);
    world_t w;
    world_init(&w);
    handle(&w, d, size);
    handle(&w, d, size);
    world_free(&w);
    free(d);
    return 0;
}
