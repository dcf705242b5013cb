/* SPDX-License-Identifier: MIT */
/* rl_log.h - printf-style formatting onto a host log hook (r_io_ops_t.log). */
#ifndef RL_LOG_H
#define RL_LOG_H

#include "r_client_io.h"

#if defined(__GNUC__) || defined(__clang__)
#define RL_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define RL_PRINTF(fmt_index, first_arg)
#endif

typedef void (*rl_log_fn)(void *ctx, r_log_level_t level, const char *msg);

/* Format into a bounded buffer (256 bytes, truncated) and call log(ctx, level,
 * msg); nothing happens when log is NULL. */
void rl_logf(rl_log_fn log, void *ctx, r_log_level_t level, const char *fmt, ...) RL_PRINTF(4, 5);

#endif /* RL_LOG_H */
