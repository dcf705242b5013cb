/* SPDX-License-Identifier: MIT */
/* sim_dns.c - the simulated DNS behind the client core's resolver hooks
 * (r_client_io.h). Every lookup is decided at query time from the epoch in
 * force then, and answered later by an engine event (class
 * SIM_CLASS_DELIVER), never from inside the start call:
 *
 *   before the first epoch    status 0, no records;
 *   OK epoch, SRV of srv_name the epoch's records, targets verbatim (also
 *                             non-conforming ones: the core filters them);
 *   OK epoch, other SRV name  status 0, no records;
 *   OK epoch, A/AAAA of host  the first record whose target is host: its addr
 *                             when has_addr, else no records; unknown host:
 *                             no records;
 *   FAIL epoch                SIM_DNS_STATUS_FAIL after latency_us;
 *   TIMEOUT epoch             SIM_DNS_STATUS_TIMEOUT after timeout_us.
 * Names compare ASCII case-insensitively, a trailing dot ignored. FAIL and
 * TIMEOUT apply to every lookup: the outage is of the resolver.
 *
 * Each started query is owed exactly one answer. Owed queries sit in a list
 * until their event answers them; sim_dns_flush answers the rest with
 * SIM_DNS_STATUS_FLUSHED. An entry is freed when its event runs (or by
 * sim_dns_free), so the engine must run no more events after sim_dns_free. */
#include <stdlib.h>
#include <string.h>

#include "sim_dns.h"

#define QUERY_SRV SIM_DNS_QUERY_SRV
#define QUERY_ADDR SIM_DNS_QUERY_ADDR
#define MAX_CLIENTS (1u << 20)
#define NONE SIZE_MAX

typedef struct {
    sim_time_t from;
    sim_dns_mode_t mode;
    sim_dns_record_t *records;
    size_t n;
} epoch_t;

typedef struct client_ctx {
    sim_dns_t *dns;
    uint32_t index;
} client_ctx_t;

typedef struct pending {
    struct pending *prev, *next;
    r_dns_query_t *query;
    uint32_t client;
    uint8_t kind;           /* QUERY_SRV / QUERY_ADDR */
    bool answered;
    sim_dns_mode_t mode;    /* of the epoch in force at query time */
    /* Indices, not pointers: epochs may be added (and moved) while a query waits. */
    size_t epoch;           /* SRV: the epoch whose records answer; NONE = no records */
    size_t record;          /* ADDR: the matching record of epoch; NONE = unknown host */
} pending_t;

struct sim_dns {
    sim_engine_t *engine;
    sim_log_t *log;
    char srv_name[SIM_DNS_NAME_MAX];
    uint32_t latency_us, timeout_us;
    epoch_t *epochs;
    size_t n_epochs, cap_epochs;
    r_srv_record_t *scratch; /* SRV answer being delivered */
    size_t cap_scratch;
    client_ctx_t **clients;
    size_t n_clients;
    pending_t *live; /* owed or awaiting their event */
    sim_dns_stats_t stats;
    sim_dns_srv_observer_fn observer;
    void *observer_ctx;
};

void sim_dns_set_observer(sim_dns_t *dns, sim_dns_srv_observer_fn fn, void *ctx) {
    if (dns != NULL) {
        dns->observer = fn;
        dns->observer_ctx = ctx;
    }
}

sim_dns_t *sim_dns_new(sim_engine_t *engine, sim_log_t *log, const char *srv_name, uint32_t latency_us,
                       uint32_t timeout_us) {
    if (engine == NULL || srv_name == NULL || strlen(srv_name) >= SIM_DNS_NAME_MAX) {
        return NULL;
    }
    sim_dns_t *dns = calloc(1, sizeof *dns);
    if (dns == NULL) {
        return NULL;
    }
    dns->engine = engine;
    dns->log = log;
    strcpy(dns->srv_name, srv_name);
    dns->latency_us = latency_us;
    dns->timeout_us = timeout_us;
    return dns;
}

void sim_dns_free(sim_dns_t *dns) {
    if (dns == NULL) {
        return;
    }
    while (dns->live != NULL) {
        pending_t *next = dns->live->next;
        free(dns->live);
        dns->live = next;
    }
    for (size_t i = 0; i < dns->n_epochs; i++) {
        free(dns->epochs[i].records);
    }
    for (size_t i = 0; i < dns->n_clients; i++) {
        free(dns->clients[i]);
    }
    free(dns->clients);
    free(dns->epochs);
    free(dns->scratch);
    free(dns);
}

/* ---- epochs ------------------------------------------------------------- */

static int reserve_scratch(sim_dns_t *dns, size_t n) {
    if (n <= dns->cap_scratch) {
        return 0;
    }
    r_srv_record_t *s = realloc(dns->scratch, n * sizeof *s);
    if (s == NULL) {
        return -1;
    }
    dns->scratch = s;
    dns->cap_scratch = n;
    return 0;
}

