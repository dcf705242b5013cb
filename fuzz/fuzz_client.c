/* SPDX-License-Identifier: MIT */
/* fuzz_client.c - stateful harness driving the client core through its
 * public API (r_client.h) with explicit servers and a deterministic random
 * source (r-client.md 6, 9.3; api.md "Resource Requests", "Datagrams and
 * Timers", "Threading and reentrancy").
 *
 * Input: a few configuration bytes (auth mode, quota word, policy preset or
 * custom policy, 1..4 servers, drain flag), then a script of events, one
 * opcode byte each followed by its parameters: submit (copying or borrowed,
 * 0..7 resources and guards, labels up to 1100 bytes, a completion-callback
 * action; guards may repeat a tracker under their own thresholds and
 * resources a bucket), datagram (raw bytes, a server's valid response to a
 * live request mutated by the input: bytes, and block edits (a block
 * repeated, omitted or swapped, the threshold echo rewritten, a foreign
 * unique_id); the client's own request reflected, the last datagram
 * replayed), clock advance, timer fire, event-loop step, send failures,
 * random-source faults, cancel, latency report, steering rebind completion.
 *
 * After each event and inside every hook the model (client_model.h) checks:
 * a completion callback at most once per request, only from on_datagram /
 * on_timeout, never after cancel or during destroy, with exactly the fields
 * of the first valid response of the selected server; no send for a request
 * at or after t0 + ttl_ms, and none to a server that already answered; every
 * sent datagram authenticates and decodes to the submitted request
 * (replays byte-identical); an invalid datagram (non-OK code) changes no
 * deadline, completion, send or steering state; on_datagram's code matches
 * the response oracle (fuzz_wire.c) and the model's own block-by-block
 * reading of the spec, for matched and unmatched datagrams alike; deadlines stay within [t0, t0 + ttl_ms]
 * and a due timer leaves none <= now; with the drain flag every request
 * completes exactly once. ASan/LSan cover use after free and leaks: the
 * client is destroyed with requests still in flight. */
#include "client_model.h"

#define MAX_EVENTS 512

static void run_event(cm_model_t *m, fuzz_reader_t *r, uint8_t op) {
    switch (op % 16) {
    case 0:
    case 1: cm_ev_submit(m, r, false); break;
    case 2: cm_ev_submit(m, r, true); break;
    case 3:
    case 4: cm_ev_response(m, r); break;
    case 5: cm_ev_raw_datagram(m, r); break;
    case 6: m->now += fuzz_u8(r); break;
    case 7: m->now += fuzz_u16(r) % 512u; break;
    case 8: cm_ev_fire(m, r); break;
    case 9:
    case 10: cm_ev_host_loop(m); break;
    case 11: cm_ev_cancel(m, r); break;
    case 12: cm_ev_report(m, r); break;
    case 13: cm_ev_misc(m, r); break;
    case 14:
        if (fuzz_u8(r) & 1u) {
            cm_ev_replay_last(m);
        } else {
            cm_ev_reflect(m, r);
        }
        break;
    default: cm_ev_rebind_complete(m, r); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *copy = fuzz_dup(data, size);
    fuzz_reader_t r = fuzz_reader(copy, size);
    cm_model_t *m = calloc(1, sizeof *m);
    FUZZ_CHECK(m != NULL);
    cm_setup(m, &r);
    bool drain = fuzz_u8(&r) & 1u;
    for (int n = 0; n < MAX_EVENTS && fuzz_left(&r) > 0; n++) {
        run_event(m, &r, fuzz_u8(&r));
        cm_check_all(m);
    }
    if (drain) {
        cm_drain(m);
    }
    cm_teardown(m);
    free(m);
    free(copy);
    return 0;
}
