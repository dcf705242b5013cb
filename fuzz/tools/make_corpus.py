#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora fuzz/corpus/<harness>/seed-<sha1> from vectors/*.json,
conformance/cases, the rl-testbed test files and a few handmade inputs.

Each harness's seeds are in the byte layout its LLVMFuzzerTestOneInput reads
(see the harness source). Files named seed-* are replaced on every run; any
other file in a corpus directory (inputs a campaign merged in) is kept.
Deterministic: the same tree gives the same files.

Usage: /usr/bin/python3 fuzz/tools/make_corpus.py [--check]
  --check  exit 1 when the committed seeds differ from what the script writes
"""

import argparse
import glob
import hashlib
import json
import os
import struct
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "vectors", "tools"))
import gen_vectors as gv  # noqa: E402  (Bech32 and key decoding, written from the spec)

CORPUS = os.path.join(ROOT, "fuzz", "corpus")
EXTERNAL = os.path.join(ROOT, "..", "shared", "external")
AES_KEY = hashlib.sha256(b"aes key/0").digest()
MODE = {"none": 1, "cookie": 2, "aes": 3}
AUTH_SIZE = {1: 4, 2: 36, 3: 32}


def vectors(kind_file, external=None):
    """Tests of vectors/<kind_file>.json (and ../shared/external/<external>.json)."""
    tests = json.load(open(os.path.join(ROOT, "vectors", kind_file + ".json")))["tests"]
    ext = os.path.join(EXTERNAL, (external or "") + ".json")
    if external and os.path.exists(ext):
        tests += json.load(open(ext))["tests"]
    return tests


def u8(v):
    return struct.pack("<B", v & 0xFF)


def u16(v):
    return struct.pack("<H", v & 0xFFFF)


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def u64(v):
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def mode_of(key):
    return MODE[gv.decode_api_key(key)["auth"]]


# ---- credentials, SRV target --------------------------------------------------------

BIP173_VALID = [  # BIP-173 "Test vectors", valid Bech32 strings
    "A12UEL5L", "a12uel5l",
    "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
    "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
    "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j",
    "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl",
]


def seeds_keys():
    api = [t["input"]["key"] for t in vectors("api_key", "public_api_key")]
    secret = [t["input"]["key"] for t in vectors("secret_key")]
    extra = ["", "rl-none1", "rl-secret1", api[0].upper()]
    return api, secret, extra


def seeds_quota_words():
    words = [int(t["input"]["word"], 16) for t in vectors("quota_word") if t["input"]["word"].startswith("0x")]
    return [u32(w) for w in words]


def seeds_srv():
    out = [t["input"]["target"] for t in vectors("srv_target", "public_srv_target")]
    return out + ["s-0", "S-18446744073709551615.", "s-18446744073709551616", "s-01.x", "s-1..a"]


# ---- responses -------------------------------------------------------------------------

def response_packets():
    return [bytes.fromhex(t["input"]["packet_hex"]) for t in vectors("rate_response")]


def aes_plain_seed(pkt):
    """tenant(40) || nonce(12) || plaintext PDU, the fuzz_response_aes_plain layout."""
    if len(pkt) < 52:
        return None
    tenant, auth_type = pkt[:40], struct.unpack_from("<H", pkt, 40)[0]
    if auth_type == 0x4541 and len(pkt) >= 80:  # "AE": decrypt with the fixed key
        try:
            pdu = AESGCM(AES_KEY).decrypt(pkt[44:56], pkt[72:] + pkt[56:72], pkt[:56])
        except Exception:  # tag deliberately broken in the vector
            return None
        return tenant + pkt[44:56] + pdu
    size = {0x414E: 4, 0x4143: 36}.get(auth_type)
    return tenant + bytes(12) + pkt[40 + size:] if size else None


# ---- round trips -------------------------------------------------------------------------

def header_bytes(key_id, uid, ts, steering, mgmt=0):
    return u8((steering & 1) | ((mgmt & 1) << 1)) + u64(key_id) + uid + u64(ts)


def rt_request_seed(inp):
    key = gv.decode_api_key(inp["key"])
    mode = MODE[key["auth"]]
    label = inp.get("metrics_label_utf8", "").encode()
    out = u8(mode - 1) + u16(0) + header_bytes(key["key_id"], bytes.fromhex(inp["unique_id_hex"]),
                                               int(inp["time_stamp_ms"]), inp["steering_feedback"])
    out += u32(inp["dedup_ttl_ms"]) + u8(len(inp["guards"])) + u8(len(inp["resources"])) + u16(len(label))
    out += bytes.fromhex(inp.get("nonce_hex", "00" * 12)) + u32(0x1234)
    for g in inp["guards"]:
        out += bytes.fromhex(g["tracker_id_hex"]) + u32(g["latency_threshold"]) + u32(g["ttl_ms"])
        out += u32(g["max_samples"]) + u32(g["buffer_size"]) + u32(g["min_sample_threshold"])
    for r in inp["resources"]:
        out += bytes.fromhex(r["bucket_id_hex"]) + u32(r["window_size_ms"]) + u32(r["rate_limit"])
        out += u16(r["tokens_requested"])
    return out + label


def rt_report_seed(inp):
    key = gv.decode_api_key(inp["key"])
    out = u8(MODE[key["auth"]] - 1) + u16(0)
    out += header_bytes(key["key_id"], bytes.fromhex(inp["unique_id_hex"]), int(inp["time_stamp_ms"]), 1)
    out += bytes.fromhex(inp.get("nonce_hex", "00" * 12)) + u32(0x4321) + u8(len(inp["reports"]))
    for r in inp["reports"]:
        out += bytes.fromhex(r["tracker_id_hex"]) + u32(r["ttl_ms"]) + u32(r["max_samples"])
        out += u32(r["buffer_size"]) + u32(r["min_sample_threshold"]) + u32(r["observed_latency"])
    return out


def rt_credential_seeds():
    out = []
    for t in vectors("api_key"):
        if t["result"] != "valid":
            continue
        k = gv.decode_api_key(t["input"]["key"])
        sel = MODE[k["auth"]] - 1
        out.append(u8(sel) + u64(k["key_id"]) + (k["secret"] or bytes(32)) + u32(k["word"]) + b"\x05\x11")
    for t in vectors("secret_key"):
        if t["result"] == "valid":
            out.append(u8(3) + u64(0) + bytes.fromhex(t["expected"]["secret_hex"]) + u32(0) + b"\x07\x03")
    return out


def rt_quota_seeds():
    out = []
    for t in vectors("quota_word"):
        if t["result"] == "valid":
            q = t["expected"]["quotas"]
            fields = ["rate_buckets_max", "latency_services_max", "metrics_labels_max",
                      "latency_buffer_size_max", "dedup_ttl_ms_max", "rate_window_size_ms_max"]
            out.append(u8(0) + b"".join(u32(int(q[f])) for f in fields))
    return out + [u8(1) + bytes(24), u8(1) + b"\xff" * 24]


# ---- stateful client scripts (fuzz_client.c / client_events.c input layout) -------------

def cfg(mode, policy=0, servers=3, reversed_=False, duplicate=False, window_quota=False, drain=True):
    c = (mode - 1) | (4 if window_quota else 0)
    s = (servers - 1) | (4 if reversed_ else 0) | (8 if duplicate else 0)
    return u8(c) + u8(policy) + u8(s) + u8(1 if drain else 0)


def ev_submit(slot=0, n_res=1, n_guards=1, label=b"", borrowed=False, action=0, arg=0):
    lb = len(label) if len(label) < 24 else 200 + len(label) // 20  # lb < 24: length given
    n = len(label) if len(label) < 24 else (lb - 200) * 20
    out = u8(2 if borrowed else 0) + u8(slot) + u8(n_res + 8 * n_guards) + u8(lb) + label[:n]
    out += u8(action) + u8(arg)
    for i in range(n_res):
        out += u8(i) + u16(100) + u8(1)
    for i in range(n_guards):
        out += u8(16 + i) + u16(100)
    return out


def ev_response(slot, member, n_guards=1, n_res=1, keep=1, latency=5, deficit=None):
    flags = (keep << 1) | (0x20 if deficit is not None else 0)
    out = u8(3) + u8(slot) + u8(member) + u8(flags)
    out += b"".join(u8(latency) for _ in range(n_guards))
    out += b"".join(u16(1) + (u8(deficit) if deficit is not None else b"") for _ in range(n_res))
    return out + u8(7)


EV_LOOP = u8(9)


def client_seeds():
    seeds = []
    for mode in (1, 2, 3):
        seeds.append(cfg(mode) + ev_submit() + ev_response(0, 0))                      # oldest answers
        seeds.append(cfg(mode) + ev_submit() + ev_response(0, 1) + EV_LOOP)           # candidate, preference
        seeds.append(cfg(mode) + ev_submit() + EV_LOOP * 5)                           # replay, final, timeout
        seeds.append(cfg(mode) + ev_submit(borrowed=True) + ev_response(0, 0))        # completion delivery
        seeds.append(cfg(mode, drain=False) + ev_submit(n_res=2, n_guards=0, label=b"checkout")
                     + ev_submit(slot=1, n_res=0, n_guards=2) + ev_response(1, 2, n_guards=2, n_res=0, keep=0))
    seeds.append(cfg(1, servers=1) + ev_submit(action=3, arg=1) + ev_response(0, 0) + EV_LOOP * 4)
    seeds.append(cfg(2, servers=4, reversed_=True, duplicate=True) + ev_submit() + ev_response(0, 3) + EV_LOOP)
    seeds.append(cfg(3, policy=4) + ev_submit(action=5) + ev_response(0, 2, deficit=3))
    seeds.append(cfg(1, window_quota=True) + ev_submit(n_res=3, n_guards=0))
    seeds.append(cfg(1) + ev_submit(n_res=0, n_guards=0) + ev_submit(label=b"x" * 1100))
    seeds.append(cfg(1) + ev_submit() + u8(11) + u8(0) + u8(12) + u8(2) + b"\x01\x10\x00" * 3)
    seeds.append(cfg(2) + ev_submit() + u8(13) + u8(0) + EV_LOOP * 3 + u8(13) + u8(0))   # send failures
    seeds.append(cfg(3) + u8(13) + u8(2) + ev_submit() + u8(13) + u8(3) + ev_submit(slot=1))  # rng faults
    seeds.append(cfg(1) + ev_submit() + u8(14) + u8(0) + u8(0) + u8(5) + u8(0x80) + u16(100) + bytes(100))
    # custom policy: U=5, N=2, linear gaps, preference 1, F=2, P_final=1, C=1
    custom = u8(5) + u8(4) + u8(2) + u8(1) + u8(0) + u8(2) + u8(1) + u8(0) + u8(1) + u8(0) + u8(0) + u8(2) + u8(1) + u8(1)
    seeds.append(u8(0) + custom + u8(2) + u8(1) + ev_submit() + EV_LOOP * 2 + ev_response(0, 1) + EV_LOOP * 3)
    return seeds


# ---- DNS membership scripts (fuzz_membership.c input layout) ------------------------------

def dns_header(interval=1000, forced_min=500, jitter=0, sync=0):
    return u16(interval) + u16(forced_min) + u8(jitter) + u8(sync)


def srv_answer(targets, status_ok=True, op=True):
    """targets: make_target selector bytes (c % 4 < 2: s-<IDS[(c >> 3) % 6]>.t.example.net.)."""
    out = (u8(0) if op else b"") + u8(1 if status_ok else 0) + u8(len(targets))
    for c in targets:
        out += u8(c)
        if c % 4 == 2:
            out += u8(6) + b"s-42.x"
        out += u8(1) + u8(30)
    return out


def addr_answer(family=0, pick=0, op=True, last=1):
    out = (u8(1) + u8(pick) if op else b"") + u8(1) + u8(1) + u8(family) + u16(9) + bytes([10, 0, 0, last]) + bytes(12)
    return out


def membership_seeds():
    three = [0, 8, 16]
    seeds = [
        dns_header() + srv_answer(three) + addr_answer(0, 0) + addr_answer(1, 0, last=2) + addr_answer(0, 0, last=3)
        + u8(3) + u16(2000) + u8(5) + u8(4),
        dns_header(sync=0xFF) + srv_answer(three, op=False) + addr_answer(op=False) + addr_answer(op=False, last=2)
        + addr_answer(op=False, last=3) + u8(3) + u16(5000) + u8(5),
        dns_header() + srv_answer([0, 0, 8, 2, 3, 4]) + addr_answer(2, 0) + addr_answer(0, 0) + u8(4),
        dns_header() + u8(6) + u8(1) + u8(4) + srv_answer([24, 32]) + addr_answer(0, 1),
        dns_header(interval=0, forced_min=0, jitter=200) + srv_answer([40]) + addr_answer(0, 0)
        + u8(0x83) + u16(4000) + u8(5) + u8(4),
        dns_header() + srv_answer([0] * 7, status_ok=False) + u8(5) + u8(4),
        dns_header() + u8(0) + u8(1) + u8(7) + b"".join(u8(0) + u8(1) + u8(1) for _ in range(7)),
    ]
    return seeds


# ---- vector files -------------------------------------------------------------------------

def vector_file_seeds():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "vectors", "*.json"))):
        doc = json.load(open(path))
        whole = open(path, "rb").read()
        if len(whole) <= 32768:  # fuzz/options/vector_file.options max_len
            out.append(whole)
        for t in doc["tests"][:24]:  # small one-test files: faster to mutate
            one = dict(doc, tests=[t])
            out.append(json.dumps(one, indent=1).encode())
    for path in sorted(glob.glob(os.path.join(ROOT, "tools", "rl-testbed", "testdata", "*", "*.json"))):
        out.append(open(path, "rb").read())
    return out


# ---- HA decision cases ----------------------------------------------------------------------

def conf_case_seeds():
    """conformance/cases (accepted) and the rl-testbed broken cases (each rejected at one field)."""
    out = []
    for pattern in (("conformance", "cases", "*.json"), ("tools", "rl-testbed", "testdata", "bad_cases", "*.json")):
        for path in sorted(glob.glob(os.path.join(ROOT, *pattern))):
            out.append(open(path, "rb").read())
    return out


# ---- HA policy sweep files --------------------------------------------------------------------

def sweep_seeds():
    """The sweep test files, accepted and broken (sweep/tests/data, docs/sweep.md)."""
    out = []
    data = os.path.join(ROOT, "sweep", "tests", "data")
    for path in sorted(glob.glob(os.path.join(data, "*.json"))) + sorted(glob.glob(os.path.join(data, "bad", "*.json"))):
        out.append(open(path, "rb").read())
    return out


def sweep_report_seeds():
    """The report's fixture (summary.json, NUL, manifest.json; and the summary alone) and its
    broken summaries (sweep/report/tests, docs/sweep.md "Report")."""
    tests = os.path.join(ROOT, "sweep", "report", "tests")
    summary = open(os.path.join(tests, "fixture", "summary.json"), "rb").read()
    manifest = open(os.path.join(tests, "fixture", "manifest.json"), "rb").read()
    out = [summary + b"\0" + manifest, summary]
    for bad in ("bad_number", "bad_schema"):
        out.append(open(os.path.join(tests, bad, "summary.json"), "rb").read())
    return out


# ---- rl-testbed serve: one received datagram -------------------------------------------------

SERVE_NOW_MS = 1767225600000  # fuzz/fuzz_sim_world.h NOW_MS
SERVE_QUOTA_WORD = 0xF8F2B150


def serve_world_key(auth):
    """The key of fuzz_sim_world.h's tenant for auth (key_id 1 none, 2 cookie, 3 aes)."""
    key_id = MODE[auth]
    secret = None if auth == "none" else bytes((key_id * 31 + i) & 0xFF for i in range(32))
    return gv.make_api_key(auth, key_id, SERVE_QUOTA_WORD, secret)


