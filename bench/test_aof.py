#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""bench/test_aof.py -- aof.py's replicas table on made-up runs (no VM):
the records of the replicated log's rows (latency percentiles, packets
per append per replica), the ratios to one replica round by round, the
client's instructions per append from --counts' records and the goals
judged. make check runs it (bench/Makefile.am), as does bench/run
--self-test."""
import json
import os
import tempfile
import unittest

import aof
from rpma_measure import provenance, record

# p50 of aof-MODE-rR in round N, us: 3 replicas 1.4x one in round 1,
# 1.6x in round 2 and 1.3x in round 3 (apm); gpspm 2x in every round
P50 = {("aof-apm", 1): [100, 110, 90], ("aof-apm", 2): [120, 150, 100],
       ("aof-apm", 3): [140, 176, 117],
       ("aof-gpspm", 1): [200, 200, 200], ("aof-gpspm", 2): [300, 300, 300],
       ("aof-gpspm", 3): [400, 400, 400]}
IOS = 4096


def report(p50, iops):
    """a client's fio report as fio writes it (the fields aof.py reads)"""
    pct = {"50.000000": p50 * 1000, "99.000000": p50 * 3000, "99.900000": p50 * 9000}
    return {"fio version": "fio-3.33", "jobs": [{"jobname": "client", "write": {
        "total_ios": IOS, "iops": iops, "clat_ns": {"mean": p50 * 1000, "percentile": pct}}}]}


def make_raw(d, fail=None):
    """RAW's aof lines and the client reports of 3 rounds of the replicas'
    rows; FAIL (row, round): that run ended with a status"""
    os.makedirs(os.path.join(d, "fio"))
    with open(os.path.join(d, "aof"), "w") as f:
        for rnd in (1, 2, 3):
            for qd in (1, 16):
                for (mode, reps), p50s in P50.items():
                    row = "%s-r%d-bs4096-qd%d-nativenone" % (mode, reps, qd)
                    # packets: 7 per append per replica at iodepth 1, 5 at 16
                    packets = IOS * reps * (7 if qd == 1 else 5)
                    status = "1 0" if fail == (row, rnd) else "0 0"
                    f.write("%s\t%d\t%d\t%d\t%s\t-\n" % (row, rnd, IOS, packets, status))
                    with open(os.path.join(d, "fio", "%s.r%d.client.json" % (row, rnd)), "w") as j:
                        j.write("librpma_aof_client[1]: a note before the report\n")
                        json.dump(report(p50s[rnd - 1], 3000 / reps), j)
    with open(os.path.join(d, "host-env"), "w") as f:
        f.write("command=bench/run --aof --rows -r[123]-\nhost_load_start=5.10 4.00 3.00 2/300 9\n"
                "host_load_end=6.20 5.00 3.50 1/310 10\n")


def counts_records(path):
    """--counts' client records of ours for the replicas' rows: per I/O
    engine 200 + 100 R, librpma 150 + 150 (R - 1) at iodepth 1 (3
    replicas: 950 against 450, 2.11x); at 16 engine 250 + 20 R, librpma
    70 (3 replicas: 380 against 340, 1.12x); fio 1000, verbs 300 R"""
    recs = []
    for mode in ("aof-apm", "aof-gpspm"):
        for reps in (1, 3):
            for qd in (1, 16):
                el = ((200 + 100 * reps, 150 + 150 * (reps - 1)) if qd == 1
                      else (250 + 20 * reps, 70))
                for n in (2000, 4000):
                    lay = {"fio": 1000 * n, "engine": el[0] * n, "librpma": el[1] * n,
                           "verbs": 300 * reps * n, "other": 0}
                    recs.append(dict(row="%s-r%d-write-bs4k-qd%d-nj1" % (mode, reps, qd),
                                     impl="ours", side="client", status="0", n=n, rep="1.s0",
                                     layers=lay, total=sum(lay.values())))
    record.write(path, provenance.stamped({}, recs))


