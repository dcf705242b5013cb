#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the project's known-answer vector files (schema ratelimitly-vectors/v1).

Every expected value is computed here, independently of the C library, from the
specification text only:
  wire_protocol.md  "Bech32 Credential Formats", "API-key quota word, format version 1",
                    "Credential Validation Rules", "Tenant Header", "Auth Header",
                    "AES-256-GCM Normative Framing", "Rate Request", "Guard Blocks",
                    "Resource Blocks", content-defined IDs, "Metrics Label TLV Parameter",
                    "rate_response PDU", "Latency Report PDU", "Structured server_id Format"
  r-client.md       3.1 (SRV target s-<decimal>), 9.1 (server_id decoding)
  api.md            "Capacity limits", "Credentials" quota enforcement, latency reports
Primitives: hashlib.blake2s (standard 32-byte digest) and cryptography's AESGCM.
Bech32 (BIP-173, checksum constant 1) and quota-word packing are implemented below.

Usage:
  /usr/bin/python3 vectors/tools/gen_vectors.py            # (re)write vectors/*.json
  /usr/bin/python3 vectors/tools/gen_vectors.py --check    # exit 1 if a committed file differs
Everything is deterministic: every random-looking input is a fixed constant or derived
from fixed strings, so re-running reproduces identical bytes.
"""

import argparse
import hashlib
import json
import os
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SCHEMA = "ratelimitly-vectors/v1"
TOOL = "independent computation by vectors/tools/gen_vectors.py (hashlib, cryptography)"
U32_MAX = 0xFFFFFFFF
U64_MAX = 0xFFFFFFFFFFFFFFFF
MAX_DATAGRAM = 1200  # wire_protocol.md intro, api.md "Capacity limits"


class VecError(Exception):
    """A rejection with its schema error class (bech32, hrp, length, ...)."""

    def __init__(self, cls, why):
        super().__init__(f"{cls}: {why}")
        self.cls = cls
        self.why = why


def le16(v):
    return struct.pack("<H", v)


def le32(v):
    return struct.pack("<I", v)


def le64(v):
    return struct.pack("<Q", v)


def hx(b):
    return b.hex()


def pad4(n):
    return (n + 3) & ~3


# ---------------------------------------------------------------------------
# Bech32 (BIP-173). The 90-character limit is deliberately NOT enforced: the
# credential rules classify over-long payloads by length, not by string size.

CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BECH32_CONST = 1
BECH32M_CONST = 0x2BC830A3  # only used to build a negative vector


def _polymod(values):
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            if (top >> i) & 1:
                chk ^= gen[i]
    return chk


def _hrp_expand(hrp):
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _checksum(hrp, groups, const=BECH32_CONST):
    pm = _polymod(_hrp_expand(hrp) + groups + [0] * 6) ^ const
    return [(pm >> (5 * (5 - i))) & 31 for i in range(6)]


def bytes_to_groups(data):
    """8-bit to 5-bit groups, zero-padding the last group."""
    acc = bits = 0
    out = []
    for b in data:
        acc = ((acc << 8) | b) & 0xFFFF
        bits += 8
        while bits >= 5:
            bits -= 5
            out.append((acc >> bits) & 31)
    if bits:
        out.append((acc << (5 - bits)) & 31)
    return out


def groups_to_bytes(groups):
    """5-bit groups back to bytes; padding must be < 5 bits and all zero (BIP-173)."""
    acc = bits = 0
    out = bytearray()
    for g in groups:
        acc = ((acc << 5) | g) & 0xFFF
        bits += 5
        if bits >= 8:
            bits -= 8
            out.append((acc >> bits) & 0xFF)
    if bits >= 5:
        raise VecError("bech32", "excess padding group")
    if acc & ((1 << bits) - 1):
        raise VecError("bech32", "non-zero padding bits")
    return bytes(out)


def bech32_encode_groups(hrp, groups, const=BECH32_CONST):
    return hrp + "1" + "".join(CHARSET[g] for g in groups + _checksum(hrp, groups, const))


def bech32_encode(hrp, data):
    return bech32_encode_groups(hrp, bytes_to_groups(data))


def bech32_decode(text):
    """Return (hrp, payload bytes) or raise VecError('bech32')."""
    if any(ord(c) < 33 or ord(c) > 126 for c in text):
        raise VecError("bech32", "character outside 33..126")
    if text.lower() != text and text.upper() != text:
        raise VecError("bech32", "mixed case")
    text = text.lower()
    pos = text.rfind("1")
    if pos < 0:
        raise VecError("bech32", "no separator")
    if pos == 0:
        raise VecError("bech32", "empty human-readable part")
    if pos + 7 > len(text):
        raise VecError("bech32", "data part shorter than the checksum")
    hrp = text[:pos]
    groups = []
    for c in text[pos + 1:]:
        i = CHARSET.find(c)
        if i < 0:
            raise VecError("bech32", "character not in the Bech32 charset")
        groups.append(i)
    if _polymod(_hrp_expand(hrp) + groups) != BECH32_CONST:
        raise VecError("bech32", "checksum")
    return hrp, groups_to_bytes(groups[:-6])


# ---------------------------------------------------------------------------
# Quota word, format version 1 (wire_protocol.md "API-key quota word").

QUOTA_FIELDS = ("rate_buckets_max", "latency_services_max", "metrics_labels_max",
                "latency_buffer_size_max", "dedup_ttl_ms_max", "rate_window_size_ms_max")


def pack_quota(rate_exp, latency_exp, labels_exp, buffer_exp, dedup_units, window_exp):
    assert 0 <= rate_exp < 32 and 0 <= latency_exp < 32 and 0 <= labels_exp < 32
    assert 0 <= buffer_exp < 16 and 0 <= dedup_units < 256 and 0 <= window_exp < 32
    return (rate_exp | latency_exp << 5 | labels_exp << 10 | buffer_exp << 15
            | dedup_units << 19 | window_exp << 27)


def quota_values(word):
    """Decode to integers or raise VecError('quota')."""
    rate_exp = word & 31
    latency_exp = (word >> 5) & 31
    labels_exp = (word >> 10) & 31
    buffer_exp = (word >> 15) & 15
    dedup_units = (word >> 19) & 255
    window_exp = (word >> 27) & 31
    if rate_exp > 24:
        raise VecError("quota", "rate_exp above 24")
    if latency_exp > 24:
        raise VecError("quota", "latency_exp above 24")
    if not 1 <= dedup_units <= 200:
        raise VecError("quota", "dedup_units outside 1..200")
    return {
        "rate_buckets_max": 1 << rate_exp,
        "latency_services_max": 1 << latency_exp,
        "metrics_labels_max": 1 << labels_exp,
        "latency_buffer_size_max": 1 << buffer_exp,
        "dedup_ttl_ms_max": dedup_units * 10,
        "rate_window_size_ms_max": U32_MAX if window_exp == 31 else 1 << window_exp,
    }


def quota_json(word):
    return {k: str(v) for k, v in quota_values(word).items()}


# ---------------------------------------------------------------------------
# Credentials (wire_protocol.md "Bech32 Credential Formats", "Credential Validation Rules").

API_HRPS = {"rl-none": ("none", 13), "rl-cookie": ("cookie", 45), "rl-aes": ("aes", 45)}


def api_payload(key_id, word, secret=None, version=1):
    body = bytes([version]) + le64(key_id)
    if secret is not None:
        body += secret
    return body + le32(word)


def make_api_key(auth, key_id, word, secret=None, version=1):
    return bech32_encode("rl-" + auth, api_payload(key_id, word, secret, version))


def decode_api_key(text):
    """Full classification in schema order: bech32, hrp, length, version, quota."""
    hrp, payload = bech32_decode(text)
    if hrp not in API_HRPS:
        raise VecError("hrp", f"unknown human-readable part {hrp!r}")
    auth, size = API_HRPS[hrp]
    if len(payload) != size:
        raise VecError("length", f"{hrp} payload is {len(payload)} bytes, needs {size}")
    if payload[0] != 1:
        raise VecError("version", f"format_version {payload[0]}")
    key_id = struct.unpack_from("<Q", payload, 1)[0]
    word = struct.unpack_from("<I", payload, len(payload) - 4)[0]
    quotas = quota_values(word)
    secret = payload[9:41] if size == 45 else None
    return {"auth": auth, "key_id": key_id, "secret": secret, "word": word, "quotas": quotas}


def api_key_expected(text):
    k = decode_api_key(text)
    out = {"auth": k["auth"], "key_id": str(k["key_id"])}
    if k["secret"] is not None:
        out["secret_hex"] = hx(k["secret"])
    out["quota_word"] = "0x%08x" % k["word"]
    out["quotas"] = {f: str(k["quotas"][f]) for f in QUOTA_FIELDS}
    out["default_dns_name"] = f"c-{k['key_id']}.p0.ratelimitly.com"
    return out


def decode_secret_key(text):
    hrp, payload = bech32_decode(text)
    if hrp != "rl-secret":
        raise VecError("hrp", f"{hrp!r} is not rl-secret")
    if len(payload) != 32:
        raise VecError("length", f"rl-secret payload is {len(payload)} bytes")
    return payload


# ---------------------------------------------------------------------------
# Content-defined IDs (wire_protocol.md "Content-defined resource identity",
# "Content-defined latency-tracker identity").

RESOURCE_DOMAIN = b"ratelimitly.resource.v1\0"
TRACKER_DOMAIN = b"ratelimitly.latency-tracker.v1\0"
assert len(RESOURCE_DOMAIN) == 24 and len(TRACKER_DOMAIN) == 31


def bucket_id(name, window_size_ms, rate_limit):
    msg = RESOURCE_DOMAIN + le32(len(name)) + name + le32(window_size_ms) + le32(rate_limit)
    return hashlib.blake2s(msg, digest_size=32).digest()[:16]


def tracker_id(name, ttl_ms, max_samples, buffer_size, min_sample_threshold):
    msg = (TRACKER_DOMAIN + le32(len(name)) + name + le32(ttl_ms) + le32(max_samples)
           + le32(buffer_size) + le32(min_sample_threshold))
    return hashlib.blake2s(msg, digest_size=32).digest()[:16]


# ---------------------------------------------------------------------------
# Framing (wire_protocol.md "Tenant Header", "Auth Header", "AES-256-GCM Normative Framing").

TLV_TENANT = 0x4C52
TLV_LABEL = 0x4C4D
AUTH_TLV = {"none": (0x414E, 4), "cookie": (0x4143, 36), "aes": (0x4541, 32)}
KNOWN_AUTH_SIZE = {t: s for t, s in AUTH_TLV.values()}
PDU_RATE_REQUEST = 0x5452
PDU_RATE_RESPONSE = 0x5252
PDU_LATENCY_REPORT = 0x524C


def tenant_tlv(key_id, unique_id, time_stamp, steering=0, mgmt=0, padding=0,
               tlv_type=TLV_TENANT, tlv_size=40):
    return struct.pack("<HHQ16sQBBH", tlv_type, tlv_size, key_id, unique_id, time_stamp,
                       steering, mgmt, padding)


def seal(auth, secret, tenant, pdu, nonce=None):
    """Tenant TLV || auth TLV || PDU; AES encrypts the PDU in place and puts the tag after the nonce."""
    tlv_type, tlv_size = AUTH_TLV[auth]
    if auth == "none":
        return tenant + le16(tlv_type) + le16(tlv_size) + pdu
    if auth == "cookie":
        return tenant + le16(tlv_type) + le16(tlv_size) + secret + pdu
    prefix = le16(tlv_type) + le16(tlv_size) + nonce
    sealed = AESGCM(secret).encrypt(nonce, pdu, tenant + prefix)
    ciphertext, tag = sealed[:-16], sealed[-16:]
    assert len(ciphertext) == len(pdu)
    return tenant + prefix + tag + ciphertext


def guard_block(g, current_latency=0):
    return struct.pack("<16sIIIIII", bytes.fromhex(g["tracker_id_hex"]), g["ttl_ms"],
                       g["max_samples"], g["buffer_size"], g["min_sample_threshold"],
                       g["latency_threshold"], current_latency)


def resource_block(r):
    return struct.pack("<16sIIHH", bytes.fromhex(r["bucket_id_hex"]), r["window_size_ms"],
                       r["rate_limit"], r["tokens_requested"], 0)


def label_tlv(label):
    """Metrics label TLV, zero-padded to 4 bytes; tlv_size counts the padding; empty -> none."""
    raw = label.encode("utf-8")
    if not raw:
        return b""
    size = pad4(6 + len(raw))
    return le16(TLV_LABEL) + le16(size) + le16(len(raw)) + raw + bytes(size - 6 - len(raw))


def build_rate_request(inp):
    """Rate request datagram, or VecError('range') when it cannot be built."""
    key = decode_api_key(inp["key"])
    q = key["quotas"]
    dedup = inp["dedup_ttl_ms"]
    if dedup == 0:
        raise VecError("range", "dedup_ttl_ms 0")
    if dedup > q["dedup_ttl_ms_max"]:
        raise VecError("range", "dedup_ttl_ms above dedup_ttl_ms_max")
    for g in inp["guards"]:
        if g["buffer_size"] > q["latency_buffer_size_max"]:
            raise VecError("range", "guard buffer_size above latency_buffer_size_max")
    for r in inp["resources"]:
        if r["window_size_ms"] > q["rate_window_size_ms_max"]:
            raise VecError("range", "window_size_ms above rate_window_size_ms_max")
        if r["tokens_requested"] > 0xFFFF:
            raise VecError("range", "tokens_requested does not fit u16")
    blocks = (b"".join(guard_block(g) for g in inp["guards"])
              + b"".join(resource_block(r) for r in inp["resources"])
              + label_tlv(inp.get("metrics_label_utf8", "")))
    pdu_size = 12 + len(blocks)
    total = 40 + AUTH_TLV[key["auth"]][1] + pdu_size
    if total > MAX_DATAGRAM:
        raise VecError("range", f"datagram {total} bytes > {MAX_DATAGRAM}")
    pdu = struct.pack("<HHIHH", PDU_RATE_REQUEST, pdu_size, dedup, len(inp["guards"]),
                      len(inp["resources"])) + blocks
    tenant = tenant_tlv(key["key_id"], bytes.fromhex(inp["unique_id_hex"]),
                        int(inp["time_stamp_ms"]), inp["steering_feedback"])
    nonce = bytes.fromhex(inp["nonce_hex"]) if key["auth"] == "aes" else None
    pkt = seal(key["auth"], key["secret"], tenant, pdu, nonce)
    assert len(pkt) == total
    return pkt


def build_latency_report(inp):
    """Latency report datagram, or None when the call sends nothing (api.md "Reporting measured
    work": reports over latency_buffer_size_max are filtered first; if all are filtered the call
    returns RCLIENT_OK without sending)."""
    key = decode_api_key(inp["key"])
    if not inp["reports"]:
        raise VecError("range", "no reports")
    cap = key["quotas"]["latency_buffer_size_max"]
    kept = [r for r in inp["reports"] if r["buffer_size"] <= cap]
    if not kept:
        return None
    blocks = b"".join(struct.pack("<16sIIIII", bytes.fromhex(r["tracker_id_hex"]), r["ttl_ms"],
                                  r["max_samples"], r["buffer_size"], r["min_sample_threshold"],
                                  r["observed_latency"]) for r in kept)
    pdu_size = 12 + 36 * len(kept)
    total = 40 + AUTH_TLV[key["auth"]][1] + pdu_size
    if total > MAX_DATAGRAM:
        raise VecError("range", f"datagram {total} bytes > {MAX_DATAGRAM}")
    pdu = struct.pack("<HHHHHH", PDU_LATENCY_REPORT, pdu_size, 0, 0, len(kept), 0) + blocks
    tenant = tenant_tlv(key["key_id"], bytes.fromhex(inp["unique_id_hex"]), int(inp["time_stamp_ms"]),
                        inp.get("steering_feedback", 0))
    nonce = bytes.fromhex(inp["nonce_hex"]) if key["auth"] == "aes" else None
    return seal(key["auth"], key["secret"], tenant, pdu, nonce)


# ---------------------------------------------------------------------------
# Rate response checking (wire_protocol.md "rate_response PDU", "Response Semantics";
# r-client.md 6.4, 9.3.3 step 1). Order: malformed, auth, correlation.

def check_plain_pdu(pdu):
    if len(pdu) < 8:
        raise VecError("malformed", "PDU shorter than its 8-byte header")
    pdu_type, pdu_size = struct.unpack_from("<HH", pdu, 0)
    if pdu_size < 8 or pdu_size != len(pdu):
        raise VecError("malformed", "pdu_size does not match the bytes present")
    if pdu_type != PDU_RATE_RESPONSE:
        return
    if pdu_size < 12:
        raise VecError("malformed", "rate_response shorter than 12 bytes")
    res1, res2, gc, rc = struct.unpack_from("<HHHH", pdu, 4)
    if res1 or res2:
        raise VecError("malformed", "reserved field not zero")
    off = 12 + 40 * gc + 28 * rc
    if off > pdu_size:
        raise VecError("malformed", "guard/resource counts overflow pdu_size")
    while off < pdu_size:
        if pdu_size - off < 4:
            raise VecError("malformed", "trailing bytes shorter than a TLV header")
        _, tlv_size = struct.unpack_from("<HH", pdu, off)
        if tlv_size < 4 or off + tlv_size > pdu_size:
            raise VecError("malformed", "trailing TLV size out of bounds")
        off += tlv_size


def parse_rate_response(inp):
    key = decode_api_key(inp["key"])
    pkt = bytes.fromhex(inp["packet_hex"])
    if len(pkt) < 40:
        raise VecError("malformed", "shorter than the tenant TLV")
    t_type, t_size, server_id, uid, _ts, steering, mgmt, padding = struct.unpack_from("<HHQ16sQBBH", pkt)
    if t_type != TLV_TENANT or t_size != 40 or padding != 0:
        raise VecError("malformed", "tenant TLV type, size or padding")
    # steering_feedback and tenant_mgmt_flag are booleans; 2-255 are reserved (wire_protocol.md
    # "Tenant Header"; docs/spec-notes.md "Rate responses": reserved values are malformed).
    if steering > 1 or mgmt > 1:
        raise VecError("malformed", "steering_feedback or tenant_mgmt_flag above 1")
    if len(pkt) < 44:
        raise VecError("malformed", "no auth TLV header")
    a_type, a_size = struct.unpack_from("<HH", pkt, 40)
    if a_size < 4 or 40 + a_size > len(pkt):
        raise VecError("malformed", "auth tlv_size out of bounds")
    if a_type in KNOWN_AUTH_SIZE and a_size != KNOWN_AUTH_SIZE[a_type]:
        raise VecError("malformed", "auth tlv_size wrong for its type")
    pdu = pkt[40 + a_size:]
    if a_type != AUTH_TLV["aes"][0]:
        check_plain_pdu(pdu)  # plaintext: framing is checkable before authentication
    if a_type != AUTH_TLV[key["auth"]][0]:
        raise VecError("auth", "auth TLV type differs from the key's mode")
    if key["auth"] == "cookie" and pkt[44:76] != key["secret"]:
        raise VecError("auth", "cookie mismatch")
    if key["auth"] == "aes":
        nonce, tag = pkt[44:56], pkt[56:72]
        try:
            pdu = AESGCM(key["secret"]).decrypt(nonce, pdu + tag, pkt[:56])
        except InvalidTag:
            raise VecError("auth", "AES-GCM tag") from None
        check_plain_pdu(pdu)
    if struct.unpack_from("<H", pdu)[0] != PDU_RATE_RESPONSE:
        raise VecError("correlation", "PDU kind is not rate_response")
    if mgmt != 0:
        raise VecError("correlation", "tenant_mgmt_flag not 0")
    if uid != bytes.fromhex(inp["request_unique_id_hex"]):
        raise VecError("correlation", "unique_id")
    if str(server_id) not in inp["trusted_server_ids"]:
        raise VecError("correlation", "untrusted server_id")
    gc, rc = struct.unpack_from("<HH", pdu, 8)
    # With the optional input `request` the response must answer it block by block: it is the
    # request modified in place with the counts copied ("rate_response PDU"), so block i keeps
    # request block i's ID and identity fields (tracker settings; bucket window). The decision
    # uses each guard's requested threshold (r-client.md 5.2: a threshold is a query, so one
    # tracker may appear under several). Without `request` the datagram is judged alone.
    req = inp.get("request")
    if req is not None and (gc != len(req["guards"]) or rc != len(req["resources"])):
        raise VecError("malformed", "block counts differ from the request's")
    guards, resources, ok = [], [], True
    for i in range(gc):
        tid, ttl, ms, bs, mst, threshold, current = struct.unpack_from("<16sIIIIII", pdu, 12 + 40 * i)
        if req is not None:
            q = req["guards"][i]
            if (hx(tid), ttl, ms, bs, mst) != (q["tracker_id_hex"], q["ttl_ms"], q["max_samples"],
                                               q["buffer_size"], q["min_sample_threshold"]):
                raise VecError("malformed", f"guard block {i} does not answer request guard {i}")
            threshold = q["latency_threshold"]
        guards.append({"tracker_id_hex": hx(tid), "current_latency": current})
        ok = ok and current < threshold
    base = 12 + 40 * gc
    for i in range(rc):
        bid, window, actual, deficit, _ = struct.unpack_from("<16sIIHH", pdu, base + 28 * i)
        if req is not None:
            q = req["resources"][i]
            if (hx(bid), window) != (q["bucket_id_hex"], q["window_size_ms"]):
                raise VecError("malformed", f"resource block {i} does not answer request resource {i}")
        resources.append({"bucket_id_hex": hx(bid), "tokens_deficit": deficit, "actual_rate": actual})
        ok = ok and deficit == 0
    return {"server_id": str(server_id), "keep_port": steering == 1, "success": ok,
            "resources": resources, "guards": guards}


# ---------------------------------------------------------------------------
# server_id (wire_protocol.md "Structured server_id Format"; r-client.md 9.1, 3.1).

EPOCH_2025 = 1735689600


def server_id_compose(server_start_s, listener_id, node_id):
    return ((server_start_s - EPOCH_2025) << 23) | (listener_id << 15) | node_id


def server_id_decode(sid):
    return {"server_start_s": str(EPOCH_2025 + (sid >> 23)), "listener_id": (sid >> 15) & 0xFF,
            "node_id": sid & 0x7FFF}


HOST_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def parse_srv_target(target):
    name = target[:-1] if target.endswith(".") else target
    if len(name) > 253:
        raise VecError("range", "name longer than 253 bytes")
    labels = name.split(".")
    for label in labels[1:]:
        if not 1 <= len(label) <= 63 or any(c not in HOST_CHARS for c in label):
            raise VecError("range", "later label not 1..63 letters, digits, '-' or '_'")
    first = labels[0]
    if len(first) < 2 or first[:2].lower() != "s-":
        raise VecError("range", "first label is not s-<decimal>")
    digits = first[2:]
    if not digits or any(c not in "0123456789" for c in digits):
        raise VecError("range", "s- label digits")
    if len(digits) > 1 and digits[0] == "0":
        raise VecError("range", "leading zero")
    value = int(digits)
    if value > U64_MAX:
        raise VecError("range", "server_id above 2^64-1")
    return value


# ---------------------------------------------------------------------------
# Vector file assembly.

class VectorFile:
    def __init__(self, name, kind, source, notes):
        self.name, self.kind, self.source, self.notes = name, kind, source, notes
        self.tests = []

    def add(self, comment, flags, result, inp, expected):
        assert result in ("valid", "invalid")
        assert (result == "invalid") == ("error" in expected), comment
        for f in flags:
            assert f in self.notes, f"{self.name}: flag {f} has no note"
        self.tests.append({"tcId": len(self.tests) + 1, "comment": comment, "flags": list(flags),
                           "result": result, "input": inp, "expected": expected})

    def add_computed(self, comment, flags, inp, want, compute):
        """Run the reference computation; `want` is 'valid' or the intended error class."""
        try:
            expected, result = compute(inp), "valid"
        except VecError as e:
            expected, result = {"error": e.cls}, "invalid"
            if want != e.cls:
                raise AssertionError(f"{self.name}: {comment!r}: wanted {want}, got {e}") from None
        if result == "valid" and want != "valid":
            raise AssertionError(f"{self.name}: {comment!r}: wanted {want}, got valid")
        self.add(comment, flags, result, inp, expected)

    def render(self):
        used = {f for t in self.tests for f in t["flags"]}
        unused = set(self.notes) - used
        assert not unused, f"{self.name}: notes for unused flags {unused}"
        doc = {"schema": SCHEMA, "kind": self.kind, "source": self.source, "notes": self.notes,
               "tests": self.tests}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def fixed_bytes(label, n):
    """Deterministic filler bytes derived from a label (no randomness anywhere)."""
    out = b""
    counter = 0
    while len(out) < n:
        out += hashlib.sha256(f"{label}/{counter}".encode()).digest()
        counter += 1
    return out[:n]


# Published values (../shared/external/*.json). The script asserts it reproduces them.
PUBLISHED = {
    "checkout": "f5cf3ad8b8406854b596ba3614f16eff",
    "cafe": "732b120606917c683e37433fa00a60dc",
    "inventory-backend": "0320bf15b884bda367a17e5ffb650441",
    "none_key": "rl-none1qyyqwps9qspsyq2sk8e0sfdp3ys",
    "legacy_aes": ("rl-aes1qvqqqqqqqqqqqqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqvpsxqcrqqqqzqq"
                   "qqsqqqqqsqqqyqqqqqquzv6tw"),
}

CANONICAL_WORD = 0xF8F2B150
# Quota of the keys used for packet vectors: 2^16 buckets, 2^10 services, 2^12 labels,
# latency buffer 32, dedup cap 300 ms, rate window cap 65536 ms (so window range is testable).
TEST_WORD = pack_quota(16, 10, 12, 5, 30, 16)
COOKIE_SECRET = hashlib.sha256(b"secret password").digest()  # wire_protocol.md Cookie example
AES_SECRET = fixed_bytes("aes key", 32)
OTHER_AES_SECRET = fixed_bytes("other aes key", 32)
KEY_NONE = make_api_key("none", 4242, TEST_WORD)
KEY_COOKIE = make_api_key("cookie", 0x1122334455667788, TEST_WORD, COOKIE_SECRET)
KEY_AES = make_api_key("aes", 0xFEDCBA9876543210, TEST_WORD, AES_SECRET)
KEY_AES_OTHER = make_api_key("aes", 0xFEDCBA9876543210, TEST_WORD, OTHER_AES_SECRET)
KEYS = {"none": KEY_NONE, "cookie": KEY_COOKIE, "aes": KEY_AES}
MODES = ("none", "cookie", "aes")
UID = bytes.fromhex("00004c2fd0624dea93a44654506faba7")  # wire_protocol.md unique_id example
TIME_STAMP = "1767225600123"  # 2026-01-01T00:00:00.123Z
_nonce_counter = [0]


def next_nonce():
    _nonce_counter[0] += 1
    return bytes.fromhex("5eed00000000") + _nonce_counter[0].to_bytes(6, "big")


def make_guard(name, ttl_ms=10000, max_samples=100, buffer_size=32, min_sample_threshold=5,
               latency_threshold=100):
    return {"tracker_id_hex": hx(tracker_id(name.encode(), ttl_ms, max_samples, buffer_size,
                                            min_sample_threshold)),
            "ttl_ms": ttl_ms, "max_samples": max_samples, "buffer_size": buffer_size,
            "min_sample_threshold": min_sample_threshold, "latency_threshold": latency_threshold}


def make_resource(name, window_size_ms=1000, rate_limit=100, tokens_requested=1):
    return {"bucket_id_hex": hx(bucket_id(name.encode(), window_size_ms, rate_limit)),
            "window_size_ms": window_size_ms, "rate_limit": rate_limit,
            "tokens_requested": tokens_requested}


# ---------------------------------------------------------------------------
# bucket_id / tracker_id

ID_SOURCE = ("wire_protocol.md \"Content-defined resource identity\" and \"Content-defined "
             "latency-tracker identity\"; api.md \"Content-defined IDs\"; ")


def name_input(name):
    if isinstance(name, str):
        return {"name_utf8": name}
    return {"name_hex": hx(name)}


def name_bytes(inp):
    return inp["name_utf8"].encode("utf-8") if "name_utf8" in inp else bytes.fromhex(inp["name_hex"])


def gen_bucket_id():
    vf = VectorFile("bucket_id.json", "bucket_id", ID_SOURCE + TOOL, {
        "Published": "same input and value as published by other Ratelimitly clients "
                     "(../shared/external); proves this generator agrees with them",
        "Utf8": "name_utf8 is hashed as its UTF-8 bytes; the length field counts bytes, not characters",
        "Bytes": "name_hex with embedded zero bytes; the exact bytes are hashed",
        "Boundary": "an end of a u32 range, an empty name, or a message length at the "
                    "64-byte BLAKE2s block edge (24+4+len+8 = 64 or 65)",
    })

    def compute(inp):
        return {"id_hex": hx(bucket_id(name_bytes(inp), inp["window_size_ms"], inp["rate_limit"]))}

    cases = [
        ("checkout, 1000 ms, 100 (api.md example)", ["Published"], "checkout", 1000, 100),
        ("UTF-8 name caf\u00e9 (5 bytes)", ["Published", "Utf8"], "caf\u00e9", 60000, 25),
        ("empty name", ["Boundary"], "", 1000, 100),
        ("empty name, zero window and rate", ["Boundary"], "", 0, 0),
        ("window_size_ms and rate_limit at u32 max", ["Boundary"], "checkout", U32_MAX, U32_MAX),
        ("rate_limit 0, window 1", ["Boundary"], "checkout", 1, 0),
        ("checkout, rate_limit 101: the rate participates in the ID", [], "checkout", 1000, 101),
        ("checkout, window 1001: the window participates in the ID", [], "checkout", 1001, 100),
        ("multi-byte UTF-8 (CJK + emoji)", ["Utf8"], "\u6ce8\u6587-\U0001F680", 1000, 100),
        ("name_hex with embedded zero bytes", ["Bytes"], b"check\x00out\x00", 1000, 100),
        ("name_hex of one zero byte", ["Bytes", "Boundary"], b"\x00", 1000, 100),
        ("name_hex of four zero bytes", ["Bytes"], b"\x00\x00\x00\x00", 1000, 100),
        ("name_hex with high bytes (not valid UTF-8)", ["Bytes"], b"\xff\xfe\x80\x00", 1000, 100),
        ("28-byte name: hashed message exactly one 64-byte block", ["Boundary"], "a" * 28, 1000, 100),
        ("29-byte name: hashed message 65 bytes", ["Boundary"], "a" * 29, 1000, 100),
        ("300-byte name", [], "bucket/" + "x" * 293, 86400000, 5000),
    ]
    for comment, flags, name, w, r in cases:
        inp = dict(name_input(name), window_size_ms=w, rate_limit=r)
        vf.add_computed(comment, flags, inp, "valid", compute)
    assert vf.tests[0]["expected"]["id_hex"] == PUBLISHED["checkout"]
    assert vf.tests[1]["expected"]["id_hex"] == PUBLISHED["cafe"]
    return vf


def gen_tracker_id():
    vf = VectorFile("tracker_id.json", "tracker_id", ID_SOURCE + TOOL, {
        "Published": "same input and value as published by another Ratelimitly client "
                     "(../shared/external); proves this generator agrees with it",
        "Utf8": "name_utf8 is hashed as its UTF-8 bytes; the length field counts bytes",
        "Bytes": "name_hex with embedded zero bytes; the exact bytes are hashed",
        "Boundary": "an end of a u32 range, an empty name, or a message length at the "
                    "64-byte BLAKE2s block edge (31+4+len+16 = 64 or 65)",
        "FieldOrder": "swapping two settings changes the ID; catches field-order mistakes "
                      "(spec order: ttl_ms, max_samples, buffer_size, min_sample_threshold)",
    })

    def compute(inp):
        return {"id_hex": hx(tracker_id(name_bytes(inp), inp["ttl_ms"], inp["max_samples"],
                                        inp["buffer_size"], inp["min_sample_threshold"]))}

    cases = [
        ("inventory-backend, 4-field v1 recipe", ["Published"], "inventory-backend", 10000, 100, 32, 5),
        ("api.md workflow defaults with a plain name", [], "payments-db", 10000, 100, 32, 5),
        ("empty name", ["Boundary"], "", 10000, 100, 32, 5),
        ("empty name, all settings zero", ["Boundary"], "", 0, 0, 0, 0),
        ("all settings at u32 max", ["Boundary"], "inventory-backend", U32_MAX, U32_MAX, U32_MAX, U32_MAX),
        ("buffer_size participates (1 instead of 32)", [], "inventory-backend", 10000, 100, 1, 5),
        ("ttl_ms and max_samples swapped", ["FieldOrder"], "inventory-backend", 100, 10000, 32, 5),
        ("buffer_size and min_sample_threshold swapped", ["FieldOrder"], "inventory-backend", 10000, 100, 5, 32),
        ("UTF-8 name", ["Utf8"], "latence-\u00e9t\u00e9", 10000, 100, 32, 5),
        ("name_hex with embedded zero bytes", ["Bytes"], b"svc\x00a\x00", 10000, 100, 32, 5),
        ("name_hex of one zero byte", ["Bytes", "Boundary"], b"\x00", 10000, 100, 32, 5),
        ("13-byte name: hashed message exactly one 64-byte block", ["Boundary"], "t" * 13, 10000, 100, 32, 5),
        ("14-byte name: hashed message 65 bytes", ["Boundary"], "t" * 14, 10000, 100, 32, 5),
        ("buffer_size 32768 (largest latency_buffer_size_max)", ["Boundary"], "inventory-backend", 10000, 100, 32768, 5),
    ]
    for comment, flags, name, ttl, ms, bs, mst in cases:
        inp = dict(name_input(name), ttl_ms=ttl, max_samples=ms, buffer_size=bs, min_sample_threshold=mst)
        vf.add_computed(comment, flags, inp, "valid", compute)
    assert vf.tests[0]["expected"]["id_hex"] == PUBLISHED["inventory-backend"]
    return vf


# ---------------------------------------------------------------------------
# api_key / secret_key / quota_word

CRED_SOURCE = ("wire_protocol.md \"Bech32 Credential Formats\", \"API-key quota word, format "
               "version 1\", \"Credential Validation Rules\"; BIP-173 Bech32; api.md \"Credentials\"; ")


def groups_with(payload, tweak):
    g = bytes_to_groups(payload)
    tweak(g)
    return g


def flip_last_char(text):
    last = text[-1]
    return text[:-1] + CHARSET[(CHARSET.index(last) + 1) % 32]


def replace_at(text, i, c):
    return text[:i] + c + text[i + 1:]


def string_level_negatives(hrp, payload):
    """Every string-level break of the valid string bech32_encode(hrp, payload), as
    (comment, flags, text); each one is class bech32 whatever the HRP (BIP-173 rules
    come first in the schema's order)."""
    good = bech32_encode(hrp, payload)
    d = len(hrp) + 1  # first character of the data part
    letter = next(j for j in range(d, len(good)) if good[j].isalpha())
    out = [
        ("bad checksum (last character changed)", ["Bech32"], flip_last_char(good)),
        ("bad checksum (first data character changed)", ["Bech32"],
         replace_at(good, d, CHARSET[(CHARSET.index(good[d]) + 1) % 32])),
        ("Bech32m checksum instead of Bech32", ["Bech32"],
         bech32_encode_groups(hrp, bytes_to_groups(payload), BECH32M_CONST)),
        ("mixed case (one data character upper case)", ["Bech32"],
         replace_at(good, letter, good[letter].upper())),
        ("mixed case (HRP upper case, data lower case)", ["Bech32"], hrp.upper() + good[len(hrp):]),
    ]
    for c in "bio":
        out.append((f"character '{c}' (not in the charset) in the data part", ["Bech32"], replace_at(good, d + 2, c)))
    out += [
        ("space inside the data part", ["Bech32"], replace_at(good, d + 2, " ")),
        ("trailing space", ["Bech32"], good + " "),
        ("control character DEL (0x7f) inside the data part", ["Bech32"], replace_at(good, d + 2, "\x7f")),
        ("non-ASCII character U+00E9 inside the data part", ["Bech32"], replace_at(good, d + 2, "\u00e9")),
        ("separator '1' replaced by ':'", ["Bech32", "Separator"], hrp + ":" + good[d:]),
        ("separator '1' replaced by 'l'", ["Bech32", "Separator"], hrp + "l" + good[d:]),
        ("separator '1' missing", ["Bech32", "Separator"], hrp + good[d:]),
        ("separator doubled ('11': the HRP would end in '1')", ["Bech32", "Separator"], hrp + "1" + good[len(hrp):]),
        ("data part shorter than the 6-character checksum", ["Bech32"], hrp + "1" + good[-5:]),
    ]
    return out


def too_long_payload(hrp, base):
    """base extended with zero bytes to the shortest payload whose string exceeds BIP-173's
    90 characters."""
    payload = base
    while len(bech32_encode(hrp, payload)) <= 90:
        payload += b"\x00"
    return payload


def gen_api_key():
    vf = VectorFile("api_key.json", "api_key", CRED_SOURCE + TOOL, {
        "Published": "string published by other Ratelimitly clients (../shared/external)",
        "Boundary": "largest or smallest accepted value of a quota code, key_id, or payload size",
        "UpperCase": "an all-upper-case Bech32 string is valid (BIP-173); it decodes as lower case",
        "Bech32": "string-level failure: mixed case, no separator, charset, a character outside 33..126 "
                  "(space, DEL, non-ASCII), checksum (Bech32m is not accepted), non-zero padding bits or a "
                  "whole extra padding group, empty HRP, data part shorter than the checksum",
        "Hrp": "an HRP other than rl-none, rl-cookie, rl-aes (rl-secret included) is class hrp",
        "Length": "payload size wrong for the HRP: rl-none 13 bytes, rl-cookie and rl-aes 45 bytes",
        "Legacy": "legacy unversioned payloads (56 or 60 bytes, or the version-1 layout without its "
                  "format_version byte) are class length; BIP-173's 90-character limit is NOT enforced (a "
                  "56-byte rl-aes key is 103 characters and still class length)",
        "Separator": "the separator '1' replaced, missing or doubled: class bech32 (no separator, or an HRP "
                     "ending in '1' whose checksum fails)",
        "TooLong": "a string over BIP-173's 90 characters: with a valid checksum it is judged by its payload "
                   "length (class length, docs/spec-notes.md \"Bech32 length limit\"), with a bad one it is "
                   "class bech32",
        "Version": "format_version other than 1",
        "Quota": "quota word breaks a version-1 rule: rate_exp or latency_exp above 24, dedup_units "
                 "outside 1..200",
        "Precedence": "several rules break; the class is the first of bech32, hrp, length, version, quota",
    })

    def add(comment, flags, text, want):
        vf.add_computed(comment, flags, {"key": text}, want, lambda inp: api_key_expected(inp["key"]))

    # valid
    add("format v1 rl-none, key_id 0x0102030405060708, canonical quota word", ["Published"],
        PUBLISHED["none_key"], "valid")
    assert make_api_key("none", 0x0102030405060708, CANONICAL_WORD) == PUBLISHED["none_key"]
    add("rl-none with the packet-vector test quota", [], KEY_NONE, "valid")
    add("rl-cookie, cookie = SHA256(\"secret password\")", [], KEY_COOKIE, "valid")
    add("rl-aes, key_id above 2^63", [], KEY_AES, "valid")
    add("rl-cookie, canonical quota word", [], make_api_key("cookie", 7, CANONICAL_WORD, COOKIE_SECRET), "valid")
    add("rl-aes, canonical quota word", [], make_api_key("aes", 8, CANONICAL_WORD, AES_SECRET), "valid")
    add("all upper case rl-none", ["UpperCase"], PUBLISHED["none_key"].upper(), "valid")
    add("all upper case rl-aes", ["UpperCase"], KEY_AES.upper(), "valid")
    add("key_id 0", ["Boundary"], make_api_key("none", 0, CANONICAL_WORD), "valid")
    add("key_id 2^64-1", ["Boundary"], make_api_key("cookie", U64_MAX, CANONICAL_WORD, COOKIE_SECRET), "valid")
    add("secret all zero bytes", ["Boundary"], make_api_key("aes", 9, CANONICAL_WORD, bytes(32)), "valid")
    bounds = [
        ("rate_exp 24 (largest valid)", (24, 10, 12, 5, 30, 31)),
        ("latency_exp 24 (largest valid)", (16, 24, 12, 5, 30, 31)),
        ("dedup_units 1 (10 ms, smallest valid)", (16, 10, 12, 5, 1, 31)),
        ("dedup_units 200 (2000 ms, largest valid)", (16, 10, 12, 5, 200, 31)),
        ("window_exp 30 (2^30 ms)", (16, 10, 12, 5, 30, 30)),
        ("window_exp 31 (4294967295 ms)", (16, 10, 12, 5, 30, 31)),
        ("window_exp 0 (1 ms)", (16, 10, 12, 5, 30, 0)),
        ("labels_exp 31 (2^31 labels)", (16, 10, 31, 5, 30, 31)),
        ("buffer_exp 15 (buffer 32768)", (16, 10, 12, 15, 30, 31)),
        ("every exponent 0, dedup_units 1", (0, 0, 0, 0, 1, 0)),
        ("every field at its largest valid code", (24, 24, 31, 15, 200, 31)),
    ]
    for i, (comment, codes) in enumerate(bounds):
        auth = MODES[i % 3]
        secret = None if auth == "none" else COOKIE_SECRET if auth == "cookie" else AES_SECRET
        add(f"rl-{auth} {comment}", ["Boundary"], make_api_key(auth, 1000 + i, pack_quota(*codes), secret), "valid")

    # bech32
    good = PUBLISHED["none_key"]
    add("mixed case", ["Bech32"], good[:8] + good[8:].upper(), "bech32")
    add("mixed case in the HRP only", ["Bech32"], "RL-none" + good[7:], "bech32")
    add("no separator", ["Bech32"], good.replace("1", "", 1), "bech32")
    add("character 'b' not in the charset", ["Bech32"], good[:12] + "b" + good[13:], "bech32")
    add("character 'o' not in the charset", ["Bech32"], good[:12] + "o" + good[13:], "bech32")
    add("space inside the string", ["Bech32"], good[:12] + " " + good[13:], "bech32")
    add("bad checksum (last character changed)", ["Bech32"], flip_last_char(good), "bech32")
    add("bad checksum (data character changed)", ["Bech32"], good[:10] + flip_last_char(good[:11])[-1] + good[11:], "bech32")
    add("Bech32m checksum instead of Bech32", ["Bech32"],
        bech32_encode_groups("rl-none", bytes_to_groups(api_payload(5, CANONICAL_WORD)), BECH32M_CONST), "bech32")
    p13 = api_payload(5, CANONICAL_WORD)

    def set_pad(g):
        g[-1] |= 1

    add("rl-none 13-byte payload with its 1 padding bit set", ["Bech32"],
        bech32_encode_groups("rl-none", groups_with(p13, set_pad)), "bech32")
    add("rl-none payload with an extra all-zero 5-bit group (6 padding bits)", ["Bech32"],
        bech32_encode_groups("rl-none", groups_with(p13, lambda g: g.append(0))), "bech32")
    add("empty HRP", ["Bech32"], bech32_encode_groups("", bytes_to_groups(p13)), "bech32")
    add("data part shorter than the 6-character checksum", ["Bech32"], "rl-none1qqqqq", "bech32")
    add("empty string", ["Bech32"], "", "bech32")

    # hrp
    add("unknown HRP rl-foo", ["Hrp"], bech32_encode("rl-foo", p13), "hrp")
    add("HRP rl-secret (a valid 32-byte rl-secret string)", ["Hrp"], bech32_encode("rl-secret", COOKIE_SECRET), "hrp")
    add("HRP rl-none- (suffix)", ["Hrp"], bech32_encode("rl-none-", p13), "hrp")
    add("HRP bc (Bitcoin)", ["Hrp"], bech32_encode("bc", p13), "hrp")

    # length
    for auth, size in (("none", 13), ("cookie", 45), ("aes", 45)):
        full = api_payload(11, CANONICAL_WORD, None if auth == "none" else AES_SECRET)
        assert len(full) == size
        add(f"rl-{auth} payload one byte short ({size - 1})", ["Length", "Boundary"],
            bech32_encode("rl-" + auth, full[:-1]), "length")
        add(f"rl-{auth} payload one byte long ({size + 1})", ["Length", "Boundary"],
            bech32_encode("rl-" + auth, full + b"\x00"), "length")
    add("rl-none with an empty payload", ["Length"], bech32_encode("rl-none", b""), "length")
    add("rl-none carrying a 45-byte cookie-shaped payload", ["Length"],
        bech32_encode("rl-none", api_payload(11, CANONICAL_WORD, COOKIE_SECRET)), "length")
    add("rl-cookie carrying a 13-byte rl-none payload", ["Length"], bech32_encode("rl-cookie", p13), "length")
    add("legacy 56-byte rl-aes payload (published)", ["Legacy", "Published"], PUBLISHED["legacy_aes"], "length")
    legacy56 = le64(12) + AES_SECRET + le32(65536) + le32(1024) + le32(32) + le32(300)
    legacy60 = legacy56 + le32(4096)
    add("legacy 56-byte rl-cookie payload", ["Legacy"], bech32_encode("rl-cookie", legacy56), "length")
    add("legacy 60-byte rl-aes payload", ["Legacy"], bech32_encode("rl-aes", legacy60), "length")
    add("legacy 60-byte rl-cookie payload", ["Legacy"], bech32_encode("rl-cookie", legacy60), "length")

    # version
    add("rl-none format_version 0", ["Version"], make_api_key("none", 13, CANONICAL_WORD, version=0), "version")
    add("rl-none format_version 2", ["Version"], make_api_key("none", 13, CANONICAL_WORD, version=2), "version")
    add("rl-none format_version 255", ["Version"], make_api_key("none", 13, CANONICAL_WORD, version=255), "version")
    add("rl-cookie format_version 2", ["Version"],
        make_api_key("cookie", 13, CANONICAL_WORD, COOKIE_SECRET, version=2), "version")
    add("rl-aes format_version 0", ["Version"], make_api_key("aes", 13, CANONICAL_WORD, AES_SECRET, version=0), "version")

    # quota
    bad = [
        ("rate_exp 25", (25, 10, 12, 5, 30, 31)),
        ("rate_exp 31", (31, 10, 12, 5, 30, 31)),
    ] + [(f"latency_exp {e}", (16, e, 12, 5, 30, 31)) for e in range(25, 32)] + [
        ("dedup_units 0", (16, 10, 12, 5, 0, 31)),
        ("dedup_units 201", (16, 10, 12, 5, 201, 31)),
        ("dedup_units 255", (16, 10, 12, 5, 255, 31)),
    ]
    for i, (comment, codes) in enumerate(bad):
        auth = MODES[i % 3]
        secret = None if auth == "none" else COOKIE_SECRET if auth == "cookie" else AES_SECRET
        flags = ["Quota", "Boundary"] if comment in ("rate_exp 25", "latency_exp 25", "dedup_units 0",
                                                     "dedup_units 201") else ["Quota"]
        add(f"rl-{auth} {comment}", flags, make_api_key(auth, 2000 + i, pack_quota(*codes), secret), "quota")
    add("quota word 0x00000000 (dedup_units 0)", ["Quota"], make_api_key("none", 14, 0), "quota")
    add("quota word 0xffffffff", ["Quota"], make_api_key("none", 14, U32_MAX), "quota")

    # precedence
    q_bad = pack_quota(25, 10, 12, 5, 0, 31)
    add("format_version 0 and bad quota word: version", ["Precedence"],
        make_api_key("none", 15, q_bad, version=0), "version")
    add("rl-none 14 bytes with format_version 0: length", ["Precedence"],
        bech32_encode("rl-none", api_payload(15, q_bad, version=0) + b"\x00"), "length")
    add("unknown HRP with wrong payload length: hrp", ["Precedence"],
        bech32_encode("rl-foo", b"\x00" * 7), "hrp")
    add("rl-secret HRP with version/quota garbage: hrp", ["Precedence"],
        bech32_encode("rl-secret", api_payload(15, q_bad, version=9)), "hrp")
    add("unknown HRP with a bad checksum: bech32", ["Precedence"],
        flip_last_char(bech32_encode("rl-foo", p13)), "bech32")
    add("unknown HRP with non-zero padding bits: bech32", ["Precedence"],
        bech32_encode_groups("rl-foo", groups_with(p13, set_pad)), "bech32")
    add("legacy 56-byte rl-aes in mixed case: bech32", ["Precedence"],
        PUBLISHED["legacy_aes"][:20] + PUBLISHED["legacy_aes"][20:].upper(), "bech32")

    # Every HRP, the same rules: a client that supports only one auth mode still exercises its
    # string checks, length, version and legacy rejection (appended so earlier tcIds stay put).
    secrets = {"none": None, "cookie": COOKIE_SECRET, "aes": AES_SECRET}
    for auth in MODES:
        hrp = "rl-" + auth
        full = api_payload(21, CANONICAL_WORD, secrets[auth])
        add(f"{hrp} all upper case", ["UpperCase"], bech32_encode(hrp, full).upper(), "valid")
        for comment, flags, text in string_level_negatives(hrp, full):
            add(f"{hrp} {comment}", flags, text, "bech32")
        long_payload = too_long_payload(hrp, full)
        long_text = bech32_encode(hrp, long_payload)
        add(f"{hrp} {len(long_text)} characters (over BIP-173's 90), valid checksum, "
            f"{len(long_payload)}-byte payload", ["TooLong", "Length"], long_text, "length")
        add(f"{hrp} {len(long_text)} characters (over BIP-173's 90), bad checksum", ["TooLong", "Bech32"],
            flip_last_char(long_text), "bech32")
        add(f"{hrp} empty payload", ["Length"], bech32_encode(hrp, b""), "length")
        add(f"{hrp} payload two bytes short ({len(full) - 2})", ["Length"], bech32_encode(hrp, full[:-2]), "length")
        for version in (0, 2, 255):
            add(f"{hrp} format_version {version}", ["Version"],
                make_api_key(auth, 22, CANONICAL_WORD, secrets[auth], version=version), "version")
        add(f"{hrp} version-1 layout without its format_version byte ({len(full) - 1} bytes)", ["Legacy"],
            bech32_encode(hrp, full[1:]), "length")
        add(f"{hrp} legacy unversioned 56-byte payload", ["Legacy"], bech32_encode(hrp, legacy56), "length")
        add(f"{hrp} legacy unversioned 60-byte payload", ["Legacy"], bech32_encode(hrp, legacy60), "length")
    secret_text = bech32_encode("rl-secret", COOKIE_SECRET)
    add("rl-secret with a bad checksum: bech32 before hrp", ["Precedence", "Bech32"], flip_last_char(secret_text),
        "bech32")
    add("rl-secret in mixed case: bech32 before hrp", ["Precedence", "Bech32"],
        secret_text[:14] + secret_text[14:].upper(), "bech32")
    return vf


def gen_secret_key():
    vf = VectorFile("secret_key.json", "secret_key", CRED_SOURCE + TOOL, {
        "UpperCase": "an all-upper-case Bech32 string is valid",
        "Boundary": "payload one byte short or long",
        "Bech32": "string-level failure (checksum, mixed case, padding bits, charset, a character outside "
                  "33..126, data part shorter than the checksum)",
        "Hrp": "any HRP other than rl-secret is class hrp, API-key HRPs included",
        "Length": "rl-secret payload must be exactly 32 bytes (no format-version byte)",
        "Separator": "the separator '1' replaced, missing or doubled: class bech32",
        "TooLong": "a string over BIP-173's 90 characters: with a valid checksum it is judged by its payload "
                   "length (class length), with a bad one it is class bech32",
        "Precedence": "several rules break; the class is the first of bech32, hrp, length",
    })

    def compute(inp):
        return {"secret_hex": hx(decode_secret_key(inp["key"]))}

    def add(comment, flags, text, want):
        vf.add_computed(comment, flags, {"key": text}, want, compute)

    admin = fixed_bytes("tenant management key", 32)
    good = bech32_encode("rl-secret", admin)
    add("32-byte rl-secret", [], good, "valid")
    add("all zero secret", [], bech32_encode("rl-secret", bytes(32)), "valid")
    add("all 0xff secret", [], bech32_encode("rl-secret", b"\xff" * 32), "valid")
    add("all upper case", ["UpperCase"], good.upper(), "valid")
    add("31-byte payload", ["Length", "Boundary"], bech32_encode("rl-secret", admin[:31]), "length")
    add("33-byte payload", ["Length", "Boundary"], bech32_encode("rl-secret", admin + b"\x01"), "length")
    add("33-byte payload with a leading version byte 1", ["Length"],
        bech32_encode("rl-secret", b"\x01" + admin), "length")
    add("empty payload", ["Length"], bech32_encode("rl-secret", b""), "length")
    add("HRP rl-aes (a valid rl-aes API key)", ["Hrp"], KEY_AES, "hrp")
    add("HRP rl-aes carrying 32 bytes", ["Hrp"], bech32_encode("rl-aes", admin), "hrp")
    add("HRP rl-none", ["Hrp"], KEY_NONE, "hrp")
    add("bad checksum", ["Bech32"], flip_last_char(good), "bech32")
    add("mixed case", ["Bech32"], good[:20] + good[20:].upper(), "bech32")

    def set_pad(g):
        g[-1] |= 0b1000  # 256 bits -> 52 groups; the last group has 4 padding bits

    add("non-zero padding bits", ["Bech32"], bech32_encode_groups("rl-secret", groups_with(admin, set_pad)), "bech32")
    add("character 'i' not in the charset", ["Bech32"], good[:15] + "i" + good[16:], "bech32")
    add("wrong HRP and bad checksum: bech32", ["Precedence"],
        flip_last_char(bech32_encode("rl-aes", admin)), "bech32")
    add("wrong HRP and wrong length: hrp", ["Precedence"], bech32_encode("rl-secrets", admin[:31]), "hrp")

    # The string-level rules for rl-secret too (appended so earlier tcIds stay put).
    for comment, flags, text in string_level_negatives("rl-secret", admin):
        add(comment, flags, text, "bech32")
    long_payload = too_long_payload("rl-secret", admin)
    long_text = bech32_encode("rl-secret", long_payload)
    add(f"{len(long_text)} characters (over BIP-173's 90), valid checksum, {len(long_payload)}-byte payload",
        ["TooLong", "Length"], long_text, "length")
    add(f"{len(long_text)} characters (over BIP-173's 90), bad checksum", ["TooLong", "Bech32"],
        flip_last_char(long_text), "bech32")
    return vf


def gen_quota_word():
    vf = VectorFile("quota_word.json", "quota_word", CRED_SOURCE + TOOL, {
        "Canonical": "the canonical default word 0xf8f2b150 from wire_protocol.md",
        "Boundary": "a field at the end of its valid range, or the first invalid code",
        "Quota": "breaks a version-1 rule: rate_exp or latency_exp above 24, dedup_units outside 1..200",
    })

    def compute(inp):
        return {"quotas": quota_json(int(inp["word"], 16))}

    def add(comment, flags, word, want):
        vf.add_computed(comment, flags, {"word": "0x%08x" % word}, want, compute)

    add("canonical default: 65536 buckets, 1024 services, 4096 labels, buffer 32, 300 ms, full window",
        ["Canonical"], CANONICAL_WORD, "valid")
    assert quota_values(CANONICAL_WORD) == {
        "rate_buckets_max": 65536, "latency_services_max": 1024, "metrics_labels_max": 4096,
        "latency_buffer_size_max": 32, "dedup_ttl_ms_max": 300, "rate_window_size_ms_max": U32_MAX}
    assert pack_quota(16, 10, 12, 5, 30, 31) == CANONICAL_WORD
    add("all minimum: every exponent 0, dedup_units 1", ["Boundary"], pack_quota(0, 0, 0, 0, 1, 0), "valid")
    add("all maximum valid: 24, 24, 31, 15, 200, 31", ["Boundary"], pack_quota(24, 24, 31, 15, 200, 31), "valid")
    add("window_exp 30", ["Boundary"], pack_quota(16, 10, 12, 5, 30, 30), "valid")
    add("window_exp 31 means 4294967295", ["Boundary"], pack_quota(16, 10, 12, 5, 30, 31), "valid")
    add("dedup_units 1 (10 ms)", ["Boundary"], pack_quota(16, 10, 12, 5, 1, 31), "valid")
    add("dedup_units 200 (2000 ms)", ["Boundary"], pack_quota(16, 10, 12, 5, 200, 31), "valid")
    add("rate_exp 24", ["Boundary"], pack_quota(24, 10, 12, 5, 30, 31), "valid")
    add("latency_exp 24", ["Boundary"], pack_quota(16, 24, 12, 5, 30, 31), "valid")
    add("labels_exp 31 (2^31)", ["Boundary"], pack_quota(16, 10, 31, 5, 30, 31), "valid")
    add("buffer_exp 15 (32768)", ["Boundary"], pack_quota(16, 10, 12, 15, 30, 31), "valid")
    add("test quota of the packet vectors (window 65536 ms)", [], TEST_WORD, "valid")
    add("rate_exp 25", ["Quota", "Boundary"], pack_quota(25, 10, 12, 5, 30, 31), "quota")
    add("rate_exp 31", ["Quota"], pack_quota(31, 10, 12, 5, 30, 31), "quota")
    for e in range(25, 32):
        add(f"latency_exp {e}", ["Quota"] + (["Boundary"] if e == 25 else []), pack_quota(16, e, 12, 5, 30, 31), "quota")
    add("dedup_units 0", ["Quota", "Boundary"], pack_quota(16, 10, 12, 5, 0, 31), "quota")
    add("dedup_units 201", ["Quota", "Boundary"], pack_quota(16, 10, 12, 5, 201, 31), "quota")
    add("dedup_units 255", ["Quota"], pack_quota(16, 10, 12, 5, 255, 31), "quota")
    add("0x00000000 (dedup_units 0)", ["Quota"], 0, "quota")
    add("0xffffffff", ["Quota"], U32_MAX, "quota")
    add("every other field at its largest valid code, rate_exp 25", ["Quota"], pack_quota(25, 24, 31, 15, 200, 31), "quota")
    return vf


# ---------------------------------------------------------------------------
# server_id / srv_target

def gen_server_id():
    vf = VectorFile("server_id.json", "server_id",
                    "wire_protocol.md \"Structured server_id Format\", \"server_id Decoding\"; r-client.md 9.1; " + TOOL,
                    {"Boundary": "0, 2^64-1, or a field at the edge of its bit range",
                     "Composed": "built as (start_s_since_2025 << 23) | (listener_id << 15) | node_id"})

    def compute(inp):
        return server_id_decode(int(inp["server_id"]))

    cases = [
        ("0: server_start_s 1735689600, listener 0, node 0", ["Boundary"], 0),
        ("2^64-1: all fields at maximum", ["Boundary"], U64_MAX),
        ("r-client.md 3.1 SRV example s-1015809", [], 1015809),
        ("r-client.md 3.1 SRV example s-1048578", [], 1048578),
        ("2^23-1: start 0, listener 255, node 32767", ["Boundary"], (1 << 23) - 1),
        ("2^23: start_s_since_2025 1, listener 0, node 0", ["Boundary"], 1 << 23),
        ("2^63: top bit set", ["Boundary"], 1 << 63),
        ("2026-01-01T00:00:00Z, listener 7, node 1234", ["Composed"], server_id_compose(1767225600, 7, 1234)),
        ("2025-06-15T12:34:56Z, listener 255, node 0", ["Composed"], server_id_compose(1749990896, 255, 0)),
        ("2030-01-01T00:00:00Z, listener 0, node 32767", ["Composed"], server_id_compose(1893456000, 0, 32767)),
    ]
    for comment, flags, sid in cases:
        vf.add_computed(comment, flags, {"server_id": str(sid)}, "valid", compute)
    return vf


def gen_srv_target():
    vf = VectorFile("srv_target.json", "srv_target",
                    "r-client.md 3.1 \"DNS SRV Setup\" (first label s-<server_id_decimal>); wire_protocol.md "
                    "\"Structured server_id Format\" (u64); " + TOOL, {
                        "Boundary": "0, 2^64-1, or one past the u64 range",
                        "Case": "the s- prefix and the rest of the name are case-insensitive (DNS)",
                        "Canonical": "the decimal must be canonical: digits only, no sign, no leading zero "
                                     "(s-0 itself is canonical)",
                        "Label": "only the first label carries the server_id",
                        "Host": "every later label is 1..63 letters, digits, '-' or '_' and the name is at "
                                "most 253 bytes (RFC 1035 2.3.4 host names; this project's strict reading)",
                    })

    def compute(inp):
        return {"server_id": str(parse_srv_target(inp["target"]))}

    def add(comment, flags, target, want):
        vf.add_computed(comment, flags, {"target": target}, want, compute)

    add("r-client.md example with trailing dot", [], "s-1015809.rl1.example.com.", "valid")
    add("without trailing dot", [], "s-1015809.rl1.example.com", "valid")
    add("second r-client.md example", [], "s-1048578.rl2.example.com.", "valid")
    add("upper-case S- prefix", ["Case"], "S-1015809.rl1.example.com.", "valid")
    add("whole name upper case", ["Case"], "S-1048578.RL2.EXAMPLE.COM", "valid")
    add("s-0", ["Boundary", "Canonical"], "s-0.example.com.", "valid")
    add("s-18446744073709551615 (2^64-1)", ["Boundary"], "s-18446744073709551615.example.com.", "valid")
    add("single-label name", ["Label"], "s-42", "valid")
    add("composed server_id", [], f"s-{server_id_compose(1767225600, 7, 1234)}.rl.example.net.", "valid")
    add("no s- label", ["Label"], "rl.us1.com", "range")
    add("s- with empty digits", ["Canonical"], "s-.example.com.", "range")
    add("non-digit after digits", ["Canonical"], "s-1015809x.example.com.", "range")
    add("hex digits", ["Canonical"], "s-0x1f.example.com.", "range")
    add("leading zero s-01", ["Canonical"], "s-01.example.com.", "range")
    add("s-00", ["Canonical"], "s-00.example.com.", "range")
    add("overflow 18446744073709551616 (2^64)", ["Boundary"], "s-18446744073709551616.example.com.", "range")
    add("20-digit overflow 99999999999999999999", ["Boundary"], "s-99999999999999999999.example.com.", "range")
    add("sign s--1", ["Canonical"], "s--1.example.com.", "range")
    add("sign s-+1", ["Canonical"], "s-+1.example.com.", "range")
    add("empty string", [], "", "range")
    add("root name only", [], ".", "range")
    add("s- label not first", ["Label"], "rl1.s-1015809.example.com.", "range")
    add("prefix s_ instead of s-", ["Label"], "s_1015809.example.com.", "range")
    add("prefix without dash", ["Label"], "s1015809.example.com.", "range")
    add("srv- prefix", ["Label"], "srv-1015809.example.com.", "range")
    add("63-byte later label", ["Host"], "s-5." + "a" * 63 + ".example.", "valid")
    add("64-byte later label", ["Host"], "s-5." + "a" * 64 + ".example.", "range")
    add("253-byte name", ["Host"], "s-5." + ("b" * 62 + ".") * 3 + "c" * 60, "valid")
    add("254-byte name", ["Host"], "s-5." + ("b" * 62 + ".") * 3 + "c" * 61, "range")
    add("wildcard label", ["Host"], "s-5.*.example.", "range")
    add("space in a later label", ["Host"], "s-5.ex ample.", "range")
    return vf


# ---------------------------------------------------------------------------
# rate_request_packet

PACKET_SOURCE = ("wire_protocol.md \"Tenant Header\", \"Auth Header\", \"AES-256-GCM Normative Framing\", "
                 "\"General PDU Format\", \"rate_request PDU\", \"Guard Blocks\", \"Resource Blocks\", "
                 "\"Metrics Label TLV Parameter\", \"Quota Enforcement Semantics\"; api.md \"Capacity limits\", "
                 "\"Credentials\"; ")


def request_input(mode, guards, resources, label=None, steering=0, dedup=60, uid=UID):
    inp = {"key": KEYS[mode], "unique_id_hex": hx(uid), "time_stamp_ms": TIME_STAMP}
    if mode == "aes":
        inp["nonce_hex"] = hx(next_nonce())
    inp.update({"dedup_ttl_ms": dedup, "steering_feedback": steering, "guards": guards, "resources": resources})
    if label is not None:
        inp["metrics_label_utf8"] = label
    return inp


def gen_rate_request():
    vf = VectorFile("rate_request_packet.json", "rate_request_packet", PACKET_SOURCE + TOOL, {
        "Label": "metrics-label TLV 0x4C4D: str_length u16, UTF-8 bytes, zero padding to a multiple of 4; "
                 "tlv_size = round_up_4(6 + length) counts the padding; absent or empty label sends no TLV",
        "Capacity": "whole datagram must be <= 1200 bytes (api.md \"Capacity limits\"); the largest that fits "
                    "is valid and one more block or label byte past it is error range. Packets are multiples "
                    "of 4 bytes, so 1201..1203 cannot occur",
        "Quota": "client-side quota checks before any send (wire_protocol.md \"Quota Enforcement Semantics\", "
                 "api.md \"Credentials\"): guard buffer_size > latency_buffer_size_max and resource "
                 "window_size_ms > rate_window_size_ms_max are error range",
        "ExtraRule": "rules of this project's request builder beyond the wire format: dedup_ttl_ms must be in "
                     "1..dedup_ttl_ms_max of the key (r-client.md 9.3.1 says the derived TTL must not exceed "
                     "the key's limit; 0 is no replay window), and tokens_requested must fit its u16 field; "
                     "otherwise error range",
        "Boundary": "the largest accepted value of a range",
        "Steering": "steering_feedback 1 (keep port) in the tenant header",
        "Shape": "resource-only, guard-only or multi-block request",
    })
    compute = lambda inp: {"packet_hex": hx(build_rate_request(inp))}

    def add(comment, flags, inp, want="valid"):
        vf.add_computed(comment, flags, inp, want, compute)

    g1 = make_guard("inventory-backend")
    r1 = make_resource("checkout")
    for mode in MODES:
        add(f"{mode}: 1 guard + 1 resource, no label", [], request_input(mode, [g1], [r1]))
        add(f"{mode}: 1 guard + 1 resource, label checkout-api", ["Label"],
            request_input(mode, [g1], [r1], label="checkout-api"))
        for n in range(1, 6):
            add(f"{mode}: label of {n} byte(s), tlv_size {pad4(6 + n)}", ["Label"],
                request_input(mode, [g1], [r1], label="abcde"[:n]))
        add(f"{mode}: empty label sends no TLV", ["Label"], request_input(mode, [g1], [r1], label=""))
        add(f"{mode}: resource-only", ["Shape"], request_input(mode, [], [r1]))
        add(f"{mode}: guard-only", ["Shape"], request_input(mode, [g1], []))
        add(f"{mode}: steering_feedback 1", ["Steering"], request_input(mode, [g1], [r1], steering=1))
    add("none: UTF-8 label caf\u00e9 (5 bytes)", ["Label"], request_input("none", [g1], [r1], label="caf\u00e9"))
    add("aes: UTF-8 label with emoji", ["Label"], request_input("aes", [g1], [r1], label="api-\U0001F680"))
    multi_g = [g1, make_guard("payments-db", ttl_ms=5000, max_samples=50, buffer_size=16,
                              min_sample_threshold=3, latency_threshold=250)]
    multi_r = [r1, make_resource("checkout/user-42", 60000, 10, 2), make_resource("\u00e9t\u00e9", 65536, U32_MAX, 65535)]
    for mode in MODES:
        add(f"{mode}: 2 guards + 3 resources + label", ["Shape"],
            request_input(mode, multi_g, multi_r, label="multi", steering=1))

    # capacity: datagram = 40 + auth + 12 + 40 g + 28 r + label TLV
    for mode in MODES:
        fixed = 40 + AUTH_TLV[mode][1] + 12
        max_r = (MAX_DATAGRAM - fixed) // 28
        max_g = (MAX_DATAGRAM - fixed) // 40
        rs = [make_resource(f"bucket-{i}") for i in range(max_r + 1)]
        gs = [make_guard(f"tracker-{i}") for i in range(max_g + 1)]
        add(f"{mode}: {max_r} resources, no label ({fixed + 28 * max_r} bytes, most that fit)",
            ["Capacity", "Boundary"], request_input(mode, [], rs[:max_r]))
        add(f"{mode}: {max_r + 1} resources ({fixed + 28 * (max_r + 1)} bytes)", ["Capacity"],
            request_input(mode, [], rs), "range")
        add(f"{mode}: {max_g} guards, no label ({fixed + 40 * max_g} bytes, most that fit)",
            ["Capacity", "Boundary"], request_input(mode, gs[:max_g], []))
        add(f"{mode}: {max_g + 1} guards ({fixed + 40 * (max_g + 1)} bytes)", ["Capacity"],
            request_input(mode, gs, []), "range")
        for what, blocks, used in (("resources", "r", fixed + 28 * max_r), ("guards", "g", fixed + 40 * max_g)):
            room = MAX_DATAGRAM - used          # bytes left for the label TLV
            n_fit = room - 6                    # label bytes that make exactly 1200
            args = ([], rs[:max_r]) if blocks == "r" else (gs[:max_g], [])
            if n_fit >= 1:
                add(f"{mode}: {max_r if blocks == 'r' else max_g} {what} + {n_fit}-byte label = 1200 bytes",
                    ["Capacity", "Label", "Boundary"], request_input(mode, *args, label="L" * n_fit))
                add(f"{mode}: {max_r if blocks == 'r' else max_g} {what} + {n_fit + 1}-byte label = 1204 bytes",
                    ["Capacity", "Label"], request_input(mode, *args, label="L" * (n_fit + 1)), "range")
        mix_g = 1
        mix_r = (MAX_DATAGRAM - fixed - 40 * mix_g) // 28
        add(f"{mode}: 1 guard + {mix_r} resources (most resources beside one guard)", ["Capacity", "Boundary"],
            request_input(mode, gs[:1], rs[:mix_r]))
        add(f"{mode}: 1 guard + {mix_r + 1} resources", ["Capacity"], request_input(mode, gs[:1], rs[:mix_r + 1]), "range")

    # key quotas (TEST_WORD: buffer 32, window 65536 ms, dedup 300 ms)
    q = quota_values(TEST_WORD)
    for mode in ("none", "aes"):
        add(f"{mode}: guard buffer_size = latency_buffer_size_max ({q['latency_buffer_size_max']})",
            ["Quota", "Boundary"], request_input(mode, [make_guard("buf", buffer_size=32)], [r1]))
        add(f"{mode}: guard buffer_size above latency_buffer_size_max (33)", ["Quota"],
            request_input(mode, [make_guard("buf", buffer_size=33)], [r1]), "range")
        add(f"{mode}: second guard over quota, first fine", ["Quota"],
            request_input(mode, [g1, make_guard("buf", buffer_size=64)], [r1]), "range")
        add(f"{mode}: window_size_ms = rate_window_size_ms_max ({q['rate_window_size_ms_max']})",
            ["Quota", "Boundary"], request_input(mode, [g1], [make_resource("w", 65536, 100)]))
        add(f"{mode}: window_size_ms above rate_window_size_ms_max (65537)", ["Quota"],
            request_input(mode, [g1], [make_resource("w", 65537, 100)]), "range")
        add(f"{mode}: window_size_ms u32 max with a 65536 ms cap", ["Quota"],
            request_input(mode, [], [make_resource("w", U32_MAX, 100)]), "range")
        add(f"{mode}: dedup_ttl_ms = dedup_ttl_ms_max ({q['dedup_ttl_ms_max']})", ["ExtraRule", "Boundary"],
            request_input(mode, [g1], [r1], dedup=300))
        add(f"{mode}: dedup_ttl_ms 1", ["ExtraRule", "Boundary"], request_input(mode, [g1], [r1], dedup=1))
        add(f"{mode}: dedup_ttl_ms above dedup_ttl_ms_max (301)", ["ExtraRule"],
            request_input(mode, [g1], [r1], dedup=301), "range")
        add(f"{mode}: dedup_ttl_ms 0", ["ExtraRule"], request_input(mode, [g1], [r1], dedup=0), "range")
        add(f"{mode}: tokens_requested 65535", ["ExtraRule", "Boundary"],
            request_input(mode, [], [make_resource("t", tokens_requested=65535)]))
        add(f"{mode}: tokens_requested 65536", ["ExtraRule"],
            request_input(mode, [], [make_resource("t", tokens_requested=65536)]), "range")
    add("none: guard settings and threshold at u32 max (buffer_size within quota)", ["Boundary"],
        request_input("none", [make_guard("max", U32_MAX, U32_MAX, 32, U32_MAX, U32_MAX)], [r1]))
    add("cookie: over-capacity and over-quota together (both range)", ["Capacity", "Quota"],
        request_input("cookie", [make_guard("buf", buffer_size=33)],
                      [make_resource(f"bucket-{i}") for i in range(40)]), "range")
    return vf


def gen_latency_report():
    vf = VectorFile("latency_report_packet.json", "latency_report_packet",
                    "wire_protocol.md \"Tenant Header\", \"Auth Header\", \"AES-256-GCM Normative Framing\", "
                    "\"Latency Report PDU\", \"Service Latency Block\"; api.md \"Reporting measured work\"; " + TOOL, {
                        "Capacity": "pdu_size = 12 + 36 n and the datagram must be <= 1200 bytes: at most 31 "
                                    "reports (none), 30 (cookie), 31 (aes); one more is error range",
                        "Boundary": "the largest accepted value of a range",
                        "Filtered": "api.md: reports whose buffer_size exceeds the key's "
                                    "latency_buffer_size_max are filtered before send; the packet carries "
                                    "only the survivors. When every report is filtered the call returns "
                                    "RCLIENT_OK without sending: expected {\"sent\": false}",
                        "ExtraRule": "a report call carries at least one report (api.md operation model); "
                                     "an empty list is error range",
                        "Steering": "the optional steering_feedback input (0 or 1, default 0 when absent) "
                                    "goes into the tenant header",
                    })
    def compute(inp):
        pkt = build_latency_report(inp)
        return {"sent": False} if pkt is None else {"packet_hex": hx(pkt)}

    def report(name, observed, ttl_ms=10000, max_samples=100, buffer_size=32, mst=5):
        return {"tracker_id_hex": hx(tracker_id(name.encode(), ttl_ms, max_samples, buffer_size, mst)),
                "ttl_ms": ttl_ms, "max_samples": max_samples, "buffer_size": buffer_size,
                "min_sample_threshold": mst, "observed_latency": observed}

    def inp_for(mode, reports, uid=UID):
        inp = {"key": KEYS[mode], "unique_id_hex": hx(uid), "time_stamp_ms": TIME_STAMP}
        if mode == "aes":
            inp["nonce_hex"] = hx(next_nonce())
        inp["reports"] = reports
        return inp

    def add(comment, flags, inp, want="valid"):
        vf.add_computed(comment, flags, inp, want, compute)

    rep = report("inventory-backend", 42)
    for mode in MODES:
        add(f"{mode}: one report", [], inp_for(mode, [rep]))
        add(f"{mode}: two reports", [], inp_for(mode, [rep, report("payments-db", 7, 5000, 50, 16, 3)]))
        max_n = (MAX_DATAGRAM - 40 - AUTH_TLV[mode][1] - 12) // 36
        reps = [report(f"svc-{i}", i) for i in range(max_n + 1)]
        add(f"{mode}: {max_n} reports (most that fit)", ["Capacity", "Boundary"], inp_for(mode, reps[:max_n]))
        add(f"{mode}: {max_n + 1} reports", ["Capacity"], inp_for(mode, reps), "range")
        add(f"{mode}: buffer_size = latency_buffer_size_max (32)", ["Boundary"],
            inp_for(mode, [report("buf", 9, buffer_size=32)]))
        add(f"{mode}: one of two reports over quota is filtered", ["Filtered"],
            inp_for(mode, [report("buf", 9, buffer_size=33), rep]))
        add(f"{mode}: every report over quota", ["Filtered"],
            inp_for(mode, [report("buf", 9, buffer_size=33), report("buf2", 9, buffer_size=4096)]))
    add("none: observed_latency and settings at u32 max (buffer_size within quota)", ["Boundary"],
        inp_for("none", [report("max", U32_MAX, U32_MAX, U32_MAX, 32, U32_MAX)]))
    add("none: observed_latency 0", [], inp_for("none", [report("zero", 0)]))
    add("cookie: no reports", ["ExtraRule"], inp_for("cookie", []), "range")
    # The optional steering_feedback input (tenant header byte 36). The AES nonces here are
    # fixed, not drawn from the shared counter, so the later files' nonces stay as they were.
    for mode in MODES:
        for steering in (1, 0):
            inp = {"key": KEYS[mode], "unique_id_hex": hx(UID), "time_stamp_ms": TIME_STAMP}
            if mode == "aes":
                inp["nonce_hex"] = hx(fixed_bytes(f"report steering nonce {steering}", 12))
            inp["steering_feedback"] = steering
            inp["reports"] = [rep]
            add(f"{mode}: steering_feedback {steering} given", ["Steering"], inp)
    return vf


# ---------------------------------------------------------------------------
# rate_response

SERVER_A = server_id_compose(1767225600, 3, 17)
SERVER_B = server_id_compose(1767225700, 4, 18)
TRUSTED = [str(SERVER_A), str(SERVER_B)]


def rr_guard(name, threshold, current):
    g = make_guard(name, latency_threshold=threshold)
    return guard_block(g, current)


def rr_resource(name, actual_rate, deficit, window_size_ms=1000, rate_limit=100):
    return struct.pack("<16sIIHH", bucket_id(name.encode(), window_size_ms, rate_limit), window_size_ms,
                       actual_rate, deficit, 0)


def rr_pdu(guards, resources, tlvs=b"", pdu_type=PDU_RATE_RESPONSE, size_delta=0, res1=0, res2=0,
           gc_delta=0, rc_delta=0):
    body = b"".join(guards) + b"".join(resources) + tlvs
    return struct.pack("<HHHHHH", pdu_type, 12 + len(body) + size_delta, res1, res2,
                       len(guards) + gc_delta, len(resources) + rc_delta) + body


def rr_packet(mode, pdu, server_id=SERVER_A, uid=UID, steering=1, mgmt=0, t_type=TLV_TENANT, t_size=40,
              t_pad=0, secret=None, nonce=None):
    tenant = tenant_tlv(server_id, uid, int(TIME_STAMP), steering, mgmt, t_pad, t_type, t_size)
    if secret is None:
        secret = {"none": None, "cookie": COOKIE_SECRET, "aes": AES_SECRET}[mode]
    if mode == "aes" and nonce is None:
        nonce = next_nonce()
    return seal(mode, secret, tenant, pdu, nonce)


def flip(b, index, mask=0x01):
    b = bytearray(b)
    b[index] ^= mask
    return bytes(b)


def put16(b, index, value):
    b = bytearray(b)
    b[index:index + 2] = le16(value)
    return bytes(b)


def gen_rate_response():
    vf = VectorFile("rate_response.json", "rate_response",
                    "wire_protocol.md \"Tenant Header\", \"Auth Header\", \"AES-256-GCM Normative Framing\", "
                    "\"General PDU Format\", \"rate_response PDU\", \"Response Semantics\", \"Guard Block Response\", "
                    "\"Resource Block Response\", \"Response TLV Parameters\", \"Structured server_id Format\"; "
                    "r-client.md 6.4, 7.1.2, 9.3.3; " + TOOL, {
                        "Allow": "every guard current_latency < latency_threshold and every deficit 0",
                        "Deny": "a guard with current_latency >= latency_threshold or a resource deficit > 0; "
                                "still a valid response (success false)",
                        "Boundary": "current_latency equal to / one below latency_threshold, or an empty response",
                        "Steering": "keep_port is steering_feedback == 1",
                        "ServerTlv": "optional TLVs after the blocks; each needs tlv_size >= 4 within pdu_size; "
                                     "the client ignores their content",
                        "Malformed": "framing: tenant TLV type 0x4C52, tlv_size 40, zero padding, steering_feedback and "
                                     "tenant_mgmt_flag at most 1; auth TLV size "
                                     "exact for its type; pdu_size equal to the bytes present; reserved fields "
                                     "zero; 12 + 40 guard_count + 28 resource_count <= pdu_size; trailing TLVs "
                                     "well formed. For AES the PDU checks apply to the decrypted PDU: these "
                                     "vectors carry a valid tag over the malformed plaintext",
                        "Auth": "auth TLV type differs from the key's mode, cookie differs, or the AES-GCM tag "
                                "fails (tag, ciphertext, nonce or AAD changed). A truncated AES PDU fails its tag "
                                "before its size can be read, so it is auth",
                        "Correlation": "PDU kind not rate_response 0x5252, tenant_mgmt_flag not 0, unique_id "
                                       "not the request's, or server_id (tenant key_id) not in the trusted set "
                                       "(full 64-bit compare)",
                        "Precedence": "several rules break; the class is the first of malformed, auth, correlation",
                        "Request": "input.request (optional, rate_request_packet block shape) gives the request's "
                                   "blocks: block i must answer request block i (same ID, tracker settings or "
                                   "window; counts equal), else malformed; success uses each guard's requested "
                                   "latency_threshold, not the echo (docs/spec-notes.md \"Rate responses\")",
                        "RepeatedTracker": "two guards on one tracker with different thresholds (r-client.md 5.2)",
                        "SingleFault": "exactly one field rule broken (or exercised), every other field valid; "
                                       "the comment names the rule",
                        "TenantSize44": "a self-consistent 44-byte tenant TLV: a client that skips tlv_size "
                                        "bytes instead of requiring 40 accepts it",
                    })

    def add(comment, flags, mode, pkt, want, uid=UID, trusted=None, key=None, request=None):
        inp = {"key": key or KEYS[mode], "request_unique_id_hex": hx(uid),
               "trusted_server_ids": TRUSTED if trusted is None else trusted, "packet_hex": hx(pkt)}
        if request is not None:
            inp["request"] = request
        vf.add_computed(comment, flags, inp, want, parse_rate_response)

    g_ok = rr_guard("inventory-backend", 100, 12)
    g_eq = rr_guard("inventory-backend", 100, 100)
    g_below = rr_guard("inventory-backend", 100, 99)
    g_over = rr_guard("inventory-backend", 100, 250)
    r_ok = rr_resource("checkout", 17, 0)
    r_def = rr_resource("checkout", 100, 3)
    server_tlv = le16(0x4D53) + le16(12) + le64(123456789)
    label_echo = label_tlv("checkout-api")
    other_uid = bytes.fromhex("00004c2fd0624dea93a44654506faba8")
    base = rr_pdu([g_ok], [r_ok])

    for mode in MODES:
        M = mode
        # valid
        add(f"{M}: allow, 1 guard + 1 resource, keep_port true", ["Allow", "Steering"], M, rr_packet(M, base), "valid")
        add(f"{M}: allow, keep_port false", ["Allow"], M, rr_packet(M, base, steering=0), "valid")
        add(f"{M}: deny, guard current_latency == threshold", ["Deny", "Boundary"], M,
            rr_packet(M, rr_pdu([g_eq], [r_ok])), "valid")
        add(f"{M}: allow, guard current_latency == threshold - 1", ["Allow", "Boundary"], M,
            rr_packet(M, rr_pdu([g_below], [r_ok])), "valid")
        add(f"{M}: deny, resource deficit 3", ["Deny"], M, rr_packet(M, rr_pdu([g_ok], [r_def])), "valid")
        add(f"{M}: allow with trailing server TLV", ["Allow", "ServerTlv"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], server_tlv)), "valid")
        add(f"{M}: zero guards and zero resources (vacuous success)", ["Allow", "Boundary"], M,
            rr_packet(M, rr_pdu([], [])), "valid")
        add(f"{M}: response from the second trusted server", ["Allow"], M,
            rr_packet(M, base, server_id=SERVER_B), "valid")
        add(f"{M}: 2 guards + 3 resources, second guard over threshold, echoed label TLV", ["Deny", "ServerTlv"], M,
            rr_packet(M, rr_pdu([g_ok, g_over], [r_ok, rr_resource("checkout/user-42", 9, 0, 60000, 10),
                                                 rr_resource("b3", 0, 0)], label_echo)), "valid")
        # malformed (for aes: valid tag over the malformed plaintext)
        add(f"{M}: tenant tlv_type 0x4C53", ["Malformed"], M, rr_packet(M, base, t_type=0x4C53), "malformed")
        add(f"{M}: tenant tlv_size 36", ["Malformed"], M, rr_packet(M, base, t_size=36), "malformed")
        add(f"{M}: tenant padding not zero", ["Malformed"], M, rr_packet(M, base, t_pad=0x0100), "malformed")
        add(f"{M}: pdu_size one more than the bytes present", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], size_delta=1)), "malformed")
        add(f"{M}: pdu_size one less than the bytes present", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], size_delta=-1)), "malformed")
        add(f"{M}: first reserved field not zero", ["Malformed"], M, rr_packet(M, rr_pdu([g_ok], [r_ok], res1=1)), "malformed")
        add(f"{M}: second reserved field not zero", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], res2=0x8000)), "malformed")
        add(f"{M}: guard_count one too many for pdu_size", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], gc_delta=1)), "malformed")
        add(f"{M}: resource_count one too many for pdu_size", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], rc_delta=1)), "malformed")
        add(f"{M}: trailing TLV with tlv_size 2", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], le16(0x4D53) + le16(2))), "malformed")
        add(f"{M}: trailing TLV overruns pdu_size", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], le16(0x4D53) + le16(16) + le64(1))), "malformed")
        add(f"{M}: 2 stray bytes after the blocks", ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], b"\x00\x00")), "malformed")
        add(f"{M}: PDU of 4 bytes", ["Malformed"], M, rr_packet(M, le16(PDU_RATE_RESPONSE) + le16(4)), "malformed")
        add(f"{M}: rate_response PDU of 8 bytes (no counts)", ["Malformed"], M,
            rr_packet(M, struct.pack("<HHHH", PDU_RATE_RESPONSE, 8, 0, 0)), "malformed")
        full = rr_packet(M, base)
        add(f"{M}: truncated inside the tenant TLV (39 bytes)", ["Malformed"], M, full[:39], "malformed")
        add(f"{M}: truncated inside the auth TLV header (42 bytes)", ["Malformed"], M, full[:42], "malformed")
        if M == "none":
            add("none: truncated inside the PDU (pdu_size > bytes present)", ["Malformed"], M, full[:-4], "malformed")
            add("none: nothing after the auth TLV", ["Malformed"], M, full[:44], "malformed")
        if M == "cookie":
            add("cookie: truncated inside the cookie", ["Malformed"], M, full[:60], "malformed")
            add("cookie: truncated inside the PDU", ["Malformed"], M, full[:-1], "malformed")
            add("cookie: auth tlv_size 32 for a cookie TLV", ["Malformed"], M, put16(full, 42, 32), "malformed")
        if M == "aes":
            add("aes: truncated inside the auth TLV body (60 bytes)", ["Malformed"], M, full[:60], "malformed")
            tenant = tenant_tlv(SERVER_A, UID, int(TIME_STAMP), 1)
            nonce = next_nonce()
            bad_size = tenant + le16(0x4541) + le16(28) + nonce + full[56:]
            add("aes: auth tlv_size 28 for an AES TLV", ["Malformed"], M, bad_size, "malformed")
        # auth
        if M == "none":
            add("none: cookie auth TLV for a none key", ["Auth"], M,
                rr_packet("cookie", base, secret=COOKIE_SECRET), "auth")
            add("none: AES auth TLV for a none key (plaintext PDU)", ["Auth"], M,
                rr_packet("none", base)[:40] + le16(0x4541) + le16(32) + fixed_bytes("n", 28) + base, "auth")
            add("none: unknown auth TLV type 0x5858 size 4", ["Auth"], M,
                put16(rr_packet("none", base), 40, 0x5858), "auth")
        if M == "cookie":
            add("cookie: cookie differs in the last byte", ["Auth"], M, flip(full, 75), "auth")
            add("cookie: cookie differs in the first byte", ["Auth"], M, flip(full, 44, 0x80), "auth")
            add("cookie: none auth TLV for a cookie key", ["Auth"], M, rr_packet("none", base), "auth")
            add("cookie: AES auth TLV for a cookie key (plaintext PDU)", ["Auth"], M,
                full[:40] + le16(0x4541) + le16(32) + fixed_bytes("n2", 28) + base, "auth")
        if M == "aes":
            add("aes: tag flipped", ["Auth"], M, flip(full, 71), "auth")
            add("aes: ciphertext flipped", ["Auth"], M, flip(full, 80), "auth")
            add("aes: nonce flipped", ["Auth"], M, flip(full, 44), "auth")
            add("aes: tenant time_stamp changed after sealing (AAD)", ["Auth"], M, flip(full, 28), "auth")
            add("aes: sealed under another AES key", ["Auth"], M, rr_packet(M, base, secret=OTHER_AES_SECRET), "auth")
            add("aes: PDU truncated by 4 bytes (stale tag)", ["Auth"], M, full[:-4], "auth")
            add("aes: cookie auth TLV for an aes key (plaintext PDU)", ["Auth"], M,
                rr_packet("cookie", base, secret=COOKIE_SECRET), "auth")
            add("aes: none auth TLV for an aes key", ["Auth"], M, rr_packet("none", base), "auth")
        # correlation
        add(f"{M}: unique_id differs from the request", ["Correlation"], M, rr_packet(M, base, uid=other_uid), "correlation")
        add(f"{M}: server_id not trusted", ["Correlation"], M,
            rr_packet(M, base, server_id=SERVER_A ^ 1), "correlation")
        add(f"{M}: empty trusted set", ["Correlation"], M, rr_packet(M, base), "correlation", trusted=[])
        add(f"{M}: PDU kind rate request 0x5452", ["Correlation"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], pdu_type=PDU_RATE_REQUEST)), "correlation")
        add(f"{M}: tenant_mgmt_flag 1", ["Correlation"], M, rr_packet(M, base, mgmt=1), "correlation")
        add(f"{M}: server_id equals the key's key_id, not a trusted server", ["Correlation"], M,
            rr_packet(M, base, server_id=decode_api_key(KEYS[M])["key_id"]), "correlation")

    # precedence
    add("cookie: reserved not zero and cookie wrong: malformed", ["Precedence"], "cookie",
        flip(rr_packet("cookie", rr_pdu([g_ok], [r_ok], res1=1)), 50), "malformed")
    add("cookie: tenant tlv_type wrong and cookie wrong: malformed", ["Precedence"], "cookie",
        flip(rr_packet("cookie", base, t_type=0x4C53), 50), "malformed")
    add("cookie: cookie wrong and unique_id wrong: auth", ["Precedence"], "cookie",
        flip(rr_packet("cookie", base, uid=other_uid), 50), "auth")
    add("cookie: cookie wrong and untrusted server and mgmt flag 1: auth", ["Precedence"], "cookie",
        flip(rr_packet("cookie", base, server_id=SERVER_A + 1, mgmt=1), 50), "auth")
    add("none: wrong auth TLV type and unique_id wrong: auth", ["Precedence"], "none",
        rr_packet("cookie", base, uid=other_uid, secret=COOKIE_SECRET), "auth")
    add("none: pdu_size off and untrusted server: malformed", ["Precedence"], "none",
        rr_packet("none", rr_pdu([g_ok], [r_ok], size_delta=1), server_id=1), "malformed")
    add("aes: tag wrong and unique_id wrong: auth", ["Precedence"], "aes",
        flip(rr_packet("aes", base, uid=other_uid), 60), "auth")
    add("aes: malformed plaintext (valid tag) and unique_id wrong: malformed", ["Precedence"], "aes",
        rr_packet("aes", rr_pdu([g_ok], [r_ok], res2=1), uid=other_uid), "malformed")
    add("aes: tenant padding not zero and tag wrong: malformed", ["Precedence"], "aes",
        flip(rr_packet("aes", base, t_pad=1), 60), "malformed")
    add("aes: PDU kind 0x5452 and tenant_mgmt_flag 1 and untrusted: correlation", ["Precedence"], "aes",
        rr_packet("aes", rr_pdu([g_ok], [r_ok], pdu_type=PDU_RATE_REQUEST), mgmt=1, server_id=5), "correlation")
    add_request_vectors(add)
    add_single_fault_vectors(add)
    return vf


