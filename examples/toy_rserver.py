#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""toy_rserver.py - a loopback stand-in for an r-server, for the event-loop
example's end-to-end test only (not the simulator's reference model).

Answers rl-none Rate Requests (wire_protocol.md "rate_request PDU") with an
allow: the request modified in place into a Rate Response, key_id replaced by
this server's server_id, every guard's current_latency set to 0, every
deficit 0 and actual_rate 1. Anything else is dropped, as a server drops what
it cannot authenticate. Prints the bound port, then serves until killed or
--max requests have been answered.
"""
import argparse
import socket
import struct

TENANT, AUTH_NONE, RATE_REQUEST, RATE_RESPONSE = 0x4C52, 0x414E, 0x5452, 0x5252


def answer(data: bytes, server_id: int):
    if len(data) < 56:
        return None
    t_type, t_size = struct.unpack_from("<HH", data, 0)
    a_type, a_size = struct.unpack_from("<HH", data, 40)
    if (t_type, t_size, a_type, a_size) != (TENANT, 40, AUTH_NONE, 4):
        return None
    pdu = 44
    p_type, p_size, _ttl, n_guards, n_res = struct.unpack_from("<HHIHH", data, pdu)
    if p_type != RATE_REQUEST or pdu + p_size != len(data):
        return None
    out = bytearray(data)
    struct.pack_into("<Q", out, 4, server_id)
    struct.pack_into("<HHHH", out, pdu, RATE_RESPONSE, p_size, 0, 0)
    off = pdu + 12
    for _ in range(n_guards):
        struct.pack_into("<I", out, off + 36, 0)
        off += 40
    for _ in range(n_res):
        struct.pack_into("<I", out, off + 20, 1)
        struct.pack_into("<H", out, off + 24, 0)
        off += 28
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--server-id", type=int, required=True,
                    help="server_id written into every response (must match the client's configuration)")
    ap.add_argument("--max", type=int, default=1000, help="exit after answering this many requests (default 1000)")
    ap.add_argument("--idle-s", type=float, default=30.0,
                    help="exit after this many seconds without a datagram (default 30)")
    args = ap.parse_args()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(args.idle_s)
    print(s.getsockname()[1], flush=True)
    served = 0
    while served < args.max:
        try:
            data, peer = s.recvfrom(2048)
        except socket.timeout:
            break
        reply = answer(data, args.server_id)
        if reply is not None:
            s.sendto(reply, peer)
            served += 1


if __name__ == "__main__":
    main()
