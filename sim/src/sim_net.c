/* SPDX-License-Identifier: MIT */
/* sim_net.c - the simulated network. One state per directed link (its
 * parameters and its Gilbert-Elliott state), partition flags per node, and a
 * free-list pool of packets so a steady-state run allocates nothing per
 * datagram.
 *
 * Per send, in this order (each drop is logged and counted by reason, and a
 * packet dropped by an earlier check draws nothing for the later ones):
 *   1. partition: src partitioned outbound or dst partitioned inbound;
 *   2. link down (its parameters, or a failure process: sim_net_fail);
 *   3. loss: Bernoulli p, or Gilbert-Elliott: the packet is lost with the
 *      loss rate of the link's current state, then the state moves
 *      (good -> bad with p_good_to_bad, bad -> good with p_bad_to_good);
 *   4. duplication: with duplicate_p a second copy travels too;
 *   5. per copy: latency draw + jitter, + reorder_us with reorder_p;
 *      delivery is an engine event of class SIM_CLASS_DELIVER at now + delay.
 * SEND and DROP are logged at send time, DELIVER at delivery time.
 *
 * Storage: the parameters are a list of rules (src or dst may be any node),
 * the last matching rule wins; state exists only for the links that carried
 * a packet (a hash map on (src, dst)), so a run of thousands of nodes costs
 * memory for the links it uses, not nodes x nodes.
 *
 * Common random numbers: every directed link owns one stream per purpose
 * (loss, Gilbert-Elliott state, duplication, latency, reorder, and the
 * receiving server's processing jitter), seeded on the link's first use from
 * (net key, SIM_STREAM_NET, src << 20 | dst, purpose) with the net key drawn
 * from the stream given to sim_net_new. What a link draws depends only on the
 * packets sent over that link. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rl_assert.h"
#include "sim_net.h"

/* A draw is capped at one hour: long-tail shapes cannot overflow the clock. */
#define MAX_DELAY_US 3600000000ull
#define PACKETS_PER_CHUNK 64u

#define PART_IN 1u
#define PART_OUT 2u

typedef struct packet {
    struct packet *next; /* free list */
    uint32_t src, dst;
    size_t len;
    uint8_t data[SIM_MAX_PACKET];
} packet_t;

typedef struct chunk {
    struct chunk *next;
    packet_t packets[PACKETS_PER_CHUNK];
} chunk_t;

#define LINK_PURPOSES 6 /* SIM_PURPOSE_LOSS .. SIM_PURPOSE_PROCESSING */

/* A parameter rule: every link (src, dst) it matches takes p unless a later
 * rule matches it too. Rule 0 is the default link (ANY, ANY). */
typedef struct {
    uint32_t src, dst;
    sim_link_t p;
} link_rule_t;

/* The state of one directed link that carried a packet (or was asked for a
 * stream): its streams, its Gilbert-Elliott state and the rule in force,
 * cached until a rule changes (version). */
typedef struct link_entry {
    uint64_t key;        /* src << 32 | dst */
    uint32_t rule;       /* index into rules, valid while version == net->version */
    uint32_t version;
    bool bad;            /* Gilbert-Elliott state */
    sim_rng_t r[LINK_PURPOSES];
} link_entry_t;

#define ENTRIES_PER_BLOCK 256u

struct sim_net {
    sim_engine_t *engine;
    sim_log_t *log;
    uint64_t key;        /* the net's seed for link streams */
    bool shared_bad[SIM_NET_SHARED_MAX];      /* shared Gilbert-Elliott states */
    sim_rng_t shared_rng[SIM_NET_SHARED_MAX]; /* their transition streams */
    size_t n;
    link_rule_t *rules;  /* in the order set; the last match wins */
    size_t n_rules, cap_rules;
    uint32_t version;    /* bumped by every rule change */
    link_entry_t **slots; /* open addressing on key; only links used so far (memory ~ links used, not n * n) */
    size_t cap_slots, n_entries;
    link_entry_t **blocks; /* entries, ENTRIES_PER_BLOCK per block (stable addresses) */
    size_t n_blocks;
    uint8_t *part;       /* PART_IN | PART_OUT per node */
    struct failed_link { uint32_t src, dst, owner; } *failed; /* sim_net_fail entries in force */
    size_t n_failed, cap_failed;
    sim_deliver_fn deliver;
    void *deliver_ctx;
    packet_t *free_packets;
    chunk_t *chunks;
    sim_net_stats_t stats;
};

