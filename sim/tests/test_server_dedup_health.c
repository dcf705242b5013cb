/* SPDX-License-Identifier: MIT */
/* test_server_dedup_health.c - reference server: the dedup cache's health
 * and the replay window (wire_protocol.md "unique_id" Healthy-State
 * Guarantee, Degraded-State Behavior, "Deduplication Health Model",
 * "dedup_ttl_ms (Rate Request)"; r-client-ha-design.md 11 item 1). */
#include "sim_dedup_unkeyed.h"
#include "sim_server_admin_util.h"
#include "sim_server_dedup.h"

static tu_fix_t *fix_with(uint32_t capacity, uint32_t ttl_cap_ms, uint32_t freshness_ms) {
    return tu_fix_dedup(R_AUTH_NONE, capacity, ttl_cap_ms, freshness_ms);
}

static uint32_t actual_rate(tu_fix_t *f, const tu_out_t *o, const uint8_t uid[16]) {
    tu_parsed_t p;
    tu_parse_ok(&f->k, o->bytes, o->len, uid, sim_server_id(f->s), &p);
    return tu_res_at(&p, 0).actual_rate;
}

/* ---- item: eviction is an ERROR-level degraded state ------------------------- */

/* Status Response of s at now, under the admin key of a (the admin fixture
 * holds the key; its server is not used). */
static void status_at(ta_fix_t *a, sim_server_t *s, uint64_t now, uint8_t sr[448]) {
    uint8_t pdu[8], buf[1200];
    tu_out_t o;
    size_t len = ta_frame_typed(a, buf, 0, ++a->uid_n, now, pdu, ta_sq(pdu, 1, 0), 0x4541);
    assert_int_equal(tu_handle(s, now, buf, len, &o), SIM_SRV_ADMIN_ANSWERED);
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&a->admin, o.bytes, o.len, &why), RCLIENT_OK);
    memcpy(sr, o.bytes + 72, 448);
}

static ta_fix_t *admin_of(tu_fix_t *f) {
    ta_fix_t *a = ta_fix_new(false);
    assert_int_equal(sim_server_set_admin_key(f->s, a->secret), 0);
    return a;
}

/* wire_protocol.md Degraded-State Behavior: evicting a live entry MUST be
 * exposed in health state (Status degraded_reason_code; the code value is
 * project: 1 = live dedup entries evicted for capacity) until the evicted
 * entries' windows are over. */
