/* SPDX-License-Identifier: MIT */
/* rl_c_client_adapter.c - adapter (conformance/ADAPTER.md) for the published
 * C client ratelimitly-com/rl-c-client, written as its maintainers would:
 * every answer comes from the client's public API (include/r_client.h,
 * r_client_io.h) driven through its host hooks, never from our own codec.
 *
 * The client has a clock hook (r_io_ops_t.now_ms), a send hook (udp_send) and
 * a resolver hook, but no random hook: request ids and AES nonces come from
 * OpenSSL's RAND_bytes. The vector kinds fix every random input, so this
 * program supplies RAND_bytes itself (the client's only random source, as an
 * LD_PRELOAD shim would): each call takes the next queued bytes and fails
 * when none are queued. Nothing else of the client is replaced.
 *
 * Not built by CMake and not run in CI: conformance/adapters/published/run.sh
 * compiles it against a checkout the user built (librclient.a). */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <inttypes.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "r_client.h"
#include "rl_c_client_adapter.h"

#define LINE_MAX_BYTES (1u << 20)
#define MAX_SENDS 16
#define MAX_SERVERS 8

/* ---- the host's random source: RAND_bytes as the client calls it ---- */

static uint8_t rand_queue[8192];
static size_t rand_len, rand_pos;

void rand_set(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen + blen > sizeof rand_queue)
        alen = blen = 0; /* longer than any case gives: no draws at all */
    memcpy(rand_queue, a, alen);
    if (blen > 0)
        memcpy(rand_queue + alen, b, blen);
    rand_len = alen + blen;
    rand_pos = 0;
}

size_t rand_tell(void)
{
    return rand_pos;
}

void rand_seek(size_t pos)
{
    rand_pos = pos <= rand_len ? pos : rand_len;
}

int RAND_bytes(unsigned char *buf, int num);
int RAND_bytes(unsigned char *buf, int num)
{
    if (num < 0 || rand_len - rand_pos < (size_t)num)
        return 0; /* out of queued bytes: the client sees a failed draw */
    memcpy(buf, rand_queue + rand_pos, (size_t)num);
    rand_pos += (size_t)num;
    return 1;
}

/* ---- errors: one place maps the client's codes to (class, stage) ---- */

typedef struct {
    const char *cls;   /* schema error class, or NULL: the client gives none */
    const char *stage; /* a step of ADAPTER.md "Steps": key, ids, request, report, response, policy */
    char reason[200];
} reject_t;

const char *rc_name(int rc)
{
    switch (rc) {
    case RCLIENT_ERR_IO: return "RCLIENT_ERR_IO";
    case RCLIENT_ERR_TIMEOUT: return "RCLIENT_ERR_TIMEOUT";
    case RCLIENT_ERR_PROTOCOL: return "RCLIENT_ERR_PROTOCOL";
    case RCLIENT_ERR_AUTH: return "RCLIENT_ERR_AUTH";
    case RCLIENT_ERR_DNS: return "RCLIENT_ERR_DNS";
    case RCLIENT_ERR_CONFIG: return "RCLIENT_ERR_CONFIG";
    case RCLIENT_ERR_NOMEM: return "RCLIENT_ERR_NOMEM";
    default: return "RCLIENT_OK";
    }
}

/* The client's API returns one code for every key problem (RCLIENT_ERR_CONFIG),
 * RCLIENT_ERR_PROTOCOL or _CONFIG for a request it cannot build, and
 * RCLIENT_ERR_PROTOCOL or _AUTH for a datagram it refuses (r_client.h
 * r_client_on_datagram). A datagram it drops without an error has no class. */
static json_t *reject(const char *stage, int rc, const char *what)
{
    reject_t r = {NULL, stage, {0}};
    if (strcmp(stage, "request") == 0 || strcmp(stage, "report") == 0 || strcmp(stage, "policy") == 0)
        r.cls = (rc == RCLIENT_ERR_PROTOCOL || rc == RCLIENT_ERR_CONFIG) ? "range" : NULL;
    else if (strcmp(stage, "response") == 0)
        r.cls = rc == RCLIENT_ERR_PROTOCOL ? "malformed" : rc == RCLIENT_ERR_AUTH ? "auth" : NULL;
    snprintf(r.reason, sizeof r.reason, "%s: %s", what, rc_name(rc));
    return json_pack("{s:s, s:s?, s:s, s:s}", "status", "rejected", "error", r.cls, "stage", r.stage, "reason",
                     r.reason);
}

static json_t *unsupported(const char *why)
{
    return json_pack("{s:s, s:s}", "status", "unsupported", "reason", why);
}

static json_t *accepted(json_t *output)
{
    return json_pack("{s:s, s:o}", "status", "accepted", "output", output);
}

