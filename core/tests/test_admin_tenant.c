/* SPDX-License-Identifier: MIT */
/* Unit tests for the Tenant Mutation 0x544D and Tenant Ack 0x5441 codec
 * (wire_protocol.md "Tenant Mutation PDU", "Mutation Data Formats",
 * "Deterministic validation rules", "Tenant Acknowledgment PDU"). Expected
 * bytes are written by hand from the field tables. */
#include "admin_test_util.h"

/* ADD, dedup_ttl_ms 300, name "acme", tenant_key "k1":
 * 4d 54 | pdu_size 10+1+4+1+2 = 18 | op 03 | flags 00 | 2c 01 00 00 |
 * 04 'a' 'c' 'm' 'e' | 02 'k' '1' */
static const uint8_t TM_ADD[18] = {0x4d, 0x54, 0x12, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x00,
                                   0x00, 0x04, 'a',  'c',  'm',  'e',  0x02, 'k',  '1'};
/* REMOVE, dedup_ttl_ms 500: 4d 54 0a 00 05 00 f4 01 00 00 */
static const uint8_t TM_REMOVE[10] = {0x4d, 0x54, 0x0a, 0x00, 0x05, 0x00, 0xf4, 0x01, 0x00, 0x00};
/* Tenant Ack of an ADD: 41 54 0c 00 03 00 | reserved 00 00 | reserved 00 00 | padding 00 00 */
static const uint8_t TA_ADD[12] = {0x41, 0x54, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0};

/* rl-none, key_id 0x0102030405060708 (vectors/api_key.json tcId 1). */
static const char KEY_NONE[] = "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys";
#define KEY_NONE_ID 0x0102030405060708ull

static void test_encode_add_bytes(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"acme", 4, "k1", 2};
    uint8_t buf[64];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag));
    assert_int_equal(n, sizeof TM_ADD);
    assert_memory_equal(buf, TM_ADD, sizeof TM_ADD);
}

static void test_encode_remove_bytes(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_REMOVE, 500, NULL, 0, NULL, 0};
    uint8_t buf[16];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag));
    assert_int_equal(n, 10);
    assert_memory_equal(buf, TM_REMOVE, 10);
}

static void test_encode_rejects_unknown_operation(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {0x04, 300, NULL, 0, NULL, 0};
    uint8_t buf[16];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_OPERATION);
}

static void test_encode_rejects_name_over_255(void **state) {
    (void)state;
    static uint8_t name[256];
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, name, 256, "k", 1};
    uint8_t buf[600];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_LENGTH_FIELD);
}

static void test_encode_rejects_remove_with_payload(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_REMOVE, 300, (const uint8_t *)"x", 1, NULL, 0};
    uint8_t buf[16];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ARGUMENT);
}

static void test_encode_rejects_small_buffer(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"acme", 4, "k1", 2};
    uint8_t buf[17];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_tenant_mutation(buf, sizeof buf, &tm, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_BUFFER);
}

static void test_decode_add(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm;
    ASSERT_OK(r_admin_decode_tenant_mutation(TM_ADD, sizeof TM_ADD, &tm, diag));
    assert_int_equal(tm.operation, R_TENANT_OP_ADD);
    assert_int_equal(tm.dedup_ttl_ms, 300);
    assert_int_equal(tm.name_len, 4);
    assert_memory_equal(tm.name, "acme", 4);
    assert_int_equal(tm.tenant_key_len, 2);
    assert_memory_equal(tm.tenant_key, "k1", 2);
}

static void test_decode_add_empty_fields(void **state) {
    (void)state;
    /* name_len 0, tenant_key_len 0: pdu_size 12 */
    const uint8_t pdu[12] = {0x4d, 0x54, 0x0c, 0x00, 0x03, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00};
    r_admin_tenant_mutation_t tm;
    ASSERT_OK(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag));
    assert_int_equal(tm.name_len, 0);
    assert_int_equal(tm.tenant_key_len, 0);
    assert_int_equal(tm.dedup_ttl_ms, 10);
}

