#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every fuzz harness builds and starts under every engine (a stage of scripts/test.sh;
# fuzz/README.md "Checked in CI"):
#   1. list     the harness list, build/fuzz/fuzz/harnesses.txt (written by
#               fuzz/CMakeLists.txt from its rclient_fuzz_target calls, the only
#               list), is the same for every engine, and every harness has its
#               corpus, regressions folder, dictionary and options, and nothing
#               in those folders names a harness that does not exist, and every
#               fuzz/*.c is built by fuzz/CMakeLists.txt
#   2. libfuzzer  preset fuzz: each harness fuzzes N s from its corpus and regressions
#   3. afl        preset afl: afl-fuzz -V N on each harness (40 of its seeds, its regressions)
#   4. cflite   .clusterfuzzlite/build.sh run as the OSS-Fuzz image runs it (CC,
#               CXX, CFLAGS, CXXFLAGS, LIB_FUZZING_ENGINE, SRC, WORK, OUT; ASan
#               + libFuzzer, no Docker); $OUT holds every fuzzer with its seed
#               corpus zip (all of corpus/ and regressions/), options and
#               dictionary, and each fuzzer runs its unzipped seeds
#   5. triage   the planted crashes of fuzz_planted become minimized regressions
#               (fuzz/tools/test_triage.sh)
# usage: scripts/fuzz-smoke.sh [--seconds N]   (N per harness and engine, default 2)
# Work files: build/fuzz-smoke/. Exit status 0 only when every check passed.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=2
case "${1:-}" in
--seconds) seconds="${2:?}" ;;
"") ;;
*) echo "usage: scripts/fuzz-smoke.sh [--seconds N]" >&2; exit 2 ;;
esac

t_start=$SECONDS
T=build/fuzz-smoke
rm -rf "$T"
mkdir -p "$T"
failures=0
fail() {
    echo "fuzz-smoke: FAIL: $*"
    failures=$((failures + 1))
}
step() {
    echo "fuzz-smoke: $1 ($((SECONDS - t_start)) s)"
}
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 AFL_FAST_CAL=1

# Two jobs at a time (one per core); a job's output goes to its log.
pids=()
spawn() {
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
    "$@" &
    pids+=($!)
}
join() {
    local p
    for p in "${pids[@]+"${pids[@]}"}"; do wait "$p" || true; done
    pids=()
}

# ---- builds -----------------------------------------------------------------------------
for preset in fuzz afl; do
    if ! { cmake --preset "$preset" -DRCLIENT_FUZZ_PLANTED=ON >"$T/configure-$preset.log" 2>&1 &&
        cmake --build --preset "$preset" >"$T/build-$preset.log" 2>&1; }; then
        tail -n 30 "$T/configure-$preset.log" "$T/build-$preset.log"
        fail "preset $preset does not build"
        exit 1
    fi
done
step "built presets fuzz and afl"
mapfile -t harnesses <build/fuzz/fuzz/harnesses.txt
declare -A is_harness=()
for h in "${harnesses[@]}"; do is_harness[$h]=1; done

# ---- 1. the harness list ------------------------------------------------------------------
cmp -s build/fuzz/fuzz/harnesses.txt build/afl/fuzz/harnesses.txt ||
    fail "the afl build lists other harnesses than the fuzz build"
for h in "${harnesses[@]}"; do
    [ -d "fuzz/corpus/$h" ] && [ -n "$(ls "fuzz/corpus/$h")" ] || fail "$h: no seeds in fuzz/corpus/$h/"
    [ -d "fuzz/regressions/$h" ] || fail "$h: no fuzz/regressions/$h/ (keep a .gitkeep)"
    [ -f "fuzz/dict/$h.dict" ] || fail "$h: no fuzz/dict/$h.dict"
    [ -f "fuzz/options/$h.options" ] || fail "$h: no fuzz/options/$h.options"
