/* SPDX-License-Identifier: MIT */
/* io_judge.c - the checks of an interop run, judged on the datagrams the
 * servers received and sent (docs/interop.md "Checks"). Each row names its
 * spec sentence and severity (security, decision, interop, convention, as the
 * conformance reports use them) and, for a timing check, its tolerance:
 * IO_EARLY_MS before and IO_LATE_PERCENT of U after the time the spec gives. */
#include <string.h>

#include "io_int.h"
#include "vec_json.h"

#define RACE_US (IO_EARLY_MS * 1000u) /* a response this close before the return may be unread */

typedef struct {
    io_run_t *run;
    io_rows_t *rows;
    uint64_t early, late;   /* us */
    uint64_t h_ms;
    bool selection;         /* the driver returned a server's decision */
} judge_t;

static io_row_t *row(judge_t *j, const char *name, const char *severity, const char *spec, bool timing)
{
    static io_row_t spare;
    io_row_t *r = j->rows->n < IO_MAX_ROWS ? &j->rows->rows[j->rows->n++] : &spare;
    *r = (io_row_t){.name = name, .severity = severity, .spec = spec, .timing = timing, .pass = true};
    return r;
}

/* Mark rx i as breaking check name (the first one it breaks is kept). */
static void blame(judge_t *j, io_row_t *r, size_t i, const char *what)
{
    io_rx_t *x = &j->run->rx[i];
    if (x->verdict_text == NULL || strcmp(x->verdict_text, "ok") == 0)
        x->verdict_text = r->name;
    if (r->pass)
        vec_format(r->detail, sizeof r->detail, "%s (at %.1f ms, to %s)", what,
                   ((double)x->at_us - (double)j->run->t0_us) / 1000.0, j->run->c.server_names[x->server]);
    r->pass = false;
}

/* The earliest valid response server s was sent, in us; UINT64_MAX when none. */
static uint64_t valid_at(const io_run_t *run, int s)
{
    uint64_t at = UINT64_MAX;
    for (size_t i = 0; i < run->n_tx; i++)
        if (run->tx[i].server == s && run->tx[i].valid && run->tx[i].at_us < at)
            at = run->tx[i].at_us;
    return at;
}

/* v + slack < t, where v may be UINT64_MAX (never). */
static bool before(uint64_t v, uint64_t slack, uint64_t t)
{
    return v != UINT64_MAX && v + slack < t;
}

/* The operation's deduplication deadline, in us: the first transmission's
 * time_stamp + dedup_ttl_ms (r-client.md 9.3.1, wire_protocol.md "dedup_ttl_ms":
 * the window the servers keep opened with the first copy; a replay carrying a
 * fresh time_stamp does not move it), and never later than t0 + that TTL (a
 * time_stamp ahead of the clock does not either). UINT64_MAX with no request. */
static uint64_t op_deadline_us(const io_run_t *run)
{
    for (size_t i = 0; i < run->n_rx; i++)
        if (run->rx[i].pdu == IO_PDU_REQUEST) {
            uint64_t start = run->rx[i].time_stamp * 1000u;
            if (run->t0_us != 0 && run->t0_us < start)
                start = run->t0_us;
            return start + (uint64_t)run->rx[i].ttl_ms * 1000u;
        }
    return UINT64_MAX;
}

/* Kinds: one at or after the operation's dedup deadline is late; after a selection, one
 * near the return that arrived after the servers sent their first response
 * (valid, downgraded or of an untrusted id: what a client may select; a
 * completion never comes earlier) is a completion delivery; the first transmission to a server
 * within the tolerance of t0 is initial; the others are replays. A datagram
 * that is no Rate Request (it fails framing) still counts as a transmission
 * of the request until the report is asked for. */
