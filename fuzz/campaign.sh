#!/usr/bin/env bash
# fuzz/campaign.sh - run the libFuzzer harnesses for a time budget and report.
#
# usage: fuzz/campaign.sh [--seconds N] [--jobs J] [--merge] [--no-build] [harness...]
#   --seconds N  budget per harness (default 600)
#   --jobs J     harnesses run at once (default 2, one per core)
#   --merge      afterwards merge inputs with new coverage into fuzz/corpus/<harness>/
#   --no-build   use the existing build/fuzz binaries
#   harness...   default: every harness of build/fuzz/fuzz/harnesses.txt
#
# Builds the "fuzz" preset (clang, -fsanitize=fuzzer-no-link,address,undefined),
# runs each harness with its dictionary and options (fuzz/dict, fuzz/options)
# over a working copy of its corpus, prints progress every 30 s, restarts after
# a crash until the budget is spent, minimizes every crash into
# fuzz/regressions/<harness>/, and writes reports/fuzz/<date>-campaign.md and
# .json (execs/s, coverage cov/ft, corpus size, crashes per harness).
# Working files: build/fuzz-campaign/<stamp>/. Exit status 1 when a harness crashed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

seconds=600
jobs=2
merge=0
build=1
harnesses=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --merge) merge=1; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "campaign: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done

