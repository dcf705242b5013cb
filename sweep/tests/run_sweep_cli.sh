#!/bin/sh
# SPDX-License-Identifier: MIT
# CLI tests of `rl-testbed sweep` (docs/sweep.md, tools/rl-testbed/README.md):
# determinism across runs and --jobs, shards merged equal one run, stop and
# resume (--stop-after and a signal) equal one run, refusals name the file
# and field, merge refuses mismatched slices.
# usage: run_sweep_cli.sh RL_TESTBED DATA_DIR
set -u
RL=$1
D=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
same_outputs() { # DIR_A DIR_B: every output file byte for byte
    for f in results.csv results.json summary.csv summary.json units.log manifest.json; do
        cmp -s "$1/$f" "$2/$f" || fail "$1/$f and $2/$f differ"
    done
}

"$RL" sweep "$D/small.json" --out "$T/a" --jobs 1 --quiet >"$T/a.out" 2>&1 || fail "run a: $(cat "$T/a.out")"
"$RL" sweep "$D/small.json" --out "$T/b" --jobs 1 --quiet >/dev/null 2>&1 || fail "run b"
"$RL" sweep "$D/small.json" --out "$T/j2" --jobs 2 --quiet >/dev/null 2>&1 || fail "run j2"
cmp -s "$T/a/results.csv" "$T/b/results.csv" || fail "two runs with the same seeds differ"
same_outputs "$T/a" "$T/j2"
grep -q '^sweep small: 45 units, 45 run now' "$T/a.out" || fail "summary line: $(cat "$T/a.out")"
[ "$(wc -l <"$T/a/results.csv")" -eq 46 ] || fail "results.csv rows"
head -1 "$T/a/results.csv" | grep -q '^config,trace,seed,status,error,digest,events,submitted,' || fail "results.csv header"
head -1 "$T/a/summary.csv" | grep -qx 'config,trace,metric,key,n,errors,mean,min,p50,p90,p99,max,baseline,diff_n,diff_mean,diff_sd,diff_ci_low,diff_ci_high' \
    || fail "summary.csv header"

# shards: 0/2 + 1/2 (the second through JOB_COMPLETION_INDEX) merged = one run
"$RL" sweep "$D/small.json" --out "$T/s0" --shard 0/2 --quiet >"$T/s0.out" 2>&1 || fail "shard 0"
JOB_COMPLETION_INDEX=1 "$RL" sweep "$D/small.json" --out "$T/s1" --shard auto/2 --quiet >/dev/null 2>&1 || fail "shard 1"
grep -q 'slice complete' "$T/s0.out" || fail "shard summary: $(cat "$T/s0.out")"
[ ! -e "$T/s0/results.csv" ] || fail "a shard wrote results.csv"
"$RL" sweep merge "$T/s0" "$T/s1" --out "$T/m" >"$T/m.out" 2>&1 || fail "merge: $(cat "$T/m.out")"
same_outputs "$T/a" "$T/m"

# a report on a shard says to merge first (issue 26; it said "summary.json: No such file or directory")
"$RL" sweep report "$T/s0" >/dev/null 2>"$T/e" && fail "report on a shard accepted"
grep -qF -- "$T/s0 has no summary.json: it is a shard of a sweep (or an unfinished run); merge the shards first" "$T/e" ||
    fail "report on a shard: $(cat "$T/e")"
# sweep merge --help is merge's own usage, not the sweep's
"$RL" sweep merge --help >"$T/h" 2>&1 || fail "sweep merge --help: exit status"
[ "$(head -n 1 "$T/h")" = "usage: rl-testbed sweep merge DIR... --out DIR" ] || fail "sweep merge --help: $(head -n 1 "$T/h")"
# merge refusals: a slice twice, a slice missing, another sweep, another build
"$RL" sweep merge "$T/s0" "$T/s0" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of a slice twice accepted"
grep -qF "$T/s0 and $T/s0 are the same directory: give each slice once" "$T/e" || fail "twice message: $(cat "$T/e")"
cp -r "$T/s0" "$T/s0c"
"$RL" sweep merge "$T/s0" "$T/s0c" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of a slice and its copy accepted"
grep -q 'is in both' "$T/e" || fail "overlap message: $(cat "$T/e")"
"$RL" sweep merge "$T/s0" "$T/s1" --out "$T/s0" >/dev/null 2>"$T/e" && fail "merge into one of its slices accepted"
grep -qF -- "--out $T/s0 is the slice $T/s0: merge into a new directory" "$T/e" || fail "merge into a slice: $(cat "$T/e")"
[ ! -e "$T/s0/results.csv" ] || fail "a refused merge wrote into a slice"
"$RL" sweep merge "$T/s0" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of half the slices accepted"
grep -q 'units are in no slice' "$T/e" || fail "missing message: $(cat "$T/e")"
"$RL" sweep "$D/other.json" --out "$T/o1" --shard 1/2 --quiet >/dev/null 2>&1 || fail "other shard"
"$RL" sweep merge "$T/s0" "$T/o1" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of two sweeps accepted"
grep -q 'another sweep (sweep hash' "$T/e" || fail "sweep mismatch message: $(cat "$T/e")"
cp -r "$T/s1" "$T/s1b"
sed 's/"build_id": "[^"]*"/"build_id": "0.0.0+0000000000000000"/' "$T/s1/manifest.json" >"$T/s1b/manifest.json"
"$RL" sweep merge "$T/s0" "$T/s1b" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of two builds accepted"
grep -q 'another build (0.0.0+0000000000000000)' "$T/e" || fail "build mismatch message: $(cat "$T/e")"
mkdir "$T/empty"
"$RL" sweep merge "$T/s0" "$T/empty" --out "$T/m2" >/dev/null 2>"$T/e" && fail "merge of a directory without a manifest accepted"
grep -qF "$T/empty: no manifest.json: not a sweep output directory (or its run has not started)" "$T/e" \
    || fail "no manifest message: $(cat "$T/e")"
