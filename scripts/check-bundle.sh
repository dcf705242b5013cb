#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: check-bundle.sh SOURCE_DIR PYTHON3 VERSION [RL_TESTBED]
#
# The vector bundle (vectors/tools/README.md "Bundle"): make
# rl-testbed-vectors-VERSION.tar.gz, verify it with make_bundle.py --check and,
# independently, with `sha256sum -c` on the extracted files; its files must
# pass their schemas; two builds give the same bytes; a changed file is caught;
# with RL_TESTBED, the unpacked bundle runs as RL_TESTBED_DATA.
set -u
src=$(cd "$1" && pwd)
python=$2
version=$3
rl_testbed=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
checks=0
failures=0
ok() { checks=$((checks + 1)); echo "ok   $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL $1"; [ -f "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -20; }
tool=$src/vectors/tools/make_bundle.py
name=rl-testbed-vectors-$version
bundle=$tmp/a/$name.tar.gz

if "$python" "$tool" --version "$version" --out "$tmp/a" >"$tmp/out" 2>&1 && [ -f "$bundle" ]; then
    ok "made $name.tar.gz"; else fail "make_bundle.py --version $version"; exit 1; fi
if "$python" "$tool" --check "$bundle" >"$tmp/out" 2>&1; then ok "make_bundle.py --check"; else fail "make_bundle.py --check"; fi

mkdir "$tmp/x"
tar -xzf "$bundle" -C "$tmp/x"
top=$tmp/x/$name
if (cd "$top" && sha256sum -c --quiet SHA256SUMS) >"$tmp/out" 2>&1; then ok "sha256sum -c SHA256SUMS"; else fail "sha256sum -c SHA256SUMS"; fi
n_files=$(cd "$top" && find . -type f ! -name SHA256SUMS | wc -l)
n_sums=$(wc -l <"$top/SHA256SUMS")
if [ "$n_files" -eq "$n_sums" ]; then ok "SHA256SUMS lists every file ($n_sums)"; else
    fail "SHA256SUMS lists $n_sums files, the archive holds $n_files"; fi
for f in MANIFEST.json vectors/api_key.json conformance/cases/rule4_oldest_selected_immediately.json \
    sim/traces/default-set.txt schemas/ratelimitly-vectors-v1.schema.json docs/testing-other-clients.md; do
    if [ -f "$top/$f" ]; then ok "holds $f"; else fail "lacks $f"; fi
done
n_vec=$(ls "$src"/vectors/*.json "$src"/conformance/cases/*.json "$src"/sim/traces/*.json | wc -l)
n_got=$(ls "$top"/vectors/*.json "$top"/conformance/cases/*.json "$top"/sim/traces/*.json | wc -l)
if [ "$n_vec" -eq "$n_got" ]; then ok "every vector file, case and trace ($n_got)"; else
    fail "$n_got vector, case and trace files, the checkout has $n_vec"; fi
if "$python" -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(m["version"] != sys.argv[2])' \
    "$top/MANIFEST.json" "$version"; then ok "MANIFEST.json version $version"; else fail "MANIFEST.json version"; fi
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then commit=$(git -C "$src" rev-parse HEAD); else commit=unknown; fi
if "$python" -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(m["commit"] != sys.argv[2])' \
    "$top/MANIFEST.json" "$commit"; then ok "MANIFEST.json commit $commit"; else fail "MANIFEST.json commit"; fi
n_dia=$(ls "$src"/vectors/dialect/*.json | wc -l)
if [ "$(ls "$top"/vectors/dialect/*.json | wc -l)" -eq "$n_dia" ]; then ok "every dialect vector set ($n_dia)"; else
    fail "dialect vector sets missing from the bundle"; fi
if "$python" "$top/schemas/validate.py" --root "$top" >"$tmp/out" 2>&1; then ok "bundled files pass the bundled schemas: $(tail -n 1 "$tmp/out")"; else
    fail "bundled files against the bundled schemas"; fi

if [ -n "$rl_testbed" ]; then
    # The bundle and the binary built from the same tree name the same suite-data version.
    want=$("$rl_testbed" --version | sed -n 's/^suite-data version: //p')
    if "$python" -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(m["suite_data_version"] != sys.argv[2])' \
        "$top/MANIFEST.json" "$want"; then ok "MANIFEST.json suite_data_version = rl-testbed --version ($want)"; else
        fail "MANIFEST.json suite_data_version differs from rl-testbed --version ($want)"; fi
    (cd "$tmp" && RL_TESTBED_DATA="$top" "$rl_testbed" conformance) >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ] && grep -qF "$top/vectors/api_key.json [api_key]" "$tmp/out"; then
        ok "RL_TESTBED_DATA=<unpacked bundle> rl-testbed conformance: $(tail -n 1 "$tmp/out")"
    else
        fail "rl-testbed conformance on the unpacked bundle (exit $rc)"
    fi
fi

# Reproducible: the same tree gives the same bytes.
"$python" "$tool" --version "$version" --out "$tmp/b" >/dev/null 2>&1
if cmp -s "$bundle" "$tmp/b/$name.tar.gz"; then ok "two builds are byte-identical"; else fail "two builds differ"; fi

# A changed file is caught, by name.
echo " " >>"$top/vectors/api_key.json"
mkdir "$tmp/c"
(cd "$tmp/x" && tar -czf "$tmp/c/$name.tar.gz" "$name")
"$python" "$tool" --check "$tmp/c/$name.tar.gz" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -qF "vectors/api_key.json: SHA-256 differs from SHA256SUMS" "$tmp/out"; then
    ok "a changed file fails --check"; else fail "a changed file: exit $rc"; fi
# A file missing from the sums is caught.
(cd "$tmp/x" && echo '{}' >"$name/vectors/extra.json" && tar -czf "$tmp/c/$name.tar.gz" "$name")
"$python" "$tool" --check "$tmp/c/$name.tar.gz" >"$tmp/out" 2>&1
if grep -qF "vectors/extra.json: not in SHA256SUMS" "$tmp/out"; then ok "an unlisted file fails --check"; else
    fail "an unlisted file"; fi

# A damaged archive is a clear failure, not a crash.
head -c 1000 "$bundle" >"$tmp/c/$name.tar.gz"
"$python" "$tool" --check "$tmp/c/$name.tar.gz" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -qF "cannot read the archive" "$tmp/out"; then ok "a truncated archive fails --check"; else
    fail "a truncated archive: exit $rc"; fi

echo "check-bundle: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
