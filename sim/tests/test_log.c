/* SPDX-License-Identifier: MIT */
/* Unit tests for sim_log.c: the 40-byte little-endian record layout, the
 * SHA-256 digest of the event log and its text form. Expected digests were
 * computed independently with Python's hashlib (snippets beside each test). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim_engine.h"

static void digest_of(sim_log_t *log, char out[65]) {
    sim_log_digest(log, out);
    assert_int_equal(strlen(out), 64);
}

static void test_log_empty_digest(void **state) {
    (void)state;
    sim_log_t *log = sim_log_new(NULL);
    assert_non_null(log);
    char d[65];
    digest_of(log, d);
    assert_string_equal(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_int_equal(sim_log_count(log), 0);
    sim_log_free(log);
}

/* SHA-256 of the 40 bytes u64le(1) u64le(2) u64le(3) u64le(4) u64le(5)
 * (Python: hashlib.sha256(struct.pack('<5Q', 1, 2, 3, 4, 5)).hexdigest()). */
static void test_log_record_layout(void **state) {
    (void)state;
    sim_log_t *log = sim_log_new(NULL);
    assert_non_null(log);
    sim_log_record(log, 1, SIM_LOG_SEND, 3, 4, 5);
    char d[65];
    digest_of(log, d);
    assert_string_equal(d, "ea0d7246ca8346f6137619c0aaf7410ae4ffe69d1f0f702d6760e661de6df857");
    assert_int_equal(sim_log_count(log), 1);
    sim_log_free(log);
}

static void record_many(sim_log_t *log, uint64_t from, uint64_t to) {
    for (uint64_t i = from; i < to; i++) {
        sim_log_record(log, i, (sim_log_kind_t)(1u + i % 10u), i * 3u, i ^ 5u, UINT64_MAX - i);
    }
}

/* 250 records cross the internal batch twice; a digest midway does not end
 * the log. Python: h = hashlib.sha256(); for i in range(250):
 * h.update(struct.pack('<5Q', i, 1 + i % 10, i * 3, i ^ 5, 2**64 - 1 - i)). */
static void test_log_digest_many_and_midway(void **state) {
    (void)state;
    static const char want[] = "dde70823cd64b068ed731261880a40dc87bbc0e3b1ebc41d4917d16074ee40c4";
    sim_log_t *log = sim_log_new(NULL);
    assert_non_null(log);
    char d[65];
    record_many(log, 0, 150);
    digest_of(log, d);
    assert_string_not_equal(d, want);
    record_many(log, 150, 250);
    digest_of(log, d);
    assert_string_equal(d, want);
    assert_int_equal(sim_log_count(log), 250);
    sim_log_free(log);
}

static void digest_one(uint64_t at, uint64_t kind, uint64_t a, uint64_t b, uint64_t c, char out[65]) {
    sim_log_t *log = sim_log_new(NULL);
    assert_non_null(log);
    sim_log_record(log, at, (sim_log_kind_t)kind, a, b, c);
    digest_of(log, out);
    sim_log_free(log);
}

static void test_log_digest_equal_for_equal_records(void **state) {
    (void)state;
    char x[65], y[65];
    digest_one(10, SIM_LOG_DNS, 1, 2, 3, x);
    digest_one(10, SIM_LOG_DNS, 1, 2, 3, y);
    assert_string_equal(x, y);
}

static void test_log_digest_changes_with_each_field(void **state) {
    (void)state;
    char base[65], d[65];
    digest_one(10, SIM_LOG_DNS, 1, 2, 3, base);
    digest_one(11, SIM_LOG_DNS, 1, 2, 3, d);
    assert_string_not_equal(base, d);
    digest_one(10, SIM_LOG_FAULT, 1, 2, 3, d);
    assert_string_not_equal(base, d);
    digest_one(10, SIM_LOG_DNS, 9, 2, 3, d);
    assert_string_not_equal(base, d);
    digest_one(10, SIM_LOG_DNS, 1, 9, 3, d);
    assert_string_not_equal(base, d);
    digest_one(10, SIM_LOG_DNS, 1, 2, 9, d);
    assert_string_not_equal(base, d);
}

static void test_log_text_lines(void **state) {
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    sim_log_t *log = sim_log_new(f);
    assert_non_null(log);
    sim_log_record(log, 7, SIM_LOG_SEND, 1, 2, 300);
    sim_log_record(log, 12, SIM_LOG_DROP, 1, 2, 3);
    sim_log_record(log, 13, SIM_LOG_STEERING, 0, UINT64_MAX, 0);
    sim_log_record(log, 14, (sim_log_kind_t)99, 4, 5, 6);
    sim_log_free(log);
    char buf[256] = {0};
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1u, f);
    fclose(f);
    assert_true(n > 0);
    assert_string_equal(buf, "7 send 1 2 300\n12 drop 1 2 3\n13 steering 0 18446744073709551615 0\n"
                             "14 unknown 4 5 6\n");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_log_empty_digest),
        cmocka_unit_test(test_log_record_layout),
        cmocka_unit_test(test_log_digest_many_and_midway),
        cmocka_unit_test(test_log_digest_equal_for_equal_records),
        cmocka_unit_test(test_log_digest_changes_with_each_field),
        cmocka_unit_test(test_log_text_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
