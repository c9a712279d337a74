"""The one fio reader (bench/rpma_measure/fio.py) and the one median
(bench/rpma_measure/stats.py) against the readers and medians they
replaced, on every recorded output of the tree: each fio report under
engine/tests/runs, tests/twohosts/runs and qualify/tests/data, and the
figures of bench/results' records. The old readers are taken from the
commit before the package (OLD, by git show): the same report must come
out of both, or the old one must fail where the new one reads.

The figures both gave are recorded in tests/fio-readers.json (per report
the digest of all its figures, and its IOPS to read), which the test
compares the new reader against when git or OLD is not at hand."""
import ast
import hashlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import unittest

from rpma_measure import fio, stats

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD = "850c291"
RECORDED = os.path.join(TOP, "tests", "fio-readers.json")
SETS = ("engine/tests/runs", "tests/twohosts/runs", "qualify/tests/data")


def old_source(path):
    try:
        return subprocess.run(["git", "-C", TOP, "show", f"{OLD}:{path}"], check=True,
                              capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


def old_functions(path, names, env=None):
    """NAMES defined in PATH at OLD (module-level constants and the
    functions alone: the old scripts run their main on import)"""
    src = old_source(path)
    if src is None:
        return None
    tree = ast.parse(src)
    keep = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Assign))
            and (not isinstance(n, ast.Assign) or isinstance(n.value, (ast.Call, ast.Constant)))]
    ns = {"json": json, "os": os, "re": re, "statistics": statistics, **(env or {})}
    for node in keep:
        try:
            exec(compile(ast.Module([node], []), path, "exec"), ns)
        except Exception:  # a constant needing what is not here: not a reader
            pass
    return {n: ns[n] for n in names}


def fio_outputs():
    """every recorded file that holds a fio report: (path, text)"""
    out = []
    for top in SETS:
        for d, _, files in os.walk(os.path.join(TOP, top)):
            for name in sorted(files):
                path = os.path.join(d, name)
                text = open(path, errors="replace").read()
                if re.search(r'^\{$', text, re.M) and '"fio version"' in text:
                    out.append((os.path.relpath(path, TOP), text))
    return sorted(out)


def figures(doc):
    """the figures a judge or a summary takes from a report (an oracle
    of its own, not the package's helpers)"""
    rows = []
    for key in ("jobs", "client_stats"):
        for j in doc.get(key, []):
            row = [key, j.get("jobname"), j.get("error", 0), j.get("usr_cpu"), j.get("sys_cpu")]
            for d in ("read", "write"):
                s = j.get(d) or {}
                row += [s.get(k) for k in ("iops", "bw_bytes", "io_bytes", "total_ios")]
                for lat in ("clat_ns", "lat_ns"):
                    x = s.get(lat) or {}
                    row += [x.get("mean"), x.get("max"), sorted((x.get("percentile") or {}).items())]
            rows.append(row)
    return rows


def evaluate_format(path):
    """the format engine/tests/runs' formats file lists for PATH, if any"""
    fmt = os.path.join(os.path.dirname(path), "formats")
    if not os.path.exists(os.path.join(TOP, fmt)):
        return None
    for line in open(os.path.join(TOP, fmt)).read().splitlines():
        name, f = line.split("\t")
        if name == os.path.basename(path):
            return f
    return None


