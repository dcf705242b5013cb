/* SPDX-License-Identifier: MIT */
/* key_cmd.c - `rl-testbed key`: make rl-none, rl-cookie, rl-aes and rl-secret credentials
 * with chosen key_id and quotas (wire_protocol.md "Bech32 Credential Formats", "API-key quota
 * word, format version 1"), and inspect one field by field, naming the exact rule a bad one
 * breaks (the core's credential diagnostics: the vector schema's error classes). The secret
 * material comes from OpenSSL's RAND_bytes unless --secret-hex gives it; inspect never prints
 * secret bytes. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "admin_cmd.h"
#include "key_cmd.h"
#include "r_client.h"
#include "rl_bech32.h"
#include "rl_credential.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
    fputs("usage: rl-testbed key make rl-none|rl-cookie|rl-aes|rl-secret [--key-id N] [--secret-hex HEX]\n"
          "                            [--quota WORD|FIELD=N,...]\n"
          "       rl-testbed key inspect KEY|-\n"
          "\n"
          "make prints one credential (wire_protocol.md \"Bech32 Credential Formats\"), format\n"
          "version 1. The key_id (API keys) and the 32-byte secret (rl-cookie, rl-aes, rl-secret)\n"
          "are random (OpenSSL RAND_bytes) unless given. Quotas, each a FIELD=N of:\n"
          "  rate_buckets, latency_services, metrics_labels, latency_buffer (powers of two),\n"
          "  dedup_ttl_ms (10..2000 in steps of 10), rate_window_ms (a power of two or 4294967295);\n"
          "  default rate_buckets=1024,latency_services=1024,metrics_labels=1024,latency_buffer=1024,\n"
          "  dedup_ttl_ms=2000,rate_window_ms=4294967295; or one quota word (decimal).\n"
          "\n"
          "inspect prints the key field by field (type, format version, key_id, quota word and\n"
          "each quota, the default tenant DNS name; the secret's length, never its bytes), or the\n"
          "rule it breaks and exits 1. With -, the key is the first line of stdin (a command line\n"
          "is visible to other users of the host; so is --secret-hex's).\n"
          "\n"
          "  --key-id N        the key_id (0..18446744073709551615)\n"
          "  --secret-hex HEX  the secret, 64 hex digits (rl-cookie, rl-aes, rl-secret)\n"
          "  --quota Q         quotas (above)\n"
          "  --help            print this help\n",
          f);
}

static int usage_error(const char *what, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "rl-testbed: %s '%s'\n", what, arg);
    else
        fprintf(stderr, "rl-testbed: %s\n", what);
    usage(stderr);
    return EXIT_USAGE;
}

static int parse_hex32(const char *s, uint8_t out[R_CLIENT_SECRET_LEN])
{
    if (strlen(s) != 2 * R_CLIENT_SECRET_LEN)
        return -1;
    for (size_t i = 0; i < R_CLIENT_SECRET_LEN; i++) {
        unsigned v;
        char two[3] = {s[2 * i], s[2 * i + 1], '\0'};
        if (strspn(two, "0123456789abcdefABCDEF") != 2 || sscanf(two, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

static int cmd_make(int argc, char **argv)
{
    if (argc < 3)
        return usage_error("key make: give the type", "rl-none|rl-cookie|rl-aes|rl-secret");
    const char *type = argv[2];
    const char *key_id_s = NULL, *secret_s = NULL, *quota = NULL;
    for (int i = 3; i < argc; i++) {
        const char **dst = strcmp(argv[i], "--key-id") == 0       ? &key_id_s
                           : strcmp(argv[i], "--secret-hex") == 0 ? &secret_s
                           : strcmp(argv[i], "--quota") == 0      ? &quota
                                                                  : NULL;
        if (dst == NULL)
            return usage_error(argv[i][0] == '-' ? "unknown option" : "unexpected argument", argv[i]);
        if (i + 1 >= argc)
            return usage_error("missing value after", argv[i]);
        *dst = argv[++i];
    }
    r_auth_key_info_t info;
    memset(&info, 0, sizeof info);
    bool secret_key = strcmp(type, "rl-secret") == 0;
    info.type = strcmp(type, "rl-none") == 0     ? R_AUTH_NONE
                : strcmp(type, "rl-cookie") == 0 ? R_AUTH_COOKIE
                : strcmp(type, "rl-aes") == 0    ? R_AUTH_AES
                                                 : R_AUTH_UNSPECIFIED;
    if (info.type == R_AUTH_UNSPECIFIED && !secret_key)
        return usage_error("key make: unknown type (rl-none, rl-cookie, rl-aes or rl-secret)", type);
    if (secret_key && (key_id_s != NULL || quota != NULL))
        return usage_error("key make rl-secret: an rl-secret has no key_id and no quotas", NULL);
    if (info.type == R_AUTH_NONE && secret_s != NULL)
        return usage_error("key make rl-none: an rl-none key has no secret", NULL);
    int rc = EXIT_USAGE;
    char text[256];
    if (key_id_s != NULL) {
        char *end = NULL;
        if (key_id_s[0] < '0' || key_id_s[0] > '9')
            return usage_error("--key-id: not a decimal number", key_id_s);
        unsigned long long v = strtoull(key_id_s, &end, 10);
        if (*end != '\0' || (v == ULLONG_MAX && strcmp(key_id_s, "18446744073709551615") != 0))
            return usage_error("--key-id: not a decimal number up to 18446744073709551615", key_id_s);
        info.key_id = (uint64_t)v;
    } else if (RAND_bytes((unsigned char *)&info.key_id, sizeof info.key_id) != 1) {
        fprintf(stderr, "rl-testbed: key make: RAND_bytes failed\n");
        return 1;
    }
    if (secret_s != NULL) {
        if (parse_hex32(secret_s, info.secret) != 0) {
            fprintf(stderr, "rl-testbed: --secret-hex: want 64 hex digits (32 bytes)\n");
            return EXIT_USAGE;
        }
    } else if (info.type != R_AUTH_NONE && RAND_bytes(info.secret, sizeof info.secret) != 1) {
        fprintf(stderr, "rl-testbed: key make: RAND_bytes failed\n");
        return 1;
    }
    info.has_secret = info.type != R_AUTH_NONE;
    if (secret_key) {
        int n = rl_bech32_encode("rl-secret", info.secret, R_CLIENT_SECRET_LEN, text, sizeof text);
        if (n > 0) {
            printf("%s\n", text);
            rc = 0;
        }
    } else {
        /* The defaults first; --quota FIELD=N changes those it names. */
        info.quotas = (r_api_key_quotas_t){.rate_buckets_max = 1024, .latency_services_max = 1024,
                                           .metrics_labels_max = 1024, .latency_buffer_size_max = 1024,
                                           .dedup_ttl_ms_max = 2000, .rate_window_size_ms_max = 4294967295u};
        char why[200];
        if (rl_quota_encode(&info.quotas, &info.quota_word) != RCLIENT_OK) {
            fprintf(stderr, "rl-testbed: key make: the default quotas cannot be encoded\n");
        } else if (quota != NULL && rl_apply_quota(quota, &info, why, sizeof why) != 0) {
            fprintf(stderr, "rl-testbed: --quota '%s': %s\n", quota, why);
        } else if (rl_credential_encode(&info, text, sizeof text) > 0) {
            printf("%s\n", text);
            rc = 0;
        } else {
            fprintf(stderr, "rl-testbed: key make: the credential cannot be encoded\n");
        }
    }
    OPENSSL_cleanse(&info, sizeof info);
    OPENSSL_cleanse(text, sizeof text);
    return rc;
}

