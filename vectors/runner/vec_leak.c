/* SPDX-License-Identifier: MIT */
/* vec_leak.c - key material on the wire (see vec_leak.h). */
#include "vec_leak.h"

#include <string.h>

#include <openssl/crypto.h>

#include "r_client.h"
#include "vec_json.h"

#define COOKIE_TLV_AT 40u   /* the auth TLV follows the 40-byte tenant TLV (cookie or AES) */
#define COOKIE_TLV_TYPE 0x4143u

/* The longest run of secret bytes at pkt[i], and where in the secret it starts. */
static size_t run_at(const uint8_t *pkt, size_t len, size_t i, const uint8_t *secret, size_t slen)
{
    size_t best = 0;
    for (size_t j = 0; j < slen; j++) {
        size_t n = 0;
        while (i + n < len && j + n < slen && pkt[i + n] == secret[j + n])
            n++;
        if (n > best)
            best = n;
    }
    return best;
}

bool vec_datagram_leaks(const char *key_text, const uint8_t *pkt, size_t len, char *msg, size_t cap)
{
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    if (key_text == NULL || r_client_parse_auth_key(key_text, 0, &info) != RCLIENT_OK || !info.has_secret) {
        OPENSSL_cleanse(&info, sizeof info);
        return false;
    }
    bool cookie = info.type == R_AUTH_COOKIE;
    /* the cookie's own place: the whole cookie behind a cookie TLV header */
    bool in_place = cookie && len >= COOKIE_TLV_AT + 4u + R_CLIENT_SECRET_LEN &&
                    (pkt[COOKIE_TLV_AT] | (unsigned)pkt[COOKIE_TLV_AT + 1] << 8) == COOKIE_TLV_TYPE &&
                    memcmp(pkt + COOKIE_TLV_AT + 4u, info.secret, R_CLIENT_SECRET_LEN) == 0;
    bool found = false;
    for (size_t i = 0; i < len && !found; i++) {
        if (in_place && i >= COOKIE_TLV_AT + 4u && i < COOKIE_TLV_AT + 4u + R_CLIENT_SECRET_LEN)
            continue;
        size_t n = run_at(pkt, len, i, info.secret, R_CLIENT_SECRET_LEN);
        if (in_place && i < COOKIE_TLV_AT + 4u && i + n > COOKIE_TLV_AT + 4u)
            n = COOKIE_TLV_AT + 4u - i; /* a run into the cookie's place counts up to it */
        if (n >= VEC_LEAK_MIN_RUN) {
            vec_format(msg, cap, "the datagram carries %zu bytes of the %s at offset %zu%s", n,
                       cookie ? "cookie" : "AES key", i, cookie ? " outside the cookie TLV" : "");
            found = true;
        }
    }
    OPENSSL_cleanse(&info, sizeof info);
    return found;
}

#define AES_TLV_TYPE 0x4541u
#define NONCE_AT 44u
#define NONCE_LEN 12u

static bool aes_sealed(const uint8_t *p, size_t len)
{
    return len >= NONCE_AT + NONCE_LEN && (p[COOKIE_TLV_AT] | (unsigned)p[COOKIE_TLV_AT + 1] << 8) == AES_TLV_TYPE;
}

bool vec_nonce_reused(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len)
{
    if (!aes_sealed(a, a_len) || !aes_sealed(b, b_len) || memcmp(a + NONCE_AT, b + NONCE_AT, NONCE_LEN) != 0)
        return false;
    return a_len != b_len || memcmp(a, b, a_len) != 0;
}