/* ---- small JSON readers ---- */

int hex_bytes(const json_t *v, uint8_t *out, size_t cap, size_t *len)
{
    const char *s = json_string_value(v);
    if (s == NULL || strlen(s) % 2 != 0 || strlen(s) / 2 > cap)
        return -1;
    size_t n = strlen(s) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned int b;
        if (sscanf(s + 2 * i, "%2x", &b) != 1)
            return -1;
        out[i] = (uint8_t)b;
    }
    *len = n;
    return 0;
}

static void hex_out(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = '\0';
}

json_t *hex_json(const uint8_t *b, size_t n)
{
    char *s = malloc(2 * n + 1);
    hex_out(b, n, s);
    json_t *j = json_string(s);
    free(s);
    return j;
}

uint32_t u32(const json_t *o, const char *k)
{
    return (uint32_t)json_integer_value(json_object_get(o, k));
}

uint64_t u64s(const json_t *v)
{
    const char *s = json_string_value(v);
    return s ? strtoull(s, NULL, 10) : (uint64_t)json_integer_value(v);
}

json_t *u64_json(uint64_t v)
{
    char s[24];
    snprintf(s, sizeof s, "%" PRIu64, v);
    return json_string(s);
}

static int name_bytes(const json_t *in, uint8_t *out, size_t cap, size_t *len)
{
    const json_t *u = json_object_get(in, "name_utf8");
    if (json_is_string(u)) {
        size_t n = json_string_length(u);
        if (n > cap)
            return -1;
        memcpy(out, json_string_value(u), n);
        *len = n;
        return 0;
    }
    return hex_bytes(json_object_get(in, "name_hex"), out, cap, len);
}

/* A request's blocks in the vector shape into the client's structs (arrays
 * of json_array_size entries each). -1 when an id is not 16 hex bytes or a
 * tokens_requested does not fit r_resource_request_t (uint16_t). */
int read_blocks(const json_t *resources, const json_t *guards, r_resource_request_t *rs, r_latency_guard_t *gs)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(resources); i++) {
        const json_t *r = json_array_get(resources, i);
        if (hex_bytes(json_object_get(r, "bucket_id_hex"), rs[i].bucket_id, 16, &n) != 0 || n != 16
            || json_integer_value(json_object_get(r, "tokens_requested")) > UINT16_MAX)
            return -1;
        rs[i].window_size_ms = u32(r, "window_size_ms");
        rs[i].rate_limit = u32(r, "rate_limit");
        rs[i].tokens_requested = (uint16_t)u32(r, "tokens_requested");
    }
    for (size_t i = 0; i < json_array_size(guards); i++) {
        const json_t *g = json_array_get(guards, i);
        if (hex_bytes(json_object_get(g, "tracker_id_hex"), gs[i].latency_tracker_id, 16, &n) != 0 || n != 16)
            return -1;
        gs[i].ttl_ms = u32(g, "ttl_ms");
        gs[i].max_samples = u32(g, "max_samples");
        gs[i].buffer_size = u32(g, "buffer_size");
        gs[i].min_sample_threshold = u32(g, "min_sample_threshold");
        gs[i].threshold_ms = u32(g, "latency_threshold");
    }
    return 0;
}

/* ---- optional key translation (RL_ADAPTER_TRANSLATE_KEYS=1) ----
 *
 * The client reads only its own 60-byte unversioned credential (key_id, the
 * 32-byte secret, five uint32 quotas; r_crypto.c r_decode_api_key_bech32_with_quotas)
 * and refuses every format-version-1 key of wire_protocol.md "Bech32 Credential
 * Formats", so by default every test that needs a key stops at the key step.
 * With the variable set, a valid v1 rl-cookie/rl-aes key is re-encoded into the
 * client's format (same key_id, secret and quotas) before the client sees it,
 * to judge the steps after the key. The hello name says so. */

static const char B32[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint32_t b32_polymod(const uint8_t *v, size_t n)
{
    static const uint32_t gen[5] = {0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3};
    uint32_t chk = 1;
    for (size_t i = 0; i < n; i++) {
        uint32_t top = chk >> 25;
        chk = ((chk & 0x1ffffff) << 5) ^ v[i];
        for (int j = 0; j < 5; j++)
            if ((top >> j) & 1)
                chk ^= gen[j];
    }
    return chk;
}

static size_t b32_expand(const char *hrp, size_t hl, const uint8_t *data, size_t dl, uint8_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < hl; i++)
        out[n++] = (uint8_t)hrp[i] >> 5;
    out[n++] = 0;
    for (size_t i = 0; i < hl; i++)
        out[n++] = (uint8_t)hrp[i] & 31;
    memcpy(out + n, data, dl);
    return n + dl;
}

