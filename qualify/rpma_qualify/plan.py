# SPDX-License-Identifier: BSD-3-Clause
"""Plans: what to run. A plan is a JSON file; docs/qualify.md and the man
page rpma-qualify(1) describe every field."""

import fnmatch
import itertools
import json
import os
import re

MODES = {
    # mode: (engine, server options, client options)
    "apm": ("apm", {}, {}),
    "gpspm": ("gpspm", {"busy_wait_polling": 0}, {"busy_wait_polling": 0}),
    "gpspm-busy": ("gpspm", {"busy_wait_polling": 1},
                   {"busy_wait_polling": 1}),
    "aof-apm": ("aof", {"aof_mode": "apm"}, {"aof_mode": "apm"}),
    "aof-gpspm": ("aof", {"aof_mode": "gpspm", "busy_wait_polling": 0},
                  {"aof_mode": "gpspm", "busy_wait_polling": 0}),
}
RW = ("write", "read", "randwrite", "randread", "randrw")
WRITES = ("write", "randwrite", "randrw")
AXES = ("bs", "iodepth", "numjobs", "clients", "replicas")
# librpma_aof_client keeps one log on 1 to 3 servers (engines.md, "Replicas")
MAX_REPLICAS = 3
# an append-only log's records start this far into the server's memory,
# after its tail pointer: the client's "file" is the rest (engines.md)
AOF_HEADER = 4096
DEFAULT_MEMORY = {"dram": {"kind": "dram", "filename": "malloc"}}
DEFAULTS = {
    "ramp_time": 2, "runtime": 10, "repeats": 3, "size": "16m",
    "port": 7280, "verify": "crc32c", "verify_backlog": 64,
    "rwmixread": 70,
    "baseline": {"tests": ["write_lat", "read_lat", "write_bw", "read_bw"],
                 "sizes": [], "lat_iters": 1000, "bw_iters": 5000},
    "compare": {"floor_pct": 10.0, "spread_factor": 2.0, "alpha": 0.05,
                "metrics": ["iops", "lat_p50", "lat_p99"]},
    "thresholds": [],
}


class PlanError(Exception):
    pass


def plans_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.path.join(here, "..", "plans"), os.path.join(here, "plans")):
        if os.path.isdir(d):
            return os.path.normpath(d)
    return os.path.join(here, "..", "plans")


def find(name):
    """A plan by path, or by the name of a shipped one (quick, full)."""
    if os.path.exists(name):
        return name
    p = os.path.join(plans_dir(), name + ".json")
    if os.path.exists(p):
        return p
    raise PlanError("no plan %s (neither a file nor one of %s)"
                    % (name, ", ".join(shipped())))


def shipped():
    try:
        return sorted(f[:-5] for f in os.listdir(plans_dir())
                      if f.endswith(".json"))
    except OSError:
        return []


def load(name, overrides=None):
    path = find(name)
    with open(path) as f:
        try:
            plan = json.load(f)
        except json.JSONDecodeError as e:
            raise PlanError("%s: %s" % (path, e))
    plan.setdefault("name", os.path.basename(path)[:-5])
    return normalize(plan, overrides)


