/* test_server_review.c - reference server: findings of an adversarial review
 * of the dedup cache and the latency trackers (issue 20), each checked
 * against wire_protocol.md. */
#include "sim_server_test_util.h"

static tu_fix_t *fix_none(uint32_t capacity, uint32_t freshness_ms) {
    r_api_key_quotas_t q = tu_default_quotas(); /* dedup_ttl_ms_max 300 */
    sim_server_params_t p = tu_params();
    p.dedup_capacity = capacity;
    p.freshness_ms = freshness_ms;
    return tu_fix_new(R_AUTH_NONE, &q, &p);
}

/* ---- replies no larger than the datagram they answer -------------------------- */

/* wire_protocol.md "rate_response PDU": "The response is built by modifying
 * the request PDU in-place", so a rate response is never longer than its
 * request; "Healthy-State Guarantee": a duplicate replays the cached result.
 * A true duplicate is the same request, so its cached reply is never longer
 * than it. A datagram that reuses an answered request's unique_id (any
 * source can send one under an rl-none key) with a shorter body than the
 * cached reply is not a copy of it: answering it with the cached reply would
 * send more bytes than came in, to an unauthenticated source address
 * (project: dropped, nothing consumed; the true copy is still replayed). */
static void test_shorter_datagram_under_answered_unique_id_gets_no_larger_reply(void **state) {
    (void)state;
    tu_fix_t *f = fix_none(0, 0);
    f->ttl = 300;
    r_resource_request_t big[20];
    char name[16];
    for (size_t i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "b%zu", i);
        big[i] = tu_resource(name, 10000, 100, 1);
    }
    uint8_t uid[16], orig[1200], small[1200];
    tu_uid(uid, 1);
    size_t orig_len = tu_request(&f->k, orig, uid, TU_T0, f->ttl, NULL, 0, big, 20, NULL);
    tu_out_t first, o;
    assert_int_equal(tu_handle(f->s, TU_T0, orig, orig_len, &first), SIM_SRV_ANSWERED);
    assert_int_equal(first.len, orig_len);
    /* Same key_id and unique_id, one resource: 96 bytes against a 616-byte reply. */
    size_t small_len = tu_request(&f->k, small, uid, TU_T0, f->ttl, NULL, 0, &big[0], 1, NULL);
    assert_true(small_len < first.len);
    uint64_t hits = sim_server_stats(f->s)->dedup_hits, misses = sim_server_stats(f->s)->dedup_misses;
    sim_server_verdict_t v = tu_handle(f->s, TU_T0 + 1, small, small_len, &o);
    assert_int_equal(v, SIM_SRV_DROP_MALFORMED);
    assert_int_equal(o.len, 0);
    assert_string_equal(o.result.why.field, "unique_id");
    assert_int_equal(sim_server_stats(f->s)->dedup_hits, hits); /* a refused datagram counts nothing */
    assert_int_equal(sim_server_stats(f->s)->dedup_misses, misses);
    /* The true copy is still replayed, byte for byte. */
    assert_int_equal(tu_handle(f->s, TU_T0 + 2, orig, orig_len, &o), SIM_SRV_REPLAYED);
    assert_int_equal(o.len, first.len);
    assert_memory_equal(o.bytes, first.bytes, first.len);
    /* Nothing was consumed by the refused datagram: b0 holds one token. */
    assert_int_equal(tu_take(f, TU_T0 + 3, 2, &big[0], NULL), 2);
    tu_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shorter_datagram_under_answered_unique_id_gets_no_larger_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
