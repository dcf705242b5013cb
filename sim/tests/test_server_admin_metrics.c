/* SPDX-License-Identifier: MIT */
/* test_server_admin_metrics.c - the reference server's Metrics Query /
 * Metrics Response (wire_protocol.md "Metrics Query PDU", "Metrics Response
 * PDU", "Metrics Record Formats", "Quota Enforcement Semantics" label
 * overflow, "Pagination rules", one Metrics Query per tenant per batch). */
#include "sim_server_admin_util.h"

/* Rate request #n of the tenant with label (NULL: none) and guard g (NULL: none). */
static sim_server_verdict_t req(ta_fix_t *f, uint32_t n, const char *label, uint16_t tokens,
                                const r_latency_guard_t *g) {
    r_resource_request_t r = tu_resource("api", 1000, 2, tokens);
    uint8_t buf[1200], uid[16];
    tu_out_t o;
    tu_uid(uid, 5000 + n);
    size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, g, g == NULL ? 0 : 1, &r, 1, label);
    return tu_handle(f->s, TU_T0, buf, len, &o);
}

/* A Metrics Query answered; returns the plaintext MR (copied into mr). */
static size_t mq(ta_fix_t *f, uint64_t key_id, uint8_t family, uint8_t kind, const uint8_t *cursor, size_t clen,
                 uint8_t *mr) {
    uint8_t pdu[1200];
    tu_out_t o;
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, key_id, pdu, ta_mq(pdu, family, kind, cursor, clen), &o), SIM_SRV_ADMIN_ANSWERED);
    size_t n = 0;
    const uint8_t *p = ta_open(f, &o, f->uid_n, &n);
    memcpy(mr, p, n);
    assert_int_equal(ta_ld16(mr), 0x524D);
    assert_int_equal(mr[4], family);
    return n;
}

static void test_summary_counts_each_result(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    r_latency_guard_t g = tu_guard("db", 50, 1000, 10, 4, 1);
    assert_int_equal(req(f, 0, NULL, 1, NULL), SIM_SRV_ANSWERED);  /* success */
    assert_int_equal(req(f, 1, NULL, 1, NULL), SIM_SRV_ANSWERED);  /* success (2 of 2) */
    assert_int_equal(req(f, 2, NULL, 1, NULL), SIM_SRV_ANSWERED);  /* rate_limited */
    r_service_latency_report_t rep[3] = {tu_sample(&g, 80), tu_sample(&g, 90), tu_sample(&g, 95)};
    assert_int_equal(tu_send_report(&(tu_fix_t){f->s, f->k, 60}, TU_T0, 9, rep, 3), SIM_SRV_REPORT);
    assert_int_equal(req(f, 3, NULL, 0, &g), SIM_SRV_ANSWERED);   /* guard_failed: 80 >= 50 */
    /* auth failure: a cookie-mode datagram for an rl-none key */
    tu_key_t wrong;
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_init(&wrong, R_AUTH_COOKIE, 0x1234u, &q);
    uint8_t buf[1200], uid[16];
    tu_out_t o;
    tu_uid(uid, 77);
    r_resource_request_t r = tu_resource("api", 1000, 2, 1);
    size_t len = tu_request(&wrong, buf, uid, TU_T0, 60, NULL, 0, &r, 1, NULL);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_AUTH);
    tu_key_free(&wrong);
    uint8_t mr[1200];
    size_t n = mq(f, 0x1234u, 1, 0, NULL, 0, mr);
    assert_int_equal(n, 48);
    assert_int_equal(mr[5], 0); /* SUMMARY_PAGE */
    assert_int_equal(ta_ld64(mr + 8), 2);
    assert_int_equal(ta_ld64(mr + 16), 1);
    assert_int_equal(ta_ld64(mr + 24), 1);
    assert_int_equal(ta_ld64(mr + 32), 1);
    assert_int_equal(ta_ld64(mr + 40), 3);
    ta_fix_free(f);
}

static void test_unknown_tenant_not_found(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t mr[1200];
    const uint8_t want1[8] = {0x4d, 0x52, 0x08, 0x00, 0x01, 0x01, 0x00, 0x00};
    assert_int_equal(mq(f, 42, 1, 0, NULL, 0, mr), 8);
    assert_memory_equal(mr, want1, 8);
    const uint8_t want2[8] = {0x4d, 0x52, 0x08, 0x00, 0x02, 0x03, 0x00, 0x00};
    assert_int_equal(mq(f, 42, 2, 0, NULL, 0, mr), 8);
    assert_memory_equal(mr, want2, 8);
    ta_fix_free(f);
}

