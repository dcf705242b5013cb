/* SPDX-License-Identifier: MIT */
/* metrics_response.c - Metrics Response 0x524D codec and record accessors
 * (wire_protocol.md "Metrics Response PDU", "Response Variants", "Metrics
 * Record Formats").
 *   0 pdu_type | 2 pdu_size | 4 metric_family | 5 page_kind | 6 reserved (0)
 *   *_PAGE_MORE: next_cursor_len u16, reserved u16 (0), next_cursor, zero padding to 4
 *   records to the end of the PDU:
 *     summary 40 bytes: five u64
 *     label 36 + round_up_4(label_len): four u64, label_len u16, padding u16 (0), label, zero padding
 *     service 64 bytes: latency_tracker_id[16], four u32, four u64 */
#include <string.h>

#include "rl_admin.h"
#include "rl_le.h"

size_t r_admin_metrics_label_record_size(size_t label_len) {
    return R_ADMIN_METRICS_LABEL_RECORD_FIXED + label_len + rl_admin_pad4(label_len);
}

static int known_page_kind(unsigned family, unsigned kind) {
    switch (family) {
    case R_METRICS_TENANT_SUMMARY: return kind <= R_SUMMARY_INTERNAL_ERROR;
    case R_METRICS_TENANT_LABEL_COUNTERS:
    case R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS: return kind <= R_PAGE_CURSOR_INVALID;
    default: return 0;
    }
}

/* Kinds that carry records: SUMMARY_PAGE, *_PAGE_MORE, *_PAGE_LAST. */
static int carries_records(unsigned family, unsigned kind) {
    return family == R_METRICS_TENANT_SUMMARY ? kind == R_SUMMARY_PAGE : kind == R_PAGE_MORE || kind == R_PAGE_LAST;
}

bool r_admin_metrics_is_error_kind(uint8_t metric_family, uint8_t page_kind) {
    if (!known_page_kind(metric_family, page_kind)) {
        return false;
    }
    return metric_family == R_METRICS_TENANT_SUMMARY ? page_kind >= R_SUMMARY_NOT_FOUND : page_kind >= R_PAGE_NOT_FOUND;
}

const char *r_admin_metrics_page_kind_name(uint8_t metric_family, uint8_t page_kind) {
    static const char *const summary[] = {"SUMMARY_PAGE", "METRICS_NOT_FOUND", "METRICS_INVALID_QUERY",
                                          "METRICS_UNSUPPORTED", "METRICS_INTERNAL_ERROR"};
    static const char *const labels[] = {"LABELS_PAGE_MORE", "LABELS_PAGE_LAST", "LABELS_EMPTY"};
    static const char *const services[] = {"SERVICES_PAGE_MORE", "SERVICES_PAGE_LAST", "SERVICES_EMPTY"};
    static const char *const errors[] = {"METRICS_NOT_FOUND",      "METRICS_INVALID_QUERY",
                                         "METRICS_UNSUPPORTED",    "METRICS_INTERNAL_ERROR",
                                         "METRICS_RECORD_TOO_LARGE", "METRICS_CURSOR_INVALID"};
    if (!known_page_kind(metric_family, page_kind)) {
        return "UNKNOWN";
    }
    if (metric_family == R_METRICS_TENANT_SUMMARY) {
        return summary[page_kind];
    }
    if (page_kind >= R_PAGE_NOT_FOUND) {
        return errors[page_kind - R_PAGE_NOT_FOUND];
    }
    return metric_family == R_METRICS_TENANT_LABEL_COUNTERS ? labels[page_kind] : services[page_kind];
}

/* ---- encoding -------------------------------------------------------------------- */

