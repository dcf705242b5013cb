/* SPDX-License-Identifier: MIT */
/* test_server_tables.c - the reference server's two hash structures against
 * naive models under random churn: the state table (linear probing,
 * backward-shift deletion, in-place sweep, growth) and the dedup ring (FIFO
 * order, capacity eviction, index deletion, wrap-around, growth). */
#include "sim_server_dedup.h"
#include "sim_server_table.h"
#include "sim_server_test_util.h"

/* ---- state table ------------------------------------------------------------------ */

#define T_KEYS 300u

typedef struct {
    srv_entry_hdr_t h;
    uint32_t payload;
} t_entry_t;

typedef struct {
    uint64_t expiry[T_KEYS]; /* 0 = absent in the model */
    uint64_t removed;
} t_model_t;

static void on_remove_count(void *ctx, void *entry) {
    (void)entry;
    ((t_model_t *)ctx)->removed++;
}

static void t_key(uint32_t k, uint64_t *key_id, uint8_t id[16]) {
    memset(id, 0, 16);
    *key_id = 1u + (k & 1u);
    id[0] = (uint8_t)k;
    id[1] = (uint8_t)(k >> 8);
}

/* Every key the model holds live is found live with its payload; every other
 * key is absent or expired. */
static void t_check(const srv_table_t *t, const t_model_t *m, uint64_t now) {
    for (uint32_t k = 0; k < T_KEYS; k++) {
        uint64_t key_id;
        uint8_t id[16];
        t_key(k, &key_id, id);
        const t_entry_t *e = srv_table_find(t, key_id, id);
        bool live = m->expiry[k] > now;
        assert_int_equal(srv_entry_live(e, now), live);
        if (live) {
            assert_int_equal(e->payload, k);
        }
    }
}

static void test_table_matches_model_under_churn(void **state) {
    (void)state;
    t_model_t m;
    memset(&m, 0, sizeof m);
    srv_table_t t;
    srv_table_init(&t, sizeof(t_entry_t), on_remove_count, &m);
    sim_rng_t rng;
    sim_rng_seed(&rng, 7, 99, 0);
    uint64_t now = 1000, inserted = 0;
    for (uint32_t step = 0; step < 20000; step++) {
        now += sim_rng_below(&rng, 3);
        uint32_t k = (uint32_t)sim_rng_below(&rng, T_KEYS);
        uint64_t key_id;
        uint8_t id[16];
        t_key(k, &key_id, id);
        t_entry_t *e = srv_table_find(&t, key_id, id);
        if (e == NULL) {
            assert_int_equal(srv_table_reserve(&t, 1, now), 0);
            e = srv_table_insert(&t, key_id, id);
            inserted++;
        }
        e->payload = k;
        uint64_t expiry = now + 1 + sim_rng_below(&rng, 200);
        srv_table_set_expiry(&t, e, expiry);
        m.expiry[k] = expiry;
        if (step % 97 == 0) {
            srv_table_sweep(&t, now);
            size_t live = 0;
            for (uint32_t i = 0; i < T_KEYS; i++) {
                live += m.expiry[i] > now ? 1u : 0u;
            }
            assert_int_equal(t.used, live); /* a sweep leaves exactly the live entries */
        }
        t_check(&t, &m, now);
    }
    assert_int_equal(t.used + m.removed, inserted);
    assert_true(t.sweeps > 0);
    srv_table_free(&t);
    assert_int_equal(m.removed, inserted);
}

/* ---- dedup ring ----------------------------------------------------------------------- */

#define D_KEYS 64u
#define D_MODEL_MAX 4096u

typedef struct {
    uint32_t k;
    uint64_t expiry;
    bool live;
} d_slot_t;

typedef struct {
    d_slot_t q[D_MODEL_MAX]; /* insertion order, oldest first */
    size_t head, tail;
    uint32_t capacity;
    uint64_t evicted;
} d_model_t;

static void d_pop(d_model_t *m, uint64_t now) {
    d_slot_t *s = &m->q[m->head++];
    if (s->live && now < s->expiry) {
        m->evicted++;
    }
}

