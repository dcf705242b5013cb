/* SPDX-License-Identifier: MIT */
/* auth.c - per-key request/response authentication: none, cookie and
 * AES-256-GCM (wire_protocol.md "Auth Header", "AES-256-GCM Normative
 * Framing"; r-client.md 4).
 *
 * Both AES contexts get cipher and key once in rl_auth_init(); per message
 * only the IV is set (EVP_*Init_ex with NULL cipher and key), so sealing and
 * opening allocate nothing. One rl_auth_t must not be used from two threads
 * at once. */
#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "rl_auth.h"
#include "rl_le.h"
#include "rl_wire.h"

/* AAD = tenant_tlv || auth tlv_type || tlv_size || nonce: the first 56 bytes
 * of the datagram, contiguous by construction. */
#define AAD_LEN (RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE + RL_AES_NONCE_LEN)
#define OFF_AUTH RL_TENANT_TLV_SIZE
#define OFF_AUTH_BODY (RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE)
#define OFF_AES_TAG (OFF_AUTH_BODY + RL_AES_NONCE_LEN)

static uint16_t mode_tlv_type(r_auth_type_t type) {
    switch (type) {
    case R_AUTH_NONE: return RL_TLV_AUTH_NONE;
    case R_AUTH_COOKIE: return RL_TLV_AUTH_COOKIE;
    case R_AUTH_AES: return RL_TLV_AUTH_AES;
    default: return 0;
    }
}

static EVP_CIPHER_CTX *gcm_ctx_new(int encrypt, const uint8_t *key, int *rc) {
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx == NULL) {
        *rc = RCLIENT_ERR_NOMEM;
        return NULL;
    }
    /* Select the cipher, then fix the 96-bit IV length, then the key. */
    if (EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL, encrypt) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)RL_AES_NONCE_LEN, NULL) != 1 ||
        EVP_CipherInit_ex(ctx, NULL, NULL, key, NULL, encrypt) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        *rc = RCLIENT_ERR_AUTH;
        return NULL;
    }
    return ctx;
}

int rl_auth_init(rl_auth_t *auth, r_auth_type_t type, const uint8_t *secret) {
    if (auth == NULL || mode_tlv_type(type) == 0 || (type != R_AUTH_NONE && secret == NULL)) {
        return RCLIENT_ERR_CONFIG;
    }
    memset(auth, 0, sizeof *auth);
    auth->type = type;
    if (type == R_AUTH_NONE) {
        return RCLIENT_OK;
    }
    memcpy(auth->secret, secret, R_CLIENT_SECRET_LEN);
    if (type == R_AUTH_AES) {
        int rc = RCLIENT_OK;
        auth->enc = gcm_ctx_new(1, auth->secret, &rc);
        if (auth->enc != NULL) {
            auth->dec = gcm_ctx_new(0, auth->secret, &rc);
        }
        if (rc != RCLIENT_OK) {
            rl_auth_release(auth);
            return rc;
        }
    }
    return RCLIENT_OK;
}

void rl_auth_release(rl_auth_t *auth) {
    if (auth == NULL) {
        return;
    }
    EVP_CIPHER_CTX_free(auth->enc);
    EVP_CIPHER_CTX_free(auth->dec);
    auth->enc = NULL;
    auth->dec = NULL;
    OPENSSL_cleanse(auth->secret, sizeof auth->secret);
    auth->type = R_AUTH_UNSPECIFIED;
}

/* The datagram must hold the tenant TLV, this mode's auth TLV with the right
 * type and size, and at least a PDU header. Returns the PDU length or -1. */
static long sealable_pdu_len(const rl_auth_t *auth, const uint8_t *dgram, size_t len) {
    size_t auth_size = rl_auth_tlv_size(auth->type);
    size_t head = RL_TENANT_TLV_SIZE + auth_size;
    if (auth_size == 0 || dgram == NULL || len < head + RL_PDU_HDR_SIZE || len - head > INT_MAX) {
        return -1;
    }
    if (rl_load_u16(dgram + OFF_AUTH) != mode_tlv_type(auth->type) ||
        rl_load_u16(dgram + OFF_AUTH + 2) != auth_size) {
        return -1;
    }
    return (long)(len - head);
}

static int gcm_encrypt(EVP_CIPHER_CTX *ctx, uint8_t *dgram, size_t pdu_len) {
    uint8_t *pdu = dgram + RL_TENANT_TLV_SIZE + RL_AUTH_AES_TLV_SIZE;
    int n = 0;
    int tail = 0;
    if (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, dgram + OFF_AUTH_BODY) != 1 ||
        EVP_EncryptUpdate(ctx, NULL, &n, dgram, (int)AAD_LEN) != 1 ||
        EVP_EncryptUpdate(ctx, pdu, &n, pdu, (int)pdu_len) != 1 ||
        EVP_EncryptFinal_ex(ctx, pdu + n, &tail) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, (int)RL_AES_TAG_LEN, dgram + OFF_AES_TAG) != 1) {
        return RCLIENT_ERR_AUTH;
    }
    return RCLIENT_OK;
}

