#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# bench/scaling.py RAW RESULTS -- the runs of bench/run --scaling
# (bench/in-vm.sh BENCH_SCALING=1) into RESULTS/records.jsonl (each run's
# figures, stamped: rpma_measure) and RESULTS/summary.md: numjobs 1 to
# 64, and the latency baselines set against the wall clock.
# bench/scaling.py --connect RAW RESULTS -- bench/run --connect's runs
# (BENCH_CONNECT=1) into the same two files: connecting without fio.
# bench/scaling.py --md [--connect] RESULTS -- summary.md again from
# records.jsonl alone.
import bisect
import glob
import json
import os
import re
import sys

from rpma_measure import fio, provenance, record
from rpma_measure.stats import median_or_none as median


def fio_json(path):
    """fio's report in PATH, None when it wrote none"""
    try:
        return fio.read(path)
    except (OSError, fio.FioOutputError):
        return None


def num(v, f="{:,.0f}"):
    return f.format(v) if v is not None else "-"


def opt_us(v):
    """microseconds to seconds"""
    return int(v) / 1e6 if v.isdigit() else None


def opt_int(v):
    return int(v) if v.isdigit() else None


USER_HZ = 100
# the steady window begins this long after the last connection came up
MARGIN_S = 1.0
# bench/in-vm/scaling.sh's: the watcher stops a run in which no connection
# came up for this long
STALL_S = 60


def io_times(path):
    """fio's write_iops_log without log_avg_msec, log_unix_epoch=1: a line
    an I/O, its completion's time first (ms); the times in seconds, sorted"""
    with open(path) as lines:
        return sorted(int(line.split(",", 1)[0]) / 1000 for line in lines if "," in line)


def steady_window(connected, stop):
    """(start, end) of the steady window: from MARGIN_S after the last
    connection came up (time `connected`) to the stop (the watcher's last
    sample, right before it stopped the run), None when there is none"""
    if connected is None or stop is None or stop <= connected + MARGIN_S:
        return None
    return (connected + MARGIN_S, stop)


def ios_between(logs, start, end):
    """the I/Os all jobs completed from start to end"""
    return sum(bisect.bisect_right(x, end) - bisect.bisect_left(x, start) for x in logs)


def samples_of(path):
    """watch_pair's samples: a list of float lists (sample's fields), the
    time last; a process gone reads "-" (None)"""
    try:
        with open(path) as f:
            lines = f.read().split()
    except OSError:
        return []
    return [[None if v == "-" else float(v) for v in line.split(",")] for line in lines]


def window_samples(samples, start, end):
    """the first and the last sample from start to end; when the watcher
    was starved into fewer than two, its last one before start (all are
    taken once all are connected) and the last one; None without two"""
    inside = [x for x in samples if start <= x[-1] <= end]
    before = [x for x in samples if x[-1] < start]
    if len(inside) < 2 and before and inside:
        return before[-1], inside[-1]
    return (inside[0], inside[-1]) if len(inside) >= 2 else None


def window(a, b, ios):
    """the CPU between samples a and b, in which the client completed ios
    I/Os: the guest's busy % of all its CPUs, softirq and ksoftirqd % of
    one CPU, packets per I/O, the server's and the client's usr + sys, %
    of one CPU, and the server's per I/O (us)"""
    d = [y - x if x is not None and y is not None else None for x, y in zip(a, b)]
    # user nice system idle iowait irq softirq ksoftirqd packets server
    # client time
    ticks, dt = sum(d[0:7]), d[11]
    if ticks <= 0 or dt <= 0:
        return {}
    w = dict(busy=100 * (ticks - d[3] - d[4]) / ticks,
             softirq=100 * d[6] / (dt * USER_HZ),
             ksoftirqd=100 * d[7] / (dt * USER_HZ),
             t0=a[11], t1=b[11], ios=ios)
    if d[9] is not None:
        w["scpu"] = 100 * d[9] / (dt * USER_HZ)
        if ios:
            w["cpu_us"] = d[9] / USER_HZ * 1e6 / ios
    if d[10] is not None:
        w["ccpu"] = 100 * d[10] / (dt * USER_HZ)
    if d[8] is not None and ios:
        w["pkts"] = d[8] / ios
    return w


