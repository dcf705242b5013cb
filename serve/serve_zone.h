/* SPDX-License-Identifier: MIT */
/* serve_zone.h - DNS records for the servers of `rl-testbed serve`
 * (r-client.md 3.1 "DNS SRV Setup"): one SRV record per server under
 * _ratelimitly._udp.<tenant_dns_name>, its target s-<server_id>.<tenant_dns_name>
 * (the first label the client parses with r_client_parse_srv_target), and an
 * A/AAAA record per listen address of that target. Two forms:
 *  - a dnsmasq configuration snippet (srv-host= and host-record= lines), for
 *    `dnsmasq --conf-file=FILE`;
 *  - an RFC 1035 master file (zone file) with SOA and NS, for BIND, NSD, Knot
 *    or CoreDNS's file plugin.
 * The exact text is documented in tools/rl-testbed/README.md "--zone". */
#ifndef SERVE_ZONE_H
#define SERVE_ZONE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t server_id;
    uint16_t port;
} serve_zone_server_t;

typedef enum { SERVE_ZONE_DNSMASQ = 0, SERVE_ZONE_MASTER = 1 } serve_zone_format_t;

/* Write the records of servers[0..n) with the numeric listen addresses
 * addrs[0..n_addrs) (IPv6 when the text has a ':') to f. dns_name is the
 * tenant DNS name without a trailing dot. serial is the SOA serial of the
 * master file (the caller counts rewrites). Returns 0, or -1 on a write error. */
int serve_zone_write(FILE *f, serve_zone_format_t format, const char *dns_name, const serve_zone_server_t *servers,
                     size_t n, char *const *addrs, size_t n_addrs, uint32_t serial);

/* The same into path, replaced atomically (written to path.tmp, renamed), so
 * a DNS server reloading it never reads half a file. 0 or -1 (errno set). */
int serve_zone_write_file(const char *path, serve_zone_format_t format, const char *dns_name,
                          const serve_zone_server_t *servers, size_t n, char *const *addrs, size_t n_addrs,
                          uint32_t serial);

#endif /* SERVE_ZONE_H */
