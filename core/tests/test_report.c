/* SPDX-License-Identifier: MIT */
/* r_client_report_latency through the public API and a fake host (api.md
 * "Reporting measured work"; r-client.md 6.2.2, 7.2; wire_protocol.md
 * "Latency Report PDU"). Three explicit servers A, B, C; the key's
 * latency_buffer_size_max is 32 (quota word 0xf8f2b150). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fake_dns_host.h"

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0
#define QUOTA_BUFFER 32u
#define MAX_TEST_REPORTS 40

/* Report i: distinct values in every field. */
static r_service_latency_report_t report_n(uint32_t i, uint32_t buffer_size) {
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    for (uint32_t k = 0; k < R_CLIENT_ID_LEN; k++) {
        r.latency_tracker_id[k] = (uint8_t)(0x11u * (i + 1u) + k);
    }
    r.ttl_ms = 10000u + i;
    r.max_samples = 100u + i;
    r.buffer_size = buffer_size;
    r.min_sample_threshold = 5u + i;
    r.observed_latency = 40u + i;
    return r;
}

static void fill_reports(r_service_latency_report_t *r, size_t n) {
    for (size_t i = 0; i < n; i++) {
        r[i] = report_n((uint32_t)i, QUOTA_BUFFER);
    }
}

static size_t pdu_off(r_auth_type_t mode) {
    return RL_TENANT_TLV_SIZE + rl_auth_tlv_size(mode);
}

/* Authenticate (and for AES decrypt) captured send idx with the servers' key. */
static size_t open_send(fh_t *h, size_t idx, uint8_t *out) {
    const char *why = NULL;
    memcpy(out, h->sends[idx].data, h->sends[idx].len);
    assert_int_equal(rl_auth_open(&h->server_auth, out, h->sends[idx].len, &why), RCLIENT_OK);
    return h->sends[idx].len;
}

/* The datagram rl_encode_latency_report + rl_auth_seal produce for these
 * reports under the captured send's header and nonce. */
static size_t expected_datagram(fh_t *h, size_t idx, const r_service_latency_report_t *reports, size_t n,
                                uint8_t *out) {
    const uint8_t *d = h->sends[idx].data;
    rl_tenant_header_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.key_id = rl_load_u64(d + RL_TENANT_OFF_KEY_ID);
    memcpy(hdr.unique_id, d + RL_TENANT_OFF_UNIQUE_ID, 16);
    hdr.time_stamp_ms = rl_load_u64(d + RL_TENANT_OFF_TIME_STAMP);
    hdr.steering_feedback = 1;
    size_t len = 0;
    assert_int_equal(rl_encode_latency_report(out, RL_MAX_DATAGRAM, h->mode, &hdr, reports, n, &len), RCLIENT_OK);
    const uint8_t *nonce = d + RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE; /* used by AES only */
    assert_int_equal(rl_auth_seal(&h->server_auth, out, len, nonce), RCLIENT_OK);
    return len;
}

static void assert_block(const uint8_t *p, const r_service_latency_report_t *r) {
    assert_memory_equal(p, r->latency_tracker_id, R_CLIENT_ID_LEN);
    assert_int_equal(rl_load_u32(p + 16), r->ttl_ms);
    assert_int_equal(rl_load_u32(p + 20), r->max_samples);
    assert_int_equal(rl_load_u32(p + 24), r->buffer_size);
    assert_int_equal(rl_load_u32(p + 28), r->min_sample_threshold);
    assert_int_equal(rl_load_u32(p + 32), r->observed_latency);
}

