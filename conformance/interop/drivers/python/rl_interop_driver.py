#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Template driver for `rl-testbed interop` (docs/interop.md), in Python.

A driver is a thin program around a client's ordinary, blocking API. Copy this
file next to your client, replace the class BlockingClient with calls into your
library (keep its four methods), and run

    rl-testbed interop --driver "python3 rl_interop_driver.py"

The protocol part at the bottom (one JSON object per line on stdin, one answer
per line on stdout) needs no change and uses the standard library only.

Here the client under test is a small blocking client written for this
template: the project's independent Python model of the wire format
(vectors/tools/gen_vectors.py, which needs the cryptography package for AES)
plus the HA policy of r-client.md 9.3.3 and 9.3.4, one request at a time.
"""

import json
import os
import pathlib
import select
import socket
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "vectors" / "tools"))
import gen_vectors as model  # noqa: E402  (the stand-in client's wire format)


def now_ms():
    return int(time.time() * 1000)


def units(s, k):
    """S(k) of r-client.md 9.3.1: fixed, linear or exponential, capped at max_units."""
    if s["kind"] == "fixed":
        return s["initial_units"]
    if s["kind"] == "linear":
        v = s["initial_units"] + k * s["linear_step_units"]
    else:
        v = s["initial_units"] * s["exponential_factor"] ** k
    return min(v, s["max_units"])


# ---- The client under test: replace this class with your client's calls ----

class BlockingClient:
    def __init__(self, key, servers, policy):
        self.key, self.policy = key, policy
        self.addrs = [(s["address"], s["port"]) for s in servers]
        self.ids = [int(s["server_id"]) for s in servers]
        # age: server_start_s first (the id's top bits), then the lower id (r-client.md 9.3.2)
        self.order = sorted(range(len(self.ids)), key=lambda i: (self.ids[i] >> 23, self.ids[i]))
        family = socket.AF_INET6 if ":" in self.addrs[0][0] else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_DGRAM)

    def send(self, data, targets):
        for i in targets:
            self.sock.sendto(data, self.addrs[i])

    def receive(self, timeout_ms):
        if not select.select([self.sock], [], [], max(timeout_ms, 0) / 1000.0)[0]:
            return None
        return self.sock.recv(2048)

    def check(self, resources, guards):
        """-> ("allowed" | "denied" | "failed", selected server_id or None)."""
        p, u = self.policy, self.policy["unit_ms"]
        n = p["replay_count"]
        b = [units(p["replay_gap"], k) for k in range(n + 1)]
        pref = [units(p["preference"], k) for k in range(n + 1)]
        horizon = u * (sum(b) + p["final_receive_units"])
        uid, t0 = os.urandom(16), now_ms()
        request = {"guards": [dict(g, latency_threshold=g["threshold_ms"]) for g in guards],
                   "resources": [dict(r, bucket_id_hex=r["bucket_id"], tokens_requested=r["tokens"])
                                 for r in resources]}
        for g in request["guards"]:
            g["tracker_id_hex"] = g["tracker_id"]
        data = model.build_rate_request(dict(request, key=self.key, dedup_ttl_ms=horizon, unique_id_hex=uid.hex(),
                                             time_stamp_ms=t0, steering_feedback=0,
                                             nonce_hex=os.urandom(12).hex()))
        phases, start = [], t0  # (start, preference deadline, end, sends)
        for k in range(n + 1):
            phases.append((start, start + pref[k] * u, start + b[k] * u, True))
            start += b[k] * u
        if p["final_receive_units"] > 0:
            phases.append((start, start + p["final_preference_units"] * u, start + p["final_receive_units"] * u, False))
        responded = {}
        missing = lambda: [i for i in range(len(self.addrs)) if i not in responded]  # noqa: E731
        for _, pref_at, end, sends in phases:
            if sends:
                self.send(data, missing())
            while True:
                cand = next((i for i in self.order if i in responded), None)
                now = now_ms()
                if cand is not None and now >= pref_at:
                    return self.select(data, responded, cand, missing())
                if now >= end:
                    break
                pkt = self.receive((pref_at if now < pref_at else end) - now)
                if pkt is None or (len(pkt) > 36 and pkt[36] > 1):
                    continue  # steering_feedback is 0 or 1 (wire_protocol.md "Tenant Header"); the model lets 2 pass
                try:
                    res = model.parse_rate_response({"key": self.key, "packet_hex": pkt.hex(),
                                                     "request_unique_id_hex": uid.hex(), "request": request,
                                                     "trusted_server_ids": [str(i) for i in self.ids]})
                except model.VecError:
                    continue  # invalid, unrelated or untrusted: ignored (r-client.md 9.3.3 rule 2)
                i = self.ids.index(int(res["server_id"]))
                responded.setdefault(i, res)
                if i == self.order[0]:
                    return self.select(data, responded, i, missing())
        return "failed", None

    def select(self, data, responded, i, missing):
        if self.policy["completion_delivery"]:
            self.send(data, missing)  # r-client.md 9.3.4, before returning
        return ("allowed" if responded[i]["success"] else "denied"), str(self.ids[i])

    def report(self, reports):
        data = model.build_latency_report({
            "key": self.key, "unique_id_hex": os.urandom(16).hex(), "time_stamp_ms": now_ms(),
            "nonce_hex": os.urandom(12).hex(),
            "reports": [dict(r, tracker_id_hex=r["tracker_id"], observed_latency=r["latency_ms"]) for r in reports]})
        if data is not None:
            self.send(data, range(len(self.addrs)))

    def close(self):
        self.sock.close()


# ---- The driver protocol (docs/interop.md "Driver protocol"): no change needed ----

def main():
    client = None
    for line in sys.stdin:
        msg, out = json.loads(line), {"ok": True}
        try:
            if msg["op"] == "create" and "servers" not in msg:
                # a client without DNS discovery says so: the run is skipped, not failed
                out = {"ok": False, "unsupported": "DNS discovery (the stand-in client takes servers only)"}
            elif msg["op"] == "create":
                client = BlockingClient(msg["key"], msg["servers"], msg["policy"])
            elif msg["op"] == "check":
                decision, server_id = client.check(msg["resources"], msg["guards"])
                out.update(decision=decision, server_id=server_id, at_ms=now_ms())
            elif msg["op"] == "report":
                client.report(msg["reports"])
            elif msg["op"] == "close":
                client.close()
            else:
                out = {"ok": False, "error": "unknown op " + msg["op"]}
        except Exception as e:  # the client's own error, named for the testbed's report
            out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)
        if msg.get("op") == "close":
            break


if __name__ == "__main__":
    main()