static void classify(judge_t *j)
{
    io_run_t *run = j->run;
    bool seen[CONF_MAX_SERVERS] = {false};
    uint64_t first_sent = UINT64_MAX; /* the first answer any server sent: a response, valid or not */
    for (size_t i = 0; i < run->n_tx; i++)
        if (strncmp(run->tx[i].what, "invalid:", 8) != 0 && run->tx[i].at_us < first_sent)
            first_sent = run->tx[i].at_us;
    uint64_t deadline = op_deadline_us(run);
    for (size_t i = 0; i < run->n_rx; i++) {
        io_rx_t *x = &run->rx[i];
        x->verdict_text = "ok";
        if (x->pdu == IO_PDU_REPORT)
            x->kind = "report";
        else if (x->pdu != IO_PDU_REQUEST && (run->report_us != 0 && x->at_us >= run->report_us))
            x->kind = "other"; /* after the report was asked for: not a transmission of the request */
        else if (x->pdu == IO_PDU_REQUEST && x->at_us >= deadline)
            x->kind = "late"; /* judged by the deadline check alone */
        else if (j->selection && x->at_us + j->late >= run->decided_us && x->at_us <= run->decided_us + j->late &&
                 x->at_us >= first_sent)
            x->kind = "completion";
        else if (!seen[x->server] && x->at_us < run->t0_us + j->late)
            x->kind = "initial";
        else
            x->kind = "replay";
        if (x->pdu != IO_PDU_REPORT)
            seen[x->server] = true;
    }
}

static void check_wire(judge_t *j)
{
    io_run_t *run = j->run;
    io_row_t *fr = row(j, "framing", "interop",
                       "wire_protocol.md Tenant Header, Auth Header, Rate Request (every datagram well formed and "
                       "authenticated under the key)", false);
    io_row_t *km = row(j, "key_material", "security",
                       "wire_protocol.md Auth Header (the AES key and cookie secret stay with client and servers; "
                       "the cookie only in its TLV)", false);
    io_row_t *uid = row(j, "unique_id", "decision",
                        "r-client.md 9.3.2 (every transmission and replay MUST reuse the same unique_id)", false);
    io_row_t *ttl = row(j, "dedup_ttl", "convention", "r-client.md 9.3.1 (the dedup TTL is H = U * (sum B(k) + F))",
                        false);
    io_row_t *dl = row(j, "deadline", "decision",
                       "r-client.md 9.3.1 (no replay or completion-delivery send at or after the deduplication "
                       "deadline)", false);
    const uint8_t *first_uid = NULL;
    size_t n_requests = 0;
    uint64_t deadline = op_deadline_us(run);
    for (size_t i = 0; i < run->n_rx; i++) {
        io_rx_t *x = &run->rx[i];
        char why[128];
        if (x->verdict == SIM_SRV_DROP_MALFORMED || x->verdict == SIM_SRV_DROP_AUTH ||
            x->verdict == SIM_SRV_DROP_TENANT || !x->opened) {
            vec_format(why, sizeof why, "%s", x->why[0] != '\0' ? x->why : "cannot be opened with the key");
            blame(j, fr, i, why);
        }
        if (x->key_bytes)
            blame(j, km, i, "a datagram carries 8 or more bytes of the key's secret in a row");
        if (x->pdu != IO_PDU_REQUEST)
            continue;
        n_requests++;
        if (first_uid == NULL)
            first_uid = x->uid;
        else if (memcmp(first_uid, x->uid, 16) != 0)
            blame(j, uid, i, "a transmission carries another unique_id than the first");
        if (x->ttl_ms != j->h_ms) {
            vec_format(why, sizeof why, "dedup_ttl_ms %u, want H = %llu", x->ttl_ms, (unsigned long long)j->h_ms);
            blame(j, ttl, i, why);
        }
        if (x->at_us >= deadline) {
            vec_format(why, sizeof why, "a transmission %.1f ms after the deadline (the first transmission's "
                       "time_stamp + dedup_ttl_ms)", (double)(x->at_us - deadline) / 1000.0);
            blame(j, dl, i, why);
        }
    }
    /* nothing to judge is said, never a silent pass */
    for (io_row_t *r = fr; r <= km && run->n_rx == 0; r++)
        vec_format(r->detail, sizeof r->detail, "not judged: no datagram arrived");
    for (io_row_t *r = uid; r <= dl && n_requests == 0; r++)
        vec_format(r->detail, sizeof r->detail, "not judged: no Rate Request arrived");
}

/* The round k >= 1 whose replay deadline t is nearest, within the tolerance; 0 when none. */
static uint32_t round_of(const judge_t *j, uint64_t t)
{
    const r_request_policy_t *p = &j->run->c.policy;
    for (uint32_t k = 1; k <= p->replay_count; k++) {
        uint64_t b = j->run->t0_us + io_round_start_ms(p, k) * 1000u;
        if (t + j->early >= b && t <= b + j->late)
            return k;
    }
    return 0;
}