def host_samples(raw):
    """bench/run's host_cpu_sampler: (time, QEMU ticks, host busy, host total)"""
    try:
        lines = open(os.path.join(raw, "host-cpu")).read().splitlines()
    except OSError:
        return []
    return [tuple(float(x) for x in line.split()) for line in lines if len(line.split()) == 4]


def host_window(samples, t0, t1):
    """the host cores QEMU used and the host's busy % from t0 to t1 (host
    time), from the samples nearest inside"""
    inside = [x for x in samples if t0 <= x[0] <= t1]
    if len(inside) < 2:
        return {}
    a, b = inside[0], inside[-1]
    dt = b[0] - a[0]
    if dt <= 0 or b[3] <= a[3]:
        return {}
    return dict(vm_cores=(b[1] - a[1]) / USER_HZ / dt,
                host_busy=100 * (b[2] - a[2]) / (b[3] - a[3]))


def clock_offset(raw):
    """host time minus guest time: a report's mtime (the host's clock, set
    as fio wrote it over 9p) minus fio's own timestamp in it (the guest's)"""
    d = os.path.join(raw, "scaling")
    offs = []
    for f in os.listdir(d) if os.path.isdir(d) else []:
        if f.endswith(".client.json"):
            j = fio_json(os.path.join(d, f))
            if j and "timestamp_ms" in j:
                offs.append(os.path.getmtime(os.path.join(d, f)) - j["timestamp_ms"] / 1000)
    return median(offs)


def first_error(*paths):
    """the first line of the logs that says what failed, shortened"""
    for path in paths:
        try:
            with open(path, errors="replace") as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines:
            if re.search(r"error|fail|cannot|refused|timed out", line, re.I):
                return line.strip()[:160]
    return None


def isolation_in_force(path):
    """the isolation the server's start note names (engine/isolation.cc:
    "isolation=window: ..."), None when it wrote none"""
    try:
        with open(path, errors="replace") as f:
            m = re.search(r"\bisolation=(window|none)\b", f.read())
    except OSError:
        return None
    return m and m.group(1)


def steady(base, connected, stopped):
    """a run's steady-state figures: the window, all jobs' IOPS in it
    and the CPU over it, from the client's IOPS logs and watch_pair's
    samples (stopped: the watcher ended the run)"""
    logs = [io_times(path) for path in glob.glob(base + ".client_iops.*.log")]
    samples = samples_of(base + ".samples")
    win = steady_window(connected, samples[-1][-1] if stopped and samples else None)
    if not win:
        return {}
    r = dict(window=list(win), window_s=win[1] - win[0],
             iops=ios_between(logs, *win) / (win[1] - win[0]),
             # jobs starved all through the window
             jobs_idle=sum(1 for x in logs if not ios_between([x], *win)))
    # the CPU's samples inside the window, and the I/Os between them
    ab = window_samples(samples, *win)
    r["w"] = window(*ab, ios_between(logs, ab[0][-1], ab[1][-1])) if ab else {}
    return r


