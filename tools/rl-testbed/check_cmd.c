/* SPDX-License-Identifier: MIT */
/* check_cmd.c - the `rl-testbed check` front end: parses the command line
 * and calls the engines (check_run.c, check_load.c). Every bad argument is
 * named in the message. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void usage_check(FILE *f) {
    fputs("usage: rl-testbed check [--key KEY] (--server ID@HOST:PORT... | [--dns NAME] [--dns-server HOST:PORT])\n"
          "                        [--bucket NAME:WINDOW_MS:LIMIT[:TOKENS]]... [--guard NAME:THRESHOLD_MS[:TTL_MS:"
          "MAX_SAMPLES:BUFFER:MIN_SAMPLES]]...\n"
          "                        [--label LABEL] [--report MS] [--no-sendmmsg] [--quiet]\n"
          "                        [(--load N | --duration S) (--rate R [--max-inflight N] | --concurrency K)\n"
          "                         [--warmup N] [--json] [--compare-server ID@HOST:PORT... [--rounds N]]]\n"
          "\n"
          "A client on the public runtime (r_client_runtime.h): one rate-limit decision over real UDP, or a load.\n"
          "\n"
          "  --key KEY              API key (rl-none/rl-cookie/rl-aes); default: $RATELIMITLY_AUTH_KEY\n"
          "  --server ID@HOST:PORT  a static server (repeatable): its server_id (decimal, for oldest-first),\n"
          "                         an IPv4 address or [IPv6] address, and a UDP port\n"
          "  --dns NAME             tenant DNS name: SRV _ratelimitly._udp.NAME, then A/AAAA of the targets;\n"
          "                         default: $RATELIMITLY_TENANT, else c-<key_id>.p0.ratelimitly.com\n"
          "  --dns-server HOST:PORT the DNS server to ask (IPv4:PORT or [IPv6]:PORT); default: /etc/resolv.conf\n"
          "  --bucket N:W:L[:T]     consume T tokens (default 1) of bucket N, L tokens per W ms (repeatable)\n"
          "  --guard N:TH[:TTL:MAX:BUF:MIN]  latency guard on tracker N, denied at >= TH ms; tracker settings\n"
          "                         default to 10000 ms, 100 samples, buffer 32, 5 samples minimum (repeatable)\n"
          "  --label LABEL          metrics label\n"
          "  --report MS            after an allowed decision, report MS ms to every guard's tracker\n"
          "  --load N               send N requests instead of one; prints requests/s, latency quantiles\n"
          "                         (p50/p90/p99/p99.9/max, from the intended and from the actual send)\n"
          "                         and syscalls per request\n"
          "  --duration S           instead of --load: submit for S seconds (after the warm-up)\n"
          "  --rate R               open loop: request i is due at i/R s and timed from then; 0 = closed loop, 1\n"
          "  --max-inflight N       open loop: at most N in flight (default 4096); due requests wait, counted\n"
          "  --concurrency K        closed loop: K requests in flight, the next when one completes\n"
          "  --warmup N             N requests first, not counted (default 0)\n"
          "  --json                 with --load or --duration: the summary as one JSON object\n"
          "  --compare-server ID@HOST:PORT  with --load or --duration: configuration B, the same load against\n"
          "                         this server set (repeatable) instead of --server's; both run in alternating\n"
          "                         rounds (A B, B A, ...), N or S per configuration split evenly, each round\n"
          "                         with its own runtime and warm-up; prints both and the paired B - A\n"
          "  --rounds N             with --compare-server: rounds of each configuration (default 10)\n"
          "  --no-sendmmsg          one sendto per datagram instead of one sendmmsg per fan-out\n"
          "  --quiet                with --load: the summary only\n"
          "  --help                 print this help\n"
          "\n"
          "The scheduler follows $RATELIMITLY_REQUEST_UNIT_MS and $RATELIMITLY_REQUEST_REPLAY_COUNT.\n"
          "Exit status: 0 allowed (--load: every request decided), 1 denied, 2 usage error,\n"
          "3 no decision (timeout, I/O error, no server known; --load: some request undecided).\n",
          f);
}

static int bad(const char *opt, const char *value, const char *want) {
    fprintf(stderr, "rl-testbed check: %s '%s': %s\n", opt, value, want);
    return CHECK_EXIT_USAGE;
}

/* Decimal digits only, value in [min, max]. */
static int parse_u64(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out) {
    if (len == 0 || len > 20) {
        return -1;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10u) {
            return -1;
        }
        v = v * 10u + d;
    }
    if (v < min || v > max) {
        return -1;
    }
    *out = v;
    return 0;
}

/* A plain decimal (digits, one optional '.', an optional e/E exponent): no
 * sign, space, hex, inf or nan, which strtod alone would take. */
