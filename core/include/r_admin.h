/* SPDX-License-Identifier: MIT */
/* r_admin.h - the administrative channel of the Ratelimitly protocol
 * (wire_protocol.md "Administrative PDUs").
 *
 * Three layers, usable separately (the reference server reuses the first two):
 *
 *  1. PDU codec (plaintext): encode and decode Tenant Mutation 0x544D, Tenant
 *     Ack 0x5441, Status Query 0x5153, Status Response V1 0x5253, Metrics
 *     Query 0x514D and Metrics Response 0x524D, both directions, with strict
 *     validation (lengths, reserved and padding fields, flags, kinds, record
 *     sizes). No cryptography, no allocation.
 *  2. Admin frame: Tenant TLV with tenant_mgmt_flag = 1, AES-256-GCM Auth TLV,
 *     the PDU encrypted under the administrative key (an rl-secret credential,
 *     wire_protocol.md "Administrative Authentication", "AES-256-GCM Normative
 *     Framing"). Sealing takes the nonce from the caller; opening checks the
 *     framing and the tag and decrypts in place.
 *  3. Client operations (sans-IO, like r_client.h): a tenant mutation with
 *     replays under one unique_id, a status query, a paginated metrics query.
 *     The host supplies time, randomness and sending through r_io_ops_t and
 *     delivers datagrams and timer expiries.
 *
 * Errors. Every function returns an r_client_error_t code (r_client.h):
 * RCLIENT_OK, RCLIENT_ERR_CONFIG (a NULL or out-of-range argument: the
 * caller's mistake), RCLIENT_ERR_PROTOCOL (bytes that break a wire rule, or an
 * encoding that does not fit), RCLIENT_ERR_AUTH (random source or cipher
 * failure), RCLIENT_ERR_NOMEM, RCLIENT_ERR_IO (a send failed). Every function
 * that can fail on input also takes an optional r_admin_diag_t *diag (may be
 * NULL) that receives the specific r_admin_reason_t and a message naming the
 * field; each distinct wire rule has its own reason.
 *
 * Ownership. Decoded views (r_admin_tenant_mutation_t.name, cursors, metrics
 * records) point into the caller's buffer, which must outlive them. Nothing in
 * layers 1-2 allocates except r_admin_key_create*().
 *
 * Thread safety. Layer 1 is pure. An r_admin_key_t and an r_admin_op_t must
 * not be used from two threads at once.
 */
#ifndef R_ADMIN_H
#define R_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "r_client_export.h"
#include "r_client_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Constants (wire_protocol.md "PDU Type Summary", "Administrative PDUs") ---- */
#define R_ADMIN_PDU_TENANT_MUTATION 0x544Du  /* "TM" */
#define R_ADMIN_PDU_TENANT_ACK 0x5441u       /* "TA" */
#define R_ADMIN_PDU_STATUS_QUERY 0x5153u     /* "SQ" */
#define R_ADMIN_PDU_STATUS_RESPONSE 0x5253u  /* "SR" */
#define R_ADMIN_PDU_METRICS_QUERY 0x514Du    /* "MQ" */
#define R_ADMIN_PDU_METRICS_RESPONSE 0x524Du /* "MR" */

#define R_ADMIN_FRAME_OVERHEAD 72u      /* Tenant TLV 40 + AES Auth TLV 32 */
#define R_ADMIN_MAX_PDU 1128u           /* R_CLIENT_MAX_DATAGRAM - R_ADMIN_FRAME_OVERHEAD */
#define R_ADMIN_NONCE_LEN 12u
#define R_ADMIN_TENANT_MUTATION_FIXED 10u /* pdu_type, pdu_size, operation, flags, dedup_ttl_ms */
#define R_ADMIN_TENANT_ACK_SIZE 12u
#define R_ADMIN_STATUS_QUERY_SIZE 8u
#define R_ADMIN_STATUS_RESPONSE_SIZE 448u
#define R_ADMIN_STATUS_RECORD_LEN 440u
#define R_ADMIN_STATUS_SCHEMA_V1 1u
#define R_ADMIN_METRICS_SUMMARY_RECORD_SIZE 40u
#define R_ADMIN_METRICS_SERVICE_RECORD_SIZE 64u
#define R_ADMIN_METRICS_LABEL_RECORD_FIXED 36u /* four counters, label_len, padding */
#define R_ADMIN_MAX_CURSOR 1116u /* largest cursor a metrics query can carry in one datagram */

/* ---- Diagnostics ------------------------------------------------------------- */

