#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The conformance gate for a Ratelimitly client's own repository: what the
# GitHub Actions workflow (github-actions.yml) and the GitLab CI job
# (gitlab-ci.yml) beside this file run. Copy it into the client's repository.
#
#   RL_ADAPTER   the command that starts the client's adapter (conformance/ADAPTER.md), required
#   RL_GATE      the gate options (default: --norm spec --require ha_case --fail-on-skip)
#   RL_OUT       directory for the reports (default: rl-conformance); JUnit in $RL_OUT/junit.xml,
#                every result in $RL_OUT/results.json, the table in $RL_OUT/conformance.txt
#   RL_TESTBED   the rl-testbed to run (default: rl-testbed on PATH; else it is built and
#                installed from RL_TESTBED_REPO at RL_TESTBED_REF as the Debian package)
#
# Exit status: rl-testbed's (0 every test passed and every gate is met, 1 not, 2 usage).
set -euo pipefail
: "${RL_ADAPTER:?set RL_ADAPTER to the command that starts your adapter}"
gate=${RL_GATE:---norm spec --require ha_case --fail-on-skip}
out=${RL_OUT:-rl-conformance}
tb=${RL_TESTBED:-}
if [ -z "$tb" ]; then
    if command -v rl-testbed >/dev/null; then
        tb=rl-testbed
    else
        : "${RL_TESTBED_REPO:?no rl-testbed on PATH: set RL_TESTBED_REPO (and RL_TESTBED_REF) to build it}"
        src=$(mktemp -d)
        git clone --quiet --depth 1 --branch "${RL_TESTBED_REF:-v0.2.0}" "$RL_TESTBED_REPO" "$src"
        deb=$(bash "$src/scripts/make-deb.sh" "$src/build/deb" | tail -n 1)
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO=sudo
        $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
        tb=rl-testbed
    fi
fi
mkdir -p "$out"
"$tb" --version | tee "$out/version.txt"
set +e
# shellcheck disable=SC2086  # RL_GATE is a list of options
"$tb" conformance --client "$RL_ADAPTER" $gate --junit "$out/junit.xml" --json "$out/results.json" \
    | tee "$out/conformance.txt"
rc=${PIPESTATUS[0]}
exit "$rc"
