# SPDX-License-Identifier: BSD-3-Clause
"""Verdicts: a plan's thresholds judged on a run, as verdict.json and
JUnit XML (one test case per threshold)."""

import xml.etree.ElementTree as ET

from . import perftest, summary


def matches(p, t):
    if t.get("series") and p["series"] != t["series"]:
        return False
    for k, v in (t.get("where") or {}).items():
        if str(p.get(k)) != str(v):
            return False
    return True


def _base(t, p, psumm, ref_summ):
    """The figure a relative threshold's factors multiply for point p, or
    (None, why) when there is none."""
    rel = t["relative_to"]
    if rel == "perftest":
        v = perftest.counterpart(psumm.get("baseline"), t["metric"])
        return v, "no perftest figure of its size and direction"
    if ref_summ is None:
        return None, "no reference run (report --reference DIR)"
    v = summary.value(ref_summ.get(p["id"], {}), t["metric"])
    return v, "not in the reference run"


def _limit_text(t):
    of = {"perftest": " x perftest's", "reference": " x the reference's"}.get(
        t.get("relative_to"), "")
    return " and ".join("%s %s%s" % (op, t[k], of) for k, op in
                        (("min", ">="), ("max", "<=")) if k in t)


def steady_case(res, summ):
    """The case of a plan with steady_state: every point judged has a
    steady repeat (SNIA's rule, stats.steady)."""
    judged = [(p["id"], summ[p["id"]]["steady_state"]) for p in res["points"]
              if summ[p["id"]].get("steady_state")]
    never = ["%s (0 of %d)" % (pid, s["judged"]) for pid, s in judged
             if not s["steady"]]
    if not judged:
        msg = "no repeat has a steady-state record"
    elif never:
        msg = "no steady repeat: %s" % ", ".join(never)
    else:
        msg = "%d points steady in %d of %d repeats" % (
            len(judged), sum(s["steady"] for _, s in judged),
            sum(s["judged"] for _, s in judged))
    return {"name": "every point reached steady state", "metric":
            "steady_state", "passed": bool(judged) and not never,
            "message": msg, "points": [
                {"point": pid, "value": s["steady"], "passed": s["steady"] > 0}
                for pid, s in judged]}


def judge(res, summ=None, reference=None):
    """[{name, metric, passed, message, points: [...]}] for the implicit
    case (every point completed) and each threshold of the plan.
    reference: a run whose medians thresholds "relative_to": "reference"
    multiply."""
    summ = summ or summary.run(res)
    ref_summ = summary.run(reference) if reference else None
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
    ss = res["plan"].get("steady_state")
    if ss and ss.get("required", True):
        cases.append(steady_case(res, summ))
    for i, t in enumerate(res["plan"].get("thresholds", [])):
        name = t.get("name") or "threshold %d: %s" % (i + 1, t["metric"])
        pts = [p for p in res["points"] if matches(p, t)]
        rows, fails = [], []
        for p in pts:
            v = summary.value(summ[p["id"]], t["metric"])
            row = {"point": p["id"], "value": v}
            base, why = 1, None
            if t.get("relative_to"):
                base, why = _base(t, p, summ[p["id"]], ref_summ)
                row["base"] = base
            limit = {k: t[k] * base for k in ("min", "max")
                     if k in t and base is not None}
            ok = v is not None and base is not None
            if ok and "max" in limit:
                ok = v <= limit["max"]
            if ok and "min" in limit:
                ok = v >= limit["min"]
            row.update(limit=limit, passed=ok)
            rows.append(row)
            if not ok:
                fails.append("%s: %s" % (p["id"], why if base is None else
                                         "no value" if v is None else
                                         "%.4g (limits %s)" % (v, ", ".join(
                                             "%s %.4g" % (k, x) for k, x in
                                             sorted(limit.items())))))
        limit = _limit_text(t)
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
