#!/bin/sh
# SPDX-License-Identifier: MIT
# usage: run_dialect.sh RL_TESTBED C_ADAPTER SOURCE_DIR
#
# `rl-testbed dialect`: both reference adapters speak the spec in every area;
# deliberately broken copies of the Python adapter are reported as the
# variant they speak, with what to change; fake clients (dialect_fake.py)
# speaking each variant, alone and combined, get exactly the report lines of
# that variant, each area judged alone (a big-endian client with 36-byte
# guards still gets guard_rule and report_block judged); a client that
# refuses everything gets no spec area; an unsupported test leaves the area
# partial with its reason; a none names the first differing field with both
# values; a client that supports one kind only gets "unsupported" for the
# other areas; the dialect files are what their generator writes.
set -u
. "$(dirname "$0")/adapter_lib.sh"
py="$src/conformance/adapters/python/rl_adapter.py"
fake="python3 $src/tools/rl-testbed/testdata/adapters/fake_adapter.py"
all_spec="dialect: 12 areas spec, 0 variant, 0 none, 0 partial, 0 unsupported"

expect "C adapter: spec everywhere" 0 out "  tracker_id       spec" -- dialect --client "$cadapter"
last_line "C adapter: closing line" "$all_spec"
expect "Python adapter: spec everywhere" 0 out "  guard_rule       spec" -- dialect --client "python3 $py"
last_line "Python adapter: closing line" "$all_spec"

broken() { # broken NAME VARIANT AREA_LINE
    expect "broken copy $1: reported" 1 out "$3" -- dialect --client "env RL_ADAPTER_DIALECT=$1 python3 $py"
    last_line "broken copy $1: one area off" "dialect: 11 areas spec, 1 variant, 0 none, 0 partial, 0 unsupported"
}
broken tracker_three_field three_field "  tracker_id       three_field            0/3; latency-tracker ID hashed over ttl_ms, max_samples and min_sample_threshold only (no buffer_size). To reach the spec: hash all four settings"
broken tracker_v2 three_field_v2 "  tracker_id       three_field_v2         0/3; three-field latency-tracker ID under the domain ratelimitly.latency-tracker.v2"
broken guard_le guard_le "  guard_rule       guard_le               3/6; a guard passes when current_latency <= latency_threshold. To reach the spec: pass only when current_latency < latency_threshold"
broken horizon_no_f no_final "  horizon          no_final               0/3; the dedup horizon leaves out the final receive interval: H = U * sum B(k); differs from r-client.md 9.3 (recommended, not required)"
expect "unknown RL_ADAPTER_DIALECT: named, not ignored" 1 err "RL_ADAPTER_DIALECT: unknown variant guard_lt" -- \
    dialect --client "env RL_ADAPTER_DIALECT=guard_lt python3 $py"

expect "one kind only: the rest unsupported" 0 out "  tracker_id       unsupported" -- \
    dialect --client "$fake only_bucket $cadapter"
last_line "one kind only: closing line" "dialect: 1 areas spec, 0 variant, 0 none, 0 partial, 11 unsupported"
# A field the client declares it does not produce (capabilities.unproduced_fields) is never
# "absent": a test that matches on every produced field is unsupported with that reason, so
# an area whose only field it is becomes unsupported and one with other evidence partial.
expect "unproduced preference_ms: policy_pk unsupported" 0 out \
    "  policy_pk        unsupported            -; ha_schedule.json tcId 1: answers as the spec on every produced field; preference_ms is not produced (capabilities.unproduced_fields)" -- \
    dialect --client "$fake no_preference_ms $cadapter"
last_line "unproduced preference_ms: closing line" "dialect: 11 areas spec, 0 variant, 0 none, 0 partial, 1 unsupported"
expect "unproduced quota_word: legacy_key partial on the spec" 0 out \
    "  legacy_key       partial                " -- dialect --client "$fake no_quota_word $cadapter"
last_line "unproduced quota_word: closing line" "dialect: 10 areas spec, 0 variant, 0 none, 2 partial, 0 unsupported"
# A client without a none mode still gets every area judged: oversize and server_id carry
# rl-cookie tests too, so they are partial on the spec, not unsupported (judged under its own
# byte order: the 4 tests written under big_endian are left out, see "layouts" below).
expect "no none mode: oversize judged" 0 out "  oversize         partial                2/2; the spec on the 4 tests answered" -- \
    dialect --client "$fake no_none $cadapter"
expect "no none mode: server_id judged" 0 out "  server_id        partial                2/2; the spec on the 4 tests answered" -- \
    dialect --client "$fake no_none $cadapter"
expect "a file argument" 0 out "dialect: 1 areas spec, 0 variant, 0 none, 0 partial, 0 unsupported" -- \
    dialect --client "$cadapter" vectors/dialect/bucket_id.json
expect "no such file" 1 err "no file matches this pattern" -- dialect --client "$cadapter" "$tmp"

