#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Template adapter for the Ratelimitly testbed (conformance/ADAPTER.md), in Python.

Copy this file into your client's repository, replace the functions under
"The client under test" with calls into your library, and run

    rl-testbed vectors --client "python3 rl_adapter.py"
    rl-testbed dialect --client "python3 rl_adapter.py"

The protocol part (reading requests, writing answers, hello) needs no change.
Standard library only, plus whatever your client needs.

Here the client under test is the project's own independent Python model of the
specification (vectors/tools/gen_vectors.py, gen_ha_schedule.py and gen_admin_vectors.py, hashlib and
the cryptography package), so the template passes every vector kind it declares.

RL_ADAPTER_DIALECT=<variant>[,<variant>...] makes it answer like a published
client that disagrees with the specification, to show what `rl-testbed dialect`
reports: tracker_three_field (latency-tracker ID without buffer_size),
tracker_v2 (the same under the domain ratelimitly.latency-tracker.v2),
guard_le (a guard passes when current <= threshold), horizon_no_f (the
dedup TTL leaves out the final receive interval F); any other name stops it
with a message on stderr.
"""

import hashlib
import json
import os
import pathlib
import struct
import sys

PROTOCOL = "ratelimitly-adapter/1"
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent.parent / "vectors" / "tools"))

import gen_admin_vectors as admin_model  # noqa: E402  (the administrative PDUs)
import gen_ha_schedule  # noqa: E402  (the client under test, see above)
import gen_vectors as model  # noqa: E402

DIALECT = set(filter(None, os.environ.get("RL_ADAPTER_DIALECT", "").split(",")))
VARIANTS = {"tracker_three_field", "tracker_v2", "guard_le", "horizon_no_f"}
if DIALECT - VARIANTS:
    sys.exit(f"rl_adapter.py: RL_ADAPTER_DIALECT: unknown variant {', '.join(sorted(DIALECT - VARIANTS))} "
             f"(known: {', '.join(sorted(VARIANTS))})")


class Rejected(Exception):
    """The client refused the input; cls is the schema error class or None,
    stage the step it refused at (ADAPTER.md "Steps") or None."""

    def __init__(self, cls, reason, stage=None):
        super().__init__(reason)
        self.cls = cls
        self.stage = stage


# ---------------------------------------------------------------------------
# The client under test: one function per vector kind, input dict -> output dict.
# Raise Rejected(class, reason) when the client refuses the input.

def call_model(fn, *args, stage=None):
    try:
        return fn(*args)
    except model.VecError as e:
        raise Rejected(e.cls, e.why, stage) from None


def with_key(inp, field, decode, fn, stage):
    """Take the credential first (a refusal there is at the "key" step), then do fn at `stage`."""
    if field in inp:  # administrative inputs may carry a plaintext PDU alone, with no key
        call_model(decode, inp[field], stage="key")
    return call_model(fn, inp, stage=stage)


def bucket_id(inp):
    return {"id_hex": model.bucket_id(model.name_bytes(inp), inp["window_size_ms"], inp["rate_limit"]).hex()}


def tracker_id(inp):
    name = model.name_bytes(inp)
    if DIALECT & {"tracker_three_field", "tracker_v2"}:
        domain = b"ratelimitly.latency-tracker.v2\0" if "tracker_v2" in DIALECT else model.TRACKER_DOMAIN
        msg = (domain + struct.pack("<I", len(name)) + name
               + struct.pack("<III", inp["ttl_ms"], inp["max_samples"], inp["min_sample_threshold"]))
        return {"id_hex": hashlib.blake2s(msg).digest()[:16].hex()}
    return {"id_hex": model.tracker_id(name, inp["ttl_ms"], inp["max_samples"], inp["buffer_size"],
                                       inp["min_sample_threshold"]).hex()}


def api_key(inp):
    return call_model(model.api_key_expected, inp["key"])


def secret_key(inp):
    return {"secret_hex": call_model(model.decode_secret_key, inp["key"]).hex()}


def quota_word(inp):
    return {"quotas": call_model(model.quota_json, int(inp["word"], 16))}


def server_id(inp):
    return model.server_id_decode(int(inp["server_id"]))


def srv_target(inp):
    return {"server_id": str(call_model(model.parse_srv_target, inp["target"], stage="discovery"))}


def rate_request_packet(inp):
    return {"packet_hex": with_key(inp, "key", model.decode_api_key, model.build_rate_request, "request").hex()}


def latency_report_packet(inp):
    packet = with_key(inp, "key", model.decode_api_key, model.build_latency_report, "report")
    # A call whose every report is filtered sends nothing (api.md): the schema's {"sent": false}.
    return {"sent": False} if packet is None else {"packet_hex": packet.hex()}


def rate_response(inp):
    out = with_key(inp, "key", model.decode_api_key, model.parse_rate_response, "response")
    if "guard_le" in DIALECT:
        out["success"] = guard_le_success(inp, out)
    return out


def guard_le_success(inp, out):
    """The published `current <= threshold` pass rule instead of `current < threshold`."""
    pkt = bytes.fromhex(inp["packet_hex"])
    auth_size = struct.unpack_from("<H", pkt, 42)[0]
    pdu = pkt[40 + auth_size:]
    if auth_size == 32:  # AES: open it again to read the thresholds
        key = model.decode_api_key(inp["key"])
        pdu = model.AESGCM(key["secret"]).decrypt(pkt[44:56], pdu + pkt[56:72], pkt[:56])
    ok = all(r["tokens_deficit"] == 0 for r in out["resources"])
    for i in range(len(out["guards"])):
        threshold, current = struct.unpack_from("<II", pdu, 12 + 40 * i + 32)
        ok = ok and current <= threshold
    return ok


def ha_schedule(inp):
    rule, expected = gen_ha_schedule.evaluate(inp["policy"], inp["dedup_ttl_ms_max"])
    if rule is not None:
        raise Rejected("range", rule, "policy")
    if "horizon_no_f" in DIALECT:
        expected["ttl_ms"] = sum(expected["round_ms"])
    return expected


def admin_tenant_mutation(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_tenant_mutation, "admin")


def admin_tenant_ack(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_tenant_ack, "admin")


def admin_status_query(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_status_query, "admin")


def admin_status_response(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_status_response, "admin")


def admin_metrics_query(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_metrics_query, "admin")


def admin_metrics_response(inp):
    return with_key(inp, "admin_key", model.decode_secret_key, admin_model.parse_metrics_response, "admin")


KINDS = {f.__name__: f for f in (bucket_id, tracker_id, api_key, secret_key, quota_word, server_id, srv_target,
                                 rate_request_packet, latency_report_packet, rate_response, ha_schedule,
                                 admin_tenant_mutation, admin_tenant_ack, admin_status_query, admin_status_response,
                                 admin_metrics_query, admin_metrics_response)}


# ---------------------------------------------------------------------------
# The protocol: no change needed below this line.

def hello():
    name = "python template adapter" + (f" (dialect {','.join(sorted(DIALECT))})" if DIALECT else "")
    return {"protocol": PROTOCOL, "revision": 2, "client": {"name": name, "version": "1"},
            "capabilities": {"vector_kinds": sorted(KINDS), "error_classes": True, "ha": {"cases": False}}}


def vector(req):
    fn = KINDS.get(req.get("kind"))
    if fn is None:
        return {"status": "unsupported", "reason": "kind not implemented"}
    try:
        return {"status": "accepted", "output": fn(req["input"])}
    except Rejected as e:
        return {"status": "rejected", "error": e.cls, "reason": str(e), "stage": e.stage}
    except (KeyError, TypeError, ValueError, struct.error) as e:
        return {"status": "bad_input", "reason": f"{type(e).__name__}: {e}"}


def answer(req):
    op = req.get("op")
    if op == "hello":
        return hello()
    if op == "vector":
        return vector(req)
    return {"protocol_error": f"op {op!r} not implemented by this adapter"}


def main():
    for line in sys.stdin:
        try:
            req = json.loads(line)
            ans = answer(req)
            ans["id"] = req.get("id")
        except ValueError as e:
            ans = {"id": None, "protocol_error": f"request is not JSON: {e}"}
        sys.stdout.write(json.dumps(ans, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
