#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate the administrative-channel vector files vectors/admin_*.json (schema ratelimitly-vectors/v1).

Every expected value is computed here from the specification text alone, independently of the C
library: wire_protocol.md "Tenant Header", "AES-256-GCM Normative Framing", "Administrative PDUs",
"Administrative Authentication", "Tenant Mutation PDU", "Mutation Data Formats", "Deterministic
validation rules", "Tenant Acknowledgment PDU", "Status Query PDU", "Status Response PDU",
"status_flags validity bits", "health_flags bits", "Metrics Query PDU", "Query Variants",
"Metrics Response PDU", "Response Variants", "Metrics Record Formats" and "Metrics PDU Examples".
AES-256-GCM comes from the cryptography package; Bech32 and the credential rules from the
independent model in gen_vectors.py (same directory).

Kinds (vectors/tools/README.md "Administrative kinds"): admin_tenant_mutation, admin_status_query,
admin_metrics_query (the server's view of a request), admin_tenant_ack, admin_status_response,
admin_metrics_response (the client's view of a response).

Usage:
  /usr/bin/python3 vectors/tools/gen_admin_vectors.py           # (re)write vectors/admin_*.json
  /usr/bin/python3 vectors/tools/gen_admin_vectors.py --check   # exit 1 if a committed file differs
"""

import argparse
import json
import os
import struct
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_vectors as gv  # noqa: E402  (the independent Bech32 and credential model)

VecError = gv.VecError
hx = gv.hx
U32_MAX = 0xFFFFFFFF
U64_MAX = 0xFFFFFFFFFFFFFFFF
MAX_DATAGRAM = 1200

TLV_TENANT = 0x4C52
AUTH_AES, AUTH_NONE, AUTH_COOKIE = 0x4541, 0x414E, 0x4143
KNOWN_AUTH = {AUTH_AES: 32, AUTH_NONE: 4, AUTH_COOKIE: 36}
PDU_TM, PDU_TA, PDU_SQ, PDU_SR, PDU_MQ, PDU_MR = 0x544D, 0x5441, 0x5153, 0x5253, 0x514D, 0x524D
OP_ADD, OP_REMOVE = 0x03, 0x05
SUMMARY, LABELS, SERVICES = 0x01, 0x02, 0x03

ADMIN_SECRET = gv.fixed_bytes("admin key", 32)
OTHER_SECRET = gv.fixed_bytes("other admin key", 32)
ADMIN_KEY = gv.bech32_encode("rl-secret", ADMIN_SECRET)
OTHER_KEY = gv.bech32_encode("rl-secret", OTHER_SECRET)
UID = gv.UID
OTHER_UID = bytes.fromhex("00004c2fd0624dea93a44654506faba8")
TIME_STAMP = 1767225600123
SERVER_A = 264543141986321  # start 2026-01-01, listener 3, node 17 (as gen_vectors.py)
SERVER_B = 264543980879890
TENANT_ID = 42
_nonce = [0]


def next_nonce():
    _nonce[0] += 1
    return bytes.fromhex("ad0100000000") + _nonce[0].to_bytes(6, "big")


def pad4(n):
    return (4 - n % 4) % 4


# ---------------------------------------------------------------------------
# The administrative frame.

def admin_packet(pdu, key_id, uid=UID, steering=1, mgmt=1, padding=0, t_type=TLV_TENANT, t_size=40,
                 secret=ADMIN_SECRET, auth_type=AUTH_AES, auth_size=32):
    tenant = struct.pack("<HHQ16sQBBH", t_type, t_size, key_id, uid, TIME_STAMP, steering, mgmt, padding)
    if auth_type != AUTH_AES:
        return tenant + struct.pack("<HH", auth_type, auth_size) + bytes(auth_size - 4) + pdu
    nonce = next_nonce()
    prefix = struct.pack("<HH", auth_type, auth_size) + nonce
    sealed = AESGCM(secret).encrypt(nonce, pdu, tenant + prefix)
    return tenant + prefix + sealed[-16:] + sealed[:-16]


def open_admin(inp):
    """(header dict or None, PDU bytes). With pdu_hex the PDU stands alone (no frame)."""
    if "pdu_hex" in inp:
        pdu = bytes.fromhex(inp["pdu_hex"])
        check_pdu_size(pdu)
        return None, pdu
    secret = gv.decode_secret_key(inp["admin_key"])
    pkt = bytes.fromhex(inp["packet_hex"])
    if len(pkt) < 40:
        raise VecError("malformed", "shorter than the Tenant TLV")
    if len(pkt) > MAX_DATAGRAM:
        raise VecError("malformed", "over 1200 bytes")
    t_type, t_size, key_id, uid, ts, steering, mgmt, padding = struct.unpack_from("<HHQ16sQBBH", pkt)
    if t_type != TLV_TENANT or t_size != 40 or padding != 0 or steering > 1:
        raise VecError("malformed", "tenant TLV type, size, padding or steering_feedback")
    if mgmt != 1:
        raise VecError("malformed", "tenant_mgmt_flag is not 1 on the administrative channel")
    if len(pkt) < 44:
        raise VecError("malformed", "no auth TLV header")
    a_type, a_size = struct.unpack_from("<HH", pkt, 40)
    if a_size < 4 or a_size > len(pkt) - 40 or (a_type in KNOWN_AUTH and a_size != KNOWN_AUTH[a_type]):
        raise VecError("malformed", "auth tlv_size")
    if len(pkt) - 40 - a_size < 8:
        raise VecError("malformed", "no 8-byte PDU after the auth TLV")
    if a_type != AUTH_AES:
        raise VecError("auth", "administrative PDUs are AES-256-GCM only")
    nonce, tag, ct = pkt[44:56], pkt[56:72], pkt[72:]
    try:
        pdu = AESGCM(secret).decrypt(nonce, ct + tag, pkt[:56])
    except InvalidTag:
        raise VecError("auth", "AES-GCM tag") from None
    check_pdu_size(pdu)
    return {"key_id": key_id, "unique_id": uid, "time_stamp_ms": ts}, pdu


def check_pdu_size(pdu):
    if len(pdu) < 8:
        raise VecError("malformed", "PDU shorter than 8 bytes")
    if struct.unpack_from("<H", pdu, 2)[0] != len(pdu):
        raise VecError("malformed", "pdu_size is not the PDU length")


def check_kind(pdu, want):
    if struct.unpack_from("<H", pdu)[0] != want:
        raise VecError("correlation", "another PDU kind")


def header_fields(hdr):
    if hdr is None:
        return {}
    return {"key_id": str(hdr["key_id"]), "unique_id_hex": hx(hdr["unique_id"]),
            "time_stamp_ms": str(hdr["time_stamp_ms"])}


def correlate(inp, hdr):
    """Response side: unique_id equals the request's. Returns the server_id fields."""
    if hdr is None:
        return {}
    if hdr["unique_id"] != bytes.fromhex(inp["request_unique_id_hex"]):
        raise VecError("correlation", "unique_id is not the request's")
    return {"server_id": str(hdr["key_id"])}


# ---------------------------------------------------------------------------
# Tenant Mutation / Tenant Ack (wire_protocol.md "Tenant Mutation PDU", "Tenant Acknowledgment PDU").
# Layout: type, size, operation u8, flags u8, dedup_ttl_ms u32, then for ADD name_len u8, name,
# tenant_key_len u8, tenant_key (docs/spec-notes.md "Tenant Mutation layout").

def tm_pdu(op, dedup, name=b"", key=b"", flags=0, size=None, extra=b"", payload=None):
    body = struct.pack("<BBI", op, flags, dedup)
    if payload is not None:
        body += payload
    elif op == OP_ADD:
        body += bytes([len(name)]) + name + bytes([len(key)]) + key
    body += extra
    return struct.pack("<HH", PDU_TM, size if size is not None else 4 + len(body)) + body


def parse_tenant_mutation(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_TM)
    if len(pdu) < 10:
        raise VecError("malformed", "below the 10-byte fixed part")
    op, flags, dedup = struct.unpack_from("<BBI", pdu, 4)
    if op not in (OP_ADD, OP_REMOVE):
        raise VecError("malformed", "unknown operation")
    if flags != 0:
        raise VecError("malformed", "flags MUST be zero")
    out = header_fields(hdr)
    out.update({"operation": op, "dedup_ttl_ms": dedup})
    if op == OP_REMOVE:
        if len(pdu) != 10:
            raise VecError("malformed", "REMOVE carries no payload")
        return out
    rest = pdu[10:]
    if not rest:
        raise VecError("malformed", "no name_len")
    n = rest[0]
    if 1 + n + 1 > len(rest):
        raise VecError("malformed", "name_len overruns")
    name = rest[1:1 + n]
    k = rest[1 + n]
    if 2 + n + k > len(rest):
        raise VecError("malformed", "tenant_key_len overruns")
    key = rest[2 + n:2 + n + k]
    if 2 + n + k != len(rest):
        raise VecError("malformed", "bytes after tenant_key")
    if hdr is not None:  # the credential rules need the Tenant Header key_id
        try:
            text = key.decode("ascii")
        except UnicodeDecodeError:
            raise VecError("bech32", "non-ASCII tenant_key") from None
        decoded = gv.decode_api_key(text)  # unknown HRPs (rl-secret too) are class hrp
        if decoded["key_id"] != hdr["key_id"]:
            raise VecError("correlation", "tenant_key key_id differs from the Tenant Header key_id")
    out.update({"name_hex": hx(name), "tenant_key": key.decode("utf-8", "replace")})
    return out


def ta_pdu(op=OP_ADD, status=0, r1=0, r2=0, pad=0, size=12, extra=b""):
    return struct.pack("<HHBBHHH", PDU_TA, size, op, status, r1, r2, pad) + extra


def parse_tenant_ack(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_TA)
    if len(pdu) != 12:
        raise VecError("malformed", "tenant_ack is 12 bytes")
    op, status, r1, r2, pad = struct.unpack_from("<BBHHH", pdu, 4)
    if op not in (OP_ADD, OP_REMOVE):
        raise VecError("malformed", "unknown operation")
    if status != 0:
        raise VecError("malformed", "status is always SUCCESS")
    if r1 or r2 or pad:
        raise VecError("malformed", "reserved or padding not zero")
    out = correlate(inp, hdr)
    if hdr is not None and op != inp["request_operation"]:
        raise VecError("correlation", "acknowledges another operation")
    out["operation"] = op
    return out


# ---------------------------------------------------------------------------
# Status Query / Status Response V1 (wire_protocol.md "Status Query PDU", "Status Response PDU").

def sq_pdu(schema=1, kind=0, reserved=0, size=8, extra=b""):
    return struct.pack("<HHBBH", PDU_SQ, size, schema, kind, reserved) + extra


def parse_status_query(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_SQ)
    if len(pdu) != 8:
        raise VecError("malformed", "status_query is 8 bytes")
    schema, kind, reserved = struct.unpack_from("<BBH", pdu, 4)
    if schema != 1:
        raise VecError("malformed", "schema_version MUST be 1")
    if kind != 0:
        raise VecError("malformed", "only CURRENT_STATUS")
    if reserved:
        raise VecError("malformed", "reserved MUST be zero")
    out = header_fields(hdr)
    out.update({"schema_version": schema, "query_kind": kind})
    return out


# The Status Response table in order: (name, struct code). reserved0 and reserved1 are included.
SR_FIELDS = [
    ("pdu_type", "H"), ("pdu_size", "H"), ("schema_version", "B"), ("status_code", "B"), ("status_flags", "H"),
    ("wire_protocol_version", "H"), ("record_len", "H"), ("server_id", "Q"), ("node_id", "I"),
    ("listener_id", "H"), ("queue_index", "H"), ("udp_port", "H"), ("degraded_reason_code", "H"),
    ("started_at_ms", "Q"), ("uptime_ms", "Q"), ("build_fingerprint", "Q"), ("health_flags", "I"),
    ("backend", "H"), ("xdp_mode", "H"), ("ifindex", "I"), ("rx_queue_id", "I"), ("worker_cpu", "I"),
    ("reserved0", "I"),
] + [(n, "Q") for n in (
    "rx_packets", "tx_packets", "rx_dropped", "tx_dropped", "parse_errors", "auth_failures", "admin_requests_total",
    "system_memory_total_bytes", "system_memory_available_bytes", "cgroup_memory_limit_bytes", "process_rss_bytes",
    "rl_memory_budget_bytes", "rl_memory_allocated_bytes", "rl_memory_headroom_bytes", "dedup_cache_bytes",
    "api_key_rate_map_bytes", "api_key_latency_map_bytes", "api_key_latency_buffer_bytes",
    "api_key_metrics_label_bytes", "other_runtime_bytes", "allocation_failures_total", "api_keys_loaded",
    "api_key_capacity", "api_key_table_generation", "api_key_table_hash", "rate_bucket_quota_sum",
    "latency_service_quota_sum", "metrics_label_quota_sum", "latency_buffer_quota_sum", "rate_requests_total",
    "rate_success_total", "rate_limited_total", "guard_failed_total", "latency_reports_total", "dedup_hits_total",
    "dedup_misses_total", "tenant_mutations_total", "tenant_mutation_failures_total")
] + [("dedup_ttl_ms_max", "I"), ("reserved1", "60s")]
SR_FMT = "<" + "".join(c for _, c in SR_FIELDS)
assert struct.calcsize(SR_FMT) == 448
# status_flags validity bits, in bit order; and each field's own "unknown" marker.
VALIDITY = ["system_memory_total_bytes", "system_memory_available_bytes", "cgroup_memory_limit_bytes",
            "process_rss_bytes", "rl_memory_budget_bytes", "rl_memory_allocated_bytes", "rl_memory_headroom_bytes",
            "dedup_ttl_ms_max"]
MARKERS = {f: U64_MAX for f in VALIDITY[:7]}
MARKERS.update({"dedup_ttl_ms_max": 0, "ifindex": U32_MAX, "rx_queue_id": U32_MAX, "worker_cpu": U32_MAX,
                "api_key_capacity": U64_MAX, "build_fingerprint": 0})
KNOWN_ORDER = VALIDITY + ["ifindex", "rx_queue_id", "worker_cpu", "api_key_capacity", "build_fingerprint"]
HEALTH_V1 = 0x1F


def sr_values(server_id=SERVER_A, **over):
    v = {n: 0 for n, _ in SR_FIELDS}
    v.update({"pdu_type": PDU_SR, "pdu_size": 448, "schema_version": 1, "status_flags": 0xFF,
              "wire_protocol_version": 1, "record_len": 440, "server_id": server_id, "node_id": 17,
              "listener_id": 3, "queue_index": 0, "udp_port": 4500, "started_at_ms": 1767225600000,
              "uptime_ms": 3600000, "build_fingerprint": 0x0BADC0FFEE, "health_flags": HEALTH_V1, "backend": 2,
              "ifindex": U32_MAX, "rx_queue_id": U32_MAX, "worker_cpu": 1, "reserved1": bytes(60)})
    for i, (n, c) in enumerate(SR_FIELDS[23:61]):
        v[n] = 1000 + i  # each counter distinct
    v["system_memory_total_bytes"] = 16 << 30
    v["system_memory_available_bytes"] = 8 << 30
    v["cgroup_memory_limit_bytes"] = 4 << 30
    v["rl_memory_budget_bytes"] = 1 << 30
    v["rl_memory_allocated_bytes"] = 1 << 20
    v["rl_memory_headroom_bytes"] = (1 << 30) - (1 << 20)
    v["dedup_ttl_ms_max"] = 2000
    v.update(over)
    return v


def sr_pdu(v):
    return struct.pack(SR_FMT, *(v[n] for n, _ in SR_FIELDS))


def parse_status_response(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_SR)
    if len(pdu) != 448:
        raise VecError("malformed", "status_response is 448 bytes")
    vals = dict(zip([n for n, _ in SR_FIELDS], struct.unpack(SR_FMT, pdu)))
    if vals["schema_version"] != 1:
        raise VecError("malformed", "schema_version MUST be 1")
    if vals["record_len"] != 440:
        raise VecError("malformed", "record_len MUST be 440")
    if vals["reserved0"] != 0 or any(vals["reserved1"]):
        raise VecError("malformed", "reserved0 / reserved1 MUST be zero")
    out = correlate(inp, hdr)
    if hdr is not None and vals["server_id"] != hdr["key_id"]:
        raise VecError("correlation", "the server_id field differs from the Tenant Header server_id")
    status = {}
    for n, c in SR_FIELDS:
        if n in ("pdu_type", "pdu_size", "reserved0", "reserved1"):
            continue
        status[n] = str(vals[n]) if c == "Q" else vals[n]
    known = {}
    for n in KNOWN_ORDER:
        governed = n in VALIDITY
        bit_ok = not governed or (vals["status_flags"] >> VALIDITY.index(n)) & 1
        known[n] = str(vals[n]) if bit_ok and vals[n] != MARKERS[n] else None
    out.update({"status": status, "known": known,
                "healthy": vals["status_code"] == 0 and vals["health_flags"] & HEALTH_V1 == HEALTH_V1})
    return out


# ---------------------------------------------------------------------------
# Metrics Query / Metrics Response (wire_protocol.md "Metrics Query PDU", "Metrics Response PDU").

def mq_pdu(family, kind, cursor=None, reserved=0, c_reserved=0, c_len=None, pad=None, size=None, extra=b""):
    body = struct.pack("<BBH", family, kind, reserved)
    if cursor is not None:
        p = bytes(pad4(len(cursor))) if pad is None else pad
        body += struct.pack("<HH", len(cursor) if c_len is None else c_len, c_reserved) + cursor + p
    body += extra
    return struct.pack("<HH", PDU_MQ, size if size is not None else 4 + len(body)) + body


def parse_metrics_query(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_MQ)
    family, kind, reserved = struct.unpack_from("<BBH", pdu, 4)
    if family not in (SUMMARY, LABELS, SERVICES):
        raise VecError("malformed", "unknown metric_family")
    if kind not in ((0,) if family == SUMMARY else (0, 1)):
        raise VecError("malformed", "unknown query_kind for the family")
    if reserved:
        raise VecError("malformed", "reserved MUST be zero")
    out = header_fields(hdr)
    out.update({"metric_family": family, "query_kind": kind})
    if kind == 0:
        if len(pdu) != 8:
            raise VecError("malformed", "a query without cursor is 8 bytes")
        return out
    if len(pdu) < 12:
        raise VecError("malformed", "no cursor_len")
    c_len, c_res = struct.unpack_from("<HH", pdu, 8)
    if c_res:
        raise VecError("malformed", "cursor reserved MUST be zero")
    if c_len == 0:
        raise VecError("malformed", "empty cursor")
    if c_len > len(pdu) - 12:
        raise VecError("malformed", "cursor_len overruns")
    if len(pdu) != 12 + c_len + pad4(c_len):
        raise VecError("malformed", "cursor not padded to 4 bytes exactly")
    if any(pdu[12 + c_len:]):
        raise VecError("malformed", "cursor_padding not zero")
    out["cursor_hex"] = hx(pdu[12:12 + c_len])
    return out


PAGE_NAMES = {
    SUMMARY: ["SUMMARY_PAGE", "METRICS_NOT_FOUND", "METRICS_INVALID_QUERY", "METRICS_UNSUPPORTED",
              "METRICS_INTERNAL_ERROR"],
    LABELS: ["LABELS_PAGE_MORE", "LABELS_PAGE_LAST", "LABELS_EMPTY", "METRICS_NOT_FOUND", "METRICS_INVALID_QUERY",
             "METRICS_UNSUPPORTED", "METRICS_INTERNAL_ERROR", "METRICS_RECORD_TOO_LARGE", "METRICS_CURSOR_INVALID"],
}
PAGE_NAMES[SERVICES] = [n.replace("LABELS", "SERVICES") for n in PAGE_NAMES[LABELS]]


def summary_rec(s, rl, gf, af, rep):
    return struct.pack("<5Q", s, rl, gf, af, rep)


def label_rec(s, rl, gf, af, label, pad_field=0, label_pad=None):
    lp = bytes(pad4(len(label))) if label_pad is None else label_pad
    return struct.pack("<4QHH", s, rl, gf, af, len(label), pad_field) + label + lp


def service_rec(name, ttl=10000, max_samples=100, buffer_size=32, mst=5, rc=0, ct=0, cp=0, cf=0):
    tid = gv.tracker_id(name.encode(), ttl, max_samples, buffer_size, mst)
    return tid + struct.pack("<4I4Q", ttl, max_samples, buffer_size, mst, rc, ct, cp, cf)


def mr_pdu(family, kind, records=b"", cursor=None, reserved=0, c_reserved=0, c_len=None, pad=None, size=None):
    body = struct.pack("<BBH", family, kind, reserved)
    if cursor is not None:
        p = bytes(pad4(len(cursor))) if pad is None else pad
        body += struct.pack("<HH", len(cursor) if c_len is None else c_len, c_reserved) + cursor + p
    body += records
    return struct.pack("<HH", PDU_MR, size if size is not None else 4 + len(body)) + body


def parse_records(family, data):
    recs = []
    if family == SUMMARY:
        if len(data) != 40:
            raise VecError("malformed", "a summary page holds exactly one 40-byte record")
        names = ("requests_success", "requests_rate_limited", "requests_guard_failed", "requests_auth_failed",
                 "service_latency_reports_total")
        return [{n: str(x) for n, x in zip(names, struct.unpack("<5Q", data))}]
    if family == SERVICES:
        if len(data) % 64:
            raise VecError("malformed", "service records are 64 bytes")
        for off in range(0, len(data), 64):
            tid = data[off:off + 16]
            ttl, ms, bs, mst, rc, ct, cp, cf = struct.unpack_from("<4I4Q", data, off + 16)
            recs.append({"tracker_id_hex": hx(tid), "ttl_ms": ttl, "max_samples": ms, "buffer_size": bs,
                         "min_sample_threshold": mst, "report_count": str(rc), "checks_total": str(ct),
                         "checks_passed": str(cp), "checks_failed": str(cf)})
        return recs
    off = 0
    while off < len(data):
        if len(data) - off < 36:
            raise VecError("malformed", "label record shorter than 36 bytes")
        s, rl, gf, af, n, padf = struct.unpack_from("<4QHH", data, off)
        if padf:
            raise VecError("malformed", "label record padding not zero")
        if 36 + n + pad4(n) > len(data) - off:
            raise VecError("malformed", "label_len overruns")
        label = data[off + 36:off + 36 + n]
        if any(data[off + 36 + n:off + 36 + n + pad4(n)]):
            raise VecError("malformed", "label_padding not zero")
        recs.append({"requests_success": str(s), "requests_rate_limited": str(rl), "requests_guard_failed": str(gf),
                     "requests_auth_failed": str(af), "label_hex": hx(label)})
        off += 36 + n + pad4(n)
    return recs


def parse_metrics_response(inp):
    hdr, pdu = open_admin(inp)
    check_kind(pdu, PDU_MR)
    family, kind, reserved = struct.unpack_from("<BBH", pdu, 4)
    if family not in PAGE_NAMES:
        raise VecError("malformed", "unknown metric_family")
    if kind >= len(PAGE_NAMES[family]):
        raise VecError("malformed", "unknown page_kind for the family")
    if reserved:
        raise VecError("malformed", "reserved MUST be zero")
    with_records = kind == 0 if family == SUMMARY else kind in (0, 1)
    out = {"metric_family": family, "page_kind": kind, "page_kind_name": PAGE_NAMES[family][kind]}
    if not with_records:
        if len(pdu) != 8:
            raise VecError("malformed", "an empty or error page has no page data")
        records = []
    else:
        off = 8
        if family != SUMMARY and kind == 0:
            if len(pdu) - off < 4:
                raise VecError("malformed", "no cursor prefix")
            c_len, c_res = struct.unpack_from("<HH", pdu, off)
            if c_res:
                raise VecError("malformed", "cursor prefix reserved not zero")
            if c_len == 0:
                raise VecError("malformed", "empty next_cursor")
            if c_len + pad4(c_len) > len(pdu) - off - 4:
                raise VecError("malformed", "next_cursor_len overruns")
            if any(pdu[off + 4 + c_len:off + 4 + c_len + pad4(c_len)]):
                raise VecError("malformed", "cursor_padding not zero")
            out["next_cursor_hex"] = hx(pdu[off + 4:off + 4 + c_len])
            off += 4 + c_len + pad4(c_len)
        if off == len(pdu):
            raise VecError("malformed", "a page without records")
        records = parse_records(family, pdu[off:])
    corr = correlate(inp, hdr)
    if hdr is not None and family != inp["request_family"]:
        raise VecError("correlation", "the page echoes another family")
    corr.update(out)
    corr["records"] = records
    return corr


# ---------------------------------------------------------------------------
# Files.

FRAME_NOTES = {
    "SpecExample": "the plaintext PDU of wire_protocol.md \"Metrics PDU Examples\", byte for byte",
    "Plain": "input pdu_hex: the plaintext PDU alone (no frame, no header fields, no correlation)",
    "Framing": "a Tenant TLV or auth TLV rule of the administrative frame",
    "Auth": "AES-256-GCM under the administrative key: tag, key, or another auth mode",
    "Reserved": "a reserved or padding field that MUST be zero",
    "Length": "a size or length field that does not match the bytes",
    "Kind": "an unknown operation, family, query or page kind, or another PDU kind",
    "Correlation": "a response that does not answer the request (unique_id, echoes, server_id)",
    "Credential": "the tenant_key credential rules of wire_protocol.md \"Deterministic validation rules\"",
    "Validity": "status_flags validity bits and unknown markers (wire_protocol.md \"status_flags validity bits\")",
    "Boundary": "the largest or smallest value a field accepts",
    "Pagination": "a page kind the pagination rules act on (cursor, empty, record too large, cursor invalid)",
}
SOURCE = ("wire_protocol.md \"Administrative PDUs\" (Tenant Mutation, Tenant Ack, Status Query, Status "
          "Response V1, Metrics Query, Metrics Response, \"Metrics PDU Examples\"), \"Tenant Header\", "
          "\"AES-256-GCM Normative Framing\"; independent computation by vectors/tools/gen_admin_vectors.py "
          "(struct, cryptography)")


class AdminFile(gv.VectorFile):
    def __init__(self, kind, compute, notes):
        super().__init__(kind + ".json", kind, SOURCE, {k: FRAME_NOTES[k] for k in notes})
        self.compute = compute

    def case(self, comment, flags, want, inp):
        self.add_computed(comment, flags, inp, want, self.compute)


def req_in(pdu, key_id=TENANT_ID, **kw):
    return {"admin_key": ADMIN_KEY, "packet_hex": hx(admin_packet(pdu, key_id, **kw))}


def resp_in(pdu, server_id=SERVER_A, request_uid=UID, **kw):
    return {"admin_key": ADMIN_KEY, "request_unique_id_hex": hx(request_uid),
            "packet_hex": hx(admin_packet(pdu, server_id, **kw))}


def framing_cases(f, good_pdu, make_in, want_kind_fault):
    """The frame rules, on a PDU that is otherwise valid for the kind."""
    f.case("tenant_mgmt_flag 0 (a regular-channel datagram)", ["Framing"], "malformed", make_in(good_pdu, mgmt=0))
    f.case("tenant_mgmt_flag 2 (reserved value)", ["Framing"], "malformed", make_in(good_pdu, mgmt=2))
    f.case("tenant padding not zero", ["Framing", "Reserved"], "malformed", make_in(good_pdu, padding=1))
    f.case("tenant tlv_type not 0x4C52", ["Framing"], "malformed", make_in(good_pdu, t_type=0x4C53))
    f.case("tenant tlv_size 36", ["Framing"], "malformed", make_in(good_pdu, t_size=36))
    f.case("steering_feedback 2", ["Framing"], "malformed", make_in(good_pdu, steering=2))
    f.case("Auth None TLV: administrative PDUs are AES-256-GCM only", ["Auth"], "auth",
           make_in(good_pdu, auth_type=AUTH_NONE, auth_size=4))
    f.case("Auth Cookie TLV", ["Auth"], "auth", make_in(good_pdu, auth_type=AUTH_COOKIE, auth_size=36))
    f.case("AES auth tlv_size 36", ["Framing"], "malformed", make_in(good_pdu, auth_size=36))
    f.case("sealed under another administrative key", ["Auth"], "auth", make_in(good_pdu, secret=OTHER_SECRET))
    inp = make_in(good_pdu)
    pkt = bytearray.fromhex(inp["packet_hex"])
    pkt[-1] ^= 0x01
    f.case("one ciphertext bit flipped: the tag fails", ["Auth"], "auth", dict(inp, packet_hex=pkt.hex()))
    pkt = bytearray.fromhex(inp["packet_hex"])
    pkt[12] ^= 0x01
    f.case("unique_id changed after sealing (AAD): the tag fails", ["Auth"], "auth", dict(inp, packet_hex=pkt.hex()))
    f.case("datagram truncated to 79 bytes (no whole PDU header)", ["Framing", "Length"], "malformed",
           dict(inp, packet_hex=inp["packet_hex"][:158]))
    f.case("a PDU of another kind", ["Kind"], "correlation", make_in(want_kind_fault))


def gen_tenant_mutation():
    f = AdminFile("admin_tenant_mutation", parse_tenant_mutation,
                  ["Plain", "Framing", "Auth", "Reserved", "Length", "Kind", "Credential", "Boundary"])
    none_key = gv.make_api_key("none", TENANT_ID, gv.TEST_WORD)
    cookie_key = gv.make_api_key("cookie", TENANT_ID, gv.TEST_WORD, gv.COOKIE_SECRET)
    aes_key = gv.make_api_key("aes", TENANT_ID, gv.TEST_WORD, gv.AES_SECRET)
    add = tm_pdu(OP_ADD, 300, b"acme", none_key.encode())
    f.case("ADD acme with an rl-none credential", [], "valid", req_in(add))
    f.case("ADD with an rl-cookie credential", [], "valid", req_in(tm_pdu(OP_ADD, 300, b"acme", cookie_key.encode())))
    f.case("ADD with an rl-aes credential", [], "valid", req_in(tm_pdu(OP_ADD, 2000, "café".encode(), aes_key.encode())))
    f.case("ADD with an empty name", ["Boundary"], "valid", req_in(tm_pdu(OP_ADD, 10, b"", none_key.encode())))
    f.case("ADD with a 255-byte name", ["Boundary"], "valid",
           req_in(tm_pdu(OP_ADD, 300, b"n" * 255, none_key.encode())))
    f.case("REMOVE: no payload", [], "valid", req_in(tm_pdu(OP_REMOVE, 300)))
    f.case("REMOVE with steering_feedback 0", [], "valid", req_in(tm_pdu(OP_REMOVE, 300), steering=0))
    f.case("dedup_ttl_ms 0 decodes (the server's policy accepts, rejects or clamps)", ["Boundary"], "valid",
           req_in(tm_pdu(OP_REMOVE, 0)))
    f.case("dedup_ttl_ms u32 max", ["Boundary"], "valid", req_in(tm_pdu(OP_REMOVE, U32_MAX)))
    f.case("plaintext ADD PDU alone", ["Plain"], "valid", {"pdu_hex": hx(add)})
    framing_cases(f, add, req_in, sq_pdu())
    f.case("flags 0x01", ["Reserved"], "malformed", req_in(tm_pdu(OP_ADD, 300, b"a", none_key.encode(), flags=1)))
    f.case("operation 0x04 (not defined)", ["Kind"], "malformed", req_in(tm_pdu(0x04, 300)))
    f.case("operation 0x00", ["Kind"], "malformed", req_in(tm_pdu(0x00, 300)))
    f.case("REMOVE with one payload byte", ["Length"], "malformed", req_in(tm_pdu(OP_REMOVE, 300, extra=b"\0")))
    f.case("pdu_size below the 10-byte fixed part", ["Length"], "malformed",
           req_in(struct.pack("<HHBBHB", PDU_TM, 9, OP_REMOVE, 0, 300, 0)))
    f.case("ADD without name_len", ["Length"], "malformed", req_in(tm_pdu(OP_ADD, 300, payload=b"")))
    f.case("name_len runs past the PDU", ["Length"], "malformed", req_in(tm_pdu(OP_ADD, 300, payload=b"\x09acme\x00")))
    f.case("tenant_key_len runs past the PDU", ["Length"], "malformed",
           req_in(tm_pdu(OP_ADD, 300, payload=b"\x01a\x05abc")))
    f.case("a byte after tenant_key", ["Length"], "malformed",
           req_in(tm_pdu(OP_ADD, 300, b"a", none_key.encode(), extra=b"\0")))
    f.case("pdu_size one more than the PDU", ["Length"], "malformed",
           req_in(tm_pdu(OP_REMOVE, 300, size=11)))
    f.case("tenant_key is an rl-secret (not an API key)", ["Credential"], "hrp",
           req_in(tm_pdu(OP_ADD, 300, b"a", ADMIN_KEY.encode())))
    f.case("tenant_key with an unknown HRP", ["Credential"], "hrp",
           req_in(tm_pdu(OP_ADD, 300, b"a", gv.bech32_encode("rl-what", gv.api_payload(TENANT_ID, gv.TEST_WORD)).encode())))
    bad = bytearray(none_key.encode())
    bad[-1] = ord("q") if bad[-1] != ord("q") else ord("p")
    f.case("tenant_key with a bad checksum", ["Credential"], "bech32", req_in(tm_pdu(OP_ADD, 300, b"a", bytes(bad))))
    f.case("empty tenant_key", ["Credential"], "bech32", req_in(tm_pdu(OP_ADD, 300, b"a", b"")))
    f.case("tenant_key format_version 2", ["Credential"], "version",
           req_in(tm_pdu(OP_ADD, 300, b"a", gv.make_api_key("none", TENANT_ID, gv.TEST_WORD, version=2).encode())))
    f.case("tenant_key key_id differs from the Tenant Header key_id", ["Credential"], "correlation",
           req_in(add, key_id=TENANT_ID + 1))
    return f


def gen_tenant_ack():
    f = AdminFile("admin_tenant_ack", parse_tenant_ack,
                  ["Plain", "Framing", "Auth", "Reserved", "Length", "Kind", "Correlation"])

    def ta_in(pdu, request_operation=OP_ADD, **kw):
        d = resp_in(pdu, **kw)
        d["request_operation"] = request_operation
        return d

    f.case("ack of an ADD", [], "valid", ta_in(ta_pdu()))
    f.case("ack of a REMOVE", [], "valid", ta_in(ta_pdu(OP_REMOVE), OP_REMOVE))
    f.case("ack with steering_feedback 0, another server", [], "valid", ta_in(ta_pdu(), server_id=SERVER_B, steering=0))
    f.case("plaintext ack alone", ["Plain"], "valid", {"pdu_hex": hx(ta_pdu())})
    framing_cases(f, ta_pdu(), ta_in, mr_pdu(SERVICES, 2))
    f.case("first reserved field not zero", ["Reserved"], "malformed", ta_in(ta_pdu(r1=1)))
    f.case("second reserved field not zero", ["Reserved"], "malformed", ta_in(ta_pdu(r2=0x100)))
    f.case("padding not zero", ["Reserved"], "malformed", ta_in(ta_pdu(pad=1)))
    f.case("status 0x01 (only SUCCESS is ever sent)", ["Reserved"], "malformed", ta_in(ta_pdu(status=1)))
    f.case("pdu_size 16", ["Length"], "malformed", ta_in(ta_pdu(size=16, extra=bytes(4))))
    f.case("pdu_size 12 over 13 bytes", ["Length"], "malformed", ta_in(ta_pdu(extra=b"\0")))
    f.case("operation 0x04", ["Kind"], "malformed", ta_in(ta_pdu(0x04)))
    f.case("acknowledges REMOVE, the request was ADD", ["Correlation"], "correlation", ta_in(ta_pdu(OP_REMOVE)))
    f.case("unique_id of another request", ["Correlation"], "correlation", ta_in(ta_pdu(), request_uid=OTHER_UID))
    return f


def gen_status_query():
    f = AdminFile("admin_status_query", parse_status_query, ["Plain", "Framing", "Auth", "Reserved", "Length", "Kind"])
    f.case("CURRENT_STATUS, key_id 0", [], "valid", req_in(sq_pdu(), key_id=0))
    f.case("key_id 42: SHOULD be zero, never read as an API key", [], "valid", req_in(sq_pdu(), key_id=42))
    f.case("plaintext query alone", ["Plain"], "valid", {"pdu_hex": hx(sq_pdu())})
    framing_cases(f, sq_pdu(), lambda p, **kw: req_in(p, key_id=0, **kw), ta_pdu())
    f.case("schema_version 2", ["Kind"], "malformed", req_in(sq_pdu(schema=2), key_id=0))
    f.case("schema_version 0", ["Kind"], "malformed", req_in(sq_pdu(schema=0), key_id=0))
    f.case("query_kind 0x01", ["Kind"], "malformed", req_in(sq_pdu(kind=1), key_id=0))
    f.case("reserved not zero", ["Reserved"], "malformed", req_in(sq_pdu(reserved=0x8000), key_id=0))
    f.case("pdu_size 12", ["Length"], "malformed", req_in(sq_pdu(size=12, extra=bytes(4)), key_id=0))
    return f


def gen_status_response():
    f = AdminFile("admin_status_response", parse_status_response,
                  ["Plain", "Framing", "Auth", "Reserved", "Length", "Kind", "Correlation", "Validity", "Boundary"])
    good = sr_pdu(sr_values())
    f.case("every field known (status_flags 0xFF), healthy", ["Validity"], "valid", resp_in(good))
    f.case("status_flags 0: every governed field unknown whatever it carries", ["Validity"], "valid",
           resp_in(sr_pdu(sr_values(status_flags=0))))
    f.case("only DEDUP_TTL_MS_MAX_VALID", ["Validity"], "valid", resp_in(sr_pdu(sr_values(status_flags=0x80))))
    f.case("only RL_MEMORY_HEADROOM_VALID; dedup_ttl_ms_max 0 (older V1 server)", ["Validity"], "valid",
           resp_in(sr_pdu(sr_values(status_flags=0x40, dedup_ttl_ms_max=0))))
    f.case("bit set but u64::MAX: unknown", ["Validity", "Boundary"], "valid",
           resp_in(sr_pdu(sr_values(system_memory_total_bytes=U64_MAX, cgroup_memory_limit_bytes=U64_MAX))))
    f.case("ifindex, rx_queue_id, worker_cpu known; api_key_capacity u64::MAX", ["Validity"], "valid",
           resp_in(sr_pdu(sr_values(ifindex=2, rx_queue_id=0, worker_cpu=U32_MAX, api_key_capacity=U64_MAX))))
    f.case("undefined status_flags and health_flags bits are kept", ["Validity"], "valid",
           resp_in(sr_pdu(sr_values(status_flags=0xFF00 | 0x01, health_flags=0xFFFFFFE0 | 0x1F))))
    f.case("status_code 3: decoded, not healthy", [], "valid", resp_in(sr_pdu(sr_values(status_code=3))))
    f.case("ACCEPTING_TENANT_MUTATIONS clear: not healthy", [], "valid",
           resp_in(sr_pdu(sr_values(health_flags=0x0F))))
    f.case("every counter at u64 max", ["Boundary"], "valid",
           resp_in(sr_pdu(sr_values(**{n: U64_MAX for n, c in SR_FIELDS[23:61]}))))
    f.case("plaintext response alone", ["Plain"], "valid", {"pdu_hex": hx(good)})
    framing_cases(f, good, resp_in, ta_pdu())
    f.case("schema_version 2", ["Kind"], "malformed", resp_in(sr_pdu(sr_values(schema_version=2))))
    f.case("record_len 439", ["Length"], "malformed", resp_in(sr_pdu(sr_values(record_len=439))))
    f.case("reserved0 not zero", ["Reserved"], "malformed", resp_in(sr_pdu(sr_values(reserved0=1))))
    f.case("reserved1 first byte not zero", ["Reserved"], "malformed",
           resp_in(sr_pdu(sr_values(reserved1=b"\x01" + bytes(59)))))
    f.case("reserved1 last byte not zero", ["Reserved"], "malformed",
           resp_in(sr_pdu(sr_values(reserved1=bytes(59) + b"\x80"))))
    f.case("pdu_size 447 over 447 bytes", ["Length"], "malformed", resp_in(sr_pdu(sr_values(pdu_size=447))[:447]))
    f.case("pdu_size 449 over 449 bytes", ["Length"], "malformed", resp_in(sr_pdu(sr_values(pdu_size=449)) + b"\0"))
    f.case("server_id field differs from the Tenant Header server_id", ["Correlation"], "correlation",
           resp_in(sr_pdu(sr_values(server_id=SERVER_B))))
    f.case("unique_id of another request", ["Correlation"], "correlation", resp_in(good, request_uid=OTHER_UID))
    return f


# The four wire_protocol.md "Metrics PDU Examples", copied byte for byte from the spec text.
EX1_MQ = bytes.fromhex("4d510800" "0100" "0000")
EX1_MR = bytes.fromhex("4d523000 0100 0000"
                       "6400000000000000 0300000000000000 0100000000000000 0000000000000000 0900000000000000")
EX2_MQ = bytes.fromhex("4d510800" "0200" "0000")
EX3_MQ = bytes.fromhex("4d511000" "0201" "0000" "04000000" "deadbeef")
EX4_MQ = bytes.fromhex("4d510800" "0300" "0000")
EX4_MR = bytes.fromhex("4d520800" "0302" "0000")
# Examples 2 and 3 print the MR as a layout; these are its bytes.
EX2_MR = mr_pdu(LABELS, 0, label_rec(8, 1, 0, 0, b"") + label_rec(50, 2, 1, 0, b"api"), cursor=bytes.fromhex("deadbeef"))
EX3_MR = mr_pdu(LABELS, 1, label_rec(7, 4, 0, 0, b"overflow"))
assert len(EX1_MR) == 48 and len(EX2_MR) == 92 and len(EX3_MR) == 52  # the printed pdu_size values


def gen_metrics_query():
    f = AdminFile("admin_metrics_query", parse_metrics_query,
                  ["SpecExample", "Plain", "Framing", "Auth", "Reserved", "Length", "Kind", "Boundary"])
    for n, pdu in ((1, EX1_MQ), (2, EX2_MQ), (3, EX3_MQ), (4, EX4_MQ)):
        f.case(f"Metrics PDU Example {n}: the plaintext MQ", ["SpecExample", "Plain"], "valid", {"pdu_hex": hx(pdu)})
    for n, pdu in ((1, EX1_MQ), (3, EX3_MQ)):
        f.case(f"Example {n}'s MQ sealed for tenant 42", ["SpecExample"], "valid", req_in(pdu))
    f.case("SERVICES_FROM_CURSOR, a 1-byte cursor with 3 padding bytes", [], "valid",
           req_in(mq_pdu(SERVICES, 1, b"\x00")))
    f.case("LABELS_FROM_CURSOR, a 5-byte cursor", [], "valid", req_in(mq_pdu(LABELS, 1, b"\x01\x02\x03\x04\x05")))
    f.case("the largest cursor that fits one datagram (1116 bytes)", ["Boundary"], "valid",
           req_in(mq_pdu(LABELS, 1, gv.fixed_bytes("cursor", 1116))))
    framing_cases(f, EX2_MQ, req_in, sq_pdu())
    f.case("reserved not zero", ["Reserved"], "malformed", req_in(mq_pdu(LABELS, 0, reserved=1)))
    f.case("cursor reserved not zero", ["Reserved"], "malformed", req_in(mq_pdu(LABELS, 1, b"\xde\xad\xbe\xef", c_reserved=1)))
    f.case("cursor_padding not zero", ["Reserved"], "malformed", req_in(mq_pdu(LABELS, 1, b"\x01", pad=b"\x00\x01\x00")))
    f.case("cursor_len 0", ["Length"], "malformed", req_in(mq_pdu(LABELS, 1, b"")))
    f.case("cursor_len runs past the PDU", ["Length"], "malformed", req_in(mq_pdu(LABELS, 1, b"\xde\xad\xbe\xef", c_len=5)))
    f.case("cursor without its padding", ["Length"], "malformed", req_in(mq_pdu(LABELS, 1, b"\x01\x02\x03", pad=b"")))
    f.case("SUMMARY with query_kind 0x01", ["Kind"], "malformed", req_in(mq_pdu(SUMMARY, 1, b"\xde\xad\xbe\xef")))
    f.case("LABELS with query_kind 0x02", ["Kind"], "malformed", req_in(mq_pdu(LABELS, 2)))
    f.case("metric_family 0x00", ["Kind"], "malformed", req_in(mq_pdu(0, 0)))
    f.case("metric_family 0x04", ["Kind"], "malformed", req_in(mq_pdu(4, 0)))
    f.case("FROM_START with 4 bytes of query data", ["Length"], "malformed", req_in(mq_pdu(LABELS, 0, extra=bytes(4))))
    return f


def gen_metrics_response():
    f = AdminFile("admin_metrics_response", parse_metrics_response,
                  ["SpecExample", "Plain", "Framing", "Auth", "Reserved", "Length", "Kind", "Correlation",
                   "Pagination", "Boundary"])

    def mr_in(pdu, request_family=LABELS, **kw):
        d = resp_in(pdu, **kw)
        d["request_family"] = request_family
        return d

    for n, pdu in ((1, EX1_MR), (2, EX2_MR), (3, EX3_MR), (4, EX4_MR)):
        f.case(f"Metrics PDU Example {n}: the plaintext MR", ["SpecExample", "Plain"], "valid", {"pdu_hex": hx(pdu)})
    for n, pdu, fam in ((1, EX1_MR, SUMMARY), (2, EX2_MR, LABELS), (3, EX3_MR, LABELS), (4, EX4_MR, SERVICES)):
        f.case(f"Example {n}'s MR sealed by a server", ["SpecExample"], "valid", mr_in(pdu, fam))
    svc = service_rec("db", rc=11, ct=12, cp=10, cf=2) + service_rec("cache", ttl=60000, buffer_size=16, rc=1)
    f.case("SERVICES_PAGE_LAST with two records", [], "valid", mr_in(mr_pdu(SERVICES, 1, svc), SERVICES))
    f.case("SERVICES_PAGE_MORE with a 5-byte cursor", ["Pagination"], "valid",
           mr_in(mr_pdu(SERVICES, 0, service_rec("db"), cursor=b"\x00\xff\x10\x00\x7f"), SERVICES))
    f.case("LABELS_EMPTY", ["Pagination"], "valid", mr_in(mr_pdu(LABELS, 2)))
    f.case("METRICS_RECORD_TOO_LARGE", ["Pagination"], "valid", mr_in(mr_pdu(LABELS, 7)))
    f.case("METRICS_CURSOR_INVALID", ["Pagination"], "valid", mr_in(mr_pdu(SERVICES, 8), SERVICES))
    f.case("SUMMARY METRICS_NOT_FOUND", [], "valid", mr_in(mr_pdu(SUMMARY, 1), SUMMARY))
    f.case("SUMMARY METRICS_INTERNAL_ERROR", [], "valid", mr_in(mr_pdu(SUMMARY, 4), SUMMARY))
    f.case("a label of 5 bytes (3 padding bytes)", [], "valid", mr_in(mr_pdu(LABELS, 1, label_rec(1, 2, 3, 4, b"label"))))
    f.case("counters at u64 max", ["Boundary"], "valid",
           mr_in(mr_pdu(SUMMARY, 0, summary_rec(U64_MAX, U64_MAX, U64_MAX, U64_MAX, U64_MAX)), SUMMARY))
    framing_cases(f, EX2_MR, mr_in, ta_pdu())
    f.case("header reserved not zero", ["Reserved"], "malformed", mr_in(mr_pdu(LABELS, 2, reserved=1)))
    f.case("cursor prefix reserved not zero", ["Reserved"], "malformed",
           mr_in(mr_pdu(LABELS, 0, label_rec(1, 0, 0, 0, b""), cursor=b"\xde\xad\xbe\xef", c_reserved=1)))
    f.case("cursor_padding not zero", ["Reserved"], "malformed",
           mr_in(mr_pdu(LABELS, 0, label_rec(1, 0, 0, 0, b""), cursor=b"\x01", pad=b"\x00\x00\x01")))
    f.case("label record padding field not zero", ["Reserved"], "malformed",
           mr_in(mr_pdu(LABELS, 1, label_rec(1, 0, 0, 0, b"api", pad_field=1))))
    f.case("label_padding not zero", ["Reserved"], "malformed",
           mr_in(mr_pdu(LABELS, 1, label_rec(1, 0, 0, 0, b"api", label_pad=b"x"))))
    f.case("label_len runs past the PDU", ["Length"], "malformed",
           mr_in(mr_pdu(LABELS, 1, struct.pack("<4QHH", 1, 0, 0, 0, 9, 0) + b"overflow")))
    f.case("a label record cut short", ["Length"], "malformed", mr_in(mr_pdu(LABELS, 1, bytes(20))))
    f.case("summary page with 39 record bytes", ["Length"], "malformed", mr_in(mr_pdu(SUMMARY, 0, bytes(39)), SUMMARY))
    f.case("summary page with two records", ["Length"], "malformed", mr_in(mr_pdu(SUMMARY, 0, bytes(80)), SUMMARY))
    f.case("service data of 63 bytes", ["Length"], "malformed", mr_in(mr_pdu(SERVICES, 1, bytes(63)), SERVICES))
    f.case("SERVICES_EMPTY with 4 bytes of page data", ["Length"], "malformed",
           mr_in(mr_pdu(SERVICES, 2, bytes(4)), SERVICES))
    f.case("LABELS_PAGE_LAST without records", ["Length"], "malformed", mr_in(mr_pdu(LABELS, 1)))
    f.case("LABELS_PAGE_MORE with a cursor and no records", ["Length"], "malformed",
           mr_in(mr_pdu(LABELS, 0, cursor=b"\xde\xad\xbe\xef")))
    f.case("next_cursor_len 0", ["Length"], "malformed", mr_in(mr_pdu(LABELS, 0, label_rec(1, 0, 0, 0, b""), cursor=b"")))
    f.case("next_cursor_len runs past the PDU", ["Length"], "malformed",
           mr_in(mr_pdu(LABELS, 0, cursor=b"\xde\xad\xbe\xef", c_len=12)))
    f.case("LABELS page_kind 0x09", ["Kind"], "malformed", mr_in(mr_pdu(LABELS, 9)))
    f.case("SUMMARY page_kind 0x05", ["Kind"], "malformed", mr_in(mr_pdu(SUMMARY, 5), SUMMARY))
    f.case("metric_family 0x00", ["Kind"], "malformed", mr_in(mr_pdu(0, 2)))
    f.case("the page echoes SERVICES, the query asked for LABELS", ["Correlation"], "correlation", mr_in(EX4_MR))
    f.case("unique_id of an earlier page's query", ["Correlation"], "correlation", mr_in(EX3_MR, request_uid=OTHER_UID))
    return f


GENERATORS = (gen_tenant_mutation, gen_tenant_ack, gen_status_query, gen_status_response, gen_metrics_query,
              gen_metrics_response)


def generate():
    _nonce[0] = 0
    return {vf.name: vf.render() for vf in (g() for g in GENERATORS)}


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
                with open(path, encoding="utf-8") as fh:
                    current = fh.read()
            except OSError as e:
                print(f"MISSING {path}: {e}")
                bad += 1
                continue
            if current != text:
                print(f"DIFFERS {path}")
                bad += 1
        print(f"gen_admin_vectors --check: {len(files) - bad} identical, {bad} differ")
        return 1 if bad else 0
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        print(f"wrote {name}: {len(json.loads(text)['tests'])} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
