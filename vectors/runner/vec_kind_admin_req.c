/* SPDX-License-Identifier: MIT */
/* vec_kind_admin_req.c - the administrative request kinds, as a server reads
 * them: admin_tenant_mutation, admin_status_query, admin_metrics_query
 * (wire_protocol.md "Tenant Mutation PDU", "Status Query PDU", "Metrics Query
 * PDU"), plus the shared input and class mapping of every admin kind. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_le.h"
#include "vec_admin.h"

const char *const vec_admin_tenant_mutation_fields[] = {"key_id",       "unique_id_hex", "time_stamp_ms", "operation",
                                                        "dedup_ttl_ms", "name_hex",      "tenant_key",    NULL};
const char *const vec_admin_status_query_fields[] = {"key_id", "unique_id_hex", "time_stamp_ms", "schema_version",
                                                     "query_kind", NULL};
const char *const vec_admin_metrics_query_fields[] = {"key_id",        "unique_id_hex", "time_stamp_ms",
                                                      "metric_family", "query_kind",    "cursor_hex", NULL};

const char *vec_admin_class(r_admin_reason_t reason)
{
    switch (reason) {
    case R_ADMIN_ERR_AUTH_TLV_TYPE:
    case R_ADMIN_ERR_TAG: return "auth";
    case R_ADMIN_ERR_PDU_TYPE:
    case R_ADMIN_ERR_UNIQUE_ID:
    case R_ADMIN_ERR_SERVER_ID:
    case R_ADMIN_ERR_ACK_OPERATION:
    case R_ADMIN_ERR_FAMILY_ECHO:
    case R_ADMIN_ERR_KEY_ID_MISMATCH: return "correlation";
    case R_ADMIN_OK:
    case R_ADMIN_ERR_ARGUMENT:
    case R_ADMIN_ERR_BUFFER:
    case R_ADMIN_ERR_FLAG_BITS:
    case R_ADMIN_ERR_CREDENTIAL: /* classified by the credential's own rule (see tenant_mutation) */
    case R_ADMIN_ERR_STATE:
    case R_ADMIN_ERR_CRYPTO:
    case R_ADMIN_ERR_NOMEM:
    case R_ADMIN_ERR_SEND: return "(unclassified)";
    default: return "malformed"; /* framing, sizes, reserved fields, kinds, records */
    }
}

void vec_admin_reject(vec_run_t *run, const r_admin_diag_t *diag)
{
    vec_run_reject(run, vec_admin_class(diag->reason), "%s: %s", r_admin_reason_name(diag->reason), diag->message);
}

