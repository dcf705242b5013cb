#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Adapter (conformance/ADAPTER.md) for the published Python client
ratelimitly-com/rl-python-client, written as its maintainers would: each
vector kind calls the package's public functions (ratelimitly/__init__.py and
the module functions its clients use), nothing is computed here.

    RL_PYTHON_CLIENT=<checkout> rl-testbed vectors --client "python3 rl_python_client_adapter.py"

(conformance/adapters/published/run.sh sets RL_PYTHON_CLIENT.) Standard library
only, plus the client. Its clients open real sockets and resolve DNS and have no
clock, random or send hook, so no HA case can be driven: hello says so.

RL_ADAPTER_TRANSLATE_KEYS=1 re-encodes a valid format-version-1 rl-cookie/rl-aes
key into the layout the client reads (8-byte big-endian key_id, then the 32-byte
secret; auth.py parse_auth_key) before the client sees it, to judge the steps
after the key; the api_key kind always gets the text unchanged.
"""

import json
import os
import pathlib
import sys

PROTOCOL = "ratelimitly-adapter/1"
CHECKOUT = pathlib.Path(os.environ.get("RL_PYTHON_CLIENT", ".")).resolve()
sys.path.insert(0, str(CHECKOUT / "src"))

import ratelimitly  # noqa: E402  (the client under test)
from ratelimitly import protocol as rl_protocol  # noqa: E402

TRANSLATE = os.environ.get("RL_ADAPTER_TRANSLATE_KEYS") == "1"


class Rejected(Exception):
    """The client refused the input at `stage`; cls is a schema error class or None."""

    def __init__(self, cls, stage, reason):
        super().__init__(reason)
        self.cls = cls
        self.stage = stage


# The client's errors -> (class, stage). parse_auth_key raises ValueError or
# TypeError for every key problem (no class); the request and response
# functions return RCLIENT_ERR_* codes or raise ValueError.
CODE_NAMES = {v: k for k, v in vars(ratelimitly).items() if k.startswith("RCLIENT_")}


def classify(stage, error):
    """The class of a refusal at `stage` (key, ids, request, report, response, policy)."""
    if stage in ("key", "ids"):
        return None
    if isinstance(error, int):
        if stage == "response":
            return {ratelimitly.RCLIENT_ERR_PROTOCOL: "malformed", ratelimitly.RCLIENT_ERR_AUTH: "auth"}.get(error)
        return "range" if error in (ratelimitly.RCLIENT_ERR_PROTOCOL, ratelimitly.RCLIENT_ERR_CONFIG) else None
    return "range" if stage in ("request", "report", "policy") else None


def refuse(stage, error, what):
    text = CODE_NAMES.get(error, str(error)) if isinstance(error, int) else f"{type(error).__name__}: {error}"
    raise Rejected(classify(stage, error), stage, f"{what}: {text}")


# ---------------------------------------------------------------------------
# Key translation (see the module comment), with the project's independent
# model of the credential format (vectors/tools/gen_vectors.py), loaded only then.

def translate_key(text):
    if not TRANSLATE or not isinstance(text, str):
        return text
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "vectors" / "tools"))
    import gen_vectors as model  # noqa: E402
    try:
        key = model.decode_api_key(text)
    except model.VecError:
        return text
    if key["secret"] is None:
        return text
    return model.bech32_encode("rl-" + key["auth"], key["key_id"].to_bytes(8, "big") + key["secret"])


# ---------------------------------------------------------------------------
# The client under test: one function per vector kind.

def name_text(inp):
    if "name_utf8" in inp:
        return inp["name_utf8"]
    try:
        return bytes.fromhex(inp["name_hex"]).decode("utf-8")
    except UnicodeDecodeError:
        raise Unsupported("the client derives IDs from str names only (protocol.py); this name is not UTF-8")


class Unsupported(Exception):
    pass


def bucket_id(inp):
    return {"id_hex": ratelimitly.r_client_derive_bucket_id(name_text(inp), inp["window_size_ms"],
                                                            inp["rate_limit"]).hex()}


def tracker_id(inp):
    return {"id_hex": ratelimitly.r_client_derive_latency_tracker_id(
        name_text(inp), inp["ttl_ms"], inp["max_samples"], inp["buffer_size"], inp["min_sample_threshold"]).hex()}


def parse_key(text):
    try:
        return ratelimitly.parse_auth_key(text)
    except (ValueError, TypeError) as e:
        refuse("key", e, "parse_auth_key")


def api_key(inp):
    # AuthKeyInfo has no quota word and decodes no quotas: those fields are left out.
    info = parse_key(inp["key"])
    return {"auth": info.auth_type, "key_id": str(info.key_id), "secret_hex": info.secret.hex(),
            "default_dns_name": info.default_dns_srv}


def offline_client(key):
    """A RateLimitlyClient whose endpoint list is already known, so that no DNS is asked."""
    try:
        client = ratelimitly.RateLimitlyClient(translate_key(key), dns_srv="adapter.invalid")
    except (ValueError, TypeError) as e:
        refuse("key", e, "RateLimitlyClient(auth_key)")
    client._endpoints = [("127.0.0.1", 9)]
    return client


def rate_request_packet(inp):
    """The datagram check_rate_limit sends (client.py): it takes resources[0] and the
    client's 64-bit request id, packs them with protocol.pack_evaluation_request. The
    request id is the first 8 bytes of the vector's unique_id (big-endian, as packed)."""
    client = offline_client(inp["key"])
    resources = [ratelimitly.ResourceRequest(bytes.fromhex(r["bucket_id_hex"]), r["window_size_ms"], r["rate_limit"],
                                             r["tokens_requested"]) for r in inp["resources"]]
    if not resources:  # check_rate_limit returns RCLIENT_ERR_PROTOCOL before sending
        refuse("request", ratelimitly.RCLIENT_ERR_PROTOCOL, "check_rate_limit (no resources)")
    req_id = int(inp["unique_id_hex"][:16], 16)
    try:
        packet = rl_protocol.pack_evaluation_request(req_id, resources[0].bucket_id, resources[0].tokens_requested,
                                                     client.auth_info.secret)
    except (ValueError, OverflowError) as e:
        refuse("request", e, "pack_evaluation_request")
    except Exception as e:  # struct.error for a count outside uint32
        refuse("request", e, "pack_evaluation_request")
    return {"packet_hex": packet.hex()}


