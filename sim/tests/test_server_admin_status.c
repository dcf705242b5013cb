/* SPDX-License-Identifier: MIT */
/* test_server_admin_status.c - the reference server's Status Query /
 * Status Response V1 (wire_protocol.md "Status Query PDU", "Status Response
 * PDU"): the fixed 448-byte layout, validity bits, and queue-local counters
 * that count what the listener did. */
#include "sim_server_admin_util.h"

static void test_layout_and_identity(void **state) {
    (void)state;
    sim_server_params_t p = tu_params();
    p.udp_port = 5301;
    p.backend = 2;
    p.dedup_ttl_cap_ms = 1500;
    ta_fix_t *f = ta_fix_new_p(&p, false);
    uint8_t sr[448];
    ta_status(f, sr);
    assert_int_equal(ta_ld16(sr), 0x5253);
    assert_int_equal(ta_ld16(sr + 2), 448);
    assert_int_equal(sr[4], 1);                 /* schema_version */
    assert_int_equal(sr[5], 0);                 /* OK */
    assert_int_equal(ta_ld16(sr + 6), 0x00F0);  /* RL budget/allocated/headroom + dedup_ttl_ms_max valid */
    assert_int_equal(ta_ld16(sr + 10), 440);    /* record_len */
    assert_int_equal(ta_ld64(sr + 12), TA_SERVER_ID);
    assert_int_equal(ta_ld32(sr + 20), TU_NODE);
    assert_int_equal(ta_ld16(sr + 24), TU_LISTENER);
    assert_int_equal(ta_ld16(sr + 28), 5301);
    assert_int_equal(ta_ld64(sr + 32), TU_START_S * 1000u);     /* started_at_ms */
    assert_int_equal(ta_ld64(sr + 40), TU_T0 - TU_START_S * 1000u); /* uptime_ms */
    assert_int_equal(ta_ld32(sr + 56), 0x1F);   /* the five V1 health bits */
    assert_int_equal(ta_ld16(sr + 60), 2);      /* UDP fallback */
    assert_int_equal(ta_ld32(sr + 64), UINT32_MAX);
    assert_int_equal(ta_ld32(sr + 76), 0);      /* reserved0 */
    assert_int_equal(ta_sr(sr, SR_SYS_TOTAL), UINT64_MAX); /* unknown: bit 0 clear */
    assert_int_equal(ta_sr(sr, SR_BUDGET), 1ull << 30);
    assert_int_equal(ta_sr(sr, SR_CAPACITY), UINT64_MAX);
    assert_int_equal(ta_ld32(sr + 384), 1500);  /* dedup_ttl_ms_max: the listener cap */
    for (size_t i = 388; i < 448; i++) {
        assert_int_equal(sr[i], 0);             /* reserved1 */
    }
    ta_fix_free(f);
}

static void host_memory(void *ctx, sim_server_host_memory_t *out) {
    (void)ctx;
    *out = (sim_server_host_memory_t){8000000000ull, 6000000000ull, UINT64_MAX, 12345678ull};
}

/* The host's readings fill the four system fields; an unknown one (the
 * cgroup limit here) keeps its bit clear and u64::MAX. */
static void test_host_memory_fields_and_bits(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    sim_server_set_host_memory(f->s, host_memory, NULL);
    uint8_t sr[448];
    ta_status(f, sr);
    assert_int_equal(ta_ld16(sr + 6), 0x00FB); /* bits 0, 1, 3 and 4..7 */
    assert_int_equal(ta_sr(sr, SR_SYS_TOTAL), 8000000000ull);
    assert_int_equal(ta_sr(sr, SR_SYS_AVAIL), 6000000000ull);
    assert_int_equal(ta_sr(sr, SR_CGROUP), UINT64_MAX);
    assert_int_equal(ta_sr(sr, SR_RSS), 12345678ull);
    ta_fix_free(f);
}

