#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz/campaign.sh - fuzz campaigns, crash triage and corpus coverage (fuzz/README.md).
#
# usage: fuzz/campaign.sh [--engine E] [--seconds N] [--jobs J] [--fork F] [--out DIR] [--merge] [--no-build]
#                         [harness...]
#        fuzz/campaign.sh --triage DIR [--regressions OUT] [--no-build] [harness]
#        fuzz/campaign.sh --coverage [--out DIR] [--no-build] [harness...]
#   --engine E   libfuzzer (default; preset "fuzz") or afl (AFL++ persistent mode; preset "afl")
#   --seconds N  budget per harness (default 600)
#   --jobs J     harnesses run at once (default 2, one per core)
#   --fork F     processes per harness (default 1): libFuzzer -fork=F (F workers sharing one
#                corpus, crashes collected, the run goes on); AFL++ one -M main and F-1 -S
#                secondaries syncing through one output directory. Cores used: J x F.
#   --out DIR    write the reports (and the working files, under DIR/work/) to DIR instead of
#                reports/fuzz/ (and build/fuzz-campaign/): a campaign on a shared machine or
#                in CI leaves the source tree alone
#   --merge      afterwards merge inputs with new coverage into fuzz/corpus/<harness>/
#                (libFuzzer -merge=1; for AFL++ the queue is merged with the libFuzzer build)
#   --no-build   use the existing build/fuzz (and build/afl) binaries
#   --triage     deduplicate, minimize and file the crashes under DIR (fuzz/tools/triage.py)
#   --coverage   per-harness llvm-cov report of the corpora (fuzz/tools/coverage.py)
#   harness...   default: every harness of build/<preset>/fuzz/harnesses.txt
#
# A campaign runs each harness with its dictionary and options (fuzz/dict,
# fuzz/options) over a working copy of its corpus, prints progress every 30 s,
# restarts libFuzzer after a crash until the budget is spent, files every
# distinct crash (by sanitizer stack) minimized into fuzz/regressions/<harness>/
# through the triage step, and writes reports/fuzz/<date>-campaign[-afl].md and
# .json (execs/s, coverage, corpus size, crashes per harness), or into --out DIR.
# Working files: build/fuzz-campaign/<stamp>/ (DIR/work/<stamp>/ with --out). Exit status 1
# when a harness crashed. OSS-Fuzz proper: fuzz/README.md "Joining OSS-Fuzz".
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  --triage) shift; exec python3 fuzz/tools/triage.py "$@" ;;
  --coverage) shift; exec python3 fuzz/tools/coverage.py "$@" ;;
esac

engine=libfuzzer
seconds=600
jobs=2
fork=1
out=""
merge=0
build=1
harnesses=()
# A value option needs a non-empty value: '--out' last or '--out=' must not start a campaign that
# writes into the source tree (nor stop on "$2: unbound variable").
need() { [ -n "$2" ] || { echo "campaign: missing value after $1" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --engine|--seconds|--jobs|--fork|--out) need "$1" "${2:-}" ;;
    --engine=*|--seconds=*|--jobs=*|--fork=*|--out=*) need "${1%%=*}" "${1#*=}" ;;
  esac
  case "$1" in
    --engine) engine="$2"; shift 2 ;;
    --engine=*) engine="${1#*=}"; shift ;;
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --jobs) jobs="$2"; shift 2 ;;
    --jobs=*) jobs="${1#*=}"; shift ;;
    --fork) fork="$2"; shift 2 ;;
    --fork=*) fork="${1#*=}"; shift ;;
    --out) out="$2"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --merge) merge=1; shift ;;
    --no-build) build=0; shift ;;
    --triage|--coverage) echo "campaign: $1 must be the first argument" >&2; exit 2 ;;
    -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "campaign: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
for v in "$jobs" "$fork" "$seconds"; do
  case "$v" in ''|*[!0-9]*|0) echo "campaign: --jobs, --fork and --seconds take a positive number, got '$v'" >&2; exit 2 ;; esac
done
case "$engine" in
  libfuzzer) preset=fuzz ;;
  afl) preset=afl ;;
  *) echo "campaign: --engine must be libfuzzer or afl, got $engine" >&2; exit 2 ;;
esac

BIN=build/$preset/fuzz
LFBIN=build/fuzz/fuzz # triage reproduces every crash with the libFuzzer build
stamp=$(date -u +%Y%m%dT%H%M%SZ)
WORK=build/fuzz-campaign/$stamp
REPORTS=reports/fuzz
if [ -n "$out" ]; then
  mkdir -p "$out" || { echo "campaign: --out $out: cannot create" >&2; exit 2; }
  out=$(cd "$out" && pwd)
  WORK=$out/work/$stamp
  REPORTS=$out
