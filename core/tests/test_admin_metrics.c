/* SPDX-License-Identifier: MIT */
/* Unit tests for the Metrics Query 0x514D and Metrics Response 0x524D codec
 * (wire_protocol.md "Metrics Query PDU", "Query Variants", "Metrics Response
 * PDU", "Response Variants", "Metrics Record Formats"), including the four
 * "Metrics PDU Examples" decoded exactly as printed there. Bytes are written
 * by hand from the spec. */
#include "admin_test_util.h"

#define U64(v) (uint8_t)(v), 0, 0, 0, 0, 0, 0, 0

/* ---- the four examples of wire_protocol.md "Metrics PDU Examples" ---- */
static const uint8_t EX1_MQ[8] = {0x4d, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};
static const uint8_t EX1_MR[48] = {0x4d, 0x52, 0x30, 0x00, 0x01, 0x00, 0x00, 0x00, U64(0x64),
                                   U64(0x03),  U64(0x01), U64(0x00), U64(0x09)};
static const uint8_t EX2_MQ[8] = {0x4d, 0x51, 0x08, 0x00, 0x02, 0x00, 0x00, 0x00};
static const uint8_t EX2_MR[92] = {
    0x4d, 0x52, 0x5c, 0x00, 0x02, 0x00, 0x00, 0x00,                   /* MR, 92, labels, PAGE_MORE */
    0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef,                   /* next_cursor_len 4, cursor */
    U64(8), U64(1), U64(0), U64(0), 0x00, 0x00, 0x00, 0x00,           /* record 1: label "" */
    U64(50), U64(2), U64(1), U64(0), 0x03, 0x00, 0x00, 0x00, 'a', 'p', 'i', 0x00, /* record 2: "api" */
};
static const uint8_t EX3_MQ[16] = {0x4d, 0x51, 0x10, 0x00, 0x02, 0x01, 0x00, 0x00,
                                   0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef};
static const uint8_t EX3_MR[52] = {
    0x4d, 0x52, 0x34, 0x00, 0x02, 0x01, 0x00, 0x00, /* MR, 52, labels, PAGE_LAST */
    U64(7), U64(4), U64(0), U64(0), 0x08, 0x00, 0x00, 0x00, 'o', 'v', 'e', 'r', 'f', 'l', 'o', 'w',
};
static const uint8_t EX4_MQ[8] = {0x4d, 0x51, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00};
static const uint8_t EX4_MR[8] = {0x4d, 0x52, 0x08, 0x00, 0x03, 0x02, 0x00, 0x00};

static void test_example1_summary(void **state) {
    (void)state;
    r_admin_metrics_query_t q;
    ASSERT_OK(r_admin_decode_metrics_query(EX1_MQ, sizeof EX1_MQ, &q, diag));
    assert_int_equal(q.metric_family, R_METRICS_TENANT_SUMMARY);
    assert_int_equal(q.query_kind, 0x00); /* SUMMARY_CURRENT */
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(EX1_MR, sizeof EX1_MR, &m, diag));
    assert_int_equal(m.metric_family, R_METRICS_TENANT_SUMMARY);
    assert_int_equal(m.page_kind, R_SUMMARY_PAGE);
    assert_int_equal(m.record_count, 1);
    assert_true(m.summary.requests_success == 100);
    assert_true(m.summary.requests_rate_limited == 3);
    assert_true(m.summary.requests_guard_failed == 1);
    assert_true(m.summary.requests_auth_failed == 0);
    assert_true(m.summary.service_latency_reports_total == 9);
    /* and both encode back to the printed bytes */
    uint8_t buf[64];
    size_t n = 0;
    r_admin_metrics_query_t eq = {R_METRICS_TENANT_SUMMARY, 0, NULL, 0};
    ASSERT_OK(r_admin_encode_metrics_query(buf, sizeof buf, &eq, &n, diag));
    assert_int_equal(n, 8);
    assert_memory_equal(buf, EX1_MQ, 8);
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = R_METRICS_TENANT_SUMMARY;
    er.page_kind = R_SUMMARY_PAGE;
    er.record_count = 1;
    er.summary = (r_metrics_summary_record_t){100, 3, 1, 0, 9};
    ASSERT_OK(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag));
    assert_int_equal(n, 48);
    assert_memory_equal(buf, EX1_MR, 48);
}