/* Decode lowercase Bech32 text into hrp and 8-bit payload; 0 on success. */
static int b32_decode(const char *s, char *hrp, size_t hcap, uint8_t *pl, size_t pcap, size_t *plen)
{
    const char *sep = strrchr(s, '1');
    size_t hl = sep ? (size_t)(sep - s) : 0, dl = sep ? strlen(sep + 1) : 0;
    uint8_t d[256], v[600];
    if (sep == NULL || hl == 0 || hl >= hcap || dl < 6 || dl > sizeof d)
        return -1;
    for (size_t i = 0; i < dl; i++) {
        const char *p = strchr(B32, sep[1 + i]);
        if (p == NULL || sep[1 + i] == '\0')
            return -1;
        d[i] = (uint8_t)(p - B32);
    }
    if (b32_polymod(v, b32_expand(s, hl, d, dl, v)) != 1)
        return -1;
    memcpy(hrp, s, hl);
    hrp[hl] = '\0';
    uint32_t acc = 0, bits = 0;
    size_t n = 0;
    for (size_t i = 0; i < dl - 6; i++) {
        acc = (acc << 5) | d[i];
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            if (n >= pcap)
                return -1;
            pl[n++] = (uint8_t)(acc >> bits);
        }
    }
    *plen = n;
    return bits >= 5 || (acc & ((1u << bits) - 1)) != 0 ? -1 : 0;
}

static void b32_encode(const char *hrp, const uint8_t *pl, size_t plen, char *out)
{
    uint8_t d[256], v[600];
    size_t n = 0, hl = strlen(hrp);
    uint32_t acc = 0, bits = 0;
    for (size_t i = 0; i < plen; i++) {
        acc = (acc << 8) | pl[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            d[n++] = (acc >> bits) & 31;
        }
    }
    if (bits > 0)
        d[n++] = (acc << (5 - bits)) & 31;
    size_t vn = b32_expand(hrp, hl, d, n, v);
    memset(v + vn, 0, 6);
    uint32_t mod = b32_polymod(v, vn + 6) ^ 1;
    for (int i = 0; i < 6; i++)
        d[n + (size_t)i] = (mod >> (5 * (5 - i))) & 31;
    char *o = out + sprintf(out, "%s1", hrp);
    for (size_t i = 0; i < n + 6; i++)
        *o++ = B32[d[i]];
    *o = '\0';
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

int translating(void)
{
    const char *on = getenv("RL_ADAPTER_TRANSLATE_KEYS");
    return on != NULL && strcmp(on, "1") == 0;
}

/* The key the client is given: the text itself, or its translation. */
const char *client_key(const char *key)
{
    static char out[256];
    char hrp[16];
    uint8_t pl[64], legacy[60];
    size_t n = 0;
    if (!translating() || key == NULL || strlen(key) > 200)
        return key;
    if (b32_decode(key, hrp, sizeof hrp, pl, sizeof pl, &n) != 0 || n != 45 || pl[0] != 1
        || (strcmp(hrp, "rl-cookie") != 0 && strcmp(hrp, "rl-aes") != 0))
        return key;
    uint32_t w = (uint32_t)pl[41] | (uint32_t)pl[42] << 8 | (uint32_t)pl[43] << 16 | (uint32_t)pl[44] << 24;
    memcpy(legacy, pl + 1, 40); /* key_id (little-endian, as the client reads it) and secret */
    put32(legacy + 40, 1u << (w & 31));
    put32(legacy + 44, 1u << ((w >> 5) & 31));
    put32(legacy + 48, 1u << ((w >> 10) & 31));
    put32(legacy + 52, 1u << ((w >> 15) & 15));
    put32(legacy + 56, ((w >> 19) & 255) * 10);
    b32_encode(hrp, legacy, sizeof legacy, out);
    return out;
}

/* ---- the host: clock, sends and a resolver with s-<id> SRV targets ---- */

typedef struct {
    uint64_t now_ms;
    uint64_t ids[MAX_SERVERS];
    size_t id_count;
    char targets[MAX_SERVERS][64];
    uint8_t sends[MAX_SENDS][2048];
    size_t send_len[MAX_SENDS];
    size_t send_count;
    int done, status;
    json_t *result;
} host_t;

static int host_send(void *ctx, const r_addr_t *to, const uint8_t *buf, size_t len)
{
    host_t *h = ctx;
    (void)to;
    if (h->send_count < MAX_SENDS && len <= sizeof h->sends[0]) {
        memcpy(h->sends[h->send_count], buf, len);
        h->send_len[h->send_count++] = len;
    }
    return 0;
}

static uint64_t host_now(void *ctx)
{
    return ((host_t *)ctx)->now_ms;
}

static int host_srv(void *ctx, const char *name, r_dns_req_id_t *id, r_dns_srv_cb cb, void *user)
{
    host_t *h = ctx;
    r_srv_record_t rec[MAX_SERVERS];
    (void)name;
    *id = 0;
    for (size_t i = 0; i < h->id_count; i++) {
        snprintf(h->targets[i], sizeof h->targets[i], "s-%" PRIu64 ".adapter.invalid", h->ids[i]);
        rec[i] = (r_srv_record_t){h->targets[i], (uint16_t)(9000 + i), 0, 0, 60000};
    }
    cb(user, 0, rec, h->id_count);
    return 0;
}

static void addr_of(size_t i, r_addr_t *a)
{
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)(9000 + i));
    sin.sin_addr.s_addr = htonl(0x7f000001u + (uint32_t)i);
    memset(a, 0, sizeof *a);
    memcpy(&a->sa, &sin, sizeof sin);
    a->len = sizeof sin;
}

