/* SPDX-License-Identifier: MIT */
/* sim_world_int.h - private state of one simulated run, shared by
 * sim_world.c (setup, faults, run, expectations), sim_host.c (the client
 * host adapter and workload), sim_nodes.c (server delivery and processing)
 * and sim_metrics.c (collection and output). */
#ifndef SIM_WORLD_INT_H
#define SIM_WORLD_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "r_client.h"
#include "sim_config.h"
#include "sim_dns.h"
#include "sim_engine.h"
#include "sim_keys.h"
#include "sim_net.h"
#include "sim_server.h"
#include "sim_world.h"

typedef struct sim_world sim_world_t;
typedef struct sim_host sim_host_t;

/* One fresh server decision of a request (sim_nodes.c process_now). */
typedef struct {
    uint32_t server;              /* server index */
    int32_t skew_ms;              /* the server's clock skew then: its clock = run clock + skew */
    uint64_t run_us;              /* run clock (true clock) of the decision */
    uint64_t pseq;                /* global processing sequence: orders decisions at one instant */
} sim_fresh_t;

#define SIM_REQ_FRESH 4           /* first fresh decisions kept per request (one per server) */

/* What an undecided request needs only until its decision (pooled). */
typedef struct sim_ext {
    sim_fresh_t fresh[SIM_REQ_FRESH];
    uint8_t n_fresh;
    struct sim_ext *next;         /* free list */
} sim_ext_t;

/* One server that took part in a request: the servers a request touches are
 * few (its snapshot's members at most), so a request keeps a short list of
 * them instead of a bitmap over every server of the run. */
#define SIM_TOUCH_ANSWERED 1u     /* decided it afresh at least once */
#define SIM_TOUCH_ALLOWED 2u      /* an answer (fresh or replayed) allowed */
#define SIM_TOUCH_DENIED 4u       /* an answer denied */
#define SIM_TOUCH_DELIVERED 8u    /* a trusted response reached the client */
typedef struct {
    uint32_t server;              /* server index */
    uint32_t flags;               /* SIM_TOUCH_* */
} sim_touch_t;
#define SIM_TOUCH_INLINE 4        /* kept in the record; more go to touch_more */

/* The packets of one request (or report) exchanged with one server node so
 * far, each way: the transmission index of the next one (sim_net_tag_t). A
 * request with more server nodes than SIM_XMIT_LINKS sends the rest untagged. */
typedef struct {
    uint32_t node;
    uint16_t out, back;
} sim_xmit_t;
#define SIM_XMIT_LINKS 8

/* The server_ids a client trusts, per server index (0: none), shared by the
 * requests submitted under it (a new version per change, refcounted). */
typedef struct {
    uint32_t refs;
    uint64_t id[];
} sim_trust_t;

/* One logical request, alive from submit until its decision (and, for late
 * response accounting, until its dedup deadline has passed); or, with
 * is_report, one latency report datagram until the oracle applied it. */