static int records_size(const r_admin_metrics_response_t *mr, size_t *size, r_admin_diag_t *diag) {
    static const char name[] = "metrics_response";
    *size = 0;
    if (mr->metric_family == R_METRICS_TENANT_SUMMARY) {
        if (mr->record_count != 1) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_NO_RECORDS,
                                 "%s: SUMMARY_PAGE carries exactly one record", name);
        }
        *size = R_ADMIN_METRICS_SUMMARY_RECORD_SIZE;
        return RCLIENT_OK;
    }
    if (mr->record_count == 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_NO_RECORDS, "%s: %s needs at least one record", name,
                             r_admin_metrics_page_kind_name(mr->metric_family, mr->page_kind));
    }
    if (mr->metric_family == R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS) {
        if (mr->services == NULL) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL services", name);
        }
        if (mr->record_count > R_ADMIN_MAX_PDU / R_ADMIN_METRICS_SERVICE_RECORD_SIZE) {
            *size = R_ADMIN_MAX_PDU + 1;
            return RCLIENT_OK;
        }
        *size = mr->record_count * R_ADMIN_METRICS_SERVICE_RECORD_SIZE;
        return RCLIENT_OK;
    }
    if (mr->labels == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL labels", name);
    }
    size_t total = 0;
    for (size_t i = 0; i < mr->record_count && total <= R_ADMIN_MAX_PDU; i++) {
        const r_metrics_label_record_t *r = &mr->labels[i];
        if (r->label_len > 0xFFFFu || (r->label == NULL && r->label_len > 0)) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: label record %zu: bad label",
                                 name, i);
        }
        total += r_admin_metrics_label_record_size(r->label_len);
    }
    *size = total;
    return RCLIENT_OK;
}

static uint8_t *put_label(uint8_t *p, const r_metrics_label_record_t *r) {
    rl_store_u64(p, r->requests_success);
    rl_store_u64(p + 8, r->requests_rate_limited);
    rl_store_u64(p + 16, r->requests_guard_failed);
    rl_store_u64(p + 24, r->requests_auth_failed);
    rl_store_u16(p + 32, (uint16_t)r->label_len);
    if (r->label_len > 0) {
        memcpy(p + 36, r->label, r->label_len);
    }
    return p + r_admin_metrics_label_record_size(r->label_len);
}

static uint8_t *put_service(uint8_t *p, const r_metrics_service_record_t *r) {
    memcpy(p, r->latency_tracker_id, R_CLIENT_ID_LEN);
    rl_store_u32(p + 16, r->ttl_ms);
    rl_store_u32(p + 20, r->max_samples);
    rl_store_u32(p + 24, r->buffer_size);
    rl_store_u32(p + 28, r->min_sample_threshold);
    rl_store_u64(p + 32, r->report_count);
    rl_store_u64(p + 40, r->checks_total);
    rl_store_u64(p + 48, r->checks_passed);
    rl_store_u64(p + 56, r->checks_failed);
    return p + R_ADMIN_METRICS_SERVICE_RECORD_SIZE;
}

int r_admin_encode_metrics_response(uint8_t *buf, size_t cap, const r_admin_metrics_response_t *mr, size_t *out_len,
                                    r_admin_diag_t *diag) {
    static const char name[] = "metrics_response";
    if (mr == NULL || out_len == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    unsigned family = mr->metric_family;
    unsigned kind = mr->page_kind;
    if (family < R_METRICS_TENANT_SUMMARY || family > R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_FAMILY, "%s: metric_family 0x%02X unknown", name,
                             family);
    }
    if (!known_page_kind(family, kind)) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_PAGE_KIND,
                             "%s: page_kind 0x%02X unknown for family 0x%02X", name, kind, family);
    }
    int more = family != R_METRICS_TENANT_SUMMARY && kind == R_PAGE_MORE;
    size_t need = 8;
    size_t cursor_part = 0;
    if (more) {
        if (mr->next_cursor_len == 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_EMPTY_CURSOR, "%s: PAGE_MORE without cursor",
                                 name);
        }
        if (mr->next_cursor == NULL) {
            return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL next_cursor", name);
        }
        if (mr->next_cursor_len > R_ADMIN_MAX_CURSOR) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TOO_LARGE,
                                 "%s: next_cursor of %zu bytes does not fit", name, mr->next_cursor_len);
        }
        cursor_part = 4 + mr->next_cursor_len + rl_admin_pad4(mr->next_cursor_len);
    } else if (mr->next_cursor_len != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: a cursor only goes with PAGE_MORE",
                             name);
    }
    size_t rec = 0;
    if (carries_records(family, kind)) {
        int rc = records_size(mr, &rec, diag);
        if (rc != RCLIENT_OK) {
            return rc;
        }
    } else if (mr->record_count != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: %s carries no records", name,
                             r_admin_metrics_page_kind_name(mr->metric_family, mr->page_kind));
    }
    need += cursor_part + rec;
    int rc = rl_admin_check_room(buf, cap, need, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    memset(buf, 0, need);
    rl_store_u16(buf, R_ADMIN_PDU_METRICS_RESPONSE);
    rl_store_u16(buf + 2, (uint16_t)need);
    buf[4] = (uint8_t)family;
    buf[5] = (uint8_t)kind;
    uint8_t *p = buf + 8;
    if (more) {
        rl_store_u16(p, (uint16_t)mr->next_cursor_len);
        memcpy(p + 4, mr->next_cursor, mr->next_cursor_len);
        p += cursor_part;
    }
    if (rec > 0) {
        if (family == R_METRICS_TENANT_SUMMARY) {
            const r_metrics_summary_record_t *s = &mr->summary;
            rl_store_u64(p, s->requests_success);
            rl_store_u64(p + 8, s->requests_rate_limited);
            rl_store_u64(p + 16, s->requests_guard_failed);
            rl_store_u64(p + 24, s->requests_auth_failed);
            rl_store_u64(p + 32, s->service_latency_reports_total);
        } else {
            for (size_t i = 0; i < mr->record_count; i++) {
                p = family == R_METRICS_TENANT_LABEL_COUNTERS ? put_label(p, &mr->labels[i])
                                                              : put_service(p, &mr->services[i]);
            }
        }
    }
    *out_len = need;
    return rl_admin_ok(diag);
}

