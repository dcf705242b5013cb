/* SPDX-License-Identifier: MIT */
/* bech32.c - Bech32 (BIP-173) text codec with 8-bit payload conversion,
 * used by the credential formats (wire_protocol.md "Bech32 Credential Formats").
 *
 * BIP-173's 90-character limit is deliberately not enforced: legacy
 * credentials (56/60-byte payloads, about 103 characters) must reach the
 * length check so they are reported as a payload-length error, not as a
 * malformed string. The checksum is computed in one streaming pass, so any
 * length can be checked without a buffer; payload bytes beyond
 * RL_BECH32_PAYLOAD_MAX are counted but not stored. */
#include "rl_bech32.h"

#include <string.h>

#include <openssl/crypto.h>

static const char CHARSET[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

#define BECH32_CHECKSUM_LEN 6u
#define BECH32_CONST 1u /* BIP-173; BIP-350's bech32m constant is not used */

static uint32_t polymod_step(uint32_t chk, uint8_t value) {
    static const uint32_t GEN[5] = {0x3b6a57b2u, 0x26508e6du, 0x1ea119fau, 0x3d4233ddu, 0x2a1462b3u};
    uint32_t top = chk >> 25;
    chk = ((chk & 0x1ffffffu) << 5) ^ value;
    for (unsigned i = 0; i < 5; i++) {
        if ((top >> i) & 1u) {
            chk ^= GEN[i];
        }
    }
    return chk;
}

static char to_lower(char c) {
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Value 0..31 of a (lower-cased) data character, or -1 outside the charset. */
static int charset_value(char c) {
    const char *p = (c == '\0') ? NULL : strchr(CHARSET, to_lower(c));
    return p ? (int)(p - CHARSET) : -1;
}

/* HRP expansion: high bits of each character, a zero, then the low bits. */
static uint32_t polymod_hrp(const char *hrp, size_t hrp_len) {
    uint32_t chk = 1;
    for (size_t i = 0; i < hrp_len; i++) {
        chk = polymod_step(chk, (uint8_t)((unsigned char)hrp[i] >> 5));
    }
    chk = polymod_step(chk, 0);
    for (size_t i = 0; i < hrp_len; i++) {
        chk = polymod_step(chk, (uint8_t)((unsigned char)hrp[i] & 31u));
    }
    return chk;
}

/* Printable ASCII and one case only; returns the separator index or a reason. */
static const char *check_text(const char *text, size_t len, size_t *sep) {
    int has_lower = 0, has_upper = 0;
    size_t last_one = len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 33 || c > 126) {
            return "bech32: character outside printable ASCII 33..126";
        }
        has_lower |= (c >= 'a' && c <= 'z');
        has_upper |= (c >= 'A' && c <= 'Z');
        if (c == '1') {
            last_one = i;
        }
    }
    if (has_lower && has_upper) {
        return "bech32: mixed upper and lower case";
    }
    if (last_one == len) {
        return "bech32: no '1' separator";
    }
    if (last_one == 0) {
        return "bech32: empty human-readable part";
    }
    if (last_one > RL_BECH32_HRP_MAX) {
        return "bech32: human-readable part longer than 83 characters";
    }
    if (len - last_one - 1 < BECH32_CHECKSUM_LEN) {
        return "bech32: fewer than 6 data characters";
    }
    *sep = last_one;
    return NULL;
}

/* Charset and checksum over the data characters (payload and checksum). */
static const char *check_data(const char *data, size_t n, uint32_t chk) {
    for (size_t i = 0; i < n; i++) {
        int v = charset_value(data[i]);
        if (v < 0) {
            return "bech32: character not in the bech32 charset";
        }
        chk = polymod_step(chk, (uint8_t)v);
    }
    return chk == BECH32_CONST ? NULL : "bech32: invalid checksum";
}

