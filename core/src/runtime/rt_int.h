/* SPDX-License-Identifier: MIT */
/* rt_int.h - private state of the public runtime (r_client_runtime.h),
 * shared by the runtime's modules: rt_client.c (lifecycle, ingress, timers,
 * admission), rt_socket.c (sockets, sends, rebind), rt_dns.c (c-ares),
 * rt_env.c (environment options), rt_clock.c (clocks). */
#ifndef RT_INT_H
#define RT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client_runtime.h"

#define RT_FAMILIES 2u     /* [0] IPv4, [1] IPv6 */
#define RT_MAX_RETIRED 4u  /* retired sockets still read for late responses */
#define RT_DRAIN_MAX 256u  /* datagrams per on_readable call */
#define RT_RECV_BATCH 16u  /* datagrams per recvmmsg (19 KB of stack) */

typedef struct {
    r_runtime_socket_t fd;
    uint64_t close_at_ms;  /* wall ms */
} rt_retired_t;

typedef struct rt_dns rt_dns_t;

struct r_runtime_client {
    r_client_t *client;
    r_runtime_socket_t active[RT_FAMILIES]; /* R_RUNTIME_INVALID_SOCKET when the family is missing */
    rt_retired_t retired[RT_MAX_RETIRED];
    size_t n_retired;
    uint32_t horizon_ms;                    /* policy H: how long a retired socket is still read */
    rt_dns_t *dns;                          /* NULL with static servers */
    r_runtime_socket_cb socket_cb;
    void *socket_user;
    void (*log)(void *user, r_log_level_t level, const char *msg);
    void *log_user;
    r_request_profile_cb profile_cb;
    void *profile_user;
    bool profile_stderr;
    r_runtime_stats_t stats;
};

/* rt_socket.c */
/* Open a nonblocking UDP socket of family (R_ADDR_INET/INET6) bound to the
 * wildcard address, port 0. Returns the socket or R_RUNTIME_INVALID_SOCKET. */
r_runtime_socket_t rt_socket_open(uint8_t family);
void rt_socket_close(r_runtime_client_t *rt, r_runtime_socket_t fd);
/* r_io_ops_t hooks; ctx is the runtime. */
int rt_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len);
size_t rt_udp_send_batch(void *ctx, const r_addr_t *const *to, size_t n, const uint8_t *data, size_t len);
/* Close retired sockets whose horizon passed (now_ms wall). */
void rt_retire_expired(r_runtime_client_t *rt, uint64_t now_ms);

/* rt_dns.c: a synchronous c-ares resolver behind r_resolver_ops_t. */
/* server: "IPv4:PORT", "[IPv6]:PORT" or NULL. Returns RCLIENT_OK,
 * RCLIENT_ERR_CONFIG (malformed server), RCLIENT_ERR_IO (c-ares failed) or
 * RCLIENT_ERR_NOMEM. */
int rt_dns_new(const char *server, uint32_t timeout_ms, rt_dns_t **out);
void rt_dns_free(rt_dns_t *d);
r_resolver_ops_t rt_dns_resolver(rt_dns_t *d);

/* rt_client.c: upkeep outside the receive path (pending rebind, retired sockets). */
void rt_upkeep(r_runtime_client_t *rt);
void rt_log(const r_runtime_client_t *rt, r_log_level_t level, const char *msg);

#endif /* RT_INT_H */