static int parse_decimal(const char *s, double *out) {
    size_t digits = strspn(s, "0123456789");
    const char *p = s + digits;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (digits == 0) {
        return -1;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t exp = strspn(p, "0123456789");
        if (exp == 0) {
            return -1;
        }
        p += exp;
    }
    if (*p != '\0') {
        return -1;
    }
    char *end = NULL;
    *out = strtod(s, &end);
    return end == p ? 0 : -1;
}

/* Split s at ':' into at most max fields (pointer + length). Returns the count. */
static size_t split(const char *s, const char **f, size_t *len, size_t max) {
    size_t n = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == ':' || *p == '\0') {
            if (n == max) {
                return max + 1;
            }
            f[n] = start;
            len[n] = (size_t)(p - start);
            n++;
            if (*p == '\0') {
                return n;
            }
            start = p + 1;
        }
    }
}

static int field_u32(const char *f, size_t len, uint32_t min, uint32_t max, uint32_t *out) {
    uint64_t v = 0;
    if (parse_u64(f, len, min, max, &v) != 0) {
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int copy_name(const char *f, size_t len, char *out) {
    if (len == 0 || len >= CHECK_NAME_MAX) {
        return -1;
    }
    memcpy(out, f, len);
    out[len] = '\0';
    return 0;
}

static int parse_bucket(const char *s, check_cfg_t *cfg) {
    const char *f[4];
    size_t l[4];
    size_t n = split(s, f, l, 4);
    if (cfg->n_buckets == CHECK_MAX_BUCKETS) {
        return bad("--bucket", s, "at most 39 buckets fit one datagram");
    }
    check_bucket_t *b = &cfg->buckets[cfg->n_buckets];
    uint32_t tokens = 1;
    if (n < 3 || n > 4) {
        return bad("--bucket", s, "want NAME:WINDOW_MS:LIMIT[:TOKENS]");
    }
    if (copy_name(f[0], l[0], b->name) != 0) {
        return bad("--bucket", s, "NAME must be 1..127 bytes");
    }
    if (field_u32(f[1], l[1], 1, UINT32_MAX, &b->window_ms) != 0) {
        return bad("--bucket", s, "WINDOW_MS must be a decimal integer 1..4294967295");
    }
    if (field_u32(f[2], l[2], 0, UINT32_MAX, &b->limit) != 0) {
        return bad("--bucket", s, "LIMIT must be a decimal integer 0..4294967295");
    }
    if (n == 4 && field_u32(f[3], l[3], 1, UINT16_MAX, &tokens) != 0) {
        return bad("--bucket", s, "TOKENS must be a decimal integer 1..65535");
    }
    b->tokens = (uint16_t)tokens;
    cfg->n_buckets++;
    return 0;
}

static int parse_guard(const char *s, check_cfg_t *cfg) {
    const char *f[6];
    size_t l[6];
    size_t n = split(s, f, l, 6);
    if (cfg->n_guards == CHECK_MAX_GUARDS) {
        return bad("--guard", s, "at most 27 guards fit one datagram");
    }
    check_guard_t *g = &cfg->guards[cfg->n_guards];
    *g = (check_guard_t){.ttl_ms = 10000, .max_samples = 100, .buffer_size = 32, .min_samples = 5};
    if (n != 2 && n != 6) {
        return bad("--guard", s, "want NAME:THRESHOLD_MS or NAME:THRESHOLD_MS:TTL_MS:MAX_SAMPLES:BUFFER:MIN_SAMPLES");
    }
    if (copy_name(f[0], l[0], g->name) != 0) {
        return bad("--guard", s, "NAME must be 1..127 bytes");
    }
    if (field_u32(f[1], l[1], 0, UINT32_MAX, &g->threshold_ms) != 0) {
        return bad("--guard", s, "THRESHOLD_MS must be a decimal integer");
    }
    if (n == 6 && (field_u32(f[2], l[2], 0, UINT32_MAX, &g->ttl_ms) != 0 ||
                   field_u32(f[3], l[3], 0, UINT32_MAX, &g->max_samples) != 0 ||
                   field_u32(f[4], l[4], 0, UINT32_MAX, &g->buffer_size) != 0 ||
                   field_u32(f[5], l[5], 0, UINT32_MAX, &g->min_samples) != 0)) {
        return bad("--guard", s, "TTL_MS, MAX_SAMPLES, BUFFER and MIN_SAMPLES must be decimal integers");
    }
    cfg->n_guards++;
    return 0;
}

/* HOST:PORT with HOST an IPv4 literal or [IPv6], port 1..65535. 0 or -1. */
static int parse_host_port(const char *s, r_addr_t *out) {
    const char *colon = strrchr(s, ':');
    uint64_t port = 0;
    if (colon == NULL || parse_u64(colon + 1, strlen(colon + 1), 1, 65535, &port) != 0) {
        return -1;
    }
    const char *hs = s, *he = colon;
    bool v6 = *hs == '[';
    if (v6) {
        if (he - hs < 2 || he[-1] != ']') {
            return -1;
        }
        hs++;
        he--;
    }
    char host[64];
    size_t hl = (size_t)(he - hs);
    if (hl == 0 || hl >= sizeof host) {
        return -1;
    }
    memcpy(host, hs, hl);
    host[hl] = '\0';
    memset(out, 0, sizeof *out);
    out->family = v6 ? R_ADDR_INET6 : R_ADDR_INET;
    out->port = (uint16_t)port;
    return inet_pton(v6 ? AF_INET6 : AF_INET, host, out->addr) == 1 ? 0 : -1;
}

/* ID@HOST:PORT. */
static int parse_server(const char *opt, const char *s, r_server_endpoint_t *list, size_t *n) {
    static const char *want = "want ID@HOST:PORT: decimal server_id, IPv4 address or [IPv6], port 1..65535";
    if (*n == CHECK_MAX_SERVERS) {
        return bad(opt, s, "at most 64 servers");
    }
    r_server_endpoint_t *ep = &list[*n];
    memset(ep, 0, sizeof *ep);
    const char *at = strchr(s, '@');
    if (at == NULL || parse_u64(s, (size_t)(at - s), 1, UINT64_MAX, &ep->server_id) != 0 ||
        parse_host_port(at + 1, &ep->addr) != 0) {
        return bad(opt, s, want);
    }
    for (size_t i = 0; i < *n; i++) {
        if (list[i].server_id == ep->server_id) {
            return bad(opt, s, "server_id given twice");
        }
    }
    (*n)++;
    return 0;
}

/* The value after option argv[*i], or NULL (message printed). */
static const char *value(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "rl-testbed check: %s: missing value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int parse_option(int argc, char **argv, int *i, check_cfg_t *cfg) {
    const char *a = argv[*i];
    const char *v = NULL;
    uint64_t n = 0;
    if (strcmp(a, "--no-sendmmsg") == 0) {
        cfg->single_send = true;
        return 0;
    }
    if (strcmp(a, "--quiet") == 0) {
        cfg->quiet = true;
        return 0;
    }
    if (strcmp(a, "--json") == 0) {
        cfg->json = true;
        return 0;
    }
    static const char *valued[] = {"--key", "--server", "--dns", "--dns-server", "--bucket", "--guard",
                                   "--label", "--report", "--load", "--rate",
                                   "--duration", "--concurrency", "--warmup", "--max-inflight",
                                   "--compare-server", "--rounds"};
    size_t k = 0;
    while (k < sizeof valued / sizeof valued[0] && strcmp(a, valued[k]) != 0) {
        k++;
    }
    if (k == sizeof valued / sizeof valued[0]) {
        fprintf(stderr, "rl-testbed: unknown option '%s' (rl-testbed check --help)\n", a);
        return CHECK_EXIT_USAGE;
    }
    if ((v = value(argc, argv, i)) == NULL) {
        return CHECK_EXIT_USAGE;
    }
    switch (k) {
    case 0: cfg->key = v; return 0;
    case 1: return parse_server("--server", v, cfg->servers, &cfg->n_servers);
    case 2: cfg->dns_name = v; return 0;
    case 3: {
        r_addr_t dns_addr;
        if (parse_host_port(v, &dns_addr) != 0) {
            return bad("--dns-server", v, "want IPv4:PORT or [IPv6]:PORT, e.g. 127.0.0.1:5353");
        }
        cfg->dns_server = v;
        return 0;
    }
    case 4: return parse_bucket(v, cfg);
    case 5: return parse_guard(v, cfg);
    case 6: cfg->label = v; return 0;
    case 7:
        if (parse_u64(v, strlen(v), 0, UINT32_MAX, &n) != 0) {
            return bad("--report", v, "want a latency in ms, a decimal integer");
        }
        cfg->report = true;
        cfg->report_ms = (uint32_t)n;
        return 0;
    case 8:
        if (parse_u64(v, strlen(v), 1, 100000000u, &n) != 0) {
            return bad("--load", v, "want a request count 1..100000000");
        }
        cfg->load = true;
        cfg->load_n = n;
        return 0;
    case 9: {
        /* At least 0.001/s: request i is due i/R s after the start, which must fit the clock in us. */
        if (parse_decimal(v, &cfg->rate) != 0 || !(cfg->rate == 0.0 || (cfg->rate >= 0.001 && cfg->rate <= 1e7))) {
            return bad("--rate", v, "want requests per second, a decimal 0.001..10000000, or 0 (one at a time)");
        }
        cfg->rate_given = true;
        return 0;
    }
    case 10: {
        double s = 0.0;
        if (parse_decimal(v, &s) != 0 || !(s >= 0.001 && s <= 86400.0)) {
            return bad("--duration", v, "want seconds, 0.001..86400");
        }
        cfg->load = true;
        cfg->duration_us = (uint64_t)(s * 1e6);
        return 0;
    }
    case 11:
        if (parse_u64(v, strlen(v), 1, 65536u, &n) != 0) {
            return bad("--concurrency", v, "want requests in flight, 1..65536");
        }
        cfg->concurrency = (uint32_t)n;
        return 0;
    case 12:
        if (parse_u64(v, strlen(v), 0, 100000000u, &n) != 0) {
            return bad("--warmup", v, "want a request count 0..100000000");
        }
        cfg->warmup = n;
        return 0;
    case 13:
        if (parse_u64(v, strlen(v), 1, 65536u, &n) != 0) {
            return bad("--max-inflight", v, "want requests in flight, 1..65536");
        }
        cfg->max_inflight = (uint32_t)n;
        return 0;
    case 14: return parse_server("--compare-server", v, cfg->compare_servers, &cfg->n_compare_servers);
    default:
        if (parse_u64(v, strlen(v), 2, 1000u, &n) != 0) {
            return bad("--rounds", v, "want rounds of each configuration, 2..1000");
        }
        cfg->rounds = (uint32_t)n;
        return 0;
    }
}

int check_parse(int argc, char **argv, check_cfg_t *cfg) {
    memset(cfg, 0, sizeof *cfg);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage_check(stdout);
            return 1;
        }
        int rc = parse_option(argc, argv, &i, cfg);
        if (rc != 0) {
            return rc;
        }
    }
    if (cfg->n_servers > 0 && (cfg->dns_name != NULL || cfg->dns_server != NULL)) {
        fputs("rl-testbed check: --server excludes --dns and --dns-server\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->n_buckets == 0 && cfg->n_guards == 0) {
        fputs("rl-testbed check: give at least one --bucket or --guard (an empty request decides nothing)\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->report && cfg->n_guards == 0) {
        fputs("rl-testbed check: --report needs a --guard: its tracker receives the report\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->load_n > 0 && cfg->duration_us > 0) {
        fputs("rl-testbed check: --load N and --duration S exclude each other\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->load != (cfg->rate_given || cfg->concurrency > 0)) {
        fputs("rl-testbed check: --load or --duration go with --rate R or --concurrency K\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->rate_given && cfg->concurrency > 0) {
        fputs("rl-testbed check: --rate (open loop) and --concurrency (closed loop) exclude each other\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (!cfg->load && (cfg->warmup > 0 || cfg->json || cfg->max_inflight > 0)) {
        fputs("rl-testbed check: --warmup, --json and --max-inflight are for --load or --duration\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->max_inflight > 0 && !(cfg->rate > 0)) {
        fputs("rl-testbed check: --max-inflight caps the open loop (--rate R > 0); closed: --concurrency K\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->rate > 0 && cfg->max_inflight == 0) {
        cfg->max_inflight = 4096u;
    }
    if (cfg->n_compare_servers > 0 && (!cfg->load || cfg->n_servers == 0)) {
        fputs("rl-testbed check: --compare-server compares two --server sets under --load or --duration\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->rounds > 0 && cfg->n_compare_servers == 0) {
        fputs("rl-testbed check: --rounds is for --compare-server\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->n_compare_servers > 0 && cfg->rounds == 0) {
        cfg->rounds = 10;
    }
    if (cfg->load_n > 0 && cfg->rounds > 0 && cfg->load_n < cfg->rounds) {
        fputs("rl-testbed check: --load N with --compare-server: N (per configuration) at least --rounds\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    if (cfg->load && cfg->report) {
        fputs("rl-testbed check: --report is for one decision, not with --load\n", stderr);
        return CHECK_EXIT_USAGE;
    }
    return 0;
}

int rl_cmd_check(int argc, char **argv) {
    check_cfg_t *cfg = malloc(sizeof *cfg);
    if (cfg == NULL) {
        fputs("rl-testbed check: out of memory\n", stderr);
        return CHECK_EXIT_FAILED;
    }
    int rc = check_parse(argc, argv, cfg);
    if (rc == 0) {
        rc = cfg->load ? check_run_load(cfg) : check_run_once(cfg);
    } else if (rc == 1) {
        rc = 0;
    }
    free(cfg);
    return rc;
}
