/* SPDX-License-Identifier: MIT */
/* conf_server.c - the servers' side of the host adapter: Rate Responses built
 * from the captured requests (wire_protocol.md "rate_response PDU": the request
 * modified in place), the invalid variants of conformance/README.md, and the
 * checks every sent request must pass. */
#include <string.h>

#include "conf_host.h"
#include "rl_le.h"
#include "rl_wire.h"
#include "vec_json.h"

#define GUARD_OFF_CURRENT_LATENCY 36u
#define RES_OFF_RATE_LIMIT 20u
#define RES_OFF_TOKENS 24u
#define AUTH_OFF_BODY 4u          /* cookie, or AES nonce */
#define AES_OFF_TAG (4u + RL_AES_NONCE_LEN)
#define UNKNOWN_AUTH_TYPE 0x5858u /* "XX" */
#define TENANT_TYPE_WRONG 0x4C53u

/* The request the server answers: its latest successful copy at or before
 * now, else the client's first successful send (README "Responses"). */
static const conf_capture_t *answer_source(const conf_host_t *h, int server)
{
    const conf_capture_t *first = NULL, *latest = NULL;
    uint64_t rel = h->now - CONF_T0_MS;
    for (size_t i = 0; i < h->n_cap; i++) {
        const conf_capture_t *c = &h->cap[i];
        if (!c->s.ok)
            continue;
        if (first == NULL)
            first = c;
        if (c->s.server == server && c->s.at <= rel)
            latest = c;
    }
    return latest != NULL ? latest : first;
}

static size_t pdu_offset(const conf_host_t *h)
{
    return RL_TENANT_TLV_SIZE + rl_auth_tlv_size(h->key.type);
}

/* Turn the opened request in buf into the server's plaintext response. */
static bool fill_response(const conf_host_t *h, const conf_event_t *ev, uint8_t *buf, size_t len, char *err,
                          size_t cap)
{
    size_t pdu = pdu_offset(h);
    if (len < pdu + RL_RATE_PDU_FIXED) {
        vec_format(err, cap, "(server): the request is too short to answer (%zu bytes)", len);
        return false;
    }
    size_t n_guards = rl_load_u16(buf + pdu + 8), n_res = rl_load_u16(buf + pdu + 10);
    size_t g = pdu + RL_RATE_PDU_FIXED, r = g + n_guards * RL_GUARD_BLOCK_SIZE;
    if (n_guards > CONF_MAX_BLOCKS || n_res > CONF_MAX_BLOCKS || r + n_res * RL_RESOURCE_BLOCK_SIZE > len) {
        vec_format(err, cap, "(server): the request's block counts do not fit it");
        return false;
    }
    rl_store_u64(buf + RL_TENANT_OFF_KEY_ID, h->c->server_ids[ev->server]);
    buf[RL_TENANT_OFF_STEERING] = ev->keep_port ? 1u : 0u;
    buf[RL_TENANT_OFF_MGMT] = 0;
    rl_store_u16(buf + pdu, RL_PDU_RATE_RESPONSE);
    rl_store_u32(buf + pdu + 4, 0); /* both reserved fields (the request's dedup_ttl_ms) */
    for (size_t i = 0; i < n_guards; i++)
        rl_store_u32(buf + g + i * RL_GUARD_BLOCK_SIZE + GUARD_OFF_CURRENT_LATENCY, ev->current_latency[i]);
    for (size_t i = 0; i < n_res; i++) {
        uint8_t *b = buf + r + i * RL_RESOURCE_BLOCK_SIZE;
        rl_store_u32(b + RES_OFF_RATE_LIMIT, ev->actual_rate[i]);
        rl_store_u16(b + RES_OFF_TOKENS, ev->tokens_deficit[i]);
    }
    return true;
}

/* Resource or guard block i of the plaintext response in buf. */
static uint8_t *block_at(const conf_host_t *h, uint8_t *buf, bool guard, size_t i)
{
    size_t pdu = pdu_offset(h);
    size_t g = pdu + RL_RATE_PDU_FIXED;
    if (guard)
        return buf + g + i * RL_GUARD_BLOCK_SIZE;
    return buf + g + (size_t)rl_load_u16(buf + pdu + 8) * RL_GUARD_BLOCK_SIZE + i * RL_RESOURCE_BLOCK_SIZE;
}

/* The block-level variants (README "Invalid datagrams"): the framing stays
 * valid, only the block-by-block answer to the request breaks. */
