/* SPDX-License-Identifier: MIT */
/* conf_exec.c - the event loop of one HA case (conformance/README.md "Time and
 * ordering"): submit at t0, the script in order, timers fired by the host's
 * rule (auto: every deadline before the next event, datagrams first at equal
 * times; manual: only scripted timers), then every remaining deadline. */
#include "conf_exec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_host.h"
#include "conf_remote.h"

#define MAX_TIMER_CALLS 10000

void conf_row(conf_rows_t *out, const char *name, bool pass, const char *fmt, ...)
{
    if (out->n_rows == CONF_MAX_ROWS)
        return;
    conf_row_t *r = &out->rows[out->n_rows++];
    vec_format(r->name, sizeof r->name, "%s", name);
    r->pass = pass;
    r->skipped = false;
    r->inconclusive = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
}

/* Deliver every deadline below limit (absolute, exclusive), each at
 * max(deadline, now). False with err when the client stops advancing. */
static bool fire_due(conf_host_t *h, uint64_t limit, char *err, size_t cap)
{
    for (int calls = 0; h->pending; calls++) {
        uint64_t d = conf_host_deadline(h);
        if (d >= limit)
            return true;
        if (calls == MAX_TIMER_CALLS) {
            vec_format(err, cap, "more than %d timer deliveries", MAX_TIMER_CALLS);
            return false;
        }
        if (d > h->now)
            h->now = d;
        uint64_t at = h->now;
        conf_host_timer(h);
        if (h->pending && conf_host_deadline(h) <= at) {
            vec_format(err, cap, "the deadline %llu did not move after a timer delivered at %llu",
                       (unsigned long long)(d - CONF_T0_MS), (unsigned long long)(at - CONF_T0_MS));
            return false;
        }
    }
    return true;
}

/* api.md "Datagrams and Timers": the code r_client_on_datagram owes a
 * datagram of this variant. matched: its unique_id is the request's and the
 * request is in flight. Framing and authentication need no request, so
 * malformed and auth classes keep their codes unmatched; a variant judged
 * against the request's blocks is then just valid-looking (OK). */
static int expected_code(conf_variant_t v, bool matched)
{
    const conf_variant_info_t *info = conf_variant_info(v);
    if (info->vs_request && !matched)
        return RCLIENT_OK;
    switch (info->cls) {
    case CONF_CLASS_MALFORMED: return RCLIENT_ERR_PROTOCOL;
    case CONF_CLASS_AUTH:
        return (v == CONF_VAR_BAD_TAG || v == CONF_VAR_BAD_CIPHERTEXT) ? RCLIENT_ERR_PROTOCOL : RCLIENT_ERR_AUTH;
    default: return RCLIENT_OK;
    }
}

typedef struct {
    char problem[VEC_MSG_MAX]; /* the case could not be run as written */
    char codes[VEC_MSG_MAX];   /* first datagram code mismatch */
    size_t n_datagrams;
} exec_notes_t;

static bool deliver(conf_host_t *h, const conf_event_t *ev, size_t i, exec_notes_t *n)
{
    uint8_t buf[R_CLIENT_MAX_DATAGRAM];
    size_t len = 0;
    char err[VEC_MSG_MAX];
    if (!conf_host_build(h, ev, buf, &len, err, sizeof err)) {
        vec_format(n->problem, sizeof n->problem, "events[%zu]: %s", i, err);
        return false;
    }
    bool was_pending = h->pending;
    int rc = conf_host_datagram(h, buf, len);
    n->n_datagrams++;
    if (h->remote != NULL) {
        /* an adapter's client answers with a class, not an api.md code */
        if (n->codes[0] == '\0')
            conf_remote_datagram_check(h, ev, i, was_pending && !ev->foreign_unique_id, n->codes, sizeof n->codes);
        return true;
    }
    /* After the request ended every datagram matches nothing in flight. */
    int want = expected_code(ev->variant, was_pending && !ev->foreign_unique_id);
    bool ok = rc == want;
    if (!ok && n->codes[0] == '\0')
        vec_format(n->codes, sizeof n->codes, "events[%zu] (%s): r_client_on_datagram returned %s, want %s", i,
                   ev->kind == CONF_EV_INVALID ? conf_variant_info(ev->variant)->name : "response",
                   r_client_strerror(rc), r_client_strerror(want));
    return true;
}

