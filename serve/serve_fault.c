/* SPDX-License-Identifier: MIT */
/* serve_fault.c - delays, injected datagrams, rate cap and reply queue
 * (contract: serve_fault.h). */
#include "serve_fault.h"

#include <stdlib.h>
#include <string.h>

#include "rl_le.h"

uint32_t serve_delay_draw(const serve_delay_t *d, sim_rng_t *rng) {
    switch (d->kind) {
    case SERVE_DELAY_FIXED: return d->a_ms;
    case SERVE_DELAY_UNIFORM: return d->a_ms + (uint32_t)sim_rng_below(rng, (uint64_t)(d->b_ms - d->a_ms) + 1u);
    case SERVE_DELAY_EXP: {
        double v = sim_rng_exp(rng, (double)d->a_ms);
        return v >= (double)d->b_ms ? d->b_ms : (uint32_t)v;
    }
    default: return 0;
    }
}

void serve_ratecap_init(serve_ratecap_t *rc, uint32_t rate, uint64_t now_ms) {
    rc->rate = rate;
    rc->tokens_milli = (uint64_t)rate * 1000u;
    rc->last_ms = now_ms;
}

bool serve_ratecap_take(serve_ratecap_t *rc, uint64_t now_ms) {
    uint64_t full = (uint64_t)rc->rate * 1000u;
    if (now_ms > rc->last_ms) {
        uint64_t add = (now_ms - rc->last_ms) * rc->rate; /* rate tokens/s = rate milli-tokens/ms */
        rc->tokens_milli = full - rc->tokens_milli <= add ? full : rc->tokens_milli + add;
        rc->last_ms = now_ms;
    }
    if (rc->tokens_milli < 1000u) {
        return false;
    }
    rc->tokens_milli -= 1000u;
    return true;
}

size_t serve_inject_make(serve_inject_kind_t kind, const uint8_t *reply, size_t len, sim_rng_t *rng, uint8_t *out) {
    switch (kind) {
    case SERVE_INJECT_TRUNCATED: {
        size_t n = 1u + (size_t)sim_rng_below(rng, len - 1u);
        memcpy(out, reply, n);
        return n;
    }
    case SERVE_INJECT_TENANT_SIZE:
        memcpy(out, reply, len);
        rl_store_u16(out + 2, 36); /* tenant tlv_size: 40 on the wire */
        return len;
    case SERVE_INJECT_UNIQUE_ID:
        memcpy(out, reply, len);
        out[12 + sim_rng_below(rng, 16)] ^= (uint8_t)(1u + sim_rng_below(rng, 255));
        return len;
    default: {
        size_t n = 1u + (size_t)sim_rng_below(rng, SERVE_DATAGRAM_MAX);
        sim_rng_bytes(rng, out, n);
        return n;
    }
    }
}

const char *serve_inject_name(serve_inject_kind_t kind) {
    static const char *const names[SERVE_INJECT_KINDS] = {"truncated reply", "reply with tenant tlv_size 36",
                                                          "reply with another unique_id", "random bytes"};
    return (unsigned)kind < SERVE_INJECT_KINDS ? names[kind] : "unknown";
}

int serve_queue_init(serve_queue_t *q, size_t cap) {
    memset(q, 0, sizeof *q);
    q->items = calloc(cap, sizeof *q->items);
    q->cap = q->items == NULL ? 0 : cap;
    return q->items == NULL ? -1 : 0;
}

void serve_queue_free(serve_queue_t *q) {
    free(q->items);
    memset(q, 0, sizeof *q);
}

static bool earlier(const serve_pending_t *a, const serve_pending_t *b) {
    return a->due_ms < b->due_ms || (a->due_ms == b->due_ms && a->seq < b->seq);
}

static void swap(serve_pending_t *a, serve_pending_t *b) {
    serve_pending_t t = *a;
    *a = *b;
    *b = t;
}

bool serve_queue_push(serve_queue_t *q, const serve_pending_t *p) {
    if (q->n >= q->cap) {
        return false;
    }
    size_t i = q->n++;
    q->items[i] = *p;
    q->items[i].seq = q->next_seq++;
    while (i > 0 && earlier(&q->items[i], &q->items[(i - 1) / 2])) {
        swap(&q->items[i], &q->items[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    return true;
}

const serve_pending_t *serve_queue_peek(const serve_queue_t *q) {
    return q->n == 0 ? NULL : &q->items[0];
}

void serve_queue_pop(serve_queue_t *q) {
    if (q->n == 0) {
        return;
    }
    q->items[0] = q->items[--q->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < q->n && earlier(&q->items[l], &q->items[m])) {
            m = l;
        }
        if (r < q->n && earlier(&q->items[r], &q->items[m])) {
            m = r;
        }
        if (m == i) {
            break;
        }
        swap(&q->items[i], &q->items[m]);
        i = m;
    }
}
