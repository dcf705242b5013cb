/* SPDX-License-Identifier: MIT */
/* frame.c - the administrative frame: Tenant TLV with tenant_mgmt_flag = 1,
 * AES-256-GCM Auth TLV, the PDU encrypted under the administrative key
 * (wire_protocol.md "Tenant Header", "Administrative Authentication",
 * "AES-256-GCM Normative Framing", "rl-secret").
 *
 * The key is an rl_auth_t in AES mode (auth.c): contexts made once, the key
 * cleansed on destroy. */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_admin.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_le.h"
#include "rl_wire.h"

struct r_admin_key {
    rl_auth_t auth;
};

int r_admin_key_create_raw(const uint8_t key[R_CLIENT_SECRET_LEN], r_admin_key_t **out) {
    if (key == NULL || out == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_admin_key_t *k = calloc(1, sizeof *k);
    if (k == NULL) {
        return RCLIENT_ERR_NOMEM;
    }
    int rc = rl_auth_init(&k->auth, R_AUTH_AES, key);
    if (rc != RCLIENT_OK) {
        free(k);
        return rc;
    }
    *out = k;
    return RCLIENT_OK;
}

int r_admin_key_create(const char *rl_secret, size_t text_len, r_admin_key_t **out, r_key_diag_t *key_diag) {
    if (rl_secret == NULL || out == NULL) {
        rl_key_diag_set(key_diag, R_KEY_ERR_ARGUMENT, "NULL argument");
        return RCLIENT_ERR_CONFIG;
    }
    uint8_t secret[R_CLIENT_SECRET_LEN];
    size_t n = text_len != 0 ? text_len : strlen(rl_secret);
    int rc = rl_credential_parse_secret(rl_secret, n, secret, key_diag);
    if (rc == RCLIENT_OK) {
        rc = r_admin_key_create_raw(secret, out);
        if (key_diag != NULL && rc == RCLIENT_OK) {
            key_diag->reason = R_KEY_OK;
            key_diag->message[0] = '\0';
        }
    }
    OPENSSL_cleanse(secret, sizeof secret);
    return rc;
}

void r_admin_key_destroy(r_admin_key_t *key) {
    if (key == NULL) {
        return;
    }
    rl_auth_release(&key->auth);
    OPENSSL_cleanse(key, sizeof *key);
    free(key);
}

int r_admin_seal(r_admin_key_t *key, const r_admin_header_t *hdr, const uint8_t nonce[R_ADMIN_NONCE_LEN],
                 const uint8_t *pdu, size_t pdu_len, uint8_t *out, size_t cap, size_t *out_len, r_admin_diag_t *diag) {
    if (key == NULL || hdr == NULL || nonce == NULL || pdu == NULL || out == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin frame: NULL argument");
    }
    if (hdr->steering_feedback > 1u) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_STEERING, "admin frame: steering_feedback %u above 1",
                             (unsigned)hdr->steering_feedback);
    }
    if (pdu_len < RL_PDU_HDR_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_TRUNCATED, "admin frame: PDU of %zu bytes, below 8",
                             pdu_len);
    }
    if (pdu_len > R_ADMIN_MAX_PDU) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                             "admin frame: %zu + 72 bytes exceed one 1200-byte datagram", pdu_len);
    }
    size_t total = R_ADMIN_FRAME_OVERHEAD + pdu_len;
    if (cap < total) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_BUFFER, "admin frame: needs %zu bytes, buffer has %zu",
                             total, cap);
    }
    memset(out, 0, R_ADMIN_FRAME_OVERHEAD);
    rl_store_u16(out, RL_TLV_TENANT);
    rl_store_u16(out + 2, RL_TENANT_TLV_SIZE);
    rl_store_u64(out + RL_TENANT_OFF_KEY_ID, hdr->key_id);
    memcpy(out + RL_TENANT_OFF_UNIQUE_ID, hdr->unique_id, R_CLIENT_ID_LEN);
    rl_store_u64(out + RL_TENANT_OFF_TIME_STAMP, hdr->time_stamp_ms);
    out[RL_TENANT_OFF_STEERING] = hdr->steering_feedback;
    out[RL_TENANT_OFF_MGMT] = 1;
    rl_store_u16(out + RL_TENANT_TLV_SIZE, RL_TLV_AUTH_AES);
    rl_store_u16(out + RL_TENANT_TLV_SIZE + 2, RL_AUTH_AES_TLV_SIZE);
    memmove(out + R_ADMIN_FRAME_OVERHEAD, pdu, pdu_len);
    if (rl_auth_seal(&key->auth, out, total, nonce) != RCLIENT_OK) {
        OPENSSL_cleanse(out, total);
        return rl_admin_fail(diag, RCLIENT_ERR_AUTH, R_ADMIN_ERR_CRYPTO, "admin frame: AES-256-GCM sealing failed");
    }
    *out_len = total;
    return rl_admin_ok(diag);
}