static void test_example2_labels_first_page(void **state) {
    (void)state;
    r_admin_metrics_query_t q;
    ASSERT_OK(r_admin_decode_metrics_query(EX2_MQ, sizeof EX2_MQ, &q, diag));
    assert_int_equal(q.metric_family, R_METRICS_TENANT_LABEL_COUNTERS);
    assert_int_equal(q.query_kind, R_METRICS_QUERY_FROM_START);
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(EX2_MR, sizeof EX2_MR, &m, diag));
    assert_int_equal(m.page_kind, R_PAGE_MORE);
    assert_int_equal(m.next_cursor_len, 4);
    assert_memory_equal(m.next_cursor, "\xde\xad\xbe\xef", 4);
    assert_int_equal(m.record_count, 2);
    r_metrics_label_record_t r;
    assert_int_equal(r_admin_metrics_label_at(&m, 0, &r), RCLIENT_OK);
    assert_int_equal(r.label_len, 0);
    assert_true(r.requests_success == 8 && r.requests_rate_limited == 1 && r.requests_guard_failed == 0 &&
                r.requests_auth_failed == 0);
    assert_int_equal(r_admin_metrics_label_at(&m, 1, &r), RCLIENT_OK);
    assert_int_equal(r.label_len, 3);
    assert_memory_equal(r.label, "api", 3);
    assert_true(r.requests_success == 50 && r.requests_rate_limited == 2 && r.requests_guard_failed == 1 &&
                r.requests_auth_failed == 0);
    assert_int_equal(r_admin_metrics_label_at(&m, 2, &r), RCLIENT_ERR_CONFIG);
    /* encode back */
    const r_metrics_label_record_t recs[2] = {{8, 1, 0, 0, NULL, 0}, {50, 2, 1, 0, (const uint8_t *)"api", 3}};
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = R_METRICS_TENANT_LABEL_COUNTERS;
    er.page_kind = R_PAGE_MORE;
    er.next_cursor = (const uint8_t *)"\xde\xad\xbe\xef";
    er.next_cursor_len = 4;
    er.labels = recs;
    er.record_count = 2;
    uint8_t buf[128];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag));
    assert_int_equal(n, 92);
    assert_memory_equal(buf, EX2_MR, 92);
}

static void test_example3_labels_resume(void **state) {
    (void)state;
    r_admin_metrics_query_t q;
    ASSERT_OK(r_admin_decode_metrics_query(EX3_MQ, sizeof EX3_MQ, &q, diag));
    assert_int_equal(q.metric_family, R_METRICS_TENANT_LABEL_COUNTERS);
    assert_int_equal(q.query_kind, R_METRICS_QUERY_FROM_CURSOR);
    assert_int_equal(q.cursor_len, 4);
    assert_memory_equal(q.cursor, "\xde\xad\xbe\xef", 4);
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(EX3_MR, sizeof EX3_MR, &m, diag));
    assert_int_equal(m.page_kind, R_PAGE_LAST);
    assert_int_equal(m.record_count, 1);
    r_metrics_label_record_t r;
    assert_int_equal(r_admin_metrics_label_at(&m, 0, &r), RCLIENT_OK);
    assert_true(r.requests_success == 7 && r.requests_rate_limited == 4 && r.requests_guard_failed == 0 &&
                r.requests_auth_failed == 0);
    assert_int_equal(r.label_len, 8);
    assert_memory_equal(r.label, "overflow", 8);
    r_admin_metrics_query_t eq = {R_METRICS_TENANT_LABEL_COUNTERS, 1, (const uint8_t *)"\xde\xad\xbe\xef", 4};
    uint8_t buf[32];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_metrics_query(buf, sizeof buf, &eq, &n, diag));
    assert_int_equal(n, 16);
    assert_memory_equal(buf, EX3_MQ, 16);
}

static void test_example4_services_empty(void **state) {
    (void)state;
    r_admin_metrics_query_t q;
    ASSERT_OK(r_admin_decode_metrics_query(EX4_MQ, sizeof EX4_MQ, &q, diag));
    assert_int_equal(q.metric_family, R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS);
    assert_int_equal(q.query_kind, R_METRICS_QUERY_FROM_START);
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(EX4_MR, sizeof EX4_MR, &m, diag));
    assert_int_equal(m.metric_family, R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS);
    assert_int_equal(m.page_kind, R_PAGE_EMPTY);
    assert_int_equal(m.record_count, 0);
    assert_string_equal(r_admin_metrics_page_kind_name(m.metric_family, m.page_kind), "SERVICES_EMPTY");
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS;
    er.page_kind = R_PAGE_EMPTY;
    uint8_t buf[8];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag));
    assert_int_equal(n, 8);
    assert_memory_equal(buf, EX4_MR, 8);
}

