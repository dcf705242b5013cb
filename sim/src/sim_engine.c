/* SPDX-License-Identifier: MIT */
/* sim_engine.c - virtual clock and event queue: an array-based binary
 * min-heap of events ordered by (at, key), key = class << 56 | seq. The array
 * only grows (doubling), so a steady-state run allocates nothing per event.
 * Sifting moves a hole instead of swapping, one copy per level. */
#include <stdlib.h>
#include <string.h>

#include "rl_assert.h"
#include "sim_engine.h"

#define INITIAL_CAP 1024u
#define CLASS_SHIFT 56
#define SEQ_MASK ((1ull << CLASS_SHIFT) - 1u)

int sim_engine_init(sim_engine_t *e) {
    memset(e, 0, sizeof *e);
    e->heap = malloc(INITIAL_CAP * sizeof *e->heap);
    if (e->heap == NULL) {
        return -1;
    }
    e->cap = INITIAL_CAP;
    return 0;
}

void sim_engine_free(sim_engine_t *e) {
    if (e == NULL) {
        return;
    }
    free(e->heap);
    e->heap = NULL;
    e->len = e->cap = 0;
}

static inline bool before(const sim_event_t *x, const sim_event_t *y) {
    return x->at < y->at || (x->at == y->at && x->key < y->key);
}

static int grow(sim_engine_t *e) {
    if (e->cap > SIZE_MAX / 2u / sizeof *e->heap) {
        return -1;
    }
    size_t cap = e->cap != 0 ? e->cap * 2u : INITIAL_CAP;
    sim_event_t *h = realloc(e->heap, cap * sizeof *h);
    if (h == NULL) {
        return -1;
    }
    e->heap = h;
    e->cap = cap;
    return 0;
}

/* Rejects a NULL fn and an unknown class (an extension of the header's
 * "-1 on allocation failure": both would corrupt the ordering or crash). */
int sim_engine_schedule(sim_engine_t *e, sim_time_t at, sim_event_class_t cls, sim_event_fn fn, void *ctx,
                        uint64_t arg, void *ptr) {
    if (fn == NULL || (unsigned)cls > SIM_CLASS_WORKLOAD) {
        return -1;
    }
    if (e->len == e->cap && grow(e) != 0) {
        return -1;
    }
    sim_event_t ev = {at < e->now ? e->now : at, ((uint64_t)cls << CLASS_SHIFT) | (e->next_seq++ & SEQ_MASK), fn,
                      ctx, ptr, arg};
    sim_event_t *h = e->heap;
    size_t i = e->len++;
    while (i > 0) {
        size_t parent = (i - 1u) / 2u;
        if (!before(&ev, &h[parent])) {
            break;
        }
        h[i] = h[parent];
        i = parent;
    }
    h[i] = ev;
    return 0;
}

/* Remove the root: the last element falls into the hole from the top. */
static void pop_root(sim_engine_t *e) {
    sim_event_t *h = e->heap;
    size_t n = --e->len;
    if (n == 0) {
        return;
    }
    sim_event_t last = h[n];
    size_t i = 0;
    for (;;) {
        size_t child = 2u * i + 1u;
        if (child >= n) {
            break;
        }
        if (child + 1u < n && before(&h[child + 1u], &h[child])) {
            child++;
        }
        if (!before(&h[child], &last)) {
            break;
        }
        h[i] = h[child];
        i = child;
    }
    h[i] = last;
}

/* now advances only by events: after a run stopped by `until`, now is the
 * time of the last event processed. stop() ends the run in progress (the
 * flag is cleared when the next run starts). */
uint64_t sim_engine_run(sim_engine_t *e, sim_time_t until) {
    uint64_t done = 0;
    e->stopped = false;
    while (e->len > 0 && !e->stopped) {
        if (e->heap[0].at > until) {
            break;
        }
        sim_event_t ev = e->heap[0];
        pop_root(e);
        RL_ASSERT(ev.at >= e->now); /* time never runs backwards */
        RL_ASSERT(e->len == 0 || !before(&e->heap[0], &ev)); /* the root was the earliest event */
        e->now = ev.at;
        e->processed++;
        done++;
        ev.fn(ev.ctx, ev.arg, ev.ptr);
    }
    return done;
}

void sim_engine_stop(sim_engine_t *e) { e->stopped = true; }