static int add_rule(sim_net_t *net, uint32_t src, uint32_t dst, const sim_link_t *link);

sim_net_t *sim_net_new(sim_engine_t *engine, sim_log_t *log, const sim_rng_t *rng, size_t n_nodes,
                       const sim_link_t *default_link, sim_deliver_fn deliver, void *deliver_ctx) {
    if (engine == NULL || rng == NULL || default_link == NULL || deliver == NULL || n_nodes == 0 ||
        n_nodes >= (1u << 20)) { /* stream entity src << 20 | dst */
        return NULL;
    }
    sim_net_t *net = calloc(1, sizeof *net);
    if (net == NULL) {
        return NULL;
    }
    net->part = calloc(n_nodes, 1);
    net->cap_slots = 64;
    net->slots = calloc(net->cap_slots, sizeof *net->slots);
    if (net->part == NULL || net->slots == NULL || add_rule(net, SIM_NODE_ANY, SIM_NODE_ANY, default_link) != 0) {
        sim_net_free(net);
        return NULL;
    }
    net->engine = engine;
    net->log = log;
    sim_rng_t r = *rng;
    net->key = sim_rng_u64(&r);
    for (uint32_t k = 0; k < SIM_NET_SHARED_MAX; k++) {
        sim_rng_entity(&net->shared_rng[k], net->key, SIM_STREAM_NET, 0xFFFFF000u + k, SIM_PURPOSE_STATE);
    }
    net->n = n_nodes;
    net->deliver = deliver;
    net->deliver_ctx = deliver_ctx;
    return net;
}

/* Packets still scheduled in the engine point into the chunks: free the
 * network only once the engine will run no more events. */
void sim_net_free(sim_net_t *net) {
    if (net == NULL) {
        return;
    }
    while (net->chunks != NULL) {
        chunk_t *next = net->chunks->next;
        free(net->chunks);
        net->chunks = next;
    }
    for (size_t i = 0; i < net->n_blocks; i++) {
        free(net->blocks[i]);
    }
    free(net->blocks);
    free(net->slots);
    free(net->rules);
    free(net->failed);
    free(net->part);
    free(net);
}

/* ---- configuration ------------------------------------------------------ */

static bool node_matches(uint32_t want, size_t node) { return want == SIM_NODE_ANY || want == node; }

/* Append a rule. A rule with the same (src, dst) as an older one matches
 * exactly the links the older one did, so the older one can never win again
 * and is removed: the list stays bounded by the distinct (src, dst) pairs. */
static int add_rule(sim_net_t *net, uint32_t src, uint32_t dst, const sim_link_t *link) {
    for (size_t i = 1; i < net->n_rules; i++) {
        if (net->rules[i].src == src && net->rules[i].dst == dst) {
            memmove(&net->rules[i], &net->rules[i + 1], (net->n_rules - i - 1) * sizeof *net->rules);
            net->n_rules--;
            break;
        }
    }
    if (src == SIM_NODE_ANY && dst == SIM_NODE_ANY && net->n_rules > 0) {
        net->n_rules = 1; /* every link: the rules before are all overridden */
        net->rules[0].p = *link;
        net->version++;
        return 0;
    }
    if (net->n_rules == net->cap_rules) {
        size_t cap = net->cap_rules ? 2 * net->cap_rules : 8;
        link_rule_t *r = realloc(net->rules, cap * sizeof *r);
        if (r == NULL) {
            return -1;
        }
        net->rules = r;
        net->cap_rules = cap;
    }
    net->rules[net->n_rules++] = (link_rule_t){src, dst, *link};
    net->version++;
    return 0;
}