/* ---- metrics query ---- */

static void test_query_cursor_padding(void **state) {
    (void)state;
    /* 5-byte cursor: 12 + 5 + 3 padding = 20 */
    const uint8_t want[20] = {0x4d, 0x51, 0x14, 0x00, 0x03, 0x01, 0x00, 0x00, 0x05, 0x00,
                              0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x00, 0x00};
    r_admin_metrics_query_t q = {R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS, 1, (const uint8_t *)"\1\2\3\4\5", 5};
    uint8_t buf[32];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag));
    assert_int_equal(n, 20);
    assert_memory_equal(buf, want, 20);
    r_admin_metrics_query_t d;
    ASSERT_OK(r_admin_decode_metrics_query(want, sizeof want, &d, diag));
    assert_int_equal(d.cursor_len, 5);
    assert_memory_equal(d.cursor, "\1\2\3\4\5", 5);
}

static void mq_reject(const uint8_t *pdu, size_t len, r_admin_reason_t reason) {
    r_admin_metrics_query_t q;
    ASSERT_REJECT(r_admin_decode_metrics_query(pdu, len, &q, diag), RCLIENT_ERR_PROTOCOL, reason);
}

static void test_query_rejects_reserved(void **state) {
    (void)state;
    uint8_t p[8];
    memcpy(p, EX2_MQ, 8);
    p[6] = 1;
    mq_reject(p, 8, R_ADMIN_ERR_RESERVED);
}
static void test_query_rejects_cursor_reserved(void **state) {
    (void)state;
    uint8_t p[16];
    memcpy(p, EX3_MQ, 16);
    p[11] = 1;
    mq_reject(p, 16, R_ADMIN_ERR_RESERVED);
}
static void test_query_rejects_cursor_padding(void **state) {
    (void)state;
    uint8_t p[20] = {0x4d, 0x51, 0x14, 0x00, 0x02, 0x01, 0x00, 0x00, 0x05, 0x00,
                     0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x01, 0x00};
    mq_reject(p, 20, R_ADMIN_ERR_RESERVED);
}
static void test_query_rejects_cursor_len_zero(void **state) {
    (void)state;
    const uint8_t p[12] = {0x4d, 0x51, 0x0c, 0x00, 0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    mq_reject(p, 12, R_ADMIN_ERR_EMPTY_CURSOR);
}
static void test_query_rejects_cursor_len_overrun(void **state) {
    (void)state;
    uint8_t p[16];
    memcpy(p, EX3_MQ, 16);
    p[8] = 5;
    mq_reject(p, 16, R_ADMIN_ERR_LENGTH_FIELD);
}
static void test_query_rejects_unpadded_cursor(void **state) {
    (void)state;
    /* cursor_len 3 in a 15-byte PDU: the padding byte is missing */
    const uint8_t p[15] = {0x4d, 0x51, 0x0f, 0x00, 0x02, 0x01, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 1, 2, 3};
    mq_reject(p, 15, R_ADMIN_ERR_PDU_SIZE);
}
static void test_query_rejects_summary_from_cursor(void **state) {
    (void)state;
    uint8_t p[16];
    memcpy(p, EX3_MQ, 16);
    p[4] = 0x01;
    mq_reject(p, 16, R_ADMIN_ERR_QUERY_KIND);
}
static void test_query_rejects_unknown_family(void **state) {
    (void)state;
    uint8_t p[8];
    memcpy(p, EX1_MQ, 8);
    p[4] = 0x04;
    mq_reject(p, 8, R_ADMIN_ERR_FAMILY);
}
static void test_query_rejects_from_start_with_data(void **state) {
    (void)state;
    const uint8_t p[12] = {0x4d, 0x51, 0x0c, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00};
    mq_reject(p, 12, R_ADMIN_ERR_PDU_SIZE);
}
static void test_query_rejects_wrong_type(void **state) {
    (void)state;
    mq_reject(EX1_MR, sizeof EX1_MR, R_ADMIN_ERR_PDU_TYPE);
}

static void test_query_encode_rejects_huge_cursor(void **state) {
    (void)state;
    static uint8_t cursor[R_ADMIN_MAX_CURSOR + 1];
    r_admin_metrics_query_t q = {R_METRICS_TENANT_LABEL_COUNTERS, 1, cursor, sizeof cursor};
    uint8_t buf[1300];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_TOO_LARGE);
    q.cursor_len = R_ADMIN_MAX_CURSOR; /* the largest that fits: 12 + 1116 = 1128 */
    ASSERT_OK(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag));
    assert_int_equal(n, R_ADMIN_MAX_PDU);
}

