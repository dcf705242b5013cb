#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs missing system packages, then configures and builds one preset
# (default: "default"). Usage: scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
bash scripts/install-deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
