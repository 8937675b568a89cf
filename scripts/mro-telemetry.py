#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample /sys/kernel/debug/metaroce/<dev>/paths during a run.

  mro-telemetry.py record DEV --interval-ms 200 [--duration S] [--t0 EPOCH]
                   --out run.csv
  mro-telemetry.py live DEV [--interval-ms 500]     one line per path, refreshed
  mro-telemetry.py plot run.csv --png run.png [--mark T:LABEL]... [--highlight
                   NETDEV] [--rate-window S] [--title TEXT]

record: one row per path and sample until --duration (0: until SIGTERM or
SIGINT). CSV columns: t_s (seconds since the recorder started, or since
--t0, a wall-clock time in seconds since the epoch, e.g. bash's
$EPOCHREALTIME, so other events can be placed on the same axis), then the
debugfs paths table's columns under their header names: qpn path sport
plane (the netdev the path sends on) state srtt_us rttvar_us min_rtt_us
pwnd inflight tx_pkts retransmits spurious ce_echoed losses rtos
route_rtt_us (and any column a newer driver appends).

plot: tx rate (pkt/s from tx_pkts, between samples or over at least
--rate-window seconds, drawn at the middle of the span), srtt (ms) and
pwnd of every path against t_s. With more than one plane in the CSV a
first panel sums the tx rate of the paths on each plane (packets sent
between two samples count for the plane the path is on at the second; a
plane without a path counts 0), and the per-path lines take the colour of
the plane they are on at each sample; --highlight draws that plane in red
and the paths that started on it thick. --mark T:LABEL draws a dashed
vertical line at t_s = T on every panel (repeatable).
Debian python3 and gnuplot-nox only.
"""
import argparse
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DBG = "/sys/kernel/debug/metaroce"


def read_paths(dev):
    try:
        with open(os.path.join(DBG, dev, "paths")) as f:
            lines = f.read().split("\n")
    except OSError:
        return [], []
    header = lines[0].split()
    rows = [dict(zip(header, ln.split())) for ln in lines[1:] if ln.strip()]
    return header, rows


def record(args):
    # a TERM from the caller ends the run like the duration does
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.t0 is not None:
        clock, t0 = time.time, args.t0
    else:
        clock = time.monotonic
        t0 = clock()
    end = clock() + args.duration if args.duration else None
    writer = None
    with open(args.out, "w", newline="") as out:
        try:
            while end is None or clock() < end:
                header, rows = read_paths(args.dev)
                if rows and writer is None:
                    writer = csv.writer(out)
                    writer.writerow(["t_s"] + header)
                t = clock() - t0
                for r in rows:
                    writer.writerow(["%.3f" % t] + [r.get(h, "") for h in header])
                out.flush()
                time.sleep(args.interval_ms / 1000.0)
        except KeyboardInterrupt:
            pass


def live(args):
    prev = {}
    while True:
        t = time.monotonic()
        _, rows = read_paths(args.dev)
        out = ["%s  %s" % (args.dev, time.strftime("%H:%M:%S"))]
        for r in rows:
            key = (r["qpn"], r["path"])
            tx = int(r["tx_pkts"])
            rate = 0.0
            if key in prev:
                dt = t - prev[key][0]
                rate = (tx - prev[key][1]) / dt if dt > 0 else 0.0
            prev[key] = (t, tx)
            out.append("qp %-4s path %-2s sport %-5s %-8s srtt %6sus pwnd %4s infl %4s "
                       "tx %7.0f pkt/s retx %6s rto %4s" %
                       (r["qpn"], r["path"], r["sport"], r["state"], r["srtt_us"],
                        r["pwnd"], r["inflight"], rate, r["retransmits"], r["rtos"]))
        if len(out) == 1:
            out.append("(no RC QP with a connection)")
        sys.stdout.write("\033[H\033[J" + "\n".join(out) + "\n" if args.clear
                         else "\n".join(out) + "\n")
        sys.stdout.flush()
        time.sleep(args.interval_ms / 1000.0)


def natural(s):
    """pa2 before pa10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def rates(series, window):
    """[(t, cumulative)] -> [(t_mid, rate, i)] over spans of >= window s
    (consecutive samples when window is 0) ending at sample i, drawn at
    the span's middle."""
    out, j = [], 0
    for i in range(1, len(series)):
        t = series[i][0]
        while j + 1 < i and t - series[j + 1][0] >= window:
            j += 1
        dt = t - series[j][0]
        if dt <= 0 or (window and dt < window):
            continue
        out.append(((t + series[j][0]) / 2, (series[i][1] - series[j][1]) / dt, i))
    return out


def gp_str(s):
    return "'%s'" % s.replace("'", "''")


PALETTE = ["#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
           "#17becf", "#7f7f7f", "#bcbd22", "#e377c2", "#000080"]


