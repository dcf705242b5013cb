/* SPDX-License-Identifier: MIT */
/* check.c - whole-datagram checks: the server's request decode and the
 * client's response checks (r_admin.h "Whole-datagram checks").
 * Order: framing and tag (r_admin_open), pdu_type, the PDU's own decode,
 * then correlation with the request. */
#include <string.h>

#include <openssl/crypto.h>

#include "rl_admin.h"
#include "rl_le.h"

int r_admin_decode_request(r_admin_key_t *key, uint8_t *dgram, size_t len, r_admin_header_t *out_hdr,
                           r_admin_request_t *out, r_auth_key_info_t *tenant_info, r_admin_diag_t *diag) {
    if (out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin request: NULL argument");
    }
    r_admin_header_t h;
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    int rc = r_admin_open(key, dgram, len, &h, &pdu, &pdu_len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    r_admin_request_t r;
    memset(&r, 0, sizeof r);
    r.pdu_type = rl_load_u16(pdu);
    switch (r.pdu_type) {
    case R_ADMIN_PDU_TENANT_MUTATION:
        rc = r_admin_decode_tenant_mutation(pdu, pdu_len, &r.u.tenant_mutation, diag);
        if (rc == RCLIENT_OK) {
            rc = r_admin_tenant_mutation_check(&r.u.tenant_mutation, h.key_id, tenant_info, diag);
        }
        break;
    case R_ADMIN_PDU_STATUS_QUERY: rc = r_admin_decode_status_query(pdu, pdu_len, &r.u.status_query, diag); break;
    case R_ADMIN_PDU_METRICS_QUERY: rc = r_admin_decode_metrics_query(pdu, pdu_len, &r.u.metrics_query, diag); break;
    default:
        rc = rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_TYPE,
                           "admin request: pdu_type 0x%04X is not an administrative request", (unsigned)r.pdu_type);
        break;
    }
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (out_hdr != NULL) {
        *out_hdr = h;
    }
    *out = r;
    return rl_admin_ok(diag);
}

/* Open, check the kind, leave the PDU to the caller. */
static int open_kind(r_admin_key_t *key, uint8_t *dgram, size_t len, uint16_t want, r_admin_header_t *h,
                     uint8_t **pdu, size_t *pdu_len, r_admin_diag_t *diag) {
    int rc = r_admin_open(key, dgram, len, h, pdu, pdu_len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    uint16_t type = rl_load_u16(*pdu);
    if (type != want) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_TYPE, "admin response: pdu_type 0x%04X, want 0x%04X",
                             (unsigned)type, (unsigned)want);
    }
    return RCLIENT_OK;
}

static int correlate(const r_admin_header_t *h, const uint8_t *uid, uint64_t expected_server_id, r_admin_diag_t *diag) {
    if (CRYPTO_memcmp(h->unique_id, uid, R_CLIENT_ID_LEN) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_UNIQUE_ID,
                             "admin response: unique_id is not the request's");
    }
    if (expected_server_id != 0 && h->key_id != expected_server_id) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_SERVER_ID,
                             "admin response: server_id is not the expected server");
    }
    return RCLIENT_OK;
}

int r_admin_check_tenant_ack(r_admin_key_t *key, uint8_t *dgram, size_t len, const uint8_t request_unique_id[16],
                             uint8_t request_operation, uint64_t expected_server_id, r_admin_header_t *out_hdr,
                             r_admin_tenant_ack_t *out, r_admin_diag_t *diag) {
    if (request_unique_id == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "tenant_ack: NULL argument");
    }
    r_admin_header_t h;
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    r_admin_tenant_ack_t ack;
    int rc = open_kind(key, dgram, len, R_ADMIN_PDU_TENANT_ACK, &h, &pdu, &pdu_len, diag);
    if (rc == RCLIENT_OK) {
        rc = r_admin_decode_tenant_ack(pdu, pdu_len, &ack, diag);
    }
    if (rc == RCLIENT_OK) {
        rc = correlate(&h, request_unique_id, expected_server_id, diag);
    }
    if (rc == RCLIENT_OK && ack.operation != request_operation) {
        rc = rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_ACK_OPERATION,
                           "tenant_ack: operation 0x%02X, the request's was 0x%02X", (unsigned)ack.operation,
                           (unsigned)request_operation);
    }
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (out_hdr != NULL) {
        *out_hdr = h;
    }
    *out = ack;
    return rl_admin_ok(diag);
}

int r_admin_check_status_response(r_admin_key_t *key, uint8_t *dgram, size_t len, const uint8_t request_unique_id[16],
                                  uint64_t expected_server_id, r_admin_header_t *out_hdr,
                                  r_admin_status_response_t *out, r_admin_diag_t *diag) {
    if (request_unique_id == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "status_response: NULL argument");
    }
    r_admin_header_t h;
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    r_admin_status_response_t sr;
    int rc = open_kind(key, dgram, len, R_ADMIN_PDU_STATUS_RESPONSE, &h, &pdu, &pdu_len, diag);
    if (rc == RCLIENT_OK) {
        rc = r_admin_decode_status_response(pdu, pdu_len, &sr, diag);
    }
    if (rc == RCLIENT_OK) {
        rc = correlate(&h, request_unique_id, expected_server_id, diag);
    }
    if (rc == RCLIENT_OK && sr.server_id != h.key_id) {
        rc = rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_SERVER_ID,
                           "status_response: server_id field differs from the Tenant Header server_id");
    }
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (out_hdr != NULL) {
        *out_hdr = h;
    }
    *out = sr;
    return rl_admin_ok(diag);
}

int r_admin_check_metrics_response(r_admin_key_t *key, uint8_t *dgram, size_t len,
                                   const uint8_t request_unique_id[16], uint8_t request_family,
                                   uint64_t expected_server_id, r_admin_header_t *out_hdr,
                                   r_admin_metrics_response_t *out, r_admin_diag_t *diag) {
    if (request_unique_id == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "metrics_response: NULL argument");
    }
    r_admin_header_t h;
    uint8_t *pdu = NULL;
    size_t pdu_len = 0;
    r_admin_metrics_response_t mr;
    int rc = open_kind(key, dgram, len, R_ADMIN_PDU_METRICS_RESPONSE, &h, &pdu, &pdu_len, diag);
    if (rc == RCLIENT_OK) {
        rc = r_admin_decode_metrics_response(pdu, pdu_len, &mr, diag);
    }
    if (rc == RCLIENT_OK) {
        rc = correlate(&h, request_unique_id, expected_server_id, diag);
    }
    if (rc == RCLIENT_OK && mr.metric_family != request_family) {
        rc = rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_FAMILY_ECHO,
                           "metrics_response: family 0x%02X, the query's was 0x%02X", (unsigned)mr.metric_family,
                           (unsigned)request_family);
    }
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (out_hdr != NULL) {
        *out_hdr = h;
    }
    *out = mr;
    return rl_admin_ok(diag);
}