def scaling_records(raw):
    """one record a run of the list: its steady-state figures, the
    connecting and the host's samples over the window"""
    path = os.path.join(raw, "scaling", "list")
    if not os.path.exists(path):
        return []
    recs = []
    samples, off = host_samples(raw), clock_offset(raw)
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        impl, kind, nj, busy, rnd, status, r0, t0, tf, tc, r1, ends, stopped = line.split("\t")
        nj = int(nj)
        base = os.path.join(raw, "scaling", f"{kind}.nj{nj}.busy{busy}.{impl}.r{rnd}")
        rec = dict(record="scaling", kind=kind, nj=nj, busy=busy, impl=impl, round=int(rnd),
                   status=status, tf=opt_us(tf), tc=opt_us(tc), r0=opt_int(r0),
                   r1=opt_int(r1), ends=opt_int(ends), stopped=stopped == "1",
                   stalled=stopped == "2",
                   isolation=isolation_in_force(base + ".server.log"))
        t_all = int(t0) / 1e6 + rec["tc"] if rec["tc"] is not None else None
        rec.update(steady(base, t_all, rec["stopped"]))
        w = rec.get("w", {})
        # the CPU of the whole server and client processes over the
        # window; one: a single server job (clients=N) for the N jobs
        rec["scpu"], rec["ccpu"], rec["cpu_us"] = w.get("scpu"), w.get("ccpu"), w.get("cpu_us")
        rec["h"] = host_window(samples, w["t0"] + off, w["t1"] + off) \
            if off is not None and "t0" in w else {}
        if rec.get("iops") is None:
            rec["why"] = (f"{rec['ends'] or 0} of {2 * nj} connection ends came up"
                          + (f" (none more in {STALL_S} s: the watcher stopped the run)"
                             if rec["stalled"] else "")
                          if rec["tc"] is None else
                          "the client's fio ended before the watcher stopped it"
                          if not rec["stopped"] else "no samples after the last connection")
            err = first_error(base + ".server.log", base + ".client.log")
            if err:
                rec["why"] += f"; {err}"
        recs.append(rec)
    return recs


def sharing(recs):
    """how the server and its clients share the guest's CPUs (bench/run
    --clients-nice)"""
    env = next((x for x in recs if x["record"] == "env"), {})
    nice = int(env.get("clients_nice") or 0)
    if nice:
        return (f"The client fio runs at nice {nice}: the server's threads (one, or one a job) "
                "take the CPUs first, as on a target of its own; rxe's softirq work still "
                "comes before any of them.")
    return ("Server and clients share the CPUs at one priority: a server of one thread gets "
            "one thread's share among the client threads, N server jobs N shares "
            "(`--clients-nice` gives the servers the CPUs first).")


