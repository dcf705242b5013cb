/* SPDX-License-Identifier: MIT */
/* admin_cmd.c - the `rl-testbed admin` front end: parses the command line
 * into an admin_cfg_t and calls the engine (admin_run.c) and the printer
 * (admin_print.c). Every bad argument is named in the message. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "admin.h"
#include "admin_cmd.h"
#include "rl_credential.h"

static void usage_admin(FILE *f) {
    fputs("usage: rl-testbed admin [--server HOST:PORT] [--secret RL_SECRET] [--timeout MS] [--resend MS]\n"
          "                        [--json] COMMAND\n"
          "\n"
          "Commands (wire_protocol.md \"Administrative PDUs\", AES-256-GCM under the admin key):\n"
          "  tenant add NAME CREDENTIAL [--quota Q] [--dedup-ttl MS]   add or replace a tenant (Tenant Mutation ADD)\n"
          "  tenant remove TENANT [--dedup-ttl MS]                      remove a tenant (Tenant Mutation REMOVE)\n"
          "  status                                                     the listener's Status Response V1\n"
          "  metrics summary|labels|services TENANT                     one tenant's metrics, every page\n"
          "\n"
          "  TENANT               a key_id (decimal or 0x hex) or a credential (rl-none1..., rl-cookie1..., rl-aes1...)\n"
          "  --server HOST:PORT   the server (IPv4:PORT or [IPv6]:PORT); default: $RATELIMITLY_ADMIN_SERVER\n"
          "  --secret RL_SECRET   the administrative key (rl-secret1...); default: $RATELIMITLY_ADMIN_SECRET\n"
          "  --timeout MS         wait for each answer (each page) this long (default 1000)\n"
          "  --resend MS          resend the identical datagram every MS until answered (default 250)\n"
          "  --dedup-ttl MS       the mutation's dedup_ttl_ms: its replay window (default 1000)\n"
          "  --quota Q            tenant add: replace the credential's quota word, either a word (decimal or\n"
          "                       0x...) or fields rate_buckets=N,latency_services=N,metrics_labels=N,\n"
          "                       latency_buffer=N,dedup_ttl_ms=N,rate_window_ms=N (the rest kept)\n"
          "  --json               one JSON object on stdout instead of a table\n"
          "  --help               print this help\n"
          "\n"
          "Exit status: 0 answered, 1 the server answered with an error page (metrics: not found, invalid,\n"
          "unsupported, record too large), 2 usage error (a malformed admin key included), 3 no answer\n"
          "(timeout; a refused mutation is never answered) or a socket failure.\n",
          f);
}

static int bad(const char *what, const char *value, const char *want) {
    fprintf(stderr, "rl-testbed admin: %s '%s': %s\n", what, value, want);
    fputs("Run 'rl-testbed admin --help' for the options.\n", stderr);
    return ADMIN_EXIT_USAGE;
}

/* Decimal or 0x-hex digits only: no sign, no blanks (strtoull would take
 * both), and no value past max or past u64 (strtoull clamps with ERANGE). */
static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    char *end = NULL;
    if (s[0] < '0' || s[0] > '9') {
        return -1;
    }
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *digits = hex ? s + 2 : s;
    if (!(hex ? isxdigit((unsigned char)digits[0]) : isdigit((unsigned char)digits[0]))) {
        return -1;
    }
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno == ERANGE || end == digits || *end != '\0' || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

/* HOST:PORT with an IPv4 address, or [IPv6]:PORT. */
static int parse_server(const char *s, r_addr_t *out) {
    char host[64];
    const char *colon;
    memset(out, 0, sizeof *out);
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (close == NULL || close[1] != ':' || (size_t)(close - s - 1) >= sizeof host) {
            return -1;
        }
        memcpy(host, s + 1, (size_t)(close - s - 1));
        host[close - s - 1] = '\0';
        colon = close + 1;
        out->family = R_ADDR_INET6;
    } else {
        colon = strrchr(s, ':');
        if (colon == NULL || (size_t)(colon - s) >= sizeof host) {
            return -1;
        }
        memcpy(host, s, (size_t)(colon - s));
        host[colon - s] = '\0';
        out->family = R_ADDR_INET;
    }
    uint64_t port = 0;
    if (parse_u64(colon + 1, 65535, &port) != 0 || port == 0 ||
        inet_pton(out->family == R_ADDR_INET6 ? AF_INET6 : AF_INET, host, out->addr) != 1) {
        return -1;
    }
    out->port = (uint16_t)port;
    return 0;
}

