/* SPDX-License-Identifier: MIT */
/* log.c - printf-style formatting onto a host log hook. */
#include <stdarg.h>
#include <stdio.h>

#include "rl_log.h"

void rl_logf(rl_log_fn log, void *ctx, r_log_level_t level, const char *fmt, ...) {
    if (log == NULL) {
        return;
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log(ctx, level, msg);
}
