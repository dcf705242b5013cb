/* SPDX-License-Identifier: MIT */
/* main.c - rl-testbed: command-line front end of the Ratelimitly toolkit.
 * Exit status: 0 success, 1 a check failed, 2 usage error. */
#define _POSIX_C_SOURCE 200809L /* strndup */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter_proc.h"
#include "admin_cmd.h"
#include "check.h"
#include "conf_runner.h"
#include "dialect.h"
#include "key_cmd.h"
#include "rl_build_info.h"
#include "sweep_report_cmd.h"
#include "vec_client.h"
#include "vec_runner.h"
#ifdef RL_WITH_SIM
#include "interop_cmd.h"
#include "serve_cmd.h"
#include "sim_cmd.h"
#include "sweep_cmd.h"
#endif

#define EXIT_USAGE 2

typedef int (*command_fn)(int argc, char **argv);

typedef struct {
    const char *name;
    command_fn run;
    const char *summary;
} command_t;

static int cmd_vectors(int argc, char **argv);
static int cmd_conformance(int argc, char **argv);
static int cmd_dialect(int argc, char **argv);

static const command_t commands[] = {
    {"vectors", cmd_vectors, "run known-answer vector files (schema ratelimitly-vectors/v1)"},
    {"conformance", cmd_conformance, "the conformance gate: every vector file, HA decision case and simulator trace"},
    {"dialect", cmd_dialect, "which published variant an adapter's client speaks, per area (conformance/ADAPTER.md)"},
    {"check", rl_cmd_check, "one rate-limit decision (or a load) over real UDP, on the public runtime"},
    {"admin", rl_cmd_admin, "the administrative channel over UDP: tenant add/remove, status, metrics"},
    {"key", rl_cmd_key, "make rl-none, rl-cookie, rl-aes and rl-secret keys; inspect one field by field"},
#ifdef RL_WITH_SIM
    {"sim", rl_cmd_sim, "run simulator traces (docs/traces.md): the client core against simulated servers"},
    {"serve", rl_cmd_serve, "reference r-servers on real UDP sockets, for testing any client (docs/serve.md)"},
    {"interop", rl_cmd_interop, "HA cases over loopback UDP against any client's driver, judged on the wire"},
    {"sweep", rl_cmd_sweep, "HA policy sweeps: configurations x traces x seeds, paired comparisons (docs/sweep.md)"},
#endif
};