typedef struct sim_req {
    sim_host_t *host;
    uint64_t seq;                 /* per client, 0-based: expectation index */
    r_client_req_t *req;          /* NULL once decided */
    uint8_t uid[16];
    bool uid_known;
    bool is_report;               /* seq is then the client's report number */
    sim_time_t submitted_at;      /* submit (a report: its send) */
    sim_time_t timer_at;          /* scheduled timer event time, 0 = none */
    sim_time_t timer_base;        /* the deadline it was armed for (timer_at adds the host's lateness) */
    uint32_t timer_gen;
    uint16_t mix;
    bool decided;
    sim_touch_t touch[SIM_TOUCH_INLINE]; /* the servers that took part, in first-touch order */
    sim_touch_t *touch_more;      /* beyond SIM_TOUCH_INLINE (heap, freed on release) */
    uint32_t n_touch, cap_more;
    sim_xmit_t xmit[SIM_XMIT_LINKS]; /* packets of this request per server node (counter-based draws) */
    uint8_t n_xmit;
    int status;                   /* client outcome once decided */
    bool client_allowed;
    sim_time_t decided_at;
    int32_t snapshot_oldest;      /* server index: oldest member of the snapshot (trusted ids), -1 none */
    uint32_t ref_server;          /* report: the oldest server it was sent to (its oracle instant) */
    sim_trust_t *trust;           /* the identities trusted at submit (the snapshot's), a reference */
    sim_ext_t *ext;               /* until the decision */
    /* the oracle (sim_oracle.c) */
    uint8_t *dgram;               /* first transmission (pooled buffer: 4-byte length + bytes), until applied */
    bool in_flight;               /* in the world's in-flight list (bounds the oracle's horizon) */
    bool oracle_pending;          /* queued for the oracle */
    bool oracle_applied;
    bool oracle_allowed;
    bool oracle_wrong;            /* the client's outcome differs from the oracle's */
    struct sim_req *ifl_prev, *ifl_next;
    sim_time_t forget_at;         /* drop from the uid map after this time */
    struct sim_req *next;         /* free list, or the forget queue once decided */
} sim_req_t;

/* One queued oracle application. */
typedef struct {
    uint64_t at_us, pseq;
    sim_req_t *r;                 /* NULL: a tenant fault (fault index in fault) */
    size_t fault;
} sim_oracle_ev_t;

/* Precomputed request shape (IDs derived once). */
typedef struct {
    r_resource_request_t res[SIM_MAX_MIX_RES];
    size_t n_res;
    r_latency_guard_t guards[SIM_MAX_MIX_GUARDS];
    size_t n_guards;
    const char *label;            /* NULL = none */
} sim_shape_t;

typedef enum { SIM_CALL_NONE = 0, SIM_CALL_SUBMIT, SIM_CALL_TIMEOUT, SIM_CALL_DATAGRAM, SIM_CALL_REPORT } sim_call_t;

struct sim_host {
    sim_world_t *w;
    uint32_t index;               /* client index */
    uint32_t node;
    const sim_client_cfg_t *cfg;
    char key[SIM_KEY_TEXT_MAX];
    r_client_t *client;
    sim_rng_t rng_core;           /* the client core's random source */
    sim_rng_t rng_arrivals;       /* arrival gaps */
    sim_rng_t rng_mix;            /* request mix choice */
    sim_rng_t rng_service;        /* service times of admitted work */
    sim_rng_t rng_timer;          /* timer lateness */
    int64_t skew_ms;
    sim_shape_t *shapes;          /* cfg->n_mix */
    uint32_t total_weight;
    uint64_t next_seq;
    size_t script_pos;
    /* the call in progress, to classify sends and capture the unique_id */
    sim_call_t call;
    sim_req_t *calling;           /* request of the current submit */
    uint64_t call_sends;
    bool call_completed_ok;
    long call_oldest;             /* server index with the smallest server_id sent to in this call, -1 none */
    uint64_t call_oldest_id;
    sim_req_t *reporting;         /* the report record of the current report call */
    uint64_t next_report;         /* reports numbered from 0 per client (event log) */
    uint32_t call_dst[64];        /* destinations of this call's sends, for the xmit records */
    size_t n_call_dst;
    sim_trust_t *trust;           /* per server: the server_id this client trusts for its address, 0 none */
    long call_snap_oldest;        /* submit: the snapshot's oldest destination by trusted id */
    uint64_t call_snap_oldest_id;
    struct sim_req *call_req;     /* the request of a timeout or datagram call (its sends' identity) */
    bool rebind_pending;
    sim_time_t rebind_asked_at;
};

