#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian package end to end (issue 26; README "Installing"): build the .deb
# (scripts/make-deb.sh), install it with apt (dependencies resolved by apt),
# then, from an empty directory and with the installed files only:
# `rl-testbed --version`, `conformance`, `dialect` with the installed Python
# adapter template, `sim`, `serve` answering `check`; then remove the package
# and check nothing of it is left. Needs root (apt-get); refuses to run when
# rl-testbed is already installed from elsewhere, so it never removes a
# package it did not install.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
checks=0
failures=0
tmp=$(mktemp -d) || exit 1
serve_pid=""
installed=0
cleanup() {
    [ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    [ "$installed" -eq 1 ] && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq rl-testbed >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
ok() { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -20; }
# run NAME WANT_LAST_LINE CMD...: in the empty directory, exit 0 and the last line of stdout WANT.
run() {
    local name=$1 want=$2
    shift 2
    (cd "$tmp/empty" && "$@") >"$tmp/out" 2>&1
    local rc=$? last
    last=$(grep -v '^rl-testbed: ' "$tmp/out" | tail -n 1)
    if [ "$rc" -eq 0 ] && [[ "$last" == $want ]]; then ok "$name: $last"; else fail "$name: exit $rc, last line '$last', want '$want'"; fi
}

if dpkg-query -W -f='${Status}' rl-testbed 2>/dev/null | grep -q 'install ok installed' || [ -e /usr/bin/rl-testbed ]; then
    echo "check-deb: rl-testbed is already installed on this machine; remove it first"; exit 1
fi
t0=$SECONDS
deb=$(bash scripts/make-deb.sh "${DEB_BUILD_DIR:-build/deb}" | tail -n 1)
if [ -f "$deb" ]; then ok "built $(basename "$deb") ($((SECONDS - t0)) s)"; else fail "make-deb.sh"; exit 1; fi
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
dpkg-deb -c "$deb" >"$tmp/contents"
for f in ./usr/bin/rl-testbed ./usr/share/rl-testbed/vectors/dialect/tracker_id.json ./usr/share/rl-testbed/SUITE_DATA_VERSION \
    ./usr/share/rl-testbed/docs/ADAPTER.md ./usr/share/rl-testbed/conformance/adapters/python/rl_adapter.py \
    ./usr/include/r_client.h ./usr/share/doc/rl-testbed/LICENSE; do
    if grep -qF " $f" "$tmp/contents"; then ok "package holds $f"; else fail "package lacks $f"; fi
done
if grep -qE " \./usr/lib/.*/pkgconfig/rclient\.pc$" "$tmp/contents" && grep -qE " \./usr/lib/.*/librclient\.so\.0" "$tmp/contents"; then
    ok "package holds librclient.so.0 and rclient.pc"; else fail "package lacks librclient.so.0 or rclient.pc"; fi
version=$(sed -n 's/^project(rclient VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
if [ "$(dpkg-deb -f "$deb" Version)" = "$version" ]; then ok "package version $version"; else fail "package version"; fi

t1=$SECONDS
if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$tmp/out" 2>&1; then
    installed=1; ok "apt-get install ./$(basename "$deb")"; else fail "apt-get install"; exit 1; fi

mkdir "$tmp/empty"
run "--version" "data directory: /usr/share/rl-testbed (suite-data version *, the same)" rl-testbed --version
run "conformance from an empty directory" "conformance: * passed, 0 failed" rl-testbed conformance --quiet
if grep -qF " ./usr/share/rl-testbed/external/" "$tmp/contents"; then fail "the outside known answers are packaged"; else
    ok "the outside known answers are not packaged"; fi
run "dialect with the installed template adapter" "dialect: 12 areas spec, 0 variant, 0 none, 0 partial, 0 unsupported" \
    rl-testbed dialect --client "python3 /usr/share/rl-testbed/conformance/adapters/python/rl_adapter.py"
run "sim, the default trace set" "sim: * 0 failed*" rl-testbed sim --quiet

# serve on an ephemeral loopback port, then one decision with check.
key=rl-cookie1qxfpqqqqqqqqqqzpgfp5g32xgayyjjjtf3x5un6s29f9x4z42et4sk26tdw96hjlvpgtzsh7l2qhn2
(cd "$tmp/empty" && exec rl-testbed serve --tenant "$key" --server port=0,start=1767225600) >"$tmp/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 1200); do grep -q '^serve: ready' "$tmp/serve.out" && break; sleep 0.05; done
port=$(sed -n 's/^server 0: server_id [0-9]* port \([0-9]*\) .*/\1/p' "$tmp/serve.out")
sid=$(sed -n 's/^server 0: server_id \([0-9]*\) port .*/\1/p' "$tmp/serve.out")
if [ -n "$port" ]; then ok "serve ready on 127.0.0.1:$port"; else cp "$tmp/serve.out" "$tmp/out"; fail "serve did not get ready"; fi
(cd "$tmp/empty" && RATELIMITLY_REQUEST_UNIT_MS=250 rl-testbed check --key "$key" --server "$sid@127.0.0.1:$port" \
    --bucket deb:1000:10) >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "decision: allowed" "$tmp/out"; then ok "check against serve: decision allowed"; else
    fail "check against serve (exit $rc)"; fi
kill -TERM "$serve_pid"; wait "$serve_pid"; rc=$?; serve_pid=""
if [ "$rc" -eq 0 ]; then ok "serve stops on SIGTERM"; else fail "serve exit $rc on SIGTERM"; fi
if [ -z "$(ls -A "$tmp/empty")" ]; then ok "nothing written to the working directory"; else
    ls -A "$tmp/empty" >"$tmp/out"; fail "files left in the working directory"; fi
echo "check-deb: installed and ran in $((SECONDS - t1)) s"

if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq rl-testbed >"$tmp/out" 2>&1; then installed=0; ok "apt-get remove rl-testbed"; else
    fail "apt-get remove"; fi
if [ ! -e /usr/bin/rl-testbed ] && [ ! -e /usr/share/rl-testbed ]; then ok "removed: no /usr/bin/rl-testbed, no /usr/share/rl-testbed"; else
    fail "files left after removal"; fi
echo "check-deb: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