# line NAME TEXT: TEXT is a whole line of the previous run's stdout.
line() {
    checks=$((checks + 1))
    if grep -qxF -- "$2" "$tmp/out"; then echo "ok   $1"; else fail "$1: no line: $2"; fi
}
fake="python3 $src/tools/rl-testbed/testdata/adapters/dialect_fake.py $src/vectors/dialect"
# speaks NAME STATUS CLOSING PICKS...: run the fake with PICKS, check the exit status and the closing line.
speaks() {
    name=$1 status=$2 closing=$3
    shift 3
    expect "$name: exit status" "$status" out "dialect of dialect fake" -- dialect --client "$fake $*"
    last_line "$name: closing line" "$closing"
}
# The notes each variant line carries (vectors/dialect/*.json, written by gen_dialects.py).
n_be="multi-byte integers read and written big-endian. To reach the spec: every integer field is little-endian (wire_protocol.md, all PDUs and credential payloads)"
n_g36="36-byte guard blocks (no buffer_size field). To reach the spec: 40-byte blocks with buffer_size after max_samples (wire_protocol.md \"Guard Blocks\")"
n_g32="32-byte guard blocks (no buffer_size, no min_sample_threshold). To reach the spec: 40-byte blocks with both (wire_protocol.md \"Guard Blocks\")"
n_le="a guard passes when current_latency <= latency_threshold. To reach the spec: pass only when current_latency < latency_threshold (wire_protocol.md \"Response Semantics\")"

speaks "fake, the spec" 0 "$all_spec"
line "fake, the spec: guard_rule" "  guard_rule       spec                   6/6"

# A little-endian client with 36-byte guards: byte_order and guard_rule are still spec, judged
# on blocks whose layout is not in question or under its own layout.
speaks "fake guard_36" 1 "dialect: 11 areas spec, 1 variant, 0 none, 0 partial, 0 unsupported" guard_block=guard_36
line "guard_36: guard_block" "  guard_block      guard_36               0/2; $n_g36"
line "guard_36: byte_order spec" "  byte_order       spec                   3/3"
line "guard_36: guard_rule spec under its layout" "  guard_rule       spec                   6/6 (under byte_order spec, guard_block guard_36)"
# guard_rule decidable under every guard layout, < and <=.
speaks "fake guard_32 + guard_le" 1 "dialect: 10 areas spec, 2 variant, 0 none, 0 partial, 0 unsupported" \
    guard_block=guard_32 guard_rule=guard_le
line "guard_32: guard_block" "  guard_block      guard_32               0/2; $n_g32"
line "guard_32: guard_rule guard_le" "  guard_rule       guard_le               3/6 (under byte_order spec, guard_block guard_32); $n_le"
# Big-endian with 36-byte guards and <=: three variants, every other area judged under big-endian.
speaks "fake big_endian + guard_36 + guard_le" 1 "dialect: 9 areas spec, 3 variant, 0 none, 0 partial, 0 unsupported" \
    byte_order=big_endian guard_block=guard_36 guard_rule=guard_le
line "be36: byte_order" "  byte_order       big_endian             0/3; $n_be"
line "be36: guard_block" "  guard_block      guard_36               0/2 (under byte_order big_endian); $n_g36"
line "be36: guard_rule" "  guard_rule       guard_le               3/6 (under byte_order big_endian, guard_block guard_36); $n_le"
line "be36: report_block spec" "  report_block     spec                   2/2 (under byte_order big_endian)"
line "be36: server_id spec" "  server_id        spec                   4/4 (under byte_order big_endian)"
speaks "fake big_endian + report_32" 1 "dialect: 10 areas spec, 2 variant, 0 none, 0 partial, 0 unsupported" \
    byte_order=big_endian report_block=report_32
line "be report_32: report_block" "  report_block     report_32              0/2 (under byte_order big_endian); 32-byte service-latency blocks (no buffer_size field). To reach the spec: 36-byte blocks with buffer_size after max_samples (wire_protocol.md \"Service Latency Block\")"

# legacy_key split: 56 only, 60 only, both; no format_version with a big-endian key_id.
for v in legacy_56 legacy_60 legacy_56_60 unversioned_be; do
    speaks "fake $v" 1 "dialect: 11 areas spec, 1 variant, 0 none, 0 partial, 0 unsupported" legacy_key=$v
    expect "fake $v: legacy_key" 1 out "  legacy_key       $(printf '%-22s' $v) " -- dialect --client "$fake legacy_key=$v"
done
line "unversioned_be: legacy_key" "  legacy_key       unversioned_be         4/8; a 44-byte payload with no format_version byte and a big-endian key_id; the 45-byte version-1 payload refused as length. To reach the spec: format_version 1 first, key_id little-endian (wire_protocol.md \"Bech32 Credential Formats\")"

# The variants the published clients show.
speaks "fake published variants" 1 "dialect: 8 areas spec, 4 variant, 0 none, 0 partial, 0 unsupported" \
    id_hash=blake2s_128_text oversize=truncate_1200 response_auth=none_accepted server_id=double
