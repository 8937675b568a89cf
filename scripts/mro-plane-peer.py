#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scripted peer for PLANE_ADV and the plane anti-hijack rule.

Uses scripts/mro-peer.py's Peer (tokens, PSNs, packet builders) against a
QP of selftests/kmod/mro_peer_target.ko on a device with one plane
attached (Documentation/multiplane.rst):

- a PLANE_ADV whose plane-0 entry is not our address, or without a
  plane-0 entry: counted in drop_bad_plane, no answer;
- a valid PLANE_ADV (plane 0 = our address, plane 1 = --local1): no drop,
  the driver answers at once with its own PLANE_ADV (token, PSN 0, its
  plane 0 and plane 1 addresses, its UDP port);
- a WRITE sent to the driver's plane-1 address from our advertised
  plane-1 address is placed and acked on plane 1 (ACKs go back on the
  plane a path's packets arrive on);
- the same from an address we did not advertise (--spoof): counted in
  drop_bad_plane, not placed, not acked.

Prints "check RC DESCRIPTION" lines like mro-peer.py (CHECKS of them).

usage: mro-plane-peer.py --local IP --remote IP --local1 IP --remote1 IP
                         --spoof IP --dbg DEBUGFS_DIR --dev mrb [--qpn N]
"""
import argparse
import importlib.util
import os
import socket
import struct
import sys
import time

CHECKS = 11

_spec = importlib.util.spec_from_file_location(
    "mro_peer", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "mro-peer.py"))
mp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mp)

PLANE_ADV = 0x20
AF4 = 4


def adv_packet(peer, entries):
    """PLANE_ADV from peer: entries = [(plane_id, ipv4 str, udp_port)]."""
    body = struct.pack(">B7x", len(entries))
    for pid, ip, port in entries:
        body += struct.pack(">BBHI", pid, AF4, port, 0) + \
            socket.inet_aton(ip) + bytes(12)
    hdr_len = 32 + len(body)
    return peer.bth(PLANE_ADV, 0, hdr_len, 0, 0, 0, peer.next_tsval()) + body


def parse_adv(data):
    if len(data) < 40 or data[2] != PLANE_ADV:
        return None
    f = struct.unpack(mp.BTH_FMT, data[:32])
    n = data[32]
    ents = []
    for i in range(n):
        e = data[40 + 24 * i:64 + 24 * i]
        pid, fam, port, _ = struct.unpack(">BBHI", e[:8])
        ents.append((pid, fam, port, socket.inet_ntoa(e[8:12]),
                     e[12:24] == bytes(12)))
    return {"token": f[6], "path": f[8], "psn": f[9], "entries": ents}


def wait_advs(peer, secs):
    out = []
    end = time.monotonic() + secs
    while time.monotonic() < end:
        peer.sock.settimeout(max(end - time.monotonic(), 0.01))
        try:
            data, _ = peer.sock.recvfrom(65536)
        except socket.timeout:
            break
        a = parse_adv(data)
        if a:
            out.append(a)
    return out


def drops(peer):
    return peer.counters().get("drop_bad_plane", 0)


def write_from(peer, sock, dst, off, payload, path=1):
    """One WRITE on path from sock to dst; the ACKs that came back to it."""
    old_sock, old_dst = peer.sock, peer.dst
    peer.sock, peer.dst = sock, dst
    try:
        peer.write(path, payload, offset_in_mr=off)
        pkts = peer.collect(1.0, until=lambda ps: any(
            p["op"] == mp.ACK and p["ack"]["path_id"] == path for p in ps))
    finally:
        peer.sock, peer.dst = old_sock, old_dst
    return [p for p in pkts if p["op"] == mp.ACK]


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--local", "--remote", "--local1", "--remote1", "--spoof",
                "--dbg"):
        ap.add_argument(opt, required=True)
    ap.add_argument("--dev", default="mrb")
    ap.add_argument("--qpn", type=int, default=0x1234)
    ap.add_argument("--paths", type=int, default=8)
    ap.add_argument("--port", type=int, default=4795)
    a = ap.parse_args()
    r = mp.Report()
    peer = mp.Peer(a)
    time.sleep(0.3)
    wait_advs(peer, 0.2)		# the driver's own RTS copies, if any

    d0 = drops(peer)
    peer.sock.sendto(adv_packet(peer, [(0, a.spoof, a.port),
                                       (1, a.local1, a.port)]), peer.dst)
    got = wait_advs(peer, 0.5)
    r.check(drops(peer) == d0 + 1, "PLANE_ADV naming another plane-0 "
            f"address: drop_bad_plane +1 (+{drops(peer) - d0})")
    r.check(not got, f"... and no PLANE_ADV in answer ({len(got)})")

    d0 = drops(peer)
    peer.sock.sendto(adv_packet(peer, [(1, a.local1, a.port)]), peer.dst)
    wait_advs(peer, 0.5)
    r.check(drops(peer) == d0 + 1, "PLANE_ADV without a plane-0 entry: "
            f"drop_bad_plane +1 (+{drops(peer) - d0})")

    # plane 1 traffic before we advertised it: not accepted
    s1 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s1.bind((a.local1, a.port))
    d0 = drops(peer)
    peer.sock.sendto(adv_packet(peer, [(0, a.local, a.port),
                                       (1, a.local1, a.port)]), peer.dst)
    got = wait_advs(peer, 1.0)
    r.check(drops(peer) == d0, f"a valid PLANE_ADV is not dropped "
            f"(+{drops(peer) - d0})")
    mp.Report.diag(f"driver's answer: {got[:1]}")
    ok = bool(got)
    if ok:
        g = got[0]
        ents = {e[0]: e for e in g["entries"]}
        ok = g["token"] == peer.rx_token and g["path"] == 0 and \
            g["psn"] == 0 and set(ents) == {0, 1} and \
            ents[0][3] == a.remote and ents[1][3] == a.remote1 and \
            all(e[1] == AF4 and e[2] == a.port and e[4] for e in ents.values())
    r.check(ok, "the driver answers with its PLANE_ADV: its token, path 0, "
            f"PSN 0, plane 0 {a.remote}, plane 1 {a.remote1}, port "
            f"{a.port}, IPv4 entries zero-padded")

    payload = bytes(range(64))
    acks = write_from(peer, s1, (a.remote1, a.port), 0, payload)
    r.check(bool(acks), f"WRITE from our plane-1 address to {a.remote1}: "
            f"acked on plane 1 ({len(acks)} ACKs there)")
    r.check(peer.mr()[:64] == payload, "... and placed in the MR")

    s2 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s2.bind((a.spoof, a.port))
    d0 = drops(peer)
    bad = bytes([0xa5]) * 64
    acks = write_from(peer, s2, (a.remote1, a.port), 128, bad)
    r.check(drops(peer) == d0 + 1, f"WRITE on plane 1 from {a.spoof} "
            f"(not advertised): drop_bad_plane +1 (+{drops(peer) - d0})")
    r.check(not acks, f"... not acked ({len(acks)} ACKs)")
    r.check(peer.mr()[128:192] != bad, "... and not placed")
    # the driver never saw that PSN: send it again from the right address
    peer.tx_psn[1] = (peer.tx_psn[1] - 1) & mp.M32
    peer.msn = (peer.msn - 1) & mp.M32
    acks = write_from(peer, s1, (a.remote1, a.port), 128, bad)
    r.check(bool(acks) and peer.mr()[128:192] == bad,
            "the same WRITE from the advertised address: acked and placed")
    mp.Report.diag(f"{r.n} checks, {r.failed} failed")
    return 1 if r.failed or r.n != CHECKS else 0


if __name__ == "__main__":
    sys.exit(main())
