/* SPDX-License-Identifier: MIT */
/* admin_print.c - `rl-testbed admin` output: tables for people, one JSON
 * object per run with --json (contract: admin.h; formats in
 * tools/rl-testbed/README.md "admin"). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"

static const char *command_name(const admin_cfg_t *c) {
    switch (c->command) {
    case ADMIN_TENANT_ADD: return "tenant add";
    case ADMIN_TENANT_REMOVE: return "tenant remove";
    case ADMIN_STATUS: return "status";
    default:
        return c->family == R_METRICS_TENANT_SUMMARY ? "metrics summary"
               : c->family == R_METRICS_TENANT_LABEL_COUNTERS ? "metrics labels"
                                                              : "metrics services";
    }
}

static void json_string(FILE *f, const uint8_t *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\') {
            fprintf(f, "\\%c", s[i]);
        } else if (s[i] < 0x20 || s[i] == 0x7f) {
            fprintf(f, "\\u%04x", s[i]);
        } else {
            fputc(s[i], f); /* UTF-8 passes through */
        }
    }
    fputc('"', f);
}

/* Length of the well-formed UTF-8 sequence at s[0..n) that encodes a
 * printable character (not C0, DEL or C1; RFC 3629: shortest form, no
 * surrogates, <= U+10FFFF), or 0. */
static size_t printable_utf8(const uint8_t *s, size_t n) {
    uint8_t c = s[0];
    if (c >= 0x20 && c < 0x7f) {
        return 1;
    }
    size_t k;
    uint32_t cp, min;
    if ((c & 0xE0u) == 0xC0u) {
        k = 2, cp = c & 0x1Fu, min = 0x80u;
    } else if ((c & 0xF0u) == 0xE0u) {
        k = 3, cp = c & 0x0Fu, min = 0x800u;
    } else if ((c & 0xF8u) == 0xF0u) {
        k = 4, cp = c & 0x07u, min = 0x10000u;
    } else {
        return 0;
    }
    if (n < k) {
        return 0;
    }
    for (size_t j = 1; j < k; j++) {
        if ((s[j] & 0xC0u) != 0x80u) {
            return 0;
        }
        cp = (cp << 6) | (s[j] & 0x3Fu);
    }
    bool bad = cp < min || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu) || cp <= 0x9Fu;
    return bad ? 0 : k;
}

/* The escaped form of a label (tools/rl-testbed/README.md "admin"):
 * printable UTF-8 as it is, a backslash as \\, every other byte (controls,
 * bytes outside well-formed UTF-8) as \xNN. Label bytes are not checked for
 * UTF-8 (docs/spec-notes.md "Label bytes"), so this is what a terminal or a
 * JSON reader is given; label_hex carries the exact bytes. Returns a
 * malloc'd string, or NULL when out of memory. */
static char *label_escaped(const uint8_t *s, size_t n) {
    char *out = malloc(4 * n + 1);
    if (out == NULL) {
        return NULL;
    }
    size_t at = 0;
    for (size_t i = 0; i < n;) {
        size_t k = s[i] == '\\' ? 0 : printable_utf8(s + i, n - i);
        if (s[i] == '\\') {
            out[at++] = '\\';
            out[at++] = '\\';
            i++;
        } else if (k == 0) {
            at += (size_t)sprintf(out + at, "\\x%02x", s[i]);
            i++;
        } else {
            memcpy(out + at, s + i, k);
            at += k;
            i += k;
        }
    }
    out[at] = '\0';
    return out;
}

/* ---- status ------------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint64_t value;
    int field;            /* r_status_field_t, or -1: always known */
} row_t;

