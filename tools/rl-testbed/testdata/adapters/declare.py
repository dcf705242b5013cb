#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An adapter whose hello declares the capabilities given as its argument (a JSON
object) and whose client accepts every vector input with an empty output
(run_verdicts.sh): shows how the testbed reads declarations it cannot trust.

usage: declare.py CAPABILITIES_JSON
"""
import json
import sys

CAPS = json.loads(sys.argv[1])
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        ans = {"protocol": "ratelimitly-adapter/1", "revision": 2, "client": {"name": "declare", "version": "0"},
               "capabilities": CAPS}
    else:
        ans = {"status": "accepted", "output": {}}
    ans["id"] = req["id"]
    print(json.dumps(ans), flush=True)
