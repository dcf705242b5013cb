/* SPDX-License-Identifier: MIT */
/* test_server_drop.c - reference server: the decoder and the blackhole
 * (wire_protocol.md "Ordering of records", "Size Field Semantics", "Tenant
 * Header", "Auth Header", "AES-256-GCM Normative Framing", "Rate Request",
 * "Metrics Label TLV Parameter", "Latency Report PDU", "rate_response PDU"),
 * the in-place response, configuration errors, and the differential check
 * against the client codec in all three auth modes. */
#include "rl_bech32.h"
#include "sim_server_test_util.h"

/* Offsets of the base none-mode request: 1 guard, 1 resource, label "lbl". */
#define OFF_PDU 44u
#define OFF_GUARD (OFF_PDU + 12u)
#define OFF_RES (OFF_GUARD + 40u)
#define OFF_LABEL (OFF_RES + 28u)
#define BASE_LEN (OFF_LABEL + 12u)

typedef struct {
    tu_fix_t *f;
    uint8_t buf[1300];
    size_t len;
    r_latency_guard_t g;
    r_resource_request_t r;
} base_t;

static void base_init(base_t *b, r_auth_type_t type) {
    r_api_key_quotas_t q = tu_default_quotas();
    sim_server_params_t p = tu_params();
    b->f = tu_fix_new(type, &q, &p);
    b->g = tu_guard("db", 100, 1000, 10, 8, 1);
    b->r = tu_resource("api", 1000, 10, 1);
    uint8_t uid[16];
    tu_uid(uid, 1);
    b->len = tu_encode(&b->f->k, b->buf, uid, TU_T0, 60, &b->g, 1, &b->r, 1, "lbl");
}

static sim_server_verdict_t send_raw(base_t *b, size_t len) {
    tu_out_t o;
    sim_server_verdict_t v = tu_handle(b->f->s, TU_T0, b->buf, len, &o);
    if (v != SIM_SRV_ANSWERED && v != SIM_SRV_REPLAYED) {
        assert_int_equal(o.len, 0); /* blackhole */
        assert_false(o.result.allowed);
    }
    return v;
}

/* Apply mutate to a fresh none-mode base and expect verdict. */
typedef void (*mutate_fn)(base_t *b);

static void expect_none(mutate_fn mutate, sim_server_verdict_t want) {
    base_t b;
    base_init(&b, R_AUTH_NONE);
    assert_int_equal(b.len, BASE_LEN);
    mutate(&b);
    assert_int_equal(send_raw(&b, b.len), want);
    tu_fix_free(b.f);
}

static void m_tenant_type(base_t *b) { b->buf[0] ^= 1u; }
static void m_tenant_size(base_t *b) { b->buf[2] = 41; }
static void m_tenant_padding(base_t *b) { b->buf[38] = 1; }
static void m_steering_reserved(base_t *b) { b->buf[36] = 2; }
static void m_mgmt_reserved(base_t *b) { b->buf[37] = 2; }
static void m_mgmt_admin(base_t *b) { b->buf[37] = 1; }
static void m_unknown_key(base_t *b) { b->buf[4] ^= 0x40u; }
static void m_auth_size_5(base_t *b) { b->buf[42] = 5; }
static void m_auth_size_3(base_t *b) { b->buf[42] = 3; }
static void m_auth_unknown_type(base_t *b) { b->buf[40] = 0x42; b->buf[41] = 0x42; }
static void m_pdu_size_up(base_t *b) { b->buf[OFF_PDU + 2]++; }
static void m_pdu_size_down(base_t *b) { b->buf[OFF_PDU + 2]--; }
static void m_pdu_type_rr(base_t *b) { b->buf[OFF_PDU] = 0x52; b->buf[OFF_PDU + 1] = 0x52; }
static void m_pdu_type_tm(base_t *b) { b->buf[OFF_PDU] = 0x4D; b->buf[OFF_PDU + 1] = 0x54; }
static void m_guard_count(base_t *b) { b->buf[OFF_PDU + 8] = 3; }
static void m_resource_count(base_t *b) { b->buf[OFF_PDU + 10] = 2; }
static void m_resource_padding(base_t *b) { b->buf[OFF_RES + 27] = 1; }
static void m_label_too_long(base_t *b) { b->buf[OFF_LABEL + 4] = 7; }
static void m_label_padding(base_t *b) { b->buf[OFF_LABEL + 9] = 'x'; }
static void m_tlv_size_3(base_t *b) { b->buf[OFF_LABEL + 2] = 3; }
static void m_tlv_size_past_end(base_t *b) { b->buf[OFF_LABEL + 2] = 16; }
static void m_trailing_byte(base_t *b) { b->buf[b->len++] = 0; }
static void m_unknown_tlv(base_t *b) { b->buf[OFF_LABEL] = 0x99; }
static void m_ignored_current_latency(base_t *b) { b->buf[OFF_GUARD + 36] = 9; }