static int host_addrs(void *ctx, const char *name, r_dns_req_id_t *id, r_dns_addr_cb cb, void *user)
{
    host_t *h = ctx;
    *id = 0;
    for (size_t i = 0; i < h->id_count; i++)
        if (strcmp(name, h->targets[i]) == 0) {
            r_addr_t a;
            addr_of(i, &a);
            cb(user, 0, &a, 1);
            return 0;
        }
    cb(user, -1, NULL, 0);
    return 0;
}

static int host_client(host_t *h, const char *key, const r_request_policy_t *policy, r_client_t **out)
{
    static const r_resolver_ops_t resolver = {NULL, host_srv, host_addrs, NULL};
    r_resolver_ops_t res = resolver;
    r_io_ops_t io = {h, host_send, host_now, NULL, NULL};
    r_client_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.tenant.auth.secret = client_key(key);
    cfg.request_policy = policy;
    res.ctx = h;
    return r_client_create(&cfg, &io, &res, out);
}

/* The one policy whose dedup_ttl_ms is D: one round of D ms, no final wait. */
static r_request_policy_t policy_for_ttl(uint32_t ttl_ms)
{
    r_request_policy_t p;
    memset(&p, 0, sizeof p);
    p.unit_ms = ttl_ms;
    p.replay_gap.kind = R_HA_SCHEDULE_FIXED;
    p.replay_gap.initial_units = 1;
    p.replay_gap.max_units = 1;
    return p;
}

/* ---- vector kinds ---- */

static json_t *bucket_id(const json_t *in)
{
    uint8_t name[4096], id[16];
    size_t n;
    if (name_bytes(in, name, sizeof name, &n) != 0)
        return json_pack("{s:s, s:s}", "status", "bad_input", "reason", "name");
    int rc = r_client_derive_bucket_id(name, n, u32(in, "window_size_ms"), u32(in, "rate_limit"), id);
    if (rc != RCLIENT_OK)
        return reject("ids", rc, "r_client_derive_bucket_id");
    return accepted(json_pack("{s:o}", "id_hex", hex_json(id, 16)));
}

static json_t *tracker_id(const json_t *in)
{
    uint8_t name[4096], id[16];
    size_t n;
    if (name_bytes(in, name, sizeof name, &n) != 0)
        return json_pack("{s:s, s:s}", "status", "bad_input", "reason", "name");
    int rc = r_client_derive_latency_tracker_id(name, n, u32(in, "ttl_ms"), u32(in, "max_samples"),
                                                u32(in, "buffer_size"), u32(in, "min_sample_threshold"), id);
    if (rc != RCLIENT_OK)
        return reject("ids", rc, "r_client_derive_latency_tracker_id");
    return accepted(json_pack("{s:o}", "id_hex", hex_json(id, 16)));
}

/* Output fields the client's API does not produce (r_auth_key_info_t has no
 * quota word, no rate_window_size_ms_max): left out, never invented. */
static json_t *api_key(const json_t *in)
{
    r_auth_key_info_t info;
    const char *key = json_string_value(json_object_get(in, "key"));
    int rc = r_client_parse_auth_key(key ? key : "", &info);
    if (rc != RCLIENT_OK)
        return reject("key", rc, "r_client_parse_auth_key");
    char dns[R_CLIENT_DEFAULT_TENANT_DNS_CAPACITY];
    if (r_client_format_default_tenant_dns(info.key_id, dns, sizeof dns) != RCLIENT_OK)
        dns[0] = '\0';
    json_t *quotas = json_pack("{s:o, s:o, s:o, s:o, s:o}", "rate_buckets_max", u64_json(info.rate_buckets_max),
                               "latency_services_max", u64_json(info.latency_services_max), "metrics_labels_max",
                               u64_json(info.metrics_labels_max), "latency_buffer_size_max",
                               u64_json(info.latency_buffer_size_max), "dedup_ttl_ms_max",
                               u64_json(info.dedup_ttl_ms_max));
    return accepted(json_pack("{s:s, s:o, s:o, s:o, s:s}", "auth", info.type == R_AUTH_AES_GCM ? "aes" : "cookie",
                              "key_id", u64_json(info.key_id), "secret_hex", hex_json(info.secret, 32), "quotas",
                              quotas, "default_dns_name", dns));
}

