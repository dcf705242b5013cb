#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fake client for the dialect report's own tests (run_dialect.sh): it speaks the variants it is
told to, answering each vector request from the dialect files' recorded answers.

usage: dialect_fake.py DIALECT_DIR [AREA=VARIANT ...] [reject_all] [unsupported=AREA] [set:FIELD=JSON]
                      [at_key:AREA] [refuse_v1_keys]

AREA=VARIANT picks the variant the fake speaks in that area (every other area: the spec). For a
request the fake gathers every dialect test with that kind and input whose variant is its pick
for the test's area and whose "dialect-under:" layouts are its picks too, and answers their
recorded answer (the union of their pinned fields; they must agree). With no such test it answers
as the spec would under its picks; a datagram recorded under other layouts only (a response in a
layout it does not speak) is refused as malformed.
  reject_all        every request answered "rejected" with no class
  unsupported=AREA  the first test of AREA answered "unsupported" (reason "not in this build")
  set:FIELD=JSON    every accepted output that has FIELD gives JSON instead (a client no variant describes)
  at_key:AREA       every test of AREA refused with "stage": "key" (a client that cannot take its keys)
  refuse_v1_keys    an api_key request for a version-1 key of the byte_order tests refused as "length"
                    (a client with another key layout: its builders still take the keys they are given)
"""
import glob
import json
import os
import sys

KINDS = ("tracker_id", "bucket_id", "api_key", "rate_request_packet", "latency_report_packet", "rate_response",
         "ha_schedule")


def load(directory):
    """(kind, canonical input) -> [(area, variant, {under area: variant}, expected)]; first input per area;
    every input per area."""
    table, first, inputs = {}, {}, {}
    for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        for t in doc["tests"]:
            area = variant = None
            under = {}
            for f in t["flags"]:
                parts = f.split(":")
                if parts[0] == "dialect":
                    area, variant = parts[1], parts[2]
                elif parts[0] == "dialect-under":
                    under[parts[1]] = parts[2]
            key = (doc["kind"], json.dumps(t["input"], sort_keys=True))
            table.setdefault(key, []).append((area, variant, under, t["expected"]))
            first.setdefault(area, key)
            inputs.setdefault(area, set()).add(key)
    return table, first, inputs


def consistent(entries, picks, own_variant):
    """Entries whose variant is own_variant(area) and whose layouts are the picks."""
    return [e for e in entries if e[1] == own_variant(e[0]) and all(picks.get(a, "spec") == v
                                                                    for a, v in e[2].items())]


def answer(entries, picks):
    chosen = consistent(entries, picks, lambda area: picks.get(area, "spec"))
    if not chosen:  # a variant that pins nothing for this input: the spec's answer under the picks
        chosen = consistent(entries, picks, lambda area: "spec")
    if not chosen:  # a datagram in a layout the fake does not speak: refused, as a real client would
        return {"status": "rejected", "error": "malformed", "reason": "not in this client's layout"}
    errors = {e[3]["error"] for e in chosen if "error" in e[3]}
    if errors:
        if len(errors) > 1 or any("error" not in e[3] for e in chosen):
            sys.exit(f"dialect_fake: recorded answers disagree: {chosen}")
        return {"status": "rejected", "error": errors.pop(), "reason": "as the variant"}
    output = {}
    for e in chosen:
        for k, v in e[3].items():
            if k in output and output[k] != v:
                sys.exit(f"dialect_fake: recorded answers disagree on {k}: {output[k]} / {v}")
            output[k] = v
    return {"status": "accepted", "output": output}


def main():
    table, first, inputs = load(sys.argv[1])
    picks, reject_all, unsupported, forced, at_key, v1_keys = {}, False, None, {}, set(), set()
    for arg in sys.argv[2:]:
        if arg.startswith("at_key:"):
            at_key |= inputs[arg[7:]]
        elif arg == "refuse_v1_keys":
            v1_keys = {k for k in inputs["byte_order"] if k[0] == "api_key"}
        elif arg.startswith("set:"):
            field, value = arg[4:].split("=", 1)
            forced[field] = json.loads(value)
        elif arg == "reject_all":
            reject_all = True
        elif arg.startswith("unsupported="):
            unsupported = first[arg.split("=", 1)[1]]
        else:
            area, variant = arg.split("=", 1)
            picks[area] = variant
    name = "dialect fake " + (" ".join(sys.argv[2:]) or "spec")
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "hello":
            out = {"protocol": "ratelimitly-adapter/1", "client": {"name": name, "version": "0"},
                   "capabilities": {"vector_kinds": list(KINDS), "error_classes": True}}
        elif reject_all:
            out = {"status": "rejected", "error": None, "reason": "refuses everything"}
        else:
            key = (req["kind"], json.dumps(req["input"], sort_keys=True))
            if key == unsupported:
                out = {"status": "unsupported", "reason": "not in this build"}
            elif key in at_key:
                out = {"status": "rejected", "error": "length", "stage": "key", "reason": "not a key it reads"}
            elif key in v1_keys:
                out = {"status": "rejected", "error": "length", "reason": "not a key it reads"}
            else:
                out = answer(table.get(key, []), picks)
                for field, value in forced.items():
                    if field in out.get("output", {}):
                        out["output"][field] = value
        out["id"] = req["id"]
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
