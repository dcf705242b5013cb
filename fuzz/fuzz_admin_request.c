/* SPDX-License-Identifier: MIT */
/* fuzz_admin_request.c - the server's administrative request parser:
 * r_admin_decode_tenant_mutation, _status_query, _metrics_query,
 * r_admin_tenant_mutation_check and r_admin_decode_request (with
 * r_admin_open) (wire_protocol.md "Tenant Mutation PDU", "Deterministic
 * validation rules", "Status Query PDU", "Metrics Query PDU"). Modes:
 * fuzz_admin_common.h; in mode 0 every one of the three decoders runs on the
 * payload and at most one (the one of its pdu_type) may accept. */
#include "fuzz_admin_common.h"

/* Run the three decoders; returns the pdu_type of the one that accepted, or 0. */
static uint16_t decode_all(const uint8_t *pdu, size_t len, bool round_trip, r_admin_request_t *req,
                           r_admin_reason_t *reason) {
    uint16_t accepted = 0;
    uint8_t buf[R_ADMIN_MAX_PDU];
    size_t n = 0;
    static const uint16_t types[3] = {R_ADMIN_PDU_TENANT_MUTATION, R_ADMIN_PDU_STATUS_QUERY, R_ADMIN_PDU_METRICS_QUERY};
    *reason = R_ADMIN_ERR_PDU_TYPE;
    for (int i = 0; i < 3; i++) {
        r_admin_diag_t d;
        memset(&d, 0, sizeof d);
        r_admin_request_t r, before;
        memset(&r, 0x5A, sizeof r);
        memcpy(&before, &r, sizeof before);
        int rc;
        switch (types[i]) {
        case R_ADMIN_PDU_TENANT_MUTATION: rc = r_admin_decode_tenant_mutation(pdu, len, &r.u.tenant_mutation, &d); break;
        case R_ADMIN_PDU_STATUS_QUERY: rc = r_admin_decode_status_query(pdu, len, &r.u.status_query, &d); break;
        default: rc = r_admin_decode_metrics_query(pdu, len, &r.u.metrics_query, &d); break;
        }
        bool mine = len >= 2 && fuzz_le16(pdu) == types[i];
        if (rc != RCLIENT_OK) {
            fuzz_admin_rejected(rc, &d);
            FUZZ_CHECK(memcmp(&r, &before, sizeof r) == 0);
            if (mine || len < 8) {
                *reason = d.reason;
            } else {
                FUZZ_CHECK(d.reason == R_ADMIN_ERR_PDU_TYPE);
            }
            continue;
        }
        FUZZ_CHECK(mine && accepted == 0);
        accepted = types[i];
        r.pdu_type = types[i];
        *req = r;
        *reason = R_ADMIN_OK;
        if (!round_trip || len > R_ADMIN_MAX_PDU) {
            continue;
        }
        switch (types[i]) {
        case R_ADMIN_PDU_TENANT_MUTATION: {
            const r_admin_tenant_mutation_t *tm = &r.u.tenant_mutation;
            FUZZ_CHECK(tm->name_len <= 255 && tm->tenant_key_len <= 255);
            FUZZ_CHECK(tm->operation == R_TENANT_OP_ADD || (tm->name_len == 0 && tm->tenant_key_len == 0));
            FUZZ_CHECK(r_admin_encode_tenant_mutation(buf, sizeof buf, tm, &n, NULL) == RCLIENT_OK);
            break;
        }
        case R_ADMIN_PDU_STATUS_QUERY:
            FUZZ_CHECK(r_admin_encode_status_query(buf, sizeof buf, &r.u.status_query, &n, NULL) == RCLIENT_OK);
            break;
        default:
            FUZZ_CHECK(r.u.metrics_query.cursor_len <= R_ADMIN_MAX_CURSOR);
            FUZZ_CHECK(r_admin_encode_metrics_query(buf, sizeof buf, &r.u.metrics_query, &n, NULL) == RCLIENT_OK);
            break;
        }
        FUZZ_CHECK(n == len && memcmp(buf, pdu, len) == 0);
    }
    return accepted;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) {
        return 0;
    }
    unsigned mode = data[0] % 3u;
    size_t len = size - 1;
    uint8_t *p = fuzz_dup(data + 1, len);
    r_admin_request_t plain, req;
    r_admin_reason_t reason;
    if (mode == 0) {
        (void)decode_all(p, len, true, &plain, &reason);
    } else if (mode == 1 && len >= 8 && len <= R_ADMIN_MAX_PDU) {
        r_admin_key_t *k = fuzz_admin_key();
        uint16_t accepted = decode_all(p, len, false, &plain, &reason);
        /* key_id: the tenant of the credential when the payload is an ADD, so
         * the key_id rule passes for valid credentials; else a fixed tenant. */
        uint64_t key_id = 42;
        if (accepted == R_ADMIN_PDU_TENANT_MUTATION && plain.u.tenant_mutation.operation == R_TENANT_OP_ADD) {
            const r_admin_tenant_mutation_t *tm = &plain.u.tenant_mutation;
            char text[256];
            memcpy(text, tm->tenant_key, tm->tenant_key_len);
            text[tm->tenant_key_len] = '\0';
            r_auth_key_info_t info;
            if (tm->tenant_key_len > 0 && r_client_parse_auth_key(text, tm->tenant_key_len, &info) == RCLIENT_OK) {
                key_id = info.key_id;
            }
        }
        uint8_t d[R_CLIENT_MAX_DATAGRAM];
        size_t n = fuzz_admin_seal(k, key_id, p, len, d);
        r_admin_diag_t diag;
        memset(&diag, 0, sizeof diag);
        r_admin_header_t h;
        r_auth_key_info_t info;
        int rc = r_admin_decode_request(k, d, n, &h, &req, &info, &diag);
        if (fuzz_le16(p + 2) != len) {
            FUZZ_CHECK(rc == RCLIENT_ERR_PROTOCOL && diag.reason == R_ADMIN_ERR_PDU_SIZE);
        } else if (accepted == 0) {
            FUZZ_CHECK(rc == RCLIENT_ERR_PROTOCOL && diag.reason == reason);
        } else if (accepted == R_ADMIN_PDU_TENANT_MUTATION && plain.u.tenant_mutation.operation == R_TENANT_OP_ADD) {
            /* the credential rules: accepted exactly when the credential parses
             * (its key_id is the header's by construction) */
            r_auth_key_info_t ref;
            const r_admin_tenant_mutation_t *tm = &plain.u.tenant_mutation;
            char text[256];
            memcpy(text, tm->tenant_key, tm->tenant_key_len);
            text[tm->tenant_key_len] = '\0';
            bool valid = tm->tenant_key_len > 0 && r_client_parse_auth_key(text, tm->tenant_key_len, &ref) == RCLIENT_OK;
            FUZZ_CHECK(valid == (rc == RCLIENT_OK));
            if (!valid) {
                FUZZ_CHECK(diag.reason == R_ADMIN_ERR_CREDENTIAL);
            } else {
                /* field by field: struct padding is not part of the value */
                FUZZ_CHECK(info.key_id == h.key_id && info.key_id == ref.key_id && info.type == ref.type);
                FUZZ_CHECK(info.has_secret == ref.has_secret && info.quota_word == ref.quota_word);
                FUZZ_CHECK(memcmp(info.secret, ref.secret, sizeof info.secret) == 0);
            }
        } else {
            FUZZ_CHECK(rc == RCLIENT_OK && req.pdu_type == accepted);
            FUZZ_CHECK(h.key_id == key_id && memcmp(h.unique_id, FUZZ_UNIQUE_ID, 16) == 0);
        }
        r_admin_key_destroy(k);
    } else if (mode == 2) {
        r_admin_key_t *k = fuzz_admin_key();
        r_admin_diag_t diag;
        memset(&diag, 0, sizeof diag);
        int rc = r_admin_decode_request(k, p, len, NULL, &req, NULL, &diag);
        if (rc == RCLIENT_OK) {
            FUZZ_CHECK(decode_all(p + R_ADMIN_FRAME_OVERHEAD, len - R_ADMIN_FRAME_OVERHEAD, true, &plain, &reason) ==
                       req.pdu_type);
        } else {
            fuzz_admin_rejected(rc, &diag);
        }
        r_admin_key_destroy(k);
    }
    free(p);
    return 0;
}
