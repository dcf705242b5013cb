#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_key.sh RL_TESTBED SOURCE_DIR PYTHON3
#
# `rl-testbed key` (issue 26): inspect reads every API key of vectors/api_key.json as the
# vectors say (valid: auth, key_id, quota word, each quota, default DNS name; invalid: exit 1
# and the error class), and make writes exactly the key the independent Python model
# (vectors/tools/gen_vectors.py make_api_key) writes for the same fields; random keys of each
# type inspect as valid; bad make arguments exit 2 naming the rule.
set -u
bin=$1
src=$(cd "$2" && pwd)
python=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
. "$(dirname "$0")/cli_lib.sh"

checks=$((checks + 1))
if "$python" - "$bin" "$src/vectors/api_key.json" "$src/vectors/secret_key.json" <<'PY'
import json, subprocess, sys
binary, path, secret_path = sys.argv[1], sys.argv[2], sys.argv[3]
bad = 0
# An rl-secret is not an API key (api_key.json: class hrp); inspect reads it as an rl-secret,
# judged by secret_key.json below.
tests = [t for t in json.load(open(path))["tests"] if not t["input"]["key"].lower().startswith("rl-secret1")]
for t in json.load(open(secret_path))["tests"]:
    key = t["input"]["key"]
    if not key.lower().startswith("rl-secret1"):
        continue  # another HRP: inspect reads it as what it is (an API key), not as an rl-secret
    p = subprocess.run([binary, "key", "inspect", key], capture_output=True, text=True)
    if t["result"] == "valid":
        ok = p.returncode == 0 and "type: rl-secret (administrative secret, not an API key)" in p.stdout
        ok = ok and t["expected"]["secret_hex"] not in p.stdout
    else:
        ok = p.returncode == 1 and f"({t['expected']['error']})" in p.stdout
    if not ok:
        bad += 1
        print(f"secret_key tcId {t['tcId']}: exit {p.returncode}: {p.stdout.strip()}")
for t in tests:
    key = t["input"]["key"]
    p = subprocess.run([binary, "key", "inspect", key], capture_output=True, text=True)
    e = t["expected"]
    if t["result"] == "valid":
        want = [f"type: rl-{e['auth']}", f"key_id: {e['key_id']}", f"quota_word: {e['quota_word']}",
                f"default tenant DNS name: {e['default_dns_name']}"]
        want += [f"  {k}: {v}" for k, v in e["quotas"].items()]
        missing = [w for w in want if w not in p.stdout.splitlines()]
        if p.returncode != 0 or missing:
            bad += 1
            print(f"tcId {t['tcId']}: exit {p.returncode}, missing {missing}")
    else:
        if p.returncode != 1 or f"({e['error']})" not in p.stdout:
            bad += 1
            print(f"tcId {t['tcId']}: exit {p.returncode}, want 1 and class {e['error']}: {p.stdout.strip()}")
print(f"{len(tests)} API keys and the rl-secret keys, {bad} wrong")
sys.exit(1 if bad else 0)
PY
then echo "ok   key inspect: every key of vectors/api_key.json and secret_key.json as the vectors say"; else
    failures=$((failures + 1)); echo "FAIL key inspect against vectors/api_key.json"; fi

# make = the Python model's encoding, for the same key_id, secret and quotas.
sec=0101010101010101010101010101010101010101010101010101010101010101
for t in none cookie aes; do
    if [ "$t" = none ]; then extra=""; else extra="--secret-hex $sec"; fi
    # shellcheck disable=SC2086
    got=$("$bin" key make "rl-$t" --key-id 4242 $extra --quota rate_buckets=8,dedup_ttl_ms=300 2>&1)
    want=$("$python" - "$src/vectors/tools" "$t" "$sec" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from gen_vectors import make_api_key, pack_quota
# rate_buckets 8 = 2^3, the others 1024 = 2^10, dedup 300 ms = 30 units, window 4294967295 = exponent 31.
word = pack_quota(3, 10, 10, 10, 30, 31)
secret = bytes.fromhex(sys.argv[3]) if sys.argv[2] != "none" else None
print(make_api_key(sys.argv[2], 4242, word, secret))
PY
)
    checks=$((checks + 1))
    if false; then :
    elif [ "$got" = "$want" ]; then echo "ok   key make rl-$t = the Python model's key"; else
        failures=$((failures + 1)); echo "FAIL key make rl-$t: '$got', the model says '$want'"; fi
done
for t in rl-none rl-cookie rl-aes rl-secret; do
    k=$("$bin" key make "$t")
    expect "random $t key inspects as valid" 0 out "key: valid" -- key inspect "$k"
done
expect "a changed character: the checksum rule" 1 out "rule broken: bech32: invalid checksum (bech32)" -- \
    key inspect rl-none1qyyqwps9qspsyq2sk8e0sfdp3yt
expect "inspect never prints the secret" 0 out "secret: 32 bytes (not shown)" -- key inspect \
    "$("$bin" key make rl-aes --secret-hex "$sec")"
