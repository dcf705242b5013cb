/* SPDX-License-Identifier: MIT */
/* test_server_tracker.c - reference server: latency trackers and reports,
 * binding mismatches, quotas and freshness (wire_protocol.md "Guard Blocks",
 * "Content-defined latency-tracker identity", "Latency Report PDU",
 * "Content-defined resource identity", "Quota Enforcement Semantics",
 * "time_stamp"). */
#include "sim_server_test_util.h"

#if defined(__GLIBC__)
#include <malloc.h>
/* Bytes the allocator has handed out (heap and mmap), glibc only. */
static size_t heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}
#else
static size_t heap_in_use(void) {
    return 0; /* no reading: the tracker_bytes check still applies */
}
#endif

static tu_fix_t *fix_q(const r_api_key_quotas_t *q, uint32_t freshness_ms) {
    sim_server_params_t p = tu_params();
    p.freshness_ms = freshness_ms;
    return tu_fix_new(R_AUTH_AES, q, &p);
}

static tu_fix_t *fix(void) {
    r_api_key_quotas_t q = tu_default_quotas();
    return fix_q(&q, 0);
}

/* current_latency the server reports for guard g at now (request #n). */
static uint32_t current_of(tu_fix_t *f, uint64_t now, uint32_t n, const r_latency_guard_t *g) {
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, now, n, g, 1, NULL, 0, &o, &p), SIM_SRV_ANSWERED);
    return tu_guard_at(&p, 0).current_latency;
}

static void report(tu_fix_t *f, uint64_t now, const r_latency_guard_t *g, uint32_t value) {
    r_service_latency_report_t s = tu_sample(g, value);
    assert_int_equal(tu_send_report(f, now, 1000, &s, 1), SIM_SRV_REPORT);
}

static void test_minimum_over_live_samples(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 1);
    report(f, TU_T0, &g, 30);
    report(f, TU_T0 + 10, &g, 10);
    report(f, TU_T0 + 20, &g, 20);
    assert_int_equal(current_of(f, TU_T0 + 30, 1, &g), 10);
    tu_fix_free(f);
}

static void test_samples_expire_at_ttl(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 1);
    report(f, TU_T0, &g, 10);
    report(f, TU_T0 + 500, &g, 40);
    assert_int_equal(current_of(f, TU_T0 + 999, 1, &g), 10);
    assert_int_equal(current_of(f, TU_T0 + 1000, 2, &g), 40); /* the 10 is exactly ttl_ms old */
    assert_int_equal(current_of(f, TU_T0 + 1500, 3, &g), 0);  /* nothing live: no data */
    tu_fix_free(f);
}

static void test_min_sample_threshold_gates(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 3);
    report(f, TU_T0, &g, 70);
    report(f, TU_T0 + 1, &g, 50);
    assert_int_equal(current_of(f, TU_T0 + 2, 1, &g), 0); /* 2 < 3 samples */
    report(f, TU_T0 + 2, &g, 60);
    assert_int_equal(current_of(f, TU_T0 + 3, 2, &g), 50);
    assert_int_equal(current_of(f, TU_T0 + 1000, 3, &g), 0); /* one expired: 2 live again */
    tu_fix_free(f);
}

/* The tracker keeps at most max_samples samples, the most recent ones
 * (wire_protocol.md "Guard Blocks": max_samples "Maximum number of samples to
 * keep for latency tracking"; api.md "Guard configuration": "Maximum number of
 * samples considered by the tracker"): with max_samples 1, samples 10 then 100
 * leave only the 100, and a guard fails when current_latency >=
 * latency_threshold (wire_protocol.md "Response Semantics"). */
static void test_max_samples_keeps_the_most_recent(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 100, 1000, 1, 32, 1); /* max_samples 1, threshold 100 */
    report(f, TU_T0, &g, 10);
    report(f, TU_T0 + 1, &g, 100);
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0 + 2, 1, &g, 1, NULL, 0, &o, &p), SIM_SRV_ANSWERED);
    assert_int_equal(tu_guard_at(&p, 0).current_latency, 100);
    assert_false(o.result.allowed); /* 100 >= 100: the guard fails */
    tu_fix_free(f);
}

