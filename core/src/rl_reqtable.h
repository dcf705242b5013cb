/* SPDX-License-Identifier: MIT */
/* rl_reqtable.h - in-flight requests indexed by unique_id (open addressing,
 * linear probing, power-of-two capacity). Entries are borrowed pointers; the
 * key is read through the key_of function so the table stores no copies.
 * Memory grows only when the table grows (amortised, not per request). */
#ifndef RL_REQTABLE_H
#define RL_REQTABLE_H

#include <stddef.h>
#include <stdint.h>

typedef const uint8_t *(*rl_reqtable_key_fn)(const void *entry); /* 16-byte unique_id */

typedef struct {
    void **slots;  /* NULL = empty, RL_REQTABLE_TOMBSTONE = deleted */
    size_t cap;    /* 0 or a power of two */
    size_t count;  /* live entries */
    size_t used;   /* live + tombstones */
    rl_reqtable_key_fn key_of;
} rl_reqtable_t;

void rl_reqtable_init(rl_reqtable_t *t, rl_reqtable_key_fn key_of);
void rl_reqtable_free(rl_reqtable_t *t);
/* Insert entry (its key must not be present). Returns 0, or -1 on allocation failure. */
int rl_reqtable_put(rl_reqtable_t *t, void *entry);
/* Entry with this unique_id, or NULL. */
void *rl_reqtable_get(const rl_reqtable_t *t, const uint8_t unique_id[16]);
/* Live entry in slot i (i < cap), or NULL for an empty or deleted slot. */
void *rl_reqtable_slot(const rl_reqtable_t *t, size_t i);
/* Remove entry (by its key). Returns 0, or -1 when absent. */
int rl_reqtable_remove(rl_reqtable_t *t, const void *entry);

#endif /* RL_REQTABLE_H */
