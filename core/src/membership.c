/* SPDX-License-Identifier: MIT */
/* membership.c - server membership from explicit endpoints or DNS discovery
 * (r-client.md 3.1, 9, 9.4; api.md "DNS Refresh").
 *
 * One discovery = one SRV lookup of "_ratelimitly._udp.<tenant_dns_name>",
 * then one A/AAAA lookup per conforming SRV target. Lookups are answered by
 * the host through r_client_dns_srv_done()/r_client_dns_addr_done(): from
 * inside resolve_*(), later, or after rl_membership_release().
 *
 * Lifetime: a discovery counts what it still waits for in `pending` - one per
 * started lookup plus a "starting" hold while lookups are being started, so a
 * synchronous answer cannot finish the discovery under the caller's feet (the
 * SRV query's own count is that hold while address lookups start). Whoever
 * drops `pending` to zero finishes the discovery and frees it with its
 * queries. Release only detaches it (m = NULL): later answers are consumed
 * without effect and the last one frees it. */
#include <stdlib.h>
#include <string.h>

#include "rl_assert.h"
#include "rl_le.h"
#include "rl_log.h"
#include "rl_membership.h"

#define SRV_PREFIX "_ratelimitly._udp."
#define SRV_PREFIX_LEN RL_SRV_PREFIX_LEN
_Static_assert(sizeof SRV_PREFIX - 1u == RL_SRV_PREFIX_LEN, "RL_SRV_PREFIX_LEN is the prefix's length");
#define TARGET_MAX (RL_DNS_NAME_MAX + 1u) /* a 253-byte name plus its optional trailing dot */
#define QUERY_NAME_CAP (TARGET_MAX + 1u)  /* the SRV query name or a target, and its NUL */
#define LOG_NAME_MAX 80u

enum { QUERY_SRV = 1, QUERY_ADDR = 2 };

struct r_dns_query {
    rl_discovery_t *disc;
    uint8_t kind;
    bool answered;  /* answer consumed, or the lookup never started: later answers are ignored */
    bool has_addr;  /* QUERY_ADDR: addr holds the member's endpoint */
    uint16_t port;  /* QUERY_ADDR: the SRV port, authoritative (r-client.md 9.1) */
    uint64_t server_id;
    r_addr_t addr;
    char name[QUERY_NAME_CAP]; /* owned copy handed to the resolver: valid until answered */
};

struct rl_discovery {
    rl_membership_t *m;   /* NULL once detached by rl_membership_release */
    uint32_t pending;     /* outstanding answers + starting holds */
    uint64_t ttl_cap_ms;  /* smallest non-zero SRV TTL, ms; 0 = none */
    r_dns_query_t srv;
    size_t n_addr;
    r_dns_query_t *addr;  /* n_addr lookups, allocated when the SRV answer arrives */
};

/* Log through the host hook; m may be NULL. */
#define mlog(m, level, ...) \
    do { \
        if ((m) != NULL) rl_logf((m)->log, (m)->log_ctx, (level), __VA_ARGS__); \
    } while (0)

/* A DNS-supplied name made safe for a log line: bounded, printable ASCII. */
static void printable(char out[LOG_NAME_MAX + 1], const char *s) {
    size_t i = 0;
    if (s == NULL) {
        s = "(null)";
    }
    for (; i < LOG_NAME_MAX && s[i] != '\0'; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
    }
    out[i] = '\0';
}

/* strlen that stops looking after cap bytes (returns cap when longer). */
static size_t bounded_len(const char *s, size_t cap) {
    size_t n = 0;
    while (n < cap && s[n] != '\0') {
        n++;
    }
    return n;
}

