#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The judge of qualify/tests/twoguests, on the host after the guests
are gone:

    bed_check.py RUN --out DIR --bed-seconds N [--same RUN_B] [--slower RUN_C]
                 [--ssh] [--initiators N] [--expect-failed PATTERN REGEX]

RUN: every point completed; every figure results.json holds for a point
read back from the fio output it came from (parsed here on its own, not
by rpma_qualify.metrics); every perftest baseline has its result;
`rpma-qualify report` writes report.html, verdict.json and junit.xml,
exits non-zero exactly when a case failed, and each threshold's value
and outcome agree with the fio JSON. --same: `compare RUN RUN_B` calls
every point the same. --slower (netem delay on the target's link):
`compare RUN RUN_C` calls lat_p50 a regression on every point.
--ssh: the hosts other than the tool's measured over ssh, their counters
read around every repeat. --initiators N: N initiators, each point of
several clients spread over them. --expect-failed: the points whose ids
match PATTERN fail, each repeat's reason matching REGEX (a platform's
limit the tool must report), and are left out of "every point
completed"."""

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "rpma-qualify")
results = []


def check(name, ok, detail=""):
    ok = bool(ok)
    results.append(ok)
    line = "%s: %s%s" % ("PASS" if ok else "FAIL", name,
                         " (%s)" % detail if detail else "")
    say(line)
    return ok


def skip(name, why):
    """A check this bed cannot judge: neither passed nor failed."""
    say("SKIP: %s (%s)" % (name, why))


def say(line):
    print(line, flush=True)
    # twoguests adds up the checks of every judge (QUALIFY_CHECKS)
    if os.environ.get("QUALIFY_CHECKS"):
        with open(os.environ["QUALIFY_CHECKS"], "a") as f:
            f.write(line.split("\n")[0] + "\n")


# An independent oracle: the bed checks rpma-qualify's figures against
# its own reading of fio's report and its own median, on purpose not the
# measurement package's (rpma_measure) that the tool stands on.
def oracle_fio_report(path):
    with open(path) as f:
        text = f.read()
    start = text.index("\n{") + 1 if not text.startswith("{") else 0
    end = text.rindex("\n}") + 2
    return json.loads(text[start:end])


def oracle_median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-9 * max(
        abs(a), abs(b), 1)


def perftest_figure(res, p, metric):
    """perftest's figure a relative threshold on a point's lat_p99.9 or
    iops multiplies, straight from results.json's baselines: the latency
    or bandwidth test of the point's direction and size."""
    d = "read" if p["rw"] in ("read", "randread", "randrw") else "write"
    bs = str(p["bs"]).lower()
    size = int(bs.rstrip("km")) << {"k": 10, "m": 20}.get(bs[-1], 0)
    if metric == "lat_p99.9":
        b = res["baselines"].get("%s_lat/%d" % (d, size), {})
        return (b.get("result") or {}).get("p99.9_us")
    b = res["baselines"].get("%s_bw/%d" % (d, size), {})
    rate = (b.get("result") or {}).get("msg_rate_mpps")
    return rate * 1e6 if rate else None


def raw_figures(run, p, r):
    """iops and p99.9 (us) of one repeat, straight from its fio JSON."""
    rep = oracle_fio_report(os.path.join(run, r["fio_output"]))
    jobs = [j for j in rep["client_stats"] if j["jobname"] == "qualify-client"]
    d = "read" if p["rw"] == "read" else "write"
    iops = sum(j[d]["iops"] for j in jobs)
    p999 = max(j[d]["clat_ns"]["percentile"]["99.900000"] for j in jobs) / 1000
    return iops, p999, jobs


def snia(series):
    """SNIA's steady state of a window, computed here on its own: 5
    rounds, range within 20 % of their mean, the least-squares line's
    move across them within 10 %; (range %, slope %, steady)."""
    step = len(series) // 5
    if not step or len(series) % 5:
        return None, None, False
    r = [sum(series[i * step:(i + 1) * step]) / step for i in range(5)]
    mean = sum(r) / 5
    if mean <= 0:
        return None, None, False
    slope = sum((x - 2) * (y - mean) for x, y in enumerate(r)) / 10
    rng = (max(r) - min(r)) / mean * 100
    move = abs(slope) * 4 / mean * 100
    return rng, move, rng <= 20 and move <= 10


def same_figure(a, b):
    return a is None and b is None or close(a, b)


