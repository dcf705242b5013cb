/* SPDX-License-Identifier: MIT */
/* interop_faults.c - see interop_faults.h. Linked with -Wl,--wrap=sendto,
 * --wrap=sendmmsg, --wrap=recvfrom, --wrap=recvmmsg and --wrap=ares_query: the
 * runtime's calls land here first. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <ares.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "interop_faults.h"
#include "rl_auth.h"
#include "rl_le.h"
#include "rl_wire.h"

ssize_t __real_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tl);
int __real_sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags);
ssize_t __real_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fl);
ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tl);
int __wrap_sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags);
ssize_t __wrap_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fl);
int __real_recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *timeout);
int __wrap_recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *timeout);
void __real_ares_query(ares_channel channel, const char *name, int dnsclass, int type, ares_callback cb, void *arg);
void __wrap_ares_query(ares_channel channel, const char *name, int dnsclass, int type, ares_callback cb, void *arg);

typedef enum { F_NONE, F_NO_FANOUT, F_REPLAY_ALL, F_REPLAY_AT_DEADLINE, F_NEW_UID, F_ACCEPT_NONE, F_KEY_BYTES,
               F_IGNORE_STEERING, F_STALE_DNS } fault_t;

static const char *const names[] = {"", "no_fanout", "replay_all", "replay_at_deadline", "new_uid", "accept_none",
                                    "key_bytes", "ignore_steering", "stale_dns"};

static struct {
    fault_t fault;
    fault_phase_t phase;
    unsigned submit_sends;
    r_auth_key_info_t key;
    struct sockaddr_storage to[16];
    socklen_t to_len[16];
    size_t n_to;
    uint32_t h_ms;
    int last_fd;
    unsigned srv_queries;
    uint8_t last[R_CLIENT_MAX_DATAGRAM];
    size_t last_len;
} F;

void interop_faults_init(void)
{
    const char *f = getenv("RL_INTEROP_FAULT");
    F.fault = F_NONE;
    for (size_t i = 1; f != NULL && f[0] != '\0' && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f, names[i]) == 0)
            F.fault = (fault_t)i;
    if (f != NULL && f[0] != '\0' && F.fault == F_NONE) {
        fprintf(stderr, "rl-interop-driver: unknown RL_INTEROP_FAULT \"%s\"\n", f);
        exit(2);
    }
}

void interop_faults_phase(fault_phase_t phase)
{
    F.phase = phase;
    if (phase == FAULT_SUBMIT)
        F.submit_sends = 0;
}

void interop_faults_client(const char *key, const r_server_endpoint_t *servers, size_t n,
                           const r_request_policy_t *policy)
{
    r_policy_schedule_t s;
    (void)r_client_parse_auth_key(key, 0, &F.key);
    F.n_to = n < 16 ? n : 16;
    for (size_t i = 0; i < F.n_to; i++) {
        memset(&F.to[i], 0, sizeof F.to[i]);
        if (servers[i].addr.family == R_ADDR_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&F.to[i];
            a->sin_family = AF_INET;
            a->sin_port = htons(servers[i].addr.port);
            memcpy(&a->sin_addr, servers[i].addr.addr, 4);
            F.to_len[i] = sizeof *a;
        } else {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&F.to[i];
            a->sin6_family = AF_INET6;
            a->sin6_port = htons(servers[i].addr.port);
            memcpy(&a->sin6_addr, servers[i].addr.addr, 16);
            F.to_len[i] = sizeof *a;
        }
    }
    F.h_ms = r_client_policy_schedule(policy, F.key.quotas.dedup_ttl_ms_max, &s, NULL) == RCLIENT_OK ? s.ttl_ms : 0;
}

static bool is_request(const uint8_t *d, size_t len)
{
    return len >= RL_TENANT_TLV_SIZE && rl_load_u16(d) == RL_TLV_TENANT && F.phase != FAULT_REPORT;
}

/* One datagram the runtime asked to send to `to`, after the fault. */
static void send_one(int fd, const uint8_t *d, size_t len, const struct sockaddr *to, socklen_t tl)
{
    uint8_t buf[R_CLIENT_MAX_DATAGRAM + R_CLIENT_SECRET_LEN];
    bool retransmission = F.phase == FAULT_WAIT && is_request(d, len);
    if (len > R_CLIENT_MAX_DATAGRAM)
        return;
    memcpy(buf, d, len);
    if (is_request(d, len)) {
        F.last_fd = fd;
        memcpy(F.last, d, len);
        F.last_len = len;
    }
    switch (F.fault) {
    case F_NO_FANOUT:
        if (F.phase == FAULT_SUBMIT && F.submit_sends++ > 0)
            return; /* round 0 reaches the first server only */
        break;
    case F_REPLAY_ALL:
        if (retransmission) { /* every member, whether it answered or not */
            for (size_t i = 0; i < F.n_to; i++)
                (void)__real_sendto(fd, buf, len, 0, (const struct sockaddr *)&F.to[i], F.to_len[i]);
            return;
        }
        break;
    case F_NEW_UID:
        if (retransmission)
            buf[RL_TENANT_OFF_UNIQUE_ID + 15] ^= 0x5Au; /* another logical request, as the servers see it */
        break;
    case F_KEY_BYTES:
        if (F.phase == FAULT_REPORT && F.key.has_secret) {
            memcpy(buf + len, F.key.secret, R_CLIENT_SECRET_LEN);
            len += R_CLIENT_SECRET_LEN;
        }
        break;
    default: break;
    }
    (void)__real_sendto(fd, buf, len, 0, to, tl);
    OPENSSL_cleanse(buf, sizeof buf);
}

ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tl)
{
    if (F.fault == F_NONE || !(len >= RL_TENANT_TLV_SIZE && rl_load_u16(buf) == RL_TLV_TENANT))
        return __real_sendto(fd, buf, len, flags, to, tl);
    send_one(fd, buf, len, to, tl);
    return (ssize_t)len;
}