static size_t rule_for(const sim_net_t *net, uint32_t src, uint32_t dst) {
    size_t i = net->n_rules - 1;
    while (i > 0 && !(node_matches(net->rules[i].src, src) && node_matches(net->rules[i].dst, dst))) {
        i--;
    }
    return i;
}

void sim_net_set_link(sim_net_t *net, uint32_t src, uint32_t dst, const sim_link_t *link) {
    if (net == NULL || link == NULL || (src != SIM_NODE_ANY && src >= net->n) || (dst != SIM_NODE_ANY && dst >= net->n)) {
        return;
    }
    (void)add_rule(net, src, dst, link); /* .bad kept: it lives in the link's entry */
}

const sim_link_t *sim_net_link(const sim_net_t *net, uint32_t src, uint32_t dst) {
    if (net == NULL || src >= net->n || dst >= net->n) {
        return NULL;
    }
    return &net->rules[rule_for(net, src, dst)].p;
}

/* node may be SIM_NODE_ANY (every node): an extension of the header. */
void sim_net_partition(sim_net_t *net, uint32_t node, sim_dir_t dir, bool on) {
    if (net == NULL) {
        return;
    }
    uint8_t bits = (uint8_t)(((dir & SIM_DIR_IN) ? PART_IN : 0u) | ((dir & SIM_DIR_OUT) ? PART_OUT : 0u));
    for (size_t i = 0; i < net->n; i++) {
        if (node_matches(node, i)) {
            net->part[i] = (uint8_t)(on ? (net->part[i] | bits) : (net->part[i] & ~bits));
        }
    }
}

const sim_net_stats_t *sim_net_stats(const sim_net_t *net) { return &net->stats; }

int sim_net_fail(sim_net_t *net, uint32_t src, uint32_t dst, uint32_t owner, bool on) {
    if (net == NULL) {
        return -1;
    }
    for (size_t i = 0; i < net->n_failed; i++) {
        struct failed_link *f = &net->failed[i];
        if (f->src == src && f->dst == dst && f->owner == owner) {
            if (!on) {
                *f = net->failed[--net->n_failed];
            }
            return 0;
        }
    }
    if (!on) {
        return 0;
    }
    if (net->n_failed == net->cap_failed) {
        size_t cap = net->cap_failed ? 2 * net->cap_failed : 8;
        struct failed_link *f = realloc(net->failed, cap * sizeof *f);
        if (f == NULL) {
            return -1;
        }
        net->failed = f;
        net->cap_failed = cap;
    }
    net->failed[net->n_failed++] = (struct failed_link){src, dst, owner};
    return 0;
}

static bool link_failed(const sim_net_t *net, uint32_t src, uint32_t dst) {
    for (size_t i = 0; i < net->n_failed; i++) {
        if (node_matches(net->failed[i].src, src) && node_matches(net->failed[i].dst, dst)) {
            return true;
        }
    }
    return false;
}

static size_t slot_of(uint64_t key, size_t mask) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & mask;
}

static int grow_slots(sim_net_t *net) {
    size_t cap = net->cap_slots * 2;
    link_entry_t **slots = calloc(cap, sizeof *slots);
    if (slots == NULL) {
        return -1;
    }
    for (size_t i = 0; i < net->cap_slots; i++) {
        link_entry_t *e = net->slots[i];
        if (e != NULL) {
            size_t j = slot_of(e->key, cap - 1);
            while (slots[j] != NULL) j = (j + 1) & (cap - 1);
            slots[j] = e;
        }
    }
    free(net->slots);
    net->slots = slots;
    net->cap_slots = cap;
    return 0;
}