static void usage(FILE *f)
{
    fputs("usage: rl-testbed <command> [options]\n"
          "       rl-testbed help [<command> [<subcommand>]]\n"
          "       rl-testbed --version\n\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fputs("\nRun 'rl-testbed <command> --help' for a command's options.\n", f);
}

#define GATE_HELP                                                                        \
    "  --json FILE     also write every result (step, norm, severity) as JSON to FILE\n"    \
    "  --quiet         print failing rows only\n"                                           \
    "  --verbose       print SKIP rows too (else one line per skip reason)\n"               \
    "  --norm spec     run the tests whose norm is a spec sentence only (not project)\n"    \
    "  --require K,... fail unless a test of each kind K ran (ha_case, sim_trace too)\n"  \
    "  --min-pass N    fail unless at least N tests passed\n"                              \
    "  --fail-on-skip  fail when a test was skipped\n"

static void usage_vectors(FILE *f)
{
    fputs("usage: rl-testbed vectors [FILE...] [--client CMD [--timeout MS]] [--junit FILE] [--json FILE]\n"
          "                           [--quiet|--verbose] [--norm spec|all] [--require KIND,...]\n"
          "                           [--min-pass N] [--fail-on-skip]\n"
          "\n"
          "Runs vector files in the ratelimitly-vectors/v1 schema against this build\n"
          "and prints a table per file, then 'vectors: N passed, N failed' last.\n"
          "With no FILE: vectors/*.json and ../shared/external/*.json of the data\n"
          "directory: the current directory when ./vectors exists, else\n"
          "$RL_TESTBED_DATA, else the installed share/rl-testbed (its external/),\n"
          "else the source tree.\n"
          "\n"
          "  --client CMD  run the tests against an adapter (sh -c CMD, protocol in\n"
          "                conformance/ADAPTER.md) instead of the built-in C runner\n"
          "  --timeout MS  longest wait for one adapter answer (default 10000);\n"
          "                hello, with the adapter's start-up, waits at least 30000\n"
          "  --junit FILE  also write JUnit XML to FILE\n"
          GATE_HELP
          "  --help        print this help\n"
          "\n"
          "Tests the adapter's client does not support are SKIP, one line per reason;\n"
          "the closing line then reads 'vectors: N passed, N failed, N skipped'.\n"
          "Exit status: 0 when every test passed and every gate is met, 1 when one\n"
          "failed, was inconclusive, no test ran or a gate is not met, 2 on a usage\n"
          "error or an adapter whose hello declares nothing or what does not exist.\n",
          f);
}

static void usage_conformance(FILE *f)
{
    fputs("usage: rl-testbed conformance [CASE_OR_DIR...] [--client CMD [--timeout MS]] [--junit FILE]\n"
          "                               [--vectors-only|--cases-only] [--json FILE] [--quiet|--verbose]\n"
          "                               [--norm spec|all] [--require KIND,...] [--min-pass N] [--fail-on-skip]\n"
          "\n"
          "The conformance gate. Runs every vector file (schema ratelimitly-vectors/v1),\n"
          "every HA decision case (schema ratelimitly-ha-case/v1, conformance/README.md)\n"
          "and every simulator trace that carries expectations, and prints a table per\n"
          "file and per case, then 'conformance: N passed, N failed' last (N counts\n"
          "vector tests, cases and traces).\n"
          "With no argument: vectors/*.json, ../shared/external/*.json and\n"
          "conformance/cases/*.json of the data directory (as for 'vectors': the\n"
          "current directory, $RL_TESTBED_DATA, the installed share/rl-testbed, or\n"
          "the source tree). A directory argument stands for its *.json files; each\n"
          "file is classified by its `schema` field. A case with \"auth\": \"any\"\n"
          "runs once per auth mode (conformance/README.md \"Auth modes\").\n"
          "\n"
          "Simulator traces (schema ratelimitly-trace/v1, docs/traces.md) are cases\n"
          "too: each runs with its own seed and passes when every expectation holds.\n"
          "With no argument the shipped sim/traces/*.json are included.\n"
          "\n"
          "  --client CMD    run vectors and HA cases against an adapter (sh -c CMD,\n"
          "                  conformance/ADAPTER.md); simulator traces are skipped\n"
          "  --timeout MS    longest wait for one adapter answer (default 10000);\n"
          "                  hello, with the adapter's start-up, waits at least 30000\n"
          "  --junit FILE    also write JUnit XML to FILE\n"
          "  --vectors-only  run vector files only\n"
          "  --cases-only    run HA cases (and simulator traces) only\n"
          GATE_HELP
          "  --help          print this help\n"
          "\n"
          "Exit status: 0 when everything passed and every gate is met, 1 when something\n"
          "failed, was inconclusive, nothing ran or a gate is not met, 2 on a usage error\n"
          "or an adapter whose hello declares nothing or what does not exist.\n",
          f);
}

/* "rl-testbed: <what> '<arg>'" and the usage, on stderr. arg may be NULL. */
static int usage_error(void (*print)(FILE *), const char *what, const char *arg)
{
    if (arg != NULL)
        fprintf(stderr, "rl-testbed: %s '%s'\n", what, arg);
    else
        fprintf(stderr, "rl-testbed: %s\n", what);
    print(stderr);
    return EXIT_USAGE;
}

/* --client CMD / --timeout MS, shared by the commands that can drive an
 * adapter. Returns 1 when argv[*i] was one of them (consumed), 0 when not,
 * -1 on a usage error (already reported). */
typedef struct {
    const char *cmd;
    int timeout_ms;
} client_opt_t;

static int client_option(int argc, char **argv, int *i, client_opt_t *co, void (*print)(FILE *))
{
    const char *a = argv[*i];
    const char *value = NULL;
    bool is_client = strcmp(a, "--client") == 0, is_timeout = strcmp(a, "--timeout") == 0;
    if (is_client || is_timeout) {
        if (*i + 1 >= argc) {
            (void)usage_error(print, "missing value after", a);
            return -1;
        }
        value = argv[++*i];
    } else if (strncmp(a, "--client=", 9) == 0) {
        is_client = true;
        value = a + 9;
    } else if (strncmp(a, "--timeout=", 10) == 0) {
        is_timeout = true;
        value = a + 10;
    } else {
        return 0;
    }
    if (is_client) {
        if (value[0] == '\0') {
            (void)usage_error(print, "empty --client command", NULL);
            return -1;
        }
        co->cmd = value;
        return 1;
    }
    char *end = NULL;
    long ms = strtol(value, &end, 10);
    if (end == value || *end != '\0' || ms < 1 || ms > 3600000) {
        (void)usage_error(print, "--timeout wants milliseconds 1..3600000, got", value);
        return -1;
    }
    co->timeout_ms = (int)ms;
    return 1;
}

/* Start the adapter of --client. Returns 0 when it is up, 1 (message on
 * stderr) when it does not come up, 2 when its hello declares nothing to run
 * or an unknown kind (a usage error of the adapter: nothing would be tested). */
static int start_client(const client_opt_t *co, rl_adapter_t *a)
{
    char err[VEC_MSG_MAX];
    if (!rl_adapter_start(a, co->cmd, co->timeout_ms, err, sizeof err)) {
        fprintf(stderr, "rl-testbed: --client '%s': %s\n", co->cmd, err);
        return 1;
    }
    if (!rl_adapter_check_capabilities(a, err, sizeof err)) {
        fprintf(stderr, "rl-testbed: --client '%s': %s\n", co->cmd, err);
        rl_adapter_stop(a);
        return EXIT_USAGE;
    }
    fprintf(stderr, "rl-testbed: client %s %s (adapter protocol %s)\n", a->name, a->version, RL_ADAPTER_PROTOCOL);
    return 0;
}

/* The gate options (vec_gate_option); same contract as client_option. */
static int gate_option(int argc, char **argv, int *i, vec_gate_t *g, void (*print)(FILE *))
{
    char err[256];
    int used = vec_gate_option(argc, argv, i, g, err, sizeof err);
    if (used < 0)
        (void)usage_error(print, err, NULL);
    return used;
}

static int cmd_vectors(int argc, char **argv)
{
    vec_options_t opt;
    memset(&opt, 0, sizeof opt);
    vec_file_list_t files = {NULL, 0, 0};
    client_opt_t co = {NULL, RL_ADAPTER_DEFAULT_TIMEOUT_MS};
    bool only_files = false;
    int rc = 0, used = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            rc = vec_file_list_add(&files, a, false) ? 0 : 1;
        } else if ((used = client_option(argc, argv, &i, &co, usage_vectors)) != 0 ||
                   (used = gate_option(argc, argv, &i, &opt.gate, usage_vectors)) != 0) {
            rc = used < 0 ? EXIT_USAGE : 0;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_vectors(stdout);
            vec_file_list_free(&files);
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            opt.quiet = true;
        } else if (strcmp(a, "--junit") == 0) {
            if (i + 1 >= argc)
                rc = usage_error(usage_vectors, "missing FILE after", a);
            else
                opt.junit_path = argv[++i];
        } else if (strncmp(a, "--junit=", 8) == 0 && a[8] != '\0') {
            opt.junit_path = a + 8;
        } else {
            rc = usage_error(usage_vectors, "unknown option", a);
        }
    }
    if (rc == 0 && files.n == 0 && !vec_default_files(&files))
        rc = 1;
    if (rc == 1)
        fputs("rl-testbed: out of memory\n", stderr);
    rl_adapter_t adapter;
    vec_backend_t backend;
    if (rc == 0 && co.cmd != NULL) {
        if ((rc = start_client(&co, &adapter)) != 0) {
            vec_file_list_free(&files);
            return rc;
        }
        backend = vec_client_backend(&adapter);
        opt.backend = &backend;
    }
    if (rc == 0)
        rc = vec_run(&files, &opt);
    if (opt.backend != NULL)
        rl_adapter_stop(&adapter);
    vec_file_list_free(&files);
    return rc;
}

