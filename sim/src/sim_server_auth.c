/* sim_server_auth.c - the reference server's request authentication and
 * response sealing (wire_protocol.md "Auth Header", "Cookie Authentication",
 * "AES-256-GCM Normative Framing"), with OpenSSL EVP directly.
 *
 * Each AES tenant owns one encryption and one decryption context, keyed when
 * the tenant is added and re-initialised per packet with only the nonce, so
 * no packet allocates. */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "sim_server_int.h"

int srv_auth_key(srv_tenant_t *t) {
    if (t->enc == NULL) {
        t->enc = EVP_CIPHER_CTX_new();
    }
    if (t->dec == NULL) {
        t->dec = EVP_CIPHER_CTX_new();
    }
    if (t->enc == NULL || t->dec == NULL ||
        EVP_EncryptInit_ex(t->enc, EVP_aes_256_gcm(), NULL, t->secret, NULL) != 1 ||
        EVP_DecryptInit_ex(t->dec, EVP_aes_256_gcm(), NULL, t->secret, NULL) != 1) {
        return -1;
    }
    return 0;
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
    if (EVP_DecryptInit_ex(t->dec, NULL, NULL, NULL, nonce) != 1 ||
        EVP_DecryptUpdate(t->dec, NULL, &n, dgram, (int)SRV_AES_AAD_LEN) != 1 ||
        EVP_DecryptUpdate(t->dec, plain + f->pdu_off, &n, dgram + f->pdu_off, (int)f->pdu_len) != 1 ||
        EVP_CIPHER_CTX_ctrl(t->dec, EVP_CTRL_GCM_SET_TAG, (int)SRV_TAG_LEN, (void *)(uintptr_t)tag) != 1 ||
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
    if (EVP_EncryptInit_ex(t->enc, NULL, NULL, NULL, nonce) != 1 ||
        EVP_EncryptUpdate(t->enc, NULL, &n, plain, (int)SRV_AES_AAD_LEN) != 1 ||
        EVP_EncryptUpdate(t->enc, out + f->pdu_off, &n, plain + f->pdu_off, (int)(len - f->pdu_off)) != 1 ||
        EVP_EncryptFinal_ex(t->enc, out + f->pdu_off + n, &n) != 1 ||
        EVP_CIPHER_CTX_ctrl(t->enc, EVP_CTRL_GCM_GET_TAG, (int)SRV_TAG_LEN, out + SRV_AES_AAD_LEN) != 1) {
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