static void on_done(void *user, r_client_req_t *req, int status, const r_rate_limit_result_t *res)
{
    host_t *h = user;
    (void)req;
    h->done = 1;
    h->status = status;
    if (status != RCLIENT_OK || res == NULL)
        return;
    json_t *rs = json_array(), *gs = json_array();
    for (size_t i = 0; i < res->resource_count; i++)
        json_array_append_new(rs, json_pack("{s:o, s:I, s:I}", "bucket_id_hex", hex_json(res->resources[i].bucket_id, 16),
                                            "tokens_deficit", (json_int_t)res->resources[i].tokens_deficit,
                                            "actual_rate", (json_int_t)res->resources[i].actual_rate));
    for (size_t i = 0; i < res->guard_count; i++)
        json_array_append_new(gs, json_pack("{s:o, s:I}", "tracker_id_hex",
                                            hex_json(res->guards[i].latency_tracker_id, 16), "current_latency",
                                            (json_int_t)res->guards[i].current_latency_ms));
    h->result = json_pack("{s:o, s:b, s:b, s:o, s:o}", "server_id", u64_json(res->server_id), "keep_port",
                          res->steering_feedback, "success", res->success, "resources", rs, "guards", gs);
}

/* The request's random draws: unique_id, then the AES nonce when there is one. */
static int queue_draws(const json_t *in, const char *id_field)
{
    uint8_t uid[16], nonce[12];
    size_t n1 = 0, n2 = 0;
    if (hex_bytes(json_object_get(in, id_field), uid, sizeof uid, &n1) != 0 || n1 != 16)
        return -1;
    const json_t *nj = json_object_get(in, "nonce_hex");
    if (nj != NULL && (hex_bytes(nj, nonce, sizeof nonce, &n2) != 0 || n2 != 12))
        return -1;
    rand_set(uid, 16, nonce, n2);
    return 0;
}

/* The client that builds one packet vector: one server, the vector's clock.
 * NULL with *ans set when it cannot be had (the answer to give). */
static r_client_t *packet_client(host_t *h, const json_t *in, const r_request_policy_t *policy, json_t **ans)
{
    r_client_t *c = NULL;
    const char *key = json_string_value(json_object_get(in, "key"));
    if (json_integer_value(json_object_get(in, "steering_feedback")) != 0) {
        *ans = unsupported("the client always sends steering_feedback 0 (no API sets it)");
        return NULL;
    }
    memset(h, 0, sizeof *h);
    h->now_ms = u64s(json_object_get(in, "time_stamp_ms"));
    h->ids[0] = 1;
    h->id_count = 1;
    int rc = host_client(h, key ? key : "", policy, &c);
    if (rc != RCLIENT_OK) {
        *ans = reject("key", rc, "r_client_create");
        return NULL;
    }
    return c;
}

static json_t *rate_request_packet(const json_t *in)
{
    static host_t h;
    json_t *ans = NULL;
    r_request_policy_t policy = policy_for_ttl(u32(in, "dedup_ttl_ms"));
    r_client_t *c = packet_client(&h, in, &policy, &ans);
    int rc;
    if (c == NULL)
        return ans;
    const json_t *rj = json_object_get(in, "resources"), *gj = json_object_get(in, "guards");
    size_t nr = json_array_size(rj), ng = json_array_size(gj);
    r_resource_request_t *rs = calloc(nr + 1, sizeof *rs);
    r_latency_guard_t *gs = calloc(ng + 1, sizeof *gs);
    int too_many_tokens = read_blocks(rj, gj, rs, gs) != 0;
    const json_t *lj = json_object_get(in, "metrics_label_utf8");
    const char *label = json_string_value(lj);
    size_t label_len = json_string_length(lj);
    r_client_req_t *req = NULL;
    if (too_many_tokens) {
        ans = reject("request", RCLIENT_ERR_CONFIG,
                     "a tokens_requested does not fit r_resource_request_t (uint16_t), or an id is not 16 bytes");
    } else if (queue_draws(in, "unique_id_hex") != 0) {
        ans = json_pack("{s:s, s:s}", "status", "bad_input", "reason", "unique_id_hex or nonce_hex");
    } else if ((rc = r_client_check_rate_limit_async(c, rs, nr, ng ? gs : NULL, ng, label_len ? label : NULL,
                                                     label_len, on_done, &h, &req)) != RCLIENT_OK) {
        ans = reject("request", rc, "r_client_check_rate_limit_async");
    } else if (h.send_count == 0) {
        ans = json_pack("{s:s, s:s}", "status", "bad_input", "reason", "the client accepted the request but sent nothing");
    } else {
        ans = accepted(json_pack("{s:o}", "packet_hex", hex_json(h.sends[0], h.send_len[0])));
    }
    if (req != NULL && !h.done)
        r_client_cancel_request(c, req);
    r_client_destroy(c);
    free(rs);
    free(gs);
    return ans;
}

