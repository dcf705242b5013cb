#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A deliberately broken copy of an adapter, for run_single_fault.sh: it proxies every message to
DELEGATE (the C reference adapter) but first rewrites each response datagram the way a client
that ignores one field rule would read it, so the pair behaves as that client.

usage: broken_adapter.py RULE DELEGATE...
  steering2  steering_feedback 2 read as 1 (keep port) instead of refused as malformed
             (wire_protocol.md "Tenant Header": a boolean, 2-255 reserved)
  tenant44   a tenant TLV with tlv_size 44 skipped by its size instead of refused: the 4 extra
             bytes dropped, tlv_size 40 (wire_protocol.md "Tenant Header": tlv_size is 40)
  none_ok    a response authenticated with none (auth TLV 0x414E) taken under a cookie or AES key:
             re-framed with the key's own auth TLV, cookie or sealed, so the delegate accepts it
             (r-client.md 6.4 "Authentication": the auth TLV type must equal the key's mode)

Under AES the tenant TLV is in the AAD: a datagram whose tag verifies over the bytes received is
sealed again over the rewritten bytes with the same key and nonce (the broken client would have
accepted it); one whose tag fails is passed on unchanged (refused either way). Datagrams come in
vector requests of kind rate_response (input.packet_hex, key input.key) and in HA "datagram"
calls (data_hex, key of the last ha_create).
"""
import json
import os
import struct
import subprocess
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "vectors", "tools"))
import gen_vectors as gv  # noqa: E402  (bech32 key decoding only)

TLV_TENANT, AUTH_AES, AUTH_COOKIE, AUTH_NONE = 0x4C52, 0x4541, 0x4143, 0x414E


def reseal(received, rewritten, key, tenant_len):
    """AES: if the tag verifies over `received` (tenant TLV of tenant_len bytes), seal the same
    plaintext over `rewritten` (a 40-byte tenant TLV); if it fails, `received` unchanged."""
    if len(received) < tenant_len + 4 or struct.unpack_from("<H", received, tenant_len)[0] != AUTH_AES:
        return rewritten
    secret = gv.decode_api_key(key)["secret"]
    nonce, tag = received[tenant_len + 4:tenant_len + 16], received[tenant_len + 16:tenant_len + 32]
    try:
        plain = AESGCM(secret).decrypt(nonce, received[tenant_len + 32:] + tag, received[:tenant_len + 16])
    except (InvalidTag, ValueError):
        return received
    sealed = AESGCM(secret).encrypt(nonce, plain, rewritten[:56])
    return rewritten[:56] + sealed[-16:] + sealed[:-16]


def as_key_mode(pkt, key):
    """A 40-byte tenant TLV and an auth-none TLV: the same plaintext under the key's mode."""
    if len(pkt) < 44 or struct.unpack_from("<H", pkt, 40)[0] != AUTH_NONE or not key.startswith(("rl-cookie", "rl-aes")):
        return pkt
    secret = gv.decode_api_key(key)["secret"]
    if key.startswith("rl-cookie"):
        return pkt[:40] + struct.pack("<HH", AUTH_COOKIE, 36) + secret + pkt[44:]
    nonce = b"\x5a" * 12
    head = pkt[:40] + struct.pack("<HH", AUTH_AES, 32) + nonce
    sealed = AESGCM(secret).encrypt(nonce, pkt[44:], head)
    return head + sealed[-16:] + sealed[:-16]


def rewrite(rule, pkt, key):
    if len(pkt) < 44 or struct.unpack_from("<H", pkt, 0)[0] != TLV_TENANT:
        return pkt
    size = struct.unpack_from("<H", pkt, 2)[0]
    if rule == "steering2" and size == 40 and pkt[36] == 2:
        return reseal(pkt, pkt[:36] + b"\x01" + pkt[37:], key, 40)
    if rule == "none_ok" and size == 40:
        return as_key_mode(pkt, key)
    if rule == "tenant44" and size == 44:
        return reseal(pkt, pkt[:2] + struct.pack("<H", 40) + pkt[4:40] + pkt[44:], key, 44)
    return pkt


def main():
    rule, delegate = sys.argv[1], sys.argv[2:]
    if rule not in ("steering2", "tenant44", "none_ok"):
        sys.exit(f"broken_adapter.py: unknown rule {rule}")
    worker = subprocess.Popen(delegate, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    key = None
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("op") == "ha_create":
            key = req.get("key")
        elif req.get("op") == "datagram" and key is not None:
            req["data_hex"] = rewrite(rule, bytes.fromhex(req["data_hex"]), key).hex()
        elif req.get("op") == "vector" and req.get("kind") == "rate_response":
            inp = req["input"]
            inp["packet_hex"] = rewrite(rule, bytes.fromhex(inp["packet_hex"]), inp["key"]).hex()
        worker.stdin.write(json.dumps(req) + "\n")
        worker.stdin.flush()
        answer = worker.stdout.readline()
        if not answer:
            sys.exit(3)
        if req.get("op") == "hello":
            hello = json.loads(answer)
            hello.setdefault("client", {})["name"] = f"broken copy ({rule}) of " + hello["client"].get("name", "?")
            answer = json.dumps(hello) + "\n"
        sys.stdout.write(answer)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
