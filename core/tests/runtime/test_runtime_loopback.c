/* SPDX-License-Identifier: MIT */
/* The public runtime over real loopback UDP (api.md "Public runtime";
 * r-client.md 6.1, 6.2.1, 9.3.3): a round trip over IPv4 and IPv6 in each auth
 * mode against the reference server model (responder.h), oldest-first
 * selection and one sendmmsg per fan-out, batched receives (recvmmsg),
 * packet-local noise discarded, the
 * source-port rebind seen as a new source port by the server, a failed rebind
 * keeping the old socket, and r_runtime_admission_run_and_report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "r_client_runtime.h"
#include "responder.h"
#include "rt_loop.h"
#include "test_keys.h"

typedef struct {
    char key[160];
    responder_t *resp;
    r_server_endpoint_t eps[RESPONDER_MAX];
    size_t n;
    r_runtime_client_t *rt;
    r_resource_request_t res;
} fx_t;

static int refuse_sockets; /* socket_cb refuses new sockets while set */
static int registered;     /* sockets currently registered through socket_cb */

static int socket_cb(void *user, r_runtime_socket_t fd, bool added) {
    (void)user;
    (void)fd;
    if (added && refuse_sockets) {
        return -1;
    }
    registered += added ? 1 : -1;
    return 0;
}

/* Start n servers (IPv6 or not) for a key of type, and a runtime on them.
 * Returns false when the host lacks the family (the test is skipped). */
static bool fx_start(fx_t *f, size_t n, bool ipv6, r_auth_type_t type, bool single_send) {
    memset(f, 0, sizeof *f);
    assert_int_equal(test_make_key_quota(type, 4242, TEST_QUOTA_2000, f->key, sizeof f->key), 0);
    responder_cfg_t rc = {.n_servers = n, .ipv6 = ipv6, .credential = f->key, .steer = SIM_STEER_KEEP};
    f->resp = responder_start(&rc);
    if (f->resp == NULL && ipv6) {
        return false;
    }
    assert_non_null(f->resp);
    f->n = n;
    for (size_t i = 0; i < n; i++) {
        f->eps[i] = responder_endpoint(f->resp, i);
    }
    r_runtime_options_t o;
    rt_test_options(&o, f->key, TEST_UNIT_MS);
    o.servers = f->eps;
    o.server_count = n;
    o.single_send = single_send;
    o.socket_cb = socket_cb;
    refuse_sockets = 0;
    registered = 0;
    assert_int_equal(r_runtime_client_create(&o, &f->rt), RCLIENT_OK);
    f->res.window_size_ms = 1000;
    f->res.rate_limit = 100;
    f->res.tokens_requested = 1;
    assert_int_equal(r_client_derive_bucket_id("loopback", 8, 1000, 100, f->res.bucket_id), RCLIENT_OK);
    return true;
}

static void fx_stop(fx_t *f) {
    r_runtime_client_destroy(f->rt);
    assert_int_equal(registered, 0); /* every socket was announced before it closed */
    responder_stop(f->resp);
}

/* Submit f->res and run to completion. */
static rt_result_t fx_check(fx_t *f) {
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(r_runtime_client_handle(f->rt), &f->res, 1, NULL, 0, NULL, 0,
                                                     rt_on_result, &out, &req),
                     RCLIENT_OK);
    assert_true(rt_run_until(f->rt, &out.completions, req, RT_HANG_MS));
    return out;
}

static void round_trip(bool ipv6, r_auth_type_t type) {
    fx_t f;
    if (!fx_start(&f, 1, ipv6, type, false)) {
        skip();
    }
    rt_result_t r = fx_check(&f);
    assert_int_equal(r.completions, 1);
    assert_int_equal(r.status, RCLIENT_OK);
    assert_true(r.success);
    assert_true(r.server_id == f.eps[0].server_id);
    assert_int_equal(responder_received(f.resp, 0), 1);
    fx_stop(&f);
}

static void test_ipv4_none(void **state) { (void)state; round_trip(false, R_AUTH_NONE); }
static void test_ipv4_cookie(void **state) { (void)state; round_trip(false, R_AUTH_COOKIE); }
static void test_ipv4_aes(void **state) { (void)state; round_trip(false, R_AUTH_AES); }
static void test_ipv6_cookie(void **state) { (void)state; round_trip(true, R_AUTH_COOKIE); }
static void test_ipv6_aes(void **state) { (void)state; round_trip(true, R_AUTH_AES); }

