/* SPDX-License-Identifier: MIT */
/* test_log.c - the serve --log line (docs/serve.md "Read the log"): every
 * line is one JSON object a JSON reader parses, and the Tenant Header key_id
 * is written as a decimal string so that 64-bit values (2^63 and up, above
 * what JSON numbers hold exactly in most readers) survive a round trip. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "serve_log.h"

/* A datagram that starts with a Tenant TLV: tag "RL" (0x4C52 little-endian),
 * length, key_id at offset 4 and unique_id at offset 12 (wire_protocol.md
 * Tenant Header). */
static void tenant_dgram(uint8_t d[40], uint64_t key_id) {
    memset(d, 0, 40);
    d[0] = 0x52;
    d[1] = 0x4C;
    for (int i = 0; i < 8; i++) {
        d[4 + i] = (uint8_t)(key_id >> (8 * i));
    }
    for (int i = 0; i < 16; i++) {
        d[12 + i] = (uint8_t)(0xA0 + i);
    }
}

/* Log one received datagram and parse the line back. */
static json_t *log_and_parse(uint64_t key_id) {
    uint8_t d[40];
    tenant_dgram(d, key_id);
    FILE *f = tmpfile();
    assert_non_null(f);
    serve_log_t l = {.f = f, .owned = false};
    serve_log_in_t e = {.wall_ms = 5, .server = 0, .server_id = 7, .peer = "127.0.0.1:5000", .dgram = d,
                        .len = sizeof d, .verdict = "drop_tenant", .model_verdict = -1, .result = NULL};
    serve_log_in(&l, &e);
    rewind(f);
    char line[2048];
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    json_error_t err;
    json_t *o = json_loads(line, 0, &err);
    if (o == NULL) {
        fail_msg("not JSON: %s: %s", err.text, line);
    }
    return o;
}

static void test_key_id_top_bit_set_round_trips_as_string(void **state) {
    (void)state;
    json_t *o = log_and_parse(UINT64_C(0xFFFFFFFFFFFFFFFF));
    json_t *k = json_object_get(o, "key_id");
    assert_true(json_is_string(k));
    assert_string_equal(json_string_value(k), "18446744073709551615");
    json_decref(o);
}

static void test_key_id_small_is_string_too(void **state) {
    (void)state;
    json_t *o = log_and_parse(1007);
    assert_string_equal(json_string_value(json_object_get(o, "key_id")), "1007");
    assert_string_equal(json_string_value(json_object_get(o, "unique_id")), "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
    json_decref(o);
}

/* ---- --log-max-bytes (issue 20 item 9; project: docs/serve.md "Read the log") */

static size_t count_lines(const char *path, size_t *bytes) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        *bytes = 0;
        return SIZE_MAX;
    }
    size_t n = 0, b = 0;
    char line[2048];
    while (fgets(line, sizeof line, f) != NULL) {
        json_error_t err;
        json_t *o = json_loads(line, 0, &err);
        assert_non_null(o); /* every line whole: rotation falls between lines */
        json_decref(o);
        n++;
        b += strlen(line);
    }
    fclose(f);
    *bytes = b;
    return n;
}

static void log_lines(serve_log_t *l, size_t n) {
    uint8_t d[40];
    tenant_dgram(d, 1007);
    for (size_t i = 0; i < n; i++) {
        serve_log_in_t e = {.wall_ms = 1000000 + i % 10, .server = 0, .server_id = 7, .peer = "127.0.0.1:5000",
                            .dgram = d, .len = sizeof d, .verdict = "drop_tenant", .model_verdict = -1, .result = NULL};
        serve_log_in(l, &e);
    }
}

/* A scratch directory with the log's path and its rotated names. */
typedef struct {
    char dir[32], path[128], old[140], older[140];
} tmp_log_t;

static void tmp_log_make(tmp_log_t *t) {
    snprintf(t->dir, sizeof t->dir, "/tmp/serve_test_log_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/serve.log", t->dir);
    snprintf(t->old, sizeof t->old, "%s.1", t->path);
    snprintf(t->older, sizeof t->older, "%s.2", t->path);
}

static void tmp_log_remove(const tmp_log_t *t) {
    unlink(t->path);
    unlink(t->old);
    rmdir(t->dir);
}

/* Make t, open its log with max_bytes 1000 and write one line; *line_bytes
 * is its length (every line has the same), the result the lines after which
 * the file holds 1000 bytes or more. */
static size_t open_1000(tmp_log_t *t, serve_log_t *l, size_t *line_bytes) {
    tmp_log_make(t);
    assert_int_equal(serve_log_open(l, t->path, 1000), 0);
    log_lines(l, 1);
    assert_int_equal(count_lines(t->path, line_bytes), 1);
    return (1000 + *line_bytes - 1) / *line_bytes;
}