TENANT = "wire_protocol.md \"Tenant Header\""
AUTH_HDR = "wire_protocol.md \"Auth Header\""
PDU_FMT = "wire_protocol.md \"rate_response PDU\""


def add_single_fault_vectors(add):
    """One fault per vector for every field rule of a response (flag SingleFault): each tenant TLV
    field and size, each reserved field, the steering values, the auth TLV sizes, the echoed
    threshold with and without resources. Each comment names its rule (document and section).
    Appended after every older vector so their tcIds stay as they were."""
    g_ok = rr_guard("inventory-backend", 100, 12)
    r_ok = rr_resource("checkout", 17, 0)
    base = rr_pdu([g_ok], [r_ok])
    for M in MODES:
        f = ["SingleFault"]
        for steering in (2, 255):
            add(f"{M}: steering_feedback {steering} ({TENANT}: a boolean, 0 or 1; 2-255 reserved, "
                "docs/spec-notes.md \"Rate responses\")", f + ["Malformed", "Steering"], M,
                rr_packet(M, base, steering=steering), "malformed")
        add(f"{M}: steering_feedback 0 alone ({TENANT}: 0 = change port)", f + ["Steering"], M,
            rr_packet(M, base, steering=0), "valid")
        add(f"{M}: tenant_mgmt_flag 2 ({TENANT}: values 2-255 reserved)", f + ["Malformed"], M,
            rr_packet(M, base, mgmt=2), "malformed")
        add(f"{M}: tenant_mgmt_flag 1 on a rate response (r-client.md 6.4 Correlation: not a regular "
            "response)", f + ["Correlation"], M, rr_packet(M, base, mgmt=1), "correlation")
        add(f"{M}: tenant padding byte 38 := 1 ({TENANT}: padding MUST be zero)", f + ["Malformed"], M,
            rr_packet(M, base, t_pad=0x0001), "malformed")
        add(f"{M}: tenant padding byte 39 := 0x80 ({TENANT}: padding MUST be zero)", f + ["Malformed"], M,
            rr_packet(M, base, t_pad=0x8000), "malformed")
        add(f"{M}: tenant tlv_type 0x0000 ({TENANT}: type 0x4C52)", f + ["Malformed"], M,
            rr_packet(M, base, t_type=0), "malformed")
        for size in (0, 4, 39, 41, 0xFFFF):
            add(f"{M}: tenant tlv_size {size}, 40 bytes present ({TENANT}: tlv_size is 40)", f + ["Malformed"], M,
                rr_packet(M, base, t_size=size), "malformed")
        add(f"{M}: a 44-byte tenant TLV (tlv_size 44, 4 more body bytes, the rest after it; {TENANT}: "
            "tlv_size is 40)", f + ["Malformed", "TenantSize44"], M, tenant44_packet(M, base), "malformed")
        add(f"{M}: first reserved field := 0x0100 ({PDU_FMT}: reserved MUST be zero)", f + ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], res1=0x0100)), "malformed")
        add(f"{M}: second reserved field := 0x0001 ({PDU_FMT}: reserved MUST be zero)", f + ["Malformed"], M,
            rr_packet(M, rr_pdu([g_ok], [r_ok], res2=0x0001)), "malformed")
        # auth TLV: the size of each known type is exact; a size below the 4-byte header is out of bounds.
        full = rr_packet(M, base)
        own_type, own_size = AUTH_TLV[M]
        add(f"{M}: auth tlv_size 2, below its header ({AUTH_HDR})", f + ["Malformed"], M, put16(full, 42, 2),
            "malformed")
        add(f"{M}: auth tlv_size {own_size + 4} for its type, 4 more bytes present ({AUTH_HDR}: the size is "
            f"{own_size})", f + ["Malformed"], M, longer_auth_tlv(M, base), "malformed")
    add_echo_vectors(add)


