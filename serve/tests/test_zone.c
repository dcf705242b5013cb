/* SPDX-License-Identifier: MIT */
/* test_zone.c - DNS records of serve (r-client.md 3.1 "DNS SRV Setup":
 * SRV under _ratelimitly._udp.<name>, targets whose first label is
 * s-<server_id>, A/AAAA per target), exact text of both forms. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "r_client.h"
#include "serve_zone.h"

static const serve_zone_server_t servers[] = {{264543142129721u, 4000}, {1015809u, 29293}};
static char *const addrs[] = {"127.0.0.1", "::1", "192.0.2.7"};

static char *render(serve_zone_format_t format, uint32_t serial) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(serve_zone_write(f, format, "rl.example", servers, 2, addrs, 3, serial), 0);
    fclose(f);
    return buf;
}

static void test_dnsmasq_text(void **state) {
    (void)state;
    char *got = render(SERVE_ZONE_DNSMASQ, 1);
    assert_string_equal(got, "# rl-testbed serve: records of 2 server(s) for rl.example (dnsmasq --conf-file)\n"
                             "srv-host=_ratelimitly._udp.rl.example,s-264543142129721.rl.example,4000,0,0\n"
                             "srv-host=_ratelimitly._udp.rl.example,s-1015809.rl.example,29293,0,0\n"
                             "host-record=s-264543142129721.rl.example,127.0.0.1\n"
                             "host-record=s-264543142129721.rl.example,::1\n"
                             "host-record=s-264543142129721.rl.example,192.0.2.7\n"
                             "host-record=s-1015809.rl.example,127.0.0.1\n"
                             "host-record=s-1015809.rl.example,::1\n"
                             "host-record=s-1015809.rl.example,192.0.2.7\n");
    free(got);
}

static void test_master_text(void **state) {
    (void)state;
    char *got = render(SERVE_ZONE_MASTER, 7);
    assert_string_equal(got, "; rl-testbed serve: records of 2 server(s) for rl.example\n"
                             "$ORIGIN rl.example.\n"
                             "$TTL 60\n"
                             "@ IN SOA ns hostmaster 7 3600 600 86400 60\n"
                             "@ IN NS ns\n"
                             "ns IN A 127.0.0.1\n"
                             "ns IN AAAA ::1\n"
                             "_ratelimitly._udp IN SRV 0 0 4000 s-264543142129721\n"
                             "_ratelimitly._udp IN SRV 0 0 29293 s-1015809\n"
                             "s-264543142129721 IN A 127.0.0.1\n"
                             "s-264543142129721 IN AAAA ::1\n"
                             "s-264543142129721 IN A 192.0.2.7\n"
                             "s-1015809 IN A 127.0.0.1\n"
                             "s-1015809 IN AAAA ::1\n"
                             "s-1015809 IN A 192.0.2.7\n");
    free(got);
}

/* The client's own SRV-target parser reads the server_id back from the target. */
static void test_targets_parse_in_the_client(void **state) {
    (void)state;
    uint64_t id = 0;
    assert_int_equal(r_client_parse_srv_target("s-264543142129721.rl.example.", 0, &id), RCLIENT_OK);
    assert_int_equal(id, 264543142129721u);
}

static void test_file_replaced(void **state) {
    (void)state;
    char path[] = "/tmp/serve_zone_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(serve_zone_write_file(path, SERVE_ZONE_DNSMASQ, "rl.example", servers, 1, addrs, 1, 1), 0);
    FILE *f = fopen(path, "r");
    char line[200];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "srv-host=_ratelimitly._udp.rl.example,s-264543142129721.rl.example,4000,0,0\n");
    fclose(f);
    remove(path);
    assert_int_equal(serve_zone_write_file("/nonexistent-dir/zone", SERVE_ZONE_MASTER, "rl.example", servers, 1,
                                           addrs, 1, 1),
                     -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dnsmasq_text),
        cmocka_unit_test(test_master_text),
        cmocka_unit_test(test_targets_parse_in_the_client),
        cmocka_unit_test(test_file_replaced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
