/* SPDX-License-Identifier: MIT */
/* r_client.h - public C API of the Ratelimitly client (api.md).
 *
 * Foundation surface: error codes, request/guard/report value types,
 * credential parsing (wire_protocol.md "Bech32 Credential Formats"),
 * content-defined IDs (wire_protocol.md "Content-defined resource identity",
 * "Content-defined latency-tracker identity") and server_id decoding
 * (wire_protocol.md "Structured server_id Format", r-client.md 9.1).
 *
 * Thread safety: the value helpers (credentials, IDs, server_id, policy)
 * touch no shared state and may be called from any thread. A client object
 * has no locks: confine each r_client_t to one thread or event loop and
 * serialize every call on it (api.md "Threading and reentrancy").
 */
#ifndef R_CLIENT_H
#define R_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client_export.h"
#include "r_client_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Error codes (api.md "Error Codes"). All errors are negative. -------- */
typedef enum {
    RCLIENT_OK = 0,
    RCLIENT_ERR_TIMEOUT = -1,  /* no acceptable response before the deadline */
    RCLIENT_ERR_DNS = -2,      /* no servers currently known */
    RCLIENT_ERR_IO = -3,       /* UDP send / socket / clock failure */
    RCLIENT_ERR_PROTOCOL = -4, /* does not fit one datagram, quota shape, malformed ingress */
    RCLIENT_ERR_AUTH = -5,     /* random source or local encryption failed; auth type/cookie mismatch */
    RCLIENT_ERR_CONFIG = -6,   /* invalid arguments, credential or policy */
    RCLIENT_ERR_NOMEM = -7     /* allocation failure */
} r_client_error_t;

/* Static, human-readable name of an error code ("RCLIENT_ERR_DNS", ...).
 * Never returns NULL; unknown codes give "RCLIENT_ERR_UNKNOWN". */
RCLIENT_API const char *r_client_strerror(int err);

/* ---- Protocol limits ------------------------------------------------------ */
#define R_CLIENT_MAX_DATAGRAM 1200u      /* wire_protocol.md: whole UDP payload */
#define R_CLIENT_ID_LEN 16u              /* bucket_id, latency_tracker_id, unique_id */
#define R_CLIENT_SECRET_LEN 32u          /* cookie value or AES-256 key */
#define R_CLIENT_SERVER_EPOCH_S 1735689600ull /* 2025-01-01T00:00:00Z */

/* ---- Request value types (r-client.md 5.2-5.4) ------------------------------ */

/* One resource consumption: tokens_requested tokens from the bucket whose
 * capacity is rate_limit tokens per window_size_ms. bucket_id is derived with
 * r_client_derive_bucket_id() from the name, window_size_ms and rate_limit. */
typedef struct {
    uint8_t bucket_id[R_CLIENT_ID_LEN];
    uint32_t window_size_ms;   /* ms; must be <= the key's rate_window_size_ms_max */
    uint32_t rate_limit;       /* tokens per window */
    uint16_t tokens_requested;
} r_resource_request_t;

/* One latency guard: the request is denied when the tracker's current latency
 * is >= threshold_ms (r-client.md 7.1.2). latency_tracker_id is derived with
 * r_client_derive_latency_tracker_id() from the name and the four settings. */
typedef struct {
    uint8_t latency_tracker_id[R_CLIENT_ID_LEN];
    uint32_t threshold_ms;         /* wire latency_threshold, ms */
    uint32_t ttl_ms;               /* sample lifetime, ms */
    uint32_t max_samples;
    uint32_t buffer_size;          /* must be <= the key's latency_buffer_size_max */
    uint32_t min_sample_threshold;
} r_latency_guard_t;

/* One observation for a latency report (wire "Service Latency Block"). */
typedef struct {
    uint8_t latency_tracker_id[R_CLIENT_ID_LEN];
    uint32_t ttl_ms;
    uint32_t max_samples;
    uint32_t buffer_size;
    uint32_t min_sample_threshold;
    uint32_t observed_latency;     /* ms */
} r_service_latency_report_t;

/* ---- Credentials (wire_protocol.md "Bech32 Credential Formats") ------------ */