line "blake2s_128_text" "  id_hash          blake2s_128_text       0/3; bucket IDs hashed with BLAKE2s (16-byte digest) over the text \"name:window:limit\". To reach the spec: BLAKE2s-256 over the domain ratelimitly.resource.v1\\0, the length-prefixed name and the two u32 settings, first 16 bytes (wire_protocol.md \"Content-defined resource identity\")"
line "truncate_1200" "  oversize         truncate_1200          2/4; a request longer than 1200 bytes is cut to its first 1200 bytes and sent, no error. To reach the spec: refuse it (class range; api.md \"Capacity limits\", wire_protocol.md: a datagram is at most 1200 bytes)"
line "none_accepted" "  response_auth    none_accepted          2/4; a response authenticated with none (auth TLV 0x414E) is accepted under a cookie or AES key: an on-path attacker forges allow and deny. To reach the spec: accept only the key's auth mode (wire_protocol.md \"Auth Header\"; r-client.md 6.4)"
line "double server_id" "  server_id        double                 0/4; server_id kept as a double: ids above 2^53 lose their low bits, two servers can collide. To reach the spec: keep the full unsigned 64-bit value (wire_protocol.md \"Structured server_id Format\"; r-client.md 6.4: full 64-bit compare)"
speaks "fake api_md_only" 1 "dialect: 11 areas spec, 1 variant, 0 none, 0 partial, 0 unsupported" policy_pk=api_md_only
line "policy_pk: not 'to reach the spec'" "  policy_pk        api_md_only            0/3; the api.md policy alone: no preference schedule P(k), so round 0 waits its whole round and any later response completes at once (P = [B(0), 0, ...]); differs from r-client.md 9.3 (recommended, not required), which adds the preference schedule P(k) and P_final (r-client.md 9.3.1)"

# Refusing everything matches no variant: no spec area.
speaks "fake reject_all" 1 "dialect: 0 areas spec, 0 variant, 12 none, 0 partial, 0 unsupported" reject_all
line "reject_all: legacy_key none" "  legacy_key       none                   6/8; first difference from the spec: api_key.json tcId 1: rejected (no class), the spec accepts"
# One unsupported test: partial with its reason, never none with an empty reason.
speaks "fake one unsupported" 0 "dialect: 11 areas spec, 0 variant, 0 none, 1 partial, 0 unsupported" unsupported=legacy_key
line "unsupported: partial" "  legacy_key       partial                7/7; the spec on the 32 tests answered, 2 unsupported (first: api_key.json tcId 1: the client says: not in this build)"
# A none names the first differing field, both values, 64-bit ids in decimal and hex.
speaks "fake wrong key_id" 1 "dialect: 11 areas spec, 0 variant, 1 none, 0 partial, 0 unsupported" 'set:key_id=\"1\"'
line "none: the field and both values" "  legacy_key       none                   6/8; first difference from the spec: api_key.json tcId 1: key_id: client 1 (0x1), the spec 1234605616147931665 (0x1122334444332211)"
# ... and byte_order, judged on the packets (the key tests need the version-1 layout), stays spec.
line "wrong key_id: byte_order judged on the packets" "  byte_order       spec                   2/2"

# An area whose every test the client refused at the key is not judged (project): it
# shows nothing about the area, so never none (nor spec).
speaks "fake at_key:guard_rule" 0 "dialect: 11 areas spec, 0 variant, 0 none, 0 partial, 1 unsupported" at_key:guard_rule
line "at_key: guard_rule not judged" "  guard_rule       unsupported            -; rate_response.json tcId 1: not judged: refused at the key (stage \"key\"), and the area is not about the key"
# A client with another key layout that refuses the version-1 keys: byte_order is judged on
# the packets, whose answers do not depend on the key layout; the key tests are judged under
# legacy_key spec only (project).
speaks "fake refuse_v1_keys" 0 "$all_spec" refuse_v1_keys
line "refuse_v1_keys: byte_order spec" "  byte_order       spec                   2/2"
# layouts: a client that holds legacy_60 and refuses every packet at the key: the byte_order
# tests written under the spec's key format are left out (it does not speak that layout), so the
# area is not judged, never none (project; the published C client's case).
speaks "fake legacy_60 refused at the key" 1 "dialect: 9 areas spec, 1 variant, 0 none, 0 partial, 2 unsupported" \
    legacy_key=legacy_60 at_key:byte_order
line "legacy_60 at the key: byte_order not judged" \
    "  byte_order       unsupported            -; rate_request_packet.json tcId 7: not judged: refused at the key (stage \"key\"), and the area is not about the key"

checks=$((checks + 1))
if /usr/bin/python3 vectors/tools/gen_dialects.py --check >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   gen_dialects --check"
else
    fail "gen_dialects --check"
fi

echo "dialect tests: $((checks - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
