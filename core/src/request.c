/* SPDX-License-Identifier: MIT */
/* request.c - resource-request submission (api.md "Resource Requests";
 * r-client.md 6.2.1 Created -> Prepared -> TransmissionRound, 9.3.2). Validation
 * happens before DNS or any send; one heap allocation per non-empty request,
 * sized to it, holding the logical request sealed once. */
#include <stdlib.h>
#include <string.h>

#include "rl_client.h"

static const uint8_t *req_key(const void *entry) {
    return ((const r_client_req_t *)entry)->unique_id;
}

rl_reqtable_key_fn rl_request_key_fn(void);
rl_reqtable_key_fn rl_request_key_fn(void) {
    return req_key;
}

/* The empty request: the atomic decision is vacuously true, completed inside
 * the submit call with no DNS, ID, scheduling or send (api.md). */
static int complete_empty(r_client_t *c, r_rate_limit_cb cb, void *user, r_client_req_t **out_req) {
    *out_req = NULL;
    if (c->profile_cb != NULL) {
        r_request_profile_t p = {.status = RCLIENT_OK, .phase = R_PHASE_ROUND};
        c->profile_cb(&p, c->profile_user);
    }
    r_rate_limit_result_t result;
    memset(&result, 0, sizeof result);
    result.status = RCLIENT_OK;
    result.success = true;
    cb(NULL, &result, user);
    return RCLIENT_OK;
}

static size_t label_length(const char *label, size_t len) {
    if (label == NULL) {
        return 0;
    }
    return len != 0 ? len : strlen(label);
}

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

/* One allocation per request (api.md target), sized to it (rl_client.h):
 * struct | resources[] | guards[] | dgram[dgram_len] | cand_blocks[] |
 * responded[n]. A response answers with the request's blocks (its
 * optional TLVs may differ, wire_protocol.md "Response TLV Parameters"), so
 * a retained candidate needs only block-sized storage. Every count is
 * bounded by the 1200-byte datagram, so the sum cannot overflow. */
static r_client_req_t *alloc_request(size_t n_servers, size_t dgram_len, const r_resource_request_t *resources,
                                     size_t n_res, const r_latency_guard_t *guards, size_t n_guards) {
    size_t head = ALIGN8(sizeof(r_client_req_t));
    size_t res = n_res * sizeof(r_resource_request_t);
    size_t grd = n_guards * sizeof(r_latency_guard_t);
    size_t blocks = n_guards * RL_GUARD_BLOCK_SIZE + n_res * RL_RESOURCE_BLOCK_SIZE;
    size_t total = head + res + grd + dgram_len + blocks + n_servers;
    /* malloc, not calloc: the datagram and candidate blocks are written
     * before they are read, so only the struct and the flags are zeroed. */
    uint8_t *mem = malloc(total);
    if (mem == NULL) {
        return NULL;
    }
    memset(mem, 0, head);
    r_client_req_t *req = (r_client_req_t *)mem;
    /* The caller's inputs, kept: the datagram is encoded from these copies
     * and responses are checked against them. */
    if (res > 0) {
        memcpy(mem + head, resources, res);
    }
    if (grd > 0) {
        memcpy(mem + head + res, guards, grd);
    }
    req->resources = (const r_resource_request_t *)(void *)(mem + head);
    req->resource_count = n_res;
    req->guards = (const r_latency_guard_t *)(void *)(mem + head + res);
    req->guard_count = n_guards;
    req->dgram = mem + head + res + grd;
    req->dgram_len = dgram_len;
    req->cand_blocks = req->dgram + dgram_len;
    req->responded = req->cand_blocks + blocks;
    memset(req->responded, 0, n_servers);
    return req;
}

/* Fresh unique_id not colliding with an in-flight one, and the AES nonce. */
static int draw_identity(r_client_t *c, uint8_t unique_id[16], uint8_t nonce[RL_AES_NONCE_LEN]) {
    if (rl_client_fresh_unique_id(c, unique_id) != RCLIENT_OK) {
        return RCLIENT_ERR_AUTH;
    }
    if (c->key.type == R_AUTH_AES && rl_rng_bytes(&c->rng, nonce, RL_AES_NONCE_LEN) != 0) {
        return RCLIENT_ERR_AUTH;
    }
    return RCLIENT_OK;
}

/* Encode and seal the datagram from the request's copies of the inputs into
 * req->dgram (sized at allocation): what is sent and what responses are
 * checked against are the same values, whatever the caller later does to its
 * buffers. The label is needed only for the datagram. */
static int seal_request(r_client_t *c, r_client_req_t *req, const uint8_t *label, size_t label_len) {
    uint8_t nonce[RL_AES_NONCE_LEN] = {0};
    if (draw_identity(c, req->unique_id, nonce) != RCLIENT_OK) {
        return RCLIENT_ERR_AUTH;
    }
    rl_tenant_header_t hdr = {.key_id = c->key.key_id, .time_stamp_ms = req->t0, .steering_feedback = 1};
    memcpy(hdr.unique_id, req->unique_id, 16);
    size_t len = 0;
    int rc = rl_encode_rate_request(req->dgram, req->dgram_len, c->key.type, &hdr, c->schedule.ttl_ms, req->guards,
                                    req->guard_count, req->resources, req->resource_count, label, label_len, &len);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    /* Sealed once: every transmission repeats these bytes, so one nonce seals
     * one plaintext (wire_protocol.md "AES-256-GCM Normative Framing"). */
    return rl_auth_seal(&c->auth, req->dgram, len, nonce) == RCLIENT_OK ? RCLIENT_OK : RCLIENT_ERR_AUTH;
}

