/* SPDX-License-Identifier: MIT */
/* test_server_review.c - reference server: findings of an adversarial review
 * of the dedup cache and the latency trackers (issue 20), each checked
 * against wire_protocol.md. */
#include "sim_server_int.h"
#include "sim_server_test_util.h"

static tu_fix_t *fix_none(uint32_t capacity, uint32_t freshness_ms) {
    return tu_fix_dedup(R_AUTH_NONE, capacity, 0, freshness_ms);
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
 * (project: dropped as a mismatch with the live entry, nothing consumed or
 * counted; the true copy is still replayed). */
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
    assert_int_equal(v, SIM_SRV_DROP_MISMATCH);
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

/* ---- late copies: refused while the entry is held ------------------------------ */

/* project (docs/serve.md "Dedup health"): a copy after its window is
 * refused while the cache still holds its entry. wire_protocol.md
 * Degraded-State Behavior covers live entries only ("evict live
 * deduplication entries"): an entry past its window that capacity pushes out
 * is no eviction, no ERROR, and a later capture of it is decided again. */
static void test_late_copy_decided_again_once_capacity_pushed_its_entry_out(void **state) {
    (void)state;
    tu_fix_t *f = fix_none(4, 5000);
    f->ttl = 100;
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t a;
    tu_make_req(f, &a, 1, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, a.buf, a.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 150, a.buf, a.len, &o), SIM_SRV_DROP_STALE); /* held: refused */
    for (uint32_t n = 2; n <= 5; n++) { /* four more: the fourth pushes #1 out */
        tu_req_t x;
        tu_make_req(f, &x, n, TU_T0 + 200, &r);
        assert_int_equal(tu_handle(f->s, TU_T0 + 200, x.buf, x.len, &o), SIM_SRV_ANSWERED);
        assert_int_equal(o.result.dedup_evicted, 0);
    }
    assert_int_equal(tu_handle(f->s, TU_T0 + 300, a.buf, a.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(tu_take(f, TU_T0 + 300, 6, &r, NULL), 7); /* #1 consumed twice */
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 0);
    tu_fix_free(f);
}

/* wire_protocol.md "ADD Tenant" (the estimate of the decoded quotas against
 * the budget) and "Upsert Semantics" (OVERWRITE "completely replaces existing
 * configuration"): after an ADD that lowers metrics_labels_max, the key's
 * label state stays within what the new quotas imply. Label records never
 * expire, so records kept from the old quota would stay outside the new,
 * smaller estimate for good (the budget an admin sees freed is not). */
static void test_upsert_shrinking_labels_drops_label_records(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.metrics_labels_max = 16;
    sim_server_params_t p = tu_params();
    tu_fix_t *f = tu_fix_new(R_AUTH_NONE, &q, &p);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 1000, 1);
    char label[16];
    for (uint32_t i = 0; i < 16; i++) {
        uint8_t buf[1200], uid[16];
        tu_uid(uid, i + 1);
        snprintf(label, sizeof label, "l%u", (unsigned)i);
        size_t len = tu_request(&f->k, buf, uid, TU_T0, f->ttl, NULL, 0, &r, 1, label);
        tu_out_t o;
        assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED);
    }
    const srv_tenant_t *t = srv_tenant_find(f->s, f->k.key_id);
    assert_int_equal(t->labels, 16);
    q.metrics_labels_max = 1;
    tu_key_t k2;
    tu_key_init(&k2, R_AUTH_NONE, f->k.key_id, &q);
    assert_int_equal(sim_server_add_tenant(f->s, k2.cred), 0);
    t = srv_tenant_find(f->s, f->k.key_id);
    assert_true(t->labels <= 1);
    assert_true(t->n_label_recs <= 2); /* at most one label and "overflow" */
    /* The new quota applies: one label, then "overflow". */
    for (uint32_t i = 0; i < 2; i++) {
        uint8_t buf[1200], uid[16];
        tu_uid(uid, 100 + i);
        snprintf(label, sizeof label, "n%u", (unsigned)i);
        size_t len = tu_request(&f->k, buf, uid, TU_T0 + 1, f->ttl, NULL, 0, &r, 1, label);
        tu_out_t o;
        assert_int_equal(tu_handle(f->s, TU_T0 + 1, buf, len, &o), SIM_SRV_ANSWERED);
    }
    t = srv_tenant_find(f->s, f->k.key_id);
    assert_int_equal(t->labels, 1);
    assert_int_equal(t->n_label_recs, 2);
    tu_key_free(&k2);
    tu_fix_free(f);
}

/* As above for latency_services_max: the service records (never expiring)
 * stay within the lowered quota. */
