/* SPDX-License-Identifier: MIT */
/* test_run.c - the run bookkeeping (docs/sweep.md "Resume", "Sharding and
 * merge", "Number format"): --shard parsing, the number format, resuming
 * after a stop and after a torn log line, refusals of a changed sweep,
 * another shard or a corrupt log, and merge refusals. Runs a small sweep over
 * a shipped trace in a temporary directory. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sweep.h"
#include "sweep_run.h"

static const char *fake_env_job, *fake_env_slurm;
static const char *fake_getenv(const char *name) {
    if (strcmp(name, "JOB_COMPLETION_INDEX") == 0) return fake_env_job;
    if (strcmp(name, "SLURM_ARRAY_TASK_ID") == 0) return fake_env_slurm;
    return NULL;
}

static void shard_parse(void **state) {
    (void)state;
    size_t i = 9, n = 9;
    char err[256];
    assert_int_equal(sweep_parse_shard("1/4", fake_getenv, &i, &n, err, sizeof err), 0);
    assert_true(i == 1 && n == 4);
    fake_env_job = "2";
    fake_env_slurm = "3";
    assert_int_equal(sweep_parse_shard("auto/4", fake_getenv, &i, &n, err, sizeof err), 0);
    assert_int_equal(i, 2); /* the Kubernetes index first */
    fake_env_job = NULL;
    assert_int_equal(sweep_parse_shard("/4", fake_getenv, &i, &n, err, sizeof err), 0);
    assert_int_equal(i, 3);
    fake_env_slurm = "4";
    assert_int_equal(sweep_parse_shard("auto/4", fake_getenv, &i, &n, err, sizeof err), -1);
    assert_string_equal(err, "--shard auto/4: SLURM_ARRAY_TASK_ID is '4', not an index 0..3");
    fake_env_slurm = NULL;
    assert_int_equal(sweep_parse_shard("auto/4", fake_getenv, &i, &n, err, sizeof err), -1);
    assert_string_equal(err, "--shard auto/4: neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set");
    assert_int_equal(sweep_parse_shard("4/4", fake_getenv, &i, &n, err, sizeof err), -1);
    assert_string_equal(err, "--shard wants an index 0..3 before '/', got '4/4'");
    assert_int_equal(sweep_parse_shard("0/0", fake_getenv, &i, &n, err, sizeof err), -1);
    assert_int_equal(sweep_parse_shard("1", fake_getenv, &i, &n, err, sizeof err), -1);
}

static void shard_membership(void **state) {
    (void)state;
    assert_true(sweep_in_shard(5, 1, 2));
    assert_false(sweep_in_shard(5, 0, 2));
    assert_true(sweep_in_shard(5, 0, 1));
    size_t seen[3] = {0};
    for (size_t u = 0; u < 30; u++) {
        for (size_t k = 0; k < 3; k++) seen[k] += sweep_in_shard(u, k, 3);
    }
    assert_true(seen[0] == 10 && seen[1] == 10 && seen[2] == 10);
}

static void number_format(void **state) {
    (void)state;
    char b[64];
    sweep_format_number(b, sizeof b, 123456789012.0, true);
    assert_string_equal(b, "123456789012");
    sweep_format_number(b, sizeof b, 0.1, false);
    assert_string_equal(b, "0.1");
    sweep_format_number(b, sizeof b, 2.0 / 3.0, false);
    assert_string_equal(b, "0.666666667");
    sweep_format_number(b, sizeof b, -0.0, false);
    assert_string_equal(b, "0");
    sweep_format_number(b, sizeof b, 1.0 / 0.0, false);
    assert_string_equal(b, "");
}

/* ---- runs ---------------------------------------------------------------------------- */

static char tmpdir[256];

