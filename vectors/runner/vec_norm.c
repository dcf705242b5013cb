/* SPDX-License-Identifier: MIT */
/* vec_norm.c - steps, norms and severities of vector tests (see vec_norm.h).
 * The project choices tagged here are recorded in docs/spec-notes.md
 * "Verdicts: steps, norms and severities". */
#include "vec_norm.h"

#include <string.h>

#include "vec_json.h"

const vec_severity_t vec_severity_order[VEC_SEV_COUNT] = {VEC_SEV_SECURITY, VEC_SEV_DECISION, VEC_SEV_INTEROP,
                                                           VEC_SEV_CONVENTION};

const char *vec_severity_name(vec_severity_t s)
{
    static const char *const names[VEC_SEV_COUNT] = {"interop", "security", "decision", "convention"};
    return (unsigned)s < VEC_SEV_COUNT ? names[s] : "convention";
}

/* ---- steps ---------------------------------------------------------------- */

static const char *const steps_key[] = {"key", NULL};
static const char *const steps_ids[] = {"ids", NULL};
static const char *const steps_discovery[] = {"discovery", NULL};
static const char *const steps_request[] = {"key", "request", NULL};
static const char *const steps_report[] = {"key", "report", NULL};
static const char *const steps_response[] = {"key", "response", NULL};
static const char *const steps_policy[] = {"policy", NULL};
static const char *const steps_admin[] = {"key", "admin", NULL};

static const struct {
    const char *kind;
    const char *const *steps;
} kind_steps[] = {
    {"api_key", steps_key},
    {"secret_key", steps_key},
    {"quota_word", steps_key},
    {"bucket_id", steps_ids},
    {"tracker_id", steps_ids},
    {"server_id", steps_ids},
    {"srv_target", steps_discovery},
    {"rate_request_packet", steps_request},
    {"latency_report_packet", steps_report},
    {"rate_response", steps_response},
    {"ha_schedule", steps_policy},
    {"admin_tenant_mutation", steps_admin},
    {"admin_status_query", steps_admin},
    {"admin_metrics_query", steps_admin},
    {"admin_tenant_ack", steps_admin},
    {"admin_status_response", steps_admin},
    {"admin_metrics_response", steps_admin},
};

const char *const *vec_kind_steps(const char *kind)
{
    for (size_t i = 0; kind != NULL && i < sizeof kind_steps / sizeof kind_steps[0]; i++) {
        if (strcmp(kind_steps[i].kind, kind) == 0)
            return kind_steps[i].steps;
    }
    return NULL;
}

int vec_step_rank(const char *kind, const char *step)
{
    const char *const *steps = vec_kind_steps(kind);
    for (int i = 0; steps != NULL && step != NULL && steps[i] != NULL; i++) {
        if (strcmp(steps[i], step) == 0)
            return i;
    }
    return -1;
}

const char *vec_kind_final_step(const char *kind)
{
    const char *const *steps = vec_kind_steps(kind);
    if (steps == NULL)
        return NULL;
    size_t n = 0;
    while (steps[n + 1] != NULL)
        n++;
    return steps[n];
}

/* ---- norms ---------------------------------------------------------------- */

#define SPEC true
#define PROJECT false

/* First match wins. flag NULL: any; result NULL: either; error NULL: any
 * (an invalid test's expected class). */
typedef struct {
    const char *kind;   /* "admin_": every administrative kind */
    const char *flag;
    const char *result;
    const char *error;
    const char *norm;
    bool spec;
    vec_severity_t severity;
} norm_row_t;

