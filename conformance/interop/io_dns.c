/* SPDX-License-Identifier: MIT */
/* io_dns.c - the DNS of a discovery case (docs/interop.md "DNS"): a dnsmasq
 * on a free loopback port serving, for the run's servers, the records of
 * r-client.md 3.1 "DNS SRV Setup": one SRV record per server under
 * _ratelimitly._udp.<IO_DNS_NAME> whose target's first label is s-<server_id>
 * (or the case's own label), and an A (IPv4 run) or AAAA (IPv6 run) record of
 * each target. dnsmasq answers only from that file (no upstream, no hosts),
 * with TTL 0. The start returns once dnsmasq answered an SRV query. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io_int.h"
#include "vec_json.h"

#define DNS_READY_MS 5000u /* dnsmasq answers within this (it starts in a few ms unloaded) */
#define DNS_TRIES 5        /* free-port races: another program took the port first */

void io_dns_label(const io_run_t *run, size_t i, char *out, size_t cap)
{
    if (run->ic->dns_target[i][0] != '\0')
        vec_format(out, cap, "%s", run->ic->dns_target[i]);
    else if ((int)i == run->ic->restart && !run->restarted)
        vec_format(out, cap, "s-%" PRIu64, run->ic->restart_before_id);
    else
        vec_format(out, cap, "s-%" PRIu64, run->c.server_ids[i]);
}

bool io_dns_trusted(const io_run_t *run, size_t i)
{
    char want[40], got[40];
    if (!run->ic->dns)
        return true;
    vec_format(want, sizeof want, "s-%" PRIu64,
               (int)i == run->ic->restart && !run->restarted ? run->ic->restart_before_id : run->c.server_ids[i]);
    io_dns_label(run, i, got, sizeof got);
    return strcmp(want, got) == 0;
}

static bool write_conf(const io_run_t *run, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return false;
    for (size_t i = 0; i < run->c.n_servers; i++) {
        char label[40];
        if ((int)i == run->ic->join && !run->restarted)
            continue; /* joins the membership after the warm-up check */
        io_dns_label(run, i, label, sizeof label);
        fprintf(f, "srv-host=_ratelimitly._udp.%s,%s.%s,%u,0,0\n", IO_DNS_NAME, label, IO_DNS_NAME,
                (unsigned)run->servers[i].port);
        fprintf(f, "host-record=%s.%s,%s\n", label, IO_DNS_NAME, run->v6 ? "::1" : "127.0.0.1");
    }
    return fclose(f) == 0;
}

static int udp_socket(const io_run_t *run, uint16_t port, struct sockaddr_storage *sa, socklen_t *len)
{
    memset(sa, 0, sizeof *sa);
    if (run->v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)sa;
        a->sin6_family = AF_INET6;
        a->sin6_port = htons(port);
        a->sin6_addr = in6addr_loopback;
        *len = sizeof *a;
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)sa;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        *len = sizeof *a;
    }
    return socket(sa->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/* A port free now on the run's loopback address (the kernel's choice). */
static uint16_t free_port(const io_run_t *run)
{
    struct sockaddr_storage sa;
    socklen_t len;
    int fd = udp_socket(run, 0, &sa, &len);
    uint16_t port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, len) == 0 && getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                              : ((struct sockaddr_in *)&sa)->sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* An SRV query for _ratelimitly._udp.<IO_DNS_NAME> (RFC 1035 4.1). */
static size_t srv_query(uint8_t *q, uint16_t id)
{
    static const char *const labels[] = {"_ratelimitly", "_udp", "rl-interop", "test"};
    size_t n = 0;
    uint8_t hdr[12] = {(uint8_t)(id >> 8), (uint8_t)id, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
    memcpy(q, hdr, sizeof hdr);
    n = sizeof hdr;
    for (size_t i = 0; i < 4; i++) {
        size_t l = strlen(labels[i]);
        q[n++] = (uint8_t)l;
        memcpy(q + n, labels[i], l);
        n += l;
    }
    q[n++] = 0;
    q[n++] = 0, q[n++] = 33; /* SRV */
    q[n++] = 0, q[n++] = 1;  /* IN */
    return n;
}

/* Whether dnsmasq on port answers an SRV query within DNS_READY_MS, while it lives. */
static bool answers(const io_run_t *run, uint16_t port)
{
    struct sockaddr_storage sa;
    socklen_t len;
    int fd = udp_socket(run, port, &sa, &len);
    uint8_t q[64], a[512];
    bool ok = false;
    uint64_t end = io_now_us() + DNS_READY_MS * 1000u;
    size_t qn = srv_query(q, 0x7e57);
    while (fd >= 0 && !ok && io_now_us() < end && waitpid(run->dns_pid, NULL, WNOHANG) == 0) {
        (void)sendto(fd, q, qn, 0, (struct sockaddr *)&sa, len);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) > 0) {
            ssize_t n = recv(fd, a, sizeof a, MSG_DONTWAIT);
            ok = n >= 12 && a[0] == 0x7e && a[1] == 0x57 && (a[3] & 0x0F) == 0 && (a[6] != 0 || a[7] != 0);
        }
    }
    if (fd >= 0)
        close(fd);
    return ok;
}

