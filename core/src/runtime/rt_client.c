/* SPDX-License-Identifier: MIT */
/* rt_client.c - the public runtime's lifecycle, ingress and timers
 * (api.md "Public runtime"; r-client.md 6.1, 6.3): owns the sockets and the
 * resolver, wires them into the core client's hooks, drains readable sockets
 * (discarding packet-local noise, api.md "Error Codes") and performs the
 * steering rebind outside the receive path (r-client.md 6.3 rule 6). */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/rand.h>

#include "rt_int.h"

void rt_log(const r_runtime_client_t *rt, r_log_level_t level, const char *msg) {
    if (rt->log != NULL) {
        rt->log(rt->log_user, level, msg);
    }
}

static uint64_t hook_now(void *ctx) {
    (void)ctx;
    uint64_t now = 0;
    (void)r_runtime_wall_time_ms(&now);
    return now;
}

static void hook_log(void *ctx, r_log_level_t level, const char *msg) {
    rt_log(ctx, level, msg);
}

static const char *phase_name(r_request_phase_t p) {
    return p == R_PHASE_ROUND ? "round" : "final";
}

static void hook_profile(const r_request_profile_t *p, void *user) {
    r_runtime_client_t *rt = user;
    if (rt->profile_cb != NULL) {
        rt->profile_cb(p, rt->profile_user);
        return;
    }
    fprintf(stderr, "ratelimitly profile: wait_ms=%" PRIu64 " round=%" PRIu32 " phase=%s status=%s selected=%d"
            " server_id=%" PRIu64 "\n", p->wait_ms, p->round, phase_name(p->phase), r_client_strerror(p->status),
            p->selected ? 1 : 0, p->server_id);
}

void rt_upkeep(r_runtime_client_t *rt) {
    uint64_t now = 0;
    (void)r_runtime_wall_time_ms(&now);
    rt_retire_expired(rt, now);
    if (r_client_rebind_pending(rt->client)) {
        /* Rebinding -> Ready, or back to RebindPending on failure (retried later). */
        r_client_rebind_complete(rt->client, r_runtime_client_rebind(rt) == RCLIENT_OK);
    }
}

static int open_sockets(r_runtime_client_t *rt) {
    static const uint8_t families[RT_FAMILIES] = {R_ADDR_INET, R_ADDR_INET6};
    size_t opened = 0;
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        rt->active[i] = rt_socket_open(families[i]);
        if (rt->active[i] == R_RUNTIME_INVALID_SOCKET) {
            continue; /* this host lacks the family */
        }
        if (rt->socket_cb != NULL && rt->socket_cb(rt->socket_user, rt->active[i], true) != 0) {
            rt_socket_close(rt, rt->active[i]);
            rt->active[i] = R_RUNTIME_INVALID_SOCKET;
            return RCLIENT_ERR_IO;
        }
        opened++;
    }
    return opened > 0 ? RCLIENT_OK : RCLIENT_ERR_IO;
}

static int make_client(r_runtime_client_t *rt, const r_runtime_options_t *o) {
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.dns_name = o->tenant_dns_name;
    cfg.tenant.auth.secret = o->auth_key;
    r_request_policy_t policy;
    if (o->has_request_policy) {
        policy = o->request_policy;
    } else {
        r_client_default_request_policy(&policy);
    }
    cfg.request_policy = &policy;
    cfg.servers = o->servers;
    cfg.server_count = o->server_count;
    cfg.dns_refresh = o->dns_refresh;
    if (o->profile_cb != NULL || o->profile_requests) {
        cfg.request_profile_cb = hook_profile;
        cfg.request_profile_user_data = rt;
    }
    r_policy_schedule_t sched;
    rt->horizon_ms = r_client_policy_schedule(&policy, UINT32_MAX, &sched, NULL) == RCLIENT_OK ? sched.ttl_ms : 0;
    r_io_ops_t io = {.ctx = rt, .udp_send = rt_udp_send, .now_ms = hook_now, /* steering_rebind stays NULL: rt_upkeep polls
                     r_client_rebind_pending() once the receive path unwound (r-client.md 6.3 rule 6) */
                     .log = hook_log, .udp_send_batch = o->single_send ? NULL : rt_udp_send_batch};
    r_resolver_ops_t resolver;
    bool static_servers = o->servers != NULL || o->server_count > 0;
    if (!static_servers) {
        resolver = rt_dns_resolver(rt->dns);
    }
    return r_client_create(&cfg, &io, static_servers ? NULL : &resolver, &rt->client);
}

