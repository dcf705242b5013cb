/* SPDX-License-Identifier: MIT */
/* test_admin_adversary.c - hostile input against the administrative codec
 * (r_admin.h), written from wire_protocol.md alone: "ADD Tenant"
 * (tenant_key_len 0 is no credential, and nothing past the PDU is read),
 * "Status Response PDU" (dedup_ttl_ms_max: "or 0 if unknown", under its
 * validity bit), "Response Variants" (*_PAGE_MORE cursor_padding). */
#include <openssl/crypto.h>

#include "admin_test_util.h"

static const char KEY_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys"; /* key_id 0x0102030405060708 */
#define KEY_NONE_ID 0x0102030405060708ull
static r_admin_key_t *g_key;

static int setup(void **state) {
    (void)state;
    uint8_t k[32];
    for (int i = 0; i < 32; i++) k[i] = (uint8_t)(0x40 + i);
    return r_admin_key_create_raw(k, &g_key);
}
static int teardown(void **state) {
    (void)state;
    r_admin_key_destroy(g_key);
    return 0;
}

static size_t seal(uint64_t key_id, const uint8_t *pdu, size_t len, uint8_t *out) {
    r_admin_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = key_id;
    h.unique_id[0] = 0x22;
    h.time_stamp_ms = 1767225600123ull;
    const uint8_t nonce[12] = {9, 8, 7};
    size_t n = 0;
    assert_int_equal(r_admin_seal(g_key, &h, nonce, pdu, len, out, 1200, &n, NULL), RCLIENT_OK);
    return n;
}

/* A Tenant Mutation ADD with name "t" and tenant_key_len 0 (13 bytes), and
 * right after the datagram, in the same buffer, a valid NUL-terminated
 * credential of the header's key_id: a decoder that reads the credential
 * past the PDU would accept it. The spec's answer: no valid credential,
 * the mutation is rejected. */
static void test_request_empty_tenant_key_not_read_past_the_pdu(void **state) {
    (void)state;
    const uint8_t pdu[13] = {0x4d, 0x54, 0x0d, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x01, 't', 0x00};
    uint8_t d[1200];
    memset(d, 0, sizeof d);
    size_t n = seal(KEY_NONE_ID, pdu, sizeof pdu, d);
    assert_int_equal(n, 72 + 13);
    memcpy(d + n, KEY_NONE, sizeof KEY_NONE); /* stale bytes after the datagram */
    r_admin_header_t h;
    r_admin_request_t r;
    r_auth_key_info_t info;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, n, &h, &r, &info, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_CREDENTIAL);
}

/* The same through the plain check: a zero-length key with a non-NULL
 * pointer to a valid credential is still no credential. */
static void test_check_zero_length_key_is_no_credential(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"t", 1, KEY_NONE, 0};
    ASSERT_REJECT(r_admin_tenant_mutation_check(&tm, KEY_NONE_ID, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_CREDENTIAL);
}

/* "dedup_ttl_ms_max ... or 0 if unknown": with DEDUP_TTL_MS_MAX_VALID set,
 * 0 still reads as unknown, and 10 (the smallest real cap) as known. */
static void test_status_dedup_max_zero_is_unknown(void **state) {
    (void)state;
    r_admin_status_response_t sr;
    memset(&sr, 0, sizeof sr);
    sr.status_flags = R_STATUS_FLAG_DEDUP_TTL_MS_MAX_VALID;
    uint64_t v = 99;
    sr.dedup_ttl_ms_max = 0;
    assert_int_equal(r_admin_status_get(&sr, R_STATUS_DEDUP_TTL_MS_MAX, &v), 0);
    assert_int_equal(v, 0);
    sr.dedup_ttl_ms_max = 1;
    assert_int_equal(r_admin_status_get(&sr, R_STATUS_DEDUP_TTL_MS_MAX, &v), 1);
    assert_int_equal(v, 1);
    sr.dedup_ttl_ms_max = 10;
    assert_int_equal(r_admin_status_get(&sr, R_STATUS_DEDUP_TTL_MS_MAX, &v), 1);
    assert_int_equal(v, 10);
}

/* LABELS_PAGE_MORE with a 3-byte cursor: cursor_padding is one byte, zero
 * (docs/spec-notes.md "cursor padding ... must be zero"); 0x01 there is
 * rejected, 0x00 accepted. Layout: header 8, next_cursor_len 3, reserved 0,
 * cursor aa bb cc, padding, one empty-label record (36 bytes). */
static void test_response_cursor_padding_nonzero_rejected(void **state) {
    (void)state;
    uint8_t mr[52];
    memset(mr, 0, sizeof mr);
    const uint8_t head[16] = {0x4d, 0x52, 52, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0xaa, 0xbb, 0xcc, 0x00};
    memcpy(mr, head, sizeof head);
    mr[16] = 5; /* requests_success of the record */
    r_admin_metrics_response_t m;
    ASSERT_OK(r_admin_decode_metrics_response(mr, sizeof mr, &m, diag));
    assert_int_equal(m.next_cursor_len, 3);
    assert_int_equal(m.record_count, 1);
    mr[15] = 0x01;
    ASSERT_REJECT(r_admin_decode_metrics_response(mr, sizeof mr, &m, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_RESERVED);
}

/* A label record whose label_len claims 0xFFFF in a page of 44 record
 * bytes: rejected on the length, nothing read past the PDU. */
static void test_response_label_len_lying(void **state) {
    (void)state;
    uint8_t mr[8 + 44];
    memset(mr, 0, sizeof mr);
    const uint8_t head[8] = {0x4d, 0x52, 52, 0x00, 0x02, 0x01, 0x00, 0x00};
    memcpy(mr, head, 8);
    mr[8 + 32] = 0xff;
    mr[8 + 33] = 0xff;
    r_admin_metrics_response_t m;
    ASSERT_REJECT(r_admin_decode_metrics_response(mr, sizeof mr, &m, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_LENGTH_FIELD);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_empty_tenant_key_not_read_past_the_pdu),
        cmocka_unit_test(test_check_zero_length_key_is_no_credential),
        cmocka_unit_test(test_status_dedup_max_zero_is_unknown),
        cmocka_unit_test(test_response_cursor_padding_nonzero_rejected),
        cmocka_unit_test(test_response_label_len_lying),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
