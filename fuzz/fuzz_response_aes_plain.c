/* SPDX-License-Identifier: MIT */
/* fuzz_response_aes_plain.c - the AES-256-GCM response path past the tag
 * (rl_auth_seal, rl_auth_open, rl_parse_rate_response; wire_protocol.md
 * "AES-256-GCM Normative Framing", "rate_response PDU").
 *
 * Input: 40 bytes of tenant TLV, a 12-byte nonce, then the plaintext PDU
 * (zero-padded to the 8-byte PDU header). The harness frames it under the
 * fixed AES key and seals it as a server would, so every input reaches the
 * post-decryption checks. Checks: the tag always verifies; the class, code and
 * fields match the oracle (fuzz_wire.c) run on the plaintext; the parser
 * leaves exactly that plaintext in place. */
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_keys.h"
#include "fuzz_wire.h"
#include "rl_response.h"

#define HEAD 72u /* tenant TLV 40 + AES auth TLV 32 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *in = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(in, size);
    uint8_t tenant[40], nonce[12];
    fuzz_bytes(&r, tenant, sizeof tenant);
    fuzz_bytes(&r, nonce, sizeof nonce);
    size_t pdu_len = fuzz_left(&r) < 8 ? 8 : fuzz_left(&r);
    size_t len = HEAD + pdu_len;
    uint8_t *plain = calloc(1, len);
    uint8_t *d = malloc(len);
    FUZZ_CHECK(plain != NULL && d != NULL);
    memcpy(plain, tenant, 40);
    fw_put_u16(plain + 40, 0x4541u);
    fw_put_u16(plain + 42, 32);
    fuzz_bytes(&r, plain + HEAD, fuzz_left(&r));
    memcpy(d, plain, len);

    rl_auth_t server, client;
    FUZZ_CHECK(rl_auth_init(&server, R_AUTH_AES, FUZZ_AES_KEY) == RCLIENT_OK);
    FUZZ_CHECK(rl_auth_init(&client, R_AUTH_AES, FUZZ_AES_KEY) == RCLIENT_OK);
    FUZZ_CHECK(rl_auth_seal(&server, d, len, nonce) == RCLIENT_OK);
    FUZZ_CHECK(memcmp(d + 44, nonce, 12) == 0);
    memcpy(plain + 44, d + 44, 28); /* nonce and tag as sealed */

    fw_response_key_t key = {R_AUTH_AES, NULL, FUZZ_UNIQUE_ID, FUZZ_TRUSTED, 2};
    fw_response_t want;
    fw_check_response(plain, len, &key, true, &want);
    rl_rate_response_t resp;
    rl_verdict_t v;
    rl_verdict_class_t c = rl_parse_rate_response(&client, d, len, FUZZ_UNIQUE_ID, FUZZ_TRUSTED, 2, &resp, &v);
    FUZZ_CHECK(c != RL_VERDICT_AUTH);
    FUZZ_CHECK((int)c == (int)want.cls && v.code == want.code);
    if (want.pre_auth_ok) {
        FUZZ_CHECK(memcmp(d, plain, len) == 0); /* decrypted in place to the sealed plaintext */
    }
    if (c == RL_VERDICT_OK) {
        FUZZ_CHECK(resp.server_id == want.server_id && resp.server_index == want.server_index);
        FUZZ_CHECK(resp.guard_count == want.guard_count && resp.resource_count == want.resource_count);
        FUZZ_CHECK(resp.guards == d + want.guards_off && resp.resources == d + want.resources_off);
        FUZZ_CHECK(resp.success == want.success && resp.keep_port == want.keep_port);
    }
    rl_auth_release(&server);
    rl_auth_release(&client);
    free(d);
    free(plain);
    free(in);
    return 0;
}