static void test_labels_with_overflow(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    r_api_key_quotas_t q = tu_default_quotas();
    q.metrics_labels_max = 2;
    tu_key_free(&f->k);
    tu_key_init(&f->k, R_AUTH_NONE, 0x1234u, &q);
    assert_int_equal(sim_server_add_tenant(f->s, f->k.cred), 0);
    assert_int_equal(req(f, 0, NULL, 1, NULL), SIM_SRV_ANSWERED);   /* "" success */
    assert_int_equal(req(f, 1, "api", 1, NULL), SIM_SRV_ANSWERED);  /* "api" success */
    assert_int_equal(req(f, 2, "web", 1, NULL), SIM_SRV_ANSWERED);  /* overflow, rate_limited */
    assert_int_equal(req(f, 3, "cart", 1, NULL), SIM_SRV_ANSWERED); /* overflow, rate_limited */
    uint8_t mr[1200];
    size_t n = mq(f, 0x1234u, 2, 0, NULL, 0, mr);
    assert_int_equal(mr[5], 1); /* LABELS_PAGE_LAST */
    assert_int_equal(n, 8 + 36 + (36 + 4) + (36 + 8));
    const uint8_t *r0 = mr + 8, *r1 = r0 + 36, *r2 = r1 + 40;
    assert_int_equal(ta_ld64(r0), 1);
    assert_int_equal(ta_ld16(r0 + 32), 0);
    assert_int_equal(ta_ld64(r1), 1);
    assert_int_equal(ta_ld16(r1 + 32), 3);
    assert_memory_equal(r1 + 36, "api\0", 4);
    assert_int_equal(ta_ld64(r2), 0);
    assert_int_equal(ta_ld64(r2 + 8), 2);
    assert_int_equal(ta_ld16(r2 + 32), 8);
    assert_memory_equal(r2 + 36, "overflow", 8);
    assert_int_equal(sim_server_stats(f->s)->labels_overflowed, 2);
    ta_fix_free(f);
}

/* 40 labels of 30 bytes (records of 36 + 32 = 68 bytes): a page holds
 * (1128 - 8 - 12) / 68 = 16 with a cursor, and the last 8 end the walk. */
static void test_labels_paginate_with_opaque_cursor(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    char label[31];
    for (uint32_t i = 0; i < 40; i++) {
        snprintf(label, sizeof label, "label-%024u", i);
        assert_int_equal(req(f, i, label, 0, NULL), SIM_SRV_ANSWERED);
    }
    uint8_t mr[1200], cursor[64];
    size_t clen = 0;
    uint32_t seen = 0;
    uint8_t kinds[3];
    for (int page = 0; page < 3; page++) {
        size_t n = mq(f, 0x1234u, 2, page == 0 ? 0 : 1, page == 0 ? NULL : cursor, clen, mr);
        kinds[page] = mr[5];
        size_t at = 8;
        if (mr[5] == 0) {
            clen = ta_ld16(mr + 8);
            memcpy(cursor, mr + 12, clen);
            at = 12 + ((clen + 3) & ~(size_t)3);
        }
        for (; at < n; at += 68) {
            snprintf(label, sizeof label, "label-%024u", seen);
            assert_int_equal(ta_ld16(mr + at + 32), 30);
            assert_memory_equal(mr + at + 36, label, 30);
            assert_int_equal(ta_ld64(mr + at), 1);
            seen++;
        }
    }
    assert_int_equal(kinds[0], 0);
    assert_int_equal(kinds[1], 0);
    assert_int_equal(kinds[2], 1);
    assert_int_equal(seen, 40);
    /* a cursor of another length, or after a restart, cannot be continued */
    assert_int_equal(mq(f, 0x1234u, 2, 1, cursor, clen - 1, mr), 8);
    assert_int_equal(mr[5], 8); /* METRICS_CURSOR_INVALID */
    assert_int_equal(sim_server_restart(f->s, TU_START_S + 5), 0);
    uint8_t pdu[64], buf[1200];
    sim_server_batch_begin(f->s);
    size_t len = ta_frame(f, buf, 0x1234u, 999, pdu, ta_mq(pdu, 2, 1, cursor, clen));
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ADMIN_ANSWERED);
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&f->admin, o.bytes, o.len, &why), RCLIENT_OK);
    assert_int_equal(o.bytes[72 + 5], 8);
    ta_fix_free(f);
}

/* A replacing ADD keeps the tenant's records: a cursor taken before it
 * continues (wire_protocol.md "best-effort across storage mutation"). */
static void test_cursor_survives_an_upsert(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    char label[31];
    for (uint32_t i = 0; i < 20; i++) {
        snprintf(label, sizeof label, "label-%024u", i);
        assert_int_equal(req(f, i, label, 0, NULL), SIM_SRV_ANSWERED);
    }
    uint8_t mr[1200], cursor[16];
    mq(f, 0x1234u, 2, 0, NULL, 0, mr);
    assert_int_equal(mr[5], 0); /* LABELS_PAGE_MORE: 16 of 20 */
    size_t clen = ta_ld16(mr + 8);
    memcpy(cursor, mr + 12, clen);
    r_api_key_quotas_t q = tu_default_quotas();
    q.rate_buckets_max = 8;
    tu_key_t k2;
    tu_key_init(&k2, R_AUTH_NONE, 0x1234u, &q);
    ta_add_ok(f, &k2);
    size_t n = mq(f, 0x1234u, 2, 1, cursor, clen, mr);
    assert_int_equal(mr[5], 1); /* LABELS_PAGE_LAST: the other 4 */
    assert_int_equal(n, 8 + 4 * 68);
    snprintf(label, sizeof label, "label-%024u", 16u);
    assert_memory_equal(mr + 8 + 36, label, 30);
    tu_key_free(&k2);
    ta_fix_free(f);
}

