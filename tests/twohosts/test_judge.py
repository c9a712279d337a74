# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of tests/twohosts/judge.py on runs of tests/twohosts/check
recorded in the guests (tests/twohosts/runs/NAME: the files judge.py reads
of a shared directory):

- quick: check-two-hosts-quick, every case completes;
- three-quick: check-three-hosts-quick, both cases complete;
- broken-server: `check readme:apm:dram fault:apm:write:clean` with the
  APM client's engine in the APM server's place: no server listens;
- three-broken-server: `check --three clients:apm:clean`, the same;
- deadlink: `check readme:apm:dram deadlink readme:gpspm:dram`: the bed's
  test of itself, the link dead after deadlink, the last case rerun in a
  new boot (where, at load 40, it verified nothing).

A few tests change one file of a recorded case (a copy) to show the rule
that judges it."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
import judge

RUNS = os.path.join(HERE, "runs")


def run(name, *options):
    """judge.py over the recorded run NAME: (status, output, table)"""
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "results" ".md")
        with contextlib.redirect_stdout(out):
            status = judge.main([*options, "--seconds", "100", "--host", "bed",
                                 "--table", table, os.path.join(RUNS, name)])
        with open(table) as f:
            return status, out.getvalue(), f.read()


def verdicts(output):
    return [line for line in output.splitlines() if line.startswith(("PASS ", "FAIL "))]


