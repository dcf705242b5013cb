/* SPDX-License-Identifier: MIT */
/* SRV then A/AAAA discovery of the public runtime through c-ares against a
 * real DNS server (dnsmasq, Debian dnsmasq-base) the test starts on a
 * loopback port and stops after (r-client.md 3.1: SRV targets s-<server_id>,
 * then their A/AAAA records; api.md "DNS Refresh": no usable server means
 * RCLIENT_ERR_DNS at submit). The servers are the reference model on
 * loopback sockets (responder.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "r_client_runtime.h"
#include "responder.h"
#include "rt_loop.h"
#include "test_keys.h"

#define ZONE "rl.test"

static char key[160];

static uint16_t free_udp_port(void) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &l), 0);
    close(fd);
    return ntohs(a.sin_port);
}

typedef struct {
    pid_t pid;
    uint16_t port;
    char server[32]; /* "127.0.0.1:PORT" for r_runtime_options_t.dns_server */
} dns_t;

/* Start dnsmasq with the given record arguments (NULL-terminated). */
static void dns_start(dns_t *d, const char *const *records) {
    d->port = free_udp_port();
    snprintf(d->server, sizeof d->server, "127.0.0.1:%u", (unsigned)d->port);
    char port_arg[32];
    snprintf(port_arg, sizeof port_arg, "--port=%u", (unsigned)d->port);
    const char *argv[40] = {"dnsmasq", "--keep-in-foreground", "--conf-file=/dev/null", "--no-resolv",
                            "--no-hosts", "--bind-interfaces", "--listen-address=127.0.0.1", "--pid-file=",
                            "--log-facility=/dev/null", port_arg};
    size_t n = 10;
    if (getuid() == 0) {
        argv[n++] = "--user=root"; /* no privilege drop to a user the machine may lack */
    }
    for (size_t i = 0; records[i] != NULL && n < 39; i++) {
        argv[n++] = records[i];
    }
    argv[n] = NULL;
    d->pid = fork();
    assert_true(d->pid >= 0);
    if (d->pid == 0) {
        execv("/usr/sbin/dnsmasq", (char *const *)argv);
        execvp("dnsmasq", (char *const *)argv);
        fprintf(stderr, "test_runtime_dns: cannot run dnsmasq (install dnsmasq-base: scripts/install-deps.sh)\n");
        _exit(127);
    }
    /* Ready once its port is taken: binding the same port then fails (a hang
     * guard of a minute: a loaded host may take seconds to start it). */
    bool bound = false;
    for (int i = 0; i < 3000 && !bound; i++) {
        int status = 0;
        assert_int_equal(waitpid(d->pid, &status, WNOHANG), 0); /* a failed start shows as an exited child */
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(d->port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        bound = bind(fd, (struct sockaddr *)&a, sizeof a) != 0;
        close(fd);
        if (!bound) {
            usleep(20 * 1000);
        }
    }
    assert_true(bound);
}

static void dns_stop(dns_t *d) {
    kill(d->pid, SIGTERM);
    int status = 0;
    assert_int_equal(waitpid(d->pid, &status, 0), d->pid);
}

static r_runtime_client_t *runtime_for(const char *tenant, const char *dns_server) {
    r_runtime_options_t o;
    memset(&o, 0, sizeof o);
    o.auth_key = key;
    o.tenant_dns_name = tenant;
    o.dns_server = dns_server;
    o.dns_timeout_ms = 5000; /* a hang guard: dnsmasq on a loaded host may answer late */
    o.has_request_policy = true; /* U = TEST_UNIT_MS: slow hosts answer within a round */
    r_client_default_request_policy(&o.request_policy);
    o.request_policy.unit_ms = TEST_UNIT_MS;
    r_runtime_client_t *rt = NULL;
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_OK);
    return rt;
}

static int submit(r_runtime_client_t *rt, rt_result_t *out, r_client_req_t **req) {
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 100, .tokens_requested = 1};
    assert_int_equal(r_client_derive_bucket_id("dns", 3, 1000, 100, res.bucket_id), RCLIENT_OK);
    return r_client_check_rate_limit_async(r_runtime_client_handle(rt), &res, 1, NULL, 0, NULL, 0, rt_on_result, out,
                                           req);
}

/* "--srv-host=_ratelimitly._udp.ZONE,s-<id>.<label>.ZONE,<port>,0,0" and the
 * target's "--host-record=...,<address>". */
static void records_for(const r_server_endpoint_t *ep, const char *label, char *srv, char *host, size_t cap) {
    char addr[64];
    inet_ntop(ep->addr.family == R_ADDR_INET ? AF_INET : AF_INET6, ep->addr.addr, addr, sizeof addr);
    snprintf(srv, cap, "--srv-host=_ratelimitly._udp." ZONE ",s-%" PRIu64 ".%s." ZONE ",%u,0,0", ep->server_id, label,
             (unsigned)ep->addr.port);
    snprintf(host, cap, "--host-record=s-%" PRIu64 ".%s." ZONE ",%s", ep->server_id, label, addr);
}