static void alter_blocks(const conf_host_t *h, conf_variant_t v, uint8_t *buf, size_t *len)
{
    size_t pdu = pdu_offset(h);
    uint8_t tmp[RL_RESOURCE_BLOCK_SIZE];
    uint8_t *r0 = block_at(h, buf, false, 0), *r1 = block_at(h, buf, false, 1);
    switch (v) {
    case CONF_VAR_RESOURCE_REPEATED: memcpy(r1, r0, RL_RESOURCE_BLOCK_SIZE); break;
    case CONF_VAR_RESOURCES_SWAPPED:
        memcpy(tmp, r0, sizeof tmp);
        memcpy(r0, r1, sizeof tmp);
        memcpy(r1, tmp, sizeof tmp);
        break;
    case CONF_VAR_GUARD_REPEATED:
        memcpy(block_at(h, buf, true, 1), block_at(h, buf, true, 0), RL_GUARD_BLOCK_SIZE);
        break;
    case CONF_VAR_RESOURCE_OMITTED: {
        size_t n = rl_load_u16(buf + pdu + 10);
        uint8_t *last = block_at(h, buf, false, n - 1);
        memmove(last, last + RL_RESOURCE_BLOCK_SIZE, (size_t)(buf + *len - (last + RL_RESOURCE_BLOCK_SIZE)));
        *len -= RL_RESOURCE_BLOCK_SIZE;
        rl_store_u16(buf + pdu + 10, (uint16_t)(n - 1));
        rl_store_u16(buf + pdu + 2, (uint16_t)(rl_load_u16(buf + pdu + 2) - RL_RESOURCE_BLOCK_SIZE));
        break;
    }
    default: break;
    }
}

/* Alterations on the plaintext, before authentication. */
static void alter_pre(const conf_host_t *h, conf_variant_t v, uint8_t *buf, size_t *len)
{
    size_t pdu = pdu_offset(h);
    if (conf_variant_info(v)->vs_request) {
        alter_blocks(h, v, buf, len);
        return;
    }
    switch (v) {
    case CONF_VAR_TRUNCATED: *len -= 4; break; /* pdu_size left as it was */
    case CONF_VAR_PDU_SIZE: rl_store_u16(buf + pdu + 2, (uint16_t)(rl_load_u16(buf + pdu + 2) + 4u)); break;
    case CONF_VAR_RESERVED_NONZERO: rl_store_u16(buf + pdu + 4, 1); break;
    case CONF_VAR_WRONG_UNIQUE_ID: buf[RL_TENANT_OFF_UNIQUE_ID + 15] ^= 0xFFu; break;
    case CONF_VAR_UNTRUSTED_SERVER_ID: rl_store_u64(buf + RL_TENANT_OFF_KEY_ID, 1); break;
    case CONF_VAR_WRONG_PDU_TYPE: rl_store_u16(buf + pdu, RL_PDU_RATE_REQUEST); break;
    case CONF_VAR_MGMT_FLAG: buf[RL_TENANT_OFF_MGMT] = 1; break;
    /* tenant header values before sealing: under AES the AAD covers them, and
     * the tag must hold so that the value alone is judged */
    case CONF_VAR_TENANT_PADDING: buf[RL_TENANT_OFF_PADDING] = 1; break;
    case CONF_VAR_STEERING_VALUE: buf[RL_TENANT_OFF_STEERING] = 2; break;
    default: break;
    }
}

/* Alterations on the finished datagram. */
static void alter_post(const conf_host_t *h, conf_variant_t v, uint8_t *buf, size_t *len)
{
    switch (v) {
    case CONF_VAR_EMPTY: *len = 0; break;
    case CONF_VAR_TENANT_TRUNCATED: *len = RL_TENANT_TLV_SIZE - 1u; break;
    case CONF_VAR_TENANT_TYPE: rl_store_u16(buf, TENANT_TYPE_WRONG); break;
    case CONF_VAR_WRONG_AUTH_TYPE: rl_store_u16(buf + RL_TENANT_TLV_SIZE, UNKNOWN_AUTH_TYPE); break;
    case CONF_VAR_BAD_COOKIE: buf[RL_TENANT_TLV_SIZE + AUTH_OFF_BODY] ^= 0x01u; break;
    case CONF_VAR_BAD_TAG: buf[RL_TENANT_TLV_SIZE + AES_OFF_TAG] ^= 0x01u; break;
    case CONF_VAR_BAD_CIPHERTEXT: buf[pdu_offset(h)] ^= 0x01u; break;
    default: break;
    }
}

/* The plaintext response in buf re-framed with the auth-none TLV (type "NA",
 * size 4, no body) in place of the key's cookie or AES TLV, and not sealed:
 * a response authenticated with another mode than the key's (r-client.md 6.4
 * "Authentication": the auth TLV type must equal the key's mode). */
