/* SPDX-License-Identifier: MIT */
/* serve_conf.c - parsing and checking of the serve configuration
 * (contract: serve_conf.h). */
#define _POSIX_C_SOURCE 200809L
#include "serve_conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "r_client.h"
#include "rl_credential.h"

void serve_errf(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, SERVE_ERR_LEN, fmt, ap);
    va_end(ap);
}

#define fail(err, ...) (serve_errf((err), __VA_ARGS__), -1)

/* Canonical unsigned decimal in [0, max]: digits only, no sign or spaces. */
static bool parse_u64(const char *text, uint64_t max, uint64_t *out) {
    if (text == NULL || text[0] < '0' || text[0] > '9') {
        return false;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v > max) {
        return false;
    }
    *out = v;
    return true;
}

static bool parse_i64(const char *text, int64_t *out) {
    const char *digits = text != NULL && text[0] == '-' ? text + 1 : text;
    uint64_t v = 0;
    if (!parse_u64(digits, (uint64_t)INT64_MAX, &v)) {
        return false;
    }
    *out = digits == text ? (int64_t)v : -(int64_t)v;
    return true;
}

/* A finite decimal number in [lo, hi]. */
static bool parse_real(const char *text, double lo, double hi, double *out) {
    if (text == NULL || text[0] == '\0' || text[0] == ' ') {
        return false;
    }
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

static bool parse_bool(const char *text, bool *out) {
    if (strcmp(text, "1") == 0 || strcmp(text, "true") == 0 || strcmp(text, "yes") == 0) {
        *out = true;
    } else if (strcmp(text, "0") == 0 || strcmp(text, "false") == 0 || strcmp(text, "no") == 0) {
        *out = false;
    } else {
        return false;
    }
    return true;
}

static bool parse_u32(const char *text, uint32_t max, uint32_t *out) {
    uint64_t v = 0;
    if (!parse_u64(text, max, &v)) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* "MS", "fixed:MS", "uniform:MIN:MAX", "exp:MEAN[:MAX]". */
static bool parse_delay(const char *text, serve_delay_t *out) {
    char buf[64];
    if (strlen(text) >= sizeof buf) {
        return false;
    }
    strcpy(buf, text);
    char *kind = buf;
    char *a = strchr(buf, ':');
    char *b = NULL;
    if (a != NULL) {
        *a++ = '\0';
        b = strchr(a, ':');
        if (b != NULL) {
            *b++ = '\0';
        }
    }
    serve_delay_t d = {SERVE_DELAY_FIXED, 0, 0};
    const uint32_t max = 600000u; /* ten minutes */
    if (a == NULL) {
        if (!parse_u32(kind, max, &d.a_ms)) {
            return false;
        }
    } else if (strcmp(kind, "fixed") == 0) {
        if (b != NULL || !parse_u32(a, max, &d.a_ms)) {
            return false;
        }
    } else if (strcmp(kind, "uniform") == 0) {
        d.kind = SERVE_DELAY_UNIFORM;
        if (b == NULL || !parse_u32(a, max, &d.a_ms) || !parse_u32(b, max, &d.b_ms) || d.b_ms < d.a_ms) {
            return false;
        }
    } else if (strcmp(kind, "exp") == 0) {
        d.kind = SERVE_DELAY_EXP;
        if (!parse_u32(a, max, &d.a_ms) || d.a_ms == 0 || (b != NULL && (!parse_u32(b, max, &d.b_ms) || d.b_ms < d.a_ms))) {
            return false;
        }
        if (b == NULL) {
            d.b_ms = d.a_ms * 10u < max ? d.a_ms * 10u : max;
        }
    } else {
        return false;
    }
    if (d.kind == SERVE_DELAY_FIXED && d.a_ms == 0) {
        d.kind = SERVE_DELAY_NONE;
    }
    *out = d;
    return true;
}

/* "keep", "change", "random:P". */
static bool parse_steer(const char *text, sim_steer_mode_t *mode, double *p) {
    if (strcmp(text, "keep") == 0) {
        *mode = SIM_STEER_KEEP;
        *p = 0.0;
    } else if (strcmp(text, "change") == 0) {
        *mode = SIM_STEER_CHANGE;
        *p = 0.0;
    } else if (strncmp(text, "random:", 7) == 0 && parse_real(text + 7, 0.0, 1.0, p)) {
        *mode = SIM_STEER_RANDOM;
    } else {
        return false;
    }
    return true;
}

void serve_server_defaults(serve_server_conf_t *s) {
    memset(s, 0, sizeof *s);
    s->freshness_ms = 5000;
    s->steer = SIM_STEER_KEEP;
}

typedef enum { K_PORT, K_ID, K_START, K_LISTENER, K_NODE, K_DROP, K_DROP_REPLY, K_INJECT, K_DELAY, K_DENY,
               K_RESTART_AT, K_RESTART_AFTER, K_DOWN_AT, K_DOWN_AFTER, K_STEER, K_FRESHNESS, K_SKEW, K_DEDUP_CAP, K_DEDUP_TTL_CAP } key_t_;

static const struct {
    const char *name;
    key_t_ key;
    const char *want;
} server_keys[] = {
    {"port", K_PORT, "a port 0..65535 (0 = ephemeral)"},
    {"id", K_ID, "a server_id, decimal u64 whose start is >= 2025-01-01"},
    {"start", K_START, "Unix seconds >= 1735689600"},
    {"listener", K_LISTENER, "0..255"},
    {"node", K_NODE, "0..32767"},
    {"drop", K_DROP, "a probability in [0, 1]"},
    {"drop_reply", K_DROP_REPLY, "a probability in [0, 1]"},
    {"inject", K_INJECT, "a probability in [0, 1]"},
    {"delay", K_DELAY, "MS, fixed:MS, uniform:MIN:MAX or exp:MEAN[:MAX] (ms <= 600000)"},
    {"deny", K_DENY, "0/1 or true/false"},
    {"restart_at", K_RESTART_AT, "seconds after start, > 0"},
    {"restart_after", K_RESTART_AFTER, "a count of rate requests, >= 1"},
    {"down_at", K_DOWN_AT, "seconds after start, > 0"},
    {"down_after", K_DOWN_AFTER, "a count of rate requests, >= 1"},
    {"steer", K_STEER, "keep, change or random:P"},
    {"freshness", K_FRESHNESS, "ms, 0 = off"},
    {"skew", K_SKEW, "signed ms"},
    {"dedup_capacity", K_DEDUP_CAP, "entries, 1..16777216"},
    {"dedup_ttl_cap", K_DEDUP_TTL_CAP, "ms, 1..60000"},
};

static bool set_key(serve_server_conf_t *s, key_t_ key, const char *v) {
    uint64_t u = 0;
    bool b = false;
    switch (key) {
    case K_PORT: return parse_u64(v, 65535, &u) && (s->port = (uint16_t)u, true);
    case K_ID:
        if (!parse_u64(v, UINT64_MAX, &u)) {
            return false;
        }
        s->has_id = true;
        s->server_id = u;
        return true;
    case K_START: return parse_u64(v, UINT64_MAX, &u) && u >= R_CLIENT_SERVER_EPOCH_S && (s->start_s = u, true);
    case K_LISTENER:
        return parse_u64(v, 255, &u) && (s->listener_id = (uint8_t)u, s->has_listener = true, true);
    case K_NODE: return parse_u64(v, 32767, &u) && (s->node_id = (uint16_t)u, s->has_node = true, true);
    case K_DROP: return parse_real(v, 0.0, 1.0, &s->drop);
    case K_DROP_REPLY: return parse_real(v, 0.0, 1.0, &s->drop_reply);
    case K_INJECT: return parse_real(v, 0.0, 1.0, &s->inject);
    case K_DELAY: return parse_delay(v, &s->delay);
    case K_DENY: return parse_bool(v, &b) && (s->deny = b, true);
    case K_RESTART_AT: return parse_real(v, 0.001, 1e9, &s->restart_at_s);
    case K_RESTART_AFTER: return parse_u64(v, UINT64_MAX, &u) && u >= 1 && (s->restart_after = u, true);
    case K_DOWN_AT: return parse_real(v, 0.001, 1e9, &s->down_at_s);
    case K_DOWN_AFTER: return parse_u64(v, UINT64_MAX, &u) && u >= 1 && (s->down_after = u, true);
    case K_STEER: return parse_steer(v, &s->steer, &s->steer_p);
    case K_FRESHNESS: return parse_u32(v, UINT32_MAX, &s->freshness_ms);
    case K_SKEW: return parse_i64(v, &s->skew_ms) && s->skew_ms > -86400000 && s->skew_ms < 86400000;
    case K_DEDUP_CAP: return parse_u32(v, 1u << 24, &s->dedup_capacity) && s->dedup_capacity >= 1;
    case K_DEDUP_TTL_CAP: return parse_u32(v, 60000, &s->dedup_ttl_cap_ms) && s->dedup_ttl_cap_ms >= 1;
    }
    return false;
}

int serve_server_set(serve_server_conf_t *s, const char *key, const char *value, char *err) {
    for (size_t i = 0; i < sizeof server_keys / sizeof server_keys[0]; i++) {
        if (strcmp(key, server_keys[i].name) == 0) {
            if (!set_key(s, server_keys[i].key, value)) {
                return fail(err, "%s: bad value '%s' (want %s)", key, value, server_keys[i].want);
            }
            return 0;
        }
    }
    return fail(err, "unknown server key '%s'", key);
}

int serve_conf_add_server_spec(serve_conf_t *c, const char *spec, char *err) {
    if (c->n_servers >= SERVE_MAX_SERVERS) {
        return fail(err, "at most %u servers", SERVE_MAX_SERVERS);
    }
    serve_server_conf_t s;
    serve_server_defaults(&s);
    char buf[512];
    if (strlen(spec) >= sizeof buf) {
        return fail(err, "server spec longer than %zu bytes", sizeof buf - 1);
    }
    if (spec[0] == '\0') {
        return fail(err, "empty server spec (want key=value,...; e.g. port=0)");
    }
    strcpy(buf, spec);
    const char *seen[sizeof server_keys / sizeof server_keys[0]];
    size_t n_seen = 0;
    for (char *item = buf, *next = NULL; item != NULL; item = next) {
        next = strchr(item, ',');
        if (next != NULL) {
            *next++ = '\0';
        }
        if (*item == '\0') {
            return fail(err, "empty item in '%s' (want key=value between commas)", spec);
        }
        char *eq = strchr(item, '=');
        if (eq == NULL) {
            return fail(err, "'%s' is not key=value", item);
        }
        *eq = '\0';
        for (size_t k = 0; k < n_seen; k++) {
            if (strcmp(seen[k], item) == 0) {
                return fail(err, "%s: given twice in one server spec", item);
            }
        }
        if (serve_server_set(&s, item, eq + 1, err) != 0) {
            return -1;
        }
        seen[n_seen++] = item; /* a known key (else refused above): at most one entry per key */
    }
    c->servers[c->n_servers++] = s;
    return 0;
}

void serve_conf_init(serve_conf_t *c) {
    memset(c, 0, sizeof *c);
    c->rate_cap = 100000;
    c->memory_cap_mb = 256;
    c->memory_budget_mb = 1024;
    c->max_pending = 4096;
    c->log_max_bytes = UINT64_C(1) << 30;
}

static void free_secret(char *s) {
    if (s != NULL) {
        OPENSSL_cleanse(s, strlen(s));
        free(s);
    }
}

void serve_conf_free(serve_conf_t *c) {
    for (size_t i = 0; i < c->n_tenants; i++) {
        free_secret(c->tenants[i]);
    }
    for (size_t i = 0; i < c->n_listen; i++) {
        free(c->listen[i]);
    }
    free(c->log_path);
    free(c->zone_path);
    free(c->dnsmasq_path);
    free(c->dns_name);
    OPENSSL_cleanse(c->admin_secret, sizeof c->admin_secret);
    memset(c, 0, sizeof *c);
}

static int set_string(char **slot, const char *value, char *err, const char *name) {
    char *copy = strdup(value);
    if (copy == NULL) {
        return fail(err, "--%s: out of memory", name);
    }
    free(*slot);
    *slot = copy;
    return 0;
}

static bool numeric_address(const char *text) {
    unsigned char buf[16];
    return inet_pton(AF_INET, text, buf) == 1 || inet_pton(AF_INET6, text, buf) == 1;
}

int serve_conf_set(serve_conf_t *c, const char *name, const char *value, char *err) {
    uint64_t u = 0;
    if (strcmp(name, "tenant") == 0) {
        r_key_diag_t diag;
        r_auth_key_info_t info;
        if (r_client_parse_auth_key_diag(value, 0, &info, &diag) != RCLIENT_OK) {
            return fail(err, "--tenant: bad credential: %s", diag.message);
        }
        OPENSSL_cleanse(&info, sizeof info);
        if (c->n_tenants >= SERVE_MAX_TENANTS) {
            return fail(err, "--tenant: at most %u tenants", SERVE_MAX_TENANTS);
        }
        c->tenants[c->n_tenants] = NULL;
        if (set_string(&c->tenants[c->n_tenants], value, err, name) != 0) {
            return -1;
        }
        c->n_tenants++;
        return 0;
    }
    if (strcmp(name, "listen") == 0) {
        if (!numeric_address(value)) {
            return fail(err, "--listen: '%s' is not a numeric IPv4 or IPv6 address", value);
        }
        if (c->n_listen >= SERVE_MAX_LISTEN) {
            return fail(err, "--listen: at most %u addresses", SERVE_MAX_LISTEN);
        }
        c->listen[c->n_listen] = NULL;
        if (set_string(&c->listen[c->n_listen], value, err, name) != 0) {
            return -1;
        }
        c->n_listen++;
        return 0;
    }
    if (strcmp(name, "log") == 0) {
        return set_string(&c->log_path, value, err, name);
    }
    if (strcmp(name, "log-max-bytes") == 0) {
        if (!parse_u64(value, UINT64_C(1) << 50, &u) || (u != 0 && u < 4096)) {
            return fail(err, "--log-max-bytes: bad value '%s' (want bytes, 4096..2^50, or 0 = no limit)", value);
        }
        c->log_max_bytes = u;
        c->has_log_max_bytes = true;
        return 0;
    }
    if (strcmp(name, "zone") == 0) {
        return set_string(&c->zone_path, value, err, name);
    }
    if (strcmp(name, "dnsmasq") == 0) {
        return set_string(&c->dnsmasq_path, value, err, name);
    }
    if (strcmp(name, "dns-name") == 0) {
        size_t n = strlen(value);
        if (n == 0 || n > 200 || strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") != n ||
            value[0] == '.' || strstr(value, "..") != NULL) {
            return fail(err, "--dns-name: '%s' is not a host name (letters, digits, '-', '_', dots; at most 200)", value);
        }
        return set_string(&c->dns_name, value, err, name);
    }
    if (strcmp(name, "rate-cap") == 0) {
        if (!parse_u64(value, 10000000, &u) || u == 0) {
            return fail(err, "--rate-cap: bad value '%s' (want datagrams per second, 1..10000000)", value);
        }
        c->rate_cap = (uint32_t)u;
        return 0;
    }
    if (strcmp(name, "memory-cap") == 0) {
        if (!parse_u64(value, 65536, &u) || u < 4) {
            return fail(err, "--memory-cap: bad value '%s' (want MiB, 4..65536)", value);
        }
        c->memory_cap_mb = (uint32_t)u;
        return 0;
    }
    if (strcmp(name, "memory-budget") == 0) {
        if (!parse_u64(value, 1048576, &u) || u == 0) {
            return fail(err, "--memory-budget: bad value '%s' (want MiB, 1..1048576)", value);
        }
        c->memory_budget_mb = (uint32_t)u;
        return 0;
    }
    if (strcmp(name, "admin-secret") == 0) {
        r_key_diag_t diag;
        memset(&diag, 0, sizeof diag);
        if (rl_credential_parse_secret(value, 0, c->admin_secret, &diag) != RCLIENT_OK) {
            OPENSSL_cleanse(c->admin_secret, sizeof c->admin_secret);
            return fail(err, "--admin-secret: bad credential: %s", diag.message);
        }
        c->has_admin_secret = true;
        return 0;
    }
    if (strcmp(name, "max-pending") == 0) {
        if (!parse_u64(value, 1000000, &u) || u == 0) {
            return fail(err, "--max-pending: bad value '%s' (want 1..1000000)", value);
        }
        c->max_pending = (uint32_t)u;
        return 0;
    }
    if (strcmp(name, "seed") == 0) {
        if (!parse_u64(value, UINT64_MAX, &c->seed)) {
            return fail(err, "--seed: bad value '%s' (want a decimal u64)", value);
        }
        c->has_seed = true;
        return 0;
    }
    if (strcmp(name, "duration") == 0) {
        if (!parse_real(value, 0.001, 1e9, &c->duration_s)) {
            return fail(err, "--duration: bad value '%s' (want seconds > 0)", value);
        }
        return 0;
    }
    return fail(err, "unknown option '--%s'", name);
}

int serve_conf_finish(serve_conf_t *c, char *err) {
    if (c->n_tenants == 0 && !c->has_admin_secret) {
        return fail(err, "no tenant: give --tenant CREDENTIAL (rl-none1..., rl-cookie1..., rl-aes1...) or \"tenants\" in --config");
    }
    if (c->n_tenants == 0 && c->dns_name == NULL && (c->zone_path != NULL || c->dnsmasq_path != NULL)) {
        return fail(err, "--zone/--dnsmasq without a tenant: give --dns-name NAME");
    }
    if (c->has_log_max_bytes && (c->log_path == NULL || strcmp(c->log_path, "-") == 0)) {
        return fail(err, "--log-max-bytes (or \"log_max_bytes\" in --config): needs --log FILE (the log on stdout is "
                         "not rotated)");
    }
    if (c->n_servers == 0) {
        serve_server_defaults(&c->servers[0]);
        c->n_servers = 1;
    }
    for (size_t i = 0; i < c->n_servers; i++) {
        serve_server_conf_t *s = &c->servers[i];
        if (!s->has_listener) {
            s->listener_id = (uint8_t)i;
        }
        if (!s->has_node) {
            /* node_id is 15 bits (wire_protocol.md "Structured server_id
             * Format"): the process id tells apart the serve processes of a
             * host started in the same second. */
            s->node_id = (uint16_t)(getpid() % 32768);
        }
        uint64_t id = 0;
        if (s->has_id) {
            r_server_id_parts_t p = r_client_decode_server_id(s->server_id);
            s->start_s = p.server_start_s;
            s->listener_id = p.listener_id;
            s->node_id = p.node_id;
        } else if (s->start_s != 0 && r_client_encode_server_id(s->start_s, s->listener_id, s->node_id, &id) != RCLIENT_OK) {
            return fail(err, "server %zu: start %llu does not fit a server_id", i, (unsigned long long)s->start_s);
        }
        for (size_t j = 0; j < i; j++) {
            const serve_server_conf_t *o = &c->servers[j];
            if (s->port != 0 && o->port == s->port) {
                return fail(err, "servers %zu and %zu: both on port %u", j, i, (unsigned)s->port);
            }
            /* start 0 = the same "now" for both (wire_protocol.md: two live
             * servers MUST NOT share (server_start_s, listener_id, node_id)). */
            if (o->start_s == s->start_s && o->listener_id == s->listener_id && o->node_id == s->node_id) {
                return fail(err, "servers %zu and %zu: the same server_id (start, listener %u, node %u)", j, i,
                            (unsigned)s->listener_id, (unsigned)s->node_id);
            }
        }
    }
    return 0;
}
