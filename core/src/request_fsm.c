/* SPDX-License-Identifier: MIT */
/* request_fsm.c - the per-request HA state machine of r-client.md 6.2.1 and
 * 9.3.3-9.3.4: oldest-first selection with preference deadlines, replays to
 * missing servers, the final receive-only phase, completion delivery, and
 * exactly-once completion. All deadlines are absolute, derived from t0 and the
 * frozen schedule; no send is initiated at or after the dedup deadline. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_assert.h"
#include "rl_client.h"

/* Start of transmission round k (k <= N) or, for k == N + 1, of the final phase. */
static uint64_t phase_start(const r_client_req_t *req, uint32_t k) {
    const r_policy_schedule_t *s = &req->client->schedule;
    uint64_t t = req->t0;
    for (uint32_t j = 0; j < k && j < s->rounds; j++) {
        t += s->round_ms[j];
    }
    return t;
}

static void enter_round(r_client_req_t *req, uint32_t k) {
    const r_policy_schedule_t *s = &req->client->schedule;
    RL_ASSERT(k < s->rounds && k >= req->round);
    uint64_t start = phase_start(req, k);
    req->round = k;
    req->phase = R_PHASE_ROUND;
    req->pref_deadline = start + s->preference_ms[k];
    req->end_deadline = start + s->round_ms[k];
    /* r-client.md 9.3.1: 0 <= P(k) <= B(k); every round ends before the horizon */
    RL_ASSERT(req->pref_deadline <= req->end_deadline && req->end_deadline <= req->dedup_deadline);
}

static void enter_final(r_client_req_t *req) {
    const r_policy_schedule_t *s = &req->client->schedule;
    uint64_t start = phase_start(req, s->rounds);
    req->phase = R_PHASE_FINAL_RECEIVE;
    req->pref_deadline = start + s->final_preference_ms;
    req->end_deadline = start + s->final_receive_ms;
    RL_ASSERT(req->pref_deadline <= req->end_deadline && req->end_deadline <= req->dedup_deadline);
}

void rl_request_start(r_client_req_t *req) {
    enter_round(req, 0);
}

uint64_t rl_request_deadline(const r_client_req_t *req) {
    return req->candidate >= 0 ? req->pref_deadline : req->end_deadline;
}

/* Send the logical request (the datagram sealed at submit, r-client.md
 * 9.3.2) to every server still missing a valid response, best effort
 * (r-client.md 9.3 "Delivery"): a send refused towards one server never
 * skips the others. Returns how many the host took. A replay round in which
 * no send could be made ends the request with RCLIENT_ERR_IO (api.md "Error
 * Codes": callback, replay rounds); completion delivery is fire-and-forget
 * (r-client.md 9.3.4) and ignores the count. */
static size_t send_to_missing(r_client_req_t *req, const char *what) {
    size_t failed = 0;
    size_t sent = rl_client_fanout(req->client, req->snapshot, req->responded, req->dgram, req->dgram_len, what,
                                   &failed);
    req->send_failures += (uint32_t)failed;
    return sent;
}

void rl_request_free(r_client_req_t *req) {
    rl_snapshot_unref(req->snapshot);
    /* The datagram is the part that carries a secret (the cookie in its auth
     * TLV); the inputs and candidate blocks hold none. */
    OPENSSL_cleanse(req->dgram, req->dgram_len);
    free(req);
}

int rl_request_match(const r_client_req_t *req, rl_rate_response_t *resp, rl_verdict_t *verdict) {
    return rl_response_match(resp, req->guards, req->guard_count, req->resources, req->resource_count, verdict) ==
                   RL_VERDICT_OK
               ? 0
               : -1;
}

/* The result arrays follow the request's order: entry i answers request
 * block i (rl_request_match checked it), so its ID is the request's and a
 * guard's threshold and verdict are the ones that guard asked for. */
static void fill_results(const r_client_req_t *req, const rl_rate_response_t *resp, r_resource_result_t *res,
                         r_guard_result_t *gr) {
    for (size_t i = 0; i < resp->resource_count; i++) {
        rl_resource_view_t v;
        rl_response_resource_at(resp, i, &v);
        memcpy(res[i].bucket_id, v.bucket_id, R_CLIENT_ID_LEN);
        res[i].tokens_deficit = v.tokens_deficit;
        res[i].actual_rate = v.actual_rate;
    }
    for (size_t i = 0; i < resp->guard_count; i++) {
        rl_guard_view_t v;
        rl_response_guard_at(resp, i, &v);
        memcpy(gr[i].latency_tracker_id, v.latency_tracker_id, R_CLIENT_ID_LEN);
        gr[i].threshold_ms = req->guards[i].threshold_ms;
        gr[i].current_latency_ms = v.current_latency;
        gr[i].passed = v.current_latency < gr[i].threshold_ms;
    }
}

void rl_request_set_abandon(r_client_req_t *req, void (*on_abandon)(void *user)) {
    req->on_abandon = on_abandon;
}

/* Terminal transition: mark terminal (leave the in-flight table), run
 * completion delivery for a selected response (r-client.md 9.3.4), profile,
 * then the callback exactly once (r-client.md 6.3 rules 2 and 4). */
