#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Sample /sys/kernel/debug/metaroce/<dev>/paths during a run.

  mro-telemetry.py record DEV --interval-ms 200 --duration S --out run.csv
  mro-telemetry.py live DEV [--interval-ms 500]     one line per path, refreshed
  mro-telemetry.py plot run.csv --png run.png       throughput, srtt, pwnd per path

CSV columns: t_s then the paths table columns (header names from debugfs).
Debian python3 and gnuplot-nox only.
"""
import argparse
import csv
import os
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
    end = time.monotonic() + args.duration if args.duration else None
    t0 = time.monotonic()
    writer = None
    with open(args.out, "w", newline="") as out:
        while end is None or time.monotonic() < end:
            header, rows = read_paths(args.dev)
            if rows and writer is None:
                writer = csv.writer(out)
                writer.writerow(["t_s"] + header)
            t = time.monotonic() - t0
            for r in rows:
                writer.writerow(["%.3f" % t] + [r[h] for h in header])
            out.flush()
            time.sleep(args.interval_ms / 1000.0)


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


def plot(args):
    series = {}
    with open(args.csv) as f:
        for r in csv.DictReader(f):
            series.setdefault((r["qpn"], r["path"]), []).append(r)
    tmp = tempfile.mkdtemp()
    files = []
    for (qpn, path), rows in sorted(series.items()):
        fn = os.path.join(tmp, "qp%s_p%s.dat" % (qpn, path))
        with open(fn, "w") as d:
            prev = None
            for r in rows:
                t, tx = float(r["t_s"]), int(r["tx_pkts"])
                rate = 0.0
                if prev and t > prev[0]:
                    rate = (tx - prev[1]) / (t - prev[0])
                prev = (t, tx)
                d.write("%s %f %s %s\n" % (r["t_s"], rate, r["srtt_us"], r["pwnd"]))
        files.append((fn, "qp%s p%s" % (qpn, path)))
    if not files:
        sys.exit("no path rows in %s" % args.csv)

    def plots(col):
        return ", ".join("'%s' using 1:%d with lines title '%s'" % (fn, col, t)
                         for fn, t in files)
    gp = """set terminal png size 1200,900
set output '%s'
set multiplot layout 3,1 title 'metaroce per-path telemetry'
set key outside right
set xlabel 'time (s)'
set ylabel 'tx pkt/s'
plot %s
set ylabel 'srtt (us)'
plot %s
set ylabel 'pwnd (pkts)'
plot %s
unset multiplot
""" % (args.png, plots(2), plots(3), plots(4))
    subprocess.run(["gnuplot"], input=gp.encode(), check=True)
    print(args.png)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("dev")
    r.add_argument("--interval-ms", type=int, default=200)
    r.add_argument("--duration", type=float, default=0)
    r.add_argument("--out", required=True)
    lv = sub.add_parser("live")
    lv.add_argument("dev")
    lv.add_argument("--interval-ms", type=int, default=500)
    lv.add_argument("--clear", action="store_true")
    p = sub.add_parser("plot")
    p.add_argument("csv")
    p.add_argument("--png", required=True)
    args = ap.parse_args()
    {"record": record, "live": live, "plot": plot}[args.cmd](args)


if __name__ == "__main__":
    main()