typedef enum {
    R_AUTH_UNSPECIFIED = 0, /* in configuration: no assertion */
    R_AUTH_NONE = 1,        /* rl-none   */
    R_AUTH_COOKIE = 2,      /* rl-cookie */
    R_AUTH_AES = 3          /* rl-aes    */
} r_auth_type_t;

/* Decoded version-1 quota word (wire_protocol.md "API-key quota word"). */
typedef struct {
    uint32_t rate_buckets_max;        /* 2^0 .. 2^24 */
    uint32_t latency_services_max;    /* 2^0 .. 2^24 */
    uint32_t metrics_labels_max;      /* 2^0 .. 2^31 */
    uint32_t latency_buffer_size_max; /* 2^0 .. 2^15 */
    uint32_t dedup_ttl_ms_max;        /* 10 .. 2000, multiple of 10 */
    uint32_t rate_window_size_ms_max; /* 2^0 .. 2^30, or 4294967295 */
} r_api_key_quotas_t;

/* Why a credential was rejected: the error classes of the vector schema,
 * in the order they are checked. */
typedef enum {
    R_KEY_OK = 0,
    R_KEY_ERR_BECH32 = 1,  /* bad string, checksum, charset, mixed case, no separator, padding */
    R_KEY_ERR_HRP = 2,     /* human-readable part not one the caller accepts */
    R_KEY_ERR_LENGTH = 3,  /* payload size wrong for the HRP (includes legacy payloads) */
    R_KEY_ERR_VERSION = 4, /* format_version is not 1 */
    R_KEY_ERR_QUOTA = 5,   /* packed quota word breaks a version-1 rule */
    R_KEY_ERR_ARGUMENT = 6 /* a NULL argument: not a credential class, never in vectors */
} r_key_error_t;

/* Diagnostic for a rejected credential. */
typedef struct {
    r_key_error_t reason;
    char message[112];     /* NUL-terminated, names the failed rule; never holds secret bytes */
} r_key_diag_t;

/* Decoded API key. secret holds raw cookie/AES material: the caller owns this
 * struct and should cleanse it (OPENSSL_cleanse) when done (api.md "Credentials"). */
typedef struct {
    r_auth_type_t type;
    uint64_t key_id;
    bool has_secret;                      /* false for rl-none */
    uint8_t secret[R_CLIENT_SECRET_LEN];  /* zero when !has_secret */
    uint32_t quota_word;
    r_api_key_quotas_t quotas;
} r_auth_key_info_t;

/* Validate and decode an API-key credential (rl-none, rl-cookie, rl-aes,
 * format version 1).
 * key:      the Bech32 text; key_len its byte length, or 0 for a NUL-terminated string.
 * out_info: receives the decoded key; left untouched on failure.
 * Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG for a NULL argument or any invalid
 * credential (rl-secret included: it is not an API key). */
RCLIENT_API int r_client_parse_auth_key(const char *key, size_t key_len, r_auth_key_info_t *out_info);

/* As r_client_parse_auth_key, and on failure fills out_diag (may be NULL)
 * with the rejection class and a message naming the failed rule (on success:
 * R_KEY_OK and an empty message). */
RCLIENT_API int r_client_parse_auth_key_diag(const char *key, size_t key_len,
                                             r_auth_key_info_t *out_info, r_key_diag_t *out_diag);

/* Decode a version-1 quota word. Returns RCLIENT_OK or RCLIENT_ERR_CONFIG
 * (out_diag, may be NULL, names the rule: reason R_KEY_ERR_QUOTA; on success
 * R_KEY_OK and an empty message). out_quotas is left untouched on failure. */
RCLIENT_API int r_client_decode_quota_word(uint32_t quota_word, r_api_key_quotas_t *out_quotas,
                                           r_key_diag_t *out_diag);

/* Write the default tenant DNS name "c-<key_id>.p0.ratelimitly.com" (api.md
 * "Configuration") into buf (cap bytes, NUL-terminated).
 * Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG when buf is NULL or too small
 * (at most 42 bytes are needed including the NUL). */
RCLIENT_API int r_client_format_default_tenant_dns(uint64_t key_id, char *buf, size_t cap);

/* ---- Content-defined IDs ---------------------------------------------------- */

