/* SPDX-License-Identifier: MIT */
/* test_trace.c - the trace loader (docs/traces.md): every shipped trace
 * loads, and each documented default, shorthand and mapping lands in
 * sim_config_t exactly as documented. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_dns.h"
#include "sim_trace.h"

#define TRACES_DIR SIM_SOURCE_DIR "/traces"
#define RUN_EPOCH_S (SIM_RUN_EPOCH_MS / 1000u)
#define HEAD "{\"schema\": \"ratelimitly-trace/v1\", "
#define AB "\"servers\": [{\"name\": \"A\"}, {\"name\": \"B\"}], "

/* Parse text that must be valid; fails the test with the error otherwise. */
static void parse_ok(const char *text, sim_config_t *cfg) {
    char err[512] = "";
    if (sim_trace_parse(text, strlen(text), "dir/t.json", cfg, err, sizeof err) != 0) {
        fail_msg("%s", err);
    }
}

static void load_ok(const char *file, sim_config_t *cfg) {
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/%s", TRACES_DIR, file);
    if (sim_trace_load(path, cfg, err, sizeof err) != 0) {
        fail_msg("%s", err);
    }
}

/* ---- shipped traces ---------------------------------------------------------- */

static const char *const required_traces[] = {
    "ha_healthy.json", "ha_slow_oldest_before.json", "ha_slow_oldest_after.json", "ha_preferred_failure.json",
    "loss_1pct.json", "loss_5pct.json", "loss_20pct.json", "loss_burst.json", "restart_oldest.json",
    "membership_change.json", "dns_outage.json", "partition_oldest.json", "dedup_degraded.json",
    "clock_skew.json", "steering_change.json", "bench/throughput_3srv.json"};

static void test_required_traces_load(void **state) {
    (void)state;
    for (size_t i = 0; i < sizeof required_traces / sizeof required_traces[0]; i++) {
        sim_config_t cfg;
        load_ok(required_traces[i], &cfg);
        const char *base = strrchr(required_traces[i], '/');
        base = base != NULL ? base + 1 : required_traces[i];
        size_t n = strlen(base) - 5;
        assert_int_equal(strlen(cfg.name), n); /* each trace names itself after its file */
        assert_memory_equal(cfg.name, base, n);
        assert_true(cfg.description[0] != '\0');
        assert_true(cfg.n_expects > 0);
        sim_config_free(&cfg);
    }
}

static void test_every_json_in_traces_loads(void **state) {
    (void)state;
    DIR *d = opendir(TRACES_DIR);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
            sim_config_t cfg;
            load_ok(e->d_name, &cfg);
            sim_config_free(&cfg);
            n++;
        }
    }
    closedir(d);
    size_t top_level = 0; /* the bench trace sits in a subfolder */
    for (size_t i = 0; i < sizeof required_traces / sizeof required_traces[0]; i++) {
        top_level += strchr(required_traces[i], '/') == NULL;
    }
    assert_true(n >= top_level);
}

/* default-set.txt: one trace file per line, '#' comments. */
static void test_default_set_names_existing_traces(void **state) {
    (void)state;
    FILE *f = fopen(TRACES_DIR "/default-set.txt", "r");
    assert_non_null(f);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') {
            continue;
        }
        sim_config_t cfg;
        load_ok(line, &cfg);
        sim_config_free(&cfg);
        n++;
    }
    fclose(f);
    assert_int_equal(n, 8);
}

/* Section-10 trace: the exact shape the conformance case depends on. */
static void test_ha_healthy_content(void **state) {
    (void)state;
    sim_config_t cfg;
    load_ok("ha_healthy.json", &cfg);
    assert_int_equal(cfg.n_servers, 2);
    assert_string_equal(cfg.servers[0].name, "A");
    assert_int_equal(cfg.servers[0].params.server_start_s, RUN_EPOCH_S - 86400u);
    assert_int_equal(cfg.servers[1].params.server_start_s, RUN_EPOCH_S - 3600u);
    assert_int_equal(cfg.n_clients, 1);
    assert_false(cfg.clients[0].use_dns);
    r_request_policy_t def;
    r_client_default_request_policy(&def);
    assert_memory_equal(&cfg.clients[0].policy, &def, sizeof def);
    assert_int_equal(cfg.default_link.latency.kind, SIM_LAT_UNIFORM);
    assert_int_equal(cfg.default_link.latency.base_us, 200);
    assert_int_equal(cfg.default_link.latency.spread_us, 100);
    assert_int_equal(cfg.expects[0].kind, SIM_EXPECT_SELECTED);
    assert_string_equal(cfg.expects[0].client, "c1");
    assert_int_equal(cfg.expects[0].index, 0);
    assert_string_equal(cfg.expects[0].server, "A");
    sim_config_free(&cfg);
}