static void test_decode_remove(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm;
    ASSERT_OK(r_admin_decode_tenant_mutation(TM_REMOVE, sizeof TM_REMOVE, &tm, diag));
    assert_int_equal(tm.operation, R_TENANT_OP_REMOVE);
    assert_int_equal(tm.dedup_ttl_ms, 500);
    assert_int_equal(tm.name_len, 0);
    assert_null(tm.tenant_key);
}

static void test_decode_rejects_flags(void **state) {
    (void)state;
    uint8_t pdu[18];
    memcpy(pdu, TM_ADD, sizeof pdu);
    pdu[5] = 0x01;
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_FLAGS);
}

static void test_decode_rejects_unknown_operation(void **state) {
    (void)state;
    uint8_t pdu[10];
    memcpy(pdu, TM_REMOVE, sizeof pdu);
    pdu[4] = 0x04; /* UPDATE is not defined */
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_OPERATION);
}

static void test_decode_rejects_wrong_pdu_type(void **state) {
    (void)state;
    uint8_t pdu[10];
    memcpy(pdu, TM_REMOVE, sizeof pdu);
    pdu[0] = 0x52; /* 0x5452 Rate Request */
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_TYPE);
}

static void test_decode_rejects_pdu_size_mismatch(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(TM_ADD, sizeof TM_ADD - 1, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_rejects_truncated(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(TM_ADD, 7, &tm, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_TRUNCATED);
}

static void test_decode_rejects_below_fixed_part(void **state) {
    (void)state;
    const uint8_t pdu[9] = {0x4d, 0x54, 0x09, 0x00, 0x05, 0x00, 0x2c, 0x01, 0x00};
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_rejects_remove_with_payload(void **state) {
    (void)state;
    const uint8_t pdu[11] = {0x4d, 0x54, 0x0b, 0x00, 0x05, 0x00, 0x2c, 0x01, 0x00, 0x00, 0x00};
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_rejects_name_len_overrun(void **state) {
    (void)state;
    uint8_t pdu[18];
    memcpy(pdu, TM_ADD, sizeof pdu);
    pdu[10] = 7; /* name runs over tenant_key_len */
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_LENGTH_FIELD);
}

static void test_decode_rejects_key_len_overrun(void **state) {
    (void)state;
    uint8_t pdu[18];
    memcpy(pdu, TM_ADD, sizeof pdu);
    pdu[15] = 3; /* 3 key bytes claimed, 2 present */
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_LENGTH_FIELD);
}

static void test_decode_rejects_trailing_bytes(void **state) {
    (void)state;
    uint8_t pdu[18];
    memcpy(pdu, TM_ADD, sizeof pdu);
    pdu[15] = 1; /* key "k", then one byte left over */
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_rejects_add_without_name_len(void **state) {
    (void)state;
    const uint8_t pdu[10] = {0x4d, 0x54, 0x0a, 0x00, 0x03, 0x00, 0x2c, 0x01, 0x00, 0x00};
    r_admin_tenant_mutation_t tm;
    ASSERT_REJECT(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_LENGTH_FIELD);
}

static void test_decode_leaves_out_untouched_on_error(void **state) {
    (void)state;
    uint8_t pdu[18];
    memcpy(pdu, TM_ADD, sizeof pdu);
    pdu[5] = 1;
    r_admin_tenant_mutation_t tm;
    memset(&tm, 0xAB, sizeof tm);
    r_admin_tenant_mutation_t before;
    memcpy(&before, &tm, sizeof before);
    assert_int_equal(r_admin_decode_tenant_mutation(pdu, sizeof pdu, &tm, NULL), RCLIENT_ERR_PROTOCOL);
    assert_memory_equal(&tm, &before, sizeof tm);
}

static void test_check_accepts_matching_key_id(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"t", 1, KEY_NONE, strlen(KEY_NONE)};
    r_auth_key_info_t info;
    ASSERT_OK(r_admin_tenant_mutation_check(&tm, KEY_NONE_ID, &info, diag));
    assert_int_equal(info.type, R_AUTH_NONE);
    assert_true(info.key_id == KEY_NONE_ID);
}

static void test_check_rejects_key_id_mismatch(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"t", 1, KEY_NONE, strlen(KEY_NONE)};
    ASSERT_REJECT(r_admin_tenant_mutation_check(&tm, KEY_NONE_ID + 1, NULL, diag), RCLIENT_ERR_PROTOCOL,
                  R_ADMIN_ERR_KEY_ID_MISMATCH);
}

static void test_check_rejects_rl_secret_hrp(void **state) {
    (void)state;
    static const char secret[] = "rl-secret1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq3teav5";
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, NULL, 0, secret, strlen(secret)};
    ASSERT_REJECT(r_admin_tenant_mutation_check(&tm, 0, NULL, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_CREDENTIAL);
}

static void test_check_rejects_empty_key(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, NULL, 0, NULL, 0};
    ASSERT_REJECT(r_admin_tenant_mutation_check(&tm, 0, NULL, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_CREDENTIAL);
}

static void test_check_remove_passes(void **state) {
    (void)state;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_REMOVE, 300, NULL, 0, NULL, 0};
    ASSERT_OK(r_admin_tenant_mutation_check(&tm, 42, NULL, diag));
}

