#!/usr/bin/env bash
# The main job on built-in defaults: build, then run the known-answer vector
# runner over vectors/*.json and ../shared/external/*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
exec ./build/default/tools/rl-testbed/rl-testbed vectors "$@"
