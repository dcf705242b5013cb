/* SPDX-License-Identifier: MIT */
/* rr_builder.h - test-only helpers shared by test_response*.c: assemble a
 * Rate Response datagram byte by byte from the wire_protocol.md layout
 * ("Tenant Header", "Auth Header", "rate_response PDU", "Guard Blocks",
 * "Resource Blocks"), seal AES responses, and parse with verdict checks.
 * Include after <cmocka.h>. Header-only: every helper is static inline. */
#ifndef RR_BUILDER_H
#define RR_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rl_response.h"

#define SERVER_ID 0x0000050000018005ull
static const uint64_t TRUSTED[3] = {111, 222, SERVER_ID};
static const uint8_t REQ_UID[16] = {0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
                                    0xA8, 0xA9, 0xAA, 0xAB, 0xAC, 0xAD, 0xAE, 0xAF};

/* Offsets from the Tenant Header table and the rate_response PDU table. */
enum { OFF_KEY_ID = 4, OFF_UID = 12, OFF_TS = 28, OFF_STEER = 36, OFF_MGMT = 37, OFF_PAD = 38, OFF_AUTH = 40 };
enum { PDU_SIZE = 2, PDU_RES1 = 4, PDU_RES2 = 6, PDU_GC = 8, PDU_RC = 10, PDU_BLOCKS = 12 };

typedef struct {
    r_auth_type_t mode; /* auth TLV written into the response */
    uint8_t steering;
    size_t n_guards;
    uint32_t threshold[3], current[3];
    size_t n_resources;
    uint16_t deficit[3];
    uint32_t actual_rate[3];
    const uint8_t *tlvs; /* raw bytes appended after the blocks */
    size_t tlvs_len;
} rr_spec_t;

static inline size_t put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return 2;
}
static inline size_t put32(uint8_t *p, uint32_t v) {
    put16(p, v & 0xFFFFu);
    put16(p + 2, v >> 16);
    return 4;
}
static inline size_t put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
    return 8;
}

static inline uint8_t cookie_value(size_t i) { return (uint8_t)(0x90 + i); }
static inline uint8_t key_byte(size_t i) { return (uint8_t)(0x40 + i); }

static inline size_t auth_size(r_auth_type_t mode) { return mode == R_AUTH_COOKIE ? 36 : mode == R_AUTH_AES ? 32 : 4; }
static inline size_t pdu_off(r_auth_type_t mode) { return 40 + auth_size(mode); }

static inline size_t put_tenant(uint8_t *p, uint8_t steering) {
    size_t n = put16(p, 0x4C52);
    n += put16(p + n, 40);
    n += put64(p + n, SERVER_ID);
    memcpy(p + n, REQ_UID, 16);
    n += 16;
    n += put64(p + n, 0x0000018F12345678ull);
    p[n++] = steering;
    p[n++] = 0; /* tenant_mgmt_flag */
    return n + put16(p + n, 0);
}

static inline size_t put_auth(uint8_t *p, r_auth_type_t mode) {
    uint16_t type = mode == R_AUTH_COOKIE ? 0x4143 : mode == R_AUTH_AES ? 0x4541 : 0x414E;
    size_t size = auth_size(mode);
    put16(p, type);
    put16(p + 2, (uint32_t)size);
    for (size_t i = 4; i < size; i++) {
        p[i] = mode == R_AUTH_COOKIE ? cookie_value(i - 4) : 0;
    }
    return size;
}

static inline size_t put_guard(uint8_t *p, size_t i, uint32_t threshold, uint32_t current) {
    for (size_t k = 0; k < 16; k++) {
        p[k] = (uint8_t)(0x10 + 16 * i + k);
    }
    size_t n = 16 + put32(p + 16, 60000) + put32(p + 20, 100) + put32(p + 24, 32) + put32(p + 28, 5);
    return n + put32(p + 32, threshold) + put32(p + 36, current);
}

static inline size_t put_resource(uint8_t *p, size_t i, uint16_t deficit, uint32_t actual_rate) {
    for (size_t k = 0; k < 16; k++) {
        p[k] = (uint8_t)(0x60 + 16 * i + k);
    }
    return 16 + put32(p + 16, 1000) + put32(p + 20, actual_rate) + put16(p + 24, deficit) + put16(p + 26, 0);
}