static void reframe_auth_none(const conf_host_t *h, uint8_t *buf, size_t *len)
{
    size_t pdu = pdu_offset(h), none = RL_TENANT_TLV_SIZE + RL_AUTH_NONE_TLV_SIZE;
    memmove(buf + none, buf + pdu, *len - pdu);
    *len -= pdu - none;
    rl_store_u16(buf + RL_TENANT_TLV_SIZE, RL_TLV_AUTH_NONE);
    rl_store_u16(buf + RL_TENANT_TLV_SIZE + 2u, (uint16_t)RL_AUTH_NONE_TLV_SIZE);
}

bool conf_host_build(conf_host_t *h, const conf_event_t *ev, uint8_t *out, size_t *out_len, char *err, size_t cap)
{
    const conf_capture_t *src = answer_source(h, ev->server);
    const char *why = "ok";
    if (src == NULL) {
        vec_format(err, cap, "(server): no request datagram was sent that %s could answer",
                   h->c->server_names[ev->server]);
        return false;
    }
    memcpy(out, src->data, src->len);
    *out_len = src->len;
    if (ev->variant == CONF_VAR_REFLECTED_REQUEST)
        return true;
    if (rl_auth_open(&h->server_auth, out, *out_len, &why) != RCLIENT_OK) {
        vec_format(err, cap, "(server): the servers cannot open the client's request: %s", why);
        return false;
    }
    if (!fill_response(h, ev, out, *out_len, err, cap))
        return false;
    alter_pre(h, ev->variant, out, out_len);
    if (ev->foreign_unique_id)
        out[RL_TENANT_OFF_UNIQUE_ID + 15] ^= 0xFFu; /* before sealing: the AES AAD covers it */
    if (ev->variant == CONF_VAR_AUTH_NONE) {
        reframe_auth_none(h, out, out_len);
        return true;
    }
    uint8_t nonce[RL_AES_NONCE_LEN] = {0xA5};
    h->server_nonce++;
    rl_store_u32(nonce + 4, h->server_nonce); /* a fresh server nonce per response */
    if (rl_auth_seal(&h->server_auth, out, *out_len, nonce) != RCLIENT_OK) {
        vec_format(err, cap, "(server): sealing the response failed");
        return false;
    }
    alter_post(h, ev->variant, out, out_len);
    return true;
}

/* One captured send: a Rate Request of the key's tenant with the request's
 * unique_id, that the servers can open; *ttl gets its dedup_ttl_ms. */
static bool check_one(conf_host_t *h, const conf_capture_t *c, const uint8_t *unique_id, uint32_t *ttl, char *err,
                      size_t cap)
{
    uint8_t buf[R_CLIENT_MAX_DATAGRAM];
    const char *why = "ok";
    size_t pdu = pdu_offset(h);
    if (c->s.server < 0) {
        vec_format(err, cap, "a send at %llu went to an address that is no server", (unsigned long long)c->s.at);
        return false;
    }
    if (c->len < pdu + RL_RATE_PDU_FIXED || rl_load_u16(c->data) != RL_TLV_TENANT ||
        rl_load_u64(c->data + RL_TENANT_OFF_KEY_ID) != h->key.key_id) {
        vec_format(err, cap, "a send at %llu is not a request of this tenant", (unsigned long long)c->s.at);
        return false;
    }
    if (memcmp(c->data + RL_TENANT_OFF_UNIQUE_ID, unique_id, R_CLIENT_ID_LEN) != 0) {
        vec_format(err, cap, "a send at %llu carries another unique_id (r-client.md 9.3.2: one logical request)",
                   (unsigned long long)c->s.at);
        return false;
    }
    memcpy(buf, c->data, c->len);
    if (rl_auth_open(&h->server_auth, buf, c->len, &why) != RCLIENT_OK || rl_load_u16(buf + pdu) != RL_PDU_RATE_REQUEST) {
        vec_format(err, cap, "a send at %llu is not a Rate Request the servers can open (%s)",
                   (unsigned long long)c->s.at, why);
        return false;
    }
    *ttl = rl_load_u32(buf + pdu + 4);
    return true;
}

bool conf_host_check_requests(conf_host_t *h, char *err, size_t cap)
{
    h->obs.has_ttl = h->n_cap > 0;
    if (h->cap_overflow) {
        vec_format(err, cap, "more than %u sends", CONF_MAX_SENDS);
        return false;
    }
    for (size_t i = 0; i < h->n_cap; i++) {
        uint32_t ttl = 0;
        if (!check_one(h, &h->cap[i], h->cap[0].data + RL_TENANT_OFF_UNIQUE_ID, &ttl, err, cap))
            return false;
        if (i == 0)
            h->obs.ttl_ms = ttl;
        else if (ttl != h->obs.ttl_ms) {
            vec_format(err, cap, "a send at %llu carries dedup_ttl_ms %u, the first %u",
                       (unsigned long long)h->cap[i].s.at, ttl, h->obs.ttl_ms);
            return false;
        }
    }
    return true;
}