/* Decode captured send idx and check it carries exactly reports[0..n). */
static void assert_report_pdu(fh_t *h, size_t idx, const r_service_latency_report_t *reports, size_t n) {
    uint8_t buf[RL_MAX_DATAGRAM];
    size_t len = open_send(h, idx, buf);
    const uint8_t *pdu = buf + pdu_off(h->mode);
    assert_int_equal(len, pdu_off(h->mode) + 12u + 36u * n);
    assert_int_equal(rl_load_u16(pdu), RL_PDU_LATENCY_REPORT);
    assert_int_equal(rl_load_u16(pdu + 2), 12u + 36u * n);
    assert_int_equal(rl_load_u16(pdu + 4), 0);
    assert_int_equal(rl_load_u16(pdu + 6), 0);
    assert_int_equal(rl_load_u16(pdu + 8), n);
    assert_int_equal(rl_load_u16(pdu + 10), 0);
    for (size_t i = 0; i < n; i++) {
        assert_block(pdu + 12 + 36 * i, &reports[i]);
    }
}

/* Capacity: n reports within quota give want; on PROTOCOL nothing is sent. */
static void check_capacity(r_auth_type_t mode, size_t n, int want) {
    fh_t *h = fh_setup(mode, NULL, 3);
    r_service_latency_report_t r[MAX_TEST_REPORTS];
    fill_reports(r, n);
    assert_int_equal(r_client_report_latency(h->client, r, n), want);
    if (want == RCLIENT_OK) {
        assert_int_equal(h->n_sends, 3);
        assert_int_equal(h->sends[0].len, pdu_off(mode) + 12u + 36u * n);
        assert_report_pdu(h, 0, r, n);
    } else {
        assert_int_equal(h->n_sends, 0);
    }
    fh_teardown(h);
}

/* ---- fan-out and encoding ------------------------------------------------- */

static void test_one_datagram_to_every_known_server(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_service_latency_report_t r[2];
    fill_reports(r, 2);
    assert_int_equal(r_client_report_latency(h->client, r, 2), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(h->sends[0].server, A);
    assert_int_equal(h->sends[1].server, B);
    assert_int_equal(h->sends[2].server, C);
    assert_int_equal(h->sends[1].len, h->sends[0].len);
    assert_int_equal(h->sends[2].len, h->sends[0].len);
    assert_memory_equal(h->sends[1].data, h->sends[0].data, h->sends[0].len);
    assert_memory_equal(h->sends[2].data, h->sends[0].data, h->sends[0].len);
    fh_teardown(h);
}

static void test_datagram_is_exactly_the_encoded_report(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_service_latency_report_t r[3];
    fill_reports(r, 3);
    assert_int_equal(r_client_report_latency(h->client, r, 3), RCLIENT_OK);
    uint8_t want[RL_MAX_DATAGRAM];
    size_t len = expected_datagram(h, 0, r, 3, want);
    assert_int_equal(h->sends[0].len, len);
    assert_memory_equal(h->sends[0].data, want, len);
    fh_teardown(h);
}

static void test_decoded_pdu_carries_every_block(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_service_latency_report_t r[2];
    fill_reports(r, 2);
    assert_int_equal(r_client_report_latency(h->client, r, 2), RCLIENT_OK);
    assert_int_equal(h->sends[0].len, 44u + 84u); /* pdu_size = 12 + 36 * 2 */
    assert_report_pdu(h, 0, r, 2);
    fh_teardown(h);
}

static void test_tenant_header_of_report(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    h->now = T0 + 123;
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    const uint8_t *d = h->sends[0].data;
    assert_int_equal(rl_load_u16(d), RL_TLV_TENANT);
    assert_int_equal(rl_load_u64(d + RL_TENANT_OFF_KEY_ID), 72623859790382856ull);
    assert_int_equal(rl_load_u64(d + RL_TENANT_OFF_TIME_STAMP), T0 + 123);
    assert_int_equal(d[RL_TENANT_OFF_STEERING], 1);
    assert_int_equal(d[RL_TENANT_OFF_MGMT], 0);
    assert_int_equal(d[RL_TENANT_OFF_UNIQUE_ID + 6] & 0xF0u, 0x40u); /* UUIDv4 version */
    fh_teardown(h);
}

static void test_aes_report_opens_with_the_key(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_service_latency_report_t r = report_n(4, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    const uint8_t *pdu = h->sends[0].data + pdu_off(R_AUTH_AES);
    assert_int_not_equal(rl_load_u16(pdu), RL_PDU_LATENCY_REPORT); /* ciphertext on the wire */
    assert_report_pdu(h, 0, &r, 1);
    fh_teardown(h);
}

static void test_aes_report_tampered_fails_to_open(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 3);
    r_service_latency_report_t r = report_n(4, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    uint8_t buf[RL_MAX_DATAGRAM];
    memcpy(buf, h->sends[0].data, h->sends[0].len);
    buf[pdu_off(R_AUTH_AES) + 20] ^= 0x01u;
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&h->server_auth, buf, h->sends[0].len, &why), RCLIENT_ERR_PROTOCOL);
    fh_teardown(h);
}

