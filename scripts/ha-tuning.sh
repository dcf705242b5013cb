#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the HA tuning report reports/ha-tuning/ (project issue 12) with one command:
# builds the release preset if needed, runs the default sweep (reports/ha-tuning/sweep.json) with
# one worker per online CPU, then `rl-testbed sweep report` with the written findings (reports/ha-tuning/notes.md)
# and the measured wall time, into reports/ha-tuning/.
#   bash scripts/ha-tuning.sh            # full run
#   HA_TUNING_OUT=DIR bash scripts/ha-tuning.sh   # the sweep's own output directory (default build/ha-tuning)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release
rl=build/release/tools/rl-testbed/rl-testbed
sweep=reports/ha-tuning/sweep.json
report=reports/ha-tuning
out=${HA_TUNING_OUT:-build/ha-tuning}
rm -rf "$out"   # a fresh run: the wall time below is the whole sweep's

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
"$rl" sweep "$sweep" --jobs "$(nproc)" --out "$out"   # every online CPU
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The worlds sweep (issue 23): the recommendations on windows of 100 ms, 1 s and 10 s, loads below,
# at and over the limit, 2, 3 and 5 servers, LAN and cross-region traces (reports/ha-tuning/worlds.json),
# judged by sweep/tools/worlds.py into reports/ha-tuning/worlds.md and worlds.csv.
wout=$out-worlds
rm -rf "$wout"
wstart=$(date +%s.%N)
"$rl" sweep "$report/worlds.json" --jobs "$(nproc)" --out "$wout"
wend=$(date +%s.%N)
wunits=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['units'])" "$wout/manifest.json")
wwall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$wstart" "$wend")
python3 sweep/tools/worlds.py "$wout/results.csv" "$report/worlds.md" "$report/worlds.csv"
printf '\nThe worlds sweep: %s runs in %s s on %s cores (`bash scripts/ha-tuning.sh`, after the main sweep).\n' \
  "$wunits" "$wwall" "$(nproc)" >> "$report/worlds.md"

units=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['units'])" "$out/manifest.json")
wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$end")
rate=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]):.1f}')" "$units" "$wall")
ntraces=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['traces']))" "$out/manifest.json")
pairs=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / int(sys.argv[2]) / float(sys.argv[3]):.1f}')" "$units" "$ntraces" "$wall")
cores=$(nproc)

# The committed data: the summary (key metrics only when the whole file is over 5 MB), and
# results.csv when it is under 5 MB.
limit=$((5 * 1024 * 1024))
rm -f "$report"/results.csv "$report"/summary.csv "$report"/summary-key.csv
if [ "$(stat -c %s "$out/results.csv")" -lt $limit ]; then cp "$out/results.csv" "$report/"; fi
if [ "$(stat -c %s "$out/summary.csv")" -lt $limit ]; then
  cp "$out/summary.csv" "$report/"
  data="[summary.csv](summary.csv)"
else
  awk -F, 'NR == 1 || $4 == "1"' "$out/summary.csv" > "$report/summary-key.csv"
  data="[summary-key.csv](summary-key.csv) (the key metrics of summary.csv; the full file is over 5 MB)"
fi
[ -f "$report/results.csv" ] && data="$data and [results.csv](results.csv)" \
  || data="$data (results.csv, one row per run, is over 5 MB and not committed)"
cp "$out/manifest.json" "$report/manifest.json"

notes=$(mktemp)
trap 'rm -f "$notes"' EXIT
cat "$report/notes.md" > "$notes"
cat >> "$notes" <<EOF

## <a id="run"></a>How this report was made

One command regenerates everything here: \`bash scripts/ha-tuning.sh\` (release build if needed,
the sweep \`$sweep\` with one worker per CPU, \`--jobs \$(nproc)\`, then \`rl-testbed sweep report\`).

| run | value |
|---|---|
| units (configurations x traces x seeds) | $units |
| sweep wall time | $wall s |
| runs (configuration, trace, seed) per second | $rate |
| (configuration, seed) pairs per second, each over all $ntraces traces | $pairs |
| machine | $cores cores (shared with other work) |
| load average (1, 5, 15 min) before / after | $load_before / $load_after |

The committed data: $data, and [manifest.json](manifest.json).
EOF
# Deployment groups for the recommendation: one server; two or three servers on a LAN (every
# multi-server trace but the cross-region one); servers across regions.
lan=s10_healthy,s10_slow_oldest_before,s10_slow_oldest_after,s10_preferred_failure
lan=$lan,loss-loss_p0.01,loss-loss_p0.05,loss-loss_p0.1,loss-loss_p0.2,loss-loss_p0.3,loss_bursty
lan=$lan,restart_downtime,dns_change,partition,overload_queue,clock_skew,empirical_lan
"$rl" sweep report "$out" --out "$report" --notes "$notes" \
  --highlight default,api_md,strict_oldest,oldest_preferred,fastest_valid,bounded_collection,noC-default,b_fixed-U5-N3 \
  --group single_server=single_server --group lan="$lan" --group regions=empirical_regions
echo "ha-tuning: worlds sweep $wunits runs in $wwall s; $report/worlds.md"
echo "ha-tuning: $units runs in $wall s ($rate runs/s, $pairs configuration x seed pairs/s over $ntraces traces; load $load_before -> $load_after); report in $report/report.md"