def check_steady(run, res):
    """Every done repeat of a time-based point has its steady-state
    record, each client job's judged again from its fio JSON."""
    bad, n = [], 0
    for p in res["points"]:
        if p["mode"].startswith("aof"):
            continue
        for r in p["repeats"]:
            if r["status"] != "done":
                continue
            n += 1
            rec = r["metrics"].get("steady_state")
            jobs = raw_figures(run, p, r)[2]
            if not rec or len(rec["jobs"]) != len(jobs):
                bad.append("%s: %s" % (p["id"], "no record" if not rec else
                                       "%d jobs judged of %d" % (
                                           len(rec["jobs"]), len(jobs))))
                continue
            for j, got in zip(jobs, rec["jobs"]):
                rng, move, ok = snia(j["steadystate"]["data"]["iops"])
                if (ok != got["steady"]
                        or not same_figure(rng, got["range_pct"])
                        or not same_figure(move, got["slope_pct"])):
                    bad.append("%s: %s, fio JSON %s" % (
                        p["id"], (got["steady"], got["range_pct"],
                                  got["slope_pct"]), (ok, rng, move)))
    check("a steady-state record per repeat, as judged from fio's JSON",
          n and not bad, "; ".join(bad) or "%d repeats" % n)


def check_run(run, out, expect_failed=(), verdict=None, not_quiet=None):
    """The run's own checks; verdict, when given, the one its plan's
    thresholds must give ("PASS" or "FAIL"), SKIP when not_quiet says why
    the bed was not quiet."""
    with open(os.path.join(run, "results.json")) as f:
        res = json.load(f)
    pts = res["points"]
    # the points that must fail, and say why: (pattern, reason regex)
    for pat, why in expect_failed:
        hits = [(p["id"], r) for p in pts if fnmatch.fnmatchcase(p["id"], pat)
                for r in p["repeats"]]
        check("%s fails, saying %r" % (pat, why), hits and all(
            r["status"] == "failed" and re.search(why, r.get("reason", ""))
            for _, r in hits), "; ".join(
                "%s: %s" % (i, r.get("reason", r["status"])) for i, r in hits))
    expected = [p["id"] for p in pts if any(
        fnmatch.fnmatchcase(p["id"], pat) for pat, _ in expect_failed)]
    bad = ["%s: %s" % (p["id"], r.get("reason", r["status"]))
           for p in pts for r in p["repeats"]
           if r["status"] != "done" and p["id"] not in expected]
    check("every point of %s completed" % res["plan"]["name"]
          + (" but those" if expected else ""), not bad,
          "; ".join(bad) or "%d points x %d repeats" % (
              len(pts) - len(expected), res["plan"]["repeats"]))
    mism = []
    n = 0
    for p in pts:
        for r in p["repeats"]:
            if r["status"] != "done":
                continue
            iops, p999, jobs = raw_figures(run, p, r)
            m = r["metrics"]
            n += 1
            if not close(iops, m["iops"]):
                mism.append("%s iops %s != fio %s" % (p["id"], m["iops"], iops))
            if not close(p999, m["lat_us"]["p99.9"]):
                mism.append("%s p99.9 %s != fio %s" % (p["id"],
                                                       m["lat_us"]["p99.9"],
                                                       p999))
            if p["clients"] > 1 and len(jobs) != p["clients"]:
                mism.append("%s: %d client jobs" % (p["id"], len(jobs)))
            if p["rw"] == "write" and not m["verified_bytes"]:
                mism.append("%s verified nothing" % p["id"])
    check("results.json's figures are fio JSON's", not mism and n > 0,
          "; ".join(mism) or "%d repeats read back" % n)
    if "steady_state" in res["plan"]:
        check_steady(run, res)
    # perftest under emulation on a loaded host may not calibrate its
    # clock ("Correlation coefficient r^2 ... < 0.9": no figures) or may
    # hang: the mechanism (servers through the target's fio, the client
    # here, the output parsed) must have worked for one test at least,
    # and each test that failed must say why
    b = res["baselines"]
    if not res["plan"]["baseline"]["tests"]:
        check("no perftest baselines asked, none run", not b,
              ", ".join(sorted(b)))
    else:
        done = sorted(k for k, v in b.items() if v["status"] == "done")
        failed = ["%s: %s" % (k, v.get("reason", v["status"]).splitlines()[0])
                  for k, v in sorted(b.items()) if v["status"] != "done"]
        check("perftest baselines", done and all(
            v.get("reason") for v in b.values() if v["status"] != "done"),
              "done: %s; failed: %s" % (", ".join(done) or "none",
                                        "; ".join(failed) or "none"))
    target = [h for h in res["hosts"].values() if h["role"] == "target"]
    check("the target's environment recorded",
          bool(target and target[0].get("env")
               and target[0]["env"].get("rdma_devices")),
          target[0].get("env_source") if target else "no target")
    # report, verdict, junit
    rc = subprocess.run([TOOL, "report", run]).returncode
    files = [f for f in ("report.html", "verdict.json", "junit.xml")
             if os.path.exists(os.path.join(run, f))]
    check("report writes report.html, verdict.json, junit.xml",
          len(files) == 3, ", ".join(files))
    if len(files) < 3:
        return res
    with open(os.path.join(run, "verdict.json")) as f:
        v = json.load(f)
    got = "PASS" if v["passed"] else "FAIL"
    check("report's exit status follows the verdict", (rc == 0) == v["passed"],
          "exit %d, verdict %s" % (rc, got))
    if verdict and not_quiet:
        skip("%s: the verdict is %s" % (os.path.basename(run), verdict),
             "it is %s; the bed was not quiet: %s" % (got, not_quiet))
    elif verdict:
        check("%s: the verdict is %s" % (os.path.basename(run), verdict),
              got == verdict, "%s; failed: %s" % (got, "; ".join(
                  c["name"] for c in v["cases"] if not c["passed"]) or "none"))
    suite = ET.parse(os.path.join(run, "junit.xml")).getroot().find(
        "testsuite")
    cases = list(suite.iter("testcase"))
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    # besides the thresholds: "every point completed", and steady state
    # where the plan requires it
    ss = res["plan"].get("steady_state")
    implicit = 2 if ss and ss.get("required", True) else 1
    check("junit.xml: one test case per threshold, failures as verdict.json",
          len(cases) == len(res["plan"]["thresholds"]) + implicit and failed
          == {c["name"] for c in v["cases"] if not c["passed"]},
          "%d cases, %d failed" % (len(cases), len(failed)))
    # each latency or IOPS threshold's value from the fio JSON
    wrong = []
    by_id = {p["id"]: p for p in pts}
    for c in v["cases"]:
        if c["metric"] not in ("lat_p99.9", "iops"):
            continue
        for row in c["points"]:
            p = by_id[row["point"]]
            vals = [raw_figures(run, p, r)[1 if c["metric"] == "lat_p99.9"
                                           else 0]
                    for r in p["repeats"] if r["status"] == "done"]
            if not vals:
                # no repeat done: the verdict has no figure either
                if row["value"] is not None:
                    wrong.append("%s %s: verdict %s, fio none" % (
                        c["name"], p["id"], row["value"]))
                continue
            want = oracle_median(vals)
            t = [t for t in res["plan"]["thresholds"]
                 if t.get("name") == c["name"]][0]
            factor = perftest_figure(res, p, c["metric"]) if t.get(
                "relative_to") == "perftest" else 1
            if factor is None:
                # no baseline: the case cannot pass
                if row["passed"]:
                    wrong.append("%s %s: passed without a perftest figure"
                                 % (c["name"], p["id"]))
                continue
            ok = (want <= t["max"] * factor if "max" in t
                  else want >= t["min"] * factor)
            if not close(want, row["value"]) or ok != row["passed"]:
                wrong.append("%s %s: verdict %s (%s), fio %s (%s)" % (
                    c["name"], p["id"], row["value"], row["passed"], want, ok))
    check("thresholds judged on the fio JSON's figures", not wrong,
          "; ".join(wrong))
    return res