/* ---- request identity ------------------------------------------------------ */

static void test_fresh_unique_id_per_call(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 1);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 2);
    assert_memory_not_equal(h->sends[0].data + RL_TENANT_OFF_UNIQUE_ID, h->sends[1].data + RL_TENANT_OFF_UNIQUE_ID,
                            16);
    fh_teardown(h);
}

/* Each AES report is sealed under a fresh nonce (wire_protocol.md "AES-256-GCM
 * Normative Framing": a nonce MUST be unique per key), distinct from the
 * nonce of a request sealed before it. */
static void test_each_aes_report_gets_distinct_nonce(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_AES, NULL, 1);
    fh_submit(h);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    const size_t off = RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE;
    assert_memory_not_equal(h->sends[0].data + off, h->sends[1].data + off, RL_AES_NONCE_LEN);
    assert_memory_not_equal(h->sends[1].data + off, h->sends[2].data + off, RL_AES_NONCE_LEN);
    fh_teardown(h);
}

/* A random source that repeats the in-flight request's draw: the report must
 * still get a request identity of its own (api.md: "a fresh request identity
 * per call"), or servers would deduplicate one against the other. */
static void test_unique_id_distinct_from_inflight_request(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 1);
    uint64_t before = h->rng_counter;
    fh_submit(h);
    h->rng_counter = before; /* the next draw repeats the request's unique_id */
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 2);
    assert_memory_not_equal(h->sends[0].data + RL_TENANT_OFF_UNIQUE_ID, h->sends[1].data + RL_TENANT_OFF_UNIQUE_ID,
                            16);
    fh_teardown(h);
}

/* ---- quota filtering -------------------------------------------------------- */

static void test_over_quota_reports_filtered_rest_sent(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_service_latency_report_t r[3] = {report_n(0, QUOTA_BUFFER), report_n(1, QUOTA_BUFFER + 1u), report_n(2, 1)};
    assert_int_equal(r_client_report_latency(h->client, r, 3), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    r_service_latency_report_t kept[2] = {r[0], r[2]};
    assert_report_pdu(h, 0, kept, 2);
    uint8_t want[RL_MAX_DATAGRAM];
    size_t len = expected_datagram(h, 0, kept, 2, want);
    assert_int_equal(h->sends[0].len, len);
    assert_memory_equal(h->sends[0].data, want, len);
    fh_teardown(h);
}

static void test_all_filtered_returns_ok_and_sends_nothing(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_service_latency_report_t r[2] = {report_n(0, QUOTA_BUFFER + 1u), report_n(1, 65536)};
    uint64_t rng_before = h->rng_counter;
    assert_int_equal(r_client_report_latency(h->client, r, 2), RCLIENT_OK);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(h->rng_counter, rng_before); /* no request identity drawn */
    fh_teardown(h);
}

/* The capacity limit applies to the surviving reports. */
static void test_capacity_counts_reports_after_filtering(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_service_latency_report_t r[31];
    fill_reports(r, 31);
    r[7].buffer_size = QUOTA_BUFFER + 1u;
    assert_int_equal(r_client_report_latency(h->client, r, 31), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    assert_int_equal(rl_load_u16(h->sends[0].data + pdu_off(R_AUTH_COOKIE) + 8), 30);
    fh_teardown(h);
}

/* ---- argument errors ---------------------------------------------------------- */

static void test_zero_reports_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 0), RCLIENT_ERR_CONFIG);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_null_reports_is_config(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_NONE, NULL, 3);
    assert_int_equal(r_client_report_latency(h->client, NULL, 1), RCLIENT_ERR_CONFIG);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

