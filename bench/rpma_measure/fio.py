# SPDX-License-Identifier: BSD-3-Clause
"""fio's JSON report (--output-format=json, json+ or normal,json), local
or fio --client's, as fio 3.33 to 3.42 write it: the one reader of the
tree. bench's summarizers, the engine suite's and the two-host judges and
rpma-qualify all read fio's output through it.

What may surround the report in a file: fio's own messages (`fio: ...`)
and the engines' notes before it, fio --client's relayed server lines
(`<host> ...`) before it and, from some versions, after it, and with
normal,json the normal output around it. The report itself always begins
with a line "{" (tests/test_fio_readers.py replays every recorded report
of the tree through this reader)."""

import json


class FioOutputError(ValueError):
    """TEXT holds no report, or one that does not parse."""


def locate(text):
    """(report, start, end): the JSON report in TEXT, the offset of its
    first character and the offset just after it."""
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    if start == 0 and not text.startswith("{"):
        raise FioOutputError("no JSON report in fio's output")
    try:
        doc, end = json.JSONDecoder().raw_decode(text, start)
    except ValueError as e:
        raise FioOutputError(f"fio's JSON report does not parse: {e}") from None
    return doc, start, end


def split_output(text):
    """(report, lines): fio's report in TEXT and the lines around it, those
    before it first (fio --client's relayed lines, fio's own messages)."""
    doc, start, end = locate(text)
    return doc, text[:start].splitlines() + [x for x in text[end:].splitlines() if x]


def read(path):
    """The report in the file PATH (OSError, FioOutputError)."""
    with open(path, errors="replace") as f:
        return locate(f.read())[0]


def jobs(doc):
    """Every job entry of a report: fio --client's client_stats but fio's
    sums ("All clients"), or a local run's jobs."""
    found = doc.get("client_stats")
    if found is None:
        found = doc.get("jobs", [])
    return [j for j in found if j.get("jobname") != "All clients"]


def total(jobs_, direction, key):
    """KEY of DIRECTION ("read", "write") summed over JOBS_."""
    return sum(j[direction].get(key, 0) for j in jobs_)


def percentile_us(section, p, kind="clat_ns"):
    """Percentile P ("99.9") of a direction's latency KIND (clat_ns, lat_ns)
    in microseconds; None if fio did not report it. fio keys percentiles
    with six decimals ("99.900000")."""
    pct = (section.get(kind) or {}).get("percentile") or {}
    v = pct.get(f"{float(p):.6f}")
    return None if v is None else v / 1000.0


def mean_us(section, kind="clat_ns"):
    """The mean of a direction's latency KIND, in microseconds."""
    return section[kind]["mean"] / 1000.0


def cpu_seconds(job):
    """The CPU time (usr + sys) of one job entry over its run."""
    run_s = job.get("job_runtime", 0) / 1000.0
    return (job.get("usr_cpu", 0.0) + job.get("sys_cpu", 0.0)) / 100.0 * run_s


def has_bins(doc):
    """json+: some direction that did I/O carries its latency bins."""
    return any("bins" in j[d]["clat_ns"] for j in doc.get("jobs", [])
               for d in ("read", "write") if j[d]["total_ios"])