static void check_rounds(judge_t *j)
{
    io_run_t *run = j->run;
    size_t n = run->c.n_servers;
    io_row_t *fan = row(j, "fanout", "convention",
                        "r-client.md 9.3.3 (round 0 sends the request to every server in the membership snapshot)",
                        true);
    io_row_t *tgt = row(j, "replay_targets", "convention",
                        "r-client.md 9.3.3 (a later round replays only to the servers with no valid response yet)",
                        true);
    io_row_t *tim = row(j, "replay_timing", "convention",
                        "r-client.md 9.3.1 B(k), 9.3.3 rule 7 (replay at the replay deadline of a round with no "
                        "candidate)", true);
    bool replayed[CONF_MAX_SERVERS][R_CLIENT_HA_MAX_REPLAY_COUNT + 2];
    memset(replayed, 0, sizeof replayed);
    for (size_t s = 0; s < n; s++) {
        bool got = false;
        for (size_t i = 0; i < run->n_rx && !got; i++)
            got = run->rx[i].server == (int)s && strcmp(run->rx[i].kind, "initial") == 0;
        if (!got && fan->pass) {
            fan->pass = false;
            vec_format(fan->detail, sizeof fan->detail, "%s got no transmission within %llu ms of t0",
                       run->c.server_names[s], (unsigned long long)(j->late / 1000u));
        }
    }
    uint64_t first_valid = UINT64_MAX;
    for (size_t s = 0; s < n; s++) {
        uint64_t v = valid_at(run, (int)s);
        first_valid = v < first_valid ? v : first_valid;
    }
    for (size_t i = 0; i < run->n_rx; i++) {
        io_rx_t *x = &run->rx[i];
        if (strcmp(x->kind, "replay") != 0)
            continue;
        uint32_t k = round_of(j, x->at_us);
        if (before(valid_at(run, x->server), j->early, x->at_us))
            blame(j, tgt, i, "a replay to a server which had sent a valid response");
        if (k == 0)
            blame(j, tim, i, "a replay at no replay deadline t0 + U * sum B(j)");
        else if (replayed[x->server][k])
            blame(j, tim, i, "a second replay to one server in one round");
        else if (before(first_valid, j->late, x->at_us))
            blame(j, tim, i, "a replay after a valid response had arrived (a candidate existed)");
        if (k != 0)
            replayed[x->server][k] = true;
    }
    /* every server still missing at a replay deadline gets that round's replay */
    for (uint32_t k = 1; k <= run->c.policy.replay_count; k++) {
        bool any = false;
        for (size_t s = 0; s < n; s++)
            any = any || replayed[s][k];
        uint64_t b = run->t0_us + io_round_start_ms(&run->c.policy, k) * 1000u;
        for (size_t s = 0; any && s < n; s++)
            if (!replayed[s][k] && !before(valid_at(run, (int)s), 0, b + j->late) && tgt->pass) {
                tgt->pass = false;
                vec_format(tgt->detail, sizeof tgt->detail, "round %u replayed, but not to %s, still missing", k,
                           run->c.server_names[s]);
            }
    }
}

static void check_completion(judge_t *j)
{
    io_run_t *run = j->run;
    if (!j->selection)
        return;
    io_row_t *r = row(j, "completion", "convention",
                      run->c.policy.completion_delivery
                          ? "r-client.md 9.3.4 (when C = 1, one send to every server with no valid response, "
                            "before returning)"
                          : "r-client.md 9.3.4 (C = 0: no completion send)",
                      true);
    /* r-client.md 9.3.1: no completion send at or after the dedup deadline;
     * a selection at most the early tolerance before it may have none */
    uint64_t dedup_us = op_deadline_us(run);
    bool at_deadline = dedup_us != UINT64_MAX && run->decided_us + j->early >= dedup_us;
    for (size_t s = 0; s < run->c.n_servers; s++) {
        size_t count = 0, last = 0;
        for (size_t i = 0; i < run->n_rx; i++)
            if (run->rx[i].server == (int)s && strcmp(run->rx[i].kind, "completion") == 0) {
                count++;
                last = i;
            }
        uint64_t v = valid_at(run, (int)s);
        /* responded: the selected server, or sent well before the return;
         * missing: sent after it (or never); a response sent within RACE_US
         * before the return may or may not have been read: either is accepted */
        bool missing = !before(v, 0, run->decided_us);
        bool responded = before(v, RACE_US, run->decided_us) || (int)s == run->selected;
        size_t want = run->c.policy.completion_delivery && missing ? 1u : 0u;
        if (!missing && !responded && count > 1) /* the race window allows one send or none, not two */
            blame(j, r, last, "a second completion send to one server");
        else if ((missing || responded) && count != want && count > 0)
            blame(j, r, last, want == 0 ? "a completion send to a server that was not missing"
                                        : "a second completion send to one server");
        else if ((missing || responded) && count != want && r->pass && !at_deadline) {
            r->pass = false;
            vec_format(r->detail, sizeof r->detail, "no completion send to %s, missing at the decision",
                       run->c.server_names[s]);
        }
    }
}

