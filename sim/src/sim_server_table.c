/* SPDX-License-Identifier: MIT */
/* sim_server_table.c - open-addressing state table with lazy expiry (see
 * sim_server_table.h). */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "sim_server_codec.h"
#include "sim_server_table.h"

#define TABLE_MIN_CAP 16u

static srv_entry_hdr_t *slot(const srv_table_t *t, size_t i) {
    return (srv_entry_hdr_t *)(t->slots + i * t->entry_size);
}

void srv_table_init(srv_table_t *t, size_t entry_size, srv_table_remove_fn on_remove, void *ctx) {
    memset(t, 0, sizeof *t);
    t->entry_size = entry_size;
    t->min_expiry = UINT64_MAX;
    t->on_remove = on_remove;
    t->ctx = ctx;
}

void srv_table_clear(srv_table_t *t) {
    for (size_t i = 0; i < t->cap; i++) {
        srv_entry_hdr_t *e = slot(t, i);
        if (e->used && t->on_remove != NULL) {
            t->on_remove(t->ctx, e);
        }
    }
    if (t->slots != NULL) {
        memset(t->slots, 0, t->cap * t->entry_size);
    }
    t->used = 0;
    t->min_expiry = UINT64_MAX;
}

void srv_table_free(srv_table_t *t) {
    srv_table_clear(t);
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
}

int srv_hasher_init(srv_hasher_t *h, const uint8_t key[16]) {
    memset(h, 0, sizeof *h);
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
    h->mac = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    EVP_MAC_free(mac); /* the context holds its own reference */
    size_t size = 8;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
    if (h->mac == NULL || EVP_MAC_init(h->mac, key, 16, params) != 1) {
        srv_hasher_free(h);
        return -1;
    }
    return 0;
}

void srv_hasher_free(srv_hasher_t *h) {
    EVP_MAC_CTX_free(h->mac); /* cleanses the key */
    memset(h, 0, sizeof *h);
}

int srv_table_set_hasher(srv_table_t *t, srv_hasher_t *h) {
    if (t->used > 0) {
        return -1;
    }
    t->hasher = h;
    return 0;
}

static uint32_t keyed_hash(srv_hasher_t *h, uint64_t key_id, const uint8_t id[SRV_ID_LEN]) {
    size_t m = (id[0] ^ (size_t)key_id) % SRV_HASH_MEMO;
    if (h->memo[m].valid && h->memo[m].key_id == key_id && memcmp(h->memo[m].id, id, SRV_ID_LEN) == 0) {
        return h->memo[m].hash;
    }
    uint8_t in[8 + SRV_ID_LEN], out[8] = {0};
    size_t n = 0;
    srv_st64(in, key_id);
    memcpy(in + 8, id, SRV_ID_LEN);
    /* Re-initialising without a key restarts under the key already set. */
    if (EVP_MAC_init(h->mac, NULL, 0, NULL) != 1 || EVP_MAC_update(h->mac, in, sizeof in) != 1 ||
        EVP_MAC_final(h->mac, out, &n, sizeof out) != 1) {
        return 0; /* not reached with a keyed context; a constant hash is still correct, only slow */
    }
    h->memo[m].key_id = key_id;
    memcpy(h->memo[m].id, id, SRV_ID_LEN);
    h->memo[m].hash = (uint32_t)srv_ld64(out);
    h->memo[m].valid = 1;
    return h->memo[m].hash;
}

/* SipHash-2-4 of key_id (LE) || id under the hasher's key; without one, a
 * splitmix64 finaliser over the key (a test table). */
uint32_t srv_table_hash(const srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]) {
    if (t->hasher != NULL) {
        return keyed_hash(t->hasher, key_id, id);
    }
    uint64_t h = key_id * 0x9E3779B97F4A7C15ull ^ srv_ld64(id) ^ (srv_ld64(id + 8) * 0xC2B2AE3D27D4EB4Full);
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 31;
    return (uint32_t)h;
}

void *srv_table_find(const srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]) {
    if (t->cap == 0) {
        return NULL;
    }
    uint32_t h = srv_table_hash(t, key_id, id);
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        srv_entry_hdr_t *e = slot(t, i);
        if (!e->used) {
            return NULL;
        }
        if (e->hash == h && e->key_id == key_id && memcmp(e->id, id, SRV_ID_LEN) == 0) {
            return e;
        }
    }
}

