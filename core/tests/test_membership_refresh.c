/* SPDX-License-Identifier: MIT */
/* Unit tests for membership.c refresh pacing (r-client.md 9.4, api.md "DNS
 * Refresh"): periodic refresh driven by activity, SRV TTL cap, forced-refresh
 * throttle with jitter, and failed refreshes that arm nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "membership_env.h"

/* Installed at START_MS with no TTL: due at START_MS + 300000, not 1 ms before. */
static void test_periodic_refresh_due_exactly(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 300000u);
    e->clock.now = START_MS + 300000u - 1u;
    assert_non_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->dns.srv_calls, 1);
    e->clock.now = START_MS + 300000u;
    assert_non_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->dns.srv_calls, 2);
    assert_int_equal(e->m.generation, 2);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 600000u);
}

static void test_configured_interval_used(void **state) {
    env_t *e = *state;
    r_dns_refresh_config_t cfg = {45000, 0, 0};
    env_install_two(e, &cfg, 0);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 45000u);
}

/* An asynchronous refresh keeps serving the current snapshot meanwhile. */
static void test_periodic_refresh_keeps_current_meanwhile(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    rl_snapshot_t *before = e->m.current;
    e->dns.srv_mode = FAKE_LATER;
    e->clock.now = START_MS + 300000u;
    assert_ptr_equal(rl_membership_acquire(&e->m), before);
    assert_non_null(e->m.inflight);
    assert_ptr_equal(rl_membership_acquire(&e->m), before);
    assert_int_equal(e->dns.srv_calls, 2);
    fake_dns_answer_srv(&e->dns, 1); /* address lookups answer at once */
    assert_null(e->m.inflight);
    assert_int_equal(e->m.generation, 2);
}

/* api.md: SRV TTLs cap the periodic interval; now is read at install time. */
static void test_srv_ttl_caps_interval(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 60);
    e->dns.addr_mode = FAKE_AT_ONCE;
    env_init(e, NULL);
    rl_membership_start(&e->m);
    e->clock.now = 5000;
    fake_dns_answer_srv(&e->dns, 0);
    assert_int_equal(e->m.generation, 1);
    assert_int_equal(e->m.next_periodic_ms, 5000u + 60000u);
}

static void test_smallest_nonzero_ttl_wins(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_dns_add_srv(&e->dns, T2, 29293, 120);
    fake_dns_add_srv(&e->dns, T3, 29294, 90);
    fake_dns_add_a(&e->dns, T1, fake_v4(203, 0, 113, 10));
    fake_dns_add_a(&e->dns, T2, fake_v4(203, 0, 113, 11));
    fake_dns_add_a(&e->dns, T3, fake_v4(203, 0, 113, 12));
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->m.current->count, 3);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 90000u);
}

static void test_ttl_above_interval_ignored(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 600);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 300000u);
}

/* Jitter = u64le(01 02 .. 08) mod (500 + 1) = 60: throttle until
 * START_MS + 1000 + 60 = 2060. */
static void test_forced_throttle_with_jitter(void **state) {
    env_t *e = *state;
    const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    memcpy(e->rng.bytes, bytes, sizeof bytes);
    r_dns_refresh_config_t cfg = {0, 1000, 500};
    env_install_two(e, &cfg, 0);
    assert_int_equal(e->rng.calls, 1);
    assert_int_equal(e->rng.last_len, 8);
    assert_int_equal(e->m.forced_not_before_ms, 2060);
    e->clock.now = 2059;
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 1);
    e->clock.now = 2060;
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 2);
    assert_int_equal(e->m.forced_not_before_ms, 2060u + 1000u + 60u);
}

/* All-ones bytes: UINT64_MAX mod 501 = 48. */
static void test_jitter_takes_rng_value(void **state) {
    env_t *e = *state;
    memset(e->rng.bytes, 0xFF, sizeof e->rng.bytes);
    r_dns_refresh_config_t cfg = {0, 1000, 500};
    env_install_two(e, &cfg, 0);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 1000u + 48u);
}

static void test_jitter_rng_failure_takes_full_jitter(void **state) {
    env_t *e = *state;
    e->rng.fail = true;
    r_dns_refresh_config_t cfg = {0, 1000, 500};
    env_install_two(e, &cfg, 0);
    assert_int_equal(e->rng.calls, 1);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 1500u);
}

