/* SPDX-License-Identifier: MIT */
/* vec_report.h - result table on stdout, JUnit XML, and the closing line
 * "<label>: N passed, N failed" (vectors-schema.md "Runner contract"; the
 * label is "vectors" or "conformance"), with ", N skipped" appended when some
 * tests were unsupported by the client under test (conformance/ADAPTER.md). */
#ifndef VEC_REPORT_H
#define VEC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "vec_json.h"
#include "vec_norm.h"

typedef struct {
    char name[200];          /* JUnit testcase name: "tcId 7: <comment>", "tests[3]", "envelope" or a case id[mode] */
    char id[32];             /* table tcId column */
    const char *result;      /* "valid", "invalid" or "-" */
    bool pass;
    bool skipped;            /* unsupported by the client under test: neither passed nor failed */
    bool inconclusive;       /* a refusal that proves nothing (no stage): neither passed nor failed */
    char step[16];           /* the client step the test is about ("" when not known) */
    char norm[160];          /* the spec sentence or "project: ..." ("" when not known) */
    bool spec;               /* the norm is the spec's */
    vec_severity_t severity; /* of a failure */
    char detail[VEC_MSG_MAX]; /* why it failed; empty on pass */
    double seconds;          /* time the test took (set by the report) */
    bool wants_datagram;     /* a valid test whose expected output is a datagram (packet_hex) */
    bool wants_silence;      /* a valid test whose expected output is {"sent": false} */
    bool sent_datagram;      /* the client produced a datagram (packet_hex) for this test */
} vec_case_t;

/* Gates of a run beyond "nothing failed" (conformance/ADAPTER.md "Gates"). */
typedef struct {
    const char *require;     /* "kind,kind": each must have a test that ran (not skipped); NULL: none */
    unsigned long min_pass;  /* at least this many passed */
    bool fail_on_skip;       /* a skipped test fails the run */
    bool verbose;            /* print SKIP rows, not only one summary line per skip reason */
    bool norm_spec;          /* run the tests whose norm is a spec sentence only */
    const char *json_path;   /* NULL: no JSON results file */
} vec_gate_t;

#define VEC_SKIP_REASONS 64u
#define VEC_RAN_KINDS 32u

typedef struct {
    const char *label;       /* closing-line and <testsuites> name: "vectors", "conformance" */
    const char *columns;     /* table column header of the current file; NULL = the vector columns */
    FILE *out;               /* the table and closing line; NULL prints nothing (fuzz harness) */
    bool quiet;              /* print failing rows only */
    FILE *junit;             /* NULL without --junit */
    unsigned long passed, failed, skipped, inconclusive;
    unsigned long not_run;   /* tests left out by --norm spec */
    unsigned long not_run_traces; /* simulator traces left out under conformance --client */
    unsigned long failed_by[VEC_SEV_COUNT];
    vec_gate_t gate;         /* zero: no gate beyond "nothing failed" */
    int exit_status;         /* set by vec_report_close: 0 pass, 1 a failure or a gate not met */
    struct {
        char reason[160];
        unsigned long n;
    } skips[VEC_SKIP_REASONS]; /* one summary line per skip reason */
    size_t n_skips;
    char ran[VEC_RAN_KINDS][40]; /* kinds with a test that ran (for --require) */
    size_t n_ran;
    char **fail_lines;       /* "<severity>\t<path> <name>: <detail>" per failure, for the grouped summary */
    size_t n_fail_lines, cap_fail_lines;
    json_t *results;         /* --json: one object per test; NULL without */
    double mark;             /* monotonic seconds at the end of the last case */
    const struct vec_backend *backend; /* NULL: the built-in C kinds; else an adapter (vec_runner.h) */
    char path[VJ_PATH_MAX];  /* current file, sanitized */
    char kind[64];
    bool header_printed;
    vec_case_t *cases;       /* current file's cases, kept for its <testsuite> */
    size_t n_cases, cap_cases;
} vec_report_t;

