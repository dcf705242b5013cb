/* SPDX-License-Identifier: MIT */
/* serve_datagram.h - what `rl-testbed serve` does with one received datagram
 * once the rate cap and the scripted drop let it through: the reference
 * server model decides (sim_server_handle, wire_protocol.md) and the log gets
 * its "in" line (serve_log.h, docs/serve.md "Read the log"). serve_run.c
 * calls it per datagram; fuzz/fuzz_serve_datagram.c calls it on any bytes. */
#ifndef SERVE_DATAGRAM_H
#define SERVE_DATAGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "serve_log.h"
#include "sim_server.h"

/* Hand datagram d (len bytes, any content; the caller keeps ownership) to
 * model at model time now_ms (wall clock + skew, milliseconds). A reply, if
 * any, is written to out (cap bytes) and its length to *out_len (0: none);
 * the model's result goes to *r. When the log is on, one "in" line is
 * written with e's wall_ms, server and peer (e->peer: the peer's text; only
 * read when the log is on); e's other fields are set here. When answering
 * evicted live dedup entries, the ERROR event (serve_log_dedup_evicted) is
 * written too. Returns the model's verdict; never fails. */
sim_server_verdict_t serve_handle_datagram(sim_server_t *model, uint64_t now_ms, const uint8_t *d, size_t len,
                                           uint8_t *out, size_t cap, size_t *out_len, sim_server_result_t *r,
                                           serve_log_t *log, serve_log_in_t *e);

#endif /* SERVE_DATAGRAM_H */
