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
 * allocates nothing: memory grows only with the number of live entries. */
#ifndef SIM_SERVER_TABLE_H
#define SIM_SERVER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SRV_ID_LEN 16u

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
} srv_table_t;

void srv_table_init(srv_table_t *t, size_t entry_size, srv_table_remove_fn on_remove, void *ctx);
void srv_table_free(srv_table_t *t);
/* Remove every entry (on_remove each), keep the memory. */
void srv_table_clear(srv_table_t *t);

uint32_t srv_table_hash(uint64_t key_id, const uint8_t id[SRV_ID_LEN]);

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