/* The file is renamed FILE.1 (replacing an older one) after the line that
 * takes it to max_bytes or more, and a new FILE is begun: at most two files,
 * each under max_bytes plus one line, no line split. */
static void test_rotation_bounds_the_files(void **state) {
    (void)state;
    tmp_log_t t;
    serve_log_t l;
    size_t line_bytes = 0;
    size_t per_file = open_1000(&t, &l, &line_bytes);
    log_lines(&l, 2 * per_file + 2); /* two rotations, then 3 lines in the new file */
    uint64_t rotations = l.rotations;
    serve_log_close(&l);
    assert_int_equal(rotations, 2);
    size_t bytes = 0;
    assert_int_equal(count_lines(t.path, &bytes), 3);
    assert_int_equal(count_lines(t.old, &bytes), per_file);
    assert_true(bytes >= 1000 && bytes < 1000 + line_bytes);
    assert_int_equal(count_lines(t.older, &bytes), SIZE_MAX); /* no third file */
    tmp_log_remove(&t);
}

/* max_bytes 0 (--log-max-bytes 0): no limit, no rotation. */
static void test_no_limit_no_rotation(void **state) {
    (void)state;
    tmp_log_t t;
    tmp_log_make(&t);
    serve_log_t l;
    assert_int_equal(serve_log_open(&l, t.path, 0), 0);
    log_lines(&l, 50);
    serve_log_close(&l);
    size_t bytes = 0;
    assert_int_equal(count_lines(t.path, &bytes), 50);
    assert_int_equal(count_lines(t.old, &bytes), SIZE_MAX);
    tmp_log_remove(&t);
}

/* FILE moved or deleted by another program (logrotate without copytruncate,
 * mv, rm) while serve writes: serve's lines go on into the moved file until
 * it reaches max_bytes; then there is nothing to rename, and a new FILE is
 * begun instead of logging stopping (project: docs/serve.md "Read the log"). */
static void test_moved_file_begins_a_new_one(void **state) {
    (void)state;
    tmp_log_t t;
    serve_log_t l;
    size_t line_bytes = 0;
    size_t per_file = open_1000(&t, &l, &line_bytes);
    FILE *alert = tmpfile();
    assert_non_null(alert);
    l.alert = alert;
    assert_int_equal(rename(t.path, t.older), 0); /* the other program's move */
    log_lines(&l, per_file + 2); /* fills the moved file, then 3 lines in a new FILE */
    int rotate_errno = l.rotate_errno;
    uint64_t rotations = l.rotations;
    serve_log_close(&l);
    assert_int_equal(rotate_errno, 0);
    assert_int_equal(rotations, 1);
    size_t bytes = 0;
    assert_int_equal(count_lines(t.older, &bytes), per_file);
    assert_int_equal(count_lines(t.path, &bytes), 3);
    assert_int_equal(count_lines(t.old, &bytes), SIZE_MAX); /* nothing renamed */
    assert_int_equal(ftell(alert), 0);                     /* no ERROR line */
    fclose(alert);
    unlink(t.older);
    tmp_log_remove(&t);
}

/* A rotation that fails (here: FILE.1 is a directory, so the rename is
 * refused) stops logging and says so at once on the alert stream, not only
 * in the stop summary (project: docs/serve.md "Read the log"). */
static void test_failed_rotation_alerts_at_once(void **state) {
    (void)state;
    tmp_log_t t;
    tmp_log_make(&t);
    assert_int_equal(mkdir(t.old, 0700), 0);
    serve_log_t l;
    assert_int_equal(serve_log_open(&l, t.path, 4096), 0);
    FILE *alert = tmpfile();
    assert_non_null(alert);
    l.alert = alert;
    log_lines(&l, 40); /* over 4096 bytes */
    int rotate_errno = l.rotate_errno;
    serve_log_close(&l);
    assert_int_equal(rotate_errno, EISDIR);
    rewind(alert);
    char line[512];
    assert_non_null(fgets(line, sizeof line, alert));
    char want[512];
    snprintf(want, sizeof want,
             "serve: ERROR: --log %s: rotation failed (renaming it to %s: %s): logging stopped\n", t.path, t.old,
             strerror(EISDIR));
    assert_string_equal(line, want);
    assert_null(fgets(line, sizeof line, alert)); /* once */
    fclose(alert);
    rmdir(t.old);
    tmp_log_remove(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_id_top_bit_set_round_trips_as_string),
        cmocka_unit_test(test_key_id_small_is_string_too),
        cmocka_unit_test(test_rotation_bounds_the_files),
        cmocka_unit_test(test_no_limit_no_rotation),
        cmocka_unit_test(test_moved_file_begins_a_new_one),
        cmocka_unit_test(test_failed_rotation_alerts_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