/* bucket_id = first 16 bytes of BLAKE2s-256("ratelimitly.resource.v1\0" ||
 * u32le(name_len) || name || u32le(window_size_ms) || u32le(rate_limit)).
 * name may hold zero bytes; name may be NULL only when name_len is 0.
 * Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG for a NULL out_id, a NULL name
 * with name_len > 0, name_len > UINT32_MAX, or a hash failure. */
RCLIENT_API int r_client_derive_bucket_id(const void *name, size_t name_len, uint32_t window_size_ms,
                                          uint32_t rate_limit, uint8_t out_id[R_CLIENT_ID_LEN]);

/* latency_tracker_id = first 16 bytes of BLAKE2s-256("ratelimitly.latency-tracker.v1\0" ||
 * u32le(name_len) || name || u32le(ttl_ms) || u32le(max_samples) ||
 * u32le(buffer_size) || u32le(min_sample_threshold)). Errors as above. */
RCLIENT_API int r_client_derive_latency_tracker_id(const void *name, size_t name_len, uint32_t ttl_ms,
                                                   uint32_t max_samples, uint32_t buffer_size,
                                                   uint32_t min_sample_threshold,
                                                   uint8_t out_id[R_CLIENT_ID_LEN]);

/* ---- server_id (wire_protocol.md "Structured server_id Format") ---------- */

typedef struct {
    uint64_t server_start_s; /* Unix seconds: 1735689600 + (server_id >> 23) */
    uint8_t listener_id;     /* (server_id >> 15) & 0xFF */
    uint16_t node_id;        /* server_id & 0x7FFF */
} r_server_id_parts_t;

/* Split a server_id into its fields. Pure; cannot fail. */
RCLIENT_API r_server_id_parts_t r_client_decode_server_id(uint64_t server_id);

/* Compose a server_id. Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG when
 * server_start_s is before 2025-01-01 or beyond the 41-bit range, node_id > 32767,
 * or out is NULL. */
RCLIENT_API int r_client_encode_server_id(uint64_t server_start_s, uint8_t listener_id, uint16_t node_id,
                                          uint64_t *out);

/* Parse an SRV target host name (r-client.md 3.1): its first label must be
 * "s-<decimal server_id>" (lower or upper case 's', no sign, no leading zeros,
 * value <= UINT64_MAX); every later label is 1..63 letters, digits, '-' or
 * '_'; the name is at most 253 bytes; a trailing dot is optional.
 * target_len 0 means NUL-terminated. Returns RCLIENT_OK with *out_server_id set,
 * or RCLIENT_ERR_CONFIG when the target is not a conforming member. */
RCLIENT_API int r_client_parse_srv_target(const char *target, size_t target_len, uint64_t *out_server_id);


/* ---- Resource-request HA policy (r-client.md 9.3, api.md "Resource-Request HA Policy") ---- */

#define R_CLIENT_HA_MAX_REPLAY_COUNT 16u

typedef enum {
    R_HA_SCHEDULE_FIXED = 0,       /* S(k) = initial_units */
    R_HA_SCHEDULE_LINEAR = 1,      /* S(k) = min(initial_units + k * linear_step_units, max_units) */
    R_HA_SCHEDULE_EXPONENTIAL = 2  /* S(k) = min(initial_units * exponential_factor^k, max_units) */
} r_ha_schedule_kind_t;

/* A per-round schedule in units of unit_ms: used for replay_gap B(k) and
 * preference P(k). Growth saturates at max_units; initial_units > max_units is
 * invalid (not capped). */
typedef struct {
    r_ha_schedule_kind_t kind;
    uint32_t initial_units;
    uint32_t max_units;
    union {
        uint32_t linear_step_units;  /* LINEAR */
        uint32_t exponential_factor; /* EXPONENTIAL; 0 gives S(0)=initial, S(k>=1)=0 */
    } growth;
} r_ha_schedule_t;

/* The one flat request policy (r-client.md 9.3.1). Initialise with
 * r_client_default_request_policy() and override fields. */
