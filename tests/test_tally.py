# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of tests/tally.py on a recorded integration run
(tests/tally-runs/README.md); run by tests/judges.py."""
import contextlib
import glob
import importlib.util
import io
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "tally-runs", "integration")
_spec = importlib.util.spec_from_file_location("tally", os.path.join(HERE, "tally.py"))
tally = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tally)


def run_sum(args):
    """(exit status, printed lines) of tally.py sum ARGS"""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = tally.main(["sum"] + args)
    return rc, out.getvalue().splitlines()


class Tally(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.parts = sorted(glob.glob(os.path.join(RUN, "*.log")))

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_recorded_run_adds_up_as_before(self):
        with open(os.path.join(RUN, "total")) as f:
            total = f.read().strip()
        self.assertEqual(len(self.parts), 4)
        rc, out = run_sum([p + "=0" for p in self.parts])
        self.assertEqual((rc, out), (0, [total]))

    def test_last_count_line_is_the_programs(self):
        # the link-down part prints a sub-run's count, then its own
        with open(self.parts[0]) as f:
            text = f.read()
        self.assertEqual(tally.counts(text + "1 passed, 0 failed, 0 skipped\n"
                                      "7 passed, 1 failed\n"), (7, 1, 0))
        self.assertEqual(tally.counts(text), (32, 0, 10))
        self.assertIsNone(tally.counts("=== 13-srq: passed\n"))

    def test_program_dead_before_its_count_fails(self):
        with open(self.parts[0]) as f:
            head = "".join(f.readlines()[:40])
        died = self.write("0-test_program.log", head)
        rc, out = run_sum([died + "=134"] + [p + "=0" for p in self.parts[1:]])
        self.assertEqual(rc, 1)
        self.assertEqual(out[0], "tally: 0-test_program.log: exit status 134 "
                         "and no failure counted: one failure")
        self.assertEqual(out[-1], "25 passed, 1 failed")

    def test_status_overrides_a_clean_count(self):
        lied = self.write("x.log", "3 passed, 0 failed\n")
        self.assertEqual(run_sum([lied + "=1"])[1][-1], "3 passed, 1 failed")
        # a counted failure is not counted twice
        failing = self.write("y.log", "3 passed, 2 failed\n")
        self.assertEqual(run_sum([failing + "=1"]), (1, ["3 passed, 2 failed"]))

    def test_skips(self):
        skipped = self.write("s.log", "##### SKIP link down: no RPMA_TEST_NETDEV\n")
        self.assertEqual(run_sum([skipped + "=77"]), (0, ["0 passed, 0 failed, 1 skipped"]))
        # a program that counted its skips is taken at its word
        counted = self.write("c.log", "2 passed, 0 failed, 3 skipped\n")
        self.assertEqual(run_sum([counted + "=77"])[1], ["2 passed, 0 failed, 3 skipped"])
        # a missing log of a failed part is still a failure
        self.assertEqual(run_sum([os.path.join(self.tmp.name, "none.log=2")])[0], 1)

    def test_trs_verdict(self):
        log = self.write("p.log", "Segmentation fault\n")
        self.write("p.trs", ":test-result: FAIL\n:global-test-result: FAIL\n")
        self.assertEqual(run_sum(["--trs", log])[1][-1], "0 passed, 1 failed")
        self.assertEqual(run_sum([log])[1][-1], "0 passed, 0 failed")

    def test_counts_command(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(tally.main(["counts", self.parts[0]]), 0)
            self.assertEqual(tally.main(["counts", self.write("n.log", "none\n")]), 1)
        self.assertEqual(out.getvalue(), "32 0 10\n")


if __name__ == "__main__":
    unittest.main()