static uint64_t add_sat(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static bool family_usable(uint8_t family) {
    return family == R_ADDR_INET || family == R_ADDR_INET6;
}

/* ---- configuration ---------------------------------------------------- */

int rl_membership_init_explicit(rl_membership_t *m, const r_server_endpoint_t *servers, size_t n) {
    /* The same bound as DNS discovery: one request fans out to every member. */
    if (m == NULL || servers == NULL || n == 0 || n > RL_MAX_MEMBERS) {
        return RCLIENT_ERR_CONFIG;
    }
    for (size_t i = 0; i < n; i++) {
        if (!family_usable(servers[i].addr.family) || servers[i].addr.port == 0) {
            return RCLIENT_ERR_CONFIG;
        }
    }
    rl_member_t *members = malloc(n * sizeof *members);
    if (members == NULL) {
        return RCLIENT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        members[i].server_id = servers[i].server_id;
        members[i].addr = servers[i].addr;
    }
    rl_snapshot_t *s = rl_snapshot_new(members, n);
    free(members);
    if (s == NULL) {
        return RCLIENT_ERR_NOMEM;
    }
    memset(m, 0, sizeof *m);
    m->explicit_servers = true;
    m->current = s;
    m->generation = 1;
    m->next_periodic_ms = UINT64_MAX; /* never refreshed */
    m->forced_not_before_ms = UINT64_MAX;
    return RCLIENT_OK;
}

/* Outcome of checking a tenant name for the SRV query name. */
typedef enum { NAME_OK, NAME_MALFORMED, NAME_OVERLONG } name_check_t;

/* The tenant name without its optional trailing dot must be non-empty
 * printable ASCII with no empty label (else NAME_MALFORMED); the query name
 * "_ratelimitly._udp.<name>" must fit a DNS name (RL_DNS_NAME_MAX bytes, RFC
 * 1035 3.1) and every label 63 bytes (RFC 1035 2.3.4), else NAME_OVERLONG.
 * *len receives the name's length without the dot. */
static name_check_t check_tenant_name(const char *dns_name, size_t *len) {
    size_t n = strlen(dns_name);
    if (n > 0 && dns_name[n - 1] == '.') {
        n--;
    }
    *len = n;
    if (n == 0 || dns_name[0] == '.' || dns_name[n - 1] == '.') {
        return NAME_MALFORMED;
    }
    size_t label = 0;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)dns_name[i];
        if (c <= 0x20 || c >= 0x7F || (c == '.' && dns_name[i + 1] == '.')) {
            return NAME_MALFORMED;
        }
        label = c == '.' ? 0 : label + 1;
        longest = label > longest ? label : longest;
    }
    return (longest > 63 || n > RL_TENANT_NAME_MAX) ? NAME_OVERLONG : NAME_OK;
}

