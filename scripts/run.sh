#!/usr/bin/env bash
# The main job on built-in defaults: build, then run the simulator's default
# trace set (sim/traces/default-set.txt) and print each trace's metrics table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
exec ./build/default/tools/rl-testbed/rl-testbed sim "$@"