def scaling(recs, o):
    runs = {}
    for x in recs:
        if x["record"] == "scaling":
            runs.setdefault((x["kind"], x["nj"], x["busy"], x["impl"]), []).append(x)
    if not runs:
        return
    # each figure the median of the rounds
    rows = {}
    for key, rs in runs.items():
        r = {k: median(x.get(k) for x in rs)
             for k in ("tf", "tc", "r0", "r1", "iops", "ccpu", "scpu", "window_s", "jobs_idle")}
        r["tcc"] = median(x["tc"] - x["tf"] for x in rs
                          if x["tc"] is not None and x["tf"] is not None)
        r["cpu_us"] = median(x.get("cpu_us") for x in rs)
        for k in ("busy", "softirq", "pkts"):
            r[k] = median(x.get("w", {}).get(k) for x in rs)
        for k in ("vm_cores", "host_busy"):
            r[k] = median(x["h"].get(k) for x in rs)
        r["host_us"] = median(x["h"]["vm_cores"] * 1e6 / x["iops"] for x in rs
                              if x["h"].get("vm_cores") and x.get("iops"))
        r["all"] = ", ".join(num(x.get("iops")) for x in rs)
        r["rounds"] = [x.get("iops") for x in rs]
        r["isolation"] = ", ".join(sorted({x.get("isolation") or "?" for x in rs}))
        why = sorted({x["why"] for x in rs if x.get("why")})
        r["status"] = ", ".join(x["status"] for x in rs) + (
            ("; SKIP: " if r["iops"] is None else "; failed rounds: ") + "; ".join(why)
            if why else "")
        rows[key] = r
    nrounds = max(len(rs) for rs in runs.values())
    o.append("## Scaling: numjobs, each job its own connection, in the steady state\n")
    o.append("Write, 4 KiB, iodepth 16 per job, 1 MiB per job (`filename=malloc` on the server), "
             "`group_reporting`, the guest's 2 vCPUs (4 GiB); GPSPM servers with "
             "`busy_wait_polling=0` (256 spinning server threads on 2 CPUs would measure the "
             "scheduler). busy: the clients' `busy_wait_polling` (the reference's clients spin "
             "whatever it says, so only ours run with 0). "
             f"{nrounds} round(s), each running every row once; each figure is the median of "
             "the rounds, the IOPS of each round are listed. Each job's clock starts at its own "
             "connection, and connecting N takes seconds, so the figures come from a steady "
             "window: every client job logs each I/O it completes with the wall clock's time "
             "from its start (`write_iops_log`, `log_unix_epoch=1`, no `ramp_time`; fio's "
             "averaged logs come from its helper thread, which the spinning jobs starve for "
             "seconds), a watcher at real-time priority samples every 0.5 s once all are "
             "connected and ends the run (SIGINT to the client's fio) --runtime + 3 s after "
             f"the last connection came up; the window is from {MARGIN_S:g} s after the last "
             "connection to that end (window s: its length). IOPS: all jobs' I/Os in the "
             "window over its length; idle jobs: those that completed none in it (starved). "
             "Client and server CPU: usr + sys of the whole fio process (/proc/PID/stat, all "
             "its threads), % of one CPU, between the first and the last sample inside the "
             "window; server CPU per I/O: the server's CPU time between those samples over the "
             "I/Os completed between them. Guest busy: the guest's non-idle time, % of its 2 "
             "CPUs; softirq: "
             "its softirq time (rxe's transport when not run inside the client's own system "
             "calls), % of one CPU; both from /proc/stat at the same samples, as are the "
             "packets per I/O, and from the host: the host cores QEMU got (all of the guest's "
             "vCPUs together) and the host's own busy %, aligned by the clocks' offset (a "
             "report's mtime on the host against fio's timestamp in it); host CPU per I/O is "
             "QEMU's host CPU time over the I/Os. First id: from the client's start until the "
             "first RDMA-CM id of its connections appears (fio's start-up); connected: until "
             "both ends of all connections are up (cm-log.cc's times, read every 0.1 s by the "
             "watcher). Server RSS: once all jobs listen and once all are connected. Status: "
             "client and server fio's exit status a round (SKIP: no round had a window, and "
             "why). " + sharing(recs) + "\n")
    o.append("| kind | numjobs | busy | impl | IOPS | IOPS / job | IOPS per round | window s | idle jobs | "
             "client CPU % | server CPU % | server CPU us / I/O | guest busy % | softirq % | "
             "host cores for the VM | host busy % | host CPU us / I/O | packets / I/O | "
             "first id s | connected s | connecting s | server RSS kB listening / connected | "
             "status |")
    o.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    order = sorted(rows.items(), key=lambda x: (x[0][0], x[0][1], -int(x[0][2]), x[0][3]))
    for (kind, nj, busy, impl), r in order:
        o.append(f"| {kind} | {nj} | {busy} | {impl} | {num(r['iops'])} | "
                 f"{num(r['iops'] / nj if r['iops'] else None)} | {r['all']} | "
                 f"{num(r['window_s'], '{:.1f}')} | {num(r['jobs_idle'])} | "
                 f"{num(r['ccpu'])} | {num(r['scpu'])} | "
                 f"{num(r['cpu_us'], '{:.1f}')} | {num(r['busy'])} | "
                 f"{num(r['softirq'])} | {num(r['vm_cores'], '{:.2f}')} | "
                 f"{num(r['host_busy'])} | {num(r['host_us'])} | {num(r['pkts'], '{:.2f}')} | "
                 f"{num(r['tf'], '{:.2f}')} | {num(r['tc'], '{:.2f}')} | "
                 f"{num(r['tcc'], '{:.2f}')} | {num(r['r0'])} / {num(r['r1'])} | "
                 f"{r['status']} |")
    o.append("")
    # memory per connection: the growth of the connected server's RSS
    # over numjobs, each job's region (1 MiB) included
    o.append("Server memory per connection: the connected server's RSS grows by this much per "
             "job from 1 job to N (each job's 1 MiB region included; beyond it: the rest).\n")
    o.append("| kind | busy | impl | numjobs | kB per job | beyond the region kB |")
    o.append("| --- | ---: | --- | ---: | ---: | ---: |")
    for (kind, nj, busy, impl), r in order:
        per = rss_per_connection(rows, kind, nj, busy, impl)
        if per is None:
            continue
        o.append(f"| {kind} | {busy} | {impl} | 1 -> {nj} | {per:,.0f} | {per - 1024:,.0f} |")
    o.append("")
    one_thread(rows, o)
    isolation(rows, o)


