#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the committed seed corpus for the fuzz harnesses (fuzz/fuzz.mk).

fuzz/corpus/wire/: one well-formed packet per opcode and extension
(include/uapi/rdma/metaroce_wire.h), each prefixed by the byte the harness
reads as the "linear header bytes" for mrt_wire_parse_hdr().
fuzz/corpus/conn/: event scripts for fuzz_conn.c (see its header).
Deterministic: rerunning produces the same files.
"""
import os
import struct
import sys

VER = 1 << 4
OP = dict(SEND=0x01, WRITE=0x02, READ_REQ=0x03, READ_RESP=0x04,
          CMP_SWP=0x05, FETCH_ADD=0x06, ATOMIC_RESP=0x07,
          ACK=0x10, NAK=0x11, PLANE_ADV=0x20)
F_ACK_REQ, F_RETX, F_FIRST, F_LAST = 0x01, 0x02, 0x04, 0x08
F_SOLICITED, F_IMM, F_INV, F_ACK = 0x10, 0x20, 0x40, 0x80


def bth(opcode, flags, hdr_len, payload_len, psn=7, path=1,
        dst=0x12, src=0x34, token=0xdeadbeef, stream=0):
    return struct.pack(">BBBBIIIHHIIHH", VER, hdr_len // 4, opcode, flags,
                       dst, src, token, stream, path, psn, 1000,
                       payload_len, 0)


def ack_body(path=1, cum=5, sack=(1, 0, 0, 0), rate=0, ce=0, dup=0,
             cpl=0, flags=0):
    bits = 0
    for w in range(3, -1, -1):
        if sack[w]:
            bits = w * 64 + sack[w].bit_length()
            break
    return struct.pack(">HHIIIIHHIB3x4Q", path, bits, cum, 100, 0, rate,
                       ce, dup, cpl, flags, *sack)


def packet(opcode, flags, body, payload=b"", **kw):
    ext = b""
    if flags & F_IMM:
        ext += struct.pack(">I", 0x11223344)
    if flags & F_INV:
        ext += struct.pack(">I", 0x55667788)
    if flags & F_ACK:
        ext += ack_body()
    hdr_len = 32 + len(body) + len(ext)
    return bth(opcode, flags, hdr_len, len(payload), **kw) + body + ext + \
        payload


def wire_seeds():
    pay = bytes(range(64))
    fl = F_FIRST | F_LAST
    send = struct.pack(">IIII", 0, 0, 0, len(pay))
    write = struct.pack(">QIIIIII", 0x10000, 0x77, len(pay), 0, 0, 0, 0)
    yield "send", packet(OP["SEND"], fl, send, pay)
    yield "send_mid", packet(OP["SEND"], 0,
                             struct.pack(">IIII", 0, 0, 64, 256), pay)
    yield "send_imm", packet(OP["SEND"], fl | F_IMM | F_SOLICITED, send, pay)
    yield "send_inv", packet(OP["SEND"], fl | F_INV, send, pay)
    yield "send_ack", packet(OP["SEND"], fl | F_ACK | F_ACK_REQ, send, pay)
    yield "write", packet(OP["WRITE"], fl, write, pay)
    yield "write_imm", packet(OP["WRITE"], fl | F_IMM, write, pay)
    yield "write_retx", packet(OP["WRITE"], fl | F_RETX, write, pay)
    yield "read_req", packet(OP["READ_REQ"], fl,
                             struct.pack(">QIIII", 0x2000, 0x77, 4096, 1, 0))
    yield "read_resp", packet(OP["READ_RESP"], F_FIRST,
                              struct.pack(">IIII", 1, 0, 4096, 0), pay)
    yield "cmp_swp", packet(OP["CMP_SWP"], fl,
                            struct.pack(">QQQII", 0x3000, 5, 4, 0x77, 2))
    yield "fetch_add", packet(OP["FETCH_ADD"], fl,
                              struct.pack(">QQQII", 0x3008, 1, 0, 0x77, 3))
    yield "atomic_resp", packet(OP["ATOMIC_RESP"], fl,
                                struct.pack(">QII", 42, 2, 0))
    yield "ack", packet(OP["ACK"], 0, ack_body(), psn=0)
    yield "ack_full_sack", packet(OP["ACK"], 0, ack_body(
        sack=(2**64 - 1,) * 4, rate=100000, ce=3, flags=4, cpl=9), psn=0)
    yield "nak", packet(OP["NAK"], 0,
                        struct.pack(">HBBIII", 1, 1, 0, 7, 3, 200), psn=0)
    planes = [struct.pack(">BBHI16s", 0, 4, 4795, 0, bytes([10, 0, 0, 1])),
              struct.pack(">BBHI16s", 1, 6, 4795, 0, bytes(range(16)))]
    yield "plane_adv", packet(OP["PLANE_ADV"], 0,
                              struct.pack(">B7x", 2) + b"".join(planes))


def conn_seeds():
    # fuzz_conn.c: byte 0 = number of paths - 1, then 4-byte events
    # (op, path, arg0, arg1); see the event table there.
    yield "send_ack", bytes([1]) + bytes([0, 0, 0, 0, 0, 1, 0, 0,
                                          1, 0, 1, 0, 1, 1, 1, 0])
    yield "loss_timer", bytes([2]) + bytes([0, 0, 0, 0] * 8 +
                                           [2, 0, 255, 0] * 4 +
                                           [1, 0, 3, 0x55])
    yield "many", bytes([3]) + bytes(
        [x for i in range(40) for x in (i % 5, i % 4, i * 7 & 255, i)])


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus"
    for sub, gen, prefix in (("wire", wire_seeds, b"\xff"),
                             ("conn", conn_seeds, b"")):
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        for name, data in gen():
            with open(os.path.join(d, name), "wb") as f:
                f.write(prefix + data)


if __name__ == "__main__":
    main()
