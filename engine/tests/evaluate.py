#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""evaluate.py RESULTS -- judges the cases that in-vm.sh ran (see lib.sh).

A "pair" case passes when both fios exited with 0, the server laid out no
file named malloc (filename=malloc is its memory), every job of both fio
reports error 0 and the client did some I/O; its IOPS and mean completion
latency are shown. A
"judge" case passes when every rule it states holds of the facts and files
it left in its directory (rules.py). Every case fails if one of its fio
output files is not the report in the format asked for (lib.sh lists them
in the case's "formats" file).
Prints one PASS/FAIL/SKIP line per case and "N passed, M failed" (with
", K skipped" when cases could not run); exits 1 if anything failed or
nothing passed.
"""
import os
import re
import sys

import rules
from rpma_measure import fio


class Failed(Exception):
    pass


# What fio itself writes into its report file ahead of the JSON document:
# its own messages, each beginning "fio: " (a failed job's "fio: pid=N,
# err=...", the note of a signal, "fio: first I/O failed..."; the engines'
# begin with the engine's name), and in distributed mode the backend's
# output, each line prefixed "<host> ".
# fio's own lines: its messages, and where a job runs a command before
# its I/O (exec_prerun, as a case's companion job does), the note of where
# that command's output went
FIO_OWN = re.compile(r"fio: |\S+ : Saving output of (pre|post)run in \S+$|$")
FIO_BACKEND = re.compile(r"<[^>]+> ")


def report_of(path, fmt):
    """fio's report in PATH, written with --output-format=FMT (json, json+
    or normal,json, then words that say more: "distributed" for fio
    --client, "old" for the old engines, "new" for ours): with json and
    json+ the file must be the JSON document alone, but for fio's own
    lines (the old engines' notes are let be: they are not ours to fix);
    with normal,json the normal output surrounds it."""
    name = os.path.basename(path)
    try:
        text = open(path).read()
    except OSError as e:
        raise Failed(str(e))
    try:
        doc, start, end = fio.locate(text)
    except fio.FioOutputError as e:
        raise Failed(f"{name}: not {fmt.split()[0]}: {e}")
    head = text[:start].split("\n")[:-1]
    fmt, *more = fmt.split()
    strict = fmt in ("json", "json+") and "old" not in more
    if strict:
        stray = [line for line in head if not FIO_OWN.match(line) and not
                 ("distributed" in more and FIO_BACKEND.match(line))]
        if stray:
            raise Failed(f"{name}: not {fmt}: {stray[0]!r} precedes the report")
    if strict and text[end:].strip():
        raise Failed(f"{name}: not {fmt}: {text[end:].strip()[:60]!r} follows the report")
    if fmt == "json+" and not fio.has_bins(doc):
        raise Failed(f"{name}: json+ without latency bins")
    return doc


def reports(case_dir):
    """{file: format} of the case's fio output files; every *.json file
    there must be listed"""
    formats = {}
    try:
        for line in open(os.path.join(case_dir, "formats")).read().splitlines():
            name, fmt = line.split("\t")
            formats[name] = fmt
    except OSError:
        pass
    for name in os.listdir(case_dir):
        if name.endswith(".json") and name not in formats:
            raise Failed(f"{name}: written in an unknown format")
    return formats


def check_reports(case_dir):
    """every report of the case parses; one that fio did not write (a fio
    that failed before running its jobs) is empty"""
    for name, fmt in reports(case_dir).items():
        path = os.path.join(case_dir, name)
        if os.path.exists(path) and os.path.getsize(path):
            report_of(path, fmt)


SANITIZER_ERROR = re.compile(r"ERROR: AddressSanitizer|: runtime error: ")
LEAK = re.compile(r"(Direct|Indirect) leak of ")
FRAME = re.compile(r"^\s*#(\d+) .*\(([^)+]*)(\+0x[0-9a-f]+)?\)$")


def ours(frame, module):
    """a frame of a leak's stack in an engine or librpma: in their module,
    or, as the allocation's caller, in "<unknown module>" (an engine that
    fio has already unloaded); deeper frames in no module are fio's
    unwinding without frame pointers"""
    return "librpma" in module or (frame == 1 and module == "<unknown module>")


def sanitizer_findings(lines):
    """the first line of each sanitizer finding in a process's stderr: ASan
    errors, UBSan's, and the leaks that an engine or librpma allocated
    (fio, not instrumented but run with ASan's runtime, leaks a little of
    its own)"""
    found = []
    leak = None
    for line in lines:
        if SANITIZER_ERROR.search(line):
            found.append(line.strip())
        frame = FRAME.match(line)
        if LEAK.match(line):
            leak = line.strip()
        elif leak and frame and ours(int(frame[1]), frame[2]):
            found.append(leak)
            leak = None
        elif leak and not line.strip():
            leak = None
    return found


def check_sanitizers(case_dir):
    """no process of the case reported a sanitizer finding (engines built
    with --enable-sanitizers) on its stderr"""
    for name in sorted(os.listdir(case_dir)):
        path = os.path.join(case_dir, name)
        if name.endswith(".log") and os.path.isfile(path):
            found = sanitizer_findings(open(path, errors="replace"))
            if found:
                raise Failed(f"{name}: {found[0]}")


def report_in(case_dir, name):
    """the report NAME of the case, in the format the case listed"""
    fmt = reports(case_dir).get(name)
    if fmt is None:
        raise Failed(f"{name}: no such report")
    return report_of(os.path.join(case_dir, name), fmt)


def jobs_of(case_dir, role):
    name = f"{role}.json"
    doc = report_in(case_dir, name)
    jobs = fio.jobs(doc)
    if not jobs:
        raise Failed(f"{name}: no jobs")
    bad = [f"{j['jobname']}#{i}: error {j['error']}"
           for i, j in enumerate(jobs) if j["error"]]
    if bad:
        raise Failed(", ".join(bad))
    return jobs


def check_pair_ended(case_dir, client, server):
    """the pair's fios (their exit statuses: lib.sh, record_pair) ended
    well, leaving no file named malloc"""
    if os.path.exists(os.path.join(case_dir, "malloc")):
        raise Failed("the server laid out a file named malloc")
    if (client, server) != ("0", "0"):
        raise Failed(f"exit status: client {client}, server {server}")


def report_for(case_dir):
    """the reports of CASE_DIR by name, for the rules (rules.Broken when
    one is not there or not a report)"""
    def report(name):
        try:
            return report_in(case_dir, name)
        except Failed as e:
            raise rules.Broken(str(e))
    return report


def figures(jobs):
    if not sum(j[d]["io_bytes"] for j in jobs for d in ("read", "write")):
        raise Failed("the client did no I/O")
    out = []
    for d in ("read", "write"):
        iops = sum(j[d]["iops"] for j in jobs)
        if iops:
            lat = max(j[d]["clat_ns"]["mean"] for j in jobs) / 1000
            out.append(f"{d} {iops:.0f} IOPS, {lat:.0f} us")
    return "; ".join(out)


def tail(case_dir):
    if not os.path.isdir(case_dir):
        return
    for name in sorted(os.listdir(case_dir)):
        path = os.path.join(case_dir, name)
        if name.endswith(".log") and os.path.getsize(path):
            print(f"  --- {name}")
            for line in open(path, errors="replace").read().splitlines()[-8:]:
                print(f"  | {line}")


def main(argv):
    results = argv[0]
    try:
        lines = open(os.path.join(results, "cases")).read().splitlines()
    except OSError:
        lines = []
    passed = failed = skipped = 0
    for line in lines:
        name, kind, detail = line.split("\t", 2)
        case_dir = os.path.join(results, name)
        if kind == "skip":
            print(f"SKIP {name}: {detail}")
            skipped += 1
            continue
        try:
            if kind == "fail":
                raise Failed(detail)
            if kind == "pair":
                check_pair_ended(case_dir, *detail.split())
                detail = figures(jobs_of(case_dir, "client"))
                jobs_of(case_dir, "server")
            if kind == "judge":
                # several verdicts may judge one case's directory
                case_dir = os.path.join(results, detail)
                broken, notes = rules.judge(case_dir, name, report_for(case_dir))
                if broken:
                    raise Failed("; ".join(broken))
                detail = "; ".join(notes)
            # a case judged in the guest may have used another's directory
            if os.path.isdir(case_dir):
                check_reports(case_dir)
                check_sanitizers(case_dir)
            print(f"PASS {name}" + (f" ({detail})" if detail else ""))
            passed += 1
        except Failed as e:
            print(f"FAIL {name}: {e}")
            tail(case_dir)
            failed += 1
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
