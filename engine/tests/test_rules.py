# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of engine/tests/rules.py, through evaluate.py, on the judged
cases of engine suite runs recorded in the VM (engine/tests/runs/NAME,
kept by record_judged.py: each case's facts, its rules and the files they
read):

- judged: make check's run (`make -C build/engine check
  TESTS=tests/engines`), every judged case but two that failed there at
  load 12 (a late client that connected only once the first had ended, a
  report that fio's note of a SIGTERM cut); guest-verdicts: the lines
  these cases had in main's make check run, judged in the guest;
- judged-broken: the cases that failed in a run of twelve cases with each
  server engine swapped for another's (the APM and GPSPM servers for each
  other, which serve both methods, the append-only log's for GPSPM's).

Each rule is shown failing: on the broken run where it failed there, else
on a copy of a passing case with one file changed (the test says what).
The kernel's witness (count ... ends, tails: kprobe traces) and the race
detectors' logs (valgrind-clean) are not recorded here: rxe of this
kernel has no native flush, and the race case does not run; their files
are written in the format the rules read."""
import json
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
from test_evaluate import judged, verdicts

RUNS = os.path.join(HERE, "runs")
PASSING = os.path.join(RUNS, "judged")
BROKEN = os.path.join(RUNS, "judged-broken")


def reasons(results, name):
    """evaluate.py over RESULTS: the reasons verdict NAME failed for"""
    status, out = judged(results)
    [line] = [v for v in verdicts(out) if v.startswith(f"FAIL {name}: ")]
    return line.removeprefix(f"FAIL {name}: ").split("; ")


class Recorded(unittest.TestCase):
    def test_make_checks_cases_pass_as_the_guest_passed_them(self):
        status, out = judged(PASSING)
        self.assertEqual(status, 0, out)
        with open(os.path.join(PASSING, "guest-verdicts")) as f:
            self.assertEqual(verdicts(out), f.read().splitlines())

    def test_the_broken_run_fails(self):
        status, out = judged(BROKEN)
        self.assertEqual(status, 1)
        got = verdicts(out)
        self.assertTrue(got and all(v.startswith("FAIL ") for v in got), got)

    def test_status(self):
        self.assertIn("server status 0 (wanted not 0, not 124: ended with an error within "
                      "the wait)", reasons(BROKEN, "gpspm-clients3-one-killed-then-signal"))

    def test_says(self):
        self.assertEqual(reasons(BROKEN, "gpspm-size-too-big"),
                         ["client did not say \"reaches past the end of the server's memory\""])

    def test_between_without_the_fact(self):
        self.assertIn("no late-client-connected-after recorded",
                      reasons(BROKEN, "gpspm-clients2-late-client-busy1"))

    def test_engine_check(self):
        self.assertIn("client.log: 0 registered regions freed after deregistration "
                      "(wanted at least 1)", reasons(BROKEN, "gpspm-sleeping-server-end-hold"))

    def test_job_failed(self):
        self.assertIn("no job of server.json has an error",
                      reasons(BROKEN, "gpspm-clients3-one-killed-then-signal"))


class Altered(unittest.TestCase):
    """a passing recorded case, one file of it changed, alone in RESULTS"""

    def setUp(self):
        self.results = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.results)

    def only(self, name):
        """verdict NAME of the passing run alone in a scratch RESULTS: its
        directory"""
        line = next(line for line in open(os.path.join(PASSING, "cases"))
                    if line.split("\t")[0] == name)
        with open(os.path.join(self.results, "cases"), "w") as f:
            f.write(line)
        case = line.rstrip("\n").split("\t")[2]
        case_dir = os.path.join(self.results, case)
        shutil.rmtree(case_dir, ignore_errors=True)
        shutil.copytree(os.path.join(PASSING, case), case_dir)
        return case_dir

    def failed(self, name, file, edit):
        """the reasons verdict NAME fails for with FILE of its case edited"""
        path = os.path.join(self.only(name), file)
        text = open(path).read() if os.path.exists(path) else ""
        with open(path, "w") as f:
            f.write(edit(text))
        return reasons(self.results, name)

    def test_unaltered_passes(self):
        self.only("no-server")
        status, out = judged(self.results)
        self.assertEqual((status, verdicts(out)), (0, ["PASS no-server"]))

    def test_between_out_of_bounds(self):
        # the client gave up after 50 s, not 3
        got = self.failed("no-server", "facts",
                          lambda t: t.replace("client.seconds\t", "client.seconds\t5"))
        self.assertRegex(got[0], r"^client.seconds 5\d+ \(wanted 3\.\.44\)$")

    def test_says_one_of(self):
        # the client's log without the reason it failed for
        got = self.failed("apm-dead-server", "client.log",
                          lambda t: t.replace("an RDMA operation failed", "")
                          .replace("the server ended the connection", ""))
        self.assertEqual(got, ["client said none of 'an RDMA operation failed', "
                               "'the server ended the connection'"])

    def test_says_in_order(self):
        # the client named, but not "the others go on" after it
        got = self.failed("gpspm-clients4-write-with-imm", "server.log",
                          lambda t: t.replace("; the others go on", ""))
        self.assertEqual("; ".join(got), "server did not say 'client 4 of 4 at 192.0.2.1:7772'"
                         " ... 'immediate data' ... '; the others go on'")

    def test_never_says(self):
        # the server reports its client killed
        got = self.failed("gpspm-sleeping-server-end-hold", "server.log",
                          lambda t: t + "librpma_gpspm_server[1]: client 1 of 1 at 192.0.2.1:7"
                          " (from 192.0.2.1:5): disconnected before ending the run (was it "
                          "killed?)\n")
        self.assertEqual(got, ["server said 'was it killed'"])

    def test_count_is(self):
        # job 1's line twice
        line = ("librpma_apm_client[1]: flush emulated (not supported by the device), "
                "atomic write emulated (not supported by the device)")
        got = self.failed("apm-native-ops-per-job-job1-all-says", "client.log",
                          lambda t: t + line + "\n")
        self.assertEqual(got, [f"2 lines of client.log is {line!r} (wanted 1..1)"])

    def test_count_contains(self):
        # an engine's line inside the JSON report
        got = self.failed("apm-native-ops-per-job-not-in-json", "client.json",
                          lambda t: t.replace("{\n", "{\nlibrpma_apm_client[1]: a note\n", 1))
        self.assertEqual(got, ["1 lines of client.json contains 'librpma_apm_client[' "
                               "(wanted 0..0)"])

    @staticmethod
    def job(change):
        """an edit of a fio report: CHANGE(its first job), fio's own lines
        ahead of the document kept"""
        def edit(text):
            head, _, doc = text.partition("\n{\n") if not text.startswith("{\n") \
                else ("", "", text[2:])
            report = json.loads("{\n" + doc)
            change(report["jobs"][0])
            return (head + "\n" if head else "") + json.dumps(report, indent=2) + "\n"
        return edit

    def test_written(self):
        # the client counted a write complete
        got = self.failed("gpspm-wrong-context-response", "client.json",
                          self.job(lambda j: j["write"].update(io_bytes=4096)))
        self.assertEqual(got, ["client wrote 4096 bytes (wanted 0)"])

    def test_same_figures(self):
        # psync's job with submission latencies, where ours has none
        got = self.failed("apm-sync-accounting", "psync.json",
                          self.job(lambda j: j["write"]["slat_ns"].update(N=256)))
        self.assertRegex(got[0], r"^client \{.*'submission latencies': False\}, "
                                 r"psync \{.*'submission latencies': True\}$")

    def kernel_witness(self, trace, expect):
        """the recorded passing native_ops= case with a kprobe trace TRACE
        (lines of rpma/flush or rpma/atomic events) and the kernel
        witness's rules EXPECT: the reasons it fails for"""
        case_dir = self.only("apm-native-ops-per-job-job1-all-says")
        name = "apm-native-ops-per-job-kernel-witness"
        with open(os.path.join(self.results, "cases"), "w") as f:
            f.write(f"{name}\tjudge\tapm-native-ops-per-job\n")
        with open(os.path.join(case_dir, "witness.trace"), "w") as f:
            f.write("".join(f"fio-812 [001] ..... 91.2: {e}\n" for e in trace))
        with open(os.path.join(case_dir, "expect"), "a") as f:
            f.write("".join(f"{name}\t{rule}\n" for rule in expect))
        status, out = judged(self.results)
        if status == 0:
            return []
        return reasons(self.results, name)

    def test_count_ends(self):
        flushes = ["flush: (rxe_flush_pmem_iova+0x0/0x1a0) len=4096"] * 2
        expect = ["count\twitness.trace\t2\t-\tends\tlen=4096",
                  "count\twitness.trace\t0\t0\tends\tlen=8"]
        self.assertEqual(self.kernel_witness(flushes, expect), [])
        self.assertEqual(self.kernel_witness(flushes + ["flush: (x) len=8"], expect),
                         ["1 lines of witness.trace ends 'len=8' (wanted 0..0)"])

    def test_tails(self):
        atomics = [f"atomic: (rxe_mr_do_atomic_write+0x0/0x130) value={v}"
                   for v in (0, 4096, 1048576)]
        expect = ["tails\twitness.trace\t4096\t1048576"]
        self.assertEqual(self.kernel_witness(atomics, expect), [])
        self.assertEqual(self.kernel_witness(atomics + ["atomic: (x) value=8192000"], expect),
                         ["1 of 4 values in witness.trace are no multiple of 4096 up to "
                          "1048576: 8192000, ..."])

    def test_valgrind_clean(self):
        case_dir = self.only("no-server")
        with open(os.path.join(case_dir, "expect"), "a") as f:
            f.write("no-server\tvalgrind-clean\thelgrind\tclient\tserver\n")
        summary = "==1207== ERROR SUMMARY: {} errors from {} contexts (suppressed: 9 from 9)\n"
        for role, errors in ("client", 0), ("server", 0):
            with open(os.path.join(case_dir, f"{role}.valgrind"), "w") as f:
                f.write(summary.format(errors, errors))
        status, out = judged(self.results)
        self.assertEqual(verdicts(out),
                         ["PASS no-server (helgrind: no errors in the client or the server)"])
        with open(os.path.join(case_dir, "server.valgrind"), "w") as f:
            f.write(summary.format(2, 1))
        self.assertEqual(reasons(self.results, "no-server"),
                         ["helgrind errors: server 2 (client.valgrind, server.valgrind)"])


if __name__ == "__main__":
    unittest.main()
