/* SPDX-License-Identifier: MIT */
/* dns_stub.h - a scripted DNS server on a loopback UDP port for the
 * runtime's discovery tests: answers the SRV query of one tenant and the
 * A/AAAA queries of its targets (RFC 1035 4.1 messages, RFC 2782 SRV
 * RDATA) with the TTLs the test sets, and can go silent (a DNS outage: every
 * query times out) or answer NXDOMAIN, while counting what it receives. One
 * thread; every setter and counter may be used while it runs. */
#ifndef DNS_STUB_H
#define DNS_STUB_H

#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

#define DNS_STUB_MAX 4

typedef enum {
    DNS_STUB_ANSWER = 0, /* answer from the records */
    DNS_STUB_SILENT = 1, /* read every query, answer none (an outage) */
    DNS_STUB_NXDOMAIN = 2 /* answer every query with RCODE 3 */
} dns_stub_mode_t;

typedef struct dns_stub dns_stub_t;

/* Start on 127.0.0.1, an ephemeral port, serving "_ratelimitly._udp.<zone>"
 * with SRV TTL srv_ttl_s and no members yet. NULL on failure. */
dns_stub_t *dns_stub_start(const char *zone, uint32_t srv_ttl_s);
/* Stop the thread, close the socket, free. NULL is a no-op. */
void dns_stub_stop(dns_stub_t *s);
/* "127.0.0.1:PORT" for r_runtime_options_t.dns_server. */
const char *dns_stub_server(const dns_stub_t *s);
/* Add member ep as SRV target "s-<server_id>.<zone>" with ep's port, and
 * its A or AAAA record (TTL 60 s). At most DNS_STUB_MAX. */
void dns_stub_add(dns_stub_t *s, const r_server_endpoint_t *ep);
void dns_stub_set_mode(dns_stub_t *s, dns_stub_mode_t mode);
/* Queries received so far (answered or not): SRV ones, and A plus AAAA ones. */
unsigned dns_stub_srv_queries(dns_stub_t *s);
unsigned dns_stub_addr_queries(dns_stub_t *s);

#endif /* DNS_STUB_H */