static int cmd_conformance(int argc, char **argv)
{
    conf_options_t opt;
    memset(&opt, 0, sizeof opt);
    vec_file_list_t files = {NULL, 0, 0};
    client_opt_t co = {NULL, RL_ADAPTER_DEFAULT_TIMEOUT_MS};
    char **args = calloc((size_t)argc, sizeof *args);
    int n_args = 0, rc = 0, used = 0;
    bool only_files = false;
    if (args == NULL) {
        fputs("rl-testbed: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            args[n_args++] = argv[i];
        } else if ((used = client_option(argc, argv, &i, &co, usage_conformance)) != 0 ||
                   (used = gate_option(argc, argv, &i, &opt.gate, usage_conformance)) != 0) {
            rc = used < 0 ? EXIT_USAGE : 0;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_conformance(stdout);
            free(args);
            return 0;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            opt.quiet = true;
        } else if (strcmp(a, "--vectors-only") == 0) {
            opt.vectors_only = true;
        } else if (strcmp(a, "--cases-only") == 0) {
            opt.cases_only = true;
        } else if (strcmp(a, "--junit") == 0) {
            if (i + 1 >= argc)
                rc = usage_error(usage_conformance, "missing FILE after", a);
            else
                opt.junit_path = argv[++i];
        } else if (strncmp(a, "--junit=", 8) == 0 && a[8] != '\0') {
            opt.junit_path = a + 8;
        } else {
            rc = usage_error(usage_conformance, "unknown option", a);
        }
    }
    if (rc == 0 && opt.vectors_only && opt.cases_only)
        rc = usage_error(usage_conformance, "--vectors-only and --cases-only exclude each other", NULL);
    if (rc == 0 && !conf_inputs(args, n_args, &opt, &files)) {
        fputs("rl-testbed: out of memory\n", stderr);
        rc = 1;
    }
    rl_adapter_t adapter;
    if (rc == 0 && co.cmd != NULL) {
        if ((rc = start_client(&co, &adapter)) == 0)
            opt.client = &adapter;
    }
    if (rc == 0)
        rc = conf_run(&files, &opt);
    if (opt.client != NULL)
        rl_adapter_stop(&adapter);
    vec_file_list_free(&files);
    free(args);
    return rc;
}