def check_ssh(res):
    """--ssh: every host but the one the tool ran on measured over ssh
    (its own host name, its RDMA device) and its counters read before
    and after every repeat."""
    far = {n: h for n, h in res["hosts"].items()
           if h.get("env_source") != "measured here"}
    here = [h["env"]["hostname"] for h in res["hosts"].values()
            if h.get("env_source") == "measured here"]
    bad = ["%s: %s" % (n, h.get("env_source")) for n, h in far.items()
           if h.get("env_source") != "over ssh" or not h.get("env")
           or not h["env"].get("rdma_devices")
           or h["env"].get("hostname") in here]
    check("--ssh: the other hosts' environments over ssh",
          far and len(here) == 1 and not bad, "; ".join(bad) or ", ".join(
              "%s is %s" % (n, h["env"]["hostname"]) for n, h in far.items()))
    missing = ["%s: %s" % (p["id"], ", ".join(r["counters_missing"]))
               for p in res["points"] for r in p["repeats"]
               if r.get("counters_missing")]
    reps = [r for p in res["points"] for r in p["repeats"]
            if r["status"] == "done"]
    check("--ssh: every host's RDMA counters around every repeat",
          reps and not missing and all(
              set(r["counters"]) == set(res["hosts"]) for r in reps),
          "; ".join(missing) or "%d hosts x %d repeats" % (
              len(res["hosts"]), len(reps)))