static int spawn(const io_run_t *run, uint16_t port)
{
    char conf[96], lport[24], listen[48], user[80];
    const struct passwd *pw = getpwuid(getuid());
    vec_format(conf, sizeof conf, "--conf-file=%s", run->dns_conf);
    vec_format(lport, sizeof lport, "--port=%u", (unsigned)port);
    vec_format(listen, sizeof listen, "--listen-address=%s", run->v6 ? "::1" : "127.0.0.1");
    vec_format(user, sizeof user, "--user=%s", pw != NULL ? pw->pw_name : "nobody");
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        for (int f = 3; f < 1024; f++) /* the servers' sockets stay with the testbed */
            close(f);
        execlp("dnsmasq", "dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts", "--no-poll",
               "--bind-interfaces", "--pid-file=", "--log-facility=-", conf, lport, listen, user,
               (char *)NULL);
        _exit(127);
    }
    return pid > 0 ? (int)pid : 0;
}

bool io_dns_start(io_run_t *run, char *err, size_t cap)
{
    char tmpl[] = "/tmp/rl-interop-dns-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        vec_format(err, cap, "(dns): no temporary file: %s", strerror(errno));
        return false;
    }
    close(fd);
    vec_format(run->dns_conf, sizeof run->dns_conf, "%s", tmpl);
    if (!write_conf(run, run->dns_conf)) {
        vec_format(err, cap, "(dns): cannot write %s", run->dns_conf);
        return false;
    }
    for (int t = 0; t < DNS_TRIES; t++) {
        uint16_t port = free_port(run);
        if (port == 0)
            continue;
        run->dns_pid = spawn(run, port);
        if (run->dns_pid != 0 && answers(run, port)) {
            run->dns_port = port;
            return true;
        }
        io_dns_stop(run);
    }
    vec_format(err, cap, "(dns): dnsmasq did not answer on %s within %u ms (is it installed? "
               "scripts/install-deps.sh)", run->v6 ? "::1" : "127.0.0.1", DNS_READY_MS);
    return false;
}

bool io_dns_restart(io_run_t *run, char *err, size_t cap)
{
    uint16_t port = run->dns_port;
    io_dns_stop(run);
    if (!write_conf(run, run->dns_conf)) {
        vec_format(err, cap, "(dns): cannot write %s", run->dns_conf);
        return false;
    }
    run->dns_pid = spawn(run, port);
    if (run->dns_pid != 0 && answers(run, port)) {
        run->dns_port = port;
        return true;
    }
    vec_format(err, cap, "(dns): dnsmasq did not answer again on port %u", (unsigned)port);
    return false;
}

void io_dns_stop(io_run_t *run)
{
    if (run->dns_pid > 0) {
        kill(run->dns_pid, SIGTERM);
        (void)waitpid(run->dns_pid, NULL, 0);
    }
    run->dns_pid = 0;
    run->dns_port = 0;
}