static void test_tight_limit_denies(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    f.res.rate_limit = 1;
    f.res.window_size_ms = 60000; /* no window boundary between the two requests */
    assert_int_equal(r_client_derive_bucket_id("tight", 5, 60000, 1, f.res.bucket_id), RCLIENT_OK);
    rt_result_t a = fx_check(&f);
    assert_int_equal(a.status, RCLIENT_OK);
    assert_true(a.success);
    rt_result_t d = fx_check(&f); /* same window: the one token is gone */
    assert_int_equal(d.status, RCLIENT_OK);
    assert_false(d.success);
    assert_int_equal(d.deficit, 1);
    fx_stop(&f);
}

static void fanout(bool single_send) {
    fx_t f;
    fx_start(&f, 3, false, R_AUTH_COOKIE, single_send);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(r_runtime_client_handle(f.rt), &f.res, 1, NULL, 0, NULL, 0,
                                                     rt_on_result, &out, &req),
                     RCLIENT_OK);
    r_runtime_stats_t st;
    assert_int_equal(r_runtime_client_stats(f.rt, &st), RCLIENT_OK);
    assert_int_equal(st.datagrams_sent, 3);
    assert_int_equal(st.sendmmsg_calls, single_send ? 0 : 1);
    assert_int_equal(st.sendto_calls, single_send ? 3 : 0);
    assert_true(rt_run_until(f.rt, &out.completions, req, RT_HANG_MS));
    assert_int_equal(out.status, RCLIENT_OK);
    assert_true(out.server_id == f.eps[0].server_id); /* the oldest (r-client.md 9.3.3) */
    fx_stop(&f);
}

static void test_fanout_is_one_sendmmsg(void **state) { (void)state; fanout(false); }
static void test_single_send_is_one_sendto_per_server(void **state) { (void)state; fanout(true); }

static void test_silent_oldest_fails_over_to_the_next_oldest(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 3, false, R_AUTH_COOKIE, false);
    responder_set_silent(f.resp, 0, true); /* the oldest is down */
    rt_result_t r = fx_check(&f);
    assert_int_equal(r.status, RCLIENT_OK);
    assert_true(r.success);
    /* r-client.md 9.3.3: the oldest valid candidate at the preference deadline. */
    assert_true(r.server_id == f.eps[1].server_id);
    fx_stop(&f);
}

/* r-client.md 9.3 "Delivery": a best-effort attempt to every server of the
 * snapshot; r-client-ha-design.md 10 "Preferred-server failure": A yields
 * nothing, B answers -> B is selected at the preference deadline. Here the
 * oldest member's address is the IPv4 broadcast address, which the kernel
 * refuses without SO_BROADCAST (EACCES): a member that cannot be sent to.
 * The two healthy servers must still get the request (issue 20 item 14:
 * before, submit returned RCLIENT_ERR_IO and neither received anything). */
static void unsendable_oldest(bool single_send) {
    fx_t f;
    fx_start(&f, 2, false, R_AUTH_COOKIE, single_send);
    r_server_endpoint_t eps[3];
    assert_int_equal(r_client_encode_server_id(1735689600u + 1000u, 0, 1, &eps[0].server_id), RCLIENT_OK);
    memset(&eps[0].addr, 0, sizeof eps[0].addr);
    eps[0].addr.family = R_ADDR_INET;
    memset(eps[0].addr.addr, 0xff, 4); /* 255.255.255.255 */
    eps[0].addr.port = 9;
    eps[1] = f.eps[0];
    eps[2] = f.eps[1];
    assert_true(eps[0].server_id < eps[1].server_id); /* the unsendable member is the oldest */
    r_runtime_client_destroy(f.rt);
    r_runtime_options_t o;
    rt_test_options(&o, f.key, TEST_UNIT_MS);
    o.servers = eps;
    o.server_count = 3;
    o.single_send = single_send;
    o.socket_cb = socket_cb;
    assert_int_equal(r_runtime_client_create(&o, &f.rt), RCLIENT_OK);
    rt_result_t r = fx_check(&f); /* asserts the submit returned RCLIENT_OK */
    assert_int_equal(r.status, RCLIENT_OK);
    assert_true(r.success);
    assert_true(r.server_id == eps[1].server_id); /* the oldest server that could answer */
    assert_true(responder_received(f.resp, 0) >= 1);
    for (int i = 0; i < 2000 && responder_received(f.resp, 1) == 0; i++) {
        usleep(1000); /* the responder thread may not have run yet on a loaded host */
    }
    assert_true(responder_received(f.resp, 1) >= 1);
    r_runtime_stats_t st;
    assert_int_equal(r_runtime_client_stats(f.rt, &st), RCLIENT_OK);
    assert_true(st.send_failures >= 1); /* the initial send to the broadcast member, and any completion send */
    fx_stop(&f);
}

