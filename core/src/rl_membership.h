/* SPDX-License-Identifier: MIT */
/* rl_membership.h - server membership: DNS SRV -> A/AAAA -> immutable,
 * reference-counted snapshots of trusted server identities (r-client.md 3.1,
 * 9, 9.4; api.md "DNS Refresh", "Resource-Request HA Policy").
 *
 * Oldest-first ranking is (server_start_s, server_id); server_start_s is
 * server_id >> 23 plus a constant, so it equals ascending server_id: members
 * are stored sorted ascending and a member's index is its rank (0 = oldest). */
#ifndef RL_MEMBERSHIP_H
#define RL_MEMBERSHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"
#include "rl_rng.h"

#define RL_DNS_NAME_MAX 253u       /* a DNS name in text form, without its trailing dot (RFC 1035 3.1) */
#define RL_SRV_PREFIX_LEN 18u      /* strlen("_ratelimitly._udp.") */
#define RL_TENANT_NAME_MAX (RL_DNS_NAME_MAX - RL_SRV_PREFIX_LEN) /* 235: the SRV query name fits */
#define RL_MAX_MEMBERS 64u         /* members kept from one discovery; extra conforming targets are dropped */
#define RL_DEFAULT_REFRESH_MS 300000u
#define RL_DEFAULT_FORCED_MIN_MS 1000u

typedef struct {
    uint64_t server_id;
    r_addr_t addr;
} rl_member_t;

typedef struct {
    uint32_t refcount;
    size_t count;
    const uint64_t *ids;   /* ids[i] == members[i].server_id: the trusted set for response parsing */
    rl_member_t members[]; /* ascending server_id = oldest first, unique server_id */
} rl_snapshot_t;

/* New snapshot from members (any order; duplicates by server_id keep the first
 * given). Returns NULL for n == 0 or allocation failure. refcount starts at 1. */
rl_snapshot_t *rl_snapshot_new(const rl_member_t *members, size_t n);
void rl_snapshot_ref(rl_snapshot_t *s);
void rl_snapshot_unref(rl_snapshot_t *s); /* NULL-safe; frees at zero */
/* Rank (index) of server_id, or -1 when it is not a member. O(log n). */
long rl_snapshot_rank(const rl_snapshot_t *s, uint64_t server_id);

typedef struct rl_discovery rl_discovery_t; /* one in-flight SRV + A/AAAA round */

typedef struct {
    /* configuration */
    bool explicit_servers;
    bool unresolvable;                        /* over-long tenant name: no discovery, ever */
    char srv_name[RL_DNS_NAME_MAX + 1];       /* "_ratelimitly._udp.<dns_name>"; "" when unresolvable */
    r_resolver_ops_t resolver;
    uint32_t refresh_interval_ms;             /* defaults applied */
    uint32_t forced_min_interval_ms;
    uint32_t forced_jitter_ms;
    rl_rng_t rng;                             /* jitter */
    uint64_t (*now_ms)(void *ctx);
    void *clock_ctx;
    void (*log)(void *ctx, r_log_level_t level, const char *msg); /* may be NULL */
    void *log_ctx;
    /* state */
    rl_snapshot_t *current;                   /* NULL until the first good discovery */
    rl_discovery_t *inflight;                 /* at most one */
    uint64_t next_periodic_ms;                /* periodic refresh due at or after this time */
    uint64_t forced_not_before_ms;            /* forced refresh throttle, armed by a success or a
                                                 failure that kept a snapshot */
    uint32_t failed_refreshes;                /* consecutive failed refreshes that kept a snapshot */
    uint32_t generation;                      /* incremented per installed snapshot */
} rl_membership_t;

/* Fixed membership from explicit endpoints (r-client.md 3.1 item 3): never
 * refreshed; duplicate server_ids keep the first; m is untouched on failure.
 * Returns RCLIENT_OK, RCLIENT_ERR_CONFIG (n == 0, NULL, a bad address family
 * or port 0) or RCLIENT_ERR_NOMEM. */
int rl_membership_init_explicit(rl_membership_t *m, const r_server_endpoint_t *servers, size_t n);

