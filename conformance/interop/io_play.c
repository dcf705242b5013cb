/* SPDX-License-Identifier: MIT */
/* io_play.c - one run of a case (docs/interop.md "A run"): start the servers
 * and the driver, create the client, send the check, answer on the case's
 * script while recording every datagram, observe until the request's horizon
 * has passed, ask for one latency report, close. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "conf_policy_json.h"
#include "io_int.h"
#include "vec_json.h"
#include "vec_kinds.h"

#define CREATE_TIMEOUT_MS 10000u
#define GRACE_MS 60u          /* observation after the horizon H and after the decision */
#define LATE_ANSWER_MS 5000u  /* the check's answer may come this long after t0 + H */
#define REPORT_WAIT_MS 1500u
#define REFRESH_WAIT_MS 700u  /* twice after a restart: past the records' TTL of 0 (counted as 1 s) */

/* An event is due at its time, or when its server received its first
 * datagram if that came later (a server cannot answer before). */
static uint64_t script_due(const io_run_t *run, int server, uint64_t due)
{
    for (size_t i = 0; i < run->n_rx; i++)
        if (run->rx[i].server == server)
            return run->rx[i].at_us > due ? run->rx[i].at_us : due;
    return due;
}

static json_t *create_msg(const io_run_t *run)
{
    static const char *const presets[] = {"default", "api_md", "strict_oldest", "oldest_preferred", "fastest_valid"};
    json_t *servers = json_array();
    for (size_t i = 0; i < run->c.n_servers; i++) {
        char id[24];
        snprintf(id, sizeof id, "%" PRIu64, run->c.server_ids[i]);
        json_array_append_new(servers, json_pack("{s:s, s:i, s:s, s:s}", "name", run->c.server_names[i], "port",
                                                 (int)run->servers[i].port, "address", run->v6 ? "::1" : "127.0.0.1",
                                                 "server_id", id));
    }
    json_t *m = json_pack("{s:s, s:s, s:o}", "op", "create", "key", run->c.key, "policy",
                          conf_policy_json(&run->c.policy));
    if (run->ic->dns) { /* the client discovers the servers (docs/interop.md "DNS") */
        char resolver[48];
        vec_format(resolver, sizeof resolver, run->v6 ? "[::1]:%u" : "127.0.0.1:%u", (unsigned)run->dns_port);
        json_object_set_new(m, "dns", json_pack("{s:s, s:s}", "name", IO_DNS_NAME, "resolver", resolver));
        json_decref(servers);
    } else {
        json_object_set_new(m, "servers", servers);
    }
    if (run->c.has_preset)
        json_object_set_new(m, "preset", json_string(presets[run->c.preset % 5]));
    return m;
}

static json_t *guard_json(const r_latency_guard_t *g, const char *name)
{
    json_t *v = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I}", "tracker_id",
                          vec_json_hex(g->latency_tracker_id, R_CLIENT_ID_LEN), "threshold_ms",
                          (json_int_t)g->threshold_ms, "ttl_ms", (json_int_t)g->ttl_ms, "max_samples",
                          (json_int_t)g->max_samples, "buffer_size", (json_int_t)g->buffer_size,
                          "min_sample_threshold", (json_int_t)g->min_sample_threshold);
    if (name != NULL)
        json_object_set_new(v, "name", json_string(name));
    return v;
}

static json_t *check_msg(const io_run_t *run)
{
    json_t *res = json_array(), *guards = json_array();
    bool names = run->ic->default_request; /* the conformance default: checkout, inventory-backend */
    for (size_t i = 0; i < run->c.n_resources; i++) {
        const r_resource_request_t *r = &run->c.resources[i];
        json_t *v = json_pack("{s:o, s:I, s:I, s:I}", "bucket_id", vec_json_hex(r->bucket_id, R_CLIENT_ID_LEN),
                              "window_size_ms", (json_int_t)r->window_size_ms, "rate_limit",
                              (json_int_t)r->rate_limit, "tokens", (json_int_t)r->tokens_requested);
        if (names)
            json_object_set_new(v, "name", json_string("checkout"));
        json_array_append_new(res, v);
    }
    for (size_t i = 0; i < run->c.n_guards; i++)
        json_array_append_new(guards, guard_json(&run->c.guards[i], names ? "inventory-backend" : NULL));
    return json_pack("{s:s, s:o, s:o}", "op", "check", "resources", res, "guards", guards);
}

