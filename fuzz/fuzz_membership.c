/* SPDX-License-Identifier: MIT */
/* fuzz_membership.c - DNS discovery driven through the client (r_client_create
 * with a resolver, r_client_dns_srv_done, r_client_dns_addr_done,
 * r_client_refresh_dns, submit/report activity; r-client.md 3.1, 9, 9.4;
 * api.md "DNS Refresh"; rl_membership.h).
 *
 * Input: refresh settings, then a script: answer the SRV query (records with
 * conforming, duplicate, malformed, NULL or port-0 targets and TTLs), answer
 * an address query (A/AAAA/unknown families), fail a query, refuse the next
 * lookups, answer inside the resolver call, advance the clock, force a
 * refresh, submit or report (periodic refresh on activity). At the end the
 * client is destroyed with queries outstanding, and they are answered
 * afterwards, as r_client_io.h allows.
 *
 * The model predicts every lookup the core must start (names, order) and the
 * membership it must install: first conforming target per server_id (at most
 * 64, port != 0), each with its first A/AAAA record and the SRV port, ascending
 * server_id; a member whose lookup failed keeps its last known address (or is
 * left out when it has none); a discovery with no fresh address keeps the old
 * membership. After each event the installed snapshot, the periodic deadline
 * (min(interval, smallest SRV TTL), or the backoff after a partial
 * result) and the forced-refresh throttle (min interval + jitter) are
 * checked through the private membership state. Record strings are freed right after
 * each answer, so a retained pointer is a use after free. */
#include <string.h>

#include "fuzz_common.h"
#include "rl_client.h"
#include "rl_credential.h"

#define MAX_Q 80
#define MAX_REC 72
#define TENANT "t.example.net."

typedef struct {
    r_dns_query_t *q;
    bool srv, done;
    char name[300];
} query_t;

typedef struct {
    uint64_t server_id;
    uint16_t port;
    bool has_addr;
    r_addr_t addr;
    query_t *query;
    char target[256];
} kept_t;

typedef struct {
    fuzz_reader_t *r;
    r_client_t *client;
    bool destroyed;
    uint64_t now;
    uint64_t rng;
    int refuse_next;        /* the next lookups that fail to start */
    uint8_t sync_mask;      /* bit k set: the k-th start (mod 8) is answered inside the call */
    unsigned starts;
    query_t queries[MAX_Q];
    size_t n_queries;
    /* model */
    uint32_t interval_ms, forced_min_ms, jitter_ms;
    bool inflight, srv_answered;
    query_t *srv_query;
    kept_t kept[64];
    size_t n_kept, n_started;
    uint64_t ttl_cap_ms;
    rl_member_t current[64];
    size_t n_current;
    uint32_t generation;
    uint64_t next_periodic, forced_not_before;
    uint32_t failures;      /* consecutive failed refreshes that kept a snapshot */
} host_t;

static void answer_srv(host_t *h, query_t *q);
static void answer_addr(host_t *h, query_t *q);

static const rl_membership_t *membership(const host_t *h) {
    return &h->client->membership;
}

static int cmp_member(const void *a, const void *b) {
    uint64_t x = ((const rl_member_t *)a)->server_id, y = ((const rl_member_t *)b)->server_id;
    return x < y ? -1 : x > y;
}

/* The model's last known address of server_id, or NULL. */
static const rl_member_t *current_member(const host_t *h, uint64_t server_id) {
    for (size_t i = 0; i < h->n_current; i++) {
        if (h->current[i].server_id == server_id) return &h->current[i];
    }
    return NULL;
}

/* Every lookup answered or refused: install (r-client.md 9.4) or keep. A
 * member without a fresh address keeps its last known one with the new SRV
 * port, or is left out; no fresh address at all is a failed refresh; a
 * partial result or a failed refresh with members to keep retries after the
 * forced minimum doubled per consecutive partial or failed refresh, up to the
 * refresh interval, plus jitter (r-client.md 6.1 retry timer, 9.4;
 * docs/spec-notes.md), a partial one never later than its periodic time. */