/* The label without its optional padding (tlv_size 9, not 12). */
static void m_label_unpadded(base_t *b) {
    b->buf[OFF_LABEL + 2] = 9;
    b->buf[OFF_PDU + 2] = (uint8_t)(b->buf[OFF_PDU + 2] - 3u);
    b->len -= 3;
}

static void test_framing_violations_dropped(void **state) {
    (void)state;
    mutate_fn malformed[] = {m_tenant_type, m_tenant_size, m_tenant_padding, m_steering_reserved, m_mgmt_reserved,
                             m_auth_size_5, m_auth_size_3, m_pdu_size_up, m_pdu_size_down, m_pdu_type_rr,
                             m_pdu_type_tm, m_guard_count, m_resource_count, m_resource_padding,
                             m_label_too_long, m_label_padding, m_tlv_size_3, m_tlv_size_past_end,
                             m_trailing_byte};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        expect_none(malformed[i], SIM_SRV_DROP_MALFORMED);
    }
}

static void test_tolerated_variations_answered(void **state) {
    (void)state;
    expect_none(m_unknown_tlv, SIM_SRV_ANSWERED);
    expect_none(m_label_unpadded, SIM_SRV_ANSWERED);
    expect_none(m_ignored_current_latency, SIM_SRV_ANSWERED);
}

static void test_tenant_drops(void **state) {
    (void)state;
    expect_none(m_unknown_key, SIM_SRV_DROP_TENANT);
    expect_none(m_mgmt_admin, SIM_SRV_DROP_TENANT);
}

static void test_unknown_auth_type_is_auth_drop(void **state) {
    (void)state;
    expect_none(m_auth_unknown_type, SIM_SRV_DROP_AUTH);
}

static void test_every_truncation_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    for (size_t len = 0; len < b.len; len++) {
        assert_int_equal(send_raw(&b, len), SIM_SRV_DROP_MALFORMED);
    }
    assert_int_equal(sim_server_stats(b.f->s)->verdicts[SIM_SRV_DROP_MALFORMED], b.len);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_ANSWERED);
    tu_fix_free(b.f);
}

static void test_oversize_and_null_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    memset(b.buf + b.len, 0, sizeof b.buf - b.len);
    assert_int_equal(send_raw(&b, 1201), SIM_SRV_DROP_MALFORMED);
    size_t out_len = 7;
    assert_int_equal(sim_server_handle(b.f->s, TU_T0, NULL, 10, NULL, 0, &out_len, NULL), SIM_SRV_DROP_MALFORMED);
    assert_int_equal(out_len, 0);
    tu_fix_free(b.f);
}

static void test_report_framing(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    r_service_latency_report_t s = tu_sample(&b.g, 5);
    uint8_t uid[16];
    tu_uid(uid, 2);
    b.len = tu_report(&b.f->k, b.buf, uid, TU_T0, &s, 1);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_REPORT);
    size_t offs[3] = {OFF_PDU + 4, OFF_PDU + 6, OFF_PDU + 10}; /* reserved, reserved, padding */
    for (size_t i = 0; i < 3; i++) {
        b.buf[offs[i]] = 1;
        assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_MALFORMED);
        b.buf[offs[i]] = 0;
    }
    b.buf[OFF_PDU + 8] = 2; /* service_count 2 but one block */
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_MALFORMED);
    tu_fix_free(b.f);
}

static void test_auth_failures_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_COOKIE);
    tu_seal(&b.f->k, b.buf, b.len);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_ANSWERED);
    b.buf[40 + 4 + 5] ^= 1u; /* inside the 32-byte cookie */
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_AUTH);
    tu_fix_free(b.f);

    base_init(&b, R_AUTH_COOKIE); /* a none-mode datagram for a cookie key */
    tu_key_t none;
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_init(&none, R_AUTH_NONE, b.f->k.key_id, &q);
    uint8_t uid[16];
    tu_uid(uid, 3);
    b.len = tu_request(&none, b.buf, uid, TU_T0, 60, NULL, 0, &b.r, 1, NULL);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_AUTH);
    tu_key_free(&none);
    tu_fix_free(b.f);
}

/* All 32 cookie bytes are compared: a difference in the last one drops the
 * request as one in the first does (wire_protocol.md "Auth Header"). */
static void test_cookie_last_byte_mismatch_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_COOKIE);
    tu_seal(&b.f->k, b.buf, b.len);
    b.buf[40 + 4 + 31] ^= 0x80u; /* the cookie's last byte */
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_AUTH);
    tu_fix_free(b.f);
}

