/* SPDX-License-Identifier: MIT */
/* sim_cmd.h - the `rl-testbed sim` subcommand. */
#ifndef RL_SIM_CMD_H
#define RL_SIM_CMD_H

/* argv[0] is "sim". Returns the process exit status (0, 1, or 2 for usage). */
int rl_cmd_sim(int argc, char **argv);

#endif /* RL_SIM_CMD_H */