static const char *expected_outcome(conf_outcome_t o)
{
    return o == CONF_OUT_ALLOWED ? "allowed" : o == CONF_OUT_DENIED ? "denied" : "failed";
}

static void check_decision(judge_t *j)
{
    io_run_t *run = j->run;
    const conf_behaviour_t *x = &run->c.expect;
    io_row_t *out = row(j, "outcome", "decision", "r-client.md 9.3.3 (the case's decision; its spec list names the "
                                                  "rules)", false);
    const char *want = expected_outcome(x->outcome);
    if (run->driver_error[0] != '\0') {
        out->pass = false;
        vec_format(out->detail, sizeof out->detail, "%s", run->driver_error);
        return;
    }
    if (strcmp(run->decision, want) != 0) {
        out->pass = false;
        vec_format(out->detail, sizeof out->detail, "want %s, got %s", want, run->decision);
    }
    io_row_t *sel = row(j, "selected", "decision", "r-client.md 9.3.2, 9.3.3 rules 3-5 (the oldest valid response "
                                                   "governs)", false);
    if (!run->selected_known)
        vec_format(sel->detail, sizeof sel->detail, "not judged: the driver does not name the selected server");
    else if (run->selected != x->selected) {
        sel->pass = false;
        vec_format(sel->detail, sizeof sel->detail, "want %s, got %s",
                   x->selected >= 0 ? run->c.server_names[x->selected] : "none",
                   run->selected >= 0 ? run->c.server_names[run->selected]
                                      : run->selected == -2 ? "an id no server has" : "none");
    }
    if (x->has_decision) {
        io_row_t *t = row(j, "decision_time", "convention", "r-client.md 9.3.3, 9.3.5 (the case's decision time)",
                          true);
        uint64_t at = run->t0_us + (uint64_t)x->decision_at * run->ic->factor * 1000u;
        if (run->t0_us == 0) {
            t->pass = false;
            vec_format(t->detail, sizeof t->detail, "no datagram arrived, so no t0; the client returned %.1f ms "
                       "after the check", ((double)run->decided_us - (double)run->check_us) / 1000.0);
        } else if (run->decided_us + j->early < at || run->decided_us > at + j->late) {
            t->pass = false;
            vec_format(t->detail, sizeof t->detail, "want %llu ms, got %.1f ms after t0",
                       (unsigned long long)(at - run->t0_us) / 1000u,
                       ((double)run->decided_us - (double)run->t0_us) / 1000.0);
        }
    }
    if (!j->selection)
        return;
    io_row_t *au = row(j, "response_auth", "security",
                       "r-client.md 9.3.3 rule 1, 6.4 (only an authenticated response of a trusted server completes "
                       "a request)", false);
    uint64_t latest = run->decided_us + 1000u;
    bool any = false;
    for (size_t s = 0; s < run->c.n_servers; s++)
        any = any || before(valid_at(run, (int)s), 0, latest);
    if (!any) {
        au->pass = false;
        vec_format(au->detail, sizeof au->detail, "decided %s although no server had sent a valid response",
                   run->decision);
    } else if (run->selected_known && (run->selected == -2 || (run->selected >= 0 &&
                                                               !before(valid_at(run, run->selected), 0, latest)))) {
        au->pass = false;
        vec_format(au->detail, sizeof au->detail, "selected %s, which had sent no valid response",
                   run->selected >= 0 ? run->c.server_names[run->selected] : "an id no server has");
    }
}