typedef struct {
    sim_world_t *w;
    sim_server_t *srv;
    uint32_t node;
    const sim_server_cfg_t *cfg;
    int64_t skew_ms;
    sim_time_t paused_until;      /* 0 = running */
    sim_time_t down_until;        /* a restart's downtime: datagrams dropped until then */
    sim_time_t busy_until;        /* queue_capacity > 0: when the queue's last datagram is served */
    uint32_t queued;              /* datagrams waiting or in service */
    uint64_t batch_ms;            /* server ms of the current processing batch (sim_server_batch_begin) */
    uint8_t **last_resp;          /* per client: its last response (4-byte length + bytes), for inject faults */
    uint64_t id_history[256];     /* server_ids this server has had (restarts; the loader caps restarts) */
    size_t n_ids;
} sim_node_server_t;

/* One fault event for convergence (sim_convergence.c). */
typedef struct {
    sim_time_t at_us;
    int kind;                     /* sim_fault_kind_t, 0 = DNS epoch change */
    uint32_t index;
    uint64_t unsettled;
    sim_time_t last_us;           /* last unsettled decision charged to it */
} sim_conv_ev_t;

/* Hash map uid -> sim_req_t (open addressing, tombstones, grows). */
typedef struct {
    sim_req_t **slots;
    size_t cap, count, used;      /* used = live + tombstones */
    uint64_t rebuilds;            /* table rebuilds (growth or tombstone purge) */
} sim_uidmap_t;

/* Over-consumption accounting: (bucket_id, window index) -> allowed tokens. */
typedef struct {
    uint64_t key_id;              /* buckets are tenant-local: (key_id, bucket_id) */
    uint8_t bucket[16];
    uint64_t window;
    uint32_t limit;
    uint64_t tokens;
    bool used;
} sim_window_t;

typedef struct {
    sim_window_t *slots;
    size_t cap, count;
} sim_windowmap_t;

struct sim_world {
    const sim_config_t *cfg;
    uint64_t seed;
    sim_engine_t engine;
    sim_log_t *log;
    sim_net_t *net;
    sim_dns_t *dns;
    sim_host_t *hosts;
    size_t n_hosts;
    sim_node_server_t *servers;
    size_t n_servers;
    sim_server_t *oracle;
    uint64_t pseq;                /* datagrams processed by servers so far */
    sim_req_t *ifl_head, *ifl_tail; /* undecided requests and unapplied reports, in submit order */
    sim_oracle_ev_t *oheap;       /* oracle applications waiting for their instant to be safe */
    size_t n_oheap, cap_oheap;
    uint64_t oracle_late;         /* applications after a later instant (a lifetime over the horizon) */
    uint64_t oracle_last_us, oracle_last_pseq;
    sim_uidmap_t uids;
    sim_req_t *free_reqs;         /* sim_req_t free list */
    sim_ext_t *free_ext;          /* sim_ext_t free list */
    sim_ext_t **ext_blocks;
    size_t n_ext_blocks, cap_ext_blocks;
    sim_req_t *forget_head, *forget_tail; /* decided requests, in forget_at order */
    sim_req_t **req_blocks;       /* allocated blocks, freed at the end */
    size_t n_req_blocks, cap_req_blocks;
    uint8_t **pkt_free;           /* packet buffers for processing delays and pauses */
    size_t n_pkt_free, cap_pkt_free;
    uint8_t **pkt_all;
    size_t n_pkt_all, cap_pkt_all;
    sim_time_t end_arrivals;      /* no new submits at or after this time */
    sim_time_t last_fault;        /* time of the last fault or membership change */
    bool has_fault;
    sim_time_t last_wrong;        /* last false allow/deny decided after last_fault */
    sim_rng_t *fault_rngs;        /* per fault: the stream of a failures process */
    sim_conv_ev_t *conv;          /* fault events, sorted by instant */
    size_t n_conv, cap_conv;
    /* metrics */
    sim_metrics_t m;
    uint32_t *latencies_us;
    size_t n_lat, cap_lat;
    double steering_latency_sum;
    uint64_t disagreed_decided;   /* denominator of the *_disagree rates */
    uint64_t oldest_selected;     /* decisions that selected the oldest live server */
    sim_windowmap_t windows;
    /* expectations: decisions per client and seq that an expectation names */
    uint64_t *expect_server_id;   /* cfg->n_expects */
    int *expect_status;
    bool *expect_seen;
    /* --timeline: per client and window counters (sim_timeline.c) */
    uint64_t tl_us;               /* window length, 0 = off */
    struct sim_tl_cell *tl;       /* [client][window], n_tl windows per client */
    size_t n_tl;
    struct sim_tl_lat *tl_lat;    /* (client, window, latency) of every decision */
    size_t n_tl_lat, cap_tl_lat;
    char err[200];
    bool failed;                  /* a setup error after start */
};

