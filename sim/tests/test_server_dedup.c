/* SPDX-License-Identifier: MIT */
/* test_server_dedup.c - reference server: deduplication cache (wire_protocol.md
 * "unique_id" Deduplication Key, "Deduplication Health Model";
 * r-client-ha-design.md 11 items 1-3), restart and server_id. */
#include "sim_server_test_util.h"

static tu_fix_t *fix_with(uint32_t capacity, uint32_t ttl_cap_ms, r_auth_type_t type) {
    return tu_fix_dedup(type, capacity, ttl_cap_ms, 0);
}

static void test_duplicate_replays_identical_bytes_without_consuming(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_AES);
    r_resource_request_t r = tu_resource("api", 1000, 10, 4);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t first, again;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &first), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 30, q.buf, q.len, &again), SIM_SRV_REPLAYED);
    assert_int_equal(again.len, first.len);
    assert_memory_equal(again.bytes, first.bytes, first.len); /* same nonce, same tag */
    assert_true(again.result.allowed);
    assert_int_equal(again.result.tokens_granted, 0);
    assert_int_equal(tu_take(f, TU_T0 + 31, 2, &r, NULL), 8); /* 4 + 4: the replay took nothing */
    const sim_server_stats_t *st = sim_server_stats(f->s);
    assert_int_equal(st->dedup_hits, 1);
    assert_int_equal(st->dedup_misses, 2);
    assert_int_equal(st->verdicts[SIM_SRV_REPLAYED], 1);
    assert_true(st->dedup_hit_age_sum > 0.49 && st->dedup_hit_age_sum < 0.51); /* 30 of 60 ms */
    tu_fix_free(f);
}

static void test_denied_request_replays_its_deny(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_COOKIE);
    r_resource_request_t r = tu_resource("api", 1000, 2, 3);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0 + 990, &r);
    tu_out_t first, again;
    assert_int_equal(tu_handle(f->s, TU_T0 + 990, q.buf, q.len, &first), SIM_SRV_ANSWERED);
    assert_false(first.result.allowed);
    /* The next window has room, but within the TTL the cached deny is replayed. */
    assert_int_equal(tu_handle(f->s, TU_T0 + 1040, q.buf, q.len, &again), SIM_SRV_REPLAYED);
    assert_false(again.result.allowed);
    assert_memory_equal(again.bytes, first.bytes, first.len);
    tu_fix_free(f);
}

static void test_entry_expires_exactly_at_accepted_ttl(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_NONE);
    r_resource_request_t r = tu_resource("api", 10000, 10, 1);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 59, q.buf, q.len, &o), SIM_SRV_REPLAYED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 60, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(o.result.tokens_granted, 1); /* processed afresh: consumed again */
    assert_int_equal(sim_server_stats(f->s)->dedup_reprocessed, 0); /* expiry is not a loss */
    tu_fix_free(f);
}

