/* SPDX-License-Identifier: MIT */
/* interop_faults.h - deliberate faults of the reference interop driver, for
 * the test build rl-interop-driver-faults only (docs/interop.md "Broken
 * drivers"): one at a time, chosen by the environment variable
 * RL_INTEROP_FAULT. They act on the datagrams the unmodified runtime sends and
 * receives (the link wraps sendto, sendmmsg and recvfrom), never inside the
 * library. In the reference driver every hook below is an empty inline. */
#ifndef INTEROP_FAULTS_H
#define INTEROP_FAULTS_H

#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

/* What the driver is doing, so that a fault knows a fan-out from a replay. */
typedef enum { FAULT_IDLE = 0, FAULT_SUBMIT, FAULT_WAIT, FAULT_REPORT } fault_phase_t;

#ifdef INTEROP_FAULTS
/* Read RL_INTEROP_FAULT (no_fanout, replay_all, replay_at_deadline, new_uid,
 * accept_none, key_bytes, ignore_steering,
 * stale_dns); an unknown name ends the driver with exit 2. */
void interop_faults_init(void);
void interop_faults_phase(fault_phase_t phase);
/* The client's key and servers (copied), after a successful create. */
void interop_faults_client(const char *key, const r_server_endpoint_t *servers, size_t n,
                           const r_request_policy_t *policy);
/* After a check was answered: replay_at_deadline sends its late copy here. */
void interop_faults_after_check(void);
#else
static inline void interop_faults_init(void) {}
static inline void interop_faults_phase(fault_phase_t phase) { (void)phase; }
static inline void interop_faults_client(const char *key, const r_server_endpoint_t *servers, size_t n,
                                         const r_request_policy_t *policy)
{
    (void)key;
    (void)servers;
    (void)n;
    (void)policy;
}
static inline void interop_faults_after_check(void) {}
#endif

#endif /* INTEROP_FAULTS_H */