def serve_datagram_seeds():
    """The valid request and report vectors sealed for the harness's tenants at its clock, so
    the model answers or applies them; and every vector packet as it is (rejected by tenant,
    framing or auth)."""
    out = []
    for kind, build in (("rate_request_packet", gv.build_rate_request),
                        ("latency_report_packet", gv.build_latency_report)):
        for t in vectors(kind):
            if t["result"] != "valid":
                continue
            inp = dict(t["input"], key=serve_world_key(gv.decode_api_key(t["input"]["key"])["auth"]),
                       time_stamp_ms=str(SERVE_NOW_MS))
            try:
                pkt = build(inp)
            except gv.VecError:
                continue
            if pkt is not None:  # None: nothing to send (every report filtered)
                out.append(pkt)
    for kind in ("rate_request_packet", "latency_report_packet", "rate_response"):
        for t in vectors(kind):
            hexed = t["input"].get("packet_hex") or (t.get("expected") or {}).get("packet_hex")
            if hexed:
                out.append(bytes.fromhex(hexed))
    return sorted(set(out))


# ---- adapter protocol: one answer line --------------------------------------------------------

def admin_pdu(ptype, body):
    return u16(ptype) + u16(4 + len(body)) + body


def sim_server_admin_seeds():
    """Sealed-mode inputs (first byte 0, then the key_id selector of
    fuzz_sim_server_admin.c: 0 -> 0, 1..3 -> the world's tenants, 4 -> 77) for
    every admin request kind: ADD and REMOVE of each world tenant, the three
    metric families from the start, a label cursor, a status query, an unknown
    tenant's summary, and an ADD whose credential is cut short."""
    out = []
    tm = lambda op, ttl, extra=b"": admin_pdu(0x544D, bytes([op, 0]) + u32(ttl) + extra)
    for sel, auth in ((1, "none"), (2, "cookie"), (3, "aes")):
        key = serve_world_key(auth).encode()
        add = bytes([4]) + b"acme" + bytes([len(key)]) + key
        out.append(bytes([0, sel]) + tm(3, 1000, add))
        out.append(bytes([0, sel]) + tm(5, 1000))
        for fam in (1, 2, 3):
            out.append(bytes([0, sel]) + admin_pdu(0x514D, bytes([fam, 0]) + u16(0)))
        out.append(bytes([0, sel]) + admin_pdu(0x514D, bytes([2, 1]) + u16(0) + u16(8) + u16(0) + u32(0) + u32(0)))
    out.append(bytes([0, 0]) + admin_pdu(0x5153, bytes([1, 0]) + u16(0)))
    out.append(bytes([0, 4]) + admin_pdu(0x514D, bytes([1, 0]) + u16(0)))
    out.append(bytes([0, 1]) + tm(3, 1000, bytes([1]) + b"x" + bytes([7]) + b"rl-none"))
    return sorted(set(out))