def plot(args):
    paths = {}
    with open(args.csv) as f:
        for r in csv.DictReader(f):
            paths.setdefault((int(r["qpn"]), int(r["path"])), []).append(r)
    if not paths:
        sys.exit("no path rows in %s" % args.csv)
    plane_of = lambda r: r.get("plane") or "-"
    times = sorted({float(r["t_s"]) for rows in paths.values() for r in rows})
    planes = sorted({plane_of(r) for rows in paths.values() for r in rows}, key=natural)
    multi = len(planes) > 1
    hl = args.highlight if args.highlight in planes else None
    # linetype per plane: the highlighted one red, the others not
    lt, colour, others = {}, {}, iter(PALETTE * len(planes))
    for pl in planes:
        lt[pl] = len(lt) + 1
        colour[pl] = "#d62728" if pl == hl else next(others)

    # per path: cumulative packets sent (a counter that went back counts
    # from its new value); per plane: every interval's packets go to the
    # plane the path is on at the interval's end (a plane without a path
    # gets 0)
    tmp = tempfile.mkdtemp()
    per_plane = {pl: {} for pl in planes}
    path_files = []
    for (qpn, path), rows in sorted(paths.items()):
        rows.sort(key=lambda r: float(r["t_s"]))
        cum, prev, series = 0, None, []
        for r in rows:
            t, tx = float(r["t_s"]), int(r["tx_pkts"])
            d = 0 if prev is None else (tx - prev if tx >= prev else tx)
            prev, cum = tx, cum + d
            series.append((t, cum))
            per_plane[plane_of(r)][t] = per_plane[plane_of(r)].get(t, 0) + d
        fn = os.path.join(tmp, "qp%d_p%d.dat" % (qpn, path))
        with open(fn, "w") as d:
            # index 0: t srtt_ms pwnd plane; index 1: t_mid rate plane (at
            # the span's end)
            for r in rows:
                d.write("%s %.3f %s %d\n" % (r["t_s"], int(r["srtt_us"]) / 1000.0,
                                              r["pwnd"], lt[plane_of(r)]))
            d.write("\n\n")
            for t, v, i in rates(series, args.rate_window):
                d.write("%.3f %f %d\n" % (t, v, lt[plane_of(rows[i])]))
        path_files.append((fn, "qp%d p%d" % (qpn, path), plane_of(rows[0])))
    plane_files = []
    for pl in planes:
        cum, series = 0, []
        for t in times:
            cum += per_plane[pl].get(t, 0)
            series.append((t, cum))
        fn = os.path.join(tmp, "plane_%d.dat" % lt[pl])
        with open(fn, "w") as d:
            for t, v, _ in rates(series, args.rate_window):
                d.write("%.3f %f\n" % (t, v))
        plane_files.append((fn, pl))

    marks = []
    for m in args.mark:
        t, _, label = m.partition(":")
        marks.append((float(t), label))
    win = " (%g s)" % args.rate_window if args.rate_window else ""
    t1 = times[-1] if times[-1] > times[0] else times[0] + 1
    title = args.title or "metaroce per-path telemetry: " + os.path.basename(args.csv)
    gp = ["set terminal pngcairo size 1200,%d" % (1200 if multi else 900),
          "set output %s" % gp_str(args.png),
          "set multiplot layout %d,1 title %s" % (4 if multi else 3, gp_str(title)),
          "set lmargin at screen 0.08; set rmargin at screen 0.83",
          "set key outside right top", "set grid", "set xlabel 'time (s)'",
          "set xrange [%g:%g]" % (times[0], t1)]
    for t, label in marks:
        gp.append("set arrow from %g,graph 0 to %g,graph 1 nohead dt 2 lw 1.5 "
                  "lc rgb 'black' front" % (t, t))
        gp.append("set label %s at %g,graph 0.95 offset 0.4,0 front" % (gp_str(label), t))

    def per_path(index, col):
        if not multi:
            return ", ".join("%s index %d using 1:%d with lines title %s" % (
                gp_str(fn), index, col, gp_str(name)) for fn, name, _ in path_files)
        # the colour of the plane the path is on at each point: the key
        # of the first panel; the paths that started on the highlighted
        # plane thick
        return ", ".join("%s index %d using 1:%d:%d with lines lw %g lc variable notitle" % (
            gp_str(fn), index, col, 4 if index == 0 else 3,
            2.5 if start == hl else 1) for fn, _, start in path_files)

    if multi:
        for pl in planes:
            gp.append("set linetype %d lc rgb '%s'" % (lt[pl], colour[pl]))
        gp.append("set ylabel 'tx pkt/s per plane%s'" % win)
        gp.append("set yrange [0:*]")
        gp.append("plot " + ", ".join(
            "%s using 1:2 with lines lt %d lw %g title %s" % (
                gp_str(fn), lt[pl], 3 if pl == hl else 1.5,
                gp_str(pl + (" (failed)" if pl == hl else "")))
            for fn, pl in plane_files))
    gp.append("set ylabel 'tx pkt/s per path%s'" % win)
    gp.append("set yrange [0:*]")
    if hl:
        gp.append("plot " + per_path(1, 2) + ", NaN with lines lw 2.5 lc rgb 'black' "
                  "title %s" % gp_str("thick: began on " + hl))
    else:
        gp.append("plot " + per_path(1, 2))
    gp.append("set yrange [0:*]")
    gp.append("set ylabel 'srtt (ms)'")
    gp.append("plot " + per_path(0, 2))
    gp.append("set ylabel 'pwnd (pkts)'")
    gp.append("plot " + per_path(0, 3))
    gp.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(args.png)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("dev")
    r.add_argument("--interval-ms", type=int, default=200)
    r.add_argument("--duration", type=float, default=0)
    r.add_argument("--t0", type=float, default=None,
                   help="wall-clock seconds since the epoch that t_s counts from")
    r.add_argument("--out", required=True)
    lv = sub.add_parser("live")
    lv.add_argument("dev")
    lv.add_argument("--interval-ms", type=int, default=500)
    lv.add_argument("--clear", action="store_true")
    p = sub.add_parser("plot")
    p.add_argument("csv")
    p.add_argument("--png", required=True)
    p.add_argument("--mark", action="append", default=[], metavar="T:LABEL",
                   help="dashed vertical line at t_s = T (repeatable)")
    p.add_argument("--highlight", metavar="NETDEV",
                   help="draw this plane red, and its first paths thick")
    p.add_argument("--rate-window", type=float, default=0, metavar="S",
                   help="tx rate over at least S seconds (default: between samples)")
    p.add_argument("--title")
    args = ap.parse_args()
    {"record": record, "live": live, "plot": plot}[args.cmd](args)


if __name__ == "__main__":
    main()