static void finish(host_t *h) {
    rl_member_t found[64];
    size_t n = 0, fresh = 0, stale = 0;
    for (size_t k = 0; k < h->n_kept; k++) {
        const rl_member_t *old = current_member(h, h->kept[k].server_id);
        if (h->kept[k].has_addr) {
            found[n].server_id = h->kept[k].server_id;
            found[n++].addr = h->kept[k].addr;
            fresh++;
            continue;
        }
        stale++;
        if (old != NULL) {
            found[n] = *old;
            found[n++].addr.port = h->kept[k].port;
        }
    }
    h->inflight = false;
    h->srv_query = NULL;
    const rl_membership_t *m = membership(h);
    uint64_t cap = h->interval_ms > h->forced_min_ms ? h->interval_ms : h->forced_min_ms;
    uint64_t delay = h->forced_min_ms; /* the backoff of this attempt if it failed or was partial */
    for (uint32_t k = 0; k < h->failures && delay < cap; k++) delay *= 2u;
    if (delay > cap) delay = cap;
    if (fresh == 0) {
        if (h->n_current == 0) return; /* nothing armed: the next activity retries */
        h->failures++;
        FUZZ_CHECK(m->next_periodic_ms >= h->now + delay && m->next_periodic_ms <= h->now + delay + h->jitter_ms);
        FUZZ_CHECK(m->forced_not_before_ms == m->next_periodic_ms);
        h->next_periodic = h->forced_not_before = m->next_periodic_ms;
        return;
    }
    qsort(found, n, sizeof found[0], cmp_member);
    memcpy(h->current, found, sizeof found[0] * n);
    h->n_current = n;
    h->generation++;
    uint64_t interval = h->interval_ms;
    if (h->ttl_cap_ms != 0 && h->ttl_cap_ms < interval) interval = h->ttl_cap_ms;
    FUZZ_CHECK(m->forced_not_before_ms >= h->now + h->forced_min_ms &&
               m->forced_not_before_ms <= h->now + h->forced_min_ms + h->jitter_ms);
    h->forced_not_before = m->forced_not_before_ms;
    h->next_periodic = h->now + interval;
    if (stale == 0) {
        h->failures = 0;
        FUZZ_CHECK(m->next_periodic_ms == h->next_periodic);
        return;
    }
    h->failures++; /* partial: its missing addresses are retried after the backoff */
    if (h->now + delay < h->next_periodic) {
        FUZZ_CHECK(m->next_periodic_ms >= h->now + delay && m->next_periodic_ms <= h->now + delay + h->jitter_ms);
    } else {
        FUZZ_CHECK(m->next_periodic_ms >= h->next_periodic &&
                   m->next_periodic_ms <= (h->now + delay + h->jitter_ms < h->next_periodic
                                               ? h->now + delay + h->jitter_ms : h->next_periodic));
    }
    h->next_periodic = m->next_periodic_ms;
}

/* After each call into the core has returned: a discovery whose lookups are
 * all answered or refused has finished inside it. */
static void settle(host_t *h) {
    if (!h->inflight || !h->srv_answered || h->n_started != h->n_kept) return;
    for (size_t k = 0; k < h->n_started; k++) {
        if (!h->kept[k].query->done) return;
    }
    finish(h);
}

/* ---- resolver hooks ---------------------------------------------------------- */

static query_t *new_query(host_t *h, r_dns_query_t *q, bool srv, const char *name) {
    FUZZ_CHECK(h->n_queries < MAX_Q && q != NULL && name != NULL && strlen(name) < sizeof h->queries[0].name);
    query_t *e = &h->queries[h->n_queries++];
    e->q = q;
    e->srv = srv;
    e->done = false;
    strcpy(e->name, name);
    return e;
}

static int start_lookup(host_t *h, query_t *e) {
    unsigned k = h->starts++;
    if (h->refuse_next > 0) {
        h->refuse_next--;
        e->done = true; /* no answer is owed */
        if (e->srv) h->srv_answered = true; /* the discovery ends with nothing */
        return -1;
    }
    if (h->sync_mask & (1u << (k % 8))) {
        if (e->srv) answer_srv(h, e); else answer_addr(h, e);
    }
    return 0;
}