/* Plaintext response datagram; pdu_size covers blocks and trailing TLVs. */
static inline size_t build_rr(uint8_t *buf, const rr_spec_t *s) {
    size_t n = put_tenant(buf, s->steering);
    n += put_auth(buf + n, s->mode);
    uint8_t *pdu = buf + n;
    size_t m = put16(pdu, 0x5252);
    m += 2; /* pdu_size, below */
    m += put16(pdu + m, 0) + put16(pdu + m + 2, 0);
    m += put16(pdu + m, (uint32_t)s->n_guards) + put16(pdu + m + 2, (uint32_t)s->n_resources);
    for (size_t i = 0; i < s->n_guards; i++) {
        m += put_guard(pdu + m, i, s->threshold[i], s->current[i]);
    }
    for (size_t i = 0; i < s->n_resources; i++) {
        m += put_resource(pdu + m, i, s->deficit[i], s->actual_rate[i]);
    }
    if (s->tlvs_len > 0) {
        memcpy(pdu + m, s->tlvs, s->tlvs_len);
        m += s->tlvs_len;
    }
    put16(pdu + PDU_SIZE, (uint32_t)m);
    return n + m;
}

static inline rr_spec_t default_spec(r_auth_type_t mode) {
    rr_spec_t s = {.mode = mode, .steering = 1, .n_guards = 1, .threshold = {250}, .current = {100},
                   .n_resources = 1, .deficit = {0}, .actual_rate = {7}};
    return s;
}

static inline void init_key(rl_auth_t *auth, r_auth_type_t mode) {
    uint8_t secret[32];
    for (size_t i = 0; i < 32; i++) {
        secret[i] = mode == R_AUTH_COOKIE ? cookie_value(i) : key_byte(i);
    }
    assert_int_equal(rl_auth_init(auth, mode, secret), RCLIENT_OK);
}

static inline void seal_aes(uint8_t *buf, size_t len) {
    rl_auth_t key;
    uint8_t nonce[12] = {0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xCB};
    init_key(&key, R_AUTH_AES);
    assert_int_equal(rl_auth_seal(&key, buf, len, nonce), RCLIENT_OK);
    rl_auth_release(&key);
}

/* Parse a heap copy of exactly len bytes (ASan sees any over-read) with a
 * key of key_mode; on a non-OK verdict *out must be untouched. The copy is
 * freed on return, so callers must not follow out's pointers. */
static inline rl_verdict_t parse_with(r_auth_type_t key_mode, const uint8_t *bytes, size_t len, rl_rate_response_t *out,
                               uint8_t *copy_back) {
    rl_auth_t key;
    rl_verdict_t v = {.cls = 99, .code = 99, .reason = NULL};
    rl_rate_response_t sentinel;
    uint8_t *copy = malloc(len > 0 ? len : 1);
    assert_non_null(copy);
    if (len > 0) {
        memcpy(copy, bytes, len);
    }
    memset(out, 0xA5, sizeof *out);
    memcpy(&sentinel, out, sizeof sentinel);
    init_key(&key, key_mode);
    rl_verdict_class_t cls = rl_parse_rate_response(&key, copy, len, REQ_UID, TRUSTED, 3, out, &v);
    assert_int_equal(cls, v.cls);
    assert_non_null(v.reason);
    if (cls != RL_VERDICT_OK) {
        assert_memory_equal(out, &sentinel, sizeof sentinel);
    }
    if (copy_back != NULL) {
        memcpy(copy_back, copy, len);
    }
    rl_auth_release(&key);
    free(copy);
    return v;
}

static inline rl_verdict_t parse_plain(r_auth_type_t mode, const uint8_t *bytes, size_t len) {
    rl_rate_response_t out;
    return parse_with(mode, bytes, len, &out, NULL);
}

static inline void expect(rl_verdict_t v, rl_verdict_class_t cls, int code, const char *reason) {
    assert_int_equal(v.cls, cls);
    assert_int_equal(v.code, code);
    if (reason != NULL) {
        assert_string_equal(v.reason, reason);
    }
}

#define EXPECT_MALFORMED(v, reason) expect((v), RL_VERDICT_MALFORMED, RCLIENT_ERR_PROTOCOL, (reason))
#define EXPECT_CORRELATION(v, reason) expect((v), RL_VERDICT_CORRELATION, RCLIENT_OK, (reason))

/* Default cookie response with one byte patched. */
static inline rl_verdict_t cookie_patched(size_t offset, uint8_t value) {
    uint8_t buf[256];
    rr_spec_t s = default_spec(R_AUTH_COOKIE);
    size_t len = build_rr(buf, &s);
    buf[offset] = value;
    return parse_plain(R_AUTH_COOKIE, buf, len);
}

#endif /* RR_BUILDER_H */
