/* vec_report.h - result table on stdout, JUnit XML, and the closing line
 * "vectors: N passed, N failed" (vectors-schema.md "Runner contract"). */
#ifndef VEC_REPORT_H
#define VEC_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "vec_json.h"

typedef struct {
    char name[48];           /* JUnit testcase name: "tcId 7", "tests[3]" or "envelope" */
    char id[32];             /* table tcId column */
    const char *result;      /* "valid", "invalid" or "-" */
    bool pass;
    char detail[VEC_MSG_MAX]; /* why it failed; empty on pass */
} vec_case_t;

typedef struct {
    FILE *out;               /* the table and closing line; NULL prints nothing (fuzz harness) */
    bool quiet;              /* print failing rows only */
    FILE *junit;             /* NULL without --junit */
    unsigned long passed, failed;
    char path[VJ_PATH_MAX];  /* current file, sanitized */
    char kind[64];
    bool header_printed;
    vec_case_t *cases;       /* current file's cases, kept for its <testsuite> */
    size_t n_cases, cap_cases;
} vec_report_t;

/* Start a run printing to stdout (set r->out afterwards to redirect or, with
 * NULL, silence it). junit_path may be NULL. Returns false (with a message on
 * stderr) when the JUnit file cannot be created. */
bool vec_report_open(vec_report_t *r, bool quiet, const char *junit_path);
void vec_report_file_begin(vec_report_t *r, const char *path, const char *kind);
/* Record one case; c->detail is sanitized for the terminal and XML first. */
void vec_report_case(vec_report_t *r, vec_case_t *c);
void vec_report_file_end(vec_report_t *r);
/* Finish the JUnit file, print the closing line last on stdout, and name the
 * JUnit file on stderr. Returns false when writing the JUnit file failed. */
bool vec_report_close(vec_report_t *r, const char *junit_path);

/* Make s printable, single-line, valid UTF-8 (bad bytes become '?'). */
void vec_sanitize(char *s);

#endif /* VEC_REPORT_H */
