# SPDX-License-Identifier: BSD-3-Clause
"""history: the figures of many runs, in the order given, per point and
metric: DIR/history.html (one self-contained page) and
DIR/history.ndjson (one line per figure, for a lab's own database)."""

import calendar
import json
import os
import time

from rpma_measure import record

from . import compare as comparemod, plan as planmod, report, summary

# what the environment of a host says about a figure, by the name a
# change is reported under
ENV_FIELDS = (
    ("kernel", lambda e: e.get("kernel")),
    ("firmware", lambda e: ", ".join(
        "%s %s" % (d.get("name"), d.get("fw_ver"))
        for d in e.get("rdma_devices") or []) or None),
    ("rdma-core", lambda e: e.get("rdma_core")),
    ("fio", lambda e: e.get("fio")),
    ("rpma", lambda e: "rpma-qualify %s, librpma %s" % (
        (e.get("rpma") or {}).get("rpma_qualify"),
        (e.get("rpma") or {}).get("librpma_pkgconfig"))
        if e.get("rpma") else None),
    ("perftest", lambda e: e.get("perftest")),
)


def environment(res):
    """{role: {field: value} or None} of a run: the target, then its
    initiators as "initiator", "initiator 2", ... (their addresses may
    change from run to run; their roles do not). None: not recorded."""
    out, k = {}, 0
    for ent in (res.get("hosts") or {}).values():
        if ent.get("role") == "target":
            role = "target"
        else:
            k += 1
            role = "initiator" if k == 1 else "initiator %d" % k
        e = ent.get("env")
        out[role] = {n: f(e) for n, f in ENV_FIELDS} if e else None
    return out


def env_changes(prev, cur):
    """What changed from one run's environment to the next, named."""
    out = []
    for role in list(prev) + [r for r in cur if r not in prev]:
        a, b = prev.get(role), cur.get(role)
        if a is None and b is None:
            continue
        if b is None:
            out.append("%s: not recorded" % role)
        elif a is None:
            out.append("%s: recorded" % role)
        else:
            out += ["%s %s: %s -> %s" % (role, n, a[n], b[n])
                    for n, _ in ENV_FIELDS if a[n] != b[n]]
    return out


def build(runs, names):
    """{"metrics", "runs": [{name, started, environment}],
    "environment_changes": [[...] per run], "points": [{id, series,
    "metrics": {m: [{run, median, min, max, n, step} per run]}}]}: step,
    the comparison rule's verdict on the change from the run before (the
    earlier run's plan's rule), None for the first run or a figure
    missing."""
    metrics = runs[0]["plan"]["compare"]["metrics"]
    planmod.check_metrics(metrics, "the first run's compare.metrics")
    summs = [summary.run(r) for r in runs]
    envs = [environment(r) for r in runs]
    order, series = [], {}
    for r in runs:
        for p in r["points"]:
            if p["id"] not in series:
                order.append(p["id"])
                series[p["id"]] = p["series"]
    points = []
    for pid in order:
        entry = {"id": pid, "series": series[pid], "metrics": {}}
        for m in metrics:
            row = []
            for k, (s, name) in enumerate(zip(summs, names)):
                f = comparemod.figure(s.get(pid), m)
                cell = {"run": name, "median": None, "min": None,
                        "max": None, "n": 0, "step": None}
                if f and m in summary.COUNTS:
                    cell.update(median=f["count"], min=f["count"],
                                max=f["count"], n=f["ran"])
                elif f:
                    cell.update(median=f["median"], min=f["min"],
                                max=f["max"], n=f["n"])
                if k and f and summs[k - 1].get(pid):
                    ch = comparemod.judge(summs[k - 1][pid], s[pid], m,
                                          runs[k - 1]["plan"]["compare"])
                    cell["step"] = ch["verdict"]
                row.append(cell)
            entry["metrics"][m] = row
        points.append(entry)
    return {"metrics": metrics,
            "runs": [{"name": n, "started": r.get("started"),
                      "environment": e}
                     for n, r, e in zip(names, runs, envs)],
            "environment_changes": [[]] + [env_changes(a, b) for a, b in
                                           zip(envs, envs[1:])],
            "points": points}