static const norm_row_t norm_rows[] = {
    {"api_key", "Quota", NULL, NULL, "wire_protocol.md \"API-key quota word, format version 1\" MUST", SPEC,
     VEC_SEV_INTEROP},
    {"api_key", NULL, NULL, NULL, "wire_protocol.md \"Bech32 Credential Formats\" MUST", SPEC, VEC_SEV_INTEROP},
    {"secret_key", NULL, NULL, NULL, "wire_protocol.md \"Bech32 Credential Formats\" MUST", SPEC, VEC_SEV_INTEROP},
    {"quota_word", NULL, NULL, NULL, "wire_protocol.md \"API-key quota word, format version 1\" MUST", SPEC,
     VEC_SEV_INTEROP},
    {"bucket_id", NULL, NULL, NULL, "wire_protocol.md \"Content-defined resource identity\" MUST", SPEC,
     VEC_SEV_INTEROP},
    {"tracker_id", NULL, NULL, NULL, "wire_protocol.md \"Content-defined latency-tracker identity\" MUST", SPEC,
     VEC_SEV_INTEROP},
    {"server_id", NULL, NULL, NULL, "wire_protocol.md \"Structured server_id Format\" MUST", SPEC, VEC_SEV_INTEROP},
    {"srv_target", "Host", "invalid", NULL, "project: SRV target hostname syntax (docs/spec-notes.md \"SRV targets\")",
     PROJECT, VEC_SEV_CONVENTION},
    {"srv_target", NULL, NULL, NULL, "r-client.md 3.1 \"s-<server_id_decimal>\" MUST", SPEC, VEC_SEV_INTEROP},
    {"rate_request_packet", "Capacity", NULL, NULL, "wire_protocol.md datagrams of at most 1200 bytes MUST", SPEC,
     VEC_SEV_INTEROP},
    {"rate_request_packet", "Quota", NULL, NULL, "wire_protocol.md \"API-key quota word, format version 1\" MUST",
     SPEC, VEC_SEV_INTEROP},
    {"rate_request_packet", NULL, NULL, NULL, "wire_protocol.md \"Rate Request\" MUST", SPEC, VEC_SEV_INTEROP},
    {"latency_report_packet", "Filtered", NULL, NULL,
     "project: a call whose every report is filtered answers {\"sent\": false} (docs/spec-notes.md)", PROJECT,
     VEC_SEV_CONVENTION},
    {"latency_report_packet", NULL, NULL, NULL, "wire_protocol.md \"Latency Report PDU\" MUST", SPEC,
     VEC_SEV_INTEROP},
    {"rate_response", NULL, "invalid", "auth", "wire_protocol.md \"Auth Header\" MUST", SPEC, VEC_SEV_SECURITY},
    {"rate_response", NULL, "invalid", "correlation", "r-client.md 6.2.1 correlation MUST", SPEC, VEC_SEV_DECISION},
    {"rate_response", "Request", "invalid", NULL,
     "project: blocks matched by position (api.md lets count and order differ; docs/spec-notes.md)", PROJECT,
     VEC_SEV_CONVENTION},
    {"rate_response", NULL, "invalid", NULL, "wire_protocol.md \"rate_response PDU\" MUST", SPEC, VEC_SEV_INTEROP},
    {"rate_response", NULL, "valid", NULL, "wire_protocol.md \"Response Semantics\" MUST", SPEC, VEC_SEV_DECISION},
    {"ha_schedule", "TtlAboveKeyMax", NULL, NULL, "r-client.md 9.3.1 the horizon within dedup_ttl_ms_max MUST", SPEC,
     VEC_SEV_DECISION},
    {"ha_schedule", "ReplayCountAboveCap", NULL, NULL,
     "project: replay_count <= 16 (R_CLIENT_HA_MAX_REPLAY_COUNT; docs/spec-notes.md)", PROJECT, VEC_SEV_CONVENTION},
    {"ha_schedule", NULL, NULL, NULL, "r-client.md 9.3.1 SHOULD (recommended, not required: r-client.md 9.3)", SPEC,
     VEC_SEV_CONVENTION},
    {"admin_", NULL, "invalid", "auth", "wire_protocol.md \"Administrative PDUs\" authentication MUST", SPEC,
     VEC_SEV_SECURITY},
    {"admin_", NULL, NULL, NULL, "wire_protocol.md \"Administrative PDUs\" MUST", SPEC, VEC_SEV_INTEROP},
};

