/* SPDX-License-Identifier: MIT */
/* The public runtime's discovery under DNS failure and its refresh pacing,
 * against a scripted DNS server on loopback (dns_stub.h) and the reference
 * server model (responder.h):
 * - a DNS outage or NXDOMAIN after one good discovery keeps the known
 *   servers and does not re-run discovery on every submit and report
 *   (r-client.md 6.1: "A failed discovery ... should not destroy a currently
 *   usable endpoint", Unavailable -> Discovering on a retry timer; 9.4: the
 *   forced-refresh minimum "bounds repeated forced refresh"; api.md "DNS
 *   Refresh": blocking DNS is the cost of a failing submit);
 * - one lookup blocks for at most dns_timeout_ms (r_client_runtime.h);
 * - SRV TTLs cap the periodic refresh interval (api.md "DNS Refresh").
 * Timing: waits are at least 1 s and the oracles are query counts, not
 * durations, except the lookup bound, whose margin is the timeout itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dns_stub.h"
#include "r_client_runtime.h"
#include "responder.h"
#include "rt_loop.h"
#include "test_keys.h"

#define ZONE "outage.rl.test"

static char key[160];

typedef struct {
    responder_t *resp;
    dns_stub_t *dns;
    r_runtime_client_t *rt;
    r_server_endpoint_t ep;
} fx_t;

static int setup(void **state) {
    (void)state;
    return test_make_key_quota(R_AUTH_COOKIE, 77, TEST_QUOTA_2000, key, sizeof key);
}

static uint64_t mono_ms(void) {
    uint64_t t = 0;
    assert_int_equal(r_runtime_monotonic_time_ms(&t), RCLIENT_OK);
    return t;
}

/* One server behind a DNS stub whose SRV TTL is srv_ttl_s; the runtime asks
 * the stub with dns_timeout_ms and the refresh pacing given (NULL: defaults). */
static void fx_start(fx_t *f, uint32_t srv_ttl_s, uint32_t dns_timeout_ms, const r_dns_refresh_config_t *pacing) {
    memset(f, 0, sizeof *f);
    responder_cfg_t rc = {.n_servers = 1, .credential = key};
    f->resp = responder_start(&rc);
    assert_non_null(f->resp);
    f->ep = responder_endpoint(f->resp, 0);
    f->dns = dns_stub_start(ZONE, srv_ttl_s);
    assert_non_null(f->dns);
    dns_stub_add(f->dns, &f->ep);
    r_runtime_options_t o;
    rt_test_options(&o, key, TEST_UNIT_MS);
    o.tenant_dns_name = ZONE;
    o.dns_server = dns_stub_server(f->dns);
    o.dns_timeout_ms = dns_timeout_ms;
    if (pacing != NULL) {
        o.dns_refresh = *pacing;
    }
    assert_int_equal(r_runtime_client_create(&o, &f->rt), RCLIENT_OK);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(f->rt)), 1);
    assert_int_equal(dns_stub_srv_queries(f->dns), 1);
}

static void fx_stop(fx_t *f) {
    r_runtime_client_destroy(f->rt);
    dns_stub_stop(f->dns);
    responder_stop(f->resp);
}

/* Submit one request, which must be accepted, and run it to its completion
 * (the known server answers it). Returns how long the submit call blocked. */
static uint64_t submit_and_complete(fx_t *f) {
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 1000, .tokens_requested = 1};
    assert_int_equal(r_client_derive_bucket_id("outage", 6, 1000, 1000, res.bucket_id), RCLIENT_OK);
    rt_result_t out = {0};
    r_client_req_t *req = NULL;
    uint64_t t0 = mono_ms();
    assert_int_equal(r_client_check_rate_limit_async(r_runtime_client_handle(f->rt), &res, 1, NULL, 0, NULL, 0,
                                                     rt_on_result, &out, &req),
                     RCLIENT_OK);
    uint64_t blocked = mono_ms() - t0;
    assert_true(rt_run_until(f->rt, &out.completions, req, RT_HANG_MS));
    assert_int_equal(out.status, RCLIENT_OK);
    assert_true(out.server_id == f->ep.server_id);
    return blocked;
}

static void report_once(fx_t *f) {
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    r.ttl_ms = 10000;
    r.max_samples = 100;
    r.buffer_size = 32;
    r.min_sample_threshold = 5;
    r.observed_latency = 7;
    assert_int_equal(r_client_report_latency(r_runtime_client_handle(f->rt), &r, 1), RCLIENT_OK);
}

/* After one good discovery the periodic refresh (1 s here) falls due while
 * the DNS server is down (silent) or answers NXDOMAIN: the first submit
 * after it pays one failed lookup and still reaches the known server; the
 * next five submits and a report, within the forced-refresh minimum (60 s
 * here), start no lookup and reach the server too. Before the fix each of
 * them re-ran discovery (issue 20 item 13: 0.90 s per submit with
 * dns_timeout_ms 300; NXDOMAIN: one SRV query per request). */
