/* SPDX-License-Identifier: MIT */
/* r_client_io.h - host hooks of the sans-IO client core (api.md "Layers").
 *
 * The core never reads a clock, a socket or a random source directly: the host
 * supplies them here. This header grows with the client core; the foundation
 * defines the random source used for request IDs (unique_id) and AES nonces.
 */
#ifndef R_CLIENT_IO_H
#define R_CLIENT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill buf[0..len) with cryptographically secure random bytes.
 * ctx:  the host's opaque pointer, passed back unchanged.
 * Returns 0 on success, any non-zero value on failure. On failure the core
 * fails closed: nothing is sent and the caller sees RCLIENT_ERR_AUTH.
 * A NULL hook selects the default source, OpenSSL RAND_bytes. */
typedef int (*r_random_fn)(void *ctx, uint8_t *buf, size_t len);


/* ---- Addresses ------------------------------------------------------------ */
typedef enum { R_ADDR_INET = 4, R_ADDR_INET6 = 6 } r_addr_family_t;

/* A UDP endpoint, independent of any socket API. */
typedef struct {
    uint8_t family;   /* r_addr_family_t */
    uint16_t port;    /* host byte order */
    uint8_t addr[16]; /* network order; IPv4 uses the first 4 bytes */
} r_addr_t;

typedef enum { R_LOG_DEBUG = 0, R_LOG_INFO = 1, R_LOG_WARN = 2, R_LOG_ERROR = 3 } r_log_level_t;

/* ---- Host I/O hooks (api.md "Layers", r-client.md 6.1, 6.3) ---------------
 * Every hook receives ctx unchanged. None of them may call back into the
 * client that invoked it: udp_send is not a reentrant ingress point
 * (api.md "Threading and reentrancy"). */
typedef struct {
    void *ctx;
    /* Send one datagram (data[0..len), len <= 1200) to `to`. Return 0 when
     * handed to the network, non-zero on failure. A failure towards one
     * server never skips the others (r-client.md 9.3 best-effort delivery):
     * it is logged with the server_id and counted in the request profile;
     * RCLIENT_ERR_IO follows only when no server of a fan-out took it
     * (docs/spec-notes.md "Send failures"). Required. */
    int (*udp_send)(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len);
    /* Current time, Unix-epoch milliseconds: the one clock domain of request
     * deadlines and time_stamp. Required. */
    uint64_t (*now_ms)(void *ctx);
    /* A trusted response carried steering_feedback = 0 (keep_port = false):
     * the host should schedule a source-port rebind for later, outside the
     * receive path, then call r_client_rebind_complete(). Optional. */
    void (*steering_rebind)(void *ctx, uint64_t server_id);
    /* Diagnostics. msg is NUL-terminated and valid only during the call. Optional. */
    void (*log)(void *ctx, r_log_level_t level, const char *msg);
    /* Random source for unique_id, AES nonces and refresh jitter; NULL selects
     * OpenSSL RAND_bytes. A failure fails closed (nothing sent, RCLIENT_ERR_AUTH). */
    r_random_fn random;
    /* Optional batch send (fan-out): send the same datagram data[0..len) to
     * to[0..n), in order, in as few system calls as the host can (one
     * sendmmsg). Returns how many leading destinations were handed to the
     * network: n on success; a smaller value k means to[k] failed and
     * to[k+1..n) were not attempted (the core then calls again with
     * to[k+1..n): one refused server never skips the others). NULL: the core calls udp_send once per
     * destination. When set, the core uses it for every fan-out (request
     * submit, replays, completion delivery, latency reports) and udp_send for
     * nothing else; udp_send stays required. Added after the first release:
     * hosts that zero-initialise r_io_ops_t get NULL. */
    size_t (*udp_send_batch)(void *ctx, const r_addr_t *const *to, size_t n, const uint8_t *data, size_t len);
} r_io_ops_t;

/* ---- Resolver hooks (r-client.md 3.1, 9.4; api.md "DNS Refresh") ----------
 * The client starts asynchronous lookups; the host answers each started
 * query exactly once with r_client_dns_srv_done()/r_client_dns_addr_done(),
 * from inside the start call, later, or even after r_client_destroy(): the
 * query object and the name string passed to the start call outlive the
 * client until answered. Answering a query twice, or answering a pointer the
 * client never handed out, is a host bug (a second answer is ignored only
 * while the discovery still waits for other answers). */
typedef struct r_dns_query r_dns_query_t;

typedef struct {
    const char *target;  /* SRV target host name, NUL-terminated, trailing dot optional */
    uint16_t port;
    uint16_t priority;
    uint16_t weight;
    uint32_t ttl_s;      /* record TTL in seconds; 0 = unknown */
} r_srv_record_t;

typedef struct {
    r_addr_t addr;       /* port ignored: the SRV port is authoritative */
    uint32_t ttl_s;
} r_addr_record_t;

typedef struct {
    void *ctx;
    /* Start an SRV lookup of name ("_ratelimitly._udp.<tenant_dns_name>").
     * Return 0 when started (the host then owes exactly one srv_done for
     * query), non-zero when it could not start (no answer is then expected). */
    int (*resolve_srv)(void *ctx, const char *name, r_dns_query_t *query);
    /* Start an A/AAAA lookup of host; same contract, answered with addr_done. */
    int (*resolve_addr)(void *ctx, const char *host, r_dns_query_t *query);
} r_resolver_ops_t;

/* Deliver an SRV answer. status 0 = answer (records may be empty), non-zero =
 * failure or timeout. records are borrowed for the duration of the call. */
RCLIENT_API void r_client_dns_srv_done(r_dns_query_t *query, int status, const r_srv_record_t *records,
                                       size_t n_records);

/* Deliver an A/AAAA answer; same conventions. */
RCLIENT_API void r_client_dns_addr_done(r_dns_query_t *query, int status, const r_addr_record_t *records,
                                        size_t n_records);

#ifdef __cplusplus
}
#endif

#endif /* R_CLIENT_IO_H */