typedef struct {
    uint32_t unit_ms;                /* U, ms, >= 1 */
    uint32_t replay_count;           /* N, 0..R_CLIENT_HA_MAX_REPLAY_COUNT; N + 1 transmission rounds */
    r_ha_schedule_t replay_gap;      /* B(k) >= 1, units of U */
    r_ha_schedule_t preference;      /* P(k), 0 <= P(k) <= B(k), units of U */
    uint32_t final_receive_units;    /* F, units of U; 0 disables the receive-only interval */
    uint32_t final_preference_units; /* P_final, 0 <= P_final <= F */
    bool completion_delivery;        /* C */
} r_request_policy_t;

/* Named presets (r-client-ha-design.md 6; spec README "Known disagreements"). */
typedef enum {
    R_POLICY_DEFAULT = 0,          /* r-client.md 9.3.5: U=20, N=1, B=1, P=1, F=1, P_final=0, C=1 */
    R_POLICY_API_MD = 1,           /* api.md behaviour: P(0)=B(0), P(k>=1)=0 (exponential factor 0), P_final=0 */
    R_POLICY_STRICT_OLDEST = 2,    /* P(k)=B(k), P_final=F: a fallback waits the full round */
    R_POLICY_OLDEST_PREFERRED = 3, /* 0 < P(k) < B(k): U=10, B=2, P=1, F=2, P_final=1 */
    R_POLICY_FASTEST_VALID = 4     /* P(k)=0, P_final=0: first valid response completes */
} r_policy_preset_t;

/* Fill policy with r-client.md 9.3.5 defaults (unused growth members 0).
 * policy must not be NULL; a NULL policy is ignored. */
RCLIENT_API void r_client_default_request_policy(r_request_policy_t *policy);

/* Fill policy with a named preset. Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG
 * for a NULL policy or unknown preset (policy untouched). */
RCLIENT_API int r_client_request_policy_preset(r_request_policy_t *policy, r_policy_preset_t preset);

/* The derived timing of a policy: per-round durations and preference
 * intervals in ms, the final interval and the wire TTL H (r-client.md 9.3.1). */
typedef struct {
    uint32_t ttl_ms;                                        /* H = U * (sum B(k) + F) */
    uint32_t rounds;                                        /* N + 1 */
    uint32_t round_ms[R_CLIENT_HA_MAX_REPLAY_COUNT + 1];      /* B(k) * U */
    uint32_t preference_ms[R_CLIENT_HA_MAX_REPLAY_COUNT + 1]; /* P(k) * U */
    uint32_t final_receive_ms;                              /* F * U */
    uint32_t final_preference_ms;                           /* P_final * U */
} r_policy_schedule_t;

/* Validate a policy and derive its schedule against the key's
 * dedup_ttl_ms_max. out may be NULL to validate only. Returns RCLIENT_OK, or RCLIENT_ERR_CONFIG when a rule is
 * broken (why, may be NULL, gets a static message naming it): unit_ms 0;
 * replay_count above the cap; unknown schedule kind; initial_units > max_units;
 * any B(k) of 0 (replay gaps must be positive); P(k) > B(k); P_final > F;
 * any product or sum overflowing 32 bits; H above dedup_ttl_ms_max.
 * Rules are checked in that order; the first broken one is reported.
 * On error *out is untouched; on success *why (when given) is set to NULL and
 * the round_ms / preference_ms entries beyond index N are 0. */
RCLIENT_API int r_client_policy_schedule(const r_request_policy_t *policy, uint32_t dedup_ttl_ms_max,
                                         r_policy_schedule_t *out, const char **why);

/* ---- Client lifecycle (api.md "Configuration", r-client.md 6.1) ----------- */

typedef struct r_client r_client_t;
typedef struct r_client_req r_client_req_t;

/* An explicitly configured server (r-client.md 3.1 item 3): bypasses DNS. */
typedef struct {
    uint64_t server_id; /* must equal the server_id the server puts in its responses */
    r_addr_t addr;
} r_server_endpoint_t;

/* DNS refresh pacing (r-client.md 9.4). Zero selects each default. */
typedef struct {
    uint32_t refresh_interval_ms;            /* periodic refresh; default 300000, capped by SRV TTLs */
    uint32_t forced_refresh_min_interval_ms; /* default 1000; throttles r_client_refresh_dns() after a
                                                discovery, and is the first retry delay after a failed
                                                refresh while servers are known: the delay doubles per
                                                consecutive failure up to refresh_interval_ms, and the
                                                known servers stay in use (r-client.md 6.1, 9.4). While
                                                no server is known, every submit/report retries
                                                discovery (one lookup in flight at a time, api.md) */
    uint32_t forced_refresh_jitter_ms;       /* extra random delay 0..jitter; default 0 */
} r_dns_refresh_config_t;