def check_initiators(run, res, n):
    """--initiators N: the run had N initiators, and every point of
    several clients drew its client jobs from each of them, as fio's
    JSON and the per-client view say."""
    inits = res["setup"]["initiators"]
    spread = []
    for p in res["points"]:
        if p["clients"] < 2:
            continue
        for r in p["repeats"]:
            if r["status"] != "done":
                continue
            _, _, jobs = raw_figures(run, p, r)
            fio_hosts = sorted({j["hostname"] for j in jobs})
            view = sorted(set(r["metrics"].get("per_client", {})
                              .get("hosts", [])))
            spread.append((p["id"], fio_hosts, view))
    bad = ["%s: fio %s, per-client view %s" % s for s in spread
           if len(s[1]) != min(n, len(inits)) or s[1] != s[2]]
    check("%d initiators: each point of several clients spread over them"
          % n, len(inits) == n and spread and not bad,
          "; ".join(bad) or "; ".join("%s: %s" % (s[0], ", ".join(s[1]))
                                      for s in spread))


def check_compare(a, b, out, what):
    d = os.path.join(out, "compare-" + what)
    rc = subprocess.run([TOOL, "compare", a, b, "--out", d]).returncode
    if not check("compare (%s) runs" % what, rc == 0, "exit %d" % rc):
        return None
    with open(os.path.join(d, "compare.json")) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bed-seconds", type=int)
    ap.add_argument("--same")
    ap.add_argument("--slower")
    # the healthy runs' verdict PASS, the slower run's FAIL
    ap.add_argument("--verdicts", action="store_true")
    # why the verdicts and the slower run's comparison are not judged
    ap.add_argument("--bed-not-quiet", metavar="WHY")
    ap.add_argument("--ssh", action="store_true")
    ap.add_argument("--initiators", type=int)
    ap.add_argument("--expect-failed", action="append", default=[], nargs=2,
                    metavar=("PATTERN", "REGEX"))
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.run, "results.json")):
        check("the run left results.json", False, a.run)
        return 1
    res = check_run(a.run, a.out, a.expect_failed,
                    "PASS" if a.verdicts else None, a.bed_not_quiet)
    if a.ssh:
        check_ssh(res)
    if a.initiators:
        check_initiators(a.run, res, a.initiators)
    if a.same:
        check_run(a.same, a.out, verdict="PASS" if a.verdicts else None,
                  not_quiet=a.bed_not_quiet)
        c = check_compare(a.run, a.same, a.out, "same")
        if c:
            diff = ["%s %s %s %.1f%% (allowance %.1f%%)" % (
                p["id"], m, ch["verdict"], ch["change_pct"],
                ch["allowance_pct"])
                for p in c["points"] for m, v in p["metrics"].items()
                for ch in v["changes"] if ch["verdict"] != "same"]
            check("the same build twice: every point the same", not diff,
                  "; ".join(diff) or "%d points x %d metrics" % (
                      len(c["points"]), len(c["metrics"])))
    if a.slower:
        check_run(a.slower, a.out, verdict="FAIL" if a.verdicts else None,
                  not_quiet=a.bed_not_quiet)
        c = check_compare(a.run, a.slower, a.out, "slower")
        if c and a.bed_not_quiet:
            skip("netem delay on the target: lat_p50 a regression on every "
                 "point", "the bed was not quiet: %s" % a.bed_not_quiet)
        elif c:
            lat = [(p["id"], p["metrics"]["lat_p50"]["changes"][0])
                   for p in c["points"]]
            miss = ["%s %s %s%%" % (i, ch["verdict"], ch["change_pct"])
                    for i, ch in lat if ch["verdict"] != "regression"]
            check("netem delay on the target: lat_p50 a regression on every "
                  "point", not miss, "; ".join(miss) or ", ".join(
                      "%+.0f%%" % ch["change_pct"] for _, ch in lat))
    elapsed = res.get("elapsed_s")
    print("plan %s: %s s in rpma-qualify run; %s s for the bed in all"
          % (res["plan"]["name"], elapsed, a.bed_seconds))
    print("bed_check: %d of %d checks passed" % (results.count(True),
                                                  len(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