/* The link's entry, created (streams seeded) on first use; NULL on allocation failure. */
static link_entry_t *entry(sim_net_t *net, uint32_t src, uint32_t dst) {
    uint64_t key = (uint64_t)src << 32 | dst;
    size_t mask = net->cap_slots - 1, j = slot_of(key, mask);
    for (link_entry_t *e; (e = net->slots[j]) != NULL; j = (j + 1) & mask) {
        if (e->key == key) {
            return e;
        }
    }
    if (net->n_entries % ENTRIES_PER_BLOCK == 0) {
        link_entry_t **b = realloc(net->blocks, (net->n_blocks + 1) * sizeof *b);
        if (b == NULL) {
            return NULL;
        }
        net->blocks = b;
        if ((b[net->n_blocks] = malloc(ENTRIES_PER_BLOCK * sizeof **b)) == NULL) {
            return NULL;
        }
        net->n_blocks++;
    }
    link_entry_t *e = &net->blocks[net->n_blocks - 1][net->n_entries % ENTRIES_PER_BLOCK];
    e->key = key;
    e->bad = false;
    e->version = net->version - 1u;
    for (uint32_t k = 0; k < LINK_PURPOSES; k++) {
        sim_rng_entity(&e->r[k], net->key, SIM_STREAM_NET, ((uint64_t)src << 20) | dst, k);
    }
    net->slots[j] = e;
    net->n_entries++;
    if (2 * net->n_entries > net->cap_slots && grow_slots(net) != 0) {
        return NULL;
    }
    return e;
}

static const sim_link_t *entry_params(sim_net_t *net, link_entry_t *e) {
    if (e->version != net->version) {
        e->rule = (uint32_t)rule_for(net, (uint32_t)(e->key >> 32), (uint32_t)e->key);
        e->version = net->version;
    }
    return &net->rules[e->rule].p;
}

sim_rng_t *sim_net_stream(sim_net_t *net, uint32_t src, uint32_t dst, uint32_t purpose) {
    if (net == NULL || src >= net->n || dst >= net->n || purpose >= LINK_PURPOSES) {
        return NULL;
    }
    link_entry_t *e = entry(net, src, dst);
    return e != NULL ? &e->r[purpose] : NULL;
}

/* ---- packet pool --------------------------------------------------------- */

static packet_t *packet_get(sim_net_t *net) {
    if (net->free_packets == NULL) {
        chunk_t *c = malloc(sizeof *c);
        if (c == NULL) {
            return NULL;
        }
        c->next = net->chunks;
        net->chunks = c;
        for (size_t i = 0; i < PACKETS_PER_CHUNK; i++) {
            c->packets[i].next = net->free_packets;
            net->free_packets = &c->packets[i];
        }
    }
    packet_t *p = net->free_packets;
    net->free_packets = p->next;
    return p;
}

static void packet_put(sim_net_t *net, packet_t *p) {
    p->next = net->free_packets;
    net->free_packets = p;
}

/* ---- the model ------------------------------------------------------------ */

static uint64_t to_us(double x) {
    if (!(x > 0.0)) {
        return 0;
    }
    if (x >= (double)MAX_DELAY_US) {
        return MAX_DELAY_US;
    }
    return (uint64_t)(x + 0.5);
}

/* base + shape draw + jitter, in us (sim_net.h sim_latency_kind_t); exchange,
 * when not NULL, picks an empirical sample instead of r. */