def rss_per_connection(rows, kind, nj, busy, impl):
    """the connected server's RSS growth per connection (kB) from the row
    of 1 to the row of N, None where either is missing. The row of 1: the
    same implementation's, its clients' busy the same or else any (memory
    is the server's); else ours with one job (a server job of clients=1)"""
    r = rows.get((kind, nj, busy, impl))
    one = rows.get((kind, 1, busy, impl)) or next(
        (v for k, v in rows.items() if k[:2] == (kind, 1) and k[3] == impl),
        rows.get((kind, 1, busy, "ours")))
    if nj == 1 or not r or not one or r["r1"] is None or one["r1"] is None:
        return None
    return (r["r1"] - one["r1"]) / (nj - 1)


def ratio(a, b):
    return a / b if a is not None and b else None


def verdict(value, target, higher_is_better):
    """"met", or by how much the value misses the target"""
    if value is None or target is None:
        return "not measured"
    if (value >= target) if higher_is_better else (value <= target):
        return "met"
    return f"missed by {abs(value / target - 1) * 100:.0f} %"


def one_thread(rows, o):
    """impl "one" (a server job with clients=N) against "ours" (N server
    jobs) at the same N, and against ours with one connection; the
    targets"""
    pairs = [(k, r) for k, r in sorted(rows.items()) if k[3] == "one"]
    if not pairs:
        return
    o.append("### One server job for all connections (clients=N)\n")
    o.append("impl one: one server job with `clients=N` takes the N client jobs' connections "
             "on one port (`port_per_job=0`; a GPSPM server serves them all from one thread "
             "through a shared receive queue), against ours with N server jobs, one per "
             "connection (the table above, impl ours), in the steady window. Server CPU per "
             "I/O: the server process's usr + sys over the IOPS.\n")
    o.append("| kind | N | busy | IOPS: one job | IOPS: N jobs | ratio | IOPS / connection: "
             "one job | server CPU us / I/O: one job | N jobs | 1 job, 1 connection | "
             "connected s: one job | N jobs | server RSS kB connected: one job | N jobs |")
    o.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: |")
    for (kind, nj, busy, _), r in pairs:
        n = rows.get((kind, nj, busy, "ours"), {})
        single = rows.get((kind, 1, busy, "ours"), {})
        o.append(f"| {kind} | {nj} | {busy} | {num(r['iops'])} | {num(n.get('iops'))} | "
                 f"{num(ratio(r['iops'], n.get('iops')), '{:.2f}')} | "
                 f"{num(ratio(r['iops'], nj))} | {num(r['cpu_us'], '{:.1f}')} | "
                 f"{num(n.get('cpu_us'), '{:.1f}')} | {num(single.get('cpu_us'), '{:.1f}')} | "
                 f"{num(r['tc'], '{:.2f}')} | {num(n.get('tc'), '{:.2f}')} | "
                 f"{num(r['r1'])} | {num(n.get('r1'))} |")
    o.append("")
    o.append("Targets, in the steady window (figures from the table above):\n")
    for kind, busy in sorted({(k[0], k[2]) for k, _ in pairs}):
        one16, ours16 = rows.get((kind, 16, busy, "one"), {}), rows.get((kind, 16, busy, "ours"), {})
        ours1, one256 = rows.get((kind, 1, busy, "ours"), {}), rows.get((kind, 256, busy, "one"), {})
        if kind == "gpspm":
            ia, ib = one16.get("iops"), ours16.get("iops")
            ca, cb = one16.get("cpu_us"), ours1.get("cpu_us")
            o.append(f"- (a) {kind}, busy {busy}: one thread for 16 connections delivers at least "
                     f"the IOPS of 16 server jobs: {num(ia)} against {num(ib)} "
                     f"({num(ratio(ia, ib), '{:.2f}')}x: {verdict(ia, ib, True)}), at no more "
                     f"server CPU per I/O than one job serving one connection: {num(ca, '{:.1f}')} "
                     f"us against {num(cb, '{:.1f}')} ({verdict(ca, cb, False)}).")
        c16, c256 = one16.get("cpu_us"), one256.get("cpu_us")
        p16, p256 = ratio(one16.get("iops"), 16), ratio(one256.get("iops"), 256)
        o.append(f"- (b) {kind}, busy {busy}: at 256 connections one thread's server CPU per I/O "
                 f"within 1.5x of its figure at 16: {num(c256, '{:.1f}')} us against "
                 f"{num(c16, '{:.1f}')} ({num(ratio(c256, c16), '{:.2f}')}x: "
                 f"{verdict(c256, c16 * 1.5 if c16 else None, False)}); IOPS per connection "
                 f"{num(p256)} against {num(p16)} ({num(ratio(p16, p256), '{:.2f}')}x fewer: "
                 f"{verdict(p256, p16 / 1.5 if p16 else None, True)}).")
    o.append("")


