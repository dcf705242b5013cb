/* SPDX-License-Identifier: MIT */
/* conf_remote.h - HA cases driven through an adapter (conformance/ADAPTER.md
 * "HA cases"): the adapter's sans-IO client stands in for the built-in one.
 * The testbed keeps the servers' side (conf_server.c builds every response
 * from the request bytes the adapter reports) and the host's schedule
 * (conf_exec.c); the adapter reports each call's sends, completions, profile,
 * rebinds and next deadline, which become the same observation the built-in
 * run makes, so both are judged by one set of checks. */
#ifndef CONF_REMOTE_H
#define CONF_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapter_proc.h"
#include "conf_exec.h"
#include "conf_host.h"

typedef struct conf_remote {
    rl_adapter_t *a;
    uint64_t deadline;            /* absolute ms; UINT64_MAX: none */
    char problem[VEC_MSG_MAX];    /* first wrong answer (message number and field) */
    char last_outcome[16];        /* the last datagram's "accepted"/"ignored"/"rejected" */
    char last_class[16];          /* its error class, "" when none was reported */
    char used[16];                /* ha_create: "preset" or "policy" */
    char leak[VEC_MSG_MAX];       /* the first send carrying key material (vec_leak.h), "" when none */
    bool submit_rejected;         /* submit answered "rejected" */
    char submit_stage[16];        /* its "stage", "" when none was given */
} conf_remote_t;

/* Run case c through adapter a into out. When the adapter's client cannot run
 * it (HA cases or a needed feature not declared in hello, or ha_create answered
 * "unsupported"), out stays empty and skip says why; else skip is "". */
void conf_remote_run_case(const conf_case_t *c, rl_adapter_t *a, conf_rows_t *out, char *skip, size_t cap);

/* The entry points conf_host.c forwards to when h->remote is set. */
int conf_remote_submit(conf_host_t *h);
int conf_remote_timer(conf_host_t *h);
int conf_remote_datagram(conf_host_t *h, const uint8_t *data, size_t len);
void conf_remote_cancel(conf_host_t *h);
uint64_t conf_remote_deadline(const conf_host_t *h);

/* Judge the last datagram's answer against event ev (index i): its class if
 * the client reports one, else the behaviour alone. matched: the datagram's
 * unique_id is that of the request, still in flight. On a mismatch writes the
 * detail into msg. */
void conf_remote_datagram_check(const conf_host_t *h, const conf_event_t *ev, size_t i, bool matched, char *msg,
                                size_t cap);

#endif /* CONF_REMOTE_H */
