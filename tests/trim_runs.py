#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The one way to make a recorded set smaller: every fio report in the
files named (or in every file below the folders named), and an old
results.json of rpma-qualify, loses the fields no judge and no unit test
reads; the text around a report stays as fio wrote it. Run on a set as
recorded (the suite's RESULTS directory copied) and again on a set
already trimmed, it writes the same bytes, so
tests/test_fio_readers.py can check that every committed set is trimmed.

    tests/trim_runs.py [--check] PATH...      (make trim-runs: every set)

--check writes nothing and exits 1 naming each file it would change.

What is kept (SETS: a rule a set) is what the unit tests of the judges read: the keys
were found by running tests/judges.sh and qualify's test_units.py with
every report's dicts recording the keys asked of them; a judge that reads
a new field adds it here and runs `make trim-runs` on a set recorded
again. A key only tested for ("bins" in ...) keeps its first entry.
Nothing else is left out: a run that fails keeps every field its judge
reads to say so."""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from rpma_measure import fio  # noqa: E402 (an entry point: the package beside it)

def report(job):
    """a report's rule: fio's version (what marks a file as a report) and
    JOB's for each job entry, local or fio --client's"""
    return {"fio version": True, "jobs": [job], "client_stats": [job]}


# Per set, what its judge and unit tests read (tests/fio-readers.json's
# oracle reads whatever is left). rpma-qualify reads most: the
# percentiles it reports (fio keys them with six decimals), CPU, fio's
# steady-state verdict.
PERCENTILES = {f"{p:.6f}": True for p in (50, 99, 99.9, 99.99)}
QUALIFY_DIRECTION = {"bw_bytes": True, "io_bytes": True, "iops": True, "total_ios": True,
                     "clat_ns": {"mean": True, "max": True, "percentile": PERCENTILES}}
QUALIFY = report({"jobname": True, "hostname": True, "error": True, "job_runtime": True,
                  "usr_cpu": True, "sys_cpu": True,
                  "steadystate": {"attained": True, "ss": True, "data": {"iops": True}},
                  "read": QUALIFY_DIRECTION, "write": QUALIFY_DIRECTION})
# evaluate.py: I/O done, mean latency, json+'s bins; rules.py: errors,
# the depth buckets used and submission latencies (same-figures)
ENGINE_DIRECTION = {"io_bytes": True, "iops": True, "total_ios": True,
                    "clat_ns": {"mean": True, "bins": "first"}}
ENGINE = report({"jobname": True, "error": True, "iodepth_submit": "used",
                 "iodepth_complete": "used", "read": ENGINE_DIRECTION,
                 "write": dict(ENGINE_DIRECTION, slat_ns={"N": True})})
# judge.py: each host's jobs, their errors, the bytes verified and IOPS
TWOHOSTS_DIRECTION = {"io_bytes": True, "iops": True, "total_ios": True}
TWOHOSTS = report({"jobname": True, "hostname": True, "error": True,
                   "read": TWOHOSTS_DIRECTION, "write": TWOHOSTS_DIRECTION})
SETS = {"engine/tests/runs": ENGINE, "tests/twohosts/runs": TWOHOSTS,
        "qualify/tests/data": QUALIFY}
# An old results.json of rpma-qualify (run-format1.json): what report,
# compare and history read of it, found the same way; "format" stays
# though nothing asks for it, as it names what the file is. "*" is any key
# (the hosts, named by address).
ENV = {k: True for k in ("cpu_model", "cpus", "debian_version", "fio", "hostname", "kernel",
                         "os", "perftest", "rdma_core", "rdma_devices")}
RUN_METRICS = {k: True for k in ("bw_bytes", "iops", "lat_us", "per_client", "steady_state",
                                 "verify_errors")}
RUN = {"format": True, "baselines": True, "started": True, "updated": True, "tool_version": True,
       "plan": {k: True for k in ("compare", "description", "name", "ramp_time", "repeats",
                                  "runtime", "steady_state", "thresholds")},
       "hosts": {"*": {"env": dict(ENV, rpma={"librpma_pkgconfig": True, "rpma_qualify": True}),
                       "env_source": True, "memory_kinds": True, "role": True}},
       "points": [dict({k: True for k in ("bs", "clients", "id", "iodepth", "mode", "numjobs",
                                          "replicas", "rw", "series")},
                       repeats=[{"counters": True, "counters_missing": True, "status": True,
                                 "metrics": dict(RUN_METRICS, cpu={"client_us_per_op": True,
                                                                   "server_us_per_op": True})}])]}
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def keep_for(path):
    """the rule of the set PATH is in (a file of no set: the set's of
    rpma-qualify, the widest)"""
    rel = os.path.relpath(os.path.abspath(path), TOP)
    for top, keep in SETS.items():
        if rel.startswith(top + os.sep):
            return keep
    return QUALIFY


def trim(value, keep):
    """VALUE with only what the rule KEEP names: True keeps a value whole, "first"
    its first entry, a dict the keys it names (each by its own rule), a
    one-element list that rule for each element, a dict with "*" that
    rule for any key it does not name, "used" the entries that
    are not 0 (rules.py's same-figures compares the depth buckets fio
    used; an empty bucket says nothing)."""
    if keep is True or not isinstance(value, (dict, list)):
        return value
    if keep == "used":
        return {k: v for k, v in value.items() if v}
    if keep == "first":
        return dict(list(value.items())[:1]) if isinstance(value, dict) else value[:1]
    if isinstance(keep, list):
        return [trim(v, keep[0]) for v in value] if isinstance(value, list) else value
    if not isinstance(value, dict):
        return value
    return {k: trim(v, keep[k] if k in keep else keep["*"]) for k, v in value.items()
            if k in keep or "*" in keep}


def report_text(doc, keep):
    """The trimmed report as fio indents it (two spaces, ' : ')."""
    return json.dumps(trim(doc, keep), indent=2, separators=(",", " : "))


STAMP = re.compile(r"^([0-9]+\.[0-9]+) ?(.*)$")


def trim_stamped(text, keep):
    """fio.log of the two-host bed: each line behind the time it came.
    The report's lines all get the time of its first line (no judge reads
    the times inside the report)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = STAMP.match(line)
        if m and m[2] == "{":
            body = "\n".join(STAMP.match(x)[2] if STAMP.match(x) else x for x in lines[i:])
            try:
                doc, _, end = fio.locate(body)
            except fio.FioOutputError:
                return text
            rest = body[end:].splitlines()
            report = [f"{m[1]} {x}" for x in report_text(doc, keep).splitlines()]
            after = lines[i + len(body[:end].splitlines()):]
            assert len(after) == len(rest)
            return "\n".join(lines[:i] + report + after) + "\n"
    return text


def trimmed(text, keep):
    """TEXT with its fio report trimmed to KEEP; TEXT itself if it holds
    none."""
    if re.match(r"^[0-9]+\.[0-9]+ ", text):
        return trim_stamped(text, keep)
    if text.startswith('{\n "') and '\n "points": [' in text:
        # a results.json of rpma-qualify, as its runner writes one
        return json.dumps(trim(json.loads(text), RUN), indent=1, sort_keys=True) + "\n"
    try:
        doc, start, end = fio.locate(text)
    except fio.FioOutputError:
        return text
    if not isinstance(doc, dict) or "fio version" not in doc:
        return text
    return text[:start] + report_text(doc, keep) + text[end:]


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, names in sorted(os.walk(p)):
                yield from (os.path.join(d, n) for n in sorted(names))
        else:
            yield p


def main(argv):
    check = argv[:1] == ["--check"]
    changed = []
    for path in files(argv[1:] if check else argv):
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode()
        except UnicodeDecodeError:
            continue
        new = trimmed(text, keep_for(path))
        if new != text:
            changed.append(path)
            if not check:
                with open(path, "w") as f:
                    f.write(new)
    for path in changed:
        print(("not trimmed: " if check else "trimmed: ") + path)
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
