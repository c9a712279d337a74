"""Unit tests of the measurement package (bench/rpma_measure) beyond the
replay of recorded reports (test_fio_readers.py): the reader's edges,
the median, the stamp and the record format, and the verdicts of
engine/tests/fio-versions (rpma_measure.fio_versions) on fio's output as
fio 3.33 to 3.42 print it. Run by tests/judges.sh."""
import os
import subprocess
import sys
import tempfile
import unittest

from rpma_measure import fio, fio_versions, provenance, record, stats

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# fio --enghelp=NAME of one of our engines (the lines the verdict reads,
# as fio 3.33 and 3.42 print them: the name padded to a column, a colon)
ENGHELP = """serverip                : IP address the server is listening on
port                    : port the server is listening on
connect_timeout         : seconds to wait for the server (0: fail at once)
busy_wait_polling       : Set to 0 to wait for completion instead of busy-wait polling completion.
"""
# fio's own librpma engine (fio up to 3.37 with a librpma.h at hand)
FIO_OWN_ENGHELP = """serverip                : IP address the server is listening on
port                    : port the server is listening on
busy_wait_polling       : Set to 0 to wait for completion instead of busy-wait polling completion.
"""


class Reader(unittest.TestCase):
    def test_around(self):
        text = ("fio: a note\n<srv> librpma_apm_server[1]: waiting\n{\n"
                '  "fio version" : "fio-3.42",\n  "jobs" : []\n}\n<srv> after\n')
        doc, lines = fio.split_output(text)
        self.assertEqual(doc["fio version"], "fio-3.42")
        self.assertEqual(lines, ["fio: a note", "<srv> librpma_apm_server[1]: waiting",
                                 "<srv> after"])

    def test_none(self):
        for text in ("", "fio: failed to connect\n", "{\n \"jobs\": [\n"):
            with self.assertRaises(fio.FioOutputError):
                fio.split_output(text)

    def test_jobs_and_percentiles(self):
        doc = {"client_stats": [
            {"jobname": "a", "read": {"clat_ns": {"percentile": {"99.900000": 2500}}}},
            {"jobname": "All clients"}]}
        self.assertEqual([j["jobname"] for j in fio.jobs(doc)], ["a"])
        self.assertEqual(fio.percentile_us(fio.jobs(doc)[0]["read"], "99.9"), 2.5)
        self.assertIsNone(fio.percentile_us(fio.jobs(doc)[0]["read"], "50"))


class Stats(unittest.TestCase):
    def test_median(self):
        self.assertEqual(stats.median([3, None, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 2, 3]), 2.5)
        self.assertIsNone(stats.median_or_none([None]))
        with self.assertRaises(ValueError):
            stats.median([])


class Records(unittest.TestCase):
    def test_stamp_measured(self):
        with tempfile.TemporaryDirectory() as raw:
            with open(os.path.join(raw, "env"), "w") as f:
                f.write("kernel=6.1.0\nour_fio=fio-3.33\ndevice=rxe0\ndate=2026-12-06 10:00 UTC\n")
            with open(os.path.join(raw, "host-env"), "w") as f:
                f.write("rpma_commit=abc123\nrpma_flags=configure ''\nkernel=host\n")
            env = provenance.env_of(raw)
        s = provenance.stamp(env)
        self.assertEqual(s, {"commit": "abc123", "flags": "configure ''", "kernel": "6.1.0",
                             "fio_version": "fio-3.33", "transport": "rxe0",
                             "date": "2026-12-06 10:00 UTC"})
        self.assertEqual(provenance.stamp({})["commit"], "unknown")

    def test_samples(self):
        rec = {"record": "fio", "row": "apm-write", "iops": 10.0, "p99_us": None}
        got = record.samples(rec, {"iops": "ops/s", "p99_us": "us"}, timestamp=5)
        self.assertEqual(got, [{"metric": "iops", "value": 10.0, "unit": "ops/s",
                                "metadata": {"record": "fio", "row": "apm-write"},
                                "timestamp": 5}])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x", "records.jsonl")
            record.write(path, got)
            self.assertEqual(record.read(path), got)


