/* SPDX-License-Identifier: MIT */
/* fuzz_sim_world.h - the reference server model the sim_server and
 * serve_datagram harnesses feed: fixed parameters and rng, three tenants
 * (key_id 1 none, 2 cookie, 3 aes; secrets derived from key_id), and the
 * client's auth state for each. */
#ifndef FUZZ_SIM_WORLD_H
#define FUZZ_SIM_WORLD_H

#include <string.h>

#include "fuzz_common.h"
#include "r_client.h"
#include "rl_auth.h"
#include "rl_credential.h"
#include "sim_server.h"

#define NOW_MS 1767225600000ull

static inline void make_key(r_auth_type_t type, uint64_t key_id, char *out, size_t cap, uint8_t secret[32]) {
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    info.type = type;
    info.key_id = key_id;
    info.has_secret = type != R_AUTH_NONE;
    for (int i = 0; i < 32; i++) secret[i] = (uint8_t)(key_id * 31u + (unsigned)i);
    if (info.has_secret) memcpy(info.secret, secret, 32);
    info.quota_word = 0xf8f2b150u;
    FUZZ_CHECK(rl_credential_encode(&info, out, cap) > 0);
}

typedef struct {
    sim_server_t *srv;
    rl_auth_t auth[4];     /* index = key_id = auth type */
    uint64_t server_id;
} world_t;

static inline void world_init(world_t *w) {
    memset(w, 0, sizeof *w);
    sim_server_params_t p;
    memset(&p, 0, sizeof p);
    p.server_start_s = 1767225600u - 3600u;
    p.node_id = 7;
    sim_rng_t rng;
    memset(&rng, 0, sizeof rng);
    rng.s[0] = 1; /* a fixed, valid xoshiro state */
    w->srv = sim_server_new(&p, &rng);
    FUZZ_CHECK(w->srv != NULL);
    w->server_id = sim_server_id(w->srv);
    for (int t = R_AUTH_NONE; t <= R_AUTH_AES; t++) {
        char key[160];
        uint8_t secret[32];
        make_key((r_auth_type_t)t, (uint64_t)t, key, sizeof key, secret);
        FUZZ_CHECK(sim_server_add_tenant(w->srv, key) == 0);
        FUZZ_CHECK(rl_auth_init(&w->auth[t], (r_auth_type_t)t, t == R_AUTH_NONE ? NULL : secret) == RCLIENT_OK);
    }
}

static inline void world_free(world_t *w) {
    sim_server_free(w->srv);
    for (int t = R_AUTH_NONE; t <= R_AUTH_AES; t++) rl_auth_release(&w->auth[t]);
}

#endif /* FUZZ_SIM_WORLD_H */
