#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate vectors/dialect/*.json: the dialect vector sets of `rl-testbed dialect`.

Each test records one answer: the specification's (flag "dialect:<area>:spec")
or that of a variant published clients are known to speak (flag
"dialect:<area>:<variant>", ../shared/external/README.md and the issues seen in
other clients). The same input usually appears once per variant. The notes
object says, for every flag, what the variant does and what to change to reach
the specification. `rl-testbed dialect --client CMD` asks the client every test
and reports, per area, the variant whose every answer it gave.

Every value is computed here, in Python, from the specification text and the
variant's description only (hashlib, struct, the cryptography package), with
the spec-side primitives of gen_vectors.py; nothing comes from the C library.
The files are not run by `rl-testbed vectors`: a variant's tests fail there by
design. Expected fields are matched as a subset (only the fields a test pins).

Usage:
  /usr/bin/python3 vectors/tools/gen_dialects.py           # (re)write vectors/dialect/*.json
  /usr/bin/python3 vectors/tools/gen_dialects.py --check   # exit 1 if a committed file differs
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import gen_ha_schedule as hs
import gen_vectors as gv

SOURCE = ("independent computation by vectors/tools/gen_dialects.py of the specification "
          "(wire_protocol.md, r-client.md 9.3.1, api.md) and of each published variant")
TRACKER_V2_DOMAIN = b"ratelimitly.latency-tracker.v2\0"

SPEC_NOTE = "the spec's answer"
HA_DIFF = "differs from r-client.md 9.3 (recommended, not required)"
NOTES = {
    "tracker_id": {
        "three_field": "latency-tracker ID hashed over ttl_ms, max_samples and min_sample_threshold only "
                       "(no buffer_size). To reach the spec: hash all four settings, buffer_size third "
                       "(wire_protocol.md \"Content-defined latency-tracker identity\")",
        "three_field_v2": "three-field latency-tracker ID under the domain ratelimitly.latency-tracker.v2. "
                          "To reach the spec: use the domain ratelimitly.latency-tracker.v1\\0 and all four "
                          "settings",
    },
    "id_hash": {
        "blake2s_128": "IDs hashed with BLAKE2s configured for a 16-byte digest. To reach the spec: take "
                       "the standard 32-byte BLAKE2s-256 digest and keep its first 16 bytes "
                       "(wire_protocol.md: the 16-byte variant MUST NOT be substituted)",
        "blake2s_128_text": "bucket IDs hashed with BLAKE2s (16-byte digest) over the text \"name:window:limit\". "
                            "To reach the spec: BLAKE2s-256 over the domain ratelimitly.resource.v1\\0, the "
                            "length-prefixed name and the two u32 settings, first 16 bytes (wire_protocol.md "
                            "\"Content-defined resource identity\")",
    },
    "guard_block": {
        "guard_36": "36-byte guard blocks (no buffer_size field). To reach the spec: 40-byte blocks with "
                    "buffer_size after max_samples (wire_protocol.md \"Guard Blocks\")",
        "guard_32": "32-byte guard blocks (no buffer_size, no min_sample_threshold). To reach the spec: 40-byte "
                    "blocks with both (wire_protocol.md \"Guard Blocks\")",
    },
    "report_block": {
        "report_32": "32-byte service-latency blocks (no buffer_size field). To reach the spec: 36-byte "
                     "blocks with buffer_size after max_samples (wire_protocol.md \"Service Latency Block\")",
    },
    "guard_rule": {
        "guard_le": "a guard passes when current_latency <= latency_threshold. To reach the spec: pass "
                    "only when current_latency < latency_threshold (wire_protocol.md \"Response Semantics\")",
    },
    "legacy_key": {
        "legacy_56": "accepts the legacy unversioned 56-byte credential payload (key_id, secret, four u32 "
                     "quotas) and no 60-byte one. To reach the spec: require the 45-byte version-1 payload and "
                     "reject every other size as length (wire_protocol.md \"Credential Validation Rules\")",
        "legacy_60": "accepts the legacy unversioned 60-byte credential payload (five u32 quotas) and no 56-byte "
                     "one. To reach the spec: require the 45-byte version-1 payload and reject every other size "
                     "as length (wire_protocol.md \"Credential Validation Rules\")",
        "legacy_56_60": "accepts both legacy unversioned payloads, 56 and 60 bytes. To reach the spec: require "
                        "the 45-byte version-1 payload (wire_protocol.md \"Credential Validation Rules\")",
        "unversioned_be": "a 44-byte payload with no format_version byte and a big-endian key_id; the 45-byte "
                          "version-1 payload refused as length. To reach the spec: format_version 1 first, "
                          "key_id little-endian (wire_protocol.md \"Bech32 Credential Formats\")",
    },
    "byte_order": {
        "big_endian": "multi-byte integers read and written big-endian. To reach the spec: every integer "
                      "field is little-endian (wire_protocol.md, all PDUs and credential payloads)",
    },
    "oversize": {
        "truncate_1200": "a request longer than 1200 bytes is cut to its first 1200 bytes and sent, no error. "
                         "To reach the spec: refuse it (class range; api.md \"Capacity limits\", "
                         "wire_protocol.md: a datagram is at most 1200 bytes)",
    },
    "response_auth": {
        "none_accepted": "a response authenticated with none (auth TLV 0x414E) is accepted under a cookie or "
                         "AES key: an on-path attacker forges allow and deny. To reach the spec: accept only "
                         "the key's auth mode (wire_protocol.md \"Auth Header\"; r-client.md 6.4)",
    },
    "server_id": {
        "double": "server_id kept as a double: ids above 2^53 lose their low bits, two servers can collide. "
                  "To reach the spec: keep the full unsigned 64-bit value (wire_protocol.md \"Structured "
                  "server_id Format\"; r-client.md 6.4: full 64-bit compare)",
    },
    "policy_pk": {
        "api_md_only": "the api.md policy alone: no preference schedule P(k), so round 0 waits its whole "
                       "round and any later response completes at once (P = [B(0), 0, ...]); " + HA_DIFF +
                       ", which adds the preference schedule P(k) and P_final (r-client.md 9.3.1)",
    },
    "horizon": {
        "no_final": "the dedup horizon leaves out the final receive interval: H = U * sum B(k); " + HA_DIFF +
                    ", where H = U * (sum B(k) + F) (r-client.md 9.3.1, api.md)",
    },
}

