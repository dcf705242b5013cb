/* SPDX-License-Identifier: MIT */
/* admin_test_util.h - shared helpers of the administrative-channel tests. */
#ifndef ADMIN_TEST_UTIL_H
#define ADMIN_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "r_admin.h"

/* Assert a call returned rc with diagnostic reason. */
#define ASSERT_REJECT(call, want_rc, want_reason)                                   \
    do {                                                                            \
        r_admin_diag_t diag_;                                                       \
        memset(&diag_, 0, sizeof diag_);                                            \
        r_admin_diag_t *diag = &diag_;                                              \
        int rc_ = (call);                                                           \
        if (rc_ != (want_rc) || diag_.reason != (want_reason)) {                    \
            print_error("rc %d reason %s (%s), want rc %d reason %s\n", rc_,        \
                        r_admin_reason_name(diag_.reason), diag_.message, (want_rc), \
                        r_admin_reason_name(want_reason));                          \
            fail();                                                                 \
        }                                                                           \
        assert_true(diag_.message[0] != '\0');                                      \
    } while (0)

#define ASSERT_OK(call)                                                             \
    do {                                                                            \
        r_admin_diag_t diag_;                                                       \
        memset(&diag_, 0, sizeof diag_);                                            \
        r_admin_diag_t *diag = &diag_;                                              \
        int rc_ = (call);                                                           \
        if (rc_ != RCLIENT_OK) {                                                    \
            print_error("rc %d reason %s (%s)\n", rc_, r_admin_reason_name(diag_.reason), diag_.message); \
            fail();                                                                 \
        }                                                                           \
        assert_int_equal(diag_.reason, R_ADMIN_OK);                                 \
    } while (0)

#endif /* ADMIN_TEST_UTIL_H */
