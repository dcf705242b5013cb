/* SPDX-License-Identifier: MIT */
/* Unit tests for membership.c: configuration, DNS discovery (r-client.md
 * 3.1), target filtering, synchronous/asynchronous/late answers and the
 * query lifetime after release. Pacing is in test_membership_refresh.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "membership_env.h"

/* ---- configuration --------------------------------------------------- */

static void test_init_dns_builds_srv_name(void **state) {
    env_t *e = *state;
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    assert_int_equal(rl_membership_init_dns(&e->m, "c-7.p0.ratelimitly.com.", &ops, NULL, NULL, fake_now_ms,
                                            &e->clock, NULL, NULL),
                     RCLIENT_OK);
    assert_string_equal(e->m.srv_name, "_ratelimitly._udp.c-7.p0.ratelimitly.com");
    assert_int_equal(rl_membership_init_dns(&e->m, "ratelimitly.example.com", &ops, NULL, NULL, fake_now_ms,
                                            &e->clock, NULL, NULL),
                     RCLIENT_OK);
    assert_string_equal(e->m.srv_name, "_ratelimitly._udp.ratelimitly.example.com");
    assert_false(e->m.explicit_servers);
    assert_null(e->m.current);
    assert_null(e->m.inflight);
}

/* A name of n bytes ('a' with a dot after every 63 bytes: labels of 63,
 * the RFC 1035 maximum), plus a trailing dot when asked. */
static void make_name(char *out, size_t n, bool trailing_dot) {
    memset(out, 'a', n);
    for (size_t i = 63; i < n; i += 64) {
        out[i] = '.';
    }
    if (trailing_dot) {
        out[n++] = '.';
    }
    out[n] = '\0';
}

/* The 253-byte limit is the SRV query name's (RFC 1035 3.1): a 235-byte
 * tenant name gives "_ratelimitly._udp." (18) + 235 = 253 bytes. */
static void test_init_dns_accepts_longest_name(void **state) {
    env_t *e = *state;
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    char name[240];
    make_name(name, 235, false);
    assert_int_equal(rl_membership_init_dns(&e->m, name, &ops, NULL, NULL, fake_now_ms, NULL, NULL, NULL), RCLIENT_OK);
    assert_false(e->m.unresolvable);
    assert_int_equal(strlen(e->m.srv_name), 253);
    make_name(name, 235, true);
    assert_int_equal(rl_membership_init_dns(&e->m, name, &ops, NULL, NULL, fake_now_ms, NULL, NULL, NULL), RCLIENT_OK);
    assert_false(e->m.unresolvable);
    assert_int_equal(strlen(e->m.srv_name), 253);
}

/* Initialise with dns_name and check it is accepted as unresolvable: an
 * error logged, no lookup started now or by activity, no snapshot ever. */
static void assert_unresolvable(env_t *e, const char *dns_name) {
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    e->dns.srv_mode = FAKE_AT_ONCE;
    assert_int_equal(rl_membership_init_dns(&e->m, dns_name, &ops, NULL, NULL, fake_now_ms, &e->clock, fake_log,
                                            &e->log),
                     RCLIENT_OK);
    assert_true(e->m.unresolvable);
    assert_int_equal(e->log.count[R_LOG_ERROR], 1);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->dns.srv_calls, 0);
    assert_null(e->m.inflight);
}

/* api.md "Errors": an over-long tenant DNS name is RCLIENT_ERR_DNS at
 * submit, not a configuration error. 236 bytes: a 254-byte query name. */
static void test_init_dns_name_over_235_bytes_is_unresolvable(void **state) {
    env_t *e = *state;
    char name[240];
    make_name(name, 236, false);
    assert_unresolvable(e, name);
}

static void test_init_dns_name_over_235_bytes_with_dot_is_unresolvable(void **state) {
    env_t *e = *state;
    char name[240];
    make_name(name, 236, true);
    assert_unresolvable(e, name);
}

static void test_init_dns_label_over_63_bytes_is_unresolvable(void **state) {
    env_t *e = *state;
    char name[80];
    memset(name, 'a', 64);
    strcpy(name + 64, ".example");
    assert_unresolvable(e, name);
}

static void test_init_dns_label_of_63_bytes_is_resolvable(void **state) {
    env_t *e = *state;
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    char name[80];
    memset(name, 'a', 63);
    strcpy(name + 63, ".example");
    assert_int_equal(rl_membership_init_dns(&e->m, name, &ops, NULL, NULL, fake_now_ms, NULL, NULL, NULL), RCLIENT_OK);
    assert_false(e->m.unresolvable);
    assert_int_equal(strlen(e->m.srv_name), 18 + 63 + 8);
}