# The layout a test's answers are computed under (flag "dialect-under:<area>:<variant>"), so an
# area is judged under every layout of the other areas: each area varies that area alone.
UNDER_NOTES = {
    "byte_order:spec": "answers computed little-endian (the spec's byte order)",
    "byte_order:big_endian": "answers computed big-endian",
    "guard_block:spec": "answers with 40-byte guard blocks (the spec's)",
    "guard_block:guard_36": "answers with 36-byte guard blocks (no buffer_size)",
    "guard_block:guard_32": "answers with 32-byte guard blocks (no buffer_size, no min_sample_threshold)",
    "report_block:spec": "answers with 36-byte service-latency blocks (the spec's)",
    "legacy_key:spec": "answers for a version-1 key (format_version 1, 45-byte payload; the spec's layout)",
}
ENDIAN = {"spec": "<", "big_endian": ">"}


class DialectFile:
    def __init__(self, kind, areas):
        notes = {}
        for area in areas:
            notes[f"dialect:{area}:spec"] = SPEC_NOTE
            for variant, text in NOTES[area].items():
                notes[f"dialect:{area}:{variant}"] = text
        self.vf = gv.VectorFile(f"{kind}.json", kind, SOURCE, notes)

    def add(self, comment, area, variant, inp, answer, under=()):
        """answer: an output dict (valid) or an error class string (invalid). under: the
        (area, variant) layouts the answer is computed under."""
        expected = {"error": answer} if isinstance(answer, str) else answer
        result = "invalid" if isinstance(answer, str) else "valid"
        flags = [f"dialect:{area}:{variant}"]
        for a, v in under:
            flag = f"dialect-under:{a}:{v}"
            self.vf.notes[flag] = UNDER_NOTES[f"{a}:{v}"]
            flags.append(flag)
        where = "".join(f", {a} {v}" for a, v in under)
        self.vf.add(f"{comment} [{variant}{where}]", flags, result, inp, expected)

    def add_all(self, comment, area, inp, answers, under=()):
        for variant, answer in answers.items():
            if answer is not None:
                self.add(comment, area, variant, inp, answer, under)


def answer_of(fn, *args):
    try:
        return fn(*args)
    except gv.VecError as e:
        return e.cls


# ---------------------------------------------------------------------------
# IDs

