/* SPDX-License-Identifier: MIT */
/* test_server_admin_adversary.c - hostile administrative datagrams against
 * the reference server (wire_protocol.md "Tenant Mutation PDU", "Mutation
 * Data Formats", "Metrics Query PDU", "Pagination rules", "Metrics Response
 * PDU"). Each test names the rule it attacks; the expected values come from
 * the spec's tables, not from the server code. */
#include "rl_bech32.h"
#include "sim_server_admin_util.h"

/* A rate request of the fixture's tenant with a label (#n). */
static sim_server_verdict_t labelled(ta_fix_t *f, uint32_t n, const char *label) {
    r_resource_request_t r = tu_resource("api", 1000, 2, 0);
    uint8_t buf[1200], uid[16];
    tu_out_t o;
    tu_uid(uid, 7000 + n);
    size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, NULL, 0, &r, 1, label);
    return tu_handle(f->s, TU_T0, buf, len, &o);
}

/* A Metrics Query in a batch of its own; the plaintext MR copied into mr. */
static size_t mq(ta_fix_t *f, uint64_t key_id, const uint8_t *pdu, size_t n, uint8_t *mr) {
    tu_out_t o;
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, key_id, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED);
    size_t pn = 0;
    const uint8_t *p = ta_open(f, &o, f->uid_n, &pn);
    memcpy(mr, p, pn);
    assert_int_equal(ta_ld16(mr), 0x524D);
    return pn;
}

/* "ADD Tenant": tenant_key_len 0 is an empty credential, refused as such.
 * The server must not read the credential past the PDU: stale plaintext of
 * an earlier datagram (here an rl-secret string at the same offset) must not
 * be parsed in its place. */
static void test_empty_tenant_key_not_read_past_the_pdu(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    char secret[120];
    uint8_t raw[32] = {7};
    assert_true(rl_bech32_encode("rl-secret", raw, 32, secret, sizeof secret) > 0);
    uint8_t pdu[600];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "acme", secret), &o), SIM_SRV_DROP_ADMIN);
    /* same name, so the tenant_key would start at the same plaintext offset */
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "acme", ""), &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    assert_non_null(o.result.why.field);
    assert_string_equal(o.result.why.field, "tenant_key_len");
    assert_int_equal(o.result.why.got, 0);
    assert_non_null(o.result.why.note);
    assert_string_equal(o.result.why.note, "empty credential");
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutation_failures, 2);
    ta_fix_free(f);
}

/* "Pagination rules": a cursor may become invalid; the server documents
 * that a removal ends its cursors (METRICS_CURSOR_INVALID, page_kind 0x08).
 * A tenant removed and added again must not continue a cursor handed out
 * for the removed one. */
static void test_cursor_dies_with_a_removal_and_readd(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    char label[31];
    for (uint32_t i = 0; i < 20; i++) {
        snprintf(label, sizeof label, "label-%024u", i);
        assert_int_equal(labelled(f, i, label), SIM_SRV_ANSWERED);
    }
    uint8_t q[64], mr[1200], cursor[64];
    mq(f, 0x1234u, q, ta_mq(q, 2, 0, NULL, 0), mr);
    assert_int_equal(mr[5], 0); /* LABELS_PAGE_MORE */
    size_t clen = ta_ld16(mr + 8);
    assert_true(clen > 0 && clen <= sizeof cursor);
    memcpy(cursor, mr + 12, clen);
    /* REMOVE, then ADD the same key_id again, and give it the same labels */
    uint8_t pdu[600];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x05, 0, 100, NULL, NULL), &o), SIM_SRV_ADMIN_ANSWERED);
    ta_add_ok(f, &f->k);
    for (uint32_t i = 0; i < 20; i++) {
        snprintf(label, sizeof label, "label-%024u", i);
        assert_int_equal(labelled(f, 100 + i, label), SIM_SRV_ANSWERED);
    }
    assert_int_equal(mq(f, 0x1234u, q, ta_mq(q, 2, 1, cursor, clen), mr), 8);
    assert_int_equal(mr[5], 8); /* METRICS_CURSOR_INVALID */
    ta_fix_free(f);
}

/* "Query Variants" FROM_CURSOR: cursor_len lying about the bytes present
 * (0xFFFF with 4 cursor bytes) is not a well-formed query: the answer is
 * METRICS_INVALID_QUERY (0x04), empty, and nothing is read past the PDU. */
