/* SPDX-License-Identifier: MIT */
/* key_cmd.h - `rl-testbed key make|inspect` (tools/rl-testbed/README.md "key"). */
#ifndef RL_KEY_CMD_H
#define RL_KEY_CMD_H

/* argv[0] is "key". Exit status: 0 done (inspect: a valid key), 1 inspect: not a valid key,
 * 2 usage error. */
int rl_cmd_key(int argc, char **argv);

#endif
