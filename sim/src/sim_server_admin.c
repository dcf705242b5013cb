/* SPDX-License-Identifier: MIT */
/* sim_server_admin.c - the reference server's administrative channel
 * (wire_protocol.md "Administrative PDUs"; contract: sim_server.h). Its own
 * decoder and encoder, like the rate path: it shares no code with the
 * client's admin codec, so each checks the other.
 *
 * ==== Administrative channel (docs/traces.md "Server model" copies this) ====
 *
 * A datagram with tenant_mgmt_flag = 1 is administrative. Without an admin
 * key (sim_server_set_admin_key; serve --admin-secret) it is dropped as
 * DROP_TENANT. With one, in order (the first failure names the verdict; every
 * drop is a blackhole, no reply, no state change):
 *  1. AUTH: auth TLV type other than AES-256-GCM (0x4541), or a tag that does
 *     not verify under the admin key (AAD as for tenants).
 *  2. MALFORMED: pdu_size not equal to the bytes left; a PDU type other than
 *     Tenant Mutation 0x544D, Status Query 0x5153, Metrics Query 0x514D.
 *  3. STALE: the time_stamp freshness check of the rate path (a Tenant
 *     Mutation: after its dedup lookup, below).
 *  4. The PDU (below). Refusals after authentication are DROP_ADMIN.
 * Every answer is sealed under the admin key with a fresh nonce; its Tenant
 * TLV is the request's with key_id := server_id and steering_feedback per the
 * steering mode; unique_id and time_stamp are kept.
 *
 * Tenant Mutation ("Tenant Mutation PDU"): pdu_size >= 10 (header 8,
 * operation, flags, dedup_ttl_ms); flags 0; operation ADD 0x03 or REMOVE
 * 0x05; dedup_ttl_ms >= 1. Then the dedup cache (key (0x544D, 1, key_id,
 * unique_id), accepted TTL min(dedup_ttl_ms, listener cap)): a live entry
 * replays its Tenant Ack exactly (ADMIN_REPLAYED), one past its window but
 * kept (rate path, "Dedup cache") is STALE: a captured ADD or REMOVE is not
 * executed again. Then the freshness check, then the body:
 *  - ADD: name_len, name (valid UTF-8), tenant_key_len, tenant_key, and
 *    nothing after; the credential's HRP one of rl-none, rl-cookie, rl-aes
 *    (anything else, rl-secret included, rejects the whole mutation), its
 *    payload decoding to that HRP's shape with a valid version-1 quota word;
 *    the decoded key_id equal to the Tenant Header key_id; memory admission
 *    (below); then published as an upsert (a new or replaced configuration;
 *    the key's buckets, trackers and counters are kept on a replace, except
 *    what a lowered quota no longer pays for: trackers when
 *    latency_services_max or latency_buffer_size_max is lowered, label
 *    records when metrics_labels_max is, service records when
 *    latency_services_max is).
 *  - REMOVE: pdu_size exactly 10; the tenant and every bucket, tracker,
 *    label and counter it owns are removed. Removing an absent key_id is
 *    acknowledged too (idempotent: a re-executed removal after replay-state
 *    loss must not turn into a failure).
 * A refused mutation counts in tenant_mutation_failures_total; an applied one
 * in tenant_mutations_total and api_key_table_generation. The ack is
 * TA, pdu_size 12, the operation, status 0, reserved and padding 0.
 *
 * Memory admission ("ADD Tenant"): the runtime storage implied by the quotas
 * is estimated with fixed per-unit costs (the SRV_MEM_ constants of sim_server_int.h):
 * 128 B per rate bucket, 800 B per latency service plus 24 B per point of
 * its latency_buffer_size_max-point slot (a monotonic point and an arrival
 * time: the bound of the key's tracker memory, stats.tracker_bytes), 1264 B per
 * metrics label (its record and its bytes: up to 1138, the longest a datagram
 * carries), 1024 B per tenant. allocated = the listener's dedup cache (1400 B per entry of its
 * capacity) + the estimates of every loaded tenant. An ADD whose estimate
 * (minus the estimate of the configuration it replaces) would take allocated
 * above memory_budget_bytes, or an allocation failure while publishing, is
 * refused before anything changes and counts in allocation_failures_total.
 * Then, when the host gives memory readings (sim_server_set_host_memory;
 * serve reads /proc and the cgroup), the ADD's growth must also fit the
 * available system memory and, when known, the cgroup limit minus the
 * process RSS. Tenants configured at start (sim_server_add_tenant) are
 * counted but not refused. The budget is the operator's bound (serve
 * --memory-budget); the simulator has no host memory readings.
 *
 * Status Query ("Status Query PDU"): pdu_size 8, schema_version 1,
 * query_kind 0 (CURRENT_STATUS), reserved 0, else DROP_ADMIN. key_id is not
 * looked at. The answer is Status Response V1 (448 bytes): every counter is
 * queue-local and counted by the model itself since creation or the last
 * restart (rx_packets every datagram handed to the model, tx_packets every
 * response written, rx_dropped every drop verdict, parse_errors the
 * MALFORMED ones, auth_failures the AUTH ones, admin_requests_total every
 * tenant_mgmt_flag = 1 datagram, rate_* per fresh Rate Request decision,
 * latency_reports_total accepted service blocks, dedup hits and misses of
 * the rate path); memory fields from the estimate above with
 * RL_MEMORY_BUDGET_VALID, RL_MEMORY_ALLOCATED_VALID, RL_MEMORY_HEADROOM_VALID
 * and DEDUP_TTL_MS_MAX_VALID (the listener cap) set; system, cgroup and RSS
 * fields from the host's readings with their bits, else unknown (u64::MAX,
 * bits clear); build_fingerprint 0; ifindex,
 * rx_queue_id and worker_cpu u32::MAX; api_key_capacity u64::MAX (no fixed
 * cap); queue_index 0; degraded_reason_code 1 while an evicted dedup
 * entry's window is open, 2 while the simulator's loss mode is on, else 0
 * (server model, "Dedup cache"); health_flags READY | DATAPATH_RUNNING |
 * ACCEPTING_RATE_REQUESTS | ACCEPTING_LATENCY_REPORTS |
 * ACCEPTING_TENANT_MUTATIONS; wire_protocol_version 1; api_key_table_hash
 * the XOR over loaded keys of FNV-1a-64(key_id LE || quota word LE).
 *
 * Metrics Query ("Metrics Query PDU"): pdu_size equal to the bytes left; an
 * unknown metric_family is DROP_ADMIN (no page kind exists to answer it). An
 * unknown key_id is answered METRICS_NOT_FOUND. At most one Metrics Query per
 * tenant per processing batch (sim_server_batch_begin): a second one in the
 * same batch is DROP_ADMIN. Then: reserved non-zero or a query data length
 * wrong for the query_kind is METRICS_INVALID_QUERY; an unknown query_kind
 * METRICS_UNSUPPORTED. Records, in insertion order per tenant (labels: the
 * first use of each label; "overflow" where it was first used; services:
 * first guard evaluation or report of each latency_tracker_id):
 *  - summary: success / rate_limited / guard_failed per fresh decision (a
 *    denial with a failing guard is guard_failed, else rate_limited),
 *    auth_failed per datagram of the tenant failing authentication,
 *    service_latency_reports_total per accepted report block;
 *  - labels: the same decisions per label; a request without a label counts
 *    under ""; the first metrics_labels_max distinct labels ("" included)
 *    are themselves, later new ones count under "overflow"; auth_failed is 0
 *    (an unauthenticated PDU's label is never read);
 *  - services: report_count per accepted report block, checks_* per guard
 *    evaluation (checks_failed when current >= threshold and threshold > 0),
 *    at most latency_services_max records per tenant.
 * Pages fill 1128 bytes (1200 minus Tenant TLV and AES TLV): *_PAGE_LAST
 * when every remaining record fits, else *_PAGE_MORE with an 8-byte cursor
 * (next index u32, records generation u32) and as many records as fit;
 * *_EMPTY at the end; METRICS_RECORD_TOO_LARGE when the next record does not
 * fit; METRICS_CURSOR_INVALID for a cursor that is not 8 bytes, of another
 * generation (the records were reset by a restart or a removal) or past the
 * end. Counters are lost on restart and removal, kept on a replacing ADD
 * (label or service records: unless it lowers their quota).
 *
 * Queries are answered once (project rule, docs/spec-notes.md: a server
 * answers nothing larger than what it received from anyone without fresh
 * credentials). After the freshness check, a Status or Metrics Query whose
 * (pdu_type, key_id, unique_id) was answered before is DROP_ADMIN while its
 * time_stamp + freshness_ms has not passed (then it is stale anyway; with
 * the check off, for 5 s after the answer); so is any query while
 * SIM_SERVER_QUERIES_MAX answered queries are that recent. Only answered
 * queries are remembered, for that long (sim_server_queries.c). */