def tracker_variant(name, ttl, ms, bs, mst, domain=gv.TRACKER_DOMAIN, fields=4, digest=32):
    settings = (ttl, ms, bs, mst) if fields == 4 else (ttl, ms, mst)
    msg = domain + gv.le32(len(name)) + name + b"".join(gv.le32(v) for v in settings)
    return hashlib.blake2s(msg, digest_size=digest).digest()[:16].hex()


def bucket_variant(name, window, rate, digest=32):
    msg = gv.RESOURCE_DOMAIN + gv.le32(len(name)) + name + gv.le32(window) + gv.le32(rate)
    return hashlib.blake2s(msg, digest_size=digest).digest()[:16].hex()


def gen_tracker_id():
    f = DialectFile("tracker_id", ["tracker_id"])
    for name, ttl, ms, bs, mst in ((b"inventory-backend", 10000, 100, 32, 5), (b"checkout-db", 5000, 50, 16, 3),
                                   (b"\x00bin\xff", 1, 1, 1, 0)):
        inp = dict(gv.name_input(name.decode() if name.isascii() and b"\x00" not in name else name),
                   ttl_ms=ttl, max_samples=ms, buffer_size=bs, min_sample_threshold=mst)
        f.add_all(f"tracker {name!r}", "tracker_id", inp, {
            "spec": {"id_hex": tracker_variant(name, ttl, ms, bs, mst)},
            "three_field": {"id_hex": tracker_variant(name, ttl, ms, bs, mst, fields=3)},
            "three_field_v2": {"id_hex": tracker_variant(name, ttl, ms, bs, mst, TRACKER_V2_DOMAIN, 3)},
        })
    return f.vf


def bucket_text_variant(name, window, rate):
    return hashlib.blake2s(b"%s:%d:%d" % (name, window, rate), digest_size=16).digest().hex()


def gen_bucket_id():
    f = DialectFile("bucket_id", ["id_hash"])
    for name, window, rate in ((b"checkout", 1000, 100), (b"cafe", 60000, 5), (b"", 1, 0)):
        inp = dict(gv.name_input(name.decode()), window_size_ms=window, rate_limit=rate)
        f.add_all(f"bucket {name!r}", "id_hash", inp, {
            "spec": {"id_hex": bucket_variant(name, window, rate)},
            "blake2s_128": {"id_hex": bucket_variant(name, window, rate, digest=16)},
            "blake2s_128_text": {"id_hex": bucket_text_variant(name, window, rate)},
        })
    return f.vf


# ---------------------------------------------------------------------------
# Credentials

def decode_key_be(text):
    """A big-endian reader of a version-1 key: key_id and quota word byte-swapped."""
    hrp, payload = gv.bech32_decode(text)
    if hrp not in gv.API_HRPS:
        raise gv.VecError("hrp", hrp)
    auth, size = gv.API_HRPS[hrp]
    if len(payload) != size:
        raise gv.VecError("length", "size")
    if payload[0] != 1:
        raise gv.VecError("version", "version")
    key_id = struct.unpack_from(">Q", payload, 1)[0]
    word = struct.unpack_from(">I", payload, len(payload) - 4)[0]
    gv.quota_values(word)
    return {"key_id": str(key_id), "quota_word": "0x%08x" % word}


def legacy_answer(text):
    """A legacy reader: payload = key_id u64, secret (32), then u32 quota fields, no version byte."""
    hrp, payload = gv.bech32_decode(text)
    auth = gv.API_HRPS[hrp][0]
    return {"auth": auth, "key_id": str(struct.unpack_from("<Q", payload, 0)[0]), "secret_hex": payload[8:40].hex()}


def unversioned_be_answer(text):
    """No format_version byte: key_id u64 big-endian, secret (32), quota word u32 big-endian."""
    hrp, payload = gv.bech32_decode(text)
    if len(payload) != 44:
        return "length"
    return {"auth": gv.API_HRPS[hrp][0], "key_id": str(struct.unpack_from(">Q", payload, 0)[0]),
            "quota_word": "0x%08x" % struct.unpack_from(">I", payload, 40)[0]}


PALINDROME_ID = 0x1122334444332211


