/* SPDX-License-Identifier: MIT */
/* test_vec_report.c - the report's three verdicts (conformance/ADAPTER.md
 * "Verdicts"): the closing line keeps its two-count form without skips and
 * gains ", N skipped" with them; a skipped row reads SKIP; JUnit marks it
 * <skipped/> and counts it apart from failures. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vec_report.h"

typedef struct {
    char *text;
    size_t len;
    vec_report_t r;
} out_t;

static void open_report(out_t *o, const char *junit)
{
    o->text = NULL;
    o->len = 0;
    assert_true(vec_report_open(&o->r, "vectors", false, junit));
    o->r.out = open_memstream(&o->text, &o->len);
    assert_non_null(o->r.out);
    vec_report_file_begin(&o->r, "x.json", "bucket_id");
}

static void add(out_t *o, const char *id, bool pass, bool skipped, const char *detail)
{
    vec_case_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "%s", id);
    snprintf(c.name, sizeof c.name, "tcId %s", id);
    c.result = "valid";
    c.pass = pass;
    c.skipped = skipped;
    snprintf(c.detail, sizeof c.detail, "%s", detail);
    vec_report_case(&o->r, &c);
}

static void close_report(out_t *o, const char *junit)
{
    vec_report_file_end(&o->r);
    FILE *f = o->r.out;
    assert_true(vec_report_close(&o->r, junit));
    fclose(f);
}

static void test_closing_line_without_skips_keeps_two_counts(void **state)
{
    (void)state;
    out_t o;
    open_report(&o, NULL);
    add(&o, "1", true, false, "");
    add(&o, "2", false, false, "expected.id_hex: want 00 got 11");
    close_report(&o, NULL);
    /* a failure without a norm (a file that cannot run) has no severity */
    assert_non_null(strstr(o.text, "\nvectors: 1 passed, 1 failed\n"));
    assert_null(strstr(o.text, "skipped"));
    free(o.text);
}

static void test_closing_line_with_skips_has_three_counts(void **state)
{
    (void)state;
    out_t o;
    open_report(&o, NULL);
    add(&o, "1", true, false, "");
    add(&o, "2", false, true, "unsupported: kind bucket_id not declared in hello");
    add(&o, "3", false, true, "unsupported: kind bucket_id not declared in hello");
    close_report(&o, NULL);
    assert_non_null(strstr(o.text, "\nvectors: 1 passed, 0 failed, 2 skipped\n"));
    free(o.text);
}

/* --verbose: a skipped row reads SKIP; without it one line per reason. */
static void test_skipped_row_reads_skip(void **state)
{
    (void)state;
    out_t o;
    open_report(&o, NULL);
    o.r.gate.verbose = true;
    add(&o, "7", false, true, "unsupported: the client says: no trackers");
    close_report(&o, NULL);
    assert_non_null(strstr(o.text, "  7        valid    SKIP   unsupported: the client says: no trackers\n"));
    free(o.text);
}

static void test_one_line_per_skip_reason(void **state)
{
    (void)state;
    out_t o;
    open_report(&o, NULL);
    add(&o, "1", true, false, "");
    add(&o, "7", false, true, "unsupported: the client says: no trackers");
    add(&o, "8", false, true, "unsupported: the client says: no trackers");
    close_report(&o, NULL);
    assert_null(strstr(o.text, "SKIP"));
    assert_non_null(strstr(o.text, "\nskipped 2: unsupported: the client says: no trackers\n"));
    free(o.text);
}

/* Inconclusive is neither passed nor failed, and fails the run. */
static void test_inconclusive_counted_apart(void **state)
{
    (void)state;
    out_t o;
    open_report(&o, NULL);
    add(&o, "1", true, false, "");
    vec_case_t c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "2");
    c.result = "invalid";
    c.inconclusive = true;
    snprintf(c.detail, sizeof c.detail, "inconclusive: rejected without a stage");
    vec_report_case(&o.r, &c);
    close_report(&o, NULL);
    assert_non_null(strstr(o.text, "  2        invalid  INCONCLUSIVE inconclusive: rejected without a stage\n"));
    assert_non_null(strstr(o.text, "\nvectors: 1 passed, 0 failed, 1 inconclusive\n"));
    assert_int_equal(o.r.exit_status, 1);
    free(o.text);
}

static void test_junit_marks_skipped_apart_from_failures(void **state)
{
    (void)state;
    char path[] = "/tmp/test_vec_report_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    out_t o;
    open_report(&o, path);
    add(&o, "1", false, true, "unsupported: x");
    add(&o, "2", false, false, "wrong");
    close_report(&o, path);
    char xml[4096];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(xml, 1, sizeof xml - 1, f);
    xml[n] = '\0';
    fclose(f);
    remove(path);
    assert_non_null(strstr(xml, "tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\""));
    assert_non_null(strstr(xml, "<skipped message=\"unsupported: x\"/>"));
    assert_non_null(strstr(xml, "<failure message=\"wrong\"/>"));
    free(o.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closing_line_without_skips_keeps_two_counts),
        cmocka_unit_test(test_one_line_per_skip_reason),
        cmocka_unit_test(test_inconclusive_counted_apart),
        cmocka_unit_test(test_closing_line_with_skips_has_three_counts),
        cmocka_unit_test(test_skipped_row_reads_skip),
        cmocka_unit_test(test_junit_marks_skipped_apart_from_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