#include <string.h>

#include <openssl/crypto.h>

#include "sim_server_int.h"

#define PDU_TM 0x544Du
#define PDU_TA 0x5441u
#define PDU_SQ 0x5153u
#define PDU_SR 0x5253u
#define PDU_MQ 0x514Du
#define PDU_MR 0x524Du
#define OP_ADD 0x03u
#define OP_REMOVE 0x05u
#define SR_SIZE 448u
#define ADMIN_PDU_OFF (SRV_TENANT_SIZE + 4u + SRV_NONCE_LEN + SRV_TAG_LEN) /* 72 */
#define MR_BUDGET (SRV_MAX_DATAGRAM - ADMIN_PDU_OFF)                      /* 1128 */
#define CURSOR_LEN 8u

enum { FAM_SUMMARY = 1, FAM_LABELS = 2, FAM_SERVICES = 3 };
/* page kinds */
enum { PK_SUMMARY_PAGE = 0, PK_SUMMARY_NOT_FOUND = 1, PK_SUMMARY_INVALID = 2, PK_SUMMARY_UNSUPPORTED = 3 };
enum { PK_MORE = 0, PK_LAST = 1, PK_EMPTY = 2, PK_NOT_FOUND = 3, PK_INVALID = 4, PK_UNSUPPORTED = 5,
       PK_TOO_LARGE = 7, PK_CURSOR_INVALID = 8 };