/* Malformed names are invalid arguments (api.md "Errors": RCLIENT_ERR_CONFIG). */
static void test_init_dns_rejects_bad_names(void **state) {
    env_t *e = *state;
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    char long_bad[300];
    make_name(long_bad, 290, false);
    long_bad[200] = ' '; /* malformed wins over over-long */
    const char *bad[] = {"", ".", "..", "a..b", ".a", "a..", "a b", "a\tb", "caf\xc3\xa9.com", long_bad};
    e->m.generation = 77; /* untouched on failure */
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(rl_membership_init_dns(&e->m, bad[i], &ops, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                         RCLIENT_ERR_CONFIG);
    }
    assert_int_equal(rl_membership_init_dns(&e->m, NULL, &ops, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(e->m.generation, 77);
}

static void test_init_dns_rejects_missing_hooks(void **state) {
    env_t *e = *state;
    r_resolver_ops_t no_srv = {&e->dns, NULL, fake_resolve_addr};
    r_resolver_ops_t no_addr = {&e->dns, fake_resolve_srv, NULL};
    r_resolver_ops_t ok = fake_dns_ops(&e->dns);
    const char *name = "ratelimitly.example.com";
    e->m.generation = 77;
    assert_int_equal(rl_membership_init_dns(&e->m, name, NULL, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_dns(&e->m, name, &no_srv, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_dns(&e->m, name, &no_addr, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_dns(&e->m, name, &ok, NULL, NULL, NULL, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_dns(NULL, name, &ok, NULL, NULL, fake_now_ms, NULL, NULL, NULL),
                     RCLIENT_ERR_CONFIG);
    assert_int_equal(e->m.generation, 77);
}

/* r-client.md 9.4: zero selects each default. */
static void test_init_dns_applies_defaults(void **state) {
    env_t *e = *state;
    r_dns_refresh_config_t zero = {0, 0, 0};
    env_init(e, &zero);
    assert_int_equal(e->m.refresh_interval_ms, 300000);
    assert_int_equal(e->m.forced_min_interval_ms, 1000);
    assert_int_equal(e->m.forced_jitter_ms, 0);
    r_dns_refresh_config_t set = {60000, 2500, 700};
    env_init(e, &set);
    assert_int_equal(e->m.refresh_interval_ms, 60000);
    assert_int_equal(e->m.forced_min_interval_ms, 2500);
    assert_int_equal(e->m.forced_jitter_ms, 700);
    env_init(e, NULL);
    assert_int_equal(e->m.refresh_interval_ms, 300000);
    assert_int_equal(e->m.forced_min_interval_ms, 1000);
}

static r_server_endpoint_t endpoint(uint64_t server_id, uint8_t family, uint16_t port) {
    r_server_endpoint_t ep;
    memset(&ep, 0, sizeof ep);
    ep.server_id = server_id;
    ep.addr.family = family;
    ep.addr.port = port;
    ep.addr.addr[0] = 10;
    return ep;
}

static void test_explicit_rejects_bad_endpoints(void **state) {
    env_t *e = *state;
    r_server_endpoint_t good = endpoint(5, R_ADDR_INET, 29292);
    r_server_endpoint_t bad_family[2] = {good, endpoint(6, 5, 29292)};
    r_server_endpoint_t no_family[2] = {good, endpoint(6, 0, 29292)};
    r_server_endpoint_t no_port[2] = {good, endpoint(6, R_ADDR_INET6, 0)};
    e->m.generation = 77;
    assert_int_equal(rl_membership_init_explicit(&e->m, bad_family, 2), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(&e->m, no_family, 2), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(&e->m, no_port, 2), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(&e->m, NULL, 1), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(&e->m, &good, 0), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(NULL, &good, 1), RCLIENT_ERR_CONFIG);
    assert_int_equal(e->m.generation, 77);
}

/* One request fans out to every member: explicit lists share the DNS cap. */
static void test_explicit_member_cap(void **state) {
    env_t *e = *state;
    r_server_endpoint_t eps[RL_MAX_MEMBERS + 1];
    for (size_t i = 0; i <= RL_MAX_MEMBERS; i++) {
        eps[i] = endpoint(100 + i, R_ADDR_INET, 29292);
    }
    assert_int_equal(rl_membership_init_explicit(&e->m, eps, RL_MAX_MEMBERS + 1), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_init_explicit(&e->m, eps, RL_MAX_MEMBERS), RCLIENT_OK);
    assert_int_equal(rl_membership_peek(&e->m)->count, RL_MAX_MEMBERS);
}

/* r-client.md 3.1 item 3: fixed, sorted, never refreshed. */
static void test_explicit_installs_fixed_snapshot(void **state) {
    env_t *e = *state;
    r_server_endpoint_t eps[3] = {endpoint(30, R_ADDR_INET6, 3000), endpoint(10, R_ADDR_INET, 1000),
                                  endpoint(20, R_ADDR_INET, 2000)};
    assert_int_equal(rl_membership_init_explicit(&e->m, eps, 3), RCLIENT_OK);
    assert_true(e->m.explicit_servers);
    assert_int_equal(e->m.generation, 1);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->count, 3);
    assert_int_equal(s->members[0].server_id, 10);
    assert_int_equal(s->members[0].addr.port, 1000);
    assert_int_equal(s->members[2].server_id, 30);
    assert_int_equal(s->members[2].addr.family, R_ADDR_INET6);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_ERR_CONFIG);
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_ERR_CONFIG);
    e->clock.now = UINT64_MAX;
    assert_ptr_equal(rl_membership_acquire(&e->m), s);
    assert_int_equal(e->m.generation, 1);
}

/* ---- discovery -------------------------------------------------------- */

static void test_sync_resolver_installs_during_start(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    assert_string_equal(e->dns.srv_name, "_ratelimitly._udp.ratelimitly.example.com");
    assert_int_equal(e->dns.srv_calls, 1);
    assert_int_equal(e->dns.addr_calls, 2);
    assert_null(e->m.inflight);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_int_equal(s->count, 2);
    assert_int_equal(s->members[0].server_id, ID1);
    assert_int_equal(s->members[0].addr.family, R_ADDR_INET);
    assert_int_equal(s->members[0].addr.addr[3], 10);
    assert_int_equal(s->members[0].addr.port, 29292);
    assert_int_equal(s->members[1].server_id, ID2);
    assert_int_equal(s->members[1].addr.addr[3], 11);
    assert_int_equal(s->members[1].addr.port, 29293);
}

static void test_async_answers_install_when_last_arrives(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 1);
    assert_non_null(e->m.inflight);
    assert_null(rl_membership_peek(&e->m));
    fake_dns_answer_srv(&e->dns, 0);
    assert_int_equal(e->dns.addr_calls, 2);
    assert_string_equal(e->dns.addr_host[0], T2);
    assert_string_equal(e->dns.addr_host[1], T1);
    fake_dns_answer_addr(&e->dns, 1);
    assert_null(rl_membership_peek(&e->m));
    assert_non_null(e->m.inflight);
    fake_dns_answer_addr(&e->dns, 0);
    assert_null(e->m.inflight);
    assert_int_equal(e->m.generation, 1);
    assert_int_equal(rl_membership_peek(&e->m)->count, 2);
    assert_int_equal(rl_membership_peek(&e->m)->members[1].server_id, ID2);
}

/* Synchronous SRV answer, asynchronous address answers. */
static void test_sync_srv_async_addr(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.addr_calls, 2);
    assert_non_null(e->m.inflight);
    fake_dns_answer_addr(&e->dns, 0);
    fake_dns_answer_addr(&e->dns, 1);
    assert_null(e->m.inflight);
    assert_int_equal(rl_membership_peek(&e->m)->count, 2);
}

/* The names handed to resolve_* are owned by the query, not by the host's
 * borrowed SRV records. */
static void test_lookup_names_outlive_srv_records(void **state) {
    env_t *e = *state;
    char target[] = T1;
    fake_dns_add_srv(&e->dns, target, 29292, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    fake_dns_answer_srv(&e->dns, 0);
    assert_int_equal(e->dns.addr_calls, 1);
    memset(target, 'x', sizeof target - 1);
    assert_string_equal(e->dns.addr_host_ptr[0], T1);
}

static void test_non_conforming_targets_skipped(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->log.needle = "is not s-<server_id>";
    fake_dns_add_srv(&e->dns, "web.example.com.", 29292, 0);
    fake_dns_add_srv(&e->dns, "s-010.example.com.", 29292, 0);
    fake_dns_add_srv(&e->dns, "s-10.example.com.", 29292, 0);
    fake_dns_add_srv(&e->dns, "s-12a.example.com.", 29292, 0);
    fake_dns_add_srv(&e->dns, NULL, 29292, 0);
    fake_dns_add_srv(&e->dns, "s-11.example.com.", 0, 0); /* port 0 */
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, 1);
    assert_string_equal(e->dns.addr_host[0], "s-10.example.com.");
    assert_int_equal(e->log.needle_hits, 4);
    assert_int_equal(e->log.count[R_LOG_WARN], 5);
}

static void test_all_non_conforming_leaves_no_snapshot(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, "rl1.example.com.", 29292, 60);
    fake_dns_add_srv(&e->dns, "x-1015809.example.com.", 29292, 60);
    env_init(e, NULL);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.addr_calls, 0);
    assert_null(e->m.inflight);
    assert_null(rl_membership_acquire(&e->m)); /* the next activity retries at once */
    assert_int_equal(e->dns.srv_calls, 2);
    assert_int_equal(e->m.generation, 0);
}

