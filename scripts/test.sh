#!/usr/bin/env bash
# The test command: build, run every cmocka unit test through ctest, then the
# vector runner over the shipped and outside vectors.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
ctest --preset default
./build/default/tools/rl-testbed/rl-testbed vectors