# inspect - reads the key from stdin (project: a command line is visible to other users of the host).
checks=$((checks + 1))
k=$("$bin" key make rl-aes --key-id 77 --secret-hex "$sec")
if printf '%s\n' "$k" | "$bin" key inspect - >"$tmp/out" 2>&1 && grep -qx "key_id: 77" "$tmp/out" &&
    grep -qx "secret: 32 bytes (not shown)" "$tmp/out" && ! grep -q "$sec" "$tmp/out"; then
    echo "ok   inspect -: the key from stdin"; else fail "inspect -: $(cat "$tmp/out")"; fi
checks=$((checks + 1))
if printf 'rl-none1qyyqwps9qspsyq2sk8e0sfdp3yt\n' | "$bin" key inspect - >"$tmp/out" 2>&1; then rc=0; else rc=$?; fi
if [ "$rc" -eq 1 ] && grep -qF "rule broken: bech32: invalid checksum (bech32)" "$tmp/out"; then
    echo "ok   inspect -: a bad key from stdin names its rule"; else fail "inspect - bad key: exit $rc: $(cat "$tmp/out")"; fi
checks=$((checks + 1))
if "$bin" key inspect - </dev/null >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
if [ "$rc" -eq 2 ] && grep -qF "rl-testbed: key inspect -: no line on stdin" "$tmp/err"; then
    echo "ok   inspect -: empty stdin is a usage error"; else fail "inspect - </dev/null: exit $rc"; fi
expect "inspect: an option is not a key" 2 err "rl-testbed: unknown option '--frob'" -- key inspect --frob
expect "make: a quota not representable" 2 err "--quota 'dedup_ttl_ms=5': dedup_ttl_ms=5 is not representable" -- \
    key make rl-aes --quota dedup_ttl_ms=5
# --quota edge cases (wire_protocol.md "API-key quota word, format version 1": each field's code and
# range; project: an empty item or a field given twice is refused, not read as the defaults or the
# last value; a value that is not a number says so, with the field's rule).
expect "make: quota 0 breaks the power-of-two rule" 2 err \
    "rate_buckets=0 is not representable in the quota word: rate_buckets must be a power of two 1..16777216 (2^0..2^24)" -- \
    key make rl-none --quota rate_buckets=0
expect "make: latency_buffer 2^16 is above the 4-bit code" 2 err \
    "latency_buffer must be a power of two 1..32768 (2^0..2^15)" -- key make rl-none --quota latency_buffer=65536
expect "make: latency_buffer 2^15 is the largest" 0 out "rl-none1" -- key make rl-none --quota latency_buffer=32768
expect "make: rate_window_ms 2^31 is not a window" 2 err \
    "rate_window_ms must be a power of two 1..1073741824 (2^0..2^30) or 4294967295" -- \
    key make rl-none --quota rate_window_ms=2147483648
expect "make: a negative quota is not a number" 2 err \
    "--quota 'rate_buckets=-1': rate_buckets=-1: not a number (decimal or 0x hex digits, no sign)" -- \
    key make rl-none --quota rate_buckets=-1
expect "make: a quota over u32 is not a number" 2 err \
    "rate_buckets=4294967296: not a number (decimal or 0x hex digits, no sign)" -- \
    key make rl-none --quota rate_buckets=4294967296
expect "make: a quota without its value" 2 err "--quota 'dedup_ttl_ms=': dedup_ttl_ms: missing value after '='" -- \
    key make rl-none --quota dedup_ttl_ms=
expect "make: a lone comma is an empty item, not the defaults" 2 err \
    "--quota ',': an empty item (two commas, or a comma at either end)" -- key make rl-none --quota ,
expect "make: a trailing comma is an empty item" 2 err "an empty item" -- key make rl-none --quota rate_buckets=8,
expect "make: a field given twice" 2 err "--quota 'rate_buckets=8,rate_buckets=16': rate_buckets: given twice" -- \
    key make rl-none --quota rate_buckets=8,rate_buckets=16
expect "make: a quota word over u32" 2 err \
    "--quota '4294967296': not a valid quota word: want decimal or 0x hex digits up to 4294967295 (a u32)" -- \
    key make rl-none --quota 4294967296
expect "make: an unknown field lists the fields" 2 err \
    "unknown field 'rate' (rate_buckets, latency_services, metrics_labels, latency_buffer, dedup_ttl_ms, rate_window_ms)" -- \
    key make rl-none --quota rate=8
expect "make: unknown type" 2 err "rl-testbed: key make: unknown type (rl-none, rl-cookie, rl-aes or rl-secret) 'rl-foo'" -- \
    key make rl-foo
expect "make: rl-none has no secret" 2 err "an rl-none key has no secret" -- key make rl-none --secret-hex "$sec"
expect "make: short secret" 2 err "--secret-hex: want 64 hex digits" -- key make rl-aes --secret-hex 0102
expect "make: unknown option" 2 err "rl-testbed: unknown option '--frob'" -- key make rl-aes --frob 1
expect "help key" 0 out "usage: rl-testbed key make" -- help key

echo "run_key: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
