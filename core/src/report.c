/* SPDX-License-Identifier: MIT */
/* report.c - fire-and-forget latency reports (api.md "Reporting measured
 * work"; r-client.md 6.2.2, 7.2): over-quota reports are filtered, the rest go
 * in one datagram under a fresh unique_id to every known server. No heap
 * allocation: the datagram is built on the stack and cleansed before return. */
#include <string.h>

#include <openssl/crypto.h>

#include "rl_client.h"

#define MAX_REPORTS (RL_MAX_DATAGRAM / RL_SERVICE_BLOCK_SIZE)

int r_client_report_latency(r_client_t *client, const r_service_latency_report_t *reports, size_t n_reports) {
    if (client == NULL || reports == NULL || n_reports == 0) {
        return RCLIENT_ERR_CONFIG;
    }
    r_service_latency_report_t kept[MAX_REPORTS];
    size_t n_kept = 0;
    for (size_t i = 0; i < n_reports; i++) {
        if (reports[i].buffer_size > client->key.quotas.latency_buffer_size_max) {
            continue; /* api.md: over-quota reports are silently filtered */
        }
        if (n_kept == MAX_REPORTS) {
            return RCLIENT_ERR_PROTOCOL; /* cannot fit one datagram */
        }
        kept[n_kept++] = reports[i];
    }
    if (n_kept == 0) {
        return RCLIENT_OK;
    }
    if (rl_latency_report_size(client->key.type, n_kept) > RL_MAX_DATAGRAM) {
        return RCLIENT_ERR_PROTOCOL;
    }
    rl_snapshot_t *snap = rl_membership_acquire(&client->membership);
    if (snap == NULL) {
        return RCLIENT_ERR_DNS;
    }
    uint64_t now = rl_client_now(client);
    rl_tenant_header_t hdr;
    uint8_t nonce[RL_AES_NONCE_LEN] = {0};
    if (rl_client_new_header(client, &hdr, now) != RCLIENT_OK ||
        (client->key.type == R_AUTH_AES && rl_rng_bytes(&client->rng, nonce, sizeof nonce) != 0)) {
        return RCLIENT_ERR_AUTH; /* fail closed: nothing sent */
    }
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = 0;
    int rc = rl_encode_latency_report(buf, sizeof buf, client->key.type, &hdr, kept, n_kept, &len);
    if (rc == RCLIENT_OK && rl_auth_seal(&client->auth, buf, len, nonce) != RCLIENT_OK) {
        rc = RCLIENT_ERR_AUTH;
    }
    if (rc == RCLIENT_OK) {
        /* Once to every known server (r-client.md 6.2.2), best effort: one
         * refused member neither stops the others nor fails the report;
         * RCLIENT_ERR_IO only when no member could be sent to. */
        size_t failed = 0;
        rc = rl_client_fanout(client, snap, NULL, buf, len, "latency report", &failed) > 0 ? RCLIENT_OK
                                                                                        : RCLIENT_ERR_IO;
    }
    /* A cookie datagram carries the cookie: it must not outlive the call in
     * this stack frame. len is 0 when nothing was encoded. */
    OPENSSL_cleanse(buf, len);
    return rc;
}
