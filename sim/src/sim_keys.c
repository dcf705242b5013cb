/* SPDX-License-Identifier: MIT */
/* sim_keys.c - Bech32 (BIP-173) encoding and simulated tenant credentials. */
#include <string.h>

#include <openssl/evp.h>

#include "sim_keys.h"

static const char CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint32_t polymod(const uint8_t *v, size_t n) {
    static const uint32_t GEN[5] = {0x3b6a57b2u, 0x26508e6du, 0x1ea119fau, 0x3d4233ddu, 0x2a1462b3u};
    uint32_t chk = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t top = chk >> 25;
        chk = ((chk & 0x1ffffffu) << 5) ^ v[i];
        for (int b = 0; b < 5; b++) {
            if ((top >> b) & 1u) chk ^= GEN[b];
        }
    }
    return chk;
}

int sim_bech32_encode(const char *hrp, const uint8_t *data, size_t len, char *out, size_t cap) {
    uint8_t v[512];
    size_t hl = strlen(hrp), n = 0;
    size_t groups = (len * 8 + 4) / 5;
    if (hl == 0 || hl * 2 + 1 + groups + 6 > sizeof v || hl + 1 + groups + 6 + 1 > cap) {
        return -1;
    }
    for (size_t i = 0; i < hl; i++) v[n++] = (uint8_t)(hrp[i] >> 5);
    v[n++] = 0;
    for (size_t i = 0; i < hl; i++) v[n++] = (uint8_t)(hrp[i] & 31);
    size_t data_start = n;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        acc = (acc << 8) | data[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            v[n++] = (uint8_t)((acc >> bits) & 31);
        }
    }
    if (bits > 0) v[n++] = (uint8_t)((acc << (5 - bits)) & 31);
    size_t data_end = n;
    for (int i = 0; i < 6; i++) v[n++] = 0;
    uint32_t pm = polymod(v, n) ^ 1u;
    for (int i = 0; i < 6; i++) v[data_end + (size_t)i] = (uint8_t)((pm >> (5 * (5 - i))) & 31);
    size_t o = 0;
    memcpy(out, hrp, hl);
    o = hl;
    out[o++] = '1';
    for (size_t i = data_start; i < data_end + 6; i++) out[o++] = CHARSET[v[i]];
    out[o] = '\0';
    return (int)o;
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int sim_key_make(r_auth_type_t auth, uint64_t key_id, uint32_t quota_word, char *out, size_t cap) {
    static const char *HRP[4] = {NULL, "rl-none", "rl-cookie", "rl-aes"};
    if (auth < R_AUTH_NONE || auth > R_AUTH_AES) {
        return -1;
    }
    uint8_t payload[45];
    size_t n = 0;
    payload[n++] = 1; /* format_version */
    put_le(payload + n, key_id, 8);
    n += 8;
    if (auth != R_AUTH_NONE) {
        uint8_t seed[22 + 8];
        memcpy(seed, "ratelimitly-sim-secret", 22);
        put_le(seed + 22, key_id, 8);
        unsigned int md_len = 0;
        if (EVP_Digest(seed, sizeof seed, payload + n, &md_len, EVP_sha256(), NULL) != 1 || md_len != 32) {
            return -1;
        }
        n += 32;
    }
    put_le(payload + n, quota_word, 4);
    n += 4;
    return sim_bech32_encode(HRP[auth], payload, n, out, cap) < 0 ? -1 : 0;
}
