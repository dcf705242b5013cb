/* SPDX-License-Identifier: MIT */
/* status.c - Status Query 0x5153 and Status Response V1 0x5253 codec
 * (wire_protocol.md "Status Query PDU", "Status Response PDU",
 * "status_flags validity bits", "health_flags bits").
 *
 * Status Response offsets (from the field table; 448 bytes in all):
 *   0 pdu_type | 2 pdu_size | 4 schema_version | 5 status_code | 6 status_flags
 *   8 wire_protocol_version | 10 record_len | 12 server_id | 20 node_id
 *   24 listener_id | 26 queue_index | 28 udp_port | 30 degraded_reason_code
 *   32 started_at_ms | 40 uptime_ms | 48 build_fingerprint | 56 health_flags
 *   60 backend | 62 xdp_mode | 64 ifindex | 68 rx_queue_id | 72 worker_cpu
 *   76 reserved0 | 80..384 thirty-eight u64 counters in table order
 *   384 dedup_ttl_ms_max | 388..448 reserved1 */
#include <string.h>

#include "rl_admin.h"
#include "rl_le.h"

#define OFF_COUNTERS 80u
#define N_COUNTERS 38u
#define OFF_DEDUP_MAX 384u
#define OFF_RESERVED1 388u
#define RESERVED1_LEN 60u

int r_admin_encode_status_query(uint8_t *buf, size_t cap, const r_admin_status_query_t *q, size_t *out_len,
                                r_admin_diag_t *diag) {
    static const char name[] = "status_query";
    if (q == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    if (q->schema_version != R_ADMIN_STATUS_SCHEMA_V1) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_SCHEMA_VERSION, "%s: schema_version %u, must be 1",
                             name, (unsigned)q->schema_version);
    }
    if (q->query_kind != R_ADMIN_STATUS_CURRENT) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_QUERY_KIND, "%s: query_kind 0x%02X unknown", name,
                             (unsigned)q->query_kind);
    }
    int rc = rl_admin_check_room(buf, cap, R_ADMIN_STATUS_QUERY_SIZE, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    rl_store_u16(buf, R_ADMIN_PDU_STATUS_QUERY);
    rl_store_u16(buf + 2, R_ADMIN_STATUS_QUERY_SIZE);
    buf[4] = q->schema_version;
    buf[5] = q->query_kind;
    rl_store_u16(buf + 6, 0);
    *out_len = R_ADMIN_STATUS_QUERY_SIZE;
    return rl_admin_ok(diag);
}

int r_admin_decode_status_query(const uint8_t *pdu, size_t len, r_admin_status_query_t *out, r_admin_diag_t *diag) {
    static const char name[] = "status_query";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_STATUS_QUERY, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (len != R_ADMIN_STATUS_QUERY_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE, "%s: pdu_size %zu, MUST be 8", name, len);
    }
    if (pdu[4] != R_ADMIN_STATUS_SCHEMA_V1) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_SCHEMA_VERSION, "%s: schema_version %u, MUST be 1",
                             name, (unsigned)pdu[4]);
    }
    if (pdu[5] != R_ADMIN_STATUS_CURRENT) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_QUERY_KIND,
                             "%s: query_kind 0x%02X, only CURRENT_STATUS 0x00 is defined", name, (unsigned)pdu[5]);
    }
    if (rl_load_u16(pdu + 6) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: reserved field not zero", name);
    }
    out->schema_version = pdu[4];
    out->query_kind = pdu[5];
    return rl_admin_ok(diag);
}

/* The 38 u64 counters at offset 80, in table order. */
static uint64_t *counter_ptr(r_admin_status_response_t *s, size_t i) {
    uint64_t *const fields[N_COUNTERS] = {
        &s->rx_packets, &s->tx_packets, &s->rx_dropped, &s->tx_dropped, &s->parse_errors, &s->auth_failures,
        &s->admin_requests_total, &s->system_memory_total_bytes, &s->system_memory_available_bytes,
        &s->cgroup_memory_limit_bytes, &s->process_rss_bytes, &s->rl_memory_budget_bytes,
        &s->rl_memory_allocated_bytes, &s->rl_memory_headroom_bytes, &s->dedup_cache_bytes,
        &s->api_key_rate_map_bytes, &s->api_key_latency_map_bytes, &s->api_key_latency_buffer_bytes,
        &s->api_key_metrics_label_bytes, &s->other_runtime_bytes, &s->allocation_failures_total,
        &s->api_keys_loaded, &s->api_key_capacity, &s->api_key_table_generation, &s->api_key_table_hash,
        &s->rate_bucket_quota_sum, &s->latency_service_quota_sum, &s->metrics_label_quota_sum,
        &s->latency_buffer_quota_sum, &s->rate_requests_total, &s->rate_success_total, &s->rate_limited_total,
        &s->guard_failed_total, &s->latency_reports_total, &s->dedup_hits_total, &s->dedup_misses_total,
        &s->tenant_mutations_total, &s->tenant_mutation_failures_total,
    };
    return fields[i];
}