/* Framing before authentication (model order, step 1): an AES datagram whose
 * PDU part is shorter than the 8-byte PDU header is MALFORMED, never handed to
 * the cipher ("Valid PDU requires pdu_size >= 8"). */
static void test_aes_pdu_shorter_than_header_is_malformed(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_AES);
    tu_seal(&b.f->k, b.buf, b.len);
    for (size_t rest = 0; rest < 8; rest++) {
        assert_int_equal(send_raw(&b, 40u + 32u + rest), SIM_SRV_DROP_MALFORMED);
    }
    tu_fix_free(b.f);
}

static void test_aes_tampering_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_AES);
    tu_seal(&b.f->k, b.buf, b.len);
    uint8_t sealed[1300];
    memcpy(sealed, b.buf, b.len);
    /* time_stamp (AAD), nonce, tag, first and last ciphertext bytes */
    size_t flips[5] = {30, 40 + 4, 40 + 4 + 12, 72, b.len - 1};
    for (size_t i = 0; i < 5; i++) {
        memcpy(b.buf, sealed, b.len);
        b.buf[flips[i]] ^= 0x80u;
        assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_AUTH);
    }
    memcpy(b.buf, sealed, b.len);
    assert_int_equal(send_raw(&b, b.len - 1), SIM_SRV_DROP_AUTH); /* truncated: the tag fails */
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_ANSWERED);
    tu_fix_free(b.f);
}

static void test_aes_malformed_plaintext_dropped(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_AES);
    b.buf[72 + 2]++; /* pdu_size inside the ciphertext */
    tu_seal(&b.f->k, b.buf, b.len);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_MALFORMED);
    tu_fix_free(b.f);
}

static void test_response_is_request_modified_in_place(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    tu_out_t o;
    assert_int_equal(tu_handle(b.f->s, TU_T0, b.buf, b.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(o.len, BASE_LEN - 12u); /* the label TLV is omitted */
    assert_memory_equal(o.bytes, b.buf, 4);
    uint64_t sid = sim_server_id(b.f->s);
    for (size_t i = 0; i < 8; i++) {
        assert_int_equal(o.bytes[4 + i], (uint8_t)(sid >> (8 * i)));
    }
    assert_memory_equal(o.bytes + 12, b.buf + 12, 28); /* unique_id, time_stamp, flags, padding */
    assert_memory_equal(o.bytes + 40, b.buf + 40, 4);  /* auth TLV */
    const uint8_t rr_hdr[12] = {0x52, 0x52, 80, 0, 0, 0, 0, 0, 1, 0, 1, 0};
    assert_memory_equal(o.bytes + OFF_PDU, rr_hdr, sizeof rr_hdr);
    assert_memory_equal(o.bytes + OFF_GUARD, b.buf + OFF_GUARD, 36); /* current_latency 0: no data */
    assert_memory_equal(o.bytes + OFF_GUARD + 36, "\0\0\0\0", 4);
    assert_memory_equal(o.bytes + OFF_RES, b.buf + OFF_RES, 20);    /* bucket_id, window_size_ms */
    const uint8_t res_tail[8] = {1, 0, 0, 0, 0, 0, 0, 0};           /* actual_rate 1, deficit 0, padding */
    assert_memory_equal(o.bytes + OFF_RES + 20, res_tail, sizeof res_tail);
    tu_fix_free(b.f);
}

static void test_small_out_buffer_gets_no_bytes(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    uint8_t out[16];
    size_t out_len = 99;
    sim_server_result_t res;
    assert_int_equal(sim_server_handle(b.f->s, TU_T0, b.buf, b.len, out, sizeof out, &out_len, &res),
                     SIM_SRV_ANSWERED);
    assert_int_equal(out_len, 0);
    assert_true(res.allowed);
    tu_fix_free(b.f);
}

/* Differential: a request with several blocks and a label, encoded and sealed
 * by the client, decodes in the server; the answer validates in the client. */
static void differential(r_auth_type_t type) {
    r_api_key_quotas_t q = tu_default_quotas();
    sim_server_params_t p = tu_params();
    tu_fix_t *f = tu_fix_new(type, &q, &p);
    r_latency_guard_t g[2] = {tu_guard("g1", 100, 1000, 10, 8, 1), tu_guard("g2", 100, 1000, 10, 8, 1)};
    r_resource_request_t r[3] = {tu_resource("r1", 1000, 10, 1), tu_resource("r2", 2000, 10, 2),
                                 tu_resource("r3", 4000, 10, 3)};
    r_service_latency_report_t s[2] = {tu_sample(&g[0], 40), tu_sample(&g[1], 60)};
    assert_int_equal(tu_send_report(f, TU_T0, 1, s, 2), SIM_SRV_REPORT);
    uint8_t uid[16], buf[1200];
    tu_uid(uid, 2);
    size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, g, 2, r, 3, "differential");
    tu_out_t o;
    tu_parsed_t pr;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED);
    tu_parse_ok(&f->k, o.bytes, o.len, uid, sim_server_id(f->s), &pr);
    assert_int_equal(pr.rr.guard_count, 2);
    assert_int_equal(pr.rr.resource_count, 3);
    assert_true(pr.rr.success);
    assert_int_equal(tu_guard_at(&pr, 0).current_latency, 40);
    assert_int_equal(tu_guard_at(&pr, 1).current_latency, 60);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(tu_res_at(&pr, i).actual_rate, i + 1);
        assert_int_equal(tu_res_at(&pr, i).window_size_ms, r[i].window_size_ms);
    }
    assert_int_equal(o.result.tokens_granted, 6);
    tu_fix_free(f);
}

