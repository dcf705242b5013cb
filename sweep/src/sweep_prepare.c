/* SPDX-License-Identifier: MIT */
/* sweep_prepare.c - the traces of a sweep (docs/sweep.md "traces",
 * "Validation", "Sweep hash"): every trace file is read once, each variant is
 * its JSON with the "vary" members set, loaded with the strict trace loader;
 * every configuration is then checked against every client's key before
 * anything runs (r-client.md 9.3.1). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "sweep.h"
#include "sim_trace.h"

#define ERR(...) (snprintf(err, err_cap, __VA_ARGS__), -1)

static int read_all(const char *path, char **buf, size_t *len, char *why, size_t why_cap) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(why, why_cap, "not a regular file");
        return -1;
    }
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(why, why_cap, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t cap = SIM_TRACE_MAX_FILE_BYTES + 1;
    *buf = malloc(cap);
    if (*buf == NULL) {
        fclose(f);
        snprintf(why, why_cap, "out of memory");
        return -1;
    }
    *len = fread(*buf, 1, cap, f);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || *len >= cap) {
        free(*buf);
        *buf = NULL;
        snprintf(why, why_cap, bad ? "read error" : "larger than the trace size limit");
        return -1;
    }
    return 0;
}

/* Set root at a path "a.b[2].c" to v (borrowed): missing objects on the way
 * are created, array elements must exist. */
static int set_path(json_t *root, const char *path, json_t *v, char *why, size_t why_cap) {
    json_t *cur = root;
    const char *s = path;
    char key[128];
    for (;;) {
        size_t n = strcspn(s, ".[");
        snprintf(key, sizeof key, "%.*s", (int)n, s);
        s += n;
        if (!json_is_object(cur)) {
            snprintf(why, why_cap, "%s: the parent of \"%s\" is not an object", path, key);
            return -1;
        }
        if (*s == '\0') return json_object_set(cur, key, v) == 0 ? 0 : (snprintf(why, why_cap, "out of memory"), -1);
        json_t *next = json_object_get(cur, key);
        if (next == NULL && *s == '.') {
            next = json_object();
            if (next == NULL || json_object_set_new(cur, key, next) != 0) return snprintf(why, why_cap, "out of memory"), -1;
        } else if (next == NULL) {
            snprintf(why, why_cap, "%s: \"%s\" is absent from the trace (an array must exist)", path, key);
            return -1;
        }
        while (*s == '[') {
            size_t idx = strtoul(s + 1, NULL, 10);
            s = strchr(s, ']') + 1;
            if (!json_is_array(next) || idx >= json_array_size(next)) {
                snprintf(why, why_cap, "%s: element [%zu] of \"%s\" does not exist", path, idx, key);
                return -1;
            }
            if (*s == '\0') return json_array_set(next, idx, v) == 0 ? 0 : (snprintf(why, why_cap, "out of memory"), -1);
            next = json_array_get(next, idx);
        }
        cur = next;
        s++; /* the '.' */
    }
}

static bool name_ok(const char *s) {
    if (s[0] == '\0') return false;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '.' || *s == '-' || *s == '=')) {
            return false;
        }
    }
    return true;
}

/* Load the variants of entry e from its file text. */
static int load_entry(sweep_t *sw, size_t e, const char *text, size_t len, char *err, size_t err_cap) {
    char why[768];
    sim_config_t base;
    sweep_trace_t *first = NULL;
    for (size_t i = 0; i < sw->n_traces && first == NULL; i++) {
        if (sw->traces[i].entry == e) first = &sw->traces[i];
    }
    if (first == NULL) return 0;
    if (sim_trace_parse(text, len, first->path, &base, why, sizeof why) != 0) {
        return ERR("%s: traces[%zu]: %s", sw->file, e, why);
    }
    json_t *root = NULL;
    for (size_t i = 0; i < sw->n_traces; i++) {
        sweep_trace_t *t = &sw->traces[i];
        if (t->entry != e) continue;
        if (t->name_from_trace) {
            char full[SWEEP_NAME_MAX * 2];
            snprintf(full, sizeof full, "%s%s", base.name, t->name);
            if (!name_ok(base.name) || strlen(full) >= SWEEP_NAME_MAX) {
                sim_config_free(&base);
                json_decref(root);
                return ERR("%s: traces[%zu]: the trace's name \"%s\" is not usable as a sweep name (%s): give \"name\"",
                           sw->file, e, base.name, name_ok(base.name) ? "too long with the variant" : "characters");
            }
            memcpy(t->name, full, strlen(full) + 1); /* fits: checked above */
            t->name_from_trace = false;
        }
        if (strcmp(t->sets_json, "{}") == 0) {
            if (sim_trace_parse(text, len, t->path, &t->cfg, why, sizeof why) != 0) {
                sim_config_free(&base);
                json_decref(root);
                return ERR("%s: %s: %s", sw->file, t->origin, why);
            }
        } else {
            if (root == NULL) root = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
            json_t *sets = json_loads(t->sets_json, 0, NULL);
            json_t *copy = root != NULL ? json_deep_copy(root) : NULL;
            int bad = sets == NULL || copy == NULL;
            const char *k;
            json_t *v;
            why[0] = '\0';
            if (!bad) {
                json_object_foreach(sets, k, v) {
                    if (set_path(copy, k, v, why, sizeof why) != 0) {
                        bad = 1;
                        break;
                    }
                }
            }
            char *out = bad ? NULL : json_dumps(copy, JSON_COMPACT | JSON_PRESERVE_ORDER);
            json_decref(sets);
            json_decref(copy);
            if (out == NULL) {
                sim_config_free(&base);
                json_decref(root);
                return ERR("%s: %s: %s", sw->file, t->origin, why[0] ? why : "out of memory");
            }
            int r = sim_trace_parse(out, strlen(out), t->path, &t->cfg, why, sizeof why);
            free(out);
            if (r != 0) {
                sim_config_free(&base);
                json_decref(root);
                return ERR("%s: %s: %s", sw->file, t->origin, why);
            }
        }
        t->loaded = true;
        t->cfg.n_expects = 0; /* a sweep evaluates no expectations */
    }
    json_decref(root);
    sim_config_free(&base);
    return 0;
}