class Replicas(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.raw = os.path.join(self.tmp.name, "raw")
        self.counts = os.path.join(self.tmp.name, "counts.jsonl")
        counts_records(self.counts)

    def tearDown(self):
        self.tmp.cleanup()

    def records(self, fail=None):
        make_raw(self.raw, fail)
        return aof.run_records(self.raw)

    def test_records(self):
        recs = {(r["row"], r["round"]): r for r in self.records()}
        r = recs[("aof-apm-r3-bs4096-qd1-nativenone", 2)]
        self.assertEqual((r["mode"], r["replicas"], r["bs"], r["qd"]), ("aof-apm", 3, 4096, 1))
        self.assertAlmostEqual(r["packets"], 21)
        self.assertAlmostEqual(r["packets_per_replica"], 7)
        self.assertEqual((r["lat_p50_us"], r["lat_p99_us"], r["lat_p99_9_us"]), (176, 528, 1584))
        # the single log's kinds are themselves on one replica
        self.assertEqual(aof.replicas_of("aof-apm"), ("aof-apm", 1))
        self.assertEqual(aof.replicas_of("apm-write"), ("apm-write", 1))

    def test_instructions(self):
        ins = aof.instructions(self.counts)
        self.assertEqual(ins[("aof-apm-r3", 1)], dict(el=950, all=950 + 1000 + 900))
        self.assertEqual(ins[("aof-gpspm-r1", 16)]["el"], 340)

    def test_ratios_round_by_round(self):
        runs, failed = aof.read_runs(self.records())
        self.assertEqual(failed, [])
        s = aof.round_ratios(runs, "aof-apm-r3", "aof-apm-r1", 1, "lat_p50_us")
        self.assertEqual([round(v, 2) for v in s["values"]], [1.4, 1.6, 1.3])
        self.assertAlmostEqual(s["median"], 1.4)
        # appends per second: 3000 / R in every round
        s = aof.round_ratios(runs, "aof-gpspm-r2", "aof-gpspm-r1", 16, "iops")
        self.assertEqual((s["n"], s["min"], s["max"]), (3, 0.5, 0.5))

    def test_failed_run_leaves_its_round_out(self):
        runs, failed = aof.read_runs(self.records(("aof-apm-r1-bs4096-qd1-nativenone", 2)))
        self.assertEqual(failed, ["aof-apm-r1-bs4096-qd1-nativenone round 2 (status 1 0)"])
        s = aof.round_ratios(runs, "aof-apm-r3", "aof-apm-r1", 1, "lat_p50_us")
        self.assertEqual([round(v, 2) for v in s["values"]], [1.4, 1.3])

    def test_summary(self):
        recs = self.records()
        env = provenance.env_of(self.raw)
        o, failed = aof.summary([dict(record="env", **env)] + recs,
                                aof.instructions(self.counts))
        text = "\n".join(o)
        self.assertEqual(failed, [])
        self.assertIn("at the start: 5.10 4.00 3.00; at the end: 6.20 5.00 3.50", text)
        # the single log's table is left out when none of its rows ran
        self.assertNotIn("| kind | record |", text)
        rows = [ln for ln in o if ln.startswith("| apm |") or ln.startswith("| gpspm |")]
        self.assertEqual(len(rows), 6)
        # apm, 3 replicas: p50 the median 140, vs 1 the rounds' ratios;
        # p99, p99.9; appends/s 1,000, a third; 7.00 / 5.00 packets per
        # replica; 950 / 380 instructions, 2.11x; all 2,850 / 2,280
        self.assertEqual(rows[2], "| apm | 3 | 140 | 1.40 (1.30-1.60) | 420 | 1260 | 1,000 "
                         "| 0.33 (0.33-0.33) | 7.00 / 5.00 | 950 / 380 | 2.11 | 2,850 / 2,280 |")
        self.assertTrue(rows[0].startswith("| apm | 1 | 100 | 1 |"))
        self.assertIn("`aof_mode=apm`, p50 at iodepth 1, 3 replicas over 1: 1.40 (1.30-1.60), "
                      "**met** (7 % under 1.5x).", text)
        self.assertIn("`aof_mode=gpspm`, p50 at iodepth 1, 3 replicas over 1: 2.00 (2.00-2.00), "
                      "**missed** by 33 % (2.00 against 1.5).", text)
        self.assertIn("`aof_mode=apm`, the client's instructions per append (engine + librpma) "
                      "at iodepth 1, 3 replicas over 1: 2.11, **missed** by 41 % (2.11 against 1.5); "
                      "all layers (fio and verbs too): 1.63.", text)
        self.assertIn("at iodepth 16, 3 replicas over 1: 1.12, **met** (25 % under 1.5x); "
                      "all layers (fio and verbs too): 1.39.", text)

    def test_not_measured(self):
        o, _ = aof.summary([dict(record="env")] + self.records(), {})
        self.assertIn("- `aof_mode=apm`, the client's instructions per append (engine + "
                      "librpma) at iodepth 1, 3 replicas over 1: not measured.", o)
        # no replicas' rows: no section
        self.assertEqual(aof.replicas_section({}, {}), [])


if __name__ == "__main__":
    unittest.main()