/* ---- defaults ----------------------------------------------------------------------- */

static void test_minimal_trace_defaults(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}]}", &cfg);
    assert_string_equal(cfg.name, "t"); /* base name of "dir/t.json" */
    assert_int_equal(cfg.seed, 1);
    assert_int_equal(cfg.duration_ms, 1000);
    assert_int_equal(cfg.default_link.latency.kind, SIM_LAT_CONST);
    assert_int_equal(cfg.default_link.latency.base_us, 250);
    assert_int_equal(cfg.default_link.loss.kind, SIM_LOSS_NONE);
    assert_int_equal(cfg.default_link.reorder_us, 1000);
    assert_int_equal(cfg.dns_latency_us, 1000);
    assert_int_equal(cfg.dns_timeout_us, 500000);
    assert_string_equal(cfg.tenant_dns_name, "rl.sim.example");
    assert_int_equal(cfg.n_links + cfg.n_faults + cfg.n_expects, 0);
    sim_config_free(&cfg);
}

static void test_server_defaults(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}]}", &cfg);
    /* listed first = oldest: 3600 s per remaining position */
    assert_int_equal(cfg.servers[0].params.server_start_s, RUN_EPOCH_S - 7200u);
    assert_int_equal(cfg.servers[1].params.server_start_s, RUN_EPOCH_S - 3600u);
    assert_int_equal(cfg.servers[0].params.node_id, 1);
    assert_int_equal(cfg.servers[1].params.node_id, 2);
    assert_int_equal(cfg.servers[0].params.listener_id, 0);
    assert_int_equal(cfg.servers[0].params.dedup_capacity, 0);
    assert_int_equal(cfg.servers[0].params.dedup_ttl_cap_ms, 0);
    assert_int_equal(cfg.servers[0].params.freshness_ms, 0);
    assert_int_equal(cfg.servers[0].params.steer_mode, SIM_STEER_KEEP);
    assert_int_equal(cfg.servers[0].processing_us, 20);
    assert_int_equal(cfg.servers[0].clock_skew_ms, 0);
    sim_config_free(&cfg);
}

static void test_client_defaults(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}]}", &cfg);
    const sim_client_cfg_t *c = &cfg.clients[0];
    assert_int_equal(c->auth, R_AUTH_AES);
    assert_int_equal(c->key_id, 1);
    assert_int_equal(c->quota_word, 0);
    assert_true(c->use_dns);
    assert_int_equal(c->arrival, SIM_ARRIVAL_POISSON);
    assert_true(c->rate_per_s == 100.0);
    assert_int_equal(c->max_requests, 0);
    assert_false(c->service.enabled);
    assert_int_equal(c->n_mix, 1);
    assert_int_equal(c->mix[0].weight, 1);
    assert_int_equal(c->mix[0].n_resources, 1);
    assert_string_equal(c->mix[0].resources[0].bucket, "default");
    assert_int_equal(c->mix[0].resources[0].window_size_ms, 1000);
    assert_int_equal(c->mix[0].resources[0].rate_limit, 1000);
    assert_int_equal(c->mix[0].resources[0].tokens, 1);
    sim_config_free(&cfg);
}

