/* SPDX-License-Identifier: MIT */
/* metrics_query.c - Metrics Query 0x514D codec (wire_protocol.md "Metrics
 * Query PDU", "Query Variants").
 *   0 pdu_type | 2 pdu_size | 4 metric_family | 5 query_kind | 6 reserved (0)
 *   FROM_CURSOR: 8 cursor_len u16 | 10 reserved u16 (0) | 12 cursor | zero padding to 4 */
#include <string.h>

#include "rl_admin.h"
#include "rl_le.h"

static int known_family(unsigned f) {
    return f >= R_METRICS_TENANT_SUMMARY && f <= R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS;
}

/* Summary: only SUMMARY_CURRENT; the paged families: FROM_START, FROM_CURSOR. */
static int known_query_kind(unsigned family, unsigned kind) {
    return family == R_METRICS_TENANT_SUMMARY ? kind == R_METRICS_QUERY_FROM_START
                                              : kind <= R_METRICS_QUERY_FROM_CURSOR;
}

int r_admin_encode_metrics_query(uint8_t *buf, size_t cap, const r_admin_metrics_query_t *q, size_t *out_len,
                                 r_admin_diag_t *diag) {
    static const char name[] = "metrics_query";
    if (q == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    if (!known_family(q->metric_family)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_FAMILY, "%s: metric_family 0x%02X unknown", name,
                             (unsigned)q->metric_family);
    }
    if (!known_query_kind(q->metric_family, q->query_kind)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_QUERY_KIND,
                             "%s: query_kind 0x%02X unknown for family 0x%02X", name, (unsigned)q->query_kind,
                             (unsigned)q->metric_family);
    }
    size_t need = 8;
    if (q->query_kind == R_METRICS_QUERY_FROM_CURSOR) {
        if (q->cursor_len == 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_EMPTY_CURSOR, "%s: FROM_CURSOR with no cursor",
                                 name);
        }
        if (q->cursor == NULL) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL cursor", name);
        }
        if (q->cursor_len > R_ADMIN_MAX_CURSOR) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                                 "%s: cursor of %zu bytes does not fit one datagram", name, q->cursor_len);
        }
        need = 12 + q->cursor_len + rl_admin_pad4(q->cursor_len);
    } else if (q->cursor_len != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: a cursor only goes with FROM_CURSOR",
                             name);
    }
    int rc = rl_admin_check_room(buf, cap, need, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    memset(buf, 0, need);
    rl_store_u16(buf, R_ADMIN_PDU_METRICS_QUERY);
    rl_store_u16(buf + 2, (uint16_t)need);
    buf[4] = q->metric_family;
    buf[5] = q->query_kind;
    if (q->query_kind == R_METRICS_QUERY_FROM_CURSOR) {
        rl_store_u16(buf + 8, (uint16_t)q->cursor_len);
        memcpy(buf + 12, q->cursor, q->cursor_len);
    }
    *out_len = need;
    return rl_admin_ok(diag);
}

int r_admin_decode_metrics_query(const uint8_t *pdu, size_t len, r_admin_metrics_query_t *out, r_admin_diag_t *diag) {
    static const char name[] = "metrics_query";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_METRICS_QUERY, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    unsigned family = pdu[4];
    unsigned kind = pdu[5];
    if (!known_family(family)) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_FAMILY, "%s: metric_family 0x%02X unknown", name,
                             family);
    }
    if (!known_query_kind(family, kind)) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_QUERY_KIND,
                             "%s: query_kind 0x%02X unknown for family 0x%02X", name, kind, family);
    }
    if (rl_load_u16(pdu + 6) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: reserved field not zero", name);
    }
    r_admin_metrics_query_t q;
    memset(&q, 0, sizeof q);
    q.metric_family = (uint8_t)family;
    q.query_kind = (uint8_t)kind;
    if (kind != R_METRICS_QUERY_FROM_CURSOR) {
        if (len != 8) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                                 "%s: pdu_size %zu, a query without cursor is 8 bytes", name, len);
        }
        *out = q;
        return rl_admin_ok(diag);
    }
    if (len < 12) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                             "%s: pdu_size %zu, FROM_CURSOR needs cursor_len and reserved", name, len);
    }
    q.cursor_len = rl_load_u16(pdu + 8);
    if (rl_load_u16(pdu + 10) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: cursor reserved field not zero",
                             name);
    }
    if (q.cursor_len == 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_EMPTY_CURSOR, "%s: cursor_len 0", name);
    }
    if (q.cursor_len > len - 12) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                             "%s: cursor_len %zu runs past the PDU", name, q.cursor_len);
    }
    size_t pad = rl_admin_pad4(q.cursor_len);
    if (len != 12 + q.cursor_len + pad) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                             "%s: pdu_size %zu, want %zu for cursor_len %zu padded to 4", name, len,
                             12 + q.cursor_len + pad, q.cursor_len);
    }
    if (!rl_admin_all_zero(pdu + 12 + q.cursor_len, pad)) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: cursor_padding not zero", name);
    }
    q.cursor = pdu + 12;
    *out = q;
    return rl_admin_ok(diag);
}
