/* SPDX-License-Identifier: MIT */
/* The client over DNS discovery with a scripted resolver (r-client.md 3.1,
 * 9.4; api.md "Configuration", "DNS Refresh", "Resource-Request HA Policy"):
 * creation, the first discovery, conforming members, per-request membership
 * snapshots and answers after destroy. Refresh pacing: test_client_dns_refresh.c.
 * Zone DH_ZONE: SRV lists T2 (port 29293) before T1 (port 29292); T1 =
 * s-1015809 is older than T2 = s-1048578, T3 = s-2000000 the youngest. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_dns_host.h"

#define T0 FH_T0
#define DEFAULT_SRV "_ratelimitly._udp.c-72623859790382856.p0.ratelimitly.com"

static fake_dns_t dns;

static int reset_dns(void **state) {
    (void)state;
    memset(&dns, 0, sizeof dns);
    return 0;
}

static void assert_v4(const r_addr_t *a, uint8_t last, uint16_t port) {
    assert_int_equal(a->family, R_ADDR_INET);
    assert_int_equal(a->addr[0], 203);
    assert_int_equal(a->addr[1], 0);
    assert_int_equal(a->addr[2], 113);
    assert_int_equal(a->addr[3], last);
    assert_int_equal(a->port, port);
}

/* ---- creation and the first discovery ------------------------------------------ */

static void test_default_name_starts_srv_lookup(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, NULL, NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_string_equal(dns.srv_name, DEFAULT_SRV);
    assert_int_equal(dns.addr_calls, 0);
    dh_teardown(h, &dns);
}

static void test_override_name_starts_srv_lookup(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, "staging.example.net", NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_string_equal(dns.srv_name, "_ratelimitly._udp.staging.example.net");
    dh_teardown(h, &dns);
}

static void test_override_trailing_dot_is_dropped(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, "staging.example.net.", NULL);
    assert_string_equal(dns.srv_name, "_ratelimitly._udp.staging.example.net");
    dh_teardown(h, &dns);
}

/* r_client.h: an unusable DNS name is a create-time RCLIENT_ERR_CONFIG. */
static void test_invalid_override_name_is_config(void **state) {
    (void)state;
    fh_t *h = dh_host(R_AUTH_NONE);
    assert_int_equal(dh_create(h, &dns, "bad..example.net", NULL), RCLIENT_ERR_CONFIG);
    assert_null(h->client);
    assert_int_equal(dns.srv_calls, 0);
    fh_teardown(h);
}

/* ---- tenant name length (api.md "Errors", "DNS Refresh") ------------------------- */

/* A tenant name of n bytes, labels of at most 63 bytes. */
static void long_name(char *out, size_t n) {
    memset(out, 'a', n);
    for (size_t i = 63; i < n; i += 64) {
        out[i] = '.';
    }
    out[n] = '\0';
}

/* 235 bytes: the SRV query name is 18 + 235 = 253 bytes, the DNS maximum. */
static void test_longest_tenant_name_is_looked_up(void **state) {
    (void)state;
    char name[240];
    long_name(name, 235);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, name, NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_int_equal(strlen(dns.srv_name), 253);
    assert_memory_equal(dns.srv_name, "_ratelimitly._udp.", 18);
    assert_string_equal(dns.srv_name + 18, name);
    dh_teardown(h, &dns);
}

/* 236 bytes would make a 254-byte query name: creation succeeds (it never
 * fails because of discovery), nothing is looked up, submit and report
 * return RCLIENT_ERR_DNS. */
static fh_t *setup_overlong(const char *name) {
    dns.srv_mode = FAKE_AT_ONCE;
    fh_t *h = dh_host(R_AUTH_NONE);
    assert_int_equal(dh_create(h, &dns, name, NULL), RCLIENT_OK);
    assert_non_null(h->client);
    assert_int_equal(dns.srv_calls, 0);
    return h;
}

static void test_overlong_tenant_name_is_dns_at_submit(void **state) {
    (void)state;
    char name[240];
    long_name(name, 236);
    fh_t *h = setup_overlong(name);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    assert_null(req);
    assert_int_equal(dns.srv_calls, 0);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    dh_teardown(h, &dns);
}

static void test_overlong_tenant_name_is_dns_at_report(void **state) {
    (void)state;
    char name[240];
    long_name(name, 236);
    fh_t *h = setup_overlong(name);
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    r.buffer_size = 32;
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_DNS);
    assert_int_equal(dns.srv_calls, 0);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

