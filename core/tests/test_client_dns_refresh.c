/* SPDX-License-Identifier: MIT */
/* DNS refresh pacing of the client (r-client.md 9.4; api.md "DNS Refresh"):
 * periodic refresh driven by submit/report activity, SRV TTL cap, failed
 * refreshes that keep the last good set and arm nothing, r_client_refresh_dns
 * with the forced-refresh minimum interval and jitter, r_client_server_count.
 * The first discovery ({s-1015809, s-1048578}) completes inside
 * r_client_create at T0; later lookups wait for the test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_dns_host.h"

#define T0 FH_T0

static fake_dns_t dns;

static int reset_dns(void **state) {
    (void)state;
    memset(&dns, 0, sizeof dns);
    return 0;
}

/* ---- periodic refresh on activity (api.md "DNS Refresh") ------------------------- */

static void test_periodic_refresh_after_default_interval(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    h->now = T0 + 299999;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 300000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(h->n_sends, 4); /* the current set keeps serving meanwhile */
    dh_teardown(h, &dns);
}

static void test_periodic_refresh_on_report_activity(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    r.buffer_size = 32;
    h->now = T0 + 300000;
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(h->n_sends, 2);
    dh_teardown(h, &dns);
}

static void test_configured_refresh_interval(void **state) {
    (void)state;
    r_dns_refresh_config_t cfg = {45000, 0, 0};
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, &cfg, 0);
    h->now = T0 + 44999;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 45000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

static void test_srv_ttl_caps_refresh_interval(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 60);
    h->now = T0 + 59999;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 60000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

static void test_no_refresh_without_activity(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    h->now = T0 + 900000;
    assert_int_equal(r_client_server_count(h->client), 2); /* a pure accessor */
    assert_int_equal(dns.srv_calls, 1);
    dh_teardown(h, &dns);
}

static void test_failed_refresh_keeps_last_good_set(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    dns.srv_mode = FAKE_AT_ONCE;
    dns.srv_status = 2;
    h->now = T0 + 300000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(r_client_server_count(h->client), 2);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(h->sends[0].server, 0);
    assert_int_equal(h->sends[1].server, 1);
    dh_teardown(h, &dns);
}

static void test_empty_refresh_answer_keeps_last_good_set(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    dns.srv_mode = FAKE_AT_ONCE;
    dh_zone_clear(&dns);
    h->now = T0 + 300000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(r_client_server_count(h->client), 2);
    assert_int_equal(h->n_sends, 2);
    dh_teardown(h, &dns);
}

/* A DNS outage with servers known: r-client.md 6.1 "A failed discovery ...
 * should not destroy a currently usable endpoint" and retries on a retry
 * timer; 9.4: forced_refresh_min_interval_ms "bounds repeated forced
 * refresh"; api.md gives blocking DNS as the cost of a failing submit only.
 * After the failed periodic refresh, the submits within the forced minimum
 * (1000 ms by default) start no lookup and still reach both servers; the
 * next one after it retries (project: docs/spec-notes.md). */
static void test_failed_refresh_paced_while_servers_are_known(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    dns.srv_mode = FAKE_AT_ONCE;
    dns.srv_status = 2;
    h->now = T0 + 300000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    for (uint64_t t = 1; t < 1000; t += 111) {
        h->now = T0 + 300000 + t;
        fh_submit(h);
        r_service_latency_report_t r;
        memset(&r, 0, sizeof r);
        r.buffer_size = 32;
        assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    }
    assert_int_equal(dns.srv_calls, 2); /* nine submits and nine reports: no lookup */
    assert_int_equal(h->n_sends, 2u + 9u * 4u); /* every one reached both servers */
    h->now = T0 + 301000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 3);
    dh_teardown(h, &dns);
}

/* api.md "DNS Refresh": with no server known, a failing submit forces a
 * refresh each time (its blocking DNS is the cost of a failing submit). */
static void test_failed_refresh_without_servers_retried_on_next_submit(void **state) {
    (void)state;
    dns.srv_mode = FAKE_AT_ONCE;
    dns.srv_status = 2;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.srv_calls, 1);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    for (int i = 0; i < 3; i++) {
        h->now = T0 + 1 + (uint64_t)i;
        assert_int_equal(r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h,
                                                         &req),
                         RCLIENT_ERR_DNS);
    }
    assert_int_equal(dns.srv_calls, 4);
    dh_teardown(h, &dns);
}