/* Without dns.epochs: one epoch at 0 with every server, port 29292, TTL 30 s. */
static void test_default_dns_epoch(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}]}", &cfg);
    assert_int_equal(cfg.n_dns, 1);
    assert_int_equal(cfg.dns[0].at_ms, 0);
    assert_int_equal(cfg.dns[0].mode, SIM_DNS_OK);
    assert_int_equal(cfg.dns[0].n_members, 2);
    assert_string_equal(cfg.dns[0].members[1].server, "B");
    assert_int_equal(cfg.dns[0].members[1].port, 29292);
    assert_int_equal(cfg.dns[0].members[1].ttl_s, 30);
    assert_false(cfg.dns[0].members[1].no_addr);
    sim_config_free(&cfg);
}

static void test_defaults_client_template(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"defaults\": {\"client\": {\"auth\": \"cookie\", \"key_id\": 9, \"policy\": \"fastest_valid\","
                     " \"arrivals\": {\"kind\": \"scripted\", \"at_ms\": [5, 6]},"
                     " \"mix\": [{\"guards\": [{\"tracker\": \"db\", \"threshold_ms\": 50}]}]}},"
                     " \"clients\": [{\"name\": \"c1\"}, {\"name\": \"c2\", \"policy\": {\"unit_ms\": 10}}]}",
             &cfg);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(cfg.clients[i].auth, R_AUTH_COOKIE);
        assert_int_equal(cfg.clients[i].key_id, 9);
        assert_int_equal(cfg.clients[i].n_script, 2);
        assert_int_equal(cfg.clients[i].script_ms[1], 6);
        assert_int_equal(cfg.clients[i].mix[0].guards[0].threshold_ms, 50);
        assert_int_equal(cfg.clients[i].mix[0].guards[0].buffer_size, 16);
        assert_int_equal(cfg.clients[i].policy.preference.initial_units, 0); /* fastest_valid */
    }
    assert_int_equal(cfg.clients[0].policy.unit_ms, 20);
    assert_int_equal(cfg.clients[1].policy.unit_ms, 10); /* an override over the template's policy */
    assert_ptr_not_equal(cfg.clients[0].mix, cfg.clients[1].mix); /* each client owns its copy */
    assert_ptr_not_equal(cfg.clients[0].script_ms, cfg.clients[1].script_ms);
    sim_config_free(&cfg);
}

static void test_defaults_server_template(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD "\"defaults\": {\"server\": {\"freshness_ms\": 1000, \"processing_us\": 7}},"
                  " \"servers\": [{\"name\": \"A\"}, {\"name\": \"B\", \"processing_us\": 9}],"
                  " \"clients\": [{\"name\": \"c\"}]}",
             &cfg);
    assert_int_equal(cfg.servers[0].params.freshness_ms, 1000);
    assert_int_equal(cfg.servers[1].params.freshness_ms, 1000);
    assert_int_equal(cfg.servers[0].processing_us, 7);
    assert_int_equal(cfg.servers[1].processing_us, 9);
    sim_config_free(&cfg);
}

/* ---- policy ------------------------------------------------------------------------ */

static void test_policy_preset_shorthand(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\", \"policy\": \"oldest_preferred\"}]}", &cfg);
    r_request_policy_t want;
    assert_int_equal(r_client_request_policy_preset(&want, R_POLICY_OLDEST_PREFERRED), RCLIENT_OK);
    assert_memory_equal(&cfg.clients[0].policy, &want, sizeof want);
    sim_config_free(&cfg);
}

/* A preset, then field overrides; fixed max_units follows initial_units. */
static void test_policy_overrides(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\", \"policy\": {\"preset\": \"strict_oldest\", \"unit_ms\": 10,"
                     " \"replay_gap\": {\"initial_units\": 3}, \"preference\": {\"initial_units\": 2},"
                     " \"completion_delivery\": false}}]}",
             &cfg);
    const r_request_policy_t *p = &cfg.clients[0].policy;
    assert_int_equal(p->unit_ms, 10);
    assert_int_equal(p->replay_count, 1);
    assert_int_equal(p->replay_gap.kind, R_HA_SCHEDULE_FIXED);
    assert_int_equal(p->replay_gap.initial_units, 3);
    assert_int_equal(p->replay_gap.max_units, 3);
    assert_int_equal(p->preference.initial_units, 2);
    assert_int_equal(p->preference.max_units, 2);
    assert_int_equal(p->final_preference_units, 1); /* strict_oldest: P_final = F */
    assert_false(p->completion_delivery);
    sim_config_free(&cfg);
}