static int resolve_srv(void *ctx, const char *name, r_dns_query_t *query) {
    host_t *h = ctx;
    FUZZ_CHECK(!h->destroyed && !h->inflight); /* one discovery at a time */
    FUZZ_CHECK(strcmp(name, "_ratelimitly._udp.t.example.net") == 0);
    /* The previous discovery has finished: every query of it was answered. */
    for (size_t i = 0; i < h->n_queries; i++) FUZZ_CHECK(h->queries[i].done);
    h->n_queries = 0;
    h->inflight = true;
    h->srv_answered = false;
    h->n_kept = h->n_started = 0;
    h->ttl_cap_ms = 0;
    h->srv_query = new_query(h, query, true, name);
    return start_lookup(h, h->srv_query);
}

static int resolve_addr(void *ctx, const char *host, r_dns_query_t *query) {
    host_t *h = ctx;
    FUZZ_CHECK(!h->destroyed && h->inflight && h->srv_answered && h->n_started < h->n_kept);
    kept_t *k = &h->kept[h->n_started++];
    k->query = new_query(h, query, false, host);
    FUZZ_CHECK(strcmp(host, k->target) == 0); /* the k-th conforming target, verbatim */
    return start_lookup(h, k->query);
}

/* ---- answers ------------------------------------------------------------------ */

static const uint64_t IDS[6] = {1015809, 8388608, 0, 18446744073709551615ull, 264543141986321ull, 77};

/* One SRV target: conforming (small id set, so duplicates occur), raw bytes,
 * NULL, or over-long. Returns a heap string the caller frees, or NULL. */
static char *make_target(fuzz_reader_t *r) {
    uint8_t c = fuzz_u8(r);
    char *t = malloc(300);
    FUZZ_CHECK(t != NULL);
    switch (c % 4) {
    case 0:
    case 1: snprintf(t, 300, "%s-%llu.%s", (c & 4) ? "S" : "s", (unsigned long long)IDS[(c >> 3) % 6], TENANT); break;
    case 2: {
        size_t n = fuzz_u8(r) % 40;
        fuzz_bytes(r, (uint8_t *)t, n);
        t[n] = '\0';
        break;
    }
    default:
        if (c & 0x80) {
            memset(t, 'a', 299);
            memcpy(t, "s-1.", 4);
            t[299] = '\0';
        } else {
            free(t);
            t = NULL;
        }
        break;
    }
    return t;
}

/* The model's selection (rl_membership.h "Discovery"). */
static void select_kept(host_t *h, const r_srv_record_t *rec, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t ttl = (uint64_t)rec[i].ttl_s * 1000u;
        if (ttl != 0 && (h->ttl_cap_ms == 0 || ttl < h->ttl_cap_ms)) h->ttl_cap_ms = ttl;
        uint64_t id = 0;
        if (rec[i].target == NULL || strlen(rec[i].target) > 254 || rec[i].port == 0 ||
            r_client_parse_srv_target(rec[i].target, strlen(rec[i].target), &id) != RCLIENT_OK) {
            continue;
        }
        bool dup = false;
        for (size_t k = 0; k < h->n_kept; k++) dup = dup || h->kept[k].server_id == id;
        if (dup || h->n_kept == 64) continue;
        kept_t *k = &h->kept[h->n_kept++];
        memset(k, 0, sizeof *k);
        k->server_id = id;
        k->port = rec[i].port;
        strcpy(k->target, rec[i].target);
    }
}

static void answer_srv(host_t *h, query_t *q) {
    fuzz_reader_t *r = h->r;
    int status = (fuzz_u8(r) % 8 == 0) ? 1 : 0;
    size_t n = fuzz_u8(r) % 8;
    if (n == 7) n = MAX_REC; /* more conforming targets than the 64 kept */
    r_srv_record_t rec[MAX_REC];
    char *names[MAX_REC];
    for (size_t i = 0; i < n; i++) {
        names[i] = i < 7 ? make_target(r) : malloc(64);
        if (i >= 7) snprintf(names[i], 64, "s-%zu.%s", 1000 + i, TENANT);
        rec[i].target = names[i];
        rec[i].port = (fuzz_u8(r) % 16 == 0) ? 0 : (uint16_t)(29000 + i);
        rec[i].priority = rec[i].weight = 1;
        rec[i].ttl_s = fuzz_u8(r);
    }
    q->done = true;
    if (status == 0) select_kept(h, rec, n);
    h->srv_answered = true;
    r_client_dns_srv_done(q->q, status, rec, n);
    for (size_t i = 0; i < n; i++) free(names[i]); /* borrowed only for the call */
    if (!h->destroyed) FUZZ_CHECK(h->n_started == h->n_kept); /* one lookup per kept target, in order */
}