static size_t status_rows(const r_admin_status_response_t *s, row_t *r) {
    size_t n = 0;
#define ROW(nm, v, fld) (r[n++] = (row_t){nm, (uint64_t)(v), fld})
    ROW("server_id", s->server_id, -1);
    ROW("node_id", s->node_id, -1);
    ROW("listener_id", s->listener_id, -1);
    ROW("queue_index", s->queue_index, -1);
    ROW("udp_port", s->udp_port, -1);
    ROW("status_code", s->status_code, -1);
    ROW("status_flags", s->status_flags, -1);
    ROW("wire_protocol_version", s->wire_protocol_version, -1);
    ROW("degraded_reason_code", s->degraded_reason_code, -1);
    ROW("started_at_ms", s->started_at_ms, -1);
    ROW("uptime_ms", s->uptime_ms, -1);
    ROW("build_fingerprint", s->build_fingerprint, R_STATUS_BUILD_FINGERPRINT);
    ROW("health_flags", s->health_flags, -1);
    ROW("backend", s->backend, -1);
    ROW("xdp_mode", s->xdp_mode, -1);
    ROW("ifindex", s->ifindex, R_STATUS_IFINDEX);
    ROW("rx_queue_id", s->rx_queue_id, R_STATUS_RX_QUEUE_ID);
    ROW("worker_cpu", s->worker_cpu, R_STATUS_WORKER_CPU);
    ROW("rx_packets", s->rx_packets, -1);
    ROW("tx_packets", s->tx_packets, -1);
    ROW("rx_dropped", s->rx_dropped, -1);
    ROW("tx_dropped", s->tx_dropped, -1);
    ROW("parse_errors", s->parse_errors, -1);
    ROW("auth_failures", s->auth_failures, -1);
    ROW("admin_requests_total", s->admin_requests_total, -1);
    ROW("system_memory_total_bytes", s->system_memory_total_bytes, R_STATUS_SYSTEM_MEMORY_TOTAL_BYTES);
    ROW("system_memory_available_bytes", s->system_memory_available_bytes, R_STATUS_SYSTEM_MEMORY_AVAILABLE_BYTES);
    ROW("cgroup_memory_limit_bytes", s->cgroup_memory_limit_bytes, R_STATUS_CGROUP_MEMORY_LIMIT_BYTES);
    ROW("process_rss_bytes", s->process_rss_bytes, R_STATUS_PROCESS_RSS_BYTES);
    ROW("rl_memory_budget_bytes", s->rl_memory_budget_bytes, R_STATUS_RL_MEMORY_BUDGET_BYTES);
    ROW("rl_memory_allocated_bytes", s->rl_memory_allocated_bytes, R_STATUS_RL_MEMORY_ALLOCATED_BYTES);
    ROW("rl_memory_headroom_bytes", s->rl_memory_headroom_bytes, R_STATUS_RL_MEMORY_HEADROOM_BYTES);
    ROW("dedup_cache_bytes", s->dedup_cache_bytes, -1);
    ROW("api_key_rate_map_bytes", s->api_key_rate_map_bytes, -1);
    ROW("api_key_latency_map_bytes", s->api_key_latency_map_bytes, -1);
    ROW("api_key_latency_buffer_bytes", s->api_key_latency_buffer_bytes, -1);
    ROW("api_key_metrics_label_bytes", s->api_key_metrics_label_bytes, -1);
    ROW("other_runtime_bytes", s->other_runtime_bytes, -1);
    ROW("allocation_failures_total", s->allocation_failures_total, -1);
    ROW("api_keys_loaded", s->api_keys_loaded, -1);
    ROW("api_key_capacity", s->api_key_capacity, R_STATUS_API_KEY_CAPACITY);
    ROW("api_key_table_generation", s->api_key_table_generation, -1);
    ROW("api_key_table_hash", s->api_key_table_hash, -1);
    ROW("rate_bucket_quota_sum", s->rate_bucket_quota_sum, -1);
    ROW("latency_service_quota_sum", s->latency_service_quota_sum, -1);
    ROW("metrics_label_quota_sum", s->metrics_label_quota_sum, -1);
    ROW("latency_buffer_quota_sum", s->latency_buffer_quota_sum, -1);
    ROW("rate_requests_total", s->rate_requests_total, -1);
    ROW("rate_success_total", s->rate_success_total, -1);
    ROW("rate_limited_total", s->rate_limited_total, -1);
    ROW("guard_failed_total", s->guard_failed_total, -1);
    ROW("latency_reports_total", s->latency_reports_total, -1);
    ROW("dedup_hits_total", s->dedup_hits_total, -1);
    ROW("dedup_misses_total", s->dedup_misses_total, -1);
    ROW("tenant_mutations_total", s->tenant_mutations_total, -1);
    ROW("tenant_mutation_failures_total", s->tenant_mutation_failures_total, -1);
    ROW("dedup_ttl_ms_max", s->dedup_ttl_ms_max, R_STATUS_DEDUP_TTL_MS_MAX);
#undef ROW
    return n;
}