static void test_counters_count_what_happened(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    tu_out_t o;
    uint8_t buf[1200], uid[16];
    r_resource_request_t r = tu_resource("api", 1000, 1, 1);
    for (uint32_t i = 0; i < 3; i++) { /* allowed, rate-limited, then a duplicate of the second */
        tu_uid(uid, i < 2 ? i : 1);
        size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, NULL, 0, &r, 1, NULL);
        assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), i < 2 ? SIM_SRV_ANSWERED : SIM_SRV_REPLAYED);
    }
    memset(buf, 0, 10);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, 10, &o), SIM_SRV_DROP_MALFORMED);
    uint8_t pdu[600];
    size_t n = ta_tm(pdu, 0x03, 0, 100, "x", f->k.cred);
    pdu[5] = 1;
    assert_int_equal(ta_send(f, 0x1234u, pdu, n, &o), SIM_SRV_DROP_ADMIN); /* a mutation failure */
    uint8_t sr[448];
    ta_status(f, sr);
    /* 3 rate requests, 1 malformed, 1 refused mutation, the status query itself */
    assert_int_equal(ta_sr(sr, SR_RX), 6);
    assert_int_equal(ta_sr(sr, SR_TX), 3);  /* the status response is sent after it was encoded */
    assert_int_equal(ta_sr(sr, SR_RX_DROPPED), 2);
    assert_int_equal(ta_sr(sr, SR_PARSE), 1);
    assert_int_equal(ta_sr(sr, SR_AUTH), 0);
    assert_int_equal(ta_sr(sr, SR_ADMIN), 2);
    assert_int_equal(ta_sr(sr, SR_RATE_REQ), 3);
    assert_int_equal(ta_sr(sr, SR_RATE_OK), 1);
    assert_int_equal(ta_sr(sr, SR_RATE_LIMITED), 1);
    assert_int_equal(ta_sr(sr, SR_GUARD_FAILED), 0);
    assert_int_equal(ta_sr(sr, SR_DEDUP_HITS), 1);
    assert_int_equal(ta_sr(sr, SR_DEDUP_MISSES), 2);
    assert_int_equal(ta_sr(sr, SR_MUTATIONS), 0);
    assert_int_equal(ta_sr(sr, SR_MUTATION_FAILURES), 1);
    assert_int_equal(ta_sr(sr, SR_KEYS), 1);
    assert_int_equal(ta_sr(sr, SR_BUCKET_SUM), 65536);
    assert_int_equal(ta_sr(sr, SR_SERVICE_SUM), 1024);
    assert_int_equal(ta_sr(sr, SR_LABEL_SUM), 4096);
    assert_int_equal(ta_sr(sr, SR_BUFFER_SUM), 32);
    ta_fix_free(f);
}

static void test_generation_and_hash_follow_the_table(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t a[448], b[448], c[448];
    ta_status(f, a);
    ta_add_ok(f, &f->k);
    ta_status(f, b);
    assert_int_equal(ta_sr(b, SR_GENERATION), ta_sr(a, SR_GENERATION) + 1);
    assert_int_equal(ta_sr(b, SR_MUTATIONS), 1);
    assert_true(ta_sr(b, SR_HASH) != ta_sr(a, SR_HASH));
    uint8_t pdu[16];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0x1234u, pdu, ta_tm(pdu, 0x05, 0, 100, NULL, NULL), &o), SIM_SRV_ADMIN_ANSWERED);
    ta_status(f, c);
    assert_int_equal(ta_sr(c, SR_GENERATION), ta_sr(a, SR_GENERATION) + 2);
    assert_int_equal(ta_sr(c, SR_HASH), ta_sr(a, SR_HASH)); /* the same set of keys again */
    assert_int_equal(ta_sr(c, SR_KEYS), 0);
    ta_fix_free(f);
}

static void test_bad_status_query_unanswered(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(false);
    uint8_t pdu[12];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0, pdu, ta_sq(pdu, 2, 0), &o), SIM_SRV_DROP_ADMIN); /* schema_version */
    assert_int_equal(ta_send(f, 0, pdu, ta_sq(pdu, 1, 1), &o), SIM_SRV_DROP_ADMIN); /* query_kind */
    ta_sq(pdu, 1, 0);
    pdu[6] = 1;
    assert_int_equal(ta_send(f, 0, pdu, 8, &o), SIM_SRV_DROP_ADMIN); /* reserved */
    ta_sq(pdu, 1, 0);
    ta_st16(pdu + 2, 12);
    memset(pdu + 8, 0, 4);
    assert_int_equal(ta_send(f, 0, pdu, 12, &o), SIM_SRV_DROP_ADMIN); /* pdu_size MUST be 8 */
    assert_int_equal(o.len, 0);
    /* key_id is not interpreted: any value is answered */
    assert_int_equal(ta_send(f, 0xFFFFu, pdu, ta_sq(pdu, 1, 0), &o), SIM_SRV_ADMIN_ANSWERED);
    ta_fix_free(f);
}

static void test_restart_resets_queue_counters(void **state) {
    (void)state;
    ta_fix_t *f = ta_fix_new(true);
    uint8_t sr[448];
    ta_status(f, sr);
    assert_int_equal(ta_sr(sr, SR_RX), 1);
    assert_int_equal(sim_server_restart(f->s, TU_START_S + 10), 0);
    uint8_t pdu[8], buf[1200];
    size_t len = ta_frame(f, buf, 0, 99, pdu, ta_sq(pdu, 1, 0));
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(ta_ld64(o.bytes + 4), TA_SERVER_ID + (10ull << 23)); /* the new server_id */
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&f->admin, o.bytes, o.len, &why), RCLIENT_OK);
    assert_int_equal(ta_sr(o.bytes + 72, SR_RX), 1);
    assert_int_equal(ta_sr(o.bytes + 72, SR_KEYS), 1); /* configuration survives */
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_and_identity),
        cmocka_unit_test(test_host_memory_fields_and_bits),
        cmocka_unit_test(test_counters_count_what_happened),
        cmocka_unit_test(test_generation_and_hash_follow_the_table),
        cmocka_unit_test(test_bad_status_query_unanswered),
        cmocka_unit_test(test_restart_resets_queue_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