int r_admin_encode_status_response(uint8_t *buf, size_t cap, const r_admin_status_response_t *sr, size_t *out_len,
                                   r_admin_diag_t *diag) {
    static const char name[] = "status_response";
    if (sr == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    if (sr->schema_version != R_ADMIN_STATUS_SCHEMA_V1) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_SCHEMA_VERSION, "%s: schema_version %u, must be 1",
                             name, (unsigned)sr->schema_version);
    }
    if (sr->record_len != 0 && sr->record_len != R_ADMIN_STATUS_RECORD_LEN) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_RECORD_LEN, "%s: record_len %u, must be 440", name,
                             (unsigned)sr->record_len);
    }
    if ((sr->status_flags & ~R_STATUS_FLAGS_DEFINED) != 0 || (sr->health_flags & ~R_HEALTH_FLAGS_DEFINED) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_FLAG_BITS,
                             "%s: undefined status_flags (0x%04X) or health_flags (0x%08X) bits", name,
                             (unsigned)(sr->status_flags & ~R_STATUS_FLAGS_DEFINED),
                             (unsigned)(sr->health_flags & ~R_HEALTH_FLAGS_DEFINED));
    }
    int rc = rl_admin_check_room(buf, cap, R_ADMIN_STATUS_RESPONSE_SIZE, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    memset(buf, 0, R_ADMIN_STATUS_RESPONSE_SIZE);
    rl_store_u16(buf, R_ADMIN_PDU_STATUS_RESPONSE);
    rl_store_u16(buf + 2, R_ADMIN_STATUS_RESPONSE_SIZE);
    buf[4] = sr->schema_version;
    buf[5] = sr->status_code;
    rl_store_u16(buf + 6, sr->status_flags);
    rl_store_u16(buf + 8, sr->wire_protocol_version);
    rl_store_u16(buf + 10, R_ADMIN_STATUS_RECORD_LEN);
    rl_store_u64(buf + 12, sr->server_id);
    rl_store_u32(buf + 20, sr->node_id);
    rl_store_u16(buf + 24, sr->listener_id);
    rl_store_u16(buf + 26, sr->queue_index);
    rl_store_u16(buf + 28, sr->udp_port);
    rl_store_u16(buf + 30, sr->degraded_reason_code);
    rl_store_u64(buf + 32, sr->started_at_ms);
    rl_store_u64(buf + 40, sr->uptime_ms);
    rl_store_u64(buf + 48, sr->build_fingerprint);
    rl_store_u32(buf + 56, sr->health_flags);
    rl_store_u16(buf + 60, sr->backend);
    rl_store_u16(buf + 62, sr->xdp_mode);
    rl_store_u32(buf + 64, sr->ifindex);
    rl_store_u32(buf + 68, sr->rx_queue_id);
    rl_store_u32(buf + 72, sr->worker_cpu);
    r_admin_status_response_t copy = *sr;
    for (size_t i = 0; i < N_COUNTERS; i++) {
        rl_store_u64(buf + OFF_COUNTERS + 8 * i, *counter_ptr(&copy, i));
    }
    rl_store_u32(buf + OFF_DEDUP_MAX, sr->dedup_ttl_ms_max);
    *out_len = R_ADMIN_STATUS_RESPONSE_SIZE;
    return rl_admin_ok(diag);
}