done
for p in fuzz/corpus/* fuzz/regressions/* fuzz/dict/*.dict fuzz/options/*.options; do
    [ -e "$p" ] || continue
    name=$(basename "$p")
    name=${name%.dict}
    name=${name%.options}
    [ -d "$p" ] || [ "$name" != "$(basename "$p")" ] || continue # files such as fuzz/regressions/DESCRIPTIONS
    [ -n "${is_harness[$name]+x}" ] || fail "$p: no harness $name in fuzz/CMakeLists.txt"
done
for src in fuzz/*.c; do # a harness source nobody registered
    grep -qw "$(basename "$src")" fuzz/CMakeLists.txt || fail "$src is not built by fuzz/CMakeLists.txt"
done
step "harness list: ${#harnesses[@]} harnesses"

option() {
    sed -n "s/^$2 *= *//p" "fuzz/options/$1.options" 2>/dev/null | head -n1
}

# ---- 2. libFuzzer -------------------------------------------------------------------------
libfuzzer_one() {
    local h=$1 d="$T/libfuzzer/$h"
    mkdir -p "$d/corpus"
    local args=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -dict="fuzz/dict/$h.dict")
    local max_len; max_len=$(option "$h" max_len)
    [ -n "$max_len" ] && args+=(-max_len="$max_len")
    if ! build/fuzz/fuzz/fuzz_"$h" "${args[@]}" "$d/corpus" "fuzz/corpus/$h" "fuzz/regressions/$h" >"$d/log" 2>&1 ||
        ! grep -q 'INITED' "$d/log" || ! grep -q '^stat::number_of_executed_units' "$d/log"; then
        tail -n 25 "$d/log"
        echo "fuzz-smoke: FAIL: libfuzzer $h (log $d/log)" >"$d/failed"
    fi
}
for h in "${harnesses[@]}"; do spawn libfuzzer_one "$h"; done
join
for h in "${harnesses[@]}"; do
    [ -f "$T/libfuzzer/$h/failed" ] && fail "libfuzzer $h does not start or crashed (log $T/libfuzzer/$h/log)"
done
step "libFuzzer: every harness ran ${seconds} s"

# ---- 3. AFL++ -----------------------------------------------------------------------------
afl_one() {
    local h=$1 d="$T/afl/$h"
    mkdir -p "$d/in"
    # 40 seeds (and every regression): afl-fuzz calibrates each one before it fuzzes, and
    # the libFuzzer step above already ran every seed.
    find "fuzz/corpus/$h" -type f ! -name '.*' | sort | head -n 40 | xargs -r cp -t "$d/in/"
    find "fuzz/regressions/$h" -type f ! -name '.*' -exec cp {} "$d/in/" \;
    afl-fuzz -i "$d/in" -o "$d/out" -V "$seconds" -m none -x "fuzz/dict/$h.dict" -- build/afl/fuzz/fuzz_"$h" \
        >"$d/log" 2>&1
    local rc=$?
    local execs; execs=$(sed -n 's/^execs_done *: *//p' "$d/out/default/fuzzer_stats" 2>/dev/null)
    if [ "$rc" -ne 0 ] || [ "${execs:-0}" -eq 0 ] || ls "$d/out/default/crashes"/id:* >/dev/null 2>&1; then
        tail -n 25 "$d/log"
        echo "fuzz-smoke: FAIL: afl $h" >"$d/failed"
    fi
}
for h in "${harnesses[@]}"; do spawn afl_one "$h"; done
join
for h in "${harnesses[@]}"; do
    [ -f "$T/afl/$h/failed" ] && fail "afl-fuzz $h does not start or crashed (log $T/afl/$h/log)"
done
step "AFL++: every harness ran ${seconds} s"

# ---- 4. ClusterFuzzLite / OSS-Fuzz build --------------------------------------------------
# As the base-builder image: a copy of the repository at $SRC/rclient, build.sh copied to
# $SRC/build.sh and run from $SRC/rclient with OSS-Fuzz's ASan+libFuzzer flags.
mkdir -p "$T/cflite/src" "$T/cflite/work" "$T/cflite/out"
C="$(cd "$T/cflite" && pwd)"
mkdir -p "$C/src/rclient" # as the Dockerfile's COPY: the working tree without ignored files
git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null |
    tar -xf - -C "$C/src/rclient"
