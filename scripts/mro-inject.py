#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send malformed / adversarial MetaRoCE packets at a receiver's UDP port.

Plain UDP sockets and struct (fast enough for 10^5 packets in a TCG guest).
Layout: include/uapi/rdma/metaroce_wire.h. Every packet is one the receiver
must drop: counted in rx_unknown (not MetaRoCE v1: truncated base header,
wrong version) or rx_drops (the rest), never placed, never acked.

What an attacker off the path can and cannot guess (the hijack question):
QPNs are small sequential numbers, so the QPN of a live connection is
trivially guessed (we spray --qpn-lo..--qpn-hi). The 32-bit conn_token is a
keyed hash of both QPNs and the initial PSN (mro_conn.c): without reading the
connection setup it is a 1-in-2^32 guess per packet, and the PSN must also
land in the receive window of the right path. So every packet here aimed at
a live QPN carries a random (wrong) token and must be dropped as bad_token;
an on-path attacker that sees the traffic can of course copy the token.

usage: mro-inject.py DST_IP [--port 4795] [--count N] [--qpn-lo 1]
                     [--qpn-hi 64] [--seed S]
Prints one line per category: "inject <category> <packets>", then a total.
"""
import argparse
import random
import socket
import struct
import sys

VER = 1 << 4
SEND, WRITE, READ_REQ, READ_RESP, CMP_SWP = 0x01, 0x02, 0x03, 0x04, 0x05
ACK, NAK = 0x10, 0x11
F_FIRST, F_LAST, F_ACK = 0x04, 0x08, 0x80


def bth(rnd, opcode, flags, hdr_len, payload_len, qpn, ver=VER,
        hdr_words=None, token=None, psn=None):
    return struct.pack(">BBBBIIIHHIIHH", ver,
                       (hdr_len // 4) if hdr_words is None else hdr_words,
                       opcode, flags, qpn, rnd.randrange(1 << 24),
                       rnd.getrandbits(32) if token is None else token,
                       rnd.randrange(4), rnd.randrange(64),
                       rnd.getrandbits(32) if psn is None else psn,
                       rnd.getrandbits(32), payload_len, 0)


def write_hdr(rnd, va, rkey, msg_len, offset):
    return struct.pack(">QIIIIII", va, rkey, msg_len, rnd.getrandbits(32),
                       offset, 0, 0)


def ack_body(rnd, cum, sack_words, rate):
    bits = 0
    for w in range(3, -1, -1):
        if sack_words[w]:
            bits = w * 64 + sack_words[w].bit_length()
            break
    return struct.pack(">HHIIIIHHIB3x4Q", rnd.randrange(64), bits, cum,
                       rnd.getrandbits(32), rnd.getrandbits(32), rate,
                       rnd.randrange(1 << 16), rnd.randrange(1 << 16),
                       rnd.getrandbits(32), rnd.randrange(8), *sack_words)


def live_qpn(rnd, a):
    return rnd.randint(a.qpn_lo, a.qpn_hi)


# Each generator returns one packet (bytes); rnd is a seeded random.Random.
def truncated(rnd, a):
    return bytes([VER]) + rnd.randbytes(rnd.randrange(31))


def bad_version(rnd, a):
    ver = rnd.choice([0x00, 0x20, 0xf0, 0x21])
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, 0, live_qpn(rnd, a),
               ver=ver) + bytes(16)


def bad_hdr_words(rnd, a):
    pay = rnd.randbytes(rnd.randrange(64))
    hw = rnd.choice([0, 1, 7, 11, 13, 255])
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, len(pay), live_qpn(rnd, a),
               hdr_words=hw) + struct.pack(">IIII", 0, 0, 0, len(pay)) + pay


def bad_opcode(rnd, a):
    op = rnd.choice([0x00, 0x08, 0x0f, 0x12, 0x1f, 0x21, 0x7f, 0xff])
    return bth(rnd, op, 0, 48, 0, live_qpn(rnd, a)) + rnd.randbytes(16)


def bad_flags(rnd, a):
    # ACK with data flags, FIRST on a mid-message offset, IMM + INV together
    op, flags = rnd.choice([(ACK, F_FIRST | F_LAST), (SEND, F_FIRST | 0x60),
                            (READ_REQ, 0x20 | F_FIRST | F_LAST)])
    return bth(rnd, op, flags, 48, 0, live_qpn(rnd, a)) + bytes(16)


def wrong_length(rnd, a):
    # payload_len disagrees with the datagram (too long or trailing bytes)
    pay = rnd.randbytes(rnd.randrange(1, 200))
    claim = rnd.choice([len(pay) + rnd.randrange(1, 9000),
                        max(0, len(pay) - rnd.randrange(1, len(pay) + 1))])
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, claim & 0xffff,
               live_qpn(rnd, a)) + struct.pack(">IIII", 0, 0, 0,
                                               len(pay)) + pay


def reserved_qpn_bits(rnd, a):
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, 0,
               live_qpn(rnd, a) | (rnd.randrange(1, 256) << 24)) + \
        struct.pack(">IIII", 0, 0, 0, 0)


def unknown_qpn(rnd, a):
    pay = rnd.randbytes(32)
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, len(pay),
               rnd.randrange(0x100000, 0xffffff)) + \
        struct.pack(">IIII", 0, 0, 0, len(pay)) + pay


def live_qpn_wrong_token(rnd, a):
    pay = rnd.randbytes(rnd.randrange(1, 512))
    return bth(rnd, WRITE, F_FIRST | F_LAST, 64, len(pay), live_qpn(rnd, a)) \
        + write_hdr(rnd, rnd.getrandbits(32) << 12, rnd.getrandbits(32),
                    len(pay), 0) + pay


def forged_psn(rnd, a):
    # far outside any receive window (and a random wrong token too)
    pay = rnd.randbytes(64)
    return bth(rnd, SEND, F_FIRST | F_LAST, 48, len(pay), live_qpn(rnd, a),
               psn=rnd.choice([0x80000000, 0x7fffffff, 0xffffffff,
                               rnd.getrandbits(32)])) + \
        struct.pack(">IIII", 0, 0, 0, len(pay)) + pay


def sack_unsent(rnd, a):
    # ACK claiming every PSN up to far ahead, huge rate hint
    words = [(1 << 64) - 1] * 4
    return bth(rnd, ACK, 0, 96, 0, live_qpn(rnd, a), psn=0) + \
        ack_body(rnd, rnd.getrandbits(32), words,
                 rnd.choice([0xffffffff, 1, 0x7fffffff]))


def bad_rkey_bounds(rnd, a):
    # offset + payload past msg_len, va wrapping 2^64, random rkeys
    pay = rnd.randbytes(rnd.randrange(1, 256))
    kind = rnd.randrange(3)
    if kind == 0:
        hdr = write_hdr(rnd, 0x1000, rnd.getrandbits(32), 16, 8)
    elif kind == 1:
        hdr = write_hdr(rnd, (1 << 64) - 8, rnd.getrandbits(32),
                        len(pay), 0)
    else:
        hdr = write_hdr(rnd, rnd.getrandbits(64), rnd.getrandbits(32),
                        0x80000001, 0)
    return bth(rnd, WRITE, F_FIRST | F_LAST, 64, len(pay),
               live_qpn(rnd, a)) + hdr + pay


def piggyback_ack_huge_hint(rnd, a):
    pay = rnd.randbytes(16)
    return bth(rnd, SEND, F_FIRST | F_LAST | F_ACK, 112, len(pay),
               live_qpn(rnd, a)) + struct.pack(">IIII", 0, 0, 0, len(pay)) \
        + ack_body(rnd, rnd.getrandbits(32),
                   [rnd.getrandbits(64) for _ in range(4)], 0xffffffff) + pay


CATEGORIES = [truncated, bad_version, bad_hdr_words, bad_opcode, bad_flags,
              wrong_length, reserved_qpn_bits, unknown_qpn,
              live_qpn_wrong_token, forged_psn, sack_unsent, bad_rkey_bounds,
              piggyback_ack_huge_hint]
# Categories the receiver counts in rx_unknown (not a v1 base header).
UNKNOWN = {"truncated", "bad_version"}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dst")
    p.add_argument("--port", type=int, default=4795)
    p.add_argument("--count", type=int, default=100000)
    p.add_argument("--qpn-lo", type=int, default=1)
    p.add_argument("--qpn-hi", type=int, default=64)
    p.add_argument("--seed", type=int, default=12)
    a = p.parse_args()
    rnd = random.Random(a.seed)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
    dst = (a.dst, a.port)
    sent = {g.__name__: 0 for g in CATEGORIES}
    errors = 0
    for i in range(a.count):
        g = CATEGORIES[i % len(CATEGORIES)]
        try:
            s.sendto(g(rnd, a), dst)
            sent[g.__name__] += 1
        except OSError:
            errors += 1
    for name, n in sent.items():
        print(f"inject {name} {n}")
    unknown = sum(n for name, n in sent.items() if name in UNKNOWN)
    print(f"inject total {sum(sent.values())} unknown {unknown} "
          f"other {sum(sent.values()) - unknown} send_errors {errors}")
    return 0 if errors < a.count // 100 + 1 else 1


if __name__ == "__main__":
    sys.exit(main())