int rl_membership_init_dns(rl_membership_t *m, const char *dns_name, const r_resolver_ops_t *resolver,
                           const r_dns_refresh_config_t *refresh, const rl_rng_t *rng,
                           uint64_t (*now_ms)(void *ctx), void *clock_ctx,
                           void (*log)(void *ctx, r_log_level_t level, const char *msg), void *log_ctx) {
    if (m == NULL || dns_name == NULL || resolver == NULL || resolver->resolve_srv == NULL ||
        resolver->resolve_addr == NULL || now_ms == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    size_t len = 0;
    name_check_t name = check_tenant_name(dns_name, &len);
    if (name == NAME_MALFORMED) {
        return RCLIENT_ERR_CONFIG;
    }
    memset(m, 0, sizeof *m);
    m->log = log;
    m->log_ctx = log_ctx;
    if (name == NAME_OVERLONG) {
        /* api.md: an over-long tenant DNS name is RCLIENT_ERR_DNS at submit
         * and report, never a creation failure: nothing is ever looked up. */
        m->unresolvable = true;
        mlog(m, R_LOG_ERROR,
             "membership: tenant DNS name of %zu bytes cannot be looked up (" SRV_PREFIX
             "<name> over %u bytes or a label over 63); every submit and report returns RCLIENT_ERR_DNS",
             len, RL_DNS_NAME_MAX);
    } else {
        memcpy(m->srv_name, SRV_PREFIX, SRV_PREFIX_LEN);
        memcpy(m->srv_name + SRV_PREFIX_LEN, dns_name, len);
        m->srv_name[SRV_PREFIX_LEN + len] = '\0';
    }
    m->resolver = *resolver;
    /* r-client.md 9.4: zero selects each default. */
    m->refresh_interval_ms = RL_DEFAULT_REFRESH_MS;
    m->forced_min_interval_ms = RL_DEFAULT_FORCED_MIN_MS;
    if (refresh != NULL) {
        if (refresh->refresh_interval_ms != 0) {
            m->refresh_interval_ms = refresh->refresh_interval_ms;
        }
        if (refresh->forced_refresh_min_interval_ms != 0) {
            m->forced_min_interval_ms = refresh->forced_refresh_min_interval_ms;
        }
        m->forced_jitter_ms = refresh->forced_refresh_jitter_ms;
    }
    if (rng != NULL) {
        m->rng = *rng;
        m->rng.avail = 0; /* never share pooled bytes with the copy's source */
    }
    m->now_ms = now_ms;
    m->clock_ctx = clock_ctx;
    return RCLIENT_OK;
}

/* ---- finishing a discovery -------------------------------------------- */

/* Random extra delay in [0, forced_jitter_ms] (api.md "DNS Refresh"). A
 * failing source takes the full jitter: the conservative throttle. */
static uint64_t draw_jitter(rl_membership_t *m) {
    if (m->forced_jitter_ms == 0) {
        return 0;
    }
    uint8_t b[8];
    if (rl_rng_bytes(&m->rng, b, sizeof b) != 0) {
        mlog(m, R_LOG_WARN, "membership: random source failed; using the full forced-refresh jitter");
        return m->forced_jitter_ms;
    }
    return rl_load_u64(b) % ((uint64_t)m->forced_jitter_ms + 1u);
}

/* The members of a finished discovery (r-client.md 6.1: a failed discovery
 * should not destroy a currently usable endpoint). A member whose address
 * lookup failed keeps its address from the current snapshot (same server_id,
 * with the port of this SRV answer, r-client.md 9.1); one without a previous
 * address is left out. Returns the member count; *fresh counts the members
 * whose lookup answered and *stale those that lack a fresh address. */
static size_t collect_members(const rl_membership_t *m, const rl_discovery_t *d, rl_member_t found[RL_MAX_MEMBERS],
                              size_t *fresh, size_t *stale) {
    size_t n = 0;
    *fresh = 0;
    *stale = 0;
    for (size_t i = 0; i < d->n_addr; i++) {
        const r_dns_query_t *q = &d->addr[i];
        if (q->has_addr) {
            found[n].server_id = q->server_id;
            found[n].addr = q->addr;
            n++;
            (*fresh)++;
            continue;
        }
        (*stale)++;
        long rank = rl_snapshot_rank(m->current, q->server_id);
        if (rank >= 0) {
            found[n] = m->current->members[rank];
            found[n].addr.port = q->port;
            n++;
            mlog(m, R_LOG_WARN, "membership: server_id %llu keeps its last known address until a lookup answers",
                 (unsigned long long)q->server_id);
        } else {
            mlog(m, R_LOG_WARN, "membership: server_id %llu has no address yet; left out until a lookup answers",
                 (unsigned long long)q->server_id);
        }
    }
    return n;
}

/* The wait before the next attempt after a failed one: the forced minimum
 * doubled per earlier consecutive failure, at most the refresh interval
 * (never below the forced minimum), plus jitter; counts this failure. */
static uint64_t next_backoff(rl_membership_t *m) {
    uint64_t cap = m->refresh_interval_ms > m->forced_min_interval_ms ? m->refresh_interval_ms
                                                                        : m->forced_min_interval_ms;
    uint64_t delay = m->forced_min_interval_ms;
    for (uint32_t k = 0; k < m->failed_refreshes && delay < cap; k++) {
        delay *= 2u;
    }
    delay = delay < cap ? delay : cap;
    if (m->failed_refreshes < UINT32_MAX) {
        m->failed_refreshes++;
    }
    return add_sat(delay, draw_jitter(m));
}

/* A failed refresh. It keeps the last good snapshot (r-client.md 6.1: "A
 * failed discovery ... should not destroy a currently usable endpoint").
 * With no snapshot it arms nothing: every failing submit retries (api.md
 * "DNS Refresh": blocking DNS is the cost of a failing submit). With one,
 * the retry waits for a backoff, the forced minimum doubled per consecutive
 * failure up to the refresh interval, plus jitter (r-client.md 6.1 retry
 * timer; 9.4: the forced minimum "bounds repeated forced refresh"), so a
 * DNS outage costs one lookup per backoff step instead of one per submit
 * (docs/spec-notes.md "Runtime and fan-out under failure"). */
static void refresh_failed(rl_membership_t *m) {
    if (m->current == NULL) {
        mlog(m, R_LOG_WARN, "membership: DNS discovery of %s found no usable server", m->srv_name);
        return;
    }
    uint64_t now = m->now_ms(m->clock_ctx);
    m->next_periodic_ms = add_sat(now, next_backoff(m));
    m->forced_not_before_ms = m->next_periodic_ms;
    mlog(m, R_LOG_WARN,
         "membership: DNS refresh of %s failed (%u in a row); keeping %zu servers, next attempt in %llu ms",
         m->srv_name, (unsigned)m->failed_refreshes, m->current->count,
         (unsigned long long)(m->next_periodic_ms - now));
}

/* Install the result and arm both throttles. A refresh in which no address
 * lookup answered is a failed refresh (refresh_failed). A partial one (some
 * member without a fresh address) is installed and its missing addresses are
 * retried after the backoff of a failed refresh (the forced minimum at first,
 * doubled per consecutive partial or failed refresh), not after a whole
 * refresh interval, and not every forced minimum while a lookup keeps failing
 * (docs/spec-notes.md). */
static void install_result(rl_membership_t *m, const rl_discovery_t *d) {
    rl_member_t found[RL_MAX_MEMBERS];
    size_t fresh = 0;
    size_t stale = 0;
    size_t n = collect_members(m, d, found, &fresh, &stale);
    if (fresh == 0) {
        refresh_failed(m);
        return;
    }
    RL_ASSERT(n >= fresh && n <= RL_MAX_MEMBERS);
    rl_snapshot_t *s = rl_snapshot_new(found, n);
    if (s == NULL) {
        mlog(m, R_LOG_ERROR, "membership: out of memory installing %zu servers", n);
        return;
    }
    uint64_t now = m->now_ms(m->clock_ctx);
    uint64_t interval = m->refresh_interval_ms;
    if (d->ttl_cap_ms != 0 && d->ttl_cap_ms < interval) {
        interval = d->ttl_cap_ms; /* api.md: SRV TTLs cap the periodic interval lower */
    }
    rl_snapshot_unref(m->current);
    m->current = s;
    m->generation++;
    RL_ASSERT(m->current->count >= 1 && m->current->count <= n); /* a new request freezes a non-empty snapshot */
    m->next_periodic_ms = add_sat(now, interval);
    m->forced_not_before_ms = add_sat(now, add_sat(m->forced_min_interval_ms, draw_jitter(m)));
    if (stale == 0) {
        m->failed_refreshes = 0;
    } else {
        uint64_t retry = add_sat(now, next_backoff(m));
        m->next_periodic_ms = retry < m->next_periodic_ms ? retry : m->next_periodic_ms;
    }
    mlog(m, R_LOG_INFO, "membership: installed %zu servers (generation %u)", s->count, (unsigned)m->generation);
}

static void discovery_free(rl_discovery_t *d) {
    free(d->addr);
    free(d);
}

/* Drop one count; the last one finishes the discovery. */
static void discovery_drop(rl_discovery_t *d) {
    if (--d->pending != 0) {
        return;
    }
    if (d->m != NULL) {
        d->m->inflight = NULL; /* cleared first: the next activity may retry */
        install_result(d->m, d);
    }
    discovery_free(d);
}

/* ---- starting lookups ------------------------------------------------- */

static void query_init(r_dns_query_t *q, rl_discovery_t *d, uint8_t kind, const char *name, size_t len) {
    q->disc = d;
    q->kind = kind;
    memcpy(q->name, name, len);
    q->name[len] = '\0';
}

/* resolve_* returned non-zero: no answer is owed. If the host answered
 * anyway (a host bug), that answer already dropped the count. */
static void query_refused(r_dns_query_t *q) {
    if (!q->answered) {
        q->answered = true;
        discovery_drop(q->disc);
    }
}

static void discovery_begin(rl_membership_t *m) {
    if (m->unresolvable) {
        return; /* no query name: the client stays without servers */
    }
    rl_discovery_t *d = calloc(1, sizeof *d);
    if (d == NULL) {
        mlog(m, R_LOG_ERROR, "membership: out of memory starting DNS discovery");
        return;
    }
    d->m = m;
    d->pending = 2; /* the starting hold + the SRV answer */
    m->inflight = d;
    query_init(&d->srv, d, QUERY_SRV, m->srv_name, strlen(m->srv_name));
    if (m->resolver.resolve_srv(m->resolver.ctx, d->srv.name, &d->srv) != 0) {
        mlog(m, R_LOG_WARN, "membership: resolver could not start the SRV lookup of %s", m->srv_name);
        query_refused(&d->srv);
    }
    discovery_drop(d); /* the starting hold */
}

/* Conforming target (r-client.md 3.1): first label s-<decimal server_id>,
 * a name that fits, and a usable port. */
static bool srv_member(const rl_membership_t *m, const r_srv_record_t *r, uint64_t *server_id, size_t *len) {
    char shown[LOG_NAME_MAX + 1];
    *len = r->target != NULL ? bounded_len(r->target, TARGET_MAX + 1u) : 0;
    if (*len == 0 || *len > TARGET_MAX || r_client_parse_srv_target(r->target, *len, server_id) != RCLIENT_OK) {
        printable(shown, r->target);
        mlog(m, R_LOG_WARN, "membership: SRV target \"%s\" is not s-<server_id>; skipped", shown);
        return false;
    }
    if (r->port == 0) {
        printable(shown, r->target);
        mlog(m, R_LOG_WARN, "membership: SRV target \"%s\" has port 0; skipped", shown);
        return false;
    }
    return true;
}

typedef struct {
    const r_srv_record_t *record;
    uint64_t server_id;
    size_t len;
} kept_target_t;

/* Conforming targets, first per server_id, at most RL_MAX_MEMBERS; also
 * notes the smallest non-zero TTL of the answer. */
static size_t select_targets(rl_discovery_t *d, const r_srv_record_t *records, size_t n,
                             kept_target_t kept[RL_MAX_MEMBERS]) {
    size_t n_kept = 0;
    size_t dropped = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ttl_ms = (uint64_t)records[i].ttl_s * 1000u;
        if (ttl_ms != 0 && (d->ttl_cap_ms == 0 || ttl_ms < d->ttl_cap_ms)) {
            d->ttl_cap_ms = ttl_ms;
        }
        kept_target_t t = {&records[i], 0, 0};
        if (!srv_member(d->m, &records[i], &t.server_id, &t.len)) {
            continue;
        }
        bool duplicate = false;
        for (size_t k = 0; k < n_kept && !duplicate; k++) {
            duplicate = kept[k].server_id == t.server_id;
        }
        if (duplicate) {
            continue;
        }
        if (n_kept == RL_MAX_MEMBERS) {
            dropped++;
            continue;
        }
        kept[n_kept++] = t;
    }
    if (dropped != 0) {
        mlog(d->m, R_LOG_WARN, "membership: %zu SRV members above the limit of %u dropped", dropped,
             RL_MAX_MEMBERS);
    }
    return n_kept;
}

