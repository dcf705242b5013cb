/* SPDX-License-Identifier: MIT */
/* vec_kind_packets.c - adapters that build one datagram with every random input
 * fixed: rate_request_packet (wire_protocol.md "Rate Request") and
 * latency_report_packet (wire_protocol.md "Latency Report PDU"), sealed per
 * wire_protocol.md "Auth Header" / "AES-256-GCM Normative Framing". */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_auth.h"
#include "rl_wire.h"
#include "vec_kinds.h"

/* Inputs shared by both packet kinds. */
typedef struct {
    rl_tenant_header_t hdr;
    bool has_nonce;
    uint8_t nonce[RL_AES_NONCE_LEN];
} pkt_common_t;

static bool read_common(const json_t *input, const vj_path_t *path, pkt_common_t *c, vj_err_t *e)
{
    memset(c, 0, sizeof *c);
    if (!vj_hex_fixed(input, path, "unique_id_hex", c->hdr.unique_id, sizeof c->hdr.unique_id, e) ||
        !vj_dec_u64(input, path, "time_stamp_ms", &c->hdr.time_stamp_ms, e))
        return false;
    /* nonce_hex is only required once the key turns out to be rl-aes. */
    c->has_nonce = json_object_get(input, "nonce_hex") != NULL;
    return !c->has_nonce || vj_hex_fixed(input, path, "nonce_hex", c->nonce, sizeof c->nonce, e);
}

static bool read_guard(const json_t *obj, const vj_path_t *p, r_latency_guard_t *g, vj_err_t *e)
{
    return vj_v_object(obj, p, e) &&
           vj_hex_fixed(obj, p, "tracker_id_hex", g->latency_tracker_id, R_CLIENT_ID_LEN, e) &&
           vj_u32(obj, p, "ttl_ms", &g->ttl_ms, e) && vj_u32(obj, p, "max_samples", &g->max_samples, e) &&
           vj_u32(obj, p, "buffer_size", &g->buffer_size, e) &&
           vj_u32(obj, p, "min_sample_threshold", &g->min_sample_threshold, e) &&
           vj_u32(obj, p, "latency_threshold", &g->threshold_ms, e);
}

static bool read_resource(const json_t *obj, const vj_path_t *p, r_resource_request_t *r, vj_err_t *e)
{
    return vj_v_object(obj, p, e) && vj_hex_fixed(obj, p, "bucket_id_hex", r->bucket_id, R_CLIENT_ID_LEN, e) &&
           vj_u32(obj, p, "window_size_ms", &r->window_size_ms, e) &&
           vj_u32(obj, p, "rate_limit", &r->rate_limit, e) &&
           vj_u16(obj, p, "tokens_requested", &r->tokens_requested, e);
}

static bool read_report(const json_t *obj, const vj_path_t *p, r_service_latency_report_t *r, vj_err_t *e)
{
    return vj_v_object(obj, p, e) &&
           vj_hex_fixed(obj, p, "tracker_id_hex", r->latency_tracker_id, R_CLIENT_ID_LEN, e) &&
           vj_u32(obj, p, "ttl_ms", &r->ttl_ms, e) && vj_u32(obj, p, "max_samples", &r->max_samples, e) &&
           vj_u32(obj, p, "buffer_size", &r->buffer_size, e) &&
           vj_u32(obj, p, "min_sample_threshold", &r->min_sample_threshold, e) &&
           vj_u32(obj, p, "observed_latency", &r->observed_latency, e);
}

typedef bool (*read_elem_fn)(const json_t *obj, const vj_path_t *p, void *elem, vj_err_t *e);

/* Read input[key] as an array of blocks into a calloc'ed array (*out, owned
 * by the caller, at least one element so an empty array is not NULL). */
static bool read_blocks(const json_t *input, const vj_path_t *path, const char *key, size_t elem_size,
                        read_elem_fn read, void **out, size_t *out_n, vj_err_t *e)
{
    const json_t *arr = NULL;
    size_t n = 0;
    if (!vj_array(input, path, key, &arr, &n, e))
        return false;
    vj_path_t base = vj_path_key(path, key);
    unsigned char *blocks = calloc(n == 0 ? 1 : n, elem_size);
    if (blocks == NULL)
        return vj_fail(e, &base, "out of memory for %zu entries", n);
    for (size_t i = 0; i < n; i++) {
        vj_path_t p = vj_path_index(&base, i);
        if (!read(json_array_get(arr, i), &p, blocks + i * elem_size, e)) {
            free(blocks);
            return false;
        }
    }
    *out = blocks;
    *out_n = n;
    return true;
}

