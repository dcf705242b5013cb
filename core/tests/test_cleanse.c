/* SPDX-License-Identifier: MIT */
/* Secret material is cleansed before its memory is released (project
 * standard: "secrets are cleansed (OPENSSL_cleanse) before memory is freed";
 * r_client.h r_client_destroy). Cookie mode: every request datagram carries
 * the 32-byte cookie in its auth TLV (wire_protocol.md "Auth Header").
 *
 * How it is observed: this executable interposes free() (glibc; the same
 * technique as bench/bench_util.h for malloc). While armed, every block
 * passed to free() is searched for the cookie before glibc gets it back, so
 * a request, a retained response or a client struct released with the cookie
 * inside is counted. ASan and valgrind replace the allocator themselves, so
 * there these tests are skipped (the first test checks the inspector itself
 * wherever it runs). The latency report builds its datagram on the stack:
 * the send hook records where, and the test reads those bytes right after
 * the call returns (skipped under valgrind, which marks a dead frame
 * undefined). */
#define _GNU_SOURCE
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fake_host.h"

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

enum { A = 0, B = 1, C = 2 };
#define T0 FH_T0

static const uint8_t *cl_secret; /* armed when non-NULL: R_CLIENT_SECRET_LEN bytes */
static int cl_hits;              /* freed blocks that still held the secret */
static int cl_frees;             /* blocks freed while armed */

#ifndef CL_ASAN
#define CL_INSPECTS_FREE 1
extern void __libc_free(void *);
void free(void *p);
void free(void *p) {
    if (p != NULL && cl_secret != NULL) {
        size_t n = malloc_usable_size(p);
        cl_frees++;
        if (memmem(p, n, cl_secret, R_CLIENT_SECRET_LEN) != NULL) {
            cl_hits++;
        }
    }
    __libc_free(p);
}
#endif

/* ASan owns free(); valgrind redirects it (ours is never called there). */
static void skip_without_inspector(void) {
#ifndef CL_INSPECTS_FREE
    skip();
#endif
    if (RUNNING_ON_VALGRIND) {
        skip();
    }
}

static void arm(const uint8_t *secret) {
    cl_hits = 0;
    cl_frees = 0;
    cl_secret = secret;
}

/* Disarm; returns the freed blocks that held the secret. */
static int disarm(void) {
    cl_secret = NULL;
    return cl_hits;
}

/* A cookie-mode host whose frees are inspected from before client creation. */
static fh_t *setup_armed(const r_request_policy_t *policy) {
    fh_t *h = fh_new(R_AUTH_COOKIE, 0xf8f2b150u);
    arm(h->secret);
    r_client_config_t cfg = fh_config(h, policy, 3);
    r_io_ops_t io = fh_io(h);
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    return h;
}

/* Destroy the client while armed, then disarm before the fake host (which
 * keeps the cookie and the captured datagrams) is released. */
static int destroy_and_disarm(fh_t *h) {
    r_client_destroy(h->client);
    h->client = NULL;
    int hits = disarm();
    fh_teardown(h);
    return hits;
}

/* The inspector itself: an uncleansed block holding the cookie is counted. */
static void test_inspector_counts_a_block_holding_the_cookie(void **state) {
    (void)state;
    skip_without_inspector();
    uint8_t secret[R_CLIENT_SECRET_LEN];
    for (size_t i = 0; i < sizeof secret; i++) secret[i] = (uint8_t)(0xA0 + i);
    /* Through volatile pointers: the compiler may not elide the pair. */
    void *(*volatile alloc)(size_t) = malloc;
    void (*volatile release)(void *) = free;
    uint8_t *block = alloc(200);
    assert_non_null(block);
    memset(block, 0, 200);
    memcpy(block + 44, secret, sizeof secret);
    arm(secret);
    release(block);
    assert_int_equal(cl_frees, 1);
    assert_int_equal(disarm(), 1);
}

static void test_completed_request_is_cleansed_before_free(void **state) {
    (void)state;
    skip_without_inspector();
    fh_t *h = setup_armed(NULL);
    fh_submit(h);
    assert_int_equal(fh_allow(h, A), RCLIENT_OK); /* selected: the request is freed */
    assert_int_equal(h->completions, 1);
    assert_true(cl_frees >= 1);
    assert_int_equal(cl_hits, 0);
    assert_int_equal(destroy_and_disarm(h), 0);
}

static void test_cancelled_request_is_cleansed_before_free(void **state) {
    (void)state;
    skip_without_inspector();
    fh_t *h = setup_armed(NULL);
    r_client_req_t *req = fh_submit(h);
    assert_int_equal(r_client_cancel_request(h->client, req), RCLIENT_OK);
    assert_true(cl_frees >= 1);
    assert_int_equal(cl_hits, 0);
    assert_int_equal(destroy_and_disarm(h), 0);
}

