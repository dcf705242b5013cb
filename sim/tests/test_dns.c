/* SPDX-License-Identifier: MIT */
/* Unit tests for sim_dns.c. The consumer of the answers is the real client
 * core (public API): clients are created at exact simulated times, their DNS
 * discovery runs against the model, and r_client_server_count shows what
 * they installed; the event log shows when each answer came. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_dns.h"

/* A published format-v1 rl-none key (shared/external/public_api_key.json). */
#define KEY "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys"
#define ZONE "rl.sim.example"
#define SRV_NAME "_ratelimitly._udp." ZONE
#define T1 "s-1015809." ZONE "."
#define T2 "s-1048578." ZONE "."
#define T3 "s-2000000." ZONE "."
#define LAT 100u
#define TMO 3000u
#define T0_MS 1767225600000ull
#define FAILED "18446744073709551615"
#define MAX_CLIENTS 4

typedef struct {
    sim_engine_t engine;
    FILE *text;
    sim_log_t *log;
    sim_dns_t *dns;
    r_client_t *client[MAX_CLIENTS];
    const char *zone[MAX_CLIENTS]; /* tenant DNS name per client */
    uint64_t rng_counter;
    bool wrap;                     /* client 0 uses the capturing resolver below */
    r_resolver_ops_t inner;
    char addr_names[8][SIM_DNS_NAME_MAX];
    size_t n_addr_names;
} env_t;

static uint64_t io_now_ms(void *ctx) {
    env_t *e = ctx;
    return T0_MS + sim_engine_now(&e->engine) / SIM_US_PER_MS;
}

static int io_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return 0;
}

static int io_random(void *ctx, uint8_t *buf, size_t len) {
    env_t *e = ctx;
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(e->rng_counter++);
    }
    return 0;
}

/* Forwards to the model, recording every A/AAAA host name the core asks for. */
static int wrap_srv(void *ctx, const char *name, r_dns_query_t *q) {
    env_t *e = ctx;
    return e->inner.resolve_srv(e->inner.ctx, name, q);
}

static int wrap_addr(void *ctx, const char *host, r_dns_query_t *q) {
    env_t *e = ctx;
    if (e->n_addr_names < 8) {
        snprintf(e->addr_names[e->n_addr_names++], SIM_DNS_NAME_MAX, "%s", host);
    }
    return e->inner.resolve_addr(e->inner.ctx, host, q);
}

static void create_client(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    env_t *e = ctx;
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.dns_name = e->zone[arg] != NULL ? e->zone[arg] : ZONE;
    cfg.tenant.auth.secret = KEY;
    r_io_ops_t io = {.ctx = e, .udp_send = io_send, .now_ms = io_now_ms, .random = io_random};
    r_resolver_ops_t res = sim_dns_resolver(e->dns, (uint32_t)arg);
    if (arg == 0 && e->wrap) {
        e->inner = res;
        r_resolver_ops_t w = {e, wrap_srv, wrap_addr};
        res = w;
    }
    assert_int_equal(r_client_create(&cfg, &io, &res, &e->client[arg]), RCLIENT_OK);
}

static void env_open(env_t *e, const char *srv_name) {
    assert_int_equal(sim_engine_init(&e->engine), 0);
    e->text = tmpfile();
    assert_non_null(e->text);
    e->log = sim_log_new(e->text);
    assert_non_null(e->log);
    e->dns = sim_dns_new(&e->engine, e->log, srv_name, LAT, TMO);
    assert_non_null(e->dns);
}

static int setup(void **state) {
    env_t *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return -1;
    }
    env_open(e, SRV_NAME);
    *state = e;
    return 0;
}

/* Clients first, then the owed answers (the core's detached discoveries
 * free themselves on them: ASan checks), then the model. */
static int teardown(void **state) {
    env_t *e = *state;
    for (int i = 0; i < MAX_CLIENTS; i++) {
        r_client_destroy(e->client[i]);
    }
    sim_dns_flush(e->dns);
    sim_dns_free(e->dns);
    sim_log_free(e->log);
    fclose(e->text);
    sim_engine_free(&e->engine);
    free(e);
    return 0;
}

static sim_dns_record_t rec(const char *target, uint8_t host, bool has_addr) {
    sim_dns_record_t r;
    memset(&r, 0, sizeof r);
    snprintf(r.target, sizeof r.target, "%s", target);
    r.port = 29292;
    r.ttl_s = 60;
    r.has_addr = has_addr;
    r.addr.family = R_ADDR_INET;
    r.addr.addr[0] = 10;
    r.addr.addr[3] = host;
    return r;
}

static void add_epoch(env_t *e, sim_time_t from, sim_dns_mode_t mode, sim_dns_record_t *records, size_t n) {
    sim_dns_epoch_t ep = {from, mode, records, n};
    assert_int_equal(sim_dns_add_epoch(e->dns, &ep), 0);
}

static void client_at(env_t *e, sim_time_t at, uint64_t index) {
    assert_int_equal(sim_engine_schedule(&e->engine, at, SIM_CLASS_WORKLOAD, create_client, e, index, NULL), 0);
}

