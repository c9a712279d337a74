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


class AofReplicasSummary(unittest.TestCase):
    """`aof-logcheck replicas` on made-up runs of aof-poweroff --replicas:
    three replicas (the server guest's log, the client2 guest's two),
    write_quorum=2, 4 KiB records."""
    CAPACITY = (64 << 20) - 4096

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def run_of(self, run, mode, acked, tails, claims=(), bad=None):
        """Run RUN: the client saw ACKED bytes complete; the replicas' logs
        end at TAILS (None: never read back), each record intact but BAD
        (replica, offset); CLAIMS: the client's lines on the replicas."""
        with open(os.path.join(self.dir, "replicas"), "a") as f:
            for (guest, job), tail in zip(logcheck.REPLICAS, tails):
                if tail is None:
                    continue
                below = tail // 4096
                first, intact = "-", below
                if bad and bad[0] == (guest, job):
                    first, intact = str(bad[1]), below - 1
                f.write(f"{run}\t{mode}\t{guest}\t{job}\t{tail}\t{below}\t{intact}\t0"
                        f"\t{first}\t{'00' * 16 if bad else '-'}\t1500 6.1\n")
        with open(os.path.join(self.dir, f"{run}.client.json"), "w") as f:
            f.write("fio: some job failed\n{\n" + f'"jobs": [{{"write": {{"io_bytes": {acked}}}}}]' + "\n}\n")
        with open(os.path.join(self.dir, f"{run}.client.log"), "w") as f:
            f.write("librpma_aof_client[1]: records and tail pointer persisted by the server\n")
            f.writelines(line + "\n" for line in claims)
        with open(os.path.join(self.dir, f"{run}.poweroffs"), "w") as f:
            f.write("server 3.1\nclient2 9.4\n")

    def summary(self, runs=1, modes="apm", broken=False):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = logcheck.replicas_summary(self.dir, runs, modes.split(","), broken, "BED", 2,
                                           self.CAPACITY, 4096)
        return rc, out.getvalue().splitlines(), read(os.path.join(self.dir, "summary.md"))

    def test_acked_on_two_of_three_passes(self):
        self.run_of("1", "apm", 8192, [4096, 8192, 12288], [
            "librpma_aof_client[1]: replica 1 of 3 (192.0.2.1:7204) dropped at log offset 4096: "
            "no completion for 30 s with operations outstanding; 2 replicas left, write_quorum=2: "
            "the job goes on",
            "librpma_aof_client[1]: replica 2 of 3 (192.0.2.3:7204): lost at 8192 bytes"])
        rc, out, table = self.summary()
        self.assertEqual(rc, 0, table)
        self.assertEqual(out, ["1 passed, 0 failed, of 1 runs (1 checked; BED)"])
        self.assertIn("| 1 | apm | pass | 8192 | 4096, 8192, 12288 | 2 of 3 |", table)
        self.assertIn("- apm: 1 runs, 1 passed, 0 failed; 1 with appends acknowledged, "
                      "held by replicas: on 3 in 0, on 2 in 1, on 1 in 0", table)

    def test_acked_on_one_replica_fails(self):
        # what a client acknowledging at the first replica leaves
        self.run_of("1", "gpspm", 16384, [16384, 8192, 12288])
        rc, out, table = self.summary(modes="gpspm")
        self.assertEqual(rc, 1)
        self.assertIn("16384 acknowledged bytes held by 1 replica, write_quorum=2", table)

    def test_a_replica_short_of_what_it_acknowledged_fails(self):
        self.run_of("1", "apm", 8192, [8192, 8192, 4096],
                    ["librpma_aof_client[1]: replica 3 of 3 (192.0.2.3:7205): tail at 8192 bytes"])
        rc, _, table = self.summary()
        self.assertEqual(rc, 1)
        self.assertIn("replica 3 acknowledged 8192 bytes, its tail is 4096", table)

    def test_a_bad_record_below_a_tail_fails_and_does_not_hold(self):
        self.run_of("1", "apm", 8192, [8192, 8192, 8192], bad=(("client2", 2), 4096))
        rc, _, table = self.summary()
        self.assertEqual(rc, 1)
        self.assertIn("replica 3: 1 of 2 records below the tail not as written", table)
        self.assertIn("| 2 of 3 |", table)  # replica 3 does not count

    def test_a_torn_tail_or_a_log_never_read_fails(self):
        self.run_of("1", "apm", 0, [100, 0, None])
        rc, _, table = self.summary()
        self.assertEqual(rc, 1)
        self.assertIn("replica 1: tail pointer 100 not at a record boundary", table)
        self.assertIn("replica 3's log never read", table)

    def test_no_client_report_or_a_run_never_checked_fails(self):
        self.run_of("1", "apm", 0, [0, 0, 0])
        os.remove(os.path.join(self.dir, "1.client.json"))
        rc, out, table = self.summary(runs=2, modes="apm")
        self.assertEqual(rc, 1)
        self.assertIn("no account of what the client saw complete", table)
        self.assertEqual(out[0], "0 passed, 1 failed, of 2 runs (1 checked; BED)")

    def test_broken_client_must_be_caught(self):
        self.run_of("1", "apm", 8192, [8192, 8192, 8192])
        rc, out, _ = self.summary(broken=True)
        self.assertEqual((rc, out[-1]), (1, "aof-poweroff: the acknowledgement at the first "
                                            "replica went unnoticed"))
        self.run_of("2", "apm", 8192, [8192, 4096, 4096])
        rc, out, _ = self.summary(runs=2, broken=True)
        self.assertEqual((rc, out[-1]), (0, "aof-poweroff: the acknowledgement at the first "
                                            "replica was caught in 1 of 2 runs"))

    def test_the_recorded_quick_run_fails_on_replica_1(self):
        # runs/aof-replicas-quick: the lagging replica's records below its
        # pointer overwritten by later ones (fio reused their buffers)
        run = os.path.join(HERE, "runs", "aof-replicas-quick")
        for name in os.listdir(run):
            if name not in ("README.md", "summary.md"):
                shutil.copy(os.path.join(run, name), self.dir)
        rc, out, table = self.summary(modes="apm,gpspm")
        self.assertEqual(rc, 1)
        self.assertEqual(out[0], "0 passed, 2 failed, of 2 runs (2 checked; BED)")
        self.assertIn("replica 1: 2 of 496 records below the tail not as written "
                      "(first: offset 1826816, begins 49603eae00e01b000000000049603eae)", table)
        self.assertIn("replica 1: 6 of 848 records below the tail not as written "
                      "(first: offset 1101824, begins 0de8053300d01100000000000de80533)", table)
        recorded = read(os.path.join(run, "summary.md"))
        self.assertIn(table, recorded.replace("bed status 0, 540 s", "BED"))


if __name__ == "__main__":
    unittest.main()
