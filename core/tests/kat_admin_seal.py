#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent AES-256-GCM known answer for test_admin_frame.c (wire_protocol.md
# "Administrative Authentication", "AES-256-GCM Normative Framing", "Tenant
# Acknowledgment PDU"), built with pyca/cryptography from the spec layout
# alone: a Tenant Ack of an ADD from server_id 0x0123456789ABCDEF, sealed under
# the admin key 40..5f with nonce c0..cb. Prints the datagram as a C array.
import struct
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
# Tenant TLV: type, size, key_id (server_id), unique_id a0..af, time_stamp, steering 1, tenant_mgmt_flag 1, padding
tenant = struct.pack('<HHQ', 0x4C52, 40, 0x0123456789ABCDEF) + bytes(range(0xA0, 0xB0)) + \
    struct.pack('<QBBH', 1767225600123, 1, 1, 0)
assert len(tenant) == 40
nonce = bytes(range(0xC0, 0xCC))
auth_prefix = struct.pack('<HH', 0x4541, 32) + nonce
ack = struct.pack('<HHBBHHH', 0x5441, 12, 0x03, 0x00, 0, 0, 0)
assert len(ack) == 12
key = bytes(range(0x40, 0x60))
ct = AESGCM(key).encrypt(nonce, ack, tenant + auth_prefix)
c, tag = ct[:-16], ct[-16:]
dgram = tenant + auth_prefix + tag + c
assert len(dgram) == 84
for i in range(0, len(dgram), 12):
    print('    ' + ', '.join('0x%02x' % x for x in dgram[i:i + 12]) + ',')