/* ---- decoding -------------------------------------------------------------------- */

/* Walk the label records in p[0..n): every record whole, padding zero. */
static int walk_labels(const uint8_t *p, size_t n, size_t *count, r_admin_diag_t *diag) {
    static const char name[] = "metrics_response";
    size_t off = 0;
    size_t i = 0;
    while (off < n) {
        if (n - off < R_ADMIN_METRICS_LABEL_RECORD_FIXED) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RECORD_SIZE,
                                 "%s: label record %zu: %zu bytes left, below the 36-byte fixed part", name, i, n - off);
        }
        size_t label_len = rl_load_u16(p + off + 32);
        if (rl_load_u16(p + off + 34) != 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED,
                                 "%s: label record %zu: padding after label_len not zero", name, i);
        }
        size_t pad = rl_admin_pad4(label_len);
        if (label_len + pad > n - off - R_ADMIN_METRICS_LABEL_RECORD_FIXED) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                                 "%s: label record %zu: label_len %zu (+%zu padding) runs past the PDU", name, i,
                                 label_len, pad);
        }
        if (!rl_admin_all_zero(p + off + R_ADMIN_METRICS_LABEL_RECORD_FIXED + label_len, pad)) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED,
                                 "%s: label record %zu: label_padding not zero", name, i);
        }
        off += R_ADMIN_METRICS_LABEL_RECORD_FIXED + label_len + pad;
        i++;
    }
    *count = i;
    return RCLIENT_OK;
}

