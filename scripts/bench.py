#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregate `make bench` points into results.json, tables and PNG plots.

Input: one JSON object per line (scripts/bench-guest.sh "BENCH" lines):
  {"driver", "bench", "x", "rep", "bytes", "ms", "ok", "side",
   optional "cpu_busy_s", "cpu_mhz", "counters", "resets"}
"side" is "requester" (the point that moved the data) or "responder" (rxe's
guest 1: its own CPU time and counters for the same repetition).
Output (schema in Documentation/benchmarks.rst): OUT/results.json,
OUT/<benchmark>.png (gnuplot, when installed), tables on stdout. With
--quick, TAP lines and a non-zero exit when a threshold fails.
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
SEED_PLATEAU_BYTES = 32768	# seeds: goodput plateaus from ~32 KiB messages
PLATEAU_FRACTION = 0.9		# "plateau": first size within 10 % of the best
DRIVERS = ("metaroce", "rxe")
ORDER = ("loss", "reorder", "msgsize", "cpu", "nvme-seqread", "nvme-randread")


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
    for bench, o in res.items():
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
    agg = aggregate(points)
    benches = build(agg)
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
        table(bench, o)
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
