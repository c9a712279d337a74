# SPDX-License-Identifier: BSD-3-Clause
"""A run's points reduced to flat metrics over their repeats: what the
report shows, the verdicts judge and compare compares."""

from rpma_measure import stats

from . import perftest, plan as planmod

# metric: (unit, better, what) -- better: "higher", "lower" or None
METRICS = {
    "iops": ("IOPS", "higher", "operations per second, all clients"),
    "bw_bytes": ("MiB/s", "higher", "bandwidth, all clients"),
    "lat_mean": ("us", "lower", "mean completion latency"),
    "lat_p50": ("us", "lower", "median completion latency"),
    "lat_p99": ("us", "lower", "99th percentile"),
    "lat_p99.9": ("us", "lower", "99.9th percentile"),
    "lat_p99.99": ("us", "lower", "99.99th percentile"),
    "lat_max": ("us", "lower", "largest latency"),
    "cpu_client_us_per_op": ("us/op", "lower", "client CPU per operation"),
    "cpu_server_us_per_op": ("us/op", "lower", "server CPU per operation"),
    "bw_fraction": ("", "higher", "bandwidth / perftest's"),
    "lat_fraction": ("", "higher", "perftest's typical latency / p50"),
    "jain": ("", "higher", "Jain fairness index of the clients' IOPS"),
    "verify_errors": ("", "lower", "verify errors, all repeats"),
    "rnr_naks": ("", "lower", "RNR NAK counters' change, all hosts"),
    "retries": ("", "lower", "retry counters' change, all hosts"),
    "failed_repeats": ("", "lower", "repeats that failed"),
}
# counts add up over repeats; the others are summarized
COUNTS = ("verify_errors", "rnr_naks", "retries", "failed_repeats")


def repeat_metrics(r, baseline, bs_bytes):
    """The flat metrics of one done repeat."""
    m = r["metrics"]
    lat = m["lat_us"]
    f = {"iops": m["iops"], "bw_bytes": m["bw_bytes"] / (1 << 20),
         "lat_mean": lat.get("mean"), "lat_max": lat.get("max"),
         "cpu_client_us_per_op": m["cpu"]["client_us_per_op"],
         "cpu_server_us_per_op": m["cpu"]["server_us_per_op"]}
    for p in ("50", "99", "99.9", "99.99"):
        f["lat_p" + p] = lat.get("p" + p)
    if "bw" in baseline and baseline["bw"]["bw_avg_bytes"]:
        f["bw_fraction"] = m["bw_bytes"] / baseline["bw"]["bw_avg_bytes"]
    if "lat" in baseline and f["lat_p50"]:
        f["lat_fraction"] = baseline["lat"]["t_typical_us"] / f["lat_p50"]
    if m.get("per_client"):
        f["jain"] = m["per_client"]["jain"]
    return f


def point(p, baselines):
    """{metric: summary} of a point, and its counts."""
    bs = planmod.size_bytes(p["bs"])
    base = perftest.for_point(baselines, p["rw"], bs)
    done = [r for r in p["repeats"] if r["status"] == "done"]
    per = [repeat_metrics(r, base, bs) for r in done]
    out = {}
    for k in METRICS:
        if k in COUNTS:
            continue
        s = stats.summary([x.get(k) for x in per])
        if s:
            out[k] = s
    out["verify_errors"] = sum(r.get("metrics", {}).get("verify_errors", 0)
                               for r in p["repeats"])
    for c in ("rnr_naks", "retries"):
        out[c] = sum((d or {}).get(c, 0) for r in p["repeats"]
                     for d in (r.get("counters") or {}).values())
    out["failed_repeats"] = sum(1 for r in p["repeats"]
                                if r["status"] == "failed")
    out["pending_repeats"] = sum(1 for r in p["repeats"]
                                 if r["status"] == "pending")
    out["ran_repeats"] = len(p["repeats"]) - out["pending_repeats"]
    judged = [r["metrics"]["steady_state"] for r in done
              if r["metrics"].get("steady_state")]
    if judged:
        out["steady_state"] = {"judged": len(judged), "steady": sum(
            1 for j in judged if j["steady"]), "repeats": judged}
    # the per-client view of the repeat with the median IOPS
    pcs = [r["metrics"]["per_client"] for r in done
           if r["metrics"].get("per_client")]
    if pcs:
        pcs.sort(key=lambda x: sum(x["values"]))
        out["per_client"] = pcs[len(pcs) // 2]
    out["baseline"] = base
    return out


def run(res):
    """{point id: point summary} of a run."""
    return {p["id"]: point(p, res.get("baselines")) for p in res["points"]}


def value(summ, metric):
    """The figure a threshold or a table takes: a count, or the median."""
    v = summ.get(metric)
    if isinstance(v, dict):
        return v["median"]
    return v
