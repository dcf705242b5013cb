/* SPDX-License-Identifier: MIT */
/* test_server_admin_replay.c - a captured administrative query, resent, is
 * not answered again (issue 20 item 7). project rule (docs/spec-notes.md
 * "Administrative queries are answered once"): a server answers nothing
 * larger than what it received from anyone without fresh credentials; a
 * Status Response (520 bytes for an 80-byte query) or a Metrics Response (up
 * to 1200 bytes) to a resent query would be a reflection. wire_protocol.md
 * "Status Query PDU": one Status Query produces at most one Status Response;
 * "Metrics Query PDU": one Metrics Query produces at most one Metrics
 * Response. A query (pdu_type, key_id, unique_id) is answered once; a copy is
 * dropped (drop_admin) while its time_stamp is fresh (time_stamp +
 * freshness_ms), after which the freshness check drops it. */
#include "sim_server_admin_util.h"

#define FRESH 5000u

static ta_fix_t *fix(void) {
    sim_server_params_t p = tu_params();
    p.freshness_ms = FRESH;
    return ta_fix_new_p(&p, true);
}

static void expect_duplicate_drop(const tu_out_t *o, const char *where) {
    assert_int_equal(o->len, 0);
    assert_string_equal(o->result.why.where, where);
    assert_string_equal(o->result.why.field, "unique_id");
    char text[256];
    sim_server_reason_text(&o->result.why, text, sizeof text);
    assert_non_null(strstr(text, "answered once"));
}

/* The same Status Query bytes resent 1 ms later and at the last fresh
 * millisecond: no answer; after it, stale. */
static void test_status_query_resent_not_answered(void **state) {
    (void)state;
    ta_fix_t *f = fix();
    uint8_t pdu[8], dgram[1200];
    size_t n = ta_frame(f, dgram, 0, 900, pdu, ta_sq(pdu, 1, 0));
    assert_int_equal(n, 80);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_int_equal(o.len, 520);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1, dgram, n, &o), SIM_SRV_DROP_ADMIN);
    expect_duplicate_drop(&o, "status query");
    assert_int_equal(tu_handle(f->s, TU_T0 + FRESH, dgram, n, &o), SIM_SRV_DROP_ADMIN);
    expect_duplicate_drop(&o, "status query");
    assert_int_equal(tu_handle(f->s, TU_T0 + FRESH + 1, dgram, n, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(o.len, 0);
    ta_fix_free(f);
}

/* A resent Metrics Query (in a later processing batch, so the one-per-batch
 * rule is not what drops it) is not answered; a new query (new unique_id) of
 * the same tenant is. */
static void test_metrics_query_resent_not_answered(void **state) {
    (void)state;
    ta_fix_t *f = fix();
    uint8_t pdu[16], dgram[1200];
    size_t n = ta_frame(f, dgram, f->k.key_id, 901, pdu, ta_mq(pdu, 1, 0, NULL, 0));
    tu_out_t o;
    sim_server_batch_begin(f->s);
    assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    assert_true(o.len > n);
    sim_server_batch_begin(f->s);
    assert_int_equal(tu_handle(f->s, TU_T0 + 10, dgram, n, &o), SIM_SRV_DROP_ADMIN);
    expect_duplicate_drop(&o, "metrics query");
    sim_server_batch_begin(f->s);
    size_t n2 = ta_frame(f, dgram, f->k.key_id, 902, pdu, ta_mq(pdu, 1, 0, NULL, 0));
    assert_int_equal(tu_handle(f->s, TU_T0 + 20, dgram, n2, &o), SIM_SRV_ADMIN_ANSWERED);
    ta_fix_free(f);
}

/* A refused query (bad schema_version) is not remembered: nothing was
 * answered, and the same unique_id is not held against a later answer. The
 * same unique_id under another PDU type is another request. */
static void test_only_answered_queries_are_remembered(void **state) {
    (void)state;
    ta_fix_t *f = fix();
    uint8_t pdu[16], dgram[1200];
    tu_out_t o;
    size_t n = ta_frame(f, dgram, 0, 903, pdu, ta_sq(pdu, 2, 0));
    assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_DROP_ADMIN);
    assert_string_equal(o.result.why.field, "schema_version");
    n = ta_frame(f, dgram, 0, 903, pdu, ta_sq(pdu, 1, 0));
    assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    sim_server_batch_begin(f->s);
    n = ta_frame(f, dgram, f->k.key_id, 903, pdu, ta_mq(pdu, 1, 0, NULL, 0));
    assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    ta_fix_free(f);
}

/* The memory is bounded (SIM_SERVER_QUERIES_MAX answered queries within
 * their freshness): one more fresh query is dropped rather than risk
 * answering a copy twice; once the oldest are stale, queries are answered
 * again. */
static void test_bounded_memory_refuses_when_full(void **state) {
    (void)state;
    ta_fix_t *f = fix();
    uint8_t pdu[8], dgram[1200];
    tu_out_t o;
    for (uint32_t i = 0; i < SIM_SERVER_QUERIES_MAX; i++) {
        size_t n = ta_frame(f, dgram, 0, 10000 + i, pdu, ta_sq(pdu, 1, 0));
        assert_int_equal(tu_handle(f->s, TU_T0, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    }
    size_t n = ta_frame_typed(f, dgram, 0, 20000, TU_T0 + 100, pdu, ta_sq(pdu, 1, 0), 0x4541);
    assert_int_equal(tu_handle(f->s, TU_T0 + 100, dgram, n, &o), SIM_SRV_DROP_ADMIN);
    assert_int_equal(o.len, 0);
    assert_string_equal(o.result.why.field, "unique_id");
    char text[256];
    sim_server_reason_text(&o.result.why, text, sizeof text);
    assert_non_null(strstr(text, "queries answered within their freshness"));
    n = ta_frame_typed(f, dgram, 0, 20001, TU_T0 + FRESH + 1, pdu, ta_sq(pdu, 1, 0), 0x4541);
    assert_int_equal(tu_handle(f->s, TU_T0 + FRESH + 1, dgram, n, &o), SIM_SRV_ADMIN_ANSWERED);
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_query_resent_not_answered),
        cmocka_unit_test(test_metrics_query_resent_not_answered),
        cmocka_unit_test(test_only_answered_queries_are_remembered),
        cmocka_unit_test(test_bounded_memory_refuses_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