/* A label over 63 bytes (RFC 1035 2.3.4) cannot be looked up either. */
static void test_overlong_label_is_dns_at_submit(void **state) {
    (void)state;
    char name[80];
    memset(name, 'a', 64);
    strcpy(name + 64, ".example.net");
    fh_t *h = setup_overlong(name);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 0);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

static void test_dns_mode_without_resolver_is_config(void **state) {
    (void)state;
    fh_t *h = dh_host(R_AUTH_NONE);
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = h->key;
    r_io_ops_t io = {.ctx = h, .udp_send = dh_udp_send, .now_ms = fh_now, .random = fh_random};
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_ERR_CONFIG);
    assert_null(h->client);
    fh_teardown(h);
}

static void test_create_survives_refused_srv_lookup(void **state) {
    (void)state;
    dns.srv_mode = FAKE_REFUSE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_int_equal(r_client_server_count(h->client), 0);
    dh_teardown(h, &dns);
}

static void test_create_survives_failed_srv_answer(void **state) {
    (void)state;
    dns.srv_mode = FAKE_AT_ONCE;
    dns.srv_status = 2;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(r_client_server_count(h->client), 0);
    dh_teardown(h, &dns);
}

static void test_submit_before_first_answer_is_dns(void **state) {
    (void)state;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    assert_null(req);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->completions, 0);
    assert_int_equal(dns.srv_calls, 1); /* the first discovery is still in flight */
    dh_teardown(h, &dns);
}

/* api.md "DNS Refresh": a submit that finds zero servers forces a refresh. */
static void test_submit_without_servers_forces_refresh(void **state) {
    (void)state;
    dns.srv_mode = FAKE_REFUSE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    dns.srv_mode = FAKE_LATER;
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    assert_int_equal(dns.srv_calls, 2);
    dh_teardown(h, &dns);
}

/* With a synchronous resolver the forced refresh of a submit that found no
 * server completes inside the call, and the same submit goes out. */
static void test_submit_heals_with_synchronous_refresh(void **state) {
    (void)state;
    dns.srv_mode = FAKE_REFUSE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
    dh_zone_two(&dns, 0);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_OK);
    assert_non_null(req);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(h->n_sends, 2);
    dh_teardown(h, &dns);
}

static void test_address_lookups_follow_srv_answer(void **state) {
    (void)state;
    dh_zone_two(&dns, 0);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    fake_dns_answer_srv(&dns, 0);
    assert_int_equal(dns.addr_calls, 2);
    assert_string_equal(dns.addr_host[0], DH_T2);
    assert_string_equal(dns.addr_host[1], DH_T1);
    assert_int_equal(r_client_server_count(h->client), 0); /* not before every answer */
    fake_dns_answer_addr(&dns, 0);
    assert_int_equal(r_client_server_count(h->client), 0);
    fake_dns_answer_addr(&dns, 1);
    assert_int_equal(r_client_server_count(h->client), 2);
    dh_teardown(h, &dns);
}

/* Members are ranked oldest first (ascending server_id), not in SRV order. */
static void test_request_fans_out_to_discovered_servers(void **state) {
    (void)state;
    dh_zone_two(&dns, 0);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    dh_answer_discovery(&dns, 0);
    fh_submit(h);
    assert_int_equal(h->n_sends, 2);
    assert_v4(&dh_to[0], 10, DH_PORT1);
    assert_v4(&dh_to[1], 11, DH_PORT2);
    assert_memory_equal(h->sends[0].data, h->sends[1].data, h->sends[0].len);
    dh_teardown(h, &dns);
}

static void test_srv_port_is_authoritative(void **state) {
    (void)state;
    fake_dns_add_srv(&dns, DH_T1, DH_PORT1, 0);
    r_addr_t a = fake_v4(203, 0, 113, 10);
    a.port = 4444;
    fake_dns_add_a(&dns, DH_T1, a);
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    fh_submit(h);
    assert_int_equal(h->n_sends, 1);
    assert_v4(&dh_to[0], 10, DH_PORT1);
    dh_teardown(h, &dns);
}

