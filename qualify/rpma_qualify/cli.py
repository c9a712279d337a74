# SPDX-License-Identifier: BSD-3-Clause
"""The command line of rpma-qualify (rpma-qualify(1))."""

import argparse
import json
import os
import sys

from . import VERSION, env, plan as planmod, runner


def _env_files(items):
    out = {}
    for it in items or []:
        host, sep, path = it.partition("=")
        if not sep or not path:
            raise SystemExit("rpma-qualify: --env-file wants HOST=FILE, not %r"
                             % it)
        out[host] = os.path.abspath(path)
    return out


def cmd_run(a):
    overrides = {"ramp_time": a.ramp_time, "runtime": a.runtime,
                 "repeats": a.repeats, "size": a.size}
    plan = planmod.select(planmod.load(a.plan, overrides), a.only)
    if a.no_baselines:
        plan["baseline"]["tests"] = []
    planmod.points(plan)
    res = runner.new(plan, a.out, a.target, a.initiator, a.target_rdma,
                     a.ssh, _env_files(a.env_file))
    failed = runner.Runner(a.out, res, a.quiet, a.stop_after).run()
    return 1 if failed else 0


def cmd_continue(a):
    res = runner.load(a.dir)
    if a.retry_failed:
        for p in res["points"]:
            for i, r in enumerate(p["repeats"]):
                if r["status"] == "failed":
                    p["repeats"][i] = {"status": "pending"}
    failed = runner.Runner(a.dir, res, a.quiet, a.stop_after).run()
    return 1 if failed else 0


def cmd_report(a):
    from . import report
    ref = runner.load(a.reference) if a.reference else None
    passed = report.write(a.dir, runner.load(a.dir), ref)
    print("%s: %s" % (os.path.join(a.dir, "report.html"),
                      "verdict PASS" if passed else "verdict FAIL"))
    return 0 if passed else 1


def cmd_compare(a):
    from . import report
    several = a.against is not None or a.detectable
    dirs = a.dirs + (a.against or [])
    runs = [runner.load(d) for d in dirs]
    os.makedirs(a.out, exist_ok=True)
    names = _names(dirs)
    c = report.write_compare(a.out, runs, names,
                             len(a.dirs) if several else None)
    print("%s: %s" % (os.path.join(a.out, "compare.html"), ", ".join(
        "%d %s" % (n, k) for k, n in sorted(c["counts"].items()))
        or "no run judged"))
    if c.get("bases", 1) >= 2:
        print("detectable change with %d base runs (the smallest the rule "
              "calls a regression):" % c["bases"])
        for pid, text in report.detectable_text(c):
            print("  %s: %s" % (pid, text))
    base = "the base runs" if c.get("bases", 1) >= 2 else names[0]
    for g in c["lost"]:
        print("rpma-qualify: %s lost %d points that %s completed: %s" % (
            g["run"], len(g["points"]), base, ", ".join(g["points"])),
            file=sys.stderr)
    if a.fail_on_regression and (c["counts"].get("regression") or c["lost"]):
        return 1
    return 0


def _names(dirs):
    """The runs by their directories' names where those tell them apart,
    else by their paths."""
    names = [os.path.basename(os.path.normpath(d)) for d in dirs]
    return names if len(set(names)) == len(names) else list(dirs)


def cmd_history(a):
    from . import history
    h = history.write(a.out, [runner.load(d) for d in a.dirs],
                      _names(a.dirs))
    steps = ["%s %s in %s" % (p["id"], m, c["run"])
             for p in h["points"] for m, row in p["metrics"].items()
             for c in row if c["step"] == "regression"]
    print("%s: %d runs, %d regressions%s" % (
        os.path.join(a.out, "history.html"), len(a.dirs), len(steps),
        (": " + "; ".join(steps)) if steps else ""))
    return 0


