/* SPDX-License-Identifier: MIT */
/* Unit tests for the Status Query 0x5153 and Status Response V1 0x5253 codec
 * and the validity-bit rule (wire_protocol.md "Status Query PDU", "Status
 * Response PDU", "status_flags validity bits", "health_flags bits").
 * Offsets below are summed by hand from the Status Response field table. */
#include "admin_test_util.h"

static const uint8_t SQ[8] = {0x53, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A V1 response: every field a distinct value; the 38 u64 counters from
 * offset 80 carry 0x1000 + their index in table order. */
static void build_sr(uint8_t sr[448]) {
    memset(sr, 0, 448);
    put16(sr + 0, 0x5253);
    put16(sr + 2, 448);
    sr[4] = 1;                 /* schema_version */
    sr[5] = 0;                 /* status_code */
    put16(sr + 6, 0x00A5);     /* status_flags: bits 0, 2, 5, 7 */
    put16(sr + 8, 1);          /* wire_protocol_version */
    put16(sr + 10, 440);       /* record_len */
    put64(sr + 12, 0x0123456789ABCDEFull); /* server_id */
    put32(sr + 20, 7);         /* node_id */
    put16(sr + 24, 3);         /* listener_id */
    put16(sr + 26, 2);         /* queue_index */
    put16(sr + 28, 4500);      /* udp_port */
    put16(sr + 30, 0);         /* degraded_reason_code */
    put64(sr + 32, 1767225600000ull); /* started_at_ms */
    put64(sr + 40, 86400000ull);      /* uptime_ms */
    put64(sr + 48, 0xFEEDull);        /* build_fingerprint */
    put32(sr + 56, 0x1F);      /* health_flags: all five */
    put16(sr + 60, 2);         /* backend: UDP fallback */
    put16(sr + 62, 0);         /* xdp_mode: n/a */
    put32(sr + 64, 0xFFFFFFFFu); /* ifindex unavailable */
    put32(sr + 68, 5);         /* rx_queue_id */
    put32(sr + 72, 9);         /* worker_cpu */
    /* 76: reserved0 */
    for (unsigned i = 0; i < 38; i++) {
        put64(sr + 80 + 8 * i, 0x1000u + i);
    }
    put32(sr + 384, 2000);     /* dedup_ttl_ms_max */
    /* 388..448 reserved1 */
}

static void test_encode_status_query_bytes(void **state) {
    (void)state;
    r_admin_status_query_t q = {1, R_ADMIN_STATUS_CURRENT};
    uint8_t buf[8];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_status_query(buf, sizeof buf, &q, &n, diag));
    assert_int_equal(n, 8);
    assert_memory_equal(buf, SQ, 8);
}