int r_runtime_client_create(const r_runtime_options_t *options, r_runtime_client_t **out) {
    if (options == NULL || out == NULL || options->auth_key == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_runtime_client_t *rt = calloc(1, sizeof *rt);
    if (rt == NULL) {
        return RCLIENT_ERR_NOMEM; /* GCOVR_EXCL_LINE: allocation failure */
    }
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        rt->active[i] = R_RUNTIME_INVALID_SOCKET;
    }
    rt->socket_cb = options->socket_cb;
    rt->socket_user = options->socket_user;
    rt->log = options->log;
    rt->log_user = options->log_user;
    rt->profile_cb = options->profile_cb;
    rt->profile_user = options->profile_user;
    int rc = RCLIENT_OK;
    if (options->servers == NULL && options->server_count == 0) {
        rc = rt_dns_new(options->dns_server, options->dns_timeout_ms, &rt->dns);
    }
    if (rc == RCLIENT_OK) {
        rc = open_sockets(rt);
    }
    if (rc == RCLIENT_OK) {
        rc = make_client(rt, options);
    }
    if (rc == RCLIENT_OK) {
        /* Seed OpenSSL's DRBG now (the core's default random source): the first
         * draw costs milliseconds that would otherwise eat the first request's
         * round 0, which starts before its unique_id is drawn. */
        unsigned char b;
        (void)RAND_bytes(&b, 1);
    }
    if (rc != RCLIENT_OK) {
        r_runtime_client_destroy(rt);
        return rc;
    }
    *out = rt;
    return RCLIENT_OK;
}

void r_runtime_client_destroy(r_runtime_client_t *runtime) {
    if (runtime == NULL) {
        return;
    }
    r_client_destroy(runtime->client);
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        rt_socket_close(runtime, runtime->active[i]);
    }
    for (size_t i = 0; i < runtime->n_retired; i++) {
        rt_socket_close(runtime, runtime->retired[i].fd);
    }
    rt_dns_free(runtime->dns);
    free(runtime);
}

r_client_t *r_runtime_client_handle(r_runtime_client_t *runtime) {
    return runtime == NULL ? NULL : runtime->client;
}

size_t r_runtime_socket_count(const r_runtime_client_t *runtime) {
    if (runtime == NULL) {
        return 0;
    }
    size_t n = runtime->n_retired;
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        n += runtime->active[i] != R_RUNTIME_INVALID_SOCKET;
    }
    return n;
}

r_runtime_socket_t r_runtime_socket_at(const r_runtime_client_t *runtime, size_t index) {
    if (runtime == NULL) {
        return R_RUNTIME_INVALID_SOCKET;
    }
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        if (runtime->active[i] == R_RUNTIME_INVALID_SOCKET) {
            continue;
        }
        if (index == 0) {
            return runtime->active[i];
        }
        index--;
    }
    return index < runtime->n_retired ? runtime->retired[index].fd : R_RUNTIME_INVALID_SOCKET;
}

int r_runtime_local_port(const r_runtime_client_t *runtime, r_addr_family_t family, uint16_t *out_port) {
    if (runtime == NULL || out_port == NULL || (family != R_ADDR_INET && family != R_ADDR_INET6)) {
        return RCLIENT_ERR_CONFIG;
    }
    r_runtime_socket_t fd = runtime->active[family == R_ADDR_INET ? 0 : 1];
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (fd == R_RUNTIME_INVALID_SOCKET || getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        return RCLIENT_ERR_CONFIG;
    }
    *out_port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                              : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return RCLIENT_OK;
}

static bool owns(const r_runtime_client_t *rt, r_runtime_socket_t fd) {
    if (fd == R_RUNTIME_INVALID_SOCKET) {
        return false;
    }
    for (size_t i = 0; i < RT_FAMILIES; i++) {
        if (rt->active[i] == fd) {
            return true;
        }
    }
    for (size_t i = 0; i < rt->n_retired; i++) {
        if (rt->retired[i].fd == fd) {
            return true;
        }
    }
    return false;
}

/* Deliver one received datagram; noise is counted and leaves the requests in flight. */
static int deliver(r_runtime_client_t *rt, const uint8_t *buf, size_t n) {
    rt->stats.datagrams_received++;
    int rc = r_client_on_datagram(rt->client, buf, n);
    if (rc == RCLIENT_ERR_PROTOCOL) {
        rt->stats.noise_protocol++; /* off-path noise: the request stays in flight */
    } else if (rc == RCLIENT_ERR_AUTH) {
        rt->stats.noise_auth++;
    } else if (rc != RCLIENT_OK) {
        return rc;
    }
    return RCLIENT_OK;
}