/* Rank from the s-<id> labels: T1 (listed second) is the oldest. */
static void test_oldest_first_ranking_from_labels(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    fh_submit(h);
    h->now = T0 + 2;
    assert_int_equal(fh_allow(h, 1), RCLIENT_OK); /* ID2: younger, waits */
    assert_int_equal(h->completions, 0);
    h->now = T0 + 3;
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK); /* ID1: oldest, selected at once */
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, DH_ID1);
    assert_int_equal(h->completed_at, T0 + 3);
    dh_teardown(h, &dns);
}

static void test_sync_resolver_inside_create(void **state) {
    (void)state;
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
    dh_zone_two(&dns, 0);
    fh_t *h = dh_setup(R_AUTH_AES, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.srv_calls, 1);
    assert_int_equal(dns.addr_calls, 2);
    assert_int_equal(r_client_server_count(h->client), 2);
    fh_submit(h);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, DH_ID1);
    dh_teardown(h, &dns);
}

/* ---- conforming targets (r-client.md 3.1) --------------------------------------- */

static void zone_one_conforming(void) {
    fake_dns_add_srv(&dns, "srv-1048578.rl2.example.com.", DH_PORT2, 0);
    fake_dns_add_srv(&dns, DH_T1, DH_PORT1, 0);
    fake_dns_add_a(&dns, "srv-1048578.rl2.example.com.", fake_v4(203, 0, 113, 11));
    fake_dns_add_a(&dns, DH_T1, fake_v4(203, 0, 113, 10));
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
}

static void test_nonconforming_target_is_not_a_member(void **state) {
    (void)state;
    zone_one_conforming();
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.addr_calls, 1);
    assert_string_equal(dns.addr_host[0], DH_T1);
    assert_int_equal(r_client_server_count(h->client), 1);
    fh_submit(h);
    assert_int_equal(h->n_sends, 1);
    assert_int_equal(dh_to[0].port, DH_PORT1);
    dh_teardown(h, &dns);
}

static void test_response_from_nonmember_is_untrusted(void **state) {
    (void)state;
    zone_one_conforming();
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    r_client_req_t *req = fh_submit(h);
    uint64_t deadline = r_client_request_deadline_ms(h->client, req);
    fh_reply_t foreign = {.keep_port = 1, .current_latency = 5, .server_id = DH_ID2};
    assert_int_equal(fh_reply(h, 0, &foreign), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), deadline);
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK);
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, DH_ID1);
    dh_teardown(h, &dns);
}

static void test_only_nonconforming_targets_is_dns(void **state) {
    (void)state;
    fake_dns_add_srv(&dns, "rl1.example.com.", DH_PORT1, 0);
    fake_dns_add_srv(&dns, "s-01015809.rl1.example.com.", DH_PORT1, 0); /* leading zero */
    fake_dns_add_a(&dns, "rl1.example.com.", fake_v4(203, 0, 113, 10));
    dns.srv_mode = FAKE_AT_ONCE;
    dns.addr_mode = FAKE_AT_ONCE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.addr_calls, 0);
    assert_int_equal(r_client_server_count(h->client), 0);
    r_client_req_t *req = NULL;
    assert_int_equal(dh_submit_rc(h, &req), RCLIENT_ERR_DNS);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

/* ---- membership snapshots (r-client.md 9.4) -------------------------------------- */

/* Installed {ID1, ID2} at T0; req1 submitted at T0+1000 while a refresh is in
 * flight; the refresh then installs {ID2, ID3}. Returns req1. */
static r_client_req_t *submit_then_replace_membership(fh_t *h) {
    h->now = T0 + 1000;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    assert_int_equal(dns.srv_calls, 2);
    r_client_req_t *req1 = fh_submit(h);
    assert_int_equal(h->n_sends, 2);
    dh_zone_clear(&dns);
    fake_dns_add_srv(&dns, DH_T2, DH_PORT2, 0);
    fake_dns_add_srv(&dns, DH_T3, DH_PORT3, 0);
    fake_dns_add_a(&dns, DH_T2, fake_v4(203, 0, 113, 11));
    fake_dns_add_a(&dns, DH_T3, fake_v4(203, 0, 113, 12));
    h->now = T0 + 1001;
    dh_answer_discovery(&dns, 1);
    assert_int_equal(r_client_server_count(h->client), 2);
    return req1;
}

