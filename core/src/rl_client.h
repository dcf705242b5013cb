/* SPDX-License-Identifier: MIT */
/* rl_client.h - private client and request state shared by client.c,
 * request.c, request_fsm.c and report.c. */
#ifndef RL_CLIENT_H
#define RL_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "rl_auth.h"
#include "rl_log.h"
#include "rl_membership.h"
#include "rl_reqtable.h"
#include "rl_response.h"
#include "rl_rng.h"
#include "rl_wire.h"

struct r_client {
    r_io_ops_t io;
    rl_rng_t rng;
    r_auth_key_info_t key;          /* decoded credential; secret cleansed on destroy */
    rl_auth_t auth;
    r_request_policy_t policy;
    int schedule_status;            /* r_client_policy_schedule() result, reported at submit */
    const char *schedule_why;
    r_policy_schedule_t schedule;   /* frozen per request: requests copy nothing, policy is immutable */
    r_request_profile_cb profile_cb;
    void *profile_user;
    rl_membership_t membership;
    rl_reqtable_t inflight;         /* unique_id -> r_client_req_t */
    bool warned_untrusted;          /* logged once: a response from outside the membership */
    bool rebind_pending;            /* r-client.md 6.1 RebindPending */
    uint8_t scratch[RL_MAX_DATAGRAM]; /* received datagram being validated; cleansed on destroy */
};

/* One heap allocation per request, sized to it (request.c alloc_request):
 * struct | resources[] | guards[] | dgram[dgram_len] | cand_blocks[] | responded[n]. */
struct r_client_req {
    r_client_t *client;
    rl_snapshot_t *snapshot;        /* immutable membership of this request (ref held) */
    uint8_t unique_id[16];
    uint64_t t0;                    /* time_stamp_ms of the request: start of round 0 */
    uint64_t dedup_deadline;        /* t0 + ttl_ms: no send at or after it */
    uint32_t round;                 /* current transmission round k */
    r_request_phase_t phase;
    uint64_t pref_deadline;         /* preference deadline of the current phase */
    uint64_t end_deadline;          /* replay deadline of round k, or end of final phase */
    long candidate;                 /* rank of the candidate's server, -1 = none */
    rl_rate_response_t cand_resp;   /* the candidate; its block views point into cand_blocks */
    size_t n_missing;               /* servers without a valid response */
    uint32_t send_failures;         /* destination sends the host refused (profile) */
    uint8_t *responded;             /* snapshot->count flags */
    r_rate_limit_cb cb;
    void *user;
    /* The logical request (r-client.md 9.3.2), fixed at submit for both APIs:
     * the submitted resources and guards (copies: responses are checked
     * against these) and the datagram sealed from exactly them, which every
     * transmission repeats byte for byte (one AES nonce, one plaintext). */
    const r_resource_request_t *resources;
    size_t resource_count;
    const r_latency_guard_t *guards;
    size_t guard_count;
    uint8_t *dgram;                 /* carries the cookie: cleansed before free */
    size_t dgram_len;
    uint8_t *cand_blocks;           /* guard_count * 40 + resource_count * 28 bytes */
    bool completing;                /* terminal: its callback is running (cancel/timeout are no-ops) */
    void (*on_abandon)(void *user); /* called instead of the callback when the client is destroyed */
};

/* Client-internal helpers (client.c). */
uint64_t rl_client_now(const r_client_t *c);
/* Log through the host hook (printf-style). */
#define rl_client_log(c, level, ...) rl_logf((c)->io.log, (c)->io.ctx, (level), __VA_ARGS__)
/* A unique_id for a new client PDU that no in-flight request holds (a few
 * draws). Returns RCLIENT_OK or RCLIENT_ERR_AUTH (random source failed or
 * kept repeating in-flight IDs). */
int rl_client_fresh_unique_id(r_client_t *c, uint8_t unique_id[16]);
/* Fill a tenant header for a new client PDU (fresh unique_id). Returns
 * RCLIENT_OK or RCLIENT_ERR_AUTH (rl_client_fresh_unique_id failed). */
int rl_client_new_header(r_client_t *c, rl_tenant_header_t *hdr, uint64_t now_ms);

/* Fan-out (fanout.c): send data[0..len) to every member of snap whose skip
 * flag is 0 (skip may be NULL: all), through io.udp_send_batch when the host
 * set it, else one io.udp_send each. A failure towards one member never skips
 * the others (r-client.md 9.3 best-effort delivery); each is logged at
 * R_LOG_WARN with the member's server_id and what (e.g. "request"). Returns
 * how many destinations the host took; *failed receives how many it refused. */
size_t rl_client_fanout(r_client_t *c, const rl_snapshot_t *snap, const uint8_t *skip, const uint8_t *data,
                        size_t len, const char *what, size_t *failed);

/* Request state machine (request_fsm.c). */
/* Arm round 0 (after the initial fan-out). */
void rl_request_start(r_client_req_t *req);
/* A validated, matched response (views into the client's scratch buffer,
 * which the next datagram reuses: a retained candidate is copied out). */
void rl_request_on_response(r_client_req_t *req, const rl_rate_response_t *resp, uint64_t now_ms);
void rl_request_on_timeout(r_client_req_t *req, uint64_t now_ms);
uint64_t rl_request_deadline(const r_client_req_t *req);
/* Response-semantic check (r-client.md 6.2.1): rl_response_match against the
 * request's own blocks, position by position (docs/spec-notes.md "Rate
 * responses"). Recomputes resp->success with the request's own thresholds.
 * Returns 0, or -1 when the response does not answer this request (verdict,
 * may be NULL, names the mismatch). */
int rl_request_match(const r_client_req_t *req, rl_rate_response_t *resp, rl_verdict_t *verdict);
/* Workflow hook (r_client_workflow.h): told when the client is destroyed
 * with this request in flight. */
void rl_request_set_abandon(r_client_req_t *req, void (*on_abandon)(void *user));
/* Release the snapshot reference and the request's memory, the stored
 * datagram cleansed first: it carries the cookie (wire_protocol.md "Auth Header"). */
void rl_request_free(r_client_req_t *req);

#endif /* RL_CLIENT_H */