static void test_unsendable_oldest_member_does_not_stop_the_fanout(void **state) {
    (void)state;
    unsendable_oldest(false);
}

static void test_unsendable_oldest_member_single_send(void **state) {
    (void)state;
    unsendable_oldest(true);
}

static void send_garbage_to(uint16_t port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    static const uint8_t junk[48] = {0x52, 0x4C, 0x28, 0x00, 1, 2, 3};
    assert_int_equal(sendto(fd, junk, sizeof junk, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)sizeof junk);
    close(fd);
}

static void test_noise_is_discarded_and_the_request_survives(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t port = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &port), RCLIENT_OK);
    responder_set_silent(f.resp, 0, true);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(r_runtime_client_handle(f.rt), &f.res, 1, NULL, 0, NULL, 0,
                                                     rt_on_result, &out, &req),
                     RCLIENT_OK);
    send_garbage_to(port);
    usleep(2000);
    assert_int_equal(r_runtime_client_on_readable(f.rt, r_runtime_socket_at(f.rt, 0)), RCLIENT_OK);
    r_runtime_stats_t st;
    r_runtime_client_stats(f.rt, &st);
    assert_int_equal(st.noise_protocol, 1);
    assert_int_equal(out.completions, 0); /* still in flight */
    responder_set_silent(f.resp, 0, false);
    assert_true(rt_run_until(f.rt, &out.completions, req, RT_HANG_MS)); /* the replay is answered */
    assert_int_equal(out.status, RCLIENT_OK);
    fx_stop(&f);
}

/* project (issue 25): one on_readable drains the socket with recvmmsg, up to
 * 16 datagrams a call, and a short batch ends the drain (no further call to
 * find the socket empty): 3 queued datagrams take 1 call, 20 take 2 (16 + 4),
 * exactly 16 take 2 (a full batch cannot tell that nothing follows). */
static void batched_drain(size_t queued, uint64_t want_calls) {
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t port = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &port), RCLIENT_OK);
    for (size_t i = 0; i < queued; i++) {
        send_garbage_to(port);
    }
    usleep(2000);
    assert_int_equal(r_runtime_client_on_readable(f.rt, r_runtime_socket_at(f.rt, 0)), RCLIENT_OK);
    r_runtime_stats_t st;
    r_runtime_client_stats(f.rt, &st);
    assert_int_equal(st.datagrams_received, queued);
    assert_int_equal(st.noise_protocol, queued);
    assert_int_equal(st.recvmmsg_calls, want_calls);
    assert_int_equal(st.recvfrom_calls, 0);
    fx_stop(&f);
}

static void test_three_datagrams_one_recvmmsg(void **state) { (void)state; batched_drain(3, 1); }
static void test_twenty_datagrams_two_recvmmsg(void **state) { (void)state; batched_drain(20, 2); }
static void test_full_batch_reads_again(void **state) { (void)state; batched_drain(16, 2); }

/* A datagram of len bytes: the framing's first bytes, then filler. */
static void send_len_to(uint16_t port, size_t len) {
    static uint8_t big[9000];
    big[0] = 0x52;
    big[1] = 0x4C;
    big[2] = 0x28;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(sendto(fd, big, len, 0, (struct sockaddr *)&to, sizeof to), (ssize_t)len);
    close(fd);
}

/* wire_protocol.md (one message per datagram, at most 1200 bytes) and api.md
 * "Datagrams and Timers" (malformed datagrams are noise, the request stays in
 * flight): a datagram larger than the receive buffer (1201, 1300, 9000 bytes:
 * cut to the buffer, still over 1200, so malformed, never read as a shorter
 * message) and empty datagrams are each one received datagram of noise,
 * across a batch boundary (17 queued: 16 + 1, two recvmmsg calls), and the
 * request in flight is still answered. */