static uint64_t draw_latency(sim_rng_t *r, const sim_latency_t *l, sim_rng_t *exchange) {
    uint64_t d = l->base_us;
    switch (l->kind) {
    case SIM_LAT_UNIFORM:
        d += sim_rng_below(r, (uint64_t)l->spread_us + 1u);
        break;
    case SIM_LAT_EXP:
        d += to_us(sim_rng_exp(r, (double)l->spread_us));
        break;
    case SIM_LAT_PARETO:
        /* Inverse transform: scale * U^(-1/alpha) with U in (0, 1], >= scale. */
        if (l->alpha > 0.0) {
            d += to_us((double)l->spread_us / pow(1.0 - sim_rng_unit(r), 1.0 / l->alpha));
        } else {
            d += l->spread_us; /* no valid shape: the scale alone */
        }
        break;
    case SIM_LAT_EMPIRICAL:
        if (l->n_samples > 0) {
            /* a tagged packet: the exchange's one round-trip sample, shared by both directions */
            sim_rng_t *pick = exchange != NULL ? exchange : r;
            d += to_us(l->fraction * (double)l->samples[sim_rng_below(pick, l->n_samples)]);
        }
        break;
    case SIM_LAT_CONST:
    default:
        break;
    }
    if (l->jitter_us != 0) {
        d += sim_rng_below(r, (uint64_t)l->jitter_us + 1u);
    }
    return d < MAX_DELAY_US ? d : MAX_DELAY_US;
}

static bool lost(sim_net_t *net, link_entry_t *le, const sim_link_t *lp, sim_rng_t *loss) {
    const sim_loss_t *l = &lp->loss;
    sim_rng_t *state = &le->r[SIM_PURPOSE_STATE];
    switch (l->kind) {
    case SIM_LOSS_BERNOULLI:
        return sim_rng_chance(loss, l->p);
    case SIM_LOSS_GILBERT: {
        /* a shared chain: every link naming it steps one state (correlated loss) */
        bool *bad = &le->bad;
        if (l->shared >= 1 && l->shared <= SIM_NET_SHARED_MAX) {
            bad = &net->shared_bad[l->shared - 1];
            state = &net->shared_rng[l->shared - 1];
        }
        bool drop = sim_rng_chance(loss, *bad ? l->loss_bad : l->loss_good);
        *bad = *bad ? !sim_rng_chance(state, l->p_bad_to_good) : sim_rng_chance(state, l->p_good_to_bad);
        return drop;
    }
    case SIM_LOSS_NONE:
    default:
        return false;
    }
}

static void drop(sim_net_t *net, uint32_t src, uint32_t dst, sim_drop_reason_t why) {
    net->stats.dropped[why]++;
    sim_log_record(net->log, sim_engine_now(net->engine), SIM_LOG_DROP, src, dst, (uint64_t)why);
}

static void deliver_event(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    sim_net_t *net = ctx;
    packet_t *p = ptr;
    RL_ASSERT(p->src < net->n && p->dst < net->n && p->len <= SIM_MAX_PACKET); /* only what send accepted */
    net->stats.delivered++;
    sim_log_record_bytes(net->log, sim_engine_now(net->engine), SIM_LOG_DELIVER, p->src, p->dst, p->len, p->data, p->len);
    net->deliver(net->deliver_ctx, p->src, p->dst, p->data, p->len);
    packet_put(net, p); /* after the call: data is valid during it */
}

/* The draws of one packet: the link's sequential streams, or (tagged) streams
 * of (net key, link, id, xmit, copy, purpose). */
typedef struct {
    sim_rng_t *loss, *dup, *latency, *reorder, *exchange;
    sim_rng_t own[5];
} pkt_draws_t;

static uint64_t counter_c(uint32_t xmit, uint32_t copy, uint32_t purpose) {
    return (uint64_t)xmit << 16 | (uint64_t)copy << 8 | purpose;
}

