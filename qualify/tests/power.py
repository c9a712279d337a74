#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The comparison rule's measured power on the two-guest bed
(qualify/tests/twoguests --power, `make check-qualify-power`):

    power.py delay RUN PCT
        the netem spec ("delay_NNNus") that slows the bed by about PCT %:
        PCT % of the bed's own p50 (the median, over RUN's points, of
        each point's median lat_p50); the guest asks for it once RUN's
        first round is done
    power.py judge RUNS --out DIR
        RUNS/bN: runs of one build; RUNS/sPCT: the same build with the
        target's egress delayed by about PCT %. Every pair of the bN is
        compared by the rule `rpma-qualify compare` applies
        (rpma_qualify.compare), and each sPCT against every bN. Writes
        DIR/summary.md (the tables) and DIR/power.json; exit 0 when the
        goals hold: at least 10 pairs of one build, none called
        different on any point and metric, and the 25 % slowdown flagged
        (lat_p50 a regression) on every point against every base run.

A planted slowdown is "flagged on a point" against a base run when the
rule calls that point's lat_p50 a regression; the table gives, per level
and point, the share of base runs against which it was, and the change
actually measured (the planted run's median against the median of the
base runs' medians), since one delay slows points of different latency
by different shares."""

import argparse
import itertools
import json
import os
import re
import sys

from rpma_measure import stats
from rpma_qualify import compare, runner, summary

GOAL_FLAGGED_PCT = 25
MIN_PAIRS = 10


def bed_p50(run):
    """The median over the points of RUN of each point's median lat_p50 (us)."""
    summ = summary.run(runner.load(run))
    return stats.median(s["lat_p50"]["median"] for s in summ.values()
                        if s.get("lat_p50"))


def cmd_delay(a):
    us = max(1, round(bed_p50(a.run) * a.pct / 100))
    print("delay_%dus" % us)
    return 0


def level_of(name):
    m = re.fullmatch(r"s(\d+)", name)
    return int(m.group(1)) if m else None


def changed(cmp):
    """[(point, metric, verdict, change %)] of every change the comparison
    of two runs did not call the same."""
    return [(p["id"], m, ch["verdict"], ch["change_pct"])
            for p in cmp["points"] for m, v in p["metrics"].items()
            for ch in v["changes"] if ch["verdict"] != "same"]


def judge(runs_dir):
    names = sorted(os.listdir(runs_dir))
    base = sorted((n for n in names if re.fullmatch(r"b\d+", n)),
                  key=lambda n: int(n[1:]))
    planted = sorted((n for n in names if level_of(n) is not None),
                     key=level_of)
    if not base:
        raise SystemExit("power.py: no run of the build (bN) in %s" % runs_dir)
    res = {n: runner.load(os.path.join(runs_dir, n)) for n in base + planted}
    summ = {n: summary.run(r) for n, r in res.items()}
    points = [p["id"] for p in res[base[0]]["points"]]
    pairs = []
    for a, b in itertools.combinations(base, 2):
        diff = changed(compare.compare([res[a], res[b]], [a, b]))
        pairs.append({"a": a, "b": b, "different": diff})
    levels = []
    for s in planted:
        per_point = {}
        for pid in points:
            base_med = stats.median(summ[b][pid]["lat_p50"]["median"]
                                    for b in base if summ[b].get(pid))
            got = summ[s].get(pid)
            per_point[pid] = {
                "change_pct": (got["lat_p50"]["median"] - base_med) / base_med
                * 100 if got else None,
                "flagged": 0, "against": 0}
        for b in base:
            cmp = compare.compare([res[b], res[s]], [b, s])
            for p in cmp["points"]:
                ch = p["metrics"]["lat_p50"]["changes"][0]
                e = per_point[p["id"]]
                e["against"] += 1
                e["flagged"] += ch["verdict"] == "regression"
        levels.append({"run": s, "pct": level_of(s), "points": per_point})
    return {"base_runs": base, "points": points, "pairs": pairs,
            "levels": levels, "rule": res[base[0]]["plan"]["compare"],
            "repeats": [len(p["repeats"]) for p in res[base[0]]["points"]]}


def everywhere(level):
    return all(e["against"] and e["flagged"] == e["against"]
               for e in level["points"].values())


def table(j):
    rule = j["rule"]
    false = sum(len(p["different"]) for p in j["pairs"])
    lines = [
        "Runs of one build: %d (%d pairs), %s repeats a point; the rule: "
        "Mann-Whitney U at alpha %s with a floor of %s %%, metrics %s."
        % (len(j["base_runs"]), len(j["pairs"]),
           "/".join(str(n) for n in sorted(set(j["repeats"]))),
           rule.get("alpha", stats.DEFAULT_ALPHA), rule["floor_pct"],
           ", ".join(rule["metrics"])),
        "",
        "Pairs of one build called different on a point and metric: %d of "
        "%d comparisons." % (false, len(j["pairs"]) * len(j["points"])
                             * len(rule["metrics"])),
    ]
    for p in j["pairs"]:
        for pid, m, verdict, ch in p["different"]:
            lines.append("- %s against %s: %s %s %s (%+.1f %%)"
                         % (p["b"], p["a"], pid, m, verdict, ch))
    lines += ["", "| planted | " + " | ".join(j["points"]) + " |",
              "|---|" + "---|" * len(j["points"])]
    for lv in j["levels"]:
        cells = []
        for pid in j["points"]:
            e = lv["points"][pid]
            ch = "n/a" if e["change_pct"] is None else "%+.0f %%" % e["change_pct"]
            cells.append("%s: flagged %d of %d" % (ch, e["flagged"], e["against"]))
        lines.append("| about %d %% | %s |" % (lv["pct"], " | ".join(cells)))
    caught = [lv["pct"] for lv in j["levels"] if everywhere(lv)]
    lines += ["", "Smallest planted slowdown flagged on every point against "
              "every run of the build: %s." % (
                  "about %d %%" % min(caught) if caught else "none")]
    return "\n".join(lines) + "\n", false, caught


def cmd_judge(a):
    j = judge(a.runs)
    text, false, caught = table(j)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "power.json"), "w") as f:
        json.dump(j, f, indent=1)
    with open(os.path.join(a.out, "summary.md"), "w") as f:
        f.write(text)
    print(text, end="")
    goals = [
        ("at least %d pairs of one build" % MIN_PAIRS, len(j["pairs"]) >= MIN_PAIRS),
        ("no pair of one build called different", false == 0),
        ("about %d %% flagged on every point" % GOAL_FLAGGED_PCT,
         any(p <= GOAL_FLAGGED_PCT for p in caught)),
    ]
    for name, ok in goals:
        print("%s: %s" % ("PASS" if ok else "FAIL", name))
    return 0 if all(ok for _, ok in goals) else 1


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("delay")
    d.add_argument("run")
    d.add_argument("pct", type=float)
    d.set_defaults(func=cmd_delay)
    j = sub.add_parser("judge")
    j.add_argument("runs")
    j.add_argument("--out", required=True)
    j.set_defaults(func=cmd_judge)
    a = ap.parse_args()
    return a.func(a)


if __name__ == "__main__":
    sys.exit(main())
