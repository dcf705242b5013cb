#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Interop driver (docs/interop.md) for the published Python client
ratelimitly-com/rl-python-client, written as its maintainers would: its blocking
RateLimitlyClient, its policy classes and its public value types; nothing of the
client is replaced.

    RL_PYTHON_CLIENT=<checkout> rl-testbed interop --driver "python3 rl_python_client_interop.py"

(conformance/adapters/published/run.sh python CHECKOUT interop does this.) The
client has no explicit-server configuration: servers come from a DNS SRV lookup
(dnspython) into its endpoint cache `_endpoints`, which this driver fills with the
case's servers instead, as the vector adapter beside it does; in a DNS case
(docs/interop.md "DNS") the client discovers them itself, dnspython's default
resolver pointed at the testbed's dnsmasq. Its client keeps no
server_id of the server it used, so `server_id` is reported only when the
response carried one. RL_ADAPTER_TRANSLATE_KEYS=1 hands it its own key layout
(rl_python_client_adapter.py translate_key).
"""

import json
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(pathlib.Path(os.environ.get("RL_PYTHON_CLIENT", ".")).resolve() / "src"))
sys.path.insert(0, str(HERE))

import ratelimitly as rl  # noqa: E402  (the client under test)
from rl_python_client_adapter import translate_key  # noqa: E402


def schedule(s):
    if s["kind"] == "fixed":
        return rl.FixedSchedule(s["initial_units"])
    if s["kind"] == "linear":
        return rl.LinearSchedule(s["initial_units"], s["linear_step_units"], s["max_units"])
    return rl.ExponentialSchedule(s["initial_units"], s["exponential_factor"], s["max_units"])


def create(msg):
    p = msg["policy"]  # the client has no preference P(k) or P_final: those are not expressible
    policy = rl.custom_policy(p["unit_ms"], p["replay_count"], schedule(p["replay_gap"]),
                              p["final_receive_units"], p["completion_delivery"])
    if "dns" in msg:  # its own discovery, through dnspython's default resolver pointed at the testbed's
        try:
            import dns.resolver
        except ImportError:  # the client's own dependency, missing on this machine: not the client's fault
            return None
        host, _, port = msg["dns"]["resolver"].rpartition(":")
        resolver = dns.resolver.Resolver(configure=False)
        resolver.nameservers, resolver.port = [host.strip("[]")], int(port)
        dns.resolver.default_resolver = resolver
        return rl.RateLimitlyClient(translate_key(msg["key"]), dns_srv=msg["dns"]["name"], policy=policy)
    client = rl.RateLimitlyClient(translate_key(msg["key"]), dns_srv="interop.invalid", policy=policy)
    client._endpoints = [(s["address"], s["port"]) for s in msg["servers"]]
    return client


def check(client, msg):
    resources = [rl.ResourceRequest(bytes.fromhex(r["bucket_id"]), r["window_size_ms"], r["rate_limit"], r["tokens"])
                 for r in msg["resources"]]
    guards = [rl.LatencyGuard(bytes.fromhex(g["tracker_id"]), g["threshold_ms"], g["ttl_ms"], g["max_samples"],
                              g["buffer_size"], g["min_sample_threshold"]) for g in msg["guards"]]
    status, result = client.check_rate_limit(resources, guards)
    at_ms = int(time.time() * 1000)
    if status != rl.RCLIENT_OK:
        return {"ok": True, "decision": "failed", "server_id": None, "at_ms": at_ms, "error": str(status)}
    return {"ok": True, "decision": "allowed" if result.success else "denied", "server_id": str(result.server_id),
            "at_ms": at_ms}


def report(client, msg):
    reports = [rl.ServiceLatencyReport(bytes.fromhex(r["tracker_id"]), r["latency_ms"], r["ttl_ms"],
                                       r["max_samples"], r["buffer_size"], r["min_sample_threshold"])
               for r in msg["reports"]]
    status = client.report_latency(reports)
    return {"ok": True} if status == rl.RCLIENT_OK else {"ok": False, "error": f"report_latency: {status}"}


def main():
    client = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["op"] == "create":
                client = create(msg)
                out = {"ok": True} if client is not None else {
                    "ok": False, "unsupported": "DNS discovery here: the client's dnspython is not installed"}
            elif msg["op"] == "check":
                out = check(client, msg)
            elif msg["op"] == "report":
                out = report(client, msg)
            elif client is not None:
                client.close()
                out = {"ok": True}
            else:
                out = {"ok": True}
        except Exception as e:  # the client's own refusal, named
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
        if msg["op"] == "close":
            break


if __name__ == "__main__":
    main()