static void test_query_encode_rejects(void **state) {
    (void)state;
    uint8_t buf[64];
    size_t n = 0;
    r_admin_metrics_query_t q = {0x04, 0, NULL, 0};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_FAMILY);
    q = (r_admin_metrics_query_t){R_METRICS_TENANT_LABEL_COUNTERS, 2, NULL, 0};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_QUERY_KIND);
    q = (r_admin_metrics_query_t){R_METRICS_TENANT_LABEL_COUNTERS, 1, NULL, 4};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
    q = (r_admin_metrics_query_t){R_METRICS_TENANT_LABEL_COUNTERS, 1, (const uint8_t *)"x", 0};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_EMPTY_CURSOR);
    q = (r_admin_metrics_query_t){R_METRICS_TENANT_LABEL_COUNTERS, 0, (const uint8_t *)"x", 1};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
    q = (r_admin_metrics_query_t){R_METRICS_TENANT_LABEL_COUNTERS, 1, (const uint8_t *)"abcde", 5};
    ASSERT_REJECT(r_admin_encode_metrics_query(buf, 19, &q, &n, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_BUFFER);
}

/* ---- metrics response ---- */

static void mr_reject(const uint8_t *pdu, size_t len, r_admin_reason_t reason) {
    r_admin_metrics_response_t m;
    ASSERT_REJECT(r_admin_decode_metrics_response(pdu, len, &m, diag), RCLIENT_ERR_PROTOCOL, reason);
}

static void test_response_rejects_header_reserved(void **state) {
    (void)state;
    uint8_t p[92];
    memcpy(p, EX2_MR, 92);
    p[7] = 1;
    mr_reject(p, 92, R_ADMIN_ERR_RESERVED);
}
static void test_response_rejects_cursor_reserved(void **state) {
    (void)state;
    uint8_t p[92];
    memcpy(p, EX2_MR, 92);
    p[10] = 1;
    mr_reject(p, 92, R_ADMIN_ERR_RESERVED);
}
static void test_response_rejects_label_record_padding(void **state) {
    (void)state;
    uint8_t p[92];
    memcpy(p, EX2_MR, 92);
    p[16 + 34] = 1; /* record 1 padding after label_len */
    mr_reject(p, 92, R_ADMIN_ERR_RESERVED);
}
static void test_response_rejects_label_padding(void **state) {
    (void)state;
    uint8_t p[92];
    memcpy(p, EX2_MR, 92);
    p[91] = 'x'; /* label_padding after "api" */
    mr_reject(p, 92, R_ADMIN_ERR_RESERVED);
}
static void test_response_rejects_label_len_overrun(void **state) {
    (void)state;
    uint8_t p[52];
    memcpy(p, EX3_MR, 52);
    p[8 + 32] = 9; /* 9 + 3 padding > 8 bytes present */
    mr_reject(p, 52, R_ADMIN_ERR_LENGTH_FIELD);
}
static void test_response_rejects_short_label_record(void **state) {
    (void)state;
    /* PAGE_LAST with 20 record bytes: below the 36-byte fixed part */
    uint8_t p[28] = {0x4d, 0x52, 0x1c, 0x00, 0x02, 0x01, 0x00, 0x00};
    mr_reject(p, 28, R_ADMIN_ERR_RECORD_SIZE);
}
static void test_response_rejects_summary_39(void **state) {
    (void)state;
    uint8_t p[47];
    memcpy(p, EX1_MR, 47);
    p[2] = 47;
    mr_reject(p, 47, R_ADMIN_ERR_RECORD_SIZE);
}
static void test_response_rejects_service_63(void **state) {
    (void)state;
    uint8_t p[71] = {0x4d, 0x52, 0x47, 0x00, 0x03, 0x01, 0x00, 0x00};
    mr_reject(p, 71, R_ADMIN_ERR_RECORD_SIZE);
}
static void test_response_rejects_empty_with_data(void **state) {
    (void)state;
    uint8_t p[12] = {0x4d, 0x52, 0x0c, 0x00, 0x03, 0x02, 0x00, 0x00};
    mr_reject(p, 12, R_ADMIN_ERR_PDU_SIZE);
}
static void test_response_rejects_last_without_records(void **state) {
    (void)state;
    const uint8_t p[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x01, 0x00, 0x00};
    mr_reject(p, 8, R_ADMIN_ERR_NO_RECORDS);
}
static void test_response_rejects_more_without_records(void **state) {
    (void)state;
    uint8_t p[16];
    memcpy(p, EX2_MR, 16);
    p[2] = 16;
    mr_reject(p, 16, R_ADMIN_ERR_NO_RECORDS);
}
static void test_response_rejects_zero_cursor_len(void **state) {
    (void)state;
    uint8_t p[92];
    memcpy(p, EX2_MR, 92);
    p[8] = 0;
    mr_reject(p, 92, R_ADMIN_ERR_EMPTY_CURSOR);
}
static void test_response_rejects_cursor_overrun(void **state) {
    (void)state;
    uint8_t p[16];
    memcpy(p, EX2_MR, 16);
    p[2] = 16;
    p[8] = 12;
    mr_reject(p, 16, R_ADMIN_ERR_LENGTH_FIELD);
}
static void test_response_rejects_unknown_page_kind(void **state) {
    (void)state;
    const uint8_t labels9[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x09, 0x00, 0x00};
    mr_reject(labels9, 8, R_ADMIN_ERR_PAGE_KIND);
    const uint8_t summary5[8] = {0x4d, 0x52, 0x08, 0x00, 0x01, 0x05, 0x00, 0x00};
    mr_reject(summary5, 8, R_ADMIN_ERR_PAGE_KIND);
}
static void test_response_rejects_family_zero(void **state) {
    (void)state;
    const uint8_t p[8] = {0x4d, 0x52, 0x08, 0x00, 0x00, 0x02, 0x00, 0x00};
    mr_reject(p, 8, R_ADMIN_ERR_FAMILY);
}
static void test_response_rejects_size_mismatch(void **state) {
    (void)state;
    mr_reject(EX2_MR, 91, R_ADMIN_ERR_PDU_SIZE);
}