static void test_no_jitter_draws_nothing(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    assert_int_equal(e->rng.calls, 0);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 1000u);
}

/* api.md: failed refreshes do not arm the pacing throttle; the next activity
 * retries at once. */
static void test_failed_first_refresh_arms_nothing(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.srv_status = 2;
    r_dns_refresh_config_t cfg = {0, 1000, 500};
    env_init(e, &cfg);
    rl_membership_start(&e->m);
    assert_null(e->m.inflight);
    assert_int_equal(e->m.forced_not_before_ms, 0);
    assert_int_equal(e->m.next_periodic_ms, 0);
    assert_int_equal(e->rng.calls, 0);
    assert_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->dns.srv_calls, 2);
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 3);
}

static void test_srv_failure_keeps_last_good(void **state) {
    env_t *e = *state;
    r_dns_refresh_config_t cfg = {0, 1000, 500};
    env_install_two(e, &cfg, 0);
    rl_snapshot_t *good = e->m.current;
    uint64_t forced = e->m.forced_not_before_ms;
    e->dns.srv_status = 2;
    e->clock.now = START_MS + 300000u;
    assert_ptr_equal(rl_membership_acquire(&e->m), good);
    assert_int_equal(e->dns.srv_calls, 2);
    assert_null(e->m.inflight);
    assert_ptr_equal(rl_membership_peek(&e->m), good);
    assert_int_equal(e->m.generation, 1);
    /* r-client.md 6.1 (Unavailable -> Discovering on a retry timer) and 9.4
     * (the forced-refresh minimum bounds repeated refresh): with a snapshot
     * to keep, the failure arms the first backoff step, the forced minimum
     * plus jitter (the zero rng bytes draw 0), for both the periodic check
     * and r_client_refresh_dns (project: docs/spec-notes.md). */
    assert_true(forced < START_MS + 300000u);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 301000u);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 301000u);
    assert_int_equal(e->rng.calls, 2);
    assert_ptr_equal(rl_membership_acquire(&e->m), good); /* not due again yet: no lookup */
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 2);
    e->clock.now = START_MS + 301000u;
    assert_ptr_equal(rl_membership_acquire(&e->m), good); /* due: retried */
    assert_int_equal(e->dns.srv_calls, 3);
}

/* Consecutive failed refreshes with a snapshot to keep double the retry
 * delay from the forced minimum (1000 ms) up to the refresh interval (10 s
 * here); a good discovery resets it (project: docs/spec-notes.md, after
 * r-client.md 6.1 "retry timer" and 9.4). */
static void test_failed_refreshes_back_off_exponentially(void **state) {
    env_t *e = *state;
    r_dns_refresh_config_t cfg = {10000, 1000, 0};
    env_install_two(e, &cfg, 0);
    rl_snapshot_t *good = e->m.current;
    e->dns.srv_status = 2;
    static const uint64_t due[] = {START_MS + 10000u, START_MS + 11000u, START_MS + 13000u, START_MS + 17000u,
                                   START_MS + 25000u, START_MS + 35000u, START_MS + 45000u};
    for (size_t i = 0; i + 1 < sizeof due / sizeof due[0]; i++) {
        e->clock.now = due[i] - 1u;
        assert_ptr_equal(rl_membership_acquire(&e->m), good);
        assert_int_equal(e->dns.srv_calls, 1 + i); /* not yet due */
        e->clock.now = due[i];
        assert_ptr_equal(rl_membership_acquire(&e->m), good);
        assert_int_equal(e->dns.srv_calls, 2 + i); /* due: one lookup, which fails */
        assert_int_equal(e->m.next_periodic_ms, due[i + 1]);
    }
    e->dns.srv_status = 0; /* DNS is back */
    e->clock.now = START_MS + 45000u;
    assert_non_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->m.generation, 2);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 55000u);
    e->dns.srv_status = 2; /* fails again: the backoff starts over at the forced minimum */
    e->clock.now = START_MS + 55000u;
    assert_non_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->m.next_periodic_ms, START_MS + 56000u);
}

static void test_addr_failures_keep_last_good(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    rl_snapshot_t *good = e->m.current;
    zone_clear(&e->dns);
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_dns_add_failure(&e->dns, T1, 2);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.addr_calls, 3);
    assert_ptr_equal(rl_membership_peek(&e->m), good);
    assert_int_equal(good->count, 2);
    assert_int_equal(e->m.generation, 1);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 1000u);
}