def gen_api_key():
    f = DialectFile("api_key", ["legacy_key", "byte_order"])
    # legacy_key: every key_id and quota word reads the same in either byte order, so the area
    # varies the payload layout alone.
    for mode, secret in (("aes", gv.AES_SECRET), ("cookie", gv.COOKIE_SECRET)):
        key = palindromic_key(mode, secret)
        spec = gv.api_key_expected(key)
        f.add_all(f"version-1 rl-{mode} key (45 bytes)", "legacy_key", {"key": key}, {
            "spec": {k: spec[k] for k in ("auth", "key_id", "quota_word")}, "unversioned_be": "length"})
    legacy56 = gv.le64(PALINDROME_ID) + gv.AES_SECRET + gv.le32(65536) + gv.le32(1024) + gv.le32(32) + gv.le32(300)
    for hrp, payload in (("rl-aes", legacy56), ("rl-cookie", legacy56), ("rl-aes", legacy56 + gv.le32(4096)),
                         ("rl-cookie", legacy56 + gv.le32(4096))):
        key = gv.bech32_encode(hrp, payload)
        ok = legacy_answer(key)
        f.add_all(f"legacy {len(payload)}-byte {hrp} payload", "legacy_key", {"key": key}, {
            "spec": answer_of(gv.api_key_expected, key),
            "legacy_56": ok if len(payload) == 56 else "length",
            "legacy_60": ok if len(payload) == 60 else "length",
            "legacy_56_60": ok,
            "unversioned_be": "length",
        })
    word = palindromic_word()
    for hrp, secret in (("rl-aes", gv.AES_SECRET), ("rl-cookie", gv.COOKIE_SECRET)):
        key = gv.bech32_encode(hrp, struct.pack(">Q", 0x0102030405060708) + secret + struct.pack(">I", word))
        f.add_all(f"44-byte {hrp} payload, no format_version, key_id big-endian", "legacy_key", {"key": key}, {
            "spec": answer_of(gv.api_key_expected, key), "legacy_56": "length", "legacy_60": "length",
            "legacy_56_60": "length", "unversioned_be": unversioned_be_answer(key)})
    # byte_order: version-1 keys, judged under the version-1 layout only (legacy_key spec): a
    # client with another key layout refuses them whatever its byte order, so they are no
    # layout-free test of byte_order (the packet tests are).
    for mode in ("none", "cookie", "aes"):
        key = gv.KEYS[mode]
        spec = gv.api_key_expected(key)
        f.add_all(f"version-1 rl-{mode} key", "byte_order", {"key": key}, {
            "spec": {"key_id": spec["key_id"], "quota_word": spec["quota_word"]},
            "big_endian": answer_of(decode_key_be, key),
        }, under=[("legacy_key", "spec")])
    return f.vf


# ---------------------------------------------------------------------------
# Packets: one builder, parametrized by the variant's byte order and block shapes.

def palindromic_word():
    """A valid quota word that reads the same in either byte order."""
    for b0 in range(256):
        for b1 in range(256):
            word = b0 | b1 << 8 | b1 << 16 | b0 << 24
            try:
                q = gv.quota_values(word)
            except gv.VecError:
                continue
            if q["dedup_ttl_ms_max"] >= 60 and q["latency_buffer_size_max"] >= 32 and \
                    q["rate_window_size_ms_max"] >= 1000:
                return word
    raise AssertionError("no palindromic quota word")


def palindromic_key(auth, secret):
    """A key that reads the same in either byte order, so a packet test isolates the packet encoding."""
    return gv.make_api_key(auth, PALINDROME_ID, palindromic_word(), secret)


def pack(endian, fmt, *values):
    return struct.pack(endian + fmt, *values)


def seal_variant(endian, mode, secret, key_id, uid, steering, pdu, nonce):
    tenant = pack(endian, "HHQ16sQBBH", gv.TLV_TENANT, 40, key_id, uid, int(gv.TIME_STAMP), steering, 0, 0)
    tlv_type, tlv_size = gv.AUTH_TLV[mode]
    if mode == "none":
        return tenant + pack(endian, "HH", tlv_type, tlv_size) + pdu
    if mode == "cookie":
        return tenant + pack(endian, "HH", tlv_type, tlv_size) + secret + pdu
    prefix = pack(endian, "HH", tlv_type, tlv_size) + nonce
    sealed = gv.AESGCM(secret).encrypt(nonce, pdu, tenant + prefix)
    return tenant + prefix + sealed[-16:] + sealed[:-16]