static void check_report(judge_t *j)
{
    io_run_t *run = j->run;
    if (run->report_us == 0)
        return;
    io_row_t *r = row(j, "report", "convention",
                      "r-client.md 7.2.1 (the latency report is sent to the server(s), fire and forget)", false);
    const uint8_t *uid = NULL;
    for (size_t s = 0; s < run->c.n_servers; s++) {
        size_t count = 0;
        for (size_t i = 0; i < run->n_rx; i++) {
            io_rx_t *x = &run->rx[i];
            if (x->server != (int)s || x->pdu != IO_PDU_REPORT)
                continue;
            count++;
            if (uid == NULL)
                uid = x->uid;
            else if (memcmp(uid, x->uid, 16) != 0)
                blame(j, r, i, "a latency report carries another unique_id than the others");
        }
        if (count == 0 && r->pass) {
            r->pass = false;
            vec_format(r->detail, sizeof r->detail, "%s got no latency report%s%s", run->c.server_names[s],
                       run->report_error[0] != '\0' ? ": " : "", run->report_error);
        }
    }
}

/* The case's expect.rebinds, judged on the source port: after a trusted
 * response with keep_port = false the latency report (sent after the
 * decision, outside any receive callback) comes from a new port; with no
 * rebind expected, from the port of the request. */
static void check_steering(judge_t *j)
{
    io_run_t *run = j->run;
    const conf_behaviour_t *x = &run->c.expect;
    if (!x->has_rebinds || run->report_us == 0)
        return;
    io_row_t *r = row(j, "steering", "convention",
                      x->rebinds > 0 ? "r-client.md 6.1 (after keep_port = false from a trusted response, subsequent "
                                       "sends should use the replacement source port)"
                                     : "r-client.md 6.1, 9.3.3 rule 2 (only a trusted response requests a rebind; "
                                       "untrusted datagrams are ignored)",
                      false);
    uint16_t req_port = 0;
    size_t n_reports = 0;
    for (size_t i = 0; i < run->n_rx; i++) {
        const io_rx_t *v = &run->rx[i];
        if (v->pdu == IO_PDU_REQUEST && req_port == 0)
            req_port = v->src_port;
    }
    for (size_t i = 0; i < run->n_rx; i++) {
        const io_rx_t *v = &run->rx[i];
        if (v->pdu != IO_PDU_REPORT)
            continue;
        n_reports++;
        if (x->rebinds > 0 && v->src_port == req_port)
            blame(j, r, i, "the latency report comes from the request's source port: no rebind");
        else if (x->rebinds == 0 && v->src_port != req_port)
            blame(j, r, i, "the latency report comes from another source port than the request: a rebind");
    }
    if (n_reports == 0)
        vec_format(r->detail, sizeof r->detail, "not judged: no latency report arrived");
    else if (r->pass)
        vec_format(r->detail, sizeof r->detail, "%s", x->rebinds > 0 ? "new source port" : "same source port");
}

void io_judge(io_run_t *run, io_rows_t *rows)
{
    judge_t j = {.run = run, .rows = rows, .early = IO_EARLY_MS * 1000u,
                 .late = (uint64_t)run->c.policy.unit_ms * IO_LATE_PERCENT * 10u,
                 .h_ms = io_policy_h_ms(&run->c.policy)};
    rows->n = 0;
    j.selection = run->driver_error[0] == '\0' &&
                  (strcmp(run->decision, "allowed") == 0 || strcmp(run->decision, "denied") == 0);
    if (run->check_us == 0) { /* the client was never created: the setup failure is the one row */
        check_decision(&j);
        return;
    }
    classify(&j);
    check_wire(&j);
    check_rounds(&j);
    check_completion(&j);
    check_decision(&j);
    check_report(&j);
    check_steering(&j);
}

bool io_rows_timing_affected(const io_rows_t *rows)
{
    for (size_t i = 0; i < rows->n; i++)
        if (!rows->rows[i].pass && rows->rows[i].timing)
            return true;
    return false;
}

bool io_script_late(const io_run_t *run, char *why, size_t cap)
{
    for (size_t i = 0; i < run->n_tx; i++) {
        const io_tx_t *t = &run->tx[i];
        if (t->due_us != 0 && t->at_us > t->due_us + IO_SCRIPT_SLACK_MS * 1000u) {
            uint64_t late = t->at_us - t->due_us;
            vec_format(why, cap, "the testbed sent %s's %s %llu.%llu ms after its time", run->c.server_names[t->server],
                       t->what, (unsigned long long)(late / 1000u), (unsigned long long)(late % 1000u / 100u));
            return true;
        }
    }
    return false;
}