/* What a non-zero degraded_reason_code means: the spec reserves non-zero
 * values for degraded reasons; the reference server model uses 1 and 2
 * (docs/spec-notes.md "Dedup health and the replay window"). */
static const char *degraded_meaning(uint16_t code) {
    switch (code) {
    case 1:
        return "live dedup entries evicted for capacity inside their window: replay of duplicates not guaranteed";
    case 2:
        return "dedup entries lost (the simulator's degraded mode): replay of duplicates not guaranteed";
    default:
        return "a reason this tool does not know";
    }
}

static void print_status(FILE *f, const admin_cfg_t *c, const admin_result_t *r) {
    row_t rows[64];
    size_t n = status_rows(&r->status_response, rows);
    /* wire_protocol.md "For V1, CP may consider a queue healthy": also
     * "udp_port and queue_index match the probed queue endpoint"; the port
     * is the one probed (--server), the queue is not known here. */
    bool healthy = r_admin_status_healthy(&r->status_response) && r->status_response.udp_port == c->server.port;
    uint16_t degraded = r->status_response.degraded_reason_code; /* "Degraded-State Behavior" */
    if (c->json) {
        fprintf(f,
                "{\"command\":\"status\",\"ok\":true,\"server_id\":\"%" PRIu64
                "\",\"healthy\":%s,\"degraded\":%s,\"fields\":{",
                r->server_id, healthy ? "true" : "false", degraded != 0 ? "true" : "false");
        for (size_t i = 0; i < n; i++) {
            uint64_t v = rows[i].value;
            bool known = rows[i].field < 0 || r_admin_status_get(&r->status_response, (r_status_field_t)rows[i].field, &v) == 1;
            fprintf(f, "%s\"%s\":", i ? "," : "", rows[i].name);
            if (!known) {
                fputs("null", f);
            } else {
                fprintf(f, "\"%" PRIu64 "\"", v); /* strings: u64 values exceed what JSON readers hold */
            }
        }
        fputs("}}\n", f);
        return;
    }
    fprintf(f, "status of server_id %" PRIu64 " (%s): %s", r->server_id, c->server_text,
            healthy ? "healthy" : "not healthy");
    if (degraded != 0) {
        fprintf(f, ", degraded (degraded_reason_code %u: %s)", (unsigned)degraded, degraded_meaning(degraded));
    }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = rows[i].value;
        if (rows[i].field >= 0 && r_admin_status_get(&r->status_response, (r_status_field_t)rows[i].field, &v) != 1) {
            fprintf(f, "  %-32s unknown\n", rows[i].name);
        } else {
            fprintf(f, "  %-32s %" PRIu64 "\n", rows[i].name, v);
        }
    }
}

/* ---- metrics ------------------------------------------------------------------ */

static bool negative_page(const admin_cfg_t *c, const admin_result_t *r) {
    return r_admin_metrics_is_error_kind((uint8_t)c->family, r->final_page_kind);
}