class FioVersions(unittest.TestCase):
    def test_enghelp(self):
        # any names: the verdict reads what each engine lists
        self.assertEqual(fio_versions.enghelp({"one": ENGHELP, "two": ENGHELP}),
                         ("pass", "2 engines by bare name list their options"))
        verdict, detail = fio_versions.enghelp({"one": ENGHELP, "fios-own": FIO_OWN_ENGHELP,
                                                "none": "fio: engine not found\n"})
        self.assertEqual(verdict, "fail")
        self.assertIn("no options listed by fios-own none", detail)
        self.assertEqual(fio_versions.enghelp({})[0], "fail")

    def test_builtin(self):
        listing = "Available IO engines:\n\tcpuio\n\tlibrpma_apm_client\n\tnull\n"
        self.assertTrue(fio_versions.builtin(listing))
        self.assertFalse(fio_versions.builtin("Available IO engines:\n\tcpuio\n\tnull\n"))

    def test_warnings(self):
        log = "  CXX      apm_client.lo\n../engine/x.cc:1:2: warning: unused [-Wunused]\n"
        self.assertEqual(fio_versions.warnings(log), ("fail", "1 compiler warnings"))
        self.assertEqual(fio_versions.warnings("  CXX      apm_client.lo\n"),
                         ("pass", "no warnings"))

    def test_cross(self):
        refused = "fio: bad ioops version 33 (want 34)\nfio: failed to load engine\n"
        self.assertEqual(fio_versions.cross("3.33", "3.42", 1, refused),
                         ("pass", "fio refuses: fio: bad ioops version 33 (want 34)"))
        guard = ("librpma_apm_client: built for fio-3.41 but is loaded by fio-3.42\n"
                 "fio: failed to load engine\n")
        self.assertEqual(fio_versions.cross("3.41", "3.42", 1, guard),
                         ("pass", "the engine refuses (same ioops version)"))
        # another pair's message is not this pair's refusal
        self.assertEqual(fio_versions.cross("3.39", "3.42", 1, guard)[0], "fail")
        self.assertEqual(fio_versions.cross("3.41", "3.42", 0, guard),
                         ("fail", "status 0"))
        self.assertEqual(fio_versions.cross("3.41", "3.42", 139, guard),
                         ("fail", "status 139"))
        self.assertEqual(fio_versions.cross("3.41", "3.42", 1, "fio: other\n"),
                         ("fail", "no refusal message"))
        # version-mismatch.sh's rule: the engine's guard alone, not fio's
        self.assertEqual(fio_versions.guard("3.41", "3.42", 1, guard),
                         ("pass", "the engine refuses (same ioops version)"))
        self.assertEqual(fio_versions.guard("3.33", "3.42", 1, refused),
                         ("fail", "no refusal message"))
        self.assertEqual(fio_versions.guard("3.41", "3.42", 139, guard),
                         ("fail", "status 139"))

    def test_command_line(self):
        """fio-versions' call: one line "VERDICT<TAB>DETAIL" on stdout"""
        with tempfile.TemporaryDirectory() as d:
            for name, text in (("librpma_apm_client", ENGHELP), ("librpma_apm_server", "")):
                with open(os.path.join(d, f"enghelp-{name}.txt"), "w") as f:
                    f.write(text)
            out = subprocess.run(
                [sys.executable, "-m", "rpma_measure.fio_versions", "enghelp",
                 os.path.join(d, "enghelp-librpma_apm_client.txt"),
                 os.path.join(d, "enghelp-librpma_apm_server.txt")],
                capture_output=True, text=True, check=True,
                env=dict(os.environ, PYTHONPATH=os.path.join(TOP, "bench")))
        self.assertEqual(out.stdout.split("\t")[0], "fail")
        self.assertIn("librpma_apm_server", out.stdout)


if __name__ == "__main__":
    unittest.main()