static void test_oversized_and_empty_datagrams_are_noise(void **state) {
    (void)state;
    static const size_t lens[17] = {0, 1201, 1300, 9000, 0, 0, 1201, 9000, 0, 1300, 0, 0, 9000, 0, 1201, 0, 9000};
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t port = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &port), RCLIENT_OK);
    responder_set_silent(f.resp, 0, true);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async(r_runtime_client_handle(f.rt), &f.res, 1, NULL, 0, NULL, 0,
                                                     rt_on_result, &out, &req),
                     RCLIENT_OK);
    for (size_t i = 0; i < 17; i++) {
        send_len_to(port, lens[i]);
    }
    usleep(2000);
    assert_int_equal(r_runtime_client_on_readable(f.rt, r_runtime_socket_at(f.rt, 0)), RCLIENT_OK);
    r_runtime_stats_t st;
    r_runtime_client_stats(f.rt, &st);
    assert_int_equal(st.datagrams_received, 17);
    assert_int_equal(st.noise_protocol, 17);
    assert_int_equal(st.noise_auth, 0);
    assert_int_equal(st.recvmmsg_calls, 2);
    assert_int_equal(out.completions, 0); /* still in flight */
    responder_set_silent(f.resp, 0, false);
    assert_true(rt_run_until(f.rt, &out.completions, req, RT_HANG_MS)); /* the replay is answered */
    assert_int_equal(out.status, RCLIENT_OK);
    fx_stop(&f);
}

static void test_on_readable_rejects_foreign_socket(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    assert_int_equal(r_runtime_client_on_readable(f.rt, 0), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_client_on_readable(f.rt, R_RUNTIME_INVALID_SOCKET), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_client_on_readable(NULL, 3), RCLIENT_ERR_CONFIG);
    fx_stop(&f);
}

static void test_rebind_is_a_new_source_port_at_the_server(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t before = 0, after = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &before), RCLIENT_OK);
    size_t sockets = r_runtime_socket_count(f.rt);
    responder_set_steer(f.resp, SIM_STEER_CHANGE); /* keep_port = false */
    rt_result_t r1 = fx_check(&f);
    assert_int_equal(r1.status, RCLIENT_OK);
    assert_false(r1.keep_port);
    assert_int_equal(responder_last_source_port(f.resp, 0), before);
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &after), RCLIENT_OK);
    assert_int_not_equal(after, before);
    assert_false(r_client_rebind_pending(r_runtime_client_handle(f.rt)));
    assert_int_equal(r_runtime_socket_count(f.rt), 2 * sockets); /* old ones retired, still read */
    /* The retired socket is still read: late datagrams to the old port reach the core. */
    r_runtime_socket_t old_fd = r_runtime_socket_at(f.rt, sockets); /* first retired */
    send_garbage_to(before);
    usleep(2000);
    assert_int_equal(r_runtime_client_on_readable(f.rt, old_fd), RCLIENT_OK);
    r_runtime_stats_t st0;
    r_runtime_client_stats(f.rt, &st0);
    assert_int_equal(st0.noise_protocol, 1);
    responder_set_steer(f.resp, SIM_STEER_KEEP);
    rt_result_t r2 = fx_check(&f);
    assert_int_equal(r2.status, RCLIENT_OK);
    assert_int_equal(responder_last_source_port(f.resp, 0), after);
    r_runtime_stats_t st;
    r_runtime_client_stats(f.rt, &st);
    assert_int_equal(st.rebinds, 1);
    usleep((TEST_HORIZON_MS + 50) * 1000); /* past the horizon H */
    (void)fx_check(&f);
    assert_int_equal(r_runtime_socket_count(f.rt), sockets); /* retired sockets closed */
    fx_stop(&f);
}