def overlap(a, b):
    """whether the ranges of two lists of figures meet"""
    a, b = [v for v in a if v is not None], [v for v in b if v is not None]
    return bool(a and b) and min(a) <= max(b) and min(b) <= max(a)


def isolation(rows, o):
    """impl one (the server's default, isolation=window where the device
    has type 2 windows) against one-none (isolation=none) at the same N:
    what a window per client costs (bench/run --scaling --isolation)"""
    pairs = [(k, r, rows.get((*k[:3], "one"))) for k, r in sorted(rows.items())
             if k[3] == "one-none"]
    if not pairs:
        return
    o.append("### What a memory window per client costs\n")
    o.append("One server job with `clients=N` (impl one above) in the isolation the engine "
             "chooses by default (each client's range behind a type 2 memory window bound on "
             "its own connection, the region registered without remote rights) against the "
             "same job with `isolation=none` (impl one-none: the region's own key, as before "
             "windows), both in every round, side by side. Isolation: what each server's start "
             "note said was in force. IOPS within the spread: the rounds' ranges of the two "
             "meet. Server CPU per I/O: the target is 5 % (an APM server is not on the data "
             "path: its figure is the bookkeeping of a passive target, near nothing either way). "
             "Connected: from the client's start until all N connections are up, the target "
             "1.2x. Memory: the connected server's RSS per connection from 1 to N.\n")
    o.append("| kind | N | busy | isolation: window row / none row | IOPS per round: window | "
             "none | within the spread | server CPU us / I/O: window | none | ratio | "
             "connected s: window | none | ratio | server RSS kB per connection: window | "
             "none |")
    o.append("| --- | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: |")

    for (kind, nj, busy, _), none, win in pairs:
        win = win or {}
        cpu = ratio(win.get("cpu_us"), none["cpu_us"])
        tc = ratio(win.get("tc"), none["tc"])
        spread = overlap(win.get("rounds", []), none["rounds"])
        o.append(f"| {kind} | {nj} | {busy} | {win.get('isolation', '-')} / "
                 f"{none['isolation']} | {win.get('all', '-')} | {none['all']} | "
                 f"{'yes' if spread else 'no'} | {num(win.get('cpu_us'), '{:.1f}')} | "
                 f"{num(none['cpu_us'], '{:.1f}')} | {num(cpu, '{:.2f}')} | "
                 f"{num(win.get('tc'), '{:.2f}')} | {num(none['tc'], '{:.2f}')} | "
                 f"{num(tc, '{:.2f}')} | {num(rss_per_connection(rows, kind, nj, busy, 'one'))} | "
                 f"{num(rss_per_connection(rows, kind, nj, busy, 'one-none'))} |")
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


def latbase_records(raw):
    """perftest's and fio's figures at each iteration count, the guest's
    clock"""
    d = os.path.join(raw, "latbase")
    if not os.path.isdir(d):
        return []
    recs = []
    for t in ("ib_read_lat", "ib_write_lat"):
        for n in (1000, 11000):
            p = perftest_avg(os.path.join(d, f"{t}.n{n}.txt"))
            if p:
                recs.append(dict(record="latbase", test=t, n=n, **p))
    for cs in ("cpu", "clock_gettime"):
        for n in (1000, 4000):
            j = fio_json(os.path.join(d, f"fio-read.{cs}.n{n}.json"))
            try:
                wall = float(open(os.path.join(d, f"fio-read.{cs}.n{n}.wall")).read().split()[1])
            except (OSError, IndexError, ValueError):
                wall = None
            if j:
                lat = j["jobs"][0]["read"]["lat_ns"]
                recs.append(dict(record="latbase-fio", clock=cs, n=n, avg=lat["mean"] / 1000,
                                 p50=lat.get("percentile", {}).get("50.000000", 0) / 1000,
                                 wall=wall))
    clock = os.path.join(d, "clock.txt")
    if os.path.exists(clock):
        recs.append(dict(record="clock", lines=[
            line.strip() for line in open(clock).read().splitlines() if line.strip()]))
    return recs