/* api_md's preference is exponential with factor 0; a new kind clears it. */
static void test_policy_kind_change_clears_growth(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\", \"policy\": {\"preset\": \"api_md\","
                     " \"replay_gap\": {\"kind\": \"exponential\", \"initial_units\": 1, \"max_units\": 4,"
                     " \"exponential_factor\": 2},"
                     " \"preference\": {\"kind\": \"linear\", \"initial_units\": 1, \"max_units\": 1}}}]}",
             &cfg);
    const r_request_policy_t *p = &cfg.clients[0].policy;
    assert_int_equal(p->replay_gap.kind, R_HA_SCHEDULE_EXPONENTIAL);
    assert_int_equal(p->replay_gap.growth.exponential_factor, 2);
    assert_int_equal(p->replay_gap.max_units, 4);
    assert_int_equal(p->preference.kind, R_HA_SCHEDULE_LINEAR);
    assert_int_equal(p->preference.growth.linear_step_units, 0);
    sim_config_free(&cfg);
}

/* The policy is checked against the client's own quota word. */
static void test_policy_within_a_larger_quota(void **state) {
    (void)state;
    sim_config_t cfg;
    /* dedup_units 200 -> dedup_ttl_ms_max 2000: the canonical word with bits 19..26 = 200
     * (wire_protocol.md "API-key quota word") */
    uint32_t word = (0xf8f2b150u & ~(0xffu << 19)) | (200u << 19);
    char text[512];
    snprintf(text, sizeof text,
             HEAD AB "\"clients\": [{\"name\": \"c\", \"quota_word\": %u, \"policy\": {\"unit_ms\": 200}}]}", word);
    r_api_key_quotas_t q;
    assert_int_equal(r_client_decode_quota_word(word, &q, NULL), RCLIENT_OK);
    assert_int_equal(q.dedup_ttl_ms_max, 2000);
    parse_ok(text, &cfg);
    assert_int_equal(cfg.clients[0].quota_word, word);
    assert_int_equal(cfg.clients[0].policy.unit_ms, 200);
    sim_config_free(&cfg);
}

static void test_hex_strings(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD "\"seed\": \"0xFFFFFFFFFFFFFFFF\", " AB
                  "\"clients\": [{\"name\": \"c\", \"key_id\": \"0x8000000000000001\", \"quota_word\": \"0xf8f2b150\"}]}",
             &cfg);
    assert_true(cfg.seed == UINT64_MAX);
    assert_true(cfg.clients[0].key_id == 0x8000000000000001ull);
    assert_int_equal(cfg.clients[0].quota_word, 0xf8f2b150u);
    sim_config_free(&cfg);
}

/* ---- workload ---------------------------------------------------------------------- */

static void test_mix_service_and_arrivals(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\", \"max_requests\": 7, \"clock_skew_ms\": -40,"
                     " \"arrivals\": {\"kind\": \"poisson\", \"rate_per_s\": 2.5},"
                     " \"dns_refresh\": {\"refresh_interval_ms\": 500, \"forced_refresh_jitter_ms\": 3},"
                     " \"service\": {\"latency\": {\"kind\": \"exp\", \"base_us\": 100, \"spread_us\": 900}},"
                     " \"mix\": [{\"weight\": 3, \"label\": \"w\", \"resources\": [{\"bucket\": \"api\","
                     " \"window_size_ms\": 60000, \"rate_limit\": 5, \"tokens\": 0}]},"
                     " {\"guards\": [{\"tracker\": \"db\", \"threshold_ms\": 9, \"ttl_ms\": 2, \"max_samples\": 3,"
                     " \"buffer_size\": 4, \"min_sample_threshold\": 5}]}]}]}",
             &cfg);
    const sim_client_cfg_t *c = &cfg.clients[0];
    assert_int_equal(c->max_requests, 7);
    assert_int_equal(c->clock_skew_ms, -40);
    assert_true(c->rate_per_s == 2.5);
    assert_int_equal(c->dns_refresh.refresh_interval_ms, 500);
    assert_int_equal(c->dns_refresh.forced_refresh_min_interval_ms, 0);
    assert_int_equal(c->dns_refresh.forced_refresh_jitter_ms, 3);
    assert_true(c->service.enabled);
    assert_int_equal(c->service.model.kind, SIM_LAT_EXP);
    assert_int_equal(c->service.model.spread_us, 900);
    assert_int_equal(c->n_mix, 2);
    assert_int_equal(c->mix[0].weight, 3);
    assert_string_equal(c->mix[0].label, "w");
    assert_int_equal(c->mix[0].resources[0].window_size_ms, 60000);
    assert_int_equal(c->mix[0].resources[0].tokens, 0);
    assert_int_equal(c->mix[1].weight, 1);
    assert_int_equal(c->mix[1].n_resources, 0);
    const sim_guard_cfg_t *g = &c->mix[1].guards[0];
    assert_int_equal(g->threshold_ms, 9);
    assert_int_equal(g->ttl_ms, 2);
    assert_int_equal(g->max_samples, 3);
    assert_int_equal(g->buffer_size, 4);
    assert_int_equal(g->min_sample_threshold, 5);
    sim_config_free(&cfg);
}

