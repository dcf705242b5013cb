#!/bin/sh
# SPDX-License-Identifier: MIT
# The sweep report on the committed fixture (tests/fixture: summary.json and
# manifest.json of four configurations x four traces, values chosen by hand):
# report.md and tables.md byte for byte against tests/expected (every table
# worked out by hand from the fixture), the six plots' data, scripts and
# images present (images only when gnuplot is installed), then the report
# without gnuplot (RL_GNUPLOT pointing at no program): Markdown and scripts
# written, no image, the note on stderr, exit 0; and the usage errors.
# usage: run_report.sh RL_TESTBED TESTS_DIR
set -u
rl=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
plots="pareto availability_loss overconsumption extra_datagrams convergence latency_u"

if command -v gnuplot >/dev/null 2>&1; then have_gnuplot=1; else have_gnuplot=0; fi
"$rl" sweep report "$dir/fixture" --out "$tmp/r" >"$tmp/out" 2>"$tmp/err" || fail "report exited $?: $(cat "$tmp/err")"
for f in report.md tables.md; do
  if ! cmp -s "$dir/expected/$f" "$tmp/r/$f"; then
    if [ $have_gnuplot = 0 ] && [ $f = report.md ]; then
      : # without gnuplot report.md says the plots were not drawn: compared below
    else
      fail "$f differs from the expected file"; diff "$dir/expected/$f" "$tmp/r/$f" | head -20
    fi
  fi
done
for p in $plots; do
  for e in dat gp; do [ -s "$tmp/r/$p.$e" ] || fail "missing $p.$e"; done
  if [ $have_gnuplot = 1 ]; then
    for e in svg png; do [ -s "$tmp/r/$p.$e" ] || fail "missing $p.$e"; done
  fi
done
[ $have_gnuplot = 1 ] || echo "note: gnuplot not installed: image checks skipped"
grep -q "^sweep report: $tmp/r/report.md, $tmp/r/tables.md, 6 plots" "$tmp/out" || fail "summary line: $(cat "$tmp/out")"

# Plots (issue 23 item 4): availability ticks by %g (no repeated %.3f labels), the right panel the
# paired difference from the baseline with its 95 % intervals (diff, ci_low, ci_high columns in
# percentage points: fast on loss_p0.2 in the fixture), convergence titled per fault trace, and a
# configuration equal to the baseline flagged in its legend (u10 given the default's policy).
grep -q "set format y '%g'" "$tmp/r/availability_loss.gp" || fail "availability_loss: no %g tick format"
grep -q "%.3f" "$tmp/r/availability_loss.gp" && fail "availability_loss: %.3f tick format"
grep -q "using (\$1[-+][0-9.]*):3:4:5 with yerrorlines" "$tmp/r/availability_loss.gp" || fail "availability_loss: no interval"
awk 'NF == 6 && $1 !~ /^#/ {n++} END {exit n > 0 ? 0 : 1}' "$tmp/r/availability_loss.dat" || fail "availability_loss.dat: no diff and half-width columns"
grep -q "set title 'Convergence time per fault trace'" "$tmp/r/convergence.gp" || fail "convergence title"
grep -q "baseline, hides it" "$tmp/r/pareto.gp" && fail "a configuration flagged equal to the baseline"
# Every plot of an estimate draws its interval (the paired 95 % interval of the difference from the
# baseline, drawn around the value), and in latency_u the U families sit side by side with their own
# point shapes, so families with equal values stay visible (issue 23 item 4, project).
grep -q "using 1:2:5:6 with xyerrorbars" "$tmp/r/pareto.gp" || fail "pareto: no interval"
grep -q "using 1:2:6 with yerrorlines" "$tmp/r/availability_loss.gp" || fail "availability_loss left panel: no interval"
grep -q "using 1:3:5 with yerrorbars" "$tmp/r/overconsumption.gp" || fail "overconsumption: no interval"
grep -q "using 1:3:5 with yerrorbars" "$tmp/r/extra_datagrams.gp" || fail "extra_datagrams: no interval"
grep -q "set style histogram errorbars" "$tmp/r/convergence.gp" || fail "convergence: no interval"
grep -q "using (\$1\*1.0000):3:7 with yerrorlines lw 2 pt 7 " "$tmp/r/latency_u.gp" || fail "latency_u: one family, no offset"
# two U families with equal values (default/u10/u40 copied as noC, noC-u10, noC-u40 with C = 0):
# side by side at U x 0.94 and U x 1.06, filled circles and filled squares
mkdir -p "$tmp/fam"
python3 - "$dir/fixture" "$tmp/fam" <<'PY'
import json, sys
src, dst = sys.argv[1], sys.argv[2]
s = json.load(open(src + "/summary.json"))
m = json.load(open(src + "/manifest.json"))
ren = {"default": "noC", "u10": "noC-u10", "u40": "noC-u40"}
s["rows"] += [dict(r, config=ren[r["config"]]) for r in s["rows"] if r["config"] in ren]
for c in list(m["configurations"]):
    if c["name"] in ren:
        pol = dict(c["policy"], completion_delivery=False)
        m["configurations"].append({"name": ren[c["name"]], "policy": pol})
