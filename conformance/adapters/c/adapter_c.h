/* SPDX-License-Identifier: MIT */
/* adapter_c.h - the HA half of the C reference adapter (conformance/ADAPTER.md
 * "HA cases"): one r_client_t at a time, driven through the public API
 * (r_client.h, r_client_io.h) with a host that takes its clock, random bytes,
 * servers and send failures from the testbed's messages. */
#ifndef ADAPTER_C_H
#define ADAPTER_C_H

#include <jansson.h>

typedef struct adapter_ha adapter_ha_t;

adapter_ha_t *adapter_ha_new(void);
void adapter_ha_free(adapter_ha_t *ha);

/* Answer an HA request (ha_create, submit, datagram, timer, cancel); NULL
 * when op is none of them. The answer is owned by the caller. */
json_t *adapter_ha_dispatch(adapter_ha_t *ha, const json_t *req);

#endif /* ADAPTER_C_H */