/* Runs while the SRV query's own count is held, so synchronous address
 * answers cannot finish the discovery before every lookup has started. */
static void start_addr_lookups(rl_discovery_t *d, const r_srv_record_t *records, size_t n) {
    rl_membership_t *m = d->m;
    kept_target_t kept[RL_MAX_MEMBERS];
    size_t n_kept = select_targets(d, records, n, kept);
    if (n_kept == 0) {
        mlog(m, R_LOG_WARN, "membership: SRV answer for %s has no conforming target", m->srv_name);
        return;
    }
    d->addr = calloc(n_kept, sizeof *d->addr);
    if (d->addr == NULL) {
        mlog(m, R_LOG_ERROR, "membership: out of memory starting address lookups");
        return;
    }
    d->n_addr = n_kept;
    for (size_t k = 0; k < n_kept; k++) {
        query_init(&d->addr[k], d, QUERY_ADDR, kept[k].record->target, kept[k].len);
        d->addr[k].server_id = kept[k].server_id;
        d->addr[k].port = kept[k].record->port;
    }
    for (size_t k = 0; k < n_kept; k++) {
        r_dns_query_t *q = &d->addr[k];
        d->pending++;
        if (m->resolver.resolve_addr(m->resolver.ctx, q->name, q) != 0) {
            char shown[LOG_NAME_MAX + 1];
            printable(shown, q->name);
            mlog(m, R_LOG_WARN, "membership: resolver could not start the address lookup of %s", shown);
            query_refused(q);
        }
    }
}