static void test_empty_srv_answer_is_failure(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, 0);
    assert_null(e->m.inflight);
    assert_null(rl_membership_peek(&e->m));
}

static void test_duplicate_server_id_keeps_first_target(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, "s-10.a.example.com.", 1111, 0);
    fake_dns_add_srv(&e->dns, "S-10.b.example.com.", 2222, 0);
    fake_dns_add_a(&e->dns, "s-10.a.example.com.", fake_v4(192, 0, 2, 1));
    fake_dns_add_a(&e->dns, "S-10.b.example.com.", fake_v4(192, 0, 2, 2));
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, 1);
    assert_string_equal(e->dns.addr_host[0], "s-10.a.example.com.");
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_int_equal(s->count, 1);
    assert_int_equal(s->members[0].addr.port, 1111);
    assert_int_equal(s->members[0].addr.addr[3], 1);
}

static void test_member_cap(void **state) {
    env_t *e = *state;
    static char names[70][32];
    e->dns.srv_mode = FAKE_AT_ONCE;
    for (unsigned i = 0; i < 70; i++) {
        snprintf(names[i], sizeof names[i], "s-%u.example.com.", i + 1);
        fake_dns_add_srv(&e->dns, names[i], 29292, 0);
    }
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, RL_MAX_MEMBERS);
    assert_string_equal(e->dns.addr_host[RL_MAX_MEMBERS - 1], "s-64.example.com.");
}

