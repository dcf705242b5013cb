/* SPDX-License-Identifier: MIT */
/* test_server_admin_tenant.c - the reference server's Tenant Mutation rules
 * (wire_protocol.md "Tenant Mutation PDU", "Deterministic validation rules",
 * "Tenant Acknowledgment PDU", "Administrative Authentication"): every
 * accepted mutation is acknowledged with the 12-byte Tenant Ack and takes
 * effect; every rejected one gets no response and changes nothing. */
#include "rl_bech32.h"
#include "sim_server_admin_util.h"

/* A rate request of key k at TU_T0 (#n): its verdict. */
static sim_server_verdict_t use(ta_fix_t *f, tu_key_t *k, uint32_t n, uint16_t tokens, uint16_t *deficit) {
    r_resource_request_t r = tu_resource("api", 1000, 5, tokens);
    uint8_t buf[1200], uid[16];
    tu_out_t o;
    tu_uid(uid, 1000 + n);
    size_t len = tu_request(k, buf, uid, TU_T0, 60, NULL, 0, &r, 1, NULL);
    sim_server_verdict_t v = tu_handle(f->s, TU_T0, buf, len, &o);
    if (v == SIM_SRV_ANSWERED && deficit != NULL) {
        tu_parsed_t p;
        tu_parse_ok(k, o.bytes, o.len, uid, TA_SERVER_ID, &p);
        *deficit = tu_res_at(&p, 0).tokens_deficit;
    }
    return v;
}

/* Send a mutation expected to be refused: no response, the tenant count unchanged. */
static void refused(ta_fix_t *f, uint64_t key_id, const uint8_t *pdu, size_t n, sim_server_verdict_t want) {
    size_t before = sim_server_tenant_count(f->s);
    tu_out_t o;
    assert_int_equal(ta_send(f, key_id, pdu, n, &o), want);
    assert_int_equal(o.len, 0);
    assert_int_equal(sim_server_tenant_count(f->s), before);
}

static void test_add_acknowledged_and_usable(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    assert_int_equal(use(f, &f->k, 0, 1, NULL), SIM_SRV_DROP_TENANT);
    ta_add_ok(f, &f->k);
    assert_int_equal(sim_server_tenant_count(f->s), 1);
    assert_int_equal(use(f, &f->k, 1, 1, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutations, 1);
    ta_fix_free(f);
}

static void test_add_is_upsert_with_new_quotas(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    r_api_key_quotas_t q = tu_default_quotas();
    q.rate_buckets_max = 4;
    tu_key_t k2;
    tu_key_init(&k2, R_AUTH_COOKIE, 0x1234u, &q); /* same key_id, other auth mode and quota */
    ta_add_ok(f, &k2);
    assert_int_equal(sim_server_tenant_count(f->s), 1);
    assert_int_equal(use(f, &k2, 0, 1, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(use(f, &f->k, 1, 1, NULL), SIM_SRV_DROP_AUTH); /* the old credential is gone */
    uint8_t sr[448];
    ta_status(f, sr);
    assert_int_equal(ta_sr(sr, SR_KEYS), 1);
    assert_int_equal(ta_sr(sr, SR_BUCKET_SUM), 4);
    tu_key_free(&k2);
    ta_fix_free(f);
}

static void test_unknown_hrp_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    /* An rl-secret credential is not a tenant key (wire_protocol.md "rl-secret"). */
    char secret[120];
    uint8_t raw[32] = {1};
    assert_true(rl_bech32_encode("rl-secret", raw, 32, secret, sizeof secret) > 0);
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "x", secret), SIM_SRV_DROP_ADMIN);
    /* the same payload under an unknown HRP */
    char other[200];
    strcpy(other, f->k.cred);
    memcpy(other, "rl-nope", 7); /* breaks the checksum too: still no ack */
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "x", other), SIM_SRV_DROP_ADMIN);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutation_failures, 2);
    ta_fix_free(f);
}

static void test_key_id_mismatch_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    refused(f, 0x1235u, pdu, ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred), SIM_SRV_DROP_ADMIN);
    ta_fix_free(f);
}

