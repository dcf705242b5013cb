/* SPDX-License-Identifier: MIT */
/* rl_c_client_adapter.h - what the two files of the adapter for the published
 * C client share (rl_c_client_adapter.c: the protocol, the vector kinds and the
 * host's random source; rl_c_client_ha.c: HA cases). */
#ifndef RL_C_CLIENT_ADAPTER_H
#define RL_C_CLIENT_ADAPTER_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "r_client.h"

/* The host's random source (RAND_bytes): the next draws are a, then b. */
void rand_set(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Where the next draw starts, and going back there (a probe's draws undone). */
size_t rand_tell(void);
void rand_seek(size_t pos);
int hex_bytes(const json_t *v, uint8_t *out, size_t cap, size_t *len);
json_t *hex_json(const uint8_t *b, size_t n);
uint32_t u32(const json_t *o, const char *k);
uint64_t u64s(const json_t *v);
json_t *u64_json(uint64_t v);
/* The key text the client is given (see RL_ADAPTER_TRANSLATE_KEYS). */
const char *client_key(const char *key);
const char *rc_name(int rc);
/* A request's blocks in the vector shape into the client's structs; -1 when one does not fit. */
int read_blocks(const json_t *resources, const json_t *guards, r_resource_request_t *rs, r_latency_guard_t *gs);
int translating(void);

/* HA cases: the hello capabilities, and the answer to an HA op (NULL: not one). */
json_t *ha_capabilities(void);
json_t *ha_dispatch(const json_t *req);

#endif
