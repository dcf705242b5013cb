/* SPDX-License-Identifier: MIT */
/* explore_cmd.h - `rl-testbed sim --explore` / `--seeds` (docs/explore.md). */
#ifndef RL_EXPLORE_CMD_H
#define RL_EXPLORE_CMD_H

#include <stdbool.h>

/* True when argv (argv[0] "sim") asks for explore mode or a seed search. */
bool rl_explore_wanted(int argc, char **argv);
/* Returns the exit status: 0, 1 (a property or expectation failed), 2 (usage). */
int rl_cmd_explore(int argc, char **argv);

#endif /* RL_EXPLORE_CMD_H */