/* ---- host answers (r_client_io.h) ------------------------------------- */

void r_client_dns_srv_done(r_dns_query_t *query, int status, const r_srv_record_t *records, size_t n_records) {
    if (query == NULL || query->kind != QUERY_SRV || query->answered) {
        return;
    }
    query->answered = true;
    rl_discovery_t *d = query->disc;
    if (d->m != NULL) {
        if (status != 0 || (records == NULL && n_records != 0)) {
            mlog(d->m, R_LOG_WARN, "membership: SRV lookup of %s failed (status %d)", d->m->srv_name, status);
        } else {
            start_addr_lookups(d, records, n_records);
        }
    }
    discovery_drop(d);
}

/* The member takes the first usable A/AAAA record with the SRV port. */
static void take_address(r_dns_query_t *q, int status, const r_addr_record_t *records, size_t n) {
    const rl_membership_t *m = q->disc->m;
    char shown[LOG_NAME_MAX + 1];
    printable(shown, q->name);
    if (status != 0 || (records == NULL && n != 0)) {
        mlog(m, R_LOG_WARN, "membership: address lookup of %s failed (status %d)", shown, status);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (family_usable(records[i].addr.family)) {
            q->addr = records[i].addr;
            if (q->addr.family == R_ADDR_INET) {
                memset(q->addr.addr + 4, 0, sizeof q->addr.addr - 4u);
            }
            q->addr.port = q->port;
            q->has_addr = true;
            return;
        }
    }
    mlog(m, R_LOG_WARN, "membership: no usable address for %s", shown);
}

