/* SPDX-License-Identifier: MIT */
/* rt_clock.c - the runtime's clocks and relative deadline helpers
 * (api.md "Datagrams and Timers": Unix-epoch ms for scheduling; a separate
 * monotonic clock for protected-work durations). */
#include <time.h>

#include "rt_int.h"

static int read_clock(clockid_t id, uint64_t div_ns, uint64_t *out) {
    if (out == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0 || ts.tv_sec < 0) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: the POSIX clocks used here cannot fail on Linux */
    }
    *out = (uint64_t)ts.tv_sec * (1000000000u / div_ns) + (uint64_t)ts.tv_nsec / div_ns;
    return RCLIENT_OK;
}

int r_runtime_wall_time_ms(uint64_t *out_ms) {
    return read_clock(CLOCK_REALTIME, 1000000u, out_ms);
}

int r_runtime_monotonic_time_ms(uint64_t *out_ms) {
    return read_clock(CLOCK_MONOTONIC, 1000000u, out_ms);
}

int r_runtime_monotonic_time_us(uint64_t *out_us) {
    return read_clock(CLOCK_MONOTONIC, 1000u, out_us);
}

uint64_t r_runtime_delay_ms(uint64_t deadline_ms, uint64_t now_ms) {
    return deadline_ms > now_ms ? deadline_ms - now_ms : 0;
}

int r_runtime_request_delay_ms(const r_runtime_client_t *runtime, const r_client_req_t *req,
                               uint64_t *out_delay_ms) {
    if (runtime == NULL || req == NULL || out_delay_ms == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t now = 0;
    if (r_runtime_wall_time_ms(&now) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_REALTIME cannot fail on Linux */
    }
    *out_delay_ms = r_runtime_delay_ms(r_client_request_deadline_ms(runtime->client, req), now);
    return RCLIENT_OK;
}

int r_runtime_admission_delay_ms(const r_admission_request_t *adm, uint64_t *out_delay_ms) {
    if (adm == NULL || out_delay_ms == NULL || adm->state != R_ADMISSION_PENDING) {
        return RCLIENT_ERR_CONFIG;
    }
    uint64_t now = 0;
    if (r_runtime_wall_time_ms(&now) != RCLIENT_OK) {
        return RCLIENT_ERR_IO; /* GCOVR_EXCL_LINE: CLOCK_REALTIME cannot fail on Linux */
    }
    *out_delay_ms = r_runtime_delay_ms(r_client_admission_deadline_ms(adm), now);
    return RCLIENT_OK;
}
