/* admin_cmd.h - the `rl-testbed admin` subcommand (engine: admin.h). */
#ifndef RL_ADMIN_CMD_H
#define RL_ADMIN_CMD_H

/* argv[0] is "admin". Returns the exit status of tools/rl-testbed/README.md
 * "admin": 0 answered, 1 an error page, 2 usage error, 3 no answer. */
int rl_cmd_admin(int argc, char **argv);

#endif /* RL_ADMIN_CMD_H */