def normalize(plan, overrides=None):
    """The plan with its defaults filled in, checked; overrides (ramp_time,
    runtime, repeats) replace the plan's own."""
    p = json.loads(json.dumps(plan))
    for k, v in DEFAULTS.items():
        if isinstance(v, dict):
            merged = dict(v)
            merged.update(p.get(k, {}))
            p[k] = merged
        else:
            p.setdefault(k, v)
    for k, v in (overrides or {}).items():
        if v is not None:
            p[k] = v
    mem = dict(DEFAULT_MEMORY)
    mem.update(p.get("memory", {}))
    p["memory"] = mem
    if not p.get("series"):
        raise PlanError("the plan has no series")
    names = set()
    for s in p["series"]:
        name = s.get("name")
        if not name or name in names:
            raise PlanError("every series needs a name of its own (%r)" % name)
        names.add(name)
        if s.get("mode") not in MODES:
            raise PlanError("series %s: mode %r is not one of %s"
                            % (name, s.get("mode"), ", ".join(MODES)))
        if s.get("rw") not in RW:
            raise PlanError("series %s: rw %r is not one of %s"
                            % (name, s.get("rw"), ", ".join(RW)))
        s.setdefault("memory", "dram")
        if s["memory"] not in mem:
            raise PlanError("series %s: memory %r is not in the plan's memory"
                            % (name, s["memory"]))
        for a in AXES:
            v = s.get(a, ["4k"] if a == "bs" else [1])
            s[a] = v if isinstance(v, list) else [v]
            if not s[a]:
                # a product with an empty factor: the series would run
                # nothing, and a verdict on nothing passes
                raise PlanError("series %s: %s is an empty sweep: the "
                                "series has no point (give it a value)"
                                % (name, a))
        if s["mode"].startswith("aof"):
            if s["rw"] not in ("write", "read"):
                raise PlanError("series %s: the append-only log writes or "
                                "reads, no %s" % (name, s["rw"]))
            if any(c != 1 for c in s["clients"]):
                raise PlanError("series %s: an append-only log serves one "
                                "client (clients=1)" % name)
            if any(type(r) is not int or not 1 <= r <= MAX_REPLICAS
                   for r in s["replicas"]):
                raise PlanError("series %s: replicas %r: a log is kept on "
                                "1 to %d servers" % (name, s["replicas"],
                                                     MAX_REPLICAS))
        elif s["replicas"] != [1]:
            raise PlanError("series %s: replicas %r: only the append-only "
                            "log (aof-apm, aof-gpspm) has replicas"
                            % (name, s["replicas"]))
    for t in p["thresholds"]:
        if "metric" not in t or ("max" not in t and "min" not in t):
            raise PlanError("threshold %r needs a metric and a max or min" % t)
        check_metrics([t["metric"]], "threshold %s" % t.get("name", t))
        _check_relative(t)
    if not isinstance(p["compare"]["metrics"], list):
        raise PlanError("compare.metrics must be a list of metrics")
    check_metrics(p["compare"]["metrics"], "compare.metrics")
    alpha = p["compare"]["alpha"]
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise PlanError("compare.alpha %r: a level between 0 and 1 (0.05)"
                        % (alpha,))
    try:
        size = size_bytes(p["size"])
    except ValueError:
        size = 0
    if size <= AOF_HEADER:
        raise PlanError("size %r: a size above 4k (16m, 65536)" % p["size"])
    for k in ("ramp_time", "runtime", "repeats"):
        if not isinstance(p[k], int) or p[k] < (1 if k == "repeats" else 0):
            raise PlanError("%s must be a whole number (%r)" % (k, p[k]))
    if "steady_state" in p:
        _check_steady(p)
    return p


STEADY_CRITERION = re.compile(r"^(iops|bw)(_slope)?:\d+(\.\d+)?%?$")


def steady_ramp(plan):
    """fio's ss_ramp: its steady-state clock starts with the job and
    restarts when ramp_time ends, which also zeroes the I/O counts it
    takes differences of; a ss_ramp not below ramp_time keeps that reset
    out of the window. The plan's ramp comes on top."""
    return plan["ramp_time"] + plan["steady_state"]["ramp"]


def _check_steady(p):
    ss = p["steady_state"]
    ss.setdefault("ramp", 0)
    ss.setdefault("required", True)
    if not isinstance(ss["required"], bool):
        raise PlanError("steady_state.required %r: true or false"
                        % (ss["required"],))
    if not STEADY_CRITERION.match(str(ss.get("criterion"))):
        raise PlanError("steady_state.criterion %r: fio's steadystate= "
                        "of iops, iops_slope, bw or bw_slope (iops:20%%)"
                        % ss.get("criterion"))
    w = ss.get("window")
    if not isinstance(w, int) or w < 5 or w % 5:
        raise PlanError("steady_state.window %r: seconds, a multiple of 5 "
                        "(the judgement's 5 rounds)" % (w,))
    if not isinstance(ss["ramp"], int) or ss["ramp"] < 0:
        raise PlanError("steady_state.ramp %r: whole seconds" % ss["ramp"])
    # the window's first second comes one second after ss_ramp (fio);
    # one more for fio's sampling, which a loaded host delays: a window
    # that just fits was seen filled to its last second, no more
    need = steady_ramp(p) + 2 + w
    if need > p["runtime"]:
        raise PlanError("steady_state: ramp_time %d s + ramp %d s + 2 s + "
                        "window %d s do not fit in runtime %d s, the cap"
                        % (p["ramp_time"], ss["ramp"], w, p["runtime"]))


