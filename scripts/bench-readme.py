#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Regenerate README.md's benchmark results block from results.json.

usage: scripts/bench-readme.py [--results build/bench/results.json]
                               [--readme README.md] [--print]

The block sits between the lines "<!-- bench-results:begin -->" and
"<!-- bench-results:end -->"; everything between them is replaced, the rest
of the README is left alone. --print writes the block to stdout instead.
Every figure comes from results.json (schema: Documentation/benchmarks.rst):
medians with [min..max] over the repetitions, ratios as make bench computed
them. A benchmark missing from results.json (a B=... run) is listed as not
run, so a partial run cannot pass for a full one.
"""
import argparse
import json
import sys

BEGIN = "<!-- bench-results:begin -->"
END = "<!-- bench-results:end -->"
ALL = ("loss", "reorder", "msgsize", "cpu", "nvme-seqread", "nvme-randread",
       "planes", "planefail", "incast")


def f(v, fmt="%.2f"):
    return fmt % v if isinstance(v, (int, float)) else "-"


def rng(c, fmt="%.2f"):
    """'median [min..max]' of a {"median", "min", "max"} object."""
    if not c or c.get("median") is None:
        return "-"
    if c.get("min") is None or c["min"] == c["max"]:
        return f(c["median"], fmt)
    return "%s [%s..%s]" % (f(c["median"], fmt), f(c["min"], fmt), f(c["max"], fmt))


def cell(res, bench, driver, x):
    return res.get(bench, {}).get("drivers", {}).get(driver, {}).get(x)


def failed(c):
    return " (%d failed)" % c["failed"] if c and c.get("failed") else ""


def loss_table(res, out):
    o = res.get("loss")
    if not o:
        return
    seeds = o.get("seed_fraction", {})
    out.append("| netem loss | metaroce (fraction of lossless) | rdma_rxe | metaroce ÷ rxe "
               "| Meta (seeds) |")
    out.append("| --- | --- | --- | --- | --- |")
    xs = sorted(o["drivers"].get("metaroce", {}), key=float)
    for x in xs:
        m, r = cell(res, "loss", "metaroce", x), cell(res, "loss", "rxe", x)
        seed = seeds.get(x)
        out.append("| %s %% | %s (%s Mbit/s)%s | %s (%s Mbit/s)%s | %s | %s |" % (
            x, f(m.get("fraction_of_lossless")), rng(m, "%.1f"), failed(m),
            f((r or {}).get("fraction_of_lossless")), rng(r, "%.1f"), failed(r),
            f(o.get("metaroce_over_rxe", {}).get(x)),
            "~%.2f" % seed if seed else ""))


def other_table(res, out):
    rows = []
    o = res.get("reorder")
    if o:
        for x in ("jitter", "reorder", "delay"):
            m, r = cell(res, "reorder", "metaroce", x), cell(res, "reorder", "rxe", x)
            if not m:
                continue
            rows.append("| %s (fraction of none; spurious retransmits) | %s; %s | %s | %s | |" % (
                x, f(m.get("fraction_of_none")), f(m.get("spurious_ratio"), "%.4f"),
                f((r or {}).get("fraction_of_none")),
                f(o.get("metaroce_over_rxe", {}).get(x))))
    o = res.get("msgsize")
    if o:
        for x in sorted(o["drivers"].get("metaroce", {}), key=float):
            m, r = cell(res, "msgsize", "metaroce", x), cell(res, "msgsize", "rxe", x)
            rows.append("| message size %s B (Mbit/s) | %s%s | %s%s | %s | |" % (
                x, rng(m, "%.1f"), failed(m), rng(r, "%.1f"), failed(r),
                f(o.get("metaroce_over_rxe", {}).get(x))))
        pb = o.get("plateau_bytes", {})
        rows.append("| message size plateau (%s) | %s | %s | | from ~%s |" % (
            o.get("plateau_rule", ""), pb.get("metaroce", "-"), pb.get("rxe", "-"),
            o.get("seed_plateau_bytes", "-")))
    o = res.get("cpu")
    if o:
        m, r = cell(res, "cpu", "metaroce", "0"), cell(res, "cpu", "rxe", "0")
        rows.append("| CPU cycles per byte | %s | %s | | |" % (
            rng((m or {}).get("cycles_per_byte"), "%.0f"),
            rng((r or {}).get("cycles_per_byte"), "%.0f")))
    for b, what in (("nvme-seqread", "NVMe-oF 128 KiB seq read"),
                    ("nvme-randread", "NVMe-oF 4 KiB rand read")):
        o = res.get(b)
        if not o:
            continue
        for x in sorted(o["drivers"].get("metaroce", {}), key=float):
            if float(x) == 0:
                continue
            m, r = cell(res, b, "metaroce", x), cell(res, b, "rxe", x)
            m0, r0 = cell(res, b, "metaroce", "0"), cell(res, b, "rxe", "0")
            rows.append("| %s, %s %% loss (fraction of lossless; Mbit/s at 0 %%) "
                        "| %s (%s)%s | %s (%s)%s%s | %s | |" % (
                            what, x, f(m.get("fraction_of_lossless")), rng(m0, "%.1f"),
                            failed(m), f((r or {}).get("fraction_of_lossless")),
                            rng(r0, "%.1f"), failed(r),
                            ", %d reset lines" % r["resets"] if r and r.get("resets") else "",
                            f(o.get("metaroce_over_rxe", {}).get(x))))
    if rows:
        out.append("| benchmark | metaroce | rdma_rxe | metaroce ÷ rxe | Meta (seeds) |")
        out.append("| --- | --- | --- | --- | --- |")
        out.extend(rows)


def mp_table(res, out):
    rows = []
    o = res.get("planes")
    if o:
        cells = o["drivers"]["metaroce"]
        xs = sorted(cells, key=float)
        rows.append("| planes P = %s: goodput(P) ÷ (P × goodput(1)), target %.2f | %s | %s |" % (
            " / ".join(xs), o.get("target_scaling", 0.95),
            " / ".join("%s%s" % (f(cells[x].get("scaling")), failed(cells[x])) for x in xs),
            o.get("seed", "")))
        rows.append("| planes: goodput Mbit/s (÷ P × tbf rate) | %s | |" % " / ".join(
            "%s (%s)" % (rng(cells[x], "%.2f"), f(cells[x].get("fraction_of_tbf")))
            for x in xs))
    o = res.get("planefail")
    if o:
        seed = o.get("seed", {})
        for x, c in sorted(o["drivers"]["metaroce"].items(), key=lambda i: float(i[0])):
            rows.append("| plane failure, %s planes, plane %s down: during ÷ before (limit %s) "
                        "| %s%s | %s → %s Gbps (%s) |" % (
                            x, c.get("failed_plane"), f(c.get("limit_during_over_before"), "%.3f"),
                            rng(c.get("during_over_before")), failed(c),
                            seed.get("before_gbps", "-"), seed.get("during_gbps", "-"),
                            f(seed.get("ratio"))))
            rows.append("| plane failure: after ÷ before; detect / reroute ms "
                        "(`ip link set down` took ms) | %s; %s / %s (%s) | 1 s |" % (
                            rng(c.get("after_over_before")), rng(c.get("detect_ms"), "%.0f"),
                            rng(c.get("reroute_ms"), "%.0f"), rng(c.get("down_cmd_ms"), "%.0f")))
    o = res.get("incast")
    if o:
        for x, cc in sorted(o["drivers"]["metaroce"].items(), key=lambda i: float(i[0])):
            parts = []
            for h in ("hint_on", "hint_off"):
                c = cc.get(h)
                if not c or not c.get("rounds"):
                    continue
                fs = ""
                if c.get("failed_senders"):
                    fs = ", %d of %d senders failed" % (c["failed_senders"], c["senders"])
                parts.append("%s: Jain %s, utilisation %s, drops %s, p99 ÷ ideal %s%s" % (
                    h.replace("hint_", "hints "), rng(c.get("jain"), "%.3f"),
                    rng(c.get("utilisation")), rng(c.get("drop_rate"), "%.3f"),
                    rng(c.get("p99_over_ideal")), fs))
            rows.append("| incast N = %s (%s rounds) | %s | %s |" % (
                x, "/".join(str(cc[h]["rounds"]) for h in ("hint_on", "hint_off") if h in cc),
                "<br>".join(parts), o.get("seed", "")))
    if rows:
        out.append("| benchmark (metaroce only) | metaroce | Meta (seeds) |")
        out.append("| --- | --- | --- |")
        out.extend(rows)


def block(results):
    res = results.get("benchmarks", {})
    out = [BEGIN,
           "Generated by `scripts/bench-readme.py` from "
           "`build/bench/results.json` "
           "(%s, %s s of `make bench`, %s CPUs, %s). Medians over the repetitions, "
           "[min..max] where they differ." % (
               results.get("date", "?"), results.get("seconds", "?"),
               results.get("host", {}).get("cpus", "?"),
               results.get("host", {}).get("emulation", "?"))]
    missing = [b for b in ALL if b not in res]
    if missing:
        out.append("")
        out.append("Not in this run: %s." % ", ".join(missing))
    for fn in (loss_table, other_table, mp_table):
        part = []
        fn(res, part)
        if part:
            out.append("")
            out.extend(part)
    out.append(END)
    return "\n".join(out) + "\n"


def splice(text, blk):
    b, e = text.find(BEGIN), text.find(END)
    if b < 0 or e < b:
        raise ValueError("no %s ... %s block" % (BEGIN, END))
    rest = text[e + len(END):]
    return text[:b] + blk + (rest[1:] if rest.startswith("\n") else rest)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default="build/bench/results.json")
    ap.add_argument("--readme", default="README.md")
    ap.add_argument("--print", action="store_true")
    a = ap.parse_args()
    with open(a.results) as fh:
        results = json.load(fh)
    blk = block(results)
    if a.print:
        sys.stdout.write(blk)
        return 0
    with open(a.readme) as fh:
        text = fh.read()
    try:
        new = splice(text, blk)
    except ValueError as err:
        print("bench-readme: %s: %s" % (a.readme, err), file=sys.stderr)
        return 1
    with open(a.readme, "w") as fh:
        fh.write(new)
    print("bench-readme: %s updated from %s" % (a.readme, a.results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
