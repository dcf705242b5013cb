/* SPDX-License-Identifier: MIT */
/* fake_dns_host.h - the fake host of fake_host.h with a client that discovers
 * its servers through the scripted resolver of fake_dns.h (r-client.md 3.1).
 * The three fh servers become the zone's members: fh server i has server_id
 * DH_ID<i+1> and SRV port 29292 + i, so captured sends map to them and
 * fh_build_response answers with the right server_id. Every send's
 * destination address is recorded in dh_to. Include after <cmocka.h>. */
#ifndef FAKE_DNS_HOST_H
#define FAKE_DNS_HOST_H

#include "fake_dns.h"
#include "fake_host.h"

/* r-client.md 3.1's example zone, plus a third, youngest server. */
#define DH_ZONE "ratelimitly.example.com"
#define DH_T1 "s-1015809.rl1.example.com."
#define DH_T2 "s-1048578.rl2.example.com."
#define DH_T3 "s-2000000.rl3.example.com."
#define DH_ID1 1015809ull
#define DH_ID2 1048578ull
#define DH_ID3 2000000ull
#define DH_PORT1 29292
#define DH_PORT2 29293
#define DH_PORT3 29294

static r_addr_t dh_to[FH_MAX_SENDS]; /* destination of captured send i */

static inline int dh_udp_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    fh_t *h = ctx;
    if (h->n_sends < FH_MAX_SENDS) {
        dh_to[h->n_sends] = *to;
    }
    return fh_udp_send(ctx, to, data, len);
}

/* Host with DNS identities; no client yet. */
static inline fh_t *dh_host(r_auth_type_t mode) {
    fh_t *h = calloc(1, sizeof *h);
    assert_non_null(h);
    h->now = FH_T0;
    h->fail_send_at = -1;
    h->rng_counter = 1;
    h->mode = mode;
    fh_make_key(h, mode, 0xf8f2b150u);
    const uint64_t ids[FH_SERVERS] = {DH_ID1, DH_ID2, DH_ID3};
    for (int i = 0; i < FH_SERVERS; i++) {
        h->server_ids[i] = ids[i];
        h->endpoints[i].server_id = ids[i];
        h->endpoints[i].addr.family = R_ADDR_INET;
        h->endpoints[i].addr.port = (uint16_t)(DH_PORT1 + i);
    }
    assert_int_equal(rl_auth_init(&h->server_auth, mode, mode == R_AUTH_NONE ? NULL : h->secret), RCLIENT_OK);
    memset(dh_to, 0, sizeof dh_to);
    fh_current = h;
    return h;
}

/* Create the DNS-mode client: dns_name NULL = the default tenant name,
 * refresh may be NULL. Returns r_client_create's result (h->client set on OK). */
static inline int dh_create(fh_t *h, fake_dns_t *dns, const char *dns_name, const r_dns_refresh_config_t *refresh) {
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = h->key;
    cfg.tenant.dns_name = dns_name;
    if (refresh != NULL) {
        cfg.dns_refresh = *refresh;
    }
    cfg.request_profile_cb = fh_profile;
    cfg.request_profile_user_data = h;
    r_io_ops_t io = {.ctx = h, .udp_send = dh_udp_send, .now_ms = fh_now, .steering_rebind = fh_rebind,
                     .random = fh_random};
    r_resolver_ops_t ops = fake_dns_ops(dns);
    return r_client_create(&cfg, &io, &ops, &h->client);
}

static inline fh_t *dh_setup(r_auth_type_t mode, fake_dns_t *dns, const char *dns_name,
                             const r_dns_refresh_config_t *refresh) {
    fh_t *h = dh_host(mode);
    assert_int_equal(dh_create(h, dns, dns_name, refresh), RCLIENT_OK);
    return h;
}

/* Destroy the client, then answer what the host still owes (a detached
 * discovery must free itself: ASan/valgrind report leaks). */
static inline void dh_teardown(fh_t *h, fake_dns_t *dns) {
    fh_teardown(h);
    fake_dns_answer_rest(dns);
}

/* SRV T2 then T1 (T2 listed first), A records 203.0.113.10 / .11. */
static inline void dh_zone_two(fake_dns_t *dns, uint32_t ttl_s) {
    fake_dns_add_srv(dns, DH_T2, DH_PORT2, ttl_s);
    fake_dns_add_srv(dns, DH_T1, DH_PORT1, ttl_s);
    fake_dns_add_a(dns, DH_T1, fake_v4(203, 0, 113, 10));
    fake_dns_add_a(dns, DH_T2, fake_v4(203, 0, 113, 11));
}

static inline void dh_zone_clear(fake_dns_t *dns) {
    dns->n_srv = 0;
    dns->n_addr = 0;
    dns->srv_status = 0;
}

/* DNS-mode client on zone DH_ZONE whose first discovery (two servers)
 * completes inside r_client_create; later lookups stay pending until the
 * test answers them. */
static inline fh_t *dh_setup_two(r_auth_type_t mode, fake_dns_t *dns, const r_dns_refresh_config_t *refresh,
                                 uint32_t ttl_s) {
    dns->srv_mode = FAKE_AT_ONCE;
    dns->addr_mode = FAKE_AT_ONCE;
    dh_zone_two(dns, ttl_s);
    fh_t *h = dh_setup(mode, dns, DH_ZONE, refresh);
    assert_int_equal(r_client_server_count(h->client), 2);
    dns->srv_mode = FAKE_LATER;
    dns->addr_mode = FAKE_LATER;
    return h;
}

/* Submit the default request of fake_host.h; returns the submit result. */
static inline int dh_submit_rc(fh_t *h, r_client_req_t **req) {
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    return r_client_check_rate_limit_async(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result, h, req);
}

/* Answer SRV query i, then every address lookup that answer started. */
static inline void dh_answer_discovery(fake_dns_t *dns, size_t i) {
    size_t first = dns->addr_calls;
    fake_dns_answer_srv(dns, i);
    for (size_t k = first; k < dns->addr_calls && k < FAKE_MAX_QUERIES; k++) {
        if (dns->addr_owed[k]) {
            fake_dns_answer_addr(dns, k);
        }
    }
}

#endif /* FAKE_DNS_HOST_H */