def adapter_answer_seeds():
    """Answer lines of conformance/ADAPTER.md: hellos (message 1) and vector answers (message 2),
    and the broken lines the testbed names."""
    hello = {"id": 1, "protocol": "ratelimitly-adapter/1",
             "client": {"name": "my-client", "version": "2.3.0"},
             "capabilities": {"vector_kinds": ["bucket_id", "tracker_id", "api_key", "rate_request_packet"],
                              "error_classes": True,
                              "unsupported_fields": {"rate_request_packet": ["metrics_label_utf8"]},
                              "ha": {"cases": True, "presets": True, "preference": True,
                                     "completion_delivery": True, "clock": True, "random": True,
                                     "explicit_servers": True, "send_failures": True, "profile": True}}}
    lines = [
        hello,
        dict(hello, capabilities={"vector_kinds": [], "error_classes": False}),
        dict(hello, protocol="ratelimitly-adapter/2"),
        dict(hello, client={"name": "x"}),
        dict(hello, capabilities={"vector_kinds": ["bucket_id", 7]}),
        dict(hello, capabilities={"vector_kinds": [], "ha": []}),
        {"id": 2, "status": "accepted", "output": {"id_hex": "00" * 16}},
        {"id": 2, "status": "accepted", "output": "x"},
        {"id": 2, "status": "rejected", "error": "quota", "reason": "over quota"},
        {"id": 2, "status": "rejected", "error": None, "reason": "no classes"},
        {"id": 2, "status": "rejected", "error": "wrong"},
        {"id": 2, "status": "unsupported", "reason": "no such feature"},
        {"id": 2, "status": "bad_input", "reason": "cannot read input"},
        {"id": 2, "status": "maybe"},
        {"id": 2, "protocol_error": "unknown op"},
        {"id": 3, "status": "accepted", "output": {}},
        {"id": "2"},
        [],
    ]
    out = [json.dumps(x).encode() for x in lines]
    out += [b"", b"not json", b'{"id": 2, "id": 2}', b'{"id": 2, "status": "accepted", "output": {}']
    return out


