/* SPDX-License-Identifier: MIT */
/* vec_kind_admin_resp.c - the administrative response kinds, as a client
 * checks them against its request: admin_tenant_ack, admin_status_response,
 * admin_metrics_response (wire_protocol.md "Tenant Acknowledgment PDU",
 * "Status Response PDU", "status_flags validity bits", "Metrics Response
 * PDU", "Metrics Record Formats"). A packet runs through r_admin_check_*, the
 * checks of the client operations; a plaintext PDU through the decoder alone. */
#include <string.h>

#include <openssl/crypto.h>

#include "rl_le.h"
#include "vec_admin.h"

const char *const vec_admin_tenant_ack_fields[] = {"server_id", "operation", NULL};
const char *const vec_admin_status_response_fields[] = {"server_id", "status", "known", "healthy", NULL};
const char *const vec_admin_metrics_response_fields[] = {"server_id",       "metric_family", "page_kind",
                                                         "page_kind_name",  "next_cursor_hex", "records", NULL};

/* The request side of a packet test: request_unique_id_hex (+ one more field). */
static bool read_uid(const json_t *input, const vj_path_t *path, uint8_t uid[R_CLIENT_ID_LEN], vec_run_t *run)
{
    if (!vj_hex_fixed(input, path, "request_unique_id_hex", uid, R_CLIENT_ID_LEN, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    return true;
}

static bool read_u8(const json_t *input, const vj_path_t *path, const char *key, uint8_t *out, vec_run_t *run)
{
    if (!vj_u8_max(input, path, key, 255, out, &run->err)) {
        run->status = VEC_RUN_BAD_INPUT;
        return false;
    }
    return true;
}

static bool plain_kind(const vec_admin_in_t *in, uint16_t want, vec_run_t *run)
{
    if (!vec_admin_plain_size(in, run))
        return false;
    if (rl_load_u16(in->bytes) != want) {
        vec_run_reject(run, "correlation", "pdu_type 0x%04X is not the kind's", (unsigned)rl_load_u16(in->bytes));
        return false;
    }
    return true;
}

static json_t *with_server(json_t *out, const vec_admin_in_t *in, const r_admin_header_t *h)
{
    if (out != NULL && !in->plain && json_object_set_new(out, "server_id", vec_json_dec_u64(h->key_id)) != 0) {
        json_decref(out);
        return NULL;
    }
    return out;
}

void vec_kind_admin_tenant_ack(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_tenant_ack_t ack;
    r_admin_diag_t diag;
    memset(&diag, 0, sizeof diag);
    if (vec_admin_read(input, path, &in, run)) {
        int rc = RCLIENT_ERR_PROTOCOL;
        uint8_t uid[R_CLIENT_ID_LEN];
        uint8_t op = 0;
        bool ready = true;
        if (in.plain) {
            ready = plain_kind(&in, R_ADMIN_PDU_TENANT_ACK, run);
            if (ready)
                rc = r_admin_decode_tenant_ack(in.bytes, in.len, &ack, &diag);
        } else {
            ready = read_uid(input, path, uid, run) && read_u8(input, path, "request_operation", &op, run);
            if (ready)
                rc = r_admin_check_tenant_ack(in.key, in.bytes, in.len, uid, op, 0, &h, &ack, &diag);
        }
        if (ready && rc == RCLIENT_OK)
            vec_run_accept(run, with_server(json_pack("{s:i}", "operation", (int)ack.operation), &in, &h));
        else if (ready)
            vec_admin_reject(run, &diag);
    }
    vec_admin_free(&in);
}

/* ---- status response ---------------------------------------------------------- */

static bool set_u64(json_t *o, const char *k, uint64_t v)
{
    return json_object_set_new(o, k, vec_json_dec_u64(v)) == 0;
}
static bool set_int(json_t *o, const char *k, uint64_t v)
{
    return json_object_set_new(o, k, json_integer((json_int_t)v)) == 0;
}

static json_t *status_json(const r_admin_status_response_t *s)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    bool ok = set_int(o, "schema_version", s->schema_version) && set_int(o, "status_code", s->status_code) &&
              set_int(o, "status_flags", s->status_flags) &&
              set_int(o, "wire_protocol_version", s->wire_protocol_version) &&
              set_int(o, "record_len", s->record_len) && set_u64(o, "server_id", s->server_id) &&
              set_int(o, "node_id", s->node_id) && set_int(o, "listener_id", s->listener_id) &&
              set_int(o, "queue_index", s->queue_index) && set_int(o, "udp_port", s->udp_port) &&
              set_int(o, "degraded_reason_code", s->degraded_reason_code) &&
              set_u64(o, "started_at_ms", s->started_at_ms) && set_u64(o, "uptime_ms", s->uptime_ms) &&
              set_u64(o, "build_fingerprint", s->build_fingerprint) && set_int(o, "health_flags", s->health_flags) &&
              set_int(o, "backend", s->backend) && set_int(o, "xdp_mode", s->xdp_mode) &&
              set_int(o, "ifindex", s->ifindex) && set_int(o, "rx_queue_id", s->rx_queue_id) &&
              set_int(o, "worker_cpu", s->worker_cpu);
    const struct {
        const char *name;
        uint64_t v;
    } c[] = {
        {"rx_packets", s->rx_packets},
        {"tx_packets", s->tx_packets},
        {"rx_dropped", s->rx_dropped},
        {"tx_dropped", s->tx_dropped},
        {"parse_errors", s->parse_errors},
        {"auth_failures", s->auth_failures},
        {"admin_requests_total", s->admin_requests_total},
        {"system_memory_total_bytes", s->system_memory_total_bytes},
        {"system_memory_available_bytes", s->system_memory_available_bytes},
        {"cgroup_memory_limit_bytes", s->cgroup_memory_limit_bytes},
        {"process_rss_bytes", s->process_rss_bytes},
        {"rl_memory_budget_bytes", s->rl_memory_budget_bytes},
        {"rl_memory_allocated_bytes", s->rl_memory_allocated_bytes},
        {"rl_memory_headroom_bytes", s->rl_memory_headroom_bytes},
        {"dedup_cache_bytes", s->dedup_cache_bytes},
        {"api_key_rate_map_bytes", s->api_key_rate_map_bytes},
        {"api_key_latency_map_bytes", s->api_key_latency_map_bytes},
        {"api_key_latency_buffer_bytes", s->api_key_latency_buffer_bytes},
        {"api_key_metrics_label_bytes", s->api_key_metrics_label_bytes},
        {"other_runtime_bytes", s->other_runtime_bytes},
        {"allocation_failures_total", s->allocation_failures_total},
        {"api_keys_loaded", s->api_keys_loaded},
        {"api_key_capacity", s->api_key_capacity},
        {"api_key_table_generation", s->api_key_table_generation},
        {"api_key_table_hash", s->api_key_table_hash},
        {"rate_bucket_quota_sum", s->rate_bucket_quota_sum},
        {"latency_service_quota_sum", s->latency_service_quota_sum},
        {"metrics_label_quota_sum", s->metrics_label_quota_sum},
        {"latency_buffer_quota_sum", s->latency_buffer_quota_sum},
        {"rate_requests_total", s->rate_requests_total},
        {"rate_success_total", s->rate_success_total},
        {"rate_limited_total", s->rate_limited_total},
        {"guard_failed_total", s->guard_failed_total},
        {"latency_reports_total", s->latency_reports_total},
        {"dedup_hits_total", s->dedup_hits_total},
        {"dedup_misses_total", s->dedup_misses_total},
        {"tenant_mutations_total", s->tenant_mutations_total},
        {"tenant_mutation_failures_total", s->tenant_mutation_failures_total},
    };
    for (size_t i = 0; ok && i < sizeof c / sizeof c[0]; i++)
        ok = set_u64(o, c[i].name, c[i].v);
    ok = ok && set_int(o, "dedup_ttl_ms_max", s->dedup_ttl_ms_max);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Every optional field through r_admin_status_get: its value, or null when unknown. */
static json_t *known_json(const r_admin_status_response_t *s)
{
    static const char *const names[R_STATUS_FIELD_COUNT] = {
        "system_memory_total_bytes", "system_memory_available_bytes", "cgroup_memory_limit_bytes",
        "process_rss_bytes",         "rl_memory_budget_bytes",        "rl_memory_allocated_bytes",
        "rl_memory_headroom_bytes",  "dedup_ttl_ms_max",              "ifindex",
        "rx_queue_id",               "worker_cpu",                    "api_key_capacity",
        "build_fingerprint",
    };
    json_t *o = json_object();
    for (int f = 0; o != NULL && f < R_STATUS_FIELD_COUNT; f++) {
        uint64_t v = 0;
        int known = r_admin_status_get(s, (r_status_field_t)f, &v);
        if (json_object_set_new(o, names[f], known == 1 ? vec_json_dec_u64(v) : json_null()) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o;
}

void vec_kind_admin_status_response(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_status_response_t sr;
    r_admin_diag_t diag;
    memset(&diag, 0, sizeof diag);
    if (vec_admin_read(input, path, &in, run)) {
        int rc = RCLIENT_ERR_PROTOCOL;
        uint8_t uid[R_CLIENT_ID_LEN];
        bool ready = true;
        if (in.plain) {
            ready = plain_kind(&in, R_ADMIN_PDU_STATUS_RESPONSE, run);
            if (ready)
                rc = r_admin_decode_status_response(in.bytes, in.len, &sr, &diag);
        } else {
            ready = read_uid(input, path, uid, run);
            if (ready)
                rc = r_admin_check_status_response(in.key, in.bytes, in.len, uid, 0, &h, &sr, &diag);
        }
        if (ready && rc == RCLIENT_OK)
            vec_run_accept(run, with_server(json_pack("{s:o, s:o, s:b}", "status", status_json(&sr), "known",
                                                      known_json(&sr), "healthy", (int)r_admin_status_healthy(&sr)),
                                            &in, &h));
        else if (ready)
            vec_admin_reject(run, &diag);
    }
    vec_admin_free(&in);
}

/* ---- metrics response --------------------------------------------------------- */

static json_t *record_json(const r_admin_metrics_response_t *mr, size_t i)
{
    if (mr->metric_family == R_METRICS_TENANT_SUMMARY) {
        const r_metrics_summary_record_t *s = &mr->summary;
        return json_pack("{s:o, s:o, s:o, s:o, s:o}", "requests_success", vec_json_dec_u64(s->requests_success),
                         "requests_rate_limited", vec_json_dec_u64(s->requests_rate_limited), "requests_guard_failed",
                         vec_json_dec_u64(s->requests_guard_failed), "requests_auth_failed",
                         vec_json_dec_u64(s->requests_auth_failed), "service_latency_reports_total",
                         vec_json_dec_u64(s->service_latency_reports_total));
    }
    if (mr->metric_family == R_METRICS_TENANT_LABEL_COUNTERS) {
        r_metrics_label_record_t r;
        if (r_admin_metrics_label_at(mr, i, &r) != RCLIENT_OK)
            return NULL;
        return json_pack("{s:o, s:o, s:o, s:o, s:o}", "requests_success", vec_json_dec_u64(r.requests_success),
                         "requests_rate_limited", vec_json_dec_u64(r.requests_rate_limited), "requests_guard_failed",
                         vec_json_dec_u64(r.requests_guard_failed), "requests_auth_failed",
                         vec_json_dec_u64(r.requests_auth_failed), "label_hex", vec_json_hex(r.label, r.label_len));
    }
    r_metrics_service_record_t r;
    if (r_admin_metrics_service_at(mr, i, &r) != RCLIENT_OK)
        return NULL;
    return json_pack("{s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o, s:o}", "tracker_id_hex",
                     vec_json_hex(r.latency_tracker_id, R_CLIENT_ID_LEN), "ttl_ms", (json_int_t)r.ttl_ms,
                     "max_samples", (json_int_t)r.max_samples, "buffer_size", (json_int_t)r.buffer_size,
                     "min_sample_threshold", (json_int_t)r.min_sample_threshold, "report_count",
                     vec_json_dec_u64(r.report_count), "checks_total", vec_json_dec_u64(r.checks_total),
                     "checks_passed", vec_json_dec_u64(r.checks_passed), "checks_failed",
                     vec_json_dec_u64(r.checks_failed));
}

static json_t *page_json(const r_admin_metrics_response_t *mr)
{
    json_t *records = json_array();
    for (size_t i = 0; records != NULL && i < mr->record_count; i++) {
        if (json_array_append_new(records, record_json(mr, i)) != 0) {
            json_decref(records);
            records = NULL;
        }
    }
    json_t *out = json_pack("{s:i, s:i, s:s, s:o}", "metric_family", (int)mr->metric_family, "page_kind",
                            (int)mr->page_kind, "page_kind_name",
                            r_admin_metrics_page_kind_name(mr->metric_family, mr->page_kind), "records", records);
    if (out != NULL && mr->next_cursor_len > 0 &&
        json_object_set_new(out, "next_cursor_hex", vec_json_hex(mr->next_cursor, mr->next_cursor_len)) != 0) {
        json_decref(out);
        out = NULL;
    }
    return out;
}

void vec_kind_admin_metrics_response(const json_t *input, const vj_path_t *path, vec_run_t *run)
{
    vec_admin_in_t in;
    r_admin_header_t h;
    r_admin_metrics_response_t mr;
    r_admin_diag_t diag;
    memset(&diag, 0, sizeof diag);
    if (vec_admin_read(input, path, &in, run)) {
        int rc = RCLIENT_ERR_PROTOCOL;
        uint8_t uid[R_CLIENT_ID_LEN];
        uint8_t family = 0;
        bool ready = true;
        if (in.plain) {
            ready = plain_kind(&in, R_ADMIN_PDU_METRICS_RESPONSE, run);
            if (ready)
                rc = r_admin_decode_metrics_response(in.bytes, in.len, &mr, &diag);
        } else {
            ready = read_uid(input, path, uid, run) && read_u8(input, path, "request_family", &family, run);
            if (ready)
                rc = r_admin_check_metrics_response(in.key, in.bytes, in.len, uid, family, 0, &h, &mr, &diag);
        }
        if (ready && rc == RCLIENT_OK)
            vec_run_accept(run, with_server(page_json(&mr), &in, &h));
        else if (ready)
            vec_admin_reject(run, &diag);
    }
    vec_admin_free(&in);
}