static uint64_t sat_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
    return (a != 0 && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

void srv_mem_estimate(const r_api_key_quotas_t *q, srv_mem_estimate_t *out) {
    out->rate_map = sat_mul(q->rate_buckets_max, SRV_MEM_PER_BUCKET);
    out->latency_map = sat_mul(q->latency_services_max, SRV_MEM_PER_SERVICE);
    out->latency_buffer =
        sat_mul(sat_mul(q->latency_services_max, q->latency_buffer_size_max), SRV_MEM_PER_BUFFER_POINT);
    out->metrics_label = sat_mul(q->metrics_labels_max, SRV_MEM_PER_LABEL);
    out->other = SRV_MEM_PER_TENANT;
    out->total = sat_add(sat_add(sat_add(out->rate_map, out->latency_map), sat_add(out->latency_buffer,
                                                                                   out->metrics_label)),
                         out->other);
}

uint64_t srv_mem_dedup(const sim_server_t *s) {
    return sat_mul(s->dedup.capacity, SRV_MEM_PER_DEDUP_ENTRY);
}

uint64_t srv_mem_allocated(const sim_server_t *s) {
    uint64_t sum = srv_mem_dedup(s);
    for (size_t i = 0; i < s->tenant_cap; i++) {
        if (s->tenants[i] != NULL) {
            sum = sat_add(sum, s->tenants[i]->mem.total);
        }
    }
    return sum;
}

/* ---- public setters --------------------------------------------------------- */

int sim_server_set_admin_key(sim_server_t *s, const uint8_t key[32]) {
    if (s == NULL) {
        return -1;
    }
    srv_auth_release(&s->admin);
    s->has_admin = false;
    if (key == NULL) {
        return 0;
    }
    s->admin.auth_tlv = SRV_TLV_AUTH_AES;
    memcpy(s->admin.secret, key, SRV_SECRET_LEN);
    if (srv_auth_key(&s->admin) != 0) {
        srv_auth_release(&s->admin);
        return -1;
    }
    s->has_admin = true;
    return 0;
}

void sim_server_set_host_memory(sim_server_t *s, sim_server_memory_fn fn, void *ctx) {
    if (s != NULL) {
        s->host_memory = fn;
        s->host_memory_ctx = ctx;
    }
}

static sim_server_host_memory_t host_memory(const sim_server_t *s) {
    sim_server_host_memory_t m = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
    if (s->host_memory != NULL) {
        s->host_memory(s->host_memory_ctx, &m);
    }
    return m;
}

/* What the host can still give: system_available, and cgroup_limit -
 * process_rss when both are known; UINT64_MAX when nothing is known. */
static uint64_t host_headroom(const sim_server_host_memory_t *m) {
    uint64_t h = m->system_available;
    if (m->cgroup_limit != UINT64_MAX && m->process_rss != UINT64_MAX) {
        uint64_t c = m->cgroup_limit > m->process_rss ? m->cgroup_limit - m->process_rss : 0;
        h = c < h ? c : h;
    }
    return h;
}

void sim_server_set_udp_port(sim_server_t *s, uint16_t port) {
    if (s != NULL) {
        s->params.udp_port = port;
    }
}

void sim_server_batch_begin(sim_server_t *s) {
    if (s != NULL) {
        s->batch++;
    }
}

/* ---- tenant mutation ---------------------------------------------------------- */

/* Well-formed UTF-8 (RFC 3629: shortest form, no surrogates, <= U+10FFFF). */
static bool valid_utf8(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80u) {
            i++;
            continue;
        } else if ((c & 0xE0u) == 0xC0u) {
            k = 1, cp = c & 0x1Fu, min = 0x80u;
        } else if ((c & 0xF0u) == 0xE0u) {
            k = 2, cp = c & 0x0Fu, min = 0x800u;
        } else if ((c & 0xF8u) == 0xF0u) {
            k = 3, cp = c & 0x07u, min = 0x10000u;
        } else {
            return false;
        }
        if (n - i <= k) {
            return false;
        }
        for (size_t j = 1; j <= k; j++) {
            if ((p[i + j] & 0xC0u) != 0x80u) {
                return false;
            }
            cp = (cp << 6) | (p[i + j] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFFu || (cp >= 0xD800u && cp <= 0xDFFFu)) {
            return false;
        }
        i += k + 1;
    }
    return true;
}

