/* SPDX-License-Identifier: MIT */
/* fanout.c - one datagram to many servers (r-client.md 6.2.1 "Send the same
 * logical request to every server in the membership snapshot", 9.3.4, 6.2.2).
 * Every fan-out of the core goes through here: request submit, replays,
 * completion delivery and latency reports. With the host's optional
 * udp_send_batch hook a fan-out is one host call (one sendmmsg); without it,
 * one udp_send per destination.
 *
 * Delivery is a best effort to every member (r-client.md 9.3 "Delivery"): a
 * send the host refuses towards one member is logged with that member's
 * server_id and never keeps the datagram from the members after it
 * (docs/spec-notes.md "Send failures"); the caller decides from the counts. */
#include "rl_client.h"

static void log_failure(r_client_t *c, const rl_member_t *m, const char *what) {
    rl_client_log(c, R_LOG_WARN, "send of the %s to server_id %llu failed; the other members are still sent to",
                  what, (unsigned long long)m->server_id);
}

size_t rl_client_fanout(r_client_t *c, const rl_snapshot_t *snap, const uint8_t *skip, const uint8_t *data,
                        size_t len, const char *what, size_t *failed) {
    size_t sent = 0;
    *failed = 0;
    if (c->io.udp_send_batch == NULL) {
        for (size_t i = 0; i < snap->count; i++) {
            if (skip != NULL && skip[i]) {
                continue;
            }
            if (c->io.udp_send(c->io.ctx, &snap->members[i].addr, data, len) != 0) {
                (*failed)++;
                log_failure(c, &snap->members[i], what);
            } else {
                sent++;
            }
        }
        return sent;
    }
    const r_addr_t *to[RL_MAX_MEMBERS];
    size_t member[RL_MAX_MEMBERS]; /* to[k] is snap->members[member[k]] */
    size_t n = 0;
    for (size_t i = 0; i < snap->count && n < RL_MAX_MEMBERS; i++) {
        if (skip == NULL || !skip[i]) {
            member[n] = i;
            to[n++] = &snap->members[i].addr;
        }
    }
    size_t done = 0;
    while (done < n) {
        size_t took = c->io.udp_send_batch(c->io.ctx, to + done, n - done, data, len);
        if (took >= n - done) {
            sent += n - done;
            break;
        }
        /* to[done + took] failed; the batch goes on after it. */
        sent += took;
        (*failed)++;
        log_failure(c, &snap->members[member[done + took]], what);
        done += took + 1;
    }
    return sent;
}