static bool read_guard_v(const json_t *o, const vj_path_t *p, void *x, vj_err_t *e)
{
    return read_guard(o, p, x, e);
}
static bool read_resource_v(const json_t *o, const vj_path_t *p, void *x, vj_err_t *e)
{
    return read_resource(o, p, x, e);
}
static bool read_report_v(const json_t *o, const vj_path_t *p, void *x, vj_err_t *e)
{
    return read_report(o, p, x, e);
}

/* Parse the key and finish the tenant header (wire_protocol.md "Tenant
 * Header": the key's key_id, tenant_mgmt_flag 0 for every client PDU). */
static bool prepare_key(const json_t *input, const vj_path_t *path, pkt_common_t *c, r_auth_key_info_t *info,
                        vec_run_t *run)
{
    if (!vec_parse_api_key(input, path, info, run))
        return false;
    if (info->type == R_AUTH_AES && !c->has_nonce) {
        vj_path_t p = vj_path_key(path, "nonce_hex");
        run->status = VEC_RUN_BAD_INPUT;
        return vj_fail(&run->err, &p, "expected lowercase hex of %u bytes (required for an rl-aes key), "
                                      "got nothing (field absent)", RL_AES_NONCE_LEN);
    }
    c->hdr.key_id = info->key_id;
    c->hdr.tenant_mgmt_flag = 0;
    return true;
}

/* After reading the inputs (ok false: run->err says why), parse the key.
 * A key rejection outranks an input value out of range (schema order: bech32,
 * hrp, length, version, quota before range). Returns true when both are fine. */