json.dump(s, open(dst + "/summary.json", "w"))
json.dump(m, open(dst + "/manifest.json", "w"))
PY
"$rl" sweep report "$tmp/fam" --out "$tmp/famr" >/dev/null 2>"$tmp/err" || fail "report (two U families) exited $?: $(cat "$tmp/err")"
grep -q "using (\$1\*0.9400):3:7 with yerrorlines lw 2 pt 7 " "$tmp/famr/latency_u.gp" || fail "latency_u: first family not offset"
grep -q "using (\$1\*1.0600):3:7 with yerrorlines lw 2 pt 5 " "$tmp/famr/latency_u.gp" || fail "latency_u: second family not offset"
# the fixture's fast on every trace: p99 diff half-widths 9.001, 9.501, 9.001, 9.501 ms; their mean 9.251
awk '$3 == "\"fast\"" {print $5}' "$tmp/r/pareto.dat" | head -1 | grep -qx "9.251" || fail "pareto.dat: fast's p99 half-width"
# u10 on empirical_lan: p99 diff [-15.001, -4.999] -> half 5.001
awk '$5 == "\"u10\"" {print $7; exit}' "$tmp/r/latency_u.dat" | grep -qx "5.001" || fail "latency_u.dat: u10's p99 half-width"
mkdir -p "$tmp/eq"
cp "$dir/fixture/summary.json" "$tmp/eq/"
python3 - "$dir/fixture/manifest.json" "$tmp/eq/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
pol = {c["name"]: c.get("policy") for c in m["configurations"]}
for c in m["configurations"]:
    if c["name"] == "u10":
        c["policy"] = pol["default"]
json.dump(m, open(sys.argv[2], "w"))
PY
"$rl" sweep report "$tmp/eq" --out "$tmp/eqr" >/dev/null 2>"$tmp/err" || fail "report (u10 = default) exited $?"
grep -q "title 'u10 (= baseline, hides it)'" "$tmp/eqr/pareto.gp" || fail "u10 equal to the baseline not flagged"

# Deployment groups (--group): the groups section of report.md exactly (worked out by hand).
"$rl" sweep report "$dir/fixture" --out "$tmp/g" --group lossy=loss-loss_p0.01,loss-loss_p0.2 \
  --group other=partition,empirical_lan >/dev/null 2>"$tmp/err" || fail "report with groups exited $?"
sed -n '/id="groups"/,/id="loss"/p' "$tmp/g/report.md" | sed '$d' > "$tmp/groups.md"
cmp -s "$dir/expected/groups.md" "$tmp/groups.md" || { fail "groups section differs"; diff "$dir/expected/groups.md" "$tmp/groups.md" | head; }
"$rl" sweep report "$dir/fixture" --out "$tmp/g2" --group x=partition,nope >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'group x: unknown trace "nope"' "$tmp/err" || fail "unknown group trace: rc $rc"
[ -e "$tmp/g2" ] && fail "unknown group trace: output directory created"
"$rl" sweep report "$dir/fixture" --group nameonly >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "group wants NAME=TRACE,TRACE..., got 'nameonly'" "$tmp/err" || fail "bad --group: rc $rc"

# No gnuplot: still the Markdown and the scripts, and a clear note.
RL_GNUPLOT="$tmp/no-such-gnuplot" "$rl" sweep report "$dir/fixture" --out "$tmp/n" >"$tmp/out" 2>"$tmp/err" \
  || fail "report without gnuplot exited $?"
grep -q "gnuplot not found ($tmp/no-such-gnuplot): wrote the Markdown and 6 .gp scripts, no plots" "$tmp/err" \
  || fail "no gnuplot note: $(cat "$tmp/err")"
cmp -s "$dir/expected/tables.md" "$tmp/n/tables.md" || fail "tables.md without gnuplot differs"
grep -q "Not drawn: gnuplot was not found. Run \`gnuplot pareto.gp\` in this directory." "$tmp/n/report.md" \
  || fail "report.md does not say the plots were not drawn"
for p in $plots; do
  [ -s "$tmp/n/$p.gp" ] || fail "no gnuplot: missing $p.gp"
  [ -e "$tmp/n/$p.svg" ] && fail "no gnuplot: $p.svg exists"
done

# Usage and input errors: exit 2 / 1 with the problem named, nothing written.
"$rl" sweep report >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "missing RESULTS_DIR" "$tmp/err" || fail "no RESULTS_DIR: rc $rc"
"$rl" sweep report "$dir/fixture" --bogus >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "unknown option '--bogus'" "$tmp/err" || fail "unknown option: rc $rc"
"$rl" sweep report "$dir/fixture" --out "$tmp/h" --highlight fast,nope >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q 'highlight: unknown configuration "nope"' "$tmp/err" || fail "unknown highlight: rc $rc"
"$rl" sweep report "$dir/bad_number" --out "$tmp/b" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 1 ] && grep -q "bad_number/summary.json: rows\[1\].mean: expected a number or null" "$tmp/err" \
  || fail "bad summary: rc $rc $(cat "$tmp/err")"
[ -e "$tmp/b" ] && fail "bad summary: output directory created"
"$rl" sweep report --help | grep -q "usage: rl-testbed sweep report RESULTS_DIR" || fail "--help"

if [ $fails -ne 0 ]; then echo "sweep report fixture: $fails failed"; exit 1; fi
echo "sweep report fixture: all passed"
