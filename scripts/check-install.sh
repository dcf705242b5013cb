#!/bin/sh
# usage: check-install.sh BUILD_DIR SOURCE_DIR PYTHON3
#
# The installed suite (README "Installed data"): `cmake --install` to a
# temporary prefix, then the installed rl-testbed, run from an empty directory
# with no path argument, must find the vectors, HA cases and traces under
# <prefix>/share/rl-testbed, never in the source tree, and pass exactly as many
# tests as the build tree's binary does in the checkout. Also: the prefix can
# be moved, RL_TESTBED_DATA overrides the lookup, and the installed schemas
# accept the installed files.
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
python=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
checks=0
failures=0
ok() { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -20; }

prefix=$tmp/prefix
if cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then ok "cmake --install"; else
    fail "cmake --install"; cat "$tmp/install.log"; exit 1
fi
bin=$prefix/bin/rl-testbed
data=$prefix/share/rl-testbed
for f in vectors/api_key.json vectors/latency_report_packet.json conformance/cases/rule4_oldest_selected_immediately.json \
    sim/traces/default-set.txt sim/traces/ha_healthy.json schemas/ratelimitly-vectors-v1.schema.json \
    schemas/ratelimitly-ha-case-v1.schema.json schemas/ratelimitly-trace-v1.schema.json schemas/validate.py \
    docs/ha-cases.md docs/traces.md docs/testing-other-clients.md; do
    if [ -f "$data/$f" ]; then ok "installed $f"; else fail "not installed: share/rl-testbed/$f"; fi
done
n_src=$(ls "$src"/vectors/*.json "$src"/conformance/cases/*.json | wc -l)
n_inst=$(ls "$data"/vectors/*.json "$data"/conformance/cases/*.json | wc -l)
if [ "$n_src" -eq "$n_inst" ]; then ok "every vector file and case installed ($n_inst)"; else
    fail "installed $n_inst vector and case files, the checkout has $n_src"; fi

# closing NAME WANT_LINE DIR ENV... -- ARGS: run the installed binary in DIR; exit 0 and last line WANT_LINE.
run_closing() {
    name=$1 want=$2 dir=$3
    shift 3
    (cd "$dir" && "$@") >"$tmp/out" 2>"$tmp/err"
    rc=$?
    last=$(tail -n 1 "$tmp/out")
    if [ "$rc" -ne 0 ]; then fail "$name: exit status $rc"; cat "$tmp/err";
    elif [ "$last" != "$want" ]; then fail "$name: last line '$last', want '$want'";
    else ok "$name: $last"; fi
}

# What the checkout gives, with the build tree's binary.
ref_conf=$(cd "$src" && "$build/tools/rl-testbed/rl-testbed" conformance --quiet 2>/dev/null | tail -n 1)
ref_vec=$(cd "$src" && "$build/tools/rl-testbed/rl-testbed" vectors --quiet 2>/dev/null | tail -n 1)
mkdir "$tmp/work"
run_closing "installed conformance, no path, from an empty directory" "$ref_conf" "$tmp/work" "$bin" conformance --quiet
run_closing "installed vectors, no path" "$ref_vec" "$tmp/work" "$bin" vectors --quiet
# (a build without the simulator has no `sim` subcommand)
ref_sim=$(cd "$src" && "$build/tools/rl-testbed/rl-testbed" sim --quiet 2>/dev/null | tail -n 1)
case "$ref_sim" in
sim:*) run_closing "installed sim, no path (the default set)" "$ref_sim" "$tmp/work" "$bin" sim --quiet ;;
esac

# The files came from the installed tree, not from the checkout.
(cd "$tmp/work" && "$bin" conformance) >"$tmp/out" 2>"$tmp/err"
for want in "$data/vectors/api_key.json [api_key]" "$data/conformance/cases/rule4_oldest_selected_immediately.json[aes]" \
    "$data/sim/traces/ha_healthy.json [sim_trace]"; do
    if grep -qF -- "$want" "$tmp/out"; then ok "reads $want"; else fail "output lacks $want"; fi
done
if [ -n "$(ls "$src"/../shared/external/*.json 2>/dev/null)" ]; then
    if grep -qF -- "$data/external/" "$tmp/out"; then ok "reads the installed external/"; else
        fail "output lacks $data/external/"; fi
fi
if grep -qF -- "$src/" "$tmp/out" "$tmp/err"; then fail "the installed binary read the source tree $src"; else
    ok "nothing read from the source tree"; fi

# A moved prefix still finds its data (the lookup is relative to the binary).
mv "$prefix" "$tmp/moved"
run_closing "moved prefix" "$ref_conf" "$tmp/work" "$tmp/moved/bin/rl-testbed" conformance --quiet
(cd "$tmp/work" && "$tmp/moved/bin/rl-testbed" vectors) >"$tmp/out" 2>&1
if grep -qF -- "$tmp/moved/share/rl-testbed/vectors/api_key.json" "$tmp/out"; then ok "moved prefix: reads its own data"; else
    fail "moved prefix: output lacks $tmp/moved/share/rl-testbed/vectors/api_key.json"; fi

# RL_TESTBED_DATA wins over the installed directory.
mkdir -p "$tmp/alt/vectors"
cp "$src/vectors/bucket_id.json" "$tmp/alt/vectors/"
n_bucket=$("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tests"]))' "$src/vectors/bucket_id.json")
run_closing "RL_TESTBED_DATA" "vectors: $n_bucket passed, 0 failed" "$tmp/work" \
    env RL_TESTBED_DATA="$tmp/alt" "$tmp/moved/bin/rl-testbed" vectors --quiet
# ... and when it names a directory without vectors/, the run fails and says where it looked.
(cd "$tmp/work" && env RL_TESTBED_DATA="$tmp/nowhere" "$tmp/moved/bin/rl-testbed" vectors) >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -qF -- "$tmp/nowhere/vectors/*.json: (files): no file matches this pattern" "$tmp/out"; then
    ok "RL_TESTBED_DATA without vectors/: a visible failure"; else fail "RL_TESTBED_DATA without vectors/ (exit $rc)"; fi

# The installed schemas accept the installed files.
if "$python" "$tmp/moved/share/rl-testbed/schemas/validate.py" --root "$tmp/moved/share/rl-testbed" >"$tmp/out" 2>&1 &&
    grep -q "^schemas: [1-9][0-9]* valid, 0 invalid$" "$tmp/out"; then ok "installed schemas: $(tail -n 1 "$tmp/out")"; else
    fail "installed schemas"; fi

echo "check-install: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
