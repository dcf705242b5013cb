/* SPDX-License-Identifier: MIT */
/* rl_response.h - validation and zero-copy parsing of a Rate Response datagram
 * for one in-flight request (wire_protocol.md "rate_response PDU", "Response
 * Semantics"; r-client.md 6.2.1, 6.4, 9.3.3 step 1).
 *
 * Checks run in this order, so the first failing class is reported
 * (vector schema order: malformed, auth, correlation):
 *   1. malformed: tenant TLV type 0x4C52 and tlv_size 40, padding zero,
 *      steering_feedback and tenant_mgmt_flag 0 or 1; auth TLV header present,
 *      4 <= tlv_size <= remaining, exact size for a known auth type;
 *      for a plaintext PDU: pdu_size >= 8 and == remaining bytes exactly; for an
 *      RR PDU also pdu_size >= 12, both reserved fields zero,
 *      12 + 40*guard_count + 28*resource_count <= pdu_size, and the rest an exact
 *      sequence of TLVs each with tlv_size >= 4.
 *   2. auth: auth TLV type equals the key's mode; cookie equal (constant time);
 *      AES tag verifies (the PDU is then decrypted in place and step 1's PDU
 *      checks run on the plaintext).
 *   3. correlation: pdu_type is Rate Response, tenant_mgmt_flag 0, unique_id
 *      equals the request's, server_id (tenant key_id) is in the trusted set.
 *   4. (rl_response_match, against the request itself) block by block: block i
 *      answers request block i (wire_protocol.md: the response is the request
 *      modified in place, counts copied from the request).
 * No length field is trusted before it is checked against the bytes present.
 *
 * Details the list above leaves open (implementation choices):
 *   - A PDU under an AES (or unknown) auth TLV is opaque in step 1: only its
 *     length is checked there (>= 8, and <= 65535 since pdu_size is a u16).
 *     So a truncated AES datagram of at least 80 bytes fails the tag (auth),
 *     not framing. An unknown auth TLV type always fails step 2's type check.
 *   - verdict->code for correlation is RCLIENT_OK: a valid-looking datagram
 *     that matches no in-flight request is ignored silently (api.md
 *     "Datagrams and Timers").
 *   - Invalid arguments (NULL auth/dgram/expected_unique_id/out, NULL trusted
 *     with n_trusted > 0, an uninitialised key) give RL_VERDICT_MALFORMED with
 *     code RCLIENT_ERR_CONFIG and reason "invalid argument". verdict may be NULL.
 *   - On an AES tag failure the PDU bytes of dgram are unspecified (currently
 *     wiped, so no unauthenticated plaintext remains; see rl_auth_open). */
#ifndef RL_RESPONSE_H
#define RL_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rl_auth.h"

typedef enum {
    RL_VERDICT_OK = 0,
    RL_VERDICT_MALFORMED = 1,
    RL_VERDICT_AUTH = 2,
    RL_VERDICT_CORRELATION = 3
} rl_verdict_class_t;

typedef struct {
    rl_verdict_class_t cls;
    int code;            /* api.md on_datagram code: OK, ERR_PROTOCOL (malformed, AES tag), ERR_AUTH (type, cookie) */
    const char *reason;  /* static text naming the failed check; "ok" on success */
} rl_verdict_t;

typedef struct {
    uint64_t server_id;
    uint64_t time_stamp_ms;
    bool keep_port;               /* steering_feedback == 1 */
    const uint8_t *unique_id;     /* 16 bytes inside the datagram */
    size_t server_index;          /* index of server_id in the trusted array */
    uint16_t guard_count;
    uint16_t resource_count;
    const uint8_t *guards;        /* guard_count * 40 bytes inside the datagram */
    const uint8_t *resources;     /* resource_count * 28 bytes inside the datagram */
    bool success;                 /* parse: every current_latency < the echoed latency_threshold and
                                     every deficit == 0 (the datagram alone); rl_response_match
                                     recomputes it with the request's own thresholds */
} rl_rate_response_t;

typedef struct {
    const uint8_t *latency_tracker_id; /* 16 bytes */
    uint32_t ttl_ms, max_samples, buffer_size, min_sample_threshold;
    uint32_t latency_threshold;
    uint32_t current_latency;
    bool passed;                       /* current_latency < latency_threshold */
} rl_guard_view_t;