static void test_null_client_is_config(void **state) {
    (void)state;
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(NULL, &r, 1), RCLIENT_ERR_CONFIG);
}

/* ---- one-datagram capacity (api.md: 30 per call fits either auth mode) ------- */

static void test_cookie_30_reports_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_COOKIE, 30, RCLIENT_OK); /* 88 + 1080 = 1168 bytes */
}

static void test_cookie_31_reports_do_not_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_COOKIE, 31, RCLIENT_ERR_PROTOCOL); /* 1204 bytes */
}

static void test_aes_31_reports_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_AES, 31, RCLIENT_OK); /* 84 + 1116 = 1200 bytes */
}

static void test_aes_32_reports_do_not_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_AES, 32, RCLIENT_ERR_PROTOCOL);
}

static void test_none_31_reports_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_NONE, 31, RCLIENT_OK); /* 56 + 1116 = 1172 bytes */
}

static void test_none_32_reports_do_not_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_NONE, 32, RCLIENT_ERR_PROTOCOL); /* 1208 bytes */
}

static void test_forty_reports_do_not_fit(void **state) {
    (void)state;
    check_capacity(R_AUTH_NONE, 40, RCLIENT_ERR_PROTOCOL);
}

/* ---- failures ------------------------------------------------------------------ */

/* DNS-mode client whose resolver never answers: no server is known. */
static void test_no_servers_is_dns(void **state) {
    (void)state;
    fake_dns_t dns;
    memset(&dns, 0, sizeof dns);
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_DNS);
    assert_int_equal(h->n_sends, 0);
    assert_int_equal(dns.srv_calls, 1); /* the first discovery is still in flight */
    dh_teardown(h, &dns);
}

/* api.md "DNS Refresh": a report that finds zero servers forces a refresh. */
static void test_no_servers_forces_refresh(void **state) {
    (void)state;
    fake_dns_t dns;
    memset(&dns, 0, sizeof dns);
    dns.srv_mode = FAKE_REFUSE;
    fh_t *h = dh_setup(R_AUTH_NONE, &dns, DH_ZONE, NULL);
    assert_int_equal(dns.srv_calls, 1);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_DNS);
    assert_int_equal(dns.srv_calls, 2);
    assert_int_equal(h->n_sends, 0);
    dh_teardown(h, &dns);
}

static void test_random_failure_is_auth_and_sends_nothing(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->rng_fail = true;
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_AUTH);
    assert_int_equal(h->n_sends, 0);
    fh_teardown(h);
}

/* r-client.md 6.2.2: a report is sent "once to every server currently
 * known"; best effort (r-client.md 9.3 "Delivery"): a send refused towards B
 * still reaches C, and the report is not failed (docs/spec-notes.md). */
static void test_send_failure_to_one_member_still_reaches_the_others(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->fail_send_at = 1; /* the send to server B */
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 2);
    assert_int_equal(h->sends[0].server, A);
    assert_int_equal(h->sends[1].server, C);
    assert_int_equal(h->warn_logs, 1);
    fh_teardown(h);
}

/* api.md "Reporting measured work": RCLIENT_ERR_IO when the send hook fails,
 * here when no member could be sent to; the next report works. */
