#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""browser_check.py DOM PAGE SCREENSHOT RESULTS...: what chromium made of
a report or a history page (qualify/tests/browser). DOM is its dump once
the page's own check ran (#render-check: images decoded, script errors);
each table cell marked data-point/data-metric must show the figure
computed here from RESULTS (a report: its run's results.json; a history:
each run's, in the page's order, the cell's data-run naming the run by
its directory), on its own, and a history cell the repeats' range too;
the screenshot must be a PNG."""

import html.parser
import json
import os
import sys

LAT = {"lat_p50": "p50", "lat_p99": "p99", "lat_p99.9": "p99.9",
       "lat_p99.99": "p99.99", "lat_max": "max", "lat_mean": "mean"}


class Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.cur, self.check, self.imgs = [], None, None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "td" and "data-point" in a:
            # point, metric, run (history pages), the text up to the
            # first tag inside the cell, the text after it
            self.cur = [a["data-point"], a["data-metric"], a.get("data-run"),
                        "", ""]
        elif self.cur is not None:
            self.cur[4] += " "
        if a.get("id") == "render-check":
            self.check = a
        if tag == "img":
            self.imgs += 1

    def handle_data(self, data):
        if self.cur is not None:
            self.cur[4 if self.cur[4] else 3] += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cur is not None:
            self.cells.append(tuple(self.cur))
            self.cur = None


# an independent oracle of the report's cells: on purpose not the
# measurement package's median (rpma_measure.stats) that the tool uses
def oracle_median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def repeat_figures(m):
    """{metric: value} of one done repeat's metrics."""
    f = {"iops": m["iops"], "bw_bytes": m["bw_bytes"] / 2 ** 20}
    for k, name in LAT.items():
        f[k] = m["lat_us"][name]
    for side in ("client", "server"):
        f["cpu_%s_us_per_op" % side] = m["cpu"]["%s_us_per_op" % side]
    return f


def ranges(res):
    """{(point, metric): (min, max)} of the done repeats' figures."""
    out = {}
    for p in res["points"]:
        done = [repeat_figures(r["metrics"]) for r in p["repeats"]
                if r["status"] == "done"]
        for k in (done[0] if done else {}):
            out[p["id"], k] = (min(f[k] for f in done),
                               max(f[k] for f in done))
    return out


def expected(res):
    """{(point, metric): value} for the cells computed here."""
    want = {}
    for p in res["points"]:
        done = [repeat_figures(r["metrics"]) for r in p["repeats"]
                if r["status"] == "done"]
        for k in (done[0] if done else {}):
            want[p["id"], k] = oracle_median([f[k] for f in done])
        want[p["id"], "verify_errors"] = sum(
            r.get("metrics", {}).get("verify_errors", 0) for r in p["repeats"])
    for k, b in res.get("baselines", {}).items():
        r = b.get("result") or {}
        if "t_typical_us" in r:
            want["baseline:" + k, "t_typical_us"] = r["t_typical_us"]
        if "bw_avg_bytes" in r:
            want["baseline:" + k, "bw_avg_mib"] = r["bw_avg_bytes"] / 2 ** 20
    return want


def same(text, v):
    """The cell shows v as the report writes figures (4 significant
    digits at least; one unit in the last shown place)."""
    if text.strip() == "-":
        return v is None
    try:
        shown = float(text)
    except ValueError:
        return False
    dec = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    tol = 0.5 * 10 ** -dec if "e" not in text else abs(v) * 5e-3
    return abs(shown - v) <= tol + 1e-12


def main():
    dom, report, shot = sys.argv[1:4]
    # a history names its runs as rpma-qualify history does: by their
    # directories
    runs = {os.path.basename(os.path.dirname(os.path.abspath(r))): r
            for r in sys.argv[4:]}
    ok = True

    def check(name, good, detail=""):
        nonlocal ok
        ok &= bool(good)
        line = "%s: %s%s" % ("PASS" if good else "FAIL", name,
                             " (%s)" % detail if detail else "")
        print(line)
        if os.environ.get("QUALIFY_CHECKS"):
            with open(os.environ["QUALIFY_CHECKS"], "a") as f:
                f.write(line.split("\n")[0] + "\n")

    with open(report) as f:
        src = Cells()
        src.feed(f.read())
    with open(dom) as f:
        got = Cells()
        got.feed(f.read())
    want, spans = {}, {}
    for name, path in runs.items():
        with open(path) as f:
            res = json.load(f)
        key = name if len(runs) > 1 else None
        want.update({(p, m, key): v for (p, m), v in expected(res).items()})
        spans.update({(p, m, key): v for (p, m), v in ranges(res).items()})
    rc = got.check or {}
    check("the page's scripts ran in chromium", rc.get("data-done") == "1",
          "render-check %s" % rc)
    check("every chart rendered", rc.get("data-images") == str(src.imgs)
          and src.imgs > 0 and rc.get("data-broken", "x") == "",
          "%s of %d images, broken: %r" % (rc.get("data-images"), src.imgs,
                                          rc.get("data-broken")))
    check("no script error", rc.get("data-errors", "x") == "",
          repr(rc.get("data-errors")))
    bad, n = [], 0
    for point, metric, run, text, note in got.cells:
        k = (point, metric, run)
        if k not in want:
            continue
        n += 1
        if not same(text, want[k]):
            bad.append("%s %s %s: shows %s, JSON %r" % (
                point, metric, run or "", text, want[k]))
        if run is not None:
            # a count's range is the count itself
            span = spans.get(k, (want[k], want[k]))
            lo, _, hi = (note.split() or [""])[0].partition("..")
            if not (same(lo, span[0]) and same(hi, span[1])):
                bad.append("%s %s %s: range %r, JSON %r" % (
                    point, metric, run, note, span))
    check("the tables' figures are the JSON's", n > 0 and not bad,
          "; ".join(bad[:5]) or "%d cells of %d" % (n, len(got.cells)))
    with open(shot, "rb") as f:
        head = f.read(8)
    check("screenshot", head == b"\x89PNG\r\n\x1a\n" and
          os.path.getsize(shot) > 10000, "%d bytes" % os.path.getsize(shot))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