static void log_text(env_t *e, char *buf, size_t cap) {
    memset(buf, 0, cap);
    fflush(e->text);
    rewind(e->text);
    (void)fread(buf, 1, cap - 1u, e->text);
}

static void run_all(env_t *e) { (void)sim_engine_run(&e->engine, UINT64_MAX); }

/* ---- epochs ------------------------------------------------------------------- */

static void test_epoch_switch_at_exact_time(void **state) {
    env_t *e = *state;
    sim_dns_record_t two[2] = {rec(T1, 1, true), rec(T2, 2, true)};
    sim_dns_record_t three[3] = {rec(T1, 1, true), rec(T2, 2, true), rec(T3, 3, true)};
    add_epoch(e, 0, SIM_DNS_OK, two, 2);
    add_epoch(e, 5000, SIM_DNS_OK, three, 3);
    client_at(e, 4999, 0);
    client_at(e, 5000, 1);
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 2);
    assert_int_equal(r_client_server_count(e->client[1]), 3);
    char buf[512];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "5099 dns 0 1 2\n5100 dns 1 1 3\n"
                             "5199 dns 0 2 1\n5199 dns 0 2 1\n"
                             "5200 dns 1 2 1\n5200 dns 1 2 1\n5200 dns 1 2 1\n");
    assert_int_equal(sim_dns_stats(e->dns)->srv_queries, 2);
    assert_int_equal(sim_dns_stats(e->dns)->addr_queries, 5);
}

static void test_fail_epoch_after_latency(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_FAIL, one, 1);
    client_at(e, 0, 0);
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 " FAILED "\n");
    assert_int_equal(r_client_server_count(e->client[0]), 0);
    assert_int_equal(sim_dns_stats(e->dns)->failures, 1);
    assert_int_equal(sim_dns_stats(e->dns)->timeouts, 0);
}

static void test_timeout_epoch_after_timeout(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_TIMEOUT, one, 1);
    client_at(e, 0, 0);
    assert_int_equal(sim_engine_run(&e->engine, TMO - 1u), 1); /* the creation only */
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "3000 dns 0 1 " FAILED "\n");
    assert_int_equal(r_client_server_count(e->client[0]), 0);
    assert_int_equal(sim_dns_stats(e->dns)->timeouts, 1);
    assert_int_equal(sim_dns_stats(e->dns)->failures, 0);
}

static void refresh_client(void *ctx, uint64_t arg, void *ptr) {
    (void)ptr;
    env_t *e = ctx;
    assert_int_equal(r_client_refresh_dns(e->client[arg]), RCLIENT_OK);
}

/* An outage ends: a refresh after the OK epoch starts installs the servers. */
static void test_recovers_after_outage(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_FAIL, NULL, 0);
    add_epoch(e, 2000, SIM_DNS_OK, one, 1);
    client_at(e, 0, 0);
    assert_int_equal(sim_engine_schedule(&e->engine, 3000, SIM_CLASS_TIMER, refresh_client, e, 0, NULL), 0);
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 1);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 " FAILED "\n3100 dns 0 1 1\n3200 dns 0 2 1\n");
}

static void test_before_first_epoch_empty(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 1000, SIM_DNS_OK, one, 1);
    client_at(e, 0, 0);
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 0\n");
    assert_int_equal(r_client_server_count(e->client[0]), 0);
    assert_int_equal(sim_dns_stats(e->dns)->empty_answers, 1);
}

static void test_other_srv_name_empty(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_OK, one, 1);
    e->zone[0] = "other.example";
    client_at(e, 0, 0);
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 0\n");
    assert_int_equal(r_client_server_count(e->client[0]), 0);
    assert_int_equal(sim_dns_stats(e->dns)->addr_queries, 0);
}

/* srv_name compares ASCII case-insensitively with the trailing dot ignored. */
static void test_srv_name_case_and_dot(void **state) {
    env_t *e = *state;
    sim_dns_free(e->dns);
    e->dns = sim_dns_new(&e->engine, e->log, "_RATELIMITLY._udp.RL.sim.example.", LAT, TMO);
    assert_non_null(e->dns);
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_OK, one, 1);
    client_at(e, 0, 0);
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 1);
}

static void test_no_addr_target_answers_empty(void **state) {
    env_t *e = *state;
    sim_dns_record_t two[2] = {rec(T1, 1, true), rec(T2, 2, false)};
    add_epoch(e, 0, SIM_DNS_OK, two, 2);
    client_at(e, 0, 0);
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 1);
    assert_int_equal(sim_dns_stats(e->dns)->addr_queries, 2);
    assert_int_equal(sim_dns_stats(e->dns)->empty_answers, 1);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 2\n200 dns 0 2 1\n200 dns 0 2 0\n");
}

/* The SRV answer uses the epoch of its query time; the A/AAAA lookups that
 * follow see the next epoch, where T2 is an unknown host: empty. */
