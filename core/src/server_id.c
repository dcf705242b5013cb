/* SPDX-License-Identifier: MIT */
/* server_id.c - structured server_id (wire_protocol.md "Structured server_id
 * Format") and strict SRV target parsing (r-client.md 3.1). */
#include <stdint.h>
#include <string.h>

#include "r_client.h"

#define START_BITS 41u
#define START_SHIFT 23u
#define LISTENER_SHIFT 15u
#define NODE_MASK 0x7FFFu

r_server_id_parts_t r_client_decode_server_id(uint64_t server_id) {
    r_server_id_parts_t p;
    p.server_start_s = R_CLIENT_SERVER_EPOCH_S + (server_id >> START_SHIFT);
    p.listener_id = (uint8_t)((server_id >> LISTENER_SHIFT) & 0xFFu);
    p.node_id = (uint16_t)(server_id & NODE_MASK);
    return p;
}

int r_client_encode_server_id(uint64_t server_start_s, uint8_t listener_id, uint16_t node_id, uint64_t *out) {
    if (out == NULL || server_start_s < R_CLIENT_SERVER_EPOCH_S || node_id > NODE_MASK) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t since = server_start_s - R_CLIENT_SERVER_EPOCH_S;
    if (since >> START_BITS) {
        return RCLIENT_ERR_CONFIG;
    }
    *out = (since << START_SHIFT) | ((uint64_t)listener_id << LISTENER_SHIFT) | node_id;
    return RCLIENT_OK;
}

static int host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* The first label must be exactly "s-" followed by a canonical decimal: digits
 * only, no sign, no leading zero (except "0" itself), no overflow. DNS names
 * compare case-insensitively, so "S-" is accepted too. Anything else is not a
 * member (api.md "Resource-Request HA Policy"). */
int r_client_parse_srv_target(const char *target, size_t target_len, uint64_t *out_server_id) {
    if (target == NULL || out_server_id == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    if (target_len == 0) {
        target_len = strlen(target);
    }
    const char *p = target;
    const char *end = target + target_len;
    if (end - p < 3 || (p[0] != 's' && p[0] != 'S') || p[1] != '-') {
        return RCLIENT_ERR_CONFIG;
    }
    p += 2;
    const char *digits = p;
    uint64_t v = 0;
    while (p < end && *p != '.') {
        if (*p < '0' || *p > '9') {
            return RCLIENT_ERR_CONFIG;
        }
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10u) {
            return RCLIENT_ERR_CONFIG;
        }
        v = v * 10u + d;
        p++;
    }
    size_t n_digits = (size_t)(p - digits);
    if (n_digits == 0 || (n_digits > 1 && digits[0] == '0')) {
        return RCLIENT_ERR_CONFIG;
    }
    /* Later labels are host-name labels (RFC 1035 2.3.4): 1..63 letters,
     * digits, '-' or '_'; the name (without its trailing dot) is at most 253
     * bytes. Only a single trailing dot may end it. */
    size_t name_len = (size_t)(end - target);
    if (end[-1] == '.') {
        name_len--;
    }
    if (name_len > 253) {
        return RCLIENT_ERR_CONFIG;
    }
    while (p < end) {
        p++; /* the '.' */
        const char *label = p;
        while (p < end && *p != '.') {
            if (!host_char(*p)) {
                return RCLIENT_ERR_CONFIG;
            }
            p++;
        }
        size_t n = (size_t)(p - label);
        if ((n == 0 && p != end) || n > 63) {
            return RCLIENT_ERR_CONFIG;
        }
    }
    *out_server_id = v;
    return RCLIENT_OK;
}
