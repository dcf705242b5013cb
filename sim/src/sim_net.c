/* sim_net.c - the simulated network. One state per directed link (its
 * parameters and its Gilbert-Elliott state), partition flags per node, and a
 * free-list pool of packets so a steady-state run allocates nothing per
 * datagram.
 *
 * Per send, in this order (each drop is logged and counted by reason, and a
 * packet dropped by an earlier check draws nothing for the later ones):
 *   1. partition: src partitioned outbound or dst partitioned inbound;
 *   2. link down;
 *   3. loss: Bernoulli p, or Gilbert-Elliott: the packet is lost with the
 *      loss rate of the link's current state, then the state moves
 *      (good -> bad with p_good_to_bad, bad -> good with p_bad_to_good);
 *   4. duplication: with duplicate_p a second copy travels too;
 *   5. per copy: latency draw + jitter, + reorder_us with reorder_p;
 *      delivery is an engine event of class SIM_CLASS_DELIVER at now + delay.
 * SEND and DROP are logged at send time, DELIVER at delivery time.
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

typedef struct {
    sim_link_t p;
    bool bad; /* Gilbert-Elliott state */
} link_state_t;

#define LINK_PURPOSES 6 /* SIM_PURPOSE_LOSS .. SIM_PURPOSE_PROCESSING */

typedef struct {
    sim_rng_t r[LINK_PURPOSES];
} link_rng_t;

struct sim_net {
    sim_engine_t *engine;
    sim_log_t *log;
    uint64_t key;        /* the net's seed for link streams */
    bool shared_bad[SIM_NET_SHARED_MAX];      /* shared Gilbert-Elliott states */
    sim_rng_t shared_rng[SIM_NET_SHARED_MAX]; /* their transition streams */
    size_t n;
    link_state_t *links; /* n * n, [src * n + dst] */
    link_rng_t **rngs;   /* n * n, allocated on a link's first draw */
    uint8_t *part;       /* PART_IN | PART_OUT per node */
    sim_deliver_fn deliver;
    void *deliver_ctx;
    packet_t *free_packets;
    chunk_t *chunks;
    sim_net_stats_t stats;
};

