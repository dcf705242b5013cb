/* SPDX-License-Identifier: MIT */
/* sweep_report_cmd.h - the `rl-testbed sweep report` subcommand (docs/sweep.md "Report"). */
#ifndef RL_SWEEP_REPORT_CMD_H
#define RL_SWEEP_REPORT_CMD_H

/* argv[0] is "report". Returns the process exit status (0, 1, or 2 for usage). */
int rl_cmd_sweep_report(int argc, char **argv);

#endif /* RL_SWEEP_REPORT_CMD_H */