static void test_failed_rebind_keeps_the_old_socket(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t before = 0, now = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &before), RCLIENT_OK);
    size_t sockets = r_runtime_socket_count(f.rt);
    int reg = registered;
    responder_set_steer(f.resp, SIM_STEER_CHANGE);
    refuse_sockets = 1; /* the host cannot register a replacement */
    rt_result_t r1 = fx_check(&f);
    assert_int_equal(r1.status, RCLIENT_OK);
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &now), RCLIENT_OK);
    assert_int_equal(now, before);
    assert_int_equal(r_runtime_socket_count(f.rt), sockets);
    assert_int_equal(registered, reg);
    assert_true(r_client_rebind_pending(r_runtime_client_handle(f.rt))); /* RebindPending, retried later */
    r_runtime_stats_t st;
    r_runtime_client_stats(f.rt, &st);
    assert_true(st.rebind_failures >= 1);
    assert_int_equal(st.rebinds, 0);
    responder_set_steer(f.resp, SIM_STEER_KEEP);
    rt_result_t r2 = fx_check(&f); /* still served on the old socket */
    assert_int_equal(r2.status, RCLIENT_OK);
    assert_int_equal(responder_last_source_port(f.resp, 0), before);
    refuse_sockets = 0;
    (void)fx_check(&f); /* the retry after this datagram succeeds */
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &now), RCLIENT_OK);
    assert_int_not_equal(now, before);
    assert_false(r_client_rebind_pending(r_runtime_client_handle(f.rt)));
    fx_stop(&f);
}

static void test_rebind_without_descriptors_keeps_the_old_socket(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    uint16_t before = 0, now = 0;
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &before), RCLIENT_OK);
    size_t sockets = r_runtime_socket_count(f.rt);
    struct rlimit saved, tight;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
    int probe = dup(0); /* the lowest free descriptor: every one from here on is refused */
    assert_true(probe >= 0);
    close(probe);
    tight = saved;
    tight.rlim_cur = (rlim_t)probe;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &tight), 0);
    int rc = r_runtime_client_rebind(f.rt); /* socket() fails with EMFILE */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
    assert_int_equal(rc, RCLIENT_ERR_IO);
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &now), RCLIENT_OK);
    assert_int_equal(now, before);
    assert_int_equal(r_runtime_socket_count(f.rt), sockets);
    rt_result_t r = fx_check(&f); /* the old socket still works */
    assert_int_equal(r.status, RCLIENT_OK);
    assert_int_equal(responder_last_source_port(f.resp, 0), before);
    assert_int_equal(r_runtime_client_rebind(f.rt), RCLIENT_OK); /* with descriptors again */
    assert_int_equal(r_runtime_local_port(f.rt, R_ADDR_INET, &now), RCLIENT_OK);
    assert_int_not_equal(now, before);
    fx_stop(&f);
}

/* ---- r_runtime_admission_run_and_report (api.md "Combined Admission Workflow") */

static int work_runs;
static int work_result;

static int work(void *user) {
    (void)user;
    work_runs++;
    struct timespec ts = {0, 3 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return work_result;
}

static int adm_done;
static void on_adm(r_admission_request_t *adm, const r_admission_outcome_t *o, void *user) {
    (void)adm;
    (void)o;
    (void)user;
    adm_done++;
}

static void admit(fx_t *f, r_admission_request_t *adm, uint32_t rate_limit) {
    r_admission_config_t cfg;
    r_client_admission_config_defaults(&cfg);
    cfg.bucket_name = "run-and-report";
    cfg.rate_limit = rate_limit;
    cfg.window_size_ms = 60000; /* one window for the whole test */
    adm_done = 0;
    memset(adm, 0, sizeof *adm);
    assert_int_equal(r_client_admission_start(r_runtime_client_handle(f->rt), &cfg, adm, on_adm, NULL), RCLIENT_OK);
    uint64_t d = 0;
    assert_int_equal(r_runtime_admission_delay_ms(adm, &d), RCLIENT_OK);
    assert_true(d <= TEST_HORIZON_MS); /* within the horizon */
    assert_true(rt_run_until(f->rt, &adm_done, NULL, RT_HANG_MS));
}

static void wait_received(responder_t *r, uint64_t want) {
    for (int i = 0; i < 30000 && responder_received(r, 0) < want; i++) { /* a hang guard of >= 30 s */
        usleep(1000);
    }
}

static void test_run_and_report_once(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    r_admission_request_t adm;
    admit(&f, &adm, 100);
    assert_true(adm.outcome.allowed);
    work_runs = 0;
    work_result = 0;
    uint32_t observed = 0;
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, &observed), RCLIENT_OK);
    assert_int_equal(work_runs, 1);
    assert_true(observed >= 3 && observed < 1000);
    assert_true(adm.reported);
    wait_received(f.resp, 2);
    assert_int_equal(responder_received(f.resp, 0), 2); /* the request and one report */
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, &observed), RCLIENT_ERR_CONFIG);
    assert_int_equal(work_runs, 1);
    fx_stop(&f);
}

