/* SPDX-License-Identifier: MIT */
/* test_conf.c - serve configuration: the server spec keys and their bounds
 * (tools/rl-testbed/README.md "serve"), the JSON file's error positions, and
 * the final checks (wire_protocol.md "Structured server_id Format"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve_conf.h"

#define KEY "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys"

static void test_spec_accepts_every_key(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_conf_add_server_spec(&c,
                                                "port=4000,start=1767225600,listener=7,node=12345,drop=0.25,"
                                                "drop_reply=0.5,inject=1,delay=exp:10:50,deny=true,restart_at=1.5,"
                                                "restart_after=3,down_at=2,down_after=9,steer=random:0.2,freshness=0,skew=-250,"
                                                "dedup_capacity=100,dedup_ttl_cap=500",
                                                err),
                     0);
    const serve_server_conf_t *s = &c.servers[0];
    assert_int_equal(c.n_servers, 1);
    assert_int_equal(s->port, 4000);
    assert_int_equal(s->start_s, 1767225600u);
    assert_int_equal(s->listener_id, 7);
    assert_int_equal(s->node_id, 12345);
    assert_true(s->drop == 0.25 && s->drop_reply == 0.5 && s->inject == 1.0);
    assert_int_equal(s->delay.kind, SERVE_DELAY_EXP);
    assert_int_equal(s->delay.a_ms, 10);
    assert_int_equal(s->delay.b_ms, 50);
    assert_true(s->deny);
    assert_true(s->restart_at_s == 1.5);
    assert_int_equal(s->restart_after, 3);
    assert_true(s->down_at_s == 2.0);
    assert_int_equal(s->down_after, 9);
    assert_int_equal(s->steer, SIM_STEER_RANDOM);
    assert_true(s->steer_p == 0.2);
    assert_int_equal(s->freshness_ms, 0);
    assert_int_equal(s->skew_ms, -250);
    assert_int_equal(s->dedup_capacity, 100);
    assert_int_equal(s->dedup_ttl_cap_ms, 500);
    serve_conf_free(&c);
}

static void test_defaults(void **state) {
    (void)state;
    serve_server_conf_t s;
    serve_server_defaults(&s);
    assert_int_equal(s.port, 0);
    assert_false(s.has_node); /* set by serve_conf_finish */
    assert_int_equal(s.freshness_ms, 5000);
    assert_int_equal(s.delay.kind, SERVE_DELAY_NONE);
    assert_int_equal(s.steer, SIM_STEER_KEEP);
    serve_conf_t c;
    serve_conf_init(&c);
    assert_int_equal(c.rate_cap, 100000);
    assert_int_equal(c.memory_cap_mb, 256);
    assert_int_equal(c.max_pending, 4096);
}

static void expect_bad(const char *key, const char *value, const char *want_err) {
    serve_server_conf_t s;
    serve_server_defaults(&s);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_server_set(&s, key, value, err), -1);
    assert_string_equal(err, want_err);
}