typedef enum { R_PHASE_ROUND = 0, R_PHASE_FINAL_RECEIVE = 1 } r_request_phase_t;

/* Per-request profile (api.md "Public runtime"): reported once per request
 * that reaches a terminal state other than cancellation, before its callback. */
typedef struct {
    uint64_t wait_ms;          /* scheduling-clock ms from the initial send attempt to selection/failure */
    uint32_t round;            /* transmission round k at completion (0-based) */
    r_request_phase_t phase;   /* round or final receive-only phase */
    int status;                /* RCLIENT_OK when a response was selected, else the error */
    bool selected;             /* a server response was selected */
    uint64_t server_id;        /* selected server, 0 if none */
    uint32_t send_failures;    /* destination sends the host refused during this request (initial
                                  fan-out, replays, completion delivery); each is logged at
                                  R_LOG_WARN with the member's server_id (docs/spec-notes.md) */
} r_request_profile_t;

typedef void (*r_request_profile_cb)(const r_request_profile_t *profile, void *user_data);

typedef struct {
    struct {
        uint64_t key_id;      /* 0, or an assertion that must equal the credential's key_id */
        const char *dns_name; /* NULL: "c-<key_id>.p0.ratelimitly.com"; copied */
        struct {
            r_auth_type_t type; /* R_AUTH_UNSPECIFIED, or an assertion on the credential's type */
            const char *secret; /* the Bech32 credential text (rl-none/rl-cookie/rl-aes); copied and decoded */
            size_t secret_len;  /* 0 = NUL-terminated */
        } auth;
    } tenant;
    const r_request_policy_t *request_policy; /* NULL = default; copied by value */
    r_dns_refresh_config_t dns_refresh;
    const r_server_endpoint_t *servers;       /* explicit membership, copied; NULL/0 = DNS discovery.
                                                 At most 64; a repeated server_id keeps the first */
    size_t server_count;
    r_request_profile_cb request_profile_cb;  /* optional */
    void *request_profile_user_data;
} r_client_config_t;

/* Create a client. cfg, its strings and policy are borrowed for the call only.
 * io must provide udp_send and now_ms; resolver may be NULL only with
 * explicit servers. DNS discovery starts here but never fails creation.
 * Returns RCLIENT_OK with *out_client set, RCLIENT_ERR_CONFIG (NULL argument,
 * invalid credential, key-ID or auth-type assertion mismatch, malformed DNS
 * name (empty, an empty label, space, control or non-ASCII bytes), invalid
 * explicit endpoint (family, port 0, more than 64)) or RCLIENT_ERR_NOMEM.
 * An over-long DNS name (the SRV query name "_ratelimitly._udp.<name>" over
 * 253 bytes, i.e. a name over 235 bytes without its trailing dot, or a label
 * over 63 bytes) does not fail creation (api.md "Errors"): it is logged at
 * R_LOG_ERROR, nothing is looked up, and every submit and report returns
 * RCLIENT_ERR_DNS. The policy is copied but validated at submit (api.md):
 * an invalid one makes every non-empty submit return RCLIENT_ERR_CONFIG;
 * check it first with r_client_policy_schedule(policy, quota, NULL, &why). */
RCLIENT_API int r_client_create(const r_client_config_t *cfg, const r_io_ops_t *io,
                                const r_resolver_ops_t *resolver, r_client_t **out_client);

/* Destroy a client: in-flight requests are cancelled without callbacks,
 * outstanding DNS queries are detached (their later answers are ignored), and
 * the decoded secret is cleansed. NULL is a no-op. Must not be called from a
 * completion callback. */
RCLIENT_API void r_client_destroy(r_client_t *client);

/* ---- Resource requests (api.md "Resource Requests", r-client.md 6.2, 9.3) -- */

typedef struct {
    uint8_t bucket_id[R_CLIENT_ID_LEN];
    uint16_t tokens_deficit; /* 0 = granted */
    uint32_t actual_rate;    /* tokens consumed in the window on the responding server */
} r_resource_result_t;

