/* SPDX-License-Identifier: MIT */
/* rt_loop.h - the host loop of the runtime tests: poll the runtime's sockets,
 * drain what is readable, fire the request's deadline (api.md "Datagrams and
 * Timers": re-arm from the deadline after every event). Header-only. */
#ifndef RT_LOOP_H
#define RT_LOOP_H

#include <poll.h>
#include <stdbool.h>
#include <string.h>

#include "r_client_runtime.h"

typedef struct {
    int completions;
    int status;
    bool success;
    uint64_t server_id;
    bool keep_port;
    uint16_t deficit;
} rt_result_t;

static inline void rt_on_result(r_client_req_t *req, const r_rate_limit_result_t *r, void *user) {
    (void)req;
    rt_result_t *out = user;
    out->completions++;
    out->status = r->status;
    out->success = r->success;
    out->server_id = r->server_id;
    out->keep_port = r->steering_feedback;
    out->deficit = r->resource_count > 0 ? r->resources[0].tokens_deficit : 0;
}

/* Options for a runtime of the tests: the key, everything else zero, and the
 * default policy with U = TEST_UNIT_MS (test_keys.h), so a loaded host still
 * answers within a round. */
static inline void rt_test_options(r_runtime_options_t *o, const char *key, uint32_t unit_ms) {
    memset(o, 0, sizeof *o);
    o->auth_key = key;
    o->has_request_policy = true;
    r_client_default_request_policy(&o->request_policy);
    o->request_policy.unit_ms = unit_ms;
}

/* The max_ms of a wait that measures nothing: a hang guard far above the
 * horizon and a loaded host's scheduling delays (project). */
#define RT_HANG_MS 30000

/* Run until *done != 0 or max_ms passed; req (may be NULL) gets its timeouts
 * while *done is 0. Returns true when done. */
static inline bool rt_run_until(r_runtime_client_t *rt, const int *done, r_client_req_t *req, int max_ms) {
    uint64_t start = 0, now = 0;
    r_runtime_monotonic_time_ms(&start);
    while (*done == 0) {
        r_runtime_monotonic_time_ms(&now);
        if (now - start > (uint64_t)max_ms) {
            return false;
        }
        struct pollfd pfd[8];
        size_t n = r_runtime_socket_count(rt);
        for (size_t i = 0; i < n && i < 8; i++) {
            pfd[i].fd = r_runtime_socket_at(rt, i);
            pfd[i].events = POLLIN;
            pfd[i].revents = 0;
        }
        uint64_t delay = 10;
        if (req != NULL && r_runtime_request_delay_ms(rt, req, &delay) == RCLIENT_OK && delay > 10) {
            delay = 10;
        }
        int r = poll(pfd, (nfds_t)n, (int)delay);
        if (r > 0) {
            for (size_t i = 0; i < n && i < 8; i++) {
                if (pfd[i].revents & POLLIN) {
                    (void)r_runtime_client_on_readable(rt, pfd[i].fd);
                }
            }
        } else if (req != NULL && *done == 0) {
            (void)r_runtime_request_on_timeout(rt, req);
        }
    }
    return true;
}

#endif /* RT_LOOP_H */
