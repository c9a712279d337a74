#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# bench/scaling.py RAW RESULTS -- the tables of bench/run --scaling
# (bench/in-vm.sh BENCH_SCALING=1) into RESULTS/scaling.md: numjobs 1 to
# 64, and the latency baselines set against the wall clock.
import json
import os
import re
import sys


def fio_json(path):
    try:
        text = open(path).read()
    except OSError:
        return None
    # fio may print notes before its JSON
    i = text.find("{")
    try:
        return json.loads(text[i:]) if i >= 0 else None
    except ValueError:
        return None


def job_sum(j, key):
    return sum(job[key] for job in j["jobs"]) if j else None


def iops(j):
    if not j:
        return None
    return sum(job["write"]["iops"] + job["read"]["iops"] for job in j["jobs"])


def cpu(j):
    if not j:
        return None
    return sum(job["usr_cpu"] + job["sys_cpu"] for job in j["jobs"])


def num(v, f="{:,.0f}"):
    return f.format(v) if v is not None else "-"


def scaling(raw, o):
    path = os.path.join(raw, "scaling", "list")
    if not os.path.exists(path):
        return
    rows = {}
    for line in open(path).read().splitlines():
        impl, kind, nj, status, tc, r0, r1 = line.split("\t")
        nj = int(nj)
        base = os.path.join(raw, "scaling", f"{kind}.nj{nj}.{impl}")
        c, s = fio_json(base + ".client.json"), fio_json(base + ".server.json")
        rows[kind, nj, impl] = dict(status=status, tc=None if tc == "-" else float(tc),
                                    r0=int(r0) if r0.isdigit() else None,
                                    r1=int(r1) if r1.isdigit() else None,
                                    iops=iops(c), ccpu=cpu(c), scpu=cpu(s))
    o.append("## Scaling: numjobs, each job its own connection\n")
    o.append("Write, 4 KiB, iodepth 16 per job, 1 MiB per job (`filename=malloc` on the server), "
             "5 s after 1 s of ramp-up, `group_reporting`; GPSPM servers with "
             "`busy_wait_polling=0` (64 spinning server threads on 2 CPUs would measure the "
             "scheduler). IOPS: all jobs together. CPU: fio's usr + sys, summed over the side's "
             "jobs, % of one CPU. Connect: from the client's start (its start-up included) until "
             "the server's RDMA-CM ids of all jobs are connected (polled every 0.1 s). Server "
             "memory: its RSS once all jobs listen and once all are connected; per connection "
             "is the growth over numjobs (the regions are allocated before listening).\n")
    o.append("| kind | numjobs | impl | IOPS | IOPS / job | client CPU % | server CPU % | "
             "connect s | server RSS kB before / after | per connection kB | status |")
    o.append("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for (kind, nj, impl), r in sorted(rows.items(), key=lambda x: (x[0][0], x[0][1], x[0][2])):
        per = (r["r1"] - r["r0"]) / nj if r["r0"] is not None and r["r1"] is not None else None
        o.append(f"| {kind} | {nj} | {impl} | {num(r['iops'])} | "
                 f"{num(r['iops'] / nj if r['iops'] else None)} | {num(r['ccpu'])} | "
                 f"{num(r['scpu'])} | {num(r['tc'], '{:.2f}')} | {num(r['r0'])} / {num(r['r1'])} | "
                 f"{num(per)} | {r['status']} |")
    o.append("")


def perftest_avg(path):
    """perftest's t_avg and t_typical (us) and the wall time (s)"""
    try:
        text = open(path).read()
    except OSError:
        return None
    # the stdev may be "-nan"
    m = re.search(r"^\s*\d+\s+\d+\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s", text, re.M)
    w = re.search(r"^wall_s ([\d.]+)", text, re.M)
    if not m or not w:
        return None
    # #bytes #iterations t_min t_max t_typical t_avg t_stdev ...
    return dict(typical=float(m.group(3)), avg=float(m.group(4)), wall=float(w.group(1)))


def latbase(raw, o):
    d = os.path.join(raw, "latbase")
    if not os.path.isdir(d):
        return
    o.append("## Latency baselines against the wall clock\n")
    o.append("Each test ran with 1000 and 11000 iterations (I/Os) in one boot; the wall time "
             "of the client process (bash's `EPOCHREALTIME`) differs by the 10000 extra "
             "iterations, so (wall(11000) - wall(1000)) / 10000 is the mean iteration by a "
             "clock neither program calibrated. `ib_write_lat` reports half its ping-pong, "
             "so its wall mean is halved to compare. fio: the APM read row (iodepth 1, "
             "`sync=1`, busy polling) on fio's default clock and on `clock_gettime`, 4000 "
             "I/Os (no wall figure: fio's start-up varies by seconds under TCG, more than "
             "the I/Os its size= allows take).\n")
    o.append("| test | reported avg us | reported p50 us | wall mean us | "
             "reported / wall |")
    o.append("| --- | ---: | ---: | ---: | ---: |")
    for t, half in (("ib_read_lat", 1), ("ib_write_lat", 2)):
        a = perftest_avg(os.path.join(d, f"{t}.n1000.txt"))
        b = perftest_avg(os.path.join(d, f"{t}.n11000.txt"))
        if not a or not b:
            o.append(f"| {t} | - | - | - | - |")
            continue
        wall = (b["wall"] - a["wall"]) / 10000 * 1e6 / half
        o.append(f"| {t} -s 4096 | {b['avg']:.1f} | {b['typical']:.1f} | {wall:.1f} | "
                 f"{b['avg'] / wall:.2f} |")
    for cs in ("cpu", "clock_gettime"):
        a = fio_json(os.path.join(d, f"fio-read.{cs}.n1000.json"))
        b = fio_json(os.path.join(d, f"fio-read.{cs}.n4000.json"))
        try:
            wa = float(open(os.path.join(d, f"fio-read.{cs}.n1000.wall")).read().split()[1])
            wb = float(open(os.path.join(d, f"fio-read.{cs}.n4000.wall")).read().split()[1])
        except (OSError, IndexError, ValueError):
            wa = wb = None
        if not b or wa is None:
            o.append(f"| fio apm read ({cs}) | - | - | - | - |")
            continue
        lat = b["jobs"][0]["read"]["lat_ns"]
        avg = lat["mean"] / 1000
        p50 = lat.get("percentile", {}).get("50.000000", 0) / 1000
        # fio's start-up varies by seconds under TCG, more than 3000 I/Os
        # take: its wall difference means nothing, and is not shown
        o.append(f"| fio apm read ({cs}) | {avg:.1f} | {p50:.1f} | - | - |")
    clock = os.path.join(d, "clock.txt")
    if os.path.exists(clock):
        o.append("")
        o.append("The guest's clock: " + "; ".join(
            line.strip() for line in open(clock).read().splitlines() if line.strip()))
    o.append("")


def main():
    raw, results = sys.argv[1], sys.argv[2]
    o = ["# rpma benchmark: scaling and latency baselines", "",
         "Made by `bench/run --scaling` in the Soft-RoCE VM (see bench/README.md): ours "
         "(Debian's fio, our engines, our librpma) against the reference (fio 3.33's librpma "
         "engines, Debian's librpma 1.2), the reference at 1, 4 and 16 jobs only.", ""]
    latbase(raw, o)
    scaling(raw, o)
    with open(os.path.join(results, "scaling.md"), "w") as f:
        f.write("\n".join(o) + "\n")
    print(f"scaling: {os.path.join(results, 'scaling.md')}")


if __name__ == "__main__":
    main()
