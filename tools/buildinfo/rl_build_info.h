/* SPDX-License-Identifier: MIT */
/* rl_build_info.h - what `rl-testbed --version`, the JUnit and JSON reports and
 * the sweep manifests record about the build: the project version (one place:
 * project() in the top CMakeLists.txt), the commit it was built from, the build
 * id and the suite-data version (vectors/tools/make_bundle.py --suite-version). */
#ifndef RL_BUILD_INFO_H
#define RL_BUILD_INFO_H

#include <stddef.h>

#define RL_BUILD_ID_MAX 64

/* "0.2.0" */
const char *rl_build_version(void);
/* 40 hex digits, or "unknown" when built outside a git checkout without RL_COMMIT. */
const char *rl_build_commit(void);
/* "<version>+<16 hex>": digest of the suite files this build was made with. */
const char *rl_build_suite_data_version(void);
/* "<version>+<16 hex>": the first 8 bytes of the SHA-256 of the running
 * executable (/proc/self/exe), "<version>+unknown" when it cannot be read. */
void rl_build_id(char out[RL_BUILD_ID_MAX]);

#endif