static void test_report_refused_by_every_member_is_io(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    h->fail_servers = 7u;
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_ERR_IO);
    assert_int_equal(h->n_sends, 0);
    h->fail_servers = 0;
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 3);
    fh_teardown(h);
}

/* ---- independence from resource requests (r-client.md 6.2.2, 6.3 rule 7) ---- */

static void test_report_leaves_inflight_request_untouched(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    uint64_t deadline = r_client_request_deadline_ms(h->client, req);
    h->now = T0 + 5;
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    assert_int_equal(h->n_sends, 6);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), deadline);
    assert_int_equal(fh_allow(h, A), RCLIENT_OK); /* the request still completes normally */
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->status, RCLIENT_OK);
    assert_int_equal(h->server_id, h->server_ids[A]);
    fh_teardown(h);
}

/* No response is expected: a valid-looking response carrying the report's
 * unique_id matches nothing and changes nothing. */
static void test_response_to_report_id_is_ignored(void **state) {
    (void)state;
    fh_t *h = fh_setup(R_AUTH_COOKIE, NULL, 3);
    r_client_req_t *req = fh_submit(h);
    uint64_t deadline = r_client_request_deadline_ms(h->client, req);
    r_service_latency_report_t r = report_n(0, QUOTA_BUFFER);
    assert_int_equal(r_client_report_latency(h->client, &r, 1), RCLIENT_OK);
    uint8_t buf[RL_MAX_DATAGRAM];
    fh_reply_t allow = {.keep_port = 1, .current_latency = 5};
    size_t len = fh_build_response(h, A, &allow, buf);
    memcpy(buf + RL_TENANT_OFF_UNIQUE_ID, h->sends[3].data + RL_TENANT_OFF_UNIQUE_ID, 16);
    assert_int_equal(r_client_on_datagram(h->client, buf, len), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    assert_int_equal(r_client_request_deadline_ms(h->client, req), deadline);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_datagram_to_every_known_server),
        cmocka_unit_test(test_datagram_is_exactly_the_encoded_report),
        cmocka_unit_test(test_decoded_pdu_carries_every_block),
        cmocka_unit_test(test_tenant_header_of_report),
        cmocka_unit_test(test_aes_report_opens_with_the_key),
        cmocka_unit_test(test_aes_report_tampered_fails_to_open),
        cmocka_unit_test(test_fresh_unique_id_per_call),
        cmocka_unit_test(test_unique_id_distinct_from_inflight_request),
        cmocka_unit_test(test_each_aes_report_gets_distinct_nonce),
        cmocka_unit_test(test_over_quota_reports_filtered_rest_sent),
        cmocka_unit_test(test_all_filtered_returns_ok_and_sends_nothing),
        cmocka_unit_test(test_capacity_counts_reports_after_filtering),
        cmocka_unit_test(test_zero_reports_is_config),
        cmocka_unit_test(test_null_reports_is_config),
        cmocka_unit_test(test_null_client_is_config),
        cmocka_unit_test(test_cookie_30_reports_fit),
        cmocka_unit_test(test_cookie_31_reports_do_not_fit),
        cmocka_unit_test(test_aes_31_reports_fit),
        cmocka_unit_test(test_aes_32_reports_do_not_fit),
        cmocka_unit_test(test_none_31_reports_fit),
        cmocka_unit_test(test_none_32_reports_do_not_fit),
        cmocka_unit_test(test_forty_reports_do_not_fit),
        cmocka_unit_test(test_no_servers_is_dns),
        cmocka_unit_test(test_no_servers_forces_refresh),
        cmocka_unit_test(test_random_failure_is_auth_and_sends_nothing),
        cmocka_unit_test(test_send_failure_to_one_member_still_reaches_the_others),
        cmocka_unit_test(test_report_refused_by_every_member_is_io),
        cmocka_unit_test(test_report_leaves_inflight_request_untouched),
        cmocka_unit_test(test_response_to_report_id_is_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
