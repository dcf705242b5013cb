/* SPDX-License-Identifier: MIT */
/* test_server_reason.c - reference server: the reason a dropped datagram
 * carries (sim_server_result_t.why, sim_server_reason_text), and the forced
 * deny hook. Expected texts name the wire_protocol.md field and rule broken:
 * "Tenant Header" (tlv_size 40, padding 0), "Auth Header" (none 4, cookie 36
 * bytes), "General PDU Format" (pdu_size), "Rate Request" (dedup_ttl_ms),
 * "Resource Blocks" (live bucket settings). */
#include "sim_server_test_util.h"

#define OFF_RES 56u /* none mode, no guard: 40 tenant + 4 auth + 12 PDU header */

typedef struct {
    tu_fix_t *f;
    uint8_t buf[1300];
    size_t len;
    r_resource_request_t r;
} req_t;

static void req_init(req_t *q, uint32_t n) {
    r_api_key_quotas_t quotas = tu_default_quotas();
    sim_server_params_t p = tu_params();
    q->f = tu_fix_new(R_AUTH_NONE, &quotas, &p);
    q->r = tu_resource("api", 1000, 10, 1);
    uint8_t uid[16];
    tu_uid(uid, n);
    q->len = tu_encode(&q->f->k, q->buf, uid, TU_T0, 60, NULL, 0, &q->r, 1, NULL);
}

/* Handle q's datagram and check the verdict and the reason text. */
static void expect_reason(req_t *q, size_t len, sim_server_verdict_t verdict, const char *text) {
    tu_out_t o;
    assert_int_equal(tu_handle(q->f->s, TU_T0, q->buf, len, &o), verdict);
    char got[200];
    sim_server_reason_text(&o.result.why, got, sizeof got);
    assert_string_equal(got, text);
}

static void test_tenant_tlv_size(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    q.buf[2] = 36;
    expect_reason(&q, q.len, SIM_SRV_DROP_MALFORMED, "tenant TLV: tlv_size 36, want 40");
    tu_fix_free(q.f);
}

static void test_tenant_padding(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    q.buf[38] = 1;
    expect_reason(&q, q.len, SIM_SRV_DROP_MALFORMED, "tenant TLV: padding 1, want 0");
    tu_fix_free(q.f);
}

static void test_truncated_datagram(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    expect_reason(&q, 30, SIM_SRV_DROP_MALFORMED,
                  "datagram: length 30, min 44 (tenant TLV 40 + auth TLV header 4)");
    tu_fix_free(q.f);
}

static void test_auth_size_of_type(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    q.buf[40] = 0x43; /* 0x4143 cookie, still 4 bytes long */
    expect_reason(&q, q.len, SIM_SRV_DROP_MALFORMED, "auth TLV: tlv_size 4, want 36");
    tu_fix_free(q.f);
}

static void test_unknown_key(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    q.buf[4] ^= 1u; /* key_id 0x1234 -> 0x1235 */
    expect_reason(&q, q.len, SIM_SRV_DROP_TENANT, "tenant TLV: key_id 4661 (no tenant with this key_id)");
    tu_fix_free(q.f);
}

static void test_pdu_size(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    q.buf[44 + 2] = (uint8_t)(q.buf[44 + 2] + 4u); /* pdu_size 40 -> 44 */
    expect_reason(&q, q.len, SIM_SRV_DROP_MALFORMED, "PDU: pdu_size 44, want 40 (the bytes after the auth TLV)");
    tu_fix_free(q.f);
}

static void test_dedup_ttl_zero(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    memset(q.buf + 48, 0, 4);
    expect_reason(&q, q.len, SIM_SRV_DROP_DEDUP_TTL, "rate request: dedup_ttl_ms 0, min 1");
    tu_fix_free(q.f);
}

static void test_live_bucket_mismatch(void **state) {
    (void)state;
    req_t q;
    req_init(&q, 1);
    expect_reason(&q, q.len, SIM_SRV_ANSWERED, ""); /* binds the bucket: limit 10 */
    req_t q2;
    req_init(&q2, 2);
    sim_server_free(q2.f->s);
    q2.f->s = q.f->s;
    q2.buf[OFF_RES + 20] = 11; /* the same bucket_id presented with rate_limit 11 */
    expect_reason(&q2, q2.len, SIM_SRV_DROP_MISMATCH,
                  "resources[0]: rate_limit 11, want 10 (the live bucket with this bucket_id has other settings)");
    q2.f->s = NULL;
    tu_fix_free(q2.f);
    tu_fix_free(q.f);
}

static void test_text_truncates(void **state) {
    (void)state;
    sim_server_reason_t r = {.where = "tenant TLV", .field = "tlv_size", .got = 36, .rel = "want", .want = 40};
    char small[12];
    assert_int_equal(sim_server_reason_text(&r, small, sizeof small), 11);
    assert_string_equal(small, "tenant TLV:");
    sim_server_reason_t none = {0};
    assert_int_equal(sim_server_reason_text(&none, small, sizeof small), 0);
    assert_string_equal(small, "");
}

/* Forced deny: a request the bucket could grant is denied with deficit =
 * tokens_requested and nothing consumed; turned off, it is granted again. */
static void test_forced_deny(void **state) {
    (void)state;
    r_api_key_quotas_t quotas = tu_default_quotas();
    sim_server_params_t p = tu_params();
    tu_fix_t *f = tu_fix_new(R_AUTH_AES, &quotas, &p);
    r_resource_request_t r = tu_resource("api", 1000, 10, 3);
    uint16_t deficit = 0;
    sim_server_set_forced_deny(f->s, true);
    assert_int_equal(tu_take(f, TU_T0, 1, &r, &deficit), 0);
    assert_int_equal(deficit, 3);
    sim_server_set_forced_deny(f->s, false);
    assert_int_equal(tu_take(f, TU_T0, 2, &r, &deficit), 3);
    assert_int_equal(deficit, 0);
    tu_fix_free(f);
}

static void test_forced_deny_guard(void **state) {
    (void)state;
    r_api_key_quotas_t quotas = tu_default_quotas();
    sim_server_params_t p = tu_params();
    tu_fix_t *f = tu_fix_new(R_AUTH_NONE, &quotas, &p);
    r_latency_guard_t g = tu_guard("db", 100, 1000, 10, 8, 1);
    tu_out_t o;
    tu_parsed_t parsed;
    sim_server_set_forced_deny(f->s, true);
    assert_int_equal(tu_send(f, TU_T0, 1, &g, 1, NULL, 0, &o, &parsed), SIM_SRV_ANSWERED);
    assert_false(o.result.allowed);
    assert_int_equal(tu_guard_at(&parsed, 0).current_latency, 100);
    tu_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tenant_tlv_size),   cmocka_unit_test(test_tenant_padding),
        cmocka_unit_test(test_truncated_datagram), cmocka_unit_test(test_auth_size_of_type),
        cmocka_unit_test(test_unknown_key),       cmocka_unit_test(test_pdu_size),
        cmocka_unit_test(test_dedup_ttl_zero),    cmocka_unit_test(test_live_bucket_mismatch),
        cmocka_unit_test(test_text_truncates),    cmocka_unit_test(test_forced_deny),
        cmocka_unit_test(test_forced_deny_guard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
