/* SPDX-License-Identifier: MIT */
/* rl_admin.h - internals shared by the administrative codec, frame and
 * operations (r_admin.h). */
#ifndef RL_ADMIN_H
#define RL_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "r_admin.h"

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
/* Fill diag (may be NULL) and return rc. */
int rl_admin_fail(r_admin_diag_t *diag, int rc, r_admin_reason_t reason, const char *fmt, ...);

/* diag (may be NULL) = OK, empty message; returns RCLIENT_OK. */
int rl_admin_ok(r_admin_diag_t *diag);

/* Common PDU header check: len >= 8, pdu_type == want, pdu_size == len.
 * name is the PDU's spec name for messages. */
int rl_admin_check_header(const uint8_t *pdu, size_t len, uint16_t want, const char *name, r_admin_diag_t *diag);

/* Common encoder preamble: arguments non-NULL, need <= R_ADMIN_MAX_PDU and <= cap. */
int rl_admin_check_room(const uint8_t *buf, size_t cap, size_t need, const char *name, r_admin_diag_t *diag);

static inline size_t rl_admin_pad4(size_t n) {
    return (4u - (n & 3u)) & 3u;
}

/* True when p[0..n) is all zero. */
int rl_admin_all_zero(const uint8_t *p, size_t n);

#endif /* RL_ADMIN_H */