/* ---- a refresh in which some address lookups fail (r-client.md 6.1) ---- */

static void assert_member(const rl_snapshot_t *s, size_t i, uint64_t server_id, uint8_t last, uint16_t port) {
    assert_int_equal(s->members[i].server_id, server_id);
    assert_int_equal(s->members[i].addr.family, R_ADDR_INET);
    assert_int_equal(s->members[i].addr.addr[0], 203);
    assert_int_equal(s->members[i].addr.addr[3], last);
    assert_int_equal(s->members[i].addr.port, port);
}

/* Installed {ID1 .10:29292, ID2 .11:29293} at START_MS; the refresh due at
 * START_MS + 300000 lists both again; T2 now answers 203.0.113.21 and T1's
 * lookup is scripted by the caller. */
static void refresh_zone_two(env_t *e) {
    env_install_two(e, NULL, 0);
    zone_clear(&e->dns);
    fake_dns_add_srv(&e->dns, T2, 29293, 0);
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_dns_add_a(&e->dns, T2, fake_v4(203, 0, 113, 21));
    e->clock.now = START_MS + 300000u;
}

/* The oldest member's lookup fails: it keeps its last known address and
 * stays first in rank; the refresh is retried once the forced throttle
 * (1000 ms by default) allows. */
static void test_oldest_addr_failure_keeps_last_address(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    fake_dns_add_failure(&e->dns, T1, 2);
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_int_equal(e->dns.addr_calls, 4);
    assert_int_equal(e->m.generation, 2);
    assert_int_equal(s->count, 2);
    assert_member(s, 0, ID1, 10, 29292);
    assert_member(s, 1, ID2, 21, 29293);
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 301000u);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 301000u);
}

static void test_oldest_addr_refused_keeps_last_address(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    e->dns.refuse_host = T1;
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_int_equal(e->dns.addr_calls, 4);
    assert_int_equal(s->count, 2);
    assert_member(s, 0, ID1, 10, 29292);
    assert_member(s, 1, ID2, 21, 29293);
}

/* An answer without a usable record is no fresh address either. */
static void test_oldest_addr_without_record_keeps_last_address(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    fake_dns_add_failure(&e->dns, T1, 0); /* status 0, no record */
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_int_equal(s->count, 2);
    assert_member(s, 0, ID1, 10, 29292);
}

/* r-client.md 9.1: the SRV port is authoritative, also for a kept address. */
static void test_kept_address_takes_new_srv_port(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    e->dns.srv[1].port = 30000; /* T1 */
    fake_dns_add_failure(&e->dns, T1, 2);
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_int_equal(s->count, 2);
    assert_member(s, 0, ID1, 10, 30000);
}

/* A new member whose lookup fails has no address to keep: it is left out,
 * and the retry at the forced-throttle time adds it. */
static void test_new_member_without_address_joins_on_retry(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    fake_dns_add_a(&e->dns, T1, fake_v4(203, 0, 113, 20));
    fake_dns_add_srv(&e->dns, T3, 29294, 0);
    fake_dns_add_failure(&e->dns, T3, 2);
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_int_equal(e->m.generation, 2);
    assert_int_equal(s->count, 2);
    assert_member(s, 0, ID1, 20, 29292);
    assert_member(s, 1, ID2, 21, 29293);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 301000u);
    e->clock.now = START_MS + 300999u;
    assert_ptr_equal(rl_membership_acquire(&e->m), s); /* not yet due */
    assert_int_equal(e->dns.srv_calls, 2);
    e->dns.n_addr--; /* drop T3's failure: it now answers */
    fake_dns_add_a(&e->dns, T3, fake_v4(203, 0, 113, 22));
    e->clock.now = START_MS + 301000u;
    s = rl_membership_acquire(&e->m);
    assert_int_equal(e->dns.srv_calls, 3);
    assert_int_equal(e->m.generation, 3);
    assert_int_equal(s->count, 3);
    assert_member(s, 2, ID3, 22, 29294);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 601000u); /* complete again: the full interval */
}

