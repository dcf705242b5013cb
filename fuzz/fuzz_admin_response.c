/* SPDX-License-Identifier: MIT */
/* fuzz_admin_response.c - the client's administrative response parsers, one
 * harness per kind (FUZZ_ADMIN_KIND: 1 tenant ack, 2 status response, 3
 * metrics response): r_admin_decode_tenant_ack / _status_response /
 * _metrics_response, the record accessors, r_admin_status_get, r_admin_open
 * and r_admin_check_* (wire_protocol.md "Tenant Acknowledgment PDU", "Status
 * Response PDU", "Metrics Response PDU"). Modes: fuzz_admin_common.h. */
#include "fuzz_admin_common.h"

#ifndef FUZZ_ADMIN_KIND
#define FUZZ_ADMIN_KIND 1
#endif

#define MAX_RECORDS 64 /* 1128 / 36 label records at most, with room */

/* Decode pdu as this harness's kind; on success re-encode (mode 0 only) and
 * compare. Returns rc; *reason the diag reason. */
static int decode_kind(const uint8_t *pdu, size_t len, bool round_trip, r_admin_reason_t *reason) {
    r_admin_diag_t d;
    memset(&d, 0, sizeof d);
    uint8_t buf[R_ADMIN_MAX_PDU];
    size_t n = 0;
    int rc;
#if FUZZ_ADMIN_KIND == 1
    r_admin_tenant_ack_t out, before;
    memset(&out, 0x5A, sizeof out);
    memcpy(&before, &out, sizeof before);
    rc = r_admin_decode_tenant_ack(pdu, len, &out, &d);
    if (rc == RCLIENT_OK && round_trip) {
        FUZZ_CHECK(out.status == 0);
        FUZZ_CHECK(r_admin_encode_tenant_ack(buf, sizeof buf, &out, &n, NULL) == RCLIENT_OK);
        FUZZ_CHECK(n == len && memcmp(buf, pdu, len) == 0);
    }
#elif FUZZ_ADMIN_KIND == 2
    r_admin_status_response_t out, before;
    memset(&out, 0x5A, sizeof out);
    memcpy(&before, &out, sizeof before);
    rc = r_admin_decode_status_response(pdu, len, &out, &d);
    if (rc == RCLIENT_OK) {
        for (int f = 0; f < R_STATUS_FIELD_COUNT; f++) {
            uint64_t v = 1;
            int known = r_admin_status_get(&out, (r_status_field_t)f, &v);
            FUZZ_CHECK(known == 0 || known == 1);
            if (known == 0) {
                FUZZ_CHECK(v == 0);
            }
            if (f < 8 && (out.status_flags & (1u << f)) == 0) {
                FUZZ_CHECK(known == 0); /* the validity-bit rule */
            }
        }
        bool undefined = (out.status_flags & ~R_STATUS_FLAGS_DEFINED) != 0 ||
                         (out.health_flags & ~R_HEALTH_FLAGS_DEFINED) != 0;
        if (round_trip && !undefined) {
            FUZZ_CHECK(r_admin_encode_status_response(buf, sizeof buf, &out, &n, NULL) == RCLIENT_OK);
            FUZZ_CHECK(n == len && memcmp(buf, pdu, len) == 0);
        }
    }
#else
    r_admin_metrics_response_t out, before;
    memset(&out, 0x5A, sizeof out);
    memcpy(&before, &out, sizeof before);
    rc = r_admin_decode_metrics_response(pdu, len, &out, &d);
    if (rc == RCLIENT_OK) {
        static r_metrics_label_record_t labels[MAX_RECORDS];
        static r_metrics_service_record_t services[MAX_RECORDS];
        size_t total = 0;
        FUZZ_CHECK(out.record_count <= MAX_RECORDS || len > R_ADMIN_MAX_PDU);
        FUZZ_CHECK(out.next_cursor_len == 0 || out.page_kind == R_PAGE_MORE);
        for (size_t i = 0; i < out.record_count && i < MAX_RECORDS; i++) {
            if (out.metric_family == R_METRICS_TENANT_LABEL_COUNTERS) {
                FUZZ_CHECK(r_admin_metrics_label_at(&out, i, &labels[i]) == RCLIENT_OK);
                FUZZ_CHECK(labels[i].label >= pdu && labels[i].label + labels[i].label_len <= pdu + len);
                total += r_admin_metrics_label_record_size(labels[i].label_len);
            } else if (out.metric_family == R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS) {
                FUZZ_CHECK(r_admin_metrics_service_at(&out, i, &services[i]) == RCLIENT_OK);
                total += R_ADMIN_METRICS_SERVICE_RECORD_SIZE;
            } else {
                total += R_ADMIN_METRICS_SUMMARY_RECORD_SIZE;
            }
        }
        FUZZ_CHECK(out.record_count == 0 || out.record_count > MAX_RECORDS || total == out.records_len);
        if (round_trip && len <= R_ADMIN_MAX_PDU) {
            r_admin_metrics_response_t e = out;
            e.labels = labels;
            e.services = services;
            FUZZ_CHECK(r_admin_encode_metrics_response(buf, sizeof buf, &e, &n, NULL) == RCLIENT_OK);
            FUZZ_CHECK(n == len && memcmp(buf, pdu, len) == 0);
        }
    }
#endif
    if (rc != RCLIENT_OK) {
        fuzz_admin_rejected(rc, &d);
        FUZZ_CHECK(memcmp(&out, &before, sizeof out) == 0);
    } else {
        FUZZ_CHECK(d.reason == R_ADMIN_OK);
    }
    *reason = d.reason;
    return rc;
}