static void d_model_insert(d_model_t *m, uint32_t k, uint64_t now, uint64_t expiry) {
    while (m->head < m->tail && (!m->q[m->head].live || now >= m->q[m->head].expiry)) {
        d_pop(m, now);
    }
    while (m->tail - m->head >= m->capacity) {
        d_pop(m, now);
    }
    m->q[m->tail++] = (d_slot_t){k, expiry, true};
}

/* The model's live, unexpired entry for k (expired ones are killed). */
static d_slot_t *d_model_find(d_model_t *m, uint32_t k, uint64_t now) {
    for (size_t i = m->head; i < m->tail; i++) {
        d_slot_t *s = &m->q[i];
        if (s->live && s->k == k) {
            if (now >= s->expiry) {
                s->live = false;
                return NULL;
            }
            return s;
        }
    }
    return NULL;
}

static void d_key(uint32_t k, uint8_t uid[16], srv_dd_key_t *key) {
    tu_uid(uid, k);
    key->key_id = 5;
    key->unique_id = uid;
    key->pdu_type = 0x5452;
    key->tenant_mgmt_flag = 0;
}

/* Every key: the ring and the model agree on presence (lookups kill expired
 * entries on both sides alike). */
static void d_check_all(srv_dedup_t *d, d_model_t *m, uint64_t now) {
    for (uint32_t k = 0; k < D_KEYS; k++) {
        uint8_t uid[16];
        srv_dd_key_t key;
        d_key(k, uid, &key);
        bool found = srv_dedup_lookup(d, &key, now) != NULL;
        assert_int_equal(found, d_model_find(m, k, now) != NULL);
    }
}

static void test_dedup_matches_model_under_churn(void **state) {
    (void)state;
    static d_model_t m;
    memset(&m, 0, sizeof m);
    m.capacity = 40;
    srv_dedup_t d;
    assert_int_equal(srv_dedup_init(&d, m.capacity), 0);
    sim_rng_t rng;
    sim_rng_seed(&rng, 11, 99, 1);
    uint64_t now = 5000;
    for (uint32_t step = 0; step < 3000; step++) {
        now += sim_rng_below(&rng, 2);
        uint32_t k = (uint32_t)sim_rng_below(&rng, D_KEYS);
        uint8_t uid[16];
        srv_dd_key_t key;
        d_key(k, uid, &key);
        srv_dd_slot_t *s = srv_dedup_lookup(&d, &key, now);
        d_slot_t *ms = d_model_find(&m, k, now);
        assert_int_equal(s != NULL, ms != NULL);
        if (s != NULL) {
            assert_int_equal(s->resp_len, 1 + k % 50);
            assert_int_equal(s->resp[0], (uint8_t)k);
            if (sim_rng_below(&rng, 4) == 0) { /* degraded loss */
                srv_dedup_kill(&d, s);
                ms->live = false;
            }
            continue;
        }
        uint8_t resp[64];
        memset(resp, (int)k, sizeof resp);
        uint32_t ttl = 1 + (uint32_t)sim_rng_below(&rng, 60);
        assert_int_equal(srv_dedup_insert(&d, &key, now, ttl, 0, resp, 1 + k % 50, true), 0);
        d_model_insert(&m, k, now, now + ttl);
        assert_int_equal(d.count, m.tail - m.head);
        assert_int_equal(d.evicted, m.evicted);
        d_check_all(&d, &m, now);
        if (step == 1500) { /* shrink, then grow past the first allocation */
            m.capacity = 10;
            srv_dedup_set_capacity(&d, 10, now);
            while (m.head < m.tail && (!m.q[m.head].live || now >= m.q[m.head].expiry)) {
                d_pop(&m, now);
            }
            while (m.tail - m.head > m.capacity) {
                d_pop(&m, now);
            }
            assert_int_equal(d.evicted, m.evicted);
            assert_int_equal(d.count, m.tail - m.head);
        }
        if (step == 2000) {
            m.capacity = 200;
            srv_dedup_set_capacity(&d, 200, now);
        }
    }
    assert_true(d.evicted > 0);
    srv_dedup_free(&d);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_model_under_churn),
        cmocka_unit_test(test_dedup_matches_model_under_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