[ ! -e "$T/m2" ] || fail "a refused merge wrote output"

# stop and resume
"$RL" sweep "$D/small.json" --out "$T/r" --stop-after 7 --quiet >/dev/null 2>&1
[ $? -eq 3 ] || fail "--stop-after: exit status 3 expected"
[ "$(wc -l <"$T/r/units.log")" -eq 7 ] || fail "--stop-after 7 recorded $(wc -l <"$T/r/units.log")"
"$RL" sweep "$D/small.json" --out "$T/r" --jobs 2 --quiet >"$T/r.out" 2>&1 || fail "resume: $(cat "$T/r.out")"
grep -q '38 run now .*, 7 already done' "$T/r.out" || fail "resume summary: $(cat "$T/r.out")"
same_outputs "$T/a" "$T/r"

# interrupted by a signal, resumed
"$RL" sweep "$D/long.json" --out "$T/L" --jobs 2 >/dev/null 2>&1 &
pid=$!
n=0
# readiness: a unit recorded, so the signal handlers are in place (a hang guard of a minute)
while [ "$n" -lt 6000 ] && [ ! -s "$T/L/units.log" ]; do sleep 0.01; n=$((n + 1)); done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || [ "$rc" -eq 0 ] || fail "interrupted run: exit status $rc"
"$RL" sweep "$D/long.json" --out "$T/L" --quiet >/dev/null 2>&1 || fail "resume after a signal"
"$RL" sweep "$D/long.json" --out "$T/L1" --quiet >/dev/null 2>&1 || fail "long run"
same_outputs "$T/L" "$T/L1"

# progress when stderr is not a terminal: plain lines, the last one with the total
"$RL" sweep "$D/small.json" --out "$T/p" >"$T/p.out" 2>"$T/p.err" || fail "progress run"
tail -1 "$T/p.err" | grep -q '^sweep: 45/45 units  [0-9.]* runs/s  ETA ' || fail "progress line: $(cat "$T/p.err")"
grep -q "$(printf '\r')" "$T/p.err" && fail "a carriage return in non-terminal progress"
"$RL" sweep "$D/small.json" --out "$T/p2" --stop-after 3 >"$T/p2.out" 2>/dev/null
grep -q '^sweep small: 45 units, 3 run now .*incomplete (rerun to resume)' "$T/p2.out" || fail "stop line: $(cat "$T/p2.out")"

# refusals before anything runs
cp -r "$T/a" "$T/ab"
sed 's/"build_id": "[^"]*"/"build_id": "0.0.0+0000000000000000"/' "$T/a/manifest.json" >"$T/ab/manifest.json"
"$RL" sweep "$D/small.json" --out "$T/ab" >/dev/null 2>"$T/e" && fail "resume with another build accepted"
grep -q 'holds results of another build (0.0.0+0000000000000000, this build ' "$T/e" || fail "build message: $(cat "$T/e")"
"$RL" sweep "$D/small.json" --out "$T/a" --shard 1/2 >/dev/null 2>"$T/e" && fail "resume as another shard accepted"
grep -q 'holds shard 0/1, not 1/2' "$T/e" || fail "shard message: $(cat "$T/e")"
"$RL" sweep "$D/other.json" --out "$T/a" >/dev/null 2>"$T/e" && fail "resume of another sweep accepted"
grep -q 'holds results of another sweep' "$T/e" || fail "changed sweep message: $(cat "$T/e")"
"$RL" sweep "$D/bad/kind.json" --out "$T/bad" >/dev/null 2>"$T/e"
[ $? -eq 2 ] || fail "malformed sweep: exit status 2 expected"
grep -qF "kind.json: configurations[3].replay_gap.kind: expected one of fixed, linear, exponential" "$T/e" \
    || fail "malformed message: $(cat "$T/e")"
