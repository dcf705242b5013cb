/* SPDX-License-Identifier: MIT */
/* rt_dns.c - synchronous SRV then A/AAAA discovery through c-ares
 * (r-client.md 3.1; api.md "Public runtime", "DNS Refresh"), behind the
 * core's r_resolver_ops_t: every lookup runs to completion inside the start
 * hook, which answers the query before returning (r_client_io.h allows an
 * answer from inside the start call). c-ares can be pointed at one DNS server
 * and port, so tests run it against a server they start on loopback.
 *
 * One lookup blocks for at most dns_timeout_ms (r_client_runtime.h): c-ares
 * doubles its per-try timeout on the second try, so the tries get a third
 * and two thirds of it, and a deadline on the monotonic clock cancels
 * whatever is still outstanding when it passes (more servers in
 * /etc/resolv.conf mean more tries, which the deadline cuts short). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <ares.h>

#include "rt_int.h"

#define MAX_RECORDS 64u /* RL_MAX_MEMBERS: the core keeps at most 64 members */
#define TRIES 2
#define T_SRV 33      /* RFC 2782 */
#define HEADER_LEN 12 /* RFC 1035 4.1.1 */
#define QFIXED_LEN 4  /* QTYPE, QCLASS */
#define RRFIXED_LEN 10 /* TYPE, CLASS, TTL, RDLENGTH */

struct rt_dns {
    ares_channel channel;
    uint32_t timeout_ms; /* the bound of one lookup, all tries */
};

/* "1.2.3.4:53" or "[::1]:53" -> c-ares' CSV form (the same text); checked
 * here so a bad value is a configuration error naming the rule. */
static int check_server(const char *s) {
    char host[64];
    const char *colon = strrchr(s, ':');
    const char *hs = s, *he = colon;
    if (colon == NULL) {
        return -1;
    }
    if (s[0] == '[') {
        if (colon == s || colon[-1] != ']') {
            return -1;
        }
        hs = s + 1;
        he = colon - 1;
    }
    size_t hl = (size_t)(he - hs);
    if (hl == 0 || hl >= sizeof host) {
        return -1;
    }
    memcpy(host, hs, hl);
    host[hl] = '\0';
    unsigned char buf[16];
    int af = s[0] == '[' ? AF_INET6 : AF_INET;
    if (inet_pton(af, host, buf) != 1) {
        return -1;
    }
    const char *p = colon + 1;
    unsigned long port = 0;
    if (*p == '\0') {
        return -1;
    }
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || (port = port * 10u + (unsigned long)(*p - '0')) > 65535u) {
            return -1;
        }
    }
    return port == 0 ? -1 : 0;
}

int rt_dns_new(const char *server, uint32_t timeout_ms, rt_dns_t **out) {
    if (server != NULL && check_server(server) != 0) {
        return RCLIENT_ERR_CONFIG;
    }
    if (ares_library_init(ARES_LIB_INIT_ALL) != ARES_SUCCESS) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: c-ares global init cannot fail on POSIX */
    }
    rt_dns_t *d = calloc(1, sizeof *d);
    if (d == NULL) {
        ares_library_cleanup(); /* GCOVR_EXCL_LINE: allocation failure */
        return RCLIENT_ERR_NOMEM; /* GCOVR_EXCL_LINE: allocation failure */
    }
    d->timeout_ms = timeout_ms != 0 ? timeout_ms : 1000u;
    struct ares_options opts;
    memset(&opts, 0, sizeof opts);
    /* Try 1 waits T/3, try 2 (doubled by c-ares) 2T/3: T in all. */
    opts.timeout = (int)(d->timeout_ms / 3u > 0 ? d->timeout_ms / 3u : 1u);
    opts.tries = TRIES;
    opts.ndomains = 0; /* SRV names and their targets are absolute: no search list */
    opts.domains = NULL;
    int mask = ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_DOMAINS;
    if (ares_init_options(&d->channel, &opts, mask) != ARES_SUCCESS ||
        (server != NULL && ares_set_servers_ports_csv(d->channel, server) != ARES_SUCCESS)) {
        rt_dns_free(d);
        return RCLIENT_ERR_IO;
    }
    *out = d;
    return RCLIENT_OK;
}

void rt_dns_free(rt_dns_t *d) {
    if (d == NULL) {
        return;
    }
    if (d->channel != NULL) {
        ares_destroy(d->channel);
    }
    free(d);
    ares_library_cleanup();
}