/* The minimum is over the last max_samples samples that are younger than
 * ttl_ms (wire_protocol.md "Guard Blocks"): max_samples 2, samples 5, 10, 20
 * keep 10 and 20; when the 10 is ttl_ms old the 20 remains. */
static void test_minimum_over_last_max_samples(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 2, 4, 1); /* max_samples 2, buffer_size 4 */
    report(f, TU_T0, &g, 5);
    report(f, TU_T0 + 1, &g, 10);
    report(f, TU_T0 + 2, &g, 20);
    assert_int_equal(current_of(f, TU_T0 + 3, 1, &g), 10);
    assert_int_equal(current_of(f, TU_T0 + 1001, 2, &g), 20); /* the 10 expired at T0 + 1001 */
    tu_fix_free(f);
}

/* max_samples 0 keeps no sample: the tracker never has data (current 0). */
static void test_max_samples_zero_keeps_nothing(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 0, 32, 0);
    report(f, TU_T0, &g, 10);
    assert_int_equal(current_of(f, TU_T0 + 1, 1, &g), 0);
    tu_fix_free(f);
}

/* buffer_size bounds monotonic points, not raw samples: a later larger
 * sample takes no point while a smaller one is live. */
static void test_monotonic_buffer_keeps_minimum(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 2, 1); /* buffer_size 2 */
    report(f, TU_T0, &g, 10);
    report(f, TU_T0 + 1, &g, 30);
    report(f, TU_T0 + 2, &g, 20); /* drops the 30: points 10, 20 */
    assert_int_equal(current_of(f, TU_T0 + 3, 1, &g), 10);
    assert_int_equal(current_of(f, TU_T0 + 1000, 2, &g), 20); /* the 10 expired: next point */
    tu_fix_free(f);
}

/* A full buffer drops its oldest point to take the newest sample. */
static void test_full_buffer_drops_oldest_point(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 2, 1);
    report(f, TU_T0, &g, 5);
    report(f, TU_T0 + 1, &g, 10);
    report(f, TU_T0 + 2, &g, 20); /* points 5, 10 full: 5 dropped */
    assert_int_equal(current_of(f, TU_T0 + 3, 1, &g), 10);
    tu_fix_free(f);
}

/* min_sample_threshold counts samples, not points (with one point, three
 * samples open the gate); above max_samples it never opens. */
static void test_threshold_counts_samples(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 32, 1, 3); /* buffer_size 1, threshold 3 */
    report(f, TU_T0, &g, 70);
    report(f, TU_T0 + 1, &g, 60);
    assert_int_equal(current_of(f, TU_T0 + 2, 1, &g), 0); /* 2 samples */
    report(f, TU_T0 + 2, &g, 80);
    assert_int_equal(current_of(f, TU_T0 + 3, 2, &g), 80); /* 3 samples; the one point holds the newest */
    r_latency_guard_t h = tu_guard("q", 1000, 1000, 2, 32, 3); /* max_samples 2 < threshold 3 */
    for (uint32_t k = 0; k < 5; k++) report(f, TU_T0 + k, &h, 9);
    assert_int_equal(current_of(f, TU_T0 + 6, 3, &h), 0);
    tu_fix_free(f);
}

/* Tracker memory is bounded by the key's quotas whatever a datagram asks
 * (project, wire_protocol.md "Quota Enforcement Semantics": every slot has
 * latency_buffer_size_max points): the default key (1,024 services, buffer
 * 32) filled with trackers asking for the largest gate ring (max_samples and
 * min_sample_threshold 65,536: before, a 512 KiB ring each) holds exactly
 * 1,024 slots of 32 x 24 bytes, and the heap grows by no more than the
 * estimate's latency part (800 B per service + 24 B per slot point). */