static void take_decision(io_run_t *run, const json_t *v)
{
    const char *dec = json_string_value(json_object_get(v, "decision"));
    const char *id = json_string_value(json_object_get(v, "server_id"));
    json_int_t at_ms = json_integer_value(json_object_get(v, "at_ms"));
    uint64_t now = io_now_us();
    run->decided = true;
    run->decided_us = now;
    if (!json_is_true(json_object_get(v, "ok")) || dec == NULL) {
        const char *e = json_string_value(json_object_get(v, "error"));
        vec_format(run->driver_error, sizeof run->driver_error, "check: %s", e != NULL ? e : "no decision");
        return;
    }
    vec_format(run->decision, sizeof run->decision, "%s", dec);
    /* at_ms is whole milliseconds: the return happened before its end */
    if (at_ms > 0 && (uint64_t)at_ms * 1000u >= run->check_us / 1000u * 1000u && (uint64_t)at_ms * 1000u <= now)
        run->decided_us = (uint64_t)at_ms * 1000u + 999u < now ? (uint64_t)at_ms * 1000u + 999u : now;
    run->selected = -1;
    if (id != NULL) {
        run->selected_known = true;
        run->selected = -2;
        uint64_t sid = strtoull(id, NULL, 10);
        for (size_t i = 0; i < run->c.n_servers; i++)
            if (run->c.server_ids[i] == sid)
                run->selected = (int)i;
    } else if (json_is_null(json_object_get(v, "server_id"))) {
        run->selected_known = true;
    }
}

/* Serve, script and record until the decision and the horizon have passed. */
static void observe(io_run_t *run, io_driver_t *d, const io_event_t *ev, size_t n_ev)
{
    uint64_t h_us = io_policy_h_ms(&run->c.policy) * 1000u, grace = GRACE_MS * 1000u;
    uint64_t hard_end = run->check_us + h_us + LATE_ANSWER_MS * 1000u;
    size_t next = 0;
    bool sent[2 * CONF_MAX_EVENTS] = {false};
    for (;;) {
        uint64_t now = io_now_us(), wake = hard_end;
        if (run->decided) {
            uint64_t end = run->decided_us + grace;
            if (run->t0_us != 0 && run->t0_us + h_us + grace > end)
                end = run->t0_us + h_us + grace;
            if (now >= end)
                return;
            wake = end;
        }
        if (now >= hard_end) {
            vec_format(run->driver_error, sizeof run->driver_error,
                       "check: no answer within H + %u ms of the check", LATE_ANSWER_MS);
            return;
        }
        /* Due events in order; one whose server has received nothing yet waits
         * for its request (a server cannot answer before it), the later ones
         * of other servers go on. */
        for (size_t i = next; run->t0_us != 0 && i < n_ev; i++) {
            uint64_t due = run->t0_us + ev[i].at_ms * 1000u;
            if (sent[i] || !run->servers[ev[i].server].has_peer)
                continue;
            if (now >= due) {
                size_t before = run->n_tx;
                io_servers_send(run, &ev[i]);
                if (run->n_tx > before)
                    run->tx[before].due_us = script_due(run, ev[i].server, due);
                sent[i] = true;
            } else if (due < wake) {
                wake = due;
            }
        }
        while (next < n_ev && sent[next])
            next++;
        struct pollfd p[CONF_MAX_SERVERS + 1];
        size_t n = run->c.n_servers;
        for (size_t i = 0; i < n; i++)
            p[i] = (struct pollfd){.fd = run->servers[i].fd, .events = POLLIN};
        p[n] = (struct pollfd){.fd = run->decided ? -1 : io_driver_fd(d), .events = POLLIN};
        now = io_now_us();
        int wait_ms = wake > now ? (int)((wake - now + 999u) / 1000u) : 0;
        if (poll(p, (nfds_t)n + 1, wait_ms) < 0 && errno != EINTR)
            return;
        for (size_t i = 0; i < n; i++)
            if (p[i].revents & POLLIN)
                io_servers_receive(run, (int)i);
        if (p[n].revents & (POLLIN | POLLHUP)) {
            json_t *v = NULL;
            if (!io_driver_poll_line(d, &v)) {
                vec_format(run->driver_error, sizeof run->driver_error, "check: %s", io_driver_why(d));
                return;
            }
            if (v != NULL)
                take_decision(run, v);
            json_decref(v);
        }
    }
}

static bool reports_complete(const io_run_t *run)
{
    for (size_t s = 0; s < run->c.n_servers; s++) {
        bool got = false;
        for (size_t i = 0; i < run->n_rx && !got; i++)
            got = run->rx[i].server == (int)s && run->rx[i].pdu == IO_PDU_REPORT && run->rx[i].at_us >= run->report_us;
        if (!got)
            return false;
    }
    return true;
}

/* One latency report for the first guard (r-client.md 7.2.1), after an allow. */
static void report(io_run_t *run, io_driver_t *d)
{
    if (strcmp(run->decision, "allowed") != 0 || run->c.n_guards == 0)
        return;
    json_t *rep = guard_json(&run->c.guards[0], run->ic->default_request ? "inventory-backend" : NULL);
    json_object_del(rep, "threshold_ms");
    json_object_set_new(rep, "latency_ms", json_integer(7));
    run->report_us = io_now_us();
    if (!io_driver_send(d, json_pack("{s:s, s:[o]}", "op", "report", "reports", rep))) {
        vec_format(run->report_error, sizeof run->report_error, "report not sent: %s", io_driver_why(d));
        return;
    }
    json_t *ans = io_driver_wait(d, run, REPORT_WAIT_MS);
    if (ans == NULL || !json_is_true(json_object_get(ans, "ok")))
        vec_format(run->report_error, sizeof run->report_error, "the driver answered the report with %s",
                   ans == NULL ? io_driver_why(d) : "an error");
    json_decref(ans);
    uint64_t end = run->report_us + REPORT_WAIT_MS * 1000u;
    while (!reports_complete(run) && io_now_us() < end) {
        json_t *v = io_driver_wait(d, run, 20);
        json_decref(v);
    }
}