static void test_response_error_kinds(void **state) {
    (void)state;
    for (uint8_t k = R_PAGE_NOT_FOUND; k <= R_PAGE_CURSOR_INVALID; k++) {
        const uint8_t p[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, k, 0x00, 0x00};
        r_admin_metrics_response_t m;
        ASSERT_OK(r_admin_decode_metrics_response(p, 8, &m, diag));
        assert_int_equal(m.page_kind, k);
        assert_true(r_admin_metrics_is_error_kind(2, k));
    }
    assert_false(r_admin_metrics_is_error_kind(2, R_PAGE_EMPTY));
    assert_true(r_admin_metrics_is_error_kind(1, R_SUMMARY_NOT_FOUND));
    assert_false(r_admin_metrics_is_error_kind(1, R_SUMMARY_PAGE));
    assert_string_equal(r_admin_metrics_page_kind_name(3, R_PAGE_RECORD_TOO_LARGE), "METRICS_RECORD_TOO_LARGE");
    assert_string_equal(r_admin_metrics_page_kind_name(2, R_PAGE_CURSOR_INVALID), "METRICS_CURSOR_INVALID");
    assert_string_equal(r_admin_metrics_page_kind_name(1, R_SUMMARY_INTERNAL_ERROR), "METRICS_INTERNAL_ERROR");
    assert_string_equal(r_admin_metrics_page_kind_name(2, R_PAGE_MORE), "LABELS_PAGE_MORE");
    assert_string_equal(r_admin_metrics_page_kind_name(1, 9), "UNKNOWN");
}

static void test_service_records(void **state) {
    (void)state;
    /* SERVICES_PAGE_LAST with one record: id 00..0f, ttl 60000, max 100,
     * buffer 32, min 5, report_count 11, checks 12 / 10 / 2 */
    uint8_t p[72] = {0x4d, 0x52, 0x48, 0x00, 0x03, 0x01, 0x00, 0x00};
    for (int i = 0; i < 16; i++) p[8 + i] = (uint8_t)i;
    const uint8_t tail[48] = {0x60, 0xea, 0, 0, 100, 0, 0, 0, 32, 0, 0, 0, 5, 0, 0, 0,
                              U64(11), U64(12), U64(10), U64(2)};
    memcpy(p + 24, tail, sizeof tail);
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(p, sizeof p, &m, diag));
    assert_int_equal(m.record_count, 1);
    r_metrics_service_record_t s;
    assert_int_equal(r_admin_metrics_service_at(&m, 0, &s), RCLIENT_OK);
    assert_int_equal(s.latency_tracker_id[15], 15);
    assert_int_equal(s.ttl_ms, 60000);
    assert_int_equal(s.max_samples, 100);
    assert_int_equal(s.buffer_size, 32);
    assert_int_equal(s.min_sample_threshold, 5);
    assert_true(s.report_count == 11 && s.checks_total == 12 && s.checks_passed == 10 && s.checks_failed == 2);
    assert_int_equal(r_admin_metrics_service_at(&m, 1, &s), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_admin_metrics_label_at(&m, 0, NULL), RCLIENT_ERR_CONFIG);
    /* encode back */
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = 3;
    er.page_kind = R_PAGE_LAST;
    er.services = &s;
    er.record_count = 1;
    uint8_t buf[80];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag));
    assert_int_equal(n, 72);
    assert_memory_equal(buf, p, 72);
}

