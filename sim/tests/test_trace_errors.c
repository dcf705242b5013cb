/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L
/* test_trace_errors.c - the trace loader's rejections (docs/traces.md
 * "Errors"): every file under sim/tests/bad_traces/ gives its exact error,
 * naming the file, the JSON path and the problem; nothing leaks (ASan). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_trace.h"

#define BAD_DIR SIM_SOURCE_DIR "/tests/bad_traces"

/* file (without .json) and the error after "bad_traces/<file>.json: " */
#define BAD_TRACES(X) \
    X("arrivals_rate_zero", "clients[0].arrivals.rate_per_s: expected a number in (0, 1e+07], got 0") \
    X("arrivals_wrong_member", "clients[0].arrivals.at_ms: not used by kind poisson") \
    X("auth_unknown", "clients[0].auth: expected one of none, cookie, aes") \
    X("client_named_like_server", "clients[1].name: duplicate name \"B\" (servers and clients share one name space)") \
    X("comment_not_string", "servers[0].comment: expected a string, got an integer") \
    X("defaults_server_name", "defaults.server.name: unknown field") \
    X("defaults_unknown", "defaults.link: unknown field") \
    X("dns_client_member", "dns.epochs[0].members[0].server: unknown server \"c1\" (expected a server name)") \
    X("dns_epoch_order", "dns.epochs[1].at_ms: must be later than epochs[0].at_ms (0)") \
    X("dns_first_epoch", "dns.epochs[0].at_ms: the first epoch must start at 0") \
    X("dns_member_both", "dns.epochs[0].members[0]: give exactly one of server and target") \
    X("dns_members_missing", "dns.epochs[0].members: missing (required with mode ok; [] is an empty answer)") \
    X("dns_members_with_fail", "dns.epochs[0].members: only with mode ok") \
    X("dns_port_zero", "dns.epochs[0].members[0].port: expected an integer in [1, 65535], got 0") \
    X("dns_unknown_member", "dns.epochs[0].members[1]: unknown server \"Z\" (expected a server name)") \
    X("endpoints_duplicate", "clients[0].endpoints[1]: server A named twice") \
    X("endpoints_in_defaults", "defaults.client.endpoints: endpoints are per client, not in defaults.client") \
    X("endpoints_unknown", "clients[0].endpoints[1]: unknown server \"Z\" (expected a server name)") \
    X("failures_symmetric_node", "faults[0].symmetric: only with from and to (a link's failures)") \
    X("duplicate_key", "line 1 column 69: duplicate object key near '\"duration_ms\"'") \
    X("duplicate_server", "servers[2].name: duplicate name \"A\" (servers and clients share one name space)") \
    X("duration_negative", "duration_ms: expected an integer in [1, 86400000], got -5") \
    X("duration_real", "duration_ms: expected an integer, got a real number") \
    X("duration_string", "duration_ms: expected an integer, got a string") \
    X("expect_bad_op", "expectations[0].op: expected one of <=, >=, ==, <, >") \
    X("expect_metric_with_client", "expectations[0].client: not used by kind metric") \
    X("expect_missing_server", "expectations[0].server: missing (required)") \
    X("expect_request_beyond_script", "expectations[0].request: client c1 submits at most 3 requests (indexes start at 0)") \
    X("expect_status_name", "expectations[0].status: expected one of RCLIENT_OK, RCLIENT_ERR_TIMEOUT, RCLIENT_ERR_DNS, RCLIENT_ERR_IO, RCLIENT_ERR_PROTOCOL, RCLIENT_ERR_AUTH, RCLIENT_ERR_CONFIG, RCLIENT_ERR_NOMEM") \
    X("expect_unknown_metric", "expectations[0].metric: unknown metric \"throughput\" (see docs/traces.md \"Metrics\")") \
    X("expect_unknown_server", "expectations[0].server: unknown server \"Z\" (expected a server name)") \
    X("fault_after_end", "faults[0].at_ms: expected an integer in [0, 1000], got 1001") \
    X("fault_order", "faults[1].at_ms: earlier than the fault before it (faults are listed in time order)") \
    X("fault_partition_dir", "faults[0].dir: expected one of in, out, both") \
    X("fault_pause_missing", "faults[0].duration_ms: missing (required)") \
    X("fault_restart_client", "faults[0].target: unknown server \"c1\" (expected a server name)") \
    X("fault_restart_same_second", "faults[0]: restart of A in the second it started keeps its server_id; restart it later") \
    X("fault_unknown_kind", "faults[0].kind: expected one of restart, pause, link, partition, dedup_degrade, dedup_heal, skew, steering, inject, failures, tenant_remove, tenant_add") \
    X("fault_tenant_bad_quota", "faults[0].quota_word: not a valid quota word: quota: rate_exp 31 above 24") \
    X("fault_tenant_not_client", "faults[0].tenant: unknown client \"A\" (expected a client name)") \
    X("fault_tenant_remove_quota", "faults[0].quota_word: not used by kind tenant_remove") \
    X("fault_wrong_member", "faults[0].skew_ms: not used by kind restart") \
    X("key_id_bad_hex", "clients[0].key_id: expected an integer or a \"0x\" hex string of at most 0xffffffffffffffff") \
    X("latency_negative", "links.default.latency.base_us: expected an integer in [0, 4294967295], got -1") \
    X("latency_spread_const", "links.default.latency.spread_us: not used by kind const") \
    X("link_unknown_node", "links.overrides[0].to: unknown node \"Z\" (expected a server or client name or \"*\")") \
    X("loss_missing_p", "links.default.loss.loss_p: missing (required)") \
    X("loss_p_range", "links.default.loss.loss_p: expected a number in [0, 1], got 1.5") \
    X("loss_wrong_member", "links.default.loss.bad_loss_p: not used by kind bernoulli") \
    X("missing_clients", "clients: missing (required)") \
    X("missing_schema", "schema: missing (required)") \
    X("mix_empty_entry", "clients[0].mix[0]: a request needs at least one resource or guard") \
    X("mix_resource_no_limit", "clients[0].mix[0].resources[0].rate_limit: missing (required)") \
    X("mix_tokens_range", "clients[0].mix[0].resources[0].tokens: expected an integer in [0, 65535], got 70000") \
    X("mix_too_many_resources", "clients[0].mix[0].resources: more than 4 entries") \
    X("mix_weight_zero", "clients[0].mix[0].weight: expected an integer in [1, 4294967295], got 0") \
    X("name_bad_chars", "servers[1].name: \"B 2\": use only letters, digits, '_', '.' and '-'") \
    X("name_star", "clients[0].name: \"*\": use only letters, digits, '_', '.' and '-'") \
    X("name_too_long", "servers[1].name: longer than 31 bytes") \
    X("no_servers", "servers: at least one server is required") \
    X("node_id_range", "servers[0].node_id: expected an integer in [0, 32767], got 40000") \
    X("not_json", "line 3 column 0: ']' expected near end of file") \
    X("pareto_alpha", "links.default.latency.alpha: expected a number in (1, 100], got 1") \
    X("policy_growth_kind", "clients[0].policy.replay_gap.exponential_factor: not used by kind fixed") \
    X("policy_in_defaults", "defaults.client.policy: final_preference_units exceeds final_receive_units") \
    X("policy_kind", "clients[1].policy.replay_gap.kind: expected one of fixed, linear, exponential") \
    X("policy_over_quota", "clients[0].policy: horizon H exceeds the key's dedup_ttl_ms_max (H = 600 ms, dedup_ttl_ms_max = 300 ms)") \
    X("policy_p_above_b", "clients[0].policy: preference P(k) exceeds replay_gap B(k)") \
    X("policy_preset", "clients[0].policy: expected one of default, api_md, strict_oldest, oldest_preferred, fastest_valid") \
    X("policy_preset_field", "clients[0].policy.preset: expected one of default, api_md, strict_oldest, oldest_preferred, fastest_valid") \
    X("quota_word_invalid", "clients[0].quota_word: quota: rate_exp 31 above 24") \
    X("script_after_end", "clients[0].arrivals.at_ms[1]: expected an integer in [0, 1000] (duration_ms)") \
    X("script_unsorted", "clients[0].arrivals.at_ms[2]: earlier than the time before it (times are listed in order)") \
    X("server_id_collision", "servers[1]: same server_id 262650671923207 as servers[0] (start, listener_id and node_id)") \
    X("server_not_object", "servers[2]: expected an object, got a string") \
    X("shared_key_auth", "clients[1].auth: key_id 1 is also client c1's, with auth aes") \
    X("start_before_2025", "servers[0].start_s: expected an integer in [1735689600, 1767225600], got 1700000000") \
    X("start_both", "servers[0].start_age_s: give start_s or start_age_s, not both") \
    X("steer_p_without_random", "servers[0].steer_change_p: only with steer_mode random") \
    X("steer_random_without_p", "servers[0].steer_change_p: missing (required with steer_mode random)") \
    X("top_not_object", "expected an object, got an array") \
    X("unknown_field_client", "clients[0].polcy: unknown field") \
    X("unknown_field_top", "duraton_ms: unknown field") \
    X("wrong_schema", "schema: expected \"ratelimitly-trace/v1\", got \"ratelimitly-trace/v2\"")