int r_admin_decode_metrics_response(const uint8_t *pdu, size_t len, r_admin_metrics_response_t *out,
                                    r_admin_diag_t *diag) {
    static const char name[] = "metrics_response";
    if (pdu == NULL || out == NULL) {
        return rl_admin_fail(diag, RCLIENT_ERR_CONFIG, R_ADMIN_ERR_ARGUMENT, "%s: NULL argument", name);
    }
    int rc = rl_admin_check_header(pdu, len, R_ADMIN_PDU_METRICS_RESPONSE, name, diag);
    if (rc != RCLIENT_OK) {
        return rc;
    }
    unsigned family = pdu[4];
    unsigned kind = pdu[5];
    if (family < R_METRICS_TENANT_SUMMARY || family > R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_FAMILY, "%s: metric_family 0x%02X unknown", name,
                             family);
    }
    if (!known_page_kind(family, kind)) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PAGE_KIND,
                             "%s: page_kind 0x%02X unknown for family 0x%02X", name, kind, family);
    }
    if (rl_load_u16(pdu + 6) != 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: reserved field not zero", name);
    }
    r_admin_metrics_response_t m;
    memset(&m, 0, sizeof m);
    m.metric_family = (uint8_t)family;
    m.page_kind = (uint8_t)kind;
    if (!carries_records(family, kind)) {
        if (len != 8) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE,
                                 "%s: %s has no page data, but pdu_size is %zu", name,
                                 r_admin_metrics_page_kind_name(m.metric_family, m.page_kind), len);
        }
        *out = m;
        return rl_admin_ok(diag);
    }
    size_t off = 8;
    if (family != R_METRICS_TENANT_SUMMARY && kind == R_PAGE_MORE) {
        if (len - off < 4) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                                 "%s: PAGE_MORE without its cursor prefix", name);
        }
        m.next_cursor_len = rl_load_u16(pdu + off);
        if (rl_load_u16(pdu + off + 2) != 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED,
                                 "%s: cursor prefix reserved field not zero", name);
        }
        if (m.next_cursor_len == 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_EMPTY_CURSOR, "%s: next_cursor_len 0", name);
        }
        size_t pad = rl_admin_pad4(m.next_cursor_len);
        if (m.next_cursor_len + pad > len - off - 4) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_LENGTH_FIELD,
                                 "%s: next_cursor_len %zu (+%zu padding) runs past the PDU", name, m.next_cursor_len, pad);
        }
        m.next_cursor = pdu + off + 4;
        if (!rl_admin_all_zero(m.next_cursor + m.next_cursor_len, pad)) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED, "%s: cursor_padding not zero", name);
        }
        off += 4 + m.next_cursor_len + pad;
    }
    m.records = pdu + off;
    m.records_len = len - off;
    if (m.records_len == 0) {
        return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_NO_RECORDS, "%s: %s without records", name,
                             r_admin_metrics_page_kind_name(m.metric_family, m.page_kind));
    }
    switch (family) {
    case R_METRICS_TENANT_SUMMARY:
        if (m.records_len != R_ADMIN_METRICS_SUMMARY_RECORD_SIZE) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RECORD_SIZE,
                                 "%s: SUMMARY_PAGE with %zu record bytes, want exactly 40", name, m.records_len);
        }
        m.record_count = 1;
        m.summary.requests_success = rl_load_u64(m.records);
        m.summary.requests_rate_limited = rl_load_u64(m.records + 8);
        m.summary.requests_guard_failed = rl_load_u64(m.records + 16);
        m.summary.requests_auth_failed = rl_load_u64(m.records + 24);
        m.summary.service_latency_reports_total = rl_load_u64(m.records + 32);
        break;
    case R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS:
        if (m.records_len % R_ADMIN_METRICS_SERVICE_RECORD_SIZE != 0) {
            return rl_admin_fail(diag, RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RECORD_SIZE,
                                 "%s: %zu service record bytes, not a multiple of 64", name, m.records_len);
        }
        m.record_count = m.records_len / R_ADMIN_METRICS_SERVICE_RECORD_SIZE;
        break;
    default:
        rc = walk_labels(m.records, m.records_len, &m.record_count, diag);
        if (rc != RCLIENT_OK) {
            return rc;
        }
        break;
    }
    *out = m;
    return rl_admin_ok(diag);
}

int r_admin_metrics_label_at(const r_admin_metrics_response_t *mr, size_t i, r_metrics_label_record_t *out) {
    if (mr == NULL || out == NULL || mr->metric_family != R_METRICS_TENANT_LABEL_COUNTERS || i >= mr->record_count ||
        mr->records == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    const uint8_t *p = mr->records;
    for (size_t k = 0; k < i; k++) {
        p += r_admin_metrics_label_record_size(rl_load_u16(p + 32));
    }
    out->requests_success = rl_load_u64(p);
    out->requests_rate_limited = rl_load_u64(p + 8);
    out->requests_guard_failed = rl_load_u64(p + 16);
    out->requests_auth_failed = rl_load_u64(p + 24);
    out->label_len = rl_load_u16(p + 32);
    out->label = p + R_ADMIN_METRICS_LABEL_RECORD_FIXED;
    return RCLIENT_OK;
}

int r_admin_metrics_service_at(const r_admin_metrics_response_t *mr, size_t i, r_metrics_service_record_t *out) {
    if (mr == NULL || out == NULL || mr->metric_family != R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS ||
        i >= mr->record_count || mr->records == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    const uint8_t *p = mr->records + i * R_ADMIN_METRICS_SERVICE_RECORD_SIZE;
    memcpy(out->latency_tracker_id, p, R_CLIENT_ID_LEN);
    out->ttl_ms = rl_load_u32(p + 16);
    out->max_samples = rl_load_u32(p + 20);
    out->buffer_size = rl_load_u32(p + 24);
    out->min_sample_threshold = rl_load_u32(p + 28);
    out->report_count = rl_load_u64(p + 32);
    out->checks_total = rl_load_u64(p + 40);
    out->checks_passed = rl_load_u64(p + 48);
    out->checks_failed = rl_load_u64(p + 56);
    return RCLIENT_OK;
}