static int setup_dir(void **state) {
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/sweep_test_run.XXXXXX", base != NULL && base[0] != '\0' ? base : "/tmp");
    return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int teardown_dir(void **state) {
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void load_sweep(sweep_t *sw, const char *extra) {
    char text[1024];
    snprintf(text, sizeof text,
             "{\"schema\": \"ratelimitly-sweep/v1\", \"name\": \"t\", \"configurations\": [\"default\", \"fastest_valid\"%s],"
             " \"traces\": [\"%s/ha_slow_oldest_after.json\"], \"seeds\": {\"first\": 1, \"count\": 4}}",
             extra, SIM_TRACES_DIR);
    char err[512];
    if (sweep_parse(text, strlen(text), "t.json", "", sw, err, sizeof err) != 0 || sweep_prepare(sw, err, sizeof err) != 0) {
        fail_msg("%s", err);
    }
}

static char *slurp(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

static int run_into(sweep_t *sw, const char *sub, size_t stop_after, size_t si, size_t sc, sweep_run_report_t *rep,
                    char *err, size_t cap) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, sub);
    sweep_run_opts_t o = {.out_dir = dir, .jobs = 2, .shard_index = si, .shard_count = sc, .stop_after = stop_after};
    return sweep_run(sw, &o, rep, err, cap);
}

static void append(const char *sub, const char *name, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", tmpdir, sub, name);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Stopped after 3, a torn line appended (a kill mid-write), resumed: the same bytes as one run. */
static void resume_after_stop_and_torn_line(void **state) {
    (void)state;
    sweep_t sw;
    load_sweep(&sw, "");
    sweep_run_report_t rep;
    char err[512];
    assert_int_equal(run_into(&sw, "full", 0, 0, 1, &rep, err, sizeof err), 0);
    assert_true(rep.complete && rep.outputs_written && rep.ran == 8 && rep.failed == 0);
    assert_int_equal(run_into(&sw, "part", 3, 0, 1, &rep, err, sizeof err), 0);
    assert_true(!rep.complete && rep.ran == 3);
    char path[512];
    snprintf(path, sizeof path, "%s/part/results.csv", tmpdir);
    assert_int_not_equal(access(path, F_OK), 0); /* no results before the end */
    append("part", "units.log", "{\"u\": 7, \"config\": \"fastest_va");
    assert_int_equal(run_into(&sw, "part", 0, 0, 1, &rep, err, sizeof err), 0);
    assert_true(rep.complete && rep.already_done == 3 && rep.ran == 5);
    static const char *const files[] = {"results.csv", "results.json", "summary.csv", "summary.json", "units.log",
                                        "manifest.json"};
    for (size_t i = 0; i < 6; i++) {
        char *a, *b;
        char fa[64], fb[64];
        snprintf(fa, sizeof fa, "full/%s", files[i]);
        snprintf(fb, sizeof fb, "part/%s", files[i]);
        a = slurp(tmpdir, fa);
        b = slurp(tmpdir, fb);
        assert_non_null(a);
        assert_non_null(b);
        assert_string_equal(a, b);
        free(a);
        free(b);
    }
    /* a rerun of a complete sweep runs nothing */
    assert_int_equal(run_into(&sw, "full", 0, 0, 1, &rep, err, sizeof err), 0);
    assert_true(rep.complete && rep.ran == 0 && rep.already_done == 8);
    sweep_free(&sw);
}

/* The fields of summary.csv's row for (config, metric) on the test trace. */
static int summary_row(const char *csv, const char *config, const char *metric, char fields[18][64]) {
    char key[128];
    snprintf(key, sizeof key, "\n%s,ha_slow_oldest_after,%s,", config, metric);
    const char *row = strstr(csv, key);
    if (row == NULL) return -1;
    row++;
    for (int k = 0; k < 18; k++) {
        size_t n = strcspn(row, ",\n");
        snprintf(fields[k], 64, "%.*s", (int)n, row);
        row += n + (row[n] == ',' ? 1 : 0);
    }
    return 0;
}

/* The baseline against itself: zero difference, zero-width interval. Another configuration: with
 * every seed ok the paired mean difference is the difference of the two means. */
static void baseline_row_is_zero(void **state) {
    (void)state;
    char *s = slurp(tmpdir, "full/summary.csv");
    assert_non_null(s);
    char b[18][64], f[18][64];
    assert_int_equal(summary_row(s, "default", "latency_p50_ms", b), 0);
    assert_int_equal(summary_row(s, "fastest_valid", "latency_p50_ms", f), 0);
    assert_string_equal(b[3], "1"); /* a key metric */
    assert_string_equal(b[4], "4");
    assert_string_equal(b[12], "default");
    for (int k = 13; k < 18; k++) assert_string_equal(b[k], k == 13 ? "4" : "0");
    double want = strtod(f[6], NULL) - strtod(b[6], NULL), got = strtod(f[14], NULL);
    assert_true(want < -1.0); /* fastest_valid decides before the preference deadline */
    assert_true(got - want < 1e-6 && want - got < 1e-6);
    assert_true(strtod(f[16], NULL) <= got && got <= strtod(f[17], NULL));
    free(s);
}

static void resume_refusals(void **state) {
    (void)state;
    sweep_t sw, other;
    load_sweep(&sw, "");
    load_sweep(&other, ", \"api_md\"");
    sweep_run_report_t rep;
    char err[512];
    assert_int_equal(run_into(&other, "full", 0, 0, 1, &rep, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds results of another sweep"));
    char want[128]; /* both hashes named: the directory's, then this sweep's */
    snprintf(want, sizeof want, "(sweep hash %.16s, this sweep %.16s)", sw.hash, other.hash);
    assert_non_null(strstr(err, want));
    assert_int_equal(run_into(&sw, "full", 0, 1, 2, &rep, err, sizeof err), -1);
    assert_non_null(strstr(err, "holds shard 0/1, not 1/2"));
    assert_int_equal(run_into(&sw, "bad", 2, 0, 1, &rep, err, sizeof err), 0);
    append("bad", "units.log", "garbage\n{\"u\": 1}\n");
    assert_int_equal(run_into(&sw, "bad", 0, 0, 1, &rep, err, sizeof err), -1);
    assert_non_null(strstr(err, "/bad/units.log line 3: not a unit record"));
    sweep_free(&sw);
    sweep_free(&other);
}

static void merge_checks(void **state) {
    (void)state;
    sweep_t sw;
    load_sweep(&sw, "");
    sweep_run_report_t rep;
    char err[512];
    assert_int_equal(run_into(&sw, "s0", 0, 0, 2, &rep, err, sizeof err), 0);
    assert_true(rep.complete && !rep.outputs_written && rep.units == 4);
    assert_int_equal(run_into(&sw, "s1", 0, 1, 2, &rep, err, sizeof err), 0);
    char d0[300], d1[300], out[300];
    snprintf(d0, sizeof d0, "%s/s0", tmpdir);
    snprintf(d1, sizeof d1, "%s/s1", tmpdir);
    snprintf(out, sizeof out, "%s/merged", tmpdir);
    const char *both[] = {d0, d1}, *same[] = {d0, d0}, *one[] = {d0};
    size_t failed = 9;
    assert_int_equal(sweep_merge(both, 2, out, &failed, err, sizeof err), 0);
    assert_int_equal(failed, 0);
    char *a = slurp(tmpdir, "full/results.csv"), *b = slurp(tmpdir, "merged/results.csv");
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(sweep_merge(same, 2, out, &failed, err, sizeof err), -1);
    assert_non_null(strstr(err, "/s0 are the same directory: give each slice once")); /* overlap: sweep_cli */
    assert_int_equal(sweep_merge(both, 2, d0, &failed, err, sizeof err), -1);
    assert_non_null(strstr(err, "/s0: merge into a new directory"));
    assert_int_equal(sweep_merge(one, 1, out, &failed, err, sizeof err), -1);
    assert_non_null(strstr(err, "4 of 8 units are in no slice, the first unit 1 (default, ha_slow_oldest_after, seed 2)"));
    sweep_free(&sw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shard_parse),
        cmocka_unit_test(shard_membership),
        cmocka_unit_test(number_format),
        cmocka_unit_test(resume_after_stop_and_torn_line),
        cmocka_unit_test(baseline_row_is_zero),
        cmocka_unit_test(resume_refusals),
        cmocka_unit_test(merge_checks),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
