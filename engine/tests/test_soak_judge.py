# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of engine/tests/soak_judge.py on a run of make check-soak
recorded in the VM (engine/tests/runs/soak: SOAK_MINUTES=2), judged with
its own limit and with limits below what the processes grew; a few tests
change one file of a copy."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
import soak_judge

RUN = os.path.join(HERE, "runs", "soak")


def judged(results, *limit):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = soak_judge.main([results, *limit])
    return status, out.getvalue().splitlines()


class Soak(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.results = os.path.join(self.tmp, "soak")
        shutil.copytree(RUN, self.results)

    def test_recorded_run_passes(self):
        status, out = judged(RUN)
        self.assertEqual(status, 0, out)
        self.assertEqual(out[-1], "soak: 1 passed, 0 failed")
        self.assertEqual(len([line for line in out if "KiB after warm-up" in line]), 4)

    def test_growth_over_the_limit_fails(self):
        status, out = judged(RUN, "-1")
        self.assertEqual(status, 1)
        self.assertEqual(out[-1], "soak: 0 passed, 1 failed")

    def test_a_process_that_failed_fails(self):
        with open(os.path.join(self.results, "statuses")) as f:
            lines = f.read().replace("gpspm-client 0", "gpspm-client 1")
        with open(os.path.join(self.results, "statuses"), "w") as f:
            f.write(lines)
        status, out = judged(self.results)
        self.assertEqual(status, 1)
        self.assertIn("soak: gpspm-client exited with 1", out)

    def test_a_job_error_fails(self):
        path = os.path.join(self.results, "apm", "server.json")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace('"error" : 0', '"error" : 5', 1))
        status, out = judged(self.results)
        self.assertEqual(status, 1)
        self.assertIn("soak: apm server reported errors", out)

    def test_too_few_samples_fail(self):
        path = os.path.join(self.results, "soak.csv")
        with open(path) as f:
            rows = f.read().splitlines()
        with open(path, "w") as f:
            f.write("\n".join(rows[:2]) + "\n")
        status, out = judged(self.results)
        self.assertEqual(status, 1)
        self.assertIn("soak: apm-server: too few samples", out)


if __name__ == "__main__":
    unittest.main()
