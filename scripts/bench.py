#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregate `make bench` points into results.json, tables and PNG plots.

Input: one JSON object per line (scripts/bench-guest.sh "BENCH" lines):
  {"driver", "bench", "x", "rep", "bytes", "ms", "ok", "side",
   optional "cpu_busy_s", "cpu_mhz", "counters", "resets"}
"side" is "requester" (the point that moved the data) or "responder" (rxe's
guest 1: its own CPU time and counters for the same repetition).
Output (schema in Documentation/benchmarks.rst): OUT/results.json,
OUT/<benchmark>.png (gnuplot, when installed), OUT/planefail-paths-*.png
(scripts/mro-telemetry.py plot of the guest's CSVs), tables on stdout. With
--quick, TAP lines and a non-zero exit when a threshold fails.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

# --quick threshold: metaroce goodput at 1 % loss over its own lossless
# goodput. Meta reports ~0.86 and issue #5 asks >= 0.90; under TCG one
# repetition of a few MiB is noisy (CPU stalls, not the network, dominate),
# so CI asserts a floor that a regression to go-back-N-like behaviour
# (resending whole windows) would break, not the target itself.
QUICK_MIN_FRACTION_1PCT = 0.5

SEED_FRACTION = {1.0: 0.86}	# seeds: ~86 % of lossless goodput at 1 % loss
SEED_PLATEAU_BYTES = 32768	# seeds: goodput plateaus from ~32 KiB messages
PLATEAU_FRACTION = 0.9		# "plateau": first size within 10 % of the best
DRIVERS = ("metaroce", "rxe")
ORDER = ("loss", "reorder", "msgsize", "cpu", "nvme-seqread", "nvme-randread",
         "planes", "planefail", "incast")
# the metaroce-only benchmarks (scripts/bench-mp.sh): aggregated by
# build_mp(), not aggregate()
MP_BENCHES = ("planes", "planefail", "incast")
METAROCE_ONLY = ("metaroce only: rdma_rxe has no planes, and its UDP socket "
                 "lives in init_net, so it cannot join a netns fabric")
PLANES_TARGET = 0.95		# issue #10: goodput(P) / (P x goodput(1))
SEED_PLANES = "linear (1.0)"
SEED_PLANEFAIL = {"before_gbps": 790, "during_gbps": 670, "ratio": 670 / 790}
JAIN_FAIR = 0.9			# a 0.5 s bin counts as fair from this Jain index
REROUTE_FRACTION = 0.9		# planefail: rate restored = 0.9 x (P-1)/P x before
PATHS_RATE_WINDOW_S = 0.5	# planefail-paths plots: tx rate over >= 0.5 s


def mbps(p):
    return p["bytes"] * 8 / (p["ms"] * 1000) if p["ok"] and p["ms"] > 0 else 0.0


def xkey(x):
    """Numeric x values sort and print as numbers, names stay names."""
    try:
        return (0, float(x), "")
    except (TypeError, ValueError):
        named = ("none", "delay", "jitter", "reorder")
        return (1, float(named.index(x)) if x in named else 99.0, str(x))


def xname(x):
    if isinstance(x, (int, float)):
        return "%d" % x if float(x).is_integer() else "%g" % x
    return str(x)


def stats(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return {"median": None, "min": None, "max": None}
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}


def ratio(a, b):
    return a / b if a is not None and b else None


def spurious(driver, req, resp):
    """(spurious ratio, retransmit ratio) of one repetition, or None.

    metaroce: the sender's device counters spurious_retransmits and
    retransmits over tx_data_packets. rxe has no retransmit counter: the
    responder's duplicate_request (packets for PSNs it had already taken,
    i.e. resent needlessly) over the requester's sent_pkts; its
    out_of_seq_request (packets past a gap, each a go-back-N resend cause)
    over sent_pkts stands for the retransmit side."""
    c = req.get("counters") or {}
    if driver == "metaroce":
        tx = c.get("tx_data_packets")
        return (ratio(c.get("spurious_retransmits"), tx),
                ratio(c.get("retransmits"), tx))
    r = (resp or {}).get("counters") or {}
    tx = c.get("sent_pkts")
    return (ratio(r.get("duplicate_request"), tx),
            ratio(r.get("out_of_seq_request"), tx))


def cycles_per_byte(req, resp):
    """Busy CPU time of every guest in the run x nominal clock / bytes."""
    if not req.get("ok") or not req.get("bytes") or "cpu_busy_s" not in req:
        return None
    busy = req["cpu_busy_s"] + ((resp or {}).get("cpu_busy_s") or 0.0)
    return busy * req.get("cpu_mhz", 0) * 1e6 / req["bytes"]


def aggregate(points):
    """{bench: {driver: {x: cell}}}; a cell has goodput reps in Mbit/s."""
    resp = {}
    for p in points:
        if p.get("side") == "responder":
            resp[(p["bench"], p["driver"], str(p["x"]), p["rep"])] = p
    out = {}
    for p in points:
        if p.get("side", "requester") != "requester":
            continue
        cell = out.setdefault(p["bench"], {}).setdefault(p["driver"], {}).setdefault(
            p["x"], {"reps": [], "failed": 0, "_sp": [], "_rt": [], "_cpb": [],
                     "_busy": [], "resets": 0})
        r = resp.get((p["bench"], p["driver"], str(p["x"]), p["rep"]))
        cell["resets"] += p.get("resets", 0)
        if not p["ok"]:
            cell["failed"] += 1
            continue
        cell["reps"].append(round(mbps(p), 3))
        sp, rt = spurious(p["driver"], p, r)
        cell["_sp"].append(sp)
        cell["_rt"].append(rt)
        cell["_cpb"].append(cycles_per_byte(p, r))
        if "cpu_busy_s" in p:
            cell["_busy"].append(p["cpu_busy_s"] + ((r or {}).get("cpu_busy_s") or 0.0))
    for benches in out.values():
        for cells in benches.values():
            for cell in cells.values():
                cell.update(stats(cell["reps"]))
                for k in ("median", "min", "max"):
                    cell[k] = cell[k] or 0.0
                cell["spurious_ratio"] = stats(cell.pop("_sp"))["median"]
                cell["retransmit_ratio"] = stats(cell.pop("_rt"))["median"]
                cell["cycles_per_byte"] = stats(cell.pop("_cpb"))
                cell["cpu_busy_s"] = stats(cell.pop("_busy"))["median"]
    return out


def against(cells, base):
    """Each cell's median over the cell base's (e.g. the lossless run)."""
    b = cells.get(base, {}).get("median")
    return {x: ratio(c["median"], b) for x, c in cells.items()}


def metaroce_over_rxe(drv):
    m, r = drv.get("metaroce", {}), drv.get("rxe", {})
    return {x: ratio(c["median"], r[x]["median"]) for x, c in m.items() if x in r}


def plateau(cells):
    best = max((c["median"] for c in cells.values()), default=0.0)
    for x in sorted(cells, key=xkey):
        if best and cells[x]["median"] >= PLATEAU_FRACTION * best:
            return x
    return None


def build(agg):
    """results.json's "benchmarks" object plus the per-benchmark tables."""
    res = {}
    for bench in sorted(agg, key=lambda b: ORDER.index(b) if b in ORDER else 99):
        drv = agg[bench]
        o = {"unit": "Mbit/s", "drivers": {}}
        for d, cells in drv.items():
            rel = {}
            if bench in ("loss", "nvme-seqread", "nvme-randread"):
                rel = {"fraction_of_lossless": against(cells, 0)}
            elif bench == "reorder":
                rel = {"fraction_of_none": against(cells, "none")}
            elif bench == "msgsize":
                best = max((c["median"] for c in cells.values()), default=0.0)
                rel = {"fraction_of_best": {x: ratio(c["median"], best)
                                            for x, c in cells.items()}}
            o["drivers"][d] = {xname(x): dict(c, **{k: v[x] for k, v in rel.items()})
                               for x, c in sorted(cells.items(), key=lambda i: xkey(i[0]))}
        if bench != "cpu":
            o["metaroce_over_rxe"] = {xname(x): v for x, v in
                                      sorted(metaroce_over_rxe(drv).items(),
                                             key=lambda i: xkey(i[0]))}
        if bench == "loss":
            o["seed_fraction"] = {"%g" % x: v for x, v in SEED_FRACTION.items()}
        if bench == "msgsize":
            o["plateau_bytes"] = {d: plateau(c) for d, c in drv.items()}
            o["plateau_rule"] = "smallest size with median >= %.2f x the best median" % \
                PLATEAU_FRACTION
            o["seed_plateau_bytes"] = SEED_PLATEAU_BYTES
        if bench == "cpu":
            o["unit_cost"] = "cycles/byte (busy CPU-s of all guests x cpu MHz / bytes)"
        res[bench] = o
    return res


# --- planes, planefail, incast (metaroce only) ---

def jain(xs):
    xs = [x for x in xs if x is not None]
    sq = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * sq) if xs and sq > 0 else None


