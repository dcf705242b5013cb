/* SPDX-License-Identifier: MIT */
/* bench_aes_floor.c - the AES-256-GCM floor of one served datagram: open a
 * request (56 bytes of AAD, the ciphertext, a 16-byte tag) and seal a reply of
 * the same size, with OpenSSL 3 EVP on contexts keyed once. Two ways:
 *   legacy: EVP_aes_256_gcm() contexts, IV set through EVP_*Init_ex, tag
 *           through EVP_CIPHER_CTX_ctrl (what serve did before issue 25);
 *   fetched: EVP_CIPHER_fetch once, IV length set once, IV through
 *           EVP_*Init_ex2, tag through EVP_CIPHER_CTX_get/set_params.
 * Instructions per datagram: run under
 *   valgrind --tool=callgrind --toggle-collect=one_datagram bench_aes_floor MODE N
 * and divide the total by N (bench/README.md).
 *
 * usage: bench_aes_floor legacy|fetched [N [PDU_BYTES]] (defaults 100000, 100) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#define AAD 56
#define TAG 16
#define IVLEN 12

typedef struct {
    EVP_CIPHER_CTX *enc, *dec;
    int fetched;
} aes_t;

static int aes_init(aes_t *a, int fetched, const unsigned char *key) {
    a->enc = EVP_CIPHER_CTX_new();
    a->dec = EVP_CIPHER_CTX_new();
    a->fetched = fetched;
    if (a->enc == NULL || a->dec == NULL) {
        return -1;
    }
    if (!fetched) {
        return EVP_EncryptInit_ex(a->enc, EVP_aes_256_gcm(), NULL, key, NULL) == 1 &&
                       EVP_DecryptInit_ex(a->dec, EVP_aes_256_gcm(), NULL, key, NULL) == 1
                   ? 0
                   : -1;
    }
    EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    size_t ivlen = IVLEN;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
    int ok = c != NULL && EVP_EncryptInit_ex2(a->enc, c, key, NULL, p) == 1 &&
             EVP_DecryptInit_ex2(a->dec, c, key, NULL, p) == 1;
    EVP_CIPHER_free(c); /* the contexts hold their own reference */
    return ok ? 0 : -1;
}

/* Open dgram (AAD || tag || ciphertext) into plain, then seal plain back into out. */
__attribute__((noinline)) int one_datagram(aes_t *a, const unsigned char *dgram, size_t pdu, unsigned char *plain,
                                           unsigned char *out, const unsigned char *iv) {
    int n = 0, ok;
    unsigned char *tag = (unsigned char *)(uintptr_t)(dgram + AAD - TAG);
    if (!a->fetched) {
        ok = EVP_DecryptInit_ex(a->dec, NULL, NULL, NULL, iv) == 1 &&
             EVP_DecryptUpdate(a->dec, NULL, &n, dgram, AAD) == 1 &&
             EVP_DecryptUpdate(a->dec, plain, &n, dgram + AAD, (int)pdu) == 1 &&
             EVP_CIPHER_CTX_ctrl(a->dec, EVP_CTRL_GCM_SET_TAG, TAG, tag) == 1 &&
             EVP_DecryptFinal_ex(a->dec, plain + n, &n) == 1;
    } else {
        OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, TAG), OSSL_PARAM_END};
        ok = EVP_DecryptInit_ex2(a->dec, NULL, NULL, iv, NULL) == 1 &&
             EVP_DecryptUpdate(a->dec, NULL, &n, dgram, AAD) == 1 &&
             EVP_DecryptUpdate(a->dec, plain, &n, dgram + AAD, (int)pdu) == 1 &&
             EVP_CIPHER_CTX_set_params(a->dec, p) == 1 && EVP_DecryptFinal_ex(a->dec, plain + n, &n) == 1;
    }
    (void)ok; /* the tag does not match (a synthetic datagram): the work is the same */
    if (!a->fetched) {
        return EVP_EncryptInit_ex(a->enc, NULL, NULL, NULL, iv) == 1 &&
                       EVP_EncryptUpdate(a->enc, NULL, &n, dgram, AAD) == 1 &&
                       EVP_EncryptUpdate(a->enc, out + AAD, &n, plain, (int)pdu) == 1 &&
                       EVP_EncryptFinal_ex(a->enc, out + AAD + n, &n) == 1 &&
                       EVP_CIPHER_CTX_ctrl(a->enc, EVP_CTRL_GCM_GET_TAG, TAG, out + AAD - TAG) == 1
                   ? 0
                   : -1;
    }
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, out + AAD - TAG, TAG),
                       OSSL_PARAM_END};
    return EVP_EncryptInit_ex2(a->enc, NULL, NULL, iv, NULL) == 1 &&
                   EVP_EncryptUpdate(a->enc, NULL, &n, dgram, AAD) == 1 &&
                   EVP_EncryptUpdate(a->enc, out + AAD, &n, plain, (int)pdu) == 1 &&
                   EVP_EncryptFinal_ex(a->enc, out + AAD + n, &n) == 1 && EVP_CIPHER_CTX_get_params(a->enc, p) == 1
               ? 0
               : -1;
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "legacy") != 0 && strcmp(argv[1], "fetched") != 0)) {
        fputs("usage: bench_aes_floor legacy|fetched [N [PDU_BYTES]]\n", stderr);
        return 2;
    }
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 100000;
    long pdu = argc > 3 ? strtol(argv[3], NULL, 10) : 100;
    if (n < 1 || pdu < 1 || pdu > 1100) {
        fputs("bench_aes_floor: want N >= 1 and PDU_BYTES 1..1100\n", stderr);
        return 2;
    }
    unsigned char key[32], dgram[1200], plain[1200], out[1200], iv[IVLEN] = {0};
    memset(key, 0x5c, sizeof key);
    memset(dgram, 0xa5, sizeof dgram);
    aes_t a;
    if (aes_init(&a, strcmp(argv[1], "fetched") == 0, key) != 0) {
        fputs("bench_aes_floor: OpenSSL init failed\n", stderr);
        return 1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) {
        memcpy(iv, &i, sizeof i);
        if (one_datagram(&a, dgram, (size_t)pdu, plain, out, iv) != 0) {
            fputs("bench_aes_floor: seal failed\n", stderr);
            return 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    printf("bench_aes_floor %s: %ld datagrams (open + seal, %ld-byte PDU): %.0f ns each\n", argv[1], n, pdu, ns / (double)n);
    EVP_CIPHER_CTX_free(a.enc);
    EVP_CIPHER_CTX_free(a.dec);
    return 0;
}