static void test_encode_ack_bytes(void **state) {
    (void)state;
    r_admin_tenant_ack_t ack = {R_TENANT_OP_ADD, 0};
    uint8_t buf[12];
    size_t n = 0;
    ASSERT_OK(r_admin_encode_tenant_ack(buf, sizeof buf, &ack, &n, diag));
    assert_int_equal(n, 12);
    assert_memory_equal(buf, TA_ADD, 12);
}

static void test_encode_ack_rejects_nonzero_status(void **state) {
    (void)state;
    r_admin_tenant_ack_t ack = {R_TENANT_OP_ADD, 1};
    uint8_t buf[12];
    size_t n = 0;
    ASSERT_REJECT(r_admin_encode_tenant_ack(buf, sizeof buf, &ack, &n, diag), RCLIENT_ERR_CONFIG,
                  R_ADMIN_ERR_ACK_STATUS);
}

static void test_decode_ack(void **state) {
    (void)state;
    const uint8_t pdu[12] = {0x41, 0x54, 0x0c, 0x00, 0x05, 0x00, 0, 0, 0, 0, 0, 0};
    r_admin_tenant_ack_t ack;
    ASSERT_OK(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag));
    assert_int_equal(ack.operation, R_TENANT_OP_REMOVE);
    assert_int_equal(ack.status, 0);
}

static void ack_reserved_case(size_t offset) {
    uint8_t pdu[12];
    memcpy(pdu, TA_ADD, sizeof pdu);
    pdu[offset] = 0x01;
    r_admin_tenant_ack_t ack;
    ASSERT_REJECT(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_RESERVED);
}

static void test_decode_ack_rejects_first_reserved(void **state) {
    (void)state;
    ack_reserved_case(6);
}
static void test_decode_ack_rejects_second_reserved(void **state) {
    (void)state;
    ack_reserved_case(9);
}
static void test_decode_ack_rejects_padding(void **state) {
    (void)state;
    ack_reserved_case(11);
}

static void test_decode_ack_rejects_status(void **state) {
    (void)state;
    uint8_t pdu[12];
    memcpy(pdu, TA_ADD, sizeof pdu);
    pdu[5] = 0x01;
    r_admin_tenant_ack_t ack;
    ASSERT_REJECT(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_ACK_STATUS);
}

static void test_decode_ack_rejects_unknown_operation(void **state) {
    (void)state;
    uint8_t pdu[12];
    memcpy(pdu, TA_ADD, sizeof pdu);
    pdu[4] = 0x00;
    r_admin_tenant_ack_t ack;
    ASSERT_REJECT(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_OPERATION);
}

