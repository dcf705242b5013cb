/* SPDX-License-Identifier: MIT */
/* cli_words.c - see cli_words.h. */
#include "cli_words.h"

#include <stdio.h>
#include <string.h>

void rl_cli_bad_option(const char *a, const char *const *known) {
    for (size_t k = 0; known != NULL && known[k] != NULL; k++) {
        if (strcmp(a, known[k]) == 0) {
            fprintf(stderr, "rl-testbed: missing value after '%s'\n", a);
            return;
        }
    }
    fprintf(stderr, "rl-testbed: unknown option '%s'\n", a);
}