fi
mkdir -p "$WORK"
if [ "$build" = 1 ]; then
  for p in fuzz $([ "$preset" = afl ] && echo afl); do
    echo "campaign: building the harnesses (preset $p)"
    cmake --preset "$p" >/dev/null
    cmake --build --preset "$p" >/dev/null
  done
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

echo "campaign: ${#harnesses[@]} harnesses x ${seconds}s under $engine, $jobs at a time, $fork process(es) each; work dir $WORK"

# A value of fuzz/options/<h>.options ([libfuzzer] key = value).
option() {
  local file="fuzz/options/$1.options"
  if [ -f "$file" ]; then sed -n "s/^$2 *= *//p" "$file" | head -n1; fi
}

# The seed folders of a harness that exist.
seed_dirs() {
  local d
  for d in "fuzz/corpus/$1" "fuzz/regressions/$1"; do
    if [ -d "$d" ]; then echo "$d"; fi
  done
}

# Newest libFuzzer status line ("#N ... cov: ... ft: ... exec/s: ...") of a log.
status_line() {
  grep -aE '^#[0-9]+.*cov: ' "$1" 2>/dev/null | tail -n1 || true
}

# libFuzzer: run until the budget is spent (restarting after a crash, at most
# 8 runs); crash inputs go to artifacts.run<N>/. Writes $dir/stats.env.
run_libfuzzer() {
  local h=$1 dir=$2
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local args=(-print_final_stats=1 -timeout=25 -rss_limit_mb=2560 "-artifact_prefix=$dir/artifacts/")
  # -fork=F: F child processes; with -ignore_crashes=1 a crash is saved and the run goes on.
  [ "$fork" -gt 1 ] && args+=("-fork=$fork" -ignore_crashes=1)
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
    "$BIN/fuzz_$h" "${args[@]}" "-max_total_time=$left" "$dir/corpus" $(seed_dirs "$h") \
      > "$dir/run$run.log" 2>&1 || true
    [ -n "$(ls "$dir/artifacts")" ] || break # the budget ran out without a crash
    mv "$dir/artifacts" "$dir/artifacts.run$run"
    mkdir -p "$dir/artifacts"
    # A seed or regression input that crashes would crash every restart.
    grep -aq 'INITED' "$dir/run$run.log" || break
  done
  local execs=0 n log line
  for log in "$dir"/run*.log; do
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    [ -z "$n" ] && n=$(status_line "$log" | sed -n 's/^#\([0-9]*\).*/\1/p')
    execs=$((execs + ${n:-0}))
  done
  line=$(status_line "$dir/run$run.log")
  {
    echo "seconds=$(( $(date +%s) - start ))"; echo "runs=$run"; echo "execs=$execs"
    echo "cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<< "$line")"
    echo "ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<< "$line")"
    echo "corp=$(sed -n 's/.*corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$line")"
    echo "edges=$(grep -aoE 'Loaded 1 modules +\([0-9]+ inline 8-bit counters\)' "$dir/run1.log" \
                  | grep -oE '[0-9]+ inline' | cut -d' ' -f1 | head -n1)"
    echo "corpus_files=$(find "$dir/corpus" $(seed_dirs "$h") -type f | wc -l)"
    echo "new_files=$(find "$dir/corpus" -type f | wc -l)"
    echo "peak_rss_mb=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir"/run*.log | sort -n | tail -n1)"
  } > "$dir/stats.env"
  if [ "$merge" = 1 ]; then
    "$BIN/fuzz_$h" -merge=1 "fuzz/corpus/$h" "$dir/corpus" > "$dir/merge.log" 2>&1 || true
  fi
}

# One value of AFL++'s fuzzer_stats.
afl_stat() {
  sed -n "s/^$2 *: *//p" "$1" 2>/dev/null | head -n1
}

