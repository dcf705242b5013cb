#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_bad_files.sh RL_TESTBED TESTDATA_DIR
#
# Runs `rl-testbed vectors` on every broken file listed in bad_files.tsv and on
# a few generated ones (missing file, directory, binary bytes, deep nesting,
# very long field name, many tests). Each run must fail cleanly: exit status 1
# (not a crash: < 128, no sanitizer report), the named field and problem in
# the output, and "vectors: P passed, F failed" as the last line of stdout.
set -u
bin=$1
dir=$2
tab=$(printf '\t')
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

# check NAME PATH WANT PASSED FAILED
check() {
    expect_rejected "$1" "$3" "vectors: $4 passed, $5 failed" -- vectors "$2"
}

while IFS="$tab" read -r file want counts; do
    case "$file" in '' | '#'*) continue ;; esac
    [ -n "$counts" ] || counts="0 1"
    # shellcheck disable=SC2086 # counts is "P F"
    check "$file" "$dir/bad/$file" "$want" $counts
done <"$dir/bad_files.tsv"

# Every file in bad/ must be listed, so none is silently left out.
for f in "$dir"/bad/*.json; do
    name=$(basename "$f")
    if ! grep -q "^$name$tab" "$dir/bad_files.tsv"; then
        failures=$((failures + 1))
        echo "FAIL $name: not listed in bad_files.tsv"
    fi
done

check "missing file" "$tmp/does_not_exist.json" "does_not_exist.json: (file): unable to open" 0 1
mkdir "$tmp/a_directory.json"
check "directory" "$tmp/a_directory.json" "a_directory.json: (file): is a directory" 0 1
mkfifo "$tmp/a_fifo.json"
check "fifo" "$tmp/a_fifo.json" "a_fifo.json: (file): not a regular file" 0 1
printf '\000\001\002\377\376binary' >"$tmp/binary.json"
check "binary bytes" "$tmp/binary.json" "binary.json: (json):" 0 1
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; print "" }' >"$tmp/deep.json"
check "deep nesting" "$tmp/deep.json" "deep.json: (json): maximum parsing depth" 0 1
awk 'BEGIN {
    printf "{\"schema\": \"ratelimitly-vectors/v1\", \"kind\": \"server_id\", \"source\": \"generated\", \"tests\": [{\"tcId\": 1, \"result\": \"valid\", \"input\": {\"server_id\": \"1\"}, \"expected\": {\"";
    for (i = 0; i < 5000; i++) printf "k";
    print "\": 1}}]}"
}' >"$tmp/long_key.json"
check "long field name" "$tmp/long_key.json" "tests[0].expected.kkkkkkkk" 0 1
awk 'BEGIN {
    printf "{\"schema\": \"ratelimitly-vectors/v1\", \"kind\": \"server_id\", \"source\": \"generated\", \"tests\": [";
    for (i = 1; i <= 5000; i++) {
        node = (i == 4321) ? 0 : i;
        printf "%s{\"tcId\": %d, \"result\": \"valid\", \"input\": {\"server_id\": \"%d\"}, \"expected\": {\"server_start_s\": \"1735689600\", \"listener_id\": 0, \"node_id\": %d}}", (i > 1 ? "," : ""), i, i, node;
    }
    print "]}"
}' >"$tmp/many.json"
check "many tests, one wrong" "$tmp/many.json" "tests[4320].expected.node_id: want 0 got 4321" 4999 1

echo "run_bad_files: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