sim_net_t *sim_net_new(sim_engine_t *engine, sim_log_t *log, const sim_rng_t *rng, size_t n_nodes,
                       const sim_link_t *default_link, sim_deliver_fn deliver, void *deliver_ctx) {
    if (engine == NULL || rng == NULL || default_link == NULL || deliver == NULL || n_nodes == 0 ||
        n_nodes >= SIM_NODE_ANY || n_nodes > SIZE_MAX / sizeof(link_state_t) / n_nodes) {
        return NULL;
    }
    sim_net_t *net = calloc(1, sizeof *net);
    if (net == NULL) {
        return NULL;
    }
    net->links = malloc(n_nodes * n_nodes * sizeof *net->links);
    net->rngs = calloc(n_nodes * n_nodes, sizeof *net->rngs);
    net->part = calloc(n_nodes, 1);
    if (net->links == NULL || net->rngs == NULL || net->part == NULL) {
        sim_net_free(net);
        return NULL;
    }
    for (size_t i = 0; i < n_nodes * n_nodes; i++) {
        net->links[i].p = *default_link;
        net->links[i].bad = false;
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
    for (size_t i = 0; net->rngs != NULL && i < net->n * net->n; i++) {
        free(net->rngs[i]);
    }
    free(net->rngs);
    free(net->links);
    free(net->part);
    free(net);
}

/* ---- configuration ------------------------------------------------------ */

static bool node_matches(uint32_t want, size_t node) { return want == SIM_NODE_ANY || want == node; }

void sim_net_set_link(sim_net_t *net, uint32_t src, uint32_t dst, const sim_link_t *link) {
    if (net == NULL || link == NULL) {
        return;
    }
    for (size_t s = 0; s < net->n; s++) {
        if (!node_matches(src, s)) {
            continue;
        }
        for (size_t d = 0; d < net->n; d++) {
            if (node_matches(dst, d)) {
                net->links[s * net->n + d].p = *link; /* .bad kept */
            }
        }
    }
}

const sim_link_t *sim_net_link(const sim_net_t *net, uint32_t src, uint32_t dst) {
    if (net == NULL || src >= net->n || dst >= net->n) {
        return NULL;
    }
    return &net->links[(size_t)src * net->n + dst].p;
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

sim_rng_t *sim_net_stream(sim_net_t *net, uint32_t src, uint32_t dst, uint32_t purpose) {
    if (net == NULL || src >= net->n || dst >= net->n || purpose >= LINK_PURPOSES) {
        return NULL;
    }
    link_rng_t **slot = &net->rngs[(size_t)src * net->n + dst];
    if (*slot == NULL) {
        link_rng_t *lr = malloc(sizeof *lr);
        if (lr == NULL) {
            return NULL;
        }
        for (uint32_t k = 0; k < LINK_PURPOSES; k++) {
            sim_rng_entity(&lr->r[k], net->key, SIM_STREAM_NET, ((uint64_t)src << 20) | dst, k);
        }
        *slot = lr;
    }
    return &(*slot)->r[purpose];
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

/* base + shape draw + jitter, in us (sim_net.h sim_latency_kind_t). */
static uint64_t draw_latency(sim_rng_t *r, const sim_latency_t *l) {
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
            d += to_us(l->fraction * (double)l->samples[sim_rng_below(r, l->n_samples)]);
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

static bool lost(sim_net_t *net, link_rng_t *lr, link_state_t *ls) {
    const sim_loss_t *l = &ls->p.loss;
    sim_rng_t *loss = &lr->r[SIM_PURPOSE_LOSS], *state = &lr->r[SIM_PURPOSE_STATE];
    switch (l->kind) {
    case SIM_LOSS_BERNOULLI:
        return sim_rng_chance(loss, l->p);
    case SIM_LOSS_GILBERT: {
        /* a shared chain: every link naming it steps one state (correlated loss) */
        bool *bad = &ls->bad;
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
    net->stats.delivered++;
    sim_log_record(net->log, sim_engine_now(net->engine), SIM_LOG_DELIVER, p->src, p->dst, p->len);
    net->deliver(net->deliver_ctx, p->src, p->dst, p->data, p->len);
    packet_put(net, p); /* after the call: data is valid during it */
}

static int send_copy(sim_net_t *net, const link_state_t *ls, link_rng_t *lr, uint32_t src, uint32_t dst, const uint8_t *data,
                     size_t len) {
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
    uint64_t delay = draw_latency(&lr->r[SIM_PURPOSE_LATENCY], &ls->p.latency);
    if (sim_rng_chance(&lr->r[SIM_PURPOSE_REORDER], ls->p.reorder_p)) {
        delay += ls->p.reorder_us;
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
    if (net == NULL || src >= net->n || dst >= net->n || (data == NULL && len != 0)) {
        return -1;
    }
    net->stats.sent++;
    sim_log_record(net->log, sim_engine_now(net->engine), SIM_LOG_SEND, src, dst, len);
    if (len > SIM_MAX_PACKET) {
        drop(net, src, dst, SIM_DROP_TOO_BIG);
        return -1;
    }
    if ((net->part[src] & PART_OUT) || (net->part[dst] & PART_IN)) {
        drop(net, src, dst, SIM_DROP_PARTITION);
        return 0;
    }
    link_state_t *ls = &net->links[(size_t)src * net->n + dst];
    if (ls->p.down) {
        drop(net, src, dst, SIM_DROP_DOWN);
        return 0;
    }
    if (sim_net_stream(net, src, dst, 0) == NULL) {
        return -1;
    }
    link_rng_t *lr = net->rngs[(size_t)src * net->n + dst];
    if (lost(net, lr, ls)) {
        drop(net, src, dst, SIM_DROP_LOSS);
        return 0;
    }
    bool twice = sim_rng_chance(&lr->r[SIM_PURPOSE_DUPLICATE], ls->p.duplicate_p);
    if (send_copy(net, ls, lr, src, dst, data, len) != 0) {
        return -1;
    }
    if (twice) {
        net->stats.duplicated++;
        if (send_copy(net, ls, lr, src, dst, data, len) != 0) {
            return -1;
        }
    }
    return 0;
}
