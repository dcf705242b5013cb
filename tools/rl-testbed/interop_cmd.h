/* SPDX-License-Identifier: MIT */
/* interop_cmd.h - the `rl-testbed interop` subcommand (engine:
 * conformance/interop/interop.h, docs/interop.md). */
#ifndef RL_INTEROP_CMD_H
#define RL_INTEROP_CMD_H

/* argv[0] is "interop". Returns the exit status: 0 every case passed, 1 a
 * case failed, 2 usage error, a broken case file or an unwritable report. */
int rl_cmd_interop(int argc, char **argv);

#endif /* RL_INTEROP_CMD_H */
