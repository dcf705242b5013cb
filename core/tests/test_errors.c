/* SPDX-License-Identifier: MIT */
/* Unit tests for errors.c: every public code has its exact name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "r_client.h"

static void test_known_codes_have_names(void **state) {
    (void)state;
    assert_string_equal(r_client_strerror(RCLIENT_OK), "RCLIENT_OK");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_TIMEOUT), "RCLIENT_ERR_TIMEOUT");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_DNS), "RCLIENT_ERR_DNS");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_IO), "RCLIENT_ERR_IO");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_PROTOCOL), "RCLIENT_ERR_PROTOCOL");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_AUTH), "RCLIENT_ERR_AUTH");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_CONFIG), "RCLIENT_ERR_CONFIG");
    assert_string_equal(r_client_strerror(RCLIENT_ERR_NOMEM), "RCLIENT_ERR_NOMEM");
}

static void test_unknown_code_is_named_unknown(void **state) {
    (void)state;
    assert_string_equal(r_client_strerror(-99), "RCLIENT_ERR_UNKNOWN");
    assert_string_equal(r_client_strerror(1), "RCLIENT_ERR_UNKNOWN");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_codes_have_names),
        cmocka_unit_test(test_unknown_code_is_named_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
