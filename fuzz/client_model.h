/* SPDX-License-Identifier: MIT */
/* client_model.h - host and reference model of the stateful client harness
 * (fuzz_client.c).
 *
 * The model plays the host of the sans-IO core (clock, UDP sends, random
 * source, steering hook) with explicit servers, and mirrors what the core must
 * do: which requests are in flight, their dedup deadlines (t0 + ttl_ms,
 * r-client.md 9.3.1), the first valid response each server gave, and the
 * expected steering state. Every hook call and every event is checked against
 * it; a violation aborts (FUZZ_CHECK). */
#ifndef CLIENT_MODEL_H
#define CLIENT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "fuzz_wire.h"
#include "rl_auth.h"
#include "r_client.h"

#define CM_SLOTS 8u        /* requests tracked at once */
#define CM_MAX_ENDPOINTS 4u
#define CM_MAX_BLOCKS 8u   /* resources and guards per request */
#define CM_LABEL_MAX 1100u /* long enough to push a request over 1200 bytes */
#define CM_DGRAM 1200u
#define CM_T0 1767225600000ull /* 2026-01-01T00:00:00Z, ms */

typedef enum { SLOT_FREE = 0, SLOT_LIVE, SLOT_DONE, SLOT_CANCELLED } cm_slot_state_t;

/* What a completion callback does besides checking its result (api.md
 * "Threading and reentrancy": submit, report and cancel are allowed there). */
typedef enum {
    CB_NOTHING = 0,
    CB_CANCEL_SELF,     /* a no-op on the completing request */
    CB_CANCEL_OTHER,
    CB_SUBMIT,          /* a new non-empty request */
    CB_SUBMIT_EMPTY,    /* completes inside that nested submit */
    CB_REPORT,
    CB_ACTIONS
} cm_cb_action_t;

/* Where the core is being called from: completions may only run inside
 * on_datagram / on_timeout (and the empty request inside its submit). */
typedef enum { OP_NONE = 0, OP_SUBMIT, OP_DATAGRAM, OP_TIMEOUT, OP_CANCEL, OP_REPORT, OP_DESTROY } cm_op_t;

typedef struct cm_model cm_model_t;

typedef struct {
    cm_model_t *m;
    cm_slot_state_t state;
    r_client_req_t *req;
    int completions;
    bool borrowed;
    uint64_t t0, dedup_deadline;
    bool uid_known;
    uint8_t unique_id[16];
    /* the logical request (kept stable: borrowed requests point here) */
    r_resource_request_t resources[CM_MAX_BLOCKS];
    size_t n_resources;
    r_latency_guard_t guards[CM_MAX_BLOCKS];
    size_t n_guards;
    char label[CM_LABEL_MAX + 1];      /* + NUL for the NUL-terminated form */
    bool label_cstr;                   /* pass length 0 (NUL-terminated) */
    size_t label_len;
    /* the datagram as first sent: plaintext and sealed bytes */
    uint8_t plain[CM_DGRAM], sealed[CM_DGRAM];
    size_t dgram_len;
    /* first valid response per member (plaintext); the core keeps only those */
    bool have_resp[CM_MAX_ENDPOINTS];
    uint8_t resp[CM_MAX_ENDPOINTS][CM_DGRAM];
    size_t resp_len[CM_MAX_ENDPOINTS];
    cm_cb_action_t cb_action;
    uint8_t cb_arg;
} cm_slot_t;

/* A datagram being delivered that the oracle found valid for a slot. */
typedef struct {
    bool valid;
    cm_slot_t *slot;
    size_t member;
    bool duplicate;          /* that member had already answered validly */
    uint8_t plain[CM_DGRAM];
    size_t len;
} cm_pending_t;

struct cm_model {
    /* configuration */
    r_auth_type_t mode;
    uint8_t secret[32];
    uint64_t key_id;
    r_api_key_quotas_t quotas;
    r_request_policy_t policy;
    int schedule_rc;
    r_policy_schedule_t schedule;
    r_server_endpoint_t endpoints[CM_MAX_ENDPOINTS];
    size_t n_endpoints;
    size_t member_of[CM_MAX_ENDPOINTS]; /* endpoint -> member (first of each server_id) */
    uint64_t member_ids[CM_MAX_ENDPOINTS];
    size_t n_members;
    size_t oldest;                      /* member with the smallest server_id: rank 0 */
    rl_auth_t server_auth;              /* the servers' copy of the key */
    r_client_t *client;
    /* host state */
    uint64_t now;
    bool fail_all;                      /* every send fails */
    int fail_in;                        /* > 0: the fail_in-th send attempt from now fails */
    uint64_t rng_counter;
    int rng_fail;                       /* the next rng_fail draws fail */
    bool rng_rewound;                   /* unique_ids may repeat: submit may give AUTH */
    size_t n_sends;
    cm_op_t op;
    cm_slot_t *submitting;              /* slot whose first sends are under way */
    cm_slot_t *completing;              /* slot whose callback runs */
    const r_service_latency_report_t *reporting; /* expected report content */
    size_t n_reporting;
    /* expectations */
    bool rebind_pending;
    int rebind_calls, rebind_expected;
    uint64_t rebind_server;
    int profiles, results;
    r_request_profile_t last_profile;
    int empty_completions;
    cm_pending_t pending;
    cm_slot_t slots[CM_SLOTS];
    /* the last delivered datagram, for replays */
    uint8_t last[CM_DGRAM + 100];
    size_t last_len;
};

/* Set the model up from the first config bytes and create the client. */
void cm_setup(cm_model_t *m, fuzz_reader_t *r);
/* Destroy the client (no callback may fire) and release the model's key. */
void cm_teardown(cm_model_t *m);

/* Host hooks and callbacks (client_model.c). */
int cm_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len);
uint64_t cm_now(void *ctx);
int cm_random(void *ctx, uint8_t *buf, size_t len);
void cm_rebind(void *ctx, uint64_t server_id);
void cm_profile(const r_request_profile_t *p, void *user);
void cm_on_result(r_client_req_t *req, const r_rate_limit_result_t *res, void *user);
void cm_on_empty(r_client_req_t *req, const r_rate_limit_result_t *res, void *user);

/* Invariants over every slot; run after each event. */
void cm_check_all(const cm_model_t *m);
/* Member index of a server_id, or n_members. */
size_t cm_member(const cm_model_t *m, uint64_t server_id);
/* Slot whose live request has this unique_id, or NULL. */
cm_slot_t *cm_slot_by_uid(cm_model_t *m, const uint8_t uid[16]);

/* Events (client_events.c). Each reads its parameters from r. */
void cm_ev_submit(cm_model_t *m, fuzz_reader_t *r, bool borrowed);
void cm_ev_raw_datagram(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_response(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_reflect(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_replay_last(cm_model_t *m);
void cm_ev_fire(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_host_loop(cm_model_t *m);
void cm_ev_cancel(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_report(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_rebind_complete(cm_model_t *m, fuzz_reader_t *r);
void cm_ev_misc(cm_model_t *m, fuzz_reader_t *r);
/* Drive every live request past its dedup deadline: each must complete. */
void cm_drain(cm_model_t *m);

/* Shared by the callback actions and the submit event. */
cm_slot_t *cm_free_slot(cm_model_t *m, uint8_t start);
int cm_submit_slot(cm_model_t *m, cm_slot_t *s);
void cm_report_values(cm_model_t *m, const r_service_latency_report_t *reports, size_t n);
void cm_fire_slot(cm_model_t *m, cm_slot_t *s);

#endif /* CLIENT_MODEL_H */