static void test_upsert_shrinking_services_drops_service_records(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    q.latency_services_max = 8;
    sim_server_params_t p = tu_params();
    tu_fix_t *f = tu_fix_new(R_AUTH_NONE, &q, &p);
    for (uint32_t i = 0; i < 8; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%u", (unsigned)i);
        r_latency_guard_t g = tu_guard(name, 100, 10000, 10, 8, 0);
        r_service_latency_report_t rep = tu_sample(&g, 5);
        assert_int_equal(tu_send_report(f, TU_T0, i + 1, &rep, 1), SIM_SRV_REPORT);
    }
    const srv_tenant_t *t = srv_tenant_find(f->s, f->k.key_id);
    assert_int_equal(t->n_svc_recs, 8);
    q.latency_services_max = 2;
    tu_key_t k2;
    tu_key_init(&k2, R_AUTH_NONE, f->k.key_id, &q);
    assert_int_equal(sim_server_add_tenant(f->s, k2.cred), 0);
    t = srv_tenant_find(f->s, f->k.key_id);
    assert_true(t->n_svc_recs <= 2);
    tu_key_free(&k2);
    tu_fix_free(f);
}

/* ---- reprocessing counted only when a request is decided ----------------------- */

/* wire_protocol.md Degraded-State Behavior: "degraded-state reprocessing" of
 * a Rate Request whose replay state was lost; stats.dedup_reprocessed counts
 * "fresh decisions for a key whose entry was lost" (sim_server.h, project).
 * A copy of an evicted request that is then dropped (here: its time_stamp
 * has gone stale) was not decided again and is not counted; one that is
 * decided is. */
static void test_stale_copy_of_evicted_entry_not_counted_as_reprocessed(void **state) {
    (void)state;
    tu_fix_t *f = fix_none(1, 1000);
    f->ttl = 300;
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    tu_req_t behind, other, fresh;
    tu_make_req(f, &behind, 1, TU_T0 - 900, &r); /* the client's clock 900 ms behind */
    tu_make_req(f, &other, 2, TU_T0, &r);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, behind.buf, behind.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(tu_handle(f->s, TU_T0 + 1, other.buf, other.len, &o), SIM_SRV_ANSWERED); /* evicts #1 */
    assert_int_equal(sim_server_stats(f->s)->dedup_evicted_capacity, 1);
    /* #1 again at T0 + 200, inside its window: the entry is gone, its age is
     * 1100 ms > 1000: dropped as stale, not decided. */
    assert_int_equal(tu_handle(f->s, TU_T0 + 200, behind.buf, behind.len, &o), SIM_SRV_DROP_STALE);
    assert_int_equal(sim_server_stats(f->s)->dedup_reprocessed, 0);
    /* A fresh request evicted the same way and decided again is counted. */
    tu_make_req(f, &fresh, 3, TU_T0 + 200, &r);
    assert_int_equal(tu_handle(f->s, TU_T0 + 200, fresh.buf, fresh.len, &o), SIM_SRV_ANSWERED); /* evicts #2 */
    assert_int_equal(tu_handle(f->s, TU_T0 + 201, other.buf, other.len, &o), SIM_SRV_ANSWERED);
    assert_int_equal(sim_server_stats(f->s)->dedup_reprocessed, 1);
    tu_fix_free(f);
}

/* ---- the state tables' position hash ------------------------------------------ */

/* Modular inverse of an odd a modulo 2^64 (Newton: each step doubles the bits). */
static uint64_t inv64(uint64_t a) {
    uint64_t x = a;
    for (int i = 0; i < 6; i++) {
        x *= 2u - a * x;
    }
    return x;
}

/* The inverse of the splitmix64 finaliser the tables used unkeyed. */
static uint64_t unmix(uint64_t x) {
    x ^= (x >> 31) ^ (x >> 62);
    x *= inv64(0x94D049BB133111EBull);
    x ^= (x >> 27) ^ (x >> 54);
    x *= inv64(0xBF58476D1CE4E5B9ull);
    x ^= (x >> 30) ^ (x >> 60);
    return x;
}

/* bucket_id #k whose unkeyed position hash (key_id * C ^ lo ^ hi * C', then
 * the finaliser) has its low 32 bits zero: every such id has one home slot
 * in any table. */
static void colliding_id(uint64_t key_id, uint32_t k, uint8_t id[16]) {
    uint64_t lo = unmix((uint64_t)(k + 1u) << 32) ^ (key_id * 0x9E3779B97F4A7C15ull);
    memset(id, 0, 16);
    for (int i = 0; i < 8; i++) {
        id[i] = (uint8_t)(lo >> (8 * i));
    }
}

static size_t longest_run(const srv_table_t *t) {
    size_t best = 0, run = 0;
    for (size_t i = 0; i < 2u * t->cap; i++) { /* twice round: a run may wrap */
        const srv_entry_hdr_t *e = (const srv_entry_hdr_t *)(t->slots + (i % t->cap) * t->entry_size);
        run = e->used ? run + 1u : 0u;
        best = run > best ? run : best;
    }
    return best > t->cap ? t->cap : best;
}

