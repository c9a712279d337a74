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

Against several base runs of one build (compare_bases, `compare BASE...
--against NEW`), the run is the unit: NEW's median of a point's metric
is judged against the base runs' medians by a prediction interval on
their logarithms (stats.compare_bases), whose width is the base build's
own spread between runs, and each point and metric gets the smallest
change the rule can call from the base runs alone ("detectable_pct").
Counts compare NEW with the base runs' counts pooled.

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


def lost(runs, names, bases=1):
    """[{"run": name, "points": [ids]}] of each run after the first
    BASES (the base runs) that lacks points a base run completed, in the
    first base run's order."""
    done_base = set().union(*(_completed(r) for r in runs[:bases]))
    had = [p["id"] for p in runs[0]["points"] if p["id"] in done_base]
    out = []
    for res, name in zip(runs[bases:], names[bases:]):
        done = _completed(res)
        gone = [pid for pid in had if pid not in done]
        if gone:
            out.append({"run": name, "points": gone})
    return out


def pooled(figures, b):
    """The count figures of the base runs pooled and scaled to b's
    repeats that ran, for count_rule: the base build's rate per repeat,
    so that k base runs weigh as one of b's length."""
    have = [f for f in figures if f and f["ran"]]
    if not have or not b or not b["ran"]:
        return None
    ran = sum(f["ran"] for f in have)
    return {"count": sum(f["count"] for f in have) * b["ran"] / ran,
            "ran": b["ran"]}


def judge_bases(base_summaries, sb, metric, cfg):
    """The change of metric from the base runs (their point summaries,
    any of them None) to sb, by the several-base-runs rule or, for a
    count, count_rule against the base runs pooled."""
    figs = [figure(s, metric) for s in base_summaries]
    b = figure(sb, metric)
    if metric in summary.COUNTS:
        verdict, ch, allow = count_rule(pooled(figs, b), b, metric,
                                        cfg["floor_pct"])
        return {"verdict": verdict, "change_pct": ch, "allowance_pct": allow,
                "test": "count", "p": None}
    return stats.compare_bases(
        [f["median"] for f in figs if f], b["median"] if b else None,
        summary.METRICS[metric][1], cfg)


def _entry(p):
    entry = {k: p[k] for k in ("id", "series", "mode", "rw", "bs",
                               "iodepth", "numjobs", "clients")}
    # a run written before replicas has none: one
    entry["replicas"] = p.get("replicas", 1)
    entry["metrics"] = {}
    return entry


def _counts(points):
    counts = {}
    for e in points:
        for m in e["metrics"].values():
            for c in m["changes"]:
                counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    return counts


def _rule(cfg):
    return {"floor_pct": cfg["floor_pct"],
            "spread_factor": cfg["spread_factor"],
            "alpha": cfg.get("alpha", stats.DEFAULT_ALPHA)}


def compare_bases(bases, news, names=None):
    """bases: the results of k runs of the base build; news: of the runs
    judged against them (none: the base runs' detectable change alone).
    The first base run's plan gives the points, metrics and rule.
    Returns compare()'s document with "bases": k, and for each point and
    metric "detectable_pct" and "base_medians"; "changes" has one entry
    per run of news. Fewer than stats.MIN_BASES base runs: compare()'s
    rule of one base run, "detectable_pct" None."""
    runs = list(bases) + list(news)
    names = names or ["run %d" % (k + 1) for k in range(len(runs))]
    if len(bases) < stats.MIN_BASES:
        c = compare(runs, names)
        for e in c["points"]:
            for m in e["metrics"].values():
                m["detectable_pct"] = None
        c["bases"] = len(bases)
        return c
    cfg = bases[0]["plan"]["compare"]
    metrics = cfg["metrics"]
    planmod.check_metrics(metrics, "the base run's compare.metrics")
    summs = [summary.run(r) for r in runs]
    k = len(bases)
    out = []
    for p in bases[0]["points"]:
        entry = _entry(p)
        for m in metrics:
            pts = [s.get(p["id"]) for s in summs]
            figs = [figure(s, m) for s in pts]
            changes = [judge_bases(pts[:k], s, m, cfg) for s in pts[k:]]
            row = {"summaries": figs, "changes": changes,
                   "detectable_pct": None, "base_medians": None}
            if m not in summary.COUNTS:
                meds = [f["median"] for f in figs[:k] if f]
                row["base_medians"] = meds
                row["detectable_pct"] = stats.detectable(
                    meds, summary.METRICS[m][1], cfg)
            entry["metrics"][m] = row
        out.append(entry)
    return {"runs": names, "bases": k, "metrics": metrics,
            "rule": dict(_rule(cfg), test="prediction"), "points": out,
            "counts": _counts(out), "lost": lost(runs, names, k)}


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
        entry = _entry(p)
        for m in metrics:
            pts = [s.get(p["id"]) for s in summs]
            entry["metrics"][m] = {
                "summaries": [figure(s, m) for s in pts],
                "changes": [judge(pts[0], s, m, cfg) for s in pts[1:]]}
        out.append(entry)
    return {"runs": names, "metrics": metrics, "rule": _rule(cfg),
            "points": out, "counts": _counts(out), "lost": lost(runs, names)}
