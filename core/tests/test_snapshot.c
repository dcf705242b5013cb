/* SPDX-License-Identifier: MIT */
/* Unit tests for snapshot.c: oldest-first order, duplicate handling, rank
 * lookup and reference counting (r-client.md 9, 9.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rl_membership.h"

static rl_member_t member(uint64_t server_id, uint8_t last_octet, uint16_t port) {
    rl_member_t m;
    memset(&m, 0, sizeof m);
    m.server_id = server_id;
    m.addr.family = R_ADDR_INET;
    m.addr.addr[0] = 203;
    m.addr.addr[1] = 0;
    m.addr.addr[2] = 113;
    m.addr.addr[3] = last_octet;
    m.addr.port = port;
    return m;
}

/* Ascending server_id is oldest-first: (server_id >> 23) is the start time. */
static void test_sorts_ascending_server_id(void **state) {
    (void)state;
    const uint64_t newer = (5ull << 23) | 1u; /* started 5 s after the epoch, node 1 */
    const uint64_t older_hi = (2ull << 23) | 9u;
    const uint64_t older_lo = (2ull << 23) | 3u;
    rl_member_t in[3] = {member(newer, 1, 29292), member(older_hi, 2, 29293), member(older_lo, 3, 29294)};
    rl_snapshot_t *s = rl_snapshot_new(in, 3);
    assert_non_null(s);
    assert_int_equal(s->refcount, 1);
    assert_int_equal(s->count, 3);
    assert_int_equal(s->members[0].server_id, older_lo);
    assert_int_equal(s->members[0].addr.addr[3], 3);
    assert_int_equal(s->members[0].addr.port, 29294);
    assert_int_equal(s->members[1].server_id, older_hi);
    assert_int_equal(s->members[2].server_id, newer);
    assert_int_equal(s->members[2].addr.addr[3], 1);
    assert_int_equal(s->ids[0], older_lo);
    assert_int_equal(s->ids[1], older_hi);
    assert_int_equal(s->ids[2], newer);
    rl_snapshot_unref(s);
}

static void test_duplicates_keep_first_given(void **state) {
    (void)state;
    rl_member_t in[4] = {member(7, 10, 1000), member(3, 11, 1001), member(7, 12, 1002), member(3, 13, 1003)};
    rl_snapshot_t *s = rl_snapshot_new(in, 4);
    assert_non_null(s);
    assert_int_equal(s->count, 2);
    assert_int_equal(s->members[0].server_id, 3);
    assert_int_equal(s->members[0].addr.addr[3], 11);
    assert_int_equal(s->members[0].addr.port, 1001);
    assert_int_equal(s->members[1].server_id, 7);
    assert_int_equal(s->members[1].addr.addr[3], 10);
    assert_int_equal(s->members[1].addr.port, 1000);
    assert_int_equal(s->ids[0], 3);
    assert_int_equal(s->ids[1], 7);
    rl_snapshot_unref(s);
}

static void test_rank_of_members(void **state) {
    (void)state;
    rl_member_t in[5] = {member(50, 1, 1), member(10, 2, 1), member(40, 3, 1), member(20, 4, 1),
                         member(UINT64_MAX, 5, 1)};
    rl_snapshot_t *s = rl_snapshot_new(in, 5);
    assert_non_null(s);
    assert_int_equal(rl_snapshot_rank(s, 10), 0);
    assert_int_equal(rl_snapshot_rank(s, 20), 1);
    assert_int_equal(rl_snapshot_rank(s, 40), 2);
    assert_int_equal(rl_snapshot_rank(s, 50), 3);
    assert_int_equal(rl_snapshot_rank(s, UINT64_MAX), 4);
    rl_snapshot_unref(s);
}

static void test_rank_of_non_members(void **state) {
    (void)state;
    rl_member_t in[3] = {member(10, 1, 1), member(20, 2, 1), member(30, 3, 1)};
    rl_snapshot_t *s = rl_snapshot_new(in, 3);
    assert_non_null(s);
    assert_int_equal(rl_snapshot_rank(s, 0), -1);
    assert_int_equal(rl_snapshot_rank(s, 15), -1);
    assert_int_equal(rl_snapshot_rank(s, 31), -1);
    assert_int_equal(rl_snapshot_rank(s, UINT64_MAX), -1);
    assert_int_equal(rl_snapshot_rank(NULL, 10), -1);
    rl_snapshot_unref(s);
}

static void test_rank_single_member(void **state) {
    (void)state;
    rl_member_t in = member(0, 1, 1);
    rl_snapshot_t *s = rl_snapshot_new(&in, 1);
    assert_non_null(s);
    assert_int_equal(s->count, 1);
    assert_int_equal(rl_snapshot_rank(s, 0), 0);
    assert_int_equal(rl_snapshot_rank(s, 1), -1);
    rl_snapshot_unref(s);
}

static void test_new_rejects_empty(void **state) {
    (void)state;
    rl_member_t in = member(1, 1, 1);
    assert_null(rl_snapshot_new(&in, 0));
    assert_null(rl_snapshot_new(NULL, 1));
    assert_null(rl_snapshot_new(&in, SIZE_MAX));
}

/* The last unref frees: ASan reports a leak if it does not, and a
 * use-after-free if an earlier one did. */
static void test_refcount_lifetime(void **state) {
    (void)state;
    rl_member_t in = member(1, 1, 1);
    rl_snapshot_t *s = rl_snapshot_new(&in, 1);
    assert_non_null(s);
    rl_snapshot_ref(s);
    rl_snapshot_ref(s);
    assert_int_equal(s->refcount, 3);
    rl_snapshot_unref(s);
    assert_int_equal(s->refcount, 2);
    rl_snapshot_unref(s);
    assert_int_equal(s->refcount, 1);
    assert_int_equal(s->members[0].server_id, 1);
    rl_snapshot_unref(s);
}

static void test_null_ref_unref_are_noops(void **state) {
    (void)state;
    rl_snapshot_ref(NULL);
    rl_snapshot_unref(NULL);
    assert_int_equal(rl_snapshot_rank(NULL, 0), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sorts_ascending_server_id),
        cmocka_unit_test(test_duplicates_keep_first_given),
        cmocka_unit_test(test_rank_of_members),
        cmocka_unit_test(test_rank_of_non_members),
        cmocka_unit_test(test_rank_single_member),
        cmocka_unit_test(test_new_rejects_empty),
        cmocka_unit_test(test_refcount_lifetime),
        cmocka_unit_test(test_null_ref_unref_are_noops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