static void complete(r_client_req_t *req, int status, const rl_rate_response_t *resp, uint64_t now_ms) {
    r_client_t *c = req->client;
    RL_ASSERT(!req->completing); /* the callback fires exactly once (r-client.md 6.3) */
    RL_ASSERT((status == RCLIENT_OK) == (resp != NULL));
    req->completing = true;
    rl_reqtable_remove(&c->inflight, req);
    /* At most 39 resources or 27 guards fit one datagram (api.md "Capacity limits"). */
    r_resource_result_t res[RL_MAX_DATAGRAM / RL_RESOURCE_BLOCK_SIZE];
    r_guard_result_t gr[RL_MAX_DATAGRAM / RL_GUARD_BLOCK_SIZE];
    r_rate_limit_result_t result;
    memset(&result, 0, sizeof result);
    result.status = status;
    if (resp != NULL) {
        fill_results(req, resp, res, gr);
        result.success = resp->success;
        result.resources = resp->resource_count ? res : NULL;
        result.resource_count = resp->resource_count;
        result.guards = resp->guard_count ? gr : NULL;
        result.guard_count = resp->guard_count;
        result.server_id = resp->server_id;
        result.steering_feedback = resp->keep_port;
    }
    /* After the result is copied out; the sends repeat the stored datagram. */
    if (resp != NULL && c->policy.completion_delivery && req->n_missing > 0 && now_ms < req->dedup_deadline) {
        (void)send_to_missing(req, "completion delivery"); /* fire-and-forget: failures change no result */
    }
    if (c->profile_cb != NULL) {
        r_request_profile_t p = {
            .wait_ms = now_ms > req->t0 ? now_ms - req->t0 : 0,
            .round = req->round,
            .phase = req->phase,
            .status = status,
            .selected = resp != NULL,
            .server_id = resp != NULL ? resp->server_id : 0,
            .send_failures = req->send_failures,
        };
        c->profile_cb(&p, c->profile_user);
    }
    req->completing = true; /* cancel / on_timeout on it from any callback are now no-ops */
    req->cb(req, &result, req->user);
    rl_request_free(req);
}

/* Keep a candidate that is not selected at once: the parsed views point into
 * the client's scratch buffer, which the next datagram reuses. Only its
 * blocks are copied (its trailing TLVs are not needed for the result);
 * rl_request_match made its counts the request's, which sized cand_blocks. */
static void retain_candidate(r_client_req_t *req, const rl_rate_response_t *resp) {
    size_t guards = (size_t)resp->guard_count * RL_GUARD_BLOCK_SIZE;
    size_t resources = (size_t)resp->resource_count * RL_RESOURCE_BLOCK_SIZE;
    memcpy(req->cand_blocks, resp->guards, guards);
    memcpy(req->cand_blocks + guards, resp->resources, resources);
    req->cand_resp = *resp;
    req->cand_resp.unique_id = req->unique_id; /* equal: correlated on arrival */
    req->cand_resp.guards = req->cand_blocks;
    req->cand_resp.resources = req->cand_blocks + guards;
}

void rl_request_on_response(r_client_req_t *req, const rl_rate_response_t *resp, uint64_t now_ms) {
    size_t rank = resp->server_index;
    if (req->responded[rank]) {
        /* Duplicate: no new responder, but the preference deadline may now allow the candidate. */
        if (req->candidate >= 0 && now_ms >= req->pref_deadline) {
            complete(req, RCLIENT_OK, &req->cand_resp, now_ms);
        }
        return;
    }
    RL_ASSERT(req->n_missing > 0 && !req->completing);
    req->responded[rank] = 1;
    req->n_missing--;
    bool better = req->candidate < 0 || (long)rank < req->candidate;
    if (better && (rank == 0 || now_ms >= req->pref_deadline)) {
        complete(req, RCLIENT_OK, resp, now_ms); /* globally oldest, or preference elapsed */
        return;
    }
    if (better) {
        req->candidate = (long)rank;
        retain_candidate(req, resp);
    }
    RL_ASSERT(req->candidate >= 0 && req->responded[req->candidate]); /* the candidate responded */
    if (now_ms >= req->pref_deadline) {
        complete(req, RCLIENT_OK, &req->cand_resp, now_ms);
    }
}

/* A deadline. With a candidate it is the preference deadline: select it.
 * Otherwise the current phase is over and the phase current at now_ms is
 * entered directly (docs/spec-notes.md "Late timers"): transmission rounds
 * already over at now_ms are skipped without sending, only the round current
 * at now_ms replays, once, and never at or after the dedup deadline
 * (r-client.md 9.3.1, 9.3.3 rules 7 and 8). A timer on time is the case
 * where the next round is current. */
void rl_request_on_timeout(r_client_req_t *req, uint64_t now_ms) {
    const r_policy_schedule_t *s = &req->client->schedule;
    if (now_ms < rl_request_deadline(req)) {
        return;
    }
    if (req->candidate >= 0) {
        complete(req, RCLIENT_OK, &req->cand_resp, now_ms);
        return;
    }
    if (req->phase == R_PHASE_ROUND) {
        uint32_t k = req->round + 1;
        while (k < s->rounds && now_ms >= phase_start(req, k + 1)) {
            k++; /* round k ended at or before now_ms: skipped, nothing sent */
        }
        if (k < s->rounds) {
            enter_round(req, k);
            if (now_ms < req->dedup_deadline && send_to_missing(req, "replay") == 0) {
                complete(req, RCLIENT_ERR_IO, NULL, now_ms); /* no missing server could be sent to */
            }
            return;
        }
        req->round = s->rounds - 1; /* every round is over: the last one was N */
        if (s->final_receive_ms > 0) {
            enter_final(req);
            if (now_ms < req->end_deadline) {
                return;
            }
        }
    }
    complete(req, RCLIENT_ERR_TIMEOUT, NULL, now_ms);
}