"$RL" sweep "$D/bad/ttl.json" --out "$T/bad" >/dev/null 2>"$T/e" && fail "invalid configuration accepted"
grep -qF "ttl.json: configurations[1] (big): invalid for trace ha_healthy (traces[0]), client c1: horizon H exceeds the key's dedup_ttl_ms_max (H = 600 ms, dedup_ttl_ms_max = 300 ms)" "$T/e" \
    || fail "invalid configuration message: $(cat "$T/e")"
grep -qF "dedup_ttl_ms_max = 300 ms); shorten the horizon H = U * (sum of B(k) for k = 0..N, plus F) or leave this trace out" "$T/e" \
    || fail "invalid configuration hint: $(cat "$T/e")"
[ ! -e "$T/bad" ] || fail "a refused sweep created its output directory"
"$RL" sweep "$D/bad/ttl_grid.json" --check >/dev/null 2>"$T/e" && fail "invalid grid point accepted"
grep -qF "ttl_grid.json: grids[0] (g-U200): invalid for trace ha_healthy (traces[0]), client c1: horizon H exceeds" "$T/e" \
    || fail "invalid grid point message: $(cat "$T/e")"
env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID "$RL" sweep "$D/small.json" --shard auto/2 >/dev/null 2>"$T/e" \
    && fail "--shard auto without an index accepted"
grep -q 'neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set' "$T/e" || fail "auto message: $(cat "$T/e")"
printf '{"schema": "ratelimitly-sweep/v1", "configurations": ["default"], "traces": ["sim/traces/ha_healthy.json"], "seeds": [1]}' >"$T/rel.json"
"$RL" sweep "$T/rel.json" --check >/dev/null 2>"$T/e" && fail "a missing trace accepted"
grep -qF "rel.json: traces[0]: $T/sim/traces/ha_healthy.json: cannot open: No such file or directory (a relative trace path is read from the sweep file's directory)" "$T/e" \
    || fail "missing trace message: $(cat "$T/e")"
: >"$T/afile"
"$RL" sweep "$D/small.json" --out "$T/afile" >/dev/null 2>"$T/e" && fail "--out naming a file accepted"
grep -qF "cannot create $T/afile: Not a directory" "$T/e" || fail "--out file message: $(cat "$T/e")"
printf '{"schema": "ratelimitly-sweep/v1", "configurations": ["default"], "traces": [{"path": "%s", "vary": [{"field": "links.default.loss.loss_p", "label": "p", "values": [0.01, 1.5]}]}], "seeds": [1]}' \
    "$(cd "$D/../../../sim/traces" && pwd)/loss_5pct.json" >"$T/vary.json"
"$RL" sweep "$T/vary.json" --check >/dev/null 2>"$T/e" && fail "an invalid variant accepted"
grep -qF "vary.json: traces[0] variant p1.5: " "$T/e" && grep -qF "loss_5pct.json: links.default.loss.loss_p: expected a number in [0, 1], got 1.5" "$T/e" \
    || fail "invalid variant message: $(cat "$T/e")"
"$RL" sweep "$D/small.json" --check >"$T/c" 2>&1 || fail "--check"
grep -q '^sweep small: 5 configurations x 3 traces x 3 seeds = 45 units, baseline default' "$T/c" || fail "--check line: $(cat "$T/c")"
"$RL" sweep --jobs 0 "$D/small.json" >/dev/null 2>&1 && fail "--jobs 0 accepted"
"$RL" sweep --jobs lots "$D/small.json" >/dev/null 2>"$T/e" && fail "--jobs lots accepted"
grep -qF "rl-testbed sweep: --jobs wants 1..4096 or all, got 'lots'" "$T/e" || fail "--jobs message: $(cat "$T/e")"
"$RL" sweep "$D/small.json" --out "$T/jall" --jobs all --quiet >/dev/null 2>&1 || fail "--jobs all refused"
same_outputs "$T/a" "$T/jall"
"$RL" sweep --help | grep -qF 'rl-testbed sweep report RESULTS_DIR' || fail "--help names sweep report"
"$RL" sweep --help | grep -q 'usage: rl-testbed sweep SWEEP.json' || fail "--help"

[ "$fails" -eq 0 ] && echo "sweep cli: all passed"
exit "$fails"
