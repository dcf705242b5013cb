/* SPDX-License-Identifier: MIT */
/* serve_conf_json.c - the serve JSON config file (contract: serve_conf.h;
 * format: tools/rl-testbed/README.md "serve config file"). Every member is
 * turned into its command-line text and handed to the one parser of
 * serve_conf.c, so a file and a command line accept exactly the same values. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>

#include "serve_conf.h"

/* The text of a scalar member: strings as they are, integers in decimal,
 * reals with round-trip precision and always as reals (1e3 is "1000.0", so
 * an integer option refuses it here as on the command line), booleans as
 * 1/0. false for other kinds. */
static bool scalar_text(const json_t *v, char *buf, size_t cap) {
    if (json_is_string(v)) {
        snprintf(buf, cap, "%s", json_string_value(v));
        return strlen(json_string_value(v)) < cap;
    }
    if (json_is_integer(v)) {
        snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return true;
    }
    if (json_is_real(v)) {
        int n = snprintf(buf, cap, "%.17g", json_real_value(v));
        if (n > 0 && (size_t)n + 2 < cap && strpbrk(buf, ".eEni") == NULL) {
            strcat(buf, ".0");
        }
        return true;
    }
    if (json_is_boolean(v)) {
        snprintf(buf, cap, "%d", json_is_true(v) ? 1 : 0);
        return true;
    }
    return false;
}

#define put_err serve_errf

/* Prefix err (which holds the parser's message) with "FILE: FIELD: ". */
static int at_field(char *err, const char *path, const char *field) {
    char msg[SERVE_ERR_LEN];
    memcpy(msg, err, SERVE_ERR_LEN);
    msg[SERVE_ERR_LEN - 1] = '\0';
    put_err(err, "%s: %s: %s", path, field, msg);
    return -1;
}

static int load_server(serve_conf_t *c, const json_t *obj, size_t index, const char *path, char *err) {
    char field[64];
    snprintf(field, sizeof field, "servers[%zu]", index);
    if (!json_is_object(obj)) {
        snprintf(err, SERVE_ERR_LEN, "want an object");
        return at_field(err, path, field);
    }
    if (c->n_servers >= SERVE_MAX_SERVERS) {
        snprintf(err, SERVE_ERR_LEN, "at most %u servers", SERVE_MAX_SERVERS);
        return at_field(err, path, field);
    }
    serve_server_conf_t *s = &c->servers[c->n_servers];
    serve_server_defaults(s);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        char text[256];
        snprintf(field, sizeof field, "servers[%zu].%s", index, key);
        if (!scalar_text(v, text, sizeof text)) {
            snprintf(err, SERVE_ERR_LEN, "want a string, number or boolean");
            return at_field(err, path, field);
        }
        if (serve_server_set(s, key, text, err) != 0) {
            return at_field(err, path, field);
        }
    }
    c->n_servers++;
    return 0;
}

/* A member that is a string or an array of strings, each given to
 * serve_conf_set(option). */
static int load_list(serve_conf_t *c, const json_t *v, const char *key, const char *option, const char *path,
                     char *err) {
    char field[64];
    if (json_is_string(v)) {
        return serve_conf_set(c, option, json_string_value(v), err) == 0 ? 0 : at_field(err, path, key);
    }
    if (!json_is_array(v)) {
        snprintf(err, SERVE_ERR_LEN, "want a string or an array of strings");
        return at_field(err, path, key);
    }
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) {
        snprintf(field, sizeof field, "%s[%zu]", key, i);
        if (!json_is_string(item)) {
            snprintf(err, SERVE_ERR_LEN, "want a string");
            return at_field(err, path, field);
        }
        int rc = serve_conf_set(c, option, json_string_value(item), err);
        if (strcmp(option, "tenant") == 0) { /* the copy is ours now: leave no secret in the parse tree */
            OPENSSL_cleanse((char *)json_string_value(item), strlen(json_string_value(item)));
        }
        if (rc != 0) {
            return at_field(err, path, field);
        }
    }
    return 0;
}

static const struct {
    const char *member;
    const char *option;
} scalar_members[] = {
    {"log", "log"},           {"zone", "zone"},           {"dnsmasq", "dnsmasq"},
    {"dns_name", "dns-name"}, {"rate_cap", "rate-cap"},   {"memory_cap_mb", "memory-cap"},
    {"log_max_bytes", "log-max-bytes"},
    {"max_pending", "max-pending"}, {"seed", "seed"},     {"duration", "duration"},
    {"memory_budget_mb", "memory-budget"}, {"admin_secret", "admin-secret"},
};

static int load_member(serve_conf_t *c, const char *key, const json_t *v, const char *path, char *err) {
    if (strcmp(key, "tenants") == 0) {
        return load_list(c, v, key, "tenant", path, err);
    }
    if (strcmp(key, "listen") == 0) {
        return load_list(c, v, key, "listen", path, err);
    }
    if (strcmp(key, "servers") == 0) {
        if (!json_is_array(v)) {
            snprintf(err, SERVE_ERR_LEN, "want an array of objects");
            return at_field(err, path, key);
        }
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item) {
            if (load_server(c, item, i, path, err) != 0) {
                return -1;
            }
        }
        return 0;
    }
    for (size_t i = 0; i < sizeof scalar_members / sizeof scalar_members[0]; i++) {
        if (strcmp(key, scalar_members[i].member) == 0) {
            char text[512];
            if (!scalar_text(v, text, sizeof text)) {
                snprintf(err, SERVE_ERR_LEN, "want a string or number");
                return at_field(err, path, key);
            }
            return serve_conf_set(c, scalar_members[i].option, text, err) == 0 ? 0 : at_field(err, path, key);
        }
    }
    snprintf(err, SERVE_ERR_LEN, "unknown member");
    return at_field(err, path, key);
}

int serve_conf_load_json(serve_conf_t *c, const char *path, char *err) {
    json_error_t jerr;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL) {
        if (jerr.line < 0) {
            put_err(err, "%s: %s", path, jerr.text);
        } else {
            put_err(err, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        }
        return -1;
    }
    int rc = 0;
    if (!json_is_object(root)) {
        put_err(err, "%s: want a JSON object at the top", path);
        rc = -1;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v) {
        if (rc == 0) {
            rc = load_member(c, key, v, path, err);
        }
    }
    json_decref(root);
    return rc;
}