/* Validate an ADD body and admit it. Returns DROP_ADMIN with the reason, or
 * SIM_SRV_ADMIN_ANSWERED when published. */
static sim_server_verdict_t admit(sim_server_t *s, uint64_t header_key_id, const uint8_t *cred, size_t cred_len,
                                  const char *name, size_t name_len) {
    r_auth_key_info_t info;
    r_key_diag_t diag;
    memset(&diag, 0, sizeof diag);
    /* Checked before parsing: the parser reads a length of 0 as "up to the
     * NUL", which would take bytes past the PDU for the credential. */
    if (cred_len == 0) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "tenant_key_len", .got = 0,
                        .note = "empty credential");
    }
    if (r_client_parse_auth_key_diag((const char *)cred, cred_len, &info, &diag) != RCLIENT_OK) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "tenant_key",
                        .note = diag.reason == R_KEY_ERR_HRP ? "unknown tenant-key HRP (want rl-none, rl-cookie or rl-aes)"
                                : diag.reason == R_KEY_ERR_QUOTA ? "invalid quota word"
                                : diag.reason == R_KEY_ERR_LENGTH ? "payload length wrong for its HRP"
                                : diag.reason == R_KEY_ERR_VERSION ? "format_version is not 1"
                                                                   : "not a valid Bech32 credential");
    }
    if (info.key_id != header_key_id) {
        uint64_t got = info.key_id;
        OPENSSL_cleanse(&info, sizeof info);
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "tenant_key key_id", .got = got,
                        .rel = "want", .want = header_key_id, .note = "must equal the Tenant Header key_id");
    }
    srv_mem_estimate_t est;
    srv_mem_estimate(&info.quotas, &est);
    const srv_tenant_t *old = srv_tenant_find(s, info.key_id);
    uint64_t allocated = srv_mem_allocated(s);
    uint64_t base = old != NULL && allocated >= old->mem.total ? allocated - old->mem.total : allocated;
    uint64_t after = sat_add(base, est.total);
    if (after == UINT64_MAX || after > s->params.memory_budget_bytes) {
        OPENSSL_cleanse(&info, sizeof info);
        s->st.allocation_failures++;
        s->stats.allocation_failures++;
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "memory estimate",
                        .got = after, .rel = "max", .want = s->params.memory_budget_bytes,
                        .note = "the quotas do not fit the memory budget");
    }
    sim_server_host_memory_t hm = host_memory(s);
    uint64_t growth = old != NULL ? (est.total > old->mem.total ? est.total - old->mem.total : 0) : est.total;
    uint64_t room = host_headroom(&hm);
    if (room != UINT64_MAX && growth > room) {
        OPENSSL_cleanse(&info, sizeof info);
        s->st.allocation_failures++;
        s->stats.allocation_failures++;
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "memory estimate", .got = growth,
                        .rel = "max", .want = room, .note = "above the available system/cgroup memory");
    }
    int rc = srv_tenant_upsert(s, &info, name, name_len);
    OPENSSL_cleanse(&info, sizeof info);
    if (rc != 0) {
        s->st.allocation_failures++;
        s->stats.allocation_failures++;
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .note = "allocation failed");
    }
    return SIM_SRV_ADMIN_ANSWERED;
}

int sim_server_admit_tenant(sim_server_t *s, uint64_t header_key_id, const char *credential,
                            sim_server_reason_t *why) {
    if (s == NULL || credential == NULL) {
        return -1;
    }
    sim_server_reason_t scratch;
    memset(&scratch, 0, sizeof scratch);
    sim_server_reason_t *saved = s->why;
    s->why = why != NULL ? why : &scratch;
    sim_server_verdict_t v = admit(s, header_key_id, (const uint8_t *)credential, strlen(credential), NULL, 0);
    s->why = saved;
    return v == SIM_SRV_ADMIN_ANSWERED ? 0 : -1;
}

/* Seal the response PDU already written at s->scratch + 72 (n bytes) with the
 * request's tenant TLV. Returns the datagram length in s->resp, or 0. */
static size_t admin_seal(sim_server_t *s, const srv_frame_t *f, size_t n) {
    uint8_t *p = s->scratch;
    srv_st64(p + SRV_OFF_KEY_ID, s->server_id);
    switch (s->steer_mode) {
    case SIM_STEER_CHANGE: p[SRV_OFF_STEERING] = 0; break;
    case SIM_STEER_RANDOM: p[SRV_OFF_STEERING] = sim_rng_unit(&s->rng) < s->steer_change_p ? 0u : 1u; break;
    default: p[SRV_OFF_STEERING] = 1; break;
    }
    uint8_t nonce[SRV_NONCE_LEN];
    sim_rng_bytes(&s->rng, nonce, sizeof nonce);
    if (srv_auth_seal(&s->admin, p, ADMIN_PDU_OFF + n, f, nonce, s->resp) != 0) {
        return 0;
    }
    return ADMIN_PDU_OFF + n;
}

