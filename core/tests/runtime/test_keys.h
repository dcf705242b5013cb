/* test_keys.h - API keys for the runtime tests and the responder: a
 * credential of type (R_AUTH_NONE/COOKIE/AES) and key_id with quota word
 * 0xf8f2b150 (dedup_ttl_ms_max 300, latency_buffer_size_max 32), encoded with
 * the core's own credential encoder (checked against the vectors elsewhere). */
#ifndef TEST_KEYS_H
#define TEST_KEYS_H

#include <string.h>

#include "r_client.h"
#include "rl_credential.h"

/* Returns 0, or -1 when out is too small. */
static inline int test_make_key(r_auth_type_t type, uint64_t key_id, char *out, size_t cap) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = type;
    info.key_id = key_id;
    info.has_secret = type != R_AUTH_NONE;
    for (int i = 0; i < 32 && info.has_secret; i++) {
        info.secret[i] = (uint8_t)(0x41 + i);
    }
    info.quota_word = 0xf8f2b150u;
    if (r_client_decode_quota_word(info.quota_word, &info.quotas, NULL) != RCLIENT_OK) {
        return -1;
    }
    return rl_credential_encode(&info, out, cap) > 0 ? 0 : -1;
}

#endif /* TEST_KEYS_H */
