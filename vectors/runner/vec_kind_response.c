/* SPDX-License-Identifier: MIT */
/* vec_kind_response.c - adapter for rate_response: one received datagram
 * checked against one in-flight request (wire_protocol.md "rate_response PDU",
 * "Response Semantics"; r-client.md 6.2.1, 9.3.3 step 1).
 *
 * Optional input `request` {guards, resources} (a compatible extension, in
 * the rate_request_packet block shape): the request's own blocks. With it the
 * datagram must also answer them block by block (rl_response_match; class
 * malformed otherwise) and `success` is decided with the requested
 * thresholds, as the client does. Without it the datagram is judged alone and
 * `success` reads the echoed latency_threshold. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_auth.h"
#include "rl_response.h"
#include "vec_kinds.h"

typedef struct {
    uint8_t unique_id[R_CLIENT_ID_LEN];
    uint64_t *trusted;
    size_t n_trusted;
    uint8_t *packet;
    size_t packet_len;
    bool has_request;
    r_latency_guard_t *guards;
    size_t n_guards;
    r_resource_request_t *resources;
    size_t n_resources;
} resp_in_t;

static bool read_trusted(const json_t *input, const vj_path_t *path, resp_in_t *in, vj_err_t *e)
{
    const json_t *arr = NULL;
    size_t n = 0;
    if (!vj_array(input, path, "trusted_server_ids", &arr, &n, e))
        return false;
    vj_path_t base = vj_path_key(path, "trusted_server_ids");
    in->trusted = calloc(n == 0 ? 1 : n, sizeof *in->trusted);
    if (in->trusted == NULL)
        return vj_fail(e, &base, "out of memory for %zu entries", n);
    for (size_t i = 0; i < n; i++) {
        vj_path_t p = vj_path_index(&base, i);
        if (!vj_v_dec_u64(json_array_get(arr, i), &p, &in->trusted[i], e))
            return false;
    }
    in->n_trusted = n;
    return true;
}

static bool read_request(const json_t *input, const vj_path_t *path, resp_in_t *in, vj_err_t *e)
{
    const json_t *req = NULL;
    in->has_request = json_object_get(input, "request") != NULL;
    if (!in->has_request)
        return true;
    if (!vj_object(input, path, "request", &req, e))
        return false;
    vj_path_t p = vj_path_key(path, "request");
    return vec_read_rate_blocks(req, &p, &in->guards, &in->n_guards, &in->resources, &in->n_resources, e);
}

static bool read_inputs(const json_t *input, const vj_path_t *path, resp_in_t *in, vj_err_t *e)
{
    return vj_hex_fixed(input, path, "request_unique_id_hex", in->unique_id, sizeof in->unique_id, e) &&
           read_trusted(input, path, in, e) &&
           vj_hex_alloc(input, path, "packet_hex", &in->packet, &in->packet_len, e) && read_request(input, path, in, e);
}

static json_t *resource_json(const rl_rate_response_t *resp, size_t i)
{
    rl_resource_view_t r;
    rl_response_resource_at(resp, i, &r);
    return json_pack("{s:o, s:I, s:I}", "bucket_id_hex", vec_json_hex(r.bucket_id, R_CLIENT_ID_LEN),
                     "tokens_deficit", (json_int_t)r.tokens_deficit, "actual_rate", (json_int_t)r.actual_rate);
}

static json_t *guard_json(const rl_rate_response_t *resp, size_t i)
{
    rl_guard_view_t g;
    rl_response_guard_at(resp, i, &g);
    return json_pack("{s:o, s:I}", "tracker_id_hex", vec_json_hex(g.latency_tracker_id, R_CLIENT_ID_LEN),
                     "current_latency", (json_int_t)g.current_latency);
}

/* The valid `expected` shape: blocks in wire order. */
static json_t *response_json(const rl_rate_response_t *resp)
{
    json_t *resources = json_array();
    json_t *guards = json_array();
    for (size_t i = 0; resources != NULL && i < resp->resource_count; i++) {
        if (json_array_append_new(resources, resource_json(resp, i)) != 0) {
            json_decref(resources);
            resources = NULL;
        }
    }
    for (size_t i = 0; guards != NULL && i < resp->guard_count; i++) {
        if (json_array_append_new(guards, guard_json(resp, i)) != 0) {
            json_decref(guards);
            guards = NULL;
        }
    }
    return json_pack("{s:o, s:b, s:b, s:o, s:o}", "server_id", vec_json_dec_u64(resp->server_id), "keep_port",
                     (int)resp->keep_port, "success", (int)resp->success, "resources", resources, "guards",
                     guards);
}

static void parse_response(const r_auth_key_info_t *info, resp_in_t *in, vec_run_t *run)
{
    rl_auth_t auth;
    memset(&auth, 0, sizeof auth);
    int rc = rl_auth_init(&auth, info->type, info->has_secret ? info->secret : NULL);
    if (rc != RCLIENT_OK) {
        rl_auth_release(&auth);
        vec_run_reject(run, "auth", "rl_auth_init: %s", r_client_strerror(rc));
        return;
    }
    rl_rate_response_t resp;
    rl_verdict_t verdict;
    memset(&resp, 0, sizeof resp);
    memset(&verdict, 0, sizeof verdict);
    /* in->packet is an exact-size heap copy, so an over-read is visible to ASan;
     * AES decrypts it in place. */
    rl_verdict_class_t cls = rl_parse_rate_response(&auth, in->packet, in->packet_len, in->unique_id,
                                                    in->trusted, in->n_trusted, &resp, &verdict);
    if (cls == RL_VERDICT_OK && in->has_request)
        cls = rl_response_match(&resp, in->guards, in->n_guards, in->resources, in->n_resources, &verdict);
    if (cls == RL_VERDICT_OK)
        vec_run_accept(run, response_json(&resp));
    else
        vec_run_reject(run, vec_verdict_class(cls), "%s", verdict.reason != NULL ? verdict.reason : "(no reason)");
    rl_auth_release(&auth);
}

void vec_kind_rate_response(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    resp_in_t in;
    r_auth_key_info_t info;
    memset(&in, 0, sizeof in);
    memset(&info, 0, sizeof info);
    bool ok = read_inputs(input, path, &in, &run->err);
    vj_err_t input_err = run->err;
    if (!ok && !input_err.range) {
        run->status = VEC_RUN_BAD_INPUT;
    } else if (vec_parse_api_key(input, path, &info, run)) {
        /* A key rejection outranks an input value out of range (schema order). */
        if (ok) {
            parse_response(&info, &in, run);
        } else {
            run->err = input_err;
            run->status = VEC_RUN_BAD_INPUT;
        }
    }
    free(in.trusted);
    free(in.guards);
    free(in.resources);
    if (in.packet != NULL)
        OPENSSL_cleanse(in.packet, in.packet_len); /* may hold decrypted plaintext */
    free(in.packet);
    OPENSSL_cleanse(&info, sizeof info);
}
