/* SPDX-License-Identifier: MIT */
/* serve_net.c - UDP sockets and addresses for serve (contract: serve_net.h). */
#define _GNU_SOURCE
#include "serve_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static socklen_t make_addr(const char *text, uint16_t port, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        return sizeof *v4;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        return sizeof *v6;
    }
    return 0;
}

int serve_net_open(const char *text, uint16_t *port) {
    struct sockaddr_storage ss;
    socklen_t len = make_addr(text, *port, &ss);
    if (len == 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    int one = 1, rcvbuf = 1 << 20;
    if (ss.ss_family == AF_INET6) {
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                          : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

void serve_net_peer_text(const struct sockaddr_storage *ss, char *buf, size_t cap) {
    char host[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        snprintf(buf, cap, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
    } else {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        snprintf(buf, cap, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
    }
}
