/* SPDX-License-Identifier: MIT */
/* client.c - client lifecycle, datagram ingress, membership and steering
 * accessors (api.md "Configuration", "Datagrams and Timers"; r-client.md 6.1,
 * 6.3, 6.4). */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "rl_client.h"
#include "rl_le.h"
#include "rl_credential.h"

rl_reqtable_key_fn rl_request_key_fn(void);

uint64_t rl_client_now(const r_client_t *c) {
    return c->io.now_ms(c->io.ctx);
}


static uint64_t clock_hook(void *ctx) {
    const r_client_t *c = ctx;
    return rl_client_now(c);
}

static void log_hook(void *ctx, r_log_level_t level, const char *msg) {
    const r_client_t *c = ctx;
    if (c->io.log != NULL) {
        c->io.log(c->io.ctx, level, msg);
    }
}

/* Every client PDU gets a request identity of its own (api.md "Reporting
 * measured work": a fresh request identity per call); an ID equal to an
 * in-flight request's would let servers deduplicate one PDU against the other. */
int rl_client_fresh_unique_id(r_client_t *c, uint8_t unique_id[16]) {
    for (int attempt = 0; attempt < 4; attempt++) {
        if (rl_rng_unique_id(&c->rng, unique_id) != 0) {
            return RCLIENT_ERR_AUTH;
        }
        if (rl_reqtable_get(&c->inflight, unique_id) == NULL) {
            return RCLIENT_OK;
        }
    }
    return RCLIENT_ERR_AUTH; /* the random source keeps repeating itself */
}

int rl_client_new_header(r_client_t *c, rl_tenant_header_t *hdr, uint64_t now_ms) {
    memset(hdr, 0, sizeof *hdr);
    hdr->key_id = c->key.key_id;
    hdr->time_stamp_ms = now_ms;
    hdr->steering_feedback = 1;
    return rl_client_fresh_unique_id(c, hdr->unique_id);
}

