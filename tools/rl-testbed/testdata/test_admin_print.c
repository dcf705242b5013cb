/* SPDX-License-Identifier: MIT */
/* test_admin_print.c - `rl-testbed admin metrics labels` output for label
 * bytes that are not printable UTF-8 (issue 20 item 8; docs/spec-notes.md
 * "Label bytes": labels are not checked for UTF-8 and are reported as
 * bytes). project: --json writes valid JSON (a JSON reader that refuses
 * invalid UTF-8 parses it) with "label_hex", the exact bytes, and "label",
 * an escaped form; the table prints the escaped form, never a raw control or
 * an invalid byte. The escaped form keeps printable UTF-8 and writes a
 * backslash as \\ and every other byte (C0 and C1 controls, DEL, bytes
 * outside well-formed UTF-8) as \xNN. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "admin.h"

static const uint8_t L_INVALID[] = {0xff, 0xfe};                 /* never UTF-8 */
static const uint8_t L_C1[] = {'a', 0xc2, 0x85, 'b'};           /* U+0085 NEL, a C1 control */
static const uint8_t L_PLAIN[] = {'w', 'e', 'b'};
static const uint8_t L_BACKSLASH[] = {'\\', 0x1b};              /* backslash, ESC */
static const uint8_t L_UTF8[] = {0xc3, 0xa9, 't', 0xc3, 0xa9}; /* "été" */

static char *print(bool json) {
    admin_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.command = ADMIN_METRICS;
    cfg.family = R_METRICS_TENANT_LABEL_COUNTERS;
    cfg.json = json;
    cfg.tenant_id = 4242;
    cfg.server_text = "127.0.0.1:1";
    admin_record_t rec[5];
    memset(rec, 0, sizeof rec);
    const uint8_t *bytes[5] = {L_INVALID, L_C1, L_PLAIN, L_BACKSLASH, L_UTF8};
    size_t lens[5] = {sizeof L_INVALID, sizeof L_C1, sizeof L_PLAIN, sizeof L_BACKSLASH, sizeof L_UTF8};
    for (size_t i = 0; i < 5; i++) {
        rec[i].label.label = bytes[i];
        rec[i].label.label_len = lens[i];
        rec[i].label.requests_success = i + 1;
    }
    admin_result_t r;
    memset(&r, 0, sizeof r);
    r.status = RCLIENT_OK;
    r.server_id = 7;
    r.final_page_kind = R_PAGE_LAST;
    r.pages = 1;
    r.records = rec;
    r.n_records = 5;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(admin_print(f, &cfg, &r), ADMIN_EXIT_OK);
    fclose(f);
    return buf;
}

static void expect_record(json_t *records, size_t i, const char *label, const char *hex) {
    json_t *r = json_array_get(records, i);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_object_get(r, "label")), label);
    assert_string_equal(json_string_value(json_object_get(r, "label_hex")), hex);
    assert_int_equal(json_integer_value(json_object_get(r, "requests_success")), (json_int_t)i + 1);
}

static void test_json_labels_valid_with_hex_and_escaped(void **state) {
    (void)state;
    char *out = print(true);
    json_error_t err;
    json_t *o = json_loads(out, 0, &err);
    if (o == NULL) {
        fail_msg("not valid JSON: %s: %s", err.text, out);
    }
    json_t *records = json_object_get(o, "records");
    assert_int_equal(json_array_size(records), 5);
    expect_record(records, 0, "\\xff\\xfe", "fffe");
    expect_record(records, 1, "a\\xc2\\x85b", "61c28562");
    expect_record(records, 2, "web", "776562");
    expect_record(records, 3, "\\\\\\x1b", "5c1b");
    expect_record(records, 4, "\xc3\xa9t\xc3\xa9", "c3a974c3a9");
    json_decref(o);
    free(out);
}

static void test_text_labels_escaped(void **state) {
    (void)state;
    char *out = print(false);
    assert_non_null(strstr(out, "\n  \\xff\\xfe "));
    assert_non_null(strstr(out, "\n  a\\xc2\\x85b "));
    assert_non_null(strstr(out, "\n  web "));
    assert_non_null(strstr(out, "\n  \\\\\\x1b "));
    assert_non_null(strstr(out, "\n  \xc3\xa9t\xc3\xa9 "));
    assert_null(strstr(out, "\xc2\x85"));
    assert_null(strchr(out, 0x1b));
    assert_null(strchr(out, (char)0xff));
    free(out);
}

/* Characters (code points) in the line of out that starts with start. */
static size_t line_chars(const char *out, const char *start) {
    const char *p = strstr(out, start);
    assert_non_null(p);
    p += 1; /* past the newline */
    size_t n = 0;
    for (; *p != '\0' && *p != '\n'; p++) {
        n += ((unsigned char)*p & 0xC0) != 0x80; /* not a UTF-8 continuation byte */
    }
    return n;
}

/* project: the table's columns line up on a terminal also for a label in
 * multi-byte UTF-8 ("été": 3 characters, 5 bytes); every row here has the
 * header's length (each count has one digit). */
static void test_text_columns_line_up_for_utf8(void **state) {
    (void)state;
    char *out = print(false);
    size_t header = line_chars(out, "\n  label ");
    assert_int_equal(line_chars(out, "\n  web "), header);
    assert_int_equal(line_chars(out, "\n  \xc3\xa9t\xc3\xa9 "), header);
    assert_int_equal(line_chars(out, "\n  \\xff\\xfe "), header);
    free(out);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_labels_valid_with_hex_and_escaped),
        cmocka_unit_test(test_text_labels_escaped),
        cmocka_unit_test(test_text_columns_line_up_for_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