static void test_unknown_host_after_switch(void **state) {
    env_t *e = *state;
    sim_dns_record_t two[2] = {rec(T1, 1, true), rec(T2, 2, true)};
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_OK, two, 2);
    add_epoch(e, LAT, SIM_DNS_OK, one, 1);
    client_at(e, 0, 0);
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 2\n200 dns 0 2 1\n200 dns 0 2 0\n");
    assert_int_equal(r_client_server_count(e->client[0]), 1);
}

/* Targets reach the core verbatim: it skips the non-conforming one and asks
 * for the others under the exact spelling of the record. */
static void test_nonconforming_target_verbatim(void **state) {
    env_t *e = *state;
    sim_dns_record_t recs[3] = {rec(T1, 1, true), rec("web." ZONE, 9, true), rec("S-1048578.RL.SIM.EXAMPLE", 2, true)};
    add_epoch(e, 0, SIM_DNS_OK, recs, 3);
    e->wrap = true;
    client_at(e, 0, 0);
    run_all(e);
    assert_int_equal(e->n_addr_names, 2);
    assert_string_equal(e->addr_names[0], T1);
    assert_string_equal(e->addr_names[1], "S-1048578.RL.SIM.EXAMPLE");
    assert_int_equal(r_client_server_count(e->client[0]), 2);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 0 1 3\n200 dns 0 2 1\n200 dns 0 2 1\n");
}

/* ---- flush, hooks, epochs API ------------------------------------------------- */

/* The client is gone while its SRV lookup is owed: flush answers it (the
 * detached discovery frees itself, ASan checks); the late event answers nothing. */
static void test_flush_after_destroy(void **state) {
    env_t *e = *state;
    add_epoch(e, 0, SIM_DNS_TIMEOUT, NULL, 0);
    client_at(e, 0, 0);
    assert_int_equal(sim_engine_run(&e->engine, 500), 1);
    r_client_destroy(e->client[0]);
    e->client[0] = NULL;
    sim_dns_flush(e->dns);
    assert_int_equal(sim_log_count(e->log), 1);
    run_all(e);
    assert_int_equal(sim_log_count(e->log), 1);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "0 dns 0 1 " FAILED "\n");
    assert_int_equal(sim_dns_stats(e->dns)->timeouts, 0);
}

static void test_flush_live_client(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 0, SIM_DNS_OK, one, 1);
    client_at(e, 0, 0);
    assert_int_equal(sim_engine_run(&e->engine, 50), 1);
    sim_dns_flush(e->dns);
    sim_dns_flush(e->dns); /* nothing owed: no second answer */
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 0);
    assert_int_equal(sim_log_count(e->log), 1);
    assert_int_equal(sim_dns_stats(e->dns)->addr_queries, 0);
}

static void test_resolver_ctx_per_client(void **state) {
    env_t *e = *state;
    r_resolver_ops_t a = sim_dns_resolver(e->dns, 3);
    r_resolver_ops_t b = sim_dns_resolver(e->dns, 3);
    r_resolver_ops_t c = sim_dns_resolver(e->dns, 1);
    assert_non_null(a.ctx);
    assert_ptr_equal(a.ctx, b.ctx);
    assert_ptr_not_equal(a.ctx, c.ctx);
    assert_non_null(a.resolve_srv);
    assert_non_null(a.resolve_addr);
    client_at(e, 0, 3);
    client_at(e, 10, 1);
    run_all(e);
    char buf[256];
    log_text(e, buf, sizeof buf);
    assert_string_equal(buf, "100 dns 3 1 0\n110 dns 1 1 0\n");
}

static void test_add_epoch_rejects(void **state) {
    env_t *e = *state;
    sim_dns_record_t one[1] = {rec(T1, 1, true)};
    add_epoch(e, 1000, SIM_DNS_OK, one, 1);
    sim_dns_epoch_t earlier = {999, SIM_DNS_FAIL, NULL, 0};
    sim_dns_epoch_t no_records = {2000, SIM_DNS_FAIL, NULL, 1};
    sim_dns_epoch_t bad_mode = {2000, (sim_dns_mode_t)3, NULL, 0};
    assert_int_equal(sim_dns_add_epoch(e->dns, &earlier), -1);
    assert_int_equal(sim_dns_add_epoch(e->dns, &no_records), -1);
    assert_int_equal(sim_dns_add_epoch(e->dns, &bad_mode), -1);
    assert_int_equal(sim_dns_add_epoch(e->dns, NULL), -1);
    assert_null(sim_dns_new(&e->engine, NULL, NULL, 1, 1));
    client_at(e, 1000, 0); /* the OK epoch is still the one in force */
    run_all(e);
    assert_int_equal(r_client_server_count(e->client[0]), 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_epoch_switch_at_exact_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fail_epoch_after_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_timeout_epoch_after_timeout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_recovers_after_outage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_before_first_epoch_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_srv_name_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_srv_name_case_and_dot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_addr_target_answers_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_host_after_switch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonconforming_target_verbatim, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_after_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flush_live_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resolver_ctx_per_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_add_epoch_rejects, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
