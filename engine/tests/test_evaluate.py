# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of engine/tests/evaluate.py on cases of the engine suite
recorded in the VM (engine/tests/runs/NAME: RESULTS' cases file and the
cases' directories):

- quick: cases of make check's run: pairs in each report format (json,
  json+, normal,json), cases the guest passed or skipped;
- broken-server: `ENGINE_CASES="pair_case apm write 4k 1 1 1 1"` with the
  APM client's engine in the APM server's place: the pair fails.

A few tests change one file of a recorded case (a copy) to show the rule
that judges it."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
import evaluate

RUNS = os.path.join(HERE, "runs")
PAIR = "apm-write-bs4k-qd1-sync1-nj1-busy1"


def judged(results):
    """evaluate.py over RESULTS: (status, output)"""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = evaluate.main([results])
    return status, out.getvalue()


def verdicts(output):
    return [line for line in output.splitlines()
            if line.startswith(("PASS ", "FAIL ", "SKIP "))]


class Recorded(unittest.TestCase):
    def test_quick_passes(self):
        status, out = judged(os.path.join(RUNS, "quick"))
        self.assertEqual(status, 0, out)
        got = verdicts(out)
        # the pair's IOPS and latency; it verified by reading back
        self.assertRegex(got[0],
                         rf"^PASS {PAIR} \(read \d+ IOPS, \d+ us; write \d+ IOPS, \d+ us\)$")
        self.assertTrue(all(v.startswith(("PASS ", "SKIP ")) for v in got), got)
        self.assertTrue(any(v.startswith("SKIP ") for v in got), got)
        self.assertRegex(out.splitlines()[-1], r"^\d+ passed, 0 failed, \d+ skipped$")

    def test_broken_server_fails(self):
        status, out = judged(os.path.join(RUNS, "broken-server"))
        self.assertEqual(status, 1)
        [verdict] = verdicts(out)
        self.assertTrue(verdict.startswith("FAIL apm-write-bs4k-qd1-sync1-nj1-busy1: "
                                           "exit status: client "), verdict)
        self.assertEqual(out.splitlines()[-1], "0 passed, 1 failed")

    def test_nothing_ran_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            status, out = judged(tmp)
        self.assertEqual(status, 1)
        self.assertEqual(out.strip(), "0 passed, 0 failed")


class Altered(unittest.TestCase):
    """one recorded case, a file of it changed, alone in RESULTS"""

    def setUp(self):
        self.results = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.results)

    def only(self, name):
        """the recorded case NAME alone in a scratch RESULTS: its directory"""
        src = os.path.join(RUNS, "quick")
        line = next(line for line in open(os.path.join(src, "cases"))
                    if line.split("\t")[0] == name)
        with open(os.path.join(self.results, "cases"), "w") as f:
            f.write(line)
        case_dir = os.path.join(self.results, name)
        shutil.copytree(os.path.join(src, name), case_dir)
        return case_dir

    def rewrite(self, path, edit):
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(edit(text))

    def verdict(self):
        status, out = judged(self.results)
        [verdict] = verdicts(out)
        return status, verdict

    def failed(self, name, file, edit):
        """the verdict on case NAME with its FILE edited, which must fail"""
        self.rewrite(os.path.join(self.only(name), file), edit)
        status, verdict = self.verdict()
        self.assertEqual(status, 1)
        return verdict

    def test_unaltered_passes(self):
        self.only(PAIR)
        self.assertEqual(self.verdict()[0], 0)

    def test_an_error_exit_fails(self):
        self.only(PAIR)
        self.rewrite(os.path.join(self.results, "cases"),
                     lambda t: t.replace("\tpair\t0 0", "\tpair\t0 1"))
        status, verdict = self.verdict()
        self.assertEqual((status, verdict), (1, f"FAIL {PAIR}: exit status: client 0, server 1"))

    def test_a_file_named_malloc_fails(self):
        open(os.path.join(self.only(PAIR), "malloc"), "w").close()
        status, verdict = self.verdict()
        self.assertEqual((status, verdict),
                         (1, f"FAIL {PAIR}: the server laid out a file named malloc"))

    def test_a_job_error_fails(self):
        verdict = self.failed(PAIR, "server.json",
                              lambda t: t.replace('"error" : 0', '"error" : 5', 1))
        self.assertEqual(verdict, f"FAIL {PAIR}: server#0: error 5")

    def test_no_io_fails(self):
        verdict = self.failed(PAIR, "client.json",
                              lambda t: t.replace('"io_bytes" : ', '"io_bytes" : 0, "was" : '))
        self.assertEqual(verdict, f"FAIL {PAIR}: the client did no I/O")

    def test_a_stray_line_before_a_json_report_fails(self):
        verdict = self.failed(PAIR, "client.json",
                              lambda t: "librpma_apm_client[1]: a note\n" + t)
        self.assertEqual(verdict, f"FAIL {PAIR}: client.json: not json: "
                                  "'librpma_apm_client[1]: a note' precedes the report")

    def test_fios_own_lines_before_a_json_report_pass(self):
        case_dir = self.only(PAIR)
        self.rewrite(os.path.join(case_dir, "client.json"),
                     lambda t: "fio: pid=42, err=5/file:io_u.c:1\n"
                     "companion : Saving output of prerun in companion.prerun.txt\n" + t)
        self.assertEqual(self.verdict()[0], 0)

    def test_an_unlisted_report_fails(self):
        case_dir = self.only(PAIR)
        shutil.copy(os.path.join(case_dir, "client.json"), os.path.join(case_dir, "other.json"))
        status, verdict = self.verdict()
        self.assertEqual(verdict, f"FAIL {PAIR}: other.json: written in an unknown format")

    @staticmethod
    def leak(frame):
        """a leak report of ASan whose caller of malloc is FRAME"""
        return lambda t: t + (
            "Direct leak of 64 byte(s) in 1 object(s) allocated from:\n"
            "    #0 0x7f00 in malloc (/usr/lib/x86_64-linux-gnu/libasan.so.8+0xd9)\n"
            f"    #1 0x7f01 in {frame}\n\n")

    def test_a_leak_in_an_engine_fails(self):
        engine = "/build/engine/.libs/librpma_apm_server.so"
        verdict = self.failed(PAIR, "server.log", self.leak(f"conn_new ({engine}+0x1b)"))
        self.assertEqual(verdict, f"FAIL {PAIR}: server.log: Direct leak of 64 byte(s) "
                                  "in 1 object(s) allocated from:")

    def test_a_leak_of_fios_own_passes(self):
        self.rewrite(os.path.join(self.only(PAIR), "server.log"),
                     self.leak("parse_options (/usr/bin/fio+0x1b)"))
        self.assertEqual(self.verdict()[0], 0)

    def test_json_plus_without_bins_fails(self):
        verdict = self.failed("examples-apm", "client.json",
                              lambda t: t.replace('"bins"', '"no_bins"'))
        self.assertEqual(verdict, "FAIL examples-apm: client.json: json+ without latency bins")

if __name__ == "__main__":
    unittest.main()