/* A member whose lookup keeps failing (its zone is down while the SRV answer
 * and the other member's lookup work): each such partial refresh is a failed
 * attempt for that member, so the retries back off as a failed refresh does
 * (r-client.md 6.1: Unavailable -> Discovering on a "retry timer"; 9.4:
 * forced_refresh_min_interval_ms "bounds repeated forced refresh"; project
 * rule in docs/spec-notes.md "Runtime and fan-out under failure": doubled per
 * consecutive failure up to the refresh interval). Failed before: a retry
 * every 1000 ms for as long as the lookup failed, each one a blocking lookup
 * with the public runtime. */
static void test_partial_refreshes_back_off(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    fake_dns_add_failure(&e->dns, T1, 2);
    static const uint64_t due[] = {START_MS + 300000u, START_MS + 301000u, START_MS + 303000u, START_MS + 307000u,
                                   START_MS + 315000u};
    for (size_t i = 0; i + 1 < sizeof due / sizeof due[0]; i++) {
        e->clock.now = due[i] - 1u;
        (void)rl_membership_acquire(&e->m);
        assert_int_equal(e->dns.srv_calls, 1 + i); /* not yet due */
        e->clock.now = due[i];
        const rl_snapshot_t *s = rl_membership_acquire(&e->m);
        assert_int_equal(e->dns.srv_calls, 2 + i);
        assert_member(s, 0, ID1, 10, 29292); /* the last known address is kept */
        assert_member(s, 1, ID2, 21, 29293);
        assert_int_equal(e->m.next_periodic_ms, due[i + 1]);
    }
    e->dns.n_addr = 0; /* T1 answers again */
    fake_dns_add_a(&e->dns, T2, fake_v4(203, 0, 113, 21));
    fake_dns_add_a(&e->dns, T1, fake_v4(203, 0, 113, 20));
    e->clock.now = START_MS + 315000u;
    const rl_snapshot_t *s = rl_membership_acquire(&e->m);
    assert_member(s, 0, ID1, 20, 29292);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 615000u); /* complete: the full interval */
    assert_int_equal(e->m.failed_refreshes, 0);
}

/* Every lookup failing is a failed refresh even when each member has a
 * previous address: the old snapshot stays and nothing is armed. */
static void test_every_addr_failure_is_failed_refresh(void **state) {
    env_t *e = *state;
    refresh_zone_two(e);
    rl_snapshot_t *good = e->m.current;
    e->dns.n_addr = 0; /* neither target answers */
    assert_ptr_equal(rl_membership_acquire(&e->m), good);
    assert_int_equal(e->m.generation, 1);
    assert_int_equal(e->m.next_periodic_ms, START_MS + 301000u); /* the first backoff step */
    assert_int_equal(e->m.forced_not_before_ms, START_MS + 301000u);
}

/* Clock values near the top saturate instead of wrapping. */
static void test_deadlines_saturate(void **state) {
    env_t *e = *state;
    e->clock.now = UINT64_MAX - 10u;
    env_install_two(e, NULL, 0);
    assert_int_equal(e->m.next_periodic_ms, UINT64_MAX);
    assert_int_equal(e->m.forced_not_before_ms, UINT64_MAX);
}

#define T(f) cmocka_unit_test_setup_teardown(f, env_setup, env_teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_periodic_refresh_due_exactly),
        T(test_configured_interval_used),
        T(test_periodic_refresh_keeps_current_meanwhile),
        T(test_srv_ttl_caps_interval),
        T(test_smallest_nonzero_ttl_wins),
        T(test_ttl_above_interval_ignored),
        T(test_forced_throttle_with_jitter),
        T(test_jitter_takes_rng_value),
        T(test_jitter_rng_failure_takes_full_jitter),
        T(test_no_jitter_draws_nothing),
        T(test_failed_first_refresh_arms_nothing),
        T(test_srv_failure_keeps_last_good),
        T(test_failed_refreshes_back_off_exponentially),
        T(test_addr_failures_keep_last_good),
        T(test_oldest_addr_failure_keeps_last_address),
        T(test_oldest_addr_refused_keeps_last_address),
        T(test_oldest_addr_without_record_keeps_last_address),
        T(test_kept_address_takes_new_srv_port),
        T(test_new_member_without_address_joins_on_retry),
        T(test_partial_refreshes_back_off),
    T(test_every_addr_failure_is_failed_refresh),
        T(test_deadlines_saturate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