typedef struct {
    const char *file;
    const char *error;
} bad_case_t;

#define AS_CASE(f, e) {f, e},
static bad_case_t bad_cases[] = {BAD_TRACES(AS_CASE)}; /* test states: cmocka wants void * */
#define N_BAD (sizeof bad_cases / sizeof bad_cases[0])

static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1u << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1u << 20, f);
    fclose(f);
    return buf;
}

/* One case: parse the file under the name "bad_traces/<file>.json". */
static void check_bad(const bad_case_t *bc) {
    char path[512], name[128], want[512], err[512];
    snprintf(path, sizeof path, "%s/%s.json", BAD_DIR, bc->file);
    snprintf(name, sizeof name, "bad_traces/%s.json", bc->file);
    snprintf(want, sizeof want, "%s: %s", name, bc->error);
    size_t len = 0;
    char *text = read_text(path, &len);
    sim_config_t cfg;
    memset(&cfg, 0xa5, sizeof cfg);
    assert_int_equal(sim_trace_parse(text, len, name, &cfg, err, sizeof err), -1);
    free(text);
    assert_string_equal(err, want);
    assert_null(cfg.servers); /* zeroed, nothing owned */
    assert_null(cfg.clients);
    assert_int_equal(cfg.n_servers + cfg.n_clients + cfg.n_links + cfg.n_dns + cfg.n_faults + cfg.n_expects, 0);
}

