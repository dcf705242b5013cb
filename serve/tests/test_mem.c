/* SPDX-License-Identifier: MIT */
/* test_mem.c - serve's host memory readings (serve_mem.h): the parsers of
 * /proc/meminfo, the cgroup v2 memory.max and /proc/self/statm, and a live
 * reading on this host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "serve_mem.h"

static void test_meminfo(void **state) {
    (void)state;
    uint64_t total = 0, avail = 0;
    assert_int_equal(serve_mem_parse_meminfo("MemTotal:       16318472 kB\nMemFree:  1 kB\n"
                                             "MemAvailable:   12000000 kB\n", &total, &avail), 0);
    assert_int_equal(total, 16318472ull * 1024);
    assert_int_equal(avail, 12000000ull * 1024);
    assert_int_equal(serve_mem_parse_meminfo("MemTotal: 5 kB\n", &total, &avail), -1); /* an old kernel */
    assert_int_equal(total, 5 * 1024);
    assert_int_equal(avail, UINT64_MAX);
}

static void test_cgroup_max(void **state) {
    (void)state;
    uint64_t limit = 0;
    assert_int_equal(serve_mem_parse_cgroup_max("max\n", &limit), 0);
    assert_int_equal(limit, UINT64_MAX); /* unconstrained */
    assert_int_equal(serve_mem_parse_cgroup_max("536870912\n", &limit), 0);
    assert_int_equal(limit, 536870912ull);
    assert_int_equal(serve_mem_parse_cgroup_max("lots\n", &limit), -1);
    assert_int_equal(limit, UINT64_MAX);
}

static void test_statm(void **state) {
    (void)state;
    uint64_t rss = 0;
    assert_int_equal(serve_mem_parse_statm("2960 1234 600 4 0 300 0\n", 4096, &rss), 0);
    assert_int_equal(rss, 1234ull * 4096);
    assert_int_equal(serve_mem_parse_statm("", 4096, &rss), -1);
    assert_int_equal(rss, UINT64_MAX);
}

static void test_live_reading(void **state) {
    (void)state;
    serve_mem_t m = {{0, 0, 0, 0}, 0};
    sim_server_host_memory_t a, b;
    serve_mem_read(&m, &a);
    serve_mem_read(&m, &b); /* cached: the same snapshot */
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.system_total != UINT64_MAX && a.system_total > 0); /* Linux has /proc/meminfo */
    assert_true(a.process_rss != UINT64_MAX && a.process_rss > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meminfo), cmocka_unit_test(test_cgroup_max), cmocka_unit_test(test_statm),
        cmocka_unit_test(test_live_reading),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