# AFL++: one afl-fuzz run of the whole budget (-V) over the corpus and
# regressions; crash inputs land in afl/default/crashes/. Writes $dir/stats.env.
run_afl() {
  local h=$1 dir=$2 f
  mkdir -p "$dir/in"
  while IFS= read -r -d '' f; do
    cp "$f" "$dir/in/$(basename "$(dirname "$f")")-$(basename "$f")"
  done < <(find $(seed_dirs "$h") -type f ! -name '.*' -size -1024k -print0)
  [ -n "$(ls "$dir/in")" ] || printf '\0' > "$dir/in/empty" # afl-fuzz needs one seed
  local args=(-i "$dir/in" -o "$dir/afl" -V "$seconds" -m none)
  [ -f "fuzz/dict/$h.dict" ] && args+=(-x "fuzz/dict/$h.dict")
  local start; start=$(date +%s)
  # --fork F: one -M main and F-1 -S secondaries sharing -o (AFL++ parallel fuzzing);
  # F = 1: a single instance (its directory is afl/default).
  local inst=default i pids=()
  if [ "$fork" -gt 1 ]; then
    inst=main
    for i in $(seq 2 "$fork"); do
      AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
        afl-fuzz "${args[@]}" -S "s$i" -- "$BIN/fuzz_$h" > "$dir/run1.s$i.log" 2>&1 &
      pids+=($!)
    done
    args+=(-M main)
  fi
  AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1 \
    afl-fuzz "${args[@]}" -- "$BIN/fuzz_$h" > "$dir/run1.log" 2>&1 || true
  for i in "${pids[@]+"${pids[@]}"}"; do wait "$i" || true; done
  local st="$dir/afl/$inst/fuzzer_stats"
  if [ ! -f "$st" ]; then
    echo "campaign: [$h] afl-fuzz did not start: $(grep -a 'PROGRAM ABORT' "$dir/run1.log" | sed 's/\x1b\[[0-9;]*m//g' | head -n1) (log $dir/run1.log)" >&2
  fi
  # Executions over every instance; coverage and queue as the main instance sees them.
  local execs=0 f2
  for f2 in "$dir"/afl/*/fuzzer_stats; do
    [ -f "$f2" ] && execs=$((execs + $(afl_stat "$f2" execs_done)))
  done
  {
    echo "seconds=$(( $(date +%s) - start ))"; echo "runs=$fork"; echo "execs=$execs"
    echo "cov=$(afl_stat "$st" edges_found)"; echo "ft=0"
    echo "corp=$(afl_stat "$st" corpus_count)"; echo "edges=$(afl_stat "$st" total_edges)"
    echo "corpus_files=$(find "$dir/in" -type f | wc -l)"
    echo "new_files=$(afl_stat "$st" corpus_found)"
    echo "peak_rss_mb=$(afl_stat "$st" peak_rss_mb)"
  } > "$dir/stats.env"
  if [ "$merge" = 1 ] && [ -d "$dir/afl/$inst/queue" ]; then
    "$LFBIN/fuzz_$h" -merge=1 "fuzz/corpus/$h" "$dir"/afl/*/queue > "$dir/merge.log" 2>&1 || true
  fi
}

# One harness: fuzz, then file its crashes (triage: one minimized regression
# per distinct stack), then write results/<h>.env.
run_harness() {
  local h=$1 dir="$WORK/$h"
  mkdir -p "$dir"
  "run_$engine" "$h" "$dir"
  local crashes=()
  if [ -n "$(find "$dir" \( -path '*/artifacts*' -o -path '*/crashes/*' \) -type f ! -name README.txt -print -quit)" ]; then
    python3 fuzz/tools/triage.py --no-build --summary "$dir/triage.txt" "$dir" "$h" > "$dir/triage.log" 2>&1 || true
    [ -f "$dir/triage.txt" ] && mapfile -t crashes < "$dir/triage.txt"
  fi
  {
    echo "harness=$h"; echo "engine=$engine"
    sed 's/=$/=0/' "$dir/stats.env"
    for c in "${crashes[@]+"${crashes[@]}"}"; do echo "crash=$c"; done
  } > "$dir/result.env"
}

progress() {
  local h=$1 line
  if [ "$engine" = afl ]; then
    local st="$WORK/$h/afl/default/fuzzer_stats"
    [ "$fork" -gt 1 ] && st="$WORK/$h/afl/main/fuzzer_stats"
    line="execs $(afl_stat "$st" execs_done) edges $(afl_stat "$st" edges_found)/$(afl_stat "$st" total_edges)"
    [ -f "$st" ] || line="(starting)"
  else
    line=$(status_line "$(ls -t "$WORK/$h"/run*.log 2>/dev/null | head -n1)")
    [ -n "$line" ] || line="(starting)"
  fi
  local crashes; crashes=$(find "$WORK/$h" \( -path '*artifacts*' -o -path '*/crashes/id*' \) -type f 2>/dev/null | wc -l)
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
  # Poll every 5 s (so a finished harness frees its slot at once), report every 30 s.
  for _ in 1 2 3 4 5 6; do
    sleep 5
    for h in "${running[@]}"; do kill -0 "${pid_of[$h]}" 2>/dev/null || break 2; done
  done
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

mkdir -p "$REPORTS"
python3 fuzz/tools/campaign_report.py --work "$WORK" --seconds "$seconds" --jobs "$jobs" --engine "$engine" \
  --out "$REPORTS"
! grep -q '^crash=' "$WORK"/*/result.env