typedef struct {
    const uint8_t *bucket_id;          /* 16 bytes */
    uint32_t window_size_ms;
    uint32_t actual_rate;              /* response reuse of rate_limit */
    uint16_t tokens_deficit;           /* response reuse of tokens_requested */
} rl_resource_view_t;

/* Outer framing only (tenant TLV and auth TLV header, step-1 checks that need
 * no key): lets a client find the in-flight request by unique_id before any
 * cryptography. Returns RL_VERDICT_OK or RL_VERDICT_MALFORMED; *out_unique_id
 * (pointing into dgram) is set only on RL_VERDICT_OK. */
rl_verdict_class_t rl_response_peek(const uint8_t *dgram, size_t len, const uint8_t **out_unique_id,
                                    rl_verdict_t *verdict);

/* Validate and parse. dgram is modified in place for AES (decrypted); callers
 * that must keep the received bytes pass a scratch copy. trusted may be NULL
 * only when n_trusted is 0 (then every response fails the trust check).
 * Returns verdict->cls; *out is filled only on RL_VERDICT_OK. */
rl_verdict_class_t rl_parse_rate_response(rl_auth_t *auth, uint8_t *dgram, size_t len,
                                          const uint8_t expected_unique_id[16], const uint64_t *trusted,
                                          size_t n_trusted, rl_rate_response_t *out, rl_verdict_t *verdict);

/* Steps 1 and 2 only: framing and authentication with the client's key, for
 * a datagram whose unique_id matches no in-flight request. Neither needs the
 * request (the AES tag depends only on the key), so a bad datagram is still
 * reported as bad (api.md "Datagrams and Timers": ERR_PROTOCOL for malformed
 * datagrams and AES tag failures, ERR_AUTH for a wrong auth TLV type or
 * cookie; OK only for a valid-looking datagram). dgram is decrypted in place
 * for AES, as by rl_parse_rate_response. Returns verdict->cls:
 * RL_VERDICT_OK (valid-looking, code RCLIENT_OK), RL_VERDICT_MALFORMED or
 * RL_VERDICT_AUTH; a NULL auth/dgram or an uninitialised key gives
 * RL_VERDICT_MALFORMED with code RCLIENT_ERR_CONFIG. verdict may be NULL. */
rl_verdict_class_t rl_response_authenticate(rl_auth_t *auth, uint8_t *dgram, size_t len, rl_verdict_t *verdict);

/* Response-semantic check of a parsed response against the request it
 * answers (r-client.md 6.2.1; wire_protocol.md "rate_response PDU", "Response
 * Semantics"). Positional, O(guard_count + resource_count): the counts equal
 * the request's, guard block i carries guards[i]'s latency_tracker_id,
 * ttl_ms, max_samples, buffer_size and min_sample_threshold, resource block i
 * carries resources[i]'s bucket_id and window_size_ms. Repeated IDs in the
 * request are therefore answered once each, at their own positions. On
 * success resp->success is recomputed: every guard's current_latency below
 * guards[i].threshold_ms (the threshold asked for, not the echo) and every
 * deficit 0. guards/resources are the request's blocks in submission order
 * (NULL allowed with a count of 0).
 * Returns RL_VERDICT_OK, or RL_VERDICT_MALFORMED with code
 * RCLIENT_ERR_PROTOCOL and a reason naming the first mismatch (resp->success
 * is then unchanged), or code RCLIENT_ERR_CONFIG for a NULL resp or array.
 * verdict may be NULL. */
rl_verdict_class_t rl_response_match(rl_rate_response_t *resp, const r_latency_guard_t *guards, size_t guard_count,
                                     const r_resource_request_t *resources, size_t resource_count,
                                     rl_verdict_t *verdict);

/* Views of block i (i < count); pure reads of the little-endian fields.
 * The views point into the parsed datagram, which must outlive them. An index
 * out of range (or a NULL resp) gives a zeroed view with NULL id pointers. */
void rl_response_guard_at(const rl_rate_response_t *resp, size_t i, rl_guard_view_t *out);
void rl_response_resource_at(const rl_rate_response_t *resp, size_t i, rl_resource_view_t *out);

#endif /* RL_RESPONSE_H */
