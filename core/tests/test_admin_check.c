/* SPDX-License-Identifier: MIT */
/* Unit tests for the whole-datagram checks (r_admin.h "Whole-datagram
 * checks"): the server's request decode by pdu_type with the tenant-mutation
 * credential rules (wire_protocol.md "Deterministic validation rules"), and
 * an auth TLV of another mode (wire_protocol.md "Administrative
 * Authentication": administrative PDUs MUST use AES-256-GCM). */
#include <openssl/crypto.h>

#include "admin_test_util.h"

static const char KEY_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys"; /* key_id 0x0102030405060708 */
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
    h.unique_id[0] = 0x11;
    h.time_stamp_ms = 1767225600123ull;
    const uint8_t nonce[12] = {1, 2, 3};
    size_t n = 0;
    assert_int_equal(r_admin_seal(g_key, &h, nonce, pdu, len, out, 1200, &n, NULL), RCLIENT_OK);
    return n;
}

/* ADD "t" with the rl-none key: 10 + 1 + 1 + 1 + 35 = 48 bytes */
static size_t add_pdu(uint8_t *pdu) {
    const uint8_t head[12] = {0x4d, 0x54, 0x30, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x01, 't'};
    memcpy(pdu, head, 12);
    pdu[12] = 35;
    memcpy(pdu + 13, KEY_NONE, 35);
    return 48;
}

static void test_request_tenant_add(void **state) {
    (void)state;
    uint8_t pdu[64], d[1200];
    size_t n = seal(0x0102030405060708ull, pdu, add_pdu(pdu), d);
    r_admin_header_t h;
    r_admin_request_t r;
    r_auth_key_info_t info;
    ASSERT_OK(r_admin_decode_request(g_key, d, n, &h, &r, &info, diag));
    assert_int_equal(r.pdu_type, R_ADMIN_PDU_TENANT_MUTATION);
    assert_int_equal(r.u.tenant_mutation.operation, R_TENANT_OP_ADD);
    assert_int_equal(r.u.tenant_mutation.dedup_ttl_ms, 300);
    assert_memory_equal(r.u.tenant_mutation.name, "t", 1);
    assert_true(info.key_id == 0x0102030405060708ull);
    assert_true(h.key_id == 0x0102030405060708ull);
    OPENSSL_cleanse(&info, sizeof info);
}

static void test_request_tenant_add_key_id_mismatch(void **state) {
    (void)state;
    uint8_t pdu[64], d[1200];
    size_t n = seal(42, pdu, add_pdu(pdu), d);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, n, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_KEY_ID_MISMATCH);
}

static void test_request_tenant_add_bad_credential(void **state) {
    (void)state;
    uint8_t pdu[64], d[1200];
    size_t len = add_pdu(pdu);
    pdu[len - 1] ^= 0x01; /* checksum character */
    size_t n = seal(0x0102030405060708ull, pdu, len, d);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, n, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_CREDENTIAL);
}

static void test_request_status_query(void **state) {
    (void)state;
    const uint8_t sq[8] = {0x53, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};
    uint8_t d[1200];
    size_t n = seal(0, sq, sizeof sq, d);
    r_admin_request_t r;
    ASSERT_OK(r_admin_decode_request(g_key, d, n, NULL, &r, NULL, diag));
    assert_int_equal(r.pdu_type, R_ADMIN_PDU_STATUS_QUERY);
    assert_int_equal(r.u.status_query.schema_version, 1);
}

static void test_request_metrics_query(void **state) {
    (void)state;
    const uint8_t mq[16] = {0x4d, 0x51, 0x10, 0x00, 0x02, 0x01, 0x00, 0x00,
                            0x04, 0x00, 0x00, 0x00, 0xde, 0xad, 0xbe, 0xef};
    uint8_t d[1200];
    size_t n = seal(42, mq, sizeof mq, d);
    r_admin_header_t h;
    r_admin_request_t r;
    ASSERT_OK(r_admin_decode_request(g_key, d, n, &h, &r, NULL, diag));
    assert_int_equal(r.pdu_type, R_ADMIN_PDU_METRICS_QUERY);
    assert_int_equal(r.u.metrics_query.cursor_len, 4);
    assert_memory_equal(r.u.metrics_query.cursor, "\xde\xad\xbe\xef", 4);
    assert_true(h.key_id == 42);
}

static void test_request_rejects_response_kind(void **state) {
    (void)state;
    const uint8_t ta[12] = {0x41, 0x54, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0};
    uint8_t d[1200];
    size_t n = seal(42, ta, sizeof ta, d);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, n, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_TYPE);
}

static void test_request_rejects_malformed_pdu(void **state) {
    (void)state;
    const uint8_t sq[8] = {0x53, 0x51, 0x08, 0x00, 0x01, 0x00, 0x01, 0x00}; /* reserved */
    uint8_t d[1200];
    size_t n = seal(0, sq, sizeof sq, d);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, n, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_RESERVED);
}

static void test_request_rejects_auth_none_tlv(void **state) {
    (void)state;
    /* Tenant TLV (mgmt 1), Auth None "NA"/4, then a plaintext status query. */
    uint8_t d[52] = {0x52, 0x4c, 0x28, 0x00};
    d[37] = 1;
    const uint8_t na[4] = {0x4e, 0x41, 0x04, 0x00};
    const uint8_t sq[8] = {0x53, 0x51, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00};
    memcpy(d + 40, na, 4);
    memcpy(d + 44, sq, 8);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, sizeof d, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_AUTH_TLV_TYPE);
}

static void test_request_rejects_auth_size_before_type(void **state) {
    (void)state;
    /* "NA" claiming 32 bytes: a framing fault, reported before the wrong mode. */
    uint8_t d[84] = {0x52, 0x4c, 0x28, 0x00};
    d[37] = 1;
    const uint8_t na[4] = {0x4e, 0x41, 0x20, 0x00};
    memcpy(d + 40, na, 4);
    r_admin_request_t r;
    ASSERT_REJECT(r_admin_decode_request(g_key, d, sizeof d, NULL, &r, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_AUTH_TLV_SIZE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_tenant_add),
        cmocka_unit_test(test_request_tenant_add_key_id_mismatch),
        cmocka_unit_test(test_request_tenant_add_bad_credential),
        cmocka_unit_test(test_request_status_query),
        cmocka_unit_test(test_request_metrics_query),
        cmocka_unit_test(test_request_rejects_response_kind),
        cmocka_unit_test(test_request_rejects_malformed_pdu),
        cmocka_unit_test(test_request_rejects_auth_none_tlv),
        cmocka_unit_test(test_request_rejects_auth_size_before_type),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
