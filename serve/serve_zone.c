/* SPDX-License-Identifier: MIT */
/* serve_zone.c - SRV/A/AAAA records for serve (contract: serve_zone.h). */
#define _POSIX_C_SOURCE 200809L
#include "serve_zone.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define ZONE_TTL_S 60u

static bool is_v6(const char *addr) {
    return strchr(addr, ':') != NULL;
}

/* dnsmasq: "srv-host=<name>,<target>,<port>,<priority>,<weight>" and
 * "host-record=<name>,<address>" (one line per address). */
static void write_dnsmasq(FILE *f, const char *dns_name, const serve_zone_server_t *servers, size_t n,
                          char *const *addrs, size_t n_addrs) {
    fprintf(f, "# rl-testbed serve: records of %zu server(s) for %s (dnsmasq --conf-file)\n", n, dns_name);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "srv-host=_ratelimitly._udp.%s,s-%" PRIu64 ".%s,%u,0,0\n", dns_name, servers[i].server_id,
                dns_name, (unsigned)servers[i].port);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t a = 0; a < n_addrs; a++) {
            fprintf(f, "host-record=s-%" PRIu64 ".%s,%s\n", servers[i].server_id, dns_name, addrs[a]);
        }
    }
}

/* RFC 1035 master file; names relative to $ORIGIN. The name server "ns" gets
 * the first listen address of each family (a zone needs an NS with glue). */
static void write_master(FILE *f, const char *dns_name, const serve_zone_server_t *servers, size_t n,
                         char *const *addrs, size_t n_addrs, uint32_t serial) {
    fprintf(f, "; rl-testbed serve: records of %zu server(s) for %s\n", n, dns_name);
    fprintf(f, "$ORIGIN %s.\n$TTL %u\n", dns_name, ZONE_TTL_S);
    fprintf(f, "@ IN SOA ns hostmaster %" PRIu32 " 3600 600 86400 %u\n", serial, ZONE_TTL_S);
    fprintf(f, "@ IN NS ns\n");
    bool v4 = false, v6 = false;
    for (size_t a = 0; a < n_addrs; a++) {
        bool six = is_v6(addrs[a]);
        if (six ? !v6 : !v4) {
            fprintf(f, "ns IN %s %s\n", six ? "AAAA" : "A", addrs[a]);
            v6 = v6 || six;
            v4 = v4 || !six;
        }
    }
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "_ratelimitly._udp IN SRV 0 0 %u s-%" PRIu64 "\n", (unsigned)servers[i].port, servers[i].server_id);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t a = 0; a < n_addrs; a++) {
            fprintf(f, "s-%" PRIu64 " IN %s %s\n", servers[i].server_id, is_v6(addrs[a]) ? "AAAA" : "A", addrs[a]);
        }
    }
}

int serve_zone_write(FILE *f, serve_zone_format_t format, const char *dns_name, const serve_zone_server_t *servers,
                     size_t n, char *const *addrs, size_t n_addrs, uint32_t serial) {
    if (format == SERVE_ZONE_DNSMASQ) {
        write_dnsmasq(f, dns_name, servers, n, addrs, n_addrs);
    } else {
        write_master(f, dns_name, servers, n, addrs, n_addrs, serial);
    }
    return ferror(f) ? -1 : 0;
}

int serve_zone_write_file(const char *path, serve_zone_format_t format, const char *dns_name,
                          const serve_zone_server_t *servers, size_t n, char *const *addrs, size_t n_addrs,
                          uint32_t serial) {
    size_t len = strlen(path);
    char *tmp = malloc(len + 5);
    if (tmp == NULL) {
        return -1;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", 5);
    FILE *f = fopen(tmp, "w");
    int rc = -1;
    if (f != NULL) {
        rc = serve_zone_write(f, format, dns_name, servers, n, addrs, n_addrs, serial);
        rc = fclose(f) != 0 ? -1 : rc;
        rc = rc == 0 ? rename(tmp, path) : rc;
        if (rc != 0) {
            remove(tmp);
        }
    }
    free(tmp);
    return rc;
}