static sim_server_verdict_t mutation_fail(sim_server_t *s, sim_server_verdict_t v) {
    s->st.tenant_mutation_failures++;
    s->stats.tenant_mutation_failures++;
    return v;
}

static sim_server_verdict_t tenant_mutation(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, const uint8_t *pdu,
                                            size_t n, const uint8_t **reply, size_t *reply_len) {
    if (n < 10u) {
        return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "pdu_size",
                                         .got = n, .rel = "min", .want = 10));
    }
    uint8_t op = pdu[4], flags = pdu[5];
    uint32_t ttl = srv_ld32(pdu + 6);
    s->result->admin_op = op;
    if (flags != 0) {
        return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "flags",
                                         .got = flags, .rel = "want", .want = 0));
    }
    if (op != OP_ADD && op != OP_REMOVE) {
        return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "operation",
                                         .got = op, .note = "unknown operation (want 0x03 ADD or 0x05 REMOVE)"));
    }
    if (ttl == 0) {
        return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "dedup_ttl_ms",
                                         .got = 0, .rel = "min", .want = 1));
    }
    srv_dd_key_t key = {f->key_id, f->unique_id, PDU_TM, 1};
    srv_dd_slot_t *hit = srv_dedup_lookup(&s->dedup, &key, now_ms);
    if (hit != NULL && now_ms >= hit->expiry_ms) {
        return srv_dedup_too_late(s, hit);
    }
    if (hit != NULL) { /* before the freshness check, as on the rate path */
        *reply = hit->resp;
        *reply_len = hit->resp_len;
        return SIM_SRV_ADMIN_REPLAYED;
    }
    sim_server_verdict_t v = srv_check_fresh(s, f, now_ms);
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    if (op == OP_REMOVE) {
        if (n != 10u) {
            return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "pdu_size",
                                             .got = n, .rel = "want", .want = 10, .note = "REMOVE has no payload"));
        }
        (void)sim_server_remove_tenant(s, f->key_id);
        v = SIM_SRV_ADMIN_ANSWERED;
    } else {
        size_t at = 10u;
        size_t name_len = at < n ? pdu[at] : 0;
        if (at + 1u + name_len + 1u > n) {
            return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation", .field = "name_len",
                                             .got = name_len, .note = "name and tenant_key_len run past pdu_size"));
        }
        const uint8_t *name = pdu + at + 1u;
        at += 1u + name_len;
        size_t key_len = pdu[at];
        if (at + 1u + key_len != n) {
            return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation",
                                             .field = "tenant_key_len", .got = key_len, .rel = "want",
                                             .want = n - at - 1u, .note = "must end the PDU"));
        }
        if (!valid_utf8(name, name_len)) {
            return mutation_fail(s, SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "tenant mutation",
                                             .field = "name_len", .got = name_len,
                                             .note = "name is not valid UTF-8"));
        }
        v = admit(s, f->key_id, pdu + at + 1u, key_len, (const char *)name, name_len);
        if (v != SIM_SRV_ADMIN_ANSWERED) {
            return mutation_fail(s, v);
        }
    }
    s->st.tenant_mutations++;
    s->stats.tenant_mutations++;
    uint8_t *out = s->scratch + ADMIN_PDU_OFF;
    memset(out, 0, 12);
    srv_st16(out, PDU_TA);
    srv_st16(out + 2, 12);
    out[4] = op;
    out[5] = 0; /* SUCCESS */
    size_t len = admin_seal(s, f, 12);
    if (len > 0) {
        uint32_t accepted = ttl < s->params.dedup_ttl_cap_ms ? ttl : s->params.dedup_ttl_cap_ms;
        srv_dedup_cached(s, &key, now_ms, accepted, srv_dedup_keep_until(s, f), len, true);
    }
    *reply = s->resp;
    *reply_len = len;
    return SIM_SRV_ADMIN_ANSWERED;
}

/* ---- status ------------------------------------------------------------------- */