int r_admin_decode_status_response(const uint8_t *pdu, size_t len, r_admin_status_response_t *out,
                                   r_admin_diag_t *diag) {
    static const char name[] = "status_response";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_STATUS_RESPONSE, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    if (len != R_ADMIN_STATUS_RESPONSE_SIZE) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE, "%s: pdu_size %zu, MUST be 448", name,
                             len);
    }
    if (pdu[4] != R_ADMIN_STATUS_SCHEMA_V1) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_SCHEMA_VERSION, "%s: schema_version %u, MUST be 1",
                             name, (unsigned)pdu[4]);
    }
    if (rl_load_u16(pdu + 10) != R_ADMIN_STATUS_RECORD_LEN) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RECORD_LEN, "%s: record_len %u, MUST be 440", name,
                             (unsigned)rl_load_u16(pdu + 10));
    }
    if (rl_load_u32(pdu + 76) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: reserved0 (offset 76) not zero", name);
    }
    for (size_t i = 0; i < RESERVED1_LEN; i++) {
        if (pdu[OFF_RESERVED1 + i] != 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED,
                                 "%s: reserved1 byte %zu (offset %zu) not zero", name, i, OFF_RESERVED1 + i);
        }
    }
    r_admin_status_response_t s;
    memset(&s, 0, sizeof s);
    s.schema_version = pdu[4];
    s.status_code = pdu[5];
    s.status_flags = rl_load_u16(pdu + 6);
    s.wire_protocol_version = rl_load_u16(pdu + 8);
    s.record_len = rl_load_u16(pdu + 10);
    s.server_id = rl_load_u64(pdu + 12);
    s.node_id = rl_load_u32(pdu + 20);
    s.listener_id = rl_load_u16(pdu + 24);
    s.queue_index = rl_load_u16(pdu + 26);
    s.udp_port = rl_load_u16(pdu + 28);
    s.degraded_reason_code = rl_load_u16(pdu + 30);
    s.started_at_ms = rl_load_u64(pdu + 32);
    s.uptime_ms = rl_load_u64(pdu + 40);
    s.build_fingerprint = rl_load_u64(pdu + 48);
    s.health_flags = rl_load_u32(pdu + 56);
    s.backend = rl_load_u16(pdu + 60);
    s.xdp_mode = rl_load_u16(pdu + 62);
    s.ifindex = rl_load_u32(pdu + 64);
    s.rx_queue_id = rl_load_u32(pdu + 68);
    s.worker_cpu = rl_load_u32(pdu + 72);
    for (size_t i = 0; i < N_COUNTERS; i++) {
        *counter_ptr(&s, i) = rl_load_u64(pdu + OFF_COUNTERS + 8 * i);
    }
    s.dedup_ttl_ms_max = rl_load_u32(pdu + OFF_DEDUP_MAX);
    *out = s;
    return rl_admin_ok(diag);
}

int r_admin_status_get(const r_admin_status_response_t *sr, r_status_field_t field, uint64_t *value) {
    if (sr == NULL || value == NULL || (unsigned)field >= R_STATUS_FIELD_COUNT) {
        return -1;
    }
    uint64_t v = 0;
    uint64_t unknown_marker = UINT64_MAX;
    int governed = 1;
    switch (field) {
    case R_STATUS_SYSTEM_MEMORY_TOTAL_BYTES: v = sr->system_memory_total_bytes; break;
    case R_STATUS_SYSTEM_MEMORY_AVAILABLE_BYTES: v = sr->system_memory_available_bytes; break;
    case R_STATUS_CGROUP_MEMORY_LIMIT_BYTES: v = sr->cgroup_memory_limit_bytes; break;
    case R_STATUS_PROCESS_RSS_BYTES: v = sr->process_rss_bytes; break;
    case R_STATUS_RL_MEMORY_BUDGET_BYTES: v = sr->rl_memory_budget_bytes; break;
    case R_STATUS_RL_MEMORY_ALLOCATED_BYTES: v = sr->rl_memory_allocated_bytes; break;
    case R_STATUS_RL_MEMORY_HEADROOM_BYTES: v = sr->rl_memory_headroom_bytes; break;
    case R_STATUS_DEDUP_TTL_MS_MAX:
        v = sr->dedup_ttl_ms_max;
        unknown_marker = 0;
        break;
    default: governed = 0; break;
    }
    if (governed) {
        /* The eight governed fields are numbered like their validity bits. */
        if ((sr->status_flags & (1u << (unsigned)field)) == 0 || v == unknown_marker) {
            *value = 0;
            return 0;
        }
        *value = v;
        return 1;
    }
    switch (field) {
    case R_STATUS_IFINDEX: v = sr->ifindex; unknown_marker = UINT32_MAX; break;
    case R_STATUS_RX_QUEUE_ID: v = sr->rx_queue_id; unknown_marker = UINT32_MAX; break;
    case R_STATUS_WORKER_CPU: v = sr->worker_cpu; unknown_marker = UINT32_MAX; break;
    case R_STATUS_API_KEY_CAPACITY: v = sr->api_key_capacity; unknown_marker = UINT64_MAX; break;
    default: v = sr->build_fingerprint; unknown_marker = 0; break; /* R_STATUS_BUILD_FINGERPRINT */
    }
    if (v == unknown_marker) {
        *value = 0;
        return 0;
    }
    *value = v;
    return 1;
}

bool r_admin_status_healthy(const r_admin_status_response_t *sr) {
    return sr != NULL && sr->status_code == 0 && (sr->health_flags & R_HEALTH_ALL_V1) == R_HEALTH_ALL_V1;
}