static void test_spec_rejects_out_of_range(void **state) {
    (void)state;
    expect_bad("port", "65536", "port: bad value '65536' (want a port 0..65535 (0 = ephemeral))");
    expect_bad("port", "+5", "port: bad value '+5' (want a port 0..65535 (0 = ephemeral))");
    expect_bad("listener", "256", "listener: bad value '256' (want 0..255)");
    expect_bad("node", "32768", "node: bad value '32768' (want 0..32767)");
    expect_bad("start", "1735689599", "start: bad value '1735689599' (want Unix seconds >= 1735689600)");
    expect_bad("drop", "-0.1", "drop: bad value '-0.1' (want a probability in [0, 1])");
    expect_bad("inject", "nan", "inject: bad value 'nan' (want a probability in [0, 1])");
    expect_bad("delay", "fixed:1:2",
               "delay: bad value 'fixed:1:2' (want MS, fixed:MS, uniform:MIN:MAX or exp:MEAN[:MAX] (ms <= 600000))");
    expect_bad("delay", "600001",
               "delay: bad value '600001' (want MS, fixed:MS, uniform:MIN:MAX or exp:MEAN[:MAX] (ms <= 600000))");
    expect_bad("delay", "exp:0",
               "delay: bad value 'exp:0' (want MS, fixed:MS, uniform:MIN:MAX or exp:MEAN[:MAX] (ms <= 600000))");
    expect_bad("deny", "maybe", "deny: bad value 'maybe' (want 0/1 or true/false)");
    expect_bad("restart_at", "0", "restart_at: bad value '0' (want seconds after start, > 0)");
    expect_bad("down_after", "0", "down_after: bad value '0' (want a count of rate requests, >= 1)");
    expect_bad("steer", "random:2", "steer: bad value 'random:2' (want keep, change or random:P)");
    expect_bad("skew", "86400000", "skew: bad value '86400000' (want signed ms)");
    expect_bad("dedup_capacity", "0", "dedup_capacity: bad value '0' (want entries, 1..16777216)");
    expect_bad("dedup_ttl_cap", "60001", "dedup_ttl_cap: bad value '60001' (want ms, 1..60000)");
    expect_bad("colour", "1", "unknown server key 'colour'");
}

static void test_delay_forms(void **state) {
    (void)state;
    serve_server_conf_t s;
    serve_server_defaults(&s);
    char err[SERVE_ERR_LEN];
    assert_int_equal(serve_server_set(&s, "delay", "25", err), 0);
    assert_int_equal(s.delay.kind, SERVE_DELAY_FIXED);
    assert_int_equal(s.delay.a_ms, 25);
    assert_int_equal(serve_server_set(&s, "delay", "0", err), 0);
    assert_int_equal(s.delay.kind, SERVE_DELAY_NONE);
    assert_int_equal(serve_server_set(&s, "delay", "uniform:5:9", err), 0);
    assert_int_equal(s.delay.kind, SERVE_DELAY_UNIFORM);
    assert_int_equal(s.delay.b_ms, 9);
    assert_int_equal(serve_server_set(&s, "delay", "exp:20", err), 0);
    assert_int_equal(s.delay.b_ms, 200); /* default cap: 10 x mean */
}

static void test_global_options(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN];
    assert_int_equal(serve_conf_set(&c, "tenant", KEY, err), 0);
    assert_int_equal(serve_conf_set(&c, "listen", "::1", err), 0);
    assert_int_equal(serve_conf_set(&c, "rate-cap", "10", err), 0);
    assert_int_equal(serve_conf_set(&c, "seed", "18446744073709551615", err), 0);
    assert_int_equal(c.n_tenants, 1);
    assert_string_equal(c.listen[0], "::1");
    assert_int_equal(c.rate_cap, 10);
    assert_true(c.has_seed && c.seed == UINT64_MAX);
    assert_int_equal(serve_conf_set(&c, "listen", "127.0.0.1:80", err), -1);
    assert_string_equal(err, "--listen: '127.0.0.1:80' is not a numeric IPv4 or IPv6 address");
    assert_int_equal(serve_conf_set(&c, "tenant", "rl-secret1qqqq", err), -1);
    assert_true(strncmp(err, "--tenant: bad credential: ", 26) == 0);
    assert_int_equal(c.n_tenants, 1); /* a refused value changes nothing */
    assert_int_equal(serve_conf_set(&c, "colour", "x", err), -1);
    assert_string_equal(err, "unknown option '--colour'");
    serve_conf_free(&c);
}

