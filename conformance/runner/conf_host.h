/* SPDX-License-Identifier: MIT */
/* conf_host.h - the host adapter that drives one HA case through the public
 * client API (r_client.h): a manual clock, captured and optionally failing
 * sends, a deterministic random source, explicit servers, and the servers'
 * side: building (and damaging) Rate Responses from the captured requests
 * (conformance/README.md "Responses", "Invalid datagrams").
 *
 * Only the server side uses private core headers (rl_auth.h to seal and open
 * with the servers' copy of the key); the client is used as an embedder would. */
#ifndef CONF_HOST_H
#define CONF_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf_case.h"
#include "r_client.h"
#include "rl_auth.h"

#define CONF_T0_MS 1767225600000ull /* 2026-01-01T00:00:00Z: t0 of every case */
#define CONF_PORT_BASE 30000u        /* server i listens on 127.0.0.1:CONF_PORT_BASE + i */

typedef enum { CONF_CALL_NONE, CONF_CALL_SUBMIT, CONF_CALL_TIMER, CONF_CALL_DATAGRAM } conf_call_t;

typedef struct {
    conf_send_t s;
    uint8_t data[R_CLIENT_MAX_DATAGRAM];
    size_t len;
} conf_capture_t;

typedef struct conf_host {
    const conf_case_t *c;
    uint64_t now;                    /* absolute ms */
    r_client_t *client;
    r_client_req_t *req;
    bool pending;                    /* req is live */
    bool cancelled;
    r_auth_key_info_t key;
    bool server_auth_ready;
    rl_auth_t server_auth;           /* the servers' copy of the key */
    r_server_endpoint_t endpoints[CONF_MAX_SERVERS];
    conf_call_t call;                /* the client entry point now running */
    size_t call_first;               /* first capture of that call */
    conf_capture_t cap[CONF_MAX_SENDS];
    size_t n_cap;
    bool cap_overflow;
    uint32_t fail_left[CONF_MAX_FAILURES];
    uint32_t replays[CONF_MAX_SERVERS]; /* replays each server has been sent */
    uint64_t rng_counter;
    uint32_t server_nonce;
    bool rebind_requested;
    int status;                      /* completion status */
    conf_behaviour_t obs;            /* what the run observed */
    struct conf_remote *remote;      /* NULL: the built-in client; else an adapter's (conf_remote.h) */
} conf_host_t;

/* Decode the key, check it against the case's auth mode, set up the servers'
 * auth and create the client. On failure err names the case field ("key: ...")
 * and the host must still be freed. */
bool conf_host_init(conf_host_t *h, const conf_case_t *c, char *err, size_t cap);
/* conf_host_init without creating the client: key, servers' auth and
 * endpoints only (an adapter's client stands in for it). */
bool conf_host_init_servers(conf_host_t *h, const conf_case_t *c, char *err, size_t cap);
void conf_host_free(conf_host_t *h);

/* Client entry points, each bracketed to attribute its sends (README
 * "Expectations"). now is set by the caller (absolute ms). */
int conf_host_submit(conf_host_t *h);
int conf_host_timer(conf_host_t *h);
int conf_host_datagram(conf_host_t *h, const uint8_t *data, size_t len);
void conf_host_cancel(conf_host_t *h);
/* The request's next deadline (absolute ms); UINT64_MAX when none. */
uint64_t conf_host_deadline(const conf_host_t *h);

/* Send attribution around one client entry point (README "Expectations"):
 * begin before the call; end after it, selected when it selected a response. */
void conf_host_begin_call(conf_host_t *h, conf_call_t call);
void conf_host_end_call(conf_host_t *h, bool selected);
/* Whether the next send to server fails (README "Send failures"; consumes one
 * failure of the plan). */
bool conf_host_send_fails(conf_host_t *h, int server);

/* Build the datagram of a response or invalid event into out (at least
 * R_CLIENT_MAX_DATAGRAM bytes). Returns false with err set when there is no
 * request to answer or the request cannot be opened. */
bool conf_host_build(conf_host_t *h, const conf_event_t *ev, uint8_t *out, size_t *out_len, char *err, size_t cap);

/* Check every captured send: one unique_id, a Rate Request of the key's
 * tenant that the servers can authenticate; sets obs.ttl_ms from the first.
 * Returns false with err naming the first problem. */
bool conf_host_check_requests(conf_host_t *h, char *err, size_t cap);

#endif /* CONF_HOST_H */