def tenant44_packet(mode, pdu):
    """A response whose tenant TLV says tlv_size 44 and carries 4 more body bytes, sealed (AES: a valid
    tag over the 44-byte header) so the tenant size is the only fault."""
    tenant = tenant_tlv(SERVER_A, UID, int(TIME_STAMP), 1, tlv_size=44) + bytes(4)
    secret = {"none": None, "cookie": COOKIE_SECRET, "aes": AES_SECRET}[mode]
    return seal(mode, secret, tenant, pdu, next_nonce() if mode == "aes" else None)


def longer_auth_tlv(mode, pdu):
    """The key's own auth TLV with tlv_size 4 more than its type's and 4 more bytes (AES: in the AAD)."""
    tenant = tenant_tlv(SERVER_A, UID, int(TIME_STAMP), 1)
    t, size = AUTH_TLV[mode]
    if mode == "none":
        return tenant + le16(t) + le16(size + 4) + bytes(4) + pdu
    if mode == "cookie":
        return tenant + le16(t) + le16(size + 4) + COOKIE_SECRET + bytes(4) + pdu
    nonce = next_nonce()
    prefix = le16(t) + le16(size + 4) + nonce
    sealed = AESGCM(AES_SECRET).encrypt(nonce, pdu, tenant + prefix)
    return tenant + prefix + sealed[-16:] + bytes(4) + sealed[:-16]


