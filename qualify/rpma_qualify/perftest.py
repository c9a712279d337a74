# SPDX-License-Identifier: BSD-3-Clause
"""perftest baselines: ib_{write,read}_{lat,bw} in RDMA-CM mode (-R).

The server side runs on the target as a job of fio's exec engine, sent
through the target's `fio --server` like every other job, so the target
needs nothing but fio; the client side runs on the first initiator."""

import re

TESTS = {
    "write_lat": "ib_write_lat", "read_lat": "ib_read_lat",
    "write_bw": "ib_write_bw", "read_bw": "ib_read_bw",
}
BASE_PORT = 18515
ATTEMPTS = 3
# RDMA_CM_EVENT_REJECTED (8): nothing listens at the port (yet); perftest
# says so in one of two ways
REJECTED = re.compile(r"Unexpected CM event.*\b8\s*$"
                      r"|RDMA_CM_EVENT_REJECTED; error: 8\b", re.M)
# With -R a client connects twice to the one port: first for perftest's
# own exchange, then, after a handshake over it, the test's queue pair,
# which the server only then listens for (a client retries that one for
# about a second). perftest ends its first connection's failure with this
# line; a refusal without it came at the second: the server had taken the
# client's first connection, and serves no other client.
FIRST_REFUSED = re.compile(r"Unable to init the socket connection")


def not_listening(text):
    """Whether a client's output says that nothing listened at the port
    (a server still starting, worth asking again), rather than that the
    server it reached is spent: a spent server given a second client
    takes that client's first connection for its second, each then waits
    on the other, and the client hangs until its limit (2026-12-06: 3 x
    70 s of ib_write_bw in one run)."""
    return bool(REJECTED.search(text) and FIRST_REFUSED.search(text))


def limit_s(test, amount):
    """How long one attempt of test at amount iterations may take: under
    emulation 300 latency iterations have taken 25 s with the connection,
    2000 bandwidth iterations of 4 KiB 10 to 20 s; a hung test never
    ends."""
    return 20 + amount // 20 if test.endswith("_lat") else 30 + amount // 50


def args(test, size, iters, port):
    # not -D (a duration): perftest 4.5 reports 0.00 MB/s in that mode
    return ["-R", "-F", "-s", str(size), "-n", str(iters), "-p", str(port)]


def amounts(baseline):
    return {"lat": baseline["lat_iters"], "bw": baseline["bw_iters"]}


def server_jobfile(items, plan_iters, limit_s):
    """items: [(test, size, port)]: one exec job each, all at once (each
    server listens on a port of its own and ends after its one test)."""
    # thinktime: how often the exec engine looks at its program; without
    # it each job spins, and a target of few CPUs starves perftest
    text = ("[global]\nioengine=exec\ntime_based\nruntime=%d\n"
            "grace_time=1\nstd_redirect=0\nthinktime=200000\n" % limit_s)
    for test, size, port in items:
        iters = plan_iters[test.split("_")[1]]
        text += "\n[perftest-%s-%d-%d]\nprogram=%s\narguments=%s\n" % (
            test, size, port, TESTS[test],
            " ".join(args(test, size, iters, port)))
    return text


def parse(test, text):
    """The result line of a perftest client's output: latency tests give
    microseconds (typical = median, avg, p99, p99.9), bandwidth tests
    bytes/s and messages/s. None if there is none."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.strip().startswith("#bytes"):
            continue
        header = line
        for data in lines[i + 1:]:
            f = data.split()
            if len(f) >= 5 and f[0].isdigit():
                vals = [float(x) for x in f[:9] if re.match(r"^[\d.]+$", x)]
                if "inf" in f[:9]:
                    # no calibrated clock: no figure to trust
                    return None
                if test.endswith("_lat") and len(vals) >= 7:
                    r = {"bytes": int(vals[0]), "iters": int(vals[1]),
                         "t_min_us": vals[2], "t_max_us": vals[3],
                         "t_typical_us": vals[4], "t_avg_us": vals[5],
                         "t_stdev_us": vals[6]}
                    if len(vals) >= 9:
                        r["p99_us"], r["p99.9_us"] = vals[7], vals[8]
                    return r
                if test.endswith("_bw"):
                    # perftest's "MB/sec" are MiB/s (its --help says so)
                    unit = 1 << 20
                    if "Gb" in header:
                        unit = 1e9 / 8
                    if not vals[3]:
                        # no figures: perftest measured nothing
                        return None
                    return {"bytes": int(vals[0]), "iters": int(vals[1]),
                            "bw_peak_bytes": vals[2] * unit,
                            "bw_avg_bytes": vals[3] * unit,
                            "msg_rate_mpps": vals[4]}
        return None
    return None


def for_point(baselines, rw, bs_bytes):
    """The baseline results that a point of rw and bs compares with:
    {"lat": ..., "bw": ...} (either may be missing)."""
    d = "read" if rw in ("read", "randread", "randrw") else "write"
    out = {}
    for kind in ("lat", "bw"):
        b = (baselines or {}).get("%s_%s/%d" % (d, kind, bs_bytes))
        if b and b.get("status") == "done":
            out[kind] = b["result"]
    return out


# a point's metric: the figure of perftest's test of the same size and
# direction it is held against (a threshold "relative_to": "perftest"):
# (test kind, result key, factor to the metric's unit)
COUNTERPARTS = {
    "lat_p50": ("lat", "t_typical_us", 1),
    "lat_mean": ("lat", "t_avg_us", 1),
    "lat_p99": ("lat", "p99_us", 1),
    "lat_p99.9": ("lat", "p99.9_us", 1),
    "lat_max": ("lat", "t_max_us", 1),
    "bw_bytes": ("bw", "bw_avg_bytes", 1 / (1 << 20)),
    "iops": ("bw", "msg_rate_mpps", 1e6),
}


def counterpart(base, metric):
    """perftest's figure for metric in base (for_point's), in the metric's
    unit; None where the test did not run or gave none."""
    kind, key, factor = COUNTERPARTS[metric]
    v = (base or {}).get(kind, {}).get(key)
    return v * factor if v else None
