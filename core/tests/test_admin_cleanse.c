/* SPDX-License-Identifier: MIT */
/* Secrets of the administrative channel are cleansed before their memory is
 * released (project standard; r_admin.h r_admin_key_destroy,
 * r_admin_op_destroy): the administrative AES key, and the tenant credential
 * an ADD mutation carries (its Bech32 text and its raw secret), whose
 * plaintext PDU exists only until it is sealed.
 *
 * Observed as in test_cleanse.c: this executable interposes free() (glibc)
 * and, while armed, searches every freed block for the secret. ASan and
 * valgrind replace the allocator, so there the tests are skipped. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>

#include "admin_test_util.h"

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

static const uint8_t *cl_secret; /* armed when non-NULL */
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

static void arm(const void *secret, size_t len) {
    cl_hits = 0;
    cl_frees = 0;
    cl_len = len;
    cl_secret = secret;
}

static int disarm(void) {
    cl_secret = NULL;
    return cl_hits;
}

/* The raw cookie of the credential below: SHA256("secret password"). */
static const uint8_t COOKIE[32] = {0x1b, 0xa1, 0x33, 0xec, 0xcd, 0xfc, 0x4e, 0x5c, 0xa3, 0x40, 0x5d,
                                   0xfd, 0x70, 0xc1, 0x13, 0x60, 0xaf, 0x03, 0x81, 0x06, 0xc9, 0xee,
                                   0xbd, 0xde, 0x50, 0x4a, 0x4b, 0x14, 0xc9, 0x4b, 0x85, 0x57};

/* The administrative key of the vectors: fixed_bytes("admin key", 32). */
static const uint8_t KEY[32] = {0x4b, 0xbc, 0x60, 0x35, 0xe0, 0x45, 0x15, 0x19, 0x28, 0x15, 0x5b,
                                0xaa, 0x8c, 0x12, 0x46, 0x24, 0xb8, 0x2a, 0x1f, 0xac, 0x1d, 0xb9,
                                0x7a, 0xc6, 0x06, 0x5e, 0xb6, 0x18, 0xf0, 0xaf, 0xe3, 0x0a};

static int fake_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return 0;
}
static uint64_t fake_now(void *ctx) {
    (void)ctx;
    return 1767225600000ull;
}
static void on_event(r_admin_op_t *op, const r_admin_event_t *ev, void *user) {
    (void)op;
    (void)ev;
    (void)user;
}

static void test_inspector_counts_a_block_holding_the_key(void **state) {
    (void)state;
    skip_without_inspector();
    void *(*volatile alloc)(size_t) = malloc;
    void (*volatile release)(void *) = free;
    uint8_t *block = alloc(100);
    assert_non_null(block);
    memset(block, 0, 100);
    memcpy(block + 10, KEY, sizeof KEY);
    arm(KEY, sizeof KEY);
    release(block);
    assert_int_equal(cl_frees, 1);
    assert_int_equal(disarm(), 1);
}

static void test_admin_key_cleansed_before_free(void **state) {
    (void)state;
    skip_without_inspector();
    arm(KEY, sizeof KEY);
    r_admin_key_t *k = NULL;
    assert_int_equal(r_admin_key_create_raw(KEY, &k), RCLIENT_OK);
    r_admin_key_destroy(k);
    assert_true(cl_frees > 0);
    assert_int_equal(disarm(), 0);
}

/* The credential of vectors/admin_tenant_mutation.json tcId 2 (written by
 * the independent generator): version 1, key_id 42, the cookie
 * SHA256("secret password"), quota word 0x80f2b150. */
static const char *cookie_credential(void) {
    return "rl-cookie1qy4qqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtru5qdu2y3e";
}

static void test_tenant_credential_cleansed_after_a_mutation(void **state) {
    (void)state;
    skip_without_inspector();
    r_admin_key_t *k = NULL;
    assert_int_equal(r_admin_key_create_raw(KEY, &k), RCLIENT_OK);
    const char *cred = cookie_credential();
    r_auth_key_info_t info;
    if (r_client_parse_auth_key(cred, 0, &info) != RCLIENT_OK) {
        fail_msg("the fixed rl-cookie credential does not parse");
    }
    assert_memory_equal(info.secret, COOKIE, 32);
    r_io_ops_t io = {.udp_send = fake_send, .now_ms = fake_now};
    r_admin_op_config_t c;
    memset(&c, 0, sizeof c);
    c.key = k;
    c.io = &io;
    c.cb = on_event;
    r_admin_tenant_mutation_t tm = {R_TENANT_OP_ADD, 300, (const uint8_t *)"t", 1, cred, strlen(cred)};
    for (int which = 0; which < 2; which++) {
        if (which == 0) {
            arm(cred, strlen(cred));
        } else {
            arm(COOKIE, sizeof COOKIE);
        }
        r_admin_op_t *op = NULL;
        assert_int_equal(r_admin_tenant_mutation_start(&c, info.key_id, &tm, &op, NULL), RCLIENT_OK);
        r_admin_op_destroy(op);
        assert_true(cl_frees > 0);
        assert_int_equal(disarm(), 0);
    }
    r_admin_key_destroy(k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspector_counts_a_block_holding_the_key),
        cmocka_unit_test(test_admin_key_cleansed_before_free),
        cmocka_unit_test(test_tenant_credential_cleansed_after_a_mutation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
