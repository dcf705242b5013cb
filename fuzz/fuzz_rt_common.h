/* SPDX-License-Identifier: MIT */
/* fuzz_rt_common.h - shared parts of the request and report round-trip
 * harnesses: reading a tenant header from fuzz bytes, the expected frame size,
 * and the seal/open checks every client datagram must pass. */
#ifndef FUZZ_RT_COMMON_H
#define FUZZ_RT_COMMON_H

#include <string.h>

#include "fuzz_common.h"
#include "fuzz_keys.h"
#include "fuzz_wire.h"
#include "rl_auth.h"
#include "rl_wire.h"

/* Tenant header fields; steering_feedback and tenant_mgmt_flag are masked to
 * 0/1 unless the flags byte asks for raw (possibly reserved) values. */
static inline void fuzz_read_header(fuzz_reader_t *r, rl_tenant_header_t *hdr) {
    memset(hdr, 0, sizeof *hdr);
    uint8_t flags = fuzz_u8(r);
    hdr->key_id = fuzz_u64(r);
    fuzz_bytes(r, hdr->unique_id, sizeof hdr->unique_id);
    hdr->time_stamp_ms = fuzz_u64(r);
    hdr->steering_feedback = (flags & 0x80u) ? fuzz_u8(r) : (flags & 1u);
    hdr->tenant_mgmt_flag = (flags & 0x80u) ? fuzz_u8(r) : ((flags >> 1) & 1u);
}

/* Output buffer capacity: usually the full datagram, sometimes smaller. */
static inline size_t fuzz_read_cap(fuzz_reader_t *r) {
    uint16_t v = fuzz_u16(r);
    return (v & 0xF000u) == 0xF000u ? (size_t)(v % 1201u) : 1200u;
}

static inline size_t fuzz_auth_size(r_auth_type_t mode) {
    return mode == R_AUTH_NONE ? 4u : (mode == R_AUTH_COOKIE ? 36u : 32u);
}

static inline void fuzz_check_tenant(const fw_tenant_t *t, const rl_tenant_header_t *hdr) {
    FUZZ_CHECK(t->key_id == hdr->key_id && memcmp(t->unique_id, hdr->unique_id, 16) == 0);
    FUZZ_CHECK(t->time_stamp_ms == hdr->time_stamp_ms);
    FUZZ_CHECK(t->steering_feedback == hdr->steering_feedback && t->tenant_mgmt_flag == hdr->tenant_mgmt_flag);
}

/* Seal plain[0..len) as a client does, check the auth body, open it with a
 * second instance of the key (the server's) and get plain back; then flip one
 * bit (flip selects where) and check which flips the mode detects: AES any
 * bit, cookie the auth TLV, none only its header. */
static inline void fuzz_check_seal(r_auth_type_t mode, const uint8_t *plain, size_t len, const uint8_t nonce[12],
                                   uint32_t flip) {
    const uint8_t *secret = mode == R_AUTH_AES ? FUZZ_AES_KEY : FUZZ_COOKIE;
    rl_auth_t client, server;
    FUZZ_CHECK(rl_auth_init(&client, mode, secret) == RCLIENT_OK);
    FUZZ_CHECK(rl_auth_init(&server, mode, secret) == RCLIENT_OK);
    uint8_t *d = fuzz_dup(plain, len);
    FUZZ_CHECK(rl_auth_seal(&client, d, len, nonce) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(d, plain, 44) == 0); /* tenant TLV and auth header in clear */
    if (mode == R_AUTH_COOKIE) FUZZ_CHECK(memcmp(d + 44, FUZZ_COOKIE, 32) == 0);
    if (mode == R_AUTH_AES) FUZZ_CHECK(memcmp(d + 44, nonce, 12) == 0);
    if (mode != R_AUTH_AES) FUZZ_CHECK(memcmp(d + 44 + (mode == R_AUTH_COOKIE ? 32 : 0),
                                              plain + 44 + (mode == R_AUTH_COOKIE ? 32 : 0),
                                              len - 44 - (mode == R_AUTH_COOKIE ? 32 : 0)) == 0);
    uint8_t *flipped = fuzz_dup(d, len);
    size_t head = 40 + fuzz_auth_size(mode);
    FUZZ_CHECK(rl_auth_open(&server, d, len, NULL) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(d + head, plain + head, len - head) == 0);
    size_t pos = (flip >> 3) % len;
    flipped[pos] ^= (uint8_t)(1u << (flip & 7u));
    int rc = rl_auth_open(&server, flipped, len, NULL);
    bool in_auth_header = pos >= 40 && pos < 44;
    bool in_cookie = mode == R_AUTH_COOKIE && pos >= 44 && pos < 76;
    bool detected = mode == R_AUTH_AES || in_auth_header || in_cookie;
    FUZZ_CHECK((rc != RCLIENT_OK) == detected);
    free(flipped);
    free(d);
    rl_auth_release(&client);
    rl_auth_release(&server);
}

#endif /* FUZZ_RT_COMMON_H */
