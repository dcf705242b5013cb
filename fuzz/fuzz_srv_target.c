/* SPDX-License-Identifier: MIT */
/* fuzz_srv_target.c - SRV target parser (r_client_parse_srv_target;
 * r-client.md 3.1, wire_protocol.md "Structured server_id Format").
 *
 * Differential: a second, deliberately plain implementation of the rule in
 * r_client.h (first label "s-"/"S-" + canonical decimal <= UINT64_MAX, then
 * labels of 1..63 letters, digits, '-' or '_', the name at most 253 bytes
 * without its one optional trailing dot)
 * must agree on acceptance and value; the output is untouched on rejection;
 * the NUL-terminated form agrees. */
#include <string.h>

#include "fuzz_common.h"
#include "r_client.h"

/* Canonical decimal digits[0..n) as a u64, or false. */
static bool canonical_u64(const char *digits, size_t n, uint64_t *out) {
    static const char max[] = "18446744073709551615";
    if (n == 0 || n > 20 || (n > 1 && digits[0] == '0')) return false;
    for (size_t i = 0; i < n; i++) {
        if (digits[i] < '0' || digits[i] > '9') return false;
    }
    if (n == 20 && memcmp(digits, max, 20) > 0) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v * 10u + (uint64_t)(digits[i] - '0');
    *out = v;
    return true;
}

static bool host_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static bool reference_parse(const char *s, size_t len, uint64_t *out) {
    if (len < 3 || (s[0] != 's' && s[0] != 'S') || s[1] != '-') return false;
    if ((s[len - 1] == '.' ? len - 1 : len) > 253) return false;
    size_t i = 2;
    while (i < len && s[i] != '.') i++;
    if (!canonical_u64(s + 2, i - 2, out)) return false;
    while (i < len) {            /* s[i] == '.' */
        size_t start = ++i;
        while (i < len && s[i] != '.') {
            if (!host_char(s[i])) return false;
            i++;
        }
        if (i == start && i != len) return false; /* empty label that is not the trailing dot */
        if (i - start > 63) return false;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *target = fuzz_dup_cstr(data, size); /* target_len 0 means NUL-terminated */
    uint64_t id = 0xA5A5A5A5A5A5A5A5ull;
    int rc = r_client_parse_srv_target(target, size, &id);
    uint64_t want = 0;
    bool ok = reference_parse(target, size, &want);
    FUZZ_CHECK(rc == (ok ? RCLIENT_OK : RCLIENT_ERR_CONFIG));
    FUZZ_CHECK(id == (ok ? want : 0xA5A5A5A5A5A5A5A5ull));
    if (size > 0 && memchr(target, '\0', size) == NULL) {
        uint64_t z = 0xA5A5A5A5A5A5A5A5ull;
        FUZZ_CHECK(r_client_parse_srv_target(target, 0, &z) == rc && z == id);
    }
    free(target);
    return 0;
}
