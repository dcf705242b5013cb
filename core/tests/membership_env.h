/* SPDX-License-Identifier: MIT */
/* membership_env.h - shared fixture of the membership tests: one
 * rl_membership_t on the fake resolver, manual clock, log and random source,
 * and the two-server zone of r-client.md 3.1's example. */
#ifndef RL_MEMBERSHIP_ENV_H
#define RL_MEMBERSHIP_ENV_H

#include <stdlib.h>

#include "fake_dns.h"
#include "rl_membership.h"

#define T1 "s-1015809.rl1.example.com."
#define T2 "s-1048578.rl2.example.com."
#define T3 "s-2000000.rl3.example.com."
#define ID1 1015809u
#define ID2 1048578u
#define ID3 2000000u
#define START_MS 1000u

typedef struct {
    fake_dns_t dns;
    fake_clock_t clock;
    fake_log_t log;
    fake_rng_t rng;
    rl_membership_t m;
} env_t;

static inline int env_setup(void **state) {
    env_t *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return -1;
    }
    e->clock.now = START_MS;
    *state = e;
    return 0;
}

/* Release like r_client_destroy, then answer whatever the host still owes:
 * a detached discovery must free itself (ASan reports leaks). */
static inline int env_teardown(void **state) {
    env_t *e = *state;
    rl_membership_release(&e->m);
    fake_dns_answer_rest(&e->dns);
    free(e);
    return 0;
}

static inline void env_init(env_t *e, const r_dns_refresh_config_t *refresh) {
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    rl_rng_t rng = {.fn = fake_random, .ctx = &e->rng};
    assert_int_equal(rl_membership_init_dns(&e->m, "ratelimitly.example.com", &ops, refresh, &rng, fake_now_ms,
                                            &e->clock, fake_log, &e->log),
                     RCLIENT_OK);
}

/* SRV lists T2 before T1, so address lookup 0 is T2 and lookup 1 is T1. */
static inline void zone_two(fake_dns_t *f, uint32_t ttl_s) {
    fake_dns_add_srv(f, T2, 29293, ttl_s);
    fake_dns_add_srv(f, T1, 29292, ttl_s);
    fake_dns_add_a(f, T1, fake_v4(203, 0, 113, 10));
    fake_dns_add_a(f, T2, fake_v4(203, 0, 113, 11));
}

static inline void zone_clear(fake_dns_t *f) {
    f->n_srv = 0;
    f->n_addr = 0;
    f->srv_status = 0;
}

/* Synchronous resolver, two-server zone, first discovery installed. */
static inline void env_install_two(env_t *e, const r_dns_refresh_config_t *refresh, uint32_t ttl_s) {
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    zone_two(&e->dns, ttl_s);
    env_init(e, refresh);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_non_null(e->m.current);
    assert_int_equal(e->m.generation, 1);
}

#endif /* RL_MEMBERSHIP_ENV_H */
