/* SPDX-License-Identifier: MIT */
/* fuzz_response.c - rate response framing and parsing for one auth mode
 * (rl_response_peek, rl_parse_rate_response, rl_response_guard_at,
 * rl_response_resource_at; wire_protocol.md "Tenant Header", "Auth Header",
 * "rate_response PDU", "Response Semantics"; r-client.md 6.4).
 *
 * Built three times: FUZZ_RESPONSE_MODE 1 (none), 2 (cookie), 3 (AES-256-GCM)
 * with the fixed keys of fuzz_keys.h. The input is the whole datagram.
 *
 * Differential: the verdict class and code, and every parsed field, against
 * the independent oracle of fuzz_wire.c; peek accepts exactly the datagrams
 * whose outer framing is valid; a rejected parse leaves out untouched; none
 * and cookie never modify the datagram. For AES the oracle cannot decrypt: a
 * tag failure is taken from the parser, and any datagram that got past the
 * tag is re-checked as the plaintext the parser left in place. */
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_keys.h"
#include "fuzz_wire.h"
#include "rl_response.h"

#ifndef FUZZ_RESPONSE_MODE
#error "FUZZ_RESPONSE_MODE must be 1 (none), 2 (cookie) or 3 (aes)"
#endif

static void check_views(const rl_rate_response_t *resp) {
    for (size_t i = 0; i <= resp->guard_count; i++) {
        rl_guard_view_t g;
        rl_response_guard_at(resp, i, &g);
        if (i == resp->guard_count) {
            FUZZ_CHECK(g.latency_tracker_id == NULL && g.latency_threshold == 0 && !g.passed);
            break;
        }
        const uint8_t *b = resp->guards + 40 * i;
        FUZZ_CHECK(g.latency_tracker_id == b && g.ttl_ms == fw_u32(b + 16) && g.buffer_size == fw_u32(b + 24));
        FUZZ_CHECK(g.latency_threshold == fw_u32(b + 32) && g.current_latency == fw_u32(b + 36));
        FUZZ_CHECK(g.passed == (g.current_latency < g.latency_threshold));
    }
    for (size_t i = 0; i <= resp->resource_count; i++) {
        rl_resource_view_t r;
        rl_response_resource_at(resp, i, &r);
        if (i == resp->resource_count) {
            FUZZ_CHECK(r.bucket_id == NULL && r.actual_rate == 0 && r.tokens_deficit == 0);
            break;
        }
        const uint8_t *b = resp->resources + 28 * i;
        FUZZ_CHECK(r.bucket_id == b && r.window_size_ms == fw_u32(b + 16));
        FUZZ_CHECK(r.actual_rate == fw_u32(b + 20) && r.tokens_deficit == fw_u16(b + 24));
    }
}

static void check_accepted(const rl_rate_response_t *resp, const fw_response_t *want, const uint8_t *d) {
    FUZZ_CHECK(resp->server_id == want->server_id && resp->server_index == want->server_index);
    FUZZ_CHECK(resp->time_stamp_ms == want->time_stamp_ms && resp->keep_port == want->keep_port);
    FUZZ_CHECK(resp->unique_id == d + 12);
    FUZZ_CHECK(resp->guard_count == want->guard_count && resp->resource_count == want->resource_count);
    FUZZ_CHECK(resp->guards == d + want->guards_off && resp->resources == d + want->resources_off);
    FUZZ_CHECK(resp->success == want->success);
    check_views(resp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const r_auth_type_t mode = (r_auth_type_t)FUZZ_RESPONSE_MODE;
    uint8_t *d = fuzz_dup(data, size);
    uint8_t *orig = fuzz_dup(data, size);
    rl_auth_t auth;
    FUZZ_CHECK(rl_auth_init(&auth, mode, mode == R_AUTH_COOKIE ? FUZZ_COOKIE : FUZZ_AES_KEY) == RCLIENT_OK);
    fw_response_key_t key = {mode, FUZZ_COOKIE, FUZZ_UNIQUE_ID, FUZZ_TRUSTED, 2};

    fw_response_t pre;
    fw_check_response(orig, size, &key, false, &pre);
    const uint8_t *uid = NULL;
    rl_verdict_t pv;
    rl_verdict_class_t pc = rl_response_peek(d, size, &uid, &pv);
    FUZZ_CHECK((pc == RL_VERDICT_OK) == pre.outer_ok && pv.cls == pc && pv.reason != NULL);
    FUZZ_CHECK(pc == RL_VERDICT_OK ? (uid == d + 12 && pv.code == RCLIENT_OK) : pv.code == RCLIENT_ERR_PROTOCOL);

    rl_rate_response_t resp, untouched;
    memset(&resp, 0xA5, sizeof resp);
    untouched = resp;
    rl_verdict_t v;
    rl_verdict_class_t c = rl_parse_rate_response(&auth, d, size, FUZZ_UNIQUE_ID, FUZZ_TRUSTED, 2, &resp, &v);
    FUZZ_CHECK(c == v.cls && v.reason != NULL);

    fw_response_t want = pre;
    bool tag_tried = mode == R_AUTH_AES && pre.pre_auth_ok && fw_u16(orig + 40) == 0x4541u;
    if (!tag_tried) {
        fw_check_response(orig, size, &key, true, &want);
        FUZZ_CHECK(memcmp(d, orig, size) == 0); /* nothing decrypted in place */
    } else if (!(c == RL_VERDICT_AUTH && v.code == RCLIENT_ERR_PROTOCOL)) {
        fw_check_response(d, size, &key, true, &want); /* the tag verified: d is plaintext now */
        FUZZ_CHECK(memcmp(d, orig, 72) == 0);          /* tenant, auth TLV, nonce and tag kept */
    }
    FUZZ_CHECK((int)c == (int)want.cls && v.code == want.code);
    if (c == RL_VERDICT_OK) {
        check_accepted(&resp, &want, d);
    } else {
        FUZZ_CHECK(memcmp(&resp, &untouched, sizeof resp) == 0);
    }
    rl_auth_release(&auth);
    free(orig);
    free(d);
    return 0;
}