static void test_encode_status_query_rejects(void **state) {
    (void)state;
    uint8_t buf[8];
    size_t n = 0;
    r_admin_status_query_t q = {2, R_ADMIN_STATUS_CURRENT};
    ASSERT_REJECT(r_admin_encode_status_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_SCHEMA_VERSION);
    q = (r_admin_status_query_t){1, 1};
    ASSERT_REJECT(r_admin_encode_status_query(buf, sizeof buf, &q, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_QUERY_KIND);
    q = (r_admin_status_query_t){1, 0};
    ASSERT_REJECT(r_admin_encode_status_query(buf, 7, &q, &n, diag), RCLIENT_ERR_CONFIG, R_ADMIN_ERR_BUFFER);
}

static void test_decode_status_query(void **state) {
    (void)state;
    r_admin_status_query_t q;
    ASSERT_OK(r_admin_decode_status_query(SQ, sizeof SQ, &q, diag));
    assert_int_equal(q.schema_version, 1);
    assert_int_equal(q.query_kind, 0);
}

static void sq_reject(size_t off, uint8_t value, r_admin_reason_t reason) {
    uint8_t pdu[8];
    memcpy(pdu, SQ, 8);
    pdu[off] = value;
    r_admin_status_query_t q;
    ASSERT_REJECT(r_admin_decode_status_query(pdu, sizeof pdu, &q, diag), RCLIENT_ERR_PROTOCOL, reason);
}

static void test_status_query_rejects_schema_2(void **state) {
    (void)state;
    sq_reject(4, 2, R_ADMIN_ERR_SCHEMA_VERSION);
}
static void test_status_query_rejects_kind_1(void **state) {
    (void)state;
    sq_reject(5, 1, R_ADMIN_ERR_QUERY_KIND);
}
static void test_status_query_rejects_reserved(void **state) {
    (void)state;
    sq_reject(7, 0x80, R_ADMIN_ERR_RESERVED);
}
static void test_status_query_rejects_wrong_type(void **state) {
    (void)state;
    sq_reject(0, 0x4d, R_ADMIN_ERR_PDU_TYPE); /* 0x514D: a metrics query */
}

static void test_status_query_rejects_size_12(void **state) {
    (void)state;
    uint8_t pdu[12] = {0x53, 0x51, 0x0c, 0x00, 0x01, 0x00};
    r_admin_status_query_t q;
    ASSERT_REJECT(r_admin_decode_status_query(pdu, sizeof pdu, &q, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_status_response_every_field(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    r_admin_status_response_t s;
    ASSERT_OK(r_admin_decode_status_response(pdu, sizeof pdu, &s, diag));
    assert_int_equal(s.schema_version, 1);
    assert_int_equal(s.status_code, 0);
    assert_int_equal(s.status_flags, 0x00A5);
    assert_int_equal(s.wire_protocol_version, 1);
    assert_int_equal(s.record_len, 440);
    assert_true(s.server_id == 0x0123456789ABCDEFull);
    assert_int_equal(s.node_id, 7);
    assert_int_equal(s.listener_id, 3);
    assert_int_equal(s.queue_index, 2);
    assert_int_equal(s.udp_port, 4500);
    assert_int_equal(s.degraded_reason_code, 0);
    assert_true(s.started_at_ms == 1767225600000ull);
    assert_true(s.uptime_ms == 86400000ull);
    assert_true(s.build_fingerprint == 0xFEED);
    assert_int_equal(s.health_flags, 0x1F);
    assert_int_equal(s.backend, 2);
    assert_int_equal(s.xdp_mode, 0);
    assert_true(s.ifindex == 0xFFFFFFFFu);
    assert_int_equal(s.rx_queue_id, 5);
    assert_int_equal(s.worker_cpu, 9);
    const uint64_t want[38] = {
        s.rx_packets, s.tx_packets, s.rx_dropped, s.tx_dropped, s.parse_errors, s.auth_failures,
        s.admin_requests_total, s.system_memory_total_bytes, s.system_memory_available_bytes,
        s.cgroup_memory_limit_bytes, s.process_rss_bytes, s.rl_memory_budget_bytes, s.rl_memory_allocated_bytes,
        s.rl_memory_headroom_bytes, s.dedup_cache_bytes, s.api_key_rate_map_bytes, s.api_key_latency_map_bytes,
        s.api_key_latency_buffer_bytes, s.api_key_metrics_label_bytes, s.other_runtime_bytes,
        s.allocation_failures_total, s.api_keys_loaded, s.api_key_capacity, s.api_key_table_generation,
        s.api_key_table_hash, s.rate_bucket_quota_sum, s.latency_service_quota_sum, s.metrics_label_quota_sum,
        s.latency_buffer_quota_sum, s.rate_requests_total, s.rate_success_total, s.rate_limited_total,
        s.guard_failed_total, s.latency_reports_total, s.dedup_hits_total, s.dedup_misses_total,
        s.tenant_mutations_total, s.tenant_mutation_failures_total,
    };
    for (unsigned i = 0; i < 38; i++) {
        assert_true(want[i] == 0x1000u + i);
    }
    assert_int_equal(s.dedup_ttl_ms_max, 2000);
}

static void test_encode_status_response_matches_table(void **state) {
    (void)state;
    uint8_t want[448];
    build_sr(want);
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(want, sizeof want, &s, NULL), RCLIENT_OK);
    uint8_t buf[448];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_status_response(buf, sizeof buf, &s, &n, diag));
    assert_int_equal(n, 448);
    assert_memory_equal(buf, want, 448);
}

static void test_encode_status_response_rejects_undefined_flag_bits(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    s.health_flags |= 1u << 5;
    uint8_t buf[448];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_status_response(buf, sizeof buf, &s, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_FLAG_BITS);
}

static void sr_reject(size_t off, uint8_t value, r_admin_reason_t reason) {
    uint8_t pdu[448];
    build_sr(pdu);
    pdu[off] = value;
    r_admin_status_response_t s;
    ASSERT_REJECT(r_admin_decode_status_response(pdu, sizeof pdu, &s, diag), RCLIENT_ERR_PROTOCOL, reason);
}

static void test_sr_rejects_schema_version(void **state) {
    (void)state;
    sr_reject(4, 2, R_ADMIN_ERR_SCHEMA_VERSION);
}
static void test_sr_rejects_record_len(void **state) {
    (void)state;
    sr_reject(10, 0xB7, R_ADMIN_ERR_RECORD_LEN); /* 439 */
}
static void test_sr_rejects_reserved0(void **state) {
    (void)state;
    sr_reject(79, 1, R_ADMIN_ERR_RESERVED);
}
static void test_sr_rejects_reserved1_first_byte(void **state) {
    (void)state;
    sr_reject(388, 1, R_ADMIN_ERR_RESERVED);
}
static void test_sr_rejects_reserved1_last_byte(void **state) {
    (void)state;
    sr_reject(447, 1, R_ADMIN_ERR_RESERVED);
}
static void test_sr_rejects_wrong_type(void **state) {
    (void)state;
    sr_reject(1, 0x51, R_ADMIN_ERR_PDU_TYPE); /* 0x5153 status query */
}

static void test_sr_rejects_size_447(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    put16(pdu + 2, 447);
    r_admin_status_response_t s;
    ASSERT_REJECT(r_admin_decode_status_response(pdu, 447, &s, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE);
}

static void test_sr_accepts_undefined_flag_bits(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    put16(pdu + 6, 0x01A5);  /* bit 8 undefined in V1 */
    put32(pdu + 56, 0x3F);   /* bit 5 undefined */
    r_admin_status_response_t s;
    ASSERT_OK(r_admin_decode_status_response(pdu, sizeof pdu, &s, diag));
    assert_int_equal(s.status_flags, 0x01A5);
    assert_int_equal(s.health_flags, 0x3F);
}

static void test_sr_nonzero_status_code_decoded(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    pdu[5] = 3;
    r_admin_status_response_t s;
    ASSERT_OK(r_admin_decode_status_response(pdu, sizeof pdu, &s, diag));
    assert_int_equal(s.status_code, 3);
    assert_false(r_admin_status_healthy(&s));
}

/* Validity rule: with every governed field carrying a plausible value, a
 * field is known exactly when its own bit is set. */
static void test_validity_bit_governs_each_field(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    for (unsigned bit = 0; bit < 8; bit++) {
        s.status_flags = (uint16_t)(1u << bit);
        for (unsigned f = 0; f < 8; f++) {
            uint64_t v = 99;
            int known = r_admin_status_get(&s, (r_status_field_t)f, &v);
            assert_int_equal(known, f == bit ? 1 : 0);
            if (f != bit) {
                assert_true(v == 0);
            }
        }
    }
}

static void test_validity_clear_bit_hides_value(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu); /* status_flags 0xA5: bit 1 (available memory) clear, value 0x1008 */
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    uint64_t v = 1;
    assert_int_equal(r_admin_status_get(&s, R_STATUS_SYSTEM_MEMORY_AVAILABLE_BYTES, &v), 0);
    assert_true(v == 0);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_SYSTEM_MEMORY_TOTAL_BYTES, &v), 1); /* bit 0 set */
    assert_true(v == 0x1007);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_DEDUP_TTL_MS_MAX, &v), 1); /* bit 7 set */
    assert_true(v == 2000);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_RL_MEMORY_HEADROOM_BYTES, &v), 0); /* bit 6 clear */
}

