/* SPDX-License-Identifier: MIT */
/* sim_server_dedup.h - the reference server's deduplication cache
 * (wire_protocol.md "unique_id" Deduplication Key, "Deduplication Health
 * Model"; r-client-ha-design.md 11 items 1-3). Private to the server.
 *
 * Entries sit in a ring in insertion order (the oldest at the head) and are
 * found through an open-addressing index keyed by (pdu_type,
 * tenant_mgmt_flag, key_id, unique_id), hashed with SipHash-2-4 (OpenSSL
 * EVP_MAC) under a 16-byte key set once per cache (srv_dedup_set_key), so
 * nobody without the key can choose unique_ids that share a slot. Each holds the exact response bytes
 * it answered with, in a per-slot buffer that is kept and reused (grown only
 * for a larger response), so steady state allocates nothing.
 *
 * An entry is replayed until expiry_ms (its accepted window) and found
 * until keep_until_ms (>= expiry_ms; the host keeps it while a copy could
 * still pass its freshness check, to refuse that copy).
 *
 * capacity bounds the occupied slots: an entry leaves its slot when it
 * reaches the head past keep_until_ms (or killed), or as the oldest when a
 * new entry needs room (an eviction, counted, when still inside its window:
 * degraded_until_ms then covers that window). An entry that expired behind an older, longer-lived
 * one keeps its slot until it reaches the head (it is no longer found).
 *
 * Ghosts: a live entry evicted for capacity leaves a fingerprint with its
 * expiry in a direct-mapped table, so a later duplicate within its window can
 * be counted as reprocessed. A colliding newer ghost overwrites an older one
 * (the count can only be low, never high).
 *
 * Memory per slot: 80 bytes of slot + the response buffer (>= 256 bytes,
 * at most 1200) + 8 bytes of index + 32 bytes of ghosts (both tables have
 * 2 entries per slot); the ring grows by doubling up to the capacity. */
#ifndef SIM_SERVER_DEDUP_H
#define SIM_SERVER_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define SRV_DD_HASH_IN 27u         /* bytes hashed per key */

typedef struct {
    uint64_t key_id;
    const uint8_t *unique_id;   /* 16 bytes */
    uint16_t pdu_type;
    uint8_t tenant_mgmt_flag;
} srv_dd_key_t;

typedef struct {
    uint64_t key_id;
    uint8_t unique_id[16];
    uint64_t hash;              /* 64-bit key hash: index uses the low 32 bits, ghosts all 64 */
    uint64_t inserted_ms;
    uint64_t expiry_ms;         /* replayed while now < expiry_ms (the accepted window) */
    uint64_t keep_until_ms;     /* found (a copy after the window is refused) while now < this, >= expiry_ms */
    uint8_t *resp;
    uint32_t ttl_ms;            /* accepted dedup TTL */
    uint16_t pdu_type;
    uint16_t resp_len;
    uint16_t resp_cap;
    uint8_t tenant_mgmt_flag;
    uint8_t live;               /* in the index */
    uint8_t allowed;            /* the cached response's decision */
} srv_dd_slot_t;

typedef struct {
    uint64_t fp;
    uint64_t expiry_ms;
} srv_dd_ghost_t;

typedef struct {
    srv_dd_slot_t *ring;
    uint32_t phys;              /* allocated slots */
    uint32_t head, count;       /* occupied slots: head .. head+count-1 (mod phys) */
    uint32_t capacity;          /* bound on count */
    uint32_t *index;            /* ring position + 1; 0 = empty */
    uint32_t index_mask;
    srv_dd_ghost_t *ghosts;     /* index_mask + 1 entries */
    uint64_t evicted;           /* live entries evicted for capacity (cumulative) */
    uint64_t evicted_key_id;    /* key_id of the last of them */
    uint64_t degraded_until_ms; /* the latest window end of an evicted entry: replay is not
                                   guaranteed before it (0 = never evicted) */
    EVP_MAC_CTX *mac;           /* SipHash-2-4 under the cache's key (srv_dedup_set_key) */
    uint8_t memo_in[SRV_DD_HASH_IN]; /* the last key hashed (key_id, unique_id, pdu_type, flag) */
    uint64_t memo_hash;
    bool memo_valid;
} srv_dedup_t;

/* capacity >= 1. The index hash is keyed with 16 zero bytes until
 * srv_dedup_set_key. Returns 0 or -1 (allocation, or no SipHash in OpenSSL). */
int srv_dedup_init(srv_dedup_t *d, uint32_t capacity);
void srv_dedup_free(srv_dedup_t *d);
/* Forget every entry and ghost (restart); buffers are kept. */
void srv_dedup_clear(srv_dedup_t *d);

/* Key the index hash (16 bytes). Only while the cache is empty: 0, or -1
 * when entries exist (they were placed under the old key). */
int srv_dedup_set_key(srv_dedup_t *d, const uint8_t key[16]);

/* The entry for key while it is retained (now < keep_until_ms), or NULL: a
 * live one (now < expiry_ms) is to be replayed, a retained one past its
 * window marks a copy arriving too late. An entry past its retention found
 * on the way is killed. The pointer is valid until the next
 * insert/kill/clear. */
srv_dd_slot_t *srv_dedup_lookup(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms);

/* Lose an entry (degraded mode): it is no longer found. */
void srv_dedup_kill(srv_dedup_t *d, srv_dd_slot_t *s);

/* After a miss: true (and the ghost is cleared) when key was evicted for
 * capacity while still inside its window. */
bool srv_dedup_ghost_hit(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms);

/* Cache resp[0..len) for key (absent or killed) until now + ttl_ms, and keep
 * finding it until max(that, keep_until_ms), evicting the oldest entries
 * first when count has reached the capacity (an entry past its window but
 * retained leaves without counting as an eviction).
 * Returns 0, or -1 when memory for it could not be allocated (not cached). */
int srv_dedup_insert(srv_dedup_t *d, const srv_dd_key_t *key, uint64_t now_ms, uint32_t ttl_ms, uint64_t keep_until_ms,
                     const uint8_t *resp, size_t len, bool allowed);

/* Change the capacity (>= 1), evicting the oldest entries beyond it. */
void srv_dedup_set_capacity(srv_dedup_t *d, uint32_t capacity, uint64_t now_ms);

#endif /* SIM_SERVER_DEDUP_H */