def _epoch(started):
    """a run's start (results.json: "2026-12-04T18:41:42Z") in seconds
    since the epoch, None when not recorded"""
    try:
        return calendar.timegm(time.strptime(started, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def ndjson(h):
    """One JSON object a line per figure (a run's median of a point's
    metric), a sample of the measurement package's record format
    (rpma_measure.record: metric, value, unit, metadata, timestamp), its
    metadata the point, the run, its environment, and the range and
    repeats behind it."""
    envs = {r["name"]: r for r in h["runs"]}
    for p in h["points"]:
        for m, row in p["metrics"].items():
            for c in row:
                if c["median"] is None:
                    continue
                started = envs[c["run"]]["started"]
                yield json.dumps(record.sample(
                    m, c["median"], summary.METRICS[m][0],
                    {"point": p["id"], "series": p["series"], "run": c["run"],
                     "started": started, "min": c["min"], "max": c["max"],
                     "repeats": c["n"], "step": c["step"],
                     "environment": envs[c["run"]]["environment"]},
                    _epoch(started)), sort_keys=True)


def chart(p, names):
    """One figure per point: each metric's median per run, its whisker
    the repeats' range, a regression step in red."""
    plt = report._plt()
    ms = list(p["metrics"])
    fig, axes = plt.subplots(1, len(ms), figsize=(3.8 * len(ms), 3.0),
                             squeeze=False)
    xs = list(range(len(names)))
    for ax, m in zip(axes[0], ms):
        row = p["metrics"][m]
        med = [c["median"] if c["median"] is not None else float("nan")
               for c in row]
        lo = [c["median"] - c["min"] if c["median"] is not None else 0
              for c in row]
        hi = [c["max"] - c["median"] if c["median"] is not None else 0
              for c in row]
        ax.errorbar(xs, med, yerr=[lo, hi], fmt="o-", capsize=3)
        for x, c in zip(xs, row):
            if c["step"] == "regression":
                ax.plot([x], [c["median"]], "o", color="red", markersize=10)
        ax.set_xticks(xs)
        ax.set_xticklabels(names, rotation=20, fontsize=7)
        ax.set_title("%s (%s is better)" % (m, summary.METRICS[m][1]),
                     fontsize=9)
        ax.set_ylabel(summary.METRICS[m][0] or m, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    return report._png(fig)


def page(h):
    names = [r["name"] for r in h["runs"]]
    body = ["<p>%d runs in the order given; per point and metric each "
            "run's median of its repeats and their range (min..max). A "
            "step the comparison rule (rpma-qualify(1), COMPARISON RULE) "
            "calls a regression from the run before is marked, in red on "
            "the charts.</p>" % len(names)]
    body.append("<h2>Runs</h2><table><tr><th class=l>run</th><th class=l>"
                "started</th><th class=l>environment changed since the run "
                "before</th></tr>")
    for r, ch in zip(h["runs"], h["environment_changes"]):
        body.append("<tr><td class=l>%s</td><td class=l>%s</td><td class=l>"
                    "%s</td></tr>" % (report.esc(r["name"]),
                                      report.esc(r["started"] or "-"),
                                      report.esc("; ".join(ch) or "-")))
    body.append("</table><h2>Points</h2>")
    for p in h["points"]:
        body.append("<h3>%s</h3>" % report.esc(p["id"]))
        body.append('<img alt="%s" src="%s">' % (report.esc(p["id"]),
                                                  chart(p, names)))
        body.append("<table><tr><th class=l>metric</th>%s</tr>" % "".join(
            "<th>%s</th>" % report.esc(n) for n in names))
        for m, row in p["metrics"].items():
            body.append("<tr><td class=l>%s (%s)</td>" % (
                report.esc(m), report.esc(summary.METRICS[m][0] or "-")))
            for c in row:
                body.append(
                    '<td class="%s" data-point="%s" data-metric="%s" '
                    'data-run="%s" data-step="%s">%s<br><span class=note>'
                    '%s..%s%s</span></td>' % (
                        c["step"] or "", report.esc(p["id"]),
                        report.esc(m), report.esc(c["run"]),
                        c["step"] or "", report.fmt(c["median"]),
                        report.fmt(c["min"]), report.fmt(c["max"]),
                        " " + c["step"] if c["step"] not in (None, "same")
                        else ""))
            body.append("</tr>")
        body.append("</table>")
    return report.page("rpma-qualify: history", "".join(body))


def write(out, runs, names):
    """DIR/history.html and DIR/history.ndjson; returns build()'s."""
    h = build(runs, names)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "history.ndjson"), "w") as f:
        for line in ndjson(h):
            f.write(line + "\n")
    with open(os.path.join(out, "history.html"), "w") as f:
        f.write(page(h))
    return h
