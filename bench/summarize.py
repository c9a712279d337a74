#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""summarize.py RAW RESULTS -- turns what bench/in-vm.sh measured (RAW) into
RESULTS/records.jsonl (every run's figures, stamped: rpma_measure),
RESULTS/summary.md (tables and the environment) and RESULTS/chart.png.
summarize.py --md RESULTS -- summary.md and chart.png again from
records.jsonl alone.

Per fio row and implementation, every figure is the median over the rounds
that ended with status 0. CPU is fio's usr_cpu + sys_cpu summed over the
jobs of one side, in % of one CPU. The ratio is ours / reference (IOPS).
Exits 1 if a run failed or none ran.
"""
import json
import math
import os
import re
import statistics
import sys

from rpma_measure import fio, provenance, record
from rpma_measure.stats import median_or_none as median

IMPLS = ("ours", "ref")


def fio_figures(row, base):
    """The figures of one fio pair: client I/O, both sides' CPU."""
    cl = fio.read(base + ".client.json")["jobs"]
    sv = fio.read(base + ".server.json")["jobs"]
    nj = int(re.search(r"-nj(\d+)", row).group(1))
    job = cl[0]  # group_reporting: one entry for all jobs
    d = "read" if "-read-" in row else "write"
    io = job[d]
    # fio's total latency (lat: submission to completion), not clat: with
    # sync=1 the reference engines complete an I/O inside queue() and fio
    # never sets its issue time, so their clat comes out near 10^11 ns
    lat = io["lat_ns"]

    def cpu(jobs):
        # group_reporting: usr_cpu is the jobs' mean; all jobs' total
        return sum((j["usr_cpu"] + j["sys_cpu"]) * (nj if len(jobs) == 1 else 1)
                   for j in jobs)

    return {
        "iops": io["iops"],
        "mbps": io["bw_bytes"] / 1e6,
        "avg_us": lat["mean"] / 1000,
        "p50_us": fio.percentile_us(io, "50", "lat_ns") or 0,
        "p99_us": fio.percentile_us(io, "99", "lat_ns") or 0,
        "p999_us": fio.percentile_us(io, "99.9", "lat_ns") or 0,
        "client_cpu": cpu(cl),
        "server_cpu": cpu(sv),
    }


def perftest_figures(path):
    """perftest's result line: latency (us) or bandwidth (MB/s)."""
    text = open(path).read()
    lat = "t_avg" in text
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0].isdigit() and f[1].isdigit():
            try:
                if lat:  # bytes iters min max typical avg stdev p99 p99.9
                    fig = {"avg_us": float(f[5]), "typical_us": float(f[4]),
                           "p99_us": float(f[7]), "p999_us": float(f[8])}
                else:
                    fig = {"mbps": float(f[3]), "peak_mbps": float(f[2])}
            except (ValueError, IndexError):
                return None
            # "inf": perftest could not tell its cycle counter's frequency
            return fig if all(math.isfinite(v) for v in fig.values()) else None
    return None


def fmt(v, digits=0):
    if v is None:
        return "-"
    return f"{v:,.{digits}f}"


MTU = 1024  # rxe's active MTU on the VM's dummy netdev (1500-byte Ethernet MTU)