/* Parse one gate option at argv[*i] (--require KIND,..., --min-pass N,
 * --fail-on-skip, --verbose, --norm spec|all, --json FILE; "--opt=value"
 * too) into g. Returns 1 when consumed (*i moved past a separate value), 0
 * when argv[*i] is not one, -1 with err set on a bad value (an unknown kind,
 * a count that is not one, a missing value). */
int vec_gate_option(int argc, char **argv, int *i, vec_gate_t *g, char *err, size_t cap);

/* The testbed's version, as JUnit and --json report it. */
const char *vec_testbed_version(void);

/* The file path relative to the data directory (vec_default_base()) when it
 * lies under it: JUnit and --json never name an install path. */
const char *vec_relative_path(const char *path);

/* Start a run labelled label ("vectors", "conformance"), printing to stdout
 * (set r->out afterwards to redirect or, with NULL, silence it). junit_path
 * may be NULL. Returns false (with a message on stderr) when the JUnit file
 * cannot be created. */
bool vec_report_open(vec_report_t *r, const char *label, bool quiet, const char *junit_path);
void vec_report_file_begin(vec_report_t *r, const char *path, const char *kind);
/* As vec_report_file_begin, with the table's column header line (NULL: the
 * vector columns). */
void vec_report_file_begin_columns(vec_report_t *r, const char *path, const char *kind, const char *columns);
/* Record one case; c->detail is sanitized for the terminal and XML first. */
void vec_report_case(vec_report_t *r, vec_case_t *c);
void vec_report_file_end(vec_report_t *r);
/* Print one informational table row (name, PASS/FAIL, detail) that is not
 * counted: the checks of one conformance case. Quiet runs print failing rows
 * only. detail is sanitized in place. */
void vec_report_row(vec_report_t *r, const char *name, bool pass, char *detail);
/* The same, for a check whose answer proves nothing (INCONCLUSIVE; printed
 * also when quiet). */
void vec_report_inconclusive_row(vec_report_t *r, const char *name, char *detail);
/* The same, for a check the client under test does not support (SKIP; printed
 * with gate.verbose only). */
void vec_report_skip_row(vec_report_t *r, const char *name, char *detail);
/* A row of a case with nothing to judge for this check (status N/A): shown
 * like a passing row, neither passed nor failed (the case's verdict counts). */
void vec_report_na_row(vec_report_t *r, const char *name, char *detail);
/* Count and keep (for JUnit) a case without printing a row for it. */
void vec_report_count(vec_report_t *r, vec_case_t *c);
/* Finish the JUnit file, print one line per skip reason, the failures grouped
 * by severity and every gate not met, then the closing line last on stdout
 * ("label: N passed, N failed[, N inconclusive][, N skipped]", with
 * "; failed by severity: security N, decision N, interop N, convention N"
 * when one failed), write the --json file, and name the files on stderr.
 * Sets r->exit_status: 1 when a test failed or was inconclusive, no test ran,
 * or a gate is not met; else 0. Returns false when writing a file failed. */
bool vec_report_close(vec_report_t *r, const char *junit_path);

/* Internals shared with vec_summary.c. */
double vec_report_now(void);
/* Count c under its verdict, severity, skip reason and kind; keep it for
 * --json and the grouped failure lines. */
void vec_summary_tally(vec_report_t *r, const vec_case_t *c);
/* Print the skip summary, the failures by severity, the gates not met and
 * the closing line (when r->out). Returns true when every gate is met. Frees
 * the failure lines. */
bool vec_summary_print(vec_report_t *r);
/* Write r->results to r->gate.json_path (no-op without); frees them. False
 * (message on stderr) when the file cannot be written. */
bool vec_summary_write_json(vec_report_t *r);

/* Make s printable, single-line, valid UTF-8 (bad bytes become '?'). */
void vec_sanitize(char *s);

#endif /* VEC_REPORT_H */