/* docs/interop.md "Restarts": a warm-up check every server answers at once
 * (the client learns the membership with the restart server under its old
 * server_id, or without the joining server), then that server restarts under
 * its case server_id on the same port (or joins), DNS is republished, and the judged check waits until the records'
 * TTL (0, which the client may count as 1 s: api.md "DNS Refresh") has
 * passed. The warm-up's datagrams are not judged. */
static bool warm_up(io_run_t *run, io_driver_t *d, char *err, size_t cap)
{
    uint64_t h_ms = io_policy_h_ms(&run->c.policy);
    run->echo = true;
    json_t *ans = io_driver_send(d, check_msg(run)) ? io_driver_wait(d, run, (unsigned)h_ms + LATE_ANSWER_MS) : NULL;
    run->echo = false;
    const char *dec = json_string_value(json_object_get(ans, "decision"));
    int changed = run->ic->restart >= 0 ? run->ic->restart : run->ic->join;
    vec_format(run->warmup, sizeof run->warmup, "warm-up check before %s's %s: %s", run->c.server_names[changed],
               run->ic->restart >= 0 ? "restart" : "join", dec != NULL ? dec : ans != NULL ? "no decision" : io_driver_why(d));
    bool ok = dec != NULL && strcmp(dec, "allowed") == 0;
    json_decref(ans);
    if (!ok) {
        vec_format(run->driver_error, sizeof run->driver_error, "%s (want allowed)", run->warmup);
        return true;
    }
    io_servers_receive_all(run, REFRESH_WAIT_MS);  /* late completion sends of the warm-up, unjudged */
    run->restarted = true;
    if ((run->ic->restart >= 0 && !io_servers_restart(run, run->ic->restart, err, cap)) ||
        !io_dns_restart(run, err, cap))
        return false;
    io_servers_receive_all(run, REFRESH_WAIT_MS);
    run->n_rx = 0;
    run->n_tx = 0;
    run->t0_us = 0;
    run->host->n_cap = 0;
    for (size_t i = 0; i < run->c.n_servers; i++)
        run->servers[i].has_peer = false;
    return true;
}

bool io_play(io_run_t *run, const char *cmd, char *err, size_t cap)
{
    io_event_t ev[2 * CONF_MAX_EVENTS];
    for (size_t i = 0; i < CONF_MAX_SERVERS; i++)
        run->servers[i].fd = -1;
    run->selected = -1;
    run->host = calloc(1, sizeof *run->host);
    if (run->host == NULL || !conf_host_init_servers(run->host, &run->c, err, cap) ||
        !io_servers_start(run, err, cap) || (run->ic->dns && !io_dns_start(run, err, cap)))
        return false;
    io_driver_t *d = io_driver_start(cmd, err, cap);
    if (d == NULL)
        return false;
    json_t *ans = NULL;
    if (io_driver_send(d, create_msg(run)))
        ans = io_driver_wait(d, run, CREATE_TIMEOUT_MS);
    const char *unsup = json_string_value(json_object_get(ans, "unsupported"));
    if (unsup != NULL && !json_is_true(json_object_get(ans, "ok"))) { /* docs/interop.md "Driver protocol" */
        vec_format(run->unsupported, sizeof run->unsupported, "the driver does not support %s", unsup);
        json_decref(ans);
        io_driver_stop(d);
        return true;
    }
    if (ans == NULL || !json_is_true(json_object_get(ans, "ok"))) {
        const char *e = json_string_value(json_object_get(ans, "error"));
        vec_format(run->driver_error, sizeof run->driver_error, "create: %s",
                   e != NULL ? e : ans != NULL ? "ok is not true" : io_driver_why(d));
        json_decref(ans);
        io_driver_stop(d);
        return true;
    }
    json_decref(ans);
    if ((run->ic->restart >= 0 || run->ic->join >= 0) && !warm_up(run, d, err, cap)) {
        io_driver_stop(d);
        return false;
    }
    if (run->driver_error[0] != '\0') {
        io_driver_stop(d);
        return true;
    }
    size_t n_ev = io_case_events(run, ev, sizeof ev / sizeof ev[0]);
    run->check_us = io_now_us();
    if (io_driver_send(d, check_msg(run)))
        observe(run, d, ev, n_ev);
    else
        vec_format(run->driver_error, sizeof run->driver_error, "check: %s", io_driver_why(d));
    if (run->driver_error[0] == '\0')
        report(run, d);
    if (io_driver_send(d, json_pack("{s:s}", "op", "close")))
        json_decref(io_driver_wait(d, run, 2000));
    io_driver_stop(d);
    return true;
}
