/* SPDX-License-Identifier: MIT */
/* sim_server_dedup.c - deduplication cache: insertion-ordered ring plus an
 * open-addressing index (see sim_server_dedup.h). */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "rl_assert.h"
#include "sim_server_codec.h"
#include "sim_server_dedup.h"

#define DD_MIN_PHYS 64u
#define DD_MIN_RESP 256u

/* SipHash-2-4 (OpenSSL's EVP_MAC "SIPHASH", 8-byte output) of the key's
 * fields under the cache's key: without the key, nobody can choose
 * unique_ids that share one index slot. The last input and its hash are
 * remembered: one datagram asks for the same key up to three times (lookup,
 * ghost, insert). */
static uint64_t key_hash(srv_dedup_t *d, const srv_dd_key_t *k) {
    uint8_t in[SRV_DD_HASH_IN];
    srv_st64(in, k->key_id);
    memcpy(in + 8, k->unique_id, 16);
    in[24] = (uint8_t)(k->pdu_type >> 8);
    in[25] = (uint8_t)k->pdu_type;
    in[26] = k->tenant_mgmt_flag;
    if (d->memo_valid && memcmp(in, d->memo_in, sizeof in) == 0) {
        return d->memo_hash;
    }
    uint8_t out[8] = {0};
    size_t n = 0;
    /* Re-initialising without a key restarts under the key already set. */
    if (EVP_MAC_init(d->mac, NULL, 0, NULL) != 1 || EVP_MAC_update(d->mac, in, sizeof in) != 1 ||
        EVP_MAC_final(d->mac, out, &n, sizeof out) != 1) {
        return 0; /* not reached with a keyed context; a constant hash is still correct, only slow */
    }
    memcpy(d->memo_in, in, sizeof in);
    d->memo_hash = srv_ld64(out);
    d->memo_valid = true;
    return d->memo_hash;
}

static bool key_equal(const srv_dd_slot_t *s, const srv_dd_key_t *k, uint64_t h) {
    return s->hash == h && s->key_id == k->key_id && s->pdu_type == k->pdu_type &&
           s->tenant_mgmt_flag == k->tenant_mgmt_flag && memcmp(s->unique_id, k->unique_id, 16) == 0;
}

/* ---- index -------------------------------------------------------------- */

static void index_put(srv_dedup_t *d, uint32_t pos) {
    uint32_t i = (uint32_t)d->ring[pos].hash & d->index_mask;
    while (d->index[i] != 0) {
        i = (i + 1) & d->index_mask;
    }
    d->index[i] = pos + 1;
}

static bool home_between(uint32_t i, uint32_t j, uint32_t k) {
    return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* Backward-shift deletion of the index entry that points at pos. */
static void index_del(srv_dedup_t *d, uint32_t pos) {
    uint32_t m = d->index_mask;
    uint32_t i = (uint32_t)d->ring[pos].hash & m;
    while (d->index[i] != pos + 1) {
        i = (i + 1) & m;
    }
    for (uint32_t j = (i + 1) & m; d->index[j] != 0; j = (j + 1) & m) {
        uint32_t home = (uint32_t)d->ring[d->index[j] - 1].hash & m;
        if (!home_between(i, j, home)) {
            d->index[i] = d->index[j];
            i = j;
        }
    }
    d->index[i] = 0;
}

/* ---- ring ------------------------------------------------------------- */

/* (Re)allocate ring, index and ghosts for phys slots; the occupied slots move
 * to positions 0..count-1 in order and keep their buffers. */
static int resize(srv_dedup_t *d, uint32_t phys) {
    uint32_t isize = 1;
    while (isize < 2u * phys) {
        isize <<= 1;
    }
    srv_dd_slot_t *ring = calloc(phys, sizeof *ring);
    uint32_t *index = calloc(isize, sizeof *index);
    srv_dd_ghost_t *ghosts = calloc(isize, sizeof *ghosts);
    if (ring == NULL || index == NULL || ghosts == NULL) {
        free(ring);
        free(index);
        free(ghosts);
        return -1;
    }
    for (uint32_t k = 0; k < d->phys; k++) { /* every old slot, so no buffer leaks */
        ring[k] = d->ring[(d->head + k) % d->phys];
    }
    for (uint32_t g = 0; d->ghosts != NULL && g <= d->index_mask; g++) {
        if (d->ghosts[g].expiry_ms != 0) {
            ghosts[d->ghosts[g].fp & (isize - 1)] = d->ghosts[g];
        }
    }
    free(d->ring);
    free(d->index);
    free(d->ghosts);
    d->ring = ring;
    d->index = index;
    d->ghosts = ghosts;
    d->index_mask = isize - 1;
    d->phys = phys;
    d->head = 0;
    for (uint32_t k = 0; k < d->count; k++) {
        if (ring[k].live) {
            index_put(d, k);
        }
    }
    return 0;
}

int srv_dedup_init(srv_dedup_t *d, uint32_t capacity) {
    memset(d, 0, sizeof *d);
    d->capacity = capacity == 0 ? 1u : capacity;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
    d->mac = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    EVP_MAC_free(mac); /* the context holds its own reference */
    const uint8_t zero[16] = {0};
    if (d->mac == NULL || srv_dedup_set_key(d, zero) != 0 ||
        resize(d, d->capacity < DD_MIN_PHYS ? d->capacity : DD_MIN_PHYS) != 0) {
        EVP_MAC_CTX_free(d->mac);
        d->mac = NULL;
        return -1;
    }
    return 0;
}

void srv_dedup_free(srv_dedup_t *d) {
    for (uint32_t k = 0; k < d->phys; k++) {
        free(d->ring[k].resp);
    }
    free(d->ring);
    free(d->index);
    free(d->ghosts);
    EVP_MAC_CTX_free(d->mac); /* cleanses the key */
    memset(d, 0, sizeof *d);
}

void srv_dedup_clear(srv_dedup_t *d) {
    for (uint32_t k = 0; k < d->phys; k++) {
        d->ring[k].live = 0;
    }
    memset(d->index, 0, ((size_t)d->index_mask + 1) * sizeof *d->index);
    memset(d->ghosts, 0, ((size_t)d->index_mask + 1) * sizeof *d->ghosts);
    d->head = 0;
    d->count = 0;
    d->degraded_until_ms = 0;
}

void srv_dedup_kill(srv_dedup_t *d, srv_dd_slot_t *s) {
    if (s->live) {
        index_del(d, (uint32_t)(s - d->ring));
        s->live = 0;
    }
}

int srv_dedup_set_key(srv_dedup_t *d, const uint8_t key[16]) {
    if (d->count > 0) {
        return -1;
    }
    d->memo_valid = false;
    size_t size = 8;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_construct_end()};
    return EVP_MAC_init(d->mac, key, 16, params) == 1 ? 0 : -1;
}