def cmd_env(a):
    json.dump(env.collect(), sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


def cmd_plans(a):
    if a.name:
        p = planmod.select(planmod.load(a.name), a.only)
        pts = planmod.points(p)
        for pt in pts:
            print(pt["id"])
        per = p["ramp_time"] + p["runtime"]
        print("%d points x %d repeats, %d s of I/O each" % (
            len(pts), p["repeats"], per), file=sys.stderr)
        return 0
    for n in planmod.shipped():
        print(n)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="rpma-qualify",
        description="Qualification runs of the librpma fio engines.")
    ap.add_argument("--version", action="version", version=VERSION)
    sub = ap.add_subparsers(dest="cmd", required=True)
    # what run and continue share: how much to run now, and how to say it
    progress = argparse.ArgumentParser(add_help=False)
    progress.add_argument("--quiet", action="store_true")
    progress.add_argument("--stop-after", type=int, metavar="N",
                          help="stop after N repeats (continue goes on)")
    r = sub.add_parser("run", help="run a plan", parents=[progress])
    r.add_argument("plan", help="a plan file, or quick / full")
    r.add_argument("--target", required=True,
                   help="the target's fio --server (HOST or HOST,PORT)")
    r.add_argument("--initiator", action="append", required=True,
                   help="an initiator's fio --server (repeatable)")
    r.add_argument("--target-rdma", help="the target's RDMA address "
                   "(default: --target's host)")
    r.add_argument("--out", required=True, help="the run's directory")
    r.add_argument("--ssh", action="store_true",
                   help="reach hosts other than this one over ssh for "
                   "their environment, counters and perftest")
    r.add_argument("--env-file", action="append", metavar="HOST=FILE",
                   help="HOST's environment from `rpma-qualify env` there")
    r.add_argument("--ramp-time", type=int)
    r.add_argument("--runtime", type=int)
    r.add_argument("--repeats", type=int)
    r.add_argument("--size", help="each client's region (fio's size=; an "
                   "append-only log's point appends it once)")
    r.add_argument("--no-baselines", action="store_true",
                   help="no perftest baselines (nor fractions of them)")
    r.add_argument("--only", action="append", metavar="PATTERN",
                   help="only the points of this series, or whose ids "
                   "match this shell pattern (repeatable)")
    r.set_defaults(func=cmd_run)
    c = sub.add_parser("continue", help="go on with an interrupted run",
                       parents=[progress])
    c.add_argument("dir")
    c.add_argument("--retry-failed", action="store_true")
    c.set_defaults(func=cmd_continue)
    rep = sub.add_parser("report", help="report.html, verdict.json, junit.xml")
    rep.add_argument("dir")
    rep.add_argument("--reference", metavar="DIR",
                     help="the run whose medians thresholds relative_to "
                     "reference multiply")
    rep.set_defaults(func=cmd_report)
    cmp_ = sub.add_parser("compare", help="overlay runs, call changes")
    cmp_.add_argument("dirs", nargs="+")
    cmp_.add_argument("--against", action="append", metavar="NEW",
                      help="judge NEW against DIRs, runs of one base build "
                      "(repeatable)")
    cmp_.add_argument("--detectable", action="store_true",
                      help="DIRs are runs of one base build: the smallest "
                      "change they let the rule call, no run judged")
    cmp_.add_argument("--out", required=True)
    cmp_.add_argument("--fail-on-regression", action="store_true")
    cmp_.set_defaults(func=cmd_compare)
    hist = sub.add_parser("history", help="many runs' figures in order: "
                          "history.html, history.ndjson")
    hist.add_argument("dirs", nargs="+")
    hist.add_argument("--out", required=True)
    hist.set_defaults(func=cmd_history)
    e = sub.add_parser("env", help="this host's environment, as JSON")
    e.set_defaults(func=cmd_env)
    pl = sub.add_parser("plans", help="the shipped plans, or a plan's points")
    pl.add_argument("name", nargs="?")
    pl.add_argument("--only", action="append", metavar="PATTERN",
                    help="as run's --only")
    pl.set_defaults(func=cmd_plans)
    a = ap.parse_args(argv)
    if a.cmd == "compare":
        if a.against is not None and a.detectable:
            ap.error("--detectable judges no run: not with --against")
        if a.detectable and len(a.dirs) < 2:
            ap.error("--detectable wants two base runs at least")
        if a.against is None and len(a.dirs) < 2:
            ap.error("compare wants two runs at least")
    # a plan or a run directory the command cannot use: its message, exit 2
    try:
        return a.func(a)
    except (planmod.PlanError, runner.RunError) as e:
        print("rpma-qualify: %s" % e, file=sys.stderr)
        return 2
