/* SPDX-License-Identifier: MIT */
/* vec_kinds.c - kind table, error-class mapping and result builders. */
#include "vec_kinds.h"
#include "vec_admin.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const id_fields[] = {"id_hex", NULL};
static const char *const api_key_fields[] = {"auth",   "key_id", "secret_hex", "quota_word",
                                             "quotas", "default_dns_name", NULL};
static const char *const secret_fields[] = {"secret_hex", NULL};
static const char *const quota_fields[] = {"quotas", NULL};
static const char *const server_id_fields[] = {"server_start_s", "listener_id", "node_id", NULL};
static const char *const srv_target_fields[] = {"server_id", NULL};
static const char *const packet_fields[] = {"packet_hex", NULL};
/* a report call may send nothing: {"sent": false} (every report filtered) */
static const char *const report_fields[] = {"packet_hex", "sent", NULL};
static const char *const response_fields[] = {"server_id", "keep_port", "success", "resources", "guards", NULL};
static const char *const ha_fields[] = {"ttl_ms", "round_ms", "preference_ms", NULL};

/* One entry per schema kind. A kind the build cannot run keeps its entry with
 * a NULL adapter, so its tests fail by name ("kind X not supported by this
 * build") instead of being skipped. */
static const vec_kind_t kinds[] = {
    {"bucket_id", vec_kind_bucket_id, id_fields},
    {"tracker_id", vec_kind_tracker_id, id_fields},
    {"api_key", vec_kind_api_key, api_key_fields},
    {"secret_key", vec_kind_secret_key, secret_fields},
    {"quota_word", vec_kind_quota_word, quota_fields},
    {"server_id", vec_kind_server_id, server_id_fields},
    {"srv_target", vec_kind_srv_target, srv_target_fields},
    {"rate_request_packet", vec_kind_rate_request_packet, packet_fields},
    {"latency_report_packet", vec_kind_latency_report_packet, report_fields},
    {"rate_response", vec_kind_rate_response, response_fields},
    {"ha_schedule", vec_kind_ha_schedule, ha_fields},
    {"admin_tenant_mutation", vec_kind_admin_tenant_mutation, vec_admin_tenant_mutation_fields},
    {"admin_tenant_ack", vec_kind_admin_tenant_ack, vec_admin_tenant_ack_fields},
    {"admin_status_query", vec_kind_admin_status_query, vec_admin_status_query_fields},
    {"admin_status_response", vec_kind_admin_status_response, vec_admin_status_response_fields},
    {"admin_metrics_query", vec_kind_admin_metrics_query, vec_admin_metrics_query_fields},
    {"admin_metrics_response", vec_kind_admin_metrics_response, vec_admin_metrics_response_fields},
};

const vec_kind_t *vec_kind_find(const json_t *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (vj_string_is(name, kinds[i].name))
            return &kinds[i];
    }
    return NULL;
}

const char *const vec_error_classes[] = {"bech32", "hrp",       "length", "version",     "quota",
                                         "range",  "malformed", "auth",   "correlation", NULL};

bool vec_is_error_class(const json_t *v)
{
    for (size_t i = 0; vec_error_classes[i] != NULL; i++) {
        if (vj_string_is(v, vec_error_classes[i]))
            return true;
    }
    return false;
}

/* A core failure without a schema class maps to this, which no file can expect. */
static const char unclassified[] = "(unclassified)";

const char *vec_key_error_class(r_key_error_t reason)
{
    switch (reason) {
    case R_KEY_ERR_BECH32: return "bech32";
    case R_KEY_ERR_HRP: return "hrp";
    case R_KEY_ERR_LENGTH: return "length";
    case R_KEY_ERR_VERSION: return "version";
    case R_KEY_ERR_QUOTA: return "quota";
    default: break; /* R_KEY_OK, argument errors: no schema class */
    }
    return unclassified;
}

const char *vec_verdict_class(rl_verdict_class_t cls)
{
    switch (cls) {
    case RL_VERDICT_MALFORMED: return "malformed";
    case RL_VERDICT_AUTH: return "auth";
    case RL_VERDICT_CORRELATION: return "correlation";
    case RL_VERDICT_OK: break;
    }
    return unclassified;
}

void vec_run_reject(vec_run_t *run, const char *error_class, const char *fmt, ...)
{
    run->status = VEC_RUN_REJECTED;
    run->error_class = error_class;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(run->reason, sizeof run->reason, fmt, ap);
    va_end(ap);
}

void vec_run_accept(vec_run_t *run, json_t *actual)
{
    if (actual == NULL) {
        run->status = VEC_RUN_BAD_INPUT;
        snprintf(run->err.msg, sizeof run->err.msg, "runner: out of memory building the result");
        return;
    }
    run->status = VEC_RUN_ACCEPTED;
    run->actual = actual;
}

json_t *vec_json_hex(const uint8_t *bytes, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    char *text = malloc(2u * len + 1u);
    if (text == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        text[2 * i] = digits[bytes[i] >> 4];
        text[2 * i + 1] = digits[bytes[i] & 0x0Fu];
    }
    text[2 * len] = '\0';
    json_t *v = json_string(text);
    free(text);
    return v;
}

json_t *vec_json_dec_u64(uint64_t x)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, x);
    return json_string(text);
}

json_t *vec_json_quotas(const r_api_key_quotas_t *q)
{
    /* The schema writes every quota as a decimal string. */
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
                     "rate_buckets_max", vec_json_dec_u64(q->rate_buckets_max),
                     "latency_services_max", vec_json_dec_u64(q->latency_services_max),
                     "metrics_labels_max", vec_json_dec_u64(q->metrics_labels_max),
                     "latency_buffer_size_max", vec_json_dec_u64(q->latency_buffer_size_max),
                     "dedup_ttl_ms_max", vec_json_dec_u64(q->dedup_ttl_ms_max),
                     "rate_window_size_ms_max", vec_json_dec_u64(q->rate_window_size_ms_max));
}