/* 5-to-8-bit conversion of n already validated data characters. */
static const char *convert_payload(const char *data, size_t n, rl_bech32_t *out) {
    uint32_t acc = 0;
    unsigned bits = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        acc = ((acc << 5) | (uint32_t)charset_value(data[i])) & 0xfffu;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            if (count < RL_BECH32_PAYLOAD_MAX) {
                out->payload[count] = (uint8_t)(acc >> bits);
            }
            count++;
        }
    }
    out->payload_len = count;
    if (bits > 4) {
        return "bech32: more than 4 padding bits";
    }
    if ((acc & ((1u << bits) - 1u)) != 0) {
        return "bech32: non-zero padding bits";
    }
    return NULL;
}

int rl_bech32_decode(const char *text, size_t len, rl_bech32_t *out, const char **why) {
    const char *reason = NULL;
    size_t sep = 0;
    if (text == NULL || out == NULL) {
        reason = "bech32: NULL argument";
    } else {
        memset(out, 0, sizeof(*out));
        reason = check_text(text, len, &sep);
    }
    if (reason == NULL) {
        for (size_t i = 0; i < sep; i++) {
            out->hrp[i] = to_lower(text[i]);
        }
        out->hrp[sep] = '\0';
        reason = check_data(text + sep + 1, len - sep - 1, polymod_hrp(out->hrp, sep));
    }
    if (reason == NULL) {
        reason = convert_payload(text + sep + 1, len - sep - 1 - BECH32_CHECKSUM_LEN, out);
    }
    if (reason != NULL) {
        if (out != NULL) {
            OPENSSL_cleanse(out, sizeof(*out)); /* may hold part of a secret */
        }
        if (why != NULL) {
            *why = reason;
        }
        return -1;
    }
    return 0;
}

static int hrp_valid(const char *hrp, size_t *hrp_len) {
    size_t n = 0;
    for (; hrp[n] != '\0'; n++) {
        unsigned char c = (unsigned char)hrp[n];
        if (n >= RL_BECH32_HRP_MAX || c < 33 || c > 126 || (c >= 'A' && c <= 'Z')) {
            return 0;
        }
    }
    *hrp_len = n;
    return n > 0;
}

/* Append the six checksum characters for the values already fed into chk. */
static void put_checksum(uint32_t chk, char *dst) {
    for (unsigned i = 0; i < BECH32_CHECKSUM_LEN; i++) {
        chk = polymod_step(chk, 0);
    }
    chk ^= BECH32_CONST;
    for (unsigned i = 0; i < BECH32_CHECKSUM_LEN; i++) {
        dst[i] = CHARSET[(chk >> (5u * (5u - i))) & 31u];
    }
}

int rl_bech32_encode(const char *hrp, const uint8_t *payload, size_t payload_len, char *out, size_t cap) {
    size_t hrp_len = 0;
    if (hrp == NULL || out == NULL || (payload == NULL && payload_len > 0) || !hrp_valid(hrp, &hrp_len)) {
        return -1;
    }
    if (payload_len > (size_t)INT32_MAX / 8u) {
        return -1; /* keeps payload_len * 8 and the text length within int */
    }
    size_t data_chars = (payload_len * 8u + 4u) / 5u;
    size_t total = hrp_len + 1u + data_chars + BECH32_CHECKSUM_LEN;
    if (total >= cap) {
        return -1;
    }
    memcpy(out, hrp, hrp_len);
    out[hrp_len] = '1';
    uint32_t chk = polymod_hrp(hrp, hrp_len);
    uint32_t acc = 0;
    unsigned bits = 0;
    size_t pos = hrp_len + 1u;
    for (size_t i = 0; i <= payload_len; i++) {
        if (i < payload_len) {
            acc = ((acc << 8) | payload[i]) & 0xfffu;
            bits += 8;
        } else if (bits > 0) {
            acc = (acc << (5u - bits)) & 0xfffu; /* zero padding to a whole 5-bit group */
            bits = 5;
        }
        while (bits >= 5) {
            bits -= 5;
            uint8_t v = (uint8_t)((acc >> bits) & 31u);
            chk = polymod_step(chk, v);
            out[pos++] = CHARSET[v];
        }
    }
    put_checksum(chk, out + pos);
    out[total] = '\0';
    return (int)total;
}