static void print_metrics(FILE *f, const admin_cfg_t *c, const admin_result_t *r) {
    const char *kind = r_admin_metrics_page_kind_name((uint8_t)c->family, r->final_page_kind);
    bool neg = negative_page(c, r);
    if (c->json) {
        fprintf(f, "{\"command\":\"%s\",\"ok\":%s,\"server_id\":\"%" PRIu64 "\",\"tenant\":\"%" PRIu64
                   "\",\"final_page_kind\":\"%s\",\"pages\":%" PRIu32 ",\"restarts\":%" PRIu32,
                command_name(c), neg ? "false" : "true", r->server_id, c->tenant_id, kind, r->pages, r->restarts);
        if (c->family == R_METRICS_TENANT_SUMMARY && !neg) {
            const r_metrics_summary_record_t *s = &r->summary;
            fprintf(f, ",\"summary\":{\"requests_success\":%" PRIu64 ",\"requests_rate_limited\":%" PRIu64
                       ",\"requests_guard_failed\":%" PRIu64 ",\"requests_auth_failed\":%" PRIu64
                       ",\"service_latency_reports_total\":%" PRIu64 "}",
                    s->requests_success, s->requests_rate_limited, s->requests_guard_failed, s->requests_auth_failed,
                    s->service_latency_reports_total);
        } else if (c->family != R_METRICS_TENANT_SUMMARY) {
            fputs(",\"records\":[", f);
            for (size_t i = 0; i < r->n_records; i++) {
                const admin_record_t *rec = &r->records[i];
                fputs(i ? ",{" : "{", f);
                if (c->family == R_METRICS_TENANT_LABEL_COUNTERS) {
                    char *esc = label_escaped(rec->label.label, rec->label.label_len);
                    fputs("\"label\":", f);
                    json_string(f, (const uint8_t *)(esc != NULL ? esc : "?"), esc != NULL ? strlen(esc) : 1);
                    free(esc);
                    fputs(",\"label_hex\":\"", f);
                    for (size_t k = 0; k < rec->label.label_len; k++) {
                        fprintf(f, "%02x", rec->label.label[k]);
                    }
                    fprintf(f, "\",\"requests_success\":%" PRIu64 ",\"requests_rate_limited\":%" PRIu64
                               ",\"requests_guard_failed\":%" PRIu64 ",\"requests_auth_failed\":%" PRIu64 "}",
                            rec->label.requests_success, rec->label.requests_rate_limited,
                            rec->label.requests_guard_failed, rec->label.requests_auth_failed);
                } else {
                    const r_metrics_service_record_t *s = &rec->service;
                    fputs("\"latency_tracker_id\":\"", f);
                    for (size_t k = 0; k < R_CLIENT_ID_LEN; k++) {
                        fprintf(f, "%02x", s->latency_tracker_id[k]);
                    }
                    fprintf(f, "\",\"ttl_ms\":%" PRIu32 ",\"max_samples\":%" PRIu32 ",\"buffer_size\":%" PRIu32
                               ",\"min_sample_threshold\":%" PRIu32 ",\"report_count\":%" PRIu64
                               ",\"checks_total\":%" PRIu64 ",\"checks_passed\":%" PRIu64 ",\"checks_failed\":%" PRIu64
                               "}",
                            s->ttl_ms, s->max_samples, s->buffer_size, s->min_sample_threshold, s->report_count,
                            s->checks_total, s->checks_passed, s->checks_failed);
                }
            }
            fputc(']', f);
        }
        fputs("}\n", f);
        return;
    }
    if (neg) {
        fprintf(stderr, "rl-testbed admin: %s of tenant %" PRIu64 ": the server answered %s\n", command_name(c),
                c->tenant_id, kind);
        return;
    }
    fprintf(f, "%s of tenant %" PRIu64 " from server_id %" PRIu64 " (%" PRIu32 " page(s)):\n", command_name(c),
            c->tenant_id, r->server_id, r->pages);
    if (c->family == R_METRICS_TENANT_SUMMARY) {
        const r_metrics_summary_record_t *s = &r->summary;
        fprintf(f, "  requests_success               %" PRIu64 "\n", s->requests_success);
        fprintf(f, "  requests_rate_limited          %" PRIu64 "\n", s->requests_rate_limited);
        fprintf(f, "  requests_guard_failed          %" PRIu64 "\n", s->requests_guard_failed);
        fprintf(f, "  requests_auth_failed           %" PRIu64 "\n", s->requests_auth_failed);
        fprintf(f, "  service_latency_reports_total  %" PRIu64 "\n", s->service_latency_reports_total);
        return;
    }
    if (c->family == R_METRICS_TENANT_LABEL_COUNTERS) {
        fprintf(f, "  %-24s %12s %12s %12s %12s\n", "label", "success", "rate_limited", "guard_failed", "auth_failed");
        for (size_t i = 0; i < r->n_records; i++) {
            const r_metrics_label_record_t *l = &r->records[i].label;
            char *esc = l->label_len == 0 ? NULL : label_escaped(l->label, l->label_len);
            const char *shown = l->label_len == 0 ? "(empty)" : esc != NULL ? esc : "?";
            fprintf(f, "  %s", shown);
            int pad = 24;
            for (const char *q = shown; *q != '\0'; q++) {
                pad -= ((unsigned char)*q & 0xC0) != 0x80; /* one a character: UTF-8 continuation bytes take no column */
            }
            free(esc);
            fprintf(f, "%*s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", pad > 0 ? pad : 0, "",
                    l->requests_success, l->requests_rate_limited, l->requests_guard_failed, l->requests_auth_failed);
        }
    } else {
        fprintf(f, "  %-52s %8s %8s %8s %8s\n", "service (id:ttl_ms:max_samples:buffer_size:min_samples)", "reports",
                "checks", "passed", "failed");
        for (size_t i = 0; i < r->n_records; i++) {
            const r_metrics_service_record_t *s = &r->records[i].service;
            fputs("  ", f);
            for (size_t k = 0; k < R_CLIENT_ID_LEN; k++) {
                fprintf(f, "%02x", s->latency_tracker_id[k]);
            }
            fprintf(f, ":%" PRIu32 ":%" PRIu32 ":%" PRIu32 ":%" PRIu32 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                       " %8" PRIu64 "\n",
                    s->ttl_ms, s->max_samples, s->buffer_size, s->min_sample_threshold, s->report_count,
                    s->checks_total, s->checks_passed, s->checks_failed);
        }
    }
    fprintf(f, "  %zu record(s)\n", r->n_records);
}