/* wire_protocol.md "Content-defined resource identity": "An r-server MUST use
 * the received 16-byte bucket_id directly as the tenant-local state key", so
 * a client chooses the ids. Under an unkeyed position hash an rl-none tenant
 * could put its whole bucket quota (65,536 by default) in one probe chain
 * (measured on serve: 13 ms a request at 64,000 buckets against 0.08 ms) and
 * slow every tenant whose entries land in it (project: the tables are keyed
 * per server, as the dedup index is). 520 buckets chosen to share one home
 * slot under the old mix are spread over the table. */
static void test_chosen_bucket_ids_do_not_form_one_probe_chain(void **state) {
    (void)state;
    tu_fix_t *f = fix_none(0, 0);
    f->ttl = 300;
    r_resource_request_t r[40];
    uint32_t k = 0;
    for (uint32_t n = 0; n < 13; n++) {
        for (size_t i = 0; i < 40; i++, k++) {
            memset(&r[i], 0, sizeof r[i]);
            colliding_id(f->k.key_id, k, r[i].bucket_id);
            r[i].window_size_ms = 60000;
            r[i].rate_limit = 100;
            r[i].tokens_requested = 1;
        }
        tu_out_t o;
        assert_int_equal(tu_send(f, TU_T0, n + 1, NULL, 0, r, 40, &o, NULL), SIM_SRV_ANSWERED);
    }
    const srv_table_t *t = &f->s->buckets;
    assert_int_equal(t->used, 520);
    assert_true(longest_run(t) < 64); /* unkeyed: one run of 520 */
    /* Every bucket is still found: the last request's ids again take a second token. */
    tu_out_t o;
    tu_parsed_t p;
    assert_int_equal(tu_send(f, TU_T0 + 1, 99, NULL, 0, r, 40, &o, &p), SIM_SRV_ANSWERED);
    assert_int_equal(tu_res_at(&p, 39).actual_rate, 2);
    tu_fix_free(f);
}

/* ---- memory admission: label bytes ------------------------------------------- */

/* wire_protocol.md "ADD Tenant": "a server MUST calculate the runtime storage
 * implied by the decoded quotas". A label record keeps the label's bytes,
 * which the datagram sizes: an rl-none Rate Request of 1200 bytes (the
 * packet budget) with no block carries a label of 1200 - 40 (Tenant TLV) -
 * 4 (auth TLV) - 12 (rate request header) - 6 (label TLV header and
 * str_length) = 1138 bytes. So the storage metrics_labels_max implies is at
 * least metrics_labels_max x 1138 bytes; the estimate counted 96 B a label
 * (the default key: 393,216 B for up to 4.7 MB of label bytes; measured on
 * serve: 4,096 labels of 1,100 B grew the resident size by 4.4 MB more than
 * 4,096 labels of 8 B). A server keeps such a label whole. */
static void test_label_estimate_covers_the_longest_label(void **state) {
    (void)state;
    r_api_key_quotas_t q = tu_default_quotas();
    srv_mem_estimate_t est;
    srv_mem_estimate(&q, &est);
    assert_true(est.metrics_label >= (uint64_t)q.metrics_labels_max * 1138u);
    /* The longest label with one resource (28 bytes less) is kept whole. */
    tu_fix_t *f = fix_none(0, 0);
    f->ttl = 300;
    char label[1111];
    memset(label, 'x', 1110);
    label[1110] = '\0';
    r_resource_request_t r = tu_resource("api", 10000, 100, 1);
    uint8_t buf[1200], uid[16];
    tu_uid(uid, 1);
    size_t len = tu_request(&f->k, buf, uid, TU_T0, f->ttl, NULL, 0, &r, 1, label);
    assert_int_equal(len, 1200);
    tu_out_t o;
    assert_int_equal(tu_handle(f->s, TU_T0, buf, len, &o), SIM_SRV_ANSWERED);
    const srv_tenant_t *t = srv_tenant_find(f->s, f->k.key_id);
    assert_non_null(t);
    assert_int_equal(t->n_label_recs, 1);
    assert_int_equal(t->label_recs[0].len, 1110);
    tu_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shorter_datagram_under_answered_unique_id_gets_no_larger_reply),
        cmocka_unit_test(test_chosen_bucket_ids_do_not_form_one_probe_chain),
        cmocka_unit_test(test_label_estimate_covers_the_longest_label),
        cmocka_unit_test(test_stale_copy_of_evicted_entry_not_counted_as_reprocessed),
        cmocka_unit_test(test_late_copy_decided_again_once_capacity_pushed_its_entry_out),
        cmocka_unit_test(test_upsert_shrinking_labels_drops_label_records),
        cmocka_unit_test(test_upsert_shrinking_services_drops_service_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
