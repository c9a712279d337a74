# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of `aof-logcheck summary` (the verdict of an aof-poweroff
run) on a recorded run: tests/twohosts/runs/aof-quick holds what
`make check-aof-poweroff-quick` left in its shared directory that the
summary reads (results, K.delay) and what the bash summary before it
printed on those files (bash-summary.md, bash-verdict). Tests that need a
failed power-off change a copy of results."""
import contextlib
import importlib.machinery
import importlib.util
import io
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "runs", "aof-quick")
_loader = importlib.machinery.SourceFileLoader("aof_logcheck", os.path.join(HERE, "aof-logcheck"))
_spec = importlib.util.spec_from_loader("aof_logcheck", _loader)
logcheck = importlib.util.module_from_spec(_spec)
_loader.exec_module(logcheck)


def read(path):
    with open(path) as f:
        return f.read()


class AofSummary(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "run")
        shutil.copytree(RUN, self.dir)
        os.remove(os.path.join(self.dir, "bash-summary.md"))
        os.remove(os.path.join(self.dir, "bash-verdict"))

    def tearDown(self):
        self.tmp.cleanup()

    def summary(self, runs=1, modes="apm,gpspm", broken=False):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = logcheck.summary(self.dir, runs, modes.split(","), broken, "BED")
        return rc, out.getvalue().splitlines(), read(os.path.join(self.dir, "summary.md"))

    def set_verdict(self, run, verdict):
        path = os.path.join(self.dir, "results")
        lines = read(path).splitlines()
        for i, line in enumerate(lines):
            fields = line.split("\t")
            if fields[0] == run:
                fields[2] = verdict
                lines[i] = "\t".join(fields)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")

    def test_as_the_bash_summary_said(self):
        rc, out, table = self.summary()
        self.assertEqual(rc, 0)
        self.assertEqual(table, read(os.path.join(RUN, "bash-summary.md")))
        bed = read(os.path.join(RUN, "bash-verdict")).strip()
        self.assertEqual(out, [bed[:bed.index("(")] + "(2 checked; BED)"])

    def test_a_failed_power_off_fails(self):
        self.set_verdict("2", "FAIL")
        rc, out, table = self.summary()
        self.assertEqual(rc, 1)
        self.assertTrue(out[0].startswith("1 passed, 1 failed, of 2 power-offs"))
        self.assertIn("- gpspm: 1 power-offs, 0 passed, 1 failed", table)

    def test_a_power_off_never_checked_fails(self):
        rc, out, _ = self.summary(runs=2)
        self.assertEqual(rc, 1)
        self.assertTrue(out[0].startswith("2 passed, 0 failed, of 4 power-offs"))

    def test_broken_client_must_be_caught(self):
        rc, out, _ = self.summary(broken=True)
        self.assertEqual((rc, out[-1]), (1, "aof-poweroff: the broken pointer order went unnoticed"))
        self.set_verdict("1", "FAIL")
        rc, out, _ = self.summary(broken=True)
        self.assertEqual(rc, 0)
        self.assertEqual(out[-1], "aof-poweroff: the broken pointer order was caught in 1 of 2 power-offs")


if __name__ == "__main__":
    unittest.main()
