/* SPDX-License-Identifier: MIT */
/* rt_socket.c - the runtime's owned UDP sockets: open, send (sendto, or one
 * sendmmsg per fan-out), retire, and the transactional source-port rebind of
 * r-client.md 6.1 (replacement opened and registered before the old socket
 * stops being used; a failure keeps the old socket). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt_int.h"

#define BATCH_MAX 64u /* RL_MAX_MEMBERS: one request's fan-out */

static int family_index(uint8_t family) {
    return family == R_ADDR_INET ? 0 : family == R_ADDR_INET6 ? 1 : -1;
}

r_runtime_socket_t rt_socket_open(uint8_t family) {
    int af = family == R_ADDR_INET ? AF_INET : AF_INET6;
    int fd = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return R_RUNTIME_INVALID_SOCKET;
    }
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    if (af == AF_INET) {
        ((struct sockaddr_in *)&ss)->sin_family = AF_INET;
        sl = sizeof(struct sockaddr_in);
    } else {
        int one = 1; /* this socket is the IPv6 one; IPv4 has its own */
        (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
        ((struct sockaddr_in6 *)&ss)->sin6_family = AF_INET6;
        sl = sizeof(struct sockaddr_in6);
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0) {
        close(fd); /* GCOVR_EXCL_LINE: binding the wildcard to port 0 fails only without ports left */
        return R_RUNTIME_INVALID_SOCKET; /* GCOVR_EXCL_LINE: as above */
    }
    return fd;
}

void rt_socket_close(r_runtime_client_t *rt, r_runtime_socket_t fd) {
    if (fd == R_RUNTIME_INVALID_SOCKET) {
        return;
    }
    if (rt->socket_cb != NULL) {
        (void)rt->socket_cb(rt->socket_user, fd, false);
    }
    close(fd);
}

static socklen_t to_sockaddr(const r_addr_t *a, struct sockaddr_storage *ss) {
    memset(ss, 0, sizeof *ss);
    if (a->family == R_ADDR_INET) {
        struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
        s4->sin_family = AF_INET;
        s4->sin_port = htons(a->port);
        memcpy(&s4->sin_addr, a->addr, 4);
        return sizeof *s4;
    }
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(a->port);
    memcpy(&s6->sin6_addr, a->addr, 16);
    return sizeof *s6;
}

static r_runtime_socket_t socket_for(const r_runtime_client_t *rt, const r_addr_t *to) {
    int i = family_index(to->family);
    return i < 0 ? R_RUNTIME_INVALID_SOCKET : rt->active[i];
}

int rt_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    r_runtime_client_t *rt = ctx;
    r_runtime_socket_t fd = socket_for(rt, to);
    if (fd == R_RUNTIME_INVALID_SOCKET) {
        rt->stats.send_failures++;
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = to_sockaddr(to, &ss);
    ssize_t n;
    do {
        rt->stats.sendto_calls++;
        n = sendto(fd, data, len, 0, (struct sockaddr *)&ss, sl);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)len) {
        rt->stats.send_failures++;
        return -1;
    }
    rt->stats.datagrams_sent++;
    return 0;
}

/* One sendmmsg for a run of destinations of one family; returns how many
 * leading ones the kernel took. */