/* DNS membership for tenant dns_name (no "_ratelimitly._udp." prefix, trailing
 * dot optional). refresh (may be NULL) zero fields take the defaults; rng may
 * be NULL (RAND_bytes). now_ms/clock_ctx give the client's clock; log/log_ctx
 * may be NULL. Does not start discovery; m is untouched on failure.
 * Returns RCLIENT_OK or RCLIENT_ERR_CONFIG (NULL m, name, resolver hooks or
 * now_ms; an empty name; a control/space/non-ASCII byte or an empty label in
 * the name). An over-long name (the query name "_ratelimitly._udp.<name>" over
 * RL_DNS_NAME_MAX bytes, i.e. a name over RL_TENANT_NAME_MAX bytes, or a label
 * over 63 bytes) is accepted as unresolvable (api.md "Errors": RCLIENT_ERR_DNS
 * at submit and report): logged at R_LOG_ERROR, no lookup is ever started,
 * and acquire always returns NULL. */
int rl_membership_init_dns(rl_membership_t *m, const char *dns_name, const r_resolver_ops_t *resolver,
                           const r_dns_refresh_config_t *refresh, const rl_rng_t *rng,
                           uint64_t (*now_ms)(void *ctx), void *clock_ctx,
                           void (*log)(void *ctx, r_log_level_t level, const char *msg), void *log_ctx);

/* Release: unref the current snapshot and detach any in-flight discovery
 * (its queries stay valid for the host to answer; answers are then ignored
 * and the discovery frees itself when the last one arrives). */
void rl_membership_release(rl_membership_t *m);

/* Start discovery now unless one is in flight. Used by r_client_create
 * (first discovery). Returns RCLIENT_OK or
 * RCLIENT_ERR_CONFIG for explicit membership. A resolver that answers inside
 * the call installs the snapshot before this returns. RCLIENT_OK also covers
 * a refresh that failed at once (resolver refused, allocation failure): a
 * failed refresh is logged and keeps the current snapshot. Without one (no
 * server known yet) it arms nothing, so the next activity retries (api.md
 * "DNS Refresh"); with one, it arms a retry after a backoff (r-client.md 6.1
 * retry timer, 9.4): next_periodic_ms = forced_not_before_ms = now +
 * min(forced_min_interval_ms * 2^(k-1), max(refresh_interval_ms,
 * forced_min_interval_ms)) + jitter for the k-th consecutive failure; a
 * successful discovery resets k.
 *
 * Discovery (r-client.md 3.1): one SRV lookup of srv_name, then one A/AAAA
 * lookup per conforming target (first label s-<server_id>, port != 0; first
 * record per server_id kept, at most RL_MAX_MEMBERS). A member takes the
 * first R_ADDR_INET/R_ADDR_INET6 record with the SRV port. A member whose
 * lookup failed, was refused or had no such record keeps its address from the
 * current snapshot (same server_id) with the new SRV port, or is left out when
 * it has none (r-client.md 6.1). When every started lookup is answered and at
 * least one gave an address, the result is installed: generation++,
 * next_periodic_ms = now + min(refresh_interval_ms, smallest non-zero SRV
 * TTL), forced_not_before_ms = now + forced_min_interval_ms + jitter, jitter
 * uniform in [0, forced_jitter_ms] from 8 rng bytes (little-endian u64 mod
 * (jitter + 1); the full jitter if the source fails); when some member had no
 * fresh address, next_periodic_ms is min(that, forced_not_before_ms) so the
 * lookup is retried soon. No address at all is a failed refresh.
 *
 * Query objects (r_dns_query_t) and the name strings passed to resolve_*
 * belong to the discovery and stay valid until answered, also after
 * rl_membership_release. A second answer to a query of a discovery that is
 * still waiting is ignored; answering a query whose discovery has finished
 * (every query answered), or a pointer that was never handed out, is a host
 * bug with undefined behaviour. */
int rl_membership_start(rl_membership_t *m);

/* r_client_refresh_dns: as rl_membership_start, but only when now >=
 * forced_not_before_ms (the forced-refresh minimum interval and jitter armed
 * by the last successful discovery). Returns RCLIENT_OK (also when throttled)
 * or RCLIENT_ERR_CONFIG for explicit membership. */
int rl_membership_refresh(rl_membership_t *m);

/* Activity check at submit/report time (api.md "DNS Refresh": refresh is
 * driven by client activity): starts a periodic refresh when due, and when no
 * snapshot is installed starts a forced refresh if the forced throttle allows.
 * Then returns the current snapshot (borrowed; ref it to keep it) or NULL. */
rl_snapshot_t *rl_membership_acquire(rl_membership_t *m);

/* Current snapshot without side effects (borrowed), or NULL. */
const rl_snapshot_t *rl_membership_peek(const rl_membership_t *m);

#endif /* RL_MEMBERSHIP_H */