static void hex(const unsigned char *d, size_t n, char *out) {
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int sweep_prepare(sweep_t *sw, char *err, size_t err_cap) {
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    if (h == NULL || EVP_DigestInit_ex(h, EVP_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(h, sw->canonical, strlen(sw->canonical)) != 1) {
        EVP_MD_CTX_free(h);
        return ERR("%s: cannot hash", sw->file);
    }
    for (size_t e = 0; e < sw->n_entries; e++) {
        const char *path = NULL, *rel = NULL;
        for (size_t i = 0; i < sw->n_traces && path == NULL; i++) {
            if (sw->traces[i].entry == e) path = sw->traces[i].path, rel = sw->traces[i].rel_path;
        }
        char *text = NULL, why[256];
        size_t len = 0;
        errno = 0;
        if (path == NULL || read_all(path, &text, &len, why, sizeof why) != 0) {
            EVP_MD_CTX_free(h);
            bool relative = errno == ENOENT && rel != NULL && rel[0] != '/';
            return ERR("%s: traces[%zu]: %s: %s%s", sw->file, e, path != NULL ? path : "?", why,
                       relative ? " (a relative trace path is read from the sweep file's directory)" : "");
        }
        unsigned char d[32];
        unsigned int dn = 0;
        EVP_Digest(text, len, d, &dn, EVP_sha256(), NULL);
        EVP_DigestUpdate(h, d, sizeof d);
        int r = load_entry(sw, e, text, len, err, err_cap);
        free(text);
        if (r != 0) {
            EVP_MD_CTX_free(h);
            return -1;
        }
    }
    unsigned char d[32];
    unsigned int dn = 0;
    EVP_DigestFinal_ex(h, d, &dn);
    EVP_MD_CTX_free(h);
    hex(d, 32, sw->hash);
    for (size_t i = 0; i < sw->n_traces; i++) {
        for (size_t j = 0; j < i; j++) {
            if (strcmp(sw->traces[i].name, sw->traces[j].name) == 0) {
                return ERR("%s: %s: duplicate trace name \"%s\" (also %s): give \"name\"", sw->file, sw->traces[i].origin,
                           sw->traces[i].name, sw->traces[j].origin);
            }
        }
    }
    for (size_t c = 0; c < sw->n_configs; c++) {
        for (size_t t = 0; t < sw->n_traces; t++) {
            const sim_config_t *cfg = &sw->traces[t].cfg;
            for (size_t k = 0; k < cfg->n_clients; k++) {
                char why[256];
                if (sim_policy_check_key(&sw->configs[c].policy, cfg->clients[k].quota_word, why, sizeof why) != 0) {
                    const char *hint = strstr(why, "dedup_ttl_ms_max") != NULL
                                           ? "; shorten the horizon H = U * (sum of B(k) for k = 0..N, plus F) or leave "
                                             "this trace out"
                                           : "";
                    return ERR("%s: %s (%s): invalid for trace %s (%s), client %s: %s%s", sw->file,
                               sw->configs[c].origin, sw->configs[c].name, sw->traces[t].name, sw->traces[t].origin,
                               cfg->clients[k].name, why, hint);
                }
            }
        }
    }
    return 0;
}

void sweep_apply(sweep_t *sw, size_t c, size_t t) {
    sim_config_t *cfg = &sw->traces[t].cfg;
    for (size_t k = 0; k < cfg->n_clients; k++) cfg->clients[k].policy = sw->configs[c].policy;
}