static void test_tracker_memory_bounded_by_quota(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    enum { TRACKERS = 1024, PER_PDU = 16 };
    static r_latency_guard_t g[TRACKERS];
    for (uint32_t i = 0; i < TRACKERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%u", i);
        g[i] = tu_guard(name, 1000, 600000, 65536, 32, 65536);
    }
    size_t heap0 = heap_in_use();
    uint32_t n = 0;
    for (uint32_t round = 0; round < 4; round++) {
        for (uint32_t i = 0; i < TRACKERS; i += PER_PDU) {
            r_service_latency_report_t rep[PER_PDU];
            for (uint32_t k = 0; k < PER_PDU; k++) rep[k] = tu_sample(&g[i + k], 10 + round);
            assert_int_equal(tu_send_report(f, TU_T0 + round, n, rep, PER_PDU), SIM_SRV_REPORT);
            n++;
        }
    }
    size_t heap1 = heap_in_use();
    assert_int_equal(sim_server_stats(f->s)->tracker_bytes, 1024u * 32u * 24u);
    assert_true(heap1 <= heap0 + 1024u * (800u + 32u * 24u));
    r_latency_guard_t extra = tu_guard("one more", 1000, 600000, 65536, 32, 65536);
    r_service_latency_report_t s1 = tu_sample(&extra, 1);
    assert_int_equal(tu_send_report(f, TU_T0 + 5, n, &s1, 1), SIM_SRV_DROP_QUOTA); /* latency_services_max */
    tu_fix_free(f);
}

/* A min_sample_threshold the slot cannot hold (above latency_buffer_size_max)
 * can never be checked: that tracker reports 0 however many samples arrive
 * (project: the gate's arrival times share the slot). */
static void test_threshold_above_slot_never_controls(void **state) {
    (void)state;
    tu_fix_t *f = fix(); /* latency_buffer_size_max 32 */
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 33);
    for (uint32_t k = 0; k < 40; k++) report(f, TU_T0 + k, &g, 50);
    assert_int_equal(current_of(f, TU_T0 + 41, 1, &g), 0);
    r_latency_guard_t h = tu_guard("ok", 1000, 1000, 100, 32, 32); /* at the slot: controls */
    for (uint32_t k = 0; k < 32; k++) report(f, TU_T0 + k, &h, 50);
    assert_int_equal(current_of(f, TU_T0 + 41, 2, &h), 50);
    tu_fix_free(f);
}

/* An ADD that replaces a key with smaller latency quotas drops the key's
 * trackers, whose slots were sized by the old quotas, so the key's tracker
 * memory stays within its new estimate (project); one with the same quotas
 * keeps them (sim_server.h: an upsert keeps the runtime state). */
static void test_upsert_shrinking_latency_quotas_drops_trackers(void **state) {
    (void)state;
    tu_fix_t *f = fix(); /* key 0x1234, default quotas: buffer 32 */
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 1);
    report(f, TU_T0, &g, 10);
    assert_int_equal(sim_server_stats(f->s)->tracker_bytes, 32u * 24u);
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_t same;
    tu_key_init(&same, R_AUTH_AES, 0x1234u, &q);
    assert_int_equal(sim_server_add_tenant(f->s, same.cred), 0);
    assert_int_equal(sim_server_stats(f->s)->tracker_bytes, 32u * 24u); /* kept */
    q.latency_buffer_size_max = 16;
    tu_key_t smaller;
    tu_key_init(&smaller, R_AUTH_AES, 0x1234u, &q);
    assert_int_equal(sim_server_add_tenant(f->s, smaller.cred), 0);
    assert_int_equal(sim_server_stats(f->s)->tracker_bytes, 0);
    tu_key_free(&same);
    tu_key_free(&smaller);
    tu_fix_free(f);
}

/* A passing guard-only request is a server operation, not a read-only query
 * (api.md "Required input": it "may record the server's normal speculative
 * latency for its guards"): in the model it binds the tracker (a report with
 * other settings is then a mismatch) and keeps it live, and records no sample
 * (project: wire_protocol.md defines no speculative sample). */
