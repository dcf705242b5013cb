/* SPDX-License-Identifier: MIT */
/* io_output.c - what a maintainer reads of an interop run (docs/interop.md
 * "Reports"): the timeline of a failing run (every datagram the servers
 * received and sent, in time order) and the JSON record of a run. */
#include <inttypes.h>
#include <string.h>

#include "io_int.h"

static void uid_text(const uint8_t *uid, char *out)
{
    for (size_t i = 0; i < 4; i++)
        snprintf(out + 2 * i, 3, "%02x", uid[i]);
    memcpy(out + 8, "..", 3);
}

static double rel_ms(const io_run_t *run, uint64_t at_us)
{
    uint64_t base = run->t0_us != 0 ? run->t0_us : run->check_us;
    return ((double)at_us - (double)base) / 1000.0;
}

void io_print_timeline(FILE *f, const io_run_t *run)
{
    size_t i = 0, k = 0;
    fprintf(f, "    timeline (ms after the first request datagram; U = %u ms):\n", run->c.policy.unit_ms);
    fprintf(f, "    %9s  %-3s %-6s %-12s %-10s %s\n", "time", "dir", "server", "kind", "unique_id", "verdict");
    bool decision_printed = !run->decided;
    while (i < run->n_rx || k < run->n_tx) {
        bool take_rx = k == run->n_tx || (i < run->n_rx && run->rx[i].at_us <= run->tx[k].at_us);
        uint64_t at = take_rx ? run->rx[i].at_us : run->tx[k].at_us;
        if (!decision_printed && run->decided_us <= at) {
            fprintf(f, "    %9.1f  --- driver returned %s\n", rel_ms(run, run->decided_us),
                    run->decision[0] != '\0' ? run->decision : "an error");
            decision_printed = true;
        }
        if (take_rx) {
            const io_rx_t *x = &run->rx[i++];
            char uid[16];
            uid_text(x->uid, uid);
            fprintf(f, "    %9.1f  in  %-6s %-12s %-10s %s\n", rel_ms(run, x->at_us), run->c.server_names[x->server],
                    x->kind != NULL ? x->kind : "?", uid, x->verdict_text != NULL ? x->verdict_text : "ok");
        } else {
            const io_tx_t *t = &run->tx[k++];
            fprintf(f, "    %9.1f  out %-6s %-12s %-10s %s\n", rel_ms(run, t->at_us), run->c.server_names[t->server],
                    t->what, "", t->valid ? "valid" : "not valid");
        }
    }
    if (!decision_printed)
        fprintf(f, "    %9.1f  --- driver returned %s\n", rel_ms(run, run->decided_us),
                run->decision[0] != '\0' ? run->decision : "an error");
}

json_t *io_run_json(const io_run_t *run, const io_rows_t *rows, bool rerun, const char *result)
{
    json_t *checks = json_array(), *timeline = json_array();
    for (size_t i = 0; i < rows->n; i++) {
        const io_row_t *r = &rows->rows[i];
        bool judged = strncmp(r->detail, "not judged", 10) != 0;
        json_array_append_new(checks, json_pack("{s:s, s:b, s:b, s:s, s:s, s:b, s:s}", "name", r->name, "pass",
                                                r->pass, "judged", judged || !r->pass, "severity", r->severity, "spec",
                                                r->spec, "timing", r->timing, "detail", r->detail));
    }
    for (size_t i = 0; i < run->n_rx; i++) {
        const io_rx_t *x = &run->rx[i];
        char uid[33];
        for (size_t b = 0; b < 16; b++)
            snprintf(uid + 2 * b, 3, "%02x", x->uid[b]);
        json_array_append_new(timeline, json_pack("{s:f, s:s, s:s, s:s, s:s}", "at_ms", rel_ms(run, x->at_us),
                                                  "server", run->c.server_names[x->server], "kind",
                                                  x->kind != NULL ? x->kind : "?", "unique_id", uid, "verdict",
                                                  x->verdict_text != NULL ? x->verdict_text : "ok"));
    }
    json_t *sent = json_array();
    for (size_t i = 0; i < run->n_tx; i++)
        json_array_append_new(sent, json_pack("{s:f, s:s, s:s, s:b}", "at_ms", rel_ms(run, run->tx[i].at_us), "server",
                                              run->c.server_names[run->tx[i].server], "what", run->tx[i].what,
                                              "valid", run->tx[i].valid));
    json_t *decision = run->decided ? json_pack("{s:s, s:f}", "decision", run->decision[0] != '\0' ? run->decision
                                                                                                   : "error",
                                                "at_ms", rel_ms(run, run->decided_us))
                                    : json_null();
    return json_pack("{s:s, s:s, s:s, s:s, s:b, s:s, s:o, s:o, s:o, s:o}", "case", run->c.id, "file", run->ic->path,
                     "auth", run->mode, "family", run->v6 ? "ipv6" : "ipv4", "rerun", rerun, "result", result,
                     "checks", checks, "received", timeline, "sent", sent, "driver", decision);
}
