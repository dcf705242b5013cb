#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Independent AES-256-GCM known answer for test_auth.c (wire_protocol.md
# "AES-256-GCM Normative Framing"), built with pyca/cryptography from the spec
# layout alone; prints the tag and ciphertext pasted into test_auth.c.
import struct
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
tenant = struct.pack('<HHQ', 0x4C52, 40, 0x0102030405060708) + bytes(range(0xA0,0xB0)) + struct.pack('<QBBH', 0x0000018F12345678, 1, 0, 0)
assert len(tenant) == 40
nonce = bytes(range(0xC0, 0xCC))
auth_prefix = struct.pack('<HH', 0x4541, 32) + nonce
guard = bytes(range(0x10,0x20)) + struct.pack('<6I', 60000, 100, 32, 5, 250, 0)
res = bytes(range(0x20,0x30)) + struct.pack('<IIHH', 1000, 100, 3, 0)
label = struct.pack('<HHH', 0x4C4D, 12, 3) + b'api' + b'\0\0\0'
body = struct.pack('<IHH', 300, 1, 1) + guard + res + label
pdu = struct.pack('<HH', 0x5452, 4 + len(body)) + body  # pdu_size counts the 4 header bytes written here
assert len(pdu) == 92 and pdu[2] == 92
key = bytes(range(0x40, 0x60))
ct = AESGCM(key).encrypt(nonce, pdu, tenant + auth_prefix)
c, tag = ct[:-16], ct[-16:]
dgram = tenant + auth_prefix + tag + c
assert len(dgram) == 164
def carr(b):
    out=[]
    for i in range(0,len(b),12):
        out.append('    ' + ', '.join('0x%02x'%x for x in b[i:i+12]) + ',')
    return '\n'.join(out)
print('tag:'); print(carr(tag)); print('ct:'); print(carr(c))
