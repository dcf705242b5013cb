/* SPDX-License-Identifier: MIT */
/* admin.h - `rl-testbed admin`: an operator's client of the administrative
 * channel (wire_protocol.md "Administrative PDUs") over UDP, on the client
 * operations of r_admin.h (replays under one unique_id, timeouts, metrics
 * pagination). admin_cmd.c parses the command line into an admin_cfg_t;
 * admin_run.c runs the operation on a socket; admin_print.c prints tables or
 * JSON. Options, output and exit codes: tools/rl-testbed/README.md "admin". */
#ifndef ADMIN_H
#define ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "r_admin.h"

#define ADMIN_EXIT_OK 0
#define ADMIN_EXIT_NEGATIVE 1 /* the server answered with an error page (not found, invalid, ...) */
#define ADMIN_EXIT_USAGE 2
#define ADMIN_EXIT_FAILED 3   /* no answer before the timeout, or a socket / key failure */

typedef enum {
    ADMIN_TENANT_ADD = 1,
    ADMIN_TENANT_REMOVE = 2,
    ADMIN_STATUS = 3,
    ADMIN_METRICS = 4
} admin_command_t;

typedef struct {
    admin_command_t command;
    r_addr_t server;              /* --server HOST:PORT */
    const char *server_text;
    const char *secret;           /* --secret, or $RATELIMITLY_ADMIN_SECRET: rl-secret1... */
    uint32_t timeout_ms;          /* --timeout (per request, per page for metrics) */
    uint32_t resend_ms;           /* --resend: interval of the identical resends */
    uint32_t dedup_ttl_ms;        /* --dedup-ttl: the mutation's replay window */
    bool json;                    /* --json */
    /* tenant add / remove, metrics */
    uint64_t tenant_id;           /* the target tenant's key_id */
    const char *name;             /* tenant add NAME */
    char credential[256];         /* tenant add: the credential sent (after --quota) */
    r_metric_family_t family;     /* metrics summary | labels | services */
} admin_cfg_t;

/* One metrics record, owned (labels copied). */
typedef struct {
    r_metrics_label_record_t label;      /* label.label points into label_bytes */
    uint8_t *label_bytes;
    r_metrics_service_record_t service;
} admin_record_t;

/* What an operation produced. */
typedef struct {
    int status;                          /* RCLIENT_OK or the operation's failure */
    uint64_t server_id;
    uint32_t sent;                       /* datagrams sent (first sends and resends) */
    r_admin_tenant_ack_t ack;
    r_admin_status_response_t status_response;
    r_metrics_summary_record_t summary;
    uint8_t final_page_kind;
    uint32_t pages, restarts;
    admin_record_t *records;             /* labels or services, in server order */
    size_t n_records, cap_records;
    bool nomem;
} admin_result_t;

/* Run cfg's operation against cfg->server: a UDP socket, the r_admin_op
 * started, datagrams and deadlines delivered until it is done. err (256
 * bytes) names a failure before the operation started (bad secret, socket,
 * start refused). Returns ADMIN_EXIT_OK when the operation ran (see
 * out->status), ADMIN_EXIT_FAILED otherwise. */
int admin_run(const admin_cfg_t *cfg, admin_result_t *out, char *err);
void admin_result_free(admin_result_t *r);

/* Print the result of cfg's operation (tables, or one JSON object with
 * --json) to f; failures go to f too in JSON mode, else to stderr. Returns
 * the exit code. */
int admin_print(FILE *f, const admin_cfg_t *cfg, const admin_result_t *r);

#endif /* ADMIN_H */