static void draws_for(const sim_net_t *net, link_entry_t *le, uint32_t src, uint32_t dst, const sim_net_tag_t *tag,
                      uint32_t copy, pkt_draws_t *d) {
    if (tag == NULL) {
        d->loss = &le->r[SIM_PURPOSE_LOSS];
        d->dup = &le->r[SIM_PURPOSE_DUPLICATE];
        d->latency = &le->r[SIM_PURPOSE_LATENCY];
        d->reorder = &le->r[SIM_PURPOSE_REORDER];
        d->exchange = NULL;
        return;
    }
    uint64_t link = (uint64_t)src << 32 | dst;
    uint64_t pair = 1ull << 63 | (uint64_t)(src < dst ? src : dst) << 32 | (src < dst ? dst : src);
    const uint32_t purpose[4] = {SIM_PURPOSE_LOSS, SIM_PURPOSE_DUPLICATE, SIM_PURPOSE_LATENCY, SIM_PURPOSE_REORDER};
    for (int k = 0; k < 4; k++) {
        sim_rng_counter(&d->own[k], net->key, link, tag->id, counter_c(tag->xmit, copy, purpose[k]));
    }
    sim_rng_counter(&d->own[4], net->key, pair, tag->id, counter_c(tag->xmit, copy, SIM_PURPOSE_EXCHANGE));
    d->loss = &d->own[0];
    d->dup = &d->own[1];
    d->latency = &d->own[2];
    d->reorder = &d->own[3];
    d->exchange = &d->own[4];
}

static int send_copy(sim_net_t *net, const sim_link_t *lp, pkt_draws_t *dr, uint32_t src, uint32_t dst,
                     const uint8_t *data, size_t len) {
    packet_t *p = packet_get(net);
    if (p == NULL) {
        return -1;
    }
    p->src = src;
    p->dst = dst;
    p->len = len;
    if (len != 0) {
        memcpy(p->data, data, len);
    }
    uint64_t delay = draw_latency(dr->latency, &lp->latency, dr->exchange);
    if (sim_rng_chance(dr->reorder, lp->reorder_p)) {
        delay += lp->reorder_us;
        net->stats.reordered++;
    }
    if (sim_engine_schedule(net->engine, sim_engine_now(net->engine) + delay, SIM_CLASS_DELIVER, deliver_event, net,
                            0, p) != 0) {
        packet_put(net, p);
        return -1;
    }
    return 0;
}

int sim_net_send(sim_net_t *net, uint32_t src, uint32_t dst, const uint8_t *data, size_t len) {
    return sim_net_send_tagged(net, src, dst, data, len, NULL);
}

int sim_net_send_tagged(sim_net_t *net, uint32_t src, uint32_t dst, const uint8_t *data, size_t len,
                        const sim_net_tag_t *tag) {
    if (tag != NULL && tag->id == 0) {
        tag = NULL;
    }
    if (net == NULL || src >= net->n || dst >= net->n || (data == NULL && len != 0)) {
        return -1;
    }
    net->stats.sent++;
    sim_log_record_bytes(net->log, sim_engine_now(net->engine), SIM_LOG_SEND, src, dst, len, data, len);
    if (len > SIM_MAX_PACKET) {
        drop(net, src, dst, SIM_DROP_TOO_BIG);
        return -1;
    }
    if ((net->part[src] & PART_OUT) || (net->part[dst] & PART_IN)) {
        drop(net, src, dst, SIM_DROP_PARTITION);
        return 0;
    }
    link_entry_t *le = entry(net, src, dst);
    if (le == NULL) {
        return -1;
    }
    const sim_link_t *lp = entry_params(net, le);
    if (lp->down || (net->n_failed != 0 && link_failed(net, src, dst))) {
        drop(net, src, dst, SIM_DROP_DOWN);
        return 0;
    }
    pkt_draws_t dr;
    draws_for(net, le, src, dst, tag, 0, &dr);
    if (lost(net, le, lp, dr.loss)) {
        drop(net, src, dst, SIM_DROP_LOSS);
        return 0;
    }
    bool twice = sim_rng_chance(dr.dup, lp->duplicate_p);
    if (send_copy(net, lp, &dr, src, dst, data, len) != 0) {
        return -1;
    }
    if (twice) {
        net->stats.duplicated++;
        if (tag != NULL) {
            draws_for(net, le, src, dst, tag, 1, &dr); /* the second copy: its own latency and reorder draws */
        }
        if (send_copy(net, lp, &dr, src, dst, data, len) != 0) {
            return -1;
        }
    }
    return 0;
}
