#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""evaluate.py RESULTS -- judges the cases that in-vm.sh ran (see lib.sh).

A "pair" case passes when every job of both fio reports error 0 and the
client did some I/O; its IOPS and mean completion latency are shown.
Prints one PASS/FAIL line per case and "N passed, M failed"; exits 1 if
anything failed or nothing ran.
"""
import json
import os
import sys


class Failed(Exception):
    pass


def jobs_of(path):
    try:
        text = open(path).read()
    except OSError as e:
        raise Failed(str(e))
    # engine messages may precede the JSON document in the same file
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    try:
        doc, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError:
        raise Failed(f"{os.path.basename(path)}: no JSON report")
    # fio --client reports its jobs as client_stats
    jobs = doc.get("jobs") or [j for j in doc.get("client_stats", [])
                               if j.get("jobname") != "All clients"]
    if not jobs:
        raise Failed(f"{os.path.basename(path)}: no jobs")
    bad = [f"{j['jobname']}#{i}: error {j['error']}"
           for i, j in enumerate(jobs) if j["error"]]
    if bad:
        raise Failed(", ".join(bad))
    return jobs


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
    # a check recorded after a pair has no directory of its own
    if not os.path.isdir(case_dir):
        return
    for name in sorted(os.listdir(case_dir)):
        path = os.path.join(case_dir, name)
        if name.endswith(".log") and os.path.getsize(path):
            print(f"  --- {name}")
            for line in open(path, errors="replace").read().splitlines()[-8:]:
                print(f"  | {line}")


def main():
    results = sys.argv[1]
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
                detail = figures(jobs_of(os.path.join(case_dir, "client.json")))
                jobs_of(os.path.join(case_dir, "server.json"))
            print(f"PASS {name}" + (f" ({detail})" if detail else ""))
            passed += 1
        except Failed as e:
            print(f"FAIL {name}: {e}")
            tail(case_dir)
            failed += 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or not passed else 0


sys.exit(main())