/* Both APIs (copying and borrowed) store the logical request: api.md lets a
 * borrowed caller change its buffers' contents while they stay valid, and a
 * replay re-encoded from changed buffers would be a different request under
 * the same unique_id (r-client.md 9.3.2), sealed under the submit nonce. */
static int submit(r_client_t *c, const r_resource_request_t *resources, size_t resource_count,
                  const r_latency_guard_t *guards, size_t guard_count, const char *metrics_label,
                  size_t metrics_label_len, r_rate_limit_cb cb, void *user, r_client_req_t **out_req) {
    if (c == NULL || cb == NULL || out_req == NULL || (resource_count > 0 && resources == NULL) ||
        (guard_count > 0 && guards == NULL)) {
        return RCLIENT_ERR_CONFIG;
    }
    if (resource_count == 0 && guard_count == 0) {
        return complete_empty(c, cb, user, out_req);
    }
    /* Size first: it needs only the counts, so an absurd count is refused
     * before any array element is read. */
    size_t label_len = label_length(metrics_label, metrics_label_len);
    size_t size = rl_rate_request_size(c->key.type, guard_count, resource_count, label_len);
    if (size == 0 || size > RL_MAX_DATAGRAM) {
        return RCLIENT_ERR_PROTOCOL;
    }
    const char *why = NULL;
    if (rl_check_request_quotas(&c->key.quotas, guards, guard_count, resources, resource_count, &why) != RCLIENT_OK) {
        rl_client_log(c, R_LOG_WARN, "request rejected: %s", why ? why : "quota");
        return RCLIENT_ERR_PROTOCOL;
    }
    if (c->schedule_status != RCLIENT_OK) {
        rl_client_log(c, R_LOG_WARN, "request policy invalid: %s", c->schedule_why ? c->schedule_why : "");
        return RCLIENT_ERR_CONFIG;
    }
    rl_snapshot_t *snap = rl_membership_acquire(&c->membership);
    if (snap == NULL) {
        return RCLIENT_ERR_DNS;
    }
    r_client_req_t *req = alloc_request(snap->count, size, resources, resource_count, guards, guard_count);
    if (req == NULL) {
        return RCLIENT_ERR_NOMEM;
    }
    req->client = c;
    req->snapshot = snap;
    rl_snapshot_ref(snap);
    req->candidate = -1;
    req->n_missing = snap->count;
    req->cb = cb;
    req->user = user;
    req->t0 = rl_client_now(c);
    req->dedup_deadline = req->t0 + c->schedule.ttl_ms;
    int rc = seal_request(c, req, (const uint8_t *)metrics_label, label_len);
    if (rc == RCLIENT_OK && rl_reqtable_put(&c->inflight, req) != 0) {
        rc = RCLIENT_ERR_NOMEM;
    }
    if (rc != RCLIENT_OK) {
        rl_request_free(req);
        return rc;
    }
    /* Best effort to every member (r-client.md 9.3 "Delivery"): the submit
     * fails only when no member could be sent to (docs/spec-notes.md). */
    size_t failed = 0;
    if (rl_client_fanout(c, snap, NULL, req->dgram, req->dgram_len, "request", &failed) == 0) {
        rl_reqtable_remove(&c->inflight, req);
        rl_request_free(req);
        return RCLIENT_ERR_IO;
    }
    req->send_failures = (uint32_t)failed;
    rl_request_start(req);
    *out_req = req;
    return RCLIENT_OK;
}

int r_client_check_rate_limit_async(r_client_t *client, const r_resource_request_t *resources, size_t resource_count,
                                    const r_latency_guard_t *guards, size_t guard_count, const char *metrics_label,
                                    size_t metrics_label_len, r_rate_limit_cb cb, void *user_data,
                                    r_client_req_t **out_req) {
    return submit(client, resources, resource_count, guards, guard_count, metrics_label, metrics_label_len, cb,
                  user_data, out_req);
}

int r_client_check_rate_limit_async_borrowed(r_client_t *client, const r_resource_request_t *resources,
                                             size_t resource_count, const r_latency_guard_t *guards,
                                             size_t guard_count, const char *metrics_label, size_t metrics_label_len,
                                             r_rate_limit_cb cb, void *user_data, r_client_req_t **out_req) {
    return submit(client, resources, resource_count, guards, guard_count, metrics_label, metrics_label_len, cb,
                  user_data, out_req);
}

int r_client_cancel_request(r_client_t *client, r_client_req_t *req) {
    if (client == NULL || req == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (req->completing) {
        return RCLIENT_OK; /* its callback is running (maybe further up the stack): completion owns it */
    }
    rl_reqtable_remove(&client->inflight, req);
    rl_request_free(req);
    return RCLIENT_OK;
}

uint64_t r_client_request_deadline_ms(const r_client_t *client, const r_client_req_t *req) {
    (void)client;
    return req == NULL || req->completing ? 0 : rl_request_deadline(req);
}

int r_client_on_timeout(r_client_t *client, r_client_req_t *req, uint64_t now_ms) {
    if (client == NULL || req == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (!req->completing) {
        rl_request_on_timeout(req, now_ms); /* a completing request is already terminal */
    }
    return RCLIENT_OK;
}