/* ---- links, DNS, faults, expectations ------------------------------------------------ */

static void test_link_override_symmetric(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}], \"links\": {\"default\": {\"duplicate_p\": 0.5,"
                     " \"loss\": {\"kind\": \"gilbert\", \"good_to_bad_p\": 0.1, \"bad_to_good_p\": 0.2}},"
                     " \"overrides\": [{\"from\": \"c\", \"to\": \"A\", \"symmetric\": true,"
                     " \"latency\": {\"kind\": \"pareto\", \"base_us\": 5, \"spread_us\": 6}},"
                     " {\"to\": \"B\", \"down\": true}]}}",
             &cfg);
    assert_int_equal(cfg.default_link.loss.kind, SIM_LOSS_GILBERT);
    assert_true(cfg.default_link.loss.loss_good == 0.0);
    assert_true(cfg.default_link.loss.loss_bad == 1.0);
    assert_int_equal(cfg.n_links, 3);
    assert_string_equal(cfg.links[0].from, "c");
    assert_string_equal(cfg.links[0].to, "A");
    assert_string_equal(cfg.links[1].from, "A");
    assert_string_equal(cfg.links[1].to, "c");
    assert_int_equal(cfg.links[1].link.latency.kind, SIM_LAT_PARETO);
    assert_true(cfg.links[1].link.latency.alpha == 2.0);
    assert_true(cfg.links[1].link.duplicate_p == 0.5); /* absent members come from links.default */
    assert_string_equal(cfg.links[2].from, "*");
    assert_true(cfg.links[2].link.down);
    sim_config_free(&cfg);
}

static void test_dns_members(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}], \"dns\": {\"name\": \"x.example\", \"latency_us\": 7,"
                     " \"epochs\": [{\"at_ms\": 0, \"members\": [\"B\", {\"target\": \"s-01.bad.\", \"port\": 1,"
                     " \"ttl_s\": 0, \"no_addr\": true}]}, {\"at_ms\": 10, \"mode\": \"timeout\"},"
                     " {\"at_ms\": 20, \"members\": []}]}}",
             &cfg);
    assert_string_equal(cfg.tenant_dns_name, "x.example");
    assert_int_equal(cfg.dns_latency_us, 7);
    assert_int_equal(cfg.n_dns, 3);
    assert_string_equal(cfg.dns[0].members[0].server, "B");
    assert_string_equal(cfg.dns[0].members[1].server, "");
    assert_string_equal(cfg.dns[0].members[1].raw_target, "s-01.bad.");
    assert_int_equal(cfg.dns[0].members[1].port, 1);
    assert_int_equal(cfg.dns[0].members[1].ttl_s, 0);
    assert_true(cfg.dns[0].members[1].no_addr);
    assert_int_equal(cfg.dns[1].mode, SIM_DNS_TIMEOUT);
    assert_int_equal(cfg.dns[1].n_members, 0);
    assert_int_equal(cfg.dns[2].mode, SIM_DNS_OK);
    assert_int_equal(cfg.dns[2].n_members, 0);
    sim_config_free(&cfg);
}

