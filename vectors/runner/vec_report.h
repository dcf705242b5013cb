/* vec_report.h - result table on stdout, JUnit XML, and the closing line
 * "<label>: N passed, N failed" (vectors-schema.md "Runner contract"; the
 * label is "vectors" or "conformance"), with ", N skipped" appended when some
 * tests were unsupported by the client under test (conformance/ADAPTER.md). */
#ifndef VEC_REPORT_H
#define VEC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vec_json.h"

typedef struct {
    char name[80];           /* JUnit testcase name: "tcId 7", "tests[3]", "envelope" or a case id[mode] */
    char id[32];             /* table tcId column */
    const char *result;      /* "valid", "invalid" or "-" */
    bool pass;
    bool skipped;            /* unsupported by the client under test: neither passed nor failed */
    char detail[VEC_MSG_MAX]; /* why it failed; empty on pass */
} vec_case_t;

typedef struct {
    const char *label;       /* closing-line and <testsuites> name: "vectors", "conformance" */
    const char *columns;     /* table column header of the current file; NULL = the vector columns */
    FILE *out;               /* the table and closing line; NULL prints nothing (fuzz harness) */
    bool quiet;              /* print failing rows only */
    FILE *junit;             /* NULL without --junit */
    unsigned long passed, failed, skipped;
    const struct vec_backend *backend; /* NULL: the built-in C kinds; else an adapter (vec_runner.h) */
    char path[VJ_PATH_MAX];  /* current file, sanitized */
    char kind[64];
    bool header_printed;
    vec_case_t *cases;       /* current file's cases, kept for its <testsuite> */
    size_t n_cases, cap_cases;
} vec_report_t;

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
/* The same, for a check the client under test does not support (SKIP). */
void vec_report_skip_row(vec_report_t *r, const char *name, char *detail);
/* Count and keep (for JUnit) a case without printing a row for it. */
void vec_report_count(vec_report_t *r, vec_case_t *c);
/* Finish the JUnit file, print the closing line last on stdout, and name the
 * JUnit file on stderr. Returns false when writing the JUnit file failed. */
bool vec_report_close(vec_report_t *r, const char *junit_path);

/* Make s printable, single-line, valid UTF-8 (bad bytes become '?'). */
void vec_sanitize(char *s);

#endif /* VEC_REPORT_H */
