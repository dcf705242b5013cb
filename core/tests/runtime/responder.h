/* SPDX-License-Identifier: MIT */
/* responder.h - a loopback responder for the runtime's tests and
 * measurements: the simulator's reference r-server model (sim/src/sim_server.h)
 * behind real UDP sockets on 127.0.0.1 or ::1, one thread, one ephemeral port
 * per server. It records per server how many datagrams arrived and the source
 * port of the last one, so a test sees a client rebind from the server side. */
#ifndef RESPONDER_H
#define RESPONDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "sim_server.h"

#define RESPONDER_MAX 8

typedef struct responder responder_t;

typedef struct {
    size_t n_servers;           /* 1..RESPONDER_MAX; server 0 is the oldest */
    bool ipv6;                  /* bind ::1 instead of 127.0.0.1 */
    const char *credential;     /* the tenant every server knows */
    sim_steer_mode_t steer;     /* steering feedback written into responses */
    uint16_t node_base;         /* server i has node_id node_base + 1 + i (distinct server_ids across responders) */
} responder_cfg_t;

/* Bind and start; NULL on failure (message on stderr). */
responder_t *responder_start(const responder_cfg_t *cfg);
/* Stop the thread, close the sockets, free. NULL is a no-op. */
void responder_stop(responder_t *r);
/* Server i's endpoint (server_id and loopback address). */
r_server_endpoint_t responder_endpoint(const responder_t *r, size_t i);
/* Datagrams server i received so far, and the source port of the last one. */
uint64_t responder_received(responder_t *r, size_t i);
uint16_t responder_last_source_port(responder_t *r, size_t i);
/* Change the steering feedback of every server. */
void responder_set_steer(responder_t *r, sim_steer_mode_t mode);
/* Stop answering server i (it still counts what arrives). */
void responder_set_silent(responder_t *r, size_t i, bool silent);
#endif /* RESPONDER_H */
