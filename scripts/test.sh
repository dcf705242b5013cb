#!/usr/bin/env bash
# The test command: build, run every test through ctest (cmocka unit tests,
# vector and conformance CLI tests, simulator traces), then the conformance
# gate: every vector file, HA decision case and simulator trace.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh default
ctest --preset default
./build/default/tools/rl-testbed/rl-testbed conformance --quiet