static sim_server_verdict_t status_query(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f, const uint8_t *pdu,
                                         size_t n, const uint8_t **reply, size_t *reply_len) {
    if (n != 8u) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "status query", .field = "pdu_size", .got = n, .rel = "want",
                        .want = 8);
    }
    if (pdu[4] != 1u) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "status query", .field = "schema_version", .got = pdu[4],
                        .rel = "want", .want = 1);
    }
    if (pdu[5] != 0u) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "status query", .field = "query_kind", .got = pdu[5],
                        .note = "unknown (want 0x00 CURRENT_STATUS)");
    }
    if (srv_ld16(pdu + 6) != 0) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "status query", .field = "reserved", .got = srv_ld16(pdu + 6),
                        .rel = "want", .want = 0);
    }
    const srv_status_counts_t *c = &s->st;
    uint8_t *o = s->scratch + ADMIN_PDU_OFF;
    memset(o, 0, SR_SIZE);
    srv_st16(o, PDU_SR);
    srv_st16(o + 2, SR_SIZE);
    o[4] = 1;  /* schema_version */
    o[5] = 0;  /* OK */
    sim_server_host_memory_t hm = host_memory(s);
    uint16_t flags = 0xF0u; /* RL_MEMORY_BUDGET / ALLOCATED / HEADROOM, DEDUP_TTL_MS_MAX valid */
    flags |= hm.system_total != UINT64_MAX ? 0x01u : 0u;
    flags |= hm.system_available != UINT64_MAX ? 0x02u : 0u;
    flags |= hm.cgroup_limit != UINT64_MAX ? 0x04u : 0u;
    flags |= hm.process_rss != UINT64_MAX ? 0x08u : 0u;
    srv_st16(o + 6, flags);
    srv_st16(o + 8, 1);     /* wire_protocol_version */
    srv_st16(o + 10, SR_SIZE - 8u);
    srv_st64(o + 12, s->server_id);
    srv_st32(o + 20, s->params.node_id);
    srv_st16(o + 24, s->params.listener_id);
    srv_st16(o + 26, 0);    /* queue_index */
    srv_st16(o + 28, s->params.udp_port);
    srv_st16(o + 30, srv_degraded_reason(s, now_ms)); /* degraded_reason_code */
    uint64_t started = s->params.server_start_s * 1000u;
    srv_st64(o + 32, started);
    srv_st64(o + 40, now_ms > started ? now_ms - started : 0);
    srv_st64(o + 48, 0);    /* build_fingerprint unavailable */
    srv_st32(o + 56, 0x1Fu);
    srv_st16(o + 60, s->params.backend);
    srv_st16(o + 62, 0);    /* xdp_mode n/a */
    srv_st32(o + 64, UINT32_MAX);
    srv_st32(o + 68, UINT32_MAX);
    srv_st32(o + 72, UINT32_MAX);
    uint64_t budget = s->params.memory_budget_bytes, allocated = srv_mem_allocated(s);
    uint64_t sums[4] = {0, 0, 0, 0}, maps[5] = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < s->tenant_cap; i++) {
        const srv_tenant_t *t = s->tenants[i];
        if (t != NULL) {
            sums[0] = sat_add(sums[0], t->quotas.rate_buckets_max);
            sums[1] = sat_add(sums[1], t->quotas.latency_services_max);
            sums[2] = sat_add(sums[2], t->quotas.metrics_labels_max);
            sums[3] = sat_add(sums[3], t->quotas.latency_buffer_size_max);
            maps[0] = sat_add(maps[0], t->mem.rate_map);
            maps[1] = sat_add(maps[1], t->mem.latency_map);
            maps[2] = sat_add(maps[2], t->mem.latency_buffer);
            maps[3] = sat_add(maps[3], t->mem.metrics_label);
            maps[4] = sat_add(maps[4], t->mem.other);
        }
    }
    const uint64_t v[38] = {
        c->rx_packets, c->tx_packets, c->rx_dropped, c->tx_dropped, c->parse_errors, c->auth_failures,
        c->admin_requests, hm.system_total, hm.system_available, hm.cgroup_limit, hm.process_rss, budget, allocated,
        budget > allocated ? budget - allocated : 0, srv_mem_dedup(s), maps[0], maps[1], maps[2], maps[3], maps[4],
        c->allocation_failures, s->n_tenants, UINT64_MAX, c->table_generation, s->table_hash, sums[0], sums[1],
        sums[2], sums[3], c->rate_requests, c->rate_success, c->rate_limited, c->guard_failed, c->latency_reports,
        c->dedup_hits, c->dedup_misses, c->tenant_mutations, c->tenant_mutation_failures};
    for (size_t i = 0; i < 38; i++) {
        srv_st64(o + 80 + 8 * i, v[i]);
    }
    srv_st32(o + 384, s->params.dedup_ttl_cap_ms);
    *reply = s->resp;
    *reply_len = admin_seal(s, f, SR_SIZE);
    return SIM_SRV_ADMIN_ANSWERED;
}

/* ---- metrics ------------------------------------------------------------------ */

static size_t label_rec_size(const srv_label_rec_t *r) {
    return 36u + (((size_t)r->len + 3u) & ~(size_t)3u);
}

static size_t rec_size(const srv_tenant_t *t, unsigned fam, uint32_t i) {
    return fam == FAM_LABELS ? label_rec_size(&t->label_recs[i]) : 64u;
}