static void test_run_and_report_denied_runs_nothing(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    r_admission_request_t adm;
    admit(&f, &adm, 1);
    assert_true(adm.outcome.allowed);
    admit(&f, &adm, 1); /* the one token is spent */
    assert_false(adm.outcome.allowed);
    work_runs = 0;
    uint32_t observed = 77;
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, &observed), RCLIENT_ERR_CONFIG);
    assert_int_equal(work_runs, 0);
    assert_int_equal(observed, 77);
    fx_stop(&f);
}

static void test_run_and_report_failed_work_is_not_reported(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    r_admission_request_t adm;
    admit(&f, &adm, 100);
    work_runs = 0;
    work_result = 5;
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, NULL), 5);
    work_result = 0;
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(work_runs, 1);
    assert_false(adm.reported);
    usleep(5000);
    assert_int_equal(responder_received(f.resp, 0), 1); /* the request only */
    fx_stop(&f);
}

static void test_run_and_report_rejects_bad_arguments(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 1, false, R_AUTH_COOKIE, false);
    r_admission_request_t adm;
    memset(&adm, 0, sizeof adm);
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, work, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_runtime_admission_run_and_report(NULL, &adm, work, NULL, NULL), RCLIENT_ERR_CONFIG);
    admit(&f, &adm, 100);
    assert_int_equal(r_runtime_admission_run_and_report(f.rt, &adm, NULL, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_false(adm.executed);
    fx_stop(&f);
}

static void test_create_rejects_bad_options(void **state) {
    (void)state;
    r_runtime_client_t *rt = NULL;
    r_runtime_options_t o;
    memset(&o, 0, sizeof o);
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_CONFIG); /* no key */
    o.auth_key = "rl-cookie1notakey";
    r_server_endpoint_t ep = {.server_id = 1, .addr = {.family = R_ADDR_INET, .port = 9}};
    o.servers = &ep;
    o.server_count = 1;
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_CONFIG);
    assert_null(rt);
    char key[160];
    assert_int_equal(test_make_key(R_AUTH_NONE, 1, key, sizeof key), 0);
    memset(&o, 0, sizeof o);
    o.auth_key = key;
    o.dns_server = "localhost:53"; /* not an IP literal */
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_CONFIG);
    o.dns_server = "127.0.0.1:0";
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_CONFIG);
    o.dns_server = "::1:53"; /* IPv6 needs brackets */
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_CONFIG);
    memset(&o, 0, sizeof o);
    o.auth_key = key;
    o.servers = &ep;
    o.server_count = 1;
    refuse_sockets = 1;
    o.socket_cb = socket_cb;
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_ERR_IO);
    refuse_sockets = 0;
    assert_null(rt);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4_none),
        cmocka_unit_test(test_ipv4_cookie),
        cmocka_unit_test(test_ipv4_aes),
        cmocka_unit_test(test_ipv6_cookie),
        cmocka_unit_test(test_ipv6_aes),
        cmocka_unit_test(test_tight_limit_denies),
        cmocka_unit_test(test_fanout_is_one_sendmmsg),
        cmocka_unit_test(test_single_send_is_one_sendto_per_server),
        cmocka_unit_test(test_silent_oldest_fails_over_to_the_next_oldest),
        cmocka_unit_test(test_unsendable_oldest_member_does_not_stop_the_fanout),
        cmocka_unit_test(test_unsendable_oldest_member_single_send),
        cmocka_unit_test(test_noise_is_discarded_and_the_request_survives),
        cmocka_unit_test(test_three_datagrams_one_recvmmsg),
        cmocka_unit_test(test_twenty_datagrams_two_recvmmsg),
        cmocka_unit_test(test_full_batch_reads_again),
        cmocka_unit_test(test_oversized_and_empty_datagrams_are_noise),
        cmocka_unit_test(test_on_readable_rejects_foreign_socket),
        cmocka_unit_test(test_rebind_is_a_new_source_port_at_the_server),
        cmocka_unit_test(test_failed_rebind_keeps_the_old_socket),
        cmocka_unit_test(test_rebind_without_descriptors_keeps_the_old_socket),
        cmocka_unit_test(test_run_and_report_once),
        cmocka_unit_test(test_run_and_report_denied_runs_nothing),
        cmocka_unit_test(test_run_and_report_failed_work_is_not_reported),
        cmocka_unit_test(test_run_and_report_rejects_bad_arguments),
        cmocka_unit_test(test_create_rejects_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
