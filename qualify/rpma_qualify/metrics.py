# SPDX-License-Identifier: BSD-3-Clause
"""What one point's fio --client run says: its JSON report (read by the
measurement package, rpma_measure.fio) and the lines the servers relayed,
reduced to the figures a qualification keeps."""

import errno
import re

from rpma_measure import fio, stats

# the percentiles every client job asks fio for (percentile_list=)
PERCENTILES = ["50", "99", "99.9", "99.99"]
PERCENTILE_LIST = ":".join(PERCENTILES)
SERVER_JOB = "qualify-server"
CLIENT_JOB = "qualify-client"
# fio's lines about a block that did not read back as written
VERIFY_LINE = re.compile(r"verify|bad magic|bad pattern|crc32c", re.I)
# what the engines tell a user on the hosts, notices and errors (`<host>
# librpma_apm_server[1]: cannot open ...`), but a client waiting for its
# server
ENGINE_LINE = re.compile(r"^<[^>]*> librpma_\w+\[\d+\]: (?!waiting for)")


def direction_of(rw):
    """The direction whose latency a point of rw= is judged by."""
    return "read" if rw in ("read", "randread", "randrw", "rw") else "write"


def steady_state(jobs):
    """The steady-state record of a repeat from its client jobs' fio
    steadystate objects: fio's own verdict (attained) and SNIA's rule
    (stats.steady) on the window's per-second IOPS, per job; the repeat
    is steady when every job is. runtime_s: the longest job's measured
    time (after ramp_time), which fio ends once its criterion holds."""
    out = []
    for j in jobs:
        ss = j["steadystate"]
        series = ss.get("data", {}).get("iops") or []
        try:
            judged = stats.steady(series)
        except ValueError as e:
            judged = {"rounds": None, "mean": None, "range_pct": None,
                      "slope_pct": None, "steady": False, "why": str(e)}
        judged.update(host=j.get("hostname", ""), fio_ss=ss.get("ss"),
                      fio_attained=bool(ss.get("attained")),
                      runtime_s=j.get("job_runtime", 0) / 1000.0)
        out.append(judged)
    return {"steady": all(x["steady"] for x in out),
            "fio_attained": all(x["fio_attained"] for x in out),
            "runtime_s": max(x["runtime_s"] for x in out), "jobs": out}


def point_metrics(report, relayed, rw):
    """The figures of one repeat of one point, from fio's report and the
    relayed lines; raises fio.FioOutputError when the report has no jobs of
    ours."""
    jobs = fio.jobs(report)
    clients = [j for j in jobs if j.get("jobname") == CLIENT_JOB]
    servers = [j for j in jobs if j.get("jobname") == SERVER_JOB]
    if not clients:
        raise fio.FioOutputError("no client job in fio's report")
    main = direction_of(rw)
    m = {"direction": main}
    ops = 0
    for d in ("read", "write"):
        io = sum(j[d].get("total_ios", 0) for j in clients)
        m[d] = {
            "iops": sum(j[d].get("iops", 0.0) for j in clients),
            "bw_bytes": sum(j[d].get("bw_bytes", 0) for j in clients),
            "io_bytes": sum(j[d].get("io_bytes", 0) for j in clients),
            "total_ios": io,
        }
        ops += io
    # the point's own operations: a write point's verify reads are not
    # its operations
    if rw in ("randrw", "rw"):
        point_ops = ops
        m["iops"] = m["read"]["iops"] + m["write"]["iops"]
        m["bw_bytes"] = m["read"]["bw_bytes"] + m["write"]["bw_bytes"]
    else:
        point_ops = m[main]["total_ios"]
        m["iops"] = m[main]["iops"]
        m["bw_bytes"] = m[main]["bw_bytes"]
    m["ops"] = point_ops
    # Latency: percentiles of different jobs cannot be merged exactly;
    # a point of many jobs shows the worst job's (the client that a
    # service level would be held to), its mean weighted by operations.
    lat = {}
    for p in PERCENTILES:
        vals = [fio.percentile_us(j[main], p) for j in clients if j[main].get("total_ios")]
        vals = [v for v in vals if v is not None]
        lat["p" + p] = max(vals) if vals else None
    maxes = [j[main]["clat_ns"]["max"] / 1000.0 for j in clients
             if j[main].get("total_ios")]
    lat["max"] = max(maxes) if maxes else None
    n = sum(j[main].get("total_ios", 0) for j in clients)
    lat["mean"] = (sum(j[main]["clat_ns"]["mean"] * j[main]["total_ios"]
                       for j in clients if j[main].get("total_ios"))
                   / n / 1000.0) if n else None
    m["lat_us"] = lat
    # CPU time over the operations, each side (the server job does no
    # I/O of its own: it is charged the clients' operations)
    c_cpu = sum(fio.cpu_seconds(j) for j in clients)
    s_cpu = sum(fio.cpu_seconds(j) for j in servers)
    m["cpu"] = {
        "client_s": c_cpu,
        "server_s": s_cpu if servers else None,
        "client_us_per_op": c_cpu / point_ops * 1e6 if point_ops else None,
        "server_us_per_op": (s_cpu / point_ops * 1e6
                             if point_ops and servers else None),
    }
    # errors: any job's, and fio's verify complaints
    errs = [{"host": j.get("hostname", ""), "job": j.get("jobname"),
             "error": j.get("error", 0)} for j in jobs if j.get("error")]
    m["errors"] = errs
    verify_lines = [ln for ln in relayed if VERIFY_LINE.search(ln)
                    and "verify_" not in ln and "verify=" not in ln]
    m["verify_errors"] = (sum(1 for e in errs if e["error"] == errno.EILSEQ)
                          + len(verify_lines))
    m["verify_lines"] = verify_lines[:10]
    m["engine_messages"] = [ln for ln in relayed if ENGINE_LINE.match(ln)][:4]
    m["verified_bytes"] = (sum(j["read"].get("io_bytes", 0) for j in clients)
                           if rw in ("write", "randwrite") else 0)
    m["server_jobs"] = len(servers)
    ss = [j for j in clients if j.get("steadystate")]
    if ss:
        m["steady_state"] = steady_state(ss)
    # the per-client view: each client job's operations per second
    if len(clients) > 1:
        m["per_client"] = stats.per_client(
            [j[main].get("iops", 0.0) if rw not in ("randrw", "rw")
             else j["read"].get("iops", 0.0) + j["write"].get("iops", 0.0)
             for j in clients])
        m["per_client"]["hosts"] = [j.get("hostname", "") for j in clients]
    return m