void r_client_dns_addr_done(r_dns_query_t *query, int status, const r_addr_record_t *records, size_t n_records) {
    if (query == NULL || query->kind != QUERY_ADDR || query->answered) {
        return;
    }
    query->answered = true;
    if (query->disc->m != NULL) {
        take_address(query, status, records, n_records);
    }
    discovery_drop(query->disc);
}

/* ---- activity --------------------------------------------------------- */

void rl_membership_release(rl_membership_t *m) {
    if (m == NULL) {
        return;
    }
    if (m->inflight != NULL) {
        m->inflight->m = NULL; /* detached: frees itself on its last answer */
        m->inflight = NULL;
    }
    rl_snapshot_unref(m->current);
    m->current = NULL;
    rl_rng_release(&m->rng);
}

int rl_membership_start(rl_membership_t *m) {
    if (m == NULL || m->explicit_servers) {
        return RCLIENT_ERR_CONFIG;
    }
    if (m->inflight == NULL) {
        discovery_begin(m);
    }
    return RCLIENT_OK;
}

int rl_membership_refresh(rl_membership_t *m) {
    if (m == NULL || m->explicit_servers) {
        return RCLIENT_ERR_CONFIG;
    }
    if (m->inflight == NULL && m->now_ms(m->clock_ctx) >= m->forced_not_before_ms) {
        discovery_begin(m);
    }
    return RCLIENT_OK;
}

rl_snapshot_t *rl_membership_acquire(rl_membership_t *m) {
    if (m == NULL) {
        return NULL;
    }
    if (!m->explicit_servers && m->inflight == NULL) {
        uint64_t now = m->now_ms(m->clock_ctx);
        bool due = m->current != NULL ? now >= m->next_periodic_ms : now >= m->forced_not_before_ms;
        if (due) {
            discovery_begin(m);
        }
    }
    return m->current;
}

const rl_snapshot_t *rl_membership_peek(const rl_membership_t *m) {
    return m != NULL ? m->current : NULL;
}
