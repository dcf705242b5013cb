/* SPDX-License-Identifier: MIT */
/* diag.c - administrative diagnostics: reason names and the shared header
 * and room checks of the PDU codec (r_admin.h "Diagnostics"). */
#include <stdarg.h>
#include <stdio.h>

#include "rl_admin.h"
#include "rl_le.h"

int rl_admin_fail(r_admin_diag_t *diag, int rc, r_admin_reason_t reason, const char *fmt, ...) {
    if (diag != NULL) {
        diag->reason = reason;
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(diag->message, sizeof diag->message, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int rl_admin_ok(r_admin_diag_t *diag) {
    if (diag != NULL) {
        diag->reason = R_ADMIN_OK;
        diag->message[0] = '\0';
    }
    return RCLIENT_OK;
}

int rl_admin_all_zero(const uint8_t *p, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= p[i];
    }
    return acc == 0;
}

int rl_admin_check_header(const uint8_t *pdu, size_t len, uint16_t want, const char *name, r_admin_diag_t *diag) {
    if (len < 8u) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TRUNCATED, "%s: %zu bytes, below the 8-byte PDU header",
                             name, len);
    }
    uint16_t type = rl_load_u16(pdu);
    if (type != want) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_TYPE, "%s: pdu_type 0x%04X, want 0x%04X", name,
                             (unsigned)type, (unsigned)want);
    }
    size_t size = rl_load_u16(pdu + 2);
    if (size != len) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE, "%s: pdu_size %zu, but %zu PDU bytes", name,
                             size, len);
    }
    return RCLIENT_OK;
}

int rl_admin_check_room(const uint8_t *buf, size_t cap, size_t need, const char *name, r_admin_diag_t *diag) {
    if (buf == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL buffer", name);
    }
    if (need > R_ADMIN_MAX_PDU) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                             "%s: %zu bytes, over the %u-byte PDU budget of one datagram", name, need,
                             (unsigned)R_ADMIN_MAX_PDU);
    }
    if (need > cap) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_BUFFER, "%s: needs %zu bytes, buffer has %zu", name,
                             need, cap);
    }
    return RCLIENT_OK;
}

static const char *const REASON_NAMES[] = {
    [R_ADMIN_OK] = "R_ADMIN_OK",
    [R_ADMIN_ERR_ARGUMENT] = "R_ADMIN_ERR_ARGUMENT",
    [R_ADMIN_ERR_BUFFER] = "R_ADMIN_ERR_BUFFER",
    [R_ADMIN_ERR_TOO_LARGE] = "R_ADMIN_ERR_TOO_LARGE",
    [R_ADMIN_ERR_TRUNCATED] = "R_ADMIN_ERR_TRUNCATED",
    [R_ADMIN_ERR_TENANT_TLV_TYPE] = "R_ADMIN_ERR_TENANT_TLV_TYPE",
    [R_ADMIN_ERR_TENANT_TLV_SIZE] = "R_ADMIN_ERR_TENANT_TLV_SIZE",
    [R_ADMIN_ERR_TENANT_PADDING] = "R_ADMIN_ERR_TENANT_PADDING",
    [R_ADMIN_ERR_STEERING] = "R_ADMIN_ERR_STEERING",
    [R_ADMIN_ERR_MGMT_FLAG] = "R_ADMIN_ERR_MGMT_FLAG",
    [R_ADMIN_ERR_AUTH_TLV_TYPE] = "R_ADMIN_ERR_AUTH_TLV_TYPE",
    [R_ADMIN_ERR_AUTH_TLV_SIZE] = "R_ADMIN_ERR_AUTH_TLV_SIZE",
    [R_ADMIN_ERR_TAG] = "R_ADMIN_ERR_TAG",
    [R_ADMIN_ERR_PDU_TYPE] = "R_ADMIN_ERR_PDU_TYPE",
    [R_ADMIN_ERR_PDU_SIZE] = "R_ADMIN_ERR_PDU_SIZE",
    [R_ADMIN_ERR_RESERVED] = "R_ADMIN_ERR_RESERVED",
    [R_ADMIN_ERR_FLAGS] = "R_ADMIN_ERR_FLAGS",
    [R_ADMIN_ERR_OPERATION] = "R_ADMIN_ERR_OPERATION",
    [R_ADMIN_ERR_LENGTH_FIELD] = "R_ADMIN_ERR_LENGTH_FIELD",
    [R_ADMIN_ERR_ACK_STATUS] = "R_ADMIN_ERR_ACK_STATUS",
    [R_ADMIN_ERR_SCHEMA_VERSION] = "R_ADMIN_ERR_SCHEMA_VERSION",
    [R_ADMIN_ERR_QUERY_KIND] = "R_ADMIN_ERR_QUERY_KIND",
    [R_ADMIN_ERR_RECORD_LEN] = "R_ADMIN_ERR_RECORD_LEN",
    [R_ADMIN_ERR_FAMILY] = "R_ADMIN_ERR_FAMILY",
    [R_ADMIN_ERR_PAGE_KIND] = "R_ADMIN_ERR_PAGE_KIND",
    [R_ADMIN_ERR_RECORD_SIZE] = "R_ADMIN_ERR_RECORD_SIZE",
    [R_ADMIN_ERR_NO_RECORDS] = "R_ADMIN_ERR_NO_RECORDS",
    [R_ADMIN_ERR_EMPTY_CURSOR] = "R_ADMIN_ERR_EMPTY_CURSOR",
    [R_ADMIN_ERR_FLAG_BITS] = "R_ADMIN_ERR_FLAG_BITS",
    [R_ADMIN_ERR_CREDENTIAL] = "R_ADMIN_ERR_CREDENTIAL",
    [R_ADMIN_ERR_KEY_ID_MISMATCH] = "R_ADMIN_ERR_KEY_ID_MISMATCH",
    [R_ADMIN_ERR_UNIQUE_ID] = "R_ADMIN_ERR_UNIQUE_ID",
    [R_ADMIN_ERR_SERVER_ID] = "R_ADMIN_ERR_SERVER_ID",
    [R_ADMIN_ERR_ACK_OPERATION] = "R_ADMIN_ERR_ACK_OPERATION",
    [R_ADMIN_ERR_FAMILY_ECHO] = "R_ADMIN_ERR_FAMILY_ECHO",
    [R_ADMIN_ERR_STATE] = "R_ADMIN_ERR_STATE",
    [R_ADMIN_ERR_CRYPTO] = "R_ADMIN_ERR_CRYPTO",
    [R_ADMIN_ERR_NOMEM] = "R_ADMIN_ERR_NOMEM",
    [R_ADMIN_ERR_SEND] = "R_ADMIN_ERR_SEND",
};

const char *r_admin_reason_name(r_admin_reason_t reason) {
    size_t i = (size_t)reason;
    if (i < sizeof REASON_NAMES / sizeof REASON_NAMES[0] && REASON_NAMES[i] != NULL) {
        return REASON_NAMES[i];
    }
    return "R_ADMIN_ERR_UNKNOWN";
}
