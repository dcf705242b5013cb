/* SPDX-License-Identifier: MIT */
/* vec_norm.h - what a vector test is about: the step of the client it
 * exercises, the norm it checks (a spec sentence or a project choice) and the
 * severity of a failure (conformance/ADAPTER.md "Steps", "Norms and
 * severities").
 *
 * Every tag is derived from the test's kind, flags, result and input, so the
 * files other projects publish (../shared/external/) are tagged without being
 * edited; a test may carry the optional fields "step" and "norm" (a
 * compatible extension of ../shared/vectors-schema.md) to say so itself. */
#ifndef VEC_NORM_H
#define VEC_NORM_H

#include <stdbool.h>

#include <jansson.h>

/* Failure severities. Zero (a case nobody tagged, a broken file) is interop;
 * vec_severity_order lists them most serious first. */
typedef enum {
    VEC_SEV_INTEROP = 0,    /* wire format */
    VEC_SEV_SECURITY = 1,   /* response authentication, secrets on the wire, nonce reuse */
    VEC_SEV_DECISION = 2,   /* a wrong allow or deny, a send at or after the dedup deadline */
    VEC_SEV_CONVENTION = 3, /* project choices, SHOULDs */
    VEC_SEV_COUNT = 4
} vec_severity_t;

/* security, decision, interop, convention. */
extern const vec_severity_t vec_severity_order[VEC_SEV_COUNT];

/* "security", "decision", "interop", "convention". */
const char *vec_severity_name(vec_severity_t s);

typedef struct {
    const char *step;       /* static: one of the kind's steps (vec_kind_steps) */
    const char *norm;       /* static or owned by the test JSON: "wire_protocol.md \"Auth Header\" MUST", or
                               "project: <what> (docs/spec-notes.md)" */
    bool spec;              /* the norm is a spec sentence (MUST or SHOULD), not a project choice */
    vec_severity_t severity;
} vec_tag_t;

/* The client steps a test of kind can be refused at, in the order a client
 * goes through them, NULL-terminated; e.g. {"key", "request", NULL} for
 * rate_request_packet. NULL for an unknown kind. */
const char *const *vec_kind_steps(const char *kind);

/* The step's position in kind's list, or -1 when kind has no such step. */
int vec_step_rank(const char *kind, const char *step);

/* The kind's last step: the one every test of the kind is about unless a
 * test says otherwise ("ids" for bucket_id). NULL for an unknown kind. */
const char *vec_kind_final_step(const char *kind);

/* Tag one test of kind (test: the test object, already checked to be an
 * object). Never fails: an unknown kind is tagged with step "input" and norm
 * "project". An optional test.step naming one of the kind's steps and an
 * optional test.norm string override the derived values. */
void vec_tag_test(const char *kind, const json_t *test, vec_tag_t *out);

#endif /* VEC_NORM_H */