def latbase(recs, o):
    got = {(x.get("test") or x.get("clock"), x["n"]): x for x in recs
           if x["record"] in ("latbase", "latbase-fio")}
    clock = [x for x in recs if x["record"] == "clock"]
    if not got and not clock:
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
        a, b = got.get((t, 1000)), got.get((t, 11000))
        if not a or not b:
            o.append(f"| {t} | - | - | - | - |")
            continue
        wall = (b["wall"] - a["wall"]) / 10000 * 1e6 / half
        o.append(f"| {t} -s 4096 | {b['avg']:.1f} | {b['typical']:.1f} | {wall:.1f} | "
                 f"{b['avg'] / wall:.2f} |")
    for cs in ("cpu", "clock_gettime"):
        a, b = got.get((cs, 1000)), got.get((cs, 4000))
        if not b or not a or a["wall"] is None or b["wall"] is None:
            o.append(f"| fio apm read ({cs}) | - | - | - | - |")
            continue
        # fio's start-up varies by seconds under TCG, more than 3000 I/Os
        # take: its wall difference means nothing, and is not shown
        o.append(f"| fio apm read ({cs}) | {b['avg']:.1f} | {b['p50']:.1f} | - | - |")
    if clock:
        o.append("")
        o.append("The guest's clock: " + "; ".join(clock[0]["lines"]))
    o.append("")


def connect_records(raw):
    """rpma-bench --connections: each run's JSON, or its failure"""
    path = os.path.join(raw, "connect", "list")
    if not os.path.exists(path):
        return []
    recs = []
    for line in open(path).read().splitlines():
        impl, n, how, r, st, sst = line.split()
        j = None
        try:
            j = json.loads(open(os.path.join(raw, "connect", f"{impl}.n{n}.{how}.r{r}.json")).read())
        except (OSError, ValueError):
            pass
        rec = dict(record="connect", impl=impl, n=int(n), how=how, round=int(r),
                   status=f"{st} {sst}" + ("" if j else " (no report)"))
        if rec["status"] == "0 0":
            rec.update(j)
        recs.append(rec)
    return recs