/* One recvmmsg of up to RT_RECV_BATCH datagrams, each delivered in order.
 * Returns how many were read (0: the socket is empty), or -1 on a receive
 * error; *rc keeps the first delivery error (the rest are still delivered). */
static int receive_batch(r_runtime_client_t *rt, r_runtime_socket_t fd, int *rc) {
    /* One spare byte per buffer: a longer datagram is malformed, not truncated. */
    uint8_t bufs[RT_RECV_BATCH][R_CLIENT_MAX_DATAGRAM + 1]; /* on the stack: a callback may re-enter */
    struct iovec iov[RT_RECV_BATCH];
    struct mmsghdr msgs[RT_RECV_BATCH];
    memset(msgs, 0, sizeof msgs);
    for (size_t i = 0; i < RT_RECV_BATCH; i++) {
        iov[i] = (struct iovec){.iov_base = bufs[i], .iov_len = sizeof bufs[i]};
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    int n;
    do {
        rt->stats.recvmmsg_calls++;
        n = recvmmsg(fd, msgs, RT_RECV_BATCH, MSG_DONTWAIT, NULL);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        /* ECONNREFUSED: an ICMP error for an earlier send, not a receive failure. */
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNREFUSED ? 0 : -1;
    }
    for (int i = 0; i < n; i++) {
        int r = deliver(rt, bufs[i], msgs[i].msg_len);
        if (r != RCLIENT_OK && *rc == RCLIENT_OK) {
            *rc = r;
        }
    }
    return n;
}

int r_runtime_client_on_readable(r_runtime_client_t *runtime, r_runtime_socket_t socket) {
    if (runtime == NULL || !owns(runtime, socket)) {
        return RCLIENT_ERR_CONFIG;
    }
    int rc = RCLIENT_OK;
    /* A short batch means the socket was empty when read: no further call to find it so. */
    for (size_t got = 0; got < RT_DRAIN_MAX;) {
        int n = receive_batch(runtime, socket, &rc);
        if (n < 0) {
            rc = rc == RCLIENT_OK ? RCLIENT_ERR_IO : rc;
            break;
        }
        got += (size_t)n;
        if ((size_t)n < RT_RECV_BATCH) {
            break;
        }
    }
    /* Outside the receive path now: the socket set may change from here on. */
    rt_upkeep(runtime);
    return rc;
}

int r_runtime_client_stats(const r_runtime_client_t *runtime, r_runtime_stats_t *out) {
    if (runtime == NULL || out == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    *out = runtime->stats;
    return RCLIENT_OK;
}

int r_runtime_request_on_timeout(r_runtime_client_t *runtime, r_client_req_t *req) {
    if (runtime == NULL || req == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t now = 0;
    if (r_runtime_wall_time_ms(&now) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_REALTIME cannot fail on Linux */
    }
    int rc = r_client_on_timeout(runtime->client, req, now);
    rt_upkeep(runtime);
    return rc;
}

int r_runtime_admission_on_timeout(r_runtime_client_t *runtime, r_admission_request_t *adm) {
    if (runtime == NULL || adm == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t now = 0;
    if (r_runtime_wall_time_ms(&now) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_REALTIME cannot fail on Linux */
    }
    int rc = r_client_admission_on_timeout(adm, now);
    rt_upkeep(runtime);
    return rc;
}

void r_runtime_admission_cancel(r_runtime_client_t *runtime, r_admission_request_t *adm) {
    (void)runtime;
    r_client_admission_cancel(adm);
}

int r_runtime_admission_run_and_report(r_runtime_client_t *runtime, r_admission_request_t *adm,
                                       r_runtime_protected_work_cb work, void *user, uint32_t *out_observed_ms) {
    if (runtime == NULL || adm == NULL || work == NULL || adm->client != runtime->client ||
        adm->state != R_ADMISSION_DONE || !adm->outcome.allowed || adm->executed || adm->reported) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t t0 = 0, t1 = 0;
    if (r_runtime_monotonic_time_us(&t0) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_MONOTONIC cannot fail on Linux */
    }
    adm->executed = true; /* before the work: at most once, whatever happens next */
    int work_rc = work(user);
    if (r_runtime_monotonic_time_us(&t1) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_MONOTONIC cannot fail on Linux */
    }
    if (work_rc != 0) {
        return work_rc; /* failed work is never reported */
    }
    uint64_t ms = (t1 - t0) / 1000u;
    uint32_t observed = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    if (out_observed_ms != NULL) {
        *out_observed_ms = observed;
    }
    return r_client_admission_report_latency(adm, observed);
}
