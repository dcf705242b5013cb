#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An adapter whose client refuses every input (run_verdicts.sh), to show that
no refusal passes a test about a later step than the one refused at.

usage: reject_all.py [MODE]
  (none)     every vector request rejected, no class, no stage
  at_key     every rejection says "stage": "key"
  no_kinds   hello declares no vector kind and no HA cases
  misspelled hello declares the kind "bucketid"
  bad_stage  every rejection says "stage": "parsing" (no such step)
  truncate   every rate_request_packet accepted as a 1200-byte datagram
  shorter    every rate_request_packet accepted as a 1100-byte datagram (another layout)
  bad_class  every rejection says "error": "checksum" (no such class)
  malformed_at_response  every rejection says "error": "malformed", "stage": "response"
  silent     every latency_report_packet accepted as {"sent": false} (a report call that never sends)
"""
import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
KINDS = ["api_key", "bucket_id", "rate_request_packet", "rate_response", "latency_report_packet", "ha_schedule"]
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        kinds = [] if MODE == "no_kinds" else ["bucketid"] if MODE == "misspelled" else KINDS
        ans = {"protocol": "ratelimitly-adapter/1", "client": {"name": "reject-all " + MODE, "version": "0"},
               "capabilities": {"vector_kinds": kinds}}
    else:
        ans = {"status": "rejected", "error": {"bad_class": "checksum", "malformed_at_response": "malformed"}.get(MODE),
               "reason": "refused"}
        if MODE == "malformed_at_response":
            ans["stage"] = "response"
        if MODE in ("at_key", "bad_stage"):
            ans["stage"] = "key" if MODE == "at_key" else "parsing"
        if MODE in ("truncate", "shorter") and req.get("kind") == "rate_request_packet":
            ans = {"status": "accepted", "output": {"packet_hex": "00" * (1200 if MODE == "truncate" else 1100)}}
        if MODE == "silent" and req.get("kind") == "latency_report_packet":
            ans = {"status": "accepted", "output": {"sent": False}}
    ans["id"] = req["id"]
    print(json.dumps(ans), flush=True)