def check_metrics(names, where):
    """Raises PlanError naming an unknown metric of names, and the known
    ones (summary.METRICS)."""
    # summary reads plans' sizes: imported here, not at the top
    from . import summary
    for m in names:
        if m not in summary.METRICS:
            raise PlanError("%s: no metric %r; the metrics are %s" % (
                where, m, ", ".join(summary.METRICS)))


RELATIVE_TO = ("perftest", "reference")


def _check_relative(t):
    """A threshold's relative_to: a base its metric has."""
    rel = t.get("relative_to")
    if rel is None:
        return
    from . import perftest, summary
    where = "threshold %s" % t.get("name", t)
    if rel not in RELATIVE_TO:
        raise PlanError("%s: relative_to %r is not one of %s"
                        % (where, rel, ", ".join(RELATIVE_TO)))
    if rel == "perftest" and t["metric"] not in perftest.COUNTERPARTS:
        raise PlanError("%s: perftest measures no %s; relative to it: %s"
                        % (where, t["metric"],
                           ", ".join(perftest.COUNTERPARTS)))
    if rel == "reference" and t["metric"] in summary.COUNTS:
        raise PlanError("%s: %s is a count, judged as it is, not relative "
                        "to a reference run" % (where, t["metric"]))


def size_bytes(s):
    s = str(s).strip().lower()
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    if s and s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(s)


def point_id(series, v):
    """The point's name: its series and sweeps; replicas only above one,
    so that a single log's point keeps the name it had in earlier runs"""
    pid = "%s/bs=%s/iodepth=%s/numjobs=%s/clients=%s" % (
        series["name"], v["bs"], v["iodepth"], v["numjobs"], v["clients"])
    if v.get("replicas", 1) > 1:
        pid += "/replicas=%d" % v["replicas"]
    return pid


def points(plan):
    """Every point of the plan, in order: series by series, the product of
    its sweeps."""
    out = []
    for s in plan["series"]:
        for bs, qd, nj, cl, rep in itertools.product(
                s["bs"], s["iodepth"], s["numjobs"], s["clients"],
                s["replicas"]):
            v = {"bs": bs, "iodepth": qd, "numjobs": nj, "clients": cl,
                 "replicas": rep}
            if not _selected(plan, point_id(s, v), s["name"]):
                continue
            if nj > 1 and cl > 1:
                raise PlanError("series %s: numjobs=%d and clients=%d in one "
                                "point; sweep one of them" % (s["name"], nj, cl))
            out.append({"id": point_id(s, v), "series": s["name"],
                        "mode": s["mode"], "rw": s["rw"],
                        "memory": s["memory"],
                        "server_options": s.get("server_options", {}),
                        "client_options": s.get("client_options", {}), **v})
    if not out and plan.get("only"):
        raise PlanError("--only %s: no point of the plan matches"
                        % " ".join(plan["only"]))
    if not out:
        raise PlanError("plan %s has no point" % plan.get("name", "?"))
    return out


def _selected(plan, pid, series):
    only = plan.get("only")
    return not only or series in only or any(
        fnmatch.fnmatchcase(pid, pat) for pat in only)


def select(plan, patterns):
    """The plan restricted to the points that one of patterns names: a
    series by its name, or points by a shell pattern of their ids
    (apm-devdax/bs=4k/iodepth=1/*), kept as the plan's "only". The
    series and the thresholds of a series left out go."""
    if not patterns:
        return plan
    p = json.loads(json.dumps(plan))
    p["only"] = list(patterns)
    names = {pt["series"] for pt in points(p)}
    p["series"] = [s for s in p["series"] if s["name"] in names]
    p["thresholds"] = [t for t in p["thresholds"]
                       if t.get("series", min(names)) in names]
    return p


def baseline_sizes(plan):
    sizes = plan["baseline"].get("sizes") or sorted(
        {size_bytes(pt["bs"]) for pt in points(plan)})
    return [size_bytes(x) for x in sizes]