srv_dd_slot_t *srv_dedup_lookup(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms) {
    uint64_t h = key_hash(d, key);
    for (uint32_t i = (uint32_t)h & d->index_mask; d->index[i] != 0; i = (i + 1) & d->index_mask) {
        srv_dd_slot_t *s = &d->ring[d->index[i] - 1];
        if (key_equal(s, key, h)) {
            if (now_ms >= s->keep_until_ms) {
                srv_dedup_kill(d, s);
                return NULL;
            }
            return s;
        }
    }
    return NULL;
}

bool srv_dedup_ghost_hit(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms) {
    uint64_t fp = key_hash(d, key);
    srv_dd_ghost_t *g = &d->ghosts[fp & d->index_mask];
    if (g->expiry_ms == 0 || g->fp != fp) {
        return false;
    }
    bool hit = now_ms < g->expiry_ms;
    memset(g, 0, sizeof *g);
    return hit;
}

/* Free the head slot. A live entry still inside its window is an eviction:
 * counted, and remembered as a ghost. */
static void pop_head(srv_dedup_t *d, uint64_t now_ms) {
    srv_dd_slot_t *s = &d->ring[d->head];
    if (s->live) {
        if (now_ms < s->expiry_ms) {
            uint64_t evicted_before = d->evicted;
            d->evicted++;
            d->evicted_key_id = s->key_id;
            if (s->expiry_ms > d->degraded_until_ms) {
                d->degraded_until_ms = s->expiry_ms;
            }
            /* Degraded-State Behavior: an eviction is counted (ERROR) and degrades until its window ends */
            RL_ASSERT(d->evicted == evicted_before + 1 && d->degraded_until_ms > now_ms);
            (void)evicted_before;
            srv_dd_ghost_t *g = &d->ghosts[s->hash & d->index_mask];
            g->fp = s->hash;
            g->expiry_ms = s->expiry_ms;
        }
        srv_dedup_kill(d, s);
    }
    RL_ASSERT(d->count > 0);
    d->head = (d->head + 1) % d->phys;
    d->count--;
}

/* Reclaim head slots that are killed or past their retention: they cost no
 * eviction. */
static void reclaim(srv_dedup_t *d, uint64_t now_ms) {
    while (d->count > 0 && (!d->ring[d->head].live || now_ms >= d->ring[d->head].keep_until_ms)) {
        pop_head(d, now_ms);
    }
}

void srv_dedup_set_capacity(srv_dedup_t *d, uint32_t capacity, uint64_t now_ms) {
    d->capacity = capacity == 0 ? 1u : capacity;
    reclaim(d, now_ms);
    while (d->count > d->capacity) {
        pop_head(d, now_ms);
    }
    RL_ASSERT(d->count <= d->capacity);
}

static int store_bytes(srv_dd_slot_t *s, const uint8_t *resp, size_t len) {
    if (len > s->resp_cap) {
        size_t cap = len < DD_MIN_RESP ? DD_MIN_RESP : len;
        uint8_t *b = realloc(s->resp, cap);
        if (b == NULL) {
            return -1;
        }
        s->resp = b;
        s->resp_cap = (uint16_t)cap;
    }
    memcpy(s->resp, resp, len);
    s->resp_len = (uint16_t)len;
    return 0;
}

int srv_dedup_insert(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms, uint32_t ttl_ms, uint64_t keep_until_ms,
                     const uint8_t *resp, size_t len, bool allowed) {
    if (len > SRV_MAX_DATAGRAM) {
        return -1;
    }
    reclaim(d, now_ms);
    while (d->count >= d->capacity) {
        pop_head(d, now_ms);
    }
    if (d->count == d->phys) {
        uint32_t phys = d->phys * 2u < d->capacity ? d->phys * 2u : d->capacity;
        if (resize(d, phys) != 0) {
            return -1;
        }
    }
    uint32_t pos = (d->head + d->count) % d->phys;
    srv_dd_slot_t *s = &d->ring[pos];
    if (store_bytes(s, resp, len) != 0) {
        return -1;
    }
    s->key_id = key->key_id;
    memcpy(s->unique_id, key->unique_id, 16);
    s->pdu_type = key->pdu_type;
    s->tenant_mgmt_flag = key->tenant_mgmt_flag;
    s->hash = key_hash(d, key);
    s->inserted_ms = now_ms;
    s->ttl_ms = ttl_ms;
    s->expiry_ms = now_ms + ttl_ms;
    s->keep_until_ms = keep_until_ms > s->expiry_ms ? keep_until_ms : s->expiry_ms;
    s->live = 1;
    s->allowed = allowed ? 1u : 0u;
    d->count++;
    index_put(d, pos);
    return 0;
}
