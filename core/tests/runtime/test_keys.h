/* SPDX-License-Identifier: MIT */
/* test_keys.h - API keys for the runtime tests and the responder: a
 * credential of type (R_AUTH_NONE/COOKIE/AES) and key_id, encoded with the
 * core's own credential encoder (checked against the vectors elsewhere). */
#ifndef TEST_KEYS_H
#define TEST_KEYS_H

#include <string.h>

#include "r_client.h"
#include "rl_credential.h"

#define TEST_QUOTA_300 0xf8f2b150u  /* dedup_ttl_ms_max 300, latency_buffer_size_max 32 */
#define TEST_QUOTA_2000 0xfe42b150u /* the same with dedup_ttl_ms_max 2000: room for slow hosts */
#define TEST_QUOTA_50 0xf82ab150u   /* the same with dedup_ttl_ms_max 50: below the default H of 60 ms */

/* Returns 0, or -1 when out is too small. */
static inline int test_make_key_quota(r_auth_type_t type, uint64_t key_id, uint32_t quota_word, char *out,
                                      size_t cap) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = type;
    info.key_id = key_id;
    info.has_secret = type != R_AUTH_NONE;
    for (int i = 0; i < 32 && info.has_secret; i++) {
        info.secret[i] = (uint8_t)(0x41 + i);
    }
    info.quota_word = quota_word;
    if (r_client_decode_quota_word(info.quota_word, &info.quotas, NULL) != RCLIENT_OK) {
        return -1;
    }
    return rl_credential_encode(&info, out, cap) > 0 ? 0 : -1;
}

/* Quota word TEST_QUOTA_300. */
static inline int test_make_key(r_auth_type_t type, uint64_t key_id, char *out, size_t cap) {
    return test_make_key_quota(type, key_id, TEST_QUOTA_300, out, cap);
}

/* The real-socket tests' policy: U = 500 ms, so H = 1500 ms (within
 * TEST_QUOTA_2000): valgrind on a loaded host still answers within a round. */
#define TEST_UNIT_MS 500u
#define TEST_HORIZON_MS 1500u

#endif /* TEST_KEYS_H */