static bool inputs_then_key(bool ok, const json_t *input, const vj_path_t *path, pkt_common_t *c,
                            r_auth_key_info_t *info, vec_run_t *run)
{
    if (!ok && !run->err.range) {
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    vj_err_t range_err = run->err;
    if (!prepare_key(input, path, c, info, run))
        return false;
    if (!ok) {
        run->err = range_err;
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    return true;
}

static const char *encode_error(int rc)
{
    return rc == RCLIENT_ERR_PROTOCOL ? "datagram over 1200 bytes" : "encoder rejected the arguments";
}

/* Seal buf[0..len) and accept it as packet_hex. */
static void seal_and_accept(const r_auth_key_info_t *info, const pkt_common_t *c, uint8_t *buf, size_t len,
                            vec_run_t *run)
{
    rl_auth_t auth;
    memset(&auth, 0, sizeof auth);
    int rc = rl_auth_init(&auth, info->type, info->has_secret ? info->secret : NULL);
    if (rc == RCLIENT_OK)
        rc = rl_auth_seal(&auth, buf, len, info->type == R_AUTH_AES ? c->nonce : NULL);
    rl_auth_release(&auth);
    if (rc != RCLIENT_OK) {
        vec_run_reject(run, "auth", "sealing failed: %s", r_client_strerror(rc));
        return;
    }
    vec_run_accept(run, json_pack("{s:o}", "packet_hex", vec_json_hex(buf, len)));
}

typedef struct {
    uint32_t dedup_ttl_ms;
    uint8_t steering_feedback;
    r_latency_guard_t *guards;
    size_t n_guards;
    r_resource_request_t *resources;
    size_t n_resources;
    const char *label;
    size_t label_len;
} rate_in_t;

bool vec_read_rate_blocks(const json_t *obj, const vj_path_t *path, r_latency_guard_t **guards, size_t *n_guards,
                          r_resource_request_t **resources, size_t *n_resources, vj_err_t *e)
{
    void *g = NULL, *r = NULL;
    bool ok = read_blocks(obj, path, "guards", sizeof(r_latency_guard_t), read_guard_v, &g, n_guards, e) &&
              read_blocks(obj, path, "resources", sizeof(r_resource_request_t), read_resource_v, &r, n_resources,
                          e);
    *guards = g;
    *resources = r;
    return ok;
}

static bool read_rate_inputs(const json_t *input, const vj_path_t *path, rate_in_t *in, vj_err_t *e)
{
    bool ok = vj_u32(input, path, "dedup_ttl_ms", &in->dedup_ttl_ms, e) &&
              vj_u8_max(input, path, "steering_feedback", 1, &in->steering_feedback, e) &&
              vec_read_rate_blocks(input, path, &in->guards, &in->n_guards, &in->resources, &in->n_resources, e);
    /* An absent or empty metrics label sends no TLV. */
    if (ok && json_object_get(input, "metrics_label_utf8") != NULL)
        ok = vj_string(input, path, "metrics_label_utf8", &in->label, &in->label_len, e);
    return ok;
}

static void build_rate_request(const r_auth_key_info_t *info, pkt_common_t *c, const rate_in_t *in,
                               vec_run_t *run)
{
    const char *why = NULL;
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = 0;
    c->hdr.steering_feedback = in->steering_feedback;
    if (in->dedup_ttl_ms < 1 || in->dedup_ttl_ms > info->quotas.dedup_ttl_ms_max) {
        vec_run_reject(run, "range", "dedup_ttl_ms %u not in 1..%u (key dedup_ttl_ms_max)",
                       (unsigned)in->dedup_ttl_ms, (unsigned)info->quotas.dedup_ttl_ms_max);
        return;
    }
    if (rl_check_request_quotas(&info->quotas, in->guards, in->n_guards, in->resources, in->n_resources, &why) !=
        RCLIENT_OK) {
        vec_run_reject(run, "range", "%s", why != NULL ? why : "request breaks a key quota");
        return;
    }
    int rc = rl_encode_rate_request(buf, sizeof buf, info->type, &c->hdr, in->dedup_ttl_ms, in->guards,
                                    in->n_guards, in->resources, in->n_resources,
                                    (const uint8_t *)in->label, in->label_len, &len);
    if (rc != RCLIENT_OK) {
        vec_run_reject(run, "range", "rl_encode_rate_request: %s (%s)", r_client_strerror(rc), encode_error(rc));
        return;
    }
    seal_and_accept(info, c, buf, len, run);
}

void vec_kind_rate_request_packet(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    pkt_common_t c;
    rate_in_t in;
    r_auth_key_info_t info;
    memset(&in, 0, sizeof in);
    memset(&info, 0, sizeof info);
    bool ok = read_common(input, path, &c, &run->err) && read_rate_inputs(input, path, &in, &run->err);
    if (inputs_then_key(ok, input, path, &c, &info, run))
        build_rate_request(&info, &c, &in, run);
    free(in.guards);
    free(in.resources);
    OPENSSL_cleanse(&info, sizeof info);
}

static void build_latency_report(const r_auth_key_info_t *info, pkt_common_t *c, r_service_latency_report_t *reports,
                                 size_t n, vec_run_t *run)
{
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = 0;
    if (n == 0) {
        vec_run_reject(run, "range", "no report: a report call carries at least one");
        return;
    }
    /* api.md "Credentials", "Reporting measured work": reports whose
     * buffer_size exceeds latency_buffer_size_max are silently filtered before
     * send; when none survives the call returns RCLIENT_OK without sending
     * (the schema's valid expected {"sent": false}). */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (reports[i].buffer_size <= info->quotas.latency_buffer_size_max)
            reports[kept++] = reports[i];
    }
    if (kept == 0) {
        vec_run_accept(run, json_pack("{s:b}", "sent", 0));
        return;
    }
    int rc = rl_encode_latency_report(buf, sizeof buf, info->type, &c->hdr, reports, kept, &len);
    if (rc != RCLIENT_OK) {
        vec_run_reject(run, "range", "rl_encode_latency_report: %s (%s)", r_client_strerror(rc),
                       encode_error(rc));
        return;
    }
    seal_and_accept(info, c, buf, len, run);
}

void vec_kind_latency_report_packet(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    pkt_common_t c;
    void *reports = NULL;
    size_t n = 0;
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    bool ok = read_common(input, path, &c, &run->err) &&
              read_blocks(input, path, "reports", sizeof(r_service_latency_report_t), read_report_v, &reports, &n,
                          &run->err);
    /* steering_feedback is optional for reports (schema), default 0. */
    if (ok && json_object_get(input, "steering_feedback") != NULL)
        ok = vj_u8_max(input, path, "steering_feedback", 1, &c.hdr.steering_feedback, &run->err);
    if (inputs_then_key(ok, input, path, &c, &info, run))
        build_latency_report(&info, &c, reports, n, run);
    free(reports);
    OPENSSL_cleanse(&info, sizeof info);
}