int rl_auth_seal(rl_auth_t *auth, uint8_t *dgram, size_t len, const uint8_t *nonce) {
    if (auth == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    long pdu_len = sealable_pdu_len(auth, dgram, len);
    if (pdu_len < 0) {
        return RCLIENT_ERR_CONFIG;
    }
    switch (auth->type) {
    case R_AUTH_COOKIE:
        memcpy(dgram + OFF_AUTH_BODY, auth->secret, R_CLIENT_SECRET_LEN);
        return RCLIENT_OK;
    case R_AUTH_AES:
        if (nonce == NULL || auth->enc == NULL) {
            return RCLIENT_ERR_CONFIG;
        }
        memcpy(dgram + OFF_AUTH_BODY, nonce, RL_AES_NONCE_LEN);
        return gcm_encrypt(auth->enc, dgram, (size_t)pdu_len);
    default:
        return RCLIENT_OK; /* none: header only, nothing to fill */
    }
}

static int set_why(const char **why, const char *text, int rc) {
    if (why != NULL) {
        *why = text;
    }
    return rc;
}

/* Decrypt in place and verify the tag. GCM releases plaintext before the tag
 * is checked in EVP_DecryptFinal_ex, so on a tag failure the PDU bytes are
 * wiped: no unauthenticated plaintext is left behind. */
static int gcm_decrypt(EVP_CIPHER_CTX *ctx, uint8_t *dgram, size_t pdu_len, const char **why) {
    uint8_t *pdu = dgram + RL_TENANT_TLV_SIZE + RL_AUTH_AES_TLV_SIZE;
    int n = 0;
    int tail = 0;
    if (EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, dgram + OFF_AUTH_BODY) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)RL_AES_TAG_LEN, dgram + OFF_AES_TAG) != 1 ||
        EVP_DecryptUpdate(ctx, NULL, &n, dgram, (int)AAD_LEN) != 1 ||
        EVP_DecryptUpdate(ctx, pdu, &n, pdu, (int)pdu_len) != 1) {
        OPENSSL_cleanse(pdu, pdu_len);
        return set_why(why, "AES-GCM decryption failed", RCLIENT_ERR_PROTOCOL);
    }
    if (EVP_DecryptFinal_ex(ctx, pdu + n, &tail) != 1) {
        OPENSSL_cleanse(pdu, pdu_len);
        return set_why(why, "AES-GCM tag does not verify", RCLIENT_ERR_PROTOCOL);
    }
    return set_why(why, "ok", RCLIENT_OK);
}

int rl_auth_open(rl_auth_t *auth, uint8_t *dgram, size_t len, const char **why) {
    if (auth == NULL || dgram == NULL || mode_tlv_type(auth->type) == 0 ||
        len < RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE) {
        return set_why(why, "invalid argument", RCLIENT_ERR_CONFIG);
    }
    if (rl_load_u16(dgram + OFF_AUTH) != mode_tlv_type(auth->type)) {
        return set_why(why, "auth TLV type is not the key's mode", RCLIENT_ERR_AUTH);
    }
    size_t auth_size = rl_auth_tlv_size(auth->type);
    if (rl_load_u16(dgram + OFF_AUTH + 2) != auth_size || len < RL_TENANT_TLV_SIZE + auth_size ||
        len - RL_TENANT_TLV_SIZE - auth_size > INT_MAX) {
        return set_why(why, "invalid argument", RCLIENT_ERR_CONFIG);
    }
    switch (auth->type) {
    case R_AUTH_COOKIE:
        /* Constant time: the comparison must not leak how many bytes match. */
        if (CRYPTO_memcmp(dgram + OFF_AUTH_BODY, auth->secret, R_CLIENT_SECRET_LEN) != 0) {
            return set_why(why, "cookie mismatch", RCLIENT_ERR_AUTH);
        }
        return set_why(why, "ok", RCLIENT_OK);
    case R_AUTH_AES:
        if (auth->dec == NULL) {
            return set_why(why, "invalid argument", RCLIENT_ERR_CONFIG);
        }
        return gcm_decrypt(auth->dec, dgram, len - RL_TENANT_TLV_SIZE - auth_size, why);
    default:
        return set_why(why, "ok", RCLIENT_OK);
    }
}
