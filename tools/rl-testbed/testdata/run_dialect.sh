#!/bin/sh
# usage: run_dialect.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# `rl-testbed dialect`: both reference adapters speak the spec in every area;
# deliberately broken copies of the Python adapter are reported as the
# variant they speak, with what to change; a client that supports one kind
# only gets "unsupported" for the other areas; the dialect files are what
# their generator writes.
set -u
bin=$1
cadapter=$2
src=$(cd "$3" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"
cd "$src" || exit 1
py="$src/conformance/adapters/python/rl_adapter.py"
fake="python3 $src/tools/rl-testbed/testdata/adapters/fake_adapter.py"
all_spec="dialect: 9 areas spec, 0 variant, 0 none, 0 unsupported"

expect "C adapter: spec everywhere" 0 out "  tracker_id       spec" -- dialect --client "$cadapter"
last_line "C adapter: closing line" "$all_spec"
expect "Python adapter: spec everywhere" 0 out "  guard_rule       spec" -- dialect --client "python3 $py"
last_line "Python adapter: closing line" "$all_spec"

broken() { # broken NAME VARIANT AREA_LINE
    expect "broken copy $1: reported" 1 out "$3" -- dialect --client "env RL_ADAPTER_DIALECT=$1 python3 $py"
    last_line "broken copy $1: one area off" "dialect: 8 areas spec, 1 variant, 0 none, 0 unsupported"
}
broken tracker_three_field three_field "  tracker_id       three_field            0/3; latency-tracker ID hashed over ttl_ms, max_samples and min_sample_threshold only (no buffer_size). To reach the spec: hash all four settings"
broken tracker_v2 three_field_v2 "  tracker_id       three_field_v2         0/3; three-field latency-tracker ID under the domain ratelimitly.latency-tracker.v2"
broken guard_le guard_le "  guard_rule       guard_le               0/3; a guard passes when current_latency <= latency_threshold. To reach the spec: pass only when current_latency < latency_threshold"
broken horizon_no_f no_final "  horizon          no_final               0/3; the dedup horizon leaves out the final receive interval"
expect "unknown RL_ADAPTER_DIALECT: named, not ignored" 1 err "RL_ADAPTER_DIALECT: unknown variant guard_lt" -- \
    dialect --client "env RL_ADAPTER_DIALECT=guard_lt python3 $py"

expect "one kind only: the rest unsupported" 0 out "  tracker_id       unsupported" -- \
    dialect --client "$fake only_bucket $cadapter"
last_line "one kind only: closing line" "dialect: 1 areas spec, 0 variant, 0 none, 8 unsupported"
expect "a file argument" 0 out "dialect: 1 areas spec, 0 variant, 0 none, 0 unsupported" -- \
    dialect --client "$cadapter" vectors/dialect/bucket_id.json
expect "no such file" 1 err "no file matches this pattern" -- dialect --client "$cadapter" "$tmp"

checks=$((checks + 1))
if /usr/bin/python3 vectors/tools/gen_dialects.py --check >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   gen_dialects --check"
else
    fail "gen_dialects --check"
fi

echo "dialect tests: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