static void test_differential_none(void **state) { (void)state; differential(R_AUTH_NONE); }
static void test_differential_cookie(void **state) { (void)state; differential(R_AUTH_COOKIE); }
static void test_differential_aes(void **state) { (void)state; differential(R_AUTH_AES); }

static void test_invalid_params_rejected(void **state) {
    (void)state;
    sim_rng_t rng;
    sim_rng_seed(&rng, 1, SIM_STREAM_SERVER, 0);
    sim_server_params_t p = tu_params();
    p.server_start_s = 1735689599ull;
    assert_null(sim_server_new(&p, &rng));
    p = tu_params();
    p.node_id = 32768;
    assert_null(sim_server_new(&p, &rng));
    assert_null(sim_server_new(NULL, &rng));
    p = tu_params();
    assert_null(sim_server_new(&p, NULL));
}

static void test_invalid_credentials_rejected(void **state) {
    (void)state;
    sim_server_params_t p = tu_params();
    sim_server_t *s = tu_server(&p);
    assert_int_equal(sim_server_add_tenant(s, "not a credential"), -1);
    assert_int_equal(sim_server_add_tenant(s, NULL), -1);
    uint8_t secret[32] = {1};
    char text[120];
    assert_true(rl_bech32_encode("rl-secret", secret, sizeof secret, text, sizeof text) > 0);
    assert_int_equal(sim_server_add_tenant(s, text), -1); /* not an API key */
    sim_server_free(s);
}

static void test_upsert_replaces_auth_mode(void **state) {
    (void)state;
    base_t b;
    base_init(&b, R_AUTH_NONE);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_ANSWERED);
    tu_key_t aes;
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_init(&aes, R_AUTH_AES, b.f->k.key_id, &q);
    assert_int_equal(sim_server_add_tenant(b.f->s, aes.cred), 0);
    b.buf[27]++; /* another unique_id */
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_DROP_AUTH);
    uint8_t uid[16];
    tu_uid(uid, 5);
    b.len = tu_request(&aes, b.buf, uid, TU_T0, 60, NULL, 0, &b.r, 1, NULL);
    assert_int_equal(send_raw(&b, b.len), SIM_SRV_ANSWERED);
    tu_key_free(&aes);
    tu_fix_free(b.f);
}

static void test_verdict_names(void **state) {
    (void)state;
    assert_string_equal(sim_server_verdict_name(SIM_SRV_ANSWERED), "answered");
    assert_string_equal(sim_server_verdict_name(SIM_SRV_DROP_MISMATCH), "drop_mismatch");
    assert_string_equal(sim_server_verdict_name(SIM_SRV_VERDICTS), "unknown");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_framing_violations_dropped),
        cmocka_unit_test(test_tolerated_variations_answered),
        cmocka_unit_test(test_tenant_drops),
        cmocka_unit_test(test_unknown_auth_type_is_auth_drop),
        cmocka_unit_test(test_every_truncation_dropped),
        cmocka_unit_test(test_oversize_and_null_dropped),
        cmocka_unit_test(test_report_framing),
        cmocka_unit_test(test_auth_failures_dropped),
        cmocka_unit_test(test_cookie_last_byte_mismatch_dropped),
        cmocka_unit_test(test_aes_pdu_shorter_than_header_is_malformed),
        cmocka_unit_test(test_aes_tampering_dropped),
        cmocka_unit_test(test_aes_malformed_plaintext_dropped),
        cmocka_unit_test(test_response_is_request_modified_in_place),
        cmocka_unit_test(test_small_out_buffer_gets_no_bytes),
        cmocka_unit_test(test_differential_none),
        cmocka_unit_test(test_differential_cookie),
        cmocka_unit_test(test_differential_aes),
        cmocka_unit_test(test_invalid_params_rejected),
        cmocka_unit_test(test_invalid_credentials_rejected),
        cmocka_unit_test(test_upsert_replaces_auth_mode),
        cmocka_unit_test(test_verdict_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