static void test_validity_bit_set_with_max_marker_is_unknown(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    put64(pdu + 80 + 8 * 7, UINT64_MAX); /* system_memory_total_bytes, bit 0 set */
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    uint64_t v = 1;
    assert_int_equal(r_admin_status_get(&s, R_STATUS_SYSTEM_MEMORY_TOTAL_BYTES, &v), 0);
}

static void test_sentinel_fields(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    uint64_t v = 0;
    assert_int_equal(r_admin_status_get(&s, R_STATUS_IFINDEX, &v), 0);   /* u32::MAX */
    assert_int_equal(r_admin_status_get(&s, R_STATUS_RX_QUEUE_ID, &v), 1);
    assert_true(v == 5);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_WORKER_CPU, &v), 1);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_BUILD_FINGERPRINT, &v), 1);
    assert_true(v == 0xFEED);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_API_KEY_CAPACITY, &v), 1);
    assert_true(v == 0x1000 + 22);
    s.api_key_capacity = UINT64_MAX;
    assert_int_equal(r_admin_status_get(&s, R_STATUS_API_KEY_CAPACITY, &v), 0);
    assert_int_equal(r_admin_status_get(&s, R_STATUS_FIELD_COUNT, &v), -1);
    assert_int_equal(r_admin_status_get(NULL, R_STATUS_IFINDEX, &v), -1);
}

