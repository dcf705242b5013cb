/* SPDX-License-Identifier: MIT */
/* r_client_workflow.h - the optional admission workflow (api.md "Combined
 * Admission Workflow"): one resource consumption, one latency guard, an
 * explicit denial reason, and at most one latency report after admitted work.
 * It is one application policy built on the public core API, not part of the
 * wire protocol. */
#ifndef R_CLIENT_WORKFLOW_H
#define R_CLIENT_WORKFLOW_H

#include "r_client.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Names are borrowed only during r_client_admission_start (IDs are derived
 * there). A *_len of 0 means NUL-terminated. */
typedef struct {
    const char *bucket_name;
    size_t bucket_name_len;
    uint32_t window_size_ms;       /* default 1000 */
    uint32_t rate_limit;           /* default 100 */
    uint16_t tokens;               /* default 1 */
    const char *latency_tracker_name;
    size_t latency_tracker_name_len;
    uint32_t threshold_ms;         /* default 100 */
    uint32_t ttl_ms;               /* default 10000 */
    uint32_t max_samples;          /* default 100 */
    uint32_t buffer_size;          /* default 32 */
    uint32_t min_sample_threshold; /* default 5 */
    const char *metrics_label;     /* default "rl-c-client-example"; NULL = none; borrowed until completion */
} r_admission_config_t;

typedef enum {
    R_ADMISSION_ALLOWED = 0,
    R_ADMISSION_DENIED_RATE = 1,     /* resource deficit, guard passed */
    R_ADMISSION_DENIED_LATENCY = 2,  /* guard failed, no deficit */
    R_ADMISSION_DENIED_BOTH = 3,     /* deficit and guard failure */
    R_ADMISSION_FAILED = 4           /* no server decision: status says why (timeout, I/O, ...) */
} r_admission_reason_t;

typedef struct {
    bool allowed;
    r_admission_reason_t reason;
    int status;                  /* RCLIENT_OK for a server decision, else the core error */
    uint64_t server_id;          /* selected server, 0 when failed */
    uint16_t tokens_deficit;
    uint32_t actual_rate;
    uint32_t current_latency_ms;
    uint32_t threshold_ms;
} r_admission_outcome_t;

typedef struct r_admission_request r_admission_request_t;
typedef void (*r_admission_cb)(r_admission_request_t *adm, const r_admission_outcome_t *outcome, void *user_data);

typedef enum {
    R_ADMISSION_IDLE = 0,
    R_ADMISSION_PENDING = 1,
    R_ADMISSION_DONE = 2,
    R_ADMISSION_CANCELLED = 3
} r_admission_state_t;

/* Caller-owned; zero-initialise it before the first start, and keep it alive
 * and unmoved from start through the callback or cancellation (or the client's
 * destruction). Fields are the workflow's: read `state` and `outcome`. The
 * request's datagrams and deadlines go through the client as usual:
 * r_client_on_datagram() for every received datagram, and
 * r_client_admission_deadline_ms() / r_client_admission_on_timeout() here. */
struct r_admission_request {
    r_admission_state_t state;
    r_admission_outcome_t outcome;  /* valid in state DONE */
    bool reported;                  /* the one latency report was sent */
    r_client_t *client;
    r_client_req_t *req;
    r_resource_request_t resource;
    r_latency_guard_t guard;
    const char *metrics_label;
    r_admission_cb cb;
    void *user_data;
    bool executed;                  /* protected work ran (r_runtime_admission_run_and_report) */
};

/* Fill cfg with the api.md defaults; every name is "rl-c-client-example".
 * Replace the names with stable application identifiers. NULL is a no-op. */
RCLIENT_API void r_client_admission_config_defaults(r_admission_config_t *cfg);

/* Derive the bucket and tracker IDs and submit the request (borrowed from
 * adm). Returns RCLIENT_OK (adm PENDING; cb fires later exactly once unless
 * cancelled) or a submit error of r_client_check_rate_limit_async_borrowed
 * (adm left IDLE, cb never fires); RCLIENT_ERR_CONFIG also for NULL arguments
 * or an adm that is PENDING. */
RCLIENT_API int r_client_admission_start(r_client_t *client, const r_admission_config_t *cfg,
                                         r_admission_request_t *adm, r_admission_cb cb, void *user_data);

/* Absolute deadline (Unix-epoch ms) while PENDING, else 0. */
RCLIENT_API uint64_t r_client_admission_deadline_ms(const r_admission_request_t *adm);

/* Drive the deadline; a no-op before it or when not PENDING. Returns RCLIENT_OK
 * or RCLIENT_ERR_CONFIG (NULL). */
RCLIENT_API int r_client_admission_on_timeout(r_admission_request_t *adm, uint64_t now_ms);

/* Cancel a PENDING admission: no callback; state CANCELLED. No-op otherwise.
 * r_client_destroy() with an admission in flight also leaves it CANCELLED (no
 * callback), so cancelling it afterwards is a harmless no-op. */
RCLIENT_API void r_client_admission_cancel(r_admission_request_t *adm);

/* Report the protected work's measured latency (ms, monotonic clock) once,
 * only after an allowed outcome. Returns RCLIENT_ERR_CONFIG when not allowed,
 * already reported, or NULL; otherwise r_client_report_latency's result. A
 * failed send may be retried with the same value; never rerun the work. */
RCLIENT_API int r_client_admission_report_latency(r_admission_request_t *adm, uint32_t observed_latency_ms);

#ifdef __cplusplus
}
#endif

#endif /* R_CLIENT_WORKFLOW_H */
