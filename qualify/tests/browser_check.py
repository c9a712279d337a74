#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""browser_check.py DOM REPORT RESULTS SCREENSHOT: what chromium made of
a report (qualify/tests/browser). DOM is its dump once the page's own
check ran (#render-check: images decoded, script errors); each table cell
marked data-point/data-metric must show the figure computed here from
RESULTS (results.json), on its own; the screenshot must be a PNG."""

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
            self.cur = [a["data-point"], a["data-metric"], ""]
        if a.get("id") == "render-check":
            self.check = a
        if tag == "img":
            self.imgs += 1

    def handle_data(self, data):
        if self.cur is not None:
            self.cur[2] += data

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


def expected(res):
    """{(point, metric): value} for the cells computed here."""
    want = {}
    for p in res["points"]:
        done = [r["metrics"] for r in p["repeats"] if r["status"] == "done"]
        if done:
            want[p["id"], "iops"] = oracle_median([m["iops"] for m in done])
            want[p["id"], "bw_bytes"] = oracle_median([m["bw_bytes"] / 2 ** 20
                                                for m in done])
            for k, f in LAT.items():
                want[p["id"], k] = oracle_median([m["lat_us"][f] for m in done])
            for side in ("client", "server"):
                want[p["id"], "cpu_%s_us_per_op" % side] = oracle_median(
                    [m["cpu"]["%s_us_per_op" % side] for m in done])
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
    dom, report, results, shot = sys.argv[1:5]
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
    with open(results) as f:
        res = json.load(f)
    rc = got.check or {}
    check("the page's scripts ran in chromium", rc.get("data-done") == "1",
          "render-check %s" % rc)
    check("every chart rendered", rc.get("data-images") == str(src.imgs)
          and src.imgs > 0 and rc.get("data-broken", "x") == "",
          "%s of %d images, broken: %r" % (rc.get("data-images"), src.imgs,
                                          rc.get("data-broken")))
    check("no script error", rc.get("data-errors", "x") == "",
          repr(rc.get("data-errors")))
    want = expected(res)
    bad, n = [], 0
    for point, metric, text in got.cells:
        if (point, metric) not in want:
            continue
        n += 1
        if not same(text, want[point, metric]):
            bad.append("%s %s: shows %s, JSON %r" % (point, metric, text,
                                                     want[point, metric]))
    check("the tables' figures are the JSON's", n > 0 and not bad,
          "; ".join(bad[:5]) or "%d cells of %d" % (n, len(got.cells)))
    with open(shot, "rb") as f:
        head = f.read(8)
    check("screenshot", head == b"\x89PNG\r\n\x1a\n" and
          os.path.getsize(shot) > 10000, "%d bytes" % os.path.getsize(shot))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
