# SPDX-License-Identifier: BSD-3-Clause
"""The comparison rules (rpma-qualify(1), COMPARISON RULE).

A point's metric in a run B is compared with the base run A by a
Mann-Whitney U test of their repeats where the numbers of repeats let the
test reach its level (alpha) at all: B differs from A when the test's
exact two-sided p-value is below alpha and the medians differ by more
than floor_pct. A rank test: one outlier repeat moves U by at most the
other run's number of repeats, whatever its size, where it widened the
range rule's allowance without bound.

With fewer repeats (3 and 3: the smallest p is 0.1) the older range rule
decides, and the change says so ("test": "range"): B differs only when
  1. the ranges of the two runs' repeats (min..max) do not overlap, and
  2. the medians differ by more than the allowance:
       max(floor_pct, spread_factor * larger relative spread of A and B)
     where a run's relative spread is (max - min) / median of its repeats.
One outlier can hide a change from it.

Otherwise the point is "same". The direction (regression or improvement)
follows whether higher or lower is better for the metric. alpha,
floor_pct and spread_factor come from the base run's plan ("compare");
the defaults are 0.05, 10 % and 2.

Counts (summary.COUNTS) have no spread to judge: each has its own rule,
count_rule() below.

A point that the base run completed (one repeat done at least) and a later
run did not (no repeat done, or no such point) is "lost" by that run: a
gate fails on it as on a regression."""

from rpma_measure import stats

from . import plan as planmod, summary

# the statistical rule is the measurement package's, shared with bench
rule = stats.compare


def count_rule(a, b, metric, floor_pct):
    """a, b: {"count", "ran"} of one count metric in runs A and B (ran: the
    repeats that ran, done or failed). Returns (verdict, change %,
    allowance %):
      verify_errors: any more is a regression, any fewer an improvement
        (a block that did not read back as written is never noise);
      failed_repeats: the same, of the share of the repeats that failed;
      rnr_naks, retries: per repeat that ran, a regression when B's is
        above A's by more than floor_pct (from none to any is one), an
        improvement when A's is so above B's (device counters of a healthy
        link may move a little)."""
    if not a or not b or not a["ran"] or not b["ran"]:
        return "missing", None, None
    if metric == "verify_errors":
        va, vb, allow = a["count"], b["count"], 0.0
    else:
        va, vb = a["count"] / a["ran"], b["count"] / b["ran"]
        allow = 0.0 if metric == "failed_repeats" else float(floor_pct)
    change = (vb - va) / va * 100 if va else None
    grow = 1 + allow / 100
    if vb > va * grow:
        return "regression", change, allow
    if va > vb * grow:
        return "improvement", change, allow
    return "same", change, allow


def figure(s, metric):
    """What a point's summary (summary.point, or None) holds of metric:
    a count with the repeats that ran, or the repeats' summary."""
    if not s:
        return None
    if metric in summary.COUNTS:
        return {"count": s[metric], "ran": s["ran_repeats"]}
    return s.get(metric)


def judge(sa, sb, metric, cfg):
    """The change of metric from a point's summary sa in run A to sb in
    run B (either may be None), by the rule for its kind: {verdict,
    change_pct, allowance_pct, test, p}."""
    a, b = figure(sa, metric), figure(sb, metric)
    if metric in summary.COUNTS:
        verdict, ch, allow = count_rule(a, b, metric, cfg["floor_pct"])
        return {"verdict": verdict, "change_pct": ch, "allowance_pct": allow,
                "test": "count", "p": None}
    return rule(a, b, summary.METRICS[metric][1], cfg)


def _completed(res):
    return {p["id"] for p in res["points"]
            if any(r["status"] == "done" for r in p["repeats"])}


def lost(runs, names):
    """[{"run": name, "points": [ids]}] of each run after the base that
    lacks points the base completed, in the base's order."""
    had = [p["id"] for p in runs[0]["points"]
           if p["id"] in _completed(runs[0])]
    out = []
    for res, name in zip(runs[1:], names[1:]):
        done = _completed(res)
        gone = [pid for pid in had if pid not in done]
        if gone:
            out.append({"run": name, "points": gone})
    return out


def compare(runs, names=None):
    """runs: the results of A (base), B, ... Returns {"metrics", "points":
    [{id, series, ..., "metrics": {m: {"values": [median per run],
    "changes": [{verdict, change, allowance} per run after A]}}}]}"""
    names = names or ["run %d" % (k + 1) for k in range(len(runs))]
    base = runs[0]
    cfg = base["plan"]["compare"]
    metrics = cfg["metrics"]
    # a base run written before plans' metrics were checked
    planmod.check_metrics(metrics, "the base run's compare.metrics")
    summs = [summary.run(r) for r in runs]
    out = []
    for p in base["points"]:
        entry = {k: p[k] for k in ("id", "series", "mode", "rw", "bs",
                                   "iodepth", "numjobs", "clients")}
        # a run written before replicas has none: one
        entry["replicas"] = p.get("replicas", 1)
        entry["metrics"] = {}
        for m in metrics:
            pts = [s.get(p["id"]) for s in summs]
            entry["metrics"][m] = {
                "summaries": [figure(s, m) for s in pts],
                "changes": [judge(pts[0], s, m, cfg) for s in pts[1:]]}
        out.append(entry)
    counts = {}
    for e in out:
        for m in e["metrics"].values():
            for c in m["changes"]:
                counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    return {"runs": names, "metrics": metrics, "rule": {
        "floor_pct": cfg["floor_pct"], "spread_factor": cfg["spread_factor"],
        "alpha": cfg.get("alpha", stats.DEFAULT_ALPHA)},
        "points": out, "counts": counts, "lost": lost(runs, names)}