static void test_fault_kinds(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}], \"faults\": ["
                     "{\"at_ms\": 1, \"kind\": \"pause\", \"target\": \"A\", \"duration_ms\": 30},"
                     "{\"at_ms\": 2, \"kind\": \"partition\", \"target\": \"c\"},"
                     "{\"at_ms\": 3, \"kind\": \"partition\", \"target\": \"c\", \"dir\": \"in\", \"on\": false},"
                     "{\"at_ms\": 4, \"kind\": \"dedup_degrade\", \"target\": \"B\", \"loss_p\": 0.25, \"capacity\": 8},"
                     "{\"at_ms\": 5, \"kind\": \"skew\", \"target\": \"c\", \"skew_ms\": -9},"
                     "{\"at_ms\": 6, \"kind\": \"steering\", \"target\": \"A\", \"mode\": \"random\", \"change_p\": 0.3},"
                     "{\"at_ms\": 7, \"kind\": \"link\", \"from\": \"A\", \"symmetric\": true, \"down\": true},"
                     "{\"at_ms\": 8, \"kind\": \"dedup_heal\", \"target\": \"B\"}]}",
             &cfg);
    assert_int_equal(cfg.n_faults, 9);
    assert_int_equal(cfg.faults[0].kind, SIM_FAULT_PAUSE);
    assert_int_equal(cfg.faults[0].value, 30);
    assert_int_equal(cfg.faults[1].dir, SIM_DIR_BOTH);
    assert_true(cfg.faults[1].on);
    assert_int_equal(cfg.faults[2].dir, SIM_DIR_IN);
    assert_false(cfg.faults[2].on);
    assert_true(cfg.faults[3].p == 0.25);
    assert_int_equal(cfg.faults[3].value, 8);
    assert_int_equal(cfg.faults[4].value, -9);
    assert_int_equal(cfg.faults[5].value, SIM_STEER_RANDOM);
    assert_true(cfg.faults[5].p == 0.3);
    assert_int_equal(cfg.faults[6].kind, SIM_FAULT_LINK);
    assert_string_equal(cfg.faults[6].link.from, "A");
    assert_string_equal(cfg.faults[6].link.to, "*");
    assert_string_equal(cfg.faults[7].link.from, "*"); /* the reverse half, same time */
    assert_string_equal(cfg.faults[7].link.to, "A");
    assert_int_equal(cfg.faults[7].at_ms, 7);
    assert_true(cfg.faults[7].link.link.down);
    assert_int_equal(cfg.faults[8].kind, SIM_FAULT_DEDUP_HEAL);
    sim_config_free(&cfg);
}

/* A restart in a later second than the server's start gets a new server_id. */
static void test_restart_later_second_accepted(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD "\"servers\": [{\"name\": \"A\", \"start_age_s\": 0}], \"clients\": [{\"name\": \"c\"}],"
                  " \"faults\": [{\"at_ms\": 1000, \"kind\": \"restart\", \"target\": \"A\"},"
                  " {\"at_ms\": 2000, \"kind\": \"restart\", \"target\": \"A\"}], \"duration_ms\": 3000}",
             &cfg);
    assert_int_equal(cfg.servers[0].params.server_start_s, RUN_EPOCH_S);
    assert_int_equal(cfg.n_faults, 2);
    sim_config_free(&cfg);
}

