/* SPDX-License-Identifier: MIT */
/* Adversarial reproducers for discovery and reports through the public API
 * (r-client.md 3.1, 6.1, 9.4; api.md "DNS Refresh", "Error Codes", "Reporting
 * measured work"), with the scripted resolver of fake_dns_host.h:
 * the oldest member's address lookup failing, then answering with a new
 * address; tenant names of 235 and 236 bytes written with a trailing dot;
 * reports that are all over quota while no server is known. */
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

static void zone(uint8_t t1_last, bool t1_fails) {
    dh_zone_clear(&dns);
    fake_dns_add_srv(&dns, DH_T2, DH_PORT2, 0);
    fake_dns_add_srv(&dns, DH_T1, DH_PORT1, 0);
    fake_dns_add_a(&dns, DH_T2, fake_v4(203, 0, 113, 11));
    if (t1_fails) {
        fake_dns_add_failure(&dns, DH_T1, 2);
    } else {
        fake_dns_add_a(&dns, DH_T1, fake_v4(203, 0, 113, t1_last));
    }
}

/* The destination of the first request send to DH_PORT1 at or after from. */
static const r_addr_t *to_t1(const fh_t *h, size_t from) {
    for (size_t i = from; i < h->n_sends; i++) {
        if (dh_to[i].port == DH_PORT1) return &dh_to[i];
    }
    fail_msg("no send to T1");
    return NULL;
}

/* r-client.md 6.1: a failed lookup must not destroy the usable endpoint of
 * the oldest member; when it answers again with a new address (the server
 * moved), later requests go to the new address and its answer is still the
 * oldest's (selected at once). */
static void test_oldest_fails_then_recovers_at_new_address(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_COOKIE, &dns, NULL, 0);
    h->now = T0 + 300000; /* the default interval: this submit starts a refresh */
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 2);
    zone(0, true);
    dh_answer_discovery(&dns, 1);
    assert_int_equal(r_client_server_count(h->client), 2);
    size_t first = h->n_sends;
    fh_submit(h);
    assert_int_equal(to_t1(h, first)->addr[3], 10); /* the last known address */
    /* Later activity retries the lookup (docs/spec-notes.md: within the forced
     * interval, 1 s by default; certainly by the next periodic refresh). */
    h->now = T0 + 300000 + 300000;
    fh_submit(h);
    assert_int_equal(dns.srv_calls, 3);
    zone(40, false);
    dh_answer_discovery(&dns, 2);
    first = h->n_sends;
    r_client_req_t *req = fh_submit(h);
    (void)req;
    const r_addr_t *a = to_t1(h, first);
    assert_int_equal(a->addr[0], 203);
    assert_int_equal(a->addr[3], 40);
    assert_int_equal(a->port, DH_PORT1);
    size_t idx = first;
    while (dh_to[idx].port != DH_PORT1) idx++;
    h->now += 1;
    int before = h->completions;
    assert_int_equal(fh_allow(h, idx), RCLIENT_OK);
    assert_int_equal(h->completions, before + 1);
    assert_true(h->server_id == DH_ID1);
    dh_teardown(h, &dns);
}

/* A tenant name of n bytes (labels of at most 63 bytes) followed by a dot. */
static void dotted_name(char *out, size_t n) {
    memset(out, 'a', n);
    for (size_t i = 63; i < n; i += 64) out[i] = '.';
    out[n] = '.';
    out[n + 1] = '\0';
}

/* 235 bytes and a trailing dot: "_ratelimitly._udp." + 235 = 253 bytes, the
 * longest DNS name (RFC 1035 3.1); the trailing dot is not part of the length. */
static void test_235_byte_name_with_trailing_dot_is_looked_up(void **state) {
    (void)state;
    char name[240];
    dotted_name(name, 235);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, name, NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_int_equal(strlen(dns.srv_name), 253);
    assert_memory_equal(dns.srv_name + 18, name, 235);
    dh_teardown(h, &dns);
}

/* 236 bytes and a trailing dot: 254 bytes, over-long. api.md: create never
 * fails because of discovery; submit and report are RCLIENT_ERR_DNS. */
static void test_236_byte_name_with_trailing_dot_is_dns(void **state) {
    (void)state;
    char name[240];
    dotted_name(name, 236);
    fh_t *h = dh_host(R_AUTH_NONE);
    assert_int_equal(dh_create(h, &dns, name, NULL), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 0);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    r.buffer_size = 32;
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_DNS);
    assert_int_equal(dns.srv_calls, 0);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

/* api.md: "If all reports are filtered, the function returns RCLIENT_OK
 * without sending", also while no server is known. */
static void test_all_reports_over_quota_without_servers_is_ok(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_COOKIE, &dns, DH_ZONE, NULL); /* first discovery still pending */
    r_service_latency_report_t r[2];
    memset(r, 0, sizeof r);
    r[0].buffer_size = 33; /* latency_buffer_size_max is 32 */
    r[1].buffer_size = 64;
    assert_int_equal(r_client_report_latency(h->client, r, 2), RCLIENT_OK);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_oldest_fails_then_recovers_at_new_address, reset_dns),
        cmocka_unit_test_setup(test_235_byte_name_with_trailing_dot_is_looked_up, reset_dns),
        cmocka_unit_test_setup(test_236_byte_name_with_trailing_dot_is_dns, reset_dns),
        cmocka_unit_test_setup(test_all_reports_over_quota_without_servers_is_ok, reset_dns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
