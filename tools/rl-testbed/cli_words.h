/* SPDX-License-Identifier: MIT */
/* cli_words.h - the one wording of rl-testbed's usage errors (tools/rl-testbed/README.md). */
#ifndef RL_TESTBED_CLI_WORDS_H
#define RL_TESTBED_CLI_WORDS_H

/* Print on stderr "rl-testbed: missing value after 'A'" when A is one of the
 * options in `known` (a NULL-ended list of options that take a value: A was
 * given last, without its value), else "rl-testbed: unknown option 'A'". */
void rl_cli_bad_option(const char *a, const char *const *known);

#endif
