/* SPDX-License-Identifier: MIT */
/* The example's receive path leaves no secret on its stack: a cookie-mode
 * datagram carries the 32-byte cookie in its auth TLV (wire_protocol.md
 * "Auth Header"), and the project standard is that secrets are cleansed
 * before their memory is given back. The test feeds one datagram through a
 * datagram socketpair to the example's own deliver_readable(); the link
 * option --wrap=r_client_on_datagram records where the example kept the
 * bytes, and the returned frame is read at once (as core/tests/test_cleanse.c
 * does for the latency report). Skipped under valgrind, which marks a dead
 * frame undefined. */
#define EVENT_LOOP_NO_MAIN
#include "event_loop.c"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

/* public_api_key.json #5: rl-cookie, key_id 7, cookie = SHA256("secret password"). */
static const char *const KEY =
    "rl-cookie1qyrsqqqqqqqqqqqm5ye7en0ufew2xszal4cvzymq4upczpkfa67au5z2fv2vjju92agtruhc9ag94n";
static const uint8_t COOKIE[32] = {0x1b, 0xa1, 0x33, 0xec, 0xcd, 0xfc, 0x4e, 0x5c, 0xa3, 0x40, 0x5d,
                                   0xfd, 0x70, 0xc1, 0x13, 0x60, 0xaf, 0x03, 0x81, 0x06, 0xc9, 0xee,
                                   0xbd, 0xde, 0x50, 0x4a, 0x4b, 0x14, 0xc9, 0x4b, 0x85, 0x57};

static const uint8_t *seen;
static size_t seen_len;
static int seen_calls;

int __real_r_client_on_datagram(r_client_t *client, const uint8_t *data, size_t len);
int __wrap_r_client_on_datagram(r_client_t *client, const uint8_t *data, size_t len);
int __wrap_r_client_on_datagram(r_client_t *client, const uint8_t *data, size_t len) {
    seen = data;
    seen_len = len;
    seen_calls++;
    return __real_r_client_on_datagram(client, data, len);
}

static int no_send(void *ctx, const r_addr_t *to, const uint8_t *data, size_t len) {
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return 0;
}

/* Tenant TLV (0x4C52, 40), Cookie Auth TLV (0x4143, 36, the cookie), a Rate
 * Response PDU header with no blocks (pdu_size 12). */
static size_t cookie_datagram(uint8_t *d) {
    memset(d, 0, 88);
    d[0] = 0x52, d[1] = 0x4C, d[2] = 40;
    d[40] = 0x43, d[41] = 0x41, d[42] = 36;
    memcpy(d + 44, COOKIE, sizeof COOKIE);
    d[76] = 0x52, d[77] = 0x52, d[78] = 12;
    return 88;
}

static void test_received_datagram_is_wiped_from_the_stack(void **state) {
    (void)state;
    if (RUNNING_ON_VALGRIND) {
        skip();
    }
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    host_t h = {.fd = sv[0]};
    r_server_endpoint_t server = {.server_id = 5, .addr = {.family = R_ADDR_INET, .port = 9, .addr = {127, 0, 0, 1}}};
    r_client_config_t cfg = {0};
    cfg.tenant.auth.secret = KEY;
    cfg.servers = &server;
    cfg.server_count = 1;
    r_io_ops_t io = {.ctx = &h, .udp_send = no_send, .now_ms = host_now_ms};
    r_client_t *client = NULL;
    assert_int_equal(r_client_create(&cfg, &io, NULL, &client), RCLIENT_OK);
    uint8_t d[88];
    size_t n = cookie_datagram(d);
    assert_int_equal(send(sv[1], d, n, 0), (ssize_t)n);
    seen = NULL;
    seen_calls = 0;
    deliver_readable(client, &h);
    /* Read the returned frame at once, before any call can reuse it. */
    int found = 0;
    const volatile uint8_t *p = seen;
    for (size_t off = 0; p != NULL && off + sizeof COOKIE <= seen_len; off++) {
        size_t k = 0;
        while (k < sizeof COOKIE && p[off + k] == COOKIE[k]) k++;
        found += k == sizeof COOKIE;
    }
    assert_int_equal(seen_calls, 1);
    assert_int_equal(seen_len, n);
    assert_int_equal(found, 0);
    r_client_destroy(client);
    close(sv[0]);
    close(sv[1]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_received_datagram_is_wiped_from_the_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