# ---- writing ------------------------------------------------------------------------------

# ---- administrative channel (fuzz_admin_common.h: byte 0 selects the mode) ----------------

ADMIN_SECRET = gv.fixed_bytes("admin key", 32)


def admin_seeds(*kinds):
    """Mode 0 and 1 seeds from every plaintext PDU (pdu_hex, or a packet that opens under the
    admin key), mode 2 seeds from every packet as it is."""
    out = []
    for kind in kinds:
        for t in vectors(kind):
            inp = t["input"]
            if "pdu_hex" in inp:
                pdu = bytes.fromhex(inp["pdu_hex"])
            else:
                pkt = bytes.fromhex(inp["packet_hex"])
                out.append(b"\x02" + pkt)
                try:
                    pdu = AESGCM(ADMIN_SECRET).decrypt(pkt[44:56], pkt[72:] + pkt[56:72], pkt[:56])
                except Exception:  # not sealed under the admin key (an auth vector)
                    continue
            out += [b"\x00" + pdu, b"\x01" + pdu]
    return sorted(set(out))


def all_seeds():
    api, secret, extra = seeds_keys()
    keys = api + secret + extra
    packets = response_packets()
    plain = [s for s in (aes_plain_seed(p) for p in packets) if s is not None]
    return {
        "api_key": [k.encode() for k in keys],
        "secret_key": [k.encode() for k in secret + api[:8] + extra],
        "quota_word": seeds_quota_words(),
        "bech32": [k.encode() for k in keys + BIP173_VALID],
        "srv_target": [t.encode() for t in seeds_srv()],
        "response_none": packets,
        "response_cookie": packets,
        "response_aes": packets,
        "response_aes_plain": plain,
        "rt_credential": rt_credential_seeds(),
        "rt_quota": rt_quota_seeds(),
        "rt_request": [rt_request_seed(t["input"]) for t in vectors("rate_request_packet")
                       if t["result"] == "valid"],
        "rt_report": [rt_report_seed(t["input"]) for t in vectors("latency_report_packet")
                      if t["result"] == "valid"],
        "client": client_seeds(),
        "membership": membership_seeds(),
        "vector_file": vector_file_seeds(),
        "conf_case": conf_case_seeds(),
        "serve_datagram": serve_datagram_seeds(),
        "sim_server_admin": sim_server_admin_seeds(),
        "adapter_answer": adapter_answer_seeds(),
        "admin_tenant_ack": admin_seeds("admin_tenant_ack"),
        "admin_status_response": admin_seeds("admin_status_response"),
        "admin_metrics_response": admin_seeds("admin_metrics_response"),
        "admin_request": admin_seeds("admin_tenant_mutation", "admin_status_query", "admin_metrics_query"),
        "sweep": sweep_seeds(),
        "sweep_report": sweep_report_seeds(),
    }


