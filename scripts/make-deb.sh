#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Debian package rl-testbed_<version>_<arch>.deb with CPack, without presets
# (CMake 3.22 is enough), in BUILD_DIR (default build/deb). Prints the .deb's path last.
# Only what the package holds is built: the libraries, rl-testbed; no tests, benchmarks,
# examples or fuzz harnesses. The outside known answers (../shared/external) are not packaged.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/deb}
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
    -DRCLIENT_BUILD_TESTS=OFF -DRCLIENT_BUILD_BENCH=OFF -DRCLIENT_BUILD_EXAMPLES=OFF -DRCLIENT_BUILD_FUZZ=OFF \
    -DRL_INSTALL_EXTERNAL=OFF \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"${JOBS:-2}" --target rclient_shared rclient_static rclient_runtime_shared \
    rclient_runtime_static rl-testbed >/dev/null
(cd "$build" && cpack -G DEB >cpack.log 2>&1) || { cat "$build/cpack.log"; exit 1; }
ls "$build"/rl-testbed_*.deb | tail -n 1