static void test_healthy_needs_all_five_bits(void **state) {
    (void)state;
    uint8_t pdu[448];
    build_sr(pdu);
    r_admin_status_response_t s;
    assert_int_equal(r_admin_decode_status_response(pdu, sizeof pdu, &s, NULL), RCLIENT_OK);
    assert_true(r_admin_status_healthy(&s));
    for (unsigned bit = 0; bit < 5; bit++) {
        s.health_flags = 0x1Fu & ~(1u << bit);
        assert_false(r_admin_status_healthy(&s));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_status_query_bytes),
        cmocka_unit_test(test_encode_status_query_rejects),
        cmocka_unit_test(test_decode_status_query),
        cmocka_unit_test(test_status_query_rejects_schema_2),
        cmocka_unit_test(test_status_query_rejects_kind_1),
        cmocka_unit_test(test_status_query_rejects_reserved),
        cmocka_unit_test(test_status_query_rejects_wrong_type),
        cmocka_unit_test(test_status_query_rejects_size_12),
        cmocka_unit_test(test_decode_status_response_every_field),
        cmocka_unit_test(test_encode_status_response_matches_table),
        cmocka_unit_test(test_encode_status_response_rejects_undefined_flag_bits),
        cmocka_unit_test(test_sr_rejects_schema_version),
        cmocka_unit_test(test_sr_rejects_record_len),
        cmocka_unit_test(test_sr_rejects_reserved0),
        cmocka_unit_test(test_sr_rejects_reserved1_first_byte),
        cmocka_unit_test(test_sr_rejects_reserved1_last_byte),
        cmocka_unit_test(test_sr_rejects_wrong_type),
        cmocka_unit_test(test_sr_rejects_size_447),
        cmocka_unit_test(test_sr_accepts_undefined_flag_bits),
        cmocka_unit_test(test_sr_nonzero_status_code_decoded),
        cmocka_unit_test(test_validity_bit_governs_each_field),
        cmocka_unit_test(test_validity_clear_bit_hides_value),
        cmocka_unit_test(test_validity_bit_set_with_max_marker_is_unknown),
        cmocka_unit_test(test_sentinel_fields),
        cmocka_unit_test(test_healthy_needs_all_five_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