static void test_label_record_too_large(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    char big[1101];
    memset(big, 'x', 1100);
    big[1100] = '\0';
    assert_int_equal(req(f, 0, big, 0, NULL), SIM_SRV_ANSWERED); /* 36 + 1100 > 1120 bytes of records */
    uint8_t mr[1200];
    assert_int_equal(mq(f, 0x1234u, 2, 0, NULL, 0, mr), 8);
    assert_int_equal(mr[5], 7); /* METRICS_RECORD_TOO_LARGE */
    ta_fix_free(f);
}

static void test_service_counters(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    r_latency_guard_t g = tu_guard("db", 50, 1000, 10, 4, 1);
    uint8_t mr[1200];
    const uint8_t empty[8] = {0x4d, 0x52, 0x08, 0x00, 0x03, 0x02, 0x00, 0x00}; /* SERVICES_EMPTY */
    assert_int_equal(mq(f, 0x1234u, 3, 0, NULL, 0, mr), 8);
    assert_memory_equal(mr, empty, 8);
    assert_int_equal(req(f, 0, NULL, 0, &g), SIM_SRV_ANSWERED); /* no sample: current 0 < 50 passes */
    r_service_latency_report_t rep[2] = {tu_sample(&g, 70), tu_sample(&g, 75)};
    assert_int_equal(tu_send_report(&(tu_fix_t){f->s, f->k, 60}, TU_T0, 9, rep, 2), SIM_SRV_REPORT);
    assert_int_equal(req(f, 1, NULL, 0, &g), SIM_SRV_ANSWERED); /* 70 >= 50 fails */
    r_latency_guard_t g0 = g;
    g0.threshold_ms = 0; /* always rejects, but is not counted as checks_failed */
    assert_int_equal(req(f, 2, NULL, 0, &g0), SIM_SRV_ANSWERED);
    assert_int_equal(mq(f, 0x1234u, 3, 0, NULL, 0, mr), 8 + 64);
    assert_int_equal(mr[5], 1); /* SERVICES_PAGE_LAST */
    assert_memory_equal(mr + 8, g.latency_tracker_id, 16);
    assert_int_equal(ta_ld32(mr + 24), 1000);
    assert_int_equal(ta_ld32(mr + 28), 10);
    assert_int_equal(ta_ld32(mr + 32), 4);
    assert_int_equal(ta_ld32(mr + 36), 1);
    assert_int_equal(ta_ld64(mr + 40), 2); /* report_count */
    assert_int_equal(ta_ld64(mr + 48), 3); /* checks_total */
    assert_int_equal(ta_ld64(mr + 56), 1); /* checks_passed */
    assert_int_equal(ta_ld64(mr + 64), 1); /* checks_failed */
    ta_fix_free(f);
}

static void test_one_query_per_tenant_per_batch(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t pdu[16];
    tu_out_t o;
    size_t n = ta_mq(pdu, 1, 0, NULL, 0);
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_mq(pdu, 2, 0, NULL, 0), &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    assert_int_equal(ta_send(f, 0x77u, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED); /* another key_id: not limited */
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED);
    ta_fix_free(f);
}

static void test_invalid_and_unsupported_queries(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t pdu[32], mr[1200];
    tu_out_t o;
    size_t n = ta_mq(pdu, 2, 0, NULL, 0);
    pdu[6] = 1; /* reserved */
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED);
    size_t pn = 0;
    assert_int_equal(ta_open(f, &o, f->uid_n, &pn)[5], 4); /* METRICS_INVALID_QUERY */
    assert_int_equal(mq(f, 0x1234u, 2, 2, NULL, 0, mr), 8);
    assert_int_equal(mr[5], 5); /* METRICS_UNSUPPORTED */
    assert_int_equal(mq(f, 0x1234u, 1, 1, NULL, 0, mr), 8);
    assert_int_equal(mr[5], 3); /* summary METRICS_UNSUPPORTED */
    sim_server_batch_begin(f->s);
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_mq(pdu, 4, 0, NULL, 0), &o), SIM_SRV_DROP_ADMIN); /* family */
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_counts_each_result),
        cmocka_unit_test(test_unknown_tenant_not_found),
        cmocka_unit_test(test_labels_with_overflow),
        cmocka_unit_test(test_labels_paginate_with_opaque_cursor),
        cmocka_unit_test(test_cursor_survives_an_upsert),
        cmocka_unit_test(test_label_record_too_large),
        cmocka_unit_test(test_service_counters),
        cmocka_unit_test(test_one_query_per_tenant_per_batch),
        cmocka_unit_test(test_invalid_and_unsupported_queries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