/* One cmocka test per bad file; *state is its bad_case_t. */
static void test_bad_trace(void **state) {
    check_bad(*state);
}

/* A new bad file without an expected error would be silently untested. */
static void test_every_bad_file_has_a_case(void **state) {
    (void)state;
    DIR *d = opendir(BAD_DIR);
    assert_non_null(d);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".json") != 0) {
            continue;
        }
        files++;
        bool found = false;
        for (size_t i = 0; i < N_BAD && !found; i++) {
            found = strlen(bad_cases[i].file) == n - 5 && strncmp(bad_cases[i].file, e->d_name, n - 5) == 0;
        }
        if (!found) {
            fail_msg("%s has no expected error", e->d_name);
        }
    }
    closedir(d);
    assert_int_equal(files, N_BAD);
}

static void test_load_names_the_path_as_given(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[512];
    const char *path = BAD_DIR "/unknown_field_client.json";
    assert_int_equal(sim_trace_load(path, &cfg, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s: clients[0].polcy: unknown field", path);
    assert_string_equal(err, want);
}

static void test_load_missing_file(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[256];
    assert_int_equal(sim_trace_load("no/such/trace.json", &cfg, err, sizeof err), -1);
    assert_string_equal(err, "no/such/trace.json: cannot open: No such file or directory");
}

static void test_load_directory_is_a_read_error(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[512], want[600];
    assert_int_equal(sim_trace_load(BAD_DIR, &cfg, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: is a directory, not a trace file", BAD_DIR);
    assert_string_equal(err, want);
}

/* A FIFO would block a reader forever: refused before it is opened. */
static void test_load_fifo_is_refused(void **state) {
    (void)state;
    char path[] = "/tmp/sim_trace_fifo_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    sim_config_t cfg;
    char err[512], want[600];
    assert_int_equal(sim_trace_load(path, &cfg, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: not a regular file", path);
    assert_string_equal(err, want);
    unlink(path);
}

static void test_parse_null_text(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[128];
    assert_int_equal(sim_trace_parse(NULL, 0, "t.json", &cfg, err, sizeof err), -1);
    assert_string_equal(err, "t.json: no JSON text");
}

static void test_parse_null_out(void **state) {
    (void)state;
    char err[128];
    assert_int_equal(sim_trace_parse("{}", 2, "t.json", NULL, err, sizeof err), -1);
    assert_string_equal(err, "t.json: no output config");
}

static void test_parse_empty_text(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[128];
    assert_int_equal(sim_trace_parse("", 0, "t.json", &cfg, err, sizeof err), -1);
    assert_string_equal(err, "t.json: line 1 column 0: '[' or '{' expected near end of file");
}

/* A short buffer gets a truncated, NUL-terminated message; NULL err is fine. */
static void test_error_fits_the_buffer(void **state) {
    (void)state;
    sim_config_t cfg;
    char err[16];
    memset(err, 'x', sizeof err);
    assert_int_equal(sim_trace_parse("[]", 2, "trace.json", &cfg, err, 12), -1);
    assert_string_equal(err, "trace.json:");
    assert_int_equal(err[12], 'x');
    assert_int_equal(sim_trace_parse("[]", 2, "trace.json", &cfg, NULL, 0), -1);
}

/* Text that is valid up to a NUL byte is still rejected as a whole. */
static void test_embedded_nul_rejected(void **state) {
    (void)state;
    static const char text[] = "{\"schema\": \"ratelimitly-trace/v1\"}\0junk";
    sim_config_t cfg;
    char err[256];
    assert_int_equal(sim_trace_parse(text, sizeof text - 1, "t.json", &cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "t.json: line 1 column "));
}

int main(void) {
    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_every_bad_file_has_a_case),
        cmocka_unit_test(test_load_names_the_path_as_given),
        cmocka_unit_test(test_load_missing_file),
        cmocka_unit_test(test_load_directory_is_a_read_error),
        cmocka_unit_test(test_load_fifo_is_refused),
        cmocka_unit_test(test_parse_null_text),
        cmocka_unit_test(test_parse_null_out),
        cmocka_unit_test(test_parse_empty_text),
        cmocka_unit_test(test_error_fits_the_buffer),
        cmocka_unit_test(test_embedded_nul_rejected),
    };
    size_t n_fixed = sizeof fixed / sizeof fixed[0];
    struct CMUnitTest *tests = calloc(n_fixed + N_BAD, sizeof *tests);
    if (tests == NULL) {
        return 1;
    }
    memcpy(tests, fixed, sizeof fixed);
    for (size_t i = 0; i < N_BAD; i++) {
        struct CMUnitTest t = {bad_cases[i].file, test_bad_trace, NULL, NULL, &bad_cases[i]};
        tests[n_fixed + i] = t;
    }
    int failed = _cmocka_run_group_tests("test_trace_errors", tests, n_fixed + N_BAD, NULL, NULL);
    free(tests);
    return failed;
}
