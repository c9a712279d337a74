# SPDX-License-Identifier: BSD-3-Clause
"""report.html (one self-contained file: charts as data: URIs, no
network), verdict.json and junit.xml of a run; compare.html of runs."""

import base64
import html
import io
import json
import os

from . import compare as comparemod, summary, verdict

LAT_SHOWN = ["lat_p50", "lat_p99", "lat_p99.9", "lat_p99.99", "lat_max"]
AXES = ("bs", "iodepth", "numjobs", "clients", "replicas")


def axis(p, a):
    """A point's value on axis a: a run written before replicas has
    none, which is one"""
    return p.get(a, 1) if a == "replicas" else p[a]

# Every page checks itself once loaded: each chart decoded (no broken
# image) and no script error; the result goes into #render-check, which
# a headless browser's DOM dump shows (qualify/tests/browser_check.py).
SELF_CHECK = """<script>
window.qualifyErrors = [];
window.addEventListener('error', function (e) {
  window.qualifyErrors.push(e.message || ('failed to load ' +
    ((e.target && e.target.alt) || e.type)));
}, true);
window.addEventListener('load', function () {
  var imgs = document.images, broken = [];
  for (var i = 0; i < imgs.length; i++)
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) broken.push(imgs[i].alt);
  var s = document.getElementById('render-check');
  s.setAttribute('data-images', String(imgs.length));
  s.setAttribute('data-broken', broken.join('|'));
  s.setAttribute('data-errors', window.qualifyErrors.join('|'));
  s.setAttribute('data-done', '1');
  s.textContent = imgs.length + ' charts, ' + broken.length + ' broken, ' +
    window.qualifyErrors.length + ' script errors';
});
</script>"""

STYLE = """<style>
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1200px; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: right; }
th { background: #eee; } td.l, th.l { text-align: left; }
.pass { color: #070; font-weight: bold; } .fail { color: #b00; font-weight: bold; }
.regression { background: #fcc; } .improvement { background: #cfc; }
.note { color: #555; font-size: 90%; } img { max-width: 100%; }
</style>"""


def fmt(v):
    """How every figure of a table is written (browser_check.py reads it
    back with the same tolerance)."""
    if v is None:
        return "-"
    if isinstance(v, int):
        return str(v)
    a = abs(v)
    if a >= 1000:
        return "%.0f" % v
    if a >= 100:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    return "%.3g" % v


def esc(s):
    return html.escape(str(s))


def _png(fig):
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    import matplotlib.pyplot as plt
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def label(p, pts):
    """A point's name within its series: the axes that vary there."""
    vary = [a for a in AXES if len({axis(q, a) for q in pts}) > 1]
    return " ".join("%s=%s" % (a, axis(p, a)) for a in vary) or "bs=%s qd=%s" % (
        p["bs"], p["iodepth"])


def _errbars(ss):
    med = [s["median"] if s else float("nan") for s in ss]
    lo = [s["median"] - s["min"] if s else 0 for s in ss]
    hi = [s["max"] - s["median"] if s else 0 for s in ss]
    return med, [lo, hi]