int __wrap_sendmmsg(int fd, struct mmsghdr *v, unsigned n, int flags)
{
    if (F.fault == F_NONE)
        return __real_sendmmsg(fd, v, n, flags);
    for (unsigned i = 0; i < n; i++) {
        const struct msghdr *m = &v[i].msg_hdr;
        if (m->msg_iovlen != 1)
            return __real_sendmmsg(fd, v, n, flags);
        send_one(fd, m->msg_iov[0].iov_base, m->msg_iov[0].iov_len, m->msg_name, m->msg_namelen);
        v[i].msg_len = (unsigned)m->msg_iov[0].iov_len;
    }
    return (int)n;
}

/* A received datagram before the client sees it. ignore_steering: see below.
 * accept_none: a response authenticated with auth none under a cookie or AES
 * key is re-sealed with the key, as a client that skips the auth-type check
 * would accept it. d holds n bytes of a len-byte buffer; returns the new length. */
static ssize_t on_received(uint8_t *d, ssize_t n, size_t len)
{
    if (F.fault == F_IGNORE_STEERING && n >= (ssize_t)RL_TENANT_TLV_SIZE && rl_load_u16(d) == RL_TLV_TENANT) {
        /* every response says keep_port = true, as a client that never reads
         * steering_feedback sees it (plaintext under none and cookie auth) */
        d[RL_TENANT_OFF_STEERING] = 1;
        return n;
    }
    size_t auth = rl_auth_tlv_size(F.key.type), pdu = RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    if (F.fault != F_ACCEPT_NONE || n < (ssize_t)pdu || F.key.type == R_AUTH_NONE ||
        rl_load_u16(d + RL_TENANT_TLV_SIZE) != RL_TLV_AUTH_NONE || (size_t)n - pdu + RL_TENANT_TLV_SIZE + auth > len)
        return n;
    rl_auth_t a;
    uint8_t nonce[RL_AES_NONCE_LEN];
    memmove(d + RL_TENANT_TLV_SIZE + auth, d + pdu, (size_t)n - pdu);
    n = n - (ssize_t)pdu + (ssize_t)(RL_TENANT_TLV_SIZE + auth);
    rl_store_u16(d + RL_TENANT_TLV_SIZE, F.key.type == R_AUTH_AES ? RL_TLV_AUTH_AES : RL_TLV_AUTH_COOKIE);
    rl_store_u16(d + RL_TENANT_TLV_SIZE + 2, (uint16_t)auth);
    if (RAND_bytes(nonce, sizeof nonce) != 1 || rl_auth_init(&a, F.key.type, F.key.secret) != RCLIENT_OK)
        return n;
    (void)rl_auth_seal(&a, d, (size_t)n, nonce);
    rl_auth_release(&a);
    return n;
}

ssize_t __wrap_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *from, socklen_t *fl)
{
    ssize_t n = __real_recvfrom(fd, buf, len, flags, from, fl);
    return on_received(buf, n, len);
}

/* The runtime receives in batches (issue 25): each datagram of the batch. */
int __wrap_recvmmsg(int fd, struct mmsghdr *v, unsigned n, int flags, struct timespec *timeout)
{
    int got = __real_recvmmsg(fd, v, n, flags, timeout);
    for (int i = 0; i < got; i++) {
        struct iovec *io = v[i].msg_hdr.msg_iov;
        v[i].msg_len = (unsigned)on_received(io[0].iov_base, (ssize_t)v[i].msg_len, io[0].iov_len);
    }
    return got;
}

/* stale_dns: every SRV lookup after the first asks for a name that does not
 * exist, so each refresh fails and the client keeps the membership it learnt
 * first, as a client that never refreshes DNS does. */
void __wrap_ares_query(ares_channel channel, const char *name, int dnsclass, int type, ares_callback cb, void *arg)
{
    if (F.fault == F_STALE_DNS && F.srv_queries++ > 0)
        name = "stale-dns.invalid";
    __real_ares_query(channel, name, dnsclass, type, cb, arg);
}

void interop_faults_after_check(void)
{
    if (F.fault != F_REPLAY_AT_DEADLINE || F.last_len < RL_TENANT_TLV_SIZE || F.h_ms == 0)
        return;
    uint64_t deadline = rl_load_u64(F.last + RL_TENANT_OFF_TIME_STAMP) + F.h_ms;
    for (;;) { /* a replay initiated exactly at the dedup deadline */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
        if (now >= deadline)
            break;
        struct timespec nap = {.tv_sec = 0, .tv_nsec = (long)((deadline - now) * 1000000u)};
        nanosleep(&nap, NULL);
    }
    for (size_t i = 0; i < F.n_to; i++)
        (void)__real_sendto(F.last_fd, F.last, F.last_len, 0, (const struct sockaddr *)&F.to[i], F.to_len[i]);
    F.last_len = 0;
}
