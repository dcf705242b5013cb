/* SPDX-License-Identifier: MIT */
/* tenant.c - Tenant Mutation 0x544D and Tenant Ack 0x5441 codec
 * (wire_protocol.md "Tenant Mutation PDU", "Mutation Data Formats",
 * "Deterministic validation rules", "Tenant Acknowledgment PDU").
 *
 * Tenant Mutation layout (docs/spec-notes.md "Tenant Mutation layout"):
 *   0 pdu_type u16 | 2 pdu_size u16 | 4 operation u8 | 5 flags u8 (0)
 *   6 dedup_ttl_ms u32 | ADD: 10 name_len u8, name, tenant_key_len u8, tenant_key
 * No padding follows tenant_key; pdu_size is exact. */
#include <string.h>

#include <openssl/crypto.h>

#include "rl_admin.h"
#include "rl_le.h"

static int known_operation(unsigned op) {
    return op == R_TENANT_OP_ADD || op == R_TENANT_OP_REMOVE;
}

int r_admin_encode_tenant_mutation(uint8_t *buf, size_t cap, const r_admin_tenant_mutation_t *tm, size_t *out_len,
                                   r_admin_diag_t *diag) {
    static const char name[] = "tenant_mutation";
    if (tm == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    if (!known_operation(tm->operation)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_OPERATION,
                             "%s: operation 0x%02X is neither ADD 0x03 nor REMOVE 0x05", name, (unsigned)tm->operation);
    }
    size_t need = R_ADMIN_TENANT_MUTATION_FIXED;
    if (tm->operation == R_TENANT_OP_ADD) {
        if (tm->name_len > 255u || tm->tenant_key_len > 255u) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_LENGTH_FIELD,
                                 "%s: name_len %zu / tenant_key_len %zu above 255", name, tm->name_len,
                                 tm->tenant_key_len);
        }
        if ((tm->name == NULL && tm->name_len > 0) || (tm->tenant_key == NULL && tm->tenant_key_len > 0)) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL name or tenant_key", name);
        }
        need += 2u + tm->name_len + tm->tenant_key_len;
    } else if (tm->name_len != 0 || tm->tenant_key_len != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT,
                             "%s: REMOVE carries no name or tenant_key", name);
    }
    int rc = rl_admin_check_room(buf, cap, need, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    rl_store_u16(buf, R_ADMIN_PDU_TENANT_MUTATION);
    rl_store_u16(buf + 2, (uint16_t)need);
    buf[4] = tm->operation;
    buf[5] = 0;
    rl_store_u32(buf + 6, tm->dedup_ttl_ms);
    if (tm->operation == R_TENANT_OP_ADD) {
        uint8_t *p = buf + R_ADMIN_TENANT_MUTATION_FIXED;
        *p++ = (uint8_t)tm->name_len;
        if (tm->name_len > 0) {
            memcpy(p, tm->name, tm->name_len);
        }
        p += tm->name_len;
        *p++ = (uint8_t)tm->tenant_key_len;
        if (tm->tenant_key_len > 0) {
            memcpy(p, tm->tenant_key, tm->tenant_key_len);
        }
    }
    *out_len = need;
    return rl_admin_ok(diag);
}

int r_admin_decode_tenant_mutation(const uint8_t *pdu, size_t len, r_admin_tenant_mutation_t *out,
                                   r_admin_diag_t *diag) {
    static const char name[] = "tenant_mutation";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_TENANT_MUTATION, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (len < R_ADMIN_TENANT_MUTATION_FIXED) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                             "%s: pdu_size %zu below the 10-byte fixed part", name, len);
    }
    r_admin_tenant_mutation_t tm;
    memset(&tm, 0, sizeof tm);
    tm.operation = pdu[4];
    if (!known_operation(tm.operation)) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_OPERATION,
                             "%s: operation 0x%02X is neither ADD 0x03 nor REMOVE 0x05", name, (unsigned)tm.operation);
    }
    if (pdu[5] != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_FLAGS, "%s: flags 0x%02X, MUST be zero", name,
                             (unsigned)pdu[5]);
    }
    tm.dedup_ttl_ms = rl_load_u32(pdu + 6);
    size_t off = R_ADMIN_TENANT_MUTATION_FIXED;
    if (tm.operation == R_TENANT_OP_REMOVE) {
        if (len != off) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                                 "%s: REMOVE pdu_size %zu, must be 10 (no payload)", name, len);
        }
        *out = tm;
        return rl_admin_ok(diag);
    }
    if (len - off < 1u) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD, "%s: ADD without name_len", name);
    }
    tm.name_len = pdu[off++];
    if (tm.name_len + 1u > len - off) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                             "%s: name_len %zu runs past the PDU (no room for tenant_key_len)", name, tm.name_len);
    }
    tm.name = pdu + off;
    off += tm.name_len;
    tm.tenant_key_len = pdu[off++];
    if (tm.tenant_key_len > len - off) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                             "%s: tenant_key_len %zu runs past the PDU", name, tm.tenant_key_len);
    }
    tm.tenant_key = (const char *)(pdu + off);
    off += tm.tenant_key_len;
    if (off != len) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                             "%s: %zu bytes after tenant_key (pdu_size must end there)", name, len - off);
    }
    *out = tm;
    return rl_admin_ok(diag);
}

