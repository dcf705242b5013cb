/* SPDX-License-Identifier: MIT */
/* conf_case.h - HA decision cases (schema ratelimitly-ha-case/v1, conformance/README.md):
 * the parsed case, and the behaviour a case expects or a run observed.
 *
 * Expected and observed behaviour share one struct, so checking is a
 * field-by-field comparison (conf_check.c). */
#ifndef CONF_CASE_H
#define CONF_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "r_client.h"
#include "vec_json.h"

#define CONF_SCHEMA_ID "ratelimitly-ha-case/v1"
#define CONF_MAX_SERVERS 16u
#define CONF_MAX_BLOCKS 8u   /* resources, and guards, per request */
#define CONF_MAX_EVENTS 128u
#define CONF_MAX_SENDS 256u
#define CONF_MAX_FAILURES 16u
#define CONF_NAME_MAX 16u    /* server name, with its NUL */
#define CONF_ID_MAX 64u      /* case id, with its NUL */
#define CONF_KEY_MAX 256u
#define CONF_LABEL_MAX 128u

typedef enum { CONF_EV_RESPONSE, CONF_EV_INVALID, CONF_EV_TIMER, CONF_EV_CANCEL } conf_event_kind_t;

/* Invalid-datagram variants (README "Invalid datagrams"). */
typedef enum {
    CONF_VAR_NONE = 0,
    CONF_VAR_EMPTY,
    CONF_VAR_TENANT_TRUNCATED,
    CONF_VAR_TENANT_TYPE,
    CONF_VAR_TENANT_PADDING,
    CONF_VAR_STEERING_VALUE,
    CONF_VAR_TRUNCATED,
    CONF_VAR_PDU_SIZE,
    CONF_VAR_RESERVED_NONZERO,
    CONF_VAR_WRONG_AUTH_TYPE,
    CONF_VAR_BAD_COOKIE,
    CONF_VAR_BAD_TAG,
    CONF_VAR_BAD_CIPHERTEXT,
    CONF_VAR_WRONG_UNIQUE_ID,
    CONF_VAR_UNTRUSTED_SERVER_ID,
    CONF_VAR_WRONG_PDU_TYPE,
    CONF_VAR_MGMT_FLAG,
    CONF_VAR_REFLECTED_REQUEST,
    CONF_VAR_RESOURCE_REPEATED,
    CONF_VAR_RESOURCE_OMITTED,
    CONF_VAR_RESOURCES_SWAPPED,
    CONF_VAR_GUARD_REPEATED,
    CONF_VAR_AUTH_NONE, /* cookie or aes key: the response authenticated with auth none */
    CONF_VAR_COUNT
} conf_variant_t;

typedef enum { CONF_CLASS_VALID, CONF_CLASS_MALFORMED, CONF_CLASS_AUTH, CONF_CLASS_CORRELATION } conf_class_t;

typedef struct {
    const char *name;
    conf_class_t cls;
    bool pre_seal;          /* applied to the plaintext before authentication */
    r_auth_type_t only_mode; /* R_AUTH_UNSPECIFIED: every mode */
    uint8_t min_guards;      /* the request needs at least this many guards */
    uint8_t min_resources;   /* ... and resources */
    bool vs_request;         /* judged against the request's blocks: with no request in
                                flight to compare (foreign or late), the class is correlation */
} conf_variant_info_t;

/* Variant v (CONF_VAR_NONE < v < CONF_VAR_COUNT). */
const conf_variant_info_t *conf_variant_info(conf_variant_t v);

typedef struct {
    conf_event_kind_t kind;
    uint32_t at;             /* ms after t0 */
    int server;              /* index into the case's servers; -1 for timer and cancel */
    conf_variant_t variant;  /* CONF_EV_INVALID */
    bool foreign_unique_id;  /* CONF_EV_INVALID: unique_id also altered (README "Invalid datagrams") */
    bool keep_port;          /* CONF_EV_RESPONSE; default true */
    uint16_t tokens_deficit[CONF_MAX_BLOCKS];  /* per request resource; default 0 */
    uint32_t actual_rate[CONF_MAX_BLOCKS];     /* default 1 */
    uint32_t current_latency[CONF_MAX_BLOCKS]; /* per request guard; default 5 */
} conf_event_t;

typedef enum { CONF_SEND_INITIAL = 0, CONF_SEND_REPLAY = 1, CONF_SEND_COMPLETION = 2 } conf_send_kind_t;

typedef struct {
    uint64_t at;             /* ms after t0 */
    int server;
    conf_send_kind_t kind;
    uint32_t round;          /* replay only */
    bool ok;
} conf_send_t;