static void test_first_usable_address_record(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_addr_script_t *a = &e->dns.addr[e->dns.n_addr++];
    a->host = T1;
    a->n = 3;
    a->records[0].addr.family = 0; /* unusable */
    a->records[1].addr.family = R_ADDR_INET6;
    a->records[1].addr.addr[0] = 0x20;
    a->records[1].addr.addr[1] = 0x01;
    a->records[1].addr.addr[15] = 0x07;
    a->records[1].addr.port = 53; /* ignored: the SRV port is authoritative */
    a->records[2].addr = fake_v4(203, 0, 113, 10);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->members[0].addr.family, R_ADDR_INET6);
    assert_int_equal(s->members[0].addr.addr[0], 0x20);
    assert_int_equal(s->members[0].addr.addr[15], 0x07);
    assert_int_equal(s->members[0].addr.port, 29292);
}

static void test_ipv4_unused_bytes_zeroed(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    r_addr_t junk = fake_v4(203, 0, 113, 10);
    memset(junk.addr + 4, 0xEE, 12);
    fake_dns_add_a(&e->dns, T1, junk);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->members[0].addr.addr[3], 10);
    assert_int_equal(s->members[0].addr.addr[4], 0);
    assert_int_equal(s->members[0].addr.addr[15], 0);
}

static void test_addr_failure_one_of_two(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_dns_add_srv(&e->dns, T2, 29293, 0);
    fake_dns_add_failure(&e->dns, T1, 2);
    fake_dns_add_a(&e->dns, T2, fake_v4(203, 0, 113, 11));
    env_init(e, NULL);
    rl_membership_start(&e->m);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->count, 1);
    assert_int_equal(s->members[0].server_id, ID2);
}

static void test_addr_refused_one_of_two(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_AT_ONCE;
    e->dns.refuse_host = T2;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, 2);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->count, 1);
    assert_int_equal(s->members[0].server_id, ID1);
}

