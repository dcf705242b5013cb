/* fanout.c - one datagram to many servers (r-client.md 6.2.1 "Send the same
 * logical request to every server in the membership snapshot", 9.3.4, 6.2.2).
 * Every fan-out of the core goes through here: request submit, replays,
 * completion delivery and latency reports. With the host's optional
 * udp_send_batch hook a fan-out is one host call (one sendmmsg); without it,
 * one udp_send per destination. */
#include "rl_client.h"

int rl_client_fanout(r_client_t *c, const rl_snapshot_t *snap, const uint8_t *skip, const uint8_t *data, size_t len,
                     bool keep_going) {
    int rc = RCLIENT_OK;
    if (c->io.udp_send_batch == NULL) {
        for (size_t i = 0; i < snap->count; i++) {
            if ((skip == NULL || !skip[i]) && c->io.udp_send(c->io.ctx, &snap->members[i].addr, data, len) != 0) {
                rc = RCLIENT_ERR_IO;
                if (!keep_going) {
                    break;
                }
            }
        }
        return rc;
    }
    const r_addr_t *to[RL_MAX_MEMBERS];
    size_t n = 0;
    for (size_t i = 0; i < snap->count && n < RL_MAX_MEMBERS; i++) {
        if (skip == NULL || !skip[i]) {
            to[n++] = &snap->members[i].addr;
        }
    }
    size_t done = 0;
    while (done < n) {
        size_t sent = c->io.udp_send_batch(c->io.ctx, to + done, n - done, data, len);
        if (sent >= n - done) {
            break;
        }
        rc = RCLIENT_ERR_IO; /* to[done + sent] failed */
        if (!keep_going) {
            break;
        }
        done += sent + 1;
    }
    return rc;
}
