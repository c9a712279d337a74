#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench's fio matrices are plans (bench/plans/quick.json, full.json) in
rpma-qualify's plan format, read by its plan module: bench/rows.py turns
one into the rows bench/in-vm/matrix.sh runs. The rows must be the ones
matrix.sh generated itself before (its rows() at 850c291, run by bash
from git history; the quick matrix is also written out here)."""
import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
OLD = "850c291"
QUICK = """apm write 4k 1 1 1 0
apm randwrite 4k 1 1 1 0
apm read 4k 1 1 1 0
gpspm write 4k 1 1 1 0
gpspm write 4k 1 1 1 1
apm write 4k 16 0 1 0
apm randwrite 4k 16 0 1 0
apm read 4k 16 0 1 0
gpspm write 4k 16 0 1 0
gpspm write 4k 16 0 1 1
"""


def plan_rows(mode):
    return subprocess.run(
        ["/usr/bin/python3", os.path.join(HERE, "rows.py"),
         os.path.join(HERE, "plans", mode + ".json")],
        check=True, capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.path.join(TOP, "qualify"))).stdout


def old_rows(mode):
    """matrix.sh's own rows() at OLD, None without that history"""
    try:
        src = subprocess.run(["git", "-C", TOP, "show", f"{OLD}:bench/in-vm/matrix.sh"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return subprocess.run(["bash", "-c", src + "\nrows\n"], check=True, capture_output=True,
                          text=True, env=dict(os.environ, BENCH_MODE=mode)).stdout


class Plans(unittest.TestCase):
    def test_quick(self):
        self.assertEqual(plan_rows("quick"), QUICK)

    def test_as_before(self):
        for mode, n in (("quick", 10), ("full", 90)):
            old = old_rows(mode)
            if old is None:
                self.skipTest(f"no git history with {OLD}")
            self.assertEqual(plan_rows(mode), old, mode)
            self.assertEqual(len(old.splitlines()), n)


if __name__ == "__main__":
    unittest.main()
