/* SPDX-License-Identifier: MIT */
/* fuzz_admin_common.h - shared pieces of the administrative-channel harnesses
 * (fuzz_admin_response.c, fuzz_admin_request.c).
 *
 * Input layout: byte 0 selects the mode (byte 0 % 3), the rest is the payload:
 *   0  the payload is a plaintext PDU: decode; accepted PDUs re-encode to
 *      exactly the payload (the encoders are canonical), rejected ones leave
 *      the output untouched with a named reason;
 *   1  the payload is a plaintext PDU the harness seals under the fixed key
 *      (FUZZ_ADMIN_KEY, header FUZZ_ADMIN_SERVER / FUZZ_UNIQUE_ID): the
 *      whole-datagram check must agree with the plaintext decode, and decrypt
 *      in place to exactly the payload;
 *   2  the payload is a whole datagram (the vectors' packets are seeds): the
 *      check runs; an accepted one decodes again from its decrypted bytes.
 * The key and unique_id are those of vectors/admin_*.json
 * (vectors/tools/gen_admin_vectors.py), so vector packets are valid seeds. */
#ifndef FUZZ_ADMIN_COMMON_H
#define FUZZ_ADMIN_COMMON_H

#include "fuzz_common.h"
#include "fuzz_keys.h"
#include "r_admin.h"

/* fixed_bytes("admin key", 32) of gen_vectors.py. */
static const uint8_t FUZZ_ADMIN_KEY[32] = {0x4b, 0xbc, 0x60, 0x35, 0xe0, 0x45, 0x15, 0x19, 0x28, 0x15, 0x5b,
                                           0xaa, 0x8c, 0x12, 0x46, 0x24, 0xb8, 0x2a, 0x1f, 0xac, 0x1d, 0xb9,
                                           0x7a, 0xc6, 0x06, 0x5e, 0xb6, 0x18, 0xf0, 0xaf, 0xe3, 0x0a};
#define FUZZ_ADMIN_SERVER 264543141986321ull

static inline r_admin_key_t *fuzz_admin_key(void) {
    r_admin_key_t *k = NULL;
    FUZZ_CHECK(r_admin_key_create_raw(FUZZ_ADMIN_KEY, &k) == RCLIENT_OK);
    return k;
}

/* A rejection: protocol error, a reason, a NUL-terminated non-empty message. */
static inline void fuzz_admin_rejected(int rc, const r_admin_diag_t *d) {
    FUZZ_CHECK(rc == RCLIENT_ERR_PROTOCOL);
    FUZZ_CHECK(d->reason != R_ADMIN_OK);
    FUZZ_CHECK(fuzz_message_ok(d->message, sizeof d->message));
    FUZZ_CHECK(d->message[0] != '\0');
    FUZZ_CHECK(strcmp(r_admin_reason_name(d->reason), "R_ADMIN_ERR_UNKNOWN") != 0);
}

/* Seal pdu[0..len) (1..R_ADMIN_MAX_PDU bytes, >= 8) with key_id into out;
 * returns the datagram length. */
static inline size_t fuzz_admin_seal(r_admin_key_t *k, uint64_t key_id, const uint8_t *pdu, size_t len,
                                     uint8_t out[R_CLIENT_MAX_DATAGRAM]) {
    r_admin_header_t h;
    memset(&h, 0, sizeof h);
    h.key_id = key_id;
    memcpy(h.unique_id, FUZZ_UNIQUE_ID, 16);
    h.time_stamp_ms = 1767225600123ull;
    h.steering_feedback = 1;
    static const uint8_t nonce[12] = {0xad, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99};
    size_t n = 0;
    r_admin_diag_t d;
    FUZZ_CHECK(r_admin_seal(k, &h, nonce, pdu, len, out, R_CLIENT_MAX_DATAGRAM, &n, &d) == RCLIENT_OK);
    FUZZ_CHECK(n == len + R_ADMIN_FRAME_OVERHEAD);
    return n;
}

static inline uint16_t fuzz_le16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}

#endif /* FUZZ_ADMIN_COMMON_H */
