/* SPDX-License-Identifier: MIT */
/* dns_stub.c - the scripted loopback DNS server of dns_stub.h. Messages are
 * RFC 1035 4.1: a 12-byte header, one question (QNAME, QTYPE, QCLASS), and
 * answer records whose owner is a compression pointer to the question's
 * name (0xC00C); SRV RDATA is priority, weight, port and an uncompressed
 * target (RFC 2782). */
#include "dns_stub.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define T_A 1u
#define T_AAAA 28u
#define T_SRV 33u
#define NAME_CAP 256u
#define ZONE_CAP 200u /* room for "s-<20 digits>." in front of it */
#define ADDR_TTL_S 60u

typedef struct {
    char target[NAME_CAP];
    r_server_endpoint_t ep;
} member_t;

struct dns_stub {
    int fd;
    char server[32];
    char srv_name[NAME_CAP];
    char zone[ZONE_CAP];
    uint32_t srv_ttl_s;
    pthread_t thread;
    pthread_mutex_t mu;
    bool stop;
    dns_stub_mode_t mode;
    member_t members[DNS_STUB_MAX];
    size_t n;
    unsigned srv_queries, addr_queries;
};

/* QNAME at msg[off..] as dotted text (no trailing dot); returns the offset
 * after it, or 0 when malformed (compression is not expected in a question). */
static size_t read_qname(const uint8_t *msg, size_t len, size_t off, char out[NAME_CAP]) {
    size_t o = 0;
    while (off < len) {
        uint8_t l = msg[off++];
        if (l == 0) {
            out[o] = '\0';
            return off;
        }
        if (l > 63 || off + l > len || o + l + 2 > NAME_CAP) {
            return 0;
        }
        if (o > 0) {
            out[o++] = '.';
        }
        memcpy(out + o, msg + off, l);
        o += l;
        off += l;
    }
    return 0;
}

/* Dotted name -> wire labels at out[]; returns its length. */
static size_t put_name(uint8_t *out, const char *name) {
    size_t o = 0;
    const char *p = name;
    while (*p != '\0') {
        const char *dot = strchr(p, '.');
        size_t l = dot != NULL ? (size_t)(dot - p) : strlen(p);
        out[o++] = (uint8_t)l;
        memcpy(out + o, p, l);
        o += l;
        p += l + (dot != NULL ? 1u : 0u);
    }
    out[o++] = 0;
    return o;
}

static size_t put_u16(uint8_t *out, unsigned v) {
    out[0] = (uint8_t)(v >> 8);
    out[1] = (uint8_t)v;
    return 2;
}

static size_t put_u32(uint8_t *out, uint32_t v) {
    put_u16(out, v >> 16);
    put_u16(out + 2, v & 0xFFFFu);
    return 4;
}

/* The answer record header: owner (pointer to the question), type, IN, TTL;
 * returns the offset of RDLENGTH. */
static size_t put_rr_head(uint8_t *out, size_t o, unsigned type, uint32_t ttl) {
    o += put_u16(out + o, 0xC00Cu);
    o += put_u16(out + o, type);
    o += put_u16(out + o, 1u);
    o += put_u32(out + o, ttl);
    return o;
}

/* Build the answer to the query q (qlen bytes, question ends at qend) into
 * out; returns its length. Called with the lock held. */
static size_t answer(dns_stub_t *s, const uint8_t *q, size_t qend, const char *qname, unsigned qtype, uint8_t *out) {
    memcpy(out, q, qend); /* id, flags, counts and the question, patched below */
    out[2] = 0x84;        /* QR, AA; opcode 0 */
    out[3] = 0x00;        /* RCODE 0 */
    put_u16(out + 4, 1u);
    put_u16(out + 8, 0u);
    put_u16(out + 10, 0u);
    size_t o = qend;
    unsigned an = 0;
    bool known = strcasecmp(qname, s->srv_name) == 0;
    for (size_t i = 0; i < s->n; i++) {
        const member_t *m = &s->members[i];
        if (qtype == T_SRV && strcasecmp(qname, s->srv_name) == 0) {
            o = put_rr_head(out, o, T_SRV, s->srv_ttl_s);
            size_t rdlen_at = o;
            o += 2;
            o += put_u16(out + o, 0u); /* priority */
            o += put_u16(out + o, 0u); /* weight */
            o += put_u16(out + o, m->ep.addr.port);
            o += put_name(out + o, m->target);
            put_u16(out + rdlen_at, (unsigned)(o - rdlen_at - 2u));
            an++;
        } else if (strcasecmp(qname, m->target) == 0) {
            known = true;
            bool v4 = m->ep.addr.family == R_ADDR_INET;
            if ((qtype == T_A && v4) || (qtype == T_AAAA && !v4)) {
                o = put_rr_head(out, o, qtype, ADDR_TTL_S);
                o += put_u16(out + o, v4 ? 4u : 16u);
                memcpy(out + o, m->ep.addr.addr, v4 ? 4u : 16u);
                o += v4 ? 4u : 16u;
                an++;
            }
        }
    }
    if (!known || s->mode == DNS_STUB_NXDOMAIN) {
        out[3] = 0x03; /* NXDOMAIN */
        an = 0;
        o = qend;
    }
    put_u16(out + 6, an);
    return o;
}