def add_echo_vectors(add):
    """The echoed latency_threshold with resources beside the guard, so a client that refuses
    guard-only requests still meets the rule (docs/spec-notes.md "Rate responses": success uses the
    requested threshold; wire_protocol.md "Response Semantics")."""
    g10, ra = make_guard("inventory-backend", latency_threshold=10), make_resource("bucket-a")
    res_a = struct.pack("<16sIIHH", bytes.fromhex(ra["bucket_id_hex"]), ra["window_size_ms"], 1, 0, 0)
    req = {"guards": [g10], "resources": [ra]}
    for M in ("cookie", "aes"):
        f = ["SingleFault", "Request"]
        echoed = rr_packet(M, rr_pdu([guard_block(dict(g10, latency_threshold=1000), 50)], [res_a]))
        add(f"{M}: guard + resource, echo rewritten to 1000, current 50, requested 10: deny (wire_protocol.md "
            "\"Response Semantics\": current < the requested threshold)", f + ["Deny"], M, echoed, "valid",
            request=req)
        add(f"{M}: the same guard + resource datagram alone (no request): the echo 1000 decides, allow "
            "(docs/spec-notes.md \"Rate responses\": a datagram judged alone reads the echoed threshold)",
            ["SingleFault", "Allow"], M, echoed, "valid")
        lowered = rr_packet(M, rr_pdu([guard_block(dict(g10, latency_threshold=5), 9)], [res_a]))
        add(f"{M}: guard + resource, echo lowered to 5, current 9, requested 10: allow (wire_protocol.md "
            "\"Response Semantics\")", f + ["Allow"], M, lowered, "valid", request=req)
        add(f"{M}: guard + resource, honest echo 10, current 10: deny (wire_protocol.md \"Response "
            "Semantics\": current < threshold)", f + ["Deny", "Boundary"], M,
            rr_packet(M, rr_pdu([guard_block(g10, 10)], [res_a])), "valid", request=req)