static bool run_script(conf_host_t *h, exec_notes_t *n)
{
    const conf_case_t *c = h->c;
    for (size_t i = 0; i < c->n_events; i++) {
        const conf_event_t *ev = &c->events[i];
        uint64_t t = CONF_T0_MS + ev->at;
        if (!c->manual_timers && !fire_due(h, t, n->problem, sizeof n->problem))
            return false;
        if (t > h->now)
            h->now = t;
        if (ev->kind == CONF_EV_TIMER) {
            if (h->pending)
                conf_host_timer(h);
        } else if (ev->kind == CONF_EV_CANCEL) {
            conf_host_cancel(h);
        } else if (!deliver(h, ev, i, n)) {
            return false;
        }
    }
    return fire_due(h, UINT64_MAX, n->problem, sizeof n->problem);
}

static conf_outcome_t submit_outcome(int rc)
{
    switch (rc) {
    case RCLIENT_ERR_CONFIG: return CONF_OUT_REJECTED;
    case RCLIENT_ERR_IO: return CONF_OUT_SUBMIT_SEND_FAILED;
    default: return CONF_OUT_OTHER;
    }
}

/* A preset must derive the case's schedule (README "Envelope", preset). */
static void check_preset(const conf_case_t *c, conf_rows_t *out)
{
    static const char *const names[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid"};
    r_request_policy_t p;
    r_policy_schedule_t want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    bool ok = r_client_request_policy_preset(&p, c->preset) == RCLIENT_OK &&
              r_client_policy_schedule(&p, UINT32_MAX, &got, NULL) == RCLIENT_OK &&
              r_client_policy_schedule(&c->policy, UINT32_MAX, &want, NULL) == RCLIENT_OK &&
              memcmp(&want, &got, sizeof want) == 0 && p.completion_delivery == c->policy.completion_delivery;
    conf_row(out, "preset", ok, ok ? "%s" : "policy is not the %s preset", names[c->preset]);
}

void conf_exec_host(conf_host_t *h, const conf_case_t *c, conf_rows_t *out)
{
    exec_notes_t notes;
    char err[VEC_MSG_MAX];
    memset(&notes, 0, sizeof notes);
    int rc = conf_host_submit(h);
    if (rc != RCLIENT_OK)
        h->obs.outcome = submit_outcome(rc);
    /* The script runs even after a refused submission: its datagrams must then
     * be ignored, and a response with no request to answer is a case error. */
    if (!run_script(h, &notes)) {
        conf_row(out, "case", false, "%s", notes.problem);
        return;
    }
    if (h->pending)
        h->obs.outcome = CONF_OUT_PENDING;
    else if (h->cancelled && h->obs.completions == 0)
        h->obs.outcome = CONF_OUT_CANCELLED;
    for (size_t i = 0; i < h->n_cap; i++)
        h->obs.sends[i] = h->cap[i].s;
    h->obs.n_sends = h->n_cap;
    conf_check_behaviour(c, &h->obs, out);
    if (h->obs.outcome == CONF_OUT_OTHER)
        conf_row(out, "status", false, "the client reported %s, which no outcome names",
                 r_client_strerror(rc != RCLIENT_OK ? rc : h->status));
    bool req_ok = conf_host_check_requests(h, err, sizeof err);
    conf_row(out, "requests", req_ok, "%s", req_ok ? "" : err);
    if (h->obs.has_ttl && c->expect.has_ttl)
        conf_row(out, "ttl_ms", h->obs.ttl_ms == c->expect.ttl_ms,
                 h->obs.ttl_ms == c->expect.ttl_ms ? "%u" : "want %u got %u", c->expect.ttl_ms, h->obs.ttl_ms);
    else if (c->expect.has_ttl)
        conf_row(out, "ttl_ms", false, "want %u, but no request was sent", c->expect.ttl_ms);
    if (notes.n_datagrams > 0)
        conf_row(out, "datagrams", notes.codes[0] == '\0', "%s", notes.codes);
}

void conf_run_case(const conf_case_t *c, conf_rows_t *out)
{
    out->n_rows = 0;
    conf_host_t *h = calloc(1, sizeof *h);
    char err[VEC_MSG_MAX];
    if (h == NULL) {
        conf_row(out, "case", false, "out of memory");
        return;
    }
    if (c->has_preset)
        check_preset(c, out);
    if (conf_host_init(h, c, err, sizeof err))
        conf_exec_host(h, c, out);
    else
        conf_row(out, "case", false, "%s", err);
    conf_host_free(h);
    free(h);
}
