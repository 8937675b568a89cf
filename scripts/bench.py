#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregate `make bench` points into results.json, a table and PNG plots.

Input: one JSON object per line (scripts/bench-guest.sh "BENCH" lines):
  {"driver", "bench", "x", "rep", "bytes", "ms", "ok"}
Output (schema in Documentation/benchmarks.rst): OUT/results.json,
OUT/loss.png (gnuplot, when installed), the table on stdout. With --quick,
TAP lines and a non-zero exit when a threshold fails.
"""
import argparse
import json
import os
import platform
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


def mbps(p):
    return p["bytes"] * 8 / (p["ms"] * 1000) if p["ok"] and p["ms"] > 0 else 0.0


def aggregate(points):
    """{driver: {x: {reps, median, min, max, failed}}} in Mbit/s."""
    out = {}
    for p in points:
        if p.get("bench") != "loss":
            continue
        cell = out.setdefault(p["driver"], {}).setdefault(float(p["x"]),
                                                          {"reps": [], "failed": 0})
        if p["ok"]:
            cell["reps"].append(round(mbps(p), 3))
        else:
            cell["failed"] += 1
    for cells in out.values():
        for cell in cells.values():
            r = cell["reps"]
            cell["median"] = statistics.median(r) if r else 0.0
            cell["min"] = min(r) if r else 0.0
            cell["max"] = max(r) if r else 0.0
    return out


def fractions(agg):
    """Goodput at each loss over the same driver's lossless median."""
    fr = {}
    for drv, cells in agg.items():
        base = cells.get(0.0, {}).get("median", 0.0)
        fr[drv] = {x: (c["median"] / base if base else None) for x, c in cells.items()}
    return fr


def plot(out_dir, fr):
    data = os.path.join(out_dir, "loss.dat")
    xs = sorted({x for f in fr.values() for x in f})
    with open(data, "w") as f:
        f.write("# loss_pct metaroce_fraction rxe_fraction\n")
        for x in xs:
            row = [fr.get(d, {}).get(x) for d in ("metaroce", "rxe")]
            f.write("%g %s\n" % (x, " ".join("NaN" if v is None else "%.4f" % v for v in row)))
    script = f"""
set terminal pngcairo size 900,560
set output '{os.path.join(out_dir, "loss.png")}'
set title 'Goodput under random loss, as a fraction of each driver''s lossless goodput'
set xlabel 'netem loss (%)'
set ylabel 'goodput / lossless goodput'
set logscale x
set xrange [0.08:12]
set yrange [0:*]
set key bottom left
set grid
plot '{data}' using ($1 > 0 ? $1 : 1/0):2 with linespoints lw 2 title 'metaroce', \\
     '{data}' using ($1 > 0 ? $1 : 1/0):3 with linespoints lw 2 title 'rdma\\_rxe (go-back-N)', \\
     '-' using 1:2 with points pt 7 ps 2 title 'Meta (seeds): 0.86 at 1 %'
1 0.86
e
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench: no plot (%s)" % e, file=sys.stderr)


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
    agg = aggregate(points)
    fr = fractions(agg)
    ratio = {}
    for x, c in agg.get("metaroce", {}).items():
        r = agg.get("rxe", {}).get(x)
        if r and r["median"]:
            ratio[x] = c["median"] / r["median"]
    res = {
        "schema": 1,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "emulation": "qemu-tcg"},
        "seconds": a.seconds,
        "benchmarks": {"loss": {
            "unit": "Mbit/s",
            "drivers": {d: {"%g" % x: dict(c, fraction_of_lossless=fr[d][x])
                            for x, c in sorted(cells.items())}
                        for d, cells in agg.items()},
            "metaroce_over_rxe": {"%g" % x: v for x, v in sorted(ratio.items())},
            "seed_fraction": {"%g" % x: v for x, v in SEED_FRACTION.items()},
        }},
    }
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)

    print("loss sweep: goodput median [min..max] Mbit/s, fraction of own lossless")
    print("%-7s %-34s %-34s %s" % ("loss %", "metaroce", "rxe", "metaroce/rxe"))
    for x in sorted({x for c in agg.values() for x in c}):
        cols = []
        for d in ("metaroce", "rxe"):
            c = agg.get(d, {}).get(x)
            if not c:
                cols.append("-")
                continue
            f_ = fr[d][x]
            cols.append("%.1f [%.1f..%.1f] %s%s" % (
                c["median"], c["min"], c["max"],
                "%.2f" % f_ if f_ is not None else "n/a",
                " (%d failed)" % c["failed"] if c["failed"] else ""))
        print("%-7g %-34s %-34s %s" % (x, cols[0], cols[1],
                                       "%.2f" % ratio[x] if x in ratio else "-"))
    print("results: %s/results.json (%d s)" % (a.out, a.seconds))
    if not a.quick:
        plot(a.out, fr)
        return 0

    # --quick: TAP for make check
    m = agg.get("metaroce", {})
    n, bad = 0, 0

    def tap(ok, desc):
        nonlocal n, bad
        n += 1
        bad += 0 if ok else 1
        print("%s %d - %s" % ("ok" if ok else "not ok", n, desc))

    print("TAP version 13")
    for x in (0.0, 1.0):
        c = m.get(x)
        tap(bool(c) and not c["failed"] and c["median"] > 0,
            "bench quick: metaroce at %g %% loss moved verified data" % x)
    f1 = fr.get("metaroce", {}).get(1.0)
    tap(f1 is not None and f1 >= QUICK_MIN_FRACTION_1PCT,
        "bench quick: goodput at 1 %% loss / lossless = %s (floor %.2f)" % (
            "%.2f" % f1 if f1 is not None else "n/a", QUICK_MIN_FRACTION_1PCT))
    print("1..%d" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
