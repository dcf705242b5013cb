/* SPDX-License-Identifier: MIT */
/* rl_build_info.c - the build id (see rl_build_info.h); the constant strings
 * are in the generated rl_build_info_gen.c. */
#include "rl_build_info.h"

#include <openssl/evp.h>
#include <stdbool.h>
#include <stdio.h>

void rl_build_id(char out[RL_BUILD_ID_MAX])
{
    FILE *f = fopen("/proc/self/exe", "rb");
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    bool ok = f != NULL && h != NULL && EVP_DigestInit_ex(h, EVP_sha256(), NULL) == 1;
    unsigned char buf[65536];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = EVP_DigestUpdate(h, buf, n) == 1;
    ok = ok && ferror(f) == 0;
    unsigned char d[32];
    unsigned int dn = 0;
    ok = ok && EVP_DigestFinal_ex(h, d, &dn) == 1;
    if (f != NULL)
        fclose(f);
    EVP_MD_CTX_free(h);
    if (!ok) {
        snprintf(out, RL_BUILD_ID_MAX, "%s+unknown", rl_build_version());
        return;
    }
    snprintf(out, RL_BUILD_ID_MAX, "%s+%02x%02x%02x%02x%02x%02x%02x%02x", rl_build_version(), d[0], d[1], d[2], d[3],
             d[4], d[5], d[6], d[7]);
}