static void test_srv_then_a_discovers_every_server(void **state) {
    (void)state;
    responder_cfg_t rc = {.n_servers = 2, .credential = key};
    responder_t *resp = responder_start(&rc);
    assert_non_null(resp);
    char srv[2][160], host[2][160];
    r_server_endpoint_t ep0 = responder_endpoint(resp, 0), ep1 = responder_endpoint(resp, 1);
    records_for(&ep0, "a", srv[0], host[0], sizeof srv[0]);
    records_for(&ep1, "b", srv[1], host[1], sizeof srv[1]);
    const char *records[] = {srv[0], host[0], srv[1], host[1], NULL};
    dns_t d;
    dns_start(&d, records);
    r_runtime_client_t *rt = runtime_for(ZONE, d.server);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 2);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(submit(rt, &out, &req), RCLIENT_OK);
    assert_true(rt_run_until(rt, &out.completions, req, RT_HANG_MS));
    assert_int_equal(out.status, RCLIENT_OK);
    assert_true(out.server_id == ep0.server_id); /* the oldest */
    r_runtime_client_destroy(rt);
    dns_stop(&d);
    responder_stop(resp);
}

static void test_aaaa_target_beside_an_a_target(void **state) {
    (void)state;
    responder_cfg_t c4 = {.n_servers = 1, .credential = key};
    responder_cfg_t c6 = {.n_servers = 1, .credential = key, .ipv6 = true, .node_base = 100};
    responder_t *r4 = responder_start(&c4);
    responder_t *r6 = responder_start(&c6);
    assert_non_null(r4);
    if (r6 == NULL) {
        responder_stop(r4);
        skip(); /* no IPv6 loopback on this host */
    }
    r_server_endpoint_t e4 = responder_endpoint(r4, 0), e6 = responder_endpoint(r6, 0);
    char srv[2][160], host[2][160];
    records_for(&e4, "v4", srv[0], host[0], sizeof srv[0]);
    records_for(&e6, "v6", srv[1], host[1], sizeof srv[1]);
    const char *records[] = {srv[0], host[0], srv[1], host[1], NULL};
    dns_t d;
    dns_start(&d, records);
    r_runtime_client_t *rt = runtime_for(ZONE, d.server);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 2);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(submit(rt, &out, &req), RCLIENT_OK);
    assert_true(rt_run_until(rt, &out.completions, req, RT_HANG_MS));
    assert_int_equal(out.status, RCLIENT_OK);
    for (int i = 0; i < 30000 && responder_received(r6, 0) == 0; i++) {
        usleep(1000); /* the responder thread may not have run yet on a loaded host */
    }
    assert_int_equal(responder_received(r4, 0), 1); /* one fan-out reached both families */
    assert_true(responder_received(r6, 0) >= 1);
    r_runtime_client_destroy(rt);
    dns_stop(&d);
    responder_stop(r6);
    responder_stop(r4);
}

static void test_missing_srv_is_dns_error_at_submit(void **state) {
    (void)state;
    const char *records[] = {"--host-record=s-5.x." ZONE ",127.0.0.1", NULL};
    dns_t d;
    dns_start(&d, records);
    r_runtime_client_t *rt = runtime_for("absent." ZONE, d.server);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 0);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(submit(rt, &out, &req), RCLIENT_ERR_DNS);
    assert_int_equal(out.completions, 0);
    r_runtime_client_destroy(rt);
    dns_stop(&d);
}

static void test_nonconforming_target_is_not_a_member(void **state) {
    (void)state;
    const char *records[] = {"--srv-host=_ratelimitly._udp." ZONE ",server1." ZONE ",29292,0,0",
                             "--host-record=server1." ZONE ",127.0.0.1", NULL};
    dns_t d;
    dns_start(&d, records);
    r_runtime_client_t *rt = runtime_for(ZONE, d.server);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 0);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(submit(rt, &out, &req), RCLIENT_ERR_DNS);
    r_runtime_client_destroy(rt);
    dns_stop(&d);
}

static void test_silent_dns_server_never_fails_create(void **state) {
    (void)state;
    char server[32];
    snprintf(server, sizeof server, "127.0.0.1:%u", (unsigned)free_udp_port()); /* nobody listens */
    r_runtime_client_t *rt = runtime_for(ZONE, server);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 0);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(submit(rt, &out, &req), RCLIENT_ERR_DNS);
    r_runtime_client_destroy(rt);
}

static int setup(void **state) {
    (void)state;
    return test_make_key_quota(R_AUTH_AES, 777, TEST_QUOTA_2000, key, sizeof key);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_srv_then_a_discovers_every_server),
        cmocka_unit_test(test_aaaa_target_beside_an_a_target),
        cmocka_unit_test(test_missing_srv_is_dns_error_at_submit),
        cmocka_unit_test(test_nonconforming_target_is_not_a_member),
        cmocka_unit_test(test_silent_dns_server_never_fails_create),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
