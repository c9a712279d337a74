#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# bench/scaling.py RAW RESULTS -- the runs of bench/run --scaling
# (bench/in-vm.sh BENCH_SCALING=1) into RESULTS/records.jsonl (each run's
# figures, stamped: bench/records.py) and RESULTS/summary.md: numjobs 1 to
# 64, and the latency baselines set against the wall clock.
# bench/scaling.py --connect RAW RESULTS -- bench/run --connect's runs
# (BENCH_CONNECT=1) into the same two files: connecting without fio.
# bench/scaling.py --md [--connect] RESULTS -- summary.md again from
# records.jsonl alone.
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import records  # noqa: E402 (the stamped records and the command line)


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


def iops(j):
    if not j:
        return None
    return sum(job["write"]["iops"] + job["read"]["iops"] for job in j["jobs"])


def cpu(j, nj):
    """usr + sys of all the side's jobs, % of one CPU (group_reporting
    reports the jobs' mean)"""
    if not j:
        return None
    return sum(job["usr_cpu"] + job["sys_cpu"] for job in j["jobs"]) * nj


def num(v, f="{:,.0f}"):
    return f.format(v) if v is not None else "-"


def opt_us(v):
    """microseconds to seconds"""
    return int(v) / 1e6 if v.isdigit() else None


def opt_int(v):
    return int(v) if v.isdigit() else None


USER_HZ = 100


def window(a, b, iops):
    """the guest's CPU in the sampled window: busy % of all its CPUs,
    softirq and ksoftirqd % of one CPU, packets per I/O"""
    if a in ("-", "") or b in ("-", "") or not iops:
        return {}
    a = [float(x) for x in a.split(",")]
    b = [float(x) for x in b.split(",")]
    d = [y - x for x, y in zip(a, b)]
    # user nice system idle iowait irq softirq ksoftirqd packets time
    ticks = sum(d[0:7])
    if ticks <= 0 or d[9] <= 0:
        return {}
    return dict(busy=100 * (ticks - d[3] - d[4]) / ticks,
                softirq=100 * d[6] / (d[9] * USER_HZ),
                ksoftirqd=100 * d[7] / (d[9] * USER_HZ),
                pkts=d[8] / (d[9] * iops))


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