# Guard block layouts: the u32 fields between the tracker ID and current_latency.
GUARD_LAYOUT = {
    "spec": ("ttl_ms", "max_samples", "buffer_size", "min_sample_threshold", "latency_threshold"),
    "guard_36": ("ttl_ms", "max_samples", "min_sample_threshold", "latency_threshold"),
    "guard_32": ("ttl_ms", "max_samples", "latency_threshold"),
}


def request_packet(inp, endian="<", guard_fields=GUARD_LAYOUT["spec"], limit=None):
    """The variant's request datagram; limit: cut to that many bytes (None: the whole datagram)."""
    key = gv.decode_api_key(inp["key"])
    blocks = b""
    for g in inp["guards"]:
        blocks += bytes.fromhex(g["tracker_id_hex"]) + b"".join(pack(endian, "I", g[k]) for k in guard_fields)
        blocks += pack(endian, "I", 0)  # current_latency
    for r in inp["resources"]:
        blocks += bytes.fromhex(r["bucket_id_hex"]) + pack(endian, "IIHH", r["window_size_ms"], r["rate_limit"],
                                                          r["tokens_requested"], 0)
    pdu = pack(endian, "HHIHH", gv.PDU_RATE_REQUEST, 12 + len(blocks), inp["dedup_ttl_ms"], len(inp["guards"]),
               len(inp["resources"])) + blocks
    nonce = bytes.fromhex(inp["nonce_hex"]) if key["auth"] == "aes" else None
    pkt = seal_variant(endian, key["auth"], key["secret"], key["key_id"], bytes.fromhex(inp["unique_id_hex"]),
                       inp["steering_feedback"], pdu, nonce)
    return {"packet_hex": pkt[:limit].hex()}


def report_packet(inp, endian="<", fields=("ttl_ms", "max_samples", "buffer_size", "min_sample_threshold",
                                           "observed_latency")):
    key = gv.decode_api_key(inp["key"])
    blocks = b"".join(bytes.fromhex(r["tracker_id_hex"]) + b"".join(pack(endian, "I", r[k]) for k in fields)
                      for r in inp["reports"])
    pdu = pack(endian, "HHHHHH", gv.PDU_LATENCY_REPORT, 12 + len(blocks), 0, 0, len(inp["reports"]), 0) + blocks
    nonce = bytes.fromhex(inp["nonce_hex"]) if key["auth"] == "aes" else None
    pkt = seal_variant(endian, key["auth"], key["secret"], key["key_id"], bytes.fromhex(inp["unique_id_hex"]), 0,
                       pdu, nonce)
    return {"packet_hex": pkt.hex()}


NO_BUFFER_REPORT = ("ttl_ms", "max_samples", "min_sample_threshold", "observed_latency")


def gen_rate_request():
    f = DialectFile("rate_request_packet", ["guard_block", "byte_order", "oversize"])
    guards = [gv.make_guard("inventory-backend"), gv.make_guard("search", latency_threshold=250, buffer_size=16)]
    resources = [gv.make_resource("checkout")]
    for mode in ("none", "aes"):
        inp = gv.request_input(mode, guards, resources)
        inp["key"] = palindromic_key(mode, gv.AES_SECRET if mode == "aes" else None)
        assert request_packet(inp) == {"packet_hex": gv.build_rate_request(inp).hex()}  # same as the spec model
        # guard_block under either byte order; byte_order under every guard layout.
        for order, endian in ENDIAN.items():
            f.add_all(f"rl-{mode}: two guards, one resource", "guard_block", inp,
                      {gl: request_packet(inp, endian, fields) for gl, fields in GUARD_LAYOUT.items()},
                      under=[("byte_order", order)])
        for gl, fields in GUARD_LAYOUT.items():
            f.add_all(f"rl-{mode}: two guards, one resource", "byte_order", inp,
                      {o: request_packet(inp, e, fields) for o, e in ENDIAN.items()}, under=[("guard_block", gl)])
        # byte_order on resource blocks alone, whose layout is not in question.
        inp = gv.request_input(mode, [], [gv.make_resource("checkout"), gv.make_resource("cart", 1000, 7, 3)])
        inp["key"] = palindromic_key(mode, gv.AES_SECRET if mode == "aes" else None)
        assert request_packet(inp) == {"packet_hex": gv.build_rate_request(inp).hex()}
        f.add_all(f"rl-{mode}: two resources, no guard", "byte_order", inp,
                  {o: request_packet(inp, e) for o, e in ENDIAN.items()})
    # oversize: 40 resources fit with rl-none (1176 bytes), 41 do not (1204 > 1200); with rl-cookie
    # (a 36-byte auth TLV) 39 fit (1180) and 40 do not (1208), for a client without a none mode.
    for mode, auth_len, fits in (("none", 4, 40), ("cookie", 36, 39)):
        for n in (fits, fits + 1):
            inp = gv.request_input(mode, [], [gv.make_resource(f"bucket-{i}") for i in range(n)])
            inp["key"] = palindromic_key(mode, SECRETS[mode])
            spec = answer_of(lambda x: {"packet_hex": gv.build_rate_request(x).hex()}, inp)
            assert (spec == "range") == (n == fits + 1)
            for order, endian in ENDIAN.items():
                f.add_all(f"rl-{mode}: {n} resources, {40 + auth_len + 12 + 28 * n} bytes", "oversize", inp, {
                    "spec": spec if order == "spec" or spec == "range" else request_packet(inp, endian),
                    "truncate_1200": request_packet(inp, endian, limit=gv.MAX_DATAGRAM)},
                    under=[("byte_order", order)])
    return f.vf