/* Tenant TLV framing of an admin datagram (no key needed). */
static int check_tenant(const uint8_t *d, size_t len, r_admin_diag_t *diag) {
    if (len < RL_TENANT_TLV_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TRUNCATED,
                             "admin frame: %zu bytes, below the 40-byte Tenant TLV", len);
    }
    if (len > R_CLIENT_MAX_DATAGRAM) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                             "admin frame: %zu bytes, over the 1200-byte datagram", len);
    }
    if (rl_load_u16(d) != RL_TLV_TENANT) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TENANT_TLV_TYPE,
                             "admin frame: first TLV type 0x%04X is not the Tenant TLV 0x4C52", (unsigned)rl_load_u16(d));
    }
    if (rl_load_u16(d + 2) != RL_TENANT_TLV_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TENANT_TLV_SIZE,
                             "admin frame: tenant tlv_size %u is not 40", (unsigned)rl_load_u16(d + 2));
    }
    if (rl_load_u16(d + RL_TENANT_OFF_PADDING) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TENANT_PADDING,
                             "admin frame: tenant padding is not zero");
    }
    if (d[RL_TENANT_OFF_STEERING] > 1u) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_STEERING,
                             "admin frame: steering_feedback %u is not 0 or 1", (unsigned)d[RL_TENANT_OFF_STEERING]);
    }
    if (d[RL_TENANT_OFF_MGMT] != 1u) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_MGMT_FLAG,
                             "admin frame: tenant_mgmt_flag %u, administrative PDUs carry 1",
                             (unsigned)d[RL_TENANT_OFF_MGMT]);
    }
    return RCLIENT_OK;
}

int r_admin_peek_unique_id(const uint8_t *dgram, size_t len, uint8_t out_unique_id[R_CLIENT_ID_LEN],
                           r_admin_diag_t *diag) {
    if (dgram == NULL || out_unique_id == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin frame: NULL argument");
    }
    int rc = check_tenant(dgram, len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    memcpy(out_unique_id, dgram + RL_TENANT_OFF_UNIQUE_ID, R_CLIENT_ID_LEN);
    return rl_admin_ok(diag);
}

int r_admin_open(r_admin_key_t *key, uint8_t *dgram, size_t len, r_admin_header_t *out_hdr, uint8_t **out_pdu,
                 size_t *out_pdu_len, r_admin_diag_t *diag) {
    if (key == NULL || dgram == NULL || out_pdu == NULL || out_pdu_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "admin frame: NULL argument");
    }
    int rc = check_tenant(dgram, len, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (len < RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TRUNCATED, "admin frame: no auth TLV header");
    }
    /* Framing before authentication (vector class order: malformed, then
     * auth): the auth TLV's size must fit and match its type, and a PDU
     * header must follow; only then is a non-AES type an auth failure. */
    const uint8_t *a = dgram + RL_TENANT_TLV_SIZE;
    uint16_t a_type = rl_load_u16(a);
    size_t a_size = rl_load_u16(a + 2);
    size_t known = a_type == RL_TLV_AUTH_AES      ? RL_AUTH_AES_TLV_SIZE
                   : a_type == RL_TLV_AUTH_NONE   ? RL_AUTH_NONE_TLV_SIZE
                   : a_type == RL_TLV_AUTH_COOKIE ? RL_AUTH_COOKIE_TLV_SIZE
                                                  : 0;
    if (a_size < RL_TLV_HDR_SIZE || (known != 0 && a_size != known) || a_size > len - RL_TENANT_TLV_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_AUTH_TLV_SIZE,
                             "admin frame: auth tlv_size %zu out of range or wrong for type 0x%04X", a_size,
                             (unsigned)a_type);
    }
    if (len - RL_TENANT_TLV_SIZE - a_size < RL_PDU_HDR_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TRUNCATED,
                             "admin frame: %zu bytes, no room for an 8-byte PDU after the auth TLV", len);
    }
    if (a_type != RL_TLV_AUTH_AES) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_AUTH_TLV_TYPE,
                             "admin frame: auth TLV type 0x%04X, administrative PDUs use AES-256-GCM 0x4541",
                             (unsigned)a_type);
    }
    if (rl_auth_open(&key->auth, dgram, len, NULL) != RCLIENT_OK) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TAG,
                             "admin frame: AES-GCM tag does not verify under the administrative key");
    }
    uint8_t *pdu = dgram + R_ADMIN_FRAME_OVERHEAD;
    size_t pdu_len = len - R_ADMIN_FRAME_OVERHEAD;
    size_t pdu_size = rl_load_u16(pdu + 2);
    if (pdu_size != pdu_len) {
        OPENSSL_cleanse(pdu, pdu_len);
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                             "admin frame: pdu_size %zu, but %zu PDU bytes", pdu_size, pdu_len);
    }
    if (out_hdr != NULL) {
        out_hdr->key_id = rl_load_u64(dgram + RL_TENANT_OFF_KEY_ID);
        memcpy(out_hdr->unique_id, dgram + RL_TENANT_OFF_UNIQUE_ID, R_CLIENT_ID_LEN);
        out_hdr->time_stamp_ms = rl_load_u64(dgram + RL_TENANT_OFF_TIME_STAMP);
        out_hdr->steering_feedback = dgram[RL_TENANT_OFF_STEERING];
    }
    *out_pdu = pdu;
    *out_pdu_len = pdu_len;
    return rl_admin_ok(diag);
}