def median(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def scaling_records(raw):
    """one record a run of the list: its figures from fio's reports, the
    guest's window and the host's samples"""
    path = os.path.join(raw, "scaling", "list")
    if not os.path.exists(path):
        return []
    recs = []
    samples, off = host_samples(raw), clock_offset(raw)
    for line in open(path).read().splitlines():
        impl, kind, nj, busy, rnd, status, r0, tf, tc, r1, wa, wb = line.split("\t")
        nj = int(nj)
        base = os.path.join(raw, "scaling", f"{kind}.nj{nj}.busy{busy}.{impl}.r{rnd}")
        c, s = fio_json(base + ".client.json"), fio_json(base + ".server.json")
        n = iops(c)
        recs.append(dict(
            record="scaling", kind=kind, nj=nj, busy=busy, impl=impl, round=int(rnd),
            status=status, tf=opt_us(tf), tc=opt_us(tc), r0=opt_int(r0), r1=opt_int(r1),
            # one: a single server job (clients=N) for the N client jobs
            iops=n, ccpu=cpu(c, nj), scpu=cpu(s, 1 if impl == "one" else nj),
            w=window(wa, wb, n),
            h=host_window(samples, float(wa.split(",")[-1]) + off, float(wb.split(",")[-1]) + off)
            if off is not None and wa not in ("-", "") and wb not in ("-", "") else {}))
    return recs


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
        r = {k: median(x[k] for x in rs)
             for k in ("tf", "tc", "r0", "r1", "iops", "ccpu", "scpu")}
        r["tcc"] = median(x["tc"] - x["tf"] for x in rs
                          if x["tc"] is not None and x["tf"] is not None)
        for k in ("busy", "softirq", "pkts"):
            r[k] = median(x["w"].get(k) for x in rs)
        for k in ("vm_cores", "host_busy"):
            r[k] = median(x["h"].get(k) for x in rs)
        r["host_us"] = median(x["h"]["vm_cores"] * 1e6 / x["iops"] for x in rs
                              if x["h"].get("vm_cores") and x["iops"])
        r["all"] = ", ".join(num(x["iops"]) for x in rs)
        r["status"] = ", ".join(x["status"] for x in rs)
        rows[key] = r
    nrounds = max(len(rs) for rs in runs.values())
    o.append("## Scaling: numjobs, each job its own connection\n")
    o.append("Write, 4 KiB, iodepth 16 per job, 1 MiB per job (`filename=malloc` on the server), "
             "5 s after 1 s of ramp-up, `group_reporting`, the guest's 2 vCPUs; GPSPM servers "
             "with `busy_wait_polling=0` (64 spinning server threads on 2 CPUs would measure the "
             "scheduler). busy: the clients' `busy_wait_polling` (the reference's clients spin "
             "whatever it says, so only ours run with 0). "
             f"{nrounds} round(s), each running every row once; each figure is the median of "
             "the rounds, the IOPS of each round are listed. IOPS: all jobs together. Client and "
             "server CPU: fio's usr + sys of all the side's jobs, % of one CPU. Guest busy: the "
             "guest's non-idle time, % of its 2 CPUs; softirq: its softirq time (rxe's "
             "transport when not run inside the client's own system calls), % of one CPU; "
             "both sampled from /proc/stat from 1.5 to 4.5 s after all connections were up, as "
             "are the packets per I/O, and from the host: the host cores QEMU got (all of the guest's "
             "vCPUs together) and the host's own busy %, aligned by the clocks' offset (a report's "
             "mtime on the host against fio's timestamp in it); host CPU per I/O is QEMU's host "
             "CPU time over the I/Os. First id: from the client's start until the first RDMA-CM "
             "id of its connections appears (fio's start-up); connected: until both ends of all "
             "connections are up (sampled every 0.1 s by a watcher at real-time priority). "
             "Server RSS: once all jobs listen and once all are connected (jobs start their I/O "
             "as soon as they are connected: when connecting takes longer than a job's 6 s, the "
             "first jobs have ended and freed their regions by then, and that reading is low).\n")
    o.append("| kind | numjobs | busy | impl | IOPS | IOPS / job | IOPS per round | "
             "client CPU % | server CPU % | guest busy % | softirq % | host cores for the VM | "
             "host busy % | host CPU us / I/O | packets / I/O | first id s | connected s | connecting s | "
             "server RSS kB listening / connected | status |")
    o.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
             "---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    order = sorted(rows.items(), key=lambda x: (x[0][0], x[0][1], -int(x[0][2]), x[0][3]))
    for (kind, nj, busy, impl), r in order:
        o.append(f"| {kind} | {nj} | {busy} | {impl} | {num(r['iops'])} | "
                 f"{num(r['iops'] / nj if r['iops'] else None)} | {r['all']} | "
                 f"{num(r['ccpu'])} | {num(r['scpu'])} | {num(r['busy'])} | "
                 f"{num(r['softirq'])} | {num(r['vm_cores'], '{:.2f}')} | "
                 f"{num(r['host_busy'])} | {num(r['host_us'])} | {num(r['pkts'], '{:.2f}')} | {num(r['tf'], '{:.2f}')} | "
                 f"{num(r['tc'], '{:.2f}')} | {num(r['tcc'], '{:.2f}')} | "
                 f"{num(r['r0'])} / {num(r['r1'])} | {r['status']} |")
    o.append("")
    # memory per connection: the growth of the connected server's RSS
    # over numjobs, each job's region (1 MiB) included
    o.append("Server memory per connection: the connected server's RSS grows by this much per "
             "job from 1 job to N (each job's 1 MiB region included; beyond it: the rest).\n")
    o.append("| kind | busy | impl | numjobs | kB per job | beyond the region kB |")
    o.append("| --- | ---: | --- | ---: | ---: | ---: |")
    for (kind, nj, busy, impl), r in order:
        # one server job of clients=1 is ours with one job
        one = rows.get((kind, 1, busy, "ours" if impl == "one" else impl))
        if nj == 1 or not one or one["r1"] is None or r["r1"] is None:
            continue
        per = (r["r1"] - one["r1"]) / (nj - 1)
        o.append(f"| {kind} | {busy} | {impl} | 1 -> {nj} | {per:,.0f} | {per - 1024:,.0f} |")
    o.append("")
    one_thread(rows, o)


def one_thread(rows, o):
    """impl "one" (a server job with clients=N) against "ours" (N server
    jobs) at the same N, and against ours with one connection"""
    pairs = [(k, r) for k, r in sorted(rows.items()) if k[3] == "one"]
    if not pairs:
        return

    def cpu_us(r):
        return r["scpu"] / 100 * 1e6 / r["iops"] if r["scpu"] is not None and r["iops"] else None

    o.append("### One server job for all connections (clients=N)\n")
    o.append("impl one: one server job with `clients=N` takes the N client jobs' connections "
             "on one port (`port_per_job=0`; a GPSPM server serves them all from one thread "
             "through a shared receive queue), against ours with N server jobs, one per "
             "connection (the table above, impl ours). Server CPU per I/O: the server's usr + "
             "sys over the IOPS. Target (GPSPM): at N = 16, one thread delivers at least the "
             "IOPS of 16 jobs, at no more server CPU per I/O than one job serving one "
             "connection.\n")
    o.append("| kind | N | busy | IOPS: one job | IOPS: N jobs | ratio | server CPU us / I/O: "
             "one job | N jobs | 1 job, 1 connection | server RSS kB connected: one job | N jobs |")
    o.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (kind, nj, busy, _), r in pairs:
        n = rows.get((kind, nj, busy, "ours"), {})
        single = rows.get((kind, 1, busy, "ours"), {})
        ratio = r["iops"] / n["iops"] if r.get("iops") and n.get("iops") else None
        o.append(f"| {kind} | {nj} | {busy} | {num(r['iops'])} | {num(n.get('iops'))} | "
                 f"{num(ratio, '{:.2f}')} | {num(cpu_us(r), '{:.1f}')} | "
                 f"{num(cpu_us(n) if n else None, '{:.1f}')} | "
                 f"{num(cpu_us(single) if single else None, '{:.1f}')} | "
                 f"{num(r['r1'])} | {num(n.get('r1'))} |")
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
          "in one boot of the Soft-RoCE VM "
          f"({env.get('guest_cpus', '?')} vCPUs), {rounds} rounds, which "
          "library goes first alternating. The time is the client's wall clock from its first "
          "`rpma_conn_req_new` to its last `RPMA_CONN_ESTABLISHED` (the peer opened before). "
          "*concurrent*: all N `rpma_conn_req_new`, then all N `rpma_conn_req_connect`, then the "
          "N waits for ESTABLISHED; *one-by-one*: each connection established before the next is "
          "requested. Phases (medians): `rpma_conn_req_new` (address and route resolution, the "
          "QP), `rpma_conn_req_connect`, the wait for ESTABLISHED, summed over the connections "
          "one by one; then the disconnection of all N.", "",
          "| N | way | impl | runs | all established s (median) | min - max | req_new s | "
          "connect s | wait s | disconnect s |",
          "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for (how, n, impl) in sorted(runs, key=lambda k: (k[0] != "concurrent", k[1], k[2] != "ours")):
        v = runs[(how, n, impl)]
        t = [j["total_s"] for j in v]

        def m(key):
            return "{:.3f}".format(median([j[key] for j in v]))
        o.append(f"| {n} | {how} | {impl} | {len(v)} | {median(t):.3f} | "
                 f"{min(t):.3f} - {max(t):.3f} | {m('req_new_s')} | {m('connect_s')} | "
                 f"{m('established_s')} | {m('disconnect_s')} |")
    if failed:
        o += ["", "Failed runs: " + "; ".join(failed) + "."]


def summary(recs, results, is_connect):
    env = next((x for x in recs if x["record"] == "env"), {})
    if is_connect:
        o = ["# rpma benchmark: connecting without fio", ""]
    else:
        o = ["# rpma benchmark: scaling and latency baselines", "",
             "In the Soft-RoCE VM (see bench/README.md): ours "
             "(Debian's fio, our engines, our librpma) against the reference (fio 3.33's librpma "
             "engines, Debian's librpma 1.2), the reference at 1, 4 and 16 jobs only.", ""]
    o += [records.command_line(env), "", records.provenance(env), ""]
    if is_connect:
        connect(recs, env, o)
    else:
        latbase(recs, o)
        scaling(recs, o)
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
        recs = records.read(os.path.join(results, "records.jsonl"))
    else:
        raw, results = args
        env = records.env_of(raw)
        recs = [dict(record="env", **env)]
        recs += connect_records(raw) if is_connect else latbase_records(raw) + scaling_records(raw)
        recs = records.stamped(env, recs)
        records.write(os.path.join(results, "records.jsonl"), recs)
    summary(recs, results, is_connect)


if __name__ == "__main__":
    main()