/* r-client.md 6.1: a failed discovery should not destroy a usable endpoint.
 * The refresh lists both members again but the oldest one's address lookup
 * fails: it keeps its last known address, so the next request still goes to
 * it and its answer is selected at once as the oldest's. */
static void test_oldest_member_lookup_failure_keeps_it(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    h->now = T0 + 300000;
    fh_submit(h); /* starts the refresh; served by the current set */
    assert_int_equal(dns.srv_calls, 2);
    dh_zone_clear(&dns);
    fake_dns_add_srv(&dns, DH_T2, DH_PORT2, 0);
    fake_dns_add_srv(&dns, DH_T1, DH_PORT1, 0);
    fake_dns_add_a(&dns, DH_T2, fake_v4(203, 0, 113, 21));
    fake_dns_add_failure(&dns, DH_T1, 2);
    dh_answer_discovery(&dns, 1);
    assert_int_equal(r_client_server_count(h->client), 2);
    size_t first = h->n_sends;
    h->now = T0 + 300001;
    fh_submit(h);
    assert_int_equal(h->n_sends, first + 2);
    assert_int_equal(dh_to[first].port, DH_PORT1);
    assert_int_equal(dh_to[first].addr[3], 10); /* T1's last known address */
    assert_int_equal(dh_to[first + 1].port, DH_PORT2);
    assert_int_equal(dh_to[first + 1].addr[3], 21);
    h->now = T0 + 300002;
    assert_int_equal(fh_allow(h, first), RCLIENT_OK);
    assert_int_equal(h->server_id, DH_ID1);
    dh_teardown(h, &dns);
}

/* ---- r_client_refresh_dns and r_client_server_count -------------------------------- */

static void test_refresh_dns_honours_forced_minimum(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    h->now = T0 + 999;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 1000;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

static void test_refresh_dns_configured_minimum(void **state) {
    (void)state;
    r_dns_refresh_config_t cfg = {0, 5000, 0};
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, &cfg, 0);
    h->now = T0 + 4999;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 5000;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

/* Jitter = u64le(8 random bytes) % (jitter + 1); the fake source's first
 * draw inside create reads 1, so the throttle ends at T0 + 1000 + 1. */
static void test_refresh_dns_adds_jitter(void **state) {
    (void)state;
    r_dns_refresh_config_t cfg = {0, 0, 100};
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, &cfg, 0);
    h->now = T0 + 1000;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 1);
    h->now = T0 + 1001;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

static void test_refresh_dns_while_in_flight_starts_nothing(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 1);
    dh_teardown(h, &dns);
}

/* No discovery has succeeded yet: nothing is armed, a refresh runs at once. */
static void test_refresh_dns_after_failed_start_runs_at_once(void **state) {
    (void)state;
    dns.srv_mode = FAKE_REFUSE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
    dh_zone_two(&dns, 0);
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(r_client_server_count(h->client), 2);
    dh_teardown(h, &dns);
}

static void test_explicit_client_refresh_dns_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_client_refresh_dns(NULL), RCLIENT_ERR_CONFIG);
    fh_teardown(h);
}

static void test_server_count(void **state) {
    (void)state;
    assert_int_equal(r_client_server_count(NULL), 0);
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 2);
    assert_int_equal(r_client_server_count(h->client), 2);
    fh_teardown(h);
}

#define T(f) cmocka_unit_test_setup(f, reset_dns)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_periodic_refresh_after_default_interval),
        T(test_periodic_refresh_on_report_activity),
        T(test_configured_refresh_interval),
        T(test_srv_ttl_caps_refresh_interval),
        T(test_no_refresh_without_activity),
        T(test_failed_refresh_keeps_last_good_set),
        T(test_empty_refresh_answer_keeps_last_good_set),
        T(test_failed_refresh_paced_while_servers_are_known),
        T(test_failed_refresh_without_servers_retried_on_next_submit),
        T(test_oldest_member_lookup_failure_keeps_it),
        T(test_refresh_dns_honours_forced_minimum),
        T(test_refresh_dns_configured_minimum),
        T(test_refresh_dns_adds_jitter),
        T(test_refresh_dns_while_in_flight_starts_nothing),
        T(test_refresh_dns_after_failed_start_runs_at_once),
        T(test_explicit_client_refresh_dns_is_config),
        T(test_server_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