static json_t *latency_report_packet(const json_t *in)
{
    static host_t h;
    json_t *ans = NULL;
    r_client_t *c = packet_client(&h, in, NULL, &ans);
    int rc;
    if (c == NULL)
        return ans;
    const json_t *rj = json_object_get(in, "reports");
    size_t nr = json_array_size(rj), n;
    r_service_latency_report_t *rs = calloc(nr + 1, sizeof *rs);
    for (size_t i = 0; i < nr; i++) {
        const json_t *r = json_array_get(rj, i);
        hex_bytes(json_object_get(r, "tracker_id_hex"), rs[i].latency_tracker_id, 16, &n);
        rs[i].ttl_ms = u32(r, "ttl_ms");
        rs[i].max_samples = u32(r, "max_samples");
        rs[i].buffer_size = u32(r, "buffer_size");
        rs[i].min_sample_threshold = u32(r, "min_sample_threshold");
        rs[i].observed_latency = u32(r, "observed_latency");
    }
    if (queue_draws(in, "unique_id_hex") != 0)
        ans = json_pack("{s:s, s:s}", "status", "bad_input", "reason", "unique_id_hex or nonce_hex");
    else if ((rc = r_client_report_latency(c, rs, nr)) != RCLIENT_OK)
        ans = reject("report", rc, "r_client_report_latency");
    else if (h.send_count == 0)
        ans = accepted(json_pack("{s:b}", "sent", 0));
    else
        ans = accepted(json_pack("{s:o}", "packet_hex", hex_json(h.sends[0], h.send_len[0])));
    r_client_destroy(c);
    free(rs);
    return ans;
}

/* A response as the client receives it for one in-flight request: the
 * request is submitted with the vector's unique_id to the trusted servers,
 * the datagram arrives from the first one's address, and the request's timers
 * run until the client completes it (it waits when the responder is not the
 * oldest trusted server). */
static json_t *rate_response(const json_t *in)
{
    static host_t h;
    r_client_t *c = NULL;
    const char *key = json_string_value(json_object_get(in, "key"));
    const json_t *ids = json_object_get(in, "trusted_server_ids");
    memset(&h, 0, sizeof h);
    h.now_ms = 1767225600000u;
    for (size_t i = 0; i < json_array_size(ids) && i < MAX_SERVERS; i++)
        h.ids[h.id_count++] = u64s(json_array_get(ids, i));
    int rc = host_client(&h, key ? key : "", NULL, &c);
    if (rc != RCLIENT_OK)
        return reject("key", rc, "r_client_create");
    /* The request the response answers: the vector's, else one resource. */
    const json_t *rq = json_object_get(in, "request");
    const json_t *rj = json_object_get(rq, "resources"), *gj = json_object_get(rq, "guards");
    size_t nr = rq ? json_array_size(rj) : 1, ng = json_array_size(gj);
    r_resource_request_t *rs = calloc(nr + 1, sizeof *rs);
    r_latency_guard_t *gs = calloc(ng + 1, sizeof *gs);
    rs[0].window_size_ms = 1000;
    rs[0].rate_limit = 100;
    rs[0].tokens_requested = 1;
    (void)read_blocks(rj, gj, rs, gs); /* a request the client cannot hold fails at submission */
    uint8_t pkt[2048];
    size_t len = 0;
    r_client_req_t *req = NULL;
    json_t *ans = NULL;
    /* The request's own AES nonce is not judged here: twelve zero bytes. */
    static const uint8_t zero_nonce[12];
    uint8_t uid[16];
    size_t uid_len = 0;
    if (hex_bytes(json_object_get(in, "request_unique_id_hex"), uid, sizeof uid, &uid_len) == 0 && uid_len == 16)
        rand_set(uid, 16, zero_nonce, sizeof zero_nonce);
    if (uid_len != 16 || hex_bytes(json_object_get(in, "packet_hex"), pkt, sizeof pkt, &len) != 0) {
        ans = json_pack("{s:s, s:s}", "status", "bad_input", "reason", "request_unique_id_hex or packet_hex");
    } else if ((rc = r_client_check_rate_limit_async(c, rs, nr, ng ? gs : NULL, ng, NULL, 0, on_done, &h, &req))
                   == RCLIENT_ERR_DNS) {
        /* No trusted server: api.md lets submit fail with RCLIENT_ERR_DNS, so no request is in flight to answer. */
        ans = unsupported("no request can be in flight without a server (r_client_check_rate_limit_async: RCLIENT_ERR_DNS)");
    } else if (rc != RCLIENT_OK) {
        ans = reject("request", rc, "r_client_check_rate_limit_async (the request the response answers)");
    } else {
        r_addr_t from;
        addr_of(0, &from);
        int drc = r_client_on_datagram(c, pkt, len, &from);
        for (int turns = 0; !h.done && turns < 64; turns++) {
            uint64_t deadline = 0;
            if (r_client_request_deadline_ms(req, &deadline) != RCLIENT_OK)
                break;
            h.now_ms = deadline > h.now_ms ? deadline : h.now_ms;
            r_client_on_timeout(c, req, h.now_ms);
        }
        if (h.done && h.status == RCLIENT_OK && h.result != NULL)
            ans = accepted(h.result);
        else if (drc != RCLIENT_OK)
            ans = reject("response", drc, "r_client_on_datagram");
        else
            ans = json_pack("{s:s, s:n, s:s, s:s}", "status", "rejected", "error", "stage", "response", "reason",
                            "r_client_on_datagram returned RCLIENT_OK but delivered nothing: the datagram was dropped "
                            "without an error");
        req = h.done ? NULL : req;
    }
    if (req != NULL)
        r_client_cancel_request(c, req);
    r_client_destroy(c);
    free(rs);
    free(gs);
    return ans;
}

