/* SPDX-License-Identifier: MIT */
/* serve_log.h - the --log file of `rl-testbed serve`: one JSON object per
 * line for every datagram received and sent, and for restarts. Fields are
 * documented in docs/serve.md "Read the log". A client maintainer reads
 * "reason" to see what their client got wrong. */
#ifndef SERVE_LOG_H
#define SERVE_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_server.h"

typedef struct {
    FILE *f;            /* NULL: logging off */
    bool owned;
    FILE *alert;        /* ERROR text lines (serve_log_dedup_evicted, a failed rotation); NULL = stderr */
    /* --log-max-bytes: rotation of an owned file */
    char *path;         /* owned copy; NULL for stdout */
    uint64_t max_bytes; /* 0 = no limit */
    uint64_t rotations; /* files renamed to PATH.1 so far */
    int rotate_errno;   /* the rename or reopen that failed (logging is then off), else 0 */
    /* A log that is not a regular file (a pipe, a socket, a terminal) stops
     * taking lines while its reader does not read. With room set, such a
     * log begins a line only when room(room_ctx, fd) says so: it waits for
     * room and returns false once a stop signal came while there is none;
     * the line is then left unwritten and counted, so a stop signal is
     * acted on whatever the reader does (docs/serve.md "Stop it"). NULL
     * room: lines wait in write(2). */
    bool waits;                         /* set by serve_log_open: not a regular file */
    bool (*room)(void *ctx, int fd);
    void *room_ctx;
    uint64_t unwritten;                 /* lines left unwritten (room returned false) */
} serve_log_t;

/* Open path for appending ("-" = stdout). max_bytes > 0 (a file only): after
 * the line that takes the file to max_bytes or more, the file is renamed
 * PATH.1 (replacing an older PATH.1) and a new PATH is begun, so the log
 * takes at most 2 x max_bytes plus two lines on disk and no line is split; a
 * file already over the bound is rotated after its first new line. When
 * another program moved or deleted PATH meanwhile, the lines go on into the
 * moved file until it reaches max_bytes, then a new PATH is begun (nothing is
 * renamed). A rename or reopen that fails stops logging, with one ERROR line
 * on the alert stream and rotate_errno set. 0 or -1 (errno set). */
int serve_log_open(serve_log_t *l, const char *path, uint64_t max_bytes);
void serve_log_close(serve_log_t *l);

/* A received datagram. verdict is the model's verdict name, or the serve
 * verdict "script_drop" / "rate_capped" when the model never saw it
 * (result NULL then). */
typedef struct {
    uint64_t wall_ms;
    unsigned server;
    uint64_t server_id;
    const char *peer;                  /* "127.0.0.1:5000", "[::1]:5000" */
    const uint8_t *dgram;
    size_t len;
    const char *verdict;
    int model_verdict;                 /* sim_server_verdict_t, or -1 */
    const sim_server_result_t *result; /* NULL when the model did not see it */
} serve_log_in_t;

void serve_log_in(serve_log_t *l, const serve_log_in_t *e);

/* A datagram sent (or, lost = true, lost on purpose by drop_reply). what is
 * "rate_response" or "injected"; note names the injected kind. */
typedef struct {
    uint64_t wall_ms;
    unsigned server;
    uint64_t server_id;
    const char *peer;
    const uint8_t *dgram;
    size_t len;
    const char *what;
    const char *note;
    const char *verdict;               /* of the request answered */
    bool allowed;
    uint32_t delay_ms;
    bool lost;
} serve_log_out_t;

void serve_log_out(serve_log_t *l, const serve_log_out_t *e);

/* A restart: the instance's old and new server_id and why ("restart_at",
 * "restart_after", "SIGHUP"). */
void serve_log_restart(serve_log_t *l, uint64_t wall_ms, unsigned server, uint64_t old_id, uint64_t new_id,
                       const char *cause);

/* Live dedup entries evicted for capacity while answering one datagram
 * (wire_protocol.md Degraded-State Behavior: "the server MUST emit ERROR
 * logs"). When the log is on, one line {"dir":"event","event":"dedup_evicted",
 * "level":"ERROR","evicted":n,"evicted_key_id":"<decimal>","evicted_total":t,
 * "dedup_capacity":c}. When began (the cache was healthy before), also one
 * text line on l->alert (stderr when NULL), logging or not:
 * "serve: ERROR server <i>: dedup cache full (capacity <c>): ...". */
typedef struct {
    uint64_t wall_ms;
    unsigned server;
    uint64_t server_id;
    uint32_t evicted;
    uint64_t evicted_key_id;
    uint64_t evicted_total;
    uint32_t capacity;
    bool began;
} serve_log_evict_t;

void serve_log_dedup_evicted(serve_log_t *l, const serve_log_evict_t *e);

#endif /* SERVE_LOG_H */