/* Equal `from` is accepted: the epoch added last wins from then on. */
int sim_dns_add_epoch(sim_dns_t *dns, const sim_dns_epoch_t *epoch) {
    if (dns == NULL || epoch == NULL || (epoch->records == NULL && epoch->n_records != 0) ||
        (unsigned)epoch->mode > SIM_DNS_TIMEOUT || epoch->n_records > SIZE_MAX / sizeof(sim_dns_record_t) ||
        (dns->n_epochs != 0 && epoch->from < dns->epochs[dns->n_epochs - 1u].from)) {
        return -1;
    }
    if (dns->n_epochs == dns->cap_epochs) {
        size_t cap = dns->cap_epochs != 0 ? dns->cap_epochs * 2u : 4u;
        epoch_t *e = realloc(dns->epochs, cap * sizeof *e);
        if (e == NULL) {
            return -1;
        }
        dns->epochs = e;
        dns->cap_epochs = cap;
    }
    if (reserve_scratch(dns, epoch->n_records) != 0) {
        return -1;
    }
    epoch_t *e = &dns->epochs[dns->n_epochs];
    e->records = NULL;
    if (epoch->n_records != 0) {
        e->records = malloc(epoch->n_records * sizeof *e->records);
        if (e->records == NULL) {
            return -1;
        }
        memcpy(e->records, epoch->records, epoch->n_records * sizeof *e->records);
        for (size_t i = 0; i < epoch->n_records; i++) {
            e->records[i].target[SIM_DNS_NAME_MAX - 1u] = '\0';
        }
    }
    e->from = epoch->from;
    e->mode = epoch->mode;
    e->n = epoch->n_records;
    dns->n_epochs++;
    return 0;
}

/* Index of the epoch in force at t, or NONE before the first. */
static size_t epoch_at(const sim_dns_t *dns, sim_time_t t) {
    for (size_t i = dns->n_epochs; i > 0; i--) {
        if (dns->epochs[i - 1u].from <= t) {
            return i - 1u;
        }
    }
    return NONE;
}

static size_t name_len(const char *s) {
    size_t n = strlen(s);
    return (n > 0 && s[n - 1u] == '.') ? n - 1u : n;
}

static char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

static bool same_name(const char *a, const char *b) {
    size_t n = name_len(a);
    if (n != name_len(b)) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (ascii_lower(a[i]) != ascii_lower(b[i])) {
            return false;
        }
    }
    return true;
}

/* ---- answering ----------------------------------------------------------- */

static void log_answer(sim_dns_t *dns, const pending_t *p, int status, size_t n) {
    sim_log_record(dns->log, sim_engine_now(dns->engine), SIM_LOG_DNS, p->client, p->kind,
                   status != 0 ? SIM_DNS_LOG_FAILED : (uint64_t)n);
}

static void answer_failure(sim_dns_t *dns, pending_t *p, int status) {
    p->answered = true;
    log_answer(dns, p, status, 0);
    if (p->kind == QUERY_SRV) {
        r_client_dns_srv_done(p->query, status, NULL, 0);
    } else {
        r_client_dns_addr_done(p->query, status, NULL, 0);
    }
}

static void answer_srv(sim_dns_t *dns, pending_t *p) {
    const epoch_t *e = p->epoch != NONE ? &dns->epochs[p->epoch] : NULL;
    size_t n = e != NULL ? e->n : 0;
    for (size_t i = 0; i < n; i++) {
        const sim_dns_record_t *r = &e->records[i];
        r_srv_record_t out = {r->target, r->port, 0, 0, r->ttl_s};
        dns->scratch[i] = out;
    }
    if (n == 0) {
        dns->stats.empty_answers++;
    }
    p->answered = true;
    log_answer(dns, p, 0, n);
    if (dns->observer != NULL) {
        dns->observer(dns->observer_ctx, p->client, e != NULL ? e->records : NULL, n);
    }
    r_client_dns_srv_done(p->query, 0, n != 0 ? dns->scratch : NULL, n);
}

static void answer_addr(sim_dns_t *dns, pending_t *p) {
    r_addr_record_t rec;
    size_t n = 0;
    const sim_dns_record_t *r = p->record != NONE ? &dns->epochs[p->epoch].records[p->record] : NULL;
    if (r != NULL && r->has_addr) {
        rec.addr = r->addr;
        rec.ttl_s = r->ttl_s;
        n = 1;
    } else {
        dns->stats.empty_answers++;
    }
    p->answered = true;
    log_answer(dns, p, 0, n);
    r_client_dns_addr_done(p->query, 0, n != 0 ? &rec : NULL, n);
}