static void test_guard_binds_tracker_without_a_sample(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 1);
    assert_int_equal(current_of(f, TU_T0, 1, &g), 0);
    assert_int_equal(current_of(f, TU_T0 + 900, 2, &g), 0); /* passed twice; no sample recorded */
    r_service_latency_report_t s1 = tu_sample(&g, 5);
    s1.buffer_size = 16; /* same id, other settings */
    assert_int_equal(tu_send_report(f, TU_T0 + 1800, 3, &s1, 1), SIM_SRV_DROP_MISMATCH); /* live until 1900 */
    assert_int_equal(tu_send_report(f, TU_T0 + 1900, 4, &s1, 1), SIM_SRV_REPORT);          /* expired: rebinds */
    tu_fix_free(f);
}

static void test_report_is_atomic_on_mismatch(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t a = tu_guard("a", 1000, 1000, 100, 32, 1);
    r_latency_guard_t b = tu_guard("b", 1000, 1000, 100, 32, 1);
    report(f, TU_T0, &b, 50);
    r_service_latency_report_t two[2] = {tu_sample(&a, 7), tu_sample(&b, 8)};
    two[1].min_sample_threshold = 2; /* b is live with 1 */
    assert_int_equal(tu_send_report(f, TU_T0 + 1, 1, two, 2), SIM_SRV_DROP_MISMATCH);
    assert_int_equal(current_of(f, TU_T0 + 2, 1, &a), 0);  /* a's sample was not recorded */
    assert_int_equal(current_of(f, TU_T0 + 2, 2, &b), 50);
    tu_fix_free(f);
}

static void test_report_blocks_disagreeing_in_one_pdu_dropped(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t a = tu_guard("a", 1000, 1000, 100, 32, 1);
    r_service_latency_report_t two[2] = {tu_sample(&a, 7), tu_sample(&a, 8)};
    two[1].ttl_ms = 999;
    assert_int_equal(tu_send_report(f, TU_T0, 1, two, 2), SIM_SRV_DROP_MISMATCH);
    assert_int_equal(current_of(f, TU_T0, 1, &a), 0);
    tu_fix_free(f);
}

static void test_guard_mismatch_dropped_until_tracker_expires(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_latency_guard_t g = tu_guard("db", 1000, 1000, 100, 32, 1);
    report(f, TU_T0, &g, 10);
    r_latency_guard_t other = g;
    other.max_samples = 99; /* same id, other settings */
    r_resource_request_t r = tu_resource("api", 1000, 10, 1);
    tu_out_t o;
    assert_int_equal(tu_send(f, TU_T0 + 1, 1, &other, 1, &r, 1, &o, NULL), SIM_SRV_DROP_MISMATCH);
    assert_int_equal(o.len, 0);
    assert_int_equal(tu_take(f, TU_T0 + 2, 2, &r, NULL), 1); /* the dropped request took nothing */
    assert_int_equal(tu_send(f, TU_T0 + 1000, 3, &other, 1, NULL, 0, &o, NULL), SIM_SRV_ANSWERED); /* expired */
    tu_fix_free(f);
}

static void test_bucket_mismatch_dropped_until_window_ends(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_resource_request_t r = tu_resource("api", 1000, 10, 2);
    assert_int_equal(tu_take(f, TU_T0 + 100, 1, &r, NULL), 2);
    r_resource_request_t other = r;
    other.rate_limit = 11; /* same bucket_id, other limit */
    r_resource_request_t both[2] = {tu_resource("fresh", 1000, 10, 1), other};
    tu_out_t o;
    assert_int_equal(tu_send(f, TU_T0 + 200, 2, NULL, 0, both, 2, &o, NULL), SIM_SRV_DROP_MISMATCH);
    other.window_size_ms = 2000;
    other.rate_limit = 10;
    assert_int_equal(tu_send(f, TU_T0 + 200, 3, NULL, 0, &other, 1, &o, NULL), SIM_SRV_DROP_MISMATCH);
    assert_int_equal(tu_take(f, TU_T0 + 300, 4, &both[0], NULL), 1); /* "fresh" was not created */
    other.window_size_ms = 1000;
    other.rate_limit = 11;
    assert_int_equal(tu_take(f, TU_T0 + 1000, 5, &other, NULL), 2); /* next window: rebinds */
    tu_fix_free(f);
}