def series_chart(name, runs):
    """runs: [(run label, [(point label, {metric: summary})])]; one figure:
    throughput (higher is better) beside latency (lower is better)."""
    plt = _plt()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.6))
    n = len(runs)
    w = 0.8 / max(n, 1)
    for k, (rname, pts) in enumerate(runs):
        xs = [i + (k - (n - 1) / 2) * w for i in range(len(pts))]
        med, err = _errbars([s.get("iops") for _, s in pts])
        ax1.bar(xs, med, w, yerr=err, capsize=3, label=rname)
        for j, (m, mk) in enumerate((("lat_p50", "o"), ("lat_p99", "s"),
                                     ("lat_p99.9", "^"))):
            med, err = _errbars([s.get(m) for _, s in pts])
            ax2.errorbar(xs, med, yerr=err, fmt=mk, capsize=3,
                         label="%s %s" % (rname, m[4:]) if n > 1 else m[4:])
    labels = [lb for lb, _ in runs[0][1]]
    for ax in (ax1, ax2):
        ax.set_xticks(range(len(labels)))
        ax.set_xticklabels(labels, rotation=20, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    ax1.set_title("%s: IOPS (higher is better)" % name, fontsize=10)
    ax1.set_ylabel("IOPS (median, bar: min..max)")
    ax2.set_title("%s: latency (lower is better)" % name, fontsize=10)
    ax2.set_ylabel("completion latency, us")
    ax2.set_yscale("log")
    # ticks at 1, 2 and 5 of each decade: a range within one decade would
    # show one labelled tick at most
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax2.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    ax2.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%g" % v))
    ax2.yaxis.set_minor_formatter(NullFormatter())
    if n > 1:
        ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    return _png(fig)


def _series(res):
    order = []
    for p in res["points"]:
        if p["series"] not in order:
            order.append(p["series"])
    return order


ENV_ROWS = [
    ("role", lambda h, e: h.get("role")),
    ("recorded", lambda h, e: h.get("env_source")),
    ("host name", lambda e, _: None),
    ("Debian", lambda h, e: e and "%s (%s)" % (e.get("os"),
                                              e.get("debian_version"))),
    ("kernel", lambda h, e: e and e.get("kernel")),
    ("rdma-core", lambda h, e: e and e.get("rdma_core")),
    ("fio", lambda h, e: e and e.get("fio")),
    ("rpma", lambda h, e: e and "rpma-qualify %s, librpma %s" % (
        e["rpma"].get("rpma_qualify"), e["rpma"].get("librpma_pkgconfig"))),
    ("perftest", lambda h, e: e and e.get("perftest")),
    ("CPU", lambda h, e: e and "%s (%s CPUs)" % (e.get("cpu_model"),
                                                 e.get("cpus"))),
    ("server memory", lambda h, e: ", ".join(h.get("memory_kinds") or [])
     or None),
]


def _dev_text(e):
    out = []
    for d in (e or {}).get("rdma_devices", []):
        ports = "; ".join(
            "port %s %s %s MTU %s %s" % (p.get("port"), p.get("link_layer"),
                                        p.get("state"), p.get("active_mtu"),
                                        p.get("active_speed"))
            for p in d.get("ports", []))
        out.append("%s: vendor %s part %s fw %s, %s, NUMA node %s, on %s; %s"
                   % (d["name"], d.get("vendor_id"), d.get("vendor_part_id"),
                      d.get("fw_ver"), d.get("transport"), d.get("numa_node"),
                      d.get("netdev"), ports))
    return "<br>".join(esc(x) for x in out) or "-"


def env_table(res):
    hosts = list(res["hosts"].items())
    h = ["<table><tr><th class=l></th>"]
    h += ["<th class=l>%s</th>" % esc(n) for n, _ in hosts]
    h.append("</tr>")
    for name, f in ENV_ROWS:
        h.append("<tr><th class=l>%s</th>" % esc(name))
        for _, ent in hosts:
            e = ent.get("env")
            v = (e or {}).get("hostname") if name == "host name" else f(ent, e)
            h.append("<td class=l>%s</td>" % esc(v if v else "-"))
        h.append("</tr>")
    h.append("<tr><th class=l>RDMA devices</th>")
    h += ["<td class=l>%s</td>" % _dev_text(ent.get("env")) for _, ent in hosts]
    h.append("</tr></table>")
    return "".join(h)


def _cell(pid, metric, v):
    return '<td data-point="%s" data-metric="%s">%s</td>' % (
        esc(pid), esc(metric), fmt(v))


def baseline_table(res):
    b = res.get("baselines") or {}
    if not b:
        return "<p class=note>No perftest baselines in this plan.</p>"
    rows = ["<table><tr><th class=l>perftest</th><th>bytes</th>"
            "<th>typical lat, us</th><th>p99.9 lat, us</th>"
            "<th>avg BW, MiB/s</th><th class=l>status</th></tr>"]
    for key in sorted(b):
        e = b[key]
        r = e.get("result") or {}
        t, size = key.split("/")
        rows.append(
            "<tr><td class=l>ib_%s -R</td><td>%s</td>%s%s%s<td class=l>%s</td>"
            "</tr>" % (
                esc(t), size,
                _cell("baseline:" + key, "t_typical_us", r.get("t_typical_us")),
                _cell("baseline:" + key, "p99.9_us", r.get("p99.9_us")),
                _cell("baseline:" + key, "bw_avg_mib",
                      r["bw_avg_bytes"] / (1 << 20) if "bw_avg_bytes" in r
                      else None),
                esc(e["status"] + (": " + e["reason"] if e.get("reason")
                                   else ""))))
    rows.append("</table>")
    return "".join(rows)


def _head(title, columns):
    """A table's title and header row; a column named with a leading "<"
    is aligned left."""
    return "<h3>%s</h3><table><tr>%s</tr>" % (title, "".join(
        "<th class=l>%s</th>" % c[1:] if c.startswith("<") else
        "<th>%s</th>" % c for c in columns))


def _cells(pid, s, metrics):
    return "".join(_cell(pid, m, summary.value(s, m)) for m in metrics)


def _range(r):
    return "%s..%s" % (fmt(r["min"]), fmt(r["max"])) if r else "-"


# after the IOPS median and range
THROUGHPUT_SHOWN = ["bw_bytes", "cpu_client_us_per_op", "cpu_server_us_per_op",
                    "bw_fraction", "lat_fraction", "verify_errors", "rnr_naks",
                    "retries"]


def steady_table(res, summ):
    """Each judged repeat's steady-state record; a point none of whose
    repeats was steady is marked."""
    judged = [(p, summ[p["id"]]["steady_state"]) for p in res["points"]
              if summ[p["id"]].get("steady_state")]
    if not judged:
        return ""
    h = [_head("Steady state (SNIA: 5 rounds of the window, their range "
               "within 20 % and their least-squares line moving less than "
               "10 % of their mean; fio's own criterion beside)", [
                   "<point", "<steady", "<repeat: after s, range %, slope %, "
                   "fio's criterion"])]
    ramp = res["plan"]["ramp_time"]
    for p, s in judged:
        state = ("never steady (0 of %d)" % s["judged"] if not s["steady"]
                 else "%d of %d steady" % (s["steady"], s["judged"]))
        reps = "; ".join(
            "%s after %s s, %s %%, %s %%, fio %s" % (
                "steady" if r["steady"] else "not steady",
                fmt(ramp + r["runtime_s"]),
                fmt(max((j["range_pct"] for j in r["jobs"]
                         if j["range_pct"] is not None), default=None)),
                fmt(max((j["slope_pct"] for j in r["jobs"]
                         if j["slope_pct"] is not None), default=None)),
                "attained" if r["fio_attained"] else "not attained")
            for r in s["repeats"])
        h.append("<tr><td class=l>%s</td><td class=l><span class=%s>%s"
                 "</span></td><td class=l>%s</td></tr>" % (
                     esc(p["id"]), "pass" if s["steady"] else "fail",
                     esc(state), esc(reps)))
    h.append("</table>")
    return "".join(h)


def points_tables(res, summ):
    h = [_head("Throughput, CPU and efficiency", [
        "<point", "repeats", "IOPS median", "IOPS min..max", "MiB/s",
        "client CPU us/op", "server CPU us/op", "BW / perftest",
        "perftest lat / p50", "verify errors", "RNR NAKs", "retries",
        "<status"])]
    for p in res["points"]:
        s = summ[p["id"]]
        io = s.get("iops")
        st = [r.get("reason") for r in p["repeats"] if r["status"] == "failed"]
        status = ("failed: " + "; ".join(st) if st else
                  "%d pending" % s["pending_repeats"] if s["pending_repeats"]
                  else "done")
        h.append("<tr><td class=l>%s</td><td>%d</td>%s<td>%s</td>%s"
                 "<td class=l><span class=%s>%s</span></td></tr>" % (
                     esc(p["id"]), io["n"] if io else 0,
                     _cells(p["id"], s, ["iops"]), _range(io),
                     _cells(p["id"], s, THROUGHPUT_SHOWN),
                     "fail" if st else "pass", esc(status)))
    h.append("</table>")
    h.append(_head("Completion latency, us (median of the repeats; lower is "
                   "better)", ["<point", "mean", "p50", "p99", "p99.9",
                               "p99.99", "max", "p99.9 min..max"]))
    for p in res["points"]:
        s = summ[p["id"]]
        h.append("<tr><td class=l>%s</td>%s<td>%s</td></tr>" % (
            esc(p["id"]), _cells(p["id"], s, ["lat_mean"] + LAT_SHOWN),
            _range(s.get("lat_p99.9"))))
    h.append("</table>")
    h.append(steady_table(res, summ))
    many = [(p, summ[p["id"]]["per_client"]) for p in res["points"]
            if summ[p["id"]].get("per_client")]
    if many:
        h.append(_head("Per client (the repeat of median IOPS)", [
            "<point", "<IOPS per client", "min", "median", "max",
            "Jain index"]))
        for p, pc in many:
            h.append("<tr><td class=l>%s</td><td class=l>%s</td>%s%s%s%s</tr>"
                     % (esc(p["id"]), esc(", ".join(
                         "%s: %s" % (hh, fmt(v)) for hh, v in
                         zip(pc.get("hosts", []), pc["values"]))),
                        _cell(p["id"], "client_min", pc["min"]),
                        _cell(p["id"], "client_median", pc["median"]),
                        _cell(p["id"], "client_max", pc["max"]),
                        _cell(p["id"], "jain", pc["jain"])))
        h.append("</table>")
    return "".join(h)


def verdict_html(cases):
    ok = all(c["passed"] for c in cases)
    h = ["<h2>Verdict: <span class=%s id=verdict>%s</span></h2><table><tr>"
         "<th class=l>case</th><th class=l>result</th><th class=l>detail</th>"
         "</tr>" % ("pass" if ok else "fail", "PASS" if ok else "FAIL")]
    for c in cases:
        h.append("<tr><td class=l>%s</td><td class=l><span class=%s>%s</span>"
                 "</td><td class=l>%s</td></tr>" % (
                     esc(c["name"]), "pass" if c["passed"] else "fail",
                     "pass" if c["passed"] else "FAIL", esc(c["message"])))
    h.append("</table>")
    return "".join(h)


def page(title, body):
    return ("<!DOCTYPE html>\n<html><head><meta charset=utf-8><title>%s"
            "</title>%s%s</head><body><h1>%s</h1>%s<p class=note "
            "id=render-check>not checked (scripts off)</p></body></html>\n"
            % (esc(title), STYLE, SELF_CHECK, esc(title), body))


def write(out, res, reference=None):
    """report.html, verdict.json, junit.xml in out; True if the verdict
    passed. reference: the run relative thresholds may name."""
    summ = summary.run(res)
    cases = verdict.judge(res, summ, reference)
    plan = res["plan"]
    body = ["<p>Plan <b>%s</b>: %s<br>%d points, %d repeats of %d s (after "
            "%d s of ramp); started %s, last update %s; rpma-qualify %s."
            "</p>" % (esc(plan.get("name")), esc(plan.get("description", "")),
                      len(res["points"]), plan["repeats"], plan["runtime"],
                      plan["ramp_time"], esc(res.get("started")),
                      esc(res.get("updated")), esc(res.get("tool_version")))]
    body.append(verdict_html(cases))
    body.append("<h2>Hosts</h2>" + env_table(res))
    body.append("<h2>perftest baselines</h2>" + baseline_table(res))
    body.append("<h2>Series</h2><p class=note>Each bar or mark is the median "
                "of the repeats, its whisker their range (min..max).</p>")
    for name in _series(res):
        pts = [p for p in res["points"] if p["series"] == name]
        done = [(label(p, pts), summ[p["id"]]) for p in pts]
        if any(s.get("iops") for _, s in done):
            body.append('<h3>%s</h3><img alt="%s" src="%s">' % (
                esc(name), esc(name), series_chart(name, [("", done)])))
        else:
            body.append("<h3>%s</h3><p class=note>no completed point</p>"
                        % esc(name))
    missing = sorted({h for p in res["points"] for r in p["repeats"]
                      for h in r.get("counters_missing", [])})
    read = sorted(set(res["hosts"]) - set(missing))
    body.append("<h2>Points</h2><p class=note>Device counters (rdma "
                "statistic) read on: %s; not on: %s (neither this host nor "
                "reachable over --ssh, or without counters).</p>" % (
                    esc(", ".join(read) or "none"),
                    esc(", ".join(missing) or "none")))
    body.append(points_tables(res, summ))
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(page("rpma-qualify: %s" % plan.get("name"), "".join(body)))
    with open(os.path.join(out, "verdict.json"), "w") as f:
        json.dump(verdict.document(res, cases), f, indent=1)
    with open(os.path.join(out, "junit.xml"), "w") as f:
        f.write(verdict.junit(res, cases))
    return all(c["passed"] for c in cases)


def _how(ch):
    """What decided a change: the test's p, or the rule and allowance."""
    if ch.get("test") == "mann-whitney":
        return " (U test p=%s)" % fmt(ch["p"])
    if ch.get("test") == "prediction":
        return "" if ch["p"] is None else " (k=%d, p=%s)" % (ch["k"],
                                                            fmt(ch["p"]))
    if ch["allowance_pct"] is None:
        return ""
    return " (%s rule, allowance %s%%)" % (ch.get("test") or "range",
                                            fmt(ch["allowance_pct"]))


def _change_cell(ch):
    """A change's cell: its verdict, the change and what decided it."""
    return "<td class=%s>%s%s%s</td>" % (
        ch["verdict"], ch["verdict"],
        "" if ch["change_pct"] is None else " %s%%" % fmt(ch["change_pct"]),
        _how(ch))


def _write_page(out, body, rows):
    """compare.html: BODY, then the points' table of ROWS."""
    rows.append("</table>")
    body.append("<h2>Points</h2>" + "".join(rows))
    with open(os.path.join(out, "compare.html"), "w") as f:
        f.write(page("rpma-qualify: comparison", "".join(body)))


def _bases_summary(summs, pid):
    """What the chart draws of k base runs at a point: per metric the
    geometric mean of their medians (the rule's centre), its whisker the
    medians' range."""
    import math
    out = {}
    for m in ("iops", "lat_p50", "lat_p99", "lat_p99.9"):
        meds = [s[pid][m]["median"] for s in summs
                if s.get(pid) and s[pid].get(m) and s[pid][m]["median"] > 0]
        if meds:
            lo, hi = min(meds), max(meds)
            # within [lo, hi] despite rounding (a whisker is never negative)
            centre = math.exp(sum(math.log(v) for v in meds) / len(meds))
            out[m] = {"median": min(max(centre, lo), hi), "min": lo,
                      "max": hi}
    return out


def detectable_text(c):
    """Per point, the detectable change of each metric (compare_bases):
    what compare prints and the page shows."""
    return [(e["id"], ", ".join(
        "%s %s" % (m, "n/a" if v.get("detectable_pct") is None
                   else "%+.0f %%" % v["detectable_pct"])
        for m, v in e["metrics"].items() if m not in summary.COUNTS))
        for e in c["points"]]


def _write_bases(out, runs, names, k):
    """compare.html of runs[k:] against the k base runs runs[:k]."""
    c = comparemod.compare_bases(runs[:k], runs[k:], names)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(c, f, indent=1)
    summs = [summary.run(r) for r in runs]
    r = c["rule"]
    body = ["<p>Base runs (one build, %d): <b>%s</b>; judged against them: "
            "%s.</p>" % (k, esc(", ".join(names[:k])),
                         esc(", ".join(names[k:]) or "none"))]
    body.append("<p>Rule: the run is the unit. A point's metric in a run "
                "is a regression or an improvement when its median lies "
                "outside the prediction interval of level %s for one more "
                "run of the base build (the logarithms of the base runs' "
                "medians: their mean +- t(%s, k-1) x their standard "
                "deviation x sqrt(1 + 1/k)) and differs from their "
                "geometric mean by more than %s %%. <b>Detectable</b>: the "
                "smallest change the rule calls a regression, from the base "
                "runs alone. Counts: against the base runs' pooled per "
                "repeat; any more verify errors or failed repeats is a "
                "regression; RNR NAKs and retries beyond %s %%.</p>" % (
                    fmt(1 - r["alpha"]), fmt(r["alpha"]),
                    fmt(r["floor_pct"]), fmt(r["floor_pct"])))
    body.append("<p>%s</p>" % esc(", ".join(
        "%d %s" % (n, v) for v, n in sorted(c["counts"].items()))
        or "no run judged"))
    for g in c["lost"]:
        body.append("<p class=fail>%s lost %d points that the base runs "
                    "completed: %s</p>" % (esc(g["run"]), len(g["points"]),
                                           esc(", ".join(g["points"]))))
    base = runs[0]
    for name in _series(base):
        pts = [p for p in base["points"] if p["series"] == name]
        rs = [("base runs (%d)" % k, [(label(p, pts), _bases_summary(
            summs[:k], p["id"])) for p in pts])]
        rs += [(nm, [(label(p, pts), s.get(p["id"], {})) for p in pts])
               for nm, s in zip(names[k:], summs[k:])]
        body.append('<h3>%s</h3><img alt="%s" src="%s">' % (
            esc(name), esc(name), series_chart(name, rs)))
    h = ["<table><tr><th class=l>point</th><th class=l>metric</th>"
         "<th>base runs' medians</th><th>detectable</th>"]
    h += ["<th>%s</th><th>%s vs the base runs</th>" % (esc(n), esc(n))
          for n in names[k:]]
    h.append("</tr>")
    for e in c["points"]:
        for m, v in e["metrics"].items():
            h.append("<tr><td class=l>%s</td><td class=l>%s (%s is better)"
                     "</td>" % (esc(e["id"]), esc(m), summary.METRICS[m][1]))
            meds = v.get("base_medians")
            if meds:
                h.append("<td>%s..%s</td>" % (fmt(min(meds)), fmt(max(meds))))
            else:
                h.append("<td>%s</td>" % ", ".join(
                    fmt(f.get("count")) if f else "-"
                    for f in v["summaries"][:k]))
            d = v.get("detectable_pct")
            h.append("<td>%s</td>" % ("-" if d is None else "%s%%" % fmt(d)))
            for f, ch in zip(v["summaries"][k:], v["changes"]):
                h.append("<td>%s</td>%s" % (
                    fmt(f.get("median", f.get("count")) if f else None),
                    _change_cell(ch)))
            h.append("</tr>")
    _write_page(out, body, h)
    return c


def write_compare(out, runs, names, bases=None):
    """compare.html and compare.json: runs[1:] against runs[0], or with
    BASES (k >= 2) the runs after the first k against those k, runs of
    one base build (rpma-qualify(1), SEVERAL BASE RUNS)."""
    if bases is not None and bases >= 2:
        return _write_bases(out, runs, names, bases)
    c = comparemod.compare(runs, names)
    with open(os.path.join(out, "compare.json"), "w") as f:
        json.dump(c, f, indent=1)
    summs = [summary.run(r) for r in runs]
    base = runs[0]
    body = ["<p>Base run: <b>%s</b>; compared: %s.</p>" % (
        esc(names[0]), esc(", ".join(names[1:])))]
    r = c["rule"]
    body.append("<p>Rule: a point's metric is called a regression or an "
                "improvement when a Mann-Whitney U test of the two runs' "
                "repeats gives a two-sided p below %s and the medians differ "
                "by more than %s %%. Where the runs have too few repeats for "
                "the test to reach that level (3 and 3: p 0.1 at best), the "
                "range rule decides, which one outlier can blind: the "
                "repeats' ranges do not overlap and the medians differ by "
                "more than max(%s %%, %s x the larger relative spread "
                "(max-min)/median). Counts: any more verify errors or failed "
                "repeats is a regression; RNR NAKs and retries per repeat "
                "beyond %s %%.</p>" % (
                    fmt(r["alpha"]), fmt(r["floor_pct"]),
                    fmt(r["floor_pct"]), fmt(r["spread_factor"]),
                    fmt(r["floor_pct"])))
    body.append("<p>%s</p>" % esc(", ".join(
        "%d %s" % (n, k) for k, n in sorted(c["counts"].items()))))
    for g in c["lost"]:
        body.append("<p class=fail>%s lost %d points that %s completed: %s"
                    "</p>" % (esc(g["run"]), len(g["points"]), esc(names[0]),
                              esc(", ".join(g["points"]))))
    for name in _series(base):
        pts = [p for p in base["points"] if p["series"] == name]
        rs = [(nm, [(label(p, pts), s.get(p["id"], {})) for p in pts])
              for nm, s in zip(names, summs)]
        body.append('<h3>%s</h3><img alt="%s" src="%s">' % (
            esc(name), esc(name), series_chart(name, rs)))
    h = ["<table><tr><th class=l>point</th><th class=l>metric</th>"]
    h += ["<th>%s</th>" % esc(n) for n in names]
    h += ["<th>%s vs %s</th>" % (esc(n), esc(names[0])) for n in names[1:]]
    h.append("</tr>")
    for e in c["points"]:
        for m, v in e["metrics"].items():
            h.append("<tr><td class=l>%s</td><td class=l>%s (%s is better)"
                     "</td>" % (esc(e["id"]), esc(m), summary.METRICS[m][1]))
            # a count's figure is its total over the repeats
            h += ["<td>%s</td>" % fmt(s.get("median", s.get("count"))
                                      if s else None)
                  for s in v["summaries"]]
            h += [_change_cell(ch) for ch in v["changes"]]
            h.append("</tr>")
    _write_page(out, body, h)
    return c
