# SPDX-License-Identifier: BSD-3-Clause
"""Verdicts: a plan's thresholds judged on a run, as verdict.json and
JUnit XML (one test case per threshold)."""

import xml.etree.ElementTree as ET

from . import summary


def matches(p, t):
    if t.get("series") and p["series"] != t["series"]:
        return False
    for k, v in (t.get("where") or {}).items():
        if str(p.get(k)) != str(v):
            return False
    return True


def judge(res, summ=None):
    """[{name, metric, passed, message, points: [...]}] for the implicit
    case (every point completed) and each threshold of the plan."""
    summ = summ or summary.run(res)
    cases = []
    bad = [p["id"] for p in res["points"]
           if summ[p["id"]]["failed_repeats"] or summ[p["id"]]["pending_repeats"]]
    if not res["points"]:
        msg = "the run has no point"
    elif bad:
        msg = "failed or not run: %s" % ", ".join(bad)
    else:
        msg = "all %d points" % len(res["points"])
    cases.append({
        "name": "every point completed",
        "metric": "failed_repeats", "passed": bool(res["points"]) and not bad,
        "message": msg, "points": []})
    for i, t in enumerate(res["plan"].get("thresholds", [])):
        name = t.get("name") or "threshold %d: %s" % (i + 1, t["metric"])
        pts = [p for p in res["points"] if matches(p, t)]
        rows, fails = [], []
        for p in pts:
            v = summary.value(summ[p["id"]], t["metric"])
            ok = v is not None
            if ok and "max" in t:
                ok = v <= t["max"]
            if ok and "min" in t:
                ok = v >= t["min"]
            rows.append({"point": p["id"], "value": v, "passed": ok})
            if not ok:
                fails.append("%s: %s" % (p["id"], "no value" if v is None
                                         else "%.4g" % v))
        limit = " and ".join("%s %s" % (op, t[k]) for k, op in
                             (("min", ">="), ("max", "<=")) if k in t)
        if not pts:
            msg, ok = "no point of the run matches", False
        elif fails:
            msg, ok = "%s %s not met by %s" % (t["metric"], limit,
                                               "; ".join(fails)), False
        else:
            msg, ok = "%s %s on %d points" % (t["metric"], limit,
                                              len(pts)), True
        cases.append({"name": name, "metric": t["metric"], "passed": ok,
                      "message": msg, "points": rows})
    return cases


def document(res, cases):
    return {"plan": res["plan"].get("name"),
            "passed": all(c["passed"] for c in cases),
            "cases": cases}


def junit(res, cases):
    suite = ET.Element("testsuite", {
        "name": "rpma-qualify %s" % res["plan"].get("name"),
        "tests": str(len(cases)),
        "failures": str(sum(1 for c in cases if not c["passed"])),
        "errors": "0", "skipped": "0"})
    for c in cases:
        tc = ET.SubElement(suite, "testcase", {
            "classname": "rpma-qualify.%s" % res["plan"].get("name"),
            "name": c["name"]})
        if not c["passed"]:
            f = ET.SubElement(tc, "failure", {"message": c["message"]})
            f.text = c["message"]
        else:
            out = ET.SubElement(tc, "system-out")
            out.text = c["message"]
    root = ET.Element("testsuites")
    root.append(suite)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