static void outage_is_paced(dns_stub_mode_t mode) {
    fx_t f;
    r_dns_refresh_config_t pacing = {.refresh_interval_ms = 1000, .forced_refresh_min_interval_ms = 60000};
    fx_start(&f, 0, 300, &pacing);
    unsigned addr_queries = dns_stub_addr_queries(f.dns); /* the first discovery's A and AAAA */
    dns_stub_set_mode(f.dns, mode);
    usleep(1200 * 1000); /* the periodic refresh is due */
    uint64_t first = submit_and_complete(&f);
    unsigned after_first = dns_stub_srv_queries(f.dns);
    assert_true(after_first >= 2); /* the due refresh asked, and failed */
    assert_int_equal(r_client_server_count(r_runtime_client_handle(f.rt)), 1); /* kept */
    uint64_t worst = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t b = submit_and_complete(&f);
        worst = b > worst ? b : worst;
    }
    report_once(&f);
    assert_int_equal(dns_stub_srv_queries(f.dns), after_first); /* no lookup since */
    assert_int_equal(dns_stub_addr_queries(f.dns), addr_queries); /* only the first discovery's */
    assert_int_equal(r_client_server_count(r_runtime_client_handle(f.rt)), 1);
    print_message("dns outage (mode %d): first submit blocked %llu ms, the next five at most %llu ms\n", (int)mode,
                  (unsigned long long)first, (unsigned long long)worst);
    fx_stop(&f);
}

static void test_dns_silent_keeps_servers_and_paces_refresh(void **state) {
    (void)state;
    outage_is_paced(DNS_STUB_SILENT);
}

static void test_nxdomain_keeps_servers_and_paces_refresh(void **state) {
    (void)state;
    outage_is_paced(DNS_STUB_NXDOMAIN);
}

/* r_client_runtime.h: discovery blocks "for at most dns_timeout_ms per
 * lookup". With the DNS server silent, creation runs one SRV lookup that
 * never answers; with dns_timeout_ms 1000 it must return within that bound.
 * The assertion allows the timeout once more for a loaded host; c-ares'
 * doubled second try made it 3 s before (issue 20 item 13). */
static void test_one_lookup_blocks_at_most_dns_timeout(void **state) {
    (void)state;
    dns_stub_t *dns = dns_stub_start(ZONE, 0);
    assert_non_null(dns);
    dns_stub_set_mode(dns, DNS_STUB_SILENT);
    r_runtime_options_t o;
    rt_test_options(&o, key, TEST_UNIT_MS);
    o.tenant_dns_name = ZONE;
    o.dns_server = dns_stub_server(dns);
    o.dns_timeout_ms = 1000;
    r_runtime_client_t *rt = NULL;
    uint64_t t0 = mono_ms();
    assert_int_equal(r_runtime_client_create(&o, &rt), RCLIENT_OK); /* discovery never fails creation */
    uint64_t took = mono_ms() - t0;
    print_message("one silent lookup with dns_timeout_ms 1000: %llu ms\n", (unsigned long long)took);
    assert_true(took < 2000);
    assert_true(dns_stub_srv_queries(dns) >= 1);
    assert_int_equal(r_client_server_count(r_runtime_client_handle(rt)), 0);
    r_runtime_client_destroy(rt);
    dns_stub_stop(dns);
}

/* api.md "DNS Refresh": "SRV record TTLs, when provided, cap the periodic
 * interval lower." With an SRV TTL of 3 s and the default 300 s interval, a
 * submit right after discovery starts no refresh, and one 3.5 s later does
 * (issue 20 item 15: the runtime passed TTL 0, so no refresh came). */
static void test_srv_ttl_caps_the_refresh_interval(void **state) {
    (void)state;
    fx_t f;
    fx_start(&f, 3, 1000, NULL);
    (void)submit_and_complete(&f);
    assert_int_equal(dns_stub_srv_queries(f.dns), 1); /* within the TTL */
    usleep(3500 * 1000);
    (void)submit_and_complete(&f);
    assert_int_equal(dns_stub_srv_queries(f.dns), 2); /* the TTL expired: refreshed */
    assert_int_equal(r_client_server_count(r_runtime_client_handle(f.rt)), 1);
    fx_stop(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dns_silent_keeps_servers_and_paces_refresh),
        cmocka_unit_test(test_nxdomain_keeps_servers_and_paces_refresh),
        cmocka_unit_test(test_one_lookup_blocks_at_most_dns_timeout),
        cmocka_unit_test(test_srv_ttl_caps_the_refresh_interval),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