int r_admin_tenant_mutation_check(const r_admin_tenant_mutation_t *tm, uint64_t header_key_id,
                                  r_auth_key_info_t *out_info, r_admin_diag_t *diag) {
    if (tm == NULL || (tm->tenant_key == NULL && tm->tenant_key_len > 0)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "tenant_mutation: NULL argument");
    }
    if (tm->operation != R_TENANT_OP_ADD) {
        return rl_admin_ok(diag);
    }
    r_auth_key_info_t info;
    r_key_diag_t kd;
    memset(&kd, 0, sizeof kd);
    /* An empty tenant_key is not a credential; the parser needs a non-NULL text. */
    if (tm->tenant_key_len == 0 ||
        r_client_parse_auth_key_diag(tm->tenant_key, tm->tenant_key_len, &info, &kd) != RCLIENT_OK) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_CREDENTIAL, "tenant_key: %s",
                             tm->tenant_key_len == 0 ? "empty credential" : kd.message);
    }
    if (info.key_id != header_key_id) {
        OPENSSL_cleanse(&info, sizeof info);
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_KEY_ID_MISMATCH,
                             "tenant_key key_id differs from the Tenant Header key_id");
    }
    if (out_info != NULL) {
        *out_info = info;
    }
    OPENSSL_cleanse(&info, sizeof info);
    return rl_admin_ok(diag);
}

int r_admin_encode_tenant_ack(uint8_t *buf, size_t cap, const r_admin_tenant_ack_t *ack, size_t *out_len,
                              r_admin_diag_t *diag) {
    static const char name[] = "tenant_ack";
    if (ack == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    if (!known_operation(ack->operation)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_OPERATION, "%s: operation 0x%02X unknown", name,
                             (unsigned)ack->operation);
    }
    if (ack->status != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ACK_STATUS, "%s: status must be SUCCESS 0x00", name);
    }
    int rc = rl_admin_check_room(buf, cap, R_ADMIN_TENANT_ACK_SIZE, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    memset(buf, 0, R_ADMIN_TENANT_ACK_SIZE);
    rl_store_u16(buf, R_ADMIN_PDU_TENANT_ACK);
    rl_store_u16(buf + 2, R_ADMIN_TENANT_ACK_SIZE);
    buf[4] = ack->operation;
    buf[5] = 0;
    *out_len = R_ADMIN_TENANT_ACK_SIZE;
    return rl_admin_ok(diag);
}

int r_admin_decode_tenant_ack(const uint8_t *pdu, size_t len, r_admin_tenant_ack_t *out, r_admin_diag_t *diag) {
    static const char name[] = "tenant_ack";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_TENANT_ACK, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (len != R_ADMIN_TENANT_ACK_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE, "%s: pdu_size %zu, must be 12", name, len);
    }
    if (!known_operation(pdu[4])) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_OPERATION, "%s: operation 0x%02X unknown", name,
                             (unsigned)pdu[4]);
    }
    if (pdu[5] != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_ACK_STATUS,
                             "%s: status 0x%02X, only SUCCESS 0x00 is sent", name, (unsigned)pdu[5]);
    }
    static const char *const fields[] = {"first reserved", "second reserved", "padding"};
    for (size_t i = 0; i < 3; i++) {
        if (rl_load_u16(pdu + 6 + 2 * i) != 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: %s field (offset %zu) not zero",
                                 name, fields[i], 6 + 2 * i);
        }
    }
    out->operation = pdu[4];
    out->status = pdu[5];
    return rl_admin_ok(diag);
}