static void usage_dialect(FILE *f)
{
    fputs("usage: rl-testbed dialect --client CMD [--timeout MS] [DIALECT_FILE_OR_DIR...]\n"
          "\n"
          "Runs the dialect vector sets (vectors/dialect/*.json: each test flagged with\n"
          "the area and the published variant whose answer it records) against an\n"
          "adapter (conformance/ADAPTER.md) and prints, per area, which variant the\n"
          "client matches: \"spec\", a variant's name with what to change to reach\n"
          "the spec, \"none\" with the first differing field and both values,\n"
          "\"partial\" (some tests unsupported, with the reason) or \"unsupported\".\n"
          "Each area is judged alone, under the client's own layout of the others.\n"
          "Last line: 'dialect: N areas spec, N variant, N none, N partial,\n"
          "N unsupported'.\n"
          "\n"
          "  --client CMD  the adapter (sh -c CMD); required\n"
          "  --timeout MS  longest wait for one adapter answer (default 10000);\n"
          "                hello, with the adapter's start-up, waits at least 30000\n"
          "  --help        print this help\n"
          "\n"
          "Exit status: 0 when every supported area matches the spec, 1 otherwise,\n"
          "2 on a usage error.\n",
          f);
}

static int cmd_dialect(int argc, char **argv)
{
    vec_file_list_t files = {NULL, 0, 0};
    client_opt_t co = {NULL, RL_ADAPTER_DEFAULT_TIMEOUT_MS};
    int rc = 0, used = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            rc = dialect_inputs(&files, a) ? 0 : 1;
        } else if ((used = client_option(argc, argv, &i, &co, usage_dialect)) != 0) {
            rc = used < 0 ? EXIT_USAGE : 0;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_dialect(stdout);
            vec_file_list_free(&files);
            return 0;
        } else {
            rc = usage_error(usage_dialect, "unknown option", a);
        }
    }
    if (rc == 0 && co.cmd == NULL)
        rc = usage_error(usage_dialect, "--client CMD is required", NULL);
    if (rc == 0 && files.n == 0 && !dialect_inputs(&files, NULL))
        rc = 1;
    rl_adapter_t adapter;
    if (rc == 0 && (rc = start_client(&co, &adapter)) != 0) {
        /* the adapter did not come up, or declared nothing (named on stderr) */
    } else if (rc == 0) {
        rc = dialect_run(&files, &adapter);
        rl_adapter_stop(&adapter);
    }
    vec_file_list_free(&files);
    return rc;
}