static void test_bucket_mismatch_inside_one_request_dropped(void **state) {
    (void)state;
    tu_fix_t *f = fix();
    r_resource_request_t r[2] = {tu_resource("api", 1000, 10, 1), tu_resource("api", 1000, 10, 1)};
    r[1].rate_limit = 12;
    tu_out_t o;
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, r, 2, &o, NULL), SIM_SRV_DROP_MISMATCH);
    tu_fix_free(f);
}

static void test_rate_bucket_quota(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.rate_buckets_max = 2;
    tu_fix_t *f = fix_q(&q, 0);
    r_resource_request_t a = tu_resource("a", 1000, 10, 1), b = tu_resource("b", 1000, 10, 1);
    r_resource_request_t c = tu_resource("c", 500, 10, 1);
    assert_int_equal(tu_take(f, TU_T0, 1, &a, NULL), 1);
    assert_int_equal(tu_take(f, TU_T0, 2, &b, NULL), 1);
    tu_out_t o;
    r_resource_request_t ac[2] = {a, c};
    assert_int_equal(tu_send(f, TU_T0 + 1, 3, NULL, 0, ac, 2, &o, NULL), SIM_SRV_DROP_QUOTA);
    assert_int_equal(o.len, 0);
    assert_int_equal(tu_take(f, TU_T0 + 2, 4, &a, NULL), 2); /* the dropped request took nothing from a */
    assert_int_equal(tu_take(f, TU_T0 + 1000, 5, &c, NULL), 1); /* a and b expired with their window */
    tu_fix_free(f);
}

static void test_latency_service_quota(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.latency_services_max = 1;
    tu_fix_t *f = fix_q(&q, 0);
    r_latency_guard_t a = tu_guard("a", 1000, 100, 100, 32, 1), b = tu_guard("b", 1000, 100, 100, 32, 1);
    report(f, TU_T0, &a, 5);
    r_service_latency_report_t s = tu_sample(&b, 5);
    assert_int_equal(tu_send_report(f, TU_T0 + 1, 1, &s, 1), SIM_SRV_DROP_QUOTA);
    tu_out_t o;
    assert_int_equal(tu_send(f, TU_T0 + 1, 2, &b, 1, NULL, 0, &o, NULL), SIM_SRV_DROP_QUOTA);
    assert_int_equal(tu_send_report(f, TU_T0 + 100, 3, &s, 1), SIM_SRV_REPORT); /* a expired */
    tu_fix_free(f);
}

static void test_shape_quotas(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.rate_window_size_ms_max = 1024;
    tu_fix_t *f = fix_q(&q, 0);
    tu_out_t o;
    r_resource_request_t r = tu_resource("api", 1025, 10, 1);
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, &r, 1, &o, NULL), SIM_SRV_DROP_QUOTA);
    r = tu_resource("api", 1024, 10, 1);
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, &r, 1, &o, NULL), SIM_SRV_ANSWERED);
    r_latency_guard_t g = tu_guard("db", 1000, 100, 100, 33, 1); /* buffer 33 > 32 */
    assert_int_equal(tu_send(f, TU_T0, 3, &g, 1, NULL, 0, &o, NULL), SIM_SRV_DROP_QUOTA);
    r_service_latency_report_t s = tu_sample(&g, 1);
    assert_int_equal(tu_send_report(f, TU_T0, 4, &s, 1), SIM_SRV_DROP_QUOTA);
    r = tu_resource("zero", 0, 10, 1); /* no window can be formed */
    assert_int_equal(tu_send(f, TU_T0, 5, NULL, 0, &r, 1, &o, NULL), SIM_SRV_DROP_MALFORMED);
    tu_fix_free(f);
}

/* Every resource's window is checked against rate_window_size_ms_max, not only
 * the first one's; the over-quota request consumes nothing (wire_protocol.md
 * "Quota Enforcement Semantics": the server validates every resource). */