static void place(srv_table_t *t, const srv_entry_hdr_t *src) {
    size_t mask = t->cap - 1;
    size_t i = src->hash & mask;
    while (slot(t, i)->used) {
        i = (i + 1) & mask;
    }
    memcpy(slot(t, i), src, t->entry_size);
}

static int grow(srv_table_t *t, size_t need) {
    size_t cap = t->cap == 0 ? TABLE_MIN_CAP : t->cap;
    while (need * 2u > cap) {
        cap *= 2u;
    }
    if (cap == t->cap) {
        return 0;
    }
    uint8_t *fresh = calloc(cap, t->entry_size);
    if (fresh == NULL) {
        return -1;
    }
    uint8_t *old = t->slots;
    size_t old_cap = t->cap;
    t->slots = fresh;
    t->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        const srv_entry_hdr_t *e = (const srv_entry_hdr_t *)(old + i * t->entry_size);
        if (e->used) {
            place(t, e);
        }
    }
    free(old);
    return 0;
}

int srv_table_reserve(srv_table_t *t, size_t n, uint64_t now_ms) {
    if ((t->used + n) * 2u <= t->cap) {
        return 0;
    }
    srv_table_sweep(t, now_ms);
    return grow(t, t->used + n);
}

void *srv_table_insert(srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]) {
    uint32_t h = srv_table_hash(t, key_id, id);
    size_t mask = t->cap - 1;
    size_t i = h & mask;
    while (slot(t, i)->used) {
        i = (i + 1) & mask;
    }
    srv_entry_hdr_t *e = slot(t, i);
    memset(e, 0, t->entry_size);
    e->key_id = key_id;
    memcpy(e->id, id, SRV_ID_LEN);
    e->hash = h;
    e->used = 1;
    t->used++;
    return e;
}

void srv_table_set_expiry(srv_table_t *t, void *entry, uint64_t expiry_ms) {
    ((srv_entry_hdr_t *)entry)->expiry_ms = expiry_ms;
    if (expiry_ms < t->min_expiry) {
        t->min_expiry = expiry_ms;
    }
}

/* True when home position k lies cyclically in (i, j]: the entry at j may
 * not move back to i. */
static bool home_between(size_t i, size_t j, size_t k) {
    return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* Backward-shift deletion at i (Knuth 6.4 algorithm R). Entries move only
 * from later positions of the same cluster into the hole. */
static void remove_at(srv_table_t *t, size_t i) {
    size_t mask = t->cap - 1;
    if (t->on_remove != NULL) {
        t->on_remove(t->ctx, slot(t, i));
    }
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        srv_entry_hdr_t *e = slot(t, j);
        if (!e->used) {
            break;
        }
        if (!home_between(i, j, e->hash & mask)) {
            memcpy(slot(t, i), e, t->entry_size);
            i = j;
        }
    }
    memset(slot(t, i), 0, t->entry_size);
    t->used--;
}

bool srv_table_sweep(srv_table_t *t, uint64_t now_ms) {
    if (t->used == 0 || now_ms < t->min_expiry) {
        return false;
    }
    /* Start just after an empty slot (one exists at load <= 1/2): no cluster
     * wraps past it, so backward shifts never move a visited entry. */
    size_t mask = t->cap - 1;
    size_t start = 0;
    while (slot(t, start)->used) {
        start++;
    }
    uint64_t min_expiry = UINT64_MAX;
    size_t i = (start + 1) & mask;
    for (size_t visited = 1; visited < t->cap;) {
        srv_entry_hdr_t *e = slot(t, i);
        if (e->used && e->expiry_ms <= now_ms) {
            remove_at(t, i); /* re-examine i: a later entry may have moved in */
            continue;
        }
        if (e->used && e->expiry_ms < min_expiry) {
            min_expiry = e->expiry_ms;
        }
        i = (i + 1) & mask;
        visited++;
    }
    t->min_expiry = min_expiry;
    t->sweeps++;
    return true;
}

void srv_table_drop_key(srv_table_t *t, uint64_t key_id) {
    if (t->used == 0) {
        return;
    }
    /* As the sweep: start after an empty slot so no cluster wraps past the
     * start, and re-check a slot after a removal shifted an entry into it. */
    size_t mask = t->cap - 1;
    size_t start = 0;
    while (slot(t, start)->used) {
        start++;
    }
    for (size_t k = 1; k <= t->cap; k++) {
        size_t i = (start + k) & mask;
        srv_entry_hdr_t *e = slot(t, i);
        while (e->used && e->key_id == key_id) {
            remove_at(t, i);
        }
    }
}