static void answer_addr(host_t *h, query_t *q) {
    fuzz_reader_t *r = h->r;
    int status = (fuzz_u8(r) % 8 == 0) ? 1 : 0;
    size_t n = fuzz_u8(r) % 4;
    r_addr_record_t *rec = calloc(n > 0 ? n : 1, sizeof *rec);
    FUZZ_CHECK(rec != NULL);
    for (size_t i = 0; i < n; i++) {
        uint8_t f = fuzz_u8(r);
        rec[i].addr.family = (f % 3 == 0) ? R_ADDR_INET : (f % 3 == 1 ? R_ADDR_INET6 : f);
        rec[i].addr.port = fuzz_u16(r); /* ignored: the SRV port is authoritative */
        fuzz_bytes(r, rec[i].addr.addr, 16);
        rec[i].ttl_s = 60;
    }
    q->done = true;
    kept_t *k = NULL;
    for (size_t j = 0; j < h->n_started && k == NULL; j++) {
        if (h->kept[j].query == q) k = &h->kept[j];
    }
    for (size_t i = 0; i < n && status == 0 && k != NULL && !h->destroyed; i++) {
        if (rec[i].addr.family == R_ADDR_INET || rec[i].addr.family == R_ADDR_INET6) {
            k->has_addr = true;
            k->addr = rec[i].addr;
            if (k->addr.family == R_ADDR_INET) memset(k->addr.addr + 4, 0, 12);
            k->addr.port = k->port;
            break;
        }
    }
    r_client_dns_addr_done(q->q, status, rec, n);
    free(rec);
}

/* ---- events and checks ---------------------------------------------------------- */

static query_t *outstanding(host_t *h, bool srv, uint8_t pick) {
    size_t idx[MAX_Q], n = 0;
    for (size_t i = 0; i < h->n_queries; i++) {
        if (!h->queries[i].done && h->queries[i].srv == srv) idx[n++] = i;
    }
    return n == 0 ? NULL : &h->queries[idx[pick % n]];
}

static void check_state(const host_t *h) {
    const rl_membership_t *m = membership(h);
    FUZZ_CHECK((m->inflight != NULL) == h->inflight);
    FUZZ_CHECK(m->generation == h->generation);
    const rl_snapshot_t *s = rl_membership_peek(m);
    FUZZ_CHECK((s == NULL) == (h->n_current == 0) && r_client_server_count(h->client) == h->n_current);
    for (size_t i = 0; s != NULL && i < s->count; i++) {
        FUZZ_CHECK(s->count == h->n_current && s->ids[i] == s->members[i].server_id);
        FUZZ_CHECK(s->members[i].server_id == h->current[i].server_id);
        FUZZ_CHECK(memcmp(&s->members[i].addr, &h->current[i].addr, sizeof s->members[i].addr) == 0);
    }
}

/* Activity (submit) may start a periodic or forced refresh. */
static bool refresh_due(const host_t *h) {
    return !h->inflight && (h->n_current > 0 ? h->now >= h->next_periodic : h->now >= h->forced_not_before);
}

static void noop_cb(r_client_req_t *req, const r_rate_limit_result_t *res, void *user) {
    (void)req; (void)res; (void)user;
}

static void ev_submit(host_t *h) {
    unsigned before = h->starts;
    bool due = refresh_due(h);
    r_resource_request_t res = {.window_size_ms = 1000, .rate_limit = 10, .tokens_requested = 1};
    r_client_req_t *req = NULL;
    int rc = r_client_check_rate_limit_async(h->client, &res, 1, NULL, 0, NULL, 0, noop_cb, NULL, &req);
    settle(h); /* a lookup answered inside the call may have installed members */
    FUZZ_CHECK((h->starts > before) == due);
    FUZZ_CHECK(rc == (h->n_current > 0 ? RCLIENT_OK : RCLIENT_ERR_DNS));
    if (rc == RCLIENT_OK) FUZZ_CHECK(r_client_cancel_request(h->client, req) == RCLIENT_OK);
}