BIN=build/fuzz/fuzz
stamp=$(date -u +%Y%m%dT%H%M%SZ)
WORK=build/fuzz-campaign/$stamp
mkdir -p "$WORK"
if [ "$build" = 1 ]; then
  echo "campaign: building the libFuzzer harnesses (preset fuzz)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz >/dev/null
  # The source the report names (without --no-build the binaries match it).
  state=clean
  [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || state=dirty
  echo "$(git rev-parse --short HEAD 2>/dev/null || echo unknown) $state" > "$WORK/source.txt"
fi
if [ ${#harnesses[@]} -eq 0 ]; then
  mapfile -t harnesses < "$BIN/harnesses.txt"
fi
for h in "${harnesses[@]}"; do
  [ -x "$BIN/fuzz_$h" ] || { echo "campaign: no harness $BIN/fuzz_$h" >&2; exit 2; }
done

echo "campaign: ${#harnesses[@]} harnesses x ${seconds}s, $jobs at a time; work dir $WORK"

# max_len from fuzz/options/<h>.options ([libfuzzer] max_len = N).
option() {
  local file="fuzz/options/$1.options"
  [ -f "$file" ] && sed -n "s/^$2 *= *//p" "$file" | head -n1
}

# Newest libFuzzer status line ("#N ... cov: ... ft: ... exec/s: ...") of a log.
status_line() {
  grep -aE '^#[0-9]+.*cov: ' "$1" 2>/dev/null | tail -n1 || true
}

# One harness: run until the budget is spent (restarting after a crash, at
# most 8 runs), then minimize crashes and write results/<h>.env.
run_harness() {
  local h=$1 dir="$WORK/$h"
  mkdir -p "$dir/corpus" "$dir/artifacts" "fuzz/regressions/$h"
  local args=(-print_final_stats=1 -timeout=25 -rss_limit_mb=2560 "-artifact_prefix=$dir/artifacts/")
  local max_len; max_len=$(option "$h" max_len)
  [ -n "$max_len" ] && args+=("-max_len=$max_len")
  [ -f "fuzz/dict/$h.dict" ] && args+=("-dict=fuzz/dict/$h.dict")
  local start end left run=0
  start=$(date +%s)
  end=$((start + seconds))
  while :; do
    left=$((end - $(date +%s)))
    [ "$left" -ge 5 ] && [ "$run" -lt 8 ] || break
    run=$((run + 1))
    "$BIN/fuzz_$h" "${args[@]}" "-max_total_time=$left" "$dir/corpus" "fuzz/corpus/$h" "fuzz/regressions/$h" \
      > "$dir/run$run.log" 2>&1 || true
    [ -n "$(ls "$dir/artifacts")" ] || break # the budget ran out without a crash
    mv "$dir/artifacts" "$dir/artifacts.run$run"
    mkdir -p "$dir/artifacts"
    # A seed or regression input that crashes would crash every restart.
    grep -aq 'INITED' "$dir/run$run.log" || break
  done
  local elapsed=$(( $(date +%s) - start ))
  # Minimize each crash into fuzz/regressions/<h>/<kind>-<sha1>.
  local crashes=() a adir kind out sum why key
  local -A seen=()
  for a in "$dir"/artifacts.run*/*; do
    [ -f "$a" ] || continue
    adir=$(dirname "$a")
    kind=$(basename "$a"); kind=${kind%%-*}
    why=$(grep -ahE 'fuzz invariant violated|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' \
          "$dir/run${adir##*.run}.log" | head -n1 | cut -c1-200 || true)
    # One regression per distinct failure (pids and addresses stripped).
    key=$(sed 's/==[0-9]*==//g; s/0x[0-9a-f]*//g' <<< "$kind $why")
    [ -z "${seen[$key]+x}" ] || continue
    seen[$key]=1
    out="$dir/min-$(basename "$a")"
    "$BIN/fuzz_$h" -minimize_crash=1 -max_total_time=60 -runs=100000 "-exact_artifact_path=$out" "$a" \
      > "$out.log" 2>&1 || true
    [ -s "$out" ] || cp "$a" "$out"
    sum=$(sha1sum "$out" | cut -c1-16)
    cp "$out" "fuzz/regressions/$h/$kind-$sum"
    crashes+=("$kind-$sum|${why//|/ }")
  done
  # Totals over all runs; coverage from the last status line.
  local execs=0 n line cov ft corp
  for log in "$dir"/run*.log; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    [ -z "$n" ] && n=$(status_line "$log" | sed -n 's/^#\([0-9]*\).*/\1/p')
    execs=$((execs + ${n:-0}))
  done
  line=$(status_line "$dir/run$run.log")
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$line")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<< "$line")
  corp=$(sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$line")
  local edges; edges=$(grep -aoE 'Loaded 1 modules +\([0-9]+ inline 8-bit counters\)' "$dir/run1.log" | grep -oE '[0-9]+ inline' | cut -d' ' -f1 | head -n1)
  local rss; rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir"/run*.log | sort -n | tail -n1)
  {
    echo "harness=$h"; echo "seconds=$elapsed"; echo "runs=$run"; echo "execs=$execs"
    echo "cov=${cov:-0}"; echo "ft=${ft:-0}"; echo "corp=${corp:-0/0b}"; echo "edges=${edges:-0}"
    echo "corpus_files=$(find "$dir/corpus" "fuzz/corpus/$h" -type f | wc -l)"
    echo "new_files=$(find "$dir/corpus" -type f | wc -l)"
    echo "peak_rss_mb=${rss:-0}"
    for c in "${crashes[@]+"${crashes[@]}"}"; do echo "crash=$c"; done
  } > "$dir/result.env"
  if [ "$merge" = 1 ]; then
    "$BIN/fuzz_$h" -merge=1 "fuzz/corpus/$h" "$dir/corpus" > "$dir/merge.log" 2>&1 || true
  fi
}

progress() {
  local h=$1 line
  line=$(status_line "$(ls -t "$WORK/$h"/run*.log 2>/dev/null | head -n1)")
  [ -n "$line" ] || line="(starting)"
  local crashes; crashes=$(find "$WORK/$h" -path '*artifacts*' -type f 2>/dev/null | wc -l)
  echo "campaign: [$h] $(( $(date +%s) - ${started[$h]} ))/${seconds}s  ${line}  crashes: $crashes"
}

declare -A started pid_of
pending=("${harnesses[@]}")
running=()
while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
  while [ ${#running[@]} -lt "$jobs" ] && [ ${#pending[@]} -gt 0 ]; do
    h=${pending[0]}; pending=("${pending[@]:1}")
    run_harness "$h" &
    pid_of[$h]=$!
    started[$h]=$(date +%s)
    running+=("$h")
    echo "campaign: [$h] started"
  done
  sleep $(( seconds < 30 ? 5 : 30 ))
  still=()
  for h in "${running[@]}"; do
    if kill -0 "${pid_of[$h]}" 2>/dev/null; then
      still+=("$h")
      progress "$h"
    else
      wait "${pid_of[$h]}" || true
      echo "campaign: [$h] finished: $(tr '\n' ' ' < "$WORK/$h/result.env" | cut -c1-220)"
    fi
  done
  running=("${still[@]+"${still[@]}"}")
done

mkdir -p reports/fuzz
python3 fuzz/tools/campaign_report.py --work "$WORK" --seconds "$seconds" --jobs "$jobs" --out reports/fuzz
grep -q '^crash=' "$WORK"/*/result.env && exit 1
exit 0