/* A schedule as the client runs it. The client computes its policy's TTL and
 * round lengths only for a live request (r_client.c r_request_policy_ttl_ms,
 * r_start_round), against the tenant quota dedup_ttl_ms_max of its key; so the
 * host gives it a cookie key of its own format whose quota is the input's
 * dedup_ttl_ms_max, submits one request to one silent server, and reads
 * ttl_ms from the request's PDU and B(k) * U from the request deadlines
 * (r_client_request_deadline_ms) as each round's timer fires. The policy has
 * no preference schedule P(k): preference_ms is left out. */
static json_t *ha_schedule(const json_t *in)
{
    static host_t h;
    const json_t *p = json_object_get(in, "policy"), *g = json_object_get(p, "replay_gap");
    const char *kind = json_string_value(json_object_get(g, "kind"));
    r_request_policy_t pol;
    memset(&pol, 0, sizeof pol);
    pol.unit_ms = (uint64_t)json_integer_value(json_object_get(p, "unit_ms"));
    pol.replay_count = u32(p, "replay_count");
    pol.final_receive_units = u32(p, "final_receive_units");
    pol.completion_delivery = json_is_true(json_object_get(p, "completion_delivery"));
    pol.replay_gap.initial_units = u32(g, "initial_units");
    pol.replay_gap.max_units = u32(g, "max_units");
    if (kind != NULL && strcmp(kind, "fixed") == 0) {
        pol.replay_gap.kind = R_HA_SCHEDULE_FIXED;
    } else if (kind != NULL && strcmp(kind, "linear") == 0) {
        pol.replay_gap.kind = R_HA_SCHEDULE_LINEAR;
        pol.replay_gap.growth.linear_step_units = u32(g, "linear_step_units");
    } else if (kind != NULL && strcmp(kind, "exponential") == 0) {
        pol.replay_gap.kind = R_HA_SCHEDULE_EXPONENTIAL;
        pol.replay_gap.growth.exponential_factor = u32(g, "exponential_factor");
    } else {
        return reject("policy", RCLIENT_ERR_CONFIG, "r_ha_schedule_kind_t has no such kind");
    }
    uint8_t legacy[60];
    char key[160];
    memset(legacy, 0, sizeof legacy);
    legacy[0] = 1;                    /* key_id 1 */
    memset(legacy + 8, 0x11, 32);     /* the cookie */
    put32(legacy + 40, 65536);
    put32(legacy + 44, 1024);
    put32(legacy + 48, 4096);
    put32(legacy + 52, 32);
    put32(legacy + 56, u32(in, "dedup_ttl_ms_max"));
    b32_encode("rl-cookie", legacy, sizeof legacy, key);
    memset(&h, 0, sizeof h);
    h.now_ms = 1767225600000u;
    h.ids[0] = 1;
    h.id_count = 1;
    r_client_t *c = NULL;
    int rc = host_client(&h, key, &pol, &c);
    if (rc != RCLIENT_OK)
        return reject("policy", rc, "r_client_create");
    static const uint8_t uid[16] = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x47, 0x88, 0x99};
    rand_set(uid, 16, NULL, 0);
    r_resource_request_t res;
    memset(&res, 0, sizeof res);
    res.window_size_ms = 1000;
    res.rate_limit = 100;
    res.tokens_requested = 1;
    r_client_req_t *req = NULL;
    uint64_t start = h.now_ms;
    rc = r_client_check_rate_limit_async(c, &res, 1, NULL, 0, NULL, 0, on_done, &h, &req);
    if (rc != RCLIENT_OK) {
        r_client_destroy(c);
        return reject("policy", rc, "r_client_check_rate_limit_async");
    }
    const uint8_t *pdu = h.sends[0] + 40 + 36;
    json_t *rounds = json_array();
    uint64_t round_start = start;
    for (uint32_t k = 0; !h.done && k <= pol.replay_count; k++) {
        uint64_t deadline = 0;
        if (r_client_request_deadline_ms(req, &deadline) != RCLIENT_OK)
            break;
        json_array_append_new(rounds, json_integer((json_int_t)(deadline - round_start)));
        round_start = deadline;
        h.now_ms = deadline;
        r_client_on_timeout(c, req, h.now_ms);
    }
    json_t *out = json_pack("{s:I, s:o}", "ttl_ms",
                            (json_int_t)((uint32_t)pdu[4] | (uint32_t)pdu[5] << 8 | (uint32_t)pdu[6] << 16
                                         | (uint32_t)pdu[7] << 24),
                            "round_ms", rounds);
    if (!h.done)
        r_client_cancel_request(c, req);
    r_client_destroy(c);
    return accepted(out);
}

