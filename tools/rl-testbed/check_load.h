/* SPDX-License-Identifier: MIT */
/* check_load.h - the result of one `check --load` run, shared by the engine
 * (check_load.c) and its printer (check_load_print.c). */
#ifndef CHECK_LOAD_H
#define CHECK_LOAD_H

#include "check.h"
#include "check_hist.h"

typedef struct {
    check_hist_t from_intended; /* completion minus the scheduled send time, us */
    check_hist_t from_sent;     /* completion minus the actual submit, us */
    uint64_t submitted, submit_failed, done; /* measured requests only (after the warm-up) */
    uint64_t allowed, denied, failed;
    uint64_t warmup_done;
    uint64_t rounds[R_CLIENT_HA_MAX_REPLAY_COUNT + 2]; /* [k] round k, [N+1] final receive phase */
    uint64_t polls;             /* ppoll calls in the measured part */
    uint64_t cap_delayed;       /* open loop: submissions that came due with the in-flight cap full */
    uint32_t most_inflight;
    uint64_t rekeys;            /* deadline heap rebuilt after a datagram that did not decide */
    double secs;                /* first measured scheduled send to the last completion */
    double cpu_us;              /* this process's user + system CPU time over the measured part */
    size_t servers;
    r_runtime_stats_t st;       /* runtime counters over the measured part */
} load_result_t;

void check_load_print(const check_cfg_t *cfg, const load_result_t *r);

/* One load run of cfg into *out (no output but errors). Returns 0 or CHECK_EXIT_*. */
int check_load_once(const check_cfg_t *cfg, load_result_t *out);

/* --compare-server: cfg and the same with the other server set, in
 * alternating rounds (check_compare.c); prints both and the paired difference. */
int check_run_compare(const check_cfg_t *cfg);

#endif /* CHECK_LOAD_H */