def pctl(vals, q):
    """Nearest-rank percentile (q in 0..100) of vals, or None."""
    vals = sorted(v for v in vals if v is not None)
    if not vals:
        return None
    k = max(1, -(-len(vals) * q // 100))
    return vals[int(k) - 1]


def planefail_rep(p):
    """The figures of one planefail repetition from its samples.

    samples: [ms, on_failed(0/1), rx bytes of plane 0..P-1] rows and
    ["down"|"up", issued ms, done ms] events. Rates are bytes arriving at
    the receiving side's veths (headers and resends included)."""
    rows = [r for r in p.get("samples", []) if not isinstance(r[0], str)]
    ev = {r[0]: r[1] for r in p.get("samples", []) if isinstance(r[0], str)}
    evdone = {r[0]: r[-1] for r in p.get("samples", []) if isinstance(r[0], str)}
    f = p.get("failed_plane")
    out = {"before_mbit": None, "during_mbit": None, "after_mbit": None,
           "during_over_before": None, "after_over_before": None,
           "detect_ms": None, "reroute_ms": None, "failed_plane_mbit_during": None,
           "steady_mbit": None, "steady_over_before": None,
           "down_for_s": None, "down_cmd_ms": None, "bins": []}
    if len(rows) < 3 or "down" not in ev or "up" not in ev:
        return out
    down, up = ev["down"], ev["up"]
    out["down_for_s"] = (up - down) / 1000.0
    out["down_cmd_ms"] = evdone["down"] - down	# `ip link set down` itself

    def rate(a, b, planes=None):
        """Mbit/s between rows a and b (sum over planes)."""
        dt = (b[0] - a[0]) / 1000.0
        if dt <= 0:
            return None
        idx = range(len(a) - 2) if planes is None else planes
        return sum(b[2 + k] - a[2 + k] for k in idx) * 8 / dt / 1e6

    def last_before(t):
        c = [r for r in rows if r[0] <= t]
        return c[-1] if c else None

    def first_after(t):
        c = [r for r in rows if r[0] >= t]
        return c[0] if c else None

    b0, b1 = rows[0], last_before(down)
    d0, d1 = first_after(down), last_before(up)
    a0, a1 = first_after(up), rows[-1]
    if b1 is not None and b1 is not b0:
        out["before_mbit"] = rate(b0, b1)
    if d0 is not None and d1 is not None and d1[0] > d0[0]:
        # the whole phase, from the last sample before the command
        out["during_mbit"] = rate(b1 or d0, d1)
        if f is not None:
            out["failed_plane_mbit_during"] = rate(d0, d1, [f])
    if a0 is not None and a1[0] > a0[0]:
        out["after_mbit"] = rate(d1 or a0, a1)
    # the down phase without its first second after the command returned
    s0 = first_after(evdone["down"] + 1000)
    if s0 is not None and d1 is not None and d1[0] - s0[0] >= 1000:
        out["steady_mbit"] = rate(s0, d1)
    out["steady_over_before"] = ratio(out["steady_mbit"], out["before_mbit"])
    out["during_over_before"] = ratio(out["during_mbit"], out["before_mbit"])
    out["after_over_before"] = ratio(out["after_mbit"], out["before_mbit"])
    # detect: the first sample after the command in which no path of the
    # sender's QP is listed on the failed plane (debugfs paths)
    for r in rows:
        if r[0] >= down and r[1] == 0:
            out["detect_ms"] = r[0] - down
            break
    # reroute: the first 0.5 s window from the command on whose rate
    # reaches REROUTE_FRACTION x (P-1)/P x the before rate
    n = len(rows[0]) - 2
    if out["before_mbit"]:
        want = REROUTE_FRACTION * (n - 1) / n * out["before_mbit"]
        for i, r in enumerate(rows):
            if r[0] < down or r[0] >= up:
                continue
            e = next((q for q in rows[i + 1:] if q[0] - r[0] >= 500), None)
            if e is None or e[0] > up:
                break
            if (rate(r, e) or 0) >= want:
                out["reroute_ms"] = r[0] - down
                break
    # 0.5 s bins for the plot: [s from the down command, total, plane 0..P-1]
    last = rows[0]
    for r in rows[1:]:
        if r[0] - last[0] >= 500:
            dt = (r[0] - last[0]) / 1000.0
            out["bins"].append([round((r[0] + last[0]) / 2000.0 - down / 1000.0, 3),
                                round(rate(last, r), 4)] +
                               [round((r[2 + k] - last[2 + k]) * 8 / dt / 1e6, 4)
                                for k in range(n)])
            last = r
    return out


def planefail_telemetry(p):
    """The repetition's per-path CSV (scripts/mro-telemetry.py record in
    the guest), its plot's name and the down/up commands on its time axis
    ([t_s, label]), or None."""
    t = p.get("telemetry")
    if not t or not t.get("csv"):
        return None
    f = p.get("failed_plane")
    marks = [[round((t.get("t0_ms", 0) + r[1]) / 1000.0, 3),
              "pa%s %s" % (f, r[0]) if f is not None else r[0]]
             for r in p.get("samples", []) if isinstance(r[0], str)]
    return {"csv": t["csv"], "t0_ms": t.get("t0_ms"),
            "png": os.path.splitext(t["csv"])[0] + ".png", "marks": marks}


# incast: drops counted after this much of a round are the settled ones
SETTLE_MS = 1000


def incast_rep(p):
    """The figures of one incast round from its samples and counters.

    samples: [ms, senders done, rx bytes of rt's vt1..vtN, tx bytes of vr,
    then (newer runs) vr's tbf drops so far and its backlog in bytes].
    The window is as in selftests/incast.sh: rows before the first sender
    finished in which every sender has moved >= 20000 bytes, minus the
    first second."""
    n, link = p["x"], p.get("link_mbit")
    rows = p.get("samples", [])
    out = {"jain": None, "utilisation": None, "window_s": None,
           "sender_mbit": [], "drop_rate": None, "ce_rate": None,
           "completion_p50_ms": None, "completion_p99_ms": None,
           "completion_max_ms": None, "ideal_ms": None, "p99_over_ideal": None,
           "first_fair_bin_s": None, "bins_jain": [], "drop_rate_settled": None}
    sent, dropped = p.get("qdisc_sent", 0), p.get("qdisc_dropped", 0)
    if sent + dropped:
        out["drop_rate"] = dropped / (sent + dropped)
    if sent:
        out["ce_rate"] = p.get("qdisc_marked", 0) / sent
    ok_ct = [c for c, rc in zip(p.get("completion_ms", []), p.get("rc", [])) if rc == 0]
    out["completion_p50_ms"] = pctl(ok_ct, 50)
    out["completion_p99_ms"] = pctl(ok_ct, 99)
    out["completion_max_ms"] = max(ok_ct) if ok_ct else None
    if link and p.get("bytes"):
        out["ideal_ms"] = p["bytes"] * 8 / (link * 1e6) * 1000
        out["p99_over_ideal"] = ratio(out["completion_p99_ms"], out["ideal_ms"])
    if not rows:
        return out
    # drops after the round's first second (the start-up burst: first
    # flights into an empty queue, before any ACK carries a hint) against
    # the packets vr sent then; packets from bytes at the round's mean size
    out["drop_rate_settled"] = None
    if len(rows[0]) > 3 + n and sent and rows[-1][2 + n] > rows[0][2 + n]:
        late = [r for r in rows if r[0] >= SETTLE_MS]
        if len(late) >= 2:
            a, b = late[0], rows[-1]
            pkt = (b[2 + n] - rows[0][2 + n]) / sent
            d = b[3 + n] - a[3 + n]
            pk = (b[2 + n] - a[2 + n]) / pkt if pkt else 0
            if d + pk:
                out["drop_rate_settled"] = d / (d + pk)
    base = rows[0]
    moving = [r for r in rows if r[1] == 0 and
              all(r[2 + i] - base[2 + i] >= 20000 for i in range(n))]
    if moving:
        t_all = moving[0][0]
        win = [r for r in moving if r[0] - t_all >= 1000]
        if len(win) >= 2 and win[-1][0] > win[0][0]:
            a, b = win[0], win[-1]
            dt = (b[0] - a[0]) / 1000.0
            xs = [(b[2 + i] - a[2 + i]) * 8 / dt / 1e6 for i in range(n)]
            out["sender_mbit"] = [round(x, 4) for x in xs]
            out["jain"] = jain(xs)
            out["window_s"] = round(dt, 3)
            if link:
                out["utilisation"] = (b[2 + n] - a[2 + n]) * 8 / dt / 1e6 / link
        # fairness over time: Jain of 0.5 s bins from the first row in
        # which every sender moved (time from the round's start)
        last = moving[0]
        for r in rows[rows.index(moving[0]) + 1:]:
            if r[1] != 0:
                break
            if r[0] - last[0] >= 500:
                j = jain([r[2 + i] - last[2 + i] for i in range(n)])
                out["bins_jain"].append([round(r[0] / 1000.0, 3), j])
                if out["first_fair_bin_s"] is None and j is not None and j >= JAIN_FAIR:
                    out["first_fair_bin_s"] = round(r[0] / 1000.0, 3)
                last = r
    return out


def srange(vals):
    """{"median", "min", "max"} of the non-None values."""
    return stats(vals)


def build_mp(points):
    """results.json objects of planes, planefail and incast."""
    res = {}
    pts = [p for p in points if p.get("bench") in MP_BENCHES and
           p.get("side", "requester") == "requester"]
    by = {}
    for p in pts:
        by.setdefault(p["bench"], {}).setdefault(p["x"], []).append(p)

    if "planes" in by:
        cells = {}
        for x, ps in by["planes"].items():
            good = [q for q in ps if q["ok"]]
            c = {"reps": [round(mbps(q), 4) for q in good],
                 "failed": len(ps) - len(good)}
            c.update(stats(c["reps"]))
            shares = []
            for q in good:
                rx = q.get("plane_rx_bytes") or []
                tot = sum(rx)
                shares.append([v / tot for v in rx] if tot else None)
            c["plane_share"] = [statistics.median(s[k] for s in shares if s)
                                for k in range(x)] if any(shares) else None
            c["plane_kbit"] = good[0].get("plane_kbit") if good else None
            cells[x] = c
        one = (cells.get(1) or {}).get("median")
        two = (cells.get(2) or {}).get("median")
        for x, c in cells.items():
            # the same from P = 2 on: P = 1 has no plane attached at all
            c["scaling_vs_2"] = ratio(c["median"], x / 2 * two) if two and x >= 2 else None
            c["scaling"] = ratio(c["median"], x * one) if one else None
            c["scaling_range"] = {"min": ratio(c["min"], x * one) if one else None,
                                  "max": ratio(c["max"], x * one) if one else None}
            k = c.get("plane_kbit")
            c["fraction_of_tbf"] = ratio(c["median"], x * k / 1000.0) if k else None
        res["planes"] = {
            "unit": "Mbit/s", "note": METAROCE_ONLY,
            "scaling_rule": "median goodput(P) / (P x median goodput(1)); "
                            "scaling_vs_2: median goodput(P) / (P/2 x median goodput(2))",
            "target_scaling": PLANES_TARGET, "seed": SEED_PLANES,
            "drivers": {"metaroce": {xname(x): cells[x] for x in sorted(cells)}}}

    if "planefail" in by:
        cells = {}
        for x, ps in by["planefail"].items():
            reps = []
            for q in ps:
                r = planefail_rep(q)
                r["ok"] = q["ok"]
                r["goodput_mbit"] = round(mbps(q), 4) if q["ok"] else None
                r["plane_failovers"] = q.get("plane_failovers")
                r["xfer_rc"] = q.get("xfer_rc")
                r["telemetry"] = planefail_telemetry(q)
                reps.append(r)
            good = [r for r in reps if r["ok"]]
            c = {"failed": len(reps) - len(good), "reps_detail": reps,
                 "failed_plane": ps[0].get("failed_plane"),
                 "plane_kbit": ps[0].get("plane_kbit")}
            for k in ("before_mbit", "during_mbit", "after_mbit", "during_over_before",
                      "after_over_before", "detect_ms", "reroute_ms", "goodput_mbit",
                      "failed_plane_mbit_during", "down_cmd_ms", "steady_mbit",
                      "steady_over_before"):
                c[k] = srange([r[k] for r in reps])
            c["limit_during_over_before"] = (x - 1) / x
            cells[x] = c
        res["planefail"] = {
            "unit": "Mbit/s (bytes arriving on the receiver's veths)",
            "note": METAROCE_ONLY, "seed": SEED_PLANEFAIL,
            "rules": {"steady_mbit": "the down phase from 1 s after the command returned",
                      "detect_ms": "first sample after `ip link set down` without a "
                                   "path of the sender's QP on the failed plane (debugfs paths)",
                      "reroute_ms": "first 0.5 s window from the command whose rate is "
                                    ">= %.2f x (P-1)/P x before" % REROUTE_FRACTION},
            "drivers": {"metaroce": {xname(x): cells[x] for x in sorted(cells)}}}

    if "incast" in by:
        cells = {}
        for x, ps in by["incast"].items():
            cell = {}
            for hint in ("on", "off"):
                hp = [q for q in ps if q.get("hint") == hint]
                reps = []
                for q in hp:
                    r = incast_rep(q)
                    r.update({"ok": q["ok"], "failed_senders": q.get("failed_senders", 0),
                              "rc": q.get("rc"), "retry_exc_lines": q.get("retry_exc_lines"),
                              "rate_hint_updates": q.get("rate_hint_updates"),
                              "bytes": q.get("bytes")})
                    reps.append(r)
                c = {"rounds": len(reps),
                     "failed_rounds": sum(1 for r in reps if not r["ok"]),
                     "failed_senders": sum(r["failed_senders"] for r in reps),
                     "senders": x * len(reps), "reps_detail": reps,
                     "link_mbit": hp[0].get("link_mbit") if hp else None,
                     "mb_per_sender": hp[0].get("mb_per_sender") if hp else None}
                for k in ("jain", "utilisation", "drop_rate", "drop_rate_settled", "ce_rate",
                          "completion_p50_ms", "completion_p99_ms", "p99_over_ideal",
                          "first_fair_bin_s"):
                    c[k] = srange([r[k] for r in reps])
                # p99 over every completed sender of every round
                allct = [ct for q in hp for ct, rc in
                         zip(q.get("completion_ms", []), q.get("rc", [])) if rc == 0]
                c["completion_p99_ms_pooled"] = pctl(allct, 99)
                cell["hint_" + hint] = c
            cells[x] = cell
        res["incast"] = {
            "unit": "Jain index, fraction of the bottleneck, ms",
            "note": METAROCE_ONLY, "seed": "fair in 1-2 RTTs",
            "settled_rule": "drop_rate_settled: tbf drops after the first %d ms of a round "
                            "over the packets vr sent after it" % SETTLE_MS,
            "window_rule": "rows before the first sender finished in which every sender "
                           "moved >= 20000 bytes, minus the first second",
            "drivers": {"metaroce": {xname(x): cells[x] for x in sorted(cells)}}}
    return res


def mp_tables(res):
    o = res.get("planes")
    if o:
        print("\nplanes (%s): goodput median [min..max] Mbit/s, scaling = "
              "goodput(P) / (P x goodput(1)), target %.2f, seeds %s" % (
                  METAROCE_ONLY.split(":")[0], PLANES_TARGET, SEED_PLANES))
        for x, c in o["drivers"]["metaroce"].items():
            print("  P=%-3s %.2f [%.2f..%.2f]  scaling %s [%s..%s]  vs P=2 %s  of tbf %s  shares %s%s" % (
                x, c["median"], c["min"], c["max"], fmt(c["scaling"]),
                fmt(c["scaling_range"]["min"]), fmt(c["scaling_range"]["max"]),
                fmt(c["scaling_vs_2"]),
                fmt(c["fraction_of_tbf"]),
                "/".join("%.2f" % v for v in c["plane_share"] or []),
                " (%d failed)" % c["failed"] if c["failed"] else ""))
    o = res.get("planefail")
    if o:
        print("\nplanefail (metaroce only): wire Mbit/s median [min..max]; "
              "seeds 790 -> 670 Gbps (%.2f)" % SEED_PLANEFAIL["ratio"])
        for x, c in o["drivers"]["metaroce"].items():
            m = lambda k, f="%.2f": "%s [%s..%s]" % (fmt(c[k]["median"], f),
                                                    fmt(c[k]["min"], f), fmt(c[k]["max"], f))
            print("  P=%s plane %s down: before %s, during %s, after %s" % (
                x, c["failed_plane"], m("before_mbit"), m("during_mbit"), m("after_mbit")))
            print("        during/before %s (limit %.3f), steady/before %s, after/before %s" % (
                m("during_over_before"), c["limit_during_over_before"],
                m("steady_over_before"), m("after_over_before")))
            print("        detect %s ms, reroute %s ms (ip link set down took %s ms)%s" % (
                m("detect_ms", "%.0f"), m("reroute_ms", "%.0f"), m("down_cmd_ms", "%.0f"),
                " (%d failed)" % c["failed"] if c["failed"] else ""))
            tele = [r["telemetry"]["png"] for r in c["reps_detail"] if r.get("telemetry")]
            if tele:
                print("        per-path telemetry: %s" % ", ".join(tele))
    o = res.get("incast")
    if o:
        print("\nincast (metaroce only): median [min..max] over rounds; seeds: fair in 1-2 RTTs")
        for x, cell in o["drivers"]["metaroce"].items():
            for h in ("hint_on", "hint_off"):
                c = cell.get(h)
                if not c or not c["rounds"]:
                    continue
                m = lambda k, f="%.3f": "%s [%s..%s]" % (fmt(c[k]["median"], f),
                                                        fmt(c[k]["min"], f), fmt(c[k]["max"], f))
                print("  N=%-3s %-8s Jain %s util %s drops %s (after 1 s %s) p99 %s ms (%s x ideal)%s" % (
                    x, h.replace("_", "="), m("jain"), m("utilisation"), m("drop_rate", "%.4f"),
                    m("drop_rate_settled", "%.4f"),
                    m("completion_p99_ms", "%.0f"), fmt(c["p99_over_ideal"]["median"]),
                    "  FAILED: %d of %d senders in %d of %d rounds" % (
                        c["failed_senders"], c["senders"], c["failed_rounds"], c["rounds"])
                    if c["failed_senders"] else ""))


def mp_plots(out_dir, res, term):
    o = res.get("planes")
    if o:
        png, dat = (os.path.join(out_dir, "planes." + e) for e in ("png", "dat"))
        rows = [[float(x), c["scaling"], c["scaling_range"]["min"], c["scaling_range"]["max"],
                 c["median"], c["scaling_vs_2"], c["fraction_of_tbf"]]
                for x, c in o["drivers"]["metaroce"].items()]
        write_dat(dat, "planes scaling min max goodput_mbit scaling_vs_2 fraction_of_tbf", rows)
        gnuplot(term + f"""set output '{png}'
set title 'Plane scaling (metaroce only): goodput(P) / (P x goodput(1)), tbf per plane'
set xlabel 'planes P'; set ylabel 'scaling'; set logscale x 2; set xrange [0.8:10]
set yrange [0:*]; set grid; set key bottom left
plot '{dat}' using 1:2:3:4 with yerrorlines lw 2 title 'goodput(P) / (P x goodput(1)) (median, min..max)', \\
     '{dat}' using 1:6 with linespoints lw 2 title 'goodput(P) / (P/2 x goodput(2))', \\
     '{dat}' using 1:7 with linespoints lw 1 dt 4 title 'goodput / (P x tbf rate)', \\
     1 with lines dt 2 title 'linear (seeds)', {PLANES_TARGET} with lines dt 3 title 'target {PLANES_TARGET}'
""")
    o = res.get("planefail")
    if o:
        for x, c in o["drivers"]["metaroce"].items():
            png, dat = (os.path.join(out_dir, "planefail." + e) for e in ("png", "dat"))
            with open(dat, "w") as fh:
                fh.write("# per repetition: s_from_down total plane0..\n")
                for r in c["reps_detail"]:
                    for b in r["bins"]:
                        fh.write(" ".join("%g" % v for v in b) + "\n")
                    fh.write("\n\n")
            reps = len(c["reps_detail"])
            if not reps:
                continue
            f = c["failed_plane"]
            dur = c["reps_detail"][0]["down_for_s"] or 0
            series = ", ".join(
                "'%s' index %d using 1:2 with linespoints lw 2 title 'total, rep %d'" % (dat, i, i + 1)
                for i in range(reps))
            series += ", '%s' index 0 using 1:%d with lines dt 2 title 'plane %s, rep 1'" % (
                dat, f + 3, f)
            gnuplot(term + f"""set output '{png}'
set title 'Plane failure (metaroce only): {x} planes, plane {f} down at 0 for {dur:.1f} s'
set xlabel 's from ip link set down'; set ylabel 'Mbit/s arriving (0.5 s bins)'
set yrange [0:*]; set grid; set key bottom left
set arrow from 0,graph 0 to 0,graph 1 nohead dt 2
set arrow from {dur},graph 0 to {dur},graph 1 nohead dt 2
set label 'down' at 0,graph 0.95 offset 0.5,0; set label 'up' at {dur},graph 0.95 offset 0.5,0
plot {series}
""")
            break
    if o:
        planefail_paths_plots(out_dir, o)
    o = res.get("incast")
    if o:
        png, dat = (os.path.join(out_dir, "incast." + e) for e in ("png", "dat"))
        rows = []
        for x, cell in o["drivers"]["metaroce"].items():
            g = lambda h, k: (cell.get(h) or {}).get(k, {}).get("median")
            rows.append(['"N=%s"' % x, g("hint_on", "jain"), g("hint_off", "jain"),
                         g("hint_on", "utilisation"), g("hint_off", "utilisation"),
                         g("hint_on", "p99_over_ideal"), g("hint_off", "p99_over_ideal"),
                         g("hint_on", "drop_rate"), g("hint_off", "drop_rate")])
        write_dat(dat, "N jain_on jain_off util_on util_off p99ideal_on p99ideal_off "
                  "drops_on drops_off", rows)
        # gnuplot refuses a histogram column without a single value
        cols = [(2, "Jain, hints on"), (3, "Jain, hints off"),
                (4, "utilisation, hints on"), (5, "utilisation, hints off"),
                (8, "drop rate, hints on"), (9, "drop rate, hints off")]
        cols = [(i, t) for i, t in cols if any(r[i - 1] is not None for r in rows)]
        if cols:
            series = ", ".join("'%s' using %d%s title '%s'" % (
                dat, i, ":xtic(1)" if n == 0 else "", t) for n, (i, t) in enumerate(cols))
            gnuplot(term + f"""set output '{png}'
set title 'Incast through a tbf+RED (ECN) bottleneck (metaroce only)'
set ylabel 'Jain index / fraction (medians)'; set yrange [0:1.1]; set grid y
set style data histograms; set style histogram clustered gap 1
set style fill solid 0.8 border -1; set boxwidth 0.9; set key outside right top
plot {series}
""")


def planefail_paths_plots(out_dir, o):
    """Per-path throughput, srtt and pwnd of every planefail repetition
    that has a telemetry CSV (scripts/mro-telemetry.py plot), the failed
    plane in red, down and up marked; the first one also as
    planefail-paths.png."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mro-telemetry.py")
    first = None
    for x, c in o["drivers"]["metaroce"].items():
        for i, r in enumerate(c["reps_detail"]):
            t = r.get("telemetry")
            if not t or not os.path.exists(os.path.join(out_dir, t["csv"])):
                continue
            png = os.path.join(out_dir, t["png"])
            f = c["failed_plane"]
            title = ("Plane failure, %s planes, repetition %d: pa%s down for %s s "
                     "(mra's debugfs paths every 0.2 s)%s" % (
                         x, i + 1, f, fmt(r["down_for_s"], "%.1f"),
                         "" if r["ok"] else " (FAILED)"))
            cmd = [sys.executable, tool, "plot", os.path.join(out_dir, t["csv"]),
                   "--png", png, "--rate-window", str(PATHS_RATE_WINDOW_S),
                   "--title", title]
            if f is not None:
                cmd += ["--highlight", "pa%s" % f]
            for m in t["marks"]:
                cmd += ["--mark", "%g:%s" % (m[0], m[1])]
            try:
                subprocess.run(cmd, check=True, capture_output=True, text=True)
            except (OSError, subprocess.CalledProcessError) as e:
                print("bench: no plot of %s (%s%s)" % (t["csv"], e, (
                    ": " + e.stderr.strip()[-300:]) if getattr(e, "stderr", None) else ""),
                    file=sys.stderr)
                continue
            if first is None:
                first = png
                shutil.copyfile(png, os.path.join(out_dir, "planefail-paths.png"))


def fmt(v, f="%.2f"):
    return f % v if v is not None else "n/a"


def table(bench, o):
    rel = {"loss": "fraction_of_lossless", "nvme-seqread": "fraction_of_lossless",
           "nvme-randread": "fraction_of_lossless", "reorder": "fraction_of_none",
           "msgsize": "fraction_of_best"}.get(bench)
    print("\n%s: goodput median [min..max] Mbit/s%s" % (
        bench, ", %s" % rel.replace("_", " ") if rel else ""))
    xs = sorted({x for d in o["drivers"].values() for x in d}, key=xkey)
    for x in xs:
        cols = []
        for d in DRIVERS:
            c = o["drivers"].get(d, {}).get(x)
            if not c:
                cols.append("%-8s -" % d)
                continue
            extra = ""
            if rel:
                extra += " %s" % fmt(c.get(rel))
            if bench == "reorder":
                extra += " spur %s retx %s" % (fmt(c["spurious_ratio"], "%.4f"),
                                               fmt(c["retransmit_ratio"], "%.4f"))
            if bench == "cpu":
                extra += " %s cyc/B (%s CPU-s)" % (fmt(c["cycles_per_byte"]["median"], "%.1f"),
                                                   fmt(c["cpu_busy_s"], "%.1f"))
            if bench.startswith("nvme") and c["resets"]:
                extra += " resets %d" % c["resets"]
            if c["failed"]:
                extra += " (%d failed)" % c["failed"]
            cols.append("%-8s %.1f [%.1f..%.1f]%s" % (d, c["median"], c["min"], c["max"], extra))
        r = o.get("metaroce_over_rxe", {}).get(x)
        print("  %-9s %s%s" % (xname(x), "   ".join(cols), "   m/r %.2f" % r if r else ""))
    if bench == "msgsize":
        print("  plateau (%s): %s; seeds: from ~%d" % (
            o["plateau_rule"], o["plateau_bytes"], SEED_PLATEAU_BYTES))


def gnuplot(script):
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: no plot (%s)" % e, file=sys.stderr)


def write_dat(path, header, rows):
    with open(path, "w") as f:
        f.write("# %s\n" % header)
        for r in rows:
            f.write(" ".join("NaN" if v is None else (v if isinstance(v, str) else "%.6g" % v)
                             for v in r) + "\n")


def col(o, d, x, key):
    c = o["drivers"].get(d, {}).get(x)
    if not c:
        return None
    v = c.get(key)
    return v.get("median") if isinstance(v, dict) else v


def driver_rows(o, xs, key, first=float):
    """One .dat row per x: first(x), then each driver's median of key."""
    return [[first(x)] + [col(o, d, x, key) for d in DRIVERS] for x in xs]


def plots(out_dir, res):
    term = "set terminal pngcairo size 900,560\n"
    mp_plots(out_dir, res, term)
    for bench, o in res.items():
        if bench in MP_BENCHES:
            continue
        png = os.path.join(out_dir, "%s.png" % bench)
        dat = os.path.join(out_dir, "%s.dat" % bench)
        xs = sorted({x for d in o["drivers"].values() for x in d}, key=xkey)
        if bench == "loss":
            write_dat(dat, "loss_pct metaroce rxe (fraction of lossless)",
                      driver_rows(o, xs, "fraction_of_lossless"))
            gnuplot(term + f"""set output '{png}'
set title 'Goodput under random loss, as a fraction of each driver''s lossless goodput'
set xlabel 'netem loss (%)'; set ylabel 'goodput / lossless goodput'
set logscale x; set xrange [0.08:12]; set yrange [0:*]; set key bottom left; set grid
plot '{dat}' using ($1 > 0 ? $1 : 1/0):2 with linespoints lw 2 title 'metaroce', \\
     '{dat}' using ($1 > 0 ? $1 : 1/0):3 with linespoints lw 2 title 'rdma\\_rxe (go-back-N)', \\
     '-' using 1:2 with points pt 7 ps 2 title 'Meta (seeds): 0.86 at 1 %'
1 0.86
e
""")
        elif bench == "msgsize":
            write_dat(dat, "bytes metaroce rxe (fraction of best)",
                      driver_rows(o, xs, "fraction_of_best"))
            gnuplot(term + f"""set output '{png}'
set title 'Goodput by message size, as a fraction of each driver''s best size'
set xlabel 'message size (bytes)'; set ylabel 'goodput / best goodput'
set logscale x 2; set yrange [0:*]; set key bottom right; set grid
set arrow from {SEED_PLATEAU_BYTES},graph 0 to {SEED_PLATEAU_BYTES},graph 1 nohead dt 2
set label 'Meta: plateau from ~32 KiB' at {SEED_PLATEAU_BYTES},graph 0.05 offset 1,0
plot '{dat}' using 1:2 with linespoints lw 2 title 'metaroce', \\
     '{dat}' using 1:3 with linespoints lw 2 title 'rdma\\_rxe'
""")
        else:
            key, ylabel = {
                "reorder": ("fraction_of_none", "goodput / goodput without delay"),
                "cpu": ("cycles_per_byte", "guest cycles per byte (all guests)"),
            }.get(bench, ("fraction_of_lossless", "goodput / lossless goodput"))
            rows = driver_rows(o, xs, key, lambda x: '"%s"' % x)
            write_dat(dat, "x metaroce rxe (%s)" % key, rows)
            # gnuplot refuses a histogram column without a single value
            have = [i for i in range(len(DRIVERS)) if any(r[i + 1] is not None for r in rows)]
            if not have:
                continue
            series = ", ".join("'%s' using %d%s title '%s'" % (
                dat, i + 2, ":xtic(1)" if n == 0 else "",
                DRIVERS[i].replace("rxe", "rdma\\_rxe")) for n, i in enumerate(have))
            gnuplot(term + f"""set output '{png}'
set title '{bench}: {ylabel.replace("'", "''")}'
set ylabel '{ylabel}'; set yrange [0:*]; set grid y
set style data histograms; set style histogram clustered gap 1
set style fill solid 0.8 border -1; set boxwidth 0.9
plot {series}
""")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()

    points = []
    with open(a.points) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    points.append(json.loads(line))
                except json.JSONDecodeError:
                    print("bench: bad point line: %r" % line, file=sys.stderr)
    agg = aggregate([p for p in points if p.get("bench") not in MP_BENCHES])
    benches = build(agg)
    benches.update(build_mp(points))
    res = {
        "schema": 2,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "emulation": "qemu-tcg"},
        "seconds": a.seconds,
        "benchmarks": benches,
    }
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    for bench, o in benches.items():
        if bench not in MP_BENCHES:
            table(bench, o)
    mp_tables(benches)
    print("results: %s/results.json (%d s)" % (a.out, a.seconds))
    if not a.quick:
        plots(a.out, benches)
        return 0

    # --quick: TAP for make check
    m = agg.get("loss", {}).get("metaroce", {})
    n, bad = 0, 0

    def tap(ok, desc):
        nonlocal n, bad
        n += 1
        bad += 0 if ok else 1
        print("%s %d - %s" % ("ok" if ok else "not ok", n, desc))

    print("TAP version 13")
    for x in (0, 1):
        c = m.get(x)
        tap(bool(c) and not c["failed"] and c["median"] > 0,
            "bench quick: metaroce at %g %% loss moved verified data" % x)
    f1 = against(m, 0).get(1) if m else None
    tap(f1 is not None and f1 >= QUICK_MIN_FRACTION_1PCT,
        "bench quick: goodput at 1 %% loss / lossless = %s (floor %.2f)" % (
            "%.2f" % f1 if f1 is not None else "n/a", QUICK_MIN_FRACTION_1PCT))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
