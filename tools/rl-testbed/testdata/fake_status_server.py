#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fake_status_server.py PORT_FILE UDP_PORT_DELTA [DEGRADED_REASON_CODE]

A one-shot administrative responder for run_admin_args.sh: binds 127.0.0.1
on a free UDP port (written to PORT_FILE), answers the first Status Query
with a Status Response V1 (wire_protocol.md "Status Response PDU": 448
bytes, status_code 0, all five health bits) whose udp_port is the bound port
plus UDP_PORT_DELTA and whose degraded_reason_code is DEGRADED_REASON_CODE
(default 0), sealed per "AES-256-GCM Normative Framing" under the
all-zero administrative key (rl-secret1qqqq...3teav5), then exits."""
import os
import socket
import struct
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

port_file, delta = sys.argv[1], int(sys.argv[2])
degraded = int(sys.argv[3]) if len(sys.argv) > 3 else 0
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
with open(port_file + ".tmp", "w") as f:
    f.write(str(port))
os.rename(port_file + ".tmp", port_file)
sock.settimeout(10)
data, peer = sock.recvfrom(2048)
server_id = (100 << 23) | (1 << 15) | 7
tenant = bytearray(data[:40])
struct.pack_into("<Q", tenant, 4, server_id)
sr = bytearray(448)
struct.pack_into("<HHBBHHH", sr, 0, 0x5253, 448, 1, 0, 0, 1, 440)
struct.pack_into("<QIHHHH", sr, 12, server_id, 7, 1, 0, (port + delta) & 0xFFFF, degraded)
struct.pack_into("<I", sr, 56, 0x1F)
nonce = os.urandom(12)
prefix = struct.pack("<HH", 0x4541, 32) + nonce
sealed = AESGCM(bytes(32)).encrypt(nonce, bytes(sr), bytes(tenant) + prefix)
sock.sendto(bytes(tenant) + prefix + sealed[-16:] + sealed[:-16], peer)
