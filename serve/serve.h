/* SPDX-License-Identifier: MIT */
/* serve.h - the engine of `rl-testbed serve`: instances of the reference
 * r-server model (sim/src/sim_server.h) bound to real UDP sockets, driven by
 * one ppoll() loop with the wall clock as the servers' clock (request
 * time_stamp freshness is checked as the model does) and a monotonic clock
 * for delays and timers. docs/serve.md is the user's guide. */
#ifndef SERVE_H
#define SERVE_H

#include <stdio.h>

#include "serve_conf.h"

/* Run the servers of c (checked by serve_conf_finish) until SIGINT or
 * SIGTERM, or --duration. SIGHUP restarts every server (new server_id, state
 * lost). A signal is taken before the next receive batch, also while the
 * sockets stay readable. On stdout-like `out`: one line per server once bound ("server 0:
 * server_id N port P listen ADDR..."), "serve: ready ...", a line per restart,
 * and at the end the summary (counts per verdict and per server).
 * Returns 0 after a clean stop, or 1 with err set (cannot bind, cannot open
 * the log or zone file, out of memory). */
int serve_run(const serve_conf_t *c, FILE *out, char *err);

#endif /* SERVE_H */
