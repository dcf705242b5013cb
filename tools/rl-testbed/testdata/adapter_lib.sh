# SPDX-License-Identifier: MIT
# adapter_lib.sh - the shared start of the adapter tests (run_adapter.sh,
# run_dialect.sh, run_single_fault.sh, run_verdicts.sh), sourced with their
# arguments RL_TESTBED C_ADAPTER SOURCE_DIR: sets bin, cadapter, src and a
# temporary directory tmp removed on exit, loads cli_lib.sh (expect, check,
# fail, ...) and runs from the source directory.
bin=$1
cadapter=$2
src=$(cd "$3" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"
cd "$src" || exit 1