typedef struct {
    uint8_t latency_tracker_id[R_CLIENT_ID_LEN];
    uint32_t threshold_ms;   /* the threshold this guard asked for (never the response's echo) */
    uint32_t current_latency_ms;
    bool passed;             /* current_latency_ms < threshold_ms */
} r_guard_result_t;

/* Result of a request; every pointer is valid only during the callback.
 * With status RCLIENT_OK the arrays hold exactly the request's resources and
 * guards in the request's order: entry i answers the submitted block i (a
 * response that does not answer block by block is rejected on arrival), so
 * matching entries by bucket_id / latency_tracker_id also works; with a
 * tracker repeated under two thresholds, use the index. They are NULL
 * (count 0) for failures and for the empty request. */
typedef struct {
    int status;                         /* RCLIENT_OK (a response was selected), RCLIENT_ERR_TIMEOUT,
                                           RCLIENT_ERR_IO (a replay round reached no server) or
                                           RCLIENT_ERR_AUTH */
    bool success;                       /* every deficit 0 and every guard passed; false unless status OK */
    const r_resource_result_t *resources;
    size_t resource_count;
    const r_guard_result_t *guards;
    size_t guard_count;
    uint64_t server_id;                 /* selected server; 0 for local empty success or failure */
    bool steering_feedback;             /* keep_port as sent by the selected server */
} r_rate_limit_result_t;

/* Completion: fires exactly once per submitted non-empty request unless it is
 * cancelled, always from r_client_on_datagram / r_client_on_timeout (or from
 * the submit call for the empty request, with req == NULL). req is invalid
 * after the callback returns. */
typedef void (*r_rate_limit_cb)(r_client_req_t *req, const r_rate_limit_result_t *result, void *user_data);

/* Submit a resource request. Inputs are copied (the datagram is encoded at
 * submit). metrics_label may be NULL; metrics_label_len 0 = NUL-terminated.
 * Both counts zero: callback fires inside this call with success, *out_req =
 * NULL, nothing sent. Otherwise, returns RCLIENT_OK with *out_req set and the
 * request sent to every server in the membership snapshot. Errors (callback
 * never fires, *out_req untouched): RCLIENT_ERR_CONFIG (NULL client/cb/out_req,
 * NULL array with a count, invalid policy or TTL above dedup_ttl_ms_max),
 * RCLIENT_ERR_PROTOCOL (over 1200 bytes, guard buffer_size or resource
 * window_size_ms over quota), RCLIENT_ERR_DNS (no servers known; forces a
 * refresh), RCLIENT_ERR_AUTH (random source or encryption failed; nothing
 * sent), RCLIENT_ERR_NOMEM, RCLIENT_ERR_IO (no server could be sent to: every
 * send of the first transmission failed). A send refused towards some
 * servers only is no error: the others still get the request (r-client.md
 * 9.3 best-effort delivery), each refusal is logged at R_LOG_WARN with the
 * server_id and counted in r_request_profile_t.send_failures. */
RCLIENT_API int r_client_check_rate_limit_async(r_client_t *client, const r_resource_request_t *resources,
                                                size_t resource_count, const r_latency_guard_t *guards,
                                                size_t guard_count, const char *metrics_label,
                                                size_t metrics_label_len, r_rate_limit_cb cb, void *user_data,
                                                r_client_req_t **out_req);

/* As above, with api.md's borrowed contract: resources, guards and
 * metrics_label must stay valid until the callback or cancellation. This
 * implementation reads them during the call only: like the copying form it
 * keeps copies of the resources and guards (responses are checked against
 * them) and the datagram sealed once at submit, which every replay and
 * completion-delivery send repeats (r-client.md 9.3.2; one AES nonce, one
 * plaintext). Changing the buffers' contents afterwards changes neither. */
RCLIENT_API int r_client_check_rate_limit_async_borrowed(r_client_t *client, const r_resource_request_t *resources,
                                                         size_t resource_count, const r_latency_guard_t *guards,
                                                         size_t guard_count, const char *metrics_label,
                                                         size_t metrics_label_len, r_rate_limit_cb cb,
                                                         void *user_data, r_client_req_t **out_req);