/* sim_host.c */
int sim_hosts_create(sim_world_t *w);
void sim_hosts_destroy(sim_world_t *w);
void sim_host_deliver(sim_world_t *w, sim_host_t *h, uint32_t src, const uint8_t *data, size_t len);
/* sim_dns observer: the identities a client trusts after an SRV answer. */
void sim_host_on_srv_answer(void *ctx, uint32_t client, const sim_dns_record_t *records, size_t n);
uint64_t sim_host_now_ms(const sim_host_t *h);

/* sim_nodes.c */
int sim_servers_create(sim_world_t *w);
void sim_servers_destroy(sim_world_t *w);
void sim_server_deliver(sim_world_t *w, sim_node_server_t *s, uint32_t src, const uint8_t *data, size_t len);
/* server_id of server index `server` at run time at_ms (after any restarts before it). */
uint64_t sim_server_id_at(const sim_world_t *w, size_t server, uint64_t at_ms);
/* Apply a restart now: new, strictly younger start time. Returns 0 or -1. */
int sim_server_do_restart(sim_world_t *w, sim_node_server_t *s);
uint64_t sim_server_now_ms(const sim_world_t *w, const sim_node_server_t *s);
int64_t sim_drift_ms(sim_time_t run_us, int32_t ppm);
/* 0-based index of the pct-th percentile (0 .. 100) of n >= 1 sorted values by
 * the nearest-rank rule: rank ceil(pct * n / 100), at least 1, in exact
 * integer arithmetic (docs/traces.md "Latency quantiles"). */
size_t sim_nearest_rank(size_t n, unsigned pct);
/* Drop reasons the servers log beyond the network's (sim_drop_reason_t 1..4). */
#define SIM_DROP_QUEUE_FULL 5u
#define SIM_DROP_SERVER_DOWN 6u
sim_req_t *sim_uid_find(sim_world_t *w, const uint8_t uid[16]);
int sim_uid_put(sim_world_t *w, sim_req_t *r);
void sim_uid_remove(sim_world_t *w, sim_req_t *r);
sim_req_t *sim_req_alloc(sim_world_t *w);
/* The flags (SIM_TOUCH_*) of server index si in r, added if new; NULL on allocation failure. */
uint32_t *sim_req_touch(sim_req_t *r, uint32_t si);
/* The identity of r's next packet to (back: from) server node `node`, counted;
 * false (send untagged) when r already names SIM_XMIT_LINKS other nodes. */
bool sim_req_tag(sim_req_t *r, uint32_t node, bool back, sim_net_tag_t *tag);
sim_ext_t *sim_ext_get(sim_world_t *w);
void sim_ext_put(sim_world_t *w, sim_ext_t *e);
void sim_trust_release(sim_trust_t *t);
void sim_req_release(sim_world_t *w, sim_req_t *r);
/* Queue a decided request; release every queued one whose forget_at <= now. */
void sim_req_forget_later(sim_world_t *w, sim_req_t *r);
void sim_req_forget_due(sim_world_t *w, sim_time_t now, bool all);
uint8_t *sim_pkt_get(sim_world_t *w);
void sim_pkt_put(sim_world_t *w, uint8_t *p);