bool vec_admin_read(const json_t *input, const vj_path_t *path, vec_admin_in_t *in, vec_run_t *run)
{
    memset(in, 0, sizeof *in);
    if (json_object_get(input, "pdu_hex") != NULL) {
        in->plain = true;
        if (!vj_hex_alloc(input, path, "pdu_hex", &in->bytes, &in->len, &run->err)) {
            run->status = VEC_RUN_BAD_INPUT;
            return false;
        }
        return true;
    }
    const char *text = NULL;
    size_t text_len = 0;
    if (!vj_string(input, path, "admin_key", &text, &text_len, &run->err) ||
        !vj_hex_alloc(input, path, "packet_hex", &in->bytes, &in->len, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    r_key_diag_t kd;
    memset(&kd, 0, sizeof kd);
    int rc = r_admin_key_create(text, text_len, &in->key, &kd);
    if (rc != RCLIENT_OK) {
        vec_run_reject(run, vec_key_error_class(kd.reason), "admin_key: %s", kd.message);
        run->stage = "key"; /* refused before the kind's own step (vec_norm.h) */
        return false;
    }
    return true;
}

void vec_admin_free(vec_admin_in_t *in)
{
    if (in->bytes != NULL)
        OPENSSL_cleanse(in->bytes, in->len);
    free(in->bytes);
    r_admin_key_destroy(in->key);
    memset(in, 0, sizeof *in);
}

bool vec_admin_plain_size(const vec_admin_in_t *in, vec_run_t *run)
{
    if (in->len < 8 || rl_load_u16(in->bytes + 2) != in->len) {
        vec_run_reject(run, "malformed", "pdu_hex: pdu_size is not the PDU length");
        return false;
    }
    return true;
}

bool vec_admin_header_json(json_t *obj, const r_admin_header_t *h)
{
    return json_object_set_new(obj, "key_id", vec_json_dec_u64(h->key_id)) == 0 &&
           json_object_set_new(obj, "unique_id_hex", vec_json_hex(h->unique_id, R_CLIENT_ID_LEN)) == 0 &&
           json_object_set_new(obj, "time_stamp_ms", vec_json_dec_u64(h->time_stamp_ms)) == 0;
}

/* Open and decode a request datagram of kind want (another kind: correlation).
 * For a plaintext PDU only the kind and its decoder run. */
static bool decode(vec_admin_in_t *in, uint16_t want, r_admin_header_t *h, r_admin_request_t *req, vec_run_t *run)
{
    r_admin_diag_t diag;
    memset(&diag, 0, sizeof diag);
    memset(req, 0, sizeof *req);
    int rc;
    if (in->plain) {
        if (!vec_admin_plain_size(in, run))
            return false;
        req->pdu_type = rl_load_u16(in->bytes);
        if (req->pdu_type != want) {
            vec_run_reject(run, "correlation", "pdu_type 0x%04X is not the kind's", (unsigned)req->pdu_type);
            return false;
        }
        switch (want) {
        case R_ADMIN_PDU_TENANT_MUTATION:
            rc = r_admin_decode_tenant_mutation(in->bytes, in->len, &req->u.tenant_mutation, &diag);
            break;
        case R_ADMIN_PDU_STATUS_QUERY:
            rc = r_admin_decode_status_query(in->bytes, in->len, &req->u.status_query, &diag);
            break;
        default: rc = r_admin_decode_metrics_query(in->bytes, in->len, &req->u.metrics_query, &diag); break;
        }
    } else {
        rc = r_admin_decode_request(in->key, in->bytes, in->len, h, req, NULL, &diag);
        if (rc == RCLIENT_OK && req->pdu_type != want) {
            vec_run_reject(run, "correlation", "pdu_type 0x%04X is not the kind's", (unsigned)req->pdu_type);
            return false;
        }
    }
    if (rc == RCLIENT_OK)
        return true;
    if (diag.reason == R_ADMIN_ERR_CREDENTIAL && !in->plain) {
        /* The credential's own class (bech32, hrp, length, version, quota): the
         * datagram is decrypted in place, so read the tenant_key again. */
        r_admin_tenant_mutation_t tm;
        r_auth_key_info_t info;
        r_key_diag_t kd;
        memset(&kd, 0, sizeof kd);
        char text[256];
        if (r_admin_decode_tenant_mutation(in->bytes + R_ADMIN_FRAME_OVERHEAD, in->len - R_ADMIN_FRAME_OVERHEAD, &tm,
                                           NULL) == RCLIENT_OK) {
            memcpy(text, tm.tenant_key, tm.tenant_key_len);
            text[tm.tenant_key_len] = '\0';
            (void)r_client_parse_auth_key_diag(text, tm.tenant_key_len, &info, &kd);
            OPENSSL_cleanse(&info, sizeof info);
            OPENSSL_cleanse(text, sizeof text);
            vec_run_reject(run, vec_key_error_class(kd.reason), "tenant_key: %s", kd.message);
            return false;
        }
    }
    vec_admin_reject(run, &diag);
    return false;
}

void vec_kind_admin_tenant_mutation(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_request_t req;
    if (vec_admin_read(input, path, &in, run) && decode(&in, R_ADMIN_PDU_TENANT_MUTATION, &h, &req, run)) {
        const r_admin_tenant_mutation_t *tm = &req.u.tenant_mutation;
        json_t *out = json_pack("{s:i, s:I}", "operation", (int)tm->operation, "dedup_ttl_ms",
                                (json_int_t)tm->dedup_ttl_ms);
        if (out != NULL && !in.plain && !vec_admin_header_json(out, &h)) {
            json_decref(out);
            out = NULL;
        }
        if (out != NULL && tm->operation == R_TENANT_OP_ADD &&
            (json_object_set_new(out, "name_hex", vec_json_hex(tm->name, tm->name_len)) != 0 ||
             json_object_set_new(out, "tenant_key", json_stringn_nocheck(tm->tenant_key, tm->tenant_key_len)) != 0)) {
            json_decref(out);
            out = NULL;
        }
        vec_run_accept(run, out);
    }
    vec_admin_free(&in);
}

void vec_kind_admin_status_query(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_request_t req;
    if (vec_admin_read(input, path, &in, run) && decode(&in, R_ADMIN_PDU_STATUS_QUERY, &h, &req, run)) {
        json_t *out = json_pack("{s:i, s:i}", "schema_version", (int)req.u.status_query.schema_version, "query_kind",
                                (int)req.u.status_query.query_kind);
        if (out != NULL && !in.plain && !vec_admin_header_json(out, &h)) {
            json_decref(out);
            out = NULL;
        }
        vec_run_accept(run, out);
    }
    vec_admin_free(&in);
}

void vec_kind_admin_metrics_query(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_request_t req;
    if (vec_admin_read(input, path, &in, run) && decode(&in, R_ADMIN_PDU_METRICS_QUERY, &h, &req, run)) {
        const r_admin_metrics_query_t *q = &req.u.metrics_query;
        json_t *out = json_pack("{s:i, s:i}", "metric_family", (int)q->metric_family, "query_kind", (int)q->query_kind);
        if (out != NULL && !in.plain && !vec_admin_header_json(out, &h)) {
            json_decref(out);
            out = NULL;
        }
        if (out != NULL && q->query_kind == R_METRICS_QUERY_FROM_CURSOR &&
            json_object_set_new(out, "cursor_hex", vec_json_hex(q->cursor, q->cursor_len)) != 0) {
            json_decref(out);
            out = NULL;
        }
        vec_run_accept(run, out);
    }
    vec_admin_free(&in);
}