static void test_capacity_eviction_sets_degraded_reason_until_windows_end(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(4, 0, 0);
    f->ttl = 300;
    ta_fix_t *a = admin_of(f);
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q[6];
    tu_out_t o;
    uint8_t sr[448];
    for (uint32_t i = 0; i < 4; i++) {
        tu_make_req(f, &q[i], i + 1, TU_T0 + i, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + i, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
    }
    status_at(a, f->s, TU_T0 + 4, sr);
    assert_int_equal(ta_ld16(sr + 30), 0); /* four entries fit: healthy */
    for (uint32_t i = 4; i < 6; i++) {
        tu_make_req(f, &q[i], i + 1, TU_T0 + i, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + i, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
    }
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 2); /* #1 and #2, inside their windows */
    status_at(a, f->s, TU_T0 + 6, sr);
    assert_int_equal(ta_ld16(sr + 30), 1);
    /* #2 was inserted at T0 + 1 for 300 ms: degraded until T0 + 301. */
    status_at(a, f->s, TU_T0 + 300, sr);
    assert_int_equal(ta_ld16(sr + 30), 1);
    status_at(a, f->s, TU_T0 + 301, sr);
    assert_int_equal(ta_ld16(sr + 30), 0);
    ta_fix_free(a);
    tu_fix_free(f);
}

/* The datagram whose answer evicted live entries says so (serve writes its
 * ERROR line from it): how many, and whether the cache was healthy before. */
static void test_eviction_reported_in_result(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(4, 0, 0);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q[7];
    tu_out_t o;
    for (uint32_t i = 0; i < 6; i++) {
        tu_make_req(f, &q[i], i + 1, TU_T0, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + i, q[i].buf, q[i].len, &o), SIM_SRV_ANSWERED);
        assert_int_equal(o.result.dedup_evicted, i >= 4 ? 1 : 0);
        assert_int_equal(o.result.dedup_degraded_began, i == 4);
        assert_int_equal(o.result.dedup_evicted_key_id, i >= 4 ? 0x1234u : 0);
    }
    /* The first request again 1 ms later, inside its 300 ms window: its
     * entry is gone, so it is decided afresh (the degraded state the
     * Status Response and the counters show), and pushes out #3. */
    assert_int_equal(tu_handle(f->s, TU_T0 + 6, q[0].buf, q[0].len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(actual_rate(f, &o, q[0].uid), 7);
    assert_int_equal(o.result.dedup_evicted, 1);
    assert_false(o.result.dedup_degraded_began); /* still degraded */
    const sim_server_stats_t *st = sim_server_stats(f->s);
    assert_int_equal(st->dedup_evicted_capacity, 3);
    assert_int_equal(st->dedup_reprocessed, 1);
    /* After every evicted window (#3: T0 + 2 + 300), a new eviction begins a
     * new degraded episode. */
    tu_make_req(f, &q[6], 7, TU_T0 + 310, &r);
    for (uint32_t i = 0; i < 4; i++) { /* refill with live entries */
        tu_req_t x;
        tu_make_req(f, &x, 100 + i, TU_T0 + 310, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + 310, x.buf, x.len, &o), SIM_SRV_ANSWERED);
        assert_int_equal(o.result.dedup_evicted, 0);
    }
    assert_int_equal(tu_handle(f->s, TU_T0 + 310, q[6].buf, q[6].len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(o.result.dedup_evicted, 1);
    assert_true(o.result.dedup_degraded_began);
    tu_fix_free(f);
}

/* Degraded mode of the simulator (replay-state loss): reason code 2
 * (project) while loss_p > 0; healthy again when healed. */
static void test_degraded_loss_sets_reason_two(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, 0);
    ta_fix_t *a = admin_of(f);
    uint8_t sr[448];
    sim_server_set_dedup_degraded(f->s, 0.5, 0);
    status_at(a, f->s, TU_T0, sr);
    assert_int_equal(ta_ld16(sr + 30), 2);
    sim_server_set_dedup_degraded(f->s, 0.0, 0);
    status_at(a, f->s, TU_T0, sr);
    assert_int_equal(ta_ld16(sr + 30), 0);
    ta_fix_free(a);
    tu_fix_free(f);
}

/* ---- item: dedup before freshness ------------------------------------------- */

/* wire_protocol.md Healthy-State Guarantee: a duplicate received within the
 * accepted window replays the cached result, even when its time_stamp has
 * gone stale since the original was answered. */
static void test_duplicate_replayed_before_freshness_check(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 2000, 1000);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0 - 900, &r); /* the client's clock is 900 ms behind */
    tu_out_t first, again;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &first), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 200, q.buf, q.len, &again), SIM_SRV_REPLAYED); /* age 1100 > 1000 */
    assert_memory_equal(again.bytes, first.bytes, first.len);
    /* A new request with the stale time_stamp is still dropped. */
    tu_req_t other;
    tu_make_req(f, &other, 2, TU_T0 - 900, &r);
    assert_int_equal(tu_handle(f->s, TU_T0 + 200, other.buf, other.len, &again), SIM_SRV_DROP_STALE);
    tu_fix_free(f);
}

/* ---- item: the listener cap -------------------------------------------------- */

/* r-client-ha-design.md 11 item 1 (the Rust server rejects a value above the
 * listener cap; project: so does the model, no silent clamp). */