def gen_latency_report():
    f = DialectFile("latency_report_packet", ["report_block"])
    reports = []
    for name, observed, bs in (("inventory-backend", 42, 32), ("search", 7, 16)):
        tid = gv.tracker_id(name.encode(), 10000, 100, bs, 5)
        reports.append({"tracker_id_hex": tid.hex(), "ttl_ms": 10000, "max_samples": 100, "buffer_size": bs,
                        "min_sample_threshold": 5, "observed_latency": observed})
    for mode in ("none", "cookie"):
        inp = {"key": palindromic_key(mode, gv.COOKIE_SECRET if mode == "cookie" else None),
               "unique_id_hex": gv.UID.hex(), "time_stamp_ms": gv.TIME_STAMP, "reports": reports}
        assert report_packet(inp) == {"packet_hex": gv.build_latency_report(inp).hex()}
        for order, endian in ENDIAN.items():
            f.add_all(f"rl-{mode}: two reports", "report_block", inp, {
                "spec": report_packet(inp, endian), "report_32": report_packet(inp, endian, NO_BUFFER_REPORT)},
                under=[("byte_order", order)])
    return f.vf


# ---------------------------------------------------------------------------
# Responses, built in the variant's byte order and guard layout.

SECRETS = {"none": None, "cookie": gv.COOKIE_SECRET, "aes": gv.AES_SECRET}


def response_packet(mode, endian="<", guard_fields=GUARD_LAYOUT["spec"], guards=(), resources=(),
                    server_id=gv.SERVER_A, auth=None):
    """guards: (guard dict, current_latency); resources: (resource dict, actual_rate, deficit).
    auth: the auth TLV the server used (default: the key's mode)."""
    blocks = b""
    for g, current in guards:
        blocks += bytes.fromhex(g["tracker_id_hex"]) + b"".join(pack(endian, "I", g[k]) for k in guard_fields)
        blocks += pack(endian, "I", current)
    for r, actual, deficit in resources:
        blocks += bytes.fromhex(r["bucket_id_hex"]) + pack(endian, "IIHH", r["window_size_ms"], actual, deficit, 0)
    pdu = pack(endian, "HHHHHH", gv.PDU_RATE_RESPONSE, 12 + len(blocks), 0, 0, len(guards), len(resources)) + blocks
    auth = auth or mode
    nonce = gv.next_nonce() if auth == "aes" else None
    return seal_variant(endian, auth, SECRETS[auth], server_id, gv.UID, 1, pdu, nonce)


def response_input(mode, pkt, trusted=(gv.SERVER_A,)):
    return {"key": palindromic_key(mode, SECRETS[mode]), "packet_hex": pkt.hex(),
            "request_unique_id_hex": gv.UID.hex(), "trusted_server_ids": [str(t) for t in trusted]}