static void test_expectation_mappings(void **state) {
    (void)state;
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}], \"expectations\": ["
                     "{\"kind\": \"status\", \"client\": \"c\", \"request\": 4, \"status\": \"RCLIENT_ERR_DNS\"},"
                     "{\"kind\": \"status\", \"client\": \"c\", \"request\": 0, \"status\": \"RCLIENT_OK\"},"
                     "{\"kind\": \"metric\", \"metric\": \"dedup_hit_age\", \"op\": \">\", \"value\": -0.5},"
                     "{\"kind\": \"metric\", \"metric\": \"reports_sent\", \"op\": \"==\", \"value\": 3}]}",
             &cfg);
    assert_int_equal(cfg.expects[0].kind, SIM_EXPECT_STATUS);
    assert_int_equal(cfg.expects[0].index, 4);
    assert_int_equal(cfg.expects[0].status, RCLIENT_ERR_DNS);
    assert_int_equal(cfg.expects[1].status, RCLIENT_OK);
    assert_int_equal(cfg.expects[2].kind, SIM_EXPECT_METRIC);
    assert_string_equal(cfg.expects[2].metric, "dedup_hit_age");
    assert_int_equal(cfg.expects[2].op, SIM_OP_GT);
    assert_true(cfg.expects[2].value == -0.5);
    assert_int_equal(cfg.expects[3].op, SIM_OP_EQ);
    sim_config_free(&cfg);
}

/* ---- ownership, metric names ----------------------------------------------------------- */

static void test_free_is_null_safe_and_idempotent(void **state) {
    (void)state;
    sim_config_free(NULL);
    sim_config_t cfg;
    parse_ok(HEAD AB "\"clients\": [{\"name\": \"c\"}]}", &cfg);
    sim_config_free(&cfg);
    assert_null(cfg.servers);
    assert_int_equal(cfg.n_servers, 0);
    sim_config_free(&cfg); /* a zeroed config frees nothing */
}

/* The metric keys are exactly the sim_metrics_t field names of sim_world.h. */
static void test_metric_names_match_world_header(void **state) {
    (void)state;
    FILE *f = fopen(SIM_SOURCE_DIR "/src/sim_world.h", "r");
    assert_non_null(f);
    char line[512];
    bool in = false;
    size_t fields = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, "typedef struct {") != NULL && !in) {
            in = true;
            fields = 0;
            continue;
        }
        if (in && strstr(line, "} sim_metrics_t;") != NULL) {
            break;
        }
        if (in && strstr(line, "} ") == line) {
            in = false; /* another struct */
            continue;
        }
        char *decl = strstr(line, "uint64_t ") != NULL ? strstr(line, "uint64_t ") + 9
                     : strstr(line, "double ") != NULL ? strstr(line, "double ") + 7
                                                        : NULL;
        char *end = decl != NULL ? strchr(decl, ';') : NULL;
        if (!in || end == NULL) {
            continue;
        }
        *end = '\0';
        for (char *tok = strtok(decl, ", "); tok != NULL; tok = strtok(NULL, ", ")) {
            if (!sim_trace_metric_known(tok)) {
                fail_msg("sim_metrics_t field %s is not a trace metric", tok);
            }
            fields++;
        }
    }
    fclose(f);
    size_t names = 0;
    while (sim_trace_metric_names[names] != NULL) {
        names++;
    }
    assert_int_equal(fields, names);
    assert_false(sim_trace_metric_known("throughput"));
    assert_false(sim_trace_metric_known(NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_required_traces_load),
        cmocka_unit_test(test_every_json_in_traces_loads),
        cmocka_unit_test(test_default_set_names_existing_traces),
        cmocka_unit_test(test_ha_healthy_content),
        cmocka_unit_test(test_minimal_trace_defaults),
        cmocka_unit_test(test_server_defaults),
        cmocka_unit_test(test_client_defaults),
        cmocka_unit_test(test_default_dns_epoch),
        cmocka_unit_test(test_defaults_client_template),
        cmocka_unit_test(test_defaults_server_template),
        cmocka_unit_test(test_policy_preset_shorthand),
        cmocka_unit_test(test_policy_overrides),
        cmocka_unit_test(test_policy_kind_change_clears_growth),
        cmocka_unit_test(test_policy_within_a_larger_quota),
        cmocka_unit_test(test_hex_strings),
        cmocka_unit_test(test_mix_service_and_arrivals),
        cmocka_unit_test(test_link_override_symmetric),
        cmocka_unit_test(test_dns_members),
        cmocka_unit_test(test_fault_kinds),
        cmocka_unit_test(test_restart_later_second_accepted),
        cmocka_unit_test(test_expectation_mappings),
        cmocka_unit_test(test_free_is_null_safe_and_idempotent),
        cmocka_unit_test(test_metric_names_match_world_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