static size_t put_rec(const srv_tenant_t *t, unsigned fam, uint32_t i, uint8_t *o) {
    if (fam == FAM_LABELS) {
        const srv_label_rec_t *r = &t->label_recs[i];
        size_t sz = label_rec_size(r);
        memset(o, 0, sz);
        srv_st64(o, r->c.success);
        srv_st64(o + 8, r->c.rate_limited);
        srv_st64(o + 16, r->c.guard_failed);
        srv_st64(o + 24, r->c.auth_failed);
        srv_st16(o + 32, r->len);
        if (r->len > 0) {
            memcpy(o + 36, r->bytes, r->len);
        }
        return sz;
    }
    const srv_service_rec_t *r = &t->svc_recs[i];
    memcpy(o, r->id, SRV_ID_LEN);
    srv_st32(o + 16, r->ttl_ms);
    srv_st32(o + 20, r->max_samples);
    srv_st32(o + 24, r->buffer_size);
    srv_st32(o + 28, r->min_sample_threshold);
    srv_st64(o + 32, r->report_count);
    srv_st64(o + 40, r->checks_total);
    srv_st64(o + 48, r->checks_passed);
    srv_st64(o + 56, r->checks_failed);
    return 64u;
}

/* Write the MR header (+ body length n) and return the PDU size. */
static size_t mr_header(uint8_t *o, unsigned fam, unsigned kind, size_t body) {
    srv_st16(o, PDU_MR);
    srv_st16(o + 2, (uint16_t)(8u + body));
    o[4] = (uint8_t)fam;
    o[5] = (uint8_t)kind;
    srv_st16(o + 6, 0);
    return 8u + body;
}

/* A page of labels or services from record start. */
static size_t page(const srv_tenant_t *t, unsigned fam, uint32_t start, uint8_t *o) {
    uint32_t total = fam == FAM_LABELS ? t->n_label_recs : t->n_svc_recs;
    if (start >= total) {
        return mr_header(o, fam, PK_EMPTY, 0);
    }
    size_t all = 0;
    for (uint32_t i = start; i < total && all <= MR_BUDGET; i++) {
        all += rec_size(t, fam, i);
    }
    if (8u + all <= MR_BUDGET) {
        size_t at = 8u;
        for (uint32_t i = start; i < total; i++) {
            at += put_rec(t, fam, i, o + at);
        }
        return mr_header(o, fam, PK_LAST, at - 8u);
    }
    size_t at = 8u + 4u + CURSOR_LEN;
    uint32_t i = start;
    while (i < total && at + rec_size(t, fam, i) <= MR_BUDGET) {
        at += put_rec(t, fam, i, o + at);
        i++;
    }
    if (i == start) {
        return mr_header(o, fam, PK_TOO_LARGE, 0);
    }
    srv_st16(o + 8, CURSOR_LEN);
    srv_st16(o + 10, 0);
    srv_st32(o + 12, i);
    srv_st32(o + 16, t->metrics_gen);
    return mr_header(o, fam, PK_MORE, at - 8u);
}

static size_t metrics_answer(const srv_tenant_t *t, const uint8_t *q, size_t n, uint8_t *o) {
    unsigned fam = q[4], kind = q[5];
    if (fam == FAM_SUMMARY) {
        if (t == NULL) {
            return mr_header(o, fam, PK_SUMMARY_NOT_FOUND, 0);
        }
        if (srv_ld16(q + 6) != 0) {
            return mr_header(o, fam, PK_SUMMARY_INVALID, 0);
        }
        if (kind != 0) {
            return mr_header(o, fam, PK_SUMMARY_UNSUPPORTED, 0);
        }
        if (n != 8u) {
            return mr_header(o, fam, PK_SUMMARY_INVALID, 0);
        }
        srv_st64(o + 8, t->summary.success);
        srv_st64(o + 16, t->summary.rate_limited);
        srv_st64(o + 24, t->summary.guard_failed);
        srv_st64(o + 32, t->summary.auth_failed);
        srv_st64(o + 40, t->service_reports);
        return mr_header(o, fam, PK_SUMMARY_PAGE, 40);
    }
    if (t == NULL) {
        return mr_header(o, fam, PK_NOT_FOUND, 0);
    }
    if (srv_ld16(q + 6) != 0) {
        return mr_header(o, fam, PK_INVALID, 0);
    }
    if (kind == 0) {
        return n == 8u ? page(t, fam, 0, o) : mr_header(o, fam, PK_INVALID, 0);
    }
    if (kind != 1) {
        return mr_header(o, fam, PK_UNSUPPORTED, 0);
    }
    if (n < 12u) {
        return mr_header(o, fam, PK_INVALID, 0);
    }
    size_t clen = srv_ld16(q + 8);
    size_t padded = (clen + 3u) & ~(size_t)3u;
    if (srv_ld16(q + 10) != 0 || n != 12u + padded) {
        return mr_header(o, fam, PK_INVALID, 0);
    }
    for (size_t i = 12u + clen; i < n; i++) {
        if (q[i] != 0) {
            return mr_header(o, fam, PK_INVALID, 0);
        }
    }
    uint32_t total = fam == FAM_LABELS ? t->n_label_recs : t->n_svc_recs;
    if (clen != CURSOR_LEN || srv_ld32(q + 16) != t->metrics_gen || srv_ld32(q + 12) > total) {
        return mr_header(o, fam, PK_CURSOR_INVALID, 0);
    }
    return page(t, fam, srv_ld32(q + 12), o);
}