static size_t send_run(r_runtime_client_t *rt, r_runtime_socket_t fd, const r_addr_t *const *to, size_t n,
                       const uint8_t *data, size_t len) {
    struct sockaddr_storage ss[BATCH_MAX];
    struct mmsghdr msgs[BATCH_MAX];
    struct iovec iov = {.iov_base = (void *)(uintptr_t)data, .iov_len = len};
    memset(msgs, 0, n * sizeof msgs[0]);
    for (size_t i = 0; i < n; i++) {
        msgs[i].msg_hdr.msg_name = &ss[i];
        msgs[i].msg_hdr.msg_namelen = to_sockaddr(to[i], &ss[i]);
        msgs[i].msg_hdr.msg_iov = &iov;
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    int r;
    do {
        rt->stats.sendmmsg_calls++;
        r = sendmmsg(fd, msgs, (unsigned)n, 0);
    } while (r < 0 && errno == EINTR);
    size_t sent = r < 0 ? 0 : (size_t)r;
    rt->stats.datagrams_sent += sent;
    return sent;
}

size_t rt_udp_send_batch(void *ctx, const r_addr_t *const *to, size_t n, const uint8_t *data, size_t len) {
    r_runtime_client_t *rt = ctx;
    size_t done = 0;
    while (done < n) {
        /* The longest run of one family: one syscall for a homogeneous membership. */
        size_t run = 1;
        while (done + run < n && run < BATCH_MAX && to[done + run]->family == to[done]->family) {
            run++;
        }
        r_runtime_socket_t fd = socket_for(rt, to[done]);
        size_t sent = fd == R_RUNTIME_INVALID_SOCKET ? 0 : send_run(rt, fd, to + done, run, data, len);
        done += sent;
        if (sent < run) {
            rt->stats.send_failures++;
            break;
        }
    }
    return done;
}

void rt_retire_expired(r_runtime_client_t *rt, uint64_t now_ms) {
    size_t kept = 0;
    for (size_t i = 0; i < rt->n_retired; i++) {
        if (now_ms >= rt->retired[i].close_at_ms) {
            rt_socket_close(rt, rt->retired[i].fd);
        } else {
            rt->retired[kept++] = rt->retired[i];
        }
    }
    rt->n_retired = kept;
}

static size_t active_count(const r_runtime_client_t *rt) {
    size_t n = 0;
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        n += rt->active[i] != R_RUNTIME_INVALID_SOCKET;
    }
    return n;
}

/* Open and register one replacement per active family; all or nothing. */
static int open_replacements(r_runtime_client_t *rt, r_runtime_socket_t fresh[RT_FAMILIES]) {
    static const uint8_t families[RT_FAMILIES] = {R_ADDR_INET, R_ADDR_INET6};
    int rc = RCLIENT_OK;
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        fresh[i] = R_RUNTIME_INVALID_SOCKET;
    }
    for (size_t i = 0; i < RT_FAMILIES && rc == RCLIENT_OK; i++) {
        if (rt->active[i] == R_RUNTIME_INVALID_SOCKET) {
            continue;
        }
        fresh[i] = rt_socket_open(families[i]);
        if (fresh[i] == R_RUNTIME_INVALID_SOCKET) {
            rc = RCLIENT_ERR_IO;
        } else if (rt->socket_cb != NULL && rt->socket_cb(rt->socket_user, fresh[i], true) != 0) {
            close(fresh[i]); /* never registered: no removal notice */
            fresh[i] = R_RUNTIME_INVALID_SOCKET;
            rc = RCLIENT_ERR_CONFIG;
        }
    }
    if (rc != RCLIENT_OK) {
        for (size_t i = 0; i < RT_FAMILIES; i++) {
            rt_socket_close(rt, fresh[i]);
        }
    }
    return rc;
}

int r_runtime_client_rebind(r_runtime_client_t *runtime) {
    if (runtime == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t now = 0;
    (void)r_runtime_wall_time_ms(&now);
    rt_retire_expired(runtime, now);
    if (runtime->n_retired + active_count(runtime) > RT_MAX_RETIRED) {
        runtime->stats.rebind_failures++; /* deferred: the retired sockets are still in their horizon */
        return RCLIENT_ERR_IO;
    }
    r_runtime_socket_t fresh[RT_FAMILIES];
    int rc = open_replacements(runtime, fresh);
    if (rc != RCLIENT_OK) {
        runtime->stats.rebind_failures++;
        rt_log(runtime, R_LOG_WARN, "source-port rebind failed; keeping the current sockets");
        return rc;
    }
    /* Swap: the replacements carry every later send; the old sockets are only read. */
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        if (fresh[i] == R_RUNTIME_INVALID_SOCKET) {
            continue;
        }
        runtime->retired[runtime->n_retired].fd = runtime->active[i];
        runtime->retired[runtime->n_retired].close_at_ms = now + runtime->horizon_ms;
        runtime->n_retired++;
        runtime->active[i] = fresh[i];
    }
    runtime->stats.rebinds++;
    return RCLIENT_OK;
}
