/* SPDX-License-Identifier: MIT */
/* serve_cmd.c - `rl-testbed serve`: parses the command line into a
 * serve_conf_t and runs the serve engine (serve/serve.h). Options are
 * documented in tools/rl-testbed/README.md "serve" and docs/serve.md. */
#include <stdio.h>
#include <string.h>

#include "serve.h"
#include "serve_cmd.h"

#define EXIT_USAGE 2

static void usage(FILE *f) {
    fputs("usage: rl-testbed serve --tenant CREDENTIAL [--tenant ...] [--server SPEC ...]\n"
          "                        [--config FILE] [--listen ADDR ...] [--log FILE]\n"
          "                        [--log-max-bytes N]\n"
          "                        [--zone FILE] [--dnsmasq FILE] [--dns-name NAME]\n"
          "                        [--rate-cap N] [--memory-cap MIB] [--max-pending N]\n"
          "                        [--admin-secret RL_SECRET] [--memory-budget MIB]\n"
          "                        [--seed N] [--duration S]\n"
          "\n"
          "Runs reference r-servers (the simulator's server model) on real UDP sockets\n"
          "until SIGINT/SIGTERM (then prints counts per verdict and exits 0). SIGHUP\n"
          "restarts every server: new server_id, state lost (it does not reopen --log).\n"
          "\n"
          "  --tenant CRED     a tenant every server knows (rl-none1..., rl-cookie1..., rl-aes1...)\n"
          "  --server SPEC     one server: key=value,... with keys port, id, start, listener,\n"
          "                    node (default: process id mod 32768), drop, drop_reply,\n"
          "                    inject, delay (MS|fixed:MS|uniform:A:B|exp:MEAN[:MAX]), deny,\n"
          "                    restart_at (s), restart_after (requests), down_at (s),\n"
          "                    down_after (requests),\n"
          "                    steer (keep|change|random:P), freshness (ms), skew (ms),\n"
          "                    dedup_capacity, dedup_ttl_cap (ms). Default: one server, port 0\n"
          "  --config FILE     JSON config (same keys; see tools/rl-testbed/README.md)\n"
          "  --listen ADDR     numeric address to bind (repeatable; default 127.0.0.1 and ::1)\n"
          "  --log FILE        one JSON line per datagram received and sent ('-' = stdout)\n"
          "  --log-max-bytes N rotate the log file at N bytes: FILE becomes FILE.1 (default\n"
          "                    1073741824; 0 = no limit)\n"
          "  --zone FILE       write SRV/A/AAAA records as an RFC 1035 zone file\n"
          "  --dnsmasq FILE    write them as dnsmasq srv-host=/host-record= lines\n"
          "  --dns-name NAME   tenant DNS name of the records (default c-<key_id>.p0.ratelimitly.com\n"
          "                    of the first tenant)\n"
          "  --rate-cap N      datagrams handled per second, whole process (default 100000)\n"
          "  --memory-cap MIB  bound for dedup caches and the delayed-reply queue (default 256)\n"
          "  --max-pending N   delayed replies queued at once (default 4096)\n"
          "  --admin-secret K  the administrative key (rl-secret1...): every server answers\n"
          "                    Tenant Mutation, Status Query and Metrics Query (rl-testbed admin);\n"
          "                    with it, --tenant is optional\n"
          "  --memory-budget MIB  per-server memory budget that admits tenant quotas (default 1024)\n"
          "  --seed N          seed of the scripted drops, delays and injections (default: random)\n"
          "  --duration S      stop after S seconds\n"
          "  --help            print this help\n"
          "\n"
          "Exit status: 0 after a clean stop, 1 on a runtime failure, 2 on a usage error.\n",
          f);
}

static int usage_error(const char *msg) {
    fprintf(stderr, "rl-testbed serve: %s\n", msg);
    fputs("Run 'rl-testbed serve --help' for the options.\n", stderr);
    return EXIT_USAGE;
}

/* Options taking a value; "server" and "config" are handled here, the rest by serve_conf_set. */
static const char *const value_options[] = {"tenant", "server", "config", "listen", "log", "log-max-bytes", "zone", "dnsmasq",
                                            "dns-name", "rate-cap", "memory-cap", "max-pending", "seed",
                                            "duration", "admin-secret", "memory-budget"};

static bool takes_value(const char *name) {
    for (size_t i = 0; i < sizeof value_options / sizeof value_options[0]; i++) {
        if (strcmp(name, value_options[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* Split argv[*i] into an option name and value ("--x v" or "--x=v").
 * Returns 0, 1 for --help, or EXIT_USAGE after printing the error. */
static int next_option(int argc, char **argv, int *i, char *name, size_t cap, const char **value) {
    const char *a = argv[*i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
        return 1;
    }
    char msg[SERVE_ERR_LEN + 64];
    if (strncmp(a, "--", 2) != 0) {
        snprintf(msg, sizeof msg, "unexpected argument '%s'", a);
        return usage_error(msg);
    }
    const char *eq = strchr(a + 2, '=');
    size_t n = eq != NULL ? (size_t)(eq - (a + 2)) : strlen(a + 2);
    if (n >= cap) {
        n = cap - 1;
    }
    memcpy(name, a + 2, n);
    name[n] = '\0';
    if (!takes_value(name)) {
        fprintf(stderr, "rl-testbed: unknown option '%s'\n", a);
        fputs("Run 'rl-testbed serve --help' for the options.\n", stderr);
        return EXIT_USAGE;
    }
    if (eq != NULL) {
        *value = eq + 1;
    } else if (*i + 1 < argc) {
        *value = argv[++*i];
    } else {
        snprintf(msg, sizeof msg, "missing value after '%s'", a);
        return usage_error(msg);
    }
    return 0;
}

static int apply(serve_conf_t *c, const char *name, const char *value, bool config_pass) {
    char err[SERVE_ERR_LEN];
    char msg[SERVE_ERR_LEN * 2];
    int rc = 0;
    if (strcmp(name, "config") == 0) {
        if (config_pass && serve_conf_load_json(c, value, err) != 0) {
            snprintf(msg, sizeof msg, "--config: %s", err);
            return usage_error(msg);
        }
        return 0;
    }
    if (config_pass) {
        return 0;
    }
    if (strcmp(name, "server") == 0) {
        rc = serve_conf_add_server_spec(c, value, err);
        if (rc != 0) {
            snprintf(msg, sizeof msg, "--server '%s': %s", value, err);
            return usage_error(msg);
        }
        return 0;
    }
    if (serve_conf_set(c, name, value, err) != 0) {
        return usage_error(err);
    }
    return 0;
}

int rl_cmd_serve(int argc, char **argv) {
    serve_conf_t c;
    serve_conf_init(&c);
    int rc = 0;
    /* Two passes: the config file first, then the command line on top of it
     * (lists append, single values replace). */
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        for (int i = 1; i < argc && rc == 0; i++) {
            char name[32];
            const char *value = NULL;
            rc = next_option(argc, argv, &i, name, sizeof name, &value);
            if (rc == 1) {
                usage(stdout);
                serve_conf_free(&c);
                return 0;
            }
            rc = rc == 0 ? apply(&c, name, value, pass == 0) : rc;
        }
    }
    char err[SERVE_ERR_LEN];
    if (rc == 0 && serve_conf_finish(&c, err) != 0) {
        rc = usage_error(err);
    }
    if (rc == 0 && serve_run(&c, stdout, err) != 0) {
        fprintf(stderr, "rl-testbed serve: %s\n", err);
        rc = 1;
    }
    serve_conf_free(&c);
    return rc;
}