/* ---- the protocol ---- */

/* What the client is (ADAPTER.md "What a client declares", revision 2):
 * r_crypto.c reads the HRPs rl-cookie and rl-aes only (R_AUTH_COOKIE,
 * R_AUTH_AES_GCM; no none mode); r_auth_key_info_t has no quota word; its
 * policy has no preference schedule P(k) (rl_c_client_ha.c). */
static json_t *hello(const char *version)
{
    return json_pack("{s:s, s:i, s:{s:s, s:s}, s:{s:[s,s,s,s,s,s,s], s:b, s:[s,s], s:[s,s], s:{s:[s], s:[s]}, s:o}}",
                     "protocol", "ratelimitly-adapter/1", "revision", 2, "client", "name",
                     translating() ? "rl-c-client (v1 keys translated to its 60-byte format)" : "rl-c-client",
                     "version", version, "capabilities", "vector_kinds", "ha_schedule", "bucket_id", "tracker_id",
                     "api_key", "rate_request_packet", "latency_report_packet", "rate_response", "error_classes", 1,
                     "auth_modes", "cookie", "aes", "key_formats", "rl-cookie", "rl-aes", "unproduced_fields",
                     "api_key", "quota_word", "ha_schedule", "preference_ms", "ha", ha_capabilities());
}

static json_t *vector(const json_t *req)
{
    const char *kind = json_string_value(json_object_get(req, "kind"));
    const json_t *in = json_object_get(req, "input");
    static const struct {
        const char *name;
        json_t *(*fn)(const json_t *);
    } kinds[] = {{"bucket_id", bucket_id},
                 {"tracker_id", tracker_id},
                 {"api_key", api_key},
                 {"rate_request_packet", rate_request_packet},
                 {"latency_report_packet", latency_report_packet},
                 {"rate_response", rate_response},
                 {"ha_schedule", ha_schedule}};
    for (size_t i = 0; kind != NULL && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kind, kinds[i].name) == 0)
            return kinds[i].fn(in);
    return unsupported("kind not implemented by this adapter");
}

int main(int argc, char **argv)
{
    char *line = NULL;
    size_t cap = 0;
    const char *version = argc > 1 ? argv[1] : "unknown";
    while (getline(&line, &cap, stdin) > 0) {
        json_error_t err;
        json_t *req = json_loads(line, 0, &err), *ans;
        const char *op = json_string_value(json_object_get(req, "op"));
        if (req == NULL)
            ans = json_pack("{s:n, s:s}", "id", "protocol_error", "request is not JSON");
        else {
            if (op != NULL && strcmp(op, "hello") == 0)
                ans = hello(version);
            else if (op != NULL && strcmp(op, "vector") == 0)
                ans = vector(req);
            else if ((ans = ha_dispatch(req)) != NULL)
                ;
            else
                ans = json_pack("{s:s}", "protocol_error", "op not implemented by this adapter");
            json_object_set(ans, "id", json_object_get(req, "id"));
        }
        char *out = json_dumps(ans, JSON_COMPACT);
        fputs(out, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(out);
        json_decref(ans);
        json_decref(req);
    }
    free(line);
    return 0;
}