/* Why an input was rejected. One value per rule; the order is not meaningful. */
typedef enum {
    R_ADMIN_OK = 0,
    R_ADMIN_ERR_ARGUMENT,          /* NULL or out-of-range argument (RCLIENT_ERR_CONFIG) */
    R_ADMIN_ERR_BUFFER,            /* output buffer too small (RCLIENT_ERR_CONFIG) */
    R_ADMIN_ERR_TOO_LARGE,         /* encoding would exceed one 1200-byte datagram (RCLIENT_ERR_PROTOCOL) */
    /* framing (wire_protocol.md "Tenant Header", "Auth Header") */
    R_ADMIN_ERR_TRUNCATED,         /* fewer bytes than the frame or PDU header needs */
    R_ADMIN_ERR_TENANT_TLV_TYPE,   /* first TLV is not 0x4C52 */
    R_ADMIN_ERR_TENANT_TLV_SIZE,   /* tenant tlv_size is not 40 */
    R_ADMIN_ERR_TENANT_PADDING,    /* tenant padding is not zero */
    R_ADMIN_ERR_STEERING,          /* steering_feedback above 1 */
    R_ADMIN_ERR_MGMT_FLAG,         /* tenant_mgmt_flag is not 1 */
    R_ADMIN_ERR_AUTH_TLV_TYPE,     /* auth TLV is not AES-256-GCM 0x4541 */
    R_ADMIN_ERR_AUTH_TLV_SIZE,     /* AES auth tlv_size is not 32 */
    R_ADMIN_ERR_TAG,               /* AES-GCM tag does not verify under the admin key */
    /* PDU */
    R_ADMIN_ERR_PDU_TYPE,          /* pdu_type is not the expected kind */
    R_ADMIN_ERR_PDU_SIZE,          /* pdu_size below 8, not the bytes present, or wrong for the kind */
    R_ADMIN_ERR_RESERVED,          /* a reserved or padding field is not zero */
    R_ADMIN_ERR_FLAGS,             /* tenant mutation flags are not zero */
    R_ADMIN_ERR_OPERATION,         /* unknown tenant operation (not 0x03 ADD / 0x05 REMOVE) */
    R_ADMIN_ERR_LENGTH_FIELD,      /* name_len / tenant_key_len / cursor_len / label_len overruns the PDU */
    R_ADMIN_ERR_ACK_STATUS,        /* tenant ack status is not SUCCESS 0x00 */
    R_ADMIN_ERR_SCHEMA_VERSION,    /* status schema_version is not 1 */
    R_ADMIN_ERR_QUERY_KIND,        /* unknown query_kind for the status query or metric family */
    R_ADMIN_ERR_RECORD_LEN,        /* status record_len is not 440 */
    R_ADMIN_ERR_FAMILY,            /* unknown metric_family */
    R_ADMIN_ERR_PAGE_KIND,         /* unknown page_kind for the metric family */
    R_ADMIN_ERR_RECORD_SIZE,       /* page data is not a whole number of records of the family */
    R_ADMIN_ERR_NO_RECORDS,        /* a *_PAGE_MORE / *_PAGE_LAST / SUMMARY_PAGE without its records */
    R_ADMIN_ERR_EMPTY_CURSOR,      /* cursor_len / next_cursor_len of 0 */
    R_ADMIN_ERR_FLAG_BITS,         /* an encoder was given undefined status_flags / health_flags bits */
    R_ADMIN_ERR_CREDENTIAL,        /* tenant_key is not a valid rl-none / rl-cookie / rl-aes credential */
    R_ADMIN_ERR_KEY_ID_MISMATCH,   /* tenant_key's key_id differs from the Tenant Header key_id */
    /* correlation of a response with an operation's request */
    R_ADMIN_ERR_UNIQUE_ID,         /* response unique_id is not the request's */
    R_ADMIN_ERR_SERVER_ID,         /* response server_id is not the expected one / differs from the SR field */
    R_ADMIN_ERR_ACK_OPERATION,     /* tenant ack operation is not the request's */
    R_ADMIN_ERR_FAMILY_ECHO,       /* metrics response family is not the request's */
    R_ADMIN_ERR_STATE,             /* the operation is not in flight */
    R_ADMIN_ERR_CRYPTO,            /* random source or cipher failure (RCLIENT_ERR_AUTH) */
    R_ADMIN_ERR_NOMEM,             /* allocation failure */
    R_ADMIN_ERR_SEND               /* the host's udp_send failed (RCLIENT_ERR_IO) */
} r_admin_reason_t;

typedef struct {
    r_admin_reason_t reason;
    char message[128]; /* NUL-terminated, names the field; never holds key or credential bytes */
} r_admin_diag_t;

/* Static name of a reason ("R_ADMIN_ERR_RESERVED", ...). Never NULL; unknown
 * values give "R_ADMIN_ERR_UNKNOWN". */
RCLIENT_API const char *r_admin_reason_name(r_admin_reason_t reason);

/* ---- Layer 1: PDU codec --------------------------------------------------------
 * Encoders: write the plaintext PDU into buf[0..cap), set *out_len. Return
 * RCLIENT_OK; RCLIENT_ERR_CONFIG (NULL argument, a field out of its wire
 * range, cap too small: R_ADMIN_ERR_ARGUMENT / R_ADMIN_ERR_BUFFER);
 * RCLIENT_ERR_PROTOCOL (R_ADMIN_ERR_TOO_LARGE: over R_ADMIN_MAX_PDU). buf is
 * unspecified and *out_len untouched on error.
 * Decoders: read exactly pdu[0..len) (a whole PDU: pdu_size must equal len),
 * fill *out. Return RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL argument) or
 * RCLIENT_ERR_PROTOCOL with the rule in diag; *out is untouched on error.
 * Checks run in the order: header (truncated, pdu_type, pdu_size), then the
 * fields in wire order. */

/* Tenant Mutation (wire_protocol.md "Tenant Mutation PDU"). */
typedef enum { R_TENANT_OP_ADD = 0x03, R_TENANT_OP_REMOVE = 0x05 } r_tenant_operation_t;

typedef struct {
    uint8_t operation;        /* r_tenant_operation_t */
    uint32_t dedup_ttl_ms;    /* replay-window request, ms */
    /* ADD only (must be NULL/0 for REMOVE): */
    const uint8_t *name;      /* UTF-8 tenant name, name_len 0..255 bytes; may be NULL when 0 */
    size_t name_len;
    const char *tenant_key;   /* Bech32 credential text rl-none / rl-cookie / rl-aes, 0..255 bytes */
    size_t tenant_key_len;
} r_admin_tenant_mutation_t;

/* Layout: pdu_type, pdu_size, operation u8, flags u8 (0), dedup_ttl_ms u32,
 * then for ADD name_len u8, name, tenant_key_len u8, tenant_key; nothing for
 * REMOVE. pdu_size = 10 (+ 2 + name_len + tenant_key_len for ADD). The
 * encoder does not parse tenant_key (see r_admin_tenant_mutation_check). */