static void test_cursor_len_lying_is_invalid_query(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t c4[4] = {1, 2, 3, 4}, q[64], mr[1200];
    size_t n = ta_mq(q, 2, 1, c4, 4);
    ta_st16(q + 8, 0xFFFF);
    assert_int_equal(mq(f, 0x1234u, q, n, mr), 8);
    const uint8_t want[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x04, 0x00, 0x00};
    assert_memory_equal(mr, want, 8);
    /* cursor_len 0 with FROM_CURSOR: no cursor to continue, also invalid */
    n = ta_mq(q, 3, 1, c4, 4);
    ta_st16(q + 8, 0);
    assert_int_equal(mq(f, 0x1234u, q, n, mr), 8);
    assert_int_equal(mr[4], 3);
    assert_true(mr[5] == 4 || mr[5] == 8); /* INVALID_QUERY or CURSOR_INVALID, never records */
    ta_fix_free(f);
}

/* A syntactically well-formed cursor the server never issued: a real
 * cursor of the model (docs: next index u32, records generation u32) with
 * its index moved one past the end of the 20 records: METRICS_CURSOR_INVALID (0x08),
 * never a page and never an empty page. */
static void test_forged_cursor_is_cursor_invalid(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    char label[31];
    for (uint32_t i = 0; i < 20; i++) {
        snprintf(label, sizeof label, "label-%024u", i);
        assert_int_equal(labelled(f, i, label), SIM_SRV_ANSWERED);
    }
    uint8_t q[64], mr[1200], cursor[8];
    mq(f, 0x1234u, q, ta_mq(q, 2, 0, NULL, 0), mr);
    assert_int_equal(mr[5], 0);
    assert_int_equal(ta_ld16(mr + 8), 8);
    memcpy(cursor, mr + 12, 8);
    ta_st32(cursor, 21); /* one past the 20 records */
    assert_int_equal(mq(f, 0x1234u, q, ta_mq(q, 2, 1, cursor, sizeof cursor), mr), 8);
    assert_int_equal(mr[5], 8);
    ta_fix_free(f);
}

/* "Query Variants": FROM_CURSOR data is cursor_len, reserved, cursor,
 * cursor_padding to 4 (zero). Non-zero padding is not a well-formed query:
 * METRICS_INVALID_QUERY (0x04). */
static void test_cursor_padding_nonzero_is_invalid_query(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t c3[3] = {1, 2, 3}, q[64], mr[1200];
    size_t n = ta_mq(q, 2, 1, c3, 3);
    assert_int_equal(n, 16);
    q[15] = 0xAA;
    assert_int_equal(mq(f, 0x1234u, q, n, mr), 8);
    assert_int_equal(mr[5], 4);
    ta_fix_free(f);
}

/* "Status Query PDU": schema_version MUST be 1; 0 is not V1 either. */
static void test_status_schema_zero_dropped(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[8];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0, pdu, ta_sq(pdu, 0, 0), &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    ta_fix_free(f);
}

/* "ADD Tenant": name is UTF-8; an overlong encoding of '/' (C0 AF) is not. */
static void test_add_name_not_utf8_refused(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    tu_out_t o;
    size_t n = ta_tm(pdu, 0x03, 0, 100, "ab", f->k.cred);
    pdu[11] = 0xC0;
    pdu[12] = 0xAF;
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    ta_fix_free(f);
}

/* A refused REMOVE (non-zero flags: "Operation flags (reserved, MUST be
 * zero)") changes nothing: the tenant still answers, its records remain. */
static void test_refused_remove_changes_nothing(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    assert_int_equal(labelled(f, 0, "api"), SIM_SRV_ANSWERED);
    uint8_t before[448], after[448];
    ta_status(f, before);
    uint8_t pdu[16];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x05, 0x01, 100, NULL, NULL), &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    assert_int_equal(sim_server_tenant_count(f->s), 1);
    ta_status(f, after);
    assert_int_equal(ta_sr(after, SR_GENERATION), ta_sr(before, SR_GENERATION));
    assert_int_equal(ta_sr(after, SR_HASH), ta_sr(before, SR_HASH));
    assert_int_equal(ta_sr(after, SR_MUTATIONS), ta_sr(before, SR_MUTATIONS));
    assert_int_equal(ta_sr(after, SR_MUTATION_FAILURES), ta_sr(before, SR_MUTATION_FAILURES) + 1);
    uint8_t q[16], mr[1200];
    assert_int_equal(mq(f, 0x1234u, q, ta_mq(q, 2, 0, NULL, 0), mr), 8 + 36 + 4);
    assert_int_equal(mr[5], 1); /* LABELS_PAGE_LAST with "api" */
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_tenant_key_not_read_past_the_pdu),
        cmocka_unit_test(test_cursor_dies_with_a_removal_and_readd),
        cmocka_unit_test(test_cursor_len_lying_is_invalid_query),
        cmocka_unit_test(test_forged_cursor_is_cursor_invalid),
        cmocka_unit_test(test_cursor_padding_nonzero_is_invalid_query),
        cmocka_unit_test(test_status_schema_zero_dropped),
        cmocka_unit_test(test_add_name_not_utf8_refused),
        cmocka_unit_test(test_refused_remove_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