static void unlink_pending(sim_dns_t *dns, pending_t *p) {
    if (p->prev != NULL) {
        p->prev->next = p->next;
    } else {
        dns->live = p->next;
    }
    if (p->next != NULL) {
        p->next->prev = p->prev;
    }
}

static void answer_event(void *ctx, uint64_t arg, void *ptr) {
    (void)arg;
    sim_dns_t *dns = ctx;
    pending_t *p = ptr;
    unlink_pending(dns, p); /* first: the answer may start new lookups */
    if (!p->answered) {
        if (p->mode == SIM_DNS_FAIL) {
            dns->stats.failures++;
            answer_failure(dns, p, SIM_DNS_STATUS_FAIL);
        } else if (p->mode == SIM_DNS_TIMEOUT) {
            dns->stats.timeouts++;
            answer_failure(dns, p, SIM_DNS_STATUS_TIMEOUT);
        } else if (p->kind == QUERY_SRV) {
            answer_srv(dns, p);
        } else {
            answer_addr(dns, p);
        }
    }
    free(p);
}

void sim_dns_flush(sim_dns_t *dns) {
    if (dns == NULL) {
        return;
    }
    /* Repeat: an answer may start lookups (pushed at the head). */
    bool again = true;
    while (again) {
        again = false;
        for (pending_t *p = dns->live; p != NULL; p = p->next) {
            if (!p->answered) {
                answer_failure(dns, p, SIM_DNS_STATUS_FLUSHED);
                again = true;
            }
        }
    }
}

/* ---- resolver hooks --------------------------------------------------------- */

static int start_query(client_ctx_t *c, uint8_t kind, const char *name, r_dns_query_t *query) {
    if (c == NULL || name == NULL || query == NULL) {
        return -1;
    }
    sim_dns_t *dns = c->dns;
    pending_t *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return -1;
    }
    sim_time_t now = sim_engine_now(dns->engine);
    size_t ei = epoch_at(dns, now);
    const epoch_t *e = ei != NONE ? &dns->epochs[ei] : NULL;
    p->query = query;
    p->client = c->index;
    p->kind = kind;
    p->mode = e != NULL ? e->mode : SIM_DNS_OK;
    p->epoch = (e != NULL && (kind == QUERY_ADDR || same_name(name, dns->srv_name))) ? ei : NONE;
    p->record = NONE;
    for (size_t i = 0; e != NULL && kind == QUERY_ADDR && i < e->n && p->record == NONE; i++) {
        if (same_name(name, e->records[i].target)) {
            p->record = i;
        }
    }
    sim_time_t at = now + (p->mode == SIM_DNS_TIMEOUT ? dns->timeout_us : dns->latency_us);
    if (sim_engine_schedule(dns->engine, at, SIM_CLASS_DELIVER, answer_event, dns, 0, p) != 0) {
        free(p);
        return -1;
    }
    p->next = dns->live;
    if (dns->live != NULL) {
        dns->live->prev = p;
    }
    dns->live = p;
    if (kind == QUERY_SRV) {
        dns->stats.srv_queries++;
    } else {
        dns->stats.addr_queries++;
    }
    return 0;
}

static int resolve_srv(void *ctx, const char *name, r_dns_query_t *query) {
    return start_query(ctx, QUERY_SRV, name, query);
}

static int resolve_addr(void *ctx, const char *host, r_dns_query_t *query) {
    return start_query(ctx, QUERY_ADDR, host, query);
}

static client_ctx_t *client_ctx(sim_dns_t *dns, uint32_t i) {
    if (i < dns->n_clients && dns->clients[i] != NULL) {
        return dns->clients[i];
    }
    if (i >= MAX_CLIENTS) {
        return NULL;
    }
    if (i >= dns->n_clients) {
        client_ctx_t **grown = realloc(dns->clients, ((size_t)i + 1u) * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        memset(grown + dns->n_clients, 0, ((size_t)i + 1u - dns->n_clients) * sizeof *grown);
        dns->clients = grown;
        dns->n_clients = (size_t)i + 1u;
    }
    client_ctx_t *c = malloc(sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    c->dns = dns;
    c->index = i;
    dns->clients[i] = c;
    return c;
}

/* Allocation failure gives hooks with NULL functions: r_client_create then
 * refuses them (RCLIENT_ERR_CONFIG) instead of crashing. */
r_resolver_ops_t sim_dns_resolver(sim_dns_t *dns, uint32_t client_index) {
    r_resolver_ops_t ops = {NULL, NULL, NULL};
    client_ctx_t *c = dns != NULL ? client_ctx(dns, client_index) : NULL;
    if (c != NULL) {
        ops.ctx = c;
        ops.resolve_srv = resolve_srv;
        ops.resolve_addr = resolve_addr;
    }
    return ops;
}

const sim_dns_stats_t *sim_dns_stats(const sim_dns_t *dns) { return &dns->stats; }