static void test_encode_rejects_records_on_empty(void **state) {
    (void)state;
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = 2;
    er.page_kind = R_PAGE_EMPTY;
    er.record_count = 1;
    uint8_t buf[64];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
}

static void test_encode_rejects_page_over_budget(void **state) {
    (void)state;
    static r_metrics_service_record_t recs[18]; /* 8 + 18 * 64 = 1160 > 1128 */
    r_admin_metrics_response_t er;
    memset(&er, 0, sizeof er);
    er.metric_family = 3;
    er.page_kind = R_PAGE_LAST;
    er.services = recs;
    er.record_count = 18;
    static uint8_t buf[2048];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_TOO_LARGE);
    er.record_count = 17; /* 8 + 1088 = 1096 fits */
    ASSERT_OK(r_admin_encode_metrics_response(buf, sizeof buf, &er, &n, diag));
    assert_int_equal(n, 1096);
}

static void test_label_record_size(void **state) {
    (void)state;
    assert_int_equal(r_admin_metrics_label_record_size(0), 36);
    assert_int_equal(r_admin_metrics_label_record_size(3), 40);
    assert_int_equal(r_admin_metrics_label_record_size(8), 44);
    assert_int_equal(r_admin_metrics_label_record_size(9), 48);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example1_summary),
        cmocka_unit_test(test_example2_labels_first_page),
        cmocka_unit_test(test_example3_labels_resume),
        cmocka_unit_test(test_example4_services_empty),
        cmocka_unit_test(test_query_cursor_padding),
        cmocka_unit_test(test_query_rejects_reserved),
        cmocka_unit_test(test_query_rejects_cursor_reserved),
        cmocka_unit_test(test_query_rejects_cursor_padding),
        cmocka_unit_test(test_query_rejects_cursor_len_zero),
        cmocka_unit_test(test_query_rejects_cursor_len_overrun),
        cmocka_unit_test(test_query_rejects_unpadded_cursor),
        cmocka_unit_test(test_query_rejects_summary_from_cursor),
        cmocka_unit_test(test_query_rejects_unknown_family),
        cmocka_unit_test(test_query_rejects_from_start_with_data),
        cmocka_unit_test(test_query_rejects_wrong_type),
        cmocka_unit_test(test_query_encode_rejects_huge_cursor),
        cmocka_unit_test(test_query_encode_rejects),
        cmocka_unit_test(test_response_rejects_header_reserved),
        cmocka_unit_test(test_response_rejects_cursor_reserved),
        cmocka_unit_test(test_response_rejects_label_record_padding),
        cmocka_unit_test(test_response_rejects_label_padding),
        cmocka_unit_test(test_response_rejects_label_len_overrun),
        cmocka_unit_test(test_response_rejects_short_label_record),
        cmocka_unit_test(test_response_rejects_summary_39),
        cmocka_unit_test(test_response_rejects_service_63),
        cmocka_unit_test(test_response_rejects_empty_with_data),
        cmocka_unit_test(test_response_rejects_last_without_records),
        cmocka_unit_test(test_response_rejects_more_without_records),
        cmocka_unit_test(test_response_rejects_zero_cursor_len),
        cmocka_unit_test(test_response_rejects_cursor_overrun),
        cmocka_unit_test(test_response_rejects_unknown_page_kind),
        cmocka_unit_test(test_response_rejects_family_zero),
        cmocka_unit_test(test_response_rejects_size_mismatch),
        cmocka_unit_test(test_response_error_kinds),
        cmocka_unit_test(test_service_records),
        cmocka_unit_test(test_encode_rejects_records_on_empty),
        cmocka_unit_test(test_encode_rejects_page_over_budget),
        cmocka_unit_test(test_label_record_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