static void ev_refresh(host_t *h) {
    unsigned before = h->starts;
    bool due = !h->inflight && h->now >= h->forced_not_before;
    FUZZ_CHECK(r_client_refresh_dns(h->client) == RCLIENT_OK);
    FUZZ_CHECK((h->starts > before) == due);
}

static void run_event(host_t *h, uint8_t op) {
    fuzz_reader_t *r = h->r;
    query_t *q;
    switch (op % 8) {
    case 0: if ((q = outstanding(h, true, 0)) != NULL) answer_srv(h, q); break;
    case 1:
    case 2: if ((q = outstanding(h, false, fuzz_u8(r))) != NULL) answer_addr(h, q); break;
    case 3: h->now += (uint64_t)fuzz_u16(r) * ((op & 0x80) ? 100u : 1u); break;
    case 4: ev_refresh(h); break;
    case 5: ev_submit(h); break;
    case 6: h->refuse_next = fuzz_u8(r) % 3; break;
    default: h->sync_mask = fuzz_u8(r); break;
    }
}

static uint64_t clock_now(void *ctx) {
    return ((host_t *)ctx)->now;
}

static int send_ok(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)ctx; (void)to; (void)data; (void)len;
    return 0;
}

static int counter_random(void *ctx, uint8_t *buf, size_t len) {
    host_t *h = ctx;
    for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)((h->rng++ * 0x9E3779B97F4A7C15ull) >> 56);
    return 0;
}

static void create_client(host_t *h) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = R_AUTH_NONE;
    info.key_id = 4242;
    info.quota_word = 0xf8f2b150u;
    FUZZ_CHECK(r_client_decode_quota_word(info.quota_word, &info.quotas, NULL) == RCLIENT_OK);
    char key[80];
    FUZZ_CHECK(rl_credential_encode(&info, key, sizeof key) > 0);
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = key;
    cfg.tenant.dns_name = TENANT;
    cfg.dns_refresh.refresh_interval_ms = h->interval_ms;
    cfg.dns_refresh.forced_refresh_min_interval_ms = h->forced_min_ms;
    cfg.dns_refresh.forced_refresh_jitter_ms = h->jitter_ms;
    if (h->interval_ms == 0) h->interval_ms = 300000; /* the defaults the core applies */
    if (h->forced_min_ms == 0) h->forced_min_ms = 1000;
    r_io_ops_t io = {.ctx = h, .udp_send = send_ok, .now_ms = clock_now, .random = counter_random};
    r_resolver_ops_t res = {.ctx = h, .resolve_srv = resolve_srv, .resolve_addr = resolve_addr};
    FUZZ_CHECK(r_client_create(&cfg, &io, &res, &h->client) == RCLIENT_OK); /* starts the first discovery */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    host_t *h = calloc(1, sizeof *h);
    FUZZ_CHECK(h != NULL);
    h->r = &r;
    h->now = 1767225600000ull;
    h->interval_ms = fuzz_u16(&r);
    h->forced_min_ms = fuzz_u16(&r) % 5000u;
    h->jitter_ms = fuzz_u8(&r);
    h->sync_mask = fuzz_u8(&r);
    create_client(h);
    settle(h);
    check_state(h);
    for (int n = 0; n < 256 && fuzz_left(&r) > 0; n++) {
        run_event(h, fuzz_u8(&r));
        settle(h);
        check_state(h);
    }
    /* Destroy with lookups outstanding; the host may answer them afterwards. */
    r_client_destroy(h->client);
    h->destroyed = true;
    for (size_t i = 0; i < h->n_queries; i++) {
        query_t *q = &h->queries[i];
        if (!q->done) {
            if (q->srv) answer_srv(h, q); else answer_addr(h, q);
        }
    }
    free(h);
    free(copy);
    return 0;
}