static void test_ttl_zero_and_above_key_max_dropped(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_AES);
    r_resource_request_t r = tu_resource("api", 1000, 10, 1);
    tu_out_t o;
    f->ttl = 0;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, &r, 1, &o, NULL), SIM_SRV_DROP_DEDUP_TTL);
    assert_int_equal(o.len, 0);
    f->ttl = 301;
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, &r, 1, &o, NULL), SIM_SRV_DROP_DEDUP_TTL);
    assert_int_equal(o.len, 0);
    f->ttl = 300; /* exactly dedup_ttl_ms_max */
    assert_int_equal(tu_send(f, TU_T0, 3, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(tu_take(f, TU_T0, 4, &r, NULL), 2); /* the dropped ones took nothing */
    tu_fix_free(f);
}

static void test_capacity_evicts_oldest_and_counts_reprocessing(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(2, 0, R_AUTH_NONE);
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q[3];
    tu_out_t o;
    for (uint32_t i = 0; i < 3; i++) {
        tu_make_req(f, &q[i], i + 1, TU_T0, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + i, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
    }
    const sim_server_stats_t *st = sim_server_stats(f->s);
    assert_int_equal(st->dedup_evicted_capacity, 1);
    assert_int_equal(st->dedup_live_max, 2);
    assert_int_equal(tu_handle(f->s, TU_T0 + 10, q[2].buf, q[2].len, &o), SIM_SRV_REPLAYED); /* newest kept */
    assert_int_equal(tu_handle(f->s, TU_T0 + 10, q[0].buf, q[0].len, &o), SIM_SRV_ANSWERED); /* oldest lost */
    assert_int_equal(st->dedup_reprocessed, 1);
    assert_int_equal(st->dedup_evicted_capacity, 2); /* re-inserting #1 pushed out #2 */
    tu_fix_free(f);
}

static void test_expired_head_is_reclaimed_without_eviction(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(1, 0, R_AUTH_NONE);
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_out_t o;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(tu_send(f, TU_T0 + 60, 2, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 0);
    tu_fix_free(f);
}

static void test_degraded_loss_reprocesses_then_heals(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_AES);
    r_resource_request_t r = tu_resource("api", 10000, 100, 5);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    sim_server_set_dedup_degraded(f->s, 1.0, 0);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(o.result.tokens_granted, 5); /* consumed a second time */
    const sim_server_stats_t *st = sim_server_stats(f->s);
    assert_int_equal(st->dedup_lost_degraded, 1);
    assert_int_equal(st->dedup_reprocessed, 1);
    sim_server_set_dedup_degraded(f->s, 0.0, 0);
    assert_int_equal(tu_handle(f->s, TU_T0 + 2, q.buf, q.len, &o), SIM_SRV_REPLAYED);
    assert_int_equal(tu_take(f, TU_T0 + 3, 2, &r, NULL), 15);
    tu_fix_free(f);
}

static void test_degraded_capacity_evicts_and_heal_restores(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(8, 0, R_AUTH_NONE);
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q[4];
    tu_out_t o;
    for (uint32_t i = 0; i < 4; i++) {
        tu_make_req(f, &q[i], i + 1, TU_T0, &r);
        assert_int_equal(tu_handle(f->s, TU_T0, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
    }
    sim_server_set_dedup_degraded(f->s, 0.0, 1); /* keeps only the newest */
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 3);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1, q[3].buf, q[3].len, &o), SIM_SRV_REPLAYED);
    sim_server_set_dedup_degraded(f->s, 0.0, 0); /* healthy: capacity 8 again */
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(tu_handle(f->s, TU_T0 + 2, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
    }
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(tu_handle(f->s, TU_T0 + 3, q[i].buf, q[i].len, &o), SIM_SRV_REPLAYED);
    }
    assert_int_equal(sim_server_stats(f->s)->dedup_reprocessed, 3);
    tu_fix_free(f);
}

static void test_key_scoped_by_key_id(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_NONE);
    tu_key_t other;
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_init(&other, R_AUTH_NONE, 0x9999u, &q);
    assert_int_equal(sim_server_add_tenant(f->s, other.cred), 0);
    r_resource_request_t r = tu_resource("api", 1000, 10, 1);
    uint8_t uid[16], buf[1200];
    tu_uid(uid, 1);
    tu_out_t o;
    size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, NULL, 0, &r, 1, NULL);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED);
    len = tu_request(&other, buf, uid, TU_T0, 60, NULL, 0, &r, 1, NULL); /* same unique_id */
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(o.result.key_id, 0x9999u);
    tu_key_free(&other);
    tu_fix_free(f);
}

static void test_many_entries_grow_and_replay(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_NONE);
    r_resource_request_t r = tu_resource("api", 10000, 100000, 1);
    tu_out_t o;
    for (uint32_t i = 0; i < 3000; i++) {
        assert_int_equal(tu_send(f, TU_T0, i, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    }
    for (uint32_t i = 0; i < 3000; i += 7) {
        assert_int_equal(tu_send(f, TU_T0 + 1, i, NULL, 0, &r, 1, &o, NULL), SIM_SRV_REPLAYED);
    }
    assert_int_equal(sim_server_stats(f->s)->dedup_live_max, 3000);
    tu_fix_free(f);
}

static void test_restart_new_server_id_and_state_lost(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, R_AUTH_AES);
    r_resource_request_t r = tu_resource("api", 10000, 10, 4);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    uint64_t before = sim_server_id(f->s);
    assert_int_equal(sim_server_restart(f->s, TU_START_S + 5), 0);
    uint64_t after = 0;
    assert_int_equal(r_client_encode_server_id(TU_START_S + 5, TU_LISTENER, TU_NODE, &after), RCLIENT_OK);
    assert_int_equal(sim_server_id(f->s), after);
    assert_true(after > before);
    tu_parsed_t p;
    assert_int_equal(tu_handle(f->s, TU_T0 + 1, q.buf, q.len, &o), SIM_SRV_ANSWERED); /* dedup lost */
    tu_parse_ok(&f->k, o.bytes, o.len, q.uid, after, &p);
    assert_int_equal(tu_res_at(&p, 0).actual_rate, 4); /* bucket lost: counting from 0 */
    assert_int_equal(sim_server_stats(f->s)->dedup_reprocessed, 0);
    assert_int_equal(sim_server_restart(f->s, 1735689599ull), -1); /* before 2025 */
    assert_int_equal(sim_server_id(f->s), after);
    tu_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duplicate_replays_identical_bytes_without_consuming),
        cmocka_unit_test(test_denied_request_replays_its_deny),
        cmocka_unit_test(test_entry_expires_exactly_at_accepted_ttl),
        cmocka_unit_test(test_ttl_zero_and_above_key_max_dropped),
        cmocka_unit_test(test_capacity_evicts_oldest_and_counts_reprocessing),
        cmocka_unit_test(test_expired_head_is_reclaimed_without_eviction),
        cmocka_unit_test(test_degraded_loss_reprocesses_then_heals),
        cmocka_unit_test(test_degraded_capacity_evicts_and_heal_restores),
        cmocka_unit_test(test_key_scoped_by_key_id),
        cmocka_unit_test(test_many_entries_grow_and_replay),
        cmocka_unit_test(test_restart_new_server_id_and_state_lost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