/* --version: what a report or a bug needs to name this build (tools/buildinfo/rl_build_info.h). */
static int print_version(void)
{
    char id[RL_BUILD_ID_MAX];
    rl_build_id(id);
    printf("rl-testbed %s\n", rl_build_version());
    printf("commit: %s\n", rl_build_commit());
    printf("build id: %s\n", id);
    printf("suite-data version: %s\n", rl_build_suite_data_version());
    const char *base = vec_default_base();
    char path[4096], found[128] = "";
    snprintf(path, sizeof path, "%s%sSUITE_DATA_VERSION", base, base[0] != '\0' ? "/" : "");
    FILE *f = fopen(path, "r");
    if (f != NULL) {
        if (fgets(found, sizeof found, f) == NULL)
            found[0] = '\0';
        fclose(f);
        found[strcspn(found, "\r\n")] = '\0';
    }
    printf("data directory: %s", base[0] != '\0' ? base : ".");
    if (found[0] == '\0')
        printf(" (no SUITE_DATA_VERSION file: a checkout or an unpacked bundle)\n");
    else if (strcmp(found, rl_build_suite_data_version()) == 0)
        printf(" (suite-data version %s, the same)\n", found);
    else
        printf(" (suite-data version %s, NOT the one this build was made with)\n", found);
    return 0;
}

/* --opt=value is --opt value, for every command (one place, so no command's own parser needs
 * to know): an argument that starts with "--", names an option of letters, digits and dashes,
 * and holds '=' is split in two; a bare "--" ends the splitting. Returns a new argv (NULL-ended)
 * or NULL on out of memory; *argc_out gets its length. */
/* The options of each command that take no value: `--quiet=yes` must not become `--quiet` and a
 * file named "yes" (nor `--check-determinism=no` turn the check on). */
static bool is_flag(const char *command, const char *name, size_t len)
{
    static const char *const flags[][2] = {
        {"vectors", " --quiet --verbose --norm --fail-on-skip "},
        {"conformance", " --quiet --verbose --norm --fail-on-skip --vectors-only --cases-only "},
        {"check", " --json --no-sendmmsg --quiet "},
        {"admin", " --json "},
        {"sim", " --check-determinism --quiet --wall-time --explore --first --no-shrink "},
        {"interop", " --rotate --quiet "},
        {"sweep", " --check --quiet "},
    };
    char key[64];
    if (len + 3 > sizeof key)
        return false;
    snprintf(key, sizeof key, " %.*s ", (int)len, name);
    if (strcmp(key, " --help ") == 0 || strcmp(key, " --version ") == 0)
        return true;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (strcmp(command, flags[i][0]) == 0)
            return strstr(flags[i][1], key) != NULL;
    }
    return false;
}

