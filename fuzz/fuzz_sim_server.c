/* SPDX-License-Identifier: MIT */
/* fuzz_sim_server.c - the reference r-server model's request and report
 * decoders (sim_server_handle; wire_protocol.md), and the differential check
 * of the server's parser against the client's encoder.
 *
 * Mode from the first byte:
 *  - raw: the remaining bytes are one datagram for a server with three
 *    tenants (key_id 1 none, 2 cookie, 3 aes). Invariants: a reply exists
 *    exactly for ANSWERED/REPLAYED, fits the buffer, and parses as a valid
 *    response in the client's parser for that tenant (any auth mode);
 *  - encode: the bytes pick a structured request (counts, settings, label)
 *    that the CLIENT encodes and seals; the server must decode it (never
 *    MALFORMED or AUTH) and its reply must pass the client's parser. */
#include <string.h>

#include "fuzz_common.h"
#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "rl_response.h"
#include "rl_wire.h"
#include "fuzz_sim_world.h"
#include "sim_server.h"

/* A reply must be a valid response for its tenant's auth and the request's unique_id. */
static void check_reply(world_t *w, r_auth_type_t type, const uint8_t *uid, uint8_t *reply, size_t len) {
    rl_rate_response_t resp;
    rl_verdict_t v;
    FUZZ_CHECK(rl_parse_rate_response(&w->auth[type], reply, len, uid, &w->server_id, 1, &resp, &v) == RL_VERDICT_OK);
}

/* A fresh answer is the request modified in place (wire_protocol.md
 * "rate_response PDU"): it answers the request block by block, and the
 * client's decision with the requested thresholds (every current_latency
 * below its own guard's threshold, every deficit 0) is the server's. */
static void check_answers(world_t *w, r_auth_type_t type, const uint8_t *reply, size_t len,
                          const r_latency_guard_t *guards, size_t n_guards, const r_resource_request_t *res,
                          size_t n_res, bool allowed) {
    uint8_t copy[1500];
    memcpy(copy, reply, len);
    rl_rate_response_t resp;
    rl_verdict_t v;
    FUZZ_CHECK(rl_parse_rate_response(&w->auth[type], copy, len, copy + 12, &w->server_id, 1, &resp, &v) ==
               RL_VERDICT_OK);
    FUZZ_CHECK(rl_response_match(&resp, guards, n_guards, res, n_res, &v) == RL_VERDICT_OK);
    FUZZ_CHECK(resp.success == allowed);
}

static void run_raw(world_t *w, const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_dup(data, size);
    uint8_t out[1500];
    size_t out_len = 99;
    sim_server_result_t res;
    sim_server_verdict_t v = sim_server_handle(w->srv, NOW_MS, in, size, out, sizeof out, &out_len, &res);
    bool replied = v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED;
    FUZZ_CHECK(replied ? out_len > 0 && out_len <= sizeof out : out_len == 0);
    if (replied && res.key_id >= R_AUTH_NONE && res.key_id <= R_AUTH_AES) {
        check_reply(w, (r_auth_type_t)res.key_id, res.unique_id, out, out_len);
    }
    free(in);
}

static void run_encoded(world_t *w, fuzz_reader_t *r) {
    r_auth_type_t type = (r_auth_type_t)(R_AUTH_NONE + fuzz_u8(r) % 3);
    size_t n_res = fuzz_u8(r) % 5, n_guards = fuzz_u8(r) % 5;
    r_resource_request_t res[4];
    r_latency_guard_t guards[4];
    for (size_t i = 0; i < n_res; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].window_size_ms = 1u + fuzz_u16(r);
        res[i].rate_limit = fuzz_u16(r);
        res[i].tokens_requested = fuzz_u16(r);
        res[i].bucket_id[0] = (uint8_t)i; /* distinct ids: the settings bind per id */
        res[i].bucket_id[1] = fuzz_u8(r);
    }
    for (size_t i = 0; i < n_guards; i++) {
        memset(&guards[i], 0, sizeof guards[i]);
        guards[i].threshold_ms = fuzz_u16(r);
        guards[i].ttl_ms = fuzz_u16(r);
        guards[i].max_samples = 1u + fuzz_u8(r);
        guards[i].buffer_size = 1u + fuzz_u8(r) % 32u;
        guards[i].min_sample_threshold = fuzz_u8(r);
        guards[i].latency_tracker_id[0] = (uint8_t)(0x80u | i);
        guards[i].latency_tracker_id[1] = fuzz_u8(r);
        if (i > 0 && (guards[i].latency_tracker_id[1] & 3u) == 1u) {
            /* r-client.md 5.2: the first guard's tracker again, under its own threshold */
            uint32_t threshold = guards[i].threshold_ms;
            guards[i] = guards[0];
            guards[i].threshold_ms = threshold;
        }
    }
    uint8_t label[40];
    size_t label_len = fuzz_u8(r) % sizeof label;
    for (size_t i = 0; i < label_len; i++) label[i] = (uint8_t)('a' + fuzz_u8(r) % 26);
    rl_tenant_header_t hdr;
    memset(&hdr, 0, sizeof hdr);
    hdr.key_id = (uint64_t)type;
    hdr.time_stamp_ms = NOW_MS;
    hdr.steering_feedback = 1;
    for (int i = 0; i < 16; i++) hdr.unique_id[i] = fuzz_u8(r);
    uint8_t nonce[12];
    for (int i = 0; i < 12; i++) nonce[i] = fuzz_u8(r);
    uint8_t dgram[RL_MAX_DATAGRAM];
    size_t len = 0;
    if (n_res + n_guards == 0 ||
        rl_encode_rate_request(dgram, sizeof dgram, type, &hdr, 1u + fuzz_u8(r), guards, n_guards, res, n_res,
                               label, label_len, &len) != RCLIENT_OK) {
        return;
    }
    FUZZ_CHECK(rl_auth_seal(&w->auth[type], dgram, len, nonce) == RCLIENT_OK);
    uint8_t out[1500];
    size_t out_len = 0;
    sim_server_result_t sres;
    sim_server_verdict_t v = sim_server_handle(w->srv, NOW_MS, dgram, len, out, sizeof out, &out_len, &sres);
    /* The client's own encoding is never malformed nor unauthenticated to the server. */
    FUZZ_CHECK(v != SIM_SRV_DROP_MALFORMED && v != SIM_SRV_DROP_AUTH && v != SIM_SRV_DROP_TENANT);
    if (v == SIM_SRV_ANSWERED) { /* before check_reply, which decrypts out in place */
        check_answers(w, type, out, out_len, guards, n_guards, res, n_res, sres.allowed);
    }
    if (v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED) {
        check_reply(w, type, hdr.unique_id, out, out_len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) return 0;
    world_t w;
    world_init(&w);
    if (data[0] & 1) {
        run_raw(&w, data + 1, size - 1);
    } else {
        fuzz_reader_t r = fuzz_reader(data + 1, size - 1);
        while (fuzz_left(&r) > 0) run_encoded(&w, &r); /* several requests: bindings and dedup */
    }
    world_free(&w);
    return 0;
}
