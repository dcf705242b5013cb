/* SPDX-License-Identifier: MIT */
/* sim_server_admin_util.h - helpers for the reference server's
 * administrative-channel tests. Include after sim_server_test_util.h, once
 * per test executable.
 *
 * Admin PDUs are written here byte by byte from the tables of
 * wire_protocol.md "Administrative PDUs" (not with any project encoder), and
 * sealed / opened with the client's AES-256-GCM code (rl_auth.h) under the
 * admin key: the frame is the normative one (Tenant TLV with
 * tenant_mgmt_flag = 1, Auth TLV 0x4541 size 32, encrypted PDU). */
#ifndef SIM_SERVER_ADMIN_UTIL_H
#define SIM_SERVER_ADMIN_UTIL_H

#include "sim_server_test_util.h"

#define TA_SERVER_ID ((TU_START_S - 1735689600ull) << 23 | (uint64_t)TU_LISTENER << 15 | TU_NODE)

static inline void ta_st16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void ta_st32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}
static inline void ta_st64(uint8_t *p, uint64_t v) {
    ta_st32(p, (uint32_t)v);
    ta_st32(p + 4, (uint32_t)(v >> 32));
}
static inline uint16_t ta_ld16(const uint8_t *p) {
    return (uint16_t)(p[0] | (p[1] << 8));
}
static inline uint32_t ta_ld32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t ta_ld64(const uint8_t *p) {
    return (uint64_t)ta_ld32(p) | ((uint64_t)ta_ld32(p + 4) << 32);
}

/* The administrative key and a server holding it plus tenant key 0x1234. */
typedef struct {
    sim_server_t *s;
    uint8_t secret[32];
    rl_auth_t admin;
    uint8_t nonce[12];
    uint32_t uid_n;
    tu_key_t k;                  /* a tenant key (not configured unless asked) */
} ta_fix_t;

static inline ta_fix_t *ta_fix_new_p(const sim_server_params_t *p, bool with_tenant) {
    ta_fix_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->s = tu_server(p);
    for (size_t i = 0; i < 32; i++) {
        f->secret[i] = (uint8_t)(0x11u * (i + 1u));
    }
    assert_int_equal(sim_server_set_admin_key(f->s, f->secret), 0);
    assert_int_equal(rl_auth_init(&f->admin, R_AUTH_AES, f->secret), RCLIENT_OK);
    r_api_key_quotas_t q = tu_default_quotas();
    tu_key_init(&f->k, R_AUTH_NONE, 0x1234u, &q);
    if (with_tenant) {
        assert_int_equal(sim_server_add_tenant(f->s, f->k.cred), 0);
    }
    return f;
}

static inline ta_fix_t *ta_fix_new(bool with_tenant) {
    sim_server_params_t p = tu_params();
    return ta_fix_new_p(&p, with_tenant);
}

static inline void ta_fix_free(ta_fix_t *f) {
    sim_server_free(f->s);
    rl_auth_release(&f->admin);
    tu_key_free(&f->k);
    free(f);
}

/* Frame pdu[0..n) as an admin datagram for key_id with unique_id #uid_n
 * composed at ts, sealed under the admin key (auth_type 0x4541) or left
 * with another auth type (then not sealed). Returns the length. */
static inline size_t ta_frame_typed(ta_fix_t *f, uint8_t *buf, uint64_t key_id, uint32_t uid_n, uint64_t ts,
                                    const uint8_t *pdu, size_t n, uint16_t auth_type) {
    memset(buf, 0, 72);
    ta_st16(buf, 0x4C52);
    ta_st16(buf + 2, 40);
    ta_st64(buf + 4, key_id);
    tu_uid(buf + 12, uid_n);
    ta_st64(buf + 28, ts);
    buf[36] = 1;                 /* steering_feedback */
    buf[37] = 1;                 /* tenant_mgmt_flag */
    ta_st16(buf + 40, auth_type);
    ta_st16(buf + 42, 32);
    memcpy(buf + 72, pdu, n);
    if (auth_type == 0x4541) {
        for (size_t i = 0; i < sizeof f->nonce && ++f->nonce[i] == 0; i++) {
        }
        assert_int_equal(rl_auth_seal(&f->admin, buf, 72 + n, f->nonce), RCLIENT_OK);
    }
    return 72 + n;
}

static inline size_t ta_frame(ta_fix_t *f, uint8_t *buf, uint64_t key_id, uint32_t uid_n, const uint8_t *pdu,
                              size_t n) {
    return ta_frame_typed(f, buf, key_id, uid_n, TU_T0, pdu, n, 0x4541);
}

/* Open a response under the admin key; checks the frame (tenant_mgmt_flag 1,
 * key_id = server_id, unique_id #uid_n, AES). Returns the plaintext PDU
 * (inside o->bytes) and its length in *n. */
static inline const uint8_t *ta_open(ta_fix_t *f, tu_out_t *o, uint32_t uid_n, size_t *n) {
    assert_true(o->len >= 80);
    assert_int_equal(ta_ld16(o->bytes), 0x4C52);
    assert_int_equal(ta_ld64(o->bytes + 4), TA_SERVER_ID);
    uint8_t uid[16];
    tu_uid(uid, uid_n);
    assert_memory_equal(o->bytes + 12, uid, 16);
    assert_int_equal(o->bytes[37], 1);
    assert_int_equal(ta_ld16(o->bytes + 40), 0x4541);
    const char *why = NULL;
    assert_int_equal(rl_auth_open(&f->admin, o->bytes, o->len, &why), RCLIENT_OK);
    *n = o->len - 72;
    assert_int_equal(ta_ld16(o->bytes + 74), *n); /* pdu_size = the bytes present */
    return o->bytes + 72;
}

