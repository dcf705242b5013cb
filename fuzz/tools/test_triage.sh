#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Test of crash triage (fuzz/tools/triage.py) on fuzz_planted, the quota_word
# harness with three planted bugs (fuzz/fuzz_planted.c). Needs the fuzz and afl
# presets configured with -DRCLIENT_FUZZ_PLANTED=ON and built (scripts/fuzz-smoke.sh does).
#
# Input, laid out as a campaign leaves it: two libFuzzer artifacts with the
# abort pattern at different offsets (one crash: same stack), one with the
# heap over-read, one AFL++ finding with the shift pattern among other bytes,
# one artifact that does not crash, and afl-fuzz's README.txt.
# Expected: three regressions, each exactly its pattern ("\xde\xad\xbe\xef",
# "OVR", "SHFT"; the AFL++ one minimized by afl-tmin), three DESCRIPTIONS
# lines, the non-crashing input reported, exit status 1; a second run files
# nothing new and reports the three as known.
# usage: fuzz/tools/test_triage.sh [WORKDIR]   (default build/fuzz-smoke/triage)
set -uo pipefail
cd "$(dirname "$0")/../.."
D=${1:-build/fuzz-smoke/triage}
for b in build/fuzz/fuzz/fuzz_planted build/afl/fuzz/fuzz_planted; do
    [ -x "$b" ] || { echo "test_triage: no $b (configure with -DRCLIENT_FUZZ_PLANTED=ON)"; exit 2; }
done
rm -rf "$D"
A="$D/in/planted/artifacts" Q="$D/in/planted/afl/default/crashes" R="$D/reg"
mkdir -p "$A" "$Q" "$R" "$D/want"
printf 'abc\xde\xad\xbe\xefxyz0123456789' >"$A/crash-1"
printf '\xde\xad\xbe\xef-more-bytes-here-to-cut' >"$A/crash-2"
printf 'OVRjunkjunkjunk' >"$A/crash-3"
printf 'fine' >"$A/crash-4"
printf 'aaaaaaaaaaqqSHFTqqbbbbbbbbbbbbbbbbbbbb' >"$Q/id:000000,sig:06,src:000000,time:10,execs:100,op:havoc,rep:4"
echo "afl-fuzz writes this file" >"$Q/README.txt"
printf '\xde\xad\xbe\xef' >"$D/want/invariant"
printf 'OVR' >"$D/want/heap-buffer-overflow"
printf 'SHFT' >"$D/want/undefined"

failures=0
check() { # description, then a command that must succeed
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
triage() {
    python3 fuzz/tools/triage.py --no-build --minimize-seconds 30 --regressions "$R" --summary "$D/summary.txt" \
        "$D/in" >"$D/run$1.log" 2>&1
    echo $? >"$D/rc$1"
    cat "$D/run$1.log"
}
one_file() { # kind: exactly one regression of that kind, with the expected bytes
    local files=("$R"/planted/"$1"-*)
    [ ${#files[@]} -eq 1 ] && [ -f "${files[0]}" ] && cmp -s "${files[0]}" "$D/want/$1"
}

triage 1
check "exit status 1 (one input does not reproduce)" [ "$(cat "$D/rc1")" = 1 ]
check "the non-crashing input is named" grep -q 'crash-4: does not crash' "$D/run1.log"
check "three regressions filed" [ "$(find "$R/planted" -type f | wc -l)" -eq 3 ]
check "abort pattern at two offsets: one regression, exactly de ad be ef" one_file invariant
check "heap over-read: one regression, exactly OVR" one_file heap-buffer-overflow
check "AFL++ shift finding: one regression, exactly SHFT" one_file undefined
check "the AFL++ finding was minimized by afl-tmin" grep -q '^planted/undefined-.*minimized by afl-tmin' "$R/DESCRIPTIONS"
check "the abort regression names its check and function" \
    grep -q '^planted/invariant-.*violated at fuzz/fuzz_planted.c:[0-9]* in planted_abort' "$R/DESCRIPTIONS"
check "three description lines" [ "$(wc -l <"$R/DESCRIPTIONS")" -eq 3 ]
check "three summary lines" [ "$(wc -l <"$D/summary.txt")" -eq 3 ]

triage 2
check "second run: the three are known" [ "$(grep -c 'already known' "$D/run2.log")" -eq 3 ]
check "second run: nothing new filed" [ "$(find "$R/planted" -type f | wc -l)" -eq 3 ]
check "second run: no new description" [ "$(wc -l <"$R/DESCRIPTIONS")" -eq 3 ]

[ "$failures" -eq 0 ] && echo "test_triage: passed" || echo "test_triage: $failures check(s) failed"
[ "$failures" -eq 0 ]