static const char *reason_name(r_key_error_t r)
{
    switch (r) {
    case R_KEY_ERR_BECH32: return "bech32";
    case R_KEY_ERR_HRP: return "hrp";
    case R_KEY_ERR_LENGTH: return "length";
    case R_KEY_ERR_VERSION: return "version";
    case R_KEY_ERR_QUOTA: return "quota";
    default: return "argument";
    }
}

static int inspect_key(const char *key);

static int cmd_inspect(int argc, char **argv)
{
    if (argc != 3)
        return usage_error(argc < 3 ? "key inspect: give the KEY" : "unexpected argument", argc < 3 ? NULL : argv[3]);
    const char *key = argv[2];
    char line[512];
    if (strcmp(key, "-") == 0) {
        /* The key from stdin: a command line is visible to other users of the host. */
        if (fgets(line, sizeof line, stdin) == NULL) {
            fprintf(stderr, "rl-testbed: key inspect -: no line on stdin\n");
            return EXIT_USAGE;
        }
        line[strcspn(line, "\r\n")] = '\0';
        key = line;
        int rc = inspect_key(key);
        OPENSSL_cleanse(line, sizeof line);
        return rc;
    }
    if (key[0] == '-') /* no credential HRP starts with '-': an option, and inspect has none */
        return usage_error("unknown option", key);
    return inspect_key(key);
}

