/* SPDX-License-Identifier: MIT */
/* sim_server_auth.c - the reference server's request authentication and
 * response sealing (wire_protocol.md "Auth Header", "Cookie Authentication",
 * "AES-256-GCM Normative Framing"), with OpenSSL EVP directly.
 *
 * Each AES tenant owns one encryption and one decryption context, keyed when
 * the tenant is added (the cipher fetched once, its IV length set once) and
 * re-initialised per packet with only the nonce, so no packet allocates. The
 * tag goes through EVP_CIPHER_CTX_get/set_params, not EVP_CIPHER_CTX_ctrl
 * (which OpenSSL 3 turns into the same parameters after a lookup of its own).
 * What is left per packet is OpenSSL's: on 3.0 every nonce set asks the
 * provider for the IV length again (bench/README.md "serve"). */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "sim_server_int.h"

int srv_auth_key(srv_tenant_t *t) {
    if (t->enc == NULL) {
        t->enc = EVP_CIPHER_CTX_new();
    }
    if (t->dec == NULL) {
        t->dec = EVP_CIPHER_CTX_new();
    }
    EVP_CIPHER *gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    size_t ivlen = SRV_NONCE_LEN;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
    int ok = gcm != NULL && t->enc != NULL && t->dec != NULL &&
             EVP_EncryptInit_ex2(t->enc, gcm, t->secret, NULL, p) == 1 &&
             EVP_DecryptInit_ex2(t->dec, gcm, t->secret, NULL, p) == 1;
    EVP_CIPHER_free(gcm); /* the contexts keep their own reference */
    return ok ? 0 : -1;
}

void srv_auth_release(srv_tenant_t *t) {
    EVP_CIPHER_CTX_free(t->enc);
    EVP_CIPHER_CTX_free(t->dec);
    t->enc = NULL;
    t->dec = NULL;
    OPENSSL_cleanse(t->secret, sizeof t->secret);
}

/* AES-256-GCM open: AAD = dgram[0..56) (tenant TLV || type || size || nonce),
 * tag at 56..72, ciphertext after it; plaintext written at the same offsets. */
static srv_status_t aes_open(srv_tenant_t *t, const uint8_t *dgram, const srv_frame_t *f, uint8_t *plain) {
    const uint8_t *nonce = dgram + SRV_TENANT_SIZE + 4u;
    const uint8_t *tag = nonce + SRV_NONCE_LEN;
    int n = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, (void *)(uintptr_t)tag,
                                                         SRV_TAG_LEN),
                       OSSL_PARAM_END};
    if (EVP_DecryptInit_ex2(t->dec, NULL, NULL, nonce, NULL) != 1 ||
        EVP_DecryptUpdate(t->dec, NULL, &n, dgram, (int)SRV_AES_AAD_LEN) != 1 ||
        EVP_DecryptUpdate(t->dec, plain + f->pdu_off, &n, dgram + f->pdu_off, (int)f->pdu_len) != 1 ||
        EVP_CIPHER_CTX_set_params(t->dec, p) != 1 ||
        EVP_DecryptFinal_ex(t->dec, plain + f->pdu_off + n, &n) != 1) {
        memset(plain + f->pdu_off, 0, f->pdu_len); /* no unauthenticated plaintext stays */
        return SRV_E_AUTH;
    }
    return SRV_OK;
}

srv_status_t srv_auth_open(srv_tenant_t *t, const uint8_t *dgram, size_t len, const srv_frame_t *f,
                           uint8_t *plain) {
    memcpy(plain, dgram, f->pdu_off);
    switch (t->auth_tlv) {
    case SRV_TLV_AUTH_NONE:
        memcpy(plain + f->pdu_off, dgram + f->pdu_off, len - f->pdu_off);
        return SRV_OK;
    case SRV_TLV_AUTH_COOKIE:
        if (CRYPTO_memcmp(dgram + SRV_TENANT_SIZE + 4u, t->secret, SRV_SECRET_LEN) != 0) {
            return SRV_E_AUTH;
        }
        memcpy(plain + f->pdu_off, dgram + f->pdu_off, len - f->pdu_off);
        return SRV_OK;
    case SRV_TLV_AUTH_AES:
        return aes_open(t, dgram, f, plain);
    default:
        return SRV_E_AUTH;
    }
}

static int aes_seal(srv_tenant_t *t, uint8_t *plain, size_t len, const srv_frame_t *f, const uint8_t *nonce,
                    uint8_t *out) {
    uint8_t *auth = plain + SRV_TENANT_SIZE;
    memcpy(auth + 4u, nonce, SRV_NONCE_LEN);
    memcpy(out, plain, SRV_AES_AAD_LEN);
    int n = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, out + SRV_AES_AAD_LEN,
                                                         SRV_TAG_LEN),
                       OSSL_PARAM_END};
    if (EVP_EncryptInit_ex2(t->enc, NULL, NULL, nonce, NULL) != 1 ||
        EVP_EncryptUpdate(t->enc, NULL, &n, plain, (int)SRV_AES_AAD_LEN) != 1 ||
        EVP_EncryptUpdate(t->enc, out + f->pdu_off, &n, plain + f->pdu_off, (int)(len - f->pdu_off)) != 1 ||
        EVP_EncryptFinal_ex(t->enc, out + f->pdu_off + n, &n) != 1 || EVP_CIPHER_CTX_get_params(t->enc, p) != 1) {
        return -1;
    }
    return 0;
}

int srv_auth_seal(srv_tenant_t *t, uint8_t *plain, size_t len, const srv_frame_t *f, const uint8_t *nonce,
                  uint8_t *out) {
    if (t->auth_tlv == SRV_TLV_AUTH_AES) {
        return aes_seal(t, plain, len, f, nonce, out);
    }
    memcpy(out, plain, len); /* none: nothing to add; cookie: the request's (equal) cookie stays */
    return 0;
}