def latency_report_packet(inp):
    """report_latency (client.py) returns RCLIENT_OK and sends nothing, whatever it is given."""
    client = offline_client(inp["key"])
    reports = [ratelimitly.ServiceLatencyReport(bytes.fromhex(r["tracker_id_hex"]), r["observed_latency"], r["ttl_ms"],
                                                r["max_samples"], r["buffer_size"], r["min_sample_threshold"])
               for r in inp["reports"]]
    status = client.report_latency(reports)
    if status != ratelimitly.RCLIENT_OK:
        refuse("report", status, "report_latency")
    return {"sent": False}


def rate_response(inp):
    """What check_rate_limit does with the first datagram it receives: the client is
    created from the key, then protocol.parse_evaluation_response(data, request id)."""
    offline_client(inp["key"])
    req_id = int(inp["request_unique_id_hex"][:16], 16)
    status, result = rl_protocol.parse_evaluation_response(bytes.fromhex(inp["packet_hex"]), req_id)
    if status != ratelimitly.RCLIENT_OK:
        refuse("response", status, "parse_evaluation_response")
    # RateLimitResult has no keep_port and no per-block results: left out.
    return {"server_id": str(result.server_id), "success": result.success}


SCHEDULES = {
    "fixed": lambda g: ratelimitly.FixedSchedule(g["initial_units"]),
    "linear": lambda g: ratelimitly.LinearSchedule(g["initial_units"], g["linear_step_units"], g["max_units"]),
    "exponential": lambda g: ratelimitly.ExponentialSchedule(g["initial_units"], g["exponential_factor"],
                                                             g["max_units"]),
}


def ha_schedule(inp):
    """custom_policy and RequestPolicy.calculate_horizon_ms (policy.py). The policy has
    no preference schedule P(k) and no dedup_ttl_ms_max check: preference_ms is left out."""
    p = inp["policy"]
    try:
        policy = ratelimitly.custom_policy(p["unit_ms"], p["replay_count"], SCHEDULES[p["replay_gap"]["kind"]](
            p["replay_gap"]), p["final_receive_units"], p["completion_delivery"])
    except (ValueError, TypeError) as e:
        refuse("policy", e, "custom_policy")
    rounds = [policy.unit_ms * policy.replay_gap.get_gap(k) for k in range(policy.replays + 1)]
    return {"ttl_ms": policy.calculate_horizon_ms(), "round_ms": rounds}


KINDS = {f.__name__: f for f in (bucket_id, tracker_id, api_key, rate_request_packet, latency_report_packet,
                                 rate_response, ha_schedule)}


# ---------------------------------------------------------------------------
# The protocol (as in conformance/adapters/python/rl_adapter.py).

# What the client is (ADAPTER.md "What a client declares", revision 2):
# - parse_auth_key takes the prefixes rl-aes1 and rl-cookie1 only (auth.py): no
#   rl-none, so a test with an rl-none key cannot reach its step;
# - AuthKeyInfo carries no quota word and decodes no quotas (its two quota
#   fields are constants); RateLimitResult has no keep_port and no per-block
#   results (types.py); RequestPolicy has no preference schedule (policy.py);
# - no HA case: its clients open real sockets, resolve real DNS and have no
#   clock, random or send hook.
DECLARED = {
    "auth_modes": ["cookie", "aes"],
    "key_formats": ["rl-cookie", "rl-aes"],
    "unproduced_fields": {"api_key": ["quota_word", "quotas"],
                          "rate_response": ["keep_port", "resources", "guards"],
                          "ha_schedule": ["preference_ms"]},
    "ha": {"cases": False},
}


def hello():
    name = "rl-python-client" + (" (v1 keys translated to its layout)" if TRANSLATE else "")
    return {"protocol": PROTOCOL, "revision": 2, "client": {"name": name, "version": ratelimitly.__version__},
            "capabilities": dict(vector_kinds=sorted(KINDS), error_classes=True, **DECLARED)}


def vector(req):
    fn = KINDS.get(req.get("kind"))
    if fn is None:
        return {"status": "unsupported", "reason": "kind not implemented"}
    try:
        return {"status": "accepted", "output": fn(req["input"])}
    except Rejected as e:
        return {"status": "rejected", "error": e.cls, "stage": e.stage, "reason": str(e)}
    except Unsupported as e:
        return {"status": "unsupported", "reason": str(e)}
    except (KeyError, TypeError, ValueError) as e:
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
