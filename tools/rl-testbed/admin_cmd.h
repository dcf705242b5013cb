/* SPDX-License-Identifier: MIT */
/* admin_cmd.h - the `rl-testbed admin` subcommand (engine: admin.h). */
#ifndef RL_ADMIN_CMD_H
#define RL_ADMIN_CMD_H

/* argv[0] is "admin". Returns the exit status of tools/rl-testbed/README.md
 * "admin": 0 answered, 1 an error page, 2 usage error, 3 no answer. */
int rl_cmd_admin(int argc, char **argv);

#include "r_client.h"
#include <stddef.h>

/* Apply "FIELD=N,..." (rate_buckets, latency_services, metrics_labels, latency_buffer,
 * dedup_ttl_ms, rate_window_ms) to info's quotas and re-encode info->quota_word.
 * Returns 0, or -1 with why (cap bytes) naming the field and the rule. Used by
 * `admin tenant add --quota` and `key make --quota`. */
int rl_apply_quota(const char *q, r_auth_key_info_t *info, char *why, size_t cap);

#endif /* RL_ADMIN_CMD_H */