static void test_borrowed_request_is_cleansed_before_free(void **state) {
    (void)state;
    skip_without_inspector();
    fh_t *h = setup_armed(NULL);
    r_resource_request_t res;
    r_latency_guard_t guard;
    fh_default_inputs(&res, &guard);
    r_client_req_t *req = NULL;
    assert_int_equal(r_client_check_rate_limit_async_borrowed(h->client, &res, 1, &guard, 1, NULL, 0, fh_on_result,
                                                              h, &req),
                     RCLIENT_OK);
    fh_advance(h, req, T0 + 20); /* one replay round */
    assert_int_equal(fh_allow(h, 3), RCLIENT_OK); /* A answers its replay */
    assert_int_equal(h->completions, 1);
    assert_int_equal(cl_hits, 0);
    assert_int_equal(destroy_and_disarm(h), 0);
}

/* A younger server's response is retained until the preference deadline;
 * the retained copy must not keep the response's cookie either. */
static void test_request_with_retained_candidate_is_cleansed_before_free(void **state) {
    (void)state;
    skip_without_inspector();
    fh_t *h = setup_armed(NULL);
    r_client_req_t *req = fh_submit(h);
    h->now = T0 + 4;
    assert_int_equal(fh_allow(h, B), RCLIENT_OK);
    assert_int_equal(h->completions, 0);
    fh_advance(h, req, T0 + 20); /* default P(0) = 1: B selected at t0+20 */
    assert_int_equal(h->completions, 1);
    assert_int_equal(h->server_id, h->server_ids[B]);
    assert_int_equal(cl_hits, 0);
    assert_int_equal(destroy_and_disarm(h), 0);
}

/* Destroy with a request in flight and a response processed: the request,
 * the client's receive buffer and its key are all cleansed. */
static void test_destroy_cleanses_inflight_request_and_client(void **state) {
    (void)state;
    skip_without_inspector();
    fh_t *h = setup_armed(NULL);
    fh_submit(h);
    h->now = T0 + 4;
    assert_int_equal(fh_allow(h, C), RCLIENT_OK); /* retained, still in flight */
    assert_int_equal(h->completions, 0);
    r_client_destroy(h->client);
    h->client = NULL;
    assert_true(cl_frees >= 2); /* at least the request and the client */
    assert_int_equal(destroy_and_disarm(h), 0);
}

/* ---- latency report: the datagram built on the stack ------------------------ */

static const uint8_t *report_buf; /* where the report's datagram was when sent */
static size_t report_len;

static int record_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    report_buf = data;
    report_len = len;
    return fh_udp_send(ctx, to, data, len);
}

static void test_report_datagram_is_cleansed_from_the_stack(void **state) {
    (void)state;
    if (RUNNING_ON_VALGRIND) {
        skip(); /* the returned frame is undefined memory to memcheck */
    }
    fh_t *h = fh_new(R_AUTH_COOKIE, 0xf8f2b150u);
    r_client_config_t cfg = fh_config(h, NULL, 3);
    r_io_ops_t io = fh_io(h);
    io.udp_send = record_send;
    assert_int_equal(r_client_create(&cfg, &io, NULL, &h->client), RCLIENT_OK);
    r_service_latency_report_t r;
    memset(&r, 0, sizeof r);
    r.buffer_size = 32;
    r.observed_latency = 40;
    report_buf = NULL;
    int rc = r_client_report_latency(h->client, &r, 1);
    /* Read the returned frame at once, before any call can reuse it. */
    int found = 0;
    const volatile uint8_t *p = report_buf;
    for (size_t off = 0; p != NULL && off + R_CLIENT_SECRET_LEN <= report_len; off++) {
        size_t k = 0;
        while (k < R_CLIENT_SECRET_LEN && p[off + k] == h->secret[k]) k++;
        found += k == R_CLIENT_SECRET_LEN;
    }
    assert_int_equal(rc, RCLIENT_OK);
    assert_non_null(report_buf);
    assert_int_equal(h->n_sends, 3);
    assert_memory_equal(h->sends[0].data + RL_TENANT_TLV_SIZE + RL_TLV_HDR_SIZE, h->secret, 32); /* it was sent */
    assert_int_equal(found, 0);
    fh_teardown(h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspector_counts_a_block_holding_the_cookie),
        cmocka_unit_test(test_completed_request_is_cleansed_before_free),
        cmocka_unit_test(test_cancelled_request_is_cleansed_before_free),
        cmocka_unit_test(test_borrowed_request_is_cleansed_before_free),
        cmocka_unit_test(test_request_with_retained_candidate_is_cleansed_before_free),
        cmocka_unit_test(test_destroy_cleanses_inflight_request_and_client),
        cmocka_unit_test(test_report_datagram_is_cleansed_from_the_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