RCLIENT_API int r_admin_encode_tenant_mutation(uint8_t *buf, size_t cap, const r_admin_tenant_mutation_t *tm,
                                               size_t *out_len, r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (below 10, REMOVE with a
 * payload, bytes left after tenant_key), OPERATION, FLAGS, LENGTH_FIELD (ADD
 * without name_len, name_len or tenant_key_len running past the PDU). name
 * and tenant_key point into pdu. */
RCLIENT_API int r_admin_decode_tenant_mutation(const uint8_t *pdu, size_t len, r_admin_tenant_mutation_t *out,
                                               r_admin_diag_t *diag);
/* Server-side semantic check of a decoded ADD (wire_protocol.md "Deterministic
 * validation rules", "Credential Validation Rules"): tenant_key decodes as an
 * API key (rl-none, rl-cookie, rl-aes: unknown HRPs rejected) and its key_id
 * equals header_key_id. REMOVE always passes. out_info (may be NULL) receives
 * the decoded key; it holds secret bytes: cleanse it when done. Returns
 * RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL tm) or RCLIENT_ERR_PROTOCOL with
 * R_ADMIN_ERR_CREDENTIAL (message carries the credential rule) or
 * R_ADMIN_ERR_KEY_ID_MISMATCH. */
RCLIENT_API int r_admin_tenant_mutation_check(const r_admin_tenant_mutation_t *tm, uint64_t header_key_id,
                                              r_auth_key_info_t *out_info, r_admin_diag_t *diag);

/* Tenant Ack (wire_protocol.md "Tenant Acknowledgment PDU"): 12 bytes,
 * operation, status 0x00, two reserved u16 and padding u16 all zero. */
typedef struct {
    uint8_t operation;
    uint8_t status;           /* always 0x00 SUCCESS on the wire */
} r_admin_tenant_ack_t;

/* Encoder: operation must be ADD or REMOVE, status 0. */
RCLIENT_API int r_admin_encode_tenant_ack(uint8_t *buf, size_t cap, const r_admin_tenant_ack_t *ack, size_t *out_len,
                                          r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (not 12), OPERATION,
 * ACK_STATUS, RESERVED (either reserved u16 or the padding). */
RCLIENT_API int r_admin_decode_tenant_ack(const uint8_t *pdu, size_t len, r_admin_tenant_ack_t *out,
                                          r_admin_diag_t *diag);

/* Status Query (wire_protocol.md "Status Query PDU"): 8 bytes,
 * schema_version 1, query_kind 0x00 CURRENT_STATUS, reserved 0. */
#define R_ADMIN_STATUS_CURRENT 0x00u
typedef struct {
    uint8_t schema_version;   /* 1 */
    uint8_t query_kind;       /* R_ADMIN_STATUS_CURRENT */
} r_admin_status_query_t;

RCLIENT_API int r_admin_encode_status_query(uint8_t *buf, size_t cap, const r_admin_status_query_t *q,
                                            size_t *out_len, r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (not 8), SCHEMA_VERSION,
 * QUERY_KIND, RESERVED. */
RCLIENT_API int r_admin_decode_status_query(const uint8_t *pdu, size_t len, r_admin_status_query_t *out,
                                            r_admin_diag_t *diag);

/* Status Response V1 (wire_protocol.md "Status Response PDU"): 448 bytes.
 * Every field of the table, raw as on the wire. Fields governed by a
 * status_flags validity bit must be read through r_admin_status_get(). */
#define R_STATUS_FLAG_SYSTEM_MEMORY_TOTAL_VALID (1u << 0)
#define R_STATUS_FLAG_SYSTEM_MEMORY_AVAILABLE_VALID (1u << 1)
#define R_STATUS_FLAG_CGROUP_MEMORY_LIMIT_VALID (1u << 2)
#define R_STATUS_FLAG_PROCESS_RSS_VALID (1u << 3)
#define R_STATUS_FLAG_RL_MEMORY_BUDGET_VALID (1u << 4)
#define R_STATUS_FLAG_RL_MEMORY_ALLOCATED_VALID (1u << 5)
#define R_STATUS_FLAG_RL_MEMORY_HEADROOM_VALID (1u << 6)
#define R_STATUS_FLAG_DEDUP_TTL_MS_MAX_VALID (1u << 7)
#define R_STATUS_FLAGS_DEFINED 0x00FFu

#define R_HEALTH_READY (1u << 0)
#define R_HEALTH_DATAPATH_RUNNING (1u << 1)
#define R_HEALTH_ACCEPTING_RATE_REQUESTS (1u << 2)
#define R_HEALTH_ACCEPTING_LATENCY_REPORTS (1u << 3)
#define R_HEALTH_ACCEPTING_TENANT_MUTATIONS (1u << 4)
#define R_HEALTH_FLAGS_DEFINED 0x001Fu
#define R_HEALTH_ALL_V1 R_HEALTH_FLAGS_DEFINED /* the five bits "CP may consider a queue healthy" needs */

typedef struct {
    uint8_t schema_version;          /* 1 */
    uint8_t status_code;             /* 0x00 OK; non-zero reserved for future errors (decoded as is) */
    uint16_t status_flags;           /* validity bits R_STATUS_FLAG_* */
    uint16_t wire_protocol_version;
    uint16_t record_len;             /* 440 */
    uint64_t server_id;
    uint32_t node_id;
    uint16_t listener_id;
    uint16_t queue_index;
    uint16_t udp_port;
    uint16_t degraded_reason_code;   /* 0 = none */
    uint64_t started_at_ms;          /* Unix epoch ms */
    uint64_t uptime_ms;
    uint64_t build_fingerprint;      /* 0 if unavailable */
    uint32_t health_flags;           /* R_HEALTH_* */
    uint16_t backend;                /* 0 unknown, 1 XDP, 2 UDP fallback */
    uint16_t xdp_mode;               /* 0 n/a, 1 zero-copy, 2 copy, 3 disabled */
    uint32_t ifindex;                /* UINT32_MAX if unavailable */
    uint32_t rx_queue_id;            /* UINT32_MAX if unavailable */
    uint32_t worker_cpu;             /* UINT32_MAX if unavailable */
    /* reserved0 (u32, zero) */
    uint64_t rx_packets, tx_packets, rx_dropped, tx_dropped, parse_errors, auth_failures, admin_requests_total;
    uint64_t system_memory_total_bytes;     /* bit 0 */
    uint64_t system_memory_available_bytes; /* bit 1 */
    uint64_t cgroup_memory_limit_bytes;     /* bit 2 */
    uint64_t process_rss_bytes;             /* bit 3 */
    uint64_t rl_memory_budget_bytes;        /* bit 4 */
    uint64_t rl_memory_allocated_bytes;     /* bit 5 */
    uint64_t rl_memory_headroom_bytes;      /* bit 6 */
    uint64_t dedup_cache_bytes, api_key_rate_map_bytes, api_key_latency_map_bytes, api_key_latency_buffer_bytes,
        api_key_metrics_label_bytes, other_runtime_bytes, allocation_failures_total;
    uint64_t api_keys_loaded;
    uint64_t api_key_capacity;              /* UINT64_MAX if unknown */
    uint64_t api_key_table_generation, api_key_table_hash;
    uint64_t rate_bucket_quota_sum, latency_service_quota_sum, metrics_label_quota_sum, latency_buffer_quota_sum;
    uint64_t rate_requests_total, rate_success_total, rate_limited_total, guard_failed_total, latency_reports_total,
        dedup_hits_total, dedup_misses_total, tenant_mutations_total, tenant_mutation_failures_total;
    uint32_t dedup_ttl_ms_max;              /* bit 7; ms */
    /* reserved1 (60 bytes, zero) */
} r_admin_status_response_t;

/* Encoder: schema_version must be 1 and record_len 440 (or 0, written as
 * 440); status_flags / health_flags with undefined bits are rejected
 * (R_ADMIN_ERR_FLAG_BITS). Reserved fields are written as zero. */
RCLIENT_API int r_admin_encode_status_response(uint8_t *buf, size_t cap, const r_admin_status_response_t *sr,
                                               size_t *out_len, r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (not 448), SCHEMA_VERSION,
 * RECORD_LEN, RESERVED (reserved0 or any byte of reserved1). Undefined
 * status_flags and health_flags bits are kept, not rejected (the V1 table
 * grows by defining new bits; docs/spec-notes.md). */
RCLIENT_API int r_admin_decode_status_response(const uint8_t *pdu, size_t len, r_admin_status_response_t *out,
                                               r_admin_diag_t *diag);

/* The fields of a status response, for r_admin_status_get(). */
typedef enum {
    R_STATUS_SYSTEM_MEMORY_TOTAL_BYTES = 0,
    R_STATUS_SYSTEM_MEMORY_AVAILABLE_BYTES,
    R_STATUS_CGROUP_MEMORY_LIMIT_BYTES,
    R_STATUS_PROCESS_RSS_BYTES,
    R_STATUS_RL_MEMORY_BUDGET_BYTES,
    R_STATUS_RL_MEMORY_ALLOCATED_BYTES,
    R_STATUS_RL_MEMORY_HEADROOM_BYTES,
    R_STATUS_DEDUP_TTL_MS_MAX,
    R_STATUS_IFINDEX,
    R_STATUS_RX_QUEUE_ID,
    R_STATUS_WORKER_CPU,
    R_STATUS_API_KEY_CAPACITY,
    R_STATUS_BUILD_FINGERPRINT,
    R_STATUS_FIELD_COUNT
} r_status_field_t;

/* Read an optional status field (wire_protocol.md "status_flags validity
 * bits"): returns 1 and sets *value when the field is known, 0 when it is
 * unknown (*value set to 0), -1 for a NULL argument or unknown field.
 * Unknown means: for the eight validity-governed fields (system memory total
 * and available, cgroup limit, process RSS, RL budget, allocated, headroom,
 * dedup_ttl_ms_max) the status_flags bit is clear, whatever the field
 * carries; also, with the bit set, the value is the table's own "unknown"
 * marker (u64::MAX for the memory fields, 0 for dedup_ttl_ms_max). For
 * ifindex, rx_queue_id, worker_cpu: u32::MAX; api_key_capacity: u64::MAX;
 * build_fingerprint: 0. Pure. */
RCLIENT_API int r_admin_status_get(const r_admin_status_response_t *sr, r_status_field_t field, uint64_t *value);

/* The V1 health reading of wire_protocol.md "Status Response PDU" for a
 * decoded response: status_code 0 and every R_HEALTH_ALL_V1 bit set (the
 * authentication and endpoint conditions are the caller's). Pure; false for NULL. */
RCLIENT_API bool r_admin_status_healthy(const r_admin_status_response_t *sr);

/* Metrics (wire_protocol.md "Metrics Query PDU", "Metrics Response PDU",
 * "Metrics Record Formats"). */
typedef enum {
    R_METRICS_TENANT_SUMMARY = 0x01,
    R_METRICS_TENANT_LABEL_COUNTERS = 0x02,
    R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS = 0x03
} r_metric_family_t;

/* query_kind: SUMMARY_CURRENT / LABELS_FROM_START / SERVICES_FROM_START = 0,
 * LABELS_FROM_CURSOR / SERVICES_FROM_CURSOR = 1. */
#define R_METRICS_QUERY_FROM_START 0x00u
#define R_METRICS_QUERY_FROM_CURSOR 0x01u

typedef struct {
    uint8_t metric_family;    /* r_metric_family_t */
    uint8_t query_kind;
    const uint8_t *cursor;    /* FROM_CURSOR only: opaque bytes, echoed exactly */
    size_t cursor_len;        /* 1..R_ADMIN_MAX_CURSOR with FROM_CURSOR, else 0 */
} r_admin_metrics_query_t;

/* Layout: header (family, kind, reserved 0), then for FROM_CURSOR:
 * cursor_len u16, reserved u16 (0), cursor, zero padding to a 4-byte boundary.
 * pdu_size = 8, or 12 + round_up_4(cursor_len). */
RCLIENT_API int r_admin_encode_metrics_query(uint8_t *buf, size_t cap, const r_admin_metrics_query_t *q,
                                             size_t *out_len, r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (8 for a from-start or
 * summary query; 12 + round_up_4(cursor_len) for FROM_CURSOR), FAMILY,
 * QUERY_KIND (summary has only 0; the other two 0 and 1), RESERVED (header
 * reserved, cursor reserved, cursor padding), EMPTY_CURSOR, LENGTH_FIELD
 * (cursor_len past the PDU). cursor points into pdu. */
RCLIENT_API int r_admin_decode_metrics_query(const uint8_t *pdu, size_t len, r_admin_metrics_query_t *out,
                                             r_admin_diag_t *diag);

/* page_kind values (per family; the numbering differs between families). */
#define R_SUMMARY_PAGE 0x00u
#define R_SUMMARY_NOT_FOUND 0x01u
#define R_SUMMARY_INVALID_QUERY 0x02u
#define R_SUMMARY_UNSUPPORTED 0x03u
#define R_SUMMARY_INTERNAL_ERROR 0x04u
/* TENANT_LABEL_COUNTERS and TENANT_SERVICE_LATENCY_COUNTERS share one numbering: */
#define R_PAGE_MORE 0x00u           /* LABELS_PAGE_MORE / SERVICES_PAGE_MORE */
#define R_PAGE_LAST 0x01u           /* LABELS_PAGE_LAST / SERVICES_PAGE_LAST */
#define R_PAGE_EMPTY 0x02u          /* LABELS_EMPTY / SERVICES_EMPTY */
#define R_PAGE_NOT_FOUND 0x03u
#define R_PAGE_INVALID_QUERY 0x04u
#define R_PAGE_UNSUPPORTED 0x05u
#define R_PAGE_INTERNAL_ERROR 0x06u
#define R_PAGE_RECORD_TOO_LARGE 0x07u
#define R_PAGE_CURSOR_INVALID 0x08u

typedef struct {
    uint64_t requests_success, requests_rate_limited, requests_guard_failed, requests_auth_failed;
    uint64_t service_latency_reports_total;
} r_metrics_summary_record_t;

typedef struct {
    uint64_t requests_success, requests_rate_limited, requests_guard_failed, requests_auth_failed;
    const uint8_t *label;     /* UTF-8 bytes, not NUL-terminated; may be NULL when label_len is 0 */
    size_t label_len;         /* 0..65535 */
} r_metrics_label_record_t;

typedef struct {
    uint8_t latency_tracker_id[R_CLIENT_ID_LEN];
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    uint64_t report_count, checks_total, checks_passed, checks_failed;
} r_metrics_service_record_t;

/* A Metrics Response page. Decoded: cursor and records point into the PDU and
 * record_count is set; use the *_at accessors. For encoding, fill family,
 * page_kind, cursor (PAGE_MORE only) and exactly one of summary (SUMMARY_PAGE),
 * labels or services (arrays of record_count records). */
typedef struct {
    uint8_t metric_family;
    uint8_t page_kind;
    const uint8_t *next_cursor;  /* *_PAGE_MORE only: opaque */
    size_t next_cursor_len;
    size_t record_count;         /* 0 for empty and error kinds, 1 for SUMMARY_PAGE */
    r_metrics_summary_record_t summary;
    const r_metrics_label_record_t *labels;     /* encoder input */
    const r_metrics_service_record_t *services; /* encoder input */
    const uint8_t *records;      /* decoded: the record bytes inside the PDU */
    size_t records_len;
} r_admin_metrics_response_t;

/* Byte size of one label record with a label of label_len bytes:
 * 36 + round_up_4(label_len). For page filling. */
RCLIENT_API size_t r_admin_metrics_label_record_size(size_t label_len);

/* Encoder rules: kinds with no page data carry no cursor and no records;
 * *_PAGE_MORE needs 1..R_ADMIN_MAX_CURSOR cursor bytes and >= 1 record;
 * *_PAGE_LAST >= 1 record; SUMMARY_PAGE exactly one summary. Padding is zero. */
RCLIENT_API int r_admin_encode_metrics_response(uint8_t *buf, size_t cap, const r_admin_metrics_response_t *mr,
                                                size_t *out_len, r_admin_diag_t *diag);
/* Decoder reasons: TRUNCATED, PDU_TYPE, PDU_SIZE (an empty or error kind
 * with bytes after the header), FAMILY, PAGE_KIND, RESERVED (header reserved,
 * cursor reserved, cursor padding, label-record padding, label padding),
 * EMPTY_CURSOR, LENGTH_FIELD (next_cursor_len or a label_len past the PDU),
 * NO_RECORDS, RECORD_SIZE (summary page not exactly 40 record bytes, service
 * data not a multiple of 64, a label record cut short). Records are parsed to
 * the end of the PDU (wire_protocol.md "Record counts are intentionally omitted"). */
RCLIENT_API int r_admin_decode_metrics_response(const uint8_t *pdu, size_t len, r_admin_metrics_response_t *out,
                                                r_admin_diag_t *diag);

/* Record i (< record_count) of a decoded page. Return RCLIENT_OK, or
 * RCLIENT_ERR_CONFIG for a NULL argument, an index out of range or a page of
 * another family (out untouched). Label records are walked from the start
 * (O(i)); views point into the decoded PDU. */
RCLIENT_API int r_admin_metrics_label_at(const r_admin_metrics_response_t *mr, size_t i,
                                         r_metrics_label_record_t *out);
RCLIENT_API int r_admin_metrics_service_at(const r_admin_metrics_response_t *mr, size_t i,
                                           r_metrics_service_record_t *out);

/* True when page_kind is one of the family's error kinds (NOT_FOUND,
 * INVALID_QUERY, UNSUPPORTED, INTERNAL_ERROR, RECORD_TOO_LARGE,
 * CURSOR_INVALID); false for pages, empty and unknown values. Pure. */
RCLIENT_API bool r_admin_metrics_is_error_kind(uint8_t metric_family, uint8_t page_kind);

/* Static spec name of a page kind for a family ("LABELS_PAGE_MORE",
 * "METRICS_CURSOR_INVALID", ...), "UNKNOWN" otherwise. */
RCLIENT_API const char *r_admin_metrics_page_kind_name(uint8_t metric_family, uint8_t page_kind);

/* ---- Layer 2: the administrative frame ----------------------------------------- */

/* The administrative AES-256-GCM key (opaque; cipher contexts made once). */
typedef struct r_admin_key r_admin_key_t;

/* Create from an rl-secret Bech32 credential (wire_protocol.md "rl-secret":
 * exactly 32 payload bytes); text_len 0 means NUL-terminated. Returns
 * RCLIENT_OK with *out set, RCLIENT_ERR_CONFIG (NULL argument or an invalid
 * credential: key_diag, may be NULL, gets the credential rule), RCLIENT_ERR_NOMEM
 * or RCLIENT_ERR_AUTH (cipher setup). Intermediate copies are cleansed. */
RCLIENT_API int r_admin_key_create(const char *rl_secret, size_t text_len, r_admin_key_t **out,
                                   r_key_diag_t *key_diag);
/* Create from the raw 32-byte key. Errors as above (no credential errors). */
RCLIENT_API int r_admin_key_create_raw(const uint8_t key[R_CLIENT_SECRET_LEN], r_admin_key_t **out);
/* Cleanse the key material and free. NULL is a no-op. */
RCLIENT_API void r_admin_key_destroy(r_admin_key_t *key);

/* Plaintext Tenant Header fields of an admin datagram. tenant_mgmt_flag is
 * always 1 and padding 0, so neither is a field. */
typedef struct {
    uint64_t key_id;          /* request: target tenant (0 for status); response: server_id */
    uint8_t unique_id[R_CLIENT_ID_LEN];
    uint64_t time_stamp_ms;   /* Unix epoch ms when composed */
    uint8_t steering_feedback; /* 0 or 1 */
} r_admin_header_t;

/* Build a sealed admin datagram into out[0..cap): Tenant TLV (tenant_mgmt_flag
 * 1), AES Auth TLV (nonce, tag), pdu[0..pdu_len) encrypted with AAD = tenant
 * TLV || auth type || auth size || nonce. The caller supplies a nonce never
 * used before with this key. pdu is not modified. Returns RCLIENT_OK with
 * *out_len = 72 + pdu_len; RCLIENT_ERR_CONFIG (NULL argument, steering above
 * 1, pdu_len < 8, cap too small); RCLIENT_ERR_PROTOCOL (TOO_LARGE: over 1200
 * bytes); RCLIENT_ERR_AUTH (cipher failure, R_ADMIN_ERR_CRYPTO). */
RCLIENT_API int r_admin_seal(r_admin_key_t *key, const r_admin_header_t *hdr, const uint8_t nonce[R_ADMIN_NONCE_LEN],
                             const uint8_t *pdu, size_t pdu_len, uint8_t *out, size_t cap, size_t *out_len,
                             r_admin_diag_t *diag);

/* Validate and open an admin datagram in place. Checks in order (framing
 * first, then authentication): at least 40 and at most 1200 bytes
 * (TRUNCATED / TOO_LARGE); Tenant TLV type 0x4C52, size 40, padding 0,
 * steering_feedback 0 or 1, tenant_mgmt_flag == 1; an auth TLV header whose
 * tlv_size fits and matches its type (AUTH_TLV_SIZE: 4 for None, 36 for
 * Cookie, 32 for AES); an 8-byte PDU after it (TRUNCATED); the type is AES
 * 0x4541 (AUTH_TLV_TYPE); the tag verifies under key (TAG; the PDU bytes are
 * then wiped); the plaintext pdu_size equals the PDU bytes (PDU_SIZE). On
 * success the PDU is decrypted in place, *out_hdr (may be NULL) filled,
 * *out_pdu points at it inside dgram and *out_pdu_len is its length. Returns
 * RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL argument) or RCLIENT_ERR_PROTOCOL. The
 * PDU kind is not checked here. */
RCLIENT_API int r_admin_open(r_admin_key_t *key, uint8_t *dgram, size_t len, r_admin_header_t *out_hdr,
                             uint8_t **out_pdu, size_t *out_pdu_len, r_admin_diag_t *diag);

/* Read the plaintext unique_id of an admin datagram without the key (for
 * routing to an operation). Checks only the Tenant TLV framing. Returns
 * RCLIENT_OK, RCLIENT_ERR_CONFIG or RCLIENT_ERR_PROTOCOL. */
RCLIENT_API int r_admin_peek_unique_id(const uint8_t *dgram, size_t len, uint8_t out_unique_id[R_CLIENT_ID_LEN],
                                       r_admin_diag_t *diag);

/* ---- Whole-datagram checks (layer 2 + layer 1), for servers, tools and vectors ---- */

/* One decoded administrative request (server side). */
typedef struct {
    uint16_t pdu_type; /* R_ADMIN_PDU_TENANT_MUTATION, _STATUS_QUERY or _METRICS_QUERY */
    union {
        r_admin_tenant_mutation_t tenant_mutation;
        r_admin_status_query_t status_query;
        r_admin_metrics_query_t metrics_query;
    } u;
} r_admin_request_t;

/* Server side: open dgram in place (r_admin_open) and decode the request it
 * carries by its pdu_type; for a Tenant Mutation also run
 * r_admin_tenant_mutation_check() against the Tenant Header key_id
 * (wire_protocol.md "Deterministic validation rules": the mutation is
 * rejected as a whole). tenant_info (may be NULL) receives the decoded ADD
 * credential (secret bytes: cleanse it). A pdu_type that is no administrative
 * request is R_ADMIN_ERR_PDU_TYPE. Views in *out point into dgram. Returns
 * RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL argument) or RCLIENT_ERR_PROTOCOL with
 * the reason of the first failed check. */
RCLIENT_API int r_admin_decode_request(r_admin_key_t *key, uint8_t *dgram, size_t len, r_admin_header_t *out_hdr,
                                       r_admin_request_t *out, r_auth_key_info_t *tenant_info, r_admin_diag_t *diag);

/* Client side: the checks an operation runs on one received response
 * datagram (see "Response checks" below), without an operation: open in place
 * (framing, tag), pdu_type (R_ADMIN_ERR_PDU_TYPE for another kind), decode,
 * then correlation: unique_id equals request_unique_id, server_id equals
 * expected_server_id unless that is 0, and the echo of each kind (tenant ack
 * operation == request_operation; status response server_id field == the
 * header's; metrics response family == request_family). out_hdr may be NULL.
 * Views in *out point into dgram. Returns RCLIENT_OK, RCLIENT_ERR_CONFIG or
 * RCLIENT_ERR_PROTOCOL with the reason. */
RCLIENT_API int r_admin_check_tenant_ack(r_admin_key_t *key, uint8_t *dgram, size_t len,
                                         const uint8_t request_unique_id[R_CLIENT_ID_LEN], uint8_t request_operation,
                                         uint64_t expected_server_id, r_admin_header_t *out_hdr,
                                         r_admin_tenant_ack_t *out, r_admin_diag_t *diag);
RCLIENT_API int r_admin_check_status_response(r_admin_key_t *key, uint8_t *dgram, size_t len,
                                              const uint8_t request_unique_id[R_CLIENT_ID_LEN],
                                              uint64_t expected_server_id, r_admin_header_t *out_hdr,
                                              r_admin_status_response_t *out, r_admin_diag_t *diag);
RCLIENT_API int r_admin_check_metrics_response(r_admin_key_t *key, uint8_t *dgram, size_t len,
                                               const uint8_t request_unique_id[R_CLIENT_ID_LEN], uint8_t request_family,
                                               uint64_t expected_server_id, r_admin_header_t *out_hdr,
                                               r_admin_metrics_response_t *out, r_admin_diag_t *diag);

/* ---- Layer 3: client operations (sans-IO) ------------------------------------------
 * An operation sends its request at start through io->udp_send, resends the
 * SAME sealed bytes (same unique_id, same nonce: one nonce never seals two
 * plaintexts) every resend_interval_ms, and completes on a valid response or
 * at its deadline. The host calls r_admin_op_on_datagram() for each datagram
 * received from the server and r_admin_op_on_timeout() when
 * r_admin_op_deadline_ms() passes. Callbacks fire only from those two calls
 * (never from start); the operation is never freed by the library: destroy it
 * with r_admin_op_destroy() once done (not from inside its callback).
 *
 * Response checks, in order (each failure returns RCLIENT_ERR_PROTOCOL with
 * its reason; the operation stays in flight and nothing else changes):
 * framing and tag (r_admin_open), PDU kind and decode (layer 1), then
 * correlation: unique_id equals the request's (R_ADMIN_ERR_UNIQUE_ID),
 * server_id equals expected_server_id when that is non-zero
 * (R_ADMIN_ERR_SERVER_ID), and the kind-specific echoes (tenant ack operation,
 * metrics family, Status Response server_id field equal to the header's). */

typedef struct r_admin_op r_admin_op_t;

typedef enum {
    R_ADMIN_EVENT_TENANT_ACK = 1,   /* tenant mutation acknowledged; then DONE */
    R_ADMIN_EVENT_STATUS = 2,       /* status response; then DONE */
    R_ADMIN_EVENT_METRICS_PAGE = 3, /* one accepted metrics page (records valid during the callback) */
    R_ADMIN_EVENT_METRICS_RESTART = 4, /* pagination restarts from the start: drop pages seen so far */
    R_ADMIN_EVENT_DONE = 5          /* terminal; status says how */
} r_admin_event_kind_t;

typedef enum {
    R_ADMIN_RESTART_SERVER_ID = 1,  /* the page came from another server_id than the earlier pages */
    R_ADMIN_RESTART_CURSOR_INVALID = 2 /* the server could not continue from the cursor */
} r_admin_restart_reason_t;

typedef struct {
    r_admin_event_kind_t kind;
    /* DONE: RCLIENT_OK (a final response arrived), RCLIENT_ERR_TIMEOUT (none
     * before the deadline), RCLIENT_ERR_PROTOCOL (metrics: restarts
     * exhausted), RCLIENT_ERR_IO / RCLIENT_ERR_AUTH (a later send failed). */
    int status;
    uint64_t server_id;                          /* of the response (0 for a timeout) */
    const r_admin_tenant_ack_t *tenant_ack;      /* TENANT_ACK */
    const r_admin_status_response_t *status_response; /* STATUS */
    const r_admin_metrics_response_t *page;      /* METRICS_PAGE */
    uint32_t page_index;                         /* METRICS_PAGE: 0-based within the current pass */
    r_admin_restart_reason_t restart_reason;     /* METRICS_RESTART */
    uint8_t final_page_kind;                     /* metrics DONE with OK: the last page's kind (a
                                                    page, EMPTY, or an error kind such as
                                                    RECORD_TOO_LARGE: a hard stop, never retried) */
} r_admin_event_t;

/* Called for every event; pointers inside ev are valid only during the call. */
typedef void (*r_admin_event_cb)(r_admin_op_t *op, const r_admin_event_t *ev, void *user_data);

typedef struct {
    r_admin_key_t *key;          /* borrowed; must outlive the operation */
    const r_io_ops_t *io;        /* udp_send and now_ms required; random optional (NULL: RAND_bytes);
                                    the struct is copied */
    r_addr_t server;             /* where to send */
    uint64_t expected_server_id; /* 0: accept any server_id */
    uint32_t timeout_ms;         /* per request (per page for metrics), ms; 0 selects 1000 */
    uint32_t resend_interval_ms; /* resend of the same sealed bytes, ms; 0 selects 250 */
    r_admin_event_cb cb;         /* required */
    void *user_data;
} r_admin_op_config_t;

/* Tenant mutation (wire_protocol.md "Tenant Mutation PDU", "dedup_ttl_ms
 * (Tenant Mutation)", "unique_id"). tenant_id goes in the Tenant Header
 * key_id. tm->dedup_ttl_ms must be >= 1; resends stop at time_stamp +
 * dedup_ttl_ms ("the client should not resend the request after time_stamp +
 * dedup_ttl_ms"), the wait for the ack continues to the deadline. For ADD the
 * tenant_key must be a valid rl-none / rl-cookie / rl-aes credential whose
 * key_id equals tenant_id (checked before anything is sent). tm and its
 * strings are copied into the sealed datagram; the plaintext copy is
 * cleansed. Returns RCLIENT_OK with *out set and the first copy sent;
 * RCLIENT_ERR_CONFIG (NULL argument, missing io hook or cb, dedup_ttl_ms 0,
 * bad operation, REMOVE with a name or key, credential invalid
 * (R_ADMIN_ERR_CREDENTIAL) or key_id mismatch); RCLIENT_ERR_PROTOCOL (does
 * not fit); RCLIENT_ERR_AUTH (random or cipher failure, nothing sent);
 * RCLIENT_ERR_NOMEM; RCLIENT_ERR_IO (the first send failed; nothing
 * allocated is kept). */
RCLIENT_API int r_admin_tenant_mutation_start(const r_admin_op_config_t *cfg, uint64_t tenant_id,
                                              const r_admin_tenant_mutation_t *tm, r_admin_op_t **out,
                                              r_admin_diag_t *diag);

/* Status query (wire_protocol.md "Status Query PDU"): key_id 0, schema 1,
 * CURRENT_STATUS. Errors as above (no credential errors). */
RCLIENT_API int r_admin_status_query_start(const r_admin_op_config_t *cfg, r_admin_op_t **out, r_admin_diag_t *diag);

/* Metrics query with pagination (wire_protocol.md "Metrics Query PDU",
 * "Pagination rules"). key_id = tenant_id. The first query is *_FROM_START
 * (SUMMARY_CURRENT for the summary). Each accepted page is an
 * R_ADMIN_EVENT_METRICS_PAGE; after a *_PAGE_MORE the next query is
 * *_FROM_CURSOR with the page's next_cursor echoed byte for byte, under a new
 * unique_id and nonce. If a page's server_id differs from the first page's of
 * the pass, it is not delivered: R_ADMIN_EVENT_METRICS_RESTART (SERVER_ID),
 * then a new pass from the start. METRICS_CURSOR_INVALID likewise restarts
 * (CURSOR_INVALID). At most max_restarts restarts (0 selects 2); one more
 * gives DONE with RCLIENT_ERR_PROTOCOL. METRICS_RECORD_TOO_LARGE and the
 * other error kinds end the operation (DONE, RCLIENT_OK, final_page_kind): a
 * hard stop, the same query is not retried. Errors as above. */
RCLIENT_API int r_admin_metrics_query_start(const r_admin_op_config_t *cfg, uint64_t tenant_id,
                                            r_metric_family_t family, uint32_t max_restarts, r_admin_op_t **out,
                                            r_admin_diag_t *diag);

/* Deliver one datagram. Returns RCLIENT_OK when it was accepted (events may
 * have fired); RCLIENT_ERR_PROTOCOL with the reason for a datagram that fails
 * a check (the operation is unchanged and stays in flight); RCLIENT_ERR_CONFIG
 * for NULL arguments or an operation no longer in flight (R_ADMIN_ERR_STATE);
 * RCLIENT_ERR_IO / RCLIENT_ERR_AUTH when sending the next metrics page query
 * failed (DONE then fired with that status). data is copied before decryption
 * (the caller's bytes are not modified); decrypted copies are cleansed. */
RCLIENT_API int r_admin_op_on_datagram(r_admin_op_t *op, const uint8_t *data, size_t len, r_admin_diag_t *diag);

/* Apply the deadlines <= now_ms: a resend when its time has come (once, at
 * most, per call), or DONE with RCLIENT_ERR_TIMEOUT at the deadline. Returns
 * RCLIENT_OK, RCLIENT_ERR_CONFIG (NULL op), or RCLIENT_ERR_IO / RCLIENT_ERR_AUTH
 * when a resend failed (the operation stays in flight; the next resend time
 * still advances). */
RCLIENT_API int r_admin_op_on_timeout(r_admin_op_t *op, uint64_t now_ms);

/* Next absolute deadline (Unix-epoch ms) the host must call on_timeout for;
 * UINT64_MAX once done or for NULL. */
RCLIENT_API uint64_t r_admin_op_deadline_ms(const r_admin_op_t *op);

/* True once DONE has fired. */
RCLIENT_API bool r_admin_op_done(const r_admin_op_t *op);

/* The unique_id of the request currently in flight (changes per metrics
 * page). Returns RCLIENT_OK or RCLIENT_ERR_CONFIG. */
RCLIENT_API int r_admin_op_unique_id(const r_admin_op_t *op, uint8_t out[R_CLIENT_ID_LEN]);

/* How many datagrams the operation has sent (first sends and resends). */
RCLIENT_API uint32_t r_admin_op_sent_count(const r_admin_op_t *op);

/* Cleanse and free. NULL is a no-op. Must not be called from the op's callback. */
RCLIENT_API void r_admin_op_destroy(r_admin_op_t *op);

#ifdef __cplusplus
}
#endif

#endif /* R_ADMIN_H */