static void serve_one(dns_stub_t *s) {
    uint8_t q[512], out[1024];
    struct sockaddr_storage from;
    socklen_t fl = sizeof from;
    ssize_t n = recvfrom(s->fd, q, sizeof q, 0, (struct sockaddr *)&from, &fl);
    if (n < 12) {
        return;
    }
    char qname[NAME_CAP];
    size_t qn_end = read_qname(q, (size_t)n, 12, qname);
    if (qn_end == 0 || qn_end + 4 > (size_t)n) {
        return;
    }
    unsigned qtype = ((unsigned)q[qn_end] << 8) | q[qn_end + 1];
    size_t qend = qn_end + 4;
    pthread_mutex_lock(&s->mu);
    if (qtype == T_SRV) {
        s->srv_queries++;
    } else if (qtype == T_A || qtype == T_AAAA) {
        s->addr_queries++;
    }
    size_t len = s->mode == DNS_STUB_SILENT ? 0 : answer(s, q, qend, qname, qtype, out);
    pthread_mutex_unlock(&s->mu);
    if (len > 0) {
        (void)sendto(s->fd, out, len, 0, (struct sockaddr *)&from, fl);
    }
}

static void *run(void *arg) {
    dns_stub_t *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        bool stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop) {
            return NULL;
        }
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 20) > 0) {
            serve_one(s);
        }
    }
}

dns_stub_t *dns_stub_start(const char *zone, uint32_t srv_ttl_s) {
    dns_stub_t *s = calloc(1, sizeof *s);
    if (s == NULL) {
        return NULL;
    }
    snprintf(s->zone, sizeof s->zone, "%s", zone);
    snprintf(s->srv_name, sizeof s->srv_name, "_ratelimitly._udp.%s", zone);
    s->srv_ttl_s = srv_ttl_s;
    s->fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof a;
    if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(s->fd, (struct sockaddr *)&a, &al) != 0) {
        if (s->fd >= 0) {
            close(s->fd);
        }
        free(s);
        return NULL;
    }
    snprintf(s->server, sizeof s->server, "127.0.0.1:%u", (unsigned)ntohs(a.sin_port));
    pthread_mutex_init(&s->mu, NULL);
    if (pthread_create(&s->thread, NULL, run, s) != 0) {
        pthread_mutex_destroy(&s->mu);
        close(s->fd);
        free(s);
        return NULL;
    }
    return s;
}

void dns_stub_stop(dns_stub_t *s) {
    if (s == NULL) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    pthread_mutex_destroy(&s->mu);
    close(s->fd);
    free(s);
}

const char *dns_stub_server(const dns_stub_t *s) {
    return s->server;
}

void dns_stub_add(dns_stub_t *s, const r_server_endpoint_t *ep) {
    pthread_mutex_lock(&s->mu);
    if (s->n < DNS_STUB_MAX) {
        member_t *m = &s->members[s->n++];
        m->ep = *ep;
        snprintf(m->target, sizeof m->target, "s-%" PRIu64 ".%s", ep->server_id, s->zone);
    }
    pthread_mutex_unlock(&s->mu);
}

void dns_stub_set_mode(dns_stub_t *s, dns_stub_mode_t mode) {
    pthread_mutex_lock(&s->mu);
    s->mode = mode;
    pthread_mutex_unlock(&s->mu);
}

static unsigned read_count(dns_stub_t *s, const unsigned *c) {
    pthread_mutex_lock(&s->mu);
    unsigned v = *c;
    pthread_mutex_unlock(&s->mu);
    return v;
}

unsigned dns_stub_srv_queries(dns_stub_t *s) {
    return read_count(s, &s->srv_queries);
}

unsigned dns_stub_addr_queries(dns_stub_t *s) {
    return read_count(s, &s->addr_queries);
}