/* sim_oracle.c - the one oracle (docs/traces.md "Oracle") */
void sim_oracle_inflight_add(sim_world_t *w, sim_req_t *r);
void sim_oracle_inflight_remove(sim_world_t *w, sim_req_t *r);
/* Copy the first transmission of r (a request at submit, a report at send). */
int sim_oracle_keep_datagram(sim_world_t *w, sim_req_t *r, const uint8_t *data, size_t len);
/* Queue r for application at (at_us, pseq); applied once no in-flight request can come earlier. */
int sim_oracle_queue(sim_world_t *w, sim_req_t *r, uint64_t at_us, uint64_t pseq);
/* Queue tenant fault idx (tenant_remove / tenant_add for every server) for the
 * oracle at (at_us, pseq): applied in instant order with the decisions. */
int sim_oracle_queue_fault(sim_world_t *w, size_t idx, uint64_t at_us, uint64_t pseq);
/* Apply tenant fault f to server model srv (sim_world.c). Returns 0, or -1
 * when the model refused the credential (memory admission). */
int sim_world_tenant_fault(sim_world_t *w, sim_server_t *srv, const sim_fault_cfg_t *f);
/* Apply every queued entry that is safe now (all: every entry). */
void sim_oracle_flush(sim_world_t *w, bool all);
/* Apply r now if it is still queued (with everything queued before it). */
void sim_oracle_settle(sim_world_t *w, sim_req_t *r);
void sim_oracle_free(sim_world_t *w);

/* sim_convergence.c - convergence per fault event (docs/traces.md) */
int sim_conv_add(sim_world_t *w, sim_time_t at_us, int kind, uint32_t index);
/* A decision at decided_at that disagreed or was wrong. */
void sim_conv_unsettled(sim_world_t *w, sim_time_t decided_at);
int sim_conv_result(const sim_world_t *w, sim_result_t *out);

/* sim_timeline.c - --timeline CSV (docs/traces.md "Timeline") */
typedef enum {
    SIM_TL_SUBMITTED, SIM_TL_SUBMIT_ERRORS, SIM_TL_DECIDED, SIM_TL_ALLOWED, SIM_TL_DENIED, SIM_TL_TIMEOUTS,
    SIM_TL_IO_FAILURES, SIM_TL_FALSE_ALLOWS, SIM_TL_FALSE_DENIES, SIM_TL_OLDEST_SELECTED,
    SIM_TL_DATAGRAMS_SENT, SIM_TL_REPLAYS_SENT, SIM_TL_COMPLETION_SENDS, SIM_TL_LATE_RESPONSES,
    SIM_TL_UNTRUSTED_RESPONSES, SIM_TL_INVALID_DATAGRAMS, SIM_TL_REPORTS_SENT, SIM_TL_FIELDS
} sim_tl_field_t;
int sim_timeline_init(sim_world_t *w, uint32_t window_ms);
void sim_tl_add(sim_world_t *w, uint32_t client, sim_time_t at, sim_tl_field_t f, uint64_t n);
void sim_tl_latency(sim_world_t *w, uint32_t client, sim_time_t submitted_at, sim_time_t latency_us);
int sim_timeline_write(sim_world_t *w, FILE *out);
void sim_timeline_free(sim_world_t *w);

/* sim_metrics.c */
int sim_metrics_latency(sim_world_t *w, sim_time_t latency_us);
int sim_metrics_allowed_tokens(sim_world_t *w, uint64_t key_id, const sim_shape_t *shape, uint64_t clock_ms);
/* A request leaves the books: disagreement and contradiction accounting. */
void sim_metrics_forget(sim_world_t *w, const sim_req_t *r);
void sim_metrics_finish(sim_world_t *w);
void sim_metrics_free(sim_world_t *w);

/* Node numbering: clients 0..C-1, then servers C..C+S-1. Addresses are labels
 * in documentation ranges (192.0.2.0/24-style prefixes) and never leave the process. */
r_addr_t sim_node_addr(const sim_world_t *w, uint32_t node, uint16_t port);
uint32_t sim_addr_node(const sim_world_t *w, const r_addr_t *a);
uint64_t sim_run_ms(const sim_world_t *w);

#endif /* SIM_WORLD_INT_H */