static int inspect_key(const char *key)
{
    if (strncasecmp(key, "rl-secret1", 10) == 0) { /* the HRP, in either case (Bech32) */
        uint8_t secret[R_CLIENT_SECRET_LEN];
        r_key_diag_t d;
        memset(&d, 0, sizeof d);
        int ok = rl_credential_parse_secret(key, 0, secret, &d) == RCLIENT_OK;
        OPENSSL_cleanse(secret, sizeof secret);
        if (!ok) {
            printf("key: not valid\nrule broken: %s (%s)\n", d.message, reason_name(d.reason));
            return 1;
        }
        printf("key: valid\ntype: rl-secret (administrative secret, not an API key)\nsecret: %d bytes (not shown)\n",
               R_CLIENT_SECRET_LEN);
        return 0;
    }
    r_auth_key_info_t info;
    r_key_diag_t d;
    memset(&d, 0, sizeof d);
    if (r_client_parse_auth_key_diag(key, 0, &info, &d) != RCLIENT_OK) {
        printf("key: not valid\nrule broken: %s (%s)\n", d.message, reason_name(d.reason));
        return 1;
    }
    char dns[64];
    if (r_client_format_default_tenant_dns(info.key_id, dns, sizeof dns) != RCLIENT_OK)
        dns[0] = '\0';
    const r_api_key_quotas_t *q = &info.quotas;
    printf("key: valid\n"
           "type: %s\n"
           "format_version: 1\n"
           "key_id: %" PRIu64 "\n"
           "secret: %s\n"
           "quota_word: 0x%08" PRIx32 "\n"
           "  rate_buckets_max: %" PRIu32 "\n"
           "  latency_services_max: %" PRIu32 "\n"
           "  metrics_labels_max: %" PRIu32 "\n"
           "  latency_buffer_size_max: %" PRIu32 "\n"
           "  dedup_ttl_ms_max: %" PRIu32 "\n"
           "  rate_window_size_ms_max: %" PRIu32 "\n"
           "default tenant DNS name: %s\n",
           info.type == R_AUTH_NONE ? "rl-none" : info.type == R_AUTH_COOKIE ? "rl-cookie" : "rl-aes", info.key_id,
           info.has_secret ? "32 bytes (not shown)" : "none", info.quota_word, q->rate_buckets_max,
           q->latency_services_max, q->metrics_labels_max, q->latency_buffer_size_max, q->dedup_ttl_ms_max,
           q->rate_window_size_ms_max, dns);
    OPENSSL_cleanse(&info, sizeof info);
    return 0;
}

int rl_cmd_key(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("key: give make or inspect", NULL);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
    }
    if (strcmp(argv[1], "make") == 0)
        return cmd_make(argc, argv);
    if (strcmp(argv[1], "inspect") == 0)
        return cmd_inspect(argc, argv);
    return usage_error(argv[1][0] == '-' ? "unknown option" : "key: unknown subcommand", argv[1]);
}