def planned():
    files = {}
    for harness, seeds in all_seeds().items():
        for data in seeds:
            files[os.path.join(harness, "seed-" + hashlib.sha1(data).hexdigest()[:16])] = data
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    want = planned()
    have = {os.path.relpath(p, CORPUS): open(p, "rb").read()
            for p in glob.glob(os.path.join(CORPUS, "*", "seed-*"))}
    if args.check:
        bad = sorted(rel for rel in want if have.get(rel) != want[rel])
        # Without ../shared/external the seeds made from it cannot be planned: extra seeds are
        # then expected, not stale.
        if os.path.isdir(EXTERNAL):
            bad += sorted(set(have) - set(want))
        if bad:
            print(f"make_corpus: {len(bad)} seeds differ from make_corpus.py output (e.g. {bad[0]}); rerun "
                  "/usr/bin/python3 fuzz/tools/make_corpus.py", file=sys.stderr)
            return 1
        print(f"make_corpus: {len(want)} seeds up to date")
        return 0
    for rel in set(have) - set(want):
        os.remove(os.path.join(CORPUS, rel))
    for rel, data in sorted(want.items()):
        os.makedirs(os.path.dirname(os.path.join(CORPUS, rel)), exist_ok=True)
        with open(os.path.join(CORPUS, rel), "wb") as f:
            f.write(data)
    counts = {}
    for rel in want:
        counts[rel.split(os.sep)[0]] = counts.get(rel.split(os.sep)[0], 0) + 1
    for h in sorted(counts):
        print(f"  {h:20s} {counts[h]:4d} seeds")
    print(f"make_corpus: wrote {len(want)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
