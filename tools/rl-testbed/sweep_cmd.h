/* SPDX-License-Identifier: MIT */
/* sweep_cmd.h - the `rl-testbed sweep` subcommand (docs/sweep.md). */
#ifndef RL_SWEEP_CMD_H
#define RL_SWEEP_CMD_H

/* argv[0] is "sweep". Returns the process exit status: 0 complete, 1 complete
 * with failed units, 2 usage error or refused input, 3 stopped before the end
 * (rerun to resume). */
int rl_cmd_sweep(int argc, char **argv);

#endif /* RL_SWEEP_CMD_H */