def gen_rate_response():
    f = DialectFile("rate_response", ["guard_rule", "response_auth", "server_id"])
    # guard_rule under every byte order and guard layout: at the threshold the rules differ, one
    # below they agree (so a none names the field that differs in the client's own layout).
    for mode, threshold in (("none", 100), ("cookie", 250), ("aes", 1)):
        g = gv.make_guard("inventory-backend", latency_threshold=threshold)
        for order, endian in ENDIAN.items():
            for gl, fields in GUARD_LAYOUT.items():
                for current in (threshold, threshold - 1):
                    pkt = response_packet(mode, endian, fields, [(g, current)],
                                          [(gv.make_resource("checkout"), 1, 0)])
                    f.add_all(f"rl-{mode}: current_latency {current}, latency_threshold {threshold}", "guard_rule",
                              response_input(mode, pkt), {"spec": {"success": current < threshold},
                                                          "guard_le": {"success": current <= threshold}},
                              under=[("byte_order", order), ("guard_block", gl)])
    # response_auth: no guard blocks, so no layout is in question.
    r = [(gv.make_resource("checkout"), 1, 0)]
    for mode in ("cookie", "aes"):
        for order, endian in ENDIAN.items():
            for auth in (mode, "none"):
                inp = response_input(mode, response_packet(mode, endian, resources=r, auth=auth))
                f.add_all(f"rl-{mode} key, response authenticated with {auth}", "response_auth", inp, {
                    "spec": {"success": True} if auth == mode else "auth", "none_accepted": {"success": True}},
                    under=[("byte_order", order)])
    # server_id above 2^53: 41-bit start field near its top.
    big = gv.server_id_compose(gv.EPOCH_2025 + (1 << 38) + 5, 3, 17)
    assert big > 1 << 53 and int(float(big)) != big and float(big) == float(big + 1)
    for mode in ("none", "cookie"):  # cookie: for a client without a none mode
        for order, endian in ENDIAN.items():
            for sid in (big, big + 1):
                inp = response_input(mode, response_packet(mode, endian, resources=r, server_id=sid), trusted=[big])
                f.add_all(f"rl-{mode}: response from server_id {sid:#x}, trusted {big:#x}", "server_id", inp, {
                    "spec": {"server_id": str(sid)} if sid == big else "correlation",
                    "double": {"server_id": str(int(float(sid)))}}, under=[("byte_order", order)])
    return f.vf


# ---------------------------------------------------------------------------
# HA policy: P(k) and the horizon, each in its own fields.

def gen_ha_schedule():
    f = DialectFile("ha_schedule", ["policy_pk", "horizon"])
    policies = (
        ("r-client.md 9.3.5 default", hs.policy()),
        ("U 10, B 2, P 1, F 2, P_final 1", hs.policy(unit_ms=10, replay_gap=hs.sched("fixed", 2),
                                                     preference=hs.sched("fixed", 1), final_receive_units=2,
                                                     final_preference_units=1)),
        ("linear B 1 + 2k to 5, P 1, 3 replays", hs.policy(unit_ms=10, replay_count=3,
                                                          replay_gap=hs.sched("linear", 1, 5, step=2))),
    )
    for comment, pol in policies:
        inp = {"policy": pol, "dedup_ttl_ms_max": 2000}
        rule, spec = hs.evaluate(pol, 2000)
        assert rule is None, comment
        u, b0 = pol["unit_ms"], spec["round_ms"][0]
        api_md = [b0] + [0] * (len(spec["round_ms"]) - 1)  # api.md: round 0 waits its round, later rounds 0
        assert api_md != spec["preference_ms"], comment
        f.add_all(comment, "policy_pk", inp, {"spec": {"preference_ms": spec["preference_ms"]},
                                             "api_md_only": {"preference_ms": api_md}})
        no_f = sum(spec["round_ms"])
        assert no_f != spec["ttl_ms"] and u >= 1, comment
        f.add_all(comment, "horizon", inp, {"spec": {"ttl_ms": spec["ttl_ms"]}, "no_final": {"ttl_ms": no_f}})
    return f.vf


GENERATORS = (gen_tracker_id, gen_bucket_id, gen_api_key, gen_rate_request, gen_latency_report, gen_rate_response,
              gen_ha_schedule)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files; exit 1 on a difference")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                  "dialect"))
    args = ap.parse_args()
    gv._nonce_counter[0] = 0
    files = {vf.name: vf.render() for vf in (gen() for gen in GENERATORS)}
    bad = 0
    if not args.check:
        os.makedirs(args.out, exist_ok=True)
    for name, text in files.items():
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as fh:
                    same = fh.read() == text
            except OSError:
                same = False
            if not same:
                print(f"DIFFERS {path}")
                bad += 1
            continue
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        print(f"wrote {name}: {len(json.loads(text)['tests'])} tests")
    if args.check:
        print(f"gen_dialects --check: {len(files) - bad} identical, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