class Readers(unittest.TestCase):
    maxDiff = None

    def new_figures(self):
        got = {}
        for path, text in fio_outputs():
            doc, _ = fio.split_output(text)
            rows = figures(doc)
            digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
            iops = round(sum(r[5] + r[15] for r in rows if r[5] is not None), 1)
            got[path] = {"figures": digest, "iops": iops}
        return got

    def test_recorded(self):
        """the new reader gives the figures recorded from the old ones"""
        with open(RECORDED) as f:
            recorded = json.load(f)
        got = self.new_figures()
        # a tarball (make distcheck) holds fewer of the recorded files
        self.assertLessEqual(set(got), set(recorded["reports"]))
        self.assertGreater(len(got), 10)
        for path in got:
            self.assertEqual(got[path], recorded["reports"][path], path)

    def test_old_readers(self):
        """each old reader, on each recorded report it can read, gives the
        report the new reader gives"""
        olds = {
            "bench/summarize.py": old_functions("bench/summarize.py", ["read_json"]),
            "bench/scaling.py": old_functions("bench/scaling.py", ["fio_json"]),
            "tests/twohosts/judge.py": old_functions("tests/twohosts/judge.py", ["report"]),
            "qualify/rpma_qualify/fiojson.py": old_functions(
                "qualify/rpma_qualify/fiojson.py", ["split_output", "FioOutputError"]),
            "engine/tests/evaluate.py": old_functions("engine/tests/evaluate.py",
                                                      ["report_of", "Failed"]),
        }
        if any(v is None for v in olds.values()):
            self.skipTest(f"no git history with {OLD} (the recorded figures still hold)")
        tally = {k: [0, 0] for k in olds}
        for path, text in fio_outputs():
            full = os.path.join(TOP, path)
            new = fio.split_output(text)[0]
            got = {}
            got["bench/summarize.py"] = olds["bench/summarize.py"]["read_json"](full)
            got["bench/scaling.py"] = olds["bench/scaling.py"]["fio_json"](full)
            got["tests/twohosts/judge.py"] = olds["tests/twohosts/judge.py"]["report"](full)
            q = olds["qualify/rpma_qualify/fiojson.py"]
            try:
                got["qualify/rpma_qualify/fiojson.py"] = q["split_output"](text)[0]
            except q["FioOutputError"]:
                got["qualify/rpma_qualify/fiojson.py"] = None
            fmt = evaluate_format(path)
            e = olds["engine/tests/evaluate.py"]
            if fmt:
                try:
                    got["engine/tests/evaluate.py"] = e["report_of"](full, fmt)
                except e["Failed"]:
                    got["engine/tests/evaluate.py"] = None
            for name, doc in got.items():
                if doc is None or doc == {}:
                    tally[name][1] += 1
                    continue
                tally[name][0] += 1
                self.assertEqual(figures(doc), figures(new), f"{name} on {path}")
                self.assertEqual(doc, new, f"{name} on {path}")
        print(f"\n  reports: {len(fio_outputs())}; per old reader, same report / "
              f"not read by it: {tally}")
        for name, (same, _) in tally.items():
            self.assertTrue(same, f"{name} read none of the recorded reports")

    def test_sets_trimmed(self):
        """every recorded set is as tests/trim_runs.py (make trim-runs)
        leaves it: no field that no test reads"""
        spec = importlib.util.spec_from_file_location(
            "trim_runs", os.path.join(TOP, "tests", "trim_runs.py"))
        trim = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(trim)
        for path, text in fio_outputs():
            self.assertEqual(trim.trimmed(text, trim.keep_for(os.path.join(TOP, path))), text,
                             f"{path}: not trimmed (make trim-runs)")

    def test_old_medians(self):
        """the one median gives what each old one gave, on bench/results'
        figures grouped as the summaries group them"""
        scaling = old_functions("bench/scaling.py", ["median"])
        qualify = old_functions("qualify/rpma_qualify/stats.py", ["median"], {"math": None})
        if scaling is None or qualify is None:
            self.skipTest(f"no git history with {OLD}")
        groups = {}
        results = os.path.join(TOP, "bench", "results")
        for kind in sorted(os.listdir(results)):
            path = os.path.join(results, kind, "records.jsonl")
            if not os.path.exists(path):
                continue
            for line in open(path):
                r = json.loads(line)
                key = (kind, r.get("record"), r.get("row"), r.get("impl"), r.get("nj"),
                       r.get("test"), r.get("size"), r.get("op"), r.get("bs"))
                for k, v in r.items():
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "round":
                        groups.setdefault(key + (k,), []).append(v)
        if not groups:
            self.skipTest("no bench/results records here (a tarball ships none)")
        n = 0
        for key, values in groups.items():
            new = stats.median(values)
            self.assertEqual(statistics.median(values), new, key)  # summarize, aof, transports
            self.assertEqual(scaling["median"](values), new, key)
            self.assertEqual(qualify["median"](values), new, key)
            n += 1
        self.assertGreater(n, 100)
        print(f"\n  medians: {n} groups of bench/results' figures")


def record():
    """writes RECORDED from the new reader (run once the old ones agreed)"""
    got = Readers().new_figures()
    with open(RECORDED, "w") as f:
        f.write('{"from": "tests/test_fio_readers.py: the readers of %s and the new one '
                'agreed",\n"reports": {\n' % OLD)
        f.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}"
                           for k, v in sorted(got.items())))
        f.write("\n}}\n")


if __name__ == "__main__":
    record()