static void test_ttl_above_listener_cap_dropped(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 100, 0);
    r_resource_request_t r = tu_resource("api", 10000, 10, 1);
    tu_out_t o;
    f->ttl = 101; /* the key allows 300; the listener's cap is 100 */
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, &r, 1, &o, NULL), SIM_SRV_DROP_DEDUP_TTL);
    assert_int_equal(o.len, 0);
    assert_string_equal(o.result.why.field, "dedup_ttl_ms");
    assert_int_equal(o.result.why.got, 101);
    assert_int_equal(o.result.why.want, 100);
    char text[200];
    sim_server_reason_text(&o.result.why, text, sizeof text);
    assert_string_equal(text, "rate request: dedup_ttl_ms 101, max 100 (the listener's dedup_ttl_ms_max)");
    f->ttl = 100; /* exactly the cap */
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    assert_int_equal(tu_take(f, TU_T0, 3, &r, NULL), 2); /* the dropped one took nothing */
    tu_fix_free(f);
}

/* The case: 300 ms asked under a cap of 100, replayed at 150 ms:
 * nothing is counted twice (the first is refused, so is its replay). */
static void test_replay_under_lower_cap_not_counted_twice(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 100, 0);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 100, 10);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &o), SIM_SRV_DROP_DEDUP_TTL);
    assert_int_equal(tu_handle(f->s, TU_T0 + 150, q.buf, q.len, &o), SIM_SRV_DROP_DEDUP_TTL);
    f->ttl = 100;
    assert_int_equal(tu_take(f, TU_T0 + 150, 2, &r, NULL), 10);
    tu_fix_free(f);
}

/* ---- item: replay after the window ------------------------------------------ */

/* wire_protocol.md "dedup_ttl_ms": the client does not resend after
 * time_stamp + dedup_ttl_ms, and "a duplicate ... within its accepted
 * window will replay"; a copy arriving after the window but while its
 * time_stamp is still fresh is a captured replay (project: dropped, as
 * drop_stale with the reason, never decided again). */