def _opts(d):
    return "".join("%s=%s\n" % (k, v) for k, v in d.items())


def job_files(plan, pt, target_rdma, initiators, port):
    """The server job (for the target) and each initiator's client job of
    one point: {"server": text, "clients": [(host, text), ...]}.

    numjobs=J: J server jobs, each on its port, and J client jobs on the
    first initiator (the engines' one-to-one layout). clients=C: one
    server job taking C connections on one port, the C client jobs spread
    over the initiators (port_per_job=0). replicas=R (the append-only
    log): R x J server jobs on the target, each a log of its own on its
    port, and the client jobs naming R servers: replica k's base port
    comes after replica k-1's J ports, so client job j reaches replica
    k's job on port + (k-1) J + j - 1 (job N of a server listens on its
    base + N - 1)."""
    engine, s_opts, c_opts = MODES[pt["mode"]]
    mem = dict(plan["memory"][pt["memory"]])
    kind = mem.pop("kind", pt["memory"])
    server_extra = mem.pop("server_options", {})
    filename = mem.pop("filename", "malloc")
    bs = size_bytes(pt["bs"])
    size = plan["size"]
    aof = engine == "aof"
    server = ("[global]\nioengine=librpma_%s_server\nserverip=%s\nport=%d\n"
              "thread\n" % (engine, target_rdma, port))
    server += _opts(s_opts) + _opts(server_extra)
    server += _opts(pt.get("server_options", {}))
    server += "\n[qualify-server]\nfilename=%s\nsize=%s\niodepth=%d\n" % (
        filename, size, pt["iodepth"])
    reps = pt.get("replicas", 1)
    if pt["clients"] > 1:
        server += "clients=%d\n" % pt["clients"]
    else:
        server += "numjobs=%d\n" % (pt["numjobs"] * reps)
    if kind != "dram" and engine == "apm" or (aof and pt["mode"] == "aof-apm"
                                               and kind != "dram"):
        server += "direct_write_to_pmem=1\n"
    if aof and pt["rw"] == "write":
        # an append-only log has no time_based run: it appends size bytes
        server += "runtime=%d\n" % (plan["ramp_time"] + plan["runtime"] + 60)
    shares = []
    if pt["clients"] > 1:
        n = len(initiators)
        for i, host in enumerate(initiators):
            k = pt["clients"] // n + (1 if i < pt["clients"] % n else 0)
            if k:
                shares.append((host, k))
    else:
        shares.append((initiators[0], pt["numjobs"]))
    # the client's size: its part of the server's memory
    c_size = "%d" % (size_bytes(size) - AOF_HEADER) if aof else size
    clients = []
    for host, jobs in shares:
        c = ("[global]\nioengine=librpma_%s_client\nserverip=%s\nport=%s\n"
             "thread\ncreate_serialize=0\n" % (
                 engine, ",".join([target_rdma] * reps),
                 ",".join(str(port + k * pt["numjobs"]) for k in range(reps))))
        c += _opts(c_opts)
        if pt["clients"] > 1:
            c += "port_per_job=0\n"
        c += ("\n[qualify-client]\nnumjobs=%d\nrw=%s\nbs=%d\niodepth=%d\n"
              "size=%s\npercentile_list=%s\n"
              % (jobs, pt["rw"], bs, pt["iodepth"], c_size,
                 "50:99:99.9:99.99"))
        if pt["rw"] == "randrw":
            c += "rwmixread=%d\n" % plan["rwmixread"]
        if not aof:
            c += "time_based\nruntime=%d\nramp_time=%d\n" % (
                plan["runtime"], plan["ramp_time"])
        if not aof and "steady_state" in plan:
            # the job ends once fio's criterion holds, runtime the cap
            c += "steadystate=%s\nss_dur=%d\nss_ramp=%d\n" % (
                plan["steady_state"]["criterion"],
                plan["steady_state"]["window"], steady_ramp(plan))
        if pt["rw"] in WRITES and plan.get("verify"):
            c += "verify=%s\n" % plan["verify"]
            if not aof:
                # a time_based job verifies nothing without a backlog
                c += "verify_backlog=%d\n" % plan["verify_backlog"]
        c += _opts(pt.get("client_options", {}))
        clients.append((host, c))
    return {"server": server, "clients": clients}
