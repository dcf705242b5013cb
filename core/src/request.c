/* request.c - resource-request submission (api.md "Resource Requests";
 * r-client.md 6.2.1 Created -> Prepared -> TransmissionRound). Validation
 * happens before DNS or any send; one heap allocation per non-empty request. */
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

int rl_request_encode(const r_client_req_t *req, uint8_t *buf, size_t cap, size_t *out_len) {
    r_client_t *c = req->client;
    rl_tenant_header_t hdr = {.key_id = c->key.key_id, .time_stamp_ms = req->t0, .steering_feedback = 1};
    memcpy(hdr.unique_id, req->unique_id, 16);
    int rc = rl_encode_rate_request(buf, cap, c->key.type, &hdr, c->schedule.ttl_ms, req->guards, req->guard_count,
                                    req->resources, req->resource_count, req->label, req->label_len, out_len);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    return rl_auth_seal(&c->auth, buf, *out_len, req->nonce) == RCLIENT_OK ? RCLIENT_OK : RCLIENT_ERR_AUTH;
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

#define ALIGN16(n) (((n) + 15u) & ~(size_t)15u)

/* One allocation per request (api.md target):
 * struct | responded[n] | cand_buf[1200] | copying API only: dgram[len] |
 * resources[] | guards[] (kept to check responses against the request). */
static r_client_req_t *alloc_request(size_t n_servers, bool copy, size_t dgram_len, size_t n_res, size_t n_guards) {
    size_t head = ALIGN16(sizeof(r_client_req_t));
    size_t flags = ALIGN16(n_servers);
    size_t dgram = copy ? ALIGN16(dgram_len) : 0;
    size_t res = copy ? ALIGN16(n_res * sizeof(r_resource_request_t)) : 0;
    size_t grd = copy ? n_guards * sizeof(r_latency_guard_t) : 0;
    /* malloc, not calloc: the candidate and datagram buffers are written before
     * they are read, so only the struct and the flags are zeroed. */
    uint8_t *mem = malloc(head + flags + RL_MAX_DATAGRAM + dgram + res + grd);
    if (mem == NULL) {
        return NULL;
    }
    memset(mem, 0, head + flags);
    r_client_req_t *req = (r_client_req_t *)mem;
    req->responded = mem + head;
    req->cand_buf = mem + head + flags;
    if (copy) {
        req->dgram = req->cand_buf + RL_MAX_DATAGRAM;
        req->res_copy = (r_resource_request_t *)(void *)(req->dgram + dgram);
        req->guard_copy = (r_latency_guard_t *)(void *)(req->dgram + dgram + res);
    }
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

static int submit(r_client_t *c, const r_resource_request_t *resources, size_t resource_count,
                  const r_latency_guard_t *guards, size_t guard_count, const char *metrics_label,
                  size_t metrics_label_len, r_rate_limit_cb cb, void *user, r_client_req_t **out_req, bool borrowed) {
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
    r_client_req_t *req = alloc_request(snap->count, !borrowed, size, resource_count, guard_count);
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
    req->borrowed = borrowed;
    req->resources = resources;
    req->resource_count = resource_count;
    req->guards = guards;
    req->guard_count = guard_count;
    req->label = (const uint8_t *)metrics_label;
    req->label_len = label_len;
    req->t0 = rl_client_now(c);
    req->dedup_deadline = req->t0 + c->schedule.ttl_ms;
    int rc = draw_identity(c, req->unique_id, req->nonce);
    uint8_t *out = borrowed ? c->scratch : req->dgram;
    size_t len = 0;
    if (rc == RCLIENT_OK) {
        rc = rl_request_encode(req, out, borrowed ? sizeof c->scratch : size, &len);
    }
    if (rc == RCLIENT_OK && rl_reqtable_put(&c->inflight, req) != 0) {
        rc = RCLIENT_ERR_NOMEM;
    }
    if (rc != RCLIENT_OK) {
        rl_request_free(req);
        return rc;
    }
    req->dgram_len = len;
    /* Copying API: nothing borrowed survives the call; the inputs are kept
     * in the request's own allocation to check responses against. */
    if (!borrowed) {
        if (resource_count > 0) {
            memcpy(req->res_copy, resources, resource_count * sizeof *resources);
        }
        if (guard_count > 0) {
            memcpy(req->guard_copy, guards, guard_count * sizeof *guards);
        }
        req->resources = req->res_copy;
        req->guards = req->guard_copy;
        req->label = NULL;
    }
    if (rl_client_fanout(c, snap, NULL, out, len, false) != RCLIENT_OK) {
        rl_reqtable_remove(&c->inflight, req);
        rl_request_free(req);
        return RCLIENT_ERR_IO;
    }
    rl_request_start(req);
    *out_req = req;
    return RCLIENT_OK;
}

int r_client_check_rate_limit_async(r_client_t *client, const r_resource_request_t *resources, size_t resource_count,
                                    const r_latency_guard_t *guards, size_t guard_count, const char *metrics_label,
                                    size_t metrics_label_len, r_rate_limit_cb cb, void *user_data,
                                    r_client_req_t **out_req) {
    return submit(client, resources, resource_count, guards, guard_count, metrics_label, metrics_label_len, cb,
                  user_data, out_req, false);
}

int r_client_check_rate_limit_async_borrowed(r_client_t *client, const r_resource_request_t *resources,
                                             size_t resource_count, const r_latency_guard_t *guards,
                                             size_t guard_count, const char *metrics_label, size_t metrics_label_len,
                                             r_rate_limit_cb cb, void *user_data, r_client_req_t **out_req) {
    return submit(client, resources, resource_count, guards, guard_count, metrics_label, metrics_label_len, cb,
                  user_data, out_req, true);
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