static void test_bad_quota_word_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = R_AUTH_NONE;
    info.key_id = 0x1234u;
    info.quota_word = 0xf8f2b150u & ~(0xFFu << 19); /* dedup_units 0: only 1..200 are valid */
    char cred[200];
    assert_true(rl_credential_encode(&info, cred, sizeof cred) > 0);
    uint8_t pdu[600];
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "x", cred), SIM_SRV_DROP_ADMIN);
    ta_fix_free(f);
}

static void test_payload_shape_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    /* rl-none with an rl-cookie-sized payload (45 bytes, want 13): wire_protocol.md "rl-none" */
    uint8_t payload[45] = {1, 0x34, 0x12};
    payload[41] = 0x50, payload[42] = 0xb1, payload[43] = 0xf2, payload[44] = 0xf8;
    char cred[200];
    assert_true(rl_bech32_encode("rl-none", payload, sizeof payload, cred, sizeof cred) > 0);
    uint8_t pdu[600];
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0, 100, "x", cred), SIM_SRV_DROP_ADMIN);
    ta_fix_free(f);
}

static void test_nonzero_flags_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x03, 0x01, 100, "x", f->k.cred), SIM_SRV_DROP_ADMIN);
    ta_fix_free(f);
}

static void test_unknown_operation_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    refused(f, 0x1234u, pdu, ta_tm(pdu, 0x04, 0, 100, "x", f->k.cred), SIM_SRV_DROP_ADMIN);
    ta_fix_free(f);
}

static void test_malformed_payload_rejected(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t pdu[600];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
    pdu[10] = 200; /* name_len past the PDU */
    refused(f, 0x1234u, pdu, n, SIM_SRV_DROP_ADMIN);
    n = ta_tm(pdu, 0x05, 0, 100, NULL, NULL);
    pdu[n] = 0;
    ta_st16(pdu + 2, (uint16_t)(n + 1)); /* REMOVE with a payload byte */
    refused(f, 0x1234u, pdu, n + 1, SIM_SRV_DROP_ADMIN);
    n = ta_tm(pdu, 0x03, 0, 0, "x", f->k.cred); /* dedup_ttl_ms is required */
    refused(f, 0x1234u, pdu, n, SIM_SRV_DROP_ADMIN);
    n = ta_tm(pdu, 0x03, 0, 100, "\xff", f->k.cred); /* name is UTF-8 */
    refused(f, 0x1234u, pdu, n, SIM_SRV_DROP_ADMIN);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutation_failures, 4);
    ta_fix_free(f);
}

/* The log reason of a non-UTF-8 name names name_len and the rule, not a
 * meaningless "name 0" (wire_protocol.md "ADD Tenant": name is UTF-8). */
static void test_non_utf8_name_reason(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "a\xff", f->k.cred);
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_DROP_ADMIN);
    char got[200];
    sim_server_reason_text(&o.result.why, got, sizeof got);
    assert_string_equal(got, "tenant mutation: name_len 2 (name is not valid UTF-8)");
    ta_fix_free(f);
}

static void test_duplicate_replays_the_ack(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600], buf[1200];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
    size_t len = ta_frame(f, buf, 0x1234u, 7, pdu, n);
    tu_out_t a, b, c;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &a), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 99, buf, len, &b), SIM_SRV_ADMIN_REPLAYED);
    assert_int_equal(b.len, a.len);
    assert_memory_equal(b.bytes, a.bytes, a.len);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutations, 1);
    /* at the end of the accepted window the mutation is executed afresh */
    assert_int_equal(tu_handle(f->s, TU_T0 + 100, buf, len, &c), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(sim_server_stats(f->s)->tenant_mutations, 2);
    ta_fix_free(f);
}