def add_request_vectors(add):
    """rate_response vectors with input.request: block-by-block answers (flag Request)."""
    g100, g10 = make_guard("inventory-backend", latency_threshold=100), make_guard("inventory-backend",
                                                                                  latency_threshold=10)
    g_other = make_guard("payments-backend", latency_threshold=100)
    ra, rb = make_resource("bucket-a"), make_resource("bucket-b")
    two_guards = {"guards": [g100, g10], "resources": []}
    a_b = {"guards": [], "resources": [ra, rb]}

    def res(r, deficit=0, actual=1):
        return struct.pack("<16sIIHH", bytes.fromhex(r["bucket_id_hex"]), r["window_size_ms"], actual, deficit, 0)

    echo_1000 = dict(g10, latency_threshold=1000)
    other_samples = dict(g10, max_samples=101)
    for M in ("cookie", "aes"):
        add(f"{M}: one tracker, thresholds 100 and 10, current 50 for both: guard 1 fails", ["Request",
            "RepeatedTracker", "Deny"], M, rr_packet(M, rr_pdu([guard_block(g100, 50), guard_block(g10, 50)], [])),
            "valid", request=two_guards)
        add(f"{M}: one tracker, thresholds 100 and 10, current 9 for both: allow", ["Request", "RepeatedTracker",
            "Allow"], M, rr_packet(M, rr_pdu([guard_block(g100, 9), guard_block(g10, 9)], [])), "valid",
            request=two_guards)
        echoed = rr_packet(M, rr_pdu([guard_block(g100, 50), guard_block(echo_1000, 50)], []))
        add(f"{M}: threshold echo rewritten to 1000, judged with the requested 10: deny", ["Request",
            "RepeatedTracker", "Deny"], M, echoed, "valid", request=two_guards)
        add(f"{M}: the same datagram alone (no request): the echo is all there is, allow", ["RepeatedTracker",
            "Allow"], M, echoed, "valid")
        add(f"{M}: request {{A, B}}, honest answer, B short by 4", ["Request", "Deny"], M,
            rr_packet(M, rr_pdu([], [res(ra), res(rb, 4)])), "valid", request=a_b)
        add(f"{M}: request {{A, B}}, response repeats A and omits B", ["Request", "Malformed"], M,
            rr_packet(M, rr_pdu([], [res(ra), res(ra)])), "malformed", request=a_b)
        add(f"{M}: request {{A, B}}, response in the order B, A", ["Request", "Malformed"], M,
            rr_packet(M, rr_pdu([], [res(rb), res(ra)])), "malformed", request=a_b)
        add(f"{M}: request {{A, B}}, response carries only A (resource_count 1)", ["Request", "Malformed"], M,
            rr_packet(M, rr_pdu([], [res(ra)])), "malformed", request=a_b)
        add(f"{M}: guard 1 names the tracker with another max_samples", ["Request", "Malformed"], M,
            rr_packet(M, rr_pdu([guard_block(g100, 1), guard_block(other_samples, 1)], [])), "malformed",
            request=two_guards)
        add(f"{M}: guards of two trackers swapped", ["Request", "Malformed"], M,
            rr_packet(M, rr_pdu([guard_block(g_other, 1), guard_block(g100, 1)], [])), "malformed",
            request={"guards": [g100, g_other], "resources": []})
        add(f"{M}: bucket A requested twice, answered at both positions", ["Request", "Deny"], M,
            rr_packet(M, rr_pdu([], [res(ra), res(ra, 2)])), "valid", request={"guards": [], "resources": [ra, ra]})
    add("cookie: response repeats A and unique_id wrong: correlation (no request to compare)", ["Request",
        "Precedence"], "cookie", rr_packet("cookie", rr_pdu([], [res(ra), res(ra)]),
                                           uid=bytes.fromhex("00004c2fd0624dea93a44654506faba8")),
        "correlation", request=a_b)


# ---------------------------------------------------------------------------

GENERATORS = (gen_bucket_id, gen_tracker_id, gen_api_key, gen_secret_key, gen_quota_word, gen_server_id,
              gen_srv_target, gen_rate_request, gen_latency_report, gen_rate_response)


def generate():
    _nonce_counter[0] = 0
    files = {}
    for gen in GENERATORS:
        vf = gen()
        files[vf.name] = vf.render()
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the committed files; exit 1 on any difference")
    ap.add_argument("--out", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="vector directory (default: the vectors/ directory above this script)")
    args = ap.parse_args()
    files = generate()
    if args.check:
        bad = 0
        for name, text in files.items():
            path = os.path.join(args.out, name)
            try:
                with open(path, encoding="utf-8") as f:
                    current = f.read()
            except OSError as e:
                print(f"MISSING {path}: {e}")
                bad += 1
                continue
            if current != text:
                print(f"DIFFERS {path}")
                bad += 1
        print(f"gen_vectors --check: {len(files) - bad} identical, {bad} differ")
        return 1 if bad else 0
    os.makedirs(args.out, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        print(f"wrote {name}: {len(json.loads(text)['tests'])} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
