/* SPDX-License-Identifier: MIT */
/* vec_client.h - the vector backend that asks an adapter (conformance/ADAPTER.md
 * "Vector requests") instead of the built-in C kinds: one `vector` message per
 * test, its answer turned into the same vec_run_t the built-in kinds give, so
 * the runner judges both alike. */
#ifndef VEC_CLIENT_H
#define VEC_CLIENT_H

#include "adapter_proc.h"
#include "vec_runner.h"

/* A backend over a started adapter (borrowed; it must outlive the backend). */
vec_backend_t vec_client_backend(rl_adapter_t *a);

/* Read the answer of one vector message (message number id) into run.
 * Exposed for the dialect report, which asks the same way. */
void vec_client_answer(const rl_adapter_t *a, unsigned long id, const json_t *ans, vec_run_t *run);

#endif /* VEC_CLIENT_H */