static void test_decode_ack_rejects_size_16(void **state) {
    (void)state;
    uint8_t pdu[16] = {0x41, 0x54, 0x10, 0x00, 0x03, 0x00};
    r_admin_tenant_ack_t ack;
    ASSERT_REJECT(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_SIZE);
}

static void test_decode_ack_rejects_wrong_type(void **state) {
    (void)state;
    uint8_t pdu[12];
    memcpy(pdu, TA_ADD, sizeof pdu);
    pdu[0] = 0x4d; /* 0x544D Tenant Mutation */
    r_admin_tenant_ack_t ack;
    ASSERT_REJECT(r_admin_decode_tenant_ack(pdu, sizeof pdu, &ack, diag), RCLIENT_ERR_PROTOCOL, R_ADMIN_ERR_PDU_TYPE);
}

static void test_null_arguments(void **state) {
    (void)state;
    r_admin_tenant_ack_t ack;
    assert_int_equal(r_admin_decode_tenant_ack(NULL, 12, &ack, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_admin_decode_tenant_mutation(TM_ADD, sizeof TM_ADD, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_int_equal(r_admin_encode_tenant_ack(NULL, 12, &ack, NULL, NULL), RCLIENT_ERR_CONFIG);
    assert_string_equal(r_admin_reason_name(R_ADMIN_ERR_RESERVED), "R_ADMIN_ERR_RESERVED");
    assert_string_equal(r_admin_reason_name((r_admin_reason_t)999), "R_ADMIN_ERR_UNKNOWN");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode_add_bytes),
        cmocka_unit_test(test_encode_remove_bytes),
        cmocka_unit_test(test_encode_rejects_unknown_operation),
        cmocka_unit_test(test_encode_rejects_name_over_255),
        cmocka_unit_test(test_encode_rejects_remove_with_payload),
        cmocka_unit_test(test_encode_rejects_small_buffer),
        cmocka_unit_test(test_decode_add),
        cmocka_unit_test(test_decode_add_empty_fields),
        cmocka_unit_test(test_decode_remove),
        cmocka_unit_test(test_decode_rejects_flags),
        cmocka_unit_test(test_decode_rejects_unknown_operation),
        cmocka_unit_test(test_decode_rejects_wrong_pdu_type),
        cmocka_unit_test(test_decode_rejects_pdu_size_mismatch),
        cmocka_unit_test(test_decode_rejects_truncated),
        cmocka_unit_test(test_decode_rejects_below_fixed_part),
        cmocka_unit_test(test_decode_rejects_remove_with_payload),
        cmocka_unit_test(test_decode_rejects_name_len_overrun),
        cmocka_unit_test(test_decode_rejects_key_len_overrun),
        cmocka_unit_test(test_decode_rejects_trailing_bytes),
        cmocka_unit_test(test_decode_rejects_add_without_name_len),
        cmocka_unit_test(test_decode_leaves_out_untouched_on_error),
        cmocka_unit_test(test_check_accepts_matching_key_id),
        cmocka_unit_test(test_check_rejects_key_id_mismatch),
        cmocka_unit_test(test_check_rejects_rl_secret_hrp),
        cmocka_unit_test(test_check_rejects_empty_key),
        cmocka_unit_test(test_check_remove_passes),
        cmocka_unit_test(test_encode_ack_bytes),
        cmocka_unit_test(test_encode_ack_rejects_nonzero_status),
        cmocka_unit_test(test_decode_ack),
        cmocka_unit_test(test_decode_ack_rejects_first_reserved),
        cmocka_unit_test(test_decode_ack_rejects_second_reserved),
        cmocka_unit_test(test_decode_ack_rejects_padding),
        cmocka_unit_test(test_decode_ack_rejects_status),
        cmocka_unit_test(test_decode_ack_rejects_unknown_operation),
        cmocka_unit_test(test_decode_ack_rejects_size_16),
        cmocka_unit_test(test_decode_ack_rejects_wrong_type),
        cmocka_unit_test(test_null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
