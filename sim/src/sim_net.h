/* SPDX-License-Identifier: MIT */
/* sim_net.h - the simulated network: one directed link per (source node,
 * destination node) with latency, jitter, loss (Bernoulli or Gilbert-Elliott
 * bursts), duplication, reordering, partitions and link down/up, all
 * changeable over time. Datagrams are copied into pooled packets and
 * delivered by an engine event of class SIM_CLASS_DELIVER. */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_engine.h"

#define SIM_NODE_ANY UINT32_MAX
#define SIM_MAX_PACKET 1500u

typedef enum {
    SIM_LAT_CONST = 0,    /* base_us */
    SIM_LAT_UNIFORM = 1,  /* base_us + uniform [0, spread_us] */
    SIM_LAT_EXP = 2,      /* base_us + exponential with mean spread_us */
    SIM_LAT_PARETO = 3,   /* base_us + Pareto(scale spread_us, shape alpha): long tail */
    SIM_LAT_EMPIRICAL = 4 /* base_us + fraction x one of samples[] drawn uniformly (measured round trips) */
} sim_latency_kind_t;

typedef struct {
    sim_latency_kind_t kind;
    uint32_t base_us;
    uint32_t spread_us;
    double alpha;         /* Pareto shape, > 1 */
    uint32_t jitter_us;   /* extra uniform [0, jitter_us] on every packet */
    const uint32_t *samples; /* SIM_LAT_EMPIRICAL: n_samples values in us, owned by the config */
    uint32_t n_samples;
    double fraction;      /* SIM_LAT_EMPIRICAL: share of a sample used (0.5: one way of a round trip) */
} sim_latency_t;

typedef enum {
    SIM_LOSS_NONE = 0,
    SIM_LOSS_BERNOULLI = 1,  /* each packet lost with probability p */
    SIM_LOSS_GILBERT = 2     /* two-state Markov chain per link: good/bad with their own loss rates */
} sim_loss_kind_t;

typedef struct {
    sim_loss_kind_t kind;
    double p;
    double p_good_to_bad, p_bad_to_good; /* per packet transition probabilities */
    double loss_good, loss_bad;
    uint32_t shared;      /* Gilbert-Elliott: 0 = the link's own chain; k = shared chain k (1..SIM_NET_SHARED_MAX) */
} sim_loss_t;

#define SIM_NET_SHARED_MAX 64u /* shared Gilbert-Elliott chains (correlated loss across links) */

typedef struct {
    sim_latency_t latency;
    sim_loss_t loss;
    double duplicate_p;   /* a second copy, with its own latency draw */
    double reorder_p;     /* add reorder_us to this packet's delay */
    uint32_t reorder_us;
    bool down;            /* every packet dropped */
} sim_link_t;

typedef enum {
    SIM_DROP_LOSS = 1,
    SIM_DROP_DOWN = 2,
    SIM_DROP_PARTITION = 3,
    SIM_DROP_TOO_BIG = 4
} sim_drop_reason_t;

typedef struct {
    uint64_t sent, delivered, duplicated, reordered;
    uint64_t dropped[5]; /* by sim_drop_reason_t */
} sim_net_stats_t;

/* Called at delivery time. data is valid only during the call. */
typedef void (*sim_deliver_fn)(void *ctx, uint32_t src, uint32_t dst, const uint8_t *data, size_t len);

typedef struct sim_net sim_net_t;

/* n_nodes nodes numbered 0..n_nodes-1; every link starts as default_link.
 * log may be NULL. Returns NULL on allocation failure. */
sim_net_t *sim_net_new(sim_engine_t *engine, sim_log_t *log, const sim_rng_t *rng, size_t n_nodes,
                       const sim_link_t *default_link, sim_deliver_fn deliver, void *deliver_ctx);
/* Packets in flight live in the network: free it only when the engine
 * will run no more events. */
void sim_net_free(sim_net_t *net);

/* Set link parameters; src or dst may be SIM_NODE_ANY (all). Gilbert state is kept. */
void sim_net_set_link(sim_net_t *net, uint32_t src, uint32_t dst, const sim_link_t *link);
const sim_link_t *sim_net_link(const sim_net_t *net, uint32_t src, uint32_t dst);
/* The link's own stream for purpose (SIM_PURPOSE_LOSS .. SIM_PURPOSE_PROCESSING),
 * seeded on first use; NULL for a bad node or purpose or on allocation failure. */
sim_rng_t *sim_net_stream(sim_net_t *net, uint32_t src, uint32_t dst, uint32_t purpose);

/* Partition node: inbound, outbound or both directions dropped while on.
 * node may be SIM_NODE_ANY (every node). */
typedef enum { SIM_DIR_IN = 1, SIM_DIR_OUT = 2, SIM_DIR_BOTH = 3 } sim_dir_t;
void sim_net_partition(sim_net_t *net, uint32_t node, sim_dir_t dir, bool on);

/* A failure of the links (src, dst) (either may be SIM_NODE_ANY) owned by
 * owner: while on, every packet on them is dropped as down (SIM_DROP_DOWN),
 * whatever their parameters. Idempotent per (src, dst, owner). Returns 0 or
 * -1 on allocation failure. */
int sim_net_fail(sim_net_t *net, uint32_t src, uint32_t dst, uint32_t owner, bool on);

/* Send now: applies partition, down, loss, duplication, reordering and
 * latency; schedules delivery. Returns 0 (sent or dropped by the model) or -1
 * (len > SIM_MAX_PACKET or allocation failure). */
int sim_net_send(sim_net_t *net, uint32_t src, uint32_t dst, const uint8_t *data, size_t len);

/* The logical identity of a packet, for counter-based draws: id names the
 * request or report (never 0) and xmit counts this packet among the packets of
 * that id on this link (0: the first transmission). Request and response of
 * one exchange share (id, xmit). */
typedef struct {
    uint64_t id;
    uint32_t xmit;
} sim_net_tag_t;

/* sim_net_send with the packet's identity: its loss, duplication, latency and
 * reorder draws are a function of (net key, link, id, xmit) alone, so a policy
 * that adds packets alters no other packet's draws; an empirical latency draws
 * one round-trip sample per (unordered node pair, id, xmit), shared by the
 * request and its response (each direction takes its fraction of it). tag
 * NULL or tag->id == 0: sim_net_send (the link's sequential streams). The
 * Gilbert-Elliott state still steps once per packet of the link. */
int sim_net_send_tagged(sim_net_t *net, uint32_t src, uint32_t dst, const uint8_t *data, size_t len,
                        const sim_net_tag_t *tag);

const sim_net_stats_t *sim_net_stats(const sim_net_t *net);

#endif /* SIM_NET_H */