static void test_remove_drops_tenant_and_state(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint16_t deficit = 9;
    assert_int_equal(use(f, &f->k, 0, 5, &deficit), SIM_SRV_ANSWERED); /* the bucket is full: 5 of 5 */
    assert_int_equal(deficit, 0);
    uint8_t pdu[16];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x05, 0, 100, NULL, NULL), &o), SIM_SRV_ADMIN_ANSWERED);
    size_t pn = 0;
    const uint8_t *ack = ta_open(f, &o, f->uid_n, &pn);
    const uint8_t want[12] = {0x41, 0x54, 0x0c, 0x00, 0x05, 0x00, 0, 0, 0, 0, 0, 0};
    assert_memory_equal(ack, want, 12);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    assert_int_equal(use(f, &f->k, 1, 1, NULL), SIM_SRV_DROP_TENANT);
    /* re-added: its bucket starts empty again (state was removed with it) */
    ta_add_ok(f, &f->k);
    assert_int_equal(use(f, &f->k, 2, 5, &deficit), SIM_SRV_ANSWERED);
    assert_int_equal(deficit, 0);
    ta_fix_free(f);
}

static void test_remove_of_absent_tenant_acknowledged(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[16];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x99u, pdu, ta_tm(pdu, 0x05, 0, 100, NULL, NULL), &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(o.len, 84);
    ta_fix_free(f);
}

/* Memory admission: estimate = 128 B x rate_buckets_max + 800 B x
 * latency_services_max + 24 B x latency_services_max x latency_buffer_size_max
 * + 96 B x metrics_labels_max + 1024 B, allocated includes the dedup cache
 * (1400 B per entry of capacity) - sim_server_admin.c "Memory admission". */
static void test_memory_admission_at_the_budget(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas(); /* 65536, 1024, 4096, buffer 32 */
    uint64_t est = 128ull * 65536 + 800ull * 1024 + 24ull * 1024 * 32 + 1264ull * 4096 + 1024;
    uint64_t dedup = 16ull * 1400;
    for (int over = 0; over <= 1; over++) {
        sim_server_params_t p = tu_params();
        p.dedup_capacity = 16;
        p.memory_budget_bytes = dedup + est - (uint64_t)over;
        ta_fix_t *f = ta_fix_new_p(&p, false);
        tu_key_t k;
        tu_key_init(&k, R_AUTH_NONE, 0x1234u, &q);
        uint8_t pdu[600];
        size_t n = ta_tm(pdu, 0x03, 0, 100, "x", k.cred);
        if (over == 0) {
            ta_add_ok(f, &k);
            uint8_t sr[448];
            ta_status(f, sr);
            assert_int_equal(ta_sr(sr, SR_ALLOCATED), dedup + est);
            assert_int_equal(ta_sr(sr, SR_HEADROOM), 0);
            assert_int_equal(ta_sr(sr, SR_ALLOC_FAIL), 0);
        } else {
            refused(f, 0x1234u, pdu, n, SIM_SRV_DROP_ADMIN);
            assert_int_equal(sim_server_stats(f->s)->allocation_failures, 1);
            uint8_t sr[448];
            ta_status(f, sr);
            assert_int_equal(ta_sr(sr, SR_ALLOC_FAIL), 1);
            assert_int_equal(ta_sr(sr, SR_ALLOCATED), dedup);
        }
        tu_key_free(&k);
        ta_fix_free(f);
    }
}

/* The host says how much memory is left: an ADD whose growth is above
 * system_available, or above cgroup_limit - process_rss, is refused even
 * within the budget ("compare it with ... available system/cgroup memory"). */
static sim_server_host_memory_t fake_mem;
static void fake_memory(void *ctx, sim_server_host_memory_t *out) {
    (void)ctx;
    *out = fake_mem;
}