typedef enum {
    CONF_OUT_ALLOWED,
    CONF_OUT_DENIED,
    CONF_OUT_TIMEOUT,
    CONF_OUT_SEND_FAILED,
    CONF_OUT_CANCELLED,
    CONF_OUT_REJECTED,
    CONF_OUT_SUBMIT_SEND_FAILED,
    CONF_OUT_PENDING,        /* observed only: still in flight when the run ended */
    CONF_OUT_OTHER           /* observed only: a status no outcome names */
} conf_outcome_t;

const char *conf_outcome_name(conf_outcome_t o);

typedef struct {
    uint16_t tokens_deficit;
    uint32_t actual_rate;
} conf_res_result_t;

typedef struct {
    uint32_t current_latency;
    bool passed;
} conf_guard_result_t;

/* What a case expects, or what a run observed (the has_* flags mark the
 * optional expectations; an observation sets all of them). */
typedef struct {
    conf_outcome_t outcome;
    int selected;                    /* server index, -1 = none */
    bool has_decision;
    uint64_t decision_at;
    uint32_t completions;
    conf_send_t sends[CONF_MAX_SENDS];
    size_t n_sends;
    bool has_ttl;
    uint32_t ttl_ms;
    bool has_profile;
    bool profile_none;               /* expected/observed: no profile reported */
    uint32_t profile_round;
    r_request_phase_t profile_phase;
    bool has_keep_port;
    bool keep_port;
    bool has_result;
    conf_res_result_t resources[CONF_MAX_BLOCKS];
    size_t n_resources;
    conf_guard_result_t guards[CONF_MAX_BLOCKS];
    size_t n_guards;
    bool has_rebinds;
    uint32_t rebinds;
} conf_behaviour_t;

typedef struct {
    int server;
    uint32_t from;
    uint32_t count;
} conf_failure_t;

typedef struct {
    char id[CONF_ID_MAX];
    char area[16];
    char spec[160];                  /* the case's "spec" entries joined by "; " (its norm) */
    bool c_api;                      /* flag c_api: follows api.md where r-client.md leaves the choice */
    bool convention;                 /* flag convention: a project convention (README "Flags") */
    char key[CONF_KEY_MAX];
    r_auth_type_t auth;              /* R_AUTH_UNSPECIFIED while any_auth is unbound */
    bool any_auth;                   /* "auth": "any": run once per mode (conf_case_bind_mode) */
    r_request_policy_t policy;
    bool has_preset;
    r_policy_preset_t preset;
    size_t n_servers;
    char server_names[CONF_MAX_SERVERS][CONF_NAME_MAX];
    uint64_t server_ids[CONF_MAX_SERVERS];
    r_resource_request_t resources[CONF_MAX_BLOCKS];
    size_t n_resources;
    r_latency_guard_t guards[CONF_MAX_BLOCKS];
    size_t n_guards;
    char label[CONF_LABEL_MAX];
    size_t label_len;
    bool manual_timers;
    conf_failure_t failures[CONF_MAX_FAILURES];
    size_t n_failures;
    conf_event_t events[CONF_MAX_EVENTS];
    size_t n_events;
    conf_behaviour_t expect;
} conf_case_t;

/* True when root declares the ratelimitly-ha-case/v1 schema. */
bool conf_is_case_file(const json_t *root);

/* Parse a case. On failure e->msg names the field ("events[3].server: unknown
 * server \"D\"") and *c is unspecified. Does not check the credential itself:
 * that is the run's first step. */
bool conf_case_parse(const json_t *root, conf_case_t *c, vj_err_t *e);

/* For a case with "auth": "any" (conformance/README.md "Auth modes"): set
 * c->key to the fixed key of mode (R_AUTH_NONE, R_AUTH_COOKIE or R_AUTH_AES)
 * and c->auth to mode. Returns the mode's name ("none", "cookie", "aes"). */
const char *conf_case_bind_mode(conf_case_t *c, r_auth_type_t mode);

/* Parse root.expect into c->expect (servers must be parsed already). */
bool conf_expect_parse(const json_t *root, conf_case_t *c, vj_err_t *e);

/* Shared parsing helpers (conf_case.c). */
/* Every key of obj must be in the NULL-terminated list allowed. */
bool conf_keys_known(const json_t *obj, const vj_path_t *path, const char *const *allowed, vj_err_t *e);
/* obj[key] names a server of c; *out its index. */
bool conf_server_ref(const json_t *obj, const vj_path_t *base, const char *key, const conf_case_t *c, int *out,
                     vj_err_t *e);
/* Optional member: absent leaves *out unchanged. */
bool conf_opt_bool(const json_t *obj, const vj_path_t *base, const char *key, bool *out, vj_err_t *e);

#endif /* CONF_CASE_H */
