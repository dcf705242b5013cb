/* SPDX-License-Identifier: MIT */
/* sim_server_table.h - open-addressing table of per-tenant state entries keyed
 * by (key_id, 16-byte id) with lazy expiry: rate buckets (bucket_id), latency
 * trackers (latency_tracker_id) and metrics labels (a label fingerprint).
 * Private to the reference server.
 *
 * Linear probing, load factor <= 1/2, backward-shift deletion (no
 * tombstones). An entry is live while now < expiry_ms; expired entries stay
 * stored until a sweep, which runs only when it can free something
 * (now >= min_expiry, a lower bound of every stored expiry) and only when the
 * table would otherwise grow or a quota check would fail. Steady state
 * allocates nothing: memory grows only with the number of live entries.
 *
 * The ids are chosen by clients (the server uses them as received,
 * wire_protocol.md "Content-defined resource identity"), so the position
 * hash is SipHash-2-4 (OpenSSL EVP_MAC) under a 16-byte key held by a
 * hasher the server's tables share (srv_hasher_init; the server draws the
 * key from its random stream): without the key nobody can choose ids that
 * share one probe chain, which with an unkeyed mix made every insert and
 * lookup walk a cluster of up to a tenant's whole quota (65,536 buckets by
 * default) and slowed every tenant whose entries landed in it. One request
 * looks the same (key_id, id) up several times (validation, commit, the
 * service records), so the hasher remembers its last hashes in a small
 * direct-mapped memo. A table without a hasher uses an unkeyed mix. */
#ifndef SIM_SERVER_TABLE_H
#define SIM_SERVER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define SRV_ID_LEN 16u

#define SRV_HASH_MEMO 64u

/* The keyed position hash shared by a server's tables. */
typedef struct {
    EVP_MAC_CTX *mac;           /* SipHash-2-4 under the key */
    struct {
        uint64_t key_id;
        uint8_t id[SRV_ID_LEN];
        uint32_t hash;
        uint32_t valid;
    } memo[SRV_HASH_MEMO];      /* slot (id[0] ^ key_id) % SRV_HASH_MEMO */
} srv_hasher_t;

/* Key h (16 bytes, copied into OpenSSL's MAC context). Returns 0, or -1 when
 * OpenSSL has no SipHash or no memory (h is then zeroed, srv_hasher_free safe). */
int srv_hasher_init(srv_hasher_t *h, const uint8_t key[16]);
/* Free the context (it cleanses the key) and forget the memo. */
void srv_hasher_free(srv_hasher_t *h);

/* Every entry starts with this header; the owner's fields follow. */
typedef struct {
    uint64_t key_id;
    uint8_t id[SRV_ID_LEN];
    uint64_t expiry_ms;   /* live while now < expiry_ms */
    uint32_t hash;
    uint32_t used;        /* 0 = empty slot */
} srv_entry_hdr_t;

/* Called for every entry leaving the table (sweep, clear, free) before its
 * slot is reused: owners release side allocations and per-tenant counts. */
typedef void (*srv_table_remove_fn)(void *ctx, void *entry);

typedef struct {
    uint8_t *slots;
    size_t entry_size;
    size_t cap;           /* power of two; 0 before the first insert */
    size_t used;          /* stored entries, live or expired */
    uint64_t min_expiry;  /* <= every stored expiry_ms */
    uint64_t sweeps;
    srv_table_remove_fn on_remove;
    void *ctx;
    srv_hasher_t *hasher; /* the keyed position hash (not owned), or NULL (unkeyed mix) */
} srv_table_t;

void srv_table_init(srv_table_t *t, size_t entry_size, srv_table_remove_fn on_remove, void *ctx);
void srv_table_free(srv_table_t *t);
/* Remove every entry (on_remove each), keep the memory. */
void srv_table_clear(srv_table_t *t);

/* Hash positions with h (borrowed: it must outlive the table's use). Only
 * while the table is empty: 0, or -1 when entries exist (they were placed
 * under the old hash). */
int srv_table_set_hasher(srv_table_t *t, srv_hasher_t *h);

/* The position hash of a key in t (keyed when t has a hasher). */
uint32_t srv_table_hash(const srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]);

/* The stored entry for the key, live or expired, or NULL. Pointers stay valid
 * until the next reserve, sweep, insert or clear. */
void *srv_table_find(const srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]);

/* Make room for n more inserts without growth: sweep when useful, then grow.
 * Invalidates entry pointers. Returns 0, or -1 on allocation failure. */
int srv_table_reserve(srv_table_t *t, size_t n, uint64_t now_ms);

/* Insert an absent key after srv_table_reserve(): a zeroed entry with the
 * header filled and expiry_ms 0 (the caller sets it through srv_table_set_expiry). */
void *srv_table_insert(srv_table_t *t, uint64_t key_id, const uint8_t id[SRV_ID_LEN]);

/* Set an entry's expiry and keep min_expiry a lower bound. */
void srv_table_set_expiry(srv_table_t *t, void *entry, uint64_t expiry_ms);

/* Remove every expired entry if any can have expired (now >= min_expiry).
 * Returns true when a sweep ran. Invalidates entry pointers. */
bool srv_table_sweep(srv_table_t *t, uint64_t now_ms);

/* Remove every entry of key_id, live or not (on_remove each): a removed
 * tenant (wire_protocol.md "REMOVE Tenant") leaves no state behind. O(cap).
 * Invalidates entry pointers. */
void srv_table_drop_key(srv_table_t *t, uint64_t key_id);

static inline bool srv_entry_live(const void *entry, uint64_t now_ms) {
    return entry != NULL && now_ms < ((const srv_entry_hdr_t *)entry)->expiry_ms;
}

#endif /* SIM_SERVER_TABLE_H */