/* The whole-datagram check of this kind; echo: the request's operation / family. */
static int check_kind(r_admin_key_t *k, uint8_t *dgram, size_t len, uint8_t echo, r_admin_diag_t *d) {
    r_admin_header_t h;
#if FUZZ_ADMIN_KIND == 1
    r_admin_tenant_ack_t out;
    return r_admin_check_tenant_ack(k, dgram, len, FUZZ_UNIQUE_ID, echo, 0, &h, &out, d);
#elif FUZZ_ADMIN_KIND == 2
    (void)echo;
    r_admin_status_response_t out;
    return r_admin_check_status_response(k, dgram, len, FUZZ_UNIQUE_ID, 0, &h, &out, d);
#else
    r_admin_metrics_response_t out;
    return r_admin_check_metrics_response(k, dgram, len, FUZZ_UNIQUE_ID, echo, 0, &h, &out, d);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) {
        return 0;
    }
    unsigned mode = data[0] % 3u;
    size_t len = size - 1;
    uint8_t *p = fuzz_dup(data + 1, len);
    r_admin_reason_t reason;
    if (mode == 0) {
        (void)decode_kind(p, len, true, &reason);
    } else if (mode == 1 && len >= 8 && len <= R_ADMIN_MAX_PDU) {
        r_admin_key_t *k = fuzz_admin_key();
        int plain_rc = decode_kind(p, len, false, &reason);
        /* The header server_id the status response must repeat in its field. */
        uint64_t server = FUZZ_ADMIN_SERVER;
#if FUZZ_ADMIN_KIND == 2
        if (len >= 20) {
            server = 0;
            for (int i = 7; i >= 0; i--) server = (server << 8) | p[12 + i];
        }
#endif
        uint8_t d[R_CLIENT_MAX_DATAGRAM];
        size_t n = fuzz_admin_seal(k, server, p, len, d);
        r_admin_diag_t diag;
        memset(&diag, 0, sizeof diag);
        uint8_t echo = p[4];
        int rc = check_kind(k, d, n, echo, &diag);
        uint16_t size_field = fuzz_le16(p + 2);
        if (size_field != len) {
            FUZZ_CHECK(rc == RCLIENT_ERR_PROTOCOL && diag.reason == R_ADMIN_ERR_PDU_SIZE);
        } else {
            FUZZ_CHECK(memcmp(d + R_ADMIN_FRAME_OVERHEAD, p, len) == 0); /* decrypted in place */
            if (plain_rc == RCLIENT_OK) {
                FUZZ_CHECK(rc == RCLIENT_OK);
            } else if (reason != R_ADMIN_ERR_PDU_TYPE) {
                FUZZ_CHECK(rc == plain_rc && diag.reason == reason);
            } else {
                FUZZ_CHECK(diag.reason == R_ADMIN_ERR_PDU_TYPE);
            }
        }
        r_admin_key_destroy(k);
    } else if (mode == 2) {
        r_admin_key_t *k = fuzz_admin_key();
        r_admin_diag_t diag;
        memset(&diag, 0, sizeof diag);
        /* The echo the request would carry: the plaintext's own byte 4
         * (operation / family), read from an opened copy. */
        uint8_t echo = 0;
        uint8_t *copy = fuzz_dup(p, len);
        uint8_t *pdu = NULL;
        size_t pdu_len = 0;
        if (r_admin_open(k, copy, len, NULL, &pdu, &pdu_len, NULL) == RCLIENT_OK) {
            echo = pdu[4];
        }
        free(copy);
        int rc = check_kind(k, p, len, echo, &diag);
        if (rc == RCLIENT_OK) {
            FUZZ_CHECK(len >= R_ADMIN_FRAME_OVERHEAD + 8);
            FUZZ_CHECK(decode_kind(p + R_ADMIN_FRAME_OVERHEAD, len - R_ADMIN_FRAME_OVERHEAD, true, &reason) ==
                       RCLIENT_OK);
        } else {
            fuzz_admin_rejected(rc, &diag);
        }
        r_admin_key_destroy(k);
    }
    free(p);
    return 0;
}