static int load_credential(r_client_t *c, const r_client_config_t *cfg) {
    if (cfg->tenant.auth.secret == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_key_diag_t diag;
    if (r_client_parse_auth_key_diag(cfg->tenant.auth.secret, cfg->tenant.auth.secret_len, &c->key, &diag) !=
        RCLIENT_OK) {
        rl_client_log(c, R_LOG_ERROR, "invalid credential: %s", diag.message);
        return RCLIENT_ERR_CONFIG;
    }
    if (cfg->tenant.key_id != 0 && cfg->tenant.key_id != c->key.key_id) {
        rl_client_log(c, R_LOG_ERROR, "tenant.key_id does not match the credential's key_id");
        return RCLIENT_ERR_CONFIG;
    }
    if (cfg->tenant.auth.type != R_AUTH_UNSPECIFIED && cfg->tenant.auth.type != c->key.type) {
        rl_client_log(c, R_LOG_ERROR, "tenant.auth.type does not match the credential's auth type");
        return RCLIENT_ERR_CONFIG;
    }
    return rl_auth_init(&c->auth, c->key.type, c->key.has_secret ? c->key.secret : NULL);
}

static int init_membership(r_client_t *c, const r_client_config_t *cfg, const r_resolver_ops_t *resolver) {
    if (cfg->servers != NULL || cfg->server_count > 0) {
        return rl_membership_init_explicit(&c->membership, cfg->servers, cfg->server_count);
    }
    if (resolver == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    char name[64];
    const char *dns_name = cfg->tenant.dns_name;
    if (dns_name == NULL) {
        if (r_client_format_default_tenant_dns(c->key.key_id, name, sizeof name) != RCLIENT_OK) {
            return RCLIENT_ERR_CONFIG;
        }
        dns_name = name;
    }
    return rl_membership_init_dns(&c->membership, dns_name, resolver, &cfg->dns_refresh, &c->rng, clock_hook, c,
                                  log_hook, c);
}

int r_client_create(const r_client_config_t *cfg, const r_io_ops_t *io, const r_resolver_ops_t *resolver,
                    r_client_t **out_client) {
    if (cfg == NULL || io == NULL || out_client == NULL || io->udp_send == NULL || io->now_ms == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    r_client_t *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return RCLIENT_ERR_NOMEM;
    }
    c->io = *io;
    c->rng.fn = io->random;
    c->rng.ctx = io->ctx;
    rl_reqtable_init(&c->inflight, rl_request_key_fn());
    int rc = load_credential(c, cfg);
    if (rc == RCLIENT_OK) {
        if (cfg->request_policy != NULL) {
            c->policy = *cfg->request_policy;
        } else {
            r_client_default_request_policy(&c->policy);
        }
        /* Validated now, reported at submit (api.md: policy errors surface at submission). */
        c->schedule_status = r_client_policy_schedule(&c->policy, c->key.quotas.dedup_ttl_ms_max, &c->schedule,
                                                      &c->schedule_why);
        c->profile_cb = cfg->request_profile_cb;
        c->profile_user = cfg->request_profile_user_data;
        rc = init_membership(c, cfg, resolver);
    }
    if (rc != RCLIENT_OK) {
        rl_auth_release(&c->auth);
        OPENSSL_cleanse(&c->key, sizeof c->key);
        rl_reqtable_free(&c->inflight);
        free(c);
        return rc;
    }
    if (!c->membership.explicit_servers) {
        (void)rl_membership_start(&c->membership); /* first discovery; never fails creation */
    }
    *out_client = c;
    return RCLIENT_OK;
}

void r_client_destroy(r_client_t *client) {
    if (client == NULL) {
        return;
    }
    rl_reqtable_t *t = &client->inflight;
    for (size_t i = 0; i < t->cap; i++) {
        r_client_req_t *req = rl_reqtable_slot(t, i);
        if (req != NULL) {
            if (req->on_abandon != NULL) {
                req->on_abandon(req->user); /* lets the workflow forget its handle */
            }
            rl_request_free(req); /* cancelled without callback */
        }
    }
    rl_reqtable_free(t);
    rl_membership_release(&client->membership);
    rl_auth_release(&client->auth);
    rl_rng_release(&client->rng);
    OPENSSL_cleanse(&client->key, sizeof client->key);
    OPENSSL_cleanse(client->scratch, sizeof client->scratch);
    free(client);
}

/* A response whose server_id is outside the snapshot usually means the SRV
 * s-<id> labels (or explicit server ids) do not match what servers put in
 * responses: say so once at WARN, then at DEBUG. */
static void note_untrusted(r_client_t *c, const rl_snapshot_t *snap, uint64_t server_id) {
    if (rl_snapshot_rank(snap, server_id) >= 0) {
        return;
    }
    rl_client_log(c, c->warned_untrusted ? R_LOG_DEBUG : R_LOG_WARN,
                  "ignored a response from server_id %llu, not in the request's membership: SRV s-<id> labels "
                  "or explicit server ids must equal the ids servers put in responses",
                  (unsigned long long)server_id);
    c->warned_untrusted = true;
}

/* A datagram whose unique_id matches no in-flight request (late, duplicate
 * after completion, or foreign) is still framed and authenticated with the
 * client's key, which needs no request: a bad one gets its error code, a
 * valid-looking one RCLIENT_OK (api.md "Datagrams and Timers"). */
static int on_unmatched(r_client_t *client, const uint8_t *data, size_t len) {
    rl_verdict_t v;
    memcpy(client->scratch, data, len);
    (void)rl_response_authenticate(&client->auth, client->scratch, len, &v);
    return v.code;
}

/* Ingress: frame, find the request by unique_id, validate against its
 * snapshot, match it block by block, then apply. Nothing changes for an
 * invalid datagram (r-client.md 6.3 rule 1); the return codes are
 * informational (api.md). */
int r_client_on_datagram(r_client_t *client, const uint8_t *data, size_t len) {
    if (client == NULL || (data == NULL && len > 0)) {
        return RCLIENT_ERR_CONFIG;
    }
    if (len == 0 || len > RL_MAX_DATAGRAM) {
        return RCLIENT_ERR_PROTOCOL; /* empty (data may then be NULL) or over one datagram */
    }
    const uint8_t *unique_id = NULL;
    rl_verdict_t v;
    if (rl_response_peek(data, len, &unique_id, &v) != RL_VERDICT_OK) {
        return v.code;
    }
    r_client_req_t *req = rl_reqtable_get(&client->inflight, unique_id);
    if (req == NULL) {
        return on_unmatched(client, data, len);
    }
    memcpy(client->scratch, data, len);
    rl_rate_response_t resp;
    const rl_snapshot_t *snap = req->snapshot;
    if (rl_parse_rate_response(&client->auth, client->scratch, len, req->unique_id, snap->ids, snap->count, &resp,
                               &v) != RL_VERDICT_OK) {
        if (v.cls == RL_VERDICT_CORRELATION && len >= RL_TENANT_OFF_UNIQUE_ID) {
            note_untrusted(client, snap, rl_load_u64(data + RL_TENANT_OFF_KEY_ID));
        }
        return v.code;
    }
    if (rl_request_match(req, &resp, &v) != 0) {
        rl_client_log(client, R_LOG_DEBUG, "response from server_id %llu does not answer the request: %s",
                      (unsigned long long)resp.server_id, v.reason);
        return RCLIENT_ERR_PROTOCOL; /* not this request's answer: no state change */
    }
    if (!resp.keep_port && !client->rebind_pending) {
        client->rebind_pending = true; /* r-client.md 6.1 Ready -> RebindPending */
        if (client->io.steering_rebind != NULL) {
            client->io.steering_rebind(client->io.ctx, resp.server_id);
        }
    }
    rl_request_on_response(req, &resp, rl_client_now(client));
    return RCLIENT_OK;
}

size_t r_client_server_count(const r_client_t *client) {
    const rl_snapshot_t *s = client != NULL ? rl_membership_peek(&client->membership) : NULL;
    return s != NULL ? s->count : 0;
}

int r_client_refresh_dns(r_client_t *client) {
    if (client == NULL) {
        return RCLIENT_ERR_CONFIG;
    }
    return rl_membership_refresh(&client->membership);
}

bool r_client_rebind_pending(const r_client_t *client) {
    return client != NULL && client->rebind_pending;
}

void r_client_rebind_complete(r_client_t *client, bool ok) {
    if (client != NULL && ok) {
        client->rebind_pending = false; /* Rebinding -> Ready; a failure stays RebindPending */
    }
}
