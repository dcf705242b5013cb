#!/usr/bin/env bash
# Regenerates the HA tuning report reports/ha-tuning/ (project issue 12) with one command:
# builds the release preset if needed, runs the default sweep (reports/ha-tuning/sweep.json) with
# --jobs all, then `rl-testbed sweep report` with the written findings (reports/ha-tuning/notes.md)
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
"$rl" sweep "$sweep" --jobs all --out "$out"
end=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

units=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['units'])" "$out/manifest.json")
wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$end")
rate=$(python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]):.1f}')" "$units" "$wall")
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
the sweep \`$sweep\` with \`--jobs all\`, then \`rl-testbed sweep report\`).

| run | value |
|---|---|
| units (configurations x traces x seeds) | $units |
| sweep wall time | $wall s |
| runs per second | $rate |
| machine | $cores cores (shared with other work) |
| load average (1, 5, 15 min) before / after | $load_before / $load_after |

The committed data: $data, and [manifest.json](manifest.json).
EOF
"$rl" sweep report "$out" --out "$report" --notes "$notes" \
  --highlight default,api_md,strict_oldest,oldest_preferred,fastest_valid,bounded_collection,noC-default,u-U40
echo "ha-tuning: $units runs in $wall s ($rate runs/s, load $load_before -> $load_after); report in $report/report.md"