static uint64_t mono_ms(void) {
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Run the channel until every query finished, or until the lookup's bound
 * passed: then cancel what is outstanding (its callbacks run with
 * ARES_ECANCELLED, a failure). */
static void wait_all(const rt_dns_t *d) {
    ares_channel ch = d->channel;
    uint64_t deadline = mono_ms() + d->timeout_ms;
    for (;;) {
        ares_socket_t socks[ARES_GETSOCK_MAXNUM];
        /* Bits read unsigned: c-ares' ARES_GETSOCK_WRITABLE shifts 1 into an int's sign bit. */
        unsigned bits = (unsigned)ares_getsock(ch, socks, ARES_GETSOCK_MAXNUM);
        struct pollfd pfd[ARES_GETSOCK_MAXNUM];
        nfds_t n = 0;
        for (int i = 0; i < ARES_GETSOCK_MAXNUM; i++) {
            short ev = (short)((((bits >> i) & 1u) ? POLLIN : 0) |
                               (((bits >> (i + ARES_GETSOCK_MAXNUM)) & 1u) ? POLLOUT : 0));
            if (ev != 0) {
                pfd[n].fd = socks[i];
                pfd[n].events = ev;
                pfd[n].revents = 0;
                n++;
            }
        }
        if (n == 0) {
            return; /* nothing outstanding */
        }
        uint64_t now = mono_ms();
        if (now >= deadline) {
            ares_cancel(ch);
            return;
        }
        struct timeval tv, *tvp = ares_timeout(ch, NULL, &tv);
        uint64_t ms = tvp == NULL ? 1000u : (uint64_t)tvp->tv_sec * 1000u + ((uint64_t)tvp->tv_usec + 999u) / 1000u;
        if (ms > deadline - now) {
            ms = deadline - now;
        }
        int r = poll(pfd, n, (int)ms);
        if (r <= 0) {
            ares_process_fd(ch, ARES_SOCKET_BAD, ARES_SOCKET_BAD); /* timeouts */
            continue;
        }
        for (nfds_t i = 0; i < n; i++) {
            ares_socket_t rfd = (pfd[i].revents & (POLLIN | POLLERR | POLLHUP)) ? pfd[i].fd : ARES_SOCKET_BAD;
            ares_socket_t wfd = (pfd[i].revents & POLLOUT) ? pfd[i].fd : ARES_SOCKET_BAD;
            if (rfd != ARES_SOCKET_BAD || wfd != ARES_SOCKET_BAD) {
                ares_process_fd(ch, rfd, wfd);
            }
        }
    }
}

/* An answer, copied out of the c-ares callback and delivered to the core
 * only after the channel is idle: the core may start the next lookup from
 * inside r_client_dns_*_done, and c-ares must not be re-entered from its own
 * callback. */
typedef struct {
    bool answered;
    int status;               /* 0 answer (maybe empty), 1 failure */
    size_t n;
    r_srv_record_t srv[MAX_RECORDS];
    char targets[MAX_RECORDS][256];
    r_addr_record_t addr[MAX_RECORDS];
} answer_t;

/* NXDOMAIN / NODATA is an empty answer; anything else is a failure. */
static int status_of(int ares_status) {
    return ares_status == ARES_ENOTFOUND || ares_status == ARES_ENODATA || ares_status == ARES_SUCCESS ? 0 : 1;
}

static uint32_t be16(const unsigned char *p) {
    return ((uint32_t)p[0] << 8) | p[1];
}

/* Offset after the (possibly compressed, RFC 1035 4.1.4) name at abuf[off],
 * or 0 when it runs past the message. */
static size_t skip_name(const unsigned char *abuf, size_t alen, size_t off) {
    while (off < alen) {
        unsigned char l = abuf[off];
        if (l == 0) {
            return off + 1;
        }
        if ((l & 0xC0u) == 0xC0u) {
            return off + 2 <= alen ? off + 2 : 0; /* a pointer ends the name */
        }
        off += 1u + l;
    }
    return 0;
}

/* The smallest TTL (seconds) of the SRV records in the answer section of
 * abuf (RFC 1035 4.1: header, questions, then answer RRs of type, class,
 * TTL, RDLENGTH, RDATA), or 0 when there is none. c-ares 1.18's SRV parser
 * drops the TTL, so the raw answer is read here. A TTL of 0 ("do not cache")
 * becomes 1 s: the core reads 0 as "unknown" (docs/spec-notes.md). */
static uint32_t srv_min_ttl(const unsigned char *abuf, size_t alen) {
    if (alen < HEADER_LEN) {
        return 0;
    }
    uint32_t qd = be16(abuf + 4), an = be16(abuf + 6);
    size_t off = HEADER_LEN;
    for (uint32_t i = 0; i < qd; i++) {
        off = skip_name(abuf, alen, off);
        if (off == 0 || off + QFIXED_LEN > alen) {
            return 0;
        }
        off += QFIXED_LEN;
    }
    uint32_t min = 0;
    for (uint32_t i = 0; i < an; i++) {
        off = skip_name(abuf, alen, off);
        if (off == 0 || off + RRFIXED_LEN > alen) {
            break;
        }
        const unsigned char *rr = abuf + off;
        uint32_t ttl = (be16(rr + 4) << 16) | be16(rr + 6);
        if (ttl > INT32_MAX || ttl == 0) {
            ttl = 1u; /* RFC 2181 8: a TTL with the top bit set means zero */
        }
        if (be16(rr) == T_SRV && be16(rr + 2) == 1u /* IN */ && (min == 0 || ttl < min)) {
            min = ttl;
        }
        off += RRFIXED_LEN + be16(rr + 8);
    }
    return min;
}

/* SRV: the records from c-ares' parser, each with the RRset's TTL read from
 * the raw answer (api.md "DNS Refresh": SRV TTLs cap the periodic interval). */
static void on_srv(void *arg, int status, int timeouts, unsigned char *abuf, int alen) {
    (void)timeouts;
    answer_t *a = arg;
    a->answered = true;
    struct ares_srv_reply *reply = NULL;
    if (status != ARES_SUCCESS || ares_parse_srv_reply(abuf, alen, &reply) != ARES_SUCCESS) {
        a->status = status_of(status);
        return;
    }
    uint32_t ttl_s = srv_min_ttl(abuf, (size_t)alen);
    for (const struct ares_srv_reply *r = reply; r != NULL && a->n < MAX_RECORDS; r = r->next) {
        size_t len = strlen(r->host);
        if (len >= sizeof a->targets[0]) {
            continue; /* longer than any DNS name: not a conforming target */
        }
        memcpy(a->targets[a->n], r->host, len + 1);
        a->srv[a->n].target = a->targets[a->n];
        a->srv[a->n].port = r->port;
        a->srv[a->n].priority = r->priority;
        a->srv[a->n].weight = r->weight;
        a->srv[a->n].ttl_s = ttl_s;
        a->n++;
    }
    ares_free_data(reply);
}

static int resolve_srv(void *ctx, const char *name, r_dns_query_t *query) {
    rt_dns_t *d = ctx;
    answer_t *a = calloc(1, sizeof *a);
    if (a == NULL) {
        return -1; /* GCOVR_EXCL_LINE: allocation failure: the lookup did not start */
    }
    ares_query(d->channel, name, 1 /* class IN */, T_SRV, on_srv, a);
    wait_all(d);
    r_client_dns_srv_done(query, a->answered ? a->status : 1, a->srv, a->n);
    free(a);
    return 0;
}

static void on_addr(void *arg, int status, int timeouts, struct ares_addrinfo *res) {
    (void)timeouts;
    answer_t *a = arg;
    a->answered = true;
    a->status = status == ARES_SUCCESS && res != NULL ? 0 : status_of(status);
    for (const struct ares_addrinfo_node *nd = res != NULL ? res->nodes : NULL; nd != NULL && a->n < MAX_RECORDS;
         nd = nd->ai_next) {
        r_addr_record_t *rec = &a->addr[a->n];
        memset(rec, 0, sizeof *rec);
        if (nd->ai_family == AF_INET) {
            rec->addr.family = R_ADDR_INET;
            memcpy(rec->addr.addr, &((const struct sockaddr_in *)(const void *)nd->ai_addr)->sin_addr, 4);
        } else if (nd->ai_family == AF_INET6) {
            rec->addr.family = R_ADDR_INET6;
            memcpy(rec->addr.addr, &((const struct sockaddr_in6 *)(const void *)nd->ai_addr)->sin6_addr, 16);
        } else {
            continue; /* GCOVR_EXCL_LINE: c-ares returns only the families asked for */
        }
        rec->ttl_s = nd->ai_ttl > 0 ? (uint32_t)nd->ai_ttl : 0;
        a->n++;
    }
    if (res != NULL) {
        ares_freeaddrinfo(res);
    }
}

static int resolve_addr(void *ctx, const char *host, r_dns_query_t *query) {
    rt_dns_t *d = ctx;
    answer_t *a = calloc(1, sizeof *a);
    if (a == NULL) {
        return -1; /* GCOVR_EXCL_LINE: allocation failure: the lookup did not start */
    }
    struct ares_addrinfo_hints hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC; /* A and AAAA */
    hints.ai_socktype = SOCK_DGRAM;
    ares_getaddrinfo(d->channel, host, NULL, &hints, on_addr, a);
    wait_all(d);
    r_client_dns_addr_done(query, a->answered ? a->status : 1, a->addr, a->n);
    free(a);
    return 0;
}

r_resolver_ops_t rt_dns_resolver(rt_dns_t *d) {
    r_resolver_ops_t ops = {.ctx = d, .resolve_srv = resolve_srv, .resolve_addr = resolve_addr};
    return ops;
}