static char **split_long_options(int argc, char **argv, int *argc_out)
{
    char **out = calloc((size_t)argc * 2 + 1, sizeof *out);
    if (out == NULL)
        return NULL;
    int n = 0;
    bool split = true;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0)
            split = false;
        char *eq = split && i >= 2 && strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
        size_t name_len = eq != NULL ? (size_t)(eq - a) : 0;
        if (eq != NULL && name_len > 2 && strspn(a + 2, "abcdefghijklmnopqrstuvwxyz0123456789-") == name_len - 2) {
            if (is_flag(argv[1], a, name_len)) {
                fprintf(stderr, "rl-testbed: option '%.*s' takes no value\n", (int)name_len, a);
                *argc_out = -1;
                free(out);
                return NULL;
            }
            out[n] = strndup(a, name_len);
            if (out[n] == NULL)
                return NULL; /* out of memory at start-up: the process exits */
            n++;
            out[n++] = eq + 1;
        } else {
            out[n++] = a;
        }
    }
    out[n] = NULL;
    *argc_out = n;
    return out;
}

/* The split argv lives as long as the process: held here, so a leak checker
 * (the asan preset's LeakSanitizer) sees it reachable when a command returns. */
static char **split_argv;

int main(int argc, char **argv)
{
    argv = split_argv = split_long_options(argc, argv, &argc);
    if (argv == NULL && argc == -1)
        return EXIT_USAGE; /* --flag=value, said on stderr */
    if (argv == NULL) {
        fputs("rl-testbed: out of memory\n", stderr);
        return 1;
    }
    if (argc < 2)
        return usage_error(usage, "missing command", NULL);
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "version") == 0)
        return argc == 2 ? print_version() : usage_error(usage, "unexpected argument", argv[2]);
    if (strcmp(name, "help") == 0 && argc > 2) {
        /* help CMD [SUB]: exactly what CMD [SUB] --help prints. */
        char *sub[4] = {argv[2], NULL, NULL, NULL};
        int n = 1;
        if (argc > 4)
            return usage_error(usage, "unexpected argument", argv[4]);
        if (argc > 3) {
            /* Only a subcommand that exists: `help key frob` printed key's help and exited 0. */
            static const char *const subs[][2] = {{"key", "make"},      {"key", "inspect"},  {"sweep", "merge"},
                                                  {"sweep", "report"},  {"admin", "tenant"}, {"admin", "status"},
                                                  {"admin", "metrics"}};
            bool known = false;
            for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
                known = known || (strcmp(argv[2], subs[i][0]) == 0 && strcmp(argv[3], subs[i][1]) == 0);
            bool command = false;
            for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
                command = command || strcmp(argv[2], commands[i].name) == 0;
            if (!command)
                return usage_error(usage, "unknown command", argv[2]);
            if (!known && argv[3][0] == '-')
                return usage_error(usage, "unknown option", argv[3]);
            if (!known) {
                fprintf(stderr, "rl-testbed: help: '%s' has no subcommand '%s'\n", argv[2], argv[3]);
                usage(stderr);
                return EXIT_USAGE;
            }
            sub[n++] = argv[3];
        }
        sub[n++] = "--help";
        if (strcmp(argv[2], "sweep") == 0 && argc > 3 && strcmp(argv[3], "report") == 0)
            return rl_cmd_sweep_report(n - 1, sub + 1);
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
            if (strcmp(argv[2], commands[i].name) == 0)
                return commands[i].run(n, sub);
        }
        return usage_error(usage, "unknown command", argv[2]);
    }
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    /* `sweep report` is the report engine's own (sweep/report); the rest of `sweep` is the sweep engine's. */
    if (strcmp(name, "sweep") == 0 && argc > 2 && strcmp(argv[2], "report") == 0)
        return rl_cmd_sweep_report(argc - 2, argv + 2);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    if (name[0] == '-')
        return usage_error(usage, "unknown option", name);
    return usage_error(usage, "unknown command", name);
}