static void test_request_keeps_its_snapshot_after_refresh(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    r_client_req_t *req1 = submit_then_replace_membership(h);
    h->now = T0 + 1003;
    assert_int_equal(fh_allow(h, 0), RCLIENT_OK); /* ID1, removed from the new membership */
    assert_int_equal(h->completions, 1);
    assert_ptr_equal(h->completed_req, req1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_int_equal(h->server_id, DH_ID1);
    dh_teardown(h, &dns);
}

static void test_new_request_uses_new_membership(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    submit_then_replace_membership(h);
    h->now = T0 + 1002;
    fh_submit(h);
    assert_int_equal(h->n_sends, 4);
    assert_int_equal(h->sends[2].server, 1); /* ID2 */
    assert_int_equal(h->sends[3].server, 2); /* ID3 */
    assert_v4(&dh_to[3], 12, DH_PORT3);
    dh_teardown(h, &dns);
}

static void test_removed_server_untrusted_for_new_request(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    submit_then_replace_membership(h);
    h->now = T0 + 1002;
    r_client_req_t *req2 = fh_submit(h);
    fh_reply_t from_id1 = {.keep_port = 1, .current_latency = 5, .server_id = DH_ID1};
    assert_int_equal(fh_reply(h, 2, &from_id1), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(fh_allow(h, 2), RCLIENT_OK); /* ID2: oldest of req2's snapshot */
    assert_int_equal(h->completions, 1);
    assert_ptr_equal(h->completed_req, req2);
    assert_int_equal(h->server_id, DH_ID2);
    dh_teardown(h, &dns);
}

/* ---- answers after r_client_destroy (r_client_io.h) -------------------------------- */

static void test_srv_answer_after_destroy_is_harmless(void **state) {
    (void)state;
    dh_zone_two(&dns, 0);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    fh_teardown(h);
    fake_dns_answer_srv(&dns, 0); /* a real answer: nothing may start */
    assert_int_equal(dns.addr_calls, 0);
}

static void test_addr_answers_after_destroy_are_harmless(void **state) {
    (void)state;
    dh_zone_two(&dns, 0);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    fake_dns_answer_srv(&dns, 0);
    assert_int_equal(dns.addr_calls, 2);
    fh_teardown(h);
    /* the host name handed to resolve_addr outlives the client until answered */
    assert_string_equal(dns.addr_host_ptr[0], DH_T2);
    assert_string_equal(dns.addr_host_ptr[1], DH_T1);
    fake_dns_answer_addr(&dns, 1);
    fake_dns_answer_addr(&dns, 0);
}

static void test_refresh_answers_after_destroy_are_harmless(void **state) {
    (void)state;
    fh_t *h = dh_setup_two(R_AUTH_NONE, &dns, NULL, 0);
    h->now = T0 + 1000;
    assert_int_equal(r_client_refresh_dns(h->client), RCLIENT_OK);
    fh_submit(h); /* an in-flight request is cancelled by destroy */
    fh_teardown(h);
    dh_answer_discovery(&dns, 1);
    assert_int_equal(dns.addr_calls, 2); /* nothing started after destroy */
}

#define T(f) cmocka_unit_test_setup(f, reset_dns)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_default_name_starts_srv_lookup),
        T(test_override_name_starts_srv_lookup),
        T(test_override_trailing_dot_is_dropped),
        T(test_invalid_override_name_is_config),
        T(test_longest_tenant_name_is_looked_up),
        T(test_overlong_tenant_name_is_dns_at_submit),
        T(test_overlong_tenant_name_is_dns_at_report),
        T(test_overlong_label_is_dns_at_submit),
        T(test_dns_mode_without_resolver_is_config),
        T(test_create_survives_refused_srv_lookup),
        T(test_create_survives_failed_srv_answer),
        T(test_submit_before_first_answer_is_dns),
        T(test_submit_without_servers_forces_refresh),
        T(test_submit_heals_with_synchronous_refresh),
        T(test_address_lookups_follow_srv_answer),
        T(test_request_fans_out_to_discovered_servers),
        T(test_srv_port_is_authoritative),
        T(test_oldest_first_ranking_from_labels),
        T(test_sync_resolver_inside_create),
        T(test_nonconforming_target_is_not_a_member),
        T(test_response_from_nonmember_is_untrusted),
        T(test_only_nonconforming_targets_is_dns),
        T(test_request_keeps_its_snapshot_after_refresh),
        T(test_new_request_uses_new_membership),
        T(test_removed_server_untrusted_for_new_request),
        T(test_srv_answer_after_destroy_is_harmless),
        T(test_addr_answers_after_destroy_are_harmless),
        T(test_refresh_answers_after_destroy_are_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