def connect(recs, env, o):
    """median and range of each N, way and implementation, with the
    phases' medians"""
    runs, failed = {}, []
    for x in recs:
        if x["record"] != "connect":
            continue
        if "total_s" not in x:
            failed.append(f"{x['impl']} N={x['n']} {x['how']} round {x['round']}: "
                          f"status {x['status']}")
            continue
        runs.setdefault((x["how"], x["n"], x["impl"]), []).append(x)
    rounds = max((len(v) for v in runs.values()), default=0)
    o += ["`rpma-bench client --connections N` against "
          "`rpma-bench server --connections N` (bench/rpma-bench.cc, the public API only), "
          "the same binary on our librpma and on the reference's (Debian's librpma 1.2), "
          "and on ours with `--windows` (ours-window: the server binds a memory window on each "
          "request before it accepts it, and hands its descriptor over, where the others hand "
          "the region's own), in one boot of the Soft-RoCE VM "
          f"({env.get('guest_cpus', '?')} vCPUs), {rounds} rounds, which "
          "goes first rotating. The time is the client's wall clock from its first "
          "`rpma_conn_req_new` to its last `RPMA_CONN_ESTABLISHED` (the peer opened before). "
          "*concurrent*: all N `rpma_conn_req_new`, then all N `rpma_conn_req_connect`, then the "
          "N waits for ESTABLISHED; *one-by-one*: each connection established before the next is "
          "requested. Phases (medians): `rpma_conn_req_new` (address and route resolution, the "
          "QP), `rpma_conn_req_connect`, the wait for ESTABLISHED, summed over the connections "
          "one by one; then the disconnection of all N.", "",
          "| N | way | impl | runs | all established s (median) | min - max | req_new s | "
          "connect s | wait s | disconnect s |",
          "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    impls = ("ours", "ours-window", "ref")
    for (how, n, impl) in sorted(runs, key=lambda k: (k[0] != "concurrent", k[1],
                                                      impls.index(k[2]) if k[2] in impls else 9)):
        v = runs[(how, n, impl)]
        t = [j["total_s"] for j in v]

        def m(key):
            return "{:.3f}".format(median([j[key] for j in v]))
        o.append(f"| {n} | {how} | {impl} | {len(v)} | {median(t):.3f} | "
                 f"{min(t):.3f} - {max(t):.3f} | {m('req_new_s')} | {m('connect_s')} | "
                 f"{m('established_s')} | {m('disconnect_s')} |")
    windows = [(how, n) for (how, n, impl) in sorted(runs) if impl == "ours-window"
               and (how, n, "ours") in runs]
    if windows:
        o += ["", "What a window per connection costs in connecting (ours-window against ours, "
              "the medians; the target of a `clients=N` job is 1.2x at 256):", "",
              "| N | way | ours s | ours-window s | ratio |", "| ---: | --- | ---: | ---: | ---: |"]
        for how, n in sorted(windows, key=lambda k: (k[0] != "concurrent", k[1])):
            a = median([j["total_s"] for j in runs[(how, n, "ours")]])
            b = median([j["total_s"] for j in runs[(how, n, "ours-window")]])
            o.append(f"| {n} | {how} | {a:.3f} | {b:.3f} | {num(ratio(b, a), '{:.2f}x')} |")
    if failed:
        o += ["", "Failed runs: " + "; ".join(failed) + "."]


def summary(recs, results, is_connect):
    env = next((x for x in recs if x["record"] == "env"), {})
    if is_connect:
        o = ["# rpma benchmark: connecting without fio", ""]
    elif any(x.get("impl") == "one-none" for x in recs):
        o = ["# rpma benchmark: what a memory window per client costs", "",
             "In the Soft-RoCE VM (see bench/README.md): our engines, one server job with "
             "`clients=N`, in its default isolation and with `isolation=none`.", ""]
    else:
        o = ["# rpma benchmark: scaling and latency baselines", "",
             "In the Soft-RoCE VM (see bench/README.md): ours "
             "(Debian's fio, our engines, our librpma) against the reference (fio 3.33's librpma "
             "engines, Debian's librpma 1.2), the reference at 1, 4 and 16 jobs only.", ""]
    o += [provenance.command_line(env), "", provenance.describe(env), ""]
    if is_connect:
        connect(recs, env, o)
    else:
        latbase(recs, o)
        scaling(recs, o)
    # what the figures cannot say (the host's load, why a target is
    # missed): RESULTS/notes.md, written by hand, kept across runs
    notes = os.path.join(results, "notes.md")
    if os.path.exists(notes):
        with open(notes) as f:
            o += ["## Notes", "", f.read().strip(), ""]
    path = os.path.join(results, "summary.md")
    with open(path, "w") as f:
        f.write("\n".join(o).rstrip("\n") + "\n")
    print(f"scaling: {path}")


def main():
    args = sys.argv[1:]
    md = args[:1] == ["--md"]
    args = args[md:]
    is_connect = args[:1] == ["--connect"]
    args = args[is_connect:]
    if md:
        results = args[0]
        recs = record.read(os.path.join(results, "records.jsonl"))
    else:
        raw, results = args
        env = provenance.env_of(raw)
        recs = [dict(record="env", **env)]
        recs += connect_records(raw) if is_connect else latbase_records(raw) + scaling_records(raw)
        recs = provenance.stamped(env, recs)
        record.write(os.path.join(results, "records.jsonl"), recs)
    summary(recs, results, is_connect)


if __name__ == "__main__":
    main()
