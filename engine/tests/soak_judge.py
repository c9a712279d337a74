#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""soak_judge.py RESULTS [LIMIT-KB] -- the verdict of make check-soak
(soak.sh) from the files of its run in RESULTS:

- soak.csv: the resident memory (KiB) of the four fio processes, a row
  every 10 s;
- statuses: each process's exit status ("NAME STATUS" lines);
- apm/ and gpspm/: each pair's fio reports, server.json and client.json.

The soak passes when every process exited 0, no job reported an error,
and no process grew by more than LIMIT-KB (default 2048) from the end of
the warm-up (the first fifth of the run) to its end. Prints what it found
and "N passed, N failed" (the soak is one test); exits 1 if it failed.
"""
import csv
import os
import sys

from rpma_measure import fio


def growth(path, limit):
    """the processes that grew by more than LIMIT KiB after the warm-up,
    or had too few samples to tell; prints each one's figures"""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    end = int(rows[-1]["seconds"])
    bad = []
    for name in rows[0].keys() - {"seconds"}:
        series = [(int(r["seconds"]), int(r[name])) for r in rows if r[name]]
        warm = [kb for s, kb in series if s >= end / 5]
        if len(warm) < 2:
            print(f"soak: {name}: too few samples")
            bad.append(name)
            continue
        grew = max(warm) - warm[0]
        print(f"soak: {name}: {warm[0]} KiB after warm-up, at most {max(warm)} KiB later"
              f" (+{grew} KiB, limit {limit})")
        if grew > limit:
            bad.append(name)
    return bad


def judge(results, limit):
    """the reasons the soak failed, none if it passed"""
    why = []
    with open(os.path.join(results, "statuses")) as f:
        for line in f:
            name, status = line.split()
            if status != "0":
                print(f"soak: {name} exited with {status}")
                why.append(f"{name} exited with {status}")
    why += [f"{name} grew" for name in growth(os.path.join(results, "soak.csv"), limit)]
    for kind in ("apm", "gpspm"):
        for role in ("server", "client"):
            try:
                doc = fio.read(os.path.join(results, kind, f"{role}.json"))
            except OSError:
                continue
            except fio.FioOutputError as e:
                print(f"soak: {kind} {role}: {e}")
                why.append(f"{kind} {role}: {e}")
                continue
            if any(j["error"] for j in fio.jobs(doc)):
                print(f"soak: {kind} {role} reported errors")
                why.append(f"{kind} {role} reported errors")
    return why


def main(argv):
    why = judge(argv[0], int(argv[1]) if len(argv) > 1 else 2048)
    print(f"soak: {0 if why else 1} passed, {1 if why else 0} failed")
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