static void test_every_addr_refused_is_failure(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_AT_ONCE;
    e->dns.addr_mode = FAKE_REFUSE;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.addr_calls, 2);
    assert_null(e->m.inflight);
    assert_null(rl_membership_peek(&e->m));
}

static void test_srv_refused_is_failure(void **state) {
    env_t *e = *state;
    e->dns.srv_mode = FAKE_REFUSE;
    env_init(e, NULL);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_null(e->m.inflight);
    assert_null(rl_membership_acquire(&e->m));
    assert_int_equal(e->dns.srv_calls, 2);
}

/* Host bug tolerated: resolve_* answered synchronously yet reported that it
 * could not start. The answer counts; the refusal must not count again. */
static void test_answered_then_refused_counts_once(void **state) {
    env_t *e = *state;
    e->dns.fail_after_answer = true;
    env_install_two(e, NULL, 0);
    assert_null(e->m.inflight);
    assert_int_equal(rl_membership_peek(&e->m)->count, 2);
}

static void test_only_one_discovery_in_flight(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    rl_discovery_t *first = e->m.inflight;
    assert_non_null(first);
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    assert_null(rl_membership_acquire(&e->m));
    assert_int_equal(rl_membership_refresh(&e->m), RCLIENT_OK);
    assert_int_equal(e->dns.srv_calls, 1);
    assert_ptr_equal(e->m.inflight, first);
}

/* ---- answers: duplicates, wrong kind, after release ------------------- */

static void test_second_answer_ignored_while_waiting(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    fake_dns_answer_srv(&e->dns, 0);
    r_client_dns_srv_done(e->dns.srv_q[0], 0, e->dns.srv, e->dns.n_srv); /* SRV again */
    assert_int_equal(e->dns.addr_calls, 2);
    fake_dns_answer_addr(&e->dns, 0);
    r_client_dns_addr_done(e->dns.addr_q[0], 2, NULL, 0); /* T2 again, now failing */
    assert_non_null(e->m.inflight);
    assert_null(rl_membership_peek(&e->m));
    fake_dns_answer_addr(&e->dns, 1);
    const rl_snapshot_t *s = rl_membership_peek(&e->m);
    assert_non_null(s);
    assert_int_equal(s->count, 2);
    assert_int_equal(s->members[1].addr.addr[3], 11); /* T2 kept its first answer */
}

static void test_answer_of_wrong_kind_ignored(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    r_client_dns_addr_done(e->dns.srv_q[0], 0, NULL, 0);
    r_client_dns_srv_done(NULL, 0, NULL, 0);
    r_client_dns_addr_done(NULL, 0, NULL, 0);
    assert_non_null(e->m.inflight);
    fake_dns_answer_srv(&e->dns, 0);
    r_client_dns_srv_done(e->dns.addr_q[0], 0, e->dns.srv, e->dns.n_srv);
    assert_int_equal(e->dns.addr_calls, 2);
    fake_dns_answer_addr(&e->dns, 0);
    fake_dns_answer_addr(&e->dns, 1);
    assert_int_equal(rl_membership_peek(&e->m)->count, 2);
}

/* The host answers after release: nothing is installed, nothing leaks. */
static void test_addr_answers_after_release_ignored(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    fake_dns_answer_srv(&e->dns, 0);
    fake_dns_answer_addr(&e->dns, 0);
    rl_membership_release(&e->m);
    assert_null(e->m.inflight);
    fake_dns_answer_addr(&e->dns, 1);
    assert_null(rl_membership_peek(&e->m));
    assert_int_equal(e->m.generation, 0);
}

static void test_srv_answer_after_release_starts_nothing(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    rl_membership_release(&e->m);
    fake_dns_answer_srv(&e->dns, 0);
    assert_int_equal(e->dns.addr_calls, 0);
    assert_null(rl_membership_peek(&e->m));
}

/* A discovery outlives its membership and a new one runs alongside. */
static void test_release_then_reinit_with_old_queries_pending(void **state) {
    env_t *e = *state;
    zone_two(&e->dns, 0);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    fake_dns_answer_srv(&e->dns, 0);
    rl_membership_release(&e->m);
    env_init(e, NULL);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.srv_calls, 2);
    fake_dns_answer_addr(&e->dns, 0); /* old discovery */
    fake_dns_answer_addr(&e->dns, 1);
    assert_null(rl_membership_peek(&e->m));
    fake_dns_answer_srv(&e->dns, 1);
    fake_dns_answer_addr(&e->dns, 2);
    fake_dns_answer_addr(&e->dns, 3);
    assert_int_equal(rl_membership_peek(&e->m)->count, 2);
    assert_int_equal(e->m.generation, 1);
}

