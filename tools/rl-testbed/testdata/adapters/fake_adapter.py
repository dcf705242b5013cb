#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A misbehaving adapter for the testbed's own tests (run_adapter.sh).

usage: fake_adapter.py MODE [DELEGATE...]
Answers hello itself and every vector request by running DELEGATE (a working
adapter command) once per request, then breaks the protocol as MODE says:
  good         nothing wrong (the delegate's answers unchanged)
  hang         hello, then never answers again
  crash        hello, then exits 3 at the first request, "boom" on stderr
  bad_hello    hello with protocol "ratelimitly-adapter/0"
  no_hello     exits at once without a word
  wrong_id     answers the first request with id 7
  bad_status   the first vector answer has status "acepted"
  short_output the first vector answer's output without its id_hex
  garbage      the first vector answer is not JSON
  only_bucket  declares vector kind bucket_id only (others: unsupported)
  no_classes   error_classes false; rejections carry no class
  answer_unsupported  every tracker_id request answered "unsupported"
  no_label     declares metrics_label_utf8 of rate_request_packet unsupported
  proto_error  the first request answered with a protocol_error
  long_line    the first vector answer is a line of 1 MiB + 1 byte (an output padded with spaces)
  ha_no_send_failures  HA cases through the delegate, send_failures not declared
  ha_unsupported       HA cases declared, every ha_create answered "unsupported"
  ha_no_presets        HA cases through the delegate, the preset dropped: "used": "policy"
  ha_bad_report        HA cases through the delegate, deadline_ms of every report an integer
  ha_no_preference     HA cases through the delegate, preference false: every policy run in the api.md
                       shape (P(0) = B(0), P(k) = 0 after, P_final = 0), as a client without P(k) does
  ha_no_profile        HA cases through the delegate, profile false, every profile reported null
  ha_no_c_api          HA cases through the delegate, c_api false
  ha_no_cancel         HA cases through the delegate, cancel false
  ha_aes_only          HA cases through the delegate, auth_modes ["aes"]
  aes_only     auth_modes ["aes"] (vector tests with another mode's key: unsupported)
  no_none      auth_modes ["cookie", "aes"]: a client without a none mode
  no_keep_port rate_response output without keep_port, declared in unproduced_fields
  no_quota_word        api_key output without quota_word, declared in unproduced_fields
  no_preference_ms     ha_schedule output without preference_ms, declared in unproduced_fields
  leak_key     every built packet ends with 31 bytes of its key's secret
  ha_leak_key  HA cases through the delegate, every send ends with 31 bytes of the key's secret
  leak_oversize  a request the delegate refuses as "range" is sent as a 200-byte datagram ending
               with 31 bytes of its key's secret (two faults in one answer)
  ha_nonce_reuse       HA cases through the delegate, every AES-sealed send's nonce zeroed and its last
                       byte made the send's number: different datagrams under one nonce
  ha_submit_no_stage   HA cases through the delegate, "stage" dropped from a rejected submit
  ha_submit_at_key     HA cases through the delegate, a rejected submit says "stage": "key"
  tag_as_malformed     a rate_response under an AES key whose AES auth TLV fails to authenticate is
                       refused with class "malformed", as api.md's C API reports it (RCLIENT_ERR_PROTOCOL)
"""
import json
import pathlib
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "vectors" / "tools"))

mode = sys.argv[1]
UNPRODUCED = {"no_keep_port": ("rate_response", "keep_port"), "no_quota_word": ("api_key", "quota_word"),
              "no_preference_ms": ("ha_schedule", "preference_ms")}
delegate = sys.argv[2:]
seen = 0
worker = None
ha_key = None


def secret_tail(key):
    """The last 31 bytes of key's secret as hex ("" for rl-none): key material a broken client leaks."""
    import gen_vectors
    secret = gen_vectors.decode_api_key(key)["secret"]
    return secret[1:].hex() if secret else ""


def ask(req):
    global worker
    if worker is None:
        worker = subprocess.Popen(delegate, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        worker.stdin.write(json.dumps({"id": 0, "op": "hello", "protocol": "ratelimitly-adapter/1"}) + "\n")
        worker.stdin.flush()
        worker.stdout.readline()
    worker.stdin.write(json.dumps(req) + "\n")
    worker.stdin.flush()
    return json.loads(worker.stdout.readline())


def emit(obj):
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


if mode == "no_hello":
    sys.exit(0)
for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "hello":
        kinds = ["bucket_id"] if mode == "only_bucket" else [
            "bucket_id", "tracker_id", "api_key", "secret_key", "quota_word", "server_id", "srv_target",
            "rate_request_packet", "latency_report_packet", "rate_response", "ha_schedule"]
        caps = {"vector_kinds": kinds, "error_classes": mode != "no_classes"}
        if mode == "no_label":
            caps["unsupported_fields"] = {"rate_request_packet": ["metrics_label_utf8"]}
        if mode.startswith("ha_"):
            caps["ha"] = {f: True for f in ("cases", "presets", "preference", "completion_delivery", "clock",
                                            "random", "explicit_servers", "send_failures", "profile")}
            if mode == "ha_no_send_failures":
                del caps["ha"]["send_failures"]
            for feature in ("preference", "profile", "c_api", "cancel"):
                if mode == "ha_no_" + feature:
                    caps["ha"][feature] = False
        if mode in ("ha_aes_only", "aes_only"):
            caps["auth_modes"] = ["aes"]
        if mode == "no_none":
            caps["auth_modes"] = ["cookie", "aes"]
        if mode in UNPRODUCED:
            caps["unproduced_fields"] = {UNPRODUCED[mode][0]: [UNPRODUCED[mode][1]]}
        emit({"id": req["id"], "protocol": "ratelimitly-adapter/0" if mode == "bad_hello" else "ratelimitly-adapter/1",
              "client": {"name": "fake " + mode, "version": "0"}, "capabilities": caps})
        continue
    seen += 1
    if mode == "hang":
        sys.stdin.read()  # until the testbed gives up and closes our stdin
        sys.exit(0)
    if mode == "crash":
        sys.stderr.write("boom: the client library aborted\n")
        sys.exit(3)
    if mode == "wrong_id" and seen == 1:
        emit({"id": 7, "status": "accepted", "output": {}})
        continue
    if mode == "garbage" and seen == 1:
        emit("this is not json")
        continue
    if mode == "long_line" and seen == 1:
        line = json.dumps({"id": req["id"], "status": "accepted", "output": {}})
        sys.stdout.write(line[:-1] + " " * (1024 * 1024 + 1 - len(line)) + "}\n")
        sys.stdout.flush()
        continue
    if mode == "proto_error" and seen == 1:
        emit({"id": req["id"], "protocol_error": "op not understood"})
        continue
    if mode == "ha_unsupported" and req["op"] == "ha_create":
        emit({"id": req["id"], "status": "unsupported", "reason": "no HA strategy in this client"})
        continue
    if mode == "ha_no_presets":
        req.pop("preset", None)
    if mode == "ha_no_preference" and req["op"] == "ha_create":
        req.pop("preset", None)
        b0 = req["policy"]["replay_gap"]["initial_units"]
        req["policy"]["preference"] = {"kind": "exponential", "initial_units": b0, "max_units": b0,
                                       "linear_step_units": 0, "exponential_factor": 0}
        req["policy"]["final_preference_units"] = 0
    ans = ask(req)
    if mode == "ha_no_profile" and "profile" in ans:
        ans["profile"] = None
    if mode == "ha_nonce_reuse":
        for n, send in enumerate(ans.get("sends") or []):
            if send["data_hex"][80:84] == "4145":  # AES auth TLV 0x4541 at offset 40
                send["data_hex"] = send["data_hex"][:88] + "00" * 12 + send["data_hex"][112:-2] + "%02x" % n
    if mode.startswith("ha_submit_") and req["op"] == "submit" and ans.get("status") == "rejected":
        ans.pop("stage", None)
        if mode == "ha_submit_at_key":
            ans["stage"] = "key"
    if mode == "ha_bad_report" and "deadline_ms" in ans:
        ans["deadline_ms"] = 5
    if mode == "bad_status" and seen == 1:
        ans["status"] = "acepted"
    if mode == "leak_key" and "packet_hex" in ans.get("output", {}):
        ans["output"]["packet_hex"] += secret_tail(req["input"]["key"])
    if (mode == "leak_oversize" and req.get("kind") == "rate_request_packet" and ans.get("status") == "rejected"
            and ans.get("error") == "range"):
        tail = secret_tail(req["input"]["key"])
        ans = {"id": ans["id"], "status": "accepted", "output": {"packet_hex": "00" * (200 - len(tail) // 2) + tail}}
    if mode == "ha_leak_key":
        ha_key = req.get("key", ha_key)
        for send in ans.get("sends") or []:
            send["data_hex"] += secret_tail(ha_key)
    if mode in UNPRODUCED and req.get("kind") == UNPRODUCED[mode][0]:
        ans.get("output", {}).pop(UNPRODUCED[mode][1], None)
    if mode == "short_output" and seen == 1:
        ans.get("output", {}).pop("id_hex", None)
    if mode == "no_classes" and ans.get("status") == "rejected":
        ans.pop("error", None)
    if (mode == "tag_as_malformed" and req.get("kind") == "rate_response" and ans.get("error") == "auth"
            and req["input"]["key"].startswith("rl-aes1") and req["input"]["packet_hex"][80:84] == "4145"):
        ans["error"] = "malformed"  # AES auth TLV 0x4541 at offset 40: a tag failure, not a wrong TLV type
    if mode == "answer_unsupported" and req.get("kind") == "tracker_id":
        ans = {"id": req["id"], "status": "unsupported", "reason": "no latency trackers in this client"}
    emit(ans)