/* Cancel: no callback will fire; the handle is released, so cancelling the
 * same handle twice, or after its callback returned, is a use-after-free.
 * Harmless (no-op) for a request whose callback is running, at any depth of
 * nested callbacks; r_client_on_timeout on such a request is a no-op too. Returns RCLIENT_OK or
 * RCLIENT_ERR_CONFIG for NULL arguments. */
RCLIENT_API int r_client_cancel_request(r_client_t *client, r_client_req_t *req);

/* The request's next absolute deadline, Unix-epoch ms (api.md "Datagrams and
 * Timers"). Re-query after every nonterminal datagram or timeout. */
RCLIENT_API uint64_t r_client_request_deadline_ms(const r_client_t *client, const r_client_req_t *req);

/* Apply the deadlines of req that are <= now_ms (selection, replay round,
 * final receive phase, timeout). Before the deadline it is a no-op. A late
 * call enters the phase current at now_ms: rounds already over are skipped
 * without sending and only the current round replays, once (r-client.md
 * 9.3.1, 9.3.3; docs/spec-notes.md "Late timers"). Returns RCLIENT_OK (also
 * when it completed and freed req) or RCLIENT_ERR_CONFIG. */
RCLIENT_API int r_client_on_timeout(r_client_t *client, r_client_req_t *req, uint64_t now_ms);

/* Deliver one received datagram (api.md "Datagrams and Timers").
 * Informational returns (the request stays in flight): RCLIENT_ERR_PROTOCOL
 * (malformed, including an empty datagram and one over R_CLIENT_MAX_DATAGRAM
 * bytes; AES tag failure; or a response whose blocks do not answer its
 * request's block by block), RCLIENT_ERR_AUTH (wrong auth TLV type, cookie
 * mismatch). These are returned whether or not the datagram's unique_id
 * matches an in-flight request: framing and authentication need only the
 * client's key. RCLIENT_OK for a valid response and for valid-looking
 * datagrams that match no in-flight request (late, duplicate, foreign,
 * untrusted, another PDU kind). RCLIENT_ERR_CONFIG for a NULL client, or NULL
 * data with len > 0. data is borrowed for the call. */
RCLIENT_API int r_client_on_datagram(r_client_t *client, const uint8_t *data, size_t len);

/* ---- Latency reports (api.md "Reporting measured work", r-client.md 6.2.2) - */

/* Fire-and-forget: one datagram with every report whose buffer_size is
 * within quota, sent to every known server under a fresh unique_id.
 * reports are borrowed for the call. Returns RCLIENT_OK (also when every
 * report was filtered and nothing was sent), RCLIENT_ERR_CONFIG (NULL or
 * n_reports 0), RCLIENT_ERR_PROTOCOL (does not fit 1200 bytes), RCLIENT_ERR_DNS,
 * RCLIENT_ERR_AUTH, RCLIENT_ERR_IO (no server could be sent to; a send refused
 * towards some servers only is logged and the others still get the report,
 * r-client.md 6.2.2, 9.3). */
RCLIENT_API int r_client_report_latency(r_client_t *client, const r_service_latency_report_t *reports,
                                        size_t n_reports);

/* ---- Membership, DNS and steering ------------------------------------------ */

/* Servers in the current membership (what a new request would snapshot). */
RCLIENT_API size_t r_client_server_count(const r_client_t *client);

/* Start a DNS refresh now if none is in flight (subject to the forced-refresh
 * minimum interval and jitter). Returns RCLIENT_OK (also when throttled, and
 * for an over-long tenant name, which is never looked up), or
 * RCLIENT_ERR_CONFIG when the client uses explicit servers or has no resolver. */
RCLIENT_API int r_client_refresh_dns(r_client_t *client);

/* True while a steering rebind is pending (r-client.md 6.1 RebindPending). */
RCLIENT_API bool r_client_rebind_pending(const r_client_t *client);

/* The host finished (ok = true) or failed (ok = false) replacing its UDP
 * source socket; a failure keeps the rebind pending. */
RCLIENT_API void r_client_rebind_complete(r_client_t *client, bool ok);

#ifdef __cplusplus
}
#endif

#endif /* R_CLIENT_H */