int admin_print(FILE *f, const admin_cfg_t *c, const admin_result_t *r) {
    if (r->status != RCLIENT_OK || r->nomem) {
        const char *why = r->nomem ? "out of memory"
                          : r->status == RCLIENT_ERR_TIMEOUT
                              ? (c->command == ADMIN_TENANT_ADD || c->command == ADMIN_TENANT_REMOVE
                                     ? "no acknowledgment before the timeout (a refused mutation is never answered, "
                                       "nor is a request under another admin key or to an address where no server "
                                       "with --admin-secret listens: see the server's log)"
                                     : "no answer before the timeout (no server with --admin-secret listens at that "
                                       "address, or its admin key is another: see the server's log)")
                              : r_client_strerror(r->status);
        if (c->json) {
            fprintf(f, "{\"command\":\"%s\",\"ok\":false,\"error\":\"%s\",\"sent\":%" PRIu32 "}\n", command_name(c),
                    r->status == RCLIENT_ERR_TIMEOUT ? "timeout" : r_client_strerror(r->status), r->sent);
        } else {
            fprintf(stderr, "rl-testbed admin: %s: %s (%" PRIu32 " datagram(s) sent to %s)\n", command_name(c), why,
                    r->sent, c->server_text);
        }
        return ADMIN_EXIT_FAILED;
    }
    switch (c->command) {
    case ADMIN_TENANT_ADD:
    case ADMIN_TENANT_REMOVE:
        if (c->json) {
            fprintf(f, "{\"command\":\"%s\",\"ok\":true,\"server_id\":\"%" PRIu64 "\",\"tenant\":\"%" PRIu64
                       "\",\"sent\":%" PRIu32 "}\n",
                    command_name(c), r->server_id, c->tenant_id, r->sent);
        } else {
            fprintf(f, "%s: tenant %" PRIu64 " acknowledged by server_id %" PRIu64 "\n", command_name(c),
                    c->tenant_id, r->server_id);
        }
        return ADMIN_EXIT_OK;
    case ADMIN_STATUS:
        print_status(f, c, r);
        return ADMIN_EXIT_OK;
    default:
        print_metrics(f, c, r);
        return negative_page(c, r) ? ADMIN_EXIT_NEGATIVE : ADMIN_EXIT_OK;
    }
}