static void test_memory_admission_against_the_host(void **state) {
    (void)state;
    uint64_t est = 128ull * 65536 + 800ull * 1024 + 24ull * 1024 * 32 + 1264ull * 4096 + 1024; /* default quotas */
    uint64_t cases[4][3] = {
        /* system_available, cgroup_limit, process_rss; admitted when est fits both */
        {est, UINT64_MAX, UINT64_MAX}, {est - 1, UINT64_MAX, UINT64_MAX},
        {UINT64_MAX, 100u * est, 99u * est}, {UINT64_MAX, 100u * est, 99u * est + 1},
    };
    for (int i = 0; i < 4; i++) {
        ta_fix_t *f = ta_fix_new(false);
        fake_mem = (sim_server_host_memory_t){UINT64_MAX, cases[i][0], cases[i][1], cases[i][2]};
        sim_server_set_host_memory(f->s, fake_memory, NULL);
        uint8_t pdu[600];
        size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
        if (i % 2 == 0) {
            ta_add_ok(f, &f->k);
        } else {
            refused(f, 0x1234u, pdu, n, SIM_SRV_DROP_ADMIN);
            assert_int_equal(sim_server_stats(f->s)->allocation_failures, 1);
        }
        ta_fix_free(f);
    }
}

static void test_admin_key_required(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[600], buf[1200];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
    tu_out_t o;
    /* another auth type (an unknown one: cookie framing would need 36 bytes) */
    size_t len = ta_frame_typed(f, buf, 0x1234u, 1, TU_T0, pdu, n, 0x4141);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_AUTH);
    /* sealed under another key */
    ta_fix_t *g = ta_fix_new(false);
    g->secret[0] ^= 1;
    rl_auth_release(&g->admin);
    assert_int_equal(rl_auth_init(&g->admin, R_AUTH_AES, g->secret), RCLIENT_OK);
    len = ta_frame(g, buf, 0x1234u, 2, pdu, n);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_AUTH);
    assert_int_equal(o.len, 0);
    /* no admin key configured: administrative traffic is not authenticated */
    assert_int_equal(sim_server_set_admin_key(f->s, NULL), 0);
    len = ta_frame(f, buf, 0x1234u, 3, pdu, n);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_TENANT);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    ta_fix_free(g);
    ta_fix_free(f);
}

static void test_stale_mutation_dropped(void **state) {
    (void)state;
    sim_server_params_t p = tu_params();
    p.freshness_ms = 500;
    ta_fix_t *f = ta_fix_new_p(&p, false);
    uint8_t pdu[600], buf[1200];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
    size_t len = ta_frame_typed(f, buf, 0x1234u, 1, TU_T0 - 501, pdu, n, 0x4541);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    ta_fix_free(f);
}

static void test_admit_tenant_direct(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    sim_server_reason_t why;
    memset(&why, 0, sizeof why);
    assert_int_equal(sim_server_admit_tenant(f->s, 0x1235u, f->k.cred, &why), -1);
    assert_string_equal(why.field, "tenant_key key_id");
    assert_int_equal(sim_server_admit_tenant(f->s, 0x1234u, f->k.cred, &why), 0);
    assert_int_equal(sim_server_tenant_count(f->s), 1);
    assert_int_equal(sim_server_remove_tenant(f->s, 0x1234u), 0);
    assert_int_equal(sim_server_remove_tenant(f->s, 0x1234u), 1);
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_acknowledged_and_usable),
        cmocka_unit_test(test_add_is_upsert_with_new_quotas),
        cmocka_unit_test(test_non_utf8_name_reason),
        cmocka_unit_test(test_unknown_hrp_rejected),
        cmocka_unit_test(test_key_id_mismatch_rejected),
        cmocka_unit_test(test_bad_quota_word_rejected),
        cmocka_unit_test(test_payload_shape_rejected),
        cmocka_unit_test(test_nonzero_flags_rejected),
        cmocka_unit_test(test_unknown_operation_rejected),
        cmocka_unit_test(test_malformed_payload_rejected),
        cmocka_unit_test(test_duplicate_replays_the_ack),
        cmocka_unit_test(test_remove_drops_tenant_and_state),
        cmocka_unit_test(test_remove_of_absent_tenant_acknowledged),
        cmocka_unit_test(test_memory_admission_at_the_budget),
        cmocka_unit_test(test_memory_admission_against_the_host),
        cmocka_unit_test(test_admin_key_required),
        cmocka_unit_test(test_stale_mutation_dropped),
        cmocka_unit_test(test_admit_tenant_direct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
