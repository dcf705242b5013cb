#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-install.sh BUILD_DIR SOURCE_DIR PYTHON3
#
# The installed suite (README "Installed data"): `cmake --install` to a
# temporary prefix, then the installed rl-testbed, run from an empty directory
# with no path argument, must find the vectors, HA cases and traces under
# <prefix>/share/rl-testbed, never in the source tree, and pass exactly as many
# tests as the build tree's binary does in the checkout. Also: the prefix can
# be moved, RL_TESTBED_DATA overrides the lookup, and the installed schemas
# accept the installed files. Each install component alone installs its own
# files only (README "Installing"); every document a --help names is installed;
# the installed Python template passes `dialect`; --version sees the installed
# data's suite-data version; pkg-config gives what a consumer needs to link.
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

# ---- components, each alone (issue 26) ----
# component: a file it installs, and a file of another component it must not install.
for spec in "library lib/librclient.so.0 include/r_client.h" "dev include/r_client.h bin/rl-testbed" \
    "testbed bin/rl-testbed share/rl-testbed/vectors/api_key.json" \
    "data share/rl-testbed/vectors/dialect/tracker_id.json bin/rl-testbed" \
    "data share/rl-testbed/SUITE_DATA_VERSION share/rl-testbed/docs/ADAPTER.md" \
    "docs share/rl-testbed/docs/ADAPTER.md share/rl-testbed/vectors/api_key.json" \
    "docs share/doc/rl-testbed/LICENSE bin/rl-testbed" \
    "templates share/rl-testbed/conformance/adapters/python/rl_adapter.py share/rl-testbed/vectors/api_key.json"; do
    set -- $spec
    cp="$tmp/comp-$1"
    rm -rf "$cp"
    if ! cmake --install "$build" --component "$1" --prefix "$cp" >"$tmp/out" 2>&1; then fail "component $1: cmake --install"; continue; fi
    libdir=$(ls -d "$cp"/lib* 2>/dev/null | head -n 1)
    have=$2
    case "$have" in lib/*) [ -n "$libdir" ] && have="${libdir#"$cp"/}/${have#lib/}" ;; esac
    if [ -e "$cp/$have" ] && [ ! -e "$cp/$3" ]; then ok "component $1 alone: $2, not $3"; else
        fail "component $1 alone: want $2 and not $3"; fi
done
full=$tmp/full
for c in library dev testbed data docs templates; do cmake --install "$build" --component "$c" --prefix "$full" >/dev/null 2>&1; done
# Every project document a --help names is installed (share/rl-testbed/docs, by file name;
# conformance/README.md as ha-cases.md, tools/rl-testbed/README.md as rl-testbed.md).
for c in "" vectors conformance dialect check admin sim serve interop sweep "sweep run" "sweep merge" "sweep report"; do
    # shellcheck disable=SC2086
    "$full/bin/rl-testbed" $c --help 2>&1
done | grep -oE "(docs|conformance|tools)/[A-Za-z0-9_./-]+\.md" | sort -u >"$tmp/named"
while read -r doc; do
    case "$doc" in conformance/README.md) inst=ha-cases.md ;; tools/rl-testbed/README.md) inst=rl-testbed.md ;;
    *) inst=$(basename "$doc") ;; esac
    if [ -f "$full/share/rl-testbed/docs/$inst" ]; then ok "--help names $doc: installed as docs/$inst"; else
        fail "--help names $doc: share/rl-testbed/docs/$inst not installed"; fi
done <"$tmp/named"
# The installed Python template, run from an empty directory: every area spec.
(cd "$tmp/work" && "$full/bin/rl-testbed" dialect --client \
    "$python $full/share/rl-testbed/conformance/adapters/python/rl_adapter.py") >"$tmp/out" 2>"$tmp/err"
rc=$?
last=$(tail -n 1 "$tmp/out")
if [ "$rc" -eq 0 ] && [ "$last" = "dialect: 12 areas spec, 0 variant, 0 none, 0 partial, 0 unsupported" ]; then
    ok "installed dialect with the installed template: $last"; else fail "installed dialect with the template (exit $rc): $last"; fi
# --version: the installed data directory and its suite-data version, the same as the binary's.
want=$("$python" "$src/vectors/tools/make_bundle.py" --suite-version)
(cd "$tmp/work" && "$full/bin/rl-testbed" --version) >"$tmp/out" 2>&1
if grep -qxF "data directory: $full/share/rl-testbed (suite-data version $want, the same)" "$tmp/out"; then
    ok "installed --version: data directory and suite-data version $want"; else fail "installed --version"; fi
# pkg-config: a consumer gets the include and library directories of the prefix, and libcrypto.
libdir=$(ls -d "$full"/lib*/pkgconfig 2>/dev/null | head -n 1)
if [ -n "$libdir" ]; then
    got=$(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs rclient 2>&1)
    inc=$(cd "$(PKG_CONFIG_PATH=$libdir pkg-config --variable=includedir rclient)" && pwd -P)
    lib=$(cd "$(PKG_CONFIG_PATH=$libdir pkg-config --variable=libdir rclient)" && pwd -P)
    case "$got" in *-lrclient*-lcrypto*) has_crypto=1 ;; *) has_crypto=0 ;; esac
    if [ "$inc" = "$(cd "$full/include" && pwd -P)" ] && [ "$lib" = "$(cd "$(dirname "$libdir")" && pwd -P)" ] &&
        [ "$has_crypto" -eq 1 ]; then ok "pkg-config rclient: the prefix's include and lib, -lcrypto ($got)"; else
        echo "$got" >"$tmp/out"; fail "pkg-config rclient: includedir $inc, libdir $lib, want -lrclient ... -lcrypto"; fi
    # docs/api-guide.md's code (it calls OPENSSL_cleanse), built against the prefix with pkg-config alone.
    # A library built with sanitizers (the asan preset) needs its compiler's sanitizer runtimes in
    # every consumer: that build is not what a consumer installs, so the check is said and skipped.
    if nm -D "$(dirname "$libdir")/librclient.so" 2>/dev/null | grep -q " U __asan_"; then
        echo "skip examples/guide_snippets.c with pkg-config: the installed library is built with sanitizers"
    elif cc -std=c11 -Wall -Wextra -Werror -o "$tmp/guide" "$src/examples/guide_snippets.c" \
        $(PKG_CONFIG_PATH=$libdir pkg-config --cflags --libs rclient_runtime) >"$tmp/out" 2>&1 &&
        LD_LIBRARY_PATH=$(dirname "$libdir") "$tmp/guide" >"$tmp/out" 2>&1; then
        ok "examples/guide_snippets.c builds and runs with pkg-config --cflags --libs rclient_runtime"; else
        fail "examples/guide_snippets.c against the installed prefix with pkg-config"; fi
fi

echo "check-install: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
