/* SPDX-License-Identifier: MIT */
/* fuzz_sim_server_admin.c - the reference r-server model's administrative
 * decoders and encoders (sim/src/sim_server_admin.c: Tenant Mutation,
 * Status Query, Metrics Query; wire_protocol.md "Administrative PDUs"), and
 * the differential check of the server against the client's admin codec
 * (r_admin.h).
 *
 * Mode from the first byte:
 *  - even: the second byte picks the Tenant Header key_id (0, the world's
 *    tenants 1..3, or an unknown 77) and the rest is a plaintext admin PDU,
 *    sealed under the admin key with the CODEC's r_admin_seal; handled
 *    three times: twice in one processing batch, once after a new batch;
 *  - odd: the rest is one raw datagram.
 * Invariants: a reply exists exactly for the answered / replayed verdicts
 * (rate or admin) and fits 1200 bytes; every drop names its rule; an admin
 * reply passes the codec's response check for its request kind (tag under
 * the admin key, pdu decode, unique_id, server_id, echoes); a Tenant
 * Mutation the server acknowledged afresh is one the codec's server-side
 * decoder accepts too (decode and the deterministic validation rules), and
 * a Status Query the server answered decodes in the codec; a second Metrics
 * Query for a known tenant in one batch is never answered. */
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_sim_world.h"
#include "r_admin.h"
#include "sim_server.h"

static const uint8_t ADMIN_KEY[32] = {0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA,
                                      0xAB, 0xAC, 0xAD, 0xAE, 0xAF, 0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5,
                                      0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xBB, 0xBC, 0xBD, 0xBE, 0xBF};

static bool answered(sim_server_verdict_t v) {
    return v == SIM_SRV_ANSWERED || v == SIM_SRV_REPLAYED || v == SIM_SRV_ADMIN_ANSWERED ||
           v == SIM_SRV_ADMIN_REPLAYED;
}

static sim_server_verdict_t handle(world_t *w, const uint8_t *d, size_t len, uint8_t *out, size_t *out_len,
                                   sim_server_result_t *r) {
    uint8_t copy[1300];
    FUZZ_CHECK(len <= sizeof copy);
    memcpy(copy, d, len);
    sim_server_verdict_t v = sim_server_handle(w->srv, NOW_MS, copy, len, out, 1200, out_len, r);
    FUZZ_CHECK(v >= 0 && v < SIM_SRV_VERDICTS);
    FUZZ_CHECK((*out_len > 0) == answered(v));
    FUZZ_CHECK(*out_len <= 1200);
    if (!answered(v) && v != SIM_SRV_REPORT) {
        FUZZ_CHECK(r->why.where != NULL);
    }
    return v;
}

/* The reply to a sealed admin request passes the codec's client checks. */
static void check_reply(r_admin_key_t *key, const uint8_t *uid, const uint8_t *pdu, size_t n, uint8_t *reply,
                        size_t len, uint64_t server_id) {
    r_admin_diag_t diag;
    uint16_t type = (uint16_t)(pdu[0] | (pdu[1] << 8));
    if (type == R_ADMIN_PDU_TENANT_MUTATION) {
        r_admin_tenant_ack_t ack;
        FUZZ_CHECK(r_admin_check_tenant_ack(key, reply, len, uid, pdu[4], server_id, NULL, &ack, &diag) ==
                   RCLIENT_OK);
    } else if (type == R_ADMIN_PDU_STATUS_QUERY) {
        r_admin_status_response_t sr;
        FUZZ_CHECK(r_admin_check_status_response(key, reply, len, uid, server_id, NULL, &sr, &diag) == RCLIENT_OK);
    } else {
        FUZZ_CHECK(type == R_ADMIN_PDU_METRICS_QUERY && n >= 8);
        r_admin_metrics_response_t mr;
        FUZZ_CHECK(r_admin_check_metrics_response(key, reply, len, uid, pdu[4], server_id, NULL, &mr, &diag) ==
                   RCLIENT_OK);
    }
}

static void sealed(world_t *w, r_admin_key_t *key, const uint8_t *data, size_t size) {
    static const uint64_t key_ids[] = {0, 1, 2, 3, 77};
    if (size < 1) {
        return;
    }
    uint64_t key_id = key_ids[data[0] % 5];
    const uint8_t *pdu = data + 1;
    size_t n = size - 1;
    if (n < 8 || n > R_ADMIN_MAX_PDU) {
        return;
    }
    r_admin_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = key_id;
    h.unique_id[0] = 0x42;
    h.unique_id[15] = (uint8_t)n;
    h.time_stamp_ms = NOW_MS;
    h.steering_feedback = 1;
    uint8_t nonce[R_ADMIN_NONCE_LEN] = {0};
    uint8_t dgram[1200];
    size_t len = 0;
    FUZZ_CHECK(r_admin_seal(key, &h, nonce, pdu, n, dgram, sizeof dgram, &len, NULL) == RCLIENT_OK);
    uint64_t server_id = sim_server_id(w->srv);
    uint16_t type = (uint16_t)(pdu[0] | (pdu[1] << 8));
    bool known_tenant = key_id >= 1 && key_id <= 3;
    sim_server_batch_begin(w->srv);
    sim_server_verdict_t first = SIM_SRV_DROP_MALFORMED;
    for (int round = 0; round < 3; round++) {
        if (round == 2) {
            sim_server_batch_begin(w->srv);
        }
        uint8_t out[1200];
        size_t out_len = 0;
        sim_server_result_t r;
        sim_server_verdict_t v = handle(w, dgram, len, out, &out_len, &r);
        if (round == 0) {
            first = v;
        }
        FUZZ_CHECK(v != SIM_SRV_ANSWERED && v != SIM_SRV_REPLAYED && v != SIM_SRV_REPORT);
        if (v == SIM_SRV_ADMIN_ANSWERED || v == SIM_SRV_ADMIN_REPLAYED) {
            check_reply(key, h.unique_id, pdu, n, out, out_len, server_id);
        }
        if (type == R_ADMIN_PDU_METRICS_QUERY && round == 1 && known_tenant && first == SIM_SRV_ADMIN_ANSWERED) {
            FUZZ_CHECK(v == SIM_SRV_DROP_ADMIN); /* one Metrics Query per tenant per batch */
        }
        if (v == SIM_SRV_ADMIN_ANSWERED && (type == R_ADMIN_PDU_TENANT_MUTATION || type == R_ADMIN_PDU_STATUS_QUERY)) {
            uint8_t again[1200];
            memcpy(again, dgram, len);
            r_admin_request_t req;
            r_auth_key_info_t info;
            FUZZ_CHECK(r_admin_decode_request(key, again, len, NULL, &req, &info, NULL) == RCLIENT_OK);
            memset(&info, 0, sizeof info);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || size > 1201) {
        return 0;
    }
    world_t w;
    world_init(&w);
    FUZZ_CHECK(sim_server_set_admin_key(w.srv, ADMIN_KEY) == 0);
    r_admin_key_t *key = NULL;
    FUZZ_CHECK(r_admin_key_create_raw(ADMIN_KEY, &key) == RCLIENT_OK);
    if ((data[0] & 1u) == 0) {
        sealed(&w, key, data + 1, size - 1);
    } else {
        uint8_t out[1200];
        size_t out_len = 0;
        sim_server_result_t r;
        sim_server_batch_begin(w.srv);
        (void)handle(&w, data + 1, size - 1, out, &out_len, &r);
        (void)handle(&w, data + 1, size - 1, out, &out_len, &r);
    }
    r_admin_key_destroy(key);
    world_free(&w);
    return 0;
}
