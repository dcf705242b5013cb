/* main.c - rl-testbed: command-line front end of the Ratelimitly toolkit.
 * Exit status: 0 success, 1 a check failed, 2 usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conf_runner.h"
#include "vec_runner.h"
#ifdef RL_WITH_SIM
#include "serve_cmd.h"
#include "sim_cmd.h"
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

static const command_t commands[] = {
    {"vectors", cmd_vectors, "run known-answer vector files (schema ratelimitly-vectors/v1)"},
    {"conformance", cmd_conformance, "the conformance gate: every vector file, HA decision case and simulator trace"},
    {"check", rl_cmd_check, "one rate-limit decision (or a load) over real UDP, on the public runtime"},
#ifdef RL_WITH_SIM
    {"sim", rl_cmd_sim, "run simulator traces (docs/traces.md): the client core against simulated servers"},
    {"serve", rl_cmd_serve, "reference r-servers on real UDP sockets, for testing any client (docs/serve.md)"},
#endif
};

static void usage(FILE *f)
{
    fputs("usage: rl-testbed <command> [options]\n"
          "       rl-testbed --help\n\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fputs("\nRun 'rl-testbed <command> --help' for a command's options.\n", f);
}

static void usage_vectors(FILE *f)
{
    fputs("usage: rl-testbed vectors [FILE...] [--junit FILE] [--quiet]\n"
          "\n"
          "Runs vector files in the ratelimitly-vectors/v1 schema against this build\n"
          "and prints a table per file, then 'vectors: N passed, N failed' last.\n"
          "With no FILE: vectors/*.json and ../shared/external/*.json, relative to the\n"
          "current directory, or to the source tree when ./vectors does not exist.\n"
          "\n"
          "  --junit FILE  also write JUnit XML to FILE\n"
          "  --quiet       print failing tests only\n"
          "  --help        print this help\n"
          "\n"
          "Exit status: 0 when every test passed, 1 when one failed, 2 on a usage error.\n",
          f);
}

static void usage_conformance(FILE *f)
{
    fputs("usage: rl-testbed conformance [CASE_OR_DIR...] [--junit FILE] [--vectors-only|--cases-only] [--quiet]\n"
          "\n"
          "The conformance gate. Runs every vector file (schema ratelimitly-vectors/v1),\n"
          "every HA decision case (schema ratelimitly-ha-case/v1, conformance/README.md)\n"
          "and every simulator trace that carries expectations, and prints a table per\n"
          "file and per case, then 'conformance: N passed, N failed' last (N counts\n"
          "vector tests, cases and traces).\n"
          "With no argument: vectors/*.json, ../shared/external/*.json and\n"
          "conformance/cases/*.json, relative to the current directory, or to the\n"
          "source tree when ./vectors does not exist. A directory argument stands for\n"
          "its *.json files; each file is classified by its `schema` field.\n"
          "\n"
          "Simulator traces (schema ratelimitly-trace/v1, docs/traces.md) are cases\n"
          "too: each runs with its own seed and passes when every expectation holds.\n"
          "With no argument the shipped sim/traces/*.json are included.\n"
          "\n"
          "  --junit FILE    also write JUnit XML to FILE\n"
          "  --vectors-only  run vector files only\n"
          "  --cases-only    run HA cases (and simulator traces) only\n"
          "  --quiet         print failing rows only\n"
          "  --help          print this help\n"
          "\n"
          "Exit status: 0 when everything passed, 1 when something failed, 2 on a usage error.\n",
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

static int cmd_vectors(int argc, char **argv)
{
    vec_options_t opt = {false, NULL};
    vec_file_list_t files = {NULL, 0, 0};
    bool only_files = false;
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            rc = vec_file_list_add(&files, a, false) ? 0 : 1;
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
    if (rc == 0)
        rc = vec_run(&files, &opt);
    vec_file_list_free(&files);
    return rc;
}

static int cmd_conformance(int argc, char **argv)
{
    conf_options_t opt = {false, NULL, false, false};
    vec_file_list_t files = {NULL, 0, 0};
    char **args = calloc((size_t)argc, sizeof *args);
    int n_args = 0, rc = 0;
    bool only_files = false;
    if (args == NULL) {
        fputs("rl-testbed: out of memory\n", stderr);
        return 1;
    }
    for (int i = 1; i < argc && rc == 0; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            args[n_args++] = argv[i];
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
    if (rc == 0)
        rc = conf_run(&files, &opt);
    vec_file_list_free(&files);
    free(args);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error(usage, "missing command", NULL);
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    }
    if (name[0] == '-')
        return usage_error(usage, "unknown option", name);
    return usage_error(usage, "unknown command", name);
}
