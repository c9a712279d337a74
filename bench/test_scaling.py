#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/test_scaling.py -- scaling.py's steady window on made-up runs (no
VM): the window common to all jobs, the sum of the jobs' IOPS logs in it
and the CPU over it. make check runs it (bench/Makefile.am), as does
bench/run --self-test."""
import os
import tempfile
import unittest

import scaling

# Three client jobs sharing 3000 IOPS: job k connects at CONNECTED[k] and
# logs its I/Os from then on until the run ends, the watcher's last
# sample at STOP (its SIGINT: the last I/Os complete after it); alone, a
# job gets all 3000, so a job's mean over its own run says little. A
# fourth job, starved, completes none.
CONNECTED = (100.0, 102.0, 104.0)
STOP = 111.1
TOTAL = 3000.0
SLOT = 0.1


def running(t):
    return sum(1 for c in CONNECTED if c < t)


def write_log(path, k):
    """fio's iops log of job k (no log_avg_msec, log_unix_epoch=1): a
    line an I/O, its time in milliseconds, spread evenly over each slot"""
    with open(path, "w") as f:
        for slot in range(round((STOP + 0.4 - CONNECTED[k]) / SLOT)):
            t = CONNECTED[k] + slot * SLOT
            n = round(TOTAL / running(t + SLOT / 2) * SLOT)
            for i in range(n):
                f.write(f"{round((t + (i + 1) * SLOT / n) * 1000)}, 1, 1, 4096, 0\n")


def write_samples(path):
    """watch_pair's samples from 0.1 s after the last connection to STOP:
    the server takes 100 ticks a second (100 % of a CPU) until 105, then
    30; the client 150; the guest's CPUs 200 ticks a second, 40 of them
    idle; the device sends 6 packets an I/O"""
    ticks = dict(server=0.0, client=0.0, guest=0.0, idle=0.0, packets=0.0)
    t = CONNECTED[-1] + 0.1
    with open(path, "w") as f:
        while t <= STOP + 0.01:
            f.write(",".join(str(round(v)) for v in (
                ticks["guest"] - ticks["idle"], 0, 0, ticks["idle"], 0, 0, 0, 0,
                ticks["packets"], ticks["server"], ticks["client"])) + f",{t:.6f}\n")
            ticks["server"] += 50 if t < 105 else 15
            ticks["client"] += 75
            ticks["guest"] += 100
            ticks["idle"] += 20
            ticks["packets"] += 6 * TOTAL / 2
            t += 0.5


class SteadyWindow(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.base = os.path.join(self.dir.name, "gpspm.nj4.busy1.one.r1")
        for k in range(len(CONNECTED)):
            write_log(f"{self.base}.client_iops.{k + 1}.log", k)
        open(f"{self.base}.client_iops.4.log", "w").close()
        write_samples(self.base + ".samples")

    def tearDown(self):
        self.dir.cleanup()

    def test_window_from_the_last_connection_to_the_stop(self):
        r = scaling.steady(self.base, CONNECTED[-1], True)
        self.assertEqual(r["window"], [CONNECTED[-1] + scaling.MARGIN_S, STOP])
        self.assertAlmostEqual(r["window_s"], 6.1)

    def test_iops_sum_the_jobs_in_the_window(self):
        # each job's own run, from its first I/O to its last, would give
        # 1435 + 1105 + 1000
        r = scaling.steady(self.base, CONNECTED[-1], True)
        self.assertAlmostEqual(r["iops"], TOTAL, delta=TOTAL * 0.001)
        # the starved job counts as none, and is counted
        self.assertEqual(r["jobs_idle"], 1)

    def test_window_starts_after_the_last_connection(self):
        r = scaling.steady(self.base, CONNECTED[-1] + 2, True)
        self.assertEqual(r["window"], [CONNECTED[-1] + 2 + scaling.MARGIN_S, STOP])
        self.assertAlmostEqual(r["iops"], TOTAL, delta=TOTAL * 0.001)

    def test_cpu_over_the_window(self):
        w = scaling.steady(self.base, CONNECTED[-1], True)["w"]
        # the samples at 105.1 and the stop: not the 100 % before 105
        self.assertEqual((w["t0"], w["t1"]), (105.1, STOP))
        self.assertAlmostEqual(w["ios"], 6 * TOTAL, delta=3)
        self.assertAlmostEqual(w["scpu"], 30)
        self.assertAlmostEqual(w["ccpu"], 150)
        self.assertAlmostEqual(w["busy"], 80)
        # 1.8 s of the server's CPU over 18000 I/Os
        self.assertAlmostEqual(w["cpu_us"], 100, delta=0.1)
        self.assertAlmostEqual(w["pkts"], 6, delta=0.01)

    def test_cpu_of_a_starved_watcher(self):
        # two samples: one before the window, the stop
        with open(self.base + ".samples") as f:
            lines = f.read().splitlines()
        with open(self.base + ".samples", "w") as f:
            f.write(lines[1] + "\n" + lines[-1] + "\n")
        w = scaling.steady(self.base, CONNECTED[-1], True)["w"]
        self.assertEqual((w["t0"], w["t1"]), (104.6, STOP))
        self.assertAlmostEqual(w["ios"], 6.5 * TOTAL, delta=3)

    def test_no_window_without_every_connection(self):
        self.assertEqual(scaling.steady(self.base, None, True), {})

    def test_no_window_when_the_client_ended_alone(self):
        self.assertEqual(scaling.steady(self.base, CONNECTED[-1], False), {})


class Records(unittest.TestCase):
    def test_a_row_that_never_connected_says_why(self):
        with tempfile.TemporaryDirectory() as raw:
            os.mkdir(os.path.join(raw, "scaling"))
            base = os.path.join(raw, "scaling", "apm.nj256.busy1.ours.r1")
            with open(base + ".server.log", "w") as f:
                f.write("fio: pid=0, err=24/file:filesetup.c:1, error=Too many open files\n")
            with open(os.path.join(raw, "scaling", "list"), "w") as f:
                f.write("ours\tapm\t256\t1\t1\t124 1\t30000\t100000000\t1500000\t-\t-\t300\t0\n")
            r, = scaling.scaling_records(raw)
            self.assertIsNone(r["tc"])
            self.assertNotIn("iops", r)
            self.assertIn("300 of 512 connection ends came up", r["why"])
            self.assertIn("Too many open files", r["why"])


class Isolation(unittest.TestCase):
    """the table of bench/run --scaling --isolation: windows (impl one)
    against none (one-none) at one N"""

    def row(self, rounds, cpu_us, tc, r1, isolation):
        return dict(rounds=rounds, all=", ".join(map(str, rounds)), cpu_us=cpu_us, tc=tc,
                    r1=r1, isolation=isolation)

    def table(self, win_rounds, none_rounds):
        rows = {("gpspm", 1, "1", "one"): self.row([1], 1, 1, 2000, "window"),
                ("gpspm", 1, "1", "one-none"): self.row([1], 1, 1, 2000, "none"),
                ("gpspm", 16, "1", "one"): self.row(win_rounds, 10.5, 2.4, 2000 + 15 * 1100,
                                                     "window"),
                ("gpspm", 16, "1", "one-none"): self.row(none_rounds, 10.0, 2.0,
                                                          2000 + 15 * 1090, "none")}
        o = []
        scaling.isolation(rows, o)
        line, = [x for x in o if x.startswith("| gpspm | 16 |")]
        return [c.strip() for c in line.split("|")[1:-1]]

    def test_ranges_that_meet_are_within_the_spread(self):
        c = self.table([9000, 10000], [9800, 11000])
        self.assertEqual(c[3], "window / none")
        self.assertEqual(c[6], "yes")
        # 10.5 us against 10.0: 1.05; 2.4 s against 2.0: 1.20
        self.assertEqual((c[9], c[12]), ("1.05", "1.20"))
        self.assertEqual((c[13], c[14]), ("1,100", "1,090"))

    def test_memory_per_connection_from_the_row_of_1_of_any_busy(self):
        # the rows of 256 run with sleeping clients, the row of 1 spins
        rows = {("apm", 1, "1", "one"): self.row([1], 1, 1, 2000, "window"),
                ("apm", 256, "0", "one"): self.row([1], 1, 1, 2000 + 255 * 1030, "window"),
                ("apm", 1, "0", "ours"): self.row([1], 1, 1, 9000, "window")}
        self.assertEqual(scaling.rss_per_connection(rows, "apm", 256, "0", "one"), 1030)
        self.assertIsNone(scaling.rss_per_connection(rows, "apm", 1, "1", "one"))

    def test_ranges_apart_are_not(self):
        self.assertEqual(self.table([7000, 8000], [9800, 11000])[6], "no")

    def test_no_table_without_the_none_rows(self):
        o = []
        scaling.isolation({("apm", 16, "1", "one"): self.row([1], 1, 1, 1, "window")}, o)
        self.assertEqual(o, [])

    def test_the_start_note_names_the_isolation(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "server.log")
            with open(path, "w") as f:
                f.write("server: (groupid=0) isolation=window: each client reaches its own "
                        "range only\n")
            self.assertEqual(scaling.isolation_in_force(path), "window")
            self.assertIsNone(scaling.isolation_in_force(os.path.join(d, "missing")))


class Connect(unittest.TestCase):
    """bench/run --connect's tables: a window per connection against none"""

    def rec(self, impl, n, r, total):
        return dict(record="connect", impl=impl, n=n, how="concurrent", round=r,
                    status="0 0", total_s=total, req_new_s=0, connect_s=0,
                    established_s=0, disconnect_s=0)

    def test_the_ratio_of_the_medians(self):
        recs = [self.rec("ours", 256, 1, 0.40), self.rec("ours", 256, 2, 0.50),
                self.rec("ours", 256, 3, 0.45),
                self.rec("ours-window", 256, 1, 0.60), self.rec("ours-window", 256, 2, 0.54),
                self.rec("ours-window", 256, 3, 9.0),
                self.rec("ref", 256, 1, 0.5), self.rec("ours-window", 16, 1, 0.1)]
        o = []
        scaling.connect(recs, {}, o)
        line, = [x for x in o if x.startswith("| 256 | concurrent | 0.")]
        # 0.60 against 0.45: one slow round moves no median
        self.assertEqual([c.strip() for c in line.split("|")[1:-1]],
                         ["256", "concurrent", "0.450", "0.600", "1.33x"])
        # N=16 has no run of ours to set it against
        self.assertFalse([x for x in o if x.startswith("| 16 | concurrent | 0.")])
        rows = [x.split("|")[3].strip() for x in o if x.startswith("| 256 | concurrent |")]
        self.assertEqual(rows[:3], ["ours", "ours-window", "ref"])


if __name__ == "__main__":
    unittest.main()
