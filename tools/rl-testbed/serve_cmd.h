/* SPDX-License-Identifier: MIT */
/* serve_cmd.h - the `rl-testbed serve` subcommand (engine: serve/serve.h). */
#ifndef RL_SERVE_CMD_H
#define RL_SERVE_CMD_H

/* argv[0] is "serve". Returns the exit status: 0 clean stop, 1 runtime
 * failure (bind, log or zone file), 2 usage error. */
int rl_cmd_serve(int argc, char **argv);

#endif /* RL_SERVE_CMD_H */