static void test_window_quota_checked_on_every_resource(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.rate_window_size_ms_max = 1024;
    tu_fix_t *f = fix_q(&q, 0);
    tu_out_t o;
    r_resource_request_t r[2] = {tu_resource("ok", 1024, 10, 1), tu_resource("long", 1025, 10, 1)};
    assert_int_equal(tu_send(f, TU_T0, 1, NULL, 0, r, 2, &o, NULL), SIM_SRV_DROP_QUOTA);
    assert_int_equal(tu_send(f, TU_T0, 2, NULL, 0, r, 1, &o, NULL), SIM_SRV_ANSWERED);
    tu_fix_free(f);
}

static void test_freshness_window(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    tu_fix_t *f = fix_q(&q, 500);
    r_resource_request_t r = tu_resource("api", 1000, 10, 1);
    uint8_t uid[16], buf[1200];
    tu_out_t o;
    uint64_t ts[4] = {TU_T0 - 500, TU_T0 + 500, TU_T0 - 501, TU_T0 + 501};
    sim_server_verdict_t want[4] = {SIM_SRV_ANSWERED, SIM_SRV_ANSWERED, SIM_SRV_DROP_STALE, SIM_SRV_DROP_STALE};
    for (uint32_t i = 0; i < 4; i++) {
        tu_uid(uid, i);
        size_t len = tu_request(&f->k, buf, uid, ts[i], 60, NULL, 0, &r, 1, NULL);
        assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), want[i]);
    }
    r_latency_guard_t g = tu_guard("db", 1000, 100, 100, 32, 1);
    r_service_latency_report_t s = tu_sample(&g, 1);
    tu_uid(uid, 9);
    size_t len = tu_report(&f->k, buf, uid, TU_T0 - 501, &s, 1);
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_DROP_STALE);
    tu_fix_free(f);
}

static void test_metrics_labels_overflow(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.metrics_labels_max = 1;
    tu_fix_t *f = fix_q(&q, 0);
    r_resource_request_t r = tu_resource("api", 1000, 100, 1);
    const char *labels[4] = {"checkout", "checkout", "search", "cart"};
    uint64_t want[4] = {0, 0, 1, 2};
    uint8_t uid[16], buf[1200];
    for (uint32_t i = 0; i < 4; i++) {
        tu_out_t o;
        tu_uid(uid, i);
        size_t len = tu_request(&f->k, buf, uid, TU_T0, 60, NULL, 0, &r, 1, labels[i]);
        assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED); /* still processed */
        assert_int_equal(sim_server_stats(f->s)->labels_overflowed, want[i]);
    }
    tu_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minimum_over_live_samples),
        cmocka_unit_test(test_samples_expire_at_ttl),
        cmocka_unit_test(test_min_sample_threshold_gates),
        cmocka_unit_test(test_max_samples_keeps_the_most_recent),
        cmocka_unit_test(test_minimum_over_last_max_samples),
        cmocka_unit_test(test_max_samples_zero_keeps_nothing),
        cmocka_unit_test(test_monotonic_buffer_keeps_minimum),
        cmocka_unit_test(test_full_buffer_drops_oldest_point),
        cmocka_unit_test(test_threshold_counts_samples),
        cmocka_unit_test(test_tracker_memory_bounded_by_quota),
        cmocka_unit_test(test_threshold_above_slot_never_controls),
        cmocka_unit_test(test_upsert_shrinking_latency_quotas_drops_trackers),
        cmocka_unit_test(test_guard_binds_tracker_without_a_sample),
        cmocka_unit_test(test_report_is_atomic_on_mismatch),
        cmocka_unit_test(test_report_blocks_disagreeing_in_one_pdu_dropped),
        cmocka_unit_test(test_guard_mismatch_dropped_until_tracker_expires),
        cmocka_unit_test(test_bucket_mismatch_dropped_until_window_ends),
        cmocka_unit_test(test_bucket_mismatch_inside_one_request_dropped),
        cmocka_unit_test(test_rate_bucket_quota),
        cmocka_unit_test(test_latency_service_quota),
        cmocka_unit_test(test_shape_quotas),
        cmocka_unit_test(test_window_quota_checked_on_every_resource),
        cmocka_unit_test(test_freshness_window),
        cmocka_unit_test(test_metrics_labels_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