class Altered(unittest.TestCase):
    """a copy of a recorded run, one of its files changed"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def case(self, run_name, case_name):
        root = os.path.join(self.tmp, run_name)
        if not os.path.isdir(root):
            shutil.copytree(os.path.join(RUNS, run_name), root)
        for line in judge.lines_of(os.path.join(root, "cases")):
            if line.split("\t")[0] == case_name:
                return judge.Case(line, root)
        raise KeyError(case_name)

    def write(self, case, name, text, mode="w"):
        """CASE with its file NAME rewritten (or appended to)"""
        with open(case.path(name), mode) as f:
            f.write(text)
        return judge.Case("\t".join([case.name, case.method, case.kind, case.fault]),
                          os.path.dirname(case.dir))

    def set_fact(self, case, key, value):
        facts = [line for line in judge.lines_of(case.path("facts"))
                 if not line.startswith(key + "=")]
        return self.write(case, "facts", "\n".join(facts + [f"{key}={value}"]) + "\n")


class TwoHosts(unittest.TestCase):
    def test_quick_passes(self):
        status, out, table = run("quick")
        self.assertEqual(status, 0)
        self.assertEqual(verdicts(out), [
            "PASS readme-apm-dram: completes", "PASS readme-gpspm-dram: completes",
            "PASS apm-fill-clean: completes", "PASS apm-write-clean: completes",
            "PASS apm-write-loss1: completes"])
        self.assertIn("5 passed, 0 failed (bed status 0, 100 s)", out)

    def test_quick_table(self):
        table = run("quick")[2].splitlines()
        self.assertTrue(table[0].startswith("# Two-host results, "))
        self.assertIn("| case | outcome | time to notice | IOPS | vs clean | server, check |",
                      table)
        self.assertIn("| readme-apm-dram | completes | - | 25 | - |  |", table)
        # IOPS against the clean case of the same method and kind
        self.assertIn("| apm-write-loss1 | completes | - | 13 | 0.30 | server 0, check ok, "
                      "5.78 packets/IO, MTU 1500 |", table)

    def test_bed_status_fails_the_run(self):
        status, out, _ = run("quick", "--bed-status", "1")
        self.assertEqual(status, 1)
        self.assertIn("5 passed, 0 failed (bed status 1, 100 s)", out)

    def test_readme_step_that_failed_fails(self):
        # the server fio could not load its engine: the README step fails;
        # the fault case, which a fault may end with a message, passes
        status, out, _ = run("broken-server")
        self.assertEqual(status, 1)
        self.assertEqual(verdicts(out), [
            "FAIL readme-apm-dram: fails: client 1, server 1, verified 0 bytes",
            "PASS apm-write-clean: fails: librpma_apm_client[1]: waiting for the server at "
            "192.0.2.1:7301 (up to 60 s)"])
        self.assertIn("1 passed, 1 failed", out)

    def test_dead_link_is_the_beds(self):
        status, out, table = run("deadlink")
        # the case the link died under is listed apart, and ran again in
        # a new boot
        self.assertIn("Rerun in a new boot, the virtual link dead under them", table)
        self.assertIn("- readme-gpspm-dram: fails: client 1, server 1, verified 0 bytes (the "
                      "guests no longer reach each other (ARP unanswered): the virtual link is "
                      "dead (diag.*.4); rerun in a new boot)", table)
        self.assertIn("| diag-4 | see diag.*.4 | - | - | - |  |", table)
        # there, on a host at load 40, the job wrote 50 blocks in its 10 s,
        # fewer than its verify_backlog=64: it verified nothing
        self.assertEqual(verdicts(out), [
            "PASS readme-apm-dram: completes", "PASS deadlink: completes",
            "PASS diag-4: see diag.*.4",
            "FAIL readme-gpspm-dram: fails: client 0, server 0, verified 0 bytes"])
        self.assertEqual(status, 1)

class TwoHostsRules(Altered):
    def test_server_that_never_listened_fails(self):
        case = self.write(self.case("quick", "apm-write-clean"), "facts", "listened=no\n")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertEqual(verdict.outcome, "fails: the server never listened")

    def test_fault_client_hang(self):
        case = self.set_fact(self.case("quick", "apm-write-loss1"), "client", "124")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertEqual(verdict.outcome, "HANG (killed after 120 s)")

    def test_fault_verify_error_is_corrupt(self):
        case = self.write(self.case("quick", "apm-write-loss1"), "client.log",
                          "verify: bad pattern block offset: 1048576\n", "a")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertTrue(verdict.outcome.startswith("CORRUPT: verify: bad pattern"))

    def test_fault_server_check_bad(self):
        case = self.write(self.case("quick", "apm-write-clean"), "check.out",
                          "pattern_check: 4096 bytes differ at 1052672\n")
        case = self.set_fact(case, "check", "1")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertEqual(verdict.outcome, "CORRUPT (server check): BAD: pattern_check: 4096 "
                                          "bytes differ at 1052672; completes")

    def test_fault_server_hang(self):
        case = self.set_fact(self.case("quick", "apm-write-clean"), "server", "124")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertIn("; SERVER HANG: still waiting for its client", verdict.outcome)

    def test_fault_ending_a_job_with_a_message_passes(self):
        case = self.write(self.case("quick", "apm-write-loss1"), "client.log",
                          "librpma_apm_client: no completion for 30 s\n")
        case = self.set_fact(case, "client", "1")
        verdict = judge.judge(case)
        self.assertFalse(verdict.failed)
        self.assertEqual(verdict.outcome, "fails: librpma_apm_client: no completion for 30 s")
        self.assertRegex(verdict.notice, r"^\d+\.\d s$")

    def test_unknown_fault_fails(self):
        case = self.write(self.case("quick", "apm-write-clean"), "facts",
                          "refused=unknown fault\n")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)

    def test_no_facts_fails(self):
        case = self.case("quick", "apm-write-clean")
        os.remove(case.path("facts"))
        verdict = judge.judge(judge.Case("apm-write-clean\tapm\twrite\tclean",
                                         os.path.dirname(case.dir)))
        self.assertTrue(verdict.failed)
        self.assertEqual(verdict.outcome, "FAILS: the guest left no facts")


class ThreeHosts(unittest.TestCase):
    def test_quick_passes(self):
        status, out, table = run("three-quick", "--guests", "3")
        self.assertEqual(status, 0, out)
        self.assertEqual(verdicts(out), ["PASS clients-apm-clean: completes",
                                         "PASS clients-gpspm-clean: completes"])
        self.assertTrue(table.startswith("# Three-host results, "))

    def test_server_engine_missing_fails(self):
        status, out, _ = run("three-broken-server", "--guests", "3")
        self.assertEqual(status, 1)
        # (the old guest's jq and bash said the same of these files)
        self.assertEqual(verdicts(out), [
            "FAIL clients-apm-clean: FAILS: 4 of the remaining client jobs with an error;"
            "4 client jobs verified nothing;\"All clients\" is not the sum of the jobs;"
            "server job error 111;fio --client status 1"])


class ThreeHostsRules(Altered):
    def relayed(self, case, edit):
        lines = judge.lines_of(case.path("fio.log"))
        return judge.judge(self.write(case, "fio.log", "\n".join(edit(lines)) + "\n"))

    def test_clean_with_a_server_error_fails(self):
        def server_error(lines):
            at = next(i for i, line in enumerate(lines) if '"jobname" : "server"' in line)
            at = next(i for i in range(at, len(lines)) if '"error" : 0' in lines[i])
            lines[at] = lines[at].replace('"error" : 0', '"error" : 5')
            return lines
        verdict = self.relayed(self.case("three-quick", "clients-apm-clean"), server_error)
        self.assertTrue(verdict.failed)
        self.assertIn("server job error 5", verdict.outcome)

    def test_clean_with_a_verify_message_is_corrupt(self):
        case = self.case("three-quick", "clients-gpspm-clean")
        verdict = self.relayed(case, lambda lines: [
            "1796282900.0 <client2> verify: bad magic header 0, wanted acca"] + lines)
        self.assertTrue(verdict.failed)
        self.assertIn("CORRUPT: <client2> verify: bad magic header", verdict.outcome)

    def test_clients_fact_sets_the_jobs_wanted(self):
        case = self.set_fact(self.case("three-quick", "clients-apm-clean"), "clients", "256")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertIn("4 client jobs reported, not 256", verdict.outcome)

    def test_clean_says_the_connecting_time(self):
        case = self.case("three-quick", "clients-gpspm-clean")
        verdict = self.relayed(case, lambda lines: [
            "1796282918.0 <server> librpma_gpspm_server[1]: all 4 clients connected, "
            "0.812 s after the first one came"] + lines)
        self.assertFalse(verdict.failed)
        self.assertEqual(verdict.outcome, "completes; all 4 connected in 0.812 s")

    def test_hang(self):
        case = self.set_fact(self.case("three-quick", "clients-apm-clean"), "client", "124")
        verdict = judge.judge(case)
        self.assertEqual(verdict.outcome, "FAILS: HANG (fio --client killed after 240 s)")

    def test_kill_the_server_must_name_the_lost_client(self):
        case = self.case("three-quick", "clients-apm-clean")
        case.fault = "kill"
        case = self.set_fact(case, "lost", "192.0.2.3")
        verdict = judge.judge(case)
        self.assertTrue(verdict.failed)
        self.assertIn("the server did not name the lost client 192.0.2.3", verdict.outcome)


if __name__ == "__main__":
    unittest.main()