def packet_floor(row):
    """the fewest packets per I/O the row's work needs on rxe (see the
    table's text), None for a row it does not know"""
    m = re.match(r"(apm|gpspm)-(write|randwrite|read)-bs(\d+)(k?)-qd(\d+)-nj\d+", row)
    if not m:
        return None
    kind, rw, bs, k, qd = m.group(1), m.group(2), int(m.group(3)), m.group(4), int(m.group(5))
    size = bs * 1024 if k else bs
    data = max(1, -(-size // MTU))
    if rw == "read":
        return 1 + data if kind == "apm" else None
    if kind == "gpspm" and rw != "write":
        return None  # random GPSPM writes share flushes only when adjacent
    flush = 2 if kind == "apm" else 4
    return data + 1 + flush / qd


def parse(raw):
    """the records of one run: its environment, every fio pair, perftest
    and rpma-bench run and packet count, and what failed"""
    env = provenance.env_of(raw)
    recs = [dict(record="env", **env)]

    def failed(what):
        recs.append(dict(record="failed", what=what))

    try:
        lines = open(os.path.join(raw, "runs")).read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        row, impl, rnd, status = line.split("\t")
        base = os.path.join(raw, "fio", f"{row}.{impl}.r{rnd}")
        entry = {"record": "fio", "row": row, "impl": impl, "round": int(rnd), "status": status}
        if status != "0 0":
            failed(f"{row} {impl} round {rnd}: status client/server {status}")
        else:
            try:
                entry.update(fio_figures(row, base))
            except (OSError, ValueError, KeyError, IndexError) as e:
                failed(f"{row} {impl} round {rnd}: unreadable report ({e})")
                entry["status"] = "unreadable"
        recs.append(entry)

    pdir = os.path.join(raw, "perftest")
    for name in sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []:
        m = re.match(r"(ib_\w+)\.(\d+)\.r(\d+)\.txt$", name)
        if m:
            fig = perftest_figures(os.path.join(pdir, name))
            if fig:
                recs.append(dict(record="perftest", test=m.group(1), size=int(m.group(2)),
                                 round=int(m.group(3)), **fig))
            else:
                failed(f"perftest {m.group(1)} -s {m.group(2)} round {m.group(3)}: no result")

    rdir = os.path.join(raw, "rpma-bench")
    for name in sorted(os.listdir(rdir)) if os.path.isdir(rdir) else []:
        m = re.match(r"(ours|ref)\.r(\d+)\.json$", name)
        if not m:
            continue
        got = 0
        for line in open(os.path.join(rdir, name)):
            if line.startswith("{"):
                recs.append(dict(record="rpma-bench", impl=m.group(1), round=int(m.group(2)),
                                 **json.loads(line)))
                got += 1
        if not got:
            failed(f"rpma-bench on {m.group(1)}'s librpma round {m.group(2)}: no result")

    try:
        plines = open(os.path.join(raw, "packets")).read().splitlines()
    except OSError:
        plines = []
    for line in plines:
        row, impl, pkts, ios, status = line.split("\t")
        if status != "0 0" or not int(ios):
            failed(f"{row} {impl} packet count: status client/server {status}")
        else:
            recs.append(dict(record="packets", row=row, impl=impl,
                             packets_per_io=int(pkts) / int(ios)))
    return provenance.stamped(env, recs)


def summary(recs, out):
    """RESULTS/summary.md and chart.png from the records; 1 if a run
    failed or none ran"""
    env = next((r for r in recs if r["record"] == "env"), {})
    failed = [r["what"] for r in recs if r["record"] == "failed"]
    runs = [r for r in recs if r["record"] == "fio"]
    perf = {}  # (test, size) -> [figures]
    for r in recs:
        if r["record"] == "perftest":
            perf.setdefault((r["test"], r["size"]), []).append(r)
    rb = {}  # (impl, op, bs) -> [figures]
    for r in recs:
        if r["record"] == "rpma-bench":
            rb.setdefault((r["impl"], r["op"], r["bs"]), []).append(r)
    packets = {(r["row"], r["impl"]): r["packets_per_io"] for r in recs
               if r["record"] == "packets"}

    # the fio table: rows in the order they ran, medians over the rounds
    order = []
    for r in runs:
        if r["row"] not in order:
            order.append(r["row"])
    keys = ("iops", "mbps", "avg_us", "p50_us", "p99_us", "p999_us", "client_cpu", "server_cpu")
    med = {}
    for row in order:
        for impl in IMPLS:
            ok = [r for r in runs if r["row"] == row and r["impl"] == impl and "iops" in r]
            med[row, impl] = {k: median([r[k] for r in ok]) for k in keys}
            med[row, impl]["n"] = len(ok)

    # ours and the reference of one round ran back to back, under the same
    # load: the ratio is the median of the rounds' ratios (robust to the
    # load drifting between rounds), with their spread
    pair_ratios = {}
    for row in order:
        by = {(r["impl"], r["round"]): r for r in runs if r["row"] == row and "iops" in r}
        pair_ratios[row] = sorted(by["ours", n]["iops"] / by["ref", n]["iops"]
                                  for (i, n) in by if i == "ours" and ("ref", n) in by
                                  and by["ref", n]["iops"])

    def ratio(row):
        return median(pair_ratios[row])

    def spread(row):
        rs = pair_ratios[row]
        return f"{rs[0]:.2f}-{rs[-1]:.2f}" if len(rs) > 1 else ""

    md = []
    md.append("# rpma benchmark results\n")
    md.append("Our fio engines on our librpma (**ours**) against fio's own librpma engines on "
              "Debian's librpma 1.2.0 (**ref**), run alternately in one boot; medians over "
              f"{env.get('rounds', '?')} rounds (see bench/README.md for how to read it).\n")
    md.append(provenance.command_line(env) + "\n")
    if env.get("where") == "vm":
        md.append("> **Soft-RoCE under TCG emulation.** Everything ran in a QEMU VM without "
                  "hardware acceleration (pure emulation), over Soft-RoCE (`rdma_rxe`) looped "
                  "back inside the guest: the NIC is the guest's CPU. Absolute figures are "
                  "10-50x off real hardware and mostly measure CPU cost per operation; only "
                  "the ratios between programs measured side by side mean something.\n")
    md.append("## Environment\n")
    md.append("| | |\n| --- | --- |")
    for label, key in (("date", "date"), ("where", "where"), ("device", "device"),
                       ("kernel (guest)", "kernel"), ("kernel (host)", "host_kernel"),
                       ("rdma-core", "rdma_core"), ("perftest", "perftest"),
                       ("CPU (host)", "host_cpu"), ("host CPUs", "host_cpus"),
                       ("CPU (guest)", "guest_cpu"), ("guest CPUs", "guest_cpus"),
                       ("fio, ours", "our_fio"), ("fio, reference", "reference_fio"),
                       ("reference librpma", "reference_librpma"), ("rpma", "rpma_commit"),
                       ("build flags", "rpma_flags"),
                       ("matrix", "mode"), ("rounds", "rounds"),
                       ("fio runtime per run, s", "runtime"), ("elapsed", "elapsed_s")):
        if key in env:
            v = env[key] + (" s" if key == "elapsed_s" else "")
            md.append(f"| {label} | {v} |")
    md.append("")
    md.append("## fio: ours / reference\n")
    md.append("Row: method-rw-bs-iodepth-numjobs[-busy_wait_polling]; iodepth 1 runs with "
              "sync=1. Each cell is ours / ref. Latency: the client's total latency per I/O "
              "(fio's lat: submission to completion; clat is not comparable, see bench/README.md), "
              "us. CPU: usr+sys, % of one CPU, all jobs of that side. "
              "Ratio: IOPS ours / ref (> 1: ours is faster), the median of the rounds' ratios "
              "(each round ran both back to back), and their range.\n")
    md.append("| row | IOPS | ratio | ratio range | MB/s | avg us | p50 us | p99 us | p99.9 us "
              "| client CPU % | server CPU % |")
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for row in order:
        o, f = med[row, "ours"], med[row, "ref"]

        def both(k, d=0):
            return f"{fmt(o[k], d)} / {fmt(f[k], d)}"
        rt = ratio(row)
        md.append(f"| {row} | {both('iops')} | {fmt(rt, 2) if rt else '-'} | {spread(row)} | "
                  f"{both('mbps', 1)} | {both('avg_us')} | {both('p50_us')} | "
                  f"{both('p99_us')} | {both('p999_us')} | "
                  f"{both('client_cpu')} | {both('server_cpu')} |")
    rts = [ratio(r) for r in order if ratio(r)]
    if rts:
        md.append("")
        md.append(f"IOPS ratio ours/ref over {len(rts)} rows: geometric mean "
                  f"{statistics.geometric_mean(rts):.2f}, min {min(rts):.2f}, max {max(rts):.2f}.")
    md.append("")

    prows = [r for r in dict.fromkeys(r for r, _ in packets)
             if (r, "ours") in packets and (r, "ref") in packets]
    if prows:
        md.append("## What an I/O costs the transport: packets per I/O\n")
        md.append(f"RDMA packets the device sent (client and server together, its `sent_pkts` "
                  f"counter) per I/O, over one run of 4096 I/Os of each row at 4 KiB "
                  "(single job). Unlike the timings these counts hardly vary from run to run: "
                  "they show how much work each implementation asks of the transport. A 4 KiB "
                  "RDMA write is 4 packets plus an acknowledgement at Soft-RoCE's 1024-byte MTU, "
                  "an APM flush 2 (an RDMA read and its response), a GPSPM flush request and "
                  "response 4 with their acknowledgements.\n")
        md.append("The floor is the least any implementation can send on rxe: the data "
                  "packets (one per 1024 bytes; an RDMA read's request is one more), one "
                  "acknowledgement per message the responder receives, and for a write the "
                  "flush it needs before it may complete, shared at best by every write in "
                  "flight: one per iodepth writes (an APM flush 2 packets, a GPSPM flush 4). "
                  "So at 4 KiB: APM write 4 + 1 + 2/iodepth, APM read 1 + 4, GPSPM write "
                  "4 + 1 + 4/iodepth.\n")
        md.append("| row | floor | ours | ref | ours / floor | ours / ref |")
        md.append("| --- | ---: | ---: | ---: | ---: | ---: |")
        for row in prows:
            o, f = packets[row, "ours"], packets[row, "ref"]
            fl = packet_floor(row)
            fls = f"{fl:.3f}" if fl else "-"
            ofl = f"{o / fl:.3f}" if fl else "-"
            md.append(f"| {row} | {fls} | {o:.2f} | {f:.2f} | {ofl} | {o / f:.2f} |")
        md.append("")

    if perf:
        md.append("## perftest baselines (verbs, no library)\n")
        md.append("Medians over the rounds. `ib_*_lat` report half a round trip for write and "
                  "send (ping-pong), a whole one for read; `ib_*_bw` one QP, one direction.\n")
        md.append("| test | bytes | avg us | typical us | p99 us | p99.9 us | MB/s |")
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for (t, size) in sorted(perf, key=lambda k: (k[0].endswith("bw"), k[0], k[1])):
            figs = perf[t, size]

            def m(k):
                return median([x[k] for x in figs if k in x])
            md.append(f"| {t} | {size} | {fmt(m('avg_us'), 1)} | {fmt(m('typical_us'), 1)} | "
                      f"{fmt(m('p99_us'), 1)} | {fmt(m('p999_us'), 1)} | {fmt(m('mbps'), 1)} |")
        md.append("")

    if rb:
        md.append("## rpma-bench: the library's own latency (our librpma / reference librpma)\n")
        md.append("One client, one server, polled completions, whole round trips (see "
                  "bench/README.md). Medians over the rounds, in us; the ratio compares p50, the "
                  "typical round trip (the average is dominated by scheduling stalls under "
                  "emulation); the "
                  "same binary runs on either library.\n")
        md.append("| operation | bytes | avg us | p50 us | p99 us | p99.9 us | p50 ratio ours/ref |")
        md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        ops = sorted({(op, bs) for (_, op, bs) in rb}, key=lambda k: (k[0], k[1]))
        for op, bs in ops:
            def m(impl, k):
                return median([x[k] for x in rb.get((impl, op, bs), [])])
            a, b = m("ours", "p50_us"), m("ref", "p50_us")
            md.append(f"| {op} | {bs} | {fmt(m('ours', 'avg_us'), 1)} / {fmt(m('ref', 'avg_us'), 1)} | "
                      f"{fmt(a, 1)} / {fmt(b, 1)} | "
                      f"{fmt(m('ours', 'p99_us'), 1)} / {fmt(m('ref', 'p99_us'), 1)} | "
                      f"{fmt(m('ours', 'p99.9_us'), 1)} / {fmt(m('ref', 'p99.9_us'), 1)} | "
                      f"{fmt(a / b, 2) if a and b else '-'} |")
        md.append("")

    if failed:
        md.append("## Failed runs\n")
        md.extend(f"- {f}" for f in failed)
        md.append("")
    md.append("The figures of every run: records.jsonl.")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    chart(order, med, ratio, pair_ratios, os.path.join(out, "chart.png"), env)
    print(f"summarize: {len(order)} fio rows, {len(runs)} runs, {len(failed)} failed; "
          f"{os.path.join(out, 'summary.md')}")
    return 1 if failed or not runs else 0


def main():
    if sys.argv[1] == "--md":
        out = sys.argv[2]
        return summary(record.read(os.path.join(out, "records.jsonl")), out)
    raw, out = sys.argv[1], sys.argv[2]
    recs = parse(raw)
    record.write(os.path.join(out, "records.jsonl"), recs)
    return summary(recs, out)


def chart(order, med, ratio, pair_ratios, path, env):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("summarize: no matplotlib (apt-get install python3-matplotlib): no chart")
        return
    rows = [r for r in order if ratio(r)]
    if not rows:
        return
    h = max(3.0, 0.32 * len(rows) + 1.5)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, h), sharey=True)
    ys = range(len(rows))
    rts = [ratio(r) for r in rows]
    lo = [v - pair_ratios[r][0] for r, v in zip(rows, rts)]
    hi = [pair_ratios[r][-1] - v for r, v in zip(rows, rts)]
    a1.barh(ys, rts, xerr=[lo, hi], ecolor="gray", capsize=2,
            color=["tab:green" if v >= 1 else "tab:red" for v in rts])
    a1.axvline(1.0, color="black", linewidth=0.8)
    a1.set_yticks(list(ys))
    a1.set_yticklabels(rows, fontsize=8)
    a1.invert_yaxis()
    a1.set_xlabel("IOPS ours / reference (> 1: ours faster); median and range of the rounds")
    for y, v in zip(ys, rts):
        a1.text(v, y, f" {v:.2f}", va="center", fontsize=7)
    w = 0.4
    a2.barh([y - w / 2 for y in ys], [med[r, "ours"]["p50_us"] for r in rows], w, label="ours")
    a2.barh([y + w / 2 for y in ys], [med[r, "ref"]["p50_us"] for r in rows], w, label="reference")
    a2.set_xscale("log")
    a2.set_xlabel("client latency per I/O (fio lat), p50 (us, log)")
    a2.legend(fontsize=8)
    where = "Soft-RoCE in a TCG-emulated VM" if env.get("where") == "vm" else env.get("device", "")
    fig.suptitle(f"rpma vs librpma 1.2 + fio's engines ({where}; medians)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


sys.exit(main())