/* ---- PDUs (wire_protocol.md tables) ------------------------------------------ */

/* Tenant Mutation: type, size, operation, flags, dedup_ttl_ms, then for ADD
 * name_len, name, tenant_key_len, tenant_key. */
static inline size_t ta_tm(uint8_t *p, uint8_t op, uint8_t flags, uint32_t ttl, const char *name, const char *key) {
    size_t n = 10;
    if (name != NULL || key != NULL) {
        size_t nl = name == NULL ? 0 : strlen(name), kl = key == NULL ? 0 : strlen(key);
        p[n++] = (uint8_t)nl;
        memcpy(p + n, name, nl);
        n += nl;
        p[n++] = (uint8_t)kl;
        memcpy(p + n, key, kl);
        n += kl;
    }
    ta_st16(p, 0x544D);
    ta_st16(p + 2, (uint16_t)n);
    p[4] = op;
    p[5] = flags;
    ta_st32(p + 6, ttl);
    return n;
}

static inline size_t ta_sq(uint8_t *p, uint8_t schema, uint8_t kind) {
    ta_st16(p, 0x5153);
    ta_st16(p + 2, 8);
    p[4] = schema;
    p[5] = kind;
    ta_st16(p + 6, 0);
    return 8;
}

/* Metrics Query; a cursor (cursor_len > 0) makes it *_FROM_CURSOR data. */
static inline size_t ta_mq(uint8_t *p, uint8_t family, uint8_t kind, const uint8_t *cursor, size_t cursor_len) {
    size_t n = 8;
    if (cursor != NULL) {
        ta_st16(p + 8, (uint16_t)cursor_len);
        ta_st16(p + 10, 0);
        memcpy(p + 12, cursor, cursor_len);
        n = 12 + cursor_len;
        while (n % 4 != 0) {
            p[n++] = 0;
        }
    }
    ta_st16(p, 0x514D);
    ta_st16(p + 2, (uint16_t)n);
    p[4] = family;
    p[5] = kind;
    ta_st16(p + 6, 0);
    return n;
}

/* Send pdu[0..n) as admin datagram #uid_n for key_id at TU_T0. */
static inline sim_server_verdict_t ta_send(ta_fix_t *f, uint64_t key_id, const uint8_t *pdu, size_t n, tu_out_t *o) {
    uint8_t buf[1200];
    size_t len = ta_frame(f, buf, key_id, ++f->uid_n, pdu, n);
    return tu_handle(f->s, TU_T0, buf, len, o);
}

/* ADD tenant key k with dedup_ttl_ms 100; asserts the Tenant Ack. */
static inline void ta_add_ok(ta_fix_t *f, const tu_key_t *k) {
    uint8_t pdu[600];
    tu_out_t o;
    size_t n = ta_tm(pdu, 0x03, 0, 100, "acme", k->cred);
    assert_int_equal(ta_send(f, k->key_id, pdu, n, &o), SIM_SRV_ADMIN_ANSWERED);
    size_t pn = 0;
    const uint8_t *ack = ta_open(f, &o, f->uid_n, &pn);
    const uint8_t want[12] = {0x41, 0x54, 0x0c, 0x00, 0x03, 0x00, 0, 0, 0, 0, 0, 0};
    assert_int_equal(pn, 12);
    assert_memory_equal(ack, want, 12);
}

/* Status Response of the server now (asserts it is answered). */
static inline void ta_status(ta_fix_t *f, uint8_t sr[448]) {
    uint8_t pdu[8];
    tu_out_t o;
    assert_int_equal(ta_send(f, 0, pdu, ta_sq(pdu, 1, 0), &o), SIM_SRV_ADMIN_ANSWERED);
    size_t n = 0;
    const uint8_t *p = ta_open(f, &o, f->uid_n, &n);
    assert_int_equal(n, 448);
    memcpy(sr, p, 448);
}

/* u64 field i of the Status Response counter block (offset 80 + 8i):
 * 0 rx_packets ... 37 tenant_mutation_failures_total (wire_protocol.md order). */
enum {
    SR_RX = 0, SR_TX, SR_RX_DROPPED, SR_TX_DROPPED, SR_PARSE, SR_AUTH, SR_ADMIN, SR_SYS_TOTAL, SR_SYS_AVAIL,
    SR_CGROUP, SR_RSS, SR_BUDGET, SR_ALLOCATED, SR_HEADROOM, SR_DEDUP_BYTES, SR_RATE_MAP, SR_LAT_MAP, SR_LAT_BUF,
    SR_LABEL_BYTES, SR_OTHER, SR_ALLOC_FAIL, SR_KEYS, SR_CAPACITY, SR_GENERATION, SR_HASH, SR_BUCKET_SUM,
    SR_SERVICE_SUM, SR_LABEL_SUM, SR_BUFFER_SUM, SR_RATE_REQ, SR_RATE_OK, SR_RATE_LIMITED, SR_GUARD_FAILED,
    SR_REPORTS, SR_DEDUP_HITS, SR_DEDUP_MISSES, SR_MUTATIONS, SR_MUTATION_FAILURES
};
static inline uint64_t ta_sr(const uint8_t *sr, int field) {
    return ta_ld64(sr + 80 + 8 * field);
}

#endif /* SIM_SERVER_ADMIN_UTIL_H */