static void test_rate_duplicate_after_window_dropped(void **state) {
    (void)state;
    tu_fix_t *f = fix_with(0, 0, 5000);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t q;
    tu_make_req(f, &q, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, q.buf, q.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 299, q.buf, q.len, &o), SIM_SRV_REPLAYED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 300, q.buf, q.len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(o.len, 0);
    char text[200];
    sim_server_reason_text(&o.result.why, text, sizeof text);
    assert_string_equal(text, "rate request: dedup_ttl_ms 300 (a copy after its accepted dedup window: "
                              "a replayed capture, not decided again)");
    assert_int_equal(tu_handle(f->s, TU_T0 + 1200, q.buf, q.len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(tu_handle(f->s, TU_T0 + 5000, q.buf, q.len, &o), SIM_SRV_DROP_STALE);
    /* Past the freshness window it is an ordinary stale datagram. */
    assert_int_equal(tu_handle(f->s, TU_T0 + 5001, q.buf, q.len, &o), SIM_SRV_DROP_STALE);
    sim_server_reason_text(&o.result.why, text, sizeof text);
    assert_non_null(strstr(text, "freshness_ms"));
    assert_int_equal(tu_take(f, TU_T0 + 5001, 2, &r, NULL), 2); /* #1 consumed once */
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 0);
    tu_fix_free(f);
}

/* An ADD replayed after a REMOVE, outside its 1000 ms window but inside the
 * 5 s freshness window, does not bring the tenant back; a REMOVE replayed
 * after a re-ADD does not remove it (wire_protocol.md "Tenant Mutation PDU"
 * dedup_ttl_ms; project as above). */
static void test_mutation_duplicate_after_window_dropped(void **state) {
    (void)state;
    sim_server_params_t p = tu_params();
    p.freshness_ms = 5000;
    ta_fix_t *f = ta_fix_new_p(&p, false);
    uint8_t add[600], rem[16], buf[1200];
    size_t na = ta_tm(add, 0x03, 0, 1000, "acme", f->k.cred), nr = ta_tm(rem, 0x05, 0, 1000, NULL, NULL);
    tu_out_t o;
    size_t add_len = ta_frame_typed(f, buf, f->k.key_id, 1, TU_T0, add, na, 0x4541);
    uint8_t add_dgram[1200];
    memcpy(add_dgram, buf, add_len);
    assert_int_equal(tu_handle(f->s, TU_T0, add_dgram, add_len, &o), SIM_SRV_ADMIN_ANSWERED);
    size_t rem_len = ta_frame_typed(f, buf, f->k.key_id, 2, TU_T0 + 100, rem, nr, 0x4541);
    uint8_t rem_dgram[1200];
    memcpy(rem_dgram, buf, rem_len);
    assert_int_equal(tu_handle(f->s, TU_T0 + 100, rem_dgram, rem_len, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1200, add_dgram, add_len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(o.len, 0);
    assert_int_equal(sim_server_tenant_count(f->s), 0);
    /* A fresh ADD (new unique_id) re-adds it; the captured REMOVE, 2.3 s
     * after it was sent, does not take it away again. */
    size_t len = ta_frame_typed(f, buf, f->k.key_id, 3, TU_T0 + 1300, add, na, 0x4541);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1300, buf, len, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 2400, rem_dgram, rem_len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(sim_server_tenant_count(f->s), 1);
    ta_fix_free(f);
}

/* ---- item: keyed index hash -------------------------------------------------- */

static uint32_t longest_cluster(const srv_dedup_t *d) {
    uint32_t best = 0, run = 0;
    for (uint32_t i = 0; i <= 2u * (d->index_mask + 1u); i++) { /* twice round: a cluster may wrap */
        run = d->index[i & d->index_mask] != 0 ? run + 1u : 0u;
        best = run > best ? run : best;
    }
    return best > d->index_mask + 1u ? d->index_mask + 1u : best;
}

/* project (issue: chosen unique_ids in one index slot): 48 unique_ids that
 * share one home slot under the unkeyed mix spread over the keyed index; the
 * same key places them the same way (determinism), another key differently. */
static void test_index_hash_is_keyed(void **state) {
    (void)state;
    static uint8_t uids[48][16];
    uint32_t found = 0;
    for (uint32_t n = 0; found < 48; n++) {
        tu_uid(uids[found], n);
        if ((tu_unkeyed_hash(5, uids[found], 0x5452, 0) & 127u) == 0) {
            found++;
        }
    }
    const uint8_t key_a[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const uint8_t key_b[16] = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    uint32_t clusters[3];
    uint64_t first_hash[3];
    const uint8_t *keys[3] = {key_a, key_a, key_b};
    for (int k = 0; k < 3; k++) {
        srv_dedup_t d;
        assert_int_equal(srv_dedup_init(&d, 64), 0); /* 128 index cells */
        assert_int_equal(srv_dedup_set_key(&d, keys[k]), 0);
        uint8_t resp[8] = {0};
        for (uint32_t i = 0; i < 48; i++) {
            srv_dd_key_t key = {5, uids[i], 0x5452, 0};
            assert_int_equal(srv_dedup_insert(&d, &key, 1000, 100, 0, resp, sizeof resp, true), 0);
        }
        for (uint32_t i = 0; i < 48; i++) {
            srv_dd_key_t key = {5, uids[i], 0x5452, 0};
            assert_non_null(srv_dedup_lookup(&d, &key, 1001));
        }
        clusters[k] = longest_cluster(&d);
        first_hash[k] = d.ring[d.head].hash;
        assert_int_equal(srv_dedup_set_key(&d, key_b), -1); /* not once entries exist */
        srv_dedup_free(&d);
    }
    assert_true(clusters[0] < 16); /* unkeyed: one run of 48 */
    assert_int_equal(clusters[1], clusters[0]);
    assert_int_equal(first_hash[1], first_hash[0]);
    assert_true(first_hash[2] != first_hash[0]);
    assert_true(clusters[2] < 16);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capacity_eviction_sets_degraded_reason_until_windows_end),
        cmocka_unit_test(test_eviction_reported_in_result),
        cmocka_unit_test(test_degraded_loss_sets_reason_two),
        cmocka_unit_test(test_duplicate_replayed_before_freshness_check),
        cmocka_unit_test(test_ttl_above_listener_cap_dropped),
        cmocka_unit_test(test_replay_under_lower_cap_not_counted_twice),
        cmocka_unit_test(test_rate_duplicate_after_window_dropped),
        cmocka_unit_test(test_mutation_duplicate_after_window_dropped),
        cmocka_unit_test(test_index_hash_is_keyed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
