/* SPDX-License-Identifier: MIT */
/* interop_cmd.c - `rl-testbed interop`: parse the options and run the interop
 * engine (conformance/interop, docs/interop.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli_words.h"
#include "interop.h"
#include "interop_cmd.h"
#include "r_client.h"

#define EXIT_USAGE 2

static void usage(FILE *f)
{
    fputs("usage: rl-testbed interop [CASE...] [--driver CMD] [--auth none,cookie,aes] [--family 4,6]\n"
          "                          [--rotate] [--junit FILE] [--json FILE] [--quiet]\n"
          "\n"
          "Plays HA cases over real loopback UDP against a client behind a driver and\n"
          "judges what the servers receive (docs/interop.md). With no CASE: the cases of\n"
          "conformance/cases that a network can play and conformance/interop/cases.\n"
          "Every case runs at U = 100 ms; a run that failed on timing alone is rerun once.\n"
          "\n"
          "  --driver CMD   the driver (sh -c CMD, JSON lines on stdin/stdout); default:\n"
          "                 the reference driver around the project's public runtime\n"
          "  --auth LIST    auth modes to run the \"any\" cases in (default none,cookie,aes)\n"
          "  --family LIST  address families of the servers: 4, 6 or 4,6 (default 4,6)\n"
          "  --rotate       run each case once, rotating through the mode x family pairs\n"
          "  --junit FILE   also write JUnit XML to FILE\n"
          "  --json FILE    also write every run, check and datagram as JSON to FILE\n"
          "  --quiet        print failing cases only\n"
          "  --help         print this help\n"
          "\n"
          "The closing line reads 'interop: N passed, N failed, N skipped'.\n"
          "Exit status: 0 when no case failed, 1 when one did, 2 on a usage error, a\n"
          "broken case file or a report that cannot be written.\n",
          f);
}

static bool parse_list(const char *arg, const char *const *names, size_t n, unsigned *mask, const unsigned *bits)
{
    char buf[64];
    *mask = 0;
    if (strlen(arg) >= sizeof buf)
        return false;
    strcpy(buf, arg);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < n && strcmp(tok, names[i]) != 0)
            i++;
        if (i == n)
            return false;
        *mask |= bits[i];
    }
    return *mask != 0;
}

int rl_cmd_interop(int argc, char **argv)
{
    static const char *const modes[] = {"none", "cookie", "aes"};
    static const unsigned mode_bits[] = {1u << R_AUTH_NONE, 1u << R_AUTH_COOKIE, 1u << R_AUTH_AES};
    static const char *const fams[] = {"4", "6"};
    static const unsigned fam_bits[] = {IO_FAMILY_V4, IO_FAMILY_V6};
    io_options_t opt = {.auth_mask = mode_bits[0] | mode_bits[1] | mode_bits[2],
                        .family_mask = IO_FAMILY_V4 | IO_FAMILY_V6};
    vec_file_list_t files = {0};
    char *args[256];
    int n_args = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--quiet") == 0) {
            opt.quiet = true;
        } else if (strcmp(a, "--rotate") == 0) {
            opt.rotate = true;
        } else if ((strcmp(a, "--driver") == 0 || strcmp(a, "--junit") == 0 || strcmp(a, "--json") == 0) &&
                   has_value) {
            const char **slot = a[2] == 'd' ? &opt.driver : a[3] == 'u' ? &opt.junit_path : &opt.json_path;
            *slot = argv[++i];
            if (argv[i][0] == '\0') {
                fprintf(stderr, "rl-testbed interop: %s wants a value, got an empty string\n", a);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--auth") == 0 && has_value) {
            if (!parse_list(argv[++i], modes, 3, &opt.auth_mask, mode_bits)) {
                fprintf(stderr, "rl-testbed interop: --auth wants a list of none, cookie, aes, got \"%s\"\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (strcmp(a, "--family") == 0 && has_value) {
            if (!parse_list(argv[++i], fams, 2, &opt.family_mask, fam_bits)) {
                fprintf(stderr, "rl-testbed interop: --family wants 4, 6 or 4,6, got \"%s\"\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            rl_cli_bad_option(a, (const char *const[]){"--driver", "--junit", "--json", "--auth", "--family", NULL});
            usage(stderr);
            return EXIT_USAGE;
        } else if (n_args < (int)(sizeof args / sizeof args[0])) {
            args[n_args++] = argv[i];
        } else {
            fprintf(stderr, "rl-testbed interop: at most 256 case arguments\n");
            return EXIT_USAGE;
        }
    }
    if (!io_inputs(args, n_args, &files)) {
        fprintf(stderr, "rl-testbed interop: out of memory\n");
        return EXIT_USAGE;
    }
    int rc = io_run(&files, &opt);
    vec_file_list_free(&files);
    return rc;
}
