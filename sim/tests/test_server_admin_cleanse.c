/* SPDX-License-Identifier: MIT */
/* test_server_admin_cleanse.c - the reference server leaves no tenant
 * credential of an administrative ADD in memory it releases (project
 * standard, as core/tests/test_admin_cleanse.c for the client): the
 * decrypted Tenant Mutation plaintext carries the credential's Bech32 text
 * (wire_protocol.md "ADD Tenant": tenant_key, with the tenant's secret).
 *
 * Observed by interposing free() (glibc): while armed, every freed block is
 * searched for the credential text. ASan and valgrind replace the
 * allocator; there the test is skipped. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>

#include "sim_server_admin_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define CL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CL_ASAN 1
#endif
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define CL_HAVE_VALGRIND_H 1
#endif
#endif
#ifndef CL_HAVE_VALGRIND_H
#define RUNNING_ON_VALGRIND 0
#endif

static const void *cl_secret; /* armed when non-NULL */
static size_t cl_len;
static int cl_hits;
static int cl_frees;

#ifndef CL_ASAN
#define CL_INSPECTS_FREE 1
extern void __libc_free(void *);
void free(void *p);
void free(void *p) {
    if (p != NULL && cl_secret != NULL) {
        size_t n = malloc_usable_size(p);
        cl_frees++;
        if (memmem(p, n, cl_secret, cl_len) != NULL) {
            cl_hits++;
        }
    }
    __libc_free(p);
}
#endif

static void skip_without_inspector(void) {
#ifndef CL_INSPECTS_FREE
    skip();
#endif
    if (RUNNING_ON_VALGRIND) {
        skip();
    }
}

static void test_add_credential_not_left_in_freed_server(void **state) {
    (void)state;
    skip_without_inspector();
    ta_fix_t *f = ta_fix_new(false);
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_t k;
    tu_key_init(&k, R_AUTH_AES, 0x1234u, &q);
    ta_add_ok(f, &k);
    /* the part of the credential text that carries the secret: the data
     * characters after "rl-aes1" */
    const char *text = k.cred + 7;
    size_t len = strlen(text);
    assert_true(len > 40);
    cl_hits = 0;
    cl_frees = 0;
    cl_len = len;
    cl_secret = text;
    sim_server_free(f->s);
    f->s = NULL;
    cl_secret = NULL;
    assert_true(cl_frees > 0);
    assert_int_equal(cl_hits, 0);
    tu_key_free(&k);
    ta_fix_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_credential_not_left_in_freed_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
