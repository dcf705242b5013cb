/* SPDX-License-Identifier: MIT */
/* fuzz_rt_request.c - rate request round trip (rl_encode_rate_request,
 * rl_rate_request_size, rl_auth_seal, rl_auth_open; wire_protocol.md "Tenant
 * Header", "Auth Header", "rate_request PDU", "Guard Blocks", "Resource
 * Blocks", "Metrics Label TLV Parameter"; api.md "Capacity limits").
 *
 * Fuzz bytes become a structured request (auth mode, header, dedup_ttl_ms, up
 * to 31 guards and 47 resources, a label of up to 1299 bytes, an output
 * capacity). Checks: the encoder's result (OK, PROTOCOL for over 1200 bytes
 * or cap, CONFIG for a reserved header value) matches the size computed here;
 * an encoded datagram, read back by the independent decoder of fuzz_wire.c,
 * gives every field back; sealing and opening round-trip (fuzz_rt_common.h).
 * The output buffer has exactly cap bytes, so ASan sees any overrun. */
#include "fuzz_rt_common.h"

typedef struct {
    r_auth_type_t mode;
    size_t cap;
    rl_tenant_header_t hdr;
    uint32_t dedup_ttl_ms;
    size_t n_guards, n_resources, label_len;
    r_latency_guard_t guards[FW_MAX_GUARDS];
    r_resource_request_t resources[FW_MAX_RESOURCES];
    uint8_t label[1300];
    uint8_t nonce[12];
    uint32_t flip;
} input_t;

static void read_input(fuzz_reader_t *r, input_t *in) {
    memset(in, 0, sizeof *in);
    in->mode = (r_auth_type_t)(1 + fuzz_u8(r) % 3);
    in->cap = fuzz_read_cap(r);
    fuzz_read_header(r, &in->hdr);
    in->dedup_ttl_ms = fuzz_u32(r);
    in->n_guards = fuzz_u8(r) % FW_MAX_GUARDS;
    in->n_resources = fuzz_u8(r) % FW_MAX_RESOURCES;
    in->label_len = fuzz_u16(r) % sizeof in->label;
    fuzz_bytes(r, in->nonce, sizeof in->nonce);
    in->flip = fuzz_u32(r);
    for (size_t i = 0; i < in->n_guards; i++) {
        r_latency_guard_t *g = &in->guards[i];
        fuzz_bytes(r, g->latency_tracker_id, 16);
        g->threshold_ms = fuzz_u32(r);
        g->ttl_ms = fuzz_u32(r);
        g->max_samples = fuzz_u32(r);
        g->buffer_size = fuzz_u32(r);
        g->min_sample_threshold = fuzz_u32(r);
    }
    for (size_t i = 0; i < in->n_resources; i++) {
        r_resource_request_t *res = &in->resources[i];
        fuzz_bytes(r, res->bucket_id, 16);
        res->window_size_ms = fuzz_u32(r);
        res->rate_limit = fuzz_u32(r);
        res->tokens_requested = fuzz_u16(r);
    }
    fuzz_bytes(r, in->label, in->label_len);
}

static void check_decoded(const input_t *in, const uint8_t *buf, size_t len) {
    fw_rate_request_t dec;
    const char *why = fw_decode_rate_request(buf, len, &dec);
    if (why != NULL) {
        fprintf(stderr, "independent decoder: %s\n", why);
    }
    FUZZ_CHECK(why == NULL);
    fuzz_check_tenant(&dec.tenant, &in->hdr);
    FUZZ_CHECK(dec.auth == in->mode && dec.dedup_ttl_ms == in->dedup_ttl_ms);
    for (size_t i = dec.auth_body_off; i < dec.pdu_off; i++) {
        FUZZ_CHECK(buf[i] == 0); /* the encoder leaves the auth body to rl_auth_seal */
    }
    FUZZ_CHECK(dec.n_guards == in->n_guards && dec.n_resources == in->n_resources);
    for (size_t i = 0; i < in->n_guards; i++) {
        FUZZ_CHECK(memcmp(&dec.guards[i], &in->guards[i], sizeof dec.guards[i]) == 0);
    }
    for (size_t i = 0; i < in->n_resources; i++) {
        const r_resource_request_t *a = &dec.resources[i], *b = &in->resources[i];
        FUZZ_CHECK(memcmp(a->bucket_id, b->bucket_id, 16) == 0 && a->window_size_ms == b->window_size_ms);
        FUZZ_CHECK(a->rate_limit == b->rate_limit && a->tokens_requested == b->tokens_requested);
    }
    FUZZ_CHECK(dec.label_len == in->label_len);
    FUZZ_CHECK(in->label_len == 0 || memcmp(buf + dec.label_off, in->label, in->label_len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    input_t *in = malloc(sizeof *in);
    FUZZ_CHECK(in != NULL);
    read_input(&r, in);
    free(copy);

    size_t label_tlv = in->label_len == 0 ? 0 : (6 + in->label_len + 3) & ~(size_t)3;
    size_t want = 40 + fuzz_auth_size(in->mode) + 12 + 40 * in->n_guards + 28 * in->n_resources + label_tlv;
    FUZZ_CHECK(rl_rate_request_size(in->mode, in->n_guards, in->n_resources, in->label_len) == want);
    int expect = RCLIENT_OK;
    if (in->hdr.steering_feedback > 1 || in->hdr.tenant_mgmt_flag > 1) {
        expect = RCLIENT_ERR_CONFIG;
    } else if (want > 1200 || want > in->cap) {
        expect = RCLIENT_ERR_PROTOCOL;
    }
    uint8_t *buf = malloc(in->cap > 0 ? in->cap : 1);
    FUZZ_CHECK(buf != NULL);
    size_t out_len = 0xA5A5u;
    int rc = rl_encode_rate_request(buf, in->cap, in->mode, &in->hdr, in->dedup_ttl_ms, in->guards, in->n_guards,
                                    in->resources, in->n_resources, in->label, in->label_len, &out_len);
    FUZZ_CHECK(rc == expect);
    if (rc == RCLIENT_OK) {
        FUZZ_CHECK(out_len == want);
        check_decoded(in, buf, out_len);
        fuzz_check_seal(in->mode, buf, out_len, in->nonce, in->flip);
    } else {
        FUZZ_CHECK(out_len == 0xA5A5u);
    }
    free(buf);
    free(in);
    return 0;
}