static sim_server_verdict_t metrics_query(sim_server_t *s, const srv_frame_t *f, const uint8_t *pdu, size_t n,
                                          const uint8_t **reply, size_t *reply_len) {
    unsigned fam = pdu[4];
    if (fam < FAM_SUMMARY || fam > FAM_SERVICES) {
        return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "metrics query", .field = "metric_family", .got = fam,
                        .note = "unknown family (want 1, 2 or 3)");
    }
    srv_tenant_t *t = srv_tenant_find(s, f->key_id);
    if (t != NULL) {
        if (t->mq_batch == s->batch + 1u) {
            return SRV_DROP(s, SIM_SRV_DROP_ADMIN, .where = "metrics query", .field = "key_id", .got = f->key_id,
                            .note = "a second Metrics Query for this tenant in one processing batch");
        }
        t->mq_batch = s->batch + 1u;
    }
    uint8_t q[SRV_MAX_DATAGRAM];
    memcpy(q, pdu, n); /* the answer is written over the request */
    size_t len = metrics_answer(t, q, n, s->scratch + ADMIN_PDU_OFF);
    *reply = s->resp;
    *reply_len = admin_seal(s, f, len);
    return SIM_SRV_ADMIN_ANSWERED;
}

/* ---- dispatch ------------------------------------------------------------------- */

static sim_server_verdict_t admin_opened(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f,
                                         const uint8_t **reply, size_t *reply_len);

sim_server_verdict_t srv_admin_handle(sim_server_t *s, uint64_t now_ms, const uint8_t *in, size_t len,
                                      const srv_frame_t *f, const uint8_t **reply, size_t *reply_len) {
    if (f->auth_type != SRV_TLV_AUTH_AES) {
        return SRV_DROP(s, SIM_SRV_DROP_AUTH, .where = "auth TLV", .field = "tlv_type", .got = f->auth_type,
                        .rel = "want", .want = SRV_TLV_AUTH_AES, .hex = true,
                        .note = "administrative PDUs use AES-256-GCM");
    }
    if (srv_auth_open(&s->admin, in, len, f, s->scratch) != SRV_OK) {
        OPENSSL_cleanse(s->scratch + f->pdu_off, f->pdu_len);
        return SRV_DROP(s, SIM_SRV_DROP_AUTH, .where = "auth TLV",
                        .note = "AES-256-GCM tag does not verify under the admin key");
    }
    /* A Tenant Mutation's plaintext carries the tenant credential: every
     * path below ends with the request's scratch copy cleansed (the reply
     * is sealed into s->resp or cached by then). */
    sim_server_verdict_t v = admin_opened(s, now_ms, f, reply, reply_len);
    OPENSSL_cleanse(s->scratch + f->pdu_off, f->pdu_len);
    return v;
}

static sim_server_verdict_t admin_opened(sim_server_t *s, uint64_t now_ms, const srv_frame_t *f,
                                         const uint8_t **reply, size_t *reply_len) {
    const uint8_t *pdu = s->scratch + f->pdu_off;
    size_t n = f->pdu_len;
    uint16_t type = srv_ld16(pdu), size = srv_ld16(pdu + 2);
    s->result->admin_pdu = type;
    if (size != n) {
        return SRV_DROP(s, SIM_SRV_DROP_MALFORMED, .where = "PDU", .field = "pdu_size", .got = size, .rel = "want",
                        .want = n, .note = "the bytes after the auth TLV");
    }
    if (type != PDU_TM && type != PDU_SQ && type != PDU_MQ) {
        s->result->admin_pdu = 0;
        return SRV_DROP(s, SIM_SRV_DROP_MALFORMED, .where = "PDU", .field = "pdu_type", .got = type, .hex = true,
                        .note = "not an administrative request (TM 0x544d, SQ 0x5153, MQ 0x514d)");
    }
    if (type == PDU_TM) { /* its freshness is checked after the dedup lookup */
        return tenant_mutation(s, now_ms, f, pdu, n, reply, reply_len);
    }
    sim_server_verdict_t v = srv_check_fresh(s, f, now_ms);
    if (v != SIM_SRV_ANSWERED) {
        return v;
    }
    size_t slot = 0;
    v = srv_query_admit(s, now_ms, f, type, &slot);
    if (v != SIM_SRV_ADMIN_ANSWERED) {
        return v;
    }
    v = type == PDU_SQ ? status_query(s, now_ms, f, pdu, n, reply, reply_len)
                       : metrics_query(s, f, pdu, n, reply, reply_len);
    if (v == SIM_SRV_ADMIN_ANSWERED) {
        srv_query_answered(s, now_ms, f, type, slot);
    }
    return v;
}