static void test_finish(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN];
    assert_int_equal(serve_conf_finish(&c, err), -1);
    assert_true(strncmp(err, "no tenant: give --tenant", 24) == 0);
    assert_int_equal(serve_conf_set(&c, "tenant", KEY, err), 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "id=264543142129721", err), 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0", err), 0);
    assert_int_equal(serve_conf_finish(&c, err), 0);
    /* 264543142129721 = (1767225600 - 1735689600) << 23 | 7 << 15 | 12345 */
    assert_int_equal(c.servers[0].start_s, 1767225600u);
    assert_int_equal(c.servers[0].listener_id, 7);
    assert_int_equal(c.servers[0].node_id, 12345);
    assert_int_equal(c.servers[1].listener_id, 1); /* default: the index */
    serve_conf_free(&c);
}

/* --admin-secret: an rl-secret credential (wire_protocol.md "rl-secret": 32
 * bytes, here 1..32); with it no --tenant is needed; --memory-budget bounds. */
static void test_admin_options(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN];
    assert_int_equal(c.memory_budget_mb, 1024);
    assert_int_equal(serve_conf_set(&c, "admin-secret", KEY, err), -1); /* an API key is not an admin key */
    assert_true(strncmp(err, "--admin-secret: bad credential: ", 32) == 0);
    assert_false(c.has_admin_secret);
    assert_int_equal(serve_conf_set(&c, "admin-secret",
                                    "rl-secret1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwxqergd3c8g7rusq7akkmu", err), 0);
    assert_true(c.has_admin_secret);
    for (int i = 0; i < 32; i++) {
        assert_int_equal(c.admin_secret[i], i + 1);
    }
    assert_int_equal(serve_conf_set(&c, "memory-budget", "0", err), -1);
    assert_string_equal(err, "--memory-budget: bad value '0' (want MiB, 1..1048576)");
    assert_int_equal(serve_conf_set(&c, "memory-budget", "1048577", err), -1);
    assert_int_equal(serve_conf_set(&c, "memory-budget", "4", err), 0);
    assert_int_equal(c.memory_budget_mb, 4);
    assert_int_equal(serve_conf_set(&c, "zone", "z.zone", err), 0);
    assert_int_equal(serve_conf_finish(&c, err), -1); /* records without a tenant need a name */
    assert_string_equal(err, "--zone/--dnsmasq without a tenant: give --dns-name NAME");
    assert_int_equal(serve_conf_set(&c, "dns-name", "rl.test", err), 0);
    assert_int_equal(serve_conf_finish(&c, err), 0); /* no tenant: the admin channel adds them */
    serve_conf_free(&c);
}

static void test_finish_default_server(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN];
    assert_int_equal(serve_conf_set(&c, "tenant", KEY, err), 0);
    assert_int_equal(serve_conf_finish(&c, err), 0);
    assert_int_equal(c.n_servers, 1);
    assert_int_equal(c.servers[0].port, 0);
    serve_conf_free(&c);
}

static void test_json_good(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_conf_load_json(&c, SERVE_TESTDATA "/good.json", err), 0);
    assert_int_equal(c.n_tenants, 1);
    assert_int_equal(c.n_listen, 1);
    assert_int_equal(c.n_servers, 2);
    assert_true(c.servers[0].has_id);
    assert_int_equal(c.servers[1].listener_id, 9);
    assert_true(c.servers[1].drop == 0.5);
    assert_int_equal(c.servers[1].delay.kind, SERVE_DELAY_UNIFORM);
    assert_true(c.servers[1].deny);
    assert_int_equal(c.rate_cap, 5000);
    assert_true(c.duration_s == 0.2);
    serve_conf_free(&c);
}

static void expect_json_error(const char *file, const char *want) {
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    char path[512];
    snprintf(path, sizeof path, "%s/%s", SERVE_TESTDATA, file);
    assert_int_equal(serve_conf_load_json(&c, path, err), -1);
    char full[SERVE_ERR_LEN + 600];
    snprintf(full, sizeof full, "%s%s", path, want);
    assert_string_equal(err, full);
    serve_conf_free(&c);
}