static void test_release_twice_is_harmless(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    rl_membership_release(&e->m);
    rl_membership_release(&e->m);
    assert_null(rl_membership_peek(&e->m));
}

/* r-client.md 9: a holder of the old snapshot keeps it across a change. */
static void test_change_keeps_old_snapshot_alive(void **state) {
    env_t *e = *state;
    env_install_two(e, NULL, 0);
    rl_snapshot_t *old = e->m.current;
    rl_snapshot_ref(old);
    zone_clear(&e->dns);
    fake_dns_add_srv(&e->dns, T3, 29294, 0);
    fake_dns_add_srv(&e->dns, T1, 29292, 0);
    fake_dns_add_a(&e->dns, T1, fake_v4(203, 0, 113, 10));
    fake_dns_add_a(&e->dns, T3, fake_v4(203, 0, 113, 12));
    assert_int_equal(rl_membership_start(&e->m), RCLIENT_OK);
    const rl_snapshot_t *now = rl_membership_peek(&e->m);
    assert_ptr_not_equal(now, old);
    assert_int_equal(e->m.generation, 2);
    assert_int_equal(now->count, 2);
    assert_int_equal(now->members[1].server_id, ID3);
    assert_int_equal(rl_snapshot_rank(now, ID2), -1);
    assert_int_equal(old->refcount, 1);
    assert_int_equal(old->count, 2);
    assert_int_equal(old->members[1].server_id, ID2);
    rl_snapshot_unref(old);
}

static void test_no_log_hook(void **state) {
    env_t *e = *state;
    r_resolver_ops_t ops = fake_dns_ops(&e->dns);
    e->dns.srv_mode = FAKE_AT_ONCE;
    fake_dns_add_srv(&e->dns, "web.example.com.", 29292, 0);
    assert_int_equal(rl_membership_init_dns(&e->m, "example.com", &ops, NULL, NULL, fake_now_ms, &e->clock, NULL,
                                            NULL),
                     RCLIENT_OK);
    rl_membership_start(&e->m);
    assert_int_equal(e->dns.srv_calls, 1);
    assert_null(rl_membership_peek(&e->m));
}

#define T(f) cmocka_unit_test_setup_teardown(f, env_setup, env_teardown)

int main(void) {
    const struct CMUnitTest tests[] = {
        T(test_init_dns_builds_srv_name),
        T(test_init_dns_accepts_longest_name),
        T(test_init_dns_name_over_235_bytes_is_unresolvable),
        T(test_init_dns_name_over_235_bytes_with_dot_is_unresolvable),
        T(test_init_dns_label_over_63_bytes_is_unresolvable),
        T(test_init_dns_label_of_63_bytes_is_resolvable),
        T(test_init_dns_rejects_bad_names),
        T(test_init_dns_rejects_missing_hooks),
        T(test_init_dns_applies_defaults),
        T(test_explicit_rejects_bad_endpoints),
        T(test_explicit_member_cap),
        T(test_explicit_installs_fixed_snapshot),
        T(test_sync_resolver_installs_during_start),
        T(test_async_answers_install_when_last_arrives),
        T(test_sync_srv_async_addr),
        T(test_lookup_names_outlive_srv_records),
        T(test_non_conforming_targets_skipped),
        T(test_all_non_conforming_leaves_no_snapshot),
        T(test_empty_srv_answer_is_failure),
        T(test_duplicate_server_id_keeps_first_target),
        T(test_member_cap),
        T(test_first_usable_address_record),
        T(test_ipv4_unused_bytes_zeroed),
        T(test_addr_failure_one_of_two),
        T(test_addr_refused_one_of_two),
        T(test_every_addr_refused_is_failure),
        T(test_srv_refused_is_failure),
        T(test_answered_then_refused_counts_once),
        T(test_only_one_discovery_in_flight),
        T(test_second_answer_ignored_while_waiting),
        T(test_answer_of_wrong_kind_ignored),
        T(test_addr_answers_after_release_ignored),
        T(test_srv_answer_after_release_starts_nothing),
        T(test_release_then_reinit_with_old_queries_pending),
        T(test_release_twice_is_harmless),
        T(test_change_keeps_old_snapshot_alive),
        T(test_no_log_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
