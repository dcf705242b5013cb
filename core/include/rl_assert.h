/* SPDX-License-Identifier: MIT */
/* rl_assert.h - the project's one assertion macro (docs/explore.md
 * "Assertions"). Project-internal: not in the installed public headers.
 *
 * RL_ASSERT(cond) checks a pre- or postcondition of a state transition. It is
 * compiled in when RCLIENT_ASSERTIONS is defined: every build type but Release
 * (tests, fuzzing, explore, sanitizers), and Release too with
 * -DRCLIENT_ASSERTIONS=ON. Out, it evaluates nothing. A failure prints the
 * condition and its place and aborts, so a simulated run turns silent state
 * corruption into a seed that reproduces. */
#ifndef RL_ASSERT_H
#define RL_ASSERT_H

#ifdef RCLIENT_ASSERTIONS
#include <stdio.h>
#include <stdlib.h>
#define RL_ASSERT(cond)                                                                          \
    ((cond) ? (void)0                                                                            \
            : (fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond), abort()))
#else
#define RL_ASSERT(cond) ((void)0)
#endif

#endif /* RL_ASSERT_H */
