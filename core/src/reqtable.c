/* SPDX-License-Identifier: MIT */
/* reqtable.c - unique_id -> in-flight request map (see rl_reqtable.h). */
#include <stdlib.h>
#include <string.h>

#include "rl_assert.h"
#include "rl_le.h"
#include "rl_reqtable.h"

static char tombstone_byte;
#define TOMBSTONE ((void *)&tombstone_byte)
#define MIN_CAP 16u

/* unique_id is random (UUIDv4 bits aside): fold both halves. */
static size_t hash_id(const uint8_t id[16]) {
    uint64_t h = rl_load_u64(id) ^ (rl_load_u64(id + 8) * 0x9E3779B97F4A7C15ull);
    return (size_t)(h ^ (h >> 29));
}

void rl_reqtable_init(rl_reqtable_t *t, rl_reqtable_key_fn key_of) {
    memset(t, 0, sizeof *t);
    t->key_of = key_of;
}

void rl_reqtable_free(rl_reqtable_t *t) {
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = t->used = 0;
}

static void insert_slot(void **slots, size_t cap, rl_reqtable_key_fn key_of, void *entry) {
    size_t i = hash_id(key_of(entry)) & (cap - 1);
    while (slots[i] != NULL) {
        i = (i + 1) & (cap - 1);
    }
    slots[i] = entry;
}

static int resize(rl_reqtable_t *t, size_t new_cap) {
    void **slots = calloc(new_cap, sizeof *slots);
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i] != NULL && t->slots[i] != TOMBSTONE) {
            insert_slot(slots, new_cap, t->key_of, t->slots[i]);
        }
    }
    free(t->slots);
    t->slots = slots;
    t->cap = new_cap;
    t->used = t->count;
    return 0;
}

int rl_reqtable_put(rl_reqtable_t *t, void *entry) {
    /* Keep live + tombstones under half the capacity. */
    if ((t->used + 1) * 2 > t->cap) {
        size_t new_cap = t->cap < MIN_CAP ? MIN_CAP : t->cap;
        while ((t->count + 1) * 2 > new_cap) {
            new_cap *= 2;
        }
        if (resize(t, new_cap) != 0) {
            return -1;
        }
    }
    size_t i = hash_id(t->key_of(entry)) & (t->cap - 1);
    while (t->slots[i] != NULL && t->slots[i] != TOMBSTONE) {
        i = (i + 1) & (t->cap - 1);
    }
    if (t->slots[i] == NULL) {
        t->used++;
    }
    t->slots[i] = entry;
    t->count++;
    RL_ASSERT(t->count <= t->used && t->used * 2 <= t->cap); /* under half full, live + tombstones */
    return 0;
}

static size_t find(const rl_reqtable_t *t, const uint8_t id[16]) {
    if (t->cap == 0) {
        return SIZE_MAX;
    }
    size_t i = hash_id(id) & (t->cap - 1);
    while (t->slots[i] != NULL) {
        if (t->slots[i] != TOMBSTONE && memcmp(t->key_of(t->slots[i]), id, 16) == 0) {
            return i;
        }
        i = (i + 1) & (t->cap - 1);
    }
    return SIZE_MAX;
}

void *rl_reqtable_get(const rl_reqtable_t *t, const uint8_t unique_id[16]) {
    size_t i = find(t, unique_id);
    return i == SIZE_MAX ? NULL : t->slots[i];
}

int rl_reqtable_remove(rl_reqtable_t *t, const void *entry) {
    size_t i = find(t, t->key_of(entry));
    if (i == SIZE_MAX || t->slots[i] != entry) {
        return -1;
    }
    /* A tombstone is needed only when a probe chain continues past slot i;
     * otherwise the slot (and tombstones just before it) can become empty, so a
     * low-load table churns without ever rehashing. */
    size_t mask = t->cap - 1;
    if (t->slots[(i + 1) & mask] == NULL) {
        t->slots[i] = NULL;
        t->used--;
        for (size_t j = (i - 1) & mask; t->slots[j] == TOMBSTONE; j = (j - 1) & mask) {
            t->slots[j] = NULL;
            t->used--;
        }
    } else {
        t->slots[i] = TOMBSTONE;
    }
    RL_ASSERT(t->count > 0);
    t->count--;
    RL_ASSERT(find(t, t->key_of(entry)) == SIZE_MAX); /* gone */
    return 0;
}

void *rl_reqtable_slot(const rl_reqtable_t *t, size_t i) {
    void *e = i < t->cap ? t->slots[i] : NULL;
    return e == TOMBSTONE ? NULL : e;
}
