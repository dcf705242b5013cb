/* SPDX-License-Identifier: MIT */
/* snapshot.c - immutable, reference-counted membership snapshots
 * (r-client.md 9 "Membership Snapshot", 9.1 ranking).
 *
 * Members are stored ascending by server_id. Oldest-first ranking is
 * (server_start_s, server_id) and server_start_s = epoch + (server_id >> 23)
 * is monotonic in server_id, so ascending server_id is already oldest-first
 * and a member's index is its rank. */
#include <stdint.h>
#include <stdlib.h>

#include "rl_assert.h"
#include "rl_membership.h"

typedef struct {
    rl_member_t member;
    size_t order; /* position in the caller's array: the tie-break that keeps the first duplicate */
} sort_item_t;

static int compare_items(const void *a, const void *b) {
    const sort_item_t *x = a;
    const sort_item_t *y = b;
    if (x->member.server_id != y->member.server_id) {
        return x->member.server_id < y->member.server_id ? -1 : 1;
    }
    return x->order < y->order ? -1 : (x->order > y->order ? 1 : 0);
}

rl_snapshot_t *rl_snapshot_new(const rl_member_t *members, size_t n) {
    if (members == NULL || n == 0 || n > (SIZE_MAX - sizeof(rl_snapshot_t)) / (sizeof(rl_member_t) + sizeof(uint64_t)) ||
        n > SIZE_MAX / sizeof(sort_item_t)) {
        return NULL;
    }
    /* qsort is not stable: sort (server_id, original position) pairs so the
     * first given of each duplicate server_id sorts first and is kept. */
    sort_item_t *items = malloc(n * sizeof *items);
    rl_snapshot_t *s = malloc(sizeof *s + n * (sizeof(rl_member_t) + sizeof(uint64_t)));
    if (items == NULL || s == NULL) {
        free(items);
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        items[i].member = members[i];
        items[i].order = i;
    }
    qsort(items, n, sizeof *items, compare_items);
    s->refcount = 1;
    s->count = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->count == 0 || s->members[s->count - 1].server_id != items[i].member.server_id) {
            s->members[s->count++] = items[i].member;
        }
    }
    free(items);
    /* The id array follows the n member slots (rl_member_t is 8-byte aligned). */
    uint64_t *ids = (uint64_t *)(void *)(s->members + n);
    for (size_t i = 0; i < s->count; i++) {
        ids[i] = s->members[i].server_id;
    }
    s->ids = ids;
    /* r-client.md 9.3.2: one strict oldest-to-youngest order */
    for (size_t i = 1; i < s->count; i++) {
        RL_ASSERT(ids[i - 1] < ids[i]);
    }
    return s;
}

void rl_snapshot_ref(rl_snapshot_t *s) {
    if (s != NULL) {
        s->refcount++;
    }
}

void rl_snapshot_unref(rl_snapshot_t *s) {
    if (s != NULL && --s->refcount == 0) {
        free(s);
    }
}

long rl_snapshot_rank(const rl_snapshot_t *s, uint64_t server_id) {
    if (s == NULL) {
        return -1;
    }
    size_t lo = 0;
    size_t hi = s->count; /* search [lo, hi) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t id = s->members[mid].server_id;
        if (id == server_id) {
            return (long)mid;
        }
        if (id < server_id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return -1;
}
