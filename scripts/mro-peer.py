#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scripted MetaRoCE peer: protocol compliance checks against the driver.

A userspace end of one RC connection, speaking the wire format of
Documentation/wire-format.rst (include/uapi/rdma/metaroce_wire.h) over a
plain UDP socket. The other end is a QP made by
selftests/kmod/mro_peer_target.ko on a metaroce device; its debugfs files
(info, mr, cq, post) tell us the QPN, rkey, VA and MR bytes, and let us
make the driver send.

Connection parameters are derived exactly as mro_conn.c does (no
handshake): token(A -> B) = jhash_3words(qpn A, qpn B, first PSN of A,
"MRTK"), first PSN of path i = jhash_2words(qp PSN, i, "MRPS"). The driver's
own packets carry its token, which checks our derivation.

Each check prints one line "check RC DESCRIPTION" (RC 0 = pass) for
selftests/compliance.sh to turn into TAP; every check is always printed,
so the count is fixed (CHECKS below). Lines starting with "#" are diagnostics.

usage: mro-peer.py --local IP --remote IP --dbg DEBUGFS_DIR --dev mrb
                   [--qpn N] [--paths N] [--port 4795]
"""
import argparse
import os
import socket
import struct
import sys
import time

CHECKS = 38

VER = 1 << 4
SEND, WRITE, READ_REQ, READ_RESP = 0x01, 0x02, 0x03, 0x04
ACK, NAK = 0x10, 0x11
F_ACK_REQ, F_RETX, F_FIRST, F_LAST = 0x01, 0x02, 0x04, 0x08
F_IMM, F_INV, F_ACK = 0x20, 0x40, 0x80
ACKF_ECHO_RETX, ACKF_ECHO_DUP, ACKF_CPL = 0x01, 0x02, 0x04
NAK_REM_ACCESS = 2
BTH_FMT = ">BBBBIIIHHIIHH"
ACK_FMT = ">HHIIIIHHIB3x4Q"
NAK_FMT = ">HBxIII"
WRITE_FMT = ">QIIIIII"
M32 = 0xffffffff


# ---- jhash, as include/linux/jhash.h ------------------------------------
def _rol(x, k):
    return ((x << k) | (x >> (32 - k))) & M32


def _final(a, b, c):
    c = ((c ^ b) - _rol(b, 14)) & M32
    a = ((a ^ c) - _rol(c, 11)) & M32
    b = ((b ^ a) - _rol(a, 25)) & M32
    c = ((c ^ b) - _rol(b, 16)) & M32
    a = ((a ^ c) - _rol(c, 4)) & M32
    b = ((b ^ a) - _rol(a, 14)) & M32
    c = ((c ^ b) - _rol(b, 24)) & M32
    return c


def jhash_3words(a, b, c, initval):
    iv = (initval + 0xdeadbeef + (3 << 2)) & M32
    return _final((a + iv) & M32, (b + iv) & M32, (c + iv) & M32)


def jhash_2words(a, b, initval):
    iv = (initval + 0xdeadbeef + (2 << 2)) & M32
    return _final((a + iv) & M32, (b + iv) & M32, iv)


TOKEN_SALT, PSN_SALT = 0x4d52544b, 0x4d525053


def token(src_qpn, dst_qpn, first_psn):
    return jhash_3words(src_qpn, dst_qpn, first_psn, TOKEN_SALT)


def path_first_psn(qp_psn, path):
    return jhash_2words(qp_psn, path, PSN_SALT)


def psn_before(a, b):
    return ((a - b) & M32) >= 0x80000000


# ---- results --------------------------------------------------------------
class Report:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, desc):
        self.n += 1
        if not cond:
            self.failed += 1
        print(f"check {0 if cond else 1} {desc}", flush=True)

    @staticmethod
    def diag(msg):
        print(f"# {msg}", flush=True)


# ---- the peer ---------------------------------------------------------------
class Peer:
    def __init__(self, a):
        self.a = a
        self.dbg = os.path.join(a.dbg, "mro_peer_target")
        info = open(os.path.join(self.dbg, "info")).read().split()
        kv = dict(zip(info[0::2], info[1::2]))
        self.drv_qpn = int(kv["qpn"])
        self.rkey = int(kv["rkey"])
        self.va = int(kv["va"])
        self.mr_len = int(kv["len"])
        self.drv_sq_psn = int(kv["sq_psn"])
        self.drv_rq_psn = int(kv["rq_psn"])
        self.mtu = int(kv["mtu"])
        self.qpn = a.qpn
        self.paths = a.paths
        # what we send: token and PSNs the driver's receiver expects
        self.tx_token = token(self.qpn, self.drv_qpn, self.drv_rq_psn)
        self.tx_psn = [path_first_psn(self.drv_rq_psn, i)
                       for i in range(self.paths)]
        # what the driver sends us
        self.rx_token = token(self.drv_qpn, self.qpn, self.drv_sq_psn)
        self.rx_first = [path_first_psn(self.drv_sq_psn, i)
                         for i in range(self.paths)]
        self.msn = 0
        self.tsval = 1000
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        # a slow guest must not lose the driver's bursts in our buffer
        self.sock.setsockopt(socket.SOL_SOCKET,
                             getattr(socket, "SO_RCVBUFFORCE", 33), 1 << 22)
        self.sock.bind((a.local, a.port))
        self.dst = (a.remote, a.port)
        self.tokens_seen = set()

    # -- driver state through debugfs --
    def mr(self):
        with open(os.path.join(self.dbg, "mr"), "rb") as f:
            return f.read()

    def cq(self):
        w = open(os.path.join(self.dbg, "cq")).read().split()
        return dict(zip(w[0::2], (int(x) for x in w[1::2])))

    def counters(self):
        out = {}
        path = os.path.join(self.a.dbg, "metaroce", self.a.dev, "counters")
        for line in open(path):
            f = line.split()
            if len(f) == 2 and f[1].isdigit():
                out[f[0]] = int(f[1])
        return out

    # -- packets --
    def bth(self, opcode, flags, hdr_len, payload_len, path, psn, tsval,
            stream=0, tok=None, dst=None):
        return struct.pack(BTH_FMT, VER, hdr_len // 4, opcode, flags,
                           self.drv_qpn if dst is None else dst, self.qpn,
                           self.tx_token if tok is None else tok, stream,
                           path, psn, tsval, payload_len, 0)

    def next_tsval(self):
        self.tsval += 1
        return self.tsval

    def write(self, path, payload, offset_in_mr=0, flags=F_FIRST | F_LAST,
              psn=None, msn=None, rkey=None, va=None, msg_len=None,
              advance=True):
        """Send one single-packet WRITE; returns (psn, msn, tsval)."""
        p = self.tx_psn[path] if psn is None else psn
        m = self.msn if msn is None else msn
        ts = self.next_tsval()
        hdr = struct.pack(WRITE_FMT,
                          self.va + offset_in_mr if va is None else va,
                          self.rkey if rkey is None else rkey,
                          len(payload) if msg_len is None else msg_len,
                          m, 0, 0, 0)
        pkt = self.bth(WRITE, flags, 64, len(payload), path, p, ts) + hdr \
            + payload
        self.sock.sendto(pkt, self.dst)
        if advance and psn is None:
            self.tx_psn[path] = (p + 1) & M32
        if advance and msn is None:
            self.msn = (self.msn + 1) & M32
        return p, m, ts

    def send_ack(self, drv_path, cum, sack_set, echo=0, hold_ns=0):
        words = [0, 0, 0, 0]
        bits = 0
        for psn in sack_set:
            i = (psn - cum - 1) & M32
            if i < 256:
                words[i // 64] |= 1 << (i % 64)
                bits = max(bits, i + 1)
        body = struct.pack(ACK_FMT, drv_path, bits, cum, echo, hold_ns, 0, 0,
                           0, 0, 0, *words)
        pkt = self.bth(ACK, 0, 96, 0, 0, 0, self.next_tsval()) + body
        self.sock.sendto(pkt, self.dst)

    def parse(self, data):
        if len(data) < 32:
            return None
        f = struct.unpack(BTH_FMT, data[:32])
        p = {"ver": f[0], "hdr_len": f[1] * 4, "op": f[2], "flags": f[3],
             "dst": f[4], "src": f[5], "token": f[6], "stream": f[7],
             "path": f[8], "psn": f[9], "tsval": f[10], "plen": f[11]}
        self.tokens_seen.add(p["token"])
        off = 32
        if p["op"] == ACK:
            a = struct.unpack(ACK_FMT, data[off:off + 64])
            p["ack"] = dict(zip(["path_id", "sack_bits", "cum", "echo",
                                 "hold_ns", "rate_hint", "ce", "dup",
                                 "cpl_msn", "flags"], a[:10]))
            p["ack"]["sack"] = a[10:14]
        elif p["op"] == NAK:
            n = struct.unpack(NAK_FMT, data[off:off + 16])
            p["nak"] = dict(zip(["path_id", "syndrome", "psn", "msn",
                                 "rnr_wait"], n))
        elif p["op"] == WRITE:
            w = struct.unpack(WRITE_FMT, data[off:off + 32])
            p["write"] = dict(zip(["va", "rkey", "msg_len", "msn", "offset"],
                                  w[:5]))
            p["payload"] = data[p["hdr_len"]:p["hdr_len"] + p["plen"]]
        return p

    def collect(self, secs, until=None):
        """Packets from the driver for secs seconds (or until(list) true)."""
        out = []
        end = time.monotonic() + secs
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return out
            self.sock.settimeout(left)
            try:
                data, _ = self.sock.recvfrom(65536)
            except socket.timeout:
                return out
            p = self.parse(data)
            if p:
                out.append(p)
                if until and until(out):
                    return out


def acks_echoing(pkts, ts):
    return [p["ack"] for p in pkts if p["op"] == ACK and
            p["ack"]["echo"] == ts]


def sack_set(ack):
    out = set()
    for w in range(4):
        for b in range(64):
            if ack["sack"][w] >> b & 1:
                out.add((ack["cum"] + 1 + w * 64 + b) & M32)
    return out


def expect_mr(peer, base, writes):
    buf = bytearray(base)
    for off, data in writes:
        buf[off:off + len(data)] = data
    return bytes(buf)


# ---- scenarios: the driver as responder ------------------------------------
def responder(peer, r):
    mr0 = peer.mr()
    pattern = bytes((i * 7 + 0x5a) & 0xff for i in range(peer.mr_len))
    r.check(mr0 == pattern, f"MR of {peer.mr_len} bytes holds the "
            "target's initial pattern")
    placed = []

    # 1. in-order WRITEs on path 0, ACK_REQ on the last: one immediate ACK
    base = peer.tx_psn[0]
    for i in range(4):
        data = bytes([0x10 + i]) * 100
        last = i == 3
        _, _, ts = peer.write(0, data, offset_in_mr=i * 100,
                              flags=F_FIRST | F_LAST |
                              (F_ACK_REQ if last else 0))
        placed.append((i * 100, data))
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    a = a[-1] if a else None
    r.diag(f"in-order ACK: {a}")
    r.check(a is not None and a["path_id"] == 0 and
            a["cum"] == (base + 4) & M32 and a["sack_bits"] == 0 and
            a["sack"] == (0, 0, 0, 0),
            "4 in-order WRITEs: ACK with cum_psn = first + 4, empty SACK")
    # the ACK leaves before the message it acks is released: 3 or 4
    r.check(a is not None and a["flags"] & ACKF_CPL and
            a["cpl_msn"] in (3, 4),
            "ACK carries CPL, cpl_msn 3..4 (never a message not complete)")
    r.check(a is not None and a["hold_ns"] < 20000,
            "ACK_REQ: ACK sent at once (hold_ns below the 20 us delay)")
    r.check(a is not None and a["rate_hint"] < 10 ** 7,
            f"ACK rate_hint field present and sane "
            f"({a['rate_hint'] if a else '-'} Mbit/s)")
    acks = [p for p in pk if p["op"] == ACK]
    r.check(bool(acks) and all(p["token"] == peer.rx_token and
                               p["dst"] == peer.qpn and
                               p["src"] == peer.drv_qpn and p["psn"] == 0 and
                               p["hdr_len"] == 96 for p in acks),
            "driver's ACKs carry our QPN, its QPN, token(jhash) and PSN 0")
    r.check(peer.mr() == expect_mr(peer, pattern, placed),
            "the 4 WRITEs placed at va + offset, nothing else changed")

    # 2. a gap: skip PSN k on path 1
    c0 = peer.counters()
    k = peer.tx_psn[1]
    peer.write(1, b"\x21" * 64, offset_in_mr=1000)       # k
    placed.append((1000, b"\x21" * 64))
    skipped_msn = peer.msn
    peer.msn += 1
    peer.tx_psn[1] = (k + 2) & M32                       # k + 1 skipped
    _, _, ts = peer.write(1, b"\x23" * 64, offset_in_mr=1128,
                          psn=(k + 2) & M32, advance=False)
    peer.tx_psn[1] = (k + 3) & M32
    peer.msn = (peer.msn + 1) & M32
    placed.append((1128, b"\x23" * 64))
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    a = a[0] if a else None
    r.diag(f"gap ACK: {a}")
    r.check(a is not None and a["cum"] == (k + 1) & M32 and
            a["sack_bits"] == 1 and a["sack"] == (1, 0, 0, 0),
            "gap at PSN k+1: SACK bitmap has exactly that hole "
            "(cum k+1, bit 0)")
    r.check(a is not None and a["hold_ns"] < 20000,
            f"gap ACK is immediate (hold_ns {a['hold_ns'] if a else '-'})")
    r.check(a is not None and a["cpl_msn"] == skipped_msn,
            f"cpl_msn stops at the missing message ({skipped_msn})")
    r.check(peer.mr() == expect_mr(peer, pattern, placed),
            "the packet after the hole is placed at once (out of order)")

    # 3. fill the hole (delayed ACK: no ACK_REQ)
    _, _, ts = peer.write(1, b"\x22" * 64, offset_in_mr=1064,
                          psn=(k + 1) & M32, msn=skipped_msn, advance=False)
    placed.append((1064, b"\x22" * 64))
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    a = a[-1] if a else None
    r.diag(f"filled ACK: {a}")
    r.check(a is not None and a["cum"] == (k + 3) & M32 and
            a["sack_bits"] == 0,
            "hole filled: cum_psn advances past the SACKed PSN, SACK empty")
    # an ACK sent at arrival is built before the release: may lag by one
    r.check(a is not None and a["cpl_msn"] in (skipped_msn, peer.msn),
            f"cpl_msn {a['cpl_msn'] if a else '-'} is {skipped_msn} (ACK "
            f"before release) or {peer.msn}, never beyond")
    r.check(peer.mr() == expect_mr(peer, pattern, placed),
            "MR holds exactly the placed bytes")

    # 4. duplicate PSN with different bytes: acked again, placed once
    c1 = peer.counters()
    _, _, ts = peer.write(1, b"\xee" * 64, offset_in_mr=1064,
                          psn=(k + 1) & M32, msn=skipped_msn, advance=False)
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    a = a[-1] if a else None
    c2 = peer.counters()
    r.diag(f"duplicate ACK: {a}; ECHO_DUP flag "
           f"{'set' if a and a['flags'] & ACKF_ECHO_DUP else 'not set'}")
    r.check(a is not None and a["cum"] == (k + 3) & M32 and a["dup"] == 1,
            "duplicate PSN: acked again at once, dup_count 1")
    r.check(c2.get("rx_duplicates", 0) - c1.get("rx_duplicates", 0) == 1,
            "rx_duplicates +1")
    # cross-path duplicate: same msn/offset, new PSN on path 2 (a resend)
    _, _, ts = peer.write(2, b"\xef" * 64, offset_in_mr=1064,
                          msn=skipped_msn, flags=F_FIRST | F_LAST | F_RETX |
                          F_ACK_REQ)
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    a = a[-1] if a else None
    r.check(a is not None and a["path_id"] == 2 and a["flags"] &
            ACKF_ECHO_RETX, "resend of a completed message on another "
            "path: acked on that path with ECHO_RETX")
    r.check(peer.mr() == expect_mr(peer, pattern, placed),
            "duplicates placed nothing (MR unchanged)")

    # 5. zero-length edges on path 3 (bad rkeys: step 10, they end the QP)
    # zero length exactly at the MR end, and with a bad rkey: legal no-ops
    _, _, ts = peer.write(3, b"", va=peer.va + peer.mr_len,
                          flags=F_FIRST | F_LAST | F_ACK_REQ)
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    r.check(bool(acks_echoing(pk, ts)) and not any(p["op"] == NAK
                                                   for p in pk),
            "zero-length WRITE at va = MR end: ACKed, no NAK")
    _, _, ts = peer.write(3, b"", rkey=0xdead00,
                          flags=F_FIRST | F_LAST | F_ACK_REQ)
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    r.check(bool(acks_echoing(pk, ts)) and not any(p["op"] == NAK
                                                   for p in pk),
            "zero-length WRITE with a bad rkey: ACKed (no rkey check, as IB)")
    _, _, ts = peer.write(3, b"\x77", va=peer.va + peer.mr_len - 1,
                          flags=F_FIRST | F_LAST | F_ACK_REQ)
    placed.append((peer.mr_len - 1, b"\x77"))
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    r.check(bool(acks_echoing(pk, ts)) and
            peer.mr() == expect_mr(peer, pattern, placed),
            "1-byte WRITE at the last MR byte: ACKed and placed")

    # 6. PSN far outside the window on path 4: counted drop, no ACK
    c1 = peer.counters()
    far = (peer.tx_psn[4] + 0x80000000) & M32
    _, _, ts = peer.write(4, b"\x55" * 64, offset_in_mr=8192, psn=far,
                          flags=F_FIRST | F_LAST | F_ACK_REQ, advance=False)
    pk = peer.collect(0.5)
    c2 = peer.counters()
    r.check(not [p for p in pk if p["op"] in (ACK, NAK)],
            "PSN 2^31 away from the window: no ACK, no NAK")
    r.check(c2.get("rx_drops", 0) - c1.get("rx_drops", 0) == 1,
            f"...counted as one drop (rx_drops +"
            f"{c2.get('rx_drops', 0) - c1.get('rx_drops', 0)})")
    r.diag("per-reason counters now: " + " ".join(
        f"{k_}={v}" for k_, v in sorted(c2.items())
        if v != c1.get(k_, 0)))
    # the path is still usable at its right PSN, with the same message
    _, _, ts = peer.write(4, b"\x56" * 64, offset_in_mr=8192, msn=peer.msn,
                          flags=F_FIRST | F_LAST | F_ACK_REQ)
    placed.append((8192, b"\x56" * 64))
    peer.msn = (peer.msn + 1) & M32
    pk = peer.collect(1.0, lambda o: acks_echoing(o, ts))
    a = acks_echoing(pk, ts)
    r.check(bool(a) and a[-1]["cum"] == peer.tx_psn[4] and
            peer.mr() == expect_mr(peer, pattern, placed),
            "...and the path's window is unchanged (next PSN acked, placed)")

    # 7. wrong token / wrong source QPN from the right address: dropped
    c1 = peer.counters()
    for tok, src in ((peer.tx_token ^ 1, peer.qpn), (peer.tx_token,
                                                     peer.qpn + 1)):
        ts = peer.next_tsval()
        pkt = struct.pack(BTH_FMT, VER, 16, WRITE, F_FIRST | F_LAST |
                          F_ACK_REQ, peer.drv_qpn, src, tok, 0, 5,
                          peer.tx_psn[5], ts, 64, 0) + \
            struct.pack(WRITE_FMT, peer.va + 12288, peer.rkey, 64, peer.msn,
                        0, 0, 0) + b"\x66" * 64
        peer.sock.sendto(pkt, peer.dst)
    pk = peer.collect(0.5)
    c2 = peer.counters()
    r.check(not [p for p in pk if p["op"] in (ACK, NAK)] and
            c2.get("rx_drops", 0) - c1.get("rx_drops", 0) == 2 and
            peer.mr() == expect_mr(peer, pattern, placed),
            "wrong token / wrong src QPN: 2 counted drops, no reply, "
            "nothing placed")
    return placed


# ---- last: a class C error ends the responder QP ----------------------------
def qp_state(peer):
    path = os.path.join(peer.a.dbg, "metaroce", peer.a.dev, "qps")
    for line in open(path).read().splitlines()[1:]:
        f = line.split()
        if f and f[0] == str(peer.drv_qpn):
            return f[2]
    return None


def class_c(peer, r, pattern, placed):
    # 10. WRITE with a bad rkey: NAK REM_ACCESS naming path, PSN and msn,
    # nothing written, and the driver's QP goes to ERR (IB 9.9.3 class C)
    def nak_for(path, psn, msn, pk):
        return [p["nak"] for p in pk if p["op"] == NAK and
                p["nak"]["psn"] == psn and p["nak"]["path_id"] == path and
                p["nak"]["msn"] == msn]

    p_, m_ = peer.tx_psn[3], peer.msn
    peer.write(3, b"\x99" * 64, rkey=peer.rkey ^ 0x100, offset_in_mr=4096,
               flags=F_FIRST | F_LAST | F_ACK_REQ, advance=False)
    pk = peer.collect(1.0, lambda o: nak_for(3, p_, m_, o))
    n = nak_for(3, p_, m_, pk)
    r.diag(f"bad rkey: {n[:1]}")
    r.check(n and n[0]["syndrome"] == NAK_REM_ACCESS and
            n[0]["rnr_wait"] == 0,
            "WRITE with a bad rkey: NAK REM_ACCESS naming its path, PSN "
            "and msn")
    r.check(peer.mr() == expect_mr(peer, pattern, placed),
            "the NAKed WRITE wrote nothing")
    state = None
    for _ in range(20):
        state = qp_state(peer)
        if state == "ERR":
            break
        time.sleep(0.05)
    r.check(state == "ERR", f"the driver's QP is in ERR after it (qps: "
            f"{state})")
    # the same request again, now in range: ignored and counted
    c1 = peer.counters()
    _, _, ts = peer.write(3, b"\x98" * 64, offset_in_mr=4096,
                          flags=F_FIRST | F_LAST | F_ACK_REQ)
    pk = peer.collect(0.5)
    c2 = peer.counters()
    r.check(not [p for p in pk if p["op"] in (ACK, NAK)] and
            c2.get("drop_bad_qp_state", 0) -
            c1.get("drop_bad_qp_state", 0) == 1 and
            peer.mr() == expect_mr(peer, pattern, placed),
            "a valid WRITE after it: no reply, one drop_bad_qp_state, "
            f"nothing placed (+{c2.get('drop_bad_qp_state', 0) - c1.get('drop_bad_qp_state', 0)})")


# ---- the driver as sender -------------------------------------------------
def sender(peer, r, nwrites=24, length=512):
    # 8. an ACK claiming unsent data: dropped, counted, sender unharmed
    c1 = peer.counters()
    peer.send_ack(0, (peer.rx_first[0] + 1000) & M32, [])
    peer.send_ack(1, peer.rx_first[1],
                  [(peer.rx_first[1] + 200) & M32])
    time.sleep(0.3)
    c2 = peer.counters()
    r.check(c2.get("rx_drops", 0) - c1.get("rx_drops", 0) == 2,
            "ACKs with cum_psn / SACK beyond what was sent: 2 counted drops")

    # 9. the driver WRITEs to us; we lose its 2nd packet on one path
    with open(os.path.join(peer.dbg, "post"), "w") as f:
        f.write(f"{nwrites} {length}\n")
    expected = bytes((i ^ 0xc3) & 0xff for i in range(length))
    rcum = list(peer.rx_first)
    rgot = [set() for _ in range(peer.paths)]
    acked = {}             # (msn, offset) -> when we first acked it
    seen = {}              # (msn, offset) -> first copy
    per_path = [0] * peer.paths
    drop = None            # (path, psn, (msn, offset))
    retx = []              # (placement, path, psn, was_acked_before)
    bad_payload = 0
    bad_hdr = 0
    t_end = time.monotonic() + 20
    cq = {}
    log = []
    last_cq = 0
    while time.monotonic() < t_end:
        # one packet at a time: ACK it before reading the next
        pk = peer.collect(0.05, lambda o: True)
        for p in pk:
            if len(log) < 60:
                log.append((p["op"], p["path"], p["psn"] & 0xffff,
                            p.get("write", {}).get("msn"), p["flags"]))
            if p["op"] != WRITE:
                continue
            w = p["write"]
            place = (w["msn"], w["offset"])
            path, psn = p["path"], p["psn"]
            if (p["token"] != peer.rx_token or p["dst"] != peer.qpn or
                    w["rkey"] != 0x77 or path >= peer.paths):
                bad_hdr += 1
                continue
            if p["payload"] != expected[w["offset"]:w["offset"] +
                                        p["plen"]]:
                bad_payload += 1
            if p["flags"] & F_RETX:
                since = time.monotonic() - acked[place] if place in acked \
                    else None
                retx.append((place, path, psn, since))
            per_path[path] += 1
            if drop is None and per_path[path] == 2 and \
                    not p["flags"] & F_RETX:
                drop = (path, psn, place)
                r.diag(f"dropping path {path} PSN {psn} (msn {place[0]})")
                continue
            seen.setdefault(place, p)
            rgot[path].add(psn)
            while rcum[path] in rgot[path]:
                rgot[path].discard(rcum[path])
                rcum[path] = (rcum[path] + 1) & M32
            acked.setdefault(place, time.monotonic())
            peer.send_ack(path, rcum[path], rgot[path], echo=p["tsval"])
        if time.monotonic() - last_cq < 0.2:
            continue
        last_cq = time.monotonic()
        cq = peer.cq()
        if cq.get("ok", 0) + cq.get("err", 0) >= nwrites:
            break
    cq = peer.cq()
    c3 = peer.counters()
    r.diag("sender phase counters: " + " ".join(
        f"{k_}=+{v - c2.get(k_, 0)}" for k_, v in sorted(c3.items())
        if v != c2.get(k_, 0)))
    srtt_max_s = 0.0
    try:
        rows = open(os.path.join(peer.a.dbg, "metaroce", peer.a.dev,
                                 "paths")).read().splitlines()
        r.diag("paths: " + " | ".join(rows))
        col = rows[0].split().index("srtt_us")
        srtt_max_s = max(int(x.split()[col]) for x in rows[1:]) / 1e6
    except (OSError, ValueError, IndexError):
        pass
    r.diag(f"sender: first packets (op, path, psn & 0xffff, msn, flags) {log}")
    r.diag(f"sender: per-path packets {per_path}, retransmissions "
           f"{[(m, pa, ps, None if b is None else round(b * 1000, 1)) for (m, pa, ps, b) in retx]} "
           f"(ms after our ACK), cq {cq}")
    r.check(drop is not None, "a packet to drop: 2nd on some path")
    r.check(drop is not None and any(x[0] == drop[2] for x in retx),
            "the dropped PSN's message is retransmitted (RETX, same msn "
            "and offset)")
    r.check(drop is not None and all((x[1], x[2]) != drop[:2] for x in retx),
            "...with a new PSN (never the lost one again)")
    # our ACK may cross a timer-driven probe or RTO: allow 4 srtt (TCG
    # srtt is tens of ms, mostly this script's own latency), >= 250 ms
    limit = max(0.25, 4 * srtt_max_s)
    late = [x for x in retx if x[3] is not None and x[3] > limit]
    r.check(not late, "nothing we had acked (cum or SACK) "
            f"{limit * 1000:.0f} ms before was retransmitted "
            f"({len(late)} such)")
    r.check(bad_payload == 0 and bad_hdr == 0,
            f"every data packet carries the right token/rkey and bytes "
            f"(bad payload {bad_payload}, bad header {bad_hdr})")
    r.check(cq.get("ok", 0) == nwrites and cq.get("err", 0) == 0,
            f"all {nwrites} WRITEs completed successfully, once each "
            f"(ok {cq.get('ok')}, err {cq.get('err')})")
    r.check(len(seen) == nwrites,
            f"{nwrites} distinct messages received ({len(seen)})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--local", required=True)
    ap.add_argument("--remote", required=True)
    ap.add_argument("--dbg", required=True, help="debugfs mount point")
    ap.add_argument("--dev", default="mrb")
    ap.add_argument("--qpn", type=int, default=0x1234)
    ap.add_argument("--paths", type=int, default=8)
    ap.add_argument("--port", type=int, default=4795)
    a = ap.parse_args()
    r = Report()
    peer = Peer(a)
    Report.diag(f"driver qpn {peer.drv_qpn} rkey {peer.rkey:#x} va "
                f"{peer.va:#x} mtu {peer.mtu}; tx token {peer.tx_token:#x}, "
                f"rx token {peer.rx_token:#x}")
    try:
        placed = responder(peer, r)
        r.check(peer.rx_token in peer.tokens_seen and
                len(peer.tokens_seen) == 1,
                "the driver's token is jhash_3words(qpn, peer qpn, sq_psn) "
                "as wire-format.rst says")
        sender(peer, r)
        class_c(peer, r, bytes((i * 7 + 0x5a) & 0xff
                                for i in range(peer.mr_len)), placed)
    except Exception as e:          # a crash must still fail the count
        Report.diag(f"exception: {e!r}")
        raise
    Report.diag(f"{r.n} checks, {r.failed} failed")
    return 1 if r.failed or r.n != CHECKS else 0


if __name__ == "__main__":
    sys.exit(main())