/* TENANT: a key_id or a credential's key_id; returns 0 or the usage exit code. */
static int parse_tenant(const char *s, uint64_t *out) {
    if (parse_u64(s, UINT64_MAX, out) == 0) {
        return 0;
    }
    r_auth_key_info_t info;
    r_key_diag_t d;
    memset(&d, 0, sizeof d);
    if (r_client_parse_auth_key_diag(s, 0, &info, &d) != RCLIENT_OK) {
        char why[200];
        snprintf(why, sizeof why, "want a key_id or an rl-none/rl-cookie/rl-aes credential (as a credential: %s)",
                 d.message);
        return bad("TENANT", strncmp(s, "rl-", 3) == 0 ? "..." : s, why); /* never echo a credential */
    }
    *out = info.key_id;
    OPENSSL_cleanse(&info, sizeof info);
    return 0;
}

/* --quota: a word, or field=value,... over the credential's quotas. Each field at most once, no
 * empty item, each value a number the field's code can carry (wire_protocol.md "API-key quota
 * word, format version 1": the rule of the field is named when it cannot). */
static const struct {
    const char *name;
    size_t offset;
    const char *rule;
} quota_fields[] = {
    {"rate_buckets", offsetof(r_api_key_quotas_t, rate_buckets_max), "a power of two 1..16777216 (2^0..2^24)"},
    {"latency_services", offsetof(r_api_key_quotas_t, latency_services_max),
     "a power of two 1..16777216 (2^0..2^24)"},
    {"metrics_labels", offsetof(r_api_key_quotas_t, metrics_labels_max),
     "a power of two 1..2147483648 (2^0..2^31)"},
    {"latency_buffer", offsetof(r_api_key_quotas_t, latency_buffer_size_max), "a power of two 1..32768 (2^0..2^15)"},
    {"dedup_ttl_ms", offsetof(r_api_key_quotas_t, dedup_ttl_ms_max), "a multiple of 10 in 10..2000"},
    {"rate_window_ms", offsetof(r_api_key_quotas_t, rate_window_size_ms_max),
     "a power of two 1..1073741824 (2^0..2^30) or 4294967295"},
};