static bool has_flag(const json_t *test, const char *flag)
{
    const json_t *flags = json_object_get(test, "flags");
    for (size_t i = 0; i < json_array_size(flags); i++) {
        if (vj_string_is(json_array_get(flags, i), flag))
            return true;
    }
    return false;
}

static bool kind_matches(const char *row_kind, const char *kind)
{
    size_t n = strlen(row_kind);
    if (n > 0 && row_kind[n - 1] == '_')
        return strncmp(row_kind, kind, n) == 0;
    return strcmp(row_kind, kind) == 0;
}

static bool row_matches(const norm_row_t *row, const char *kind, const json_t *test)
{
    const json_t *expected = json_object_get(test, "expected");
    return kind_matches(row->kind, kind) && (row->flag == NULL || has_flag(test, row->flag)) &&
           (row->result == NULL || vj_string_is(json_object_get(test, "result"), row->result)) &&
           (row->error == NULL || vj_string_is(json_object_get(expected, "error"), row->error));
}

/* A growth schedule whose validity is the project's choice: linear with step
 * 0, exponential with factor 0 or 1 (another client documents step >= 1 and
 * factor >= 2; the spec copy of api.md has no list). */
static bool project_growth(const json_t *sched)
{
    const json_t *kind = json_object_get(sched, "kind");
    json_int_t step = json_integer_value(json_object_get(sched, "linear_step_units"));
    json_int_t factor = json_integer_value(json_object_get(sched, "exponential_factor"));
    return (vj_string_is(kind, "linear") && step == 0) || (vj_string_is(kind, "exponential") && factor <= 1);
}

/* "s-0..." with more digits: leading zeros are refused by the project's choice. */
static bool srv_leading_zero(const json_t *input)
{
    const char *t = json_string_value(json_object_get(input, "target"));
    return t != NULL && strncmp(t, "s-0", 3) == 0 && t[3] >= '0' && t[3] <= '9';
}

static bool project_input(const char *kind, const json_t *test)
{
    const json_t *input = json_object_get(test, "input");
    if (strcmp(kind, "srv_target") == 0)
        return vj_string_is(json_object_get(test, "result"), "invalid") && srv_leading_zero(input);
    if (strcmp(kind, "ha_schedule") != 0)
        return false;
    const json_t *pol = json_object_get(input, "policy");
    return json_integer_value(json_object_get(pol, "replay_count")) >= 16 ||
           project_growth(json_object_get(pol, "replay_gap")) || project_growth(json_object_get(pol, "preference"));
}

void vec_tag_test(const char *kind, const json_t *test, vec_tag_t *out)
{
    out->step = vec_kind_final_step(kind);
    if (out->step == NULL)
        out->step = "input";
    out->norm = "project";
    out->spec = false;
    out->severity = VEC_SEV_CONVENTION;
    for (size_t i = 0; i < sizeof norm_rows / sizeof norm_rows[0]; i++) {
        if (row_matches(&norm_rows[i], kind, test)) {
            out->norm = norm_rows[i].norm;
            out->spec = norm_rows[i].spec;
            out->severity = norm_rows[i].severity;
            break;
        }
    }
    if (out->spec && project_input(kind, test)) {
        out->norm = strcmp(kind, "srv_target") == 0
                        ? "project: SRV target digits without leading zeros (docs/spec-notes.md \"SRV targets\")"
                        : "project: replay_count 16, linear step 0 and exponential factor 0 or 1 valid "
                          "(docs/spec-notes.md)";
        out->spec = false;
        out->severity = VEC_SEV_CONVENTION;
    }
    const json_t *step = json_object_get(test, "step");
    if (vec_step_rank(kind, json_string_value(step)) >= 0) {
        const char *const *steps = vec_kind_steps(kind);
        out->step = steps[vec_step_rank(kind, json_string_value(step))];
    }
    const char *norm = json_string_value(json_object_get(test, "norm"));
    if (norm != NULL) {
        out->norm = norm;
        out->spec = strncmp(norm, "project", 7) != 0;
    }
}
