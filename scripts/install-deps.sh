#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build, tests and vector tools need, when missing.
# Safe to run repeatedly; does nothing when everything is present.
set -euo pipefail
pkgs=(build-essential cmake clang pkg-config libssl-dev libb2-dev libcmocka-dev libc-ares-dev dnsmasq-base
      bind9-dnsutils libjansson-dev python3 python3-cryptography python3-jsonschema valgrind gcovr ccache
      afl++ llvm zip unzip  # fuzzing: AFL++ builds, llvm-cov/llvm-profdata, OSS-Fuzz seed zips
      gnuplot-nox           # the sweep report's plots (rl-testbed sweep report, docs/sweep.md "Report")
      slurmctld slurmd slurm-client munge)  # Debian's slurm-wlm parts: the Slurm array job test (scripts/check-slurm.sh)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
