/* SPDX-License-Identifier: MIT */
/* conf_norm.c - the step, norm and severity of an HA case (see conf_runner.h;
 * conformance/ADAPTER.md "Norms and severities"). The case's own "spec"
 * entries are its norm; r-client.md 9.3 says its HA policy "does not
 * constrain independently implemented clients", so the policy's behaviour is
 * a recommendation (convention) unless a case is about authentication, the
 * decision itself, the dedup deadline or the horizon within the key's
 * dedup_ttl_ms_max (area policy: a MUST). Project choices (flags convention
 * and c_api, late-timer rounds) are recorded in docs/spec-notes.md. */
#include <string.h>

#include "conf_runner.h"

static bool has(const char *s, const char *part)
{
    return strstr(s, part) != NULL;
}

/* What the worst invalid datagram of a case would do if the client took it
 * (docs/spec-notes.md "Verdicts, second pass"): an authentication failure
 * would let an unauthenticated or forged response decide (security); a
 * correlation failure or a response that does not answer the request's
 * blocks would be selected for a request it does not answer (decision); a
 * malformed one is a wire-format fault (interop). A case with no invalid
 * datagram is about which response is selected and when (decision). */
typedef enum { BAD_NONE, BAD_WIRE, BAD_SELECTION, BAD_AUTH } bad_kind_t;

static bad_kind_t worst_variant(const conf_case_t *c)
{
    bad_kind_t worst = BAD_NONE;
    for (size_t i = 0; i < c->n_events; i++) {
        if (c->events[i].variant == CONF_VAR_NONE)
            continue;
        const conf_variant_info_t *info = conf_variant_info(c->events[i].variant);
        bad_kind_t k = info->cls == CONF_CLASS_AUTH                                      ? BAD_AUTH
                       : info->cls == CONF_CLASS_CORRELATION || info->min_guards > 0 ||
                                 info->min_resources > 0                                 ? BAD_SELECTION
                                                                                         : BAD_WIRE;
        if (k > worst)
            worst = k;
    }
    return worst == BAD_NONE ? BAD_SELECTION : worst;
}

void conf_case_tag(const conf_case_t *c, vec_case_t *v)
{
    const char *id = c->id;
    bool project = c->convention || c->c_api || (strncmp(id, "late_timer", 10) == 0 && !has(id, "after_horizon"));
    vec_format(v->step, sizeof v->step, "%s",
               strcmp(c->area, "policy") == 0 ? "policy" : strcmp(c->area, "datagram") == 0 ? "response" : "decision");
    v->spec = !project;
    if (project)
        vec_format(v->norm, sizeof v->norm, "project: %s (docs/spec-notes.md; the spec: %s)",
                   c->c_api ? "api.md's C API where r-client.md leaves the choice" : "a convention of this suite",
                   c->spec);
    else if (strncmp(c->spec, "r-client.md 9.3", 15) == 0 && strcmp(c->area, "policy") != 0)
        vec_format(v->norm, sizeof v->norm, "%s (recommended, not required: r-client.md 9.3)", c->spec);
    else
        vec_format(v->norm, sizeof v->norm, "%s", c->spec);
    if (has(id, "auth") || worst_variant(c) == BAD_AUTH)
        v->severity = VEC_SEV_SECURITY;
    else if (project)
        v->severity = VEC_SEV_CONVENTION;
    else if (strcmp(c->area, "decision") == 0 || strcmp(c->area, "policy") == 0 || strncmp(id, "deny_", 5) == 0 || has(id, "dedup_deadline") ||
             has(id, "after_horizon"))
        v->severity = VEC_SEV_DECISION;
    else if (strcmp(c->area, "datagram") == 0 || strncmp(id, "rule1_", 6) == 0 || strncmp(id, "rule2_", 6) == 0)
        v->severity = worst_variant(c) == BAD_WIRE ? VEC_SEV_INTEROP : VEC_SEV_DECISION;
    else
        v->severity = VEC_SEV_CONVENTION;
}