int rl_apply_quota(const char *q, r_auth_key_info_t *info, char *why, size_t cap) {
    uint64_t word = 0;
    if (parse_u64(q, UINT32_MAX, &word) == 0) {
        r_key_diag_t d;
        if (r_client_decode_quota_word((uint32_t)word, &info->quotas, &d) != RCLIENT_OK) {
            snprintf(why, cap, "not a valid quota word: %s", d.message);
            return -1;
        }
        info->quota_word = (uint32_t)word;
        return 0;
    }
    if (q[0] == '\0') {
        snprintf(why, cap, "empty: want a quota word or FIELD=NUMBER,...");
        return -1;
    }
    if (isdigit((unsigned char)q[0]) && strchr(q, '=') == NULL) {
        snprintf(why, cap, "not a valid quota word: want decimal or 0x hex digits up to 4294967295 (a u32)");
        return -1;
    }
    char buf[256];
    if (strlen(q) >= sizeof buf) {
        snprintf(why, cap, "longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    memcpy(buf, q, strlen(q) + 1);
    unsigned seen = 0;
    for (char *tok = buf, *next = NULL; tok != NULL; tok = next) {
        char *comma = strchr(tok, ',');
        next = comma != NULL ? comma + 1 : NULL;
        if (comma != NULL) {
            *comma = '\0';
        }
        if (tok[0] == '\0') {
            snprintf(why, cap, "an empty item (two commas, or a comma at either end)");
            return -1;
        }
        char *eq = strchr(tok, '=');
        if (eq == NULL) {
            snprintf(why, cap, "'%s': want FIELD=NUMBER", tok);
            return -1;
        }
        *eq = '\0';
        size_t f = 0;
        while (f < sizeof quota_fields / sizeof quota_fields[0] && strcmp(tok, quota_fields[f].name) != 0) {
            f++;
        }
        if (f == sizeof quota_fields / sizeof quota_fields[0]) {
            snprintf(why, cap,
                     "unknown field '%s' (rate_buckets, latency_services, metrics_labels, latency_buffer, "
                     "dedup_ttl_ms, rate_window_ms)",
                     tok);
            return -1;
        }
        if ((seen & (1u << f)) != 0) {
            snprintf(why, cap, "%s: given twice", tok);
            return -1;
        }
        seen |= 1u << f;
        uint64_t v = 0;
        if (eq[1] == '\0') {
            snprintf(why, cap, "%s: missing value after '='", tok);
            return -1;
        }
        if (parse_u64(eq + 1, UINT32_MAX, &v) != 0) {
            snprintf(why, cap, "%s=%s: not a number (decimal or 0x hex digits, no sign): %s must be %s", tok,
                     eq + 1, tok, quota_fields[f].rule);
            return -1;
        }
        uint32_t *dst = (uint32_t *)(void *)((char *)&info->quotas + quota_fields[f].offset);
        *dst = (uint32_t)v;
        if (rl_quota_encode(&info->quotas, &info->quota_word) != RCLIENT_OK) {
            snprintf(why, cap, "%s=%s is not representable in the quota word: %s must be %s", tok, eq + 1, tok,
                     quota_fields[f].rule);
            return -1;
        }
    }
    return 0;
}

static int set_credential(admin_cfg_t *c, const char *cred, const char *quota) {
    r_auth_key_info_t info;
    r_key_diag_t d;
    memset(&d, 0, sizeof d);
    if (r_client_parse_auth_key_diag(cred, 0, &info, &d) != RCLIENT_OK) {
        return bad("CREDENTIAL", "...", d.message); /* never echo a credential */
    }
    c->tenant_id = info.key_id;
    int rc = 0;
    char why[200];
    if (quota != NULL) {
        if (rl_apply_quota(quota, &info, why, sizeof why) != 0) {
            rc = bad("--quota", quota, why);
        } else if (rl_credential_encode(&info, c->credential, sizeof c->credential) < 0) {
            rc = bad("--quota", quota, "the credential cannot be encoded");
        }
    } else if (strlen(cred) >= sizeof c->credential) {
        rc = bad("CREDENTIAL", "...", "longer than 255 bytes");
    } else {
        memcpy(c->credential, cred, strlen(cred) + 1);
    }
    OPENSSL_cleanse(&info, sizeof info);
    return rc;
}

static int parse_ms(const char *opt, const char *v, uint32_t min, uint32_t *out) {
    uint64_t u = 0;
    if (parse_u64(v, 3600000, &u) != 0 || u < min) {
        char want[80];
        snprintf(want, sizeof want, "want milliseconds, a decimal number %" PRIu32 "..3600000", min);
        return bad(opt, v, want);
    }
    *out = (uint32_t)u;
    return 0;
}

/* A command with the wrong number of arguments: name it and what it wants. */
static int bad_count(const char *command, const char *want, size_t got) {
    fprintf(stderr, "rl-testbed admin: %s: want %s, got %zu argument(s)\n", command, want, got);
    fputs("Run 'rl-testbed admin --help' for the options.\n", stderr);
    return ADMIN_EXIT_USAGE;
}

/* The command words; returns 0 or the usage exit code. */
static int parse_words(admin_cfg_t *c, char **w, size_t n, const char *quota) {
    if (n == 0) {
        fputs("rl-testbed admin: no command (tenant add|remove, status, metrics)\n", stderr);
        return ADMIN_EXIT_USAGE;
    }
    int rc = 0;
    if (strcmp(w[0], "status") == 0) {
        if (n != 1) {
            return bad_count("status", "no argument", n - 1);
        }
        c->command = ADMIN_STATUS;
    } else if (strcmp(w[0], "tenant") == 0) {
        if (n < 2) {
            return bad_count("tenant", "'add NAME CREDENTIAL' or 'remove TENANT'", 0);
        }
        if (strcmp(w[1], "add") != 0 && strcmp(w[1], "remove") != 0) {
            return bad("tenant", w[1], "want 'tenant add NAME CREDENTIAL' or 'tenant remove TENANT'");
        }
        if (strcmp(w[1], "add") == 0) {
            if (n != 4) {
                return bad_count("tenant add", "NAME CREDENTIAL", n - 2);
            }
            c->command = ADMIN_TENANT_ADD;
            c->name = w[2];
            if (strlen(w[2]) > 255) {
                return bad("NAME", w[2], "at most 255 bytes");
            }
            return set_credential(c, w[3], quota);
        }
        if (n != 3) {
            return bad_count("tenant remove", "TENANT", n - 2);
        }
        c->command = ADMIN_TENANT_REMOVE;
        rc = parse_tenant(w[2], &c->tenant_id);
    } else if (strcmp(w[0], "metrics") == 0) {
        if (n < 2) {
            return bad_count("metrics", "'summary|labels|services TENANT'", 0);
        }
        if (strcmp(w[1], "summary") == 0) {
            c->family = R_METRICS_TENANT_SUMMARY;
        } else if (strcmp(w[1], "labels") == 0) {
            c->family = R_METRICS_TENANT_LABEL_COUNTERS;
        } else if (strcmp(w[1], "services") == 0) {
            c->family = R_METRICS_TENANT_SERVICE_LATENCY_COUNTERS;
        } else {
            return bad("metrics", w[1], "want summary, labels or services");
        }
        if (n != 3) {
            char command[32];
            snprintf(command, sizeof command, "metrics %s", w[1]);
            return bad_count(command, "TENANT", n - 2);
        }
        c->command = ADMIN_METRICS;
        rc = parse_tenant(w[2], &c->tenant_id);
    } else {
        return bad("command", w[0], "want 'tenant add NAME CREDENTIAL', 'tenant remove TENANT', 'status' or "
                                    "'metrics summary|labels|services TENANT'");
    }
    if (rc != 0) {
        return rc;
    }
    if (quota != NULL) {
        return bad("--quota", quota, "only with tenant add");
    }
    return 0;
}

int rl_cmd_admin(int argc, char **argv) {
    admin_cfg_t c;
    memset(&c, 0, sizeof c);
    c.timeout_ms = 1000;
    c.resend_ms = 250;
    c.dedup_ttl_ms = 1000;
    const char *quota = NULL;
    char *words[8];
    size_t n_words = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_admin(stdout);
            return ADMIN_EXIT_OK;
        }
        if (strcmp(a, "--json") == 0) {
            c.json = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            if (n_words == sizeof words / sizeof words[0]) {
                return bad("argument", a, "too many arguments");
            }
            words[n_words++] = argv[i];
            continue;
        }
        static const char *const with_value[] = {"--server", "--secret", "--timeout", "--resend", "--dedup-ttl",
                                                 "--quota"};
        bool known = false;
        for (size_t k = 0; k < sizeof with_value / sizeof with_value[0]; k++) {
            known = known || strcmp(a, with_value[k]) == 0;
        }
        if (!known) {
            fprintf(stderr, "rl-testbed: unknown option '%s'\n", a);
            fputs("Run 'rl-testbed admin --help' for the options.\n", stderr);
            return ADMIN_EXIT_USAGE;
        }
        if (i + 1 >= argc) {
            return bad("option", a, "needs a value");
        }
        const char *v = argv[++i];
        int rc = 0;
        if (strcmp(a, "--server") == 0) {
            c.server_text = v;
        } else if (strcmp(a, "--secret") == 0) {
            c.secret = v;
        } else if (strcmp(a, "--timeout") == 0) {
            rc = parse_ms(a, v, 1, &c.timeout_ms);
        } else if (strcmp(a, "--resend") == 0) {
            rc = parse_ms(a, v, 1, &c.resend_ms);
        } else if (strcmp(a, "--dedup-ttl") == 0) {
            rc = parse_ms(a, v, 1, &c.dedup_ttl_ms);
        } else {
            quota = v;
        }
        if (rc != 0) {
            return rc;
        }
    }
    int rc = parse_words(&c, words, n_words, quota);
    if (rc != 0) {
        return rc;
    }
    const char *server_from = "--server";
    if (c.server_text == NULL) {
        c.server_text = getenv("RATELIMITLY_ADMIN_SERVER");
        server_from = "RATELIMITLY_ADMIN_SERVER";
    }
    if (c.server_text == NULL) {
        fputs("rl-testbed admin: no server: give --server HOST:PORT or set RATELIMITLY_ADMIN_SERVER\n", stderr);
        return ADMIN_EXIT_USAGE;
    }
    if (parse_server(c.server_text, &c.server) != 0) {
        return bad(server_from, c.server_text, "want IPv4:PORT or [IPv6]:PORT (numeric, port 1..65535)");
    }
    const char *secret_from = "--secret";
    if (c.secret == NULL) {
        c.secret = getenv("RATELIMITLY_ADMIN_SECRET");
        secret_from = "RATELIMITLY_ADMIN_SECRET";
    }
    if (c.secret == NULL) {
        fputs("rl-testbed admin: no admin key: give --secret RL_SECRET or set RATELIMITLY_ADMIN_SECRET\n", stderr);
        return ADMIN_EXIT_USAGE;
    }
    r_admin_key_t *key = NULL;
    r_key_diag_t kd;
    memset(&kd, 0, sizeof kd);
    if (r_admin_key_create(c.secret, 0, &key, &kd) != RCLIENT_OK) {
        fprintf(stderr,
                "rl-testbed admin: %s: not a valid rl-secret credential: %s (give the rl-secret1... key the server "
                "was started with, e.g. serve --admin-secret)\n",
                secret_from, kd.message); /* never echo a key */
        return ADMIN_EXIT_USAGE;
    }
    r_admin_key_destroy(key);
    admin_result_t r;
    char err[256] = "";
    rc = admin_run(&c, &r, err);
    OPENSSL_cleanse(c.credential, sizeof c.credential);
    if (rc != ADMIN_EXIT_OK) {
        fprintf(stderr, "rl-testbed admin: %s\n", err);
        admin_result_free(&r);
        return rc;
    }
    rc = admin_print(stdout, &c, &r);
    admin_result_free(&r);
    return rc;
}
