#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_version.sh RL_TESTBED SOURCE_DIR PYTHON3
#
# What a build says about itself (issue 26 "Nothing to pin"; project): `rl-testbed --version`
# prints the version of CMakeLists.txt's project() and of CHANGELOG.md's newest entry, the
# commit of the checkout, the build id (version + the first 8 bytes of the SHA-256 of the
# binary) and the suite-data version (make_bundle.py --suite-version); the JUnit file and the
# --json report carry the same four values; `help CMD` prints what `CMD --help` prints.
set -u
bin=$1
src=$(cd "$2" && pwd)
python=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

# The expected values, each from its own source, not from the binary.
version=$(sed -n 's/^project(rclient VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
changelog=$(sed -n 's/^## \[\([0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -n 1)
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then commit=$(git -C "$src" rev-parse HEAD); else commit=unknown; fi
build_id="$version+$(sha256sum "$bin" | cut -c1-16)"
suite=$("$python" "$src/vectors/tools/make_bundle.py" --suite-version)

checks=$((checks + 1))
if [ -n "$version" ] && [ "$version" = "$changelog" ]; then echo "ok   CHANGELOG.md's newest entry is $version"; else
    failures=$((failures + 1)); echo "FAIL CHANGELOG.md's newest entry '$changelog', CMakeLists.txt says '$version'"; fi

expect "--version" 0 out "rl-testbed $version" -- --version
last=$(sed -n 1p "$tmp/out")
checks=$((checks + 1))
if [ "$last" = "rl-testbed $version" ]; then echo "ok   --version: first line"; else fail "--version: first line '$last'"; fi
expect "--version: commit" 0 out "commit: $commit" -- --version
expect "--version: build id" 0 out "build id: $build_id" -- --version
expect "--version: suite-data version" 0 out "suite-data version: $suite" -- --version
expect "version (as a command)" 0 out "build id: $build_id" -- version
expect "--version with an argument" 2 err "rl-testbed: unexpected argument 'x'" -- --version x

# JUnit and --json carry the same values.
"$bin" vectors --quiet --junit "$tmp/j.xml" --json "$tmp/r.json" "$src/vectors/bucket_id.json" >/dev/null 2>&1
for prop in "testbed_version\" value=\"$version\"" "testbed_commit\" value=\"$commit\"" \
    "testbed_build_id\" value=\"$build_id\"" "suite_data_version\" value=\"$suite\""; do
    checks=$((checks + 1))
    if grep -qF -- "<property name=\"$prop/>" "$tmp/j.xml"; then echo "ok   JUnit property $prop"; else
        failures=$((failures + 1)); echo "FAIL JUnit lacks property $prop"; sed 's/^/    | /' "$tmp/j.xml" | head -5; fi
done
checks=$((checks + 1))
if "$python" - "$tmp/r.json" "$version" "$commit" "$build_id" "$suite" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["testbed"]
want = {"name": "rl-testbed", "version": sys.argv[2], "commit": sys.argv[3], "build_id": sys.argv[4],
        "suite_data_version": sys.argv[5]}
sys.exit(0 if t == want else f"testbed {t}, want {want}")
PY
then echo "ok   --json testbed: version, commit, build id, suite-data version"; else
    failures=$((failures + 1)); echo "FAIL --json testbed object"; fi

# help CMD [SUB] is CMD [SUB] --help, byte for byte.
for cmd in vectors conformance dialect check admin "sweep merge" "sweep report"; do
    checks=$((checks + 1))
    # shellcheck disable=SC2086
    "$bin" help $cmd >"$tmp/h1" 2>&1
    rc1=$?
    # shellcheck disable=SC2086
    "$bin" $cmd --help >"$tmp/h2" 2>&1
    rc2=$?
    case "$cmd" in sweep*) "$bin" --help | grep -q "^  sweep " || { echo "ok   help $cmd: (no simulator in this build)"; continue; } ;; esac
    if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 0 ] && cmp -s "$tmp/h1" "$tmp/h2" && [ -s "$tmp/h1" ]; then
        echo "ok   help $cmd = $cmd --help"; else
        failures=$((failures + 1)); echo "FAIL help $cmd (exit $rc1) differs from $cmd --help (exit $rc2)"; fi
done
expect "help of an unknown command" 2 err "rl-testbed: unknown command 'frobnicate'" -- help frobnicate
# help CMD SUB: only a subcommand CMD has (project; help key frob printed key's help, exit 0).
expect "help of an unknown subcommand" 2 err "rl-testbed: help: 'key' has no subcommand 'frob'" -- help key frob
expect "help of a command without subcommands" 2 err "rl-testbed: help: 'vectors' has no subcommand 'x'" -- help vectors x
expect "help of an unknown command and a subcommand" 2 err "rl-testbed: unknown command 'frob'" -- help frob x
expect "help with one argument too many" 2 err "rl-testbed: unexpected argument 'x'" -- help key make x
expect "help key inspect" 0 out "rl-testbed key inspect KEY|-" -- help key inspect
expect "help admin status" 0 out "usage: rl-testbed admin" -- help admin status

# One wording for an unknown option, every command (issue 26; project): the name alone.
for cmd in vectors conformance "dialect --client x" "check" "admin" "key make rl-none" "key inspect" "key" "sim" \
    "serve --tenant x" "sweep x.json" "sweep merge a" "sweep report d" "interop"; do
    case "$cmd" in sim|serve*|sweep*|interop) "$bin" --help | grep -q "^  sim " || continue ;; esac
    # shellcheck disable=SC2086
    expect "$cmd --frob: unknown option" 2 err "rl-testbed: unknown option '--frob'" -- $cmd --frob
done
expect "sim --seed last: missing value" 2 err "rl-testbed: missing value after '--seed'" -- sim --seed
expect "sweep --out last: missing value" 2 err "rl-testbed: missing value after '--out'" -- sweep x.json --out
if "$bin" --help | grep -q "^  sim "; then
    expect "interop --driver last: missing value" 2 err "rl-testbed: missing value after '--driver'" -- interop --driver
    expect "sweep report --out last: missing value" 2 err "rl-testbed: missing value after '--out'" -- sweep report d --out
fi
# --opt=value edge cases (project): '--=x' and '-x=1' are not split and are unknown options.
expect "--=x is an unknown option" 2 err "rl-testbed: unknown option '--=x'" -- vectors --=x
expect "-x=1 is an unknown option" 2 err "rl-testbed: unknown option '-x=1'" -- vectors -x=1
# An option without a value given one (project): refused, not split into the flag and a stray argument
# (vectors --quiet=1 read a vector file named "1"; sim --check-determinism=no turned the check on).
expect "--quiet=1 takes no value" 2 err "rl-testbed: option '--quiet' takes no value" -- vectors --quiet=1
expect "check --json= takes no value" 2 err "rl-testbed: option '--json' takes no value" -- check --json=
expect "admin --json=1 takes no value" 2 err "rl-testbed: option '--json' takes no value" -- admin --json=1 status
expect "vectors --json=FILE still takes a value" 0 out "vectors: 16 passed, 0 failed" -- \
    vectors --json="$tmp/v.json" "$src/vectors/bucket_id.json"
if "$bin" --help | grep -q "^  sim "; then
    expect "sim --check-determinism=no takes no value" 2 err "rl-testbed: option '--check-determinism' takes no value" -- \
        sim --check-determinism=no "$src/sim/traces/loss_5pct.json"
    expect "interop --rotate=1 takes no value" 2 err "rl-testbed: option '--rotate' takes no value" -- interop --rotate=1
fi

echo "run_version: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
