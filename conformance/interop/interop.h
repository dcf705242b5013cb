/* SPDX-License-Identifier: MIT */
/* interop.h - `rl-testbed interop` (docs/interop.md): HA cases played over
 * real loopback UDP against an unmodified client behind a driver, judged on
 * the wire. The engine starts each case's servers (the reference server model
 * of sim/, scripted per case), runs the driver (a JSON-lines process around
 * the client's ordinary API), records every datagram and checks it. */
#ifndef INTEROP_H
#define INTEROP_H

#include <stdbool.h>
#include <stddef.h>

#include "vec_runner.h"

#define IO_FAMILY_V4 1u
#define IO_FAMILY_V6 2u

typedef struct {
    const char *driver;     /* sh -c command line of the driver; NULL: the reference runtime driver */
    unsigned auth_mask;     /* bit (1 << r_auth_type_t) per mode to run: none, cookie, aes */
    unsigned family_mask;   /* IO_FAMILY_V4 | IO_FAMILY_V6 */
    bool rotate;            /* run each case once, rotating through the mode x family pairs */
    bool quiet;             /* print failing cases only */
    const char *junit_path; /* NULL: no JUnit XML */
    const char *json_path;  /* NULL: no JSON results */
} io_options_t;

/* Expand the arguments (files or directories of *.json, sorted) into out;
 * with none, conformance/cases and conformance/interop/cases of the data
 * directory (./conformance when it exists, else the source tree). Returns
 * false on out of memory. */
bool io_inputs(char **args, int n_args, vec_file_list_t *out);

/* Run every case and print the report, the closing line last. Returns 0 when
 * no case failed, 1 when one did, 2 when a report file cannot be written or a
 * case file is broken (named on stderr). */
int io_run(const vec_file_list_t *files, const io_options_t *opt);

/* The reference driver's command line (the built tree's rl-interop-driver). */
const char *io_default_driver(void);

#endif /* INTEROP_H */
