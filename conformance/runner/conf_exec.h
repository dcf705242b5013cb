/* SPDX-License-Identifier: MIT */
/* conf_exec.h - run one HA case through the client and judge it
 * (conformance/README.md "Time and ordering", "Expectations"). */
#ifndef CONF_EXEC_H
#define CONF_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "conf_case.h"
#include "vec_json.h"

#define CONF_MAX_ROWS 16u

/* One checked expectation: a row of the case's table. */
typedef struct {
    char name[16];
    bool pass;
    bool skipped;            /* not checked: the client declared it cannot report this (SKIP row) */
    bool inconclusive;       /* the client's answer proves nothing either way (INCONCLUSIVE row) */
    char detail[VEC_MSG_MAX];
} conf_row_t;

typedef struct {
    conf_row_t rows[CONF_MAX_ROWS];
    size_t n_rows;
} conf_rows_t;

/* Append a row (printf-style detail; ignored when the table is full). */
void conf_row(conf_rows_t *out, const char *name, bool pass, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Run the case and fill out with one row per check. */
void conf_run_case(const conf_case_t *c, conf_rows_t *out);

struct conf_host;
/* Run the case on a host already set up (conf_host_init, or an adapter's
 * stand-in, conf_remote.c): submit, the script, the checks. */
void conf_exec_host(struct conf_host *h, const conf_case_t *c, conf_rows_t *out);

/* Compare an observation with the case's expectations (conf_check.c). */
void conf_check_behaviour(const conf_case_t *c, const conf_behaviour_t *obs, conf_rows_t *out);

#endif /* CONF_EXEC_H */
