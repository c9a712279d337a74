#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/rows.py PLAN -- the fio rows of a bench matrix (bench/plans/*.json,
in rpma-qualify's plan format: docs/qualify.md) as bench/in-vm/matrix.sh
runs them, one a line: KIND RW BS IODEPTH SYNC NUMJOBS BUSY. The plan is
read and expanded by rpma-qualify's own plan module (bench/run puts
qualify/ on PYTHONPATH), so bench and qualify read one matrix format.

bench's order: block size, then iodepth, then numjobs, the series in the
plan's order within; iodepth 1 runs synchronously (sync=1), as bench
compares the reference engines there."""
import sys

from rpma_qualify import plan as planmod


def rows(p):
    """the rows of the loaded (normalized) plan P, in bench's order"""
    series = {s["name"]: (i, s) for i, s in enumerate(p["series"])}
    out = []
    for pt in planmod.points(p):
        i, s = series[pt["series"]]
        engine, server, _ = planmod.MODES[pt["mode"]]
        key = (s["bs"].index(pt["bs"]), s["iodepth"].index(pt["iodepth"]),
               s["numjobs"].index(pt["numjobs"]), i)
        sync = 1 if pt["iodepth"] == 1 else 0
        out.append((key, "%s %s %s %d %d %d %d" % (
            engine, pt["rw"], pt["bs"], pt["iodepth"], sync, pt["numjobs"],
            server.get("busy_wait_polling", 0))))
    return [row for _, row in sorted(out)]


def main(argv):
    try:
        plan = planmod.load(argv[0])
    except (IndexError, planmod.PlanError) as e:
        print(f"rows.py: {e or __doc__}", file=sys.stderr)
        return 2
    print("\n".join(rows(plan)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