cp .clusterfuzzlite/build.sh "$C/src/build.sh"
if ! (
    cd "$C/src/rclient" &&
        export CC=clang CXX=clang++ \
            CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link" \
            LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64 \
            SRC="$C/src" WORK="$C/work" OUT="$C/out" &&
        export CXXFLAGS="$CFLAGS" &&
        bash -eu "$SRC/build.sh"
) >"$C/build.log" 2>&1; then
    tail -n 30 "$C/build.log"
    fail ".clusterfuzzlite/build.sh failed (log $C/build.log)"
else
    cmp -s "$C/work/rclient-build/fuzz/harnesses.txt" build/fuzz/fuzz/harnesses.txt ||
        fail "the ClusterFuzzLite build lists other harnesses than the fuzz build"
    for f in "$C/out"/rclient_*; do
        n=$(basename "$f")
        n=${n#rclient_}
        n=${n%_seed_corpus.zip}
        n=${n%.options}
        n=${n%.dict}
        [ -n "${is_harness[$n]+x}" ] || fail "\$OUT has $(basename "$f"), of no harness"
    done
    cflite_one() {
        local h=$1 o="$C/out/rclient_$1" d="$C/run/$1"
        mkdir -p "$d/seeds"
        local msg=""
        if [ ! -x "$o" ]; then
            msg="no fuzzer"
        elif [ ! -f "$o.options" ] || ! grep -q '^\[libfuzzer\]' "$o.options"; then
            msg="no options file with a [libfuzzer] section"
        elif grep -q '^dict *=' "$o.options" && [ ! -f "$C/out/$(sed -n 's/^dict *= *//p' "$o.options")" ]; then
            msg="options name a dictionary that is not in \$OUT"
        elif ! cmp -s "$o.dict" "fuzz/dict/$h.dict"; then
            msg="no dictionary (or not fuzz/dict/$h.dict)"
        elif ! unzip -q "${o}_seed_corpus.zip" -d "$d/seeds" 2>"$d/unzip.log"; then
            msg="no readable seed corpus zip"
        elif [ "$(find "$d/seeds" -type f | wc -l)" -ne \
            "$(find "fuzz/corpus/$h" "fuzz/regressions/$h" -type f ! -name '.*' | wc -l)" ]; then
            msg="the seed corpus zip does not hold every file of fuzz/corpus/$h and fuzz/regressions/$h"
        elif ! "$o" -runs=0 -max_len="$(option "$h" max_len || true)" "$d/seeds" >"$d/log" 2>&1 || ! grep -q INITED "$d/log"; then
            msg="does not run its seeds (log $d/log)"
        fi
        [ -z "$msg" ] || echo "$msg" >"$d/failed"
    }
    for h in "${harnesses[@]}"; do spawn cflite_one "$h"; done
    join
    for h in "${harnesses[@]}"; do
        [ -f "$C/run/$h/failed" ] && fail "ClusterFuzzLite rclient_$h: $(cat "$C/run/$h/failed")"
    done
fi
step "ClusterFuzzLite build: \$OUT checked, every fuzzer ran its seeds"

# ---- 5. triage of planted crashes -----------------------------------------------------------
bash fuzz/tools/test_triage.sh "$T/triage" >"$T/triage.log" 2>&1 || {
    cat "$T/triage.log"
    fail "triage of the planted crashes (fuzz/tools/test_triage.sh)"
}
step "triage: planted crashes deduplicated and minimized"

if [ "$failures" -gt 0 ]; then
    echo "fuzz-smoke: $failures check(s) failed in $((SECONDS - t_start)) s"
    exit 1
fi
echo "fuzz-smoke: ${#harnesses[@]} harnesses build and start under libFuzzer, AFL++ and the ClusterFuzzLite build ($((SECONDS - t_start)) s)"