static void test_json_errors(void **state) {
    (void)state;
    expect_json_error("syntax.json", ":3:26: string or '}' expected near '}'");
    expect_json_error("bad_member.json", ": servers[1].drop: drop: bad value '1.5' (want a probability in [0, 1])");
    expect_json_error("unknown.json", ": colour: unknown member");
}

/* project (issue 20 item 11): two serve processes started in the same second
 * must not share a server_id (wire_protocol.md "Structured server_id
 * Format": two live servers MUST NOT share (server_start_s, listener_id,
 * node_id)); node defaults to the process id modulo 32768, which differs
 * between processes running at once on one host; a given node is kept. */
static void test_default_node_from_process(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN];
    assert_int_equal(serve_conf_set(&c, "tenant", KEY, err), 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0", err), 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "node=5", err), 0);
    assert_int_equal(serve_conf_finish(&c, err), 0);
    assert_int_equal(c.servers[0].node_id, (uint16_t)(getpid() % 32768));
    assert_int_equal(c.servers[1].node_id, 5);
    serve_conf_free(&c);
}

/* project (issue 20 item 12): a key given twice in one --server spec is
 * refused, naming the key; nothing is added. */
static void test_spec_key_twice(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0,port=1", err), -1);
    assert_string_equal(err, "port: given twice in one server spec");
    assert_int_equal(c.n_servers, 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "drop=0.1,port=0,drop=0.2", err), -1);
    assert_string_equal(err, "drop: given twice in one server spec");
    assert_int_equal(c.n_servers, 0);
    serve_conf_free(&c);
}

/* project (issue 20 item 12): an empty spec, or an empty item in one, is
 * refused; "port=0" alone is accepted. */
static void test_spec_empty(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_conf_add_server_spec(&c, "", err), -1);
    assert_string_equal(err, "empty server spec (want key=value,...; e.g. port=0)");
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0,", err), -1);
    assert_string_equal(err, "empty item in 'port=0,' (want key=value between commas)");
    assert_int_equal(serve_conf_add_server_spec(&c, ",port=7", err), -1);
    assert_string_equal(err, "empty item in ',port=7' (want key=value between commas)");
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0,,drop=0", err), -1);
    assert_string_equal(err, "empty item in 'port=0,,drop=0' (want key=value between commas)");
    assert_int_equal(c.n_servers, 0);
    assert_int_equal(serve_conf_add_server_spec(&c, "port=0", err), 0);
    assert_int_equal(c.n_servers, 1);
    serve_conf_free(&c);
}

/* project (issue 20 item 12): an integer option takes the same values from
 * the command line and the config file: 1e3 is refused by both (a JSON real
 * reaches the parser as a real, 1000.0), 1000 accepted by both. */
static void test_real_for_integer_refused_everywhere(void **state) {
    (void)state;
    serve_conf_t c;
    serve_conf_init(&c);
    char err[SERVE_ERR_LEN] = "";
    assert_int_equal(serve_conf_set(&c, "rate-cap", "1e3", err), -1);
    assert_string_equal(err, "--rate-cap: bad value '1e3' (want datagrams per second, 1..10000000)");
    assert_int_equal(c.rate_cap, 100000);
    serve_conf_free(&c);
    expect_json_error("real_rate_cap.json",
                      ": rate_cap: --rate-cap: bad value '1000.0' (want datagrams per second, 1..10000000)");
    expect_json_error("real_port.json", ": servers[0].port: port: bad value '40000.0' (want a port 0..65535 (0 = ephemeral))");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_accepts_every_key), cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_spec_rejects_out_of_range), cmocka_unit_test(test_delay_forms),
        cmocka_unit_test(test_global_options),        cmocka_unit_test(test_finish),
        cmocka_unit_test(test_finish_default_server), cmocka_unit_test(test_admin_options),  cmocka_unit_test(test_json_good),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_default_node_from_process),
        cmocka_unit_test(test_spec_key_twice),
        cmocka_unit_test(test_spec_empty),
        cmocka_unit_test(test_real_for_integer_refused_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
